// SPDX-License-Identifier: GPL-2.0
/*
 * mcast.c - multicast groups: the broadcast group, the stack's groups
 * (ndo_set_rx_mode diffed in a work) and send-only groups created by
 * egress (RFC 4391 s10). The core's group machine decides; this file
 * keeps the entries, their queues and runs the backend operations.
 * At most priv->groups_max of them exist, counting those waiting to be
 * freed and the broadcast group, which is never refused (review M3).
 */
#include <linux/slab.h>
#include <linux/rtnetlink.h>
#include "ipoib_ng.h"
#include "trace.h"

/* The group mgid, or NULL. priv->lock held. */
/*
 * Whether the stack's multicast address addr is one the core takes
 * (ipc_mcast_addr_check: QPN 0xffffff, an IPoIB MGID of this link's
 * P_Key and scope). rx_mode_work hands those to the core; transmit's
 * look at the list (ipn_mcast_stack_listed) takes the same.
 */
bool ipn_mcast_addr_taken(const struct ipn_priv *priv, const u8 *addr)
{
	return ipc_mcast_addr_check(addr, priv->ifid.bcast_gid) == IPC_R_OK;
}

struct ipn_mcast *ipn_mcast_find(struct ipn_priv *priv, const u8 *mgid)
{
	struct ipn_mcast *mc;

	lockdep_assert_held(&priv->lock);
	hash_for_each_possible(priv->mc_hash, mc, node,
			       ipn_gid_key(priv, mgid))
		if (!memcmp(mc->mgid, mgid, IPC_GID_LEN))
			return mc;
	return NULL;
}

/* Give mc another MGID (the broadcast group's search). priv->lock held. */
static void ipn_mcast_rename(struct ipn_priv *priv, struct ipn_mcast *mc,
			     const u8 *mgid)
{
	lockdep_assert_held(&priv->lock);
	hash_del(&mc->node);
	memcpy(mc->mgid, mgid, IPC_GID_LEN);
	hash_add(priv->mc_hash, &mc->node, ipn_gid_key(priv, mgid));
}

/*
 * Tear mc down now, whatever its state; FREE takes it off the table at
 * once and the control work frees it. priv->lock held.
 */
static void ipn_mcast_teardown(struct ipn_priv *priv, struct ipn_mcast *mc)
{
	struct ipc_result r;

	lockdep_assert_held(&priv->lock);
	ipn_allmulti_forget(priv, &mc->st);
	ipc_mc_destroy(&mc->st, &r);	/* FREE always */
	ipn_mcast_apply(priv, mc, &r, NULL);
}

/*
 * The table is full: give up one group the core lets go
 * (ipc_mc_evictable), looking from a cursor that moves on at no more than
 * IPN_MC_EVICT_SCAN groups in IPN_MC_EVICT_BUCKETS buckets (xmit, as for
 * paths), or at the whole table (whole: the control work, for a group the
 * stack joins, which no later packet retries). The count falls when the
 * control work frees it. priv->lock held.
 */
static void ipn_mcast_evict(struct ipn_priv *priv, u64 now, bool whole)
{
	u32 bkt = priv->mc_evict_bkt & (HASH_SIZE(priv->mc_hash) - 1);
	unsigned int left = whole ? UINT_MAX : IPN_MC_EVICT_SCAN, n;
	unsigned int buckets = whole ? HASH_SIZE(priv->mc_hash) :
				       IPN_MC_EVICT_BUCKETS;
	struct ipn_mcast *mc, *victim = NULL;

	lockdep_assert_held(&priv->lock);
	for (n = 0; n < buckets && left && !victim; n++) {
		hlist_for_each_entry(mc, &priv->mc_hash[bkt], node) {
			if (!mc->is_bcast &&
			    ipc_mc_evictable(&mc->st, &priv->mc_cfg, now)) {
				victim = mc;
				break;
			}
			if (!--left)
				break;
		}
		bkt = (bkt + 1) & (HASH_SIZE(priv->mc_hash) - 1);
	}
	priv->mc_evict_bkt = bkt;
	if (victim) {
		ipn_mcast_teardown(priv, victim);
		ipn_inc(priv, mc_evictions);
	}
}

