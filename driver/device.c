// SPDX-License-Identifier: GPL-2.0
/*
 * device.c - the net_device: setup, open/stop, header_ops, stats, MTU,
 * sysfs, creation and destruction.
 *
 * Lock order: rtnl -> priv->ctl_mutex -> priv->lock. ndo_open/ndo_stop
 * and every control work take rtnl first.
 */
#include <linux/module.h>
#include <linux/if_arp.h>
#include <linux/etherdevice.h>
#include <net/sch_generic.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_addr.h>
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

/* ------------------------------------------------------------------ */

void ipn_dev_set_carrier(struct ipn_priv *priv, bool on)
{
	if (on) {
		netif_carrier_on(priv->dev);
		netif_wake_queue(priv->dev);
	} else {
		netif_carrier_off(priv->dev);
	}
}

/*
 * Apply the core's MTU resolution for a (new) IB MTU: the MTU starts at
 * the link MTU and is clamped when the link MTU shrinks; an administrator's
 * smaller MTU is kept. rtnl held.
 */
void ipn_dev_update_mtu(struct ipn_priv *priv, u32 ib_mtu_bytes)
{
	struct net_device *dev = priv->dev;
	struct ipc_mtu_info info;
	bool first;

	ASSERT_RTNL();
	if (ipc_mtu_resolve(ib_mtu_bytes, 0, priv->cm_mode ? IPC_MODE_CONNECTED :
			    IPC_MODE_DATAGRAM, &info))
		return;
	if (info.below_rfc_min && !priv->mtu.below_rfc_min)
		netdev_warn(dev, "link MTU %u is below the RFC 4391 s7 minimum of %u\n",
			    info.mcast_mtu, IPC_MTU_MIN_RFC);
	first = priv->mtu.max_mtu == 0;
	priv->mtu = info;
	dev->max_mtu = info.max_mtu;
	if (first || dev->mtu > info.max_mtu)
		dev_set_mtu(dev, info.effective);
}

/*
 * The port's active IB MTU in bytes. RoCE: derived from the Ethernet MTU
 * as the RoCE drivers do (ib_query_port() would take rtnl on rxe, and our
 * callers hold it). InfiniBand: the port attribute.
 */
u32 ipn_port_ib_mtu(struct ipn_priv *priv)
{
	struct ib_port_attr attr;

	if (priv->roce)
		return ipc_ib_mtu_bytes(iboe_get_mtu(READ_ONCE(priv->roce_ndev->mtu))) ?: 1024;
	if (ib_query_port(priv->ca, priv->port, &attr))
		return 2048;
	return ipc_ib_mtu_bytes(attr.active_mtu) ?: 2048;
}

static int ipn_open(struct net_device *dev)
{
	struct ipn_priv *priv = netdev_priv(dev);
	bool addr_changed;
	int active, pkey_ok;
	u32 act;
	int ret;

	if (!priv->qp) {
		netdev_warn(dev, "no queue pair since a failed ring resize: delete and re-add the interface\n");
		return -ENODEV;
	}
	mutex_lock(&priv->ctl_mutex);
	/* GID changes while down were not followed (ipn_flush_work). */
	addr_changed = ipn_dev_reread_gid(priv);
	ret = ipn_qp_up(priv);
	if (ret) {
		netdev_warn(dev, "cannot bring the QP up: %d\n", ret);
		goto out;
	}
	napi_enable(&priv->rx_napi);
	napi_enable(&priv->tx_napi);
	priv->up = true;
	priv->next_deadline = IPC_NO_DEADLINE;
	ib_req_notify_cq(priv->recv_cq, IB_CQ_NEXT_COMP);
	ib_req_notify_cq(priv->send_cq, IB_CQ_NEXT_COMP);
	/*
	 * Without it peers fall back to datagrams (their REQs are refused).
	 * Without the P_Key, ipn_qp_repkey() starts it when the P_Key comes.
	 */
	if (priv->qp_rts && ipn_cm_start(priv))
		netdev_warn(dev, "cannot start connected mode: peers reach us over UD only\n");
	netif_start_queue(dev);

	/*
	 * The port as it is now, before the link opens: what the link machine
	 * knew from before the last stop may be stale (a P_Key gone meanwhile
	 * must not get a broadcast join).
	 */
	if (!ipn_port_state(priv, &active, &pkey_ok)) {
		spin_lock_bh(&priv->lock);
		act = ipc_link_port_state(&priv->link, active, pkey_ok);
		spin_unlock_bh(&priv->lock);
		ipn_link_apply(priv, act);
	}
	spin_lock_bh(&priv->lock);
	act = ipc_link_open(&priv->link);
	spin_unlock_bh(&priv->lock);
	ipn_link_apply(priv, act);
	/* The stack's groups (IGMP/MLD) are joined through rx_mode. */
	mod_delayed_work(priv->wq, &priv->rx_mode_work, 0);
out:
	mutex_unlock(&priv->ctl_mutex);
	if (addr_changed)
		ipn_dev_addr_changed(priv);
	return ret;
}

