// SPDX-License-Identifier: GPL-2.0
/*
 * iface.c - an interface's life: what it owns besides the net_device,
 * creation (ports and P_Key children), registration, the ring resize and
 * mode switch that cycle it, destruction.
 *
 * Lock order: rtnl -> priv->ctl_mutex -> priv->lock.
 */
#include <linux/if_arp.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_addr.h>
#include "ipoib_ng.h"

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
 * What the adapter does for UD datagrams (issue 23): gather from more
 * than one SGE; IPv4 checksums, sent and received (IB_DEVICE_UD_IP_CSUM);
 * TCP segmentation (IBK_UD_TSO) on top of both, as the stack wants it.
 * rxe offers SG only. Connected mode takes the checksums and TSO off
 * (ipn_fix_features): RC sends carry neither.
 */
IPN_TESTABLE netdev_features_t
ipn_offload_features(const struct ib_device_attr *attrs, int max_sge)
{
	netdev_features_t f = 0;

	if (max_sge > 1)
		f |= NETIF_F_SG;
	if (attrs->device_cap_flags & IB_DEVICE_UD_IP_CSUM) {
		f |= NETIF_F_IP_CSUM | NETIF_F_RXCSUM;
		if ((attrs->kernel_cap_flags & IBK_UD_TSO) && (f & NETIF_F_SG))
			f |= NETIF_F_TSO;
	}
	return f;
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
	unsigned int q;
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
	INIT_LIST_HEAD(&priv->roce_node);
	INIT_LIST_HEAD(&priv->children);
	spin_lock_init(&priv->lock);
	spin_lock_init(&priv->reap_lock);
	mutex_init(&priv->reap_mutex);
	mutex_init(&priv->ctl_mutex);
	init_waitqueue_head(&priv->sa_wait);
	INIT_LIST_HEAD(&priv->mcasts);
	hash_init(priv->mc_hash);
	ipn_allmulti_init(priv);
	ipn_sa_init(priv);
	ipn_cm_init(priv);
	INIT_LIST_HEAD(&priv->path_work);
	INIT_LIST_HEAD(&priv->mc_work);
	INIT_LIST_HEAD(&priv->ah_reap);
	for (q = 0; q < IPN_AH_BATCHES; q++)
		INIT_LIST_HEAD(&priv->ah_batch[q].ahs);
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
	priv->due = RB_ROOT_CACHED;
	priv->rx_size = ipn_recvq_size;
	priv->tx_size = ipn_sendq_size;
	priv->paths_max = ipn_paths_max;
	priv->groups_max = ipn_groups_max;

	ret = ipn_path_table_alloc(priv);
	if (ret)
		return ret;
	ret = -ENOMEM;
	priv->stats = netdev_alloc_pcpu_stats(struct ipn_stats);
	if (!priv->stats)
		goto err_paths;
	/*
	 * Transmit queues: as many as the net_device has (ipn_txq_max()
	 * unless netlink asked for fewer), at most IPN_TXQ_MAX; in use, the
	 * stack's default for a multi-queue device (ethtool -L changes it).
	 */
	priv->txq_max = min_t(unsigned int, dev->num_tx_queues, IPN_TXQ_MAX);
	priv->txq = kvcalloc(priv->txq_max, sizeof(*priv->txq), GFP_KERNEL);
	if (!priv->txq)
		goto err_stats;
	for (q = 0; q < priv->txq_max; q++) {
		priv->txq[q].priv = priv;
		priv->txq[q].index = q;
		u64_stats_init(&priv->txq[q].syncp);
		u64_stats_init(&priv->txq[q].xsyncp);
	}
	priv->txq_count = min_t(unsigned int, priv->txq_max,
				netif_get_num_default_rss_queues());
	ret = netif_set_real_num_tx_queues(dev, priv->txq_count);
	if (ret)
		goto err_txq;

	ret = ipn_verbs_create(priv);
	if (ret)
		goto err_txq;
	ret = ipn_dev_set_hwaddr(priv);
	if (ret)
		goto err_verbs;
	memcpy(priv->told_addr, dev->dev_addr, IPC_ADDR_LEN);
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
	for (q = 0; q < priv->txq_max; q++)
		netif_napi_add_tx(dev, &priv->txq[q].napi, ipn_tx_poll);
	dev->features |= ipn_offload_features(&ca->attrs, priv->max_sge);
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
err_txq:
	kvfree(priv->txq);
	priv->txq = NULL;
err_stats:
	free_percpu(priv->stats);
err_paths:
	ipn_path_table_free(priv);
	return ret;
}

/* Undo ipn_priv_init(). */
static void ipn_priv_uninit(struct ipn_priv *priv)
{
	unsigned int q;

	netif_napi_del(&priv->cm_napi);
	for (q = 0; q < priv->txq_max; q++)
		netif_napi_del(&priv->txq[q].napi);
	netif_napi_del(&priv->rx_napi);
	ipn_verbs_destroy(priv);
	kvfree(priv->txq);
	priv->txq = NULL;
	dev_put(priv->roce_ndev);
	free_percpu(priv->stats);
	ipn_path_table_free(priv);
	/* Every entry freed (FREE leaves the tick's queue, entry.c). */
	WARN_ON_ONCE(!RB_EMPTY_ROOT(&priv->due.rb_root));
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
	/* Registered, rtnl held: ipn_roce_lower_mtu() walks the list so. */
	if (priv->roce)
		ipn_roce_watch(priv);
	ipn_dev_update_mtu(priv, ipn_port_ib_mtu(priv));
	netif_carrier_off(dev);
	ipn_debugfs_add(priv);
	return 0;
}