/* How a new group finds room (__ipn_mcast_get()). */
enum ipn_mc_room {
	IPN_MC_UNCAPPED,	/* the broadcast group: always */
	IPN_MC_NO_ROOM,		/* the all-multicast mode: none is made */
	IPN_MC_SCAN,		/* xmit: a bounded eviction scan */
	IPN_MC_SCAN_ALL,	/* the stack's groups: the whole table */
};

static struct ipn_mcast *__ipn_mcast_get(struct ipn_priv *priv,
					 const u8 *mgid, u8 scope,
					 enum ipn_mc_room room)
{
	struct ipn_mcast *mc = ipn_mcast_find(priv, mgid);

	if (mc)
		return mc;
	if (room != IPN_MC_UNCAPPED && priv->mc_count >= priv->groups_max) {
		if (!priv->groups_full_told) {
			priv->groups_full_told = true;
			netdev_warn(priv->dev, "%u multicast groups, the most it keeps (groups_max): new groups wait, their packets are dropped, until idle or failed ones make room (drop_group_table_full)\n",
				    priv->mc_count);
		}
		if (room != IPN_MC_NO_ROOM)
			ipn_mcast_evict(priv, ipn_now_ms(),
					room == IPN_MC_SCAN_ALL);
		return ERR_PTR(-ENOSPC);
	}
	mc = ipn_fault() ? NULL : kzalloc(sizeof(*mc), GFP_ATOMIC);
	if (!mc)
		return ERR_PTR(-ENOMEM);
	mc->priv = priv;
	memcpy(mc->mgid, mgid, IPC_GID_LEN);
	ipc_mc_init(&mc->st, scope);
	ipn_entry_init(&mc->e, &ipn_mcast_kind);
	list_add_tail(&mc->list, &priv->mcasts);
	hash_add(priv->mc_hash, &mc->node, ipn_gid_key(priv, mgid));
	priv->mc_count++;
	return mc;
}

/*
 * Find or create the group mgid. scope is the IP group's scope (RFC 4391
 * s10 routing decision), IPC_SCOPE_LINK when unknown. priv->lock held.
 * ERR_PTR(-ENOMEM), or ERR_PTR(-ENOSPC) when the table holds groups_max
 * groups (review M3): then, with make_room, one the core lets go, if any,
 * is torn down for the caller's next try (xmit: the stack retransmits).
 * A caller that does not try again (a notice of the all-multicast mode)
 * passes false: an eviction would buy it nothing.
 */
struct ipn_mcast *ipn_mcast_get(struct ipn_priv *priv, const u8 *mgid,
				u8 scope, bool make_room)
{
	lockdep_assert_held(&priv->lock);
	return __ipn_mcast_get(priv, mgid, scope,
			       make_room ? IPN_MC_SCAN : IPN_MC_NO_ROOM);
}

/*
 * RFC 4391 s10 "send to the all-routers group when that exists": usable
 * unless its join found it missing. Never for that group itself.
 * priv->lock held.
 */
int ipn_mcast_routers_usable(struct ipn_priv *priv, const u8 *mgid)
{
	u8 routers[IPC_GID_LEN];
	struct ipn_mcast *mc;

	lockdep_assert_held(&priv->lock);
	if (ipc_mgid_is_all_routers(mgid))
		return 0;
	ipc_mgid_all_routers(mgid, routers);
	mc = ipn_mcast_find(priv, routers);
	return !mc || !ipc_mc_missing(&mc->st);
}

/*
 * Address a frame to the all-routers group of its group's family: its
 * pseudo header names the new MGID. false: the header cannot be written.
 */
bool ipn_mcast_redirect(struct sk_buff *skb)
{
	u8 routers[IPC_GID_LEN];

	if (skb_cow_head(skb, 0))
		return false;
	ipc_mgid_all_routers(ipn_addr_gid(skb->data), routers);
	memcpy(ipn_addr_gid(skb->data), routers, IPC_GID_LEN);
	return true;
}

/*
 * Move the frames of queue, readdressed to the all-routers group, to out
 * (sent again from the control work). priv->lock held.
 */
static void ipn_mcast_redirect_queue(struct ipn_priv *priv,
				     struct sk_buff_head *queue,
				     struct sk_buff_head *out)
{
	struct sk_buff *skb;