static void ipn_restart_clear(struct ipn_priv *priv)
{
	WRITE_ONCE(priv->restart_why, NULL);
	clear_bit(IPN_QP_RESTART_WANTED, &priv->qp_failed);
	clear_bit(IPN_QP_RESTART_DELAYED, &priv->qp_failed);
	clear_bit(IPN_QP_RESTART_QUEUED, &priv->qp_failed);
}

static int ipn_stop(struct net_device *dev)
{
	struct ipn_priv *priv = netdev_priv(dev);
	u32 act;

	mutex_lock(&priv->ctl_mutex);
	if (!priv->up) {
		/* A restart or resize whose open failed: nothing runs. */
		mutex_unlock(&priv->ctl_mutex);
		return 0;
	}
	/*
	 * This stop (and the open that may follow) is the restart asked for
	 * so far: one waiting out its backoff is cancelled, one already
	 * running and waiting for rtnl finds nothing left to do (a resize
	 * or mode switch, or a down/up in one rtnl section, came first):
	 * the bits are cleared once the QP is down, not before, or the
	 * flushes of the QP in ERR still in NAPI would count it again.
	 */
	cancel_delayed_work(&priv->restart_work);
	/*
	 * Review M1: with the txq locks taken in turn, no ndo_start_xmit is
	 * left between its check of priv->up and its post (ring resize and
	 * mode switch call this without dev_deactivate()).
	 */
	netif_tx_disable(dev);
	priv->announce_left = 0;
	ipn_allmulti_stop(priv);	/* while the QP can still send */
	spin_lock_bh(&priv->lock);
	priv->up = false;
	act = ipc_link_stop(&priv->link);
	spin_unlock_bh(&priv->lock);
	ipn_link_apply(priv, act | IPC_LINK_ACT_CARRIER_OFF);
	ipn_cm_stop(priv);		/* TX NAPI reaps the flushed sends */
	ipn_mcast_destroy_all(priv);
	ipn_path_destroy_all(priv);
	cancel_delayed_work_sync(&priv->tick);
	napi_disable(&priv->rx_napi);
	napi_disable(&priv->tx_napi);
	ipn_qp_down(priv);
	ipn_restart_clear(priv);	/* the QP in RESET, NAPI off */
	mutex_unlock(&priv->ctl_mutex);
	return 0;
}

/*
 * Restart the datapath (QP reset, rings re-posted, groups rejoined, the
 * carrier off until the broadcast group is joined again); the QPN, and so
 * dev_addr, stays the same. why completes "restarting the datapath after"
 * for the log. Any context. A restart already queued (or waiting out the
 * backoff of a failed QP) is not brought forward, and the log keeps its
 * reason (a transmit timeout while a failed QP waits is not why).
 */
void ipn_restart(struct ipn_priv *priv, const char *why)
{
	cmpxchg(&priv->restart_why, NULL, why);
	set_bit(IPN_QP_RESTART_WANTED, &priv->qp_failed);
	queue_delayed_work(priv->wq, &priv->restart_work, 0);
}

/*
 * The UD QP is in ERR (review M5): an asynchronous fatal event, or a
 * completion that only a QP in ERR gives (a send or receive error, a
 * flush while the datapath runs). Nothing is received or sent until it
 * is reset: counted once, restarted once, however many completions say
 * so meanwhile; when the restart comes is the link machine's choice
 * (ipc_link_failed), made in the work, as this may run in hard IRQ
 * context. Any context.
 */
void ipn_qp_failed(struct ipn_priv *priv)
{
	/*
	 * Being freed: the workqueue is going. The RCU read section makes
	 * the test and the queueing one step for ipn_dev_free_priv(), which
	 * waits for a grace period between setting the bit and destroying
	 * the workqueue.
	 */
	rcu_read_lock();
	if (!test_bit(IPN_QP_FREEING, &priv->qp_failed)) {
		ipn_kunit_qp_failing(priv);
		if (!test_and_set_bit(IPN_QP_RESTART_QUEUED, &priv->qp_failed)) {
			ipn_inc(priv, qp_errors);
			ipn_restart(priv, "the queue pair failed (error state)");
		}
	}
	rcu_read_unlock();
}

/*
 * A failed QP first takes the carrier off (bonding fails over, the stack
 * stops sending into a dead queue) and asks the link machine when to
 * restart: at once, or after a backoff when it failed again soon after
 * the last restart. rtnl held.
 */
static bool ipn_restart_backoff(struct ipn_priv *priv)
{
	u32 act, delay;

	ASSERT_RTNL();
	if (!test_bit(IPN_QP_RESTART_QUEUED, &priv->qp_failed) ||
	    test_and_set_bit(IPN_QP_RESTART_DELAYED, &priv->qp_failed))
		return false;
	mutex_lock(&priv->ctl_mutex);
	spin_lock_bh(&priv->lock);
	act = ipc_link_failed(&priv->link, ipn_now_ms(), &priv->rng, &delay);
	spin_unlock_bh(&priv->lock);
	ipn_link_apply(priv, act);
	mutex_unlock(&priv->ctl_mutex);
	if (!delay)
		return false;
	netdev_warn(priv->dev,
		    "the queue pair failed again soon after a restart: restarting in %u ms\n",
		    delay);
	/* Later than a restart queued meanwhile (a transmit timeout). */
	mod_delayed_work(priv->wq, &priv->restart_work, msecs_to_jiffies(delay));
	return true;
}

