// SPDX-License-Identifier: GPL-2.0
/*
 * ib.c - the ib_client, verbs resources, QP state, control work, async
 * events, address-handle lifetime.
 *
 * Locking: priv->ctl_mutex serialises the control work (joins, queries,
 * flushes, bring-up/down); priv->lock (a BH spinlock) protects the core
 * state objects, paths and groups; the TX ring is under netif_tx_lock.
 */
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
		if (!rdma_protocol_ib(ca, port) && !rdma_protocol_roce(ca, port))
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

/* ------------------------------------------------------------------ */
/* Address handles                                                      */
/* ------------------------------------------------------------------ */

struct ipn_ah *ipn_ah_create(struct ipn_priv *priv, struct rdma_ah_attr *attr)
{
	struct ipn_ah *ah;

	ah = ipn_fault() ? NULL : kzalloc(sizeof(*ah), GFP_KERNEL);
	if (!ah)
		return ERR_PTR(-ENOMEM);
	ah->ah = ipn_fault() ? ERR_PTR(-ENOMEM) :
		 rdma_create_ah(priv->pd, attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah->ah)) {
		int ret = PTR_ERR(ah->ah);

		kfree(ah);
		return ERR_PTR(ret);
	}
	kref_init(&ah->ref);
	ah->priv = priv;
	INIT_LIST_HEAD(&ah->reap);
	return ah;
}

static void ipn_ah_release(struct kref *ref)
{
	struct ipn_ah *ah = container_of(ref, struct ipn_ah, ref);
	struct ipn_priv *priv = ah->priv;
	unsigned long flags;

	/* Any context (TX completion): destroy later, in process context. */
	spin_lock_irqsave(&priv->reap_lock, flags);
	list_add_tail(&ah->reap, &priv->ah_reap);
	spin_unlock_irqrestore(&priv->reap_lock, flags);
	queue_work(priv->wq, &priv->reap_work);
}

void ipn_ah_put(struct ipn_ah *ah)
{
	if (ah)
		kref_put(&ah->ref, ipn_ah_release);
}

/*
 * Destroy the handles released so far. reap_mutex makes a reap whole:
 * one that returns has waited for any other in progress (the reap work
 * may have spliced the list away and still be destroying handles of a
 * PD about to go, review M2). It is taken under ctl_mutex, never the
 * other way round: the work does not wait for the control work.
 */
void ipn_ah_reap(struct ipn_priv *priv)
{
	struct ipn_ah *ah, *tmp;
	unsigned long flags;
	LIST_HEAD(dead);

	mutex_lock(&priv->reap_mutex);
	spin_lock_irqsave(&priv->reap_lock, flags);
	list_splice_init(&priv->ah_reap, &dead);
	spin_unlock_irqrestore(&priv->reap_lock, flags);

	list_for_each_entry_safe(ah, tmp, &dead, reap) {
		rdma_destroy_ah(ah->ah, RDMA_DESTROY_AH_SLEEPABLE);
		kfree(ah);
	}
	mutex_unlock(&priv->reap_mutex);
}

void ipn_ah_reap_work(struct work_struct *work)
{
	ipn_ah_reap(container_of(work, struct ipn_priv, reap_work));
}

/* ------------------------------------------------------------------ */
/* Verbs resources: PD, CQs and the UD QP live as long as the netdev,   */
/* so the QPN in dev_addr is stable across down/up (RFC 4391 s9.4).     */
/* ------------------------------------------------------------------ */

static void ipn_event(struct ib_event_handler *handler, struct ib_event *ev);

void ipn_event_handler_register(struct ipn_priv *priv)
{
	INIT_IB_EVENT_HANDLER(&priv->event_handler, priv->ca, ipn_event);
	ib_register_event_handler(&priv->event_handler);
}

/* Returns once ipn_event() no longer runs for priv. */
void ipn_event_handler_unregister(struct ipn_priv *priv)
{
	ib_unregister_event_handler(&priv->event_handler);
}

/*
 * The UD QP's asynchronous events (review M5). The fatal ones mean the
 * QP is in ERR: restart. Any context.
 */
