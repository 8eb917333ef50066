// SPDX-License-Identifier: GPL-2.0
/*
 * hwaddr.c - the hardware address (RFC 4391 s9.1.1: flags, QPN, port GID)
 * and the header_ops that carry it; the GID followed when the port's
 * changes, announced to the neighbours, chosen by the administrator.
 */
#include <linux/if_arp.h>
#include <net/bonding.h>
#include <net/sch_generic.h>
#include <rdma/ib_cache.h>
#include "ipoib_ng.h"

/* ------------------------------------------------------------------ */
/* header_ops: the hardware header is a 20-byte pseudo header (daddr on */
/* TX, the sender's address on RX) followed by the RFC 4391 s6 header.  */
/* ------------------------------------------------------------------ */

static int ipn_hard_header(struct sk_buff *skb, struct net_device *dev,
			   unsigned short type, const void *daddr,
			   const void *saddr, unsigned int len)
{
	u8 *h;

	if (!daddr)
		return -IPN_HARD_LEN;
	h = skb_push(skb, IPN_HARD_LEN);
	memcpy(h, daddr, IPN_PSEUDO_LEN);
	ipc_hdr_build(type, h + IPN_PSEUDO_LEN);
	return IPN_HARD_LEN;
}

static int ipn_header_parse(const struct sk_buff *skb, unsigned char *haddr)
{
	memcpy(haddr, skb_mac_header(skb), IPN_PSEUDO_LEN);
	return IPN_PSEUDO_LEN;
}

IPN_DEFINE_HEADER_PARSE(ipn_header_parse)

static __be16 ipn_header_parse_protocol(const struct sk_buff *skb)
{
	u16 type;

	if (ipc_hdr_parse(skb_mac_header(skb) + IPN_PSEUDO_LEN, IPC_HDR_LEN,
			  &type) != IPC_R_OK)
		return 0;
	return htons(type);
}

static bool ipn_header_validate(const char *ll_header, unsigned int len)
{
	return len >= IPN_HARD_LEN;
}

const struct header_ops ipn_header_ops = {
	.create = ipn_hard_header,
	.parse = IPN_HEADER_PARSE(ipn_header_parse),
	.parse_protocol = ipn_header_parse_protocol,
	.validate = ipn_header_validate,
};

/*
 * dev_addr = flags + our QPN + the port GID at priv->sgid_index: index 0
 * unless the administrator chose another (RFC 4391 s9.1.1).
 */
int ipn_dev_set_hwaddr(struct ipn_priv *priv)
{
	struct ipc_addr a = {
		/* RFC 4755 s3.1: the C bit says we accept connections. */
		.flags = priv->cm_mode ? IPC_ADDR_FLAG_CM : 0,
		.qpn = priv->ifid.qpn,
	};
	u8 hw[IPC_ADDR_LEN];
	union ib_gid gid;
	int ret;

	ret = rdma_query_gid(priv->ca, priv->port, priv->sgid_index, &gid);
	if (ret)
		return ret;
	memcpy(a.gid, gid.raw, sizeof(a.gid));
	memcpy(priv->ifid.gid, gid.raw, sizeof(priv->ifid.gid));
	ipc_addr_encode(&a, hw);
	dev_addr_set(priv->dev, hw);
	return 0;
}

/*
 * The index of gid in our port's GID table, among GIDs of the type of
 * index 0 (a RoCE port may list an address once per RoCE version), or
 * -errno.
 */
static int ipn_gid_index(struct ipn_priv *priv, const u8 *gid)
{
	const struct ib_gid_attr *first, *attr;
	int index;

	first = rdma_get_gid_attr(priv->ca, priv->port, 0);
	if (IS_ERR(first))
		return PTR_ERR(first);
	attr = rdma_find_gid_by_port(priv->ca, (const union ib_gid *)gid,
				     first->gid_type, priv->port, NULL);
	rdma_put_gid_attr(first);
	if (IS_ERR(attr))
		return PTR_ERR(attr);
	index = attr->index;
	rdma_put_gid_attr(attr);
	return index;
}

