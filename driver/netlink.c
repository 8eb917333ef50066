// SPDX-License-Identifier: GPL-2.0
/*
 * netlink.c - the "ipoib" rtnl link kind (IFLA_IPOIB_*), shared by name
 * with ib_ipoib: registering it fails while ib_ipoib is loaded. With
 * link_kind=0 ipoib_ng leaves the kind to ib_ipoib and both load.
 */
#include <linux/module.h>
#include <linux/if_link.h>
#include <net/rtnetlink.h>
#include "ipoib_ng.h"

static const struct nla_policy ipn_nl_policy[IFLA_IPOIB_MAX + 1] = {
	[IFLA_IPOIB_PKEY] = { .type = NLA_U16 },
	[IFLA_IPOIB_MODE] = { .type = NLA_U16 },
	[IFLA_IPOIB_UMCAST] = { .type = NLA_U16 },
};

static size_t ipn_nl_get_size(const struct net_device *dev)
{
	return nla_total_size(2) * 3;
}

/* Every interface, however it was made (ib_ipoib omits sysfs children). */
static int ipn_nl_fill_info(struct sk_buff *skb, const struct net_device *dev)
{
	const struct ipn_priv *priv = netdev_priv(dev);

	if (nla_put_u16(skb, IFLA_IPOIB_PKEY, priv->pkey) ||
	    nla_put_u16(skb, IFLA_IPOIB_MODE, READ_ONCE(priv->cm_mode) ?
			IPOIB_MODE_CONNECTED : IPOIB_MODE_DATAGRAM) ||
	    nla_put_u16(skb, IFLA_IPOIB_UMCAST, READ_ONCE(priv->umcast)))
		return -EMSGSIZE;
	return 0;
}

/* Checks that need no device: what values are allowed. */
static int ipn_nl_validate(struct nlattr *tb[], struct nlattr *data[],
			   struct netlink_ext_ack *extack)
{
	if (!data)
		return 0;
	if (data[IFLA_IPOIB_PKEY] &&
	    !ipc_pkey_valid(nla_get_u16(data[IFLA_IPOIB_PKEY]))) {
		NL_SET_ERR_MSG_ATTR(extack, data[IFLA_IPOIB_PKEY],
				    "P_Key 0x0000 and 0x8000 are invalid; use 0x0001-0x7fff (the full-member bit 0x8000 is set for you)");
		return -EINVAL;
	}
	if (data[IFLA_IPOIB_MODE]) {
		u16 mode = nla_get_u16(data[IFLA_IPOIB_MODE]);

		if (mode != IPOIB_MODE_DATAGRAM &&
		    mode != IPOIB_MODE_CONNECTED) {
			NL_SET_ERR_MSG_ATTR(extack, data[IFLA_IPOIB_MODE],
					    "unknown mode; use datagram or connected");
			return -EINVAL;
		}
	}
	if (data[IFLA_IPOIB_UMCAST] &&
	    nla_get_u16(data[IFLA_IPOIB_UMCAST]) > 1) {
		NL_SET_ERR_MSG_ATTR(extack, data[IFLA_IPOIB_UMCAST],
				    "umcast is 0 or 1");
		return -EINVAL;
	}
	return 0;
}

static int ipn_nl_apply(struct ipn_priv *priv, struct nlattr *data[],
			struct netlink_ext_ack *extack)
{
	if (data && data[IFLA_IPOIB_UMCAST])
		WRITE_ONCE(priv->umcast, nla_get_u16(data[IFLA_IPOIB_UMCAST]));
	if (data && data[IFLA_IPOIB_MODE])
		return ipn_dev_set_mode(priv, nla_get_u16(data[IFLA_IPOIB_MODE]) ==
					IPOIB_MODE_CONNECTED, extack);
	return 0;
}

/*
 * ip link add link <port interface> name <name> type ipoib [pkey P]
 * [mode datagram|connected] [umcast 0|1]: a P_Key child, in the parent's partition
 * when no P_Key is given (as ib_ipoib). src_net is where the parent is
 * looked up; the child itself may be made in another namespace.
 */
static int ipn_nl_newlink(struct net *src_net, struct net_device *dev,
			  struct nlattr *tb[], struct nlattr *data[],
			  struct netlink_ext_ack *extack)
{
	struct net_device *pdev;
	struct ipn_priv *ppriv;
	u16 pkey;
	int ret;

	if (!tb[IFLA_LINK]) {
		NL_SET_ERR_MSG(extack,
			       "a P_Key child needs a parent (ip link add link <parent> ...)");
		return -EINVAL;
	}
	pdev = __dev_get_by_index(src_net, nla_get_u32(tb[IFLA_LINK]));
	if (!pdev) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IFLA_LINK], "no such parent interface");
		return -ENODEV;
	}
	if (!ipn_is_ipn_dev(pdev)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IFLA_LINK],
				    "the parent is not an ipoib_ng interface");
		return -EINVAL;
	}
	ppriv = netdev_priv(pdev);
	if (ppriv->parent) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IFLA_LINK],
				    "the parent is a P_Key child itself; children are made on the port's interface");
		return -EINVAL;
	}
	if (!ipn_may_choose_pkey()) {
		NL_SET_ERR_MSG(extack,
			       "a P_Key child needs CAP_NET_ADMIN in the initial user namespace: partitions are the fabric's");
		return -EPERM;
	}
	pkey = ppriv->pkey;
	if (data && data[IFLA_IPOIB_PKEY])
		pkey = ipc_pkey_full(nla_get_u16(data[IFLA_IPOIB_PKEY]));
	ret = ipn_child_create(ppriv, dev, pkey, false);
	if (ret) {
		NL_SET_ERR_MSG(extack, "cannot create the P_Key child (see the kernel log)");
		return ret;
	}
	/* Registered: a mode that cannot be had leaves it datagram, said. */
	ipn_nl_apply(netdev_priv(dev), data, extack);
	return 0;
}