static void ipn_qp_event(struct ib_event *ev, void *ctx)
{
	struct ipn_priv *priv = ctx;

	switch (ev->event) {
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
		netdev_warn(priv->dev, "queue pair event: %s\n",
			    ib_event_msg(ev->event));
		ipn_qp_failed(priv);
		break;
	default:
		break;
	}
}

int ipn_verbs_create(struct ipn_priv *priv)
{
	struct ib_cq_init_attr cq_attr = {};
	struct ib_qp_init_attr qp_attr = {};
	struct ib_device *ca = priv->ca;
	int ret;

	priv->tx_ring = kcalloc(priv->tx_size, sizeof(*priv->tx_ring),
				GFP_KERNEL);
	if (!priv->tx_ring)
		return -ENOMEM;
	priv->pd = ib_alloc_pd(ca, 0);
	if (IS_ERR(priv->pd)) {
		ret = PTR_ERR(priv->pd);
		goto err;
	}

	cq_attr.cqe = priv->rx_size;
	priv->recv_cq = ib_create_cq(ca, ipn_rx_comp, NULL, priv, &cq_attr);
	if (IS_ERR(priv->recv_cq)) {
		ret = PTR_ERR(priv->recv_cq);
		goto err_pd;
	}
	cq_attr.cqe = priv->tx_size;
	priv->send_cq = ib_create_cq(ca, ipn_tx_comp, NULL, priv, &cq_attr);
	if (IS_ERR(priv->send_cq)) {
		ret = PTR_ERR(priv->send_cq);
		goto err_rcq;
	}

	priv->max_sge = min_t(int, ca->attrs.max_send_sge, IPN_MAX_TX_SGE);
	qp_attr.send_cq = priv->send_cq;
	qp_attr.recv_cq = priv->recv_cq;
	qp_attr.cap.max_send_wr = priv->tx_size;
	qp_attr.cap.max_recv_wr = priv->rx_size;
	qp_attr.cap.max_send_sge = priv->max_sge;
	qp_attr.cap.max_recv_sge = 1;
	qp_attr.sq_sig_type = IB_SIGNAL_ALL_WR;
	qp_attr.qp_type = IB_QPT_UD;
	qp_attr.event_handler = ipn_qp_event;
	qp_attr.qp_context = priv;
	priv->qp = ib_create_qp(priv->pd, &qp_attr);
	if (IS_ERR(priv->qp)) {
		ret = PTR_ERR(priv->qp);
		goto err_scq;
	}
	priv->ifid.qpn = priv->qp->qp_num;
	/* ethtool -C's values survive a ring resize. */
	if (priv->ca->ops.modify_cq &&
	    (memchr_inv(priv->coalesce_usecs, 0, sizeof(priv->coalesce_usecs)) ||
	     memchr_inv(priv->coalesce_frames, 0, sizeof(priv->coalesce_frames))))
		ipn_cq_moderate(priv);
	return 0;

err_scq:
	ib_destroy_cq(priv->send_cq);
err_rcq:
	ib_destroy_cq(priv->recv_cq);
err_pd:
	ib_dealloc_pd(priv->pd);
err:
	kfree(priv->tx_ring);
	priv->tx_ring = NULL;
	/* Review M6: nothing may follow these after a failed resize. */
	priv->qp = NULL;
	priv->send_cq = NULL;
	priv->recv_cq = NULL;
	priv->pd = NULL;
	return ret;
}

/* ethtool -C's values on both CQs. */
int ipn_cq_moderate(struct ipn_priv *priv)
{
	int ret;

	ret = rdma_set_cq_moderation(priv->recv_cq, priv->coalesce_frames[0],
				     priv->coalesce_usecs[0]);
	if (!ret)
		ret = rdma_set_cq_moderation(priv->send_cq,
					     priv->coalesce_frames[1],
					     priv->coalesce_usecs[1]);
	return ret;
}

