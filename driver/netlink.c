// SPDX-License-Identifier: GPL-2.0
/*
 * netlink.c - the "ipoib" rtnl link kind (IFLA_IPOIB_*), shared by name
 * with ib_ipoib: registering it fails while ib_ipoib is loaded, which is
 * how the two drivers are kept apart.
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

static int ipn_nl_fill_info(struct sk_buff *skb, const struct net_device *dev)
{
	const struct ipn_priv *priv = netdev_priv(dev);

	if (nla_put_u16(skb, IFLA_IPOIB_PKEY, priv->pkey) ||
	    nla_put_u16(skb, IFLA_IPOIB_MODE, IPC_MODE_DATAGRAM) ||
	    nla_put_u16(skb, IFLA_IPOIB_UMCAST, 0))
		return -EMSGSIZE;
	return 0;
}

static int ipn_nl_newlink(struct net *src_net, struct net_device *dev,
			  struct nlattr *tb[], struct nlattr *data[],
			  struct netlink_ext_ack *extack)
{
	NL_SET_ERR_MSG(extack, "ipoib_ng: P_Key child interfaces are not supported yet");
	return -EOPNOTSUPP;
}

/*
 * Port interfaces live and die with their RDMA port, never by netlink:
 * the default dellink would unregister them behind the driver's back.
 */
static void ipn_nl_dellink(struct net_device *dev, struct list_head *head)
{
	netdev_info(dev, "not deleted: it goes away with its RDMA port (rdma link delete)\n");
}

static void ipn_nl_setup(struct net_device *dev)
{
	dev->type = ARPHRD_INFINIBAND;
	dev->addr_len = IPC_ADDR_LEN;
}

struct rtnl_link_ops ipn_link_ops __read_mostly = {
	.kind = "ipoib",
	.maxtype = IFLA_IPOIB_MAX,
	.policy = ipn_nl_policy,
	.priv_size = sizeof(struct ipn_priv),
	.setup = ipn_nl_setup,
	.newlink = ipn_nl_newlink,
	.dellink = ipn_nl_dellink,
	.netns_refund = true,	/* back to init_net when its netns dies */
	.get_size = ipn_nl_get_size,
	.fill_info = ipn_nl_fill_info,
};

int ipn_netlink_init(void)
{
	int ret = rtnl_link_register(&ipn_link_ops);

	if (ret == -EEXIST) {
		pr_err(IPN_DRV_NAME ": the \"ipoib\" link kind is taken: unload ib_ipoib first\n");
		ret = -EBUSY;	/* -EEXIST would make modprobe report success */
	}
	return ret;
}

void ipn_netlink_exit(void)
{
	rtnl_link_unregister(&ipn_link_ops);
}