/*
 * dev_addr follows the port (GID_CHANGE, open): the GID the administrator
 * chose while the port still has it, wherever it now is in the table,
 * else GID index 0. True if dev_addr changed: the caller announces it
 * with ipn_dev_addr_changed() once ctl_mutex is dropped. rtnl and
 * ctl_mutex held.
 */
bool ipn_dev_reread_gid(struct ipn_priv *priv)
{
	struct net_device *dev = priv->dev;
	u8 old[IPC_ADDR_LEN];
	int index = 0;

	lockdep_assert_held(&priv->ctl_mutex);
	if (priv->gid_chosen) {
		index = ipn_gid_index(priv, priv->ifid.gid);
		if (index < 0) {
			netdev_warn(dev, "GID %pI6c left the port's GID table: back to GID index 0\n",
				    priv->ifid.gid);
			priv->gid_chosen = false;
			index = 0;
		}
	}
	memcpy(old, dev->dev_addr, sizeof(old));
	priv->sgid_index = index;
	if (ipn_dev_set_hwaddr(priv)) {
		/* The table is being rewritten: its next GID_CHANGE follows. */
		netdev_dbg(dev, "cannot read GID index %d of the port\n", index);
		return false;
	}
	return memcmp(old, dev->dev_addr, sizeof(old)) != 0;
}

/*
 * The bond whose active slave this interface is and that speaks with
 * addr, or NULL. Bonding allows InfiniBand slaves in active-backup mode
 * only, with fail_over_mac active: the bond speaks with its active
 * slave's hardware address. rtnl held.
 */
static struct net_device *ipn_bond_of(struct ipn_priv *priv, const u8 *addr)
{
	struct net_device *master;

	ASSERT_RTNL();
	master = netdev_master_upper_dev_get(priv->dev);
	if (!master || !netif_is_bond_master(master) ||
	    master->addr_len != IPC_ADDR_LEN ||
	    bond_option_active_slave_get_rcu(netdev_priv(master)) != priv->dev ||
	    memcmp(master->dev_addr, addr, IPC_ADDR_LEN))
		return NULL;
	return master;
}

/*
 * dev_addr is new (told_addr the old one): a bond of which we are the
 * active slave and that speaks with the old address takes the new one,
 * as bonding's failover gives it (bond_set_dev_addr()). Bonding (6.1 to
 * 6.12) copies the active slave's address at a failover only, not when
 * the slave's own address changes (a new GID, QPN or mode): the bond
 * would keep speaking with an address nobody answers to. rtnl held,
 * ctl_mutex not (the bond's notifiers run).
 */
static void ipn_bond_follow(struct ipn_priv *priv)
{
	struct net_device *dev = priv->dev;
	struct net_device *bond = ipn_bond_of(priv, priv->told_addr);
	int ret;

	if (bond) {
		ret = dev_pre_changeaddr_notify(bond, dev->dev_addr, NULL);
		if (ret) {
			netdev_warn(dev, "%s refused our new address: %d\n",
				    bond->name, ret);
		} else {
			dev_addr_set(bond, dev->dev_addr);
			bond->addr_assign_type = NET_ADDR_STOLEN;
			call_netdevice_notifiers(NETDEV_CHANGEADDR, bond);
			netdev_info(dev, "%s, whose active slave this is, takes the new address\n",
				    bond->name);
		}
	}
	memcpy(priv->told_addr, dev->dev_addr, IPC_ADDR_LEN);
}

/*
 * The next of the announcements of a new address (IPC_ANNOUNCE_COUNT,
 * IPC_ANNOUNCE_INTERVAL_MS apart): sent when the link can carry it, else
 * tried again at the next interval; by the bond when it speaks with our
 * address (the IP addresses are the bond's). rtnl held.
 */