void ipn_verbs_destroy(struct ipn_priv *priv)
{
	if (!priv->qp)
		return;		/* a failed ring resize left none */
	ib_destroy_qp(priv->qp);
	ib_destroy_cq(priv->send_cq);
	ib_destroy_cq(priv->recv_cq);
	/*
	 * Review M2: a reap work already running may have spliced the list
	 * away and still be destroying handles of this PD: ipn_ah_reap()
	 * waits for it. Not flush_work(): the reap work can be queued on the
	 * ordered workqueue behind a control work that waits for ctl_mutex,
	 * which a ring resize holds here.
	 */
	ipn_ah_reap(priv);
	ib_dealloc_pd(priv->pd);
	kfree(priv->tx_ring);
	priv->tx_ring = NULL;
	priv->qp = NULL;
	priv->send_cq = NULL;
	priv->recv_cq = NULL;
	priv->pd = NULL;
}

/*
 * INIT -> RTR -> RTS, then the receive ring. Control context.
 *
 * Without the interface's P_Key in the port's table the QP stays in INIT
 * (review H5): it holds its receive buffers but receives nothing, and
 * sends fail, until ipn_qp_repkey() finds the P_Key and cycles it. An
 * RTS QP on another index would take another partition's datagrams.
 */
int ipn_qp_up(struct ipn_priv *priv)
{
	struct ib_qp_attr attr = {};
	bool pkey_ok;
	int ret;

	pkey_ok = !ib_find_pkey(priv->ca, priv->port, priv->wire_pkey,
				&priv->pkey_index);
	if (!pkey_ok)
		priv->pkey_index = 0;
	priv->qp_rts = false;

	attr.qp_state = IB_QPS_INIT;
	attr.qkey = priv->qkey;
	attr.port_num = priv->port;
	attr.pkey_index = priv->pkey_index;
	ret = ib_modify_qp(priv->qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_QKEY);
	if (ret)
		goto err;
	if (pkey_ok) {
		attr.qp_state = IB_QPS_RTR;
		ret = ib_modify_qp(priv->qp, &attr, IB_QP_STATE);
		if (ret)
			goto err;
		attr.qp_state = IB_QPS_RTS;
		attr.sq_psn = 0;
		ret = ib_modify_qp(priv->qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
		if (ret)
			goto err;
		priv->qp_rts = true;
	}

	ret = ipn_rx_ring_init(priv);
	if (ret) {
		ipn_qp_down(priv);
		return ret;
	}
	return 0;
err:
	attr.qp_state = IB_QPS_RESET;
	ib_modify_qp(priv->qp, &attr, IB_QP_STATE);
	return ret;
}

/*
 * QP to ERR flushes every posted WR; reap the completions with NAPI off,
 * then RESET. Afterwards no slot of either ring is live.
 */
void ipn_qp_down(struct ipn_priv *priv)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	if (ib_modify_qp(priv->qp, &attr, IB_QP_STATE))
		netdev_warn(priv->dev, "failed to move the QP to ERR\n");
	ipn_tx_ring_drain(priv);
	ipn_cm_reap(priv, true);	/* no slot points at one any more */
	ipn_rx_ring_free(priv);
	attr.qp_state = IB_QPS_RESET;
	if (ib_modify_qp(priv->qp, &attr, IB_QP_STATE))
		netdev_warn(priv->dev, "failed to reset the QP\n");
}

/* ------------------------------------------------------------------ */
/* Control work, deadlines, flushes                                     */
/* ------------------------------------------------------------------ */

void ipn_ctl_kick(struct ipn_priv *priv)
{
	queue_work(priv->wq, &priv->ctl_work);
}

void ipn_ctl_work(struct work_struct *work)
{
	struct ipn_priv *priv = container_of(work, struct ipn_priv, ctl_work);

	rtnl_lock();
	mutex_lock(&priv->ctl_mutex);
	ipn_mcast_run(priv);
	ipn_path_run(priv);
	ipn_cm_run(priv);
	mutex_unlock(&priv->ctl_mutex);
	rtnl_unlock();
}

/*
 * Arm the tick for the earliest core deadline, but no sooner than
 * IPN_TICK_MIN_MS after its last run. priv->lock held.
 */
