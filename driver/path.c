// SPDX-License-Identifier: GPL-2.0
/*
 * path.c - the path table: one entry per destination GID, holding the
 * core's path machine, the address handle and the packets waiting for
 * it. Transmit finds a usable path under RCU alone (ipn_path_tx_ah) and
 * takes priv->lock only for the others; the control work runs their
 * queries and frees them. At most priv->paths_max of them exist,
 * counting those waiting to be freed (review M3).
 */
#include <linux/slab.h>
#include "ipoib_ng.h"
#include "trace.h"

/* The table's buckets, for paths_max paths: two paths a bucket. */
int ipn_path_table_alloc(struct ipn_priv *priv)
{
	priv->path_hash_bits = max_t(unsigned int, IPN_PATH_HASH_MIN_BITS,
				     order_base_2(priv->paths_max / 2));
	priv->paths = kvcalloc(ipn_path_buckets(priv), sizeof(*priv->paths),
			       GFP_KERNEL);
	return priv->paths ? 0 : -ENOMEM;
}

void ipn_path_table_free(struct ipn_priv *priv)
{
	kvfree(priv->paths);
	priv->paths = NULL;
}

static struct hlist_head *ipn_path_bucket(struct ipn_priv *priv, u32 key)
{
	return &priv->paths[hash_32(key, priv->path_hash_bits)];
}

/* The path to gid, or NULL. priv->lock or RCU held. */
static struct ipn_path *__ipn_path_find(struct ipn_priv *priv, const u8 *gid)
{
	struct ipn_path *path;

	hlist_for_each_entry_rcu(path,
				 ipn_path_bucket(priv, ipn_gid_key(priv, gid)),
				 node, lockdep_is_held(&priv->lock))
		if (!memcmp(path->gid, gid, IPC_GID_LEN))
			return path;
	return NULL;
}

/* The path to gid, or NULL. priv->lock held. */
struct ipn_path *ipn_path_find(struct ipn_priv *priv, const u8 *gid)
{
	lockdep_assert_held(&priv->lock);
	return __ipn_path_find(priv, gid);
}

/*
 * Transmit's way to a usable path, without priv->lock (issue 23): the
 * handle the path's machine lets frames go with (ipn_path_applied), or
 * NULL, and then transmit asks the core under the lock. The send is
 * noted for the core's idle and eviction times (ipn_path_sync_used).
 * The handle stays valid until the caller leaves its RCU read section
 * and, for a send the caller put in the ring within it, until that send
 * completes (ipn_ah_reap). RCU held.
 */
struct ipn_ah *ipn_path_tx_ah(struct ipn_priv *priv, const u8 *gid, u64 now)
{
	struct ipn_path *path = __ipn_path_find(priv, gid);
	struct ipn_ah *ah;

	if (!path)
		return NULL;
	ah = rcu_dereference(path->tx_ah);
	/* Written once a millisecond at most: the line stays shared. */
	if (ah && READ_ONCE(path->used_ms) != now)
		WRITE_ONCE(path->used_ms, now);
	return ah;
}

/* The unlocked sends, told to the core before it judges idleness. */
static void ipn_path_sync_used(struct ipn_priv *priv, struct ipn_path *path)
{
	lockdep_assert_held(&priv->lock);
	ipc_path_used(&path->st, READ_ONCE(path->used_ms));
}

/*
 * Tear path down now, whatever its state: the core says what to cancel,
 * release and purge; FREE takes it off the hash at once and the control
 * work frees it. priv->lock held.
 */
static void ipn_path_teardown(struct ipn_priv *priv, struct ipn_path *path)
{
	struct ipc_result r;

	lockdep_assert_held(&priv->lock);
	ipc_path_destroy(&path->st, &r);	/* FREE always */
	ipn_path_apply(priv, path, &r, NULL);
}

/*
 * The table is full: give up one path the core lets go (ipc_path_evictable),
 * looking at no more than IPN_PATH_EVICT_SCAN paths in IPN_PATH_EVICT_BUCKETS
 * buckets from a cursor that moves on, so that the work is bounded and each
 * call looks further. The count falls when the control work frees it.
 * priv->lock held.
 */