void ipn_restart_work(struct work_struct *work)
{
	struct ipn_priv *priv = container_of(to_delayed_work(work),
					     struct ipn_priv, restart_work);

	ipn_kunit_restart_running(priv);
	rtnl_lock();
	if (netif_running(priv->dev) && priv->up &&
	    test_bit(IPN_QP_RESTART_WANTED, &priv->qp_failed)) {
		if (ipn_restart_backoff(priv))
			goto out;
		netdev_warn(priv->dev, "restarting the datapath after %s\n",
			    READ_ONCE(priv->restart_why) ?: "a request");
		ipn_inc(priv, restarts);
		/* Clears the bits: an error of the QP reopened next queues again. */
		ipn_stop(priv->dev);
		if (ipn_open(priv->dev))
			dev_close(priv->dev);
	} else if (!priv->up) {
		/*
		 * Nothing runs: no QP can fail meanwhile. Up without WANTED,
		 * a stop answered the request, and the bits belong to the
		 * QP opened since: a failure of it may be setting them now.
		 */
		ipn_restart_clear(priv);
	}
out:
	rtnl_unlock();
}

static void ipn_set_rx_mode(struct net_device *dev)
{
	struct ipn_priv *priv = netdev_priv(dev);

	/* Atomic context (addr lock held): diff the list in the work. */
	mod_delayed_work(priv->wq, &priv->rx_mode_work, 0);
}

IPN_TESTABLE int ipn_change_mtu(struct net_device *dev, int new_mtu)
{
	struct ipn_priv *priv = netdev_priv(dev);
	const char *why;

	if (ipc_mtu_check(&priv->mtu, new_mtu, &why)) {
		netdev_warn(dev, "MTU %d refused: %s\n", new_mtu, why);
		return -EINVAL;
	}
	dev->mtu = new_mtu;
	return 0;
}

/*
 * Every counter summed over the CPUs, each CPU's counters read together
 * (the u64_stats retry loop). The counters are the u64 members before syncp.
 */
void ipn_stats_read(struct ipn_priv *priv, struct ipn_stats *sum)
{
	const size_t len = offsetof(struct ipn_stats, syncp);
	struct ipn_stats snap;
	unsigned int start;
	size_t i;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct ipn_stats *s = per_cpu_ptr(priv->stats, cpu);

		do {
			start = u64_stats_fetch_begin(&s->syncp);
			memcpy(&snap, s, len);
		} while (u64_stats_fetch_retry(&s->syncp, start));
		for (i = 0; i < len / sizeof(u64); i++)
			((u64 *)sum)[i] += ((u64 *)&snap)[i];
	}
}

/* The sum over CPUs of the u64 counter at offset off of struct ipn_stats. */
u64 ipn_stat_sum(struct ipn_priv *priv, size_t off)
{
	struct ipn_stats sum;

	ipn_stats_read(priv, &sum);
	return *(u64 *)((u8 *)&sum + off);
}

static void ipn_get_stats64(struct net_device *dev,
			    struct rtnl_link_stats64 *st)
{
	struct ipn_priv *priv = netdev_priv(dev);
	struct ipn_stats sum;

	ipn_stats_read(priv, &sum);
	st->rx_packets = sum.rx_packets;
	st->rx_bytes = sum.rx_bytes;
	st->tx_packets = sum.tx_packets;
	st->tx_bytes = sum.tx_bytes;
	st->rx_dropped = sum.rx_dropped;
	st->tx_dropped = sum.tx_dropped;
	st->tx_errors = sum.tx_errors;
	st->rx_errors = sum.rx_errors;
	st->multicast = sum.multicast;
}

void ipn_drop(struct ipn_priv *priv, struct sk_buff *skb, int reason, bool tx)
{
	struct ipn_stats *s = get_cpu_ptr(priv->stats);

	u64_stats_update_begin(&s->syncp);
	if (tx)
		s->tx_dropped++;
	else
		s->rx_dropped++;
	if (reason > 0 && reason < IPC_R_COUNT)
		s->drop[reason]++;
	u64_stats_update_end(&s->syncp);
	put_cpu_ptr(priv->stats);
	dev_kfree_skb_any(skb);
}

/* Unregistration, under rtnl: out of debugfs and off the lists. */
static void ipn_uninit(struct net_device *dev)
{
	struct ipn_priv *priv = netdev_priv(dev);

	ipn_debugfs_remove(priv);
	list_del_init(&priv->list);
}

/* A child shows as <name>@<parent> (ip link). */
static int ipn_get_iflink(const struct net_device *dev)
{
	const struct ipn_priv *priv = netdev_priv(dev);

	return priv->parent ? READ_ONCE(priv->parent->dev->ifindex) :
	       dev->ifindex;
}

static const struct net_device_ops ipn_netdev_ops;

/*
 * dev_addr = flags + our QPN + the port GID at priv->sgid_index: index 0
 * unless the administrator chose another (RFC 4391 s9.1.1).
 */