static int ipn_nl_changelink(struct net_device *dev, struct nlattr *tb[],
			     struct nlattr *data[],
			     struct netlink_ext_ack *extack)
{
	struct ipn_priv *priv = netdev_priv(dev);

	if (data && data[IFLA_IPOIB_PKEY] &&
	    ipc_pkey_full(nla_get_u16(data[IFLA_IPOIB_PKEY])) != priv->pkey) {
		NL_SET_ERR_MSG_ATTR(extack, data[IFLA_IPOIB_PKEY],
				    "the P_Key of an interface cannot change; add a child with the new P_Key");
		return -EOPNOTSUPP;
	}
	return ipn_nl_apply(priv, data, extack);
}

/*
 * Children go by netlink. Port interfaces live and die with their RDMA
 * port (rdma link delete): the default dellink would unregister them
 * behind the driver's back.
 */
static void ipn_nl_dellink(struct net_device *dev, struct list_head *head)
{
	struct ipn_priv *priv = netdev_priv(dev);

	if (priv->parent) {
		unregister_netdevice_queue(dev, head);
		return;
	}
	netdev_info(dev, "not deleted: it goes away with its RDMA port (rdma link delete)\n");
}

/* A child's link-netnsid is the namespace of its parent. */
static struct net *ipn_nl_get_link_net(const struct net_device *dev)
{
	const struct ipn_priv *priv = netdev_priv(dev);

	return dev_net(priv->parent ? priv->parent->dev : dev);
}

struct rtnl_link_ops ipn_link_ops __read_mostly = {
	.kind = "ipoib",
	.maxtype = IFLA_IPOIB_MAX,
	.policy = ipn_nl_policy,
	.priv_size = sizeof(struct ipn_priv),
	.setup = ipn_setup,
	.validate = ipn_nl_validate,
	.newlink = ipn_nl_newlink,
	.changelink = ipn_nl_changelink,
	.dellink = ipn_nl_dellink,
	.get_link_net = ipn_nl_get_link_net,
	.netns_refund = true,	/* a port's: back to init_net (children: below) */
	.get_size = ipn_nl_get_size,
	.fill_info = ipn_nl_fill_info,
	.get_num_tx_queues = ipn_txq_max,
};

/*
 * A namespace that dies takes the children in it, as it takes a veth or a
 * macvlan (and ib_ipoib's children), while a port's interface goes back to
 * init_net. netns_refund is one flag for both, as they share
 * ipn_link_ops: children are deleted here, before the refund, as the
 * exits of device pernet operations run newest first and the core's
 * default_device_exit_batch() came before this module. Without it the
 * child of a pod that died without its CNI DEL came back to the host's
 * namespace (as dev<ifindex> if its name was taken), one per pod.
 */
static void __net_exit ipn_net_exit_batch(struct list_head *net_list)
{
	struct net_device *dev, *aux;
	LIST_HEAD(kill);
	struct net *net;

	rtnl_lock();
	list_for_each_entry(net, net_list, exit_list) {
		for_each_netdev_safe(net, dev, aux) {
			if (ipn_is_ipn_dev(dev) &&
			    ((struct ipn_priv *)netdev_priv(dev))->parent)
				ipn_nl_dellink(dev, &kill);
		}
	}
	unregister_netdevice_many(&kill);
	rtnl_unlock();
}

static struct pernet_operations ipn_net_ops = {
	.exit_batch = ipn_net_exit_batch,
};

/*
 * link_kind=N (beside ib_ipoib): no link kind. Interfaces keep
 * ipn_link_ops for their dump and dellink, which go by the device's own
 * ops; `ip link add ... type ipoib` reaches ib_ipoib (admin-guide.rst).
 */
int ipn_netlink_init(void)
{
	int ret;

	ret = register_pernet_device(&ipn_net_ops);
	if (ret)
		return ret;
	if (!ipn_link_kind) {
		pr_info(IPN_DRV_NAME ": link_kind=0: the \"ipoib\" link kind is left to ib_ipoib; make P_Key children with create_child\n");
		return 0;
	}
	ret = rtnl_link_register(&ipn_link_ops);
	if (ret == -EEXIST) {
		pr_err(IPN_DRV_NAME ": the \"ipoib\" link kind is taken: unload ib_ipoib first, or load with link_kind=0 (and ports=) to run beside it\n");
		ret = -EBUSY;	/* -EEXIST would make modprobe report success */
	}
	if (ret)
		unregister_pernet_device(&ipn_net_ops);
	return ret;
}

/* Only after ipn_netlink_init() succeeded; link_kind is read-only. */
void ipn_netlink_exit(void)
{
	if (ipn_link_kind)
		rtnl_link_unregister(&ipn_link_ops);
	unregister_pernet_device(&ipn_net_ops);
}