static void ipn_path_evict(struct ipn_priv *priv, u64 now)
{
	u32 bkt = priv->path_evict_bkt & (ipn_path_buckets(priv) - 1);
	unsigned int left = IPN_PATH_EVICT_SCAN, n;
	struct ipn_path *path, *victim = NULL;

	lockdep_assert_held(&priv->lock);
	for (n = 0; n < IPN_PATH_EVICT_BUCKETS && left && !victim; n++) {
		hlist_for_each_entry(path, &priv->paths[bkt], node) {
			ipn_path_sync_used(priv, path);
			if (ipc_path_evictable(&path->st, &priv->path_cfg,
					       now)) {
				victim = path;
				break;
			}
			if (!--left)
				break;
		}
		bkt = (bkt + 1) & (ipn_path_buckets(priv) - 1);
	}
	priv->path_evict_bkt = bkt;
	if (victim) {
		ipn_path_teardown(priv, victim);
		ipn_inc(priv, path_evictions);
	}
}

/*
 * Find or create the path to gid. priv->lock held. ERR_PTR(-ENOMEM), or
 * ERR_PTR(-ENOSPC) when the table holds paths_max paths (review M3): then
 * one the core lets go, if any, is torn down, and the caller drops the
 * packet; the stack's ARP/ND retransmission finds room once it is freed.
 */
struct ipn_path *ipn_path_get(struct ipn_priv *priv, const u8 *gid, u64 now)
{
	u32 key = ipn_gid_key(priv, gid);
	struct ipn_path *path = ipn_path_find(priv, gid);

	lockdep_assert_held(&priv->lock);
	if (path)
		return path;
	if (priv->path_count >= priv->paths_max) {
		if (!priv->paths_full_told) {
			priv->paths_full_told = true;
			netdev_warn(priv->dev, "%u paths, the most it keeps (paths_max): packets to new destinations are dropped until idle or failed ones make room (drop_path_table_full)\n",
				    priv->path_count);
		}
		ipn_path_evict(priv, now);
		return ERR_PTR(-ENOSPC);
	}
	path = ipn_fault() ? NULL : kzalloc(sizeof(*path), GFP_ATOMIC);
	if (!path)
		return ERR_PTR(-ENOMEM);
	path->priv = priv;
	memcpy(path->gid, gid, IPC_GID_LEN);
	ipc_path_init(&path->st);
	ipn_entry_init(&path->e, &ipn_path_kind);
	/* Initialised before it is published to transmit. */
	hlist_add_head_rcu(&path->node, ipn_path_bucket(priv, key));
	priv->path_count++;
	return path;
}

/*
 * Carry out the core's verdict (entry.c). skb is the packet the verdict
 * is about (NULL when none, or when the caller sends it itself).
 * priv->lock held.
 */
void ipn_path_apply(struct ipn_priv *priv, struct ipn_path *path,
		    const struct ipc_result *r, struct sk_buff *skb)
{
	ipn_entry_apply(priv, &path->e, r, skb);
}

/*
 * A backend's callback: the outstanding query of path ended with status.
 * Recorded with the query's generation for the control work, which feeds
 * it to the core unless a cancel or a newer query came in between.
 * Any context but hard IRQ.
 */
void __ipn_path_query_async_done(struct ipn_priv *priv,
				 struct ipn_path *path, int status)
{
	lockdep_assert_held(&priv->lock);
	if (path->e.dead)
		return;
	path->query_status = status;
	path->done_gen = path->query_gen;
	ipn_entry_queue_ops(priv, &path->e, IPN_OP_DONE);
}

void ipn_path_query_async_done(struct ipn_priv *priv, struct ipn_path *path,
			       int status)
{
	spin_lock_bh(&priv->lock);
	__ipn_path_query_async_done(priv, path, status);
	spin_unlock_bh(&priv->lock);
}

