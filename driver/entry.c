// SPDX-License-Identifier: GPL-2.0
/*
 * entry.c - the one engine that performs the core's results on its
 * entries: paths (path.c), groups (mcast.c) and the connections we make
 * (cm.c). The core decides; this file performs each result in the order
 * the core declares (IPC_ACT_ORDER, ipoib_core.h): at the verdict, under
 * priv->lock, what touches only the entry's frames, its address handle
 * and the log (IPC_ACT_AT_VERDICT); later, in the control work, one
 * entry at a time, the backend's calls, which sleep. Each kind supplies
 * its backend calls (struct ipn_entry_kind) and nothing else.
 */
#include "ipoib_ng.h"

static const u32 ipn_act_order[] = { IPC_ACT_ORDER };

/* What each ending action ends: a start still waiting for the work. */
static u32 ipn_act_ended(u32 act)
{
	u32 ended = 0;

	if (act & IPC_ACT_CANCEL_QUERY)
		ended |= IPC_ACT_START_QUERY;
	if (act & IPC_ACT_DETACH)
		ended |= IPC_ACT_ATTACH;
	if (act & IPC_ACT_LEAVE)
		ended |= IPC_ACT_JOIN;
	if (act & IPC_ACT_DISCONNECT)
		ended |= IPC_ACT_CONNECT;
	return ended;
}

#define IPN_ACT_ENDING (IPC_ACT_CANCEL_QUERY | IPC_ACT_LEAVE | \
			IPC_ACT_DISCONNECT | IPC_ACT_FREE)
#define IPN_ACT_STARTING (IPC_ACT_START_QUERY | IPC_ACT_JOIN | \
			  IPC_ACT_CONNECT | IPC_ACT_ATTACH)
/* The starts that ask the SA (on InfiniBand): budget.c. */
#define IPN_ACT_SA (IPC_ACT_START_QUERY | IPC_ACT_JOIN)

void ipn_entry_init(struct ipn_entry *e, const struct ipn_entry_kind *kind)
{
	INIT_LIST_HEAD(&e->work);
	skb_queue_head_init(&e->queue);
	e->kind = kind;
	e->ops = 0;
	e->dead = false;
	e->sa_act = 0;
	INIT_LIST_HEAD(&e->sa_node);
	RB_CLEAR_NODE(&e->due_node);
	e->deadline = IPC_NO_DEADLINE;
}

static bool ipn_due_less(struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct ipn_entry, due_node)->due <
	       rb_entry(b, struct ipn_entry, due_node)->due;
}

static void ipn_entry_unfile(struct ipn_priv *priv, struct ipn_entry *e)
{
	if (RB_EMPTY_NODE(&e->due_node))
		return;
	rb_erase_cached(&e->due_node, &priv->due);
	RB_CLEAR_NODE(&e->due_node);
	e->deadline = IPC_NO_DEADLINE;
}

/*
 * File e under its machine's deadline in priv->due, the tick's queue,
 * and arm the tick for it: the tick runs what is due and visits nothing
 * else (review M3). Due not before the tick may run again
 * (IPN_TICK_MIN_MS): an entry whose timer asks to run at once waits for
 * the next run, as when every run visited every entry once, and a run
 * ends. Unchanged (every frame's verdict, mostly): nothing to do. A dead
 * entry leaves the queue. priv->lock held.
 */
void ipn_entry_file(struct ipn_priv *priv, struct ipn_entry *e)
{
	u64 deadline = e->dead ? IPC_NO_DEADLINE : e->kind->deadline(e);

	lockdep_assert_held(&priv->lock);
	if (deadline == e->deadline)
		return;
	ipn_entry_unfile(priv, e);
	if (deadline == IPC_NO_DEADLINE)
		return;
	e->deadline = deadline;
	e->due = max(deadline, priv->tick_not_before);
	rb_add_cached(&e->due_node, &priv->due, ipn_due_less);
	ipn_tick_arm(priv, e->due);
}

/* Arm the tick for the first entry due (the interface came up). */
void ipn_entry_arm_first(struct ipn_priv *priv)
{
	struct rb_node *n = rb_first_cached(&priv->due);

	lockdep_assert_held(&priv->lock);
	if (n)
		ipn_tick_arm(priv, rb_entry(n, struct ipn_entry, due_node)->due);
}

/*
 * Perform the core's result r on e: skb is the frame the verdict is
 * about (NULL when none, or when the caller sends it: SEND, VIA_UD,
 * TO_ROUTERS of this frame), queued or dropped here. The backend's
 * share goes to the control work; the tick follows the deadline.
 * priv->lock held.
 */