/*
 * The number of transmit queues the next ipn_verbs_create() makes, and
 * the stack's real number: 1 to txq_max (ipn_dev_set_txqs checked it).
 * The datapath is down. rtnl held.
 */
static int ipn_set_txq_count(struct ipn_priv *priv, unsigned int count)
{
	int ret;

	ASSERT_RTNL();
	ret = netif_set_real_num_tx_queues(priv->dev, count);
	if (!ret)
		priv->txq_count = count;
	return ret;
}

/*
 * The verbs resources made again with rx and tx ring entries and txqs
 * transmit queues, between stop and open as after a TX timeout. If they
 * cannot be had, the old ones are made again. rtnl held.
 */
static int ipn_dev_remake(struct ipn_priv *priv, unsigned int rx,
			  unsigned int tx, unsigned int txqs,
			  struct netlink_ext_ack *extack)
{
	unsigned int old_rx = priv->rx_size, old_tx = priv->tx_size;
	unsigned int old_txqs = priv->txq_count;
	struct net_device *dev = priv->dev;
	bool running = netif_running(dev);
	int ret;

	ASSERT_RTNL();
	if (rx == old_rx && tx == old_tx && txqs == old_txqs)
		return 0;
	if (running)
		ipn_stop(dev);
	mutex_lock(&priv->ctl_mutex);
	ipn_verbs_destroy(priv);
	priv->qp = NULL;
	priv->rx_size = rx;
	priv->tx_size = tx;
	ret = ipn_fault() ? -ENOMEM : ipn_set_txq_count(priv, txqs);
	if (!ret)
		ret = ipn_verbs_create(priv);
	if (ret) {
		NL_SET_ERR_MSG_MOD(extack,
				   "cannot allocate rings or queues of that size; the old sizes are kept");
		priv->rx_size = old_rx;
		priv->tx_size = old_tx;
		if (ipn_set_txq_count(priv, old_txqs) ||
		    ipn_verbs_create(priv))
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
 * ethtool -G (rtnl held): the QP's and CQs' sizes are fixed at creation,
 * so the verbs resources are made again, between stop and open as after
 * a TX timeout. The new QP has a new QPN: dev_addr changes and is
 * announced (ipn_dev_addr_changed()). If the new sizes cannot be had, the
 * old ones are made again.
 */
int ipn_dev_resize_rings(struct ipn_priv *priv, unsigned int rx,
			 unsigned int tx, struct netlink_ext_ack *extack)
{
	return ipn_dev_remake(priv, rx, tx, priv->txq_count, extack);
}

/*
 * ethtool -L tx (rtnl held): a transmit queue's QP and CQ are made with
 * the others, so all are made again as for ethtool -G; queue 0's QP is
 * new too, and dev_addr changes with its QPN.
 */
int ipn_dev_set_txqs(struct ipn_priv *priv, unsigned int count,
		     struct netlink_ext_ack *extack)
{
	if (!count || count > priv->txq_max) {
		NL_SET_ERR_MSG_MOD(extack, "transmit queues: 1 to ethtool -l's maximum");
		return -EINVAL;
	}
	return ipn_dev_remake(priv, priv->rx_size, priv->tx_size, count,
			      extack);
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
	/*
	 * Connected mode answers a frame too big for a peer without it (UD)
	 * with ICMP, which needs the frame's route: kept to the driver. In
	 * datagram mode no frame is too big (issue 23: the route released
	 * before the qdisc, as alloc_netdev() leaves it). A bond over this
	 * interface takes the flags again at netdev_update_features().
	 */
	if (connected)
		netif_keep_dst(dev);
	else
		dev->priv_flags |= IFF_XMIT_DST_RELEASE |
				   IFF_XMIT_DST_RELEASE_PERM;
	if (priv->qp && ipn_dev_set_hwaddr(priv))
		netdev_warn(dev, "cannot read the port GID\n");
	mutex_unlock(&priv->ctl_mutex);
	/* Checksum and TSO offloads: UD's only (ipn_fix_features). */
	netdev_update_features(dev);
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

/*
 * The transmit queues an interface is made with (ethtool -L's maximum):
 * one a CPU, at most IPN_TXQ_MAX.
 */
unsigned int ipn_txq_max(void)
{
	return min_t(unsigned int, IPN_TXQ_MAX, num_possible_cpus());
}

/* A port's interface, named ib%d. */
struct ipn_priv *ipn_dev_create(struct ib_device *ca, u32 port, u16 pkey)
{
	struct net_device *dev;
	struct ipn_priv *priv;
	int ret;

	dev = alloc_netdev_mqs(sizeof(*priv), "ib%d", NET_NAME_UNKNOWN,
			       ipn_setup, ipn_txq_max(), 1);
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