static int ipn_dev_set_hwaddr(struct ipn_priv *priv)
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
 * The next of the announcements of a new address (IPC_ANNOUNCE_COUNT,
 * IPC_ANNOUNCE_INTERVAL_MS apart): sent when the link can carry it, else
 * tried again at the next interval. rtnl held.
 */
static void ipn_dev_announce(struct ipn_priv *priv)
{
	struct net_device *dev = priv->dev;

	ASSERT_RTNL();
	if (!priv->announce_left)
		return;
	if (netif_carrier_ok(dev) && !qdisc_tx_changing(dev)) {
		priv->announce_left--;
		__netdev_notify_peers(dev);
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
 * Announce a new dev_addr: NETDEV_CHANGEADDR flushes our neighbours and
 * lets a bond follow; while up, NETDEV_NOTIFY_PEERS sends a gratuitous
 * ARP and an unsolicited NA so that peers do not keep the old address.
 * rtnl held, ctl_mutex not.
 */
void ipn_dev_addr_changed(struct ipn_priv *priv)
{
	struct net_device *dev = priv->dev;

	ASSERT_RTNL();
	netdev_info(dev, "hardware address now %*phC\n", IPC_ADDR_LEN,
		    dev->dev_addr);
	call_netdevice_notifiers(NETDEV_CHANGEADDR, dev);
	if (!netif_running(dev))
		return;
	/*
	 * Now if the link can carry it, and again at the next carrier-up
	 * (ipn_netdev_event()): a GID changes while its port goes down or
	 * comes up (a RoCE netdev's MAC changes with the port down), and an
	 * announcement sent meanwhile is lost with the port's queues.
	 */
	priv->notify_peers = true;
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
 * NETDEV_CHANGE once the qdisc is active again. rtnl held.
 */
static int ipn_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct ipn_priv *priv;

	ASSERT_RTNL();
	if (event != NETDEV_CHANGE || dev->netdev_ops != &ipn_netdev_ops)
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
 * dev_set_mac_address() sends NETDEV_CHANGEADDR.
 */
static int ipn_set_mac_address(struct net_device *dev, void *p)
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
	return 0;
}

static const struct net_device_ops ipn_netdev_ops = {
	.ndo_uninit = ipn_uninit,
	.ndo_get_iflink = ipn_get_iflink,
	.ndo_open = ipn_open,
	.ndo_stop = ipn_stop,
	.ndo_start_xmit = ipn_start_xmit,
	.ndo_set_rx_mode = ipn_set_rx_mode,
	.ndo_change_mtu = ipn_change_mtu,
	.ndo_set_mac_address = ipn_set_mac_address,
	.ndo_get_stats64 = ipn_get_stats64,
	.ndo_tx_timeout = ipn_tx_timeout,
};

/* ------------------------------------------------------------------ */
/* sysfs: the in-tree driver's files, same names and formats, since     */
/* NetworkManager and scripts write them; and which RDMA port it is.    */
/* ------------------------------------------------------------------ */

static ssize_t ibdev_show(struct device *d, struct device_attribute *attr,
			  char *buf)
{
	struct ipn_priv *priv = netdev_priv(to_net_dev(d));

	return sysfs_emit(buf, "%s\n", dev_name(&priv->ca->dev));
}
static DEVICE_ATTR_RO(ibdev);

static ssize_t ibport_show(struct device *d, struct device_attribute *attr,
			   char *buf)
{
	struct ipn_priv *priv = netdev_priv(to_net_dev(d));

	return sysfs_emit(buf, "%u\n", priv->port);
}
static DEVICE_ATTR_RO(ibport);

static ssize_t pkey_show(struct device *d, struct device_attribute *attr,
			 char *buf)
{
	struct ipn_priv *priv = netdev_priv(to_net_dev(d));

	return sysfs_emit(buf, "0x%04x\n", priv->pkey);
}
static DEVICE_ATTR_RO(pkey);

static bool ipn_sysfs_capable(struct device *d)
{
	return ns_capable(dev_net(to_net_dev(d))->user_ns, CAP_NET_ADMIN);
}

/*
 * Review L4: a P_Key child puts the host into a partition, which the
 * fabric's administrator gives, not a container's: making one (sysfs or
 * netlink) needs CAP_NET_ADMIN in the initial user namespace. The root
 * of a user namespace may still be given a child, and run it: mode,
 * umcast, rings, addresses, deleting it (the kernel's rules for an
 * interface of its own network namespace).
 */
bool ipn_may_choose_pkey(void)
{
	return capable(CAP_NET_ADMIN);
}

static ssize_t mode_show(struct device *d, struct device_attribute *attr,
			 char *buf)
{
	struct ipn_priv *priv = netdev_priv(to_net_dev(d));

	return sysfs_emit(buf, "%s\n", READ_ONCE(priv->cm_mode) ?
			  "connected" : "datagram");
}

static ssize_t mode_store(struct device *d, struct device_attribute *attr,
			  const char *buf, size_t count)
{
	struct ipn_priv *priv = netdev_priv(to_net_dev(d));
	bool cm;
	int ret;

	if (!ipn_sysfs_capable(d))
		return -EPERM;
	if (sysfs_streq(buf, "datagram"))
		cm = false;
	else if (sysfs_streq(buf, "connected"))
		cm = true;
	else
		return -EINVAL;
	if (!rtnl_trylock())
		return restart_syscall();
	ret = ipn_dev_set_mode(priv, cm, NULL);
	rtnl_unlock();
	return ret ?: count;
}
static DEVICE_ATTR_RW(mode);

static ssize_t umcast_show(struct device *d, struct device_attribute *attr,
			   char *buf)
{
	struct ipn_priv *priv = netdev_priv(to_net_dev(d));

	return sysfs_emit(buf, "%d\n", READ_ONCE(priv->umcast));
}

static ssize_t umcast_store(struct device *d, struct device_attribute *attr,
			    const char *buf, size_t count)
{
	struct ipn_priv *priv = netdev_priv(to_net_dev(d));
	unsigned long val;
	int ret;

	if (!ipn_sysfs_capable(d))
		return -EPERM;
	ret = kstrtoul(buf, 0, &val);
	if (ret)
		return ret;
	WRITE_ONCE(priv->umcast, !!val);
	return count;
}
static DEVICE_ATTR_RW(umcast);

/*
 * create_child/delete_child: the caller's right, then a valid P_Key
 * ("0x8001" or "32769"), then rtnl, held on success. Unregistering the
 * parent waits for these writes: they never block on rtnl.
 */
static int ipn_sysfs_child_begin(struct device *d, const char *buf,
				 u16 *pkey)
{
	int ret;

	if (!ipn_sysfs_capable(d))
		return -EPERM;
	ret = kstrtou16(buf, 0, pkey);
	if (ret)
		return ret;
	if (!ipc_pkey_valid(*pkey))
		return -EINVAL;
	if (!rtnl_trylock())
		return restart_syscall();
	return 0;
}

/* The child is named <parent>.<P_Key as written, %04x>, as in ib_ipoib. */
static ssize_t create_child_store(struct device *d,
				  struct device_attribute *attr,
				  const char *buf, size_t count)
{
	struct net_device *pdev = to_net_dev(d), *dev;
	char name[IFNAMSIZ];
	u16 pkey;
	int ret;

	if (!ipn_may_choose_pkey())
		return -EPERM;
	ret = ipn_sysfs_child_begin(d, buf, &pkey);
	if (ret)
		return ret;
	ret = -ENODEV;
	if (pdev->reg_state != NETREG_REGISTERED)
		goto out;
	snprintf(name, sizeof(name), "%.10s.%04x", pdev->name, pkey);
	ret = -ENOMEM;
	dev = alloc_netdev(sizeof(struct ipn_priv), name, NET_NAME_USER,
			   ipn_setup);
	if (!dev)
		goto out;
	dev_net_set(dev, dev_net(pdev));
	ret = ipn_child_create(netdev_priv(pdev), dev, ipc_pkey_full(pkey),
			       true);
	if (ret)
		free_netdev(dev);
out:
	rtnl_unlock();
	return ret ?: count;
}
static DEVICE_ATTR_WO(create_child);

/*
 * Deletes a child made through create_child with this P_Key, if the
 * writer may administer the namespace the child is in now, which need
 * not be the parent's.
 */
static ssize_t delete_child_store(struct device *d,
				  struct device_attribute *attr,
				  const char *buf, size_t count)
{
	struct ipn_priv *ppriv = netdev_priv(to_net_dev(d)), *priv;
	int ret;
	u16 pkey;

	ret = ipn_sysfs_child_begin(d, buf, &pkey);
	if (ret)
		return ret;
	ret = -ENODEV;
	list_for_each_entry(priv, &ppriv->children, list) {
		if (priv->sysfs_child && priv->pkey == ipc_pkey_full(pkey)) {
			ret = -EPERM;
			if (!ns_capable(dev_net(priv->dev)->user_ns,
					CAP_NET_ADMIN))
				break;
			unregister_netdevice(priv->dev);
			ret = 0;
			break;
		}
	}
	rtnl_unlock();
	return ret ?: count;
}
static DEVICE_ATTR_WO(delete_child);

/*
 * A net_device has one driver group (sysfs_groups[0]); only port
 * interfaces have children (as in ib_ipoib), so there are two groups.
 * Not one group that hides two files with .is_visible: moving an
 * interface into a netns of another user namespace changes the owner of
 * every file of its groups, and in 6.1 a hidden one makes that fail
 * with a WARN in __dev_change_net_namespace() (found by privilege.sh).
 */
static struct attribute *ipn_port_attrs[] = {
	&dev_attr_ibdev.attr,
	&dev_attr_ibport.attr,
	&dev_attr_pkey.attr,
	&dev_attr_mode.attr,
	&dev_attr_umcast.attr,
	&dev_attr_create_child.attr,
	&dev_attr_delete_child.attr,
	NULL,
};

/* The same but create_child and delete_child, the last two. */
static struct attribute *ipn_child_attrs[] = {
	&dev_attr_ibdev.attr,
	&dev_attr_ibport.attr,
	&dev_attr_pkey.attr,
	&dev_attr_mode.attr,
	&dev_attr_umcast.attr,
	NULL,
};

static const struct attribute_group ipn_port_attr_group = {
	.attrs = ipn_port_attrs,
};

static const struct attribute_group ipn_child_attr_group = {
	.attrs = ipn_child_attrs,
};

/* ------------------------------------------------------------------ */

bool ipn_is_ipn_dev(const struct net_device *dev)
{
	return dev->netdev_ops == &ipn_netdev_ops;
}

void ipn_setup(struct net_device *dev)
{
	dev->netdev_ops = &ipn_netdev_ops;
	dev->header_ops = &ipn_header_ops;
	dev->ethtool_ops = &ipn_ethtool_ops;
	dev->type = ARPHRD_INFINIBAND;
	dev->addr_len = IPC_ADDR_LEN;
	dev->hard_header_len = IPN_HARD_LEN;
	dev->flags = IFF_BROADCAST | IFF_MULTICAST;
	dev->tx_queue_len = ipn_sendq_size * 2;
	dev->watchdog_timeo = 10 * HZ;
	dev->min_mtu = IPC_MTU_IPV4_MIN;
	dev->max_mtu = IPC_MTU_MIN_RFC;
	dev->mtu = IPC_MTU_MIN_RFC;
	dev->needs_free_netdev = false;
	/* Connected mode answers a frame too big with ICMP: it needs the route. */
	netif_keep_dst(dev);
}

static struct net_device *ipn_roce_netdev(struct ipn_priv *priv)
{
	const struct ib_gid_attr *attr;
	struct net_device *ndev;

	attr = rdma_get_gid_attr(priv->ca, priv->port, 0);
	if (IS_ERR(attr))
		return NULL;
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(attr);
	if (IS_ERR(ndev))
		ndev = NULL;
	else
		dev_hold(ndev);
	rcu_read_unlock();
	rdma_put_gid_attr(attr);
	return ndev;
}

/*
 * What an interface owns besides its net_device, but for the workqueue and
 * the event handler, which ipn_dev_register() adds after registration:
 * undone by ipn_priv_uninit(). priv->dev, and for a child priv->parent,
 * are set.
 */
static int ipn_priv_init(struct ipn_priv *priv, struct ib_device *ca,
			 u32 port, u16 pkey)
{
	struct net_device *dev = priv->dev;
	int ret;

	priv->ca = ca;
	priv->port = port;
	priv->pkey = pkey;
	priv->roce = rdma_protocol_roce(ca, port);
	/*
	 * RoCE ports have only the default P_Key: other partitions are
	 * emulated over it, by MGID and Q_Key (Documentation/, "Partitions
	 * on RoCE").
	 */
	priv->wire_pkey = priv->roce ? IPC_PKEY_DEFAULT : pkey;
	priv->ops = priv->roce ? &ipn_roce_ops : &ipn_ib_ops;
	priv->sa = &ipn_sa_ib;
	priv->qkey = priv->roce ? ipc_roce_qkey_for_pkey(pkey) : 0;
	INIT_LIST_HEAD(&priv->list);
	INIT_LIST_HEAD(&priv->children);
	spin_lock_init(&priv->lock);
	spin_lock_init(&priv->reap_lock);
	mutex_init(&priv->reap_mutex);
	mutex_init(&priv->ctl_mutex);
	init_waitqueue_head(&priv->sa_wait);
	hash_init(priv->paths);
	INIT_LIST_HEAD(&priv->mcasts);
	hash_init(priv->mc_hash);
	ipn_allmulti_init(priv);
	ipn_cm_init(priv);
	INIT_LIST_HEAD(&priv->path_work);
	INIT_LIST_HEAD(&priv->mc_work);
	INIT_LIST_HEAD(&priv->ah_reap);
	INIT_WORK(&priv->ctl_work, ipn_ctl_work);
	INIT_DELAYED_WORK(&priv->rx_mode_work, ipn_mcast_rx_mode_work);
	INIT_DELAYED_WORK(&priv->announce_work, ipn_announce_work);
	INIT_WORK(&priv->flush_work, ipn_flush_work);
	INIT_WORK(&priv->reap_work, ipn_ah_reap_work);
	INIT_DELAYED_WORK(&priv->restart_work, ipn_restart_work);
	INIT_DELAYED_WORK(&priv->tick, ipn_tick_work);
	ipc_path_cfg_default(&priv->path_cfg);
	ipc_mc_cfg_default(&priv->mc_cfg);
	priv->mc_cfg.sendonly_idle_ms = ipn_sendonly_idle();
	ipc_link_init(&priv->link);
	priv->hash_seed = get_random_u32();
	ipc_rng_seed(&priv->rng, get_random_u64());
	priv->next_deadline = IPC_NO_DEADLINE;
	priv->rx_size = ipn_recvq_size;
	priv->tx_size = ipn_sendq_size;
	priv->paths_max = ipn_paths_max;
	priv->groups_max = ipn_groups_max;

	ret = -ENOMEM;
	priv->stats = netdev_alloc_pcpu_stats(struct ipn_stats);
	if (!priv->stats)
		return ret;

	ret = ipn_verbs_create(priv);
	if (ret)
		goto err_stats;
	ret = ipn_dev_set_hwaddr(priv);
	if (ret)
		goto err_verbs;
	ipc_addr_broadcast(pkey, IPC_SCOPE_LINK, dev->broadcast);
	memcpy(priv->ifid.bcast_gid, ipn_addr_gid(dev->broadcast), IPC_GID_LEN);
	if (priv->roce) {
		priv->roce_ndev = ipn_roce_netdev(priv);
		if (!priv->roce_ndev) {
			ret = -ENODEV;
			goto err_verbs;
		}
	}

	netif_napi_add(dev, &priv->rx_napi, ipn_rx_poll);
	netif_napi_add(dev, &priv->cm_napi, ipn_cm_rx_poll);
	netif_napi_add_tx(dev, &priv->tx_napi, ipn_tx_poll);
	if (priv->max_sge > 1)
		dev->features |= NETIF_F_SG;
	dev->hw_features = dev->features;
	dev->dev_port = port - 1;
	if (ca->dev.parent)
		SET_NETDEV_DEV(dev, ca->dev.parent);
	dev->sysfs_groups[0] = priv->parent ? &ipn_child_attr_group :
					      &ipn_port_attr_group;
	dev->rtnl_link_ops = &ipn_link_ops;
	return 0;

err_verbs:
	ipn_verbs_destroy(priv);
err_stats:
	free_percpu(priv->stats);
	return ret;
}

/* Undo ipn_priv_init(). */
static void ipn_priv_uninit(struct ipn_priv *priv)
{
	netif_napi_del(&priv->cm_napi);
	netif_napi_del(&priv->tx_napi);
	netif_napi_del(&priv->rx_napi);
	ipn_verbs_destroy(priv);
	dev_put(priv->roce_ndev);
	free_percpu(priv->stats);
}

/*
 * The last reference is gone (netdev_run_todo, rtnl not held, as the
 * works that take it are flushed here).
 */
static void ipn_dev_free_priv(struct net_device *dev)
{
	struct ipn_priv *priv = netdev_priv(dev);

	if (priv->wq) {
		ipn_event_handler_unregister(priv);	/* it queues works */
		/* So does the QP's handler: one that began finishes. */
		set_bit(IPN_QP_FREEING, &priv->qp_failed);
		synchronize_rcu();
		cancel_delayed_work_sync(&priv->restart_work);	/* timers */
		cancel_delayed_work_sync(&priv->rx_mode_work);
		cancel_delayed_work_sync(&priv->announce_work);
		destroy_workqueue(priv->wq);	/* runs what was queued */
	}
	ipn_priv_uninit(priv);
}

/*
 * rtnl held. Fails either before registration, having undone
 * ipn_priv_init(), or after it, having unregistered the net_device, which
 * then frees itself (ipn_dev_free_priv, free_netdev) when rtnl is
 * released. Either way the caller calls free_netdev() before releasing
 * rtnl (rtnl_newlink does): it frees the one, and defers to the other.
 *
 * The workqueue and the event handler come after registration: their
 * works take rtnl, so they must never be flushed under it, which a
 * failure before registration would have to do.
 */
static int ipn_dev_register(struct ipn_priv *priv)
{
	struct net_device *dev = priv->dev;
	int ret;

	ASSERT_RTNL();
	ret = register_netdevice(dev);
	if (ret) {
		ipn_priv_uninit(priv);
		return ret;
	}
	dev->priv_destructor = ipn_dev_free_priv;
	dev->needs_free_netdev = true;
	priv->wq = ipn_fault() ? NULL :
		   alloc_ordered_workqueue("%s-%s-%u-%04x", WQ_MEM_RECLAIM,
					   IPN_DRV_NAME,
					   dev_name(&priv->ca->dev),
					   priv->port, priv->pkey);
	if (!priv->wq) {
		unregister_netdevice(dev);
		return -ENOMEM;
	}
	ipn_event_handler_register(priv);
	ipn_dev_update_mtu(priv, ipn_port_ib_mtu(priv));
	netif_carrier_off(dev);
	ipn_debugfs_add(priv);
	return 0;
}

/*
 * ethtool -G (rtnl held): the QP's and CQs' sizes are fixed at creation,
 * so the verbs resources are made again, between stop and open as after
 * a TX timeout. The new QP has a new QPN: dev_addr changes and is
 * announced (ipn_dev_addr_changed()). If the new sizes cannot be had, the
 * old ones are made again.
 */
int ipn_dev_resize_rings(struct ipn_priv *priv, unsigned int rx,
			 unsigned int tx, struct netlink_ext_ack *extack)
{
	unsigned int old_rx = priv->rx_size, old_tx = priv->tx_size;
	struct net_device *dev = priv->dev;
	bool running = netif_running(dev);
	int ret;

	ASSERT_RTNL();
	if (rx == old_rx && tx == old_tx)
		return 0;
	if (running)
		ipn_stop(dev);
	mutex_lock(&priv->ctl_mutex);
	ipn_verbs_destroy(priv);
	priv->qp = NULL;
	priv->rx_size = rx;
	priv->tx_size = tx;
	ret = ipn_fault() ? -ENOMEM : ipn_verbs_create(priv);
	if (ret) {
		NL_SET_ERR_MSG_MOD(extack,
				   "cannot allocate rings of that size; the old sizes are kept");
		priv->rx_size = old_rx;
		priv->tx_size = old_tx;
		if (ipn_verbs_create(priv))
			netdev_err(dev, "cannot make the queue pair again: delete and re-add the interface\n");
	}
	if (priv->qp && ipn_dev_set_hwaddr(priv))
		netdev_warn(dev, "cannot read the port GID\n");
	mutex_unlock(&priv->ctl_mutex);
	if (running && ipn_open(dev))
		dev_close(dev);
	if (priv->qp)
		ipn_dev_addr_changed(priv);
	return ret;
}

/*
 * Datagram or connected mode (RFC 4755), as ib_ipoib: connected sets the
 * C bit in dev_addr and raises the MTU to the connected-mode maximum;
 * datagram clamps it to the link's. While up, the datapath is restarted
 * between stop and open as for a ring resize (addresses stay), and the
 * new address announced. rtnl held.
 */
int ipn_dev_set_mode(struct ipn_priv *priv, bool connected,
		     struct netlink_ext_ack *extack)
{
	struct net_device *dev = priv->dev;
	bool running = netif_running(dev);
	int ret = 0;

	ASSERT_RTNL();
	if (priv->cm_mode == connected)
		return 0;
	if (connected && !ipc_cm_pkey_allowed(priv->pkey, priv->roce)) {
		/* Review H2: RC would bridge the emulated partitions. */
		NL_SET_ERR_MSG_MOD(extack,
				   "connected mode on RoCE is for the default partition only: RC has no Q_Key to keep partitions apart");
		if (!extack)
			netdev_warn(dev, "connected mode on RoCE is for the default partition only\n");
		return -EOPNOTSUPP;
	}
	if (running)
		ipn_stop(dev);
	mutex_lock(&priv->ctl_mutex);
	WRITE_ONCE(priv->cm_mode, connected);
	if (priv->qp && ipn_dev_set_hwaddr(priv))
		netdev_warn(dev, "cannot read the port GID\n");
	mutex_unlock(&priv->ctl_mutex);
	ipn_dev_update_mtu(priv, ipn_ud_frame_max(priv));
	if (connected) {
		ret = dev_set_mtu(dev, priv->mtu.max_mtu);
		if (ret)
			NL_SET_ERR_MSG_MOD(extack, "cannot raise the MTU");
	}
	if (running && ipn_open(dev))
		dev_close(dev);
	ipn_dev_addr_changed(priv);
	netdev_info(dev, "%s mode, MTU %u\n",
		    connected ? "connected" : "datagram", dev->mtu);
	return ret;
}

/* A port's interface, named ib%d. */
struct ipn_priv *ipn_dev_create(struct ib_device *ca, u32 port, u16 pkey)
{
	struct net_device *dev;
	struct ipn_priv *priv;
	int ret;

	dev = alloc_netdev(sizeof(*priv), "ib%d", NET_NAME_UNKNOWN, ipn_setup);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	priv = netdev_priv(dev);
	priv->dev = dev;
	ret = ipn_priv_init(priv, ca, port, pkey);
	if (ret) {
		free_netdev(dev);
		return ERR_PTR(ret);
	}
	rtnl_lock();
	ret = ipn_dev_register(priv);
	if (ret)
		free_netdev(dev);	/* see ipn_dev_register() */
	rtnl_unlock();
	return ret ? ERR_PTR(ret) : priv;
}

/*
 * A P_Key child of parent on dev, allocated by the caller (rtnl_newlink,
 * or create_child), which frees it on failure, before releasing rtnl.
 * pkey is valid, with the full-member bit. rtnl held.
 */
int ipn_child_create(struct ipn_priv *parent, struct net_device *dev,
		     u16 pkey, bool sysfs)
{
	struct ipn_priv *priv = netdev_priv(dev);
	int ret;

	ASSERT_RTNL();
	priv->dev = dev;
	priv->parent = parent;
	priv->sysfs_child = sysfs;
	ret = ipn_priv_init(priv, parent->ca, parent->port, pkey);
	if (ret)
		return ret;
	ret = ipn_dev_register(priv);
	if (ret)
		return ret;
	list_add_tail(&priv->list, &parent->children);
	return 0;
}

/* Queue priv, and its children first, for unregistration. rtnl held. */
void ipn_dev_unregister_queue(struct ipn_priv *priv, struct list_head *kill)
{
	struct ipn_priv *child;

	ASSERT_RTNL();
	list_for_each_entry(child, &priv->children, list)
		unregister_netdevice_queue(child->dev, kill);
	unregister_netdevice_queue(priv->dev, kill);
}

/* Unregister and free a port's interface and its children. */
void ipn_dev_destroy(struct ipn_priv *priv)
{
	LIST_HEAD(kill);

	rtnl_lock();
	ipn_dev_unregister_queue(priv, &kill);
	unregister_netdevice_many(&kill);
	rtnl_unlock();		/* the destructors run here */
}