/* The answer of the handle just installed, as netlink shows it. */
static void ipn_path_shown(struct ipn_path *path)
{
	const struct rdma_ah_attr *attr = &path->attr;
	struct ipn_path_shown *s = &path->shown;

	lockdep_assert_held(&path->priv->lock);
	memcpy(s->dmac, attr->roce.dmac, ETH_ALEN);
	s->lid = rdma_ah_get_dlid(attr);
	s->sl = rdma_ah_get_sl(attr);
	s->rate = rdma_ah_get_static_rate(attr);
	s->grh = rdma_ah_get_ah_flags(attr) & IB_AH_GRH;
	s->sgid_index = rdma_ah_read_grh(attr)->sgid_index;
	s->mtu = path->rec_valid ? ipc_ib_mtu_bytes(path->rec.mtu) : 0;
}

/* The query of path finished. Control context (rtnl, ctl_mutex). */
void ipn_path_query_complete(struct ipn_priv *priv, struct ipn_path *path,
			     int status)
{
	struct ipn_ah *ah = NULL, *old = NULL;
	struct ipc_result r;
	bool dead, same = false;

	lockdep_assert_held(&priv->ctl_mutex);
	/*
	 * A revalidation with the answer the handle was made from keeps the
	 * handle (fabric scale: nothing to make or reap, nothing in flight
	 * disturbed). Looked at under priv->lock, which releases handles.
	 */
	if (!status) {
		spin_lock_bh(&priv->lock);
		same = path->ah && ipn_ah_same(path->ah, &path->attr);
		spin_unlock_bh(&priv->lock);
	}
	if (!status && !same) {
		ah = ipn_ah_create(priv, &path->attr);
		if (IS_ERR(ah)) {
			status = PTR_ERR(ah);
			ah = NULL;
		}
	}
	spin_lock_bh(&priv->lock);
	path->querying = false;
	dead = path->e.dead;
	/* Released meanwhile (it cannot be while a query runs): ask again. */
	if (!status && same && !path->ah)
		status = -EAGAIN;
	if (status)
		ipn_inc(priv, path_failures);
	if (dead) {
		old = ah;
	} else {
		if (ah) {
			old = path->ah;
			path->ah = ah;
			path->answered_ms = ipn_now_ms();
			ipn_path_shown(path);
		} else if (!status) {
			ipn_inc(priv, path_answers_same);
			path->answered_ms = ipn_now_ms();
		}
		/* Its deadlines count from the last use. */
		ipn_path_sync_used(priv, path);
		ipc_path_query_done(&path->st, &priv->path_cfg, ipn_now_ms(),
				    status, &priv->rng, &r);
		ipn_path_apply(priv, path, &r, NULL);
		if (trace_ipoib_ng_path_state_enabled()) {
			struct ipc_view st;

			ipc_path_view(&path->st, &st);
			trace_ipoib_ng_path_state(priv->dev, path->gid,
						  st.state);
		}
	}
	spin_unlock_bh(&priv->lock);
	/*
	 * The answer's attributes may hold a reference to the source GID's
	 * entry (ib_init_ah_attr_from_path() with a GRH: hop_limit > 0); the
	 * handle made from them holds its own. Dropped here, every answer.
	 */
	rdma_destroy_ah_attr(&path->attr);
	ipn_ah_put(old);
	/* The control work frees a path: it is still here. */
	if (!dead)
		ipn_genl_path_event(priv, path->gid, status);
}

/*
 * Cancel the outstanding query of path, if any, and wait until its
 * callback cannot run any more; a completion it already queued is of an
 * old generation from now on. Control context.
 *
 * Review 2026-12 M3: the callback may have filled path->attr with an
 * answer that will never be reported, holding a reference to the source
 * GID's entry (a GRH); the next answer's ib_init_ah_attr_from_path()
 * would overwrite it. Dropped here, once no callback can write attr.
 */
static void ipn_path_cancel(struct ipn_priv *priv, struct ipn_path *path)
{
	if (!path->querying)
		return;
	priv->ops->path_cancel(priv, path);
	spin_lock_bh(&priv->lock);
	path->querying = false;
	path->query_gen++;
	spin_unlock_bh(&priv->lock);
	rdma_destroy_ah_attr(&path->attr);
}