static void ipn_dev_announce(struct ipn_priv *priv)
{
	struct net_device *dev = priv->dev;
	struct net_device *bond;

	ASSERT_RTNL();
	if (!priv->announce_left)
		return;
	if (netif_carrier_ok(dev) && !qdisc_tx_changing(dev)) {
		priv->announce_left--;
		bond = ipn_bond_of(priv, dev->dev_addr);
		__netdev_notify_peers(bond ?: dev);
	}
	if (priv->announce_left)
		queue_delayed_work(priv->wq, &priv->announce_work,
				   msecs_to_jiffies(IPC_ANNOUNCE_INTERVAL_MS));
}

/* A new series of announcements, the first now if the link can carry it. */
static void ipn_dev_announce_start(struct ipn_priv *priv)
{
	priv->announce_left = IPC_ANNOUNCE_COUNT;
	ipn_dev_announce(priv);
}

void ipn_announce_work(struct work_struct *work)
{
	struct ipn_priv *priv = container_of(to_delayed_work(work),
					     struct ipn_priv, announce_work);

	rtnl_lock();
	if (netif_running(priv->dev))
		ipn_dev_announce(priv);
	rtnl_unlock();
}

/*
 * Announce a new dev_addr: NETDEV_CHANGEADDR flushes our neighbours; a
 * bond that spoke with the old address takes the new one; NETDEV_NOTIFY_PEERS
 * sends a gratuitous ARP and an unsolicited NA, now if up and again at the
 * next carrier-up, so that peers do not keep the old address. Nothing if
 * the stack knows this address already (a resize's open told it, a mode
 * switch kept it). rtnl held, ctl_mutex not.
 */
void ipn_dev_addr_changed(struct ipn_priv *priv)
{
	struct net_device *dev = priv->dev;

	ASSERT_RTNL();
	if (!memcmp(priv->told_addr, dev->dev_addr, IPC_ADDR_LEN))
		return;
	netdev_info(dev, "hardware address now %*phC\n", IPC_ADDR_LEN,
		    dev->dev_addr);
	call_netdevice_notifiers(NETDEV_CHANGEADDR, dev);
	ipn_bond_follow(priv);
	/*
	 * At the next carrier-up (ipn_netdev_event()), and now if up: a GID
	 * changes while its port goes down or comes up (a RoCE netdev's MAC
	 * changes with the port down), and an announcement sent meanwhile
	 * is lost with the port's queues; one changed while the interface
	 * is down is told when it is up again.
	 */
	priv->notify_peers = true;
	if (netif_running(dev))
		ipn_dev_announce_start(priv);
}

/*
 * The broadcast-GID takes another scope (the broadcast group search,
 * mcast.c). Every IP multicast MGID carries the same scope (RFC 4391 s4),
 * so the stack maps its groups again, as around a link type change:
 * NETDEV_PRE_TYPE_CHANGE and NETDEV_POST_TYPE_CHANGE make IPv4 and IPv6
 * drop and re-add their multicast addresses around the new dev->broadcast
 * (a listener may veto it). Neighbours built on the
 * old broadcast address go with NETDEV_CHANGEADDR. rtnl held.
 */
int ipn_dev_set_bcast_scope(struct ipn_priv *priv, u8 scope)
{
	struct net_device *dev = priv->dev;
	u8 b[IPC_ADDR_LEN];
	int ret;

	ASSERT_RTNL();
	ipc_addr_broadcast(priv->pkey, scope, b);
	if (!memcmp(b, dev->broadcast, IPC_ADDR_LEN))
		return 0;
	ret = call_netdevice_notifiers(NETDEV_PRE_TYPE_CHANGE, dev);
	ret = notifier_to_errno(ret);
	if (ret)
		return ret;
	memcpy(dev->broadcast, b, IPC_ADDR_LEN);
	spin_lock_bh(&priv->lock);
	memcpy(priv->ifid.bcast_gid, ipn_addr_gid(b), IPC_GID_LEN);
	spin_unlock_bh(&priv->lock);
	call_netdevice_notifiers(NETDEV_POST_TYPE_CHANGE, dev);
	call_netdevice_notifiers(NETDEV_CHANGEADDR, dev);
	return 0;
}

