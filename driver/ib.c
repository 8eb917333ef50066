// SPDX-License-Identifier: GPL-2.0
/*
 * ib.c - the ib_client: an interface per InfiniBand or RoCE port of each
 * RDMA device, made when the device comes and destroyed when it goes.
 * The verbs resources are in verbs.c, address handles in ah.c, the
 * control work and the port's events in ctl.c.
 */
#include <linux/ctype.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/rtnetlink.h>
#include <rdma/ib_cache.h>
#include "ipoib_ng.h"

struct ipn_port_list {
	struct list_head privs;
};

static int ipn_add_one(struct ib_device *ca);
static void ipn_remove_one(struct ib_device *ca, void *client_data);

static struct ib_client ipn_client = {
	.name = IPN_DRV_NAME,
	.add = ipn_add_one,
	.remove = ipn_remove_one,
};

/*
 * One item of ports= (main.c), len bytes at item: "ib", "roce", "<device>"
 * or "<device>:<port>". With name NULL, only its form is checked.
 */
static bool ipn_ports_item(const char *item, size_t len, const char *name,
			   u32 port, bool ib, bool roce)
{
	const char *colon = memchr(item, ':', len);
	size_t nlen = colon ? colon - item : len;
	char num[11];
	size_t i;
	u32 want;

	if (!colon && len == 2 && !memcmp(item, "ib", 2))
		return !name || ib;
	if (!colon && len == 4 && !memcmp(item, "roce", 4))
		return !name || roce;
	if (!nlen || nlen >= IB_DEVICE_NAME_MAX)
		return false;
	for (i = 0; i < nlen; i++)
		if (!isgraph(item[i]))	/* no blank or control in a name */
			return false;
	if (colon) {
		size_t plen = len - nlen - 1;

		if (!plen || plen >= sizeof(num))
			return false;
		memcpy(num, colon + 1, plen);
		num[plen] = '\0';
		/* Decimal, as rdma and ibstat print it: no sign, no 0x. */
		if (num[0] < '1' || num[0] > '9' || kstrtou32(num, 10, &want))
			return false;
	}
	if (!name)
		return true;
	if (strlen(name) != nlen || memcmp(item, name, nlen))
		return false;
	return !colon || want == port;
}

/* ports= has the form its parameter description gives (empty is fine). */
bool ipn_ports_valid(const char *list)
{
	const char *p = list;
	size_t len;

	if (!*p)
		return true;
	for (;;) {
		len = strcspn(p, ",");
		if (!ipn_ports_item(p, len, NULL, 0, false, false))
			return false;
		if (!p[len])
			return true;
		p += len + 1;
	}
}

/*
 * Whether a port (its number, its device's name, InfiniBand or RoCE) gets
 * an interface: every such port when list is empty, else those it names.
 */
bool ipn_ports_select(const char *list, const char *name, u32 port, bool ib,
		      bool roce)
{
	const char *p = list;
	size_t len;

	if (!ib && !roce)
		return false;
	if (!*p)
		return true;
	for (;;) {
		len = strcspn(p, ",");
		if (ipn_ports_item(p, len, name, port, ib, roce))
			return true;
		if (!p[len])
			return false;
		p += len + 1;
	}
}

static int ipn_add_one(struct ib_device *ca)
{
	struct ipn_port_list *pl;
	struct ipn_priv *priv;
	u32 port;
	u16 pkey;
	int count = 0;

	pl = kzalloc(sizeof(*pl), GFP_KERNEL);
	if (!pl)
		return -ENOMEM;
	INIT_LIST_HEAD(&pl->privs);

	rdma_for_each_port(ca, port) {
		/* Unlike ib_ipoib, RoCE ports get an interface too. */
		if (!ipn_ports_select(ipn_ports, dev_name(&ca->dev), port,
				      rdma_protocol_ib(ca, port),
				      rdma_protocol_roce(ca, port)))
			continue;
		if (ib_query_pkey(ca, port, 0, &pkey))
			pkey = IPC_PKEY_DEFAULT;
		priv = ipn_dev_create(ca, port, ipc_pkey_full(pkey));
		if (IS_ERR(priv)) {
			dev_warn(&ca->dev, "%s: port %u: no interface: %pe\n",
				 IPN_DRV_NAME, port, priv);
			continue;
		}
		list_add_tail(&priv->list, &pl->privs);
		count++;
	}
	if (!count) {
		kfree(pl);
		return -EOPNOTSUPP;
	}
	ib_set_client_data(ca, &ipn_client, pl);
	return 0;
}

static void ipn_remove_one(struct ib_device *ca, void *client_data)
{
	struct ipn_port_list *pl = client_data;
	struct ipn_priv *priv;
	LIST_HEAD(kill);

	/* Every interface of the device, children included, in one batch. */
	rtnl_lock();
	list_for_each_entry(priv, &pl->privs, list)
		ipn_dev_unregister_queue(priv, &kill);
	unregister_netdevice_many(&kill);	/* ndo_uninit: off the lists */
	rtnl_unlock();		/* the destructors have run on return */
	WARN_ON(!list_empty(&pl->privs));
	kfree(pl);
}

int ipn_ib_init(void)
{
	int ret;

	ib_sa_register_client(&ipn_sa_client);
	ret = ib_register_client(&ipn_client);
	if (ret)
		ib_sa_unregister_client(&ipn_sa_client);
	return ret;
}

void ipn_ib_exit(void)
{
	ib_unregister_client(&ipn_client);
	ib_sa_unregister_client(&ipn_sa_client);
}