	lockdep_assert_held(&priv->lock);
	while ((skb = __skb_dequeue(queue))) {
		if (ipn_mcast_redirect(skb))
			__skb_queue_tail(out, skb);
		else
			ipn_drop(priv, skb, IPC_R_NOT_JOINED, true);
	}
}

/* Carry out the core's verdict (entry.c). priv->lock held. */
void ipn_mcast_apply(struct ipn_priv *priv, struct ipn_mcast *mc,
		     const struct ipc_result *r, struct sk_buff *skb)
{
	ipn_entry_apply(priv, &mc->e, r, skb);
}

/*
 * The broadcast group search (ipc_bsearch_missing()) moved, after a miss
 * (status) of the group: the entry and dev->broadcast follow the search's
 * scope, and with it the MGID of every IP group (RFC 4391 s4: same
 * scope). Moved on (another scope, or creating the group), the entry,
 * which holds no membership after the miss, starts over there
 * (ipc_mc_bcast_next: the frames for the old MGID purged, a join).
 * Wrapped (no scope had it, creating is not allowed: back to
 * link-local), the entry was fed the miss and backs off; its retry looks
 * where the search starts. A listener's veto of the move restarts the
 * search, and the miss is a failure after all. Control context (rtnl,
 * ctl_mutex).
 */
static void ipn_mcast_bcast_follow(struct ipn_priv *priv,
				   struct ipn_mcast *mc, int status,
				   bool wrapped)
{
	struct ipc_result r;
	u64 now = ipn_now_ms();
	int ret;

	ASSERT_RTNL();
	lockdep_assert_held(&priv->ctl_mutex);
	ret = ipn_dev_set_bcast_scope(priv, priv->bsearch.scope);
	spin_lock_bh(&priv->lock);
	if (ret) {
		netdev_warn(priv->dev, "cannot move to broadcast scope %x: %d\n",
			    priv->bsearch.scope, ret);
		ipc_bsearch_start(&priv->bsearch);
	}
	if (mc->e.dead) {
		/* Freed meanwhile: nothing to follow. */
	} else if (ret || priv->bcast != mc) {
		/* Not moved: the miss stands (fed already when wrapped). */
		if (!wrapped) {
			ipc_mc_join_done(&mc->st, &priv->mc_cfg, now, status,
					 ipn_mcast_routers_usable(priv, mc->mgid),
					 &priv->rng, &r);
			ipn_mcast_apply(priv, mc, &r, NULL);
		}
	} else {
		netdev_dbg(priv->dev, "broadcast group: trying %pI6c%s\n",
			   priv->ifid.bcast_gid,
			   priv->bsearch.creating ? ", creating it" : "");
		ipn_mcast_rename(priv, mc, priv->ifid.bcast_gid);
		if (!wrapped) {
			ipc_mc_bcast_next(&mc->st, &priv->mc_cfg, now, &r);
			ipn_mcast_apply(priv, mc, &r, NULL);
		}
	}
	spin_unlock_bh(&priv->lock);
}