void ipn_tick_arm(struct ipn_priv *priv, u64 deadline)
{
	u64 now;

	lockdep_assert_held(&priv->lock);
	if (deadline == IPC_NO_DEADLINE || !priv->up)
		return;
	deadline = max(deadline, priv->tick_not_before);
	if (deadline >= priv->next_deadline)
		return;
	priv->next_deadline = deadline;
	now = ipn_now_ms();
	mod_delayed_work(priv->wq, &priv->tick,
			 deadline > now ? msecs_to_jiffies(deadline - now) : 0);
}

void ipn_tick_work(struct work_struct *work)
{
	struct ipn_priv *priv = container_of(to_delayed_work(work),
					     struct ipn_priv, tick);
	u64 now = ipn_now_ms();

	spin_lock_bh(&priv->lock);
	priv->next_deadline = IPC_NO_DEADLINE;
	priv->tick_not_before = now + IPN_TICK_MIN_MS;
	priv->tick_runs++;
	ipn_path_timers(priv, now);
	ipn_mcast_timers(priv, now);
	ipn_cm_timers(priv, now);
	spin_unlock_bh(&priv->lock);
	ipn_ctl_kick(priv);
}

/*
 * The P_Key moved to another index of the port's table, appeared, or is
 * gone. A UD QP cannot change its P_Key index in RTS (IBA 11.2.4.2,
 * ib_modify_qp_is_ok), so the datapath is cycled: connected mode stopped
 * (its RC sends share the send ring, review H4), NAPI off, QP to ERR and
 * RESET, up again on the new index (or held in INIT while the P_Key is
 * absent, review H5), rings re-posted. The QP, and so the QPN in
 * dev_addr, stays. Every group was left and every path freed just before
 * (a heavy flush). Same index and in RTS: nothing to do, the broadcast
 * join that follows brings the link back (also after the P_Key was
 * deleted and re-added there). ctl_mutex held.
 */
static void ipn_qp_repkey(struct ipn_priv *priv)
{
	bool found;
	u16 index;

	lockdep_assert_held(&priv->ctl_mutex);
	found = !ib_find_pkey(priv->ca, priv->port, priv->wire_pkey, &index);
	if (!priv->up || (found && priv->qp_rts && index == priv->pkey_index) ||
	    (!found && !priv->qp_rts))
		return;
	if (found)
		netdev_info(priv->dev, "P_Key 0x%04x at index %u: restarting the QP\n",
			    priv->wire_pkey, index);
	else
		netdev_info(priv->dev, "P_Key 0x%04x gone from the port: the QP stops receiving\n",
			    priv->wire_pkey);
	ipn_cm_stop(priv);
	netif_tx_disable(priv->dev);
	napi_disable(&priv->rx_napi);
	napi_disable(&priv->tx_napi);
	ipn_qp_down(priv);
	if (ipn_qp_up(priv)) {
		/* As after a TX timeout: stop and open again, or close. */
		netdev_warn(priv->dev, "cannot bring the QP up on the new P_Key index\n");
		ipn_restart(priv, "a P_Key change that failed");
	}
	napi_enable(&priv->rx_napi);
	napi_enable(&priv->tx_napi);
	ib_req_notify_cq(priv->recv_cq, IB_CQ_NEXT_COMP);
	ib_req_notify_cq(priv->send_cq, IB_CQ_NEXT_COMP);
	if (priv->qp_rts && ipn_cm_start(priv))
		netdev_warn(priv->dev, "cannot start connected mode: peers reach us over UD only\n");
	netif_wake_queue(priv->dev);
}

