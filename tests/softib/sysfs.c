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

/* The SA requests the port sent (enum softib_sa_count), since load. */
#define SOFTIB_SA_ATTR(_name, _count)					\
static ssize_t _name##_show(struct ib_device *ibdev, u32 port_num,	\
			    struct ib_port_attribute *attr, char *buf)	\
{									\
	struct softib_hca *hca = softib_hca_from_ibdev(ibdev);		\
									\
	return sysfs_emit(buf, "%lld\n", (long long)atomic64_read(	\
		&hca->hports[port_num - 1].sa_counts[_count]));		\
}									\
static IB_PORT_ATTR_RO(_name)

SOFTIB_SA_ATTR(sa_requests, SOFTIB_SA_REQUESTS);
SOFTIB_SA_ATTR(sa_joins, SOFTIB_SA_JOINS);
SOFTIB_SA_ATTR(sa_leaves, SOFTIB_SA_LEAVES);
SOFTIB_SA_ATTR(sa_paths, SOFTIB_SA_PATHS);
SOFTIB_SA_ATTR(sa_informs, SOFTIB_SA_INFORMS);
SOFTIB_SA_ATTR(sa_dropped, SOFTIB_SA_DROPPED);
SOFTIB_SA_ATTR(sa_delayed, SOFTIB_SA_DELAYED);

/*
 * The test's fault controls (design: step 7), root only.
 *
 * link: "down" disables the port as PortInfo:PortPhysicalState 3 would
 * (the cable stays, the switch's end polls; the SM sees it by Trap 128);
 * "up" lets it train again to Init, and the SM's sweep brings it Active.
 * Reads "down" while disabled, else "up".
 */
static ssize_t link_show(struct ib_device *ibdev, u32 port_num,
			 struct ib_port_attribute *attr, char *buf)
{
	struct softib_hca *hca = softib_hca_from_ibdev(ibdev);
	struct softib_port *port = hca->hports[port_num - 1].port;

	return sysfs_emit(buf, "%s\n",
			  READ_ONCE(port->phys_state) ==
					  IB_PORT_PHYS_STATE_DISABLED ?
				  "down" : "up");
}

static ssize_t link_store(struct ib_device *ibdev, u32 port_num,
			  struct ib_port_attribute *attr, const char *buf,
			  size_t count)
{
	struct softib_hca *hca = softib_hca_from_ibdev(ibdev);
	struct softib_port *port = hca->hports[port_num - 1].port;

	if (sysfs_streq(buf, "down"))
		softib_fabric_port_disable(port);
	else if (!sysfs_streq(buf, "up"))
		return -EINVAL;
	else if (READ_ONCE(port->phys_state) == IB_PORT_PHYS_STATE_DISABLED)
		softib_fabric_port_bounce(port);
	return count;
}
static IB_PORT_ATTR_ADMIN_RW(link);

/*
 * The SA fault knobs, one show and one store for both:
 * sa_drop_pct: 0-100, the share of the port's SA requests lost;
 * sa_delay_ms: 0 to SOFTIB_SA_DELAY_MAX_MS, how long the SA requests the
 * port sends are held before they go (a slow SA); 0 sends at once. What
 * is held keeps its time when this changes.
 */
static ssize_t sa_knob_show(struct ib_device *ibdev, u32 port_num,
			    struct ib_port_attribute *attr, char *buf);
static ssize_t sa_knob_store(struct ib_device *ibdev, u32 port_num,
			     struct ib_port_attribute *attr,
			     const char *buf, size_t count);
static struct ib_port_attribute ib_port_attr_sa_drop_pct =
	__ATTR(sa_drop_pct, 0600, sa_knob_show, sa_knob_store);
static struct ib_port_attribute ib_port_attr_sa_delay_ms =
	__ATTR(sa_delay_ms, 0600, sa_knob_show, sa_knob_store);