/*
 * The announcement of a new address, again at the first carrier-up after
 * it (ipn_dev_addr_changed()): an announcement made while the carrier was
 * off, or while the port was going down or up, is lost. Linkwatch sends
 * NETDEV_CHANGE once the qdisc is active again. And a RoCE interface's
 * Ethernet MTU (roce.c). rtnl held.
 */
static int ipn_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct ipn_priv *priv;

	ASSERT_RTNL();
	if (event == NETDEV_CHANGEMTU && !ipn_is_ipn_dev(dev)) {
		ipn_roce_lower_mtu(dev);
		return NOTIFY_DONE;
	}
	if (event != NETDEV_CHANGE || !ipn_is_ipn_dev(dev))
		return NOTIFY_DONE;
	priv = netdev_priv(dev);
	if (priv->notify_peers && netif_carrier_ok(dev) &&
	    !qdisc_tx_changing(dev)) {
		priv->notify_peers = false;
		ipn_dev_announce_start(priv);
	}
	return NOTIFY_DONE;
}

static struct notifier_block ipn_netdev_notifier = {
	.notifier_call = ipn_netdev_event,
};

int ipn_dev_init(void)
{
	return register_netdevice_notifier(&ipn_netdev_notifier);
}

void ipn_dev_exit(void)
{
	unregister_netdevice_notifier(&ipn_netdev_notifier);
}

/*
 * ip link set IF address ADDR: another of the port's GIDs (an alias GUID,
 * a RoCE GID of another IP address). Only while down: paths and joins in
 * flight were made from the old GID. Whether flags and QPN may change is
 * the core's call (they cannot); the GID must be in the port's table.
 * dev_set_mac_address() sends NETDEV_CHANGEADDR; the peers are told at
 * the next carrier-up. rtnl held.
 */
int ipn_set_mac_address(struct net_device *dev, void *p)
{
	struct ipn_priv *priv = netdev_priv(dev);
	const u8 *want = ((struct sockaddr *)p)->sa_data;
	int index;

	if (netif_running(dev))
		return -EBUSY;
	switch (ipc_addr_check_set(dev->dev_addr, want)) {
	case IPC_SETADDR_OK:
		break;
	case IPC_SETADDR_QPN:
		if (net_ratelimit())
			netdev_warn(dev, "an address must keep the first 4 bytes, %*phC (flags and QPN)\n",
				    4, dev->dev_addr);
		return -EINVAL;
	default:
		if (net_ratelimit())
			netdev_warn(dev, "%pI6c is not a unicast GID\n",
				    ipn_addr_gid(want));
		return -EINVAL;
	}
	index = ipn_gid_index(priv, ipn_addr_gid(want));
	if (index < 0) {
		if (net_ratelimit())
			netdev_warn(dev, "GID %pI6c is not in the GID table of %s port %u\n",
				    ipn_addr_gid(want), dev_name(&priv->ca->dev),
				    priv->port);
		return -EADDRNOTAVAIL;
	}
	mutex_lock(&priv->ctl_mutex);
	priv->gid_chosen = true;
	priv->sgid_index = index;
	memcpy(priv->ifid.gid, ipn_addr_gid(want), sizeof(priv->ifid.gid));
	dev_addr_set(dev, want);
	mutex_unlock(&priv->ctl_mutex);
	/*
	 * Peers still hold the old address: announce the new one at the
	 * next carrier-up (ipn_netdev_event()), as for a GID change. A bond
	 * may still have us as its active slave (miimon 0 never reselects).
	 */
	priv->notify_peers = true;
	ipn_bond_follow(priv);
	return 0;
}