static struct ipn_path *ipn_path_of(struct ipn_entry *e)
{
	return container_of(e, struct ipn_path, e);
}

static void ipn_path_release_ah(struct ipn_priv *priv, struct ipn_entry *e)
{
	struct ipn_path *path = ipn_path_of(e);

	/* Unpublished before the put: ipn_ah_reap waits for readers. */
	RCU_INIT_POINTER(path->tx_ah, NULL);
	ipn_ah_put(path->ah);
	path->ah = NULL;
}

/*
 * After every verdict: transmit may send unlocked with the handle while
 * the core says the path is usable, which is all ipc_path_tx() decides
 * for such a path (SEND). priv->lock held.
 */
static void ipn_path_applied(struct ipn_priv *priv, struct ipn_entry *e)
{
	struct ipn_path *path = ipn_path_of(e);
	struct ipn_ah *ah = NULL;

	lockdep_assert_held(&priv->lock);
	if (!e->dead && ipc_path_usable(&path->st))
		ah = path->ah;
	if (rcu_access_pointer(path->tx_ah) != ah)
		rcu_assign_pointer(path->tx_ah, ah);
}

static void ipn_path_unlink(struct ipn_priv *priv, struct ipn_entry *e)
{
	/* Readers in the chain go on past it. */
	hlist_del_init_rcu(&ipn_path_of(e)->node);
}

/*
 * CANCEL_QUERY and START_QUERY. A start cancels first too, so that at
 * most one query of a path is ever outstanding; after a cancel the
 * cancelled query's completion is never reported, even if its callback
 * queued it before (ipn_path_cancel: a new generation). Control context.
 */
static void ipn_path_perform(struct ipn_priv *priv, struct ipn_entry *e,
			     u32 act, int join_type)
{
	struct ipn_path *path = ipn_path_of(e);
	int ret;

	ipn_path_cancel(priv, path);
	if (act != IPC_ACT_START_QUERY)
		return;
	spin_lock_bh(&priv->lock);
	path->querying = true;
	path->query_gen++;
	spin_unlock_bh(&priv->lock);
	/* Each query asked of the backend, whoever started it: one place. */
	ipn_inc(priv, path_queries);
	trace_ipoib_ng_sa_request(priv->dev, "path", path->gid);
	ret = priv->ops->path_query(priv, path);
	if (ret <= 0)	/* done now (1: completion later) */
		ipn_path_query_complete(priv, path, ret);
}

/* IPN_OP_DONE: the query's completion, unless a cancel or a start came since. */
static void ipn_path_report(struct ipn_priv *priv, struct ipn_entry *e,
			    u32 ops)
{
	struct ipn_path *path = ipn_path_of(e);
	bool fresh;

	spin_lock_bh(&priv->lock);
	fresh = path->querying && path->done_gen == path->query_gen;
	spin_unlock_bh(&priv->lock);
	if (fresh)
		ipn_path_query_complete(priv, path, path->query_status);
	else
		ipn_inc(priv, path_stale_answers);
}

static void ipn_path_release(struct ipn_priv *priv, struct ipn_entry *e)
{
	struct ipn_path *path = ipn_path_of(e);

	ipn_path_cancel(priv, path);
	ipn_ah_put(path->ah);
	rdma_destroy_ah_attr(&path->attr);	/* an answer never completed */
	__skb_queue_purge(&path->e.queue);
	kfree(path->dev_addr);
	/* Transmit may still be reading it (ipn_path_tx_ah). */
	kfree_rcu(path, rcu);
	spin_lock_bh(&priv->lock);
	priv->path_count--;
	spin_unlock_bh(&priv->lock);
}

static u64 ipn_path_deadline(struct ipn_entry *e)
{
	return ipc_path_deadline(&ipn_path_of(e)->st);
}

