// SPDX-License-Identifier: GPL-2.0
/*
 * ctl.c - the control work: the entries' backend operations, the tick
 * that serves the core's deadlines, the port's asynchronous events and
 * the flushes they ask for, and the link machine's actions.
 *
 * Locking: priv->ctl_mutex serialises the control work (joins, queries,
 * flushes, bring-up/down); priv->lock (a BH spinlock) protects the core
 * state objects, paths and groups; the TX ring is under netif_tx_lock.
 */
#include <linux/rtnetlink.h>
#include <rdma/ib_cache.h>
#include "ipoib_ng.h"

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
	/* The module parameter may change at any time. */
	priv->mc_cfg.sendonly_idle_ms = ipn_sendonly_idle();
	ipn_entry_run_due(priv, now);
	ipn_cm_timers(priv, now);
	ipn_sa_release(priv, now);
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
	/*
	 * TX NAPI off first: it wakes stopped queues, and none may wake
	 * once netif_tx_disable() has let the last transmit finish.
	 */
	napi_disable(&priv->rx_napi);
	ipn_tx_napi_disable(priv);
	netif_tx_disable(priv->dev);
	ipn_qp_down(priv);
	if (ipn_qp_up(priv)) {
		/* As after a TX timeout: stop and open again, or close. */
		netdev_warn(priv->dev, "cannot bring the QP up on the new P_Key index\n");
		ipn_restart(priv, "a P_Key change that failed");
	}
	napi_enable(&priv->rx_napi);
	ipn_tx_napi_enable(priv);
	ib_req_notify_cq(priv->recv_cq, IB_CQ_NEXT_COMP);
	if (priv->qp_rts && ipn_cm_start(priv))
		netdev_warn(priv->dev, "cannot start connected mode: peers reach us over UD only\n");
	netif_tx_wake_all_queues(priv->dev);
}

/* Perform the link machine's actions. Control context, ctl_mutex held. */
void ipn_link_apply(struct ipn_priv *priv, const struct ipc_result *r)
{
	u32 act = r->actions;

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
	struct ipc_result r;
	u32 events = 0;
	bool changed;

	rtnl_lock();
	mutex_lock(&priv->ctl_mutex);
	/* The core maps each event to its flush level and actions. */
	for (ev = 0; ev < IPC_EV_COUNT; ev++)
		if (test_and_clear_bit(ev, &priv->events_pending))
			events |= BIT(ev);
	spin_lock_bh(&priv->lock);
	ipc_link_events(&priv->link, events, &r);
	spin_unlock_bh(&priv->lock);
	/* Down, the core asks for the GID only: dev_addr follows it now. */
	ipn_link_apply(priv, &r);
	if (priv->up && !ipn_port_state(priv, &active, &pkey_ok)) {
		spin_lock_bh(&priv->lock);
		ipc_link_port_state(&priv->link, active, pkey_ok, &r);
		spin_unlock_bh(&priv->lock);
		ipn_link_apply(priv, &r);
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