/* Perform the link machine's actions. Control context, ctl_mutex held. */
void ipn_link_apply(struct ipn_priv *priv, u32 act)
{
	lockdep_assert_held(&priv->ctl_mutex);
	if (act & IPC_LINK_ACT_CARRIER_OFF)
		ipn_dev_set_carrier(priv, false);
	if (act & IPC_LINK_ACT_LEAVE_ALL) {
		ipn_mcast_destroy_all(priv);
		ipn_path_destroy_all(priv);
	}
	if ((act & IPC_LINK_ACT_REREAD_GID) && ipn_dev_reread_gid(priv))
		priv->addr_changed = true;
	if (act & IPC_LINK_ACT_REREAD_PKEY)
		ipn_qp_repkey(priv);
	if (act & IPC_LINK_ACT_FLUSH_PATHS)
		ipn_path_flush_all(priv);
	if (act & IPC_LINK_ACT_REJOIN_ALL)
		ipn_mcast_flush_all(priv);
	if (act & IPC_LINK_ACT_JOIN_BCAST)
		ipn_mcast_join_bcast(priv);
	if (act & IPC_LINK_ACT_CARRIER_ON)
		ipn_dev_set_carrier(priv, true);
}

/*
 * Port state and P_Key presence from ib_core's cache: callers hold rtnl,
 * and ib_query_port() takes it on RoCE drivers.
 */
int ipn_port_state(struct ipn_priv *priv, int *active, int *pkey_ok)
{
	enum ib_port_state state;
	u16 index;
	int ret;

	ret = ib_get_cached_port_state(priv->ca, priv->port, &state);
	if (ret)
		return ret;
	*active = state == IB_PORT_ACTIVE;
	*pkey_ok = ib_find_cached_pkey(priv->ca, priv->port, priv->wire_pkey,
				       &index) == 0;
	return 0;
}

void ipn_flush_work(struct work_struct *work)
{
	struct ipn_priv *priv = container_of(work, struct ipn_priv, flush_work);
	int ev, active, pkey_ok;
	bool changed;
	u32 act = 0;

	rtnl_lock();
	mutex_lock(&priv->ctl_mutex);
	/* The core maps each event to its flush level and actions. */
	spin_lock_bh(&priv->lock);
	for (ev = 0; ev < IPC_EV_COUNT; ev++)
		if (test_and_clear_bit(ev, &priv->events_pending))
			act |= ipc_link_event(&priv->link, ev);
	spin_unlock_bh(&priv->lock);
	/* Down, the core asks for the GID only: dev_addr follows it now. */
	ipn_link_apply(priv, act);
	if (priv->up && !ipn_port_state(priv, &active, &pkey_ok)) {
		spin_lock_bh(&priv->lock);
		act = ipc_link_port_state(&priv->link, active, pkey_ok);
		spin_unlock_bh(&priv->lock);
		ipn_link_apply(priv, act);
	}
	changed = priv->addr_changed;
	priv->addr_changed = false;
	mutex_unlock(&priv->ctl_mutex);
	if (changed)
		ipn_dev_addr_changed(priv);
	rtnl_unlock();
}

IPN_TESTABLE int ipn_ib_event_to_core(enum ib_event_type type)
{
	switch (type) {
	case IB_EVENT_PORT_ACTIVE:
		return IPC_EV_PORT_ACTIVE;
	case IB_EVENT_PORT_ERR:
		return IPC_EV_PORT_ERR;
	case IB_EVENT_LID_CHANGE:
		return IPC_EV_LID_CHANGE;
	case IB_EVENT_PKEY_CHANGE:
		return IPC_EV_PKEY_CHANGE;
	case IB_EVENT_GID_CHANGE:
		return IPC_EV_GID_CHANGE;
	case IB_EVENT_SM_CHANGE:
		return IPC_EV_SM_CHANGE;
	case IB_EVENT_CLIENT_REREGISTER:
		return IPC_EV_CLIENT_REREGISTER;
	default:
		return -1;
	}
}

/* Atomic context: record the flush level, the work does the rest. */
static void ipn_event(struct ib_event_handler *handler, struct ib_event *ev)
{
	struct ipn_priv *priv = container_of(handler, struct ipn_priv,
					     event_handler);
	int cev;

	if (ev->element.port_num != priv->port)
		return;
	cev = ipn_ib_event_to_core(ev->event);
	if (cev < 0)
		return;
	netdev_dbg(priv->dev, "event %s: flush level %d\n",
		   ipc_event_name(cev), ipc_event_flush_level(cev));
	set_bit(cev, &priv->events_pending);
	queue_work(priv->wq, &priv->flush_work);
}
