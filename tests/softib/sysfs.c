// SPDX-License-Identifier: GPL-2.0
/*
 * The port sysfs group rdmavt requires (vt.c:check_support):
 * /sys/class/infiniband/softibN/ports/P/softib/, no ABI promise.
 */
#include <rdma/ib_sysfs.h>

#include "softib.h"

/* The cable's far end, "sw0:3", or "none". */
static ssize_t peer_show(struct ib_device *ibdev, u32 port_num,
			 struct ib_port_attribute *attr, char *buf)
{
	struct softib_hca *hca = softib_hca_from_ibdev(ibdev);
	struct softib_port *peer = hca->hports[port_num - 1].port->peer;

	if (!peer)
		return sysfs_emit(buf, "none\n");
	return sysfs_emit(buf, "%s:%u\n", peer->node->name, peer->num);
}
static IB_PORT_ATTR_RO(peer);

static struct attribute *softib_sysfs_port_attrs[] = {
	&ib_port_attr_peer.attr,
	NULL
};

static const struct attribute_group softib_sysfs_port_group = {
	.name = "softib",
	.attrs = softib_sysfs_port_attrs,
};

const struct attribute_group *softib_sysfs_port_groups[] = {
	&softib_sysfs_port_group,
	NULL
};