/* A join finished. Control context (rtnl, ctl_mutex). */
void ipn_mcast_join_complete(struct ipn_priv *priv, struct ipn_mcast *mc,
			     int status)
{
	int step = IPC_BSEARCH_WAIT;
	bool wrapped = false;
	struct ipn_ah *ah = NULL, *old = NULL;
	struct rdma_ah_attr attr;
	struct ipc_result r, link = { .actions = 0 };
	struct ipc_view st = { .joined = 0 };

	lockdep_assert_held(&priv->ctl_mutex);
	if (!status && !mc->e.dead) {
		status = priv->ops->mc_ah_attr(priv, mc, &attr);
		if (!status) {
			ah = ipn_ah_create(priv, &attr);
			/*
			 * On InfiniBand the attributes hold a reference to
			 * the source GID's entry (ib_init_ah_from_mcmember());
			 * the handle holds its own. Without this put, every
			 * join kept the entry past its device (kmemleak).
			 */
			rdma_destroy_ah_attr(&attr);
			if (IS_ERR(ah)) {
				status = PTR_ERR(ah);
				ah = NULL;
			}
		}
	}
	if (!status)
		ipn_inc(priv, mc_joins);
	else if (status != -IPC_ENOBCAST)
		ipn_inc(priv, mc_failures);

	spin_lock_bh(&priv->lock);
	if (mc->e.dead) {
		old = ah;
		goto out;
	}
	if (ah) {
		old = mc->ah;
		mc->ah = ah;
	}
	/* No broadcast group of this scope: the core's search goes on. */
	if (mc->is_bcast && status == -ENOENT) {
		step = ipc_bsearch_missing(&priv->bsearch,
					   READ_ONCE(ipn_create_broadcast));
		wrapped = step == IPC_BSEARCH_WAIT;
	}
	/* Moving on is not a failure: ipn_mcast_bcast_follow() starts over. */
	if (step == IPC_BSEARCH_WAIT) {
		ipc_mc_join_done(&mc->st, &priv->mc_cfg, ipn_now_ms(), status,
				 ipn_mcast_routers_usable(priv, mc->mgid),
				 &priv->rng, &r);
		ipn_mcast_apply(priv, mc, &r, NULL);
		ipc_mc_view(&mc->st, &st);	/* the memberships held now */
	}
	if (mc->is_bcast)
		ipc_link_bcast_done(&priv->link, status, &link);
out:
	spin_unlock_bh(&priv->lock);
	ipn_ah_put(old);
	/* What the core took as the join's outcome, not a search's step. */
	if (!mc->e.dead && step == IPC_BSEARCH_WAIT && status != -IPC_ENOBCAST)
		ipn_genl_group_event(priv, mc->mgid, false, status,
				     st.joined);
	ipn_link_apply(priv, &link);
	if (step != IPC_BSEARCH_WAIT || wrapped)
		ipn_mcast_bcast_follow(priv, mc, status, wrapped);
}

/*
 * The broadcast group is joined and attached: the groups that waited for
 * its parameters (HELD) join now. Control context.
 */
static void ipn_mcast_release_held(struct ipn_priv *priv)
{
	struct ipn_mcast *mc, *tmp;
	struct ipc_result r;
	u64 now = ipn_now_ms();

	spin_lock_bh(&priv->lock);
	list_for_each_entry_safe(mc, tmp, &priv->mcasts, list) {
		ipc_mc_bcast_joined(&mc->st, &priv->mc_cfg, now, &r);
		ipn_mcast_apply(priv, mc, &r, NULL);
	}
	spin_unlock_bh(&priv->lock);
}

static struct ipn_mcast *ipn_mcast_of(struct ipn_entry *e)
{
	return container_of(e, struct ipn_mcast, e);
}

static void ipn_mcast_log(struct ipn_priv *priv, struct ipn_entry *e)
{
	struct ipn_mcast *mc = ipn_mcast_of(e);
	struct ipc_view v;

	ipc_mc_view(&mc->st, &v);
	netdev_warn(priv->dev, "multicast group %pI6: join failed: %d\n",
		    mc->mgid, v.last_status);
}

static void ipn_mcast_unlink(struct ipn_priv *priv, struct ipn_entry *e)
{
	struct ipn_mcast *mc = ipn_mcast_of(e);

	list_del(&mc->list);
	hash_del(&mc->node);
	if (priv->bcast == mc)
		priv->bcast = NULL;
}

/* The queued frames go to the all-routers group (s10). priv->lock held. */
static void ipn_mcast_to_routers(struct ipn_priv *priv, struct ipn_entry *e,
				 struct sk_buff_head *out)
{
	ipn_mcast_redirect_queue(priv, &e->queue, out);
}