static ssize_t sa_knob_show(struct ib_device *ibdev, u32 port_num,
			    struct ib_port_attribute *attr, char *buf)
{
	struct softib_hca *hca = softib_hca_from_ibdev(ibdev);
	struct softib_hca_port *hp = &hca->hports[port_num - 1];

	return sysfs_emit(buf, "%u\n", attr == &ib_port_attr_sa_drop_pct ?
			  READ_ONCE(hp->sa_drop_pct) :
			  READ_ONCE(hp->sa_delay_ms));
}

static ssize_t sa_knob_store(struct ib_device *ibdev, u32 port_num,
			     struct ib_port_attribute *attr,
			     const char *buf, size_t count)
{
	struct softib_hca *hca = softib_hca_from_ibdev(ibdev);
	struct softib_hca_port *hp = &hca->hports[port_num - 1];
	bool pct = attr == &ib_port_attr_sa_drop_pct;
	unsigned int v;
	int ret;

	ret = kstrtouint(buf, 0, &v);
	if (ret)
		return ret;
	if (v > (pct ? 100 : SOFTIB_SA_DELAY_MAX_MS))
		return -EINVAL;
	if (pct)
		WRITE_ONCE(hp->sa_drop_pct, v);
	else
		WRITE_ONCE(hp->sa_delay_ms, v);
	return count;
}

/*
 * pkeys: the port's PKeyTable, 32 entries in hex; "INDEX PKEY" sets one
 * behind the SM's back (design: step 7), as a PortInfo/PKeyTable Set
 * would, with the same PKEY_CHANGE event to ib_core's clients. The SM
 * puts its own table back on its next heavy sweep.
 */
static ssize_t pkeys_show(struct ib_device *ibdev, u32 port_num,
			  struct ib_port_attribute *attr, char *buf)
{
	struct softib_hca *hca = softib_hca_from_ibdev(ibdev);
	struct softib_hca_port *hp = &hca->hports[port_num - 1];
	int i, n = 0;

	for (i = 0; i < SOFTIB_NPKEYS; i++)
		n += sysfs_emit_at(buf, n, "%s0x%04x", i ? " " : "",
				   READ_ONCE(hp->pkeys[i]));
	return n + sysfs_emit_at(buf, n, "\n");
}

static ssize_t pkeys_store(struct ib_device *ibdev, u32 port_num,
			   struct ib_port_attribute *attr, const char *buf,
			   size_t count)
{
	struct softib_hca *hca = softib_hca_from_ibdev(ibdev);
	struct softib_hca_port *hp = &hca->hports[port_num - 1];
	unsigned int index, pkey;
	char end = 0;

	if (sscanf(buf, "%u %x%c", &index, &pkey, &end) < 2 ||
	    (end != '\n' && end != '\0') || index >= SOFTIB_NPKEYS ||
	    pkey > 0xffff)
		return -EINVAL;
	if (READ_ONCE(hp->pkeys[index]) != pkey) {
		/* rdmavt reads the table without locks. */
		WRITE_ONCE(hp->pkeys[index], pkey);
		softib_hca_event(hca, port_num, IB_EVENT_PKEY_CHANGE);
	}
	return count;
}
static IB_PORT_ATTR_ADMIN_RW(pkeys);

static struct attribute *softib_sysfs_port_attrs[] = {
	&ib_port_attr_peer.attr,
	&ib_port_attr_sa_requests.attr,
	&ib_port_attr_sa_joins.attr,
	&ib_port_attr_sa_leaves.attr,
	&ib_port_attr_sa_paths.attr,
	&ib_port_attr_sa_informs.attr,
	&ib_port_attr_sa_dropped.attr,
	&ib_port_attr_sa_delayed.attr,
	&ib_port_attr_link.attr,
	&ib_port_attr_sa_drop_pct.attr,
	&ib_port_attr_sa_delay_ms.attr,
	&ib_port_attr_pkeys.attr,
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