void ipn_entry_apply(struct ipn_priv *priv, struct ipn_entry *e,
		     const struct ipc_result *r, struct sk_buff *skb)
{
	const struct ipn_entry_kind *kind = e->kind;
	int reason = r->reason ?: kind->drop_reason;
	u32 left = r->actions, ops = 0, act;
	struct sk_buff *old;
	unsigned int i;

	lockdep_assert_held(&priv->lock);
	for (i = 0; i < ARRAY_SIZE(ipn_act_order) && left; i++) {
		act = ipn_act_order[i];
		if (!(left & act))
			continue;
		left &= ~act;
		switch (act) {
		case IPC_ACT_RELEASE_AH:
			if (kind->release_ah)
				kind->release_ah(priv, e);
			break;
		case IPC_ACT_DROP_OLDEST:
			old = __skb_dequeue(&e->queue);
			if (old)
				ipn_drop(priv, old, IPC_R_QUEUE_FULL, true);
			break;
		case IPC_ACT_QUEUE:
			if (skb)
				__skb_queue_tail(&e->queue, skb);
			skb = NULL;
			break;
		case IPC_ACT_SEND:
		case IPC_ACT_VIA_UD:
		case IPC_ACT_DROP:
			break;	/* skb, if the caller gave it, goes below */
		case IPC_ACT_PURGE_QUEUE:
			while ((old = __skb_dequeue(&e->queue)))
				ipn_drop(priv, old, reason, true);
			break;
		case IPC_ACT_LOG:
			if (kind->log)
				kind->log(priv, e);
			break;
		case IPC_ACT_TO_ROUTERS:
			/* Of this frame: the caller's; of the queue: later. */
			if (kind->to_routers && !skb_queue_empty(&e->queue))
				ops |= act;
			break;
		case IPC_ACT_FREE:
			ipn_sa_withdraw(priv, e);
			kind->unlink(priv, e);
			e->dead = true;
			ops |= act;
			break;
		default:
			/* An ending takes the start it ends with it. */
			e->ops &= ~ipn_act_ended(act);
			if (e->sa_act & ipn_act_ended(act))
				ipn_sa_withdraw(priv, e);
			/* An SA request may wait for the port's budget. */
			if ((act & IPN_ACT_SA) && !ipn_sa_gate(priv, e, act))
				break;
			ops |= act;
			break;
		}
	}
	/* A frame the core neither queued nor left to the caller. */
	if (skb)
		ipn_drop(priv, skb, reason, true);
	if (r->actions & IPC_ACT_JOIN)
		e->join_type = r->join_type;
	if (ops)
		ipn_entry_queue_ops(priv, e, ops);
	ipn_entry_file(priv, e);
	if (kind->applied)
		kind->applied(priv, e);
}

/*
 * The tick (ctl.c): the machine timer of each entry due by now, in order
 * of due time, each once (what it files again is due after now); then
 * the tick armed for the next. One discipline for every kind: the
 * earliest deadline of all entries arms the tick (review M4). An entry
 * whose deadline moved later is filed again. priv->lock held.
 */
void ipn_entry_run_due(struct ipn_priv *priv, u64 now)
{
	struct ipc_result r;
	struct ipn_entry *e;
	struct rb_node *n;

	lockdep_assert_held(&priv->lock);
	while ((n = rb_first_cached(&priv->due))) {
		e = rb_entry(n, struct ipn_entry, due_node);
		if (e->due > now) {
			ipn_tick_arm(priv, e->due);
			break;
		}
		ipn_entry_unfile(priv, e);
		priv->tick_visits++;
		if (e->kind->deadline(e) > now) {
			ipn_entry_file(priv, e);
			continue;
		}
		e->kind->timer(priv, e, now, &r);
		ipn_entry_apply(priv, e, &r, NULL);
	}
}

/*
 * Perform the backend's share of the results of the entries on work, in
 * IPC_ACT_ORDER: what ends first; then what the backend reported
 * meanwhile, unless an ending came after it (the core's contract: after
 * CANCEL_QUERY, LEAVE or DISCONNECT no completion of what they end);
 * then what starts, unless the entry was freed; the queue handed back
 * to transmit; FREE last. A result fed to the core here may queue the
 * entry again: the loop takes it until the list is empty. Control
 * context (rtnl, ctl_mutex).
 */
void ipn_entry_run(struct ipn_priv *priv, struct list_head *work)
{
	struct sk_buff_head flush;
	const struct ipn_entry_kind *kind;
	struct ipn_entry *e;
	u32 ops, act;
	unsigned int i;
	int join_type;

	lockdep_assert_held(&priv->ctl_mutex);
	__skb_queue_head_init(&flush);
	for (;;) {
		spin_lock_bh(&priv->lock);
		e = list_first_entry_or_null(work, struct ipn_entry, work);
		if (!e) {
			spin_unlock_bh(&priv->lock);
			break;
		}
		list_del_init(&e->work);
		kind = e->kind;
		ops = e->ops;
		e->ops = 0;
		join_type = e->join_type;
		if (ops & IPC_ACT_FLUSH_QUEUE)
			skb_queue_splice_tail_init(&e->queue, &flush);
		if (ops & IPC_ACT_TO_ROUTERS)
			kind->to_routers(priv, e, &flush);
		spin_unlock_bh(&priv->lock);

		if (ops & IPN_ACT_ENDING)
			ops &= ~IPN_OP_REPORT;
		if (ops & IPC_ACT_FREE)
			ops &= ~IPN_ACT_STARTING;
		for (i = 0; i < ARRAY_SIZE(ipn_act_order); i++) {
			act = ipn_act_order[i];
			if ((act & IPN_ACT_STARTING) && (ops & IPN_OP_REPORT)) {
				kind->report(priv, e, ops & IPN_OP_REPORT);
				ops &= ~IPN_OP_REPORT;
			}
			if ((ops & act) && !(act & (IPC_ACT_AT_VERDICT |
						    IPC_ACT_FLUSH_QUEUE |
						    IPC_ACT_TO_ROUTERS |
						    IPC_ACT_FREE)))
				kind->perform(priv, e, act, join_type);
		}
		ipn_xmit_list(&flush);
		if (ops & IPC_ACT_FREE)
			kind->release(priv, e);
	}
}