/* DETACH, LEAVE, JOIN, ATTACH. Control context (rtnl, ctl_mutex). */
static void ipn_mcast_perform(struct ipn_priv *priv, struct ipn_entry *e,
			      u32 act, int join_type)
{
	struct ipn_mcast *mc = ipn_mcast_of(e);
	int ret;

	switch (act) {
	case IPC_ACT_DETACH:
		if (mc->attached) {
			priv->ops->detach(priv, mc);
			mc->attached = false;
		}
		break;
	case IPC_ACT_LEAVE:
		priv->ops->leave(priv, mc);
		ipn_inc(priv, mc_leaves);
		ipn_genl_group_event(priv, mc->mgid, true, 0, 0);
		break;
	case IPC_ACT_JOIN:
		trace_ipoib_ng_sa_request(priv->dev, "join", mc->mgid);
		ret = priv->ops->join(priv, mc, join_type);
		if (ret != 0)
			ipn_mcast_join_complete(priv, mc, ret > 0 ? 0 : ret);
		break;
	case IPC_ACT_ATTACH:
		if (mc->attached || mc->e.dead)
			break;
		ret = priv->ops->attach(priv, mc);
		if (ret)
			netdev_warn(priv->dev, "multicast group %pI6: attach failed: %d\n",
				    mc->mgid, ret);
		mc->attached = !ret;
		if (mc->attached && mc->is_bcast)
			ipn_mcast_release_held(priv);
		break;
	}
}

/*
 * IPN_OP_DONE: the join the backend answered (sa.c), unless a leave or
 * another join came since (review 2026-12 L1: the answer of a join the
 * core has given up would move the link machine and the broadcast
 * search).
 */
static void ipn_mcast_report(struct ipn_priv *priv, struct ipn_entry *e,
			     u32 ops)
{
	struct ipn_mcast *mc = ipn_mcast_of(e);
	bool fresh;
	int status;

	spin_lock_bh(&priv->lock);
	fresh = mc->done_gen == mc->join_gen;
	status = mc->join_status;
	spin_unlock_bh(&priv->lock);
	if (fresh)
		ipn_mcast_join_complete(priv, mc, status);
	else
		ipn_inc(priv, mc_stale_answers);
}

static void ipn_mcast_release(struct ipn_priv *priv, struct ipn_entry *e)
{
	struct ipn_mcast *mc = ipn_mcast_of(e);

	if (mc->attached) {
		priv->ops->detach(priv, mc);
		mc->attached = false;
	}
	if (mc->sa_mc)
		priv->ops->leave(priv, mc);
	ipn_ah_put(mc->ah);
	__skb_queue_purge(&mc->e.queue);
	kfree(mc);
	spin_lock_bh(&priv->lock);
	priv->mc_count--;
	/* Room: the stack's groups that waited for it. */
	if (priv->mc_stack_waiting && priv->up) {
		priv->mc_stack_waiting = false;
		mod_delayed_work(priv->wq, &priv->rx_mode_work, 0);
	}
	spin_unlock_bh(&priv->lock);
}

static u64 ipn_mcast_deadline(struct ipn_entry *e)
{
	return ipc_mc_deadline(&ipn_mcast_of(e)->st);
}

static void ipn_mcast_timer(struct ipn_priv *priv, struct ipn_entry *e,
			    u64 now, struct ipc_result *r)
{
	ipc_mc_timer(&ipn_mcast_of(e)->st, &priv->mc_cfg, now, &priv->rng, r);
}

static int ipn_mcast_sa_class(struct ipn_entry *e)
{
	struct ipn_mcast *mc = ipn_mcast_of(e);

	return ipc_mc_sa_class(&mc->st, mc->is_bcast);
}

static void ipn_mcast_sa_held(struct ipn_priv *priv, struct ipn_entry *e,
			      struct ipc_result *r)
{
	ipc_mc_join_held(&ipn_mcast_of(e)->st, r);
}

static void ipn_mcast_sa_sent(struct ipn_priv *priv, struct ipn_entry *e,
			      u64 now, struct ipc_result *r)
{
	ipc_mc_join_sent(&ipn_mcast_of(e)->st, &priv->mc_cfg, now, r);
}

const struct ipn_entry_kind ipn_mcast_kind = {
	.work_off = offsetof(struct ipn_priv, mc_work),
	.drop_reason = IPC_R_NOT_JOINED,
	.log = ipn_mcast_log,
	.unlink = ipn_mcast_unlink,
	.to_routers = ipn_mcast_to_routers,
	.deadline = ipn_mcast_deadline,
	.timer = ipn_mcast_timer,
	.perform = ipn_mcast_perform,
	.report = ipn_mcast_report,
	.release = ipn_mcast_release,
	.sa_class = ipn_mcast_sa_class,
	.sa_held = ipn_mcast_sa_held,
	.sa_sent = ipn_mcast_sa_sent,
};

