// SPDX-License-Identifier: GPL-2.0
/*
 * device.c - the net_device's operations: open and stop, the datapath's
 * restart, carrier, MTU, rx_mode; setup. The hardware address is in
 * hwaddr.c, the counters in stats.c, sysfs in sysfs.c, an interface's
 * creation and destruction in iface.c.
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

/* The one place the carrier changes after registration: told (genl.c). */
void ipn_dev_set_carrier(struct ipn_priv *priv, bool on)
{
	bool was = netif_carrier_ok(priv->dev);

	if (on) {
		netif_carrier_on(priv->dev);
		netif_tx_wake_all_queues(priv->dev);
	} else {
		netif_carrier_off(priv->dev);
	}
	if (was != on)
		ipn_genl_link_event(priv);
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

/*
 * The receive queue's NAPI instance while up, for netlink's queue-get
 * (6.8 on): rx_napi serves the one receive queue. tx_napi is not named:
 * a NAPI added with netif_napi_add_tx() has no NAPI ID to show. rtnl held.
 */
static void ipn_queues_napi(struct ipn_priv *priv, bool up)
{
#ifdef IPN_HAVE_QUEUE_NAPI
	ASSERT_RTNL();
	netif_queue_set_napi(priv->dev, 0, NETDEV_QUEUE_TYPE_RX,
			     up ? &priv->rx_napi : NULL);
#endif
}

int ipn_open(struct net_device *dev)
{
	struct ipn_priv *priv = netdev_priv(dev);
	bool addr_changed;
	int active, pkey_ok;
	struct ipc_result r;
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
	ipn_tx_napi_enable(priv);
	ipn_queues_napi(priv, true);
	WRITE_ONCE(priv->up, true);	/* transmit reads it unlocked */
	spin_lock_bh(&priv->lock);
	priv->next_deadline = IPC_NO_DEADLINE;
	ipn_entry_arm_first(priv);	/* entries kept while down, if any */
	spin_unlock_bh(&priv->lock);
	ib_req_notify_cq(priv->recv_cq, IB_CQ_NEXT_COMP);
	/*
	 * Without it peers fall back to datagrams (their REQs are refused).
	 * Without the P_Key, ipn_qp_repkey() starts it when the P_Key comes.
	 */
	if (priv->qp_rts && ipn_cm_start(priv))
		netdev_warn(dev, "cannot start connected mode: peers reach us over UD only\n");
	netif_tx_start_all_queues(dev);

	/*
	 * The port as it is now, before the link opens: what the link machine
	 * knew from before the last stop may be stale (a P_Key gone meanwhile
	 * must not get a broadcast join).
	 */
	if (!ipn_port_state(priv, &active, &pkey_ok)) {
		spin_lock_bh(&priv->lock);
		ipc_link_port_state(&priv->link, active, pkey_ok, &r);
		spin_unlock_bh(&priv->lock);
		ipn_link_apply(priv, &r);
	}
	spin_lock_bh(&priv->lock);
	ipc_link_open(&priv->link, &r);
	spin_unlock_bh(&priv->lock);
	ipn_link_apply(priv, &r);
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

int ipn_stop(struct net_device *dev)
{
	struct ipn_priv *priv = netdev_priv(dev);
	struct ipc_result r;

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
	WRITE_ONCE(priv->up, false);
	ipc_link_stop(&priv->link, &r);
	spin_unlock_bh(&priv->lock);
	ipn_link_apply(priv, &r);
	/*
	 * Again: TX NAPI may have woken a queue before up went false. From
	 * here no transmit is between its check of up and its post, and
	 * none wakes a queue (ipn_tx_poll tests up).
	 */
	netif_tx_disable(dev);
	ipn_cm_stop(priv);		/* TX NAPI reaps the flushed sends */
	ipn_mcast_destroy_all(priv);
	ipn_path_destroy_all(priv);
	cancel_delayed_work_sync(&priv->tick);
	ipn_queues_napi(priv, false);
	napi_disable(&priv->rx_napi);
	ipn_tx_napi_disable(priv);
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
	struct ipc_result r;
	u64 now = ipn_now_ms();
	u64 delay;

	ASSERT_RTNL();
	if (!test_bit(IPN_QP_RESTART_QUEUED, &priv->qp_failed) ||
	    test_and_set_bit(IPN_QP_RESTART_DELAYED, &priv->qp_failed))
		return false;
	mutex_lock(&priv->ctl_mutex);
	spin_lock_bh(&priv->lock);
	ipc_link_failed(&priv->link, now, &priv->rng, &r);
	spin_unlock_bh(&priv->lock);
	ipn_link_apply(priv, &r);
	mutex_unlock(&priv->ctl_mutex);
	if (r.deadline_ms <= now)
		return false;
	delay = r.deadline_ms - now;
	netdev_warn(priv->dev,
		    "the queue pair failed again soon after a restart: restarting in %llu ms\n",
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

/* Unregistration, under rtnl: out of debugfs and off the lists. */
static void ipn_uninit(struct net_device *dev)
{
	struct ipn_priv *priv = netdev_priv(dev);

	ASSERT_RTNL();
	ipn_debugfs_remove(priv);
	list_del_init(&priv->list);
	ipn_roce_unwatch(priv);
}

/* A child shows as <name>@<parent> (ip link). */
static int ipn_get_iflink(const struct net_device *dev)
{
	const struct ipn_priv *priv = netdev_priv(dev);

	return priv->parent ? READ_ONCE(priv->parent->dev->ifindex) :
	       dev->ifindex;
}

/*
 * Connected mode sends over RC, which computes no checksum and cuts no
 * segment: the adapter's UD offloads are off while it is on (its UD
 * sends go without them too), as ib_ipoib does.
 */
IPN_TESTABLE netdev_features_t ipn_fix_features(struct net_device *dev,
						netdev_features_t features)
{
	struct ipn_priv *priv = netdev_priv(dev);

	if (READ_ONCE(priv->cm_mode))
		features &= ~(NETIF_F_IP_CSUM | NETIF_F_TSO);
	return features;
}

static const struct net_device_ops ipn_netdev_ops = {
	.ndo_uninit = ipn_uninit,
	.ndo_get_iflink = ipn_get_iflink,
	.ndo_open = ipn_open,
	.ndo_stop = ipn_stop,
	.ndo_start_xmit = ipn_start_xmit,
	.ndo_select_queue = ipn_select_queue,
	.ndo_fix_features = ipn_fix_features,
	.ndo_set_rx_mode = ipn_set_rx_mode,
	.ndo_change_mtu = ipn_change_mtu,
	.ndo_set_mac_address = ipn_set_mac_address,
	.ndo_get_stats64 = ipn_get_stats64,
	.ndo_tx_timeout = ipn_tx_timeout,
	.ndo_set_vf_guid = ipn_set_vf_guid,
	.ndo_get_vf_guid = ipn_get_vf_guid,
	.ndo_set_vf_link_state = ipn_set_vf_link_state,
	.ndo_get_vf_config = ipn_get_vf_config,
	.ndo_get_vf_stats = ipn_get_vf_stats,
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
#ifdef IPN_HAVE_QSTATS
	dev->stat_ops = &ipn_stat_ops;
#endif
	/*
	 * netpoll (netconsole) writes Ethernet frames straight to
	 * ndo_start_xmit, which reads an IPoIB pseudo header: refuse it.
	 */
	dev->priv_flags |= IFF_DISABLE_NETPOLL;
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
	/*
	 * Datagram mode: the stack releases the route before the qdisc (no
	 * reference taken and dropped a packet); connected mode keeps it
	 * (ipn_dev_set_mode).
	 */
}