static void ipn_path_timer(struct ipn_priv *priv, struct ipn_entry *e,
			   u64 now, struct ipc_result *r)
{
	struct ipn_path *path = ipn_path_of(e);

	ipn_path_sync_used(priv, path);
	ipc_path_timer(&path->st, &priv->path_cfg, now, &priv->rng, r);
}

static int ipn_path_sa_class(struct ipn_entry *e)
{
	return ipc_path_sa_class(&ipn_path_of(e)->st);
}

static void ipn_path_sa_held(struct ipn_priv *priv, struct ipn_entry *e,
			     struct ipc_result *r)
{
	ipc_path_query_held(&ipn_path_of(e)->st, r);
}

static void ipn_path_sa_sent(struct ipn_priv *priv, struct ipn_entry *e,
			     u64 now, struct ipc_result *r)
{
	ipc_path_query_sent(&ipn_path_of(e)->st, &priv->path_cfg, now, r);
}

const struct ipn_entry_kind ipn_path_kind = {
	.work_off = offsetof(struct ipn_priv, path_work),
	.drop_reason = IPC_R_NO_ROUTE,
	.release_ah = ipn_path_release_ah,
	.applied = ipn_path_applied,
	.unlink = ipn_path_unlink,
	.deadline = ipn_path_deadline,
	.timer = ipn_path_timer,
	.perform = ipn_path_perform,
	.report = ipn_path_report,
	.release = ipn_path_release,
	.sa_class = ipn_path_sa_class,
	.sa_held = ipn_path_sa_held,
	.sa_sent = ipn_path_sa_sent,
};

/* The paths' backend operations. Control context (rtnl, ctl_mutex). */
void ipn_path_run(struct ipn_priv *priv)
{
	ipn_entry_run(priv, &priv->path_work);
}

/* Light flush: every handle may be stale (port event, SM change). */
void ipn_path_flush_all(struct ipn_priv *priv)
{
	struct ipc_result r;
	struct hlist_node *tmp;
	struct ipn_path *path;
	u64 now = ipn_now_ms();
	unsigned int bkt;

	spin_lock_bh(&priv->lock);
	/* As the rejoins (mcast.c): spread where an SA answers. */
	priv->path_cfg.flush_spread_ms = priv->ops->sa_directory ?
		READ_ONCE(ipn_path_spread_ms) : 0;
	for (bkt = 0; bkt < ipn_path_buckets(priv); bkt++)
		hlist_for_each_entry_safe(path, tmp, &priv->paths[bkt], node) {
			ipn_path_sync_used(priv, path);
			ipc_path_flush(&path->st, &priv->path_cfg, now,
				       &priv->rng, &r);
			ipn_path_apply(priv, path, &r, NULL);
		}
	spin_unlock_bh(&priv->lock);
	ipn_path_run(priv);
}

/*
 * One path's handle may be stale (RoCE: the neighbour layer holds another
 * MAC for its GID, roce.c): a flush of that path alone, not spread, so
 * that a usable path is revalidated now and keeps sending meanwhile.
 * priv->lock held; the caller kicks the control work.
 */
void ipn_path_revalidate(struct ipn_priv *priv, struct ipn_path *path)
{
	struct ipc_path_cfg cfg = priv->path_cfg;
	struct ipc_result r;

	lockdep_assert_held(&priv->lock);
	cfg.flush_spread_ms = 0;
	ipn_path_sync_used(priv, path);
	ipc_path_flush(&path->st, &cfg, ipn_now_ms(), &priv->rng, &r);
	ipn_path_apply(priv, path, &r, NULL);
}

/* Interface down or gone: every path is torn down now. Control context. */
void ipn_path_destroy_all(struct ipn_priv *priv)
{
	struct hlist_node *tmp;
	struct ipn_path *path;
	unsigned int bkt;

	spin_lock_bh(&priv->lock);
	for (bkt = 0; bkt < ipn_path_buckets(priv); bkt++)
		hlist_for_each_entry_safe(path, tmp, &priv->paths[bkt], node)
			ipn_path_teardown(priv, path);
	spin_unlock_bh(&priv->lock);
	ipn_path_run(priv);
}