/* The groups' backend operations. Control context (rtnl, ctl_mutex). */
void ipn_mcast_run(struct ipn_priv *priv)
{
	ipn_entry_run(priv, &priv->mc_work);
}

/* The link machine asked for the broadcast group. Control context. */
int ipn_mcast_join_bcast(struct ipn_priv *priv)
{
	struct ipn_mcast *mc;
	struct ipc_result r;

	/*
	 * A new search (the link came up, or came back after a flush that
	 * left every group) starts at link-local scope.
	 */
	if (!priv->bcast) {
		ipc_bsearch_start(&priv->bsearch);
		if (ipn_dev_set_bcast_scope(priv, priv->bsearch.scope))
			netdev_warn(priv->dev, "cannot go back to the link-local broadcast group\n");
		/*
		 * The stack's groups went with the link (LEAVE_ALL) and its
		 * list has not changed since: diff it again. They wait
		 * (HELD) for the broadcast group's parameters. So do the
		 * NonMember ones of the all-multicast mode.
		 */
		ipn_allmulti_flushed(priv);
		mod_delayed_work(priv->wq, &priv->rx_mode_work, 0);
	}
	spin_lock_bh(&priv->lock);
	/* Whatever the others, the link needs this one: no cap. */
	mc = __ipn_mcast_get(priv, priv->ifid.bcast_gid, IPC_SCOPE_LINK,
			     IPN_MC_UNCAPPED);
	if (IS_ERR(mc)) {
		spin_unlock_bh(&priv->lock);
		return PTR_ERR(mc);
	}
	mc->is_bcast = true;
	priv->bcast = mc;
	ipc_mc_subscribe(&mc->st, &priv->mc_cfg, IPC_JOIN_FULL, ipn_now_ms(),
			 &r);
	ipn_mcast_apply(priv, mc, &r, NULL);
	spin_unlock_bh(&priv->lock);
	ipn_mcast_run(priv);
	return 0;
}

/* Light flush: every membership is rejoined (spread in time on IB). */
void ipn_mcast_flush_all(struct ipn_priv *priv)
{
	/* The SA's protection: a backend without one rejoins at once. */
	u32 spread = priv->ops->sa_directory ? READ_ONCE(ipn_rejoin_spread_ms) : 0;
	struct ipn_mcast *mc, *tmp;
	struct ipc_result r;
	u64 now = ipn_now_ms();

	spin_lock_bh(&priv->lock);
	list_for_each_entry_safe(mc, tmp, &priv->mcasts, list) {
		ipc_mc_flush(&mc->st, &priv->mc_cfg, now,
			     ipc_mc_flush_spread(spread, mc->is_bcast),
			     &priv->rng, &r);
		ipn_mcast_apply(priv, mc, &r, NULL);
	}
	spin_unlock_bh(&priv->lock);
	ipn_mcast_run(priv);
	/* The SA may have lost our subscriptions (client reregister). */
	if (ipn_allmulti_flushed(priv))
		mod_delayed_work(priv->wq, &priv->rx_mode_work, 0);
}

/* Interface down or gone: leave everything now. Control context. */
void ipn_mcast_destroy_all(struct ipn_priv *priv)
{
	struct ipn_mcast *mc, *tmp;

	spin_lock_bh(&priv->lock);
	list_for_each_entry_safe(mc, tmp, &priv->mcasts, list)
		ipn_mcast_teardown(priv, mc);
	spin_unlock_bh(&priv->lock);
	ipn_mcast_run(priv);
}

/*
 * ndo_set_rx_mode, deferred: diff the device's multicast list against
 * the groups the stack wants (RFC 4391 s10: join new ones FullMember,
 * leave removed ones).
 */
void ipn_mcast_rx_mode_work(struct work_struct *work)
{
	struct ipn_priv *priv = container_of(to_delayed_work(work),
					     struct ipn_priv, rx_mode_work);
	struct net_device *dev = priv->dev;
	struct ipn_mcast *mc, *tmp;
	struct netdev_hw_addr *ha;
	unsigned int n = 0, i, wrong = 0;
	bool retry = false;
	struct ipc_result r;
	struct ipn_rx_group {
		u8 mgid[IPC_GID_LEN];
		bool held;
	} *mgids;
	bool umcast;
	u64 now;

	rtnl_lock();
	mutex_lock(&priv->ctl_mutex);
	if (!priv->up)
		goto out;

	netif_addr_lock_bh(dev);
	mgids = ipn_fault() ? NULL :
		kmalloc_array(netdev_mc_count(dev) ?: 1, sizeof(*mgids),
			      GFP_ATOMIC);
	if (mgids) {
		netdev_for_each_mc_addr(ha, dev) {
			if (!ipn_mcast_addr_taken(priv, ha->addr)) {
				wrong++;
				continue;
			}
			memcpy(mgids[n++].mgid, ipn_addr_gid(ha->addr),
			       IPC_GID_LEN);
		}
	}
	netif_addr_unlock_bh(dev);
	if (!mgids) {
		/* Out of memory: the list is not lost, diff it again soon. */
		queue_delayed_work(priv->wq, &priv->rx_mode_work, HZ / 10);
		goto out;
	}
	if (wrong) {
		ipn_add(priv, mc_refused, wrong);
		net_warn_ratelimited("%s: %u multicast addresses not of this link ignored\n",
				     dev->name, wrong);
	}

	/*
	 * umcast, as in ib_ipoib: a group that the port already has a
	 * membership of, made by another user (an application joined it
	 * through ib_ucma and attached its own QP), is left to that user:
	 * the stack's address is not joined again. Asked outside priv->lock.
	 */
	umcast = READ_ONCE(priv->umcast) && priv->ops->group_held;
	for (i = 0; i < n; i++)
		mgids[i].held = umcast &&
				priv->ops->group_held(priv, mgids[i].mgid);

	now = ipn_now_ms();
	spin_lock_bh(&priv->lock);
	priv->mc_stack_waiting = false;
	list_for_each_entry(mc, &priv->mcasts, list)
		mc->seen = false;
	for (i = 0; i < n; i++) {
		if (!memcmp(mgids[i].mgid, priv->ifid.bcast_gid, IPC_GID_LEN))
			continue;
		mc = ipn_mcast_find(priv, mgids[i].mgid);
		/* The membership the port has may be our own. */
		if (mgids[i].held && !(mc && (ipc_mc_wanted(&mc->st, IPC_JOIN_FULL)))) {
			netdev_dbg(dev, "umcast: %pI6c is held by another user\n",
				   mgids[i].mgid);
			continue;
		}
		/* Full: one scan made room or found none; the rest wait. */
		if (!mc && priv->mc_stack_waiting)
			continue;
		mc = mc ?: __ipn_mcast_get(priv, mgids[i].mgid,
					   IPC_SCOPE_LINK, IPN_MC_SCAN_ALL);
		if (IS_ERR(mc)) {
			/* Full: diffed again when a group is freed. */
			if (PTR_ERR(mc) == -ENOSPC)
				priv->mc_stack_waiting = true;
			else
				retry = true;
			continue;
		}
		mc->seen = true;
		if (ipc_mc_wanted(&mc->st, IPC_JOIN_FULL))
			continue;
		ipc_mc_subscribe(&mc->st, &priv->mc_cfg, IPC_JOIN_FULL, now,
				 &r);
		ipn_mcast_apply(priv, mc, &r, NULL);
	}
	list_for_each_entry_safe(mc, tmp, &priv->mcasts, list) {
		if (mc->is_bcast || mc->seen || !(ipc_mc_wanted(&mc->st, IPC_JOIN_FULL)))
			continue;
		ipc_mc_unsubscribe(&mc->st, &priv->mc_cfg, IPC_JOIN_FULL, now,
				   &r);
		ipn_mcast_apply(priv, mc, &r, NULL);
	}
	spin_unlock_bh(&priv->lock);
	kfree(mgids);
	ipn_mcast_run(priv);
	/* Out of memory: again soon, before the mode arms this for later. */
	if (retry)
		queue_delayed_work(priv->wq, &priv->rx_mode_work, HZ / 10);
	ipn_allmulti_sync(priv);
out:
	mutex_unlock(&priv->ctl_mutex);
	rtnl_unlock();
}
