// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * path.cpp - the path machine: one per destination GID, resolving the path
 * record (and so the address handle) that unicast needs (RFC 4391 s9.1.2)
 * and revalidating it (s9.4).
 *
 * Who owns what: the shim holds the packets, the query and the address
 * handle; the core holds the count. p->queued is written by the core only,
 * in the same call that returns the action, and equals what the shim holds
 * once it has performed the actions (core.hpp queue_hold()):
 *   QUEUE                      +1 (DROP_OLDEST|QUEUE at the limit: same)
 *   FLUSH_QUEUE, PURGE_QUEUE   = 0
 * The shim never writes any ipc_path field.
 *
 * A result is performed in IPC_ACT_ORDER (ipoib_core.h). After
 * CANCEL_QUERY the shim must not report the cancelled query's completion
 * (a later query may be outstanding by then); a completion arriving where
 * no query is outstanding is ignored.
 *
 * Deadline: every call returns the next time ipc_path_timer() is due. A tx
 * in VALID does not move it (no timer rearm per packet); the timer
 * recomputes it from last_used_ms.
 *
 *   UNKNOWN   --tx--> RESOLVING (START_QUERY, QUEUE)
 *   RESOLVING --ok--> VALID (FLUSH_QUEUE)      --err/timeout--> FAILED
 *   VALID     --revalidate_at--> STALE (START_QUERY, still SEND)
 *   STALE     --ok--> VALID                    --gone--> FAILED (RELEASE_AH)
 *   STALE     --soft error/timeout--> DOUBTED  (still SEND)
 *   DOUBTED   --retry deadline--> STALE (START_QUERY, still SEND)
 *   FAILED    --retry deadline--> RESOLVING    (attempts < max, queue kept)
 *   FAILED    --hold-down over--> UNKNOWN      (attempts spent, queue purged)
 *   VALID, DOUBTED --flush--> revalidated within flush_spread_ms
 *   any       --idle_ms unused, nothing queued--> FREE
 *
 * Stale while revalidating (fabric scale): a path that worked keeps its
 * handle until the SA says the destination is gone (path_gone()). A
 * revalidation that times out or fails for want of resources says
 * nothing about the path, only about the SA or the way to it, which is
 * most likely busy with everybody else's questions after an SM event:
 * dropping the handle then would stop traffic that flows and send the
 * query again sooner, to an SA that is already behind. DOUBTED retries
 * with a backoff of its own (doubt_backoff), sending all along: slower
 * than a failed resolution's, since nothing waits for the answer, and so
 * that a silent SA (an SM failover) is not asked again and again by every
 * path of every node (tests/core/scale shows the difference).
 *
 * The revalidation time is drawn per answer, in [revalidate_ms -
 * revalidate_jitter_ms, revalidate_ms] after it, so that paths resolved
 * together (after a flush, at boot) drift apart rather than ask in step
 * for ever.
 *
 * A query may wait for the SA budget (budget.cpp) before it is sent:
 * ipc_path_query_held() stops its timeout and ipc_path_query_sent()
 * starts it, so that the wait is not taken for a lost answer.
 *
 * Eviction: a shim whose table is full may destroy a path that
 * ipc_path_evictable() names; the machine does not move, the shim asks.
 */
#include "core.hpp"

namespace ipc
{
namespace
{

constexpr const char *const path_state_names[] = {
	"unknown", "resolving", "valid", "stale", "failed", "doubted",
};
static_assert(sizeof(path_state_names) / sizeof(path_state_names[0]) ==
		      IPC_PATH_STATE_COUNT,
	      "a path state without a name");

using PathCall = Call<struct ipc_path, struct ipc_path_cfg>;

void path_reset(struct ipc_path *p)
{
	mem_zero(p, sizeof(*p));
	p->state = IPC_PATH_UNKNOWN;
	p->deadline_ms = IPC_NO_DEADLINE;
}

u32 path_max_attempts(const struct ipc_path_cfg *c)
{
	return c->max_attempts ? c->max_attempts : 1;
}

/* FAILED with queries left: the queue waits for the next one. */
bool path_retrying(const PathCall &k)
{
	return k.obj->attempts < path_max_attempts(k.c);
}

u64 path_idle_at(const PathCall &k)
{
	return after(k.obj->last_used_ms, k.c->idle_ms);
}

bool path_idle(const PathCall &k)
{
	return k.obj->queued == 0 && k.now >= path_idle_at(k);
}

u64 path_valid_deadline(const PathCall &k)
{
	return min_of(k.obj->revalidate_at_ms, path_idle_at(k));
}

/* The next revalidation, drawn in [r - jitter, r] from now. */
u64 path_revalidate_at(const PathCall &k)
{
	u32 r = k.c->revalidate_ms;
	u32 j = min_of(k.c->revalidate_jitter_ms, r);

	return after(k.now, j ? rng_between(k.rng, r - j, r) : r);
}

/*
 * Whether a failed query's status is the SA's word that there is no path
 * (no record, the destination unreachable, the request refused): the
 * handle is then given up. Anything else (a timeout, no memory, a busy
 * SA or agent) is about the asking, not the path.
 */
bool path_gone(int status)
{
	switch (-status) {
	case IPC_ENOENT:
	case IPC_ENODATA:
	case IPC_EINVAL:
	case IPC_EHOSTUNREACH:
	case IPC_ENETUNREACH:
		return true;
	default:
		return false;
	}
}

bool path_has_query(ipc_path_state s)
{
	return s == IPC_PATH_RESOLVING || s == IPC_PATH_STALE;
}

ipc_path_state path_free(PathCall &k)
{
	k.out.act(IPC_ACT_FREE);
	path_reset(k.obj);
	return IPC_PATH_UNKNOWN;
}

void path_start_query(PathCall &k)
{
	k.out.act(IPC_ACT_START_QUERY);
	count_attempt(&k.obj->attempts);
	k.obj->deadline_ms = after(k.now, k.c->query_timeout_ms);
}

void path_enqueue(PathCall &k)
{
	queue_hold(k.out, &k.obj->queued, k.c->queue_max);
}

void path_purge(PathCall &k, ipc_reason why)
{
	queue_purge(k.out, &k.obj->queued, why);
}

/* A fresh resolution: the attempt count starts over. */
ipc_path_state path_resolve(PathCall &k)
{
	k.obj->attempts = 0;
	path_start_query(k);
	return IPC_PATH_RESOLVING;
}

ipc_path_state path_valid(PathCall &k)
{
	queue_release(k.out, &k.obj->queued, IPC_ACT_FLUSH_QUEUE);
	k.obj->attempts = 0;
	k.obj->revalidate_at_ms = path_revalidate_at(k);
	k.obj->deadline_ms = path_valid_deadline(k);
	return IPC_PATH_VALID;
}

/*
 * A revalidation failed without the SA saying the path is gone: keep the
 * handle, keep sending, ask again after a backoff (or at the idle time,
 * when the path goes anyway).
 */
ipc_path_state path_doubted(PathCall &k, int status)
{
	k.obj->last_status = status;
	k.obj->deadline_ms =
		after(k.now, ipc_backoff_ms(&k.c->doubt_backoff,
					    k.obj->attempts, k.rng));
	return IPC_PATH_DOUBTED;
}

/*
 * A query failed or timed out: retry after a jittered backoff keeping the
 * queue, or, with every attempt spent, purge and hold down for one more
 * backoff so that a dead destination does not make us query per packet.
 */
ipc_path_state path_query_failed(PathCall &k, int status)
{
	k.obj->last_status = status;
	if (!path_retrying(k))
		path_purge(k, IPC_R_NO_ROUTE);
	k.obj->deadline_ms = after(
		k.now, ipc_backoff_ms(&k.c->backoff, k.obj->attempts, k.rng));
	return IPC_PATH_FAILED;
}

/* ---- handlers: (state, event) -> next state ----------------------- */

ipc_path_state path_on_tx(PathCall &k, ipc_path_state s)
{
	k.obj->last_used_ms = k.now;
	switch (s) {
	case IPC_PATH_UNKNOWN:
		path_enqueue(k);
		return path_resolve(k);
	case IPC_PATH_RESOLVING:
		path_enqueue(k);
		return s;
	case IPC_PATH_VALID:
	case IPC_PATH_STALE: /* the old handle serves while revalidating */
	case IPC_PATH_DOUBTED:
		k.out.act(IPC_ACT_SEND);
		return s;
	case IPC_PATH_FAILED:
		if (path_retrying(k)) {
			path_enqueue(k);
			return s;
		}
		if (k.now < k.obj->deadline_ms) {
			k.out.act(IPC_ACT_DROP, IPC_R_NO_ROUTE);
			return s;
		}
		/* Hold-down over and the timer not yet run: query again. */
		path_enqueue(k);
		return path_resolve(k);
	default:
		return path_free(k);
	}
}

ipc_path_state path_on_query_done(PathCall &k, ipc_path_state s, int status)
{
	switch (s) {
	case IPC_PATH_RESOLVING:
		k.obj->last_status = status;
		return status ? path_query_failed(k, status) : path_valid(k);
	case IPC_PATH_STALE:
		k.obj->last_status = status;
		if (!status)
			return path_valid(k);
		if (!path_gone(status))
			return path_doubted(k, status);
		/* The SA says there is no such path: the handle goes. */
		k.out.act(IPC_ACT_RELEASE_AH);
		return path_query_failed(k, status);
	case IPC_PATH_UNKNOWN:
	case IPC_PATH_VALID:
	case IPC_PATH_FAILED:
	case IPC_PATH_DOUBTED:
		/* No query outstanding: a late completion, ignored. */
		return s;
	default:
		return path_free(k);
	}
}

ipc_path_state path_on_timer(PathCall &k, ipc_path_state s)
{
	switch (s) {
	case IPC_PATH_UNKNOWN:
		if (path_idle(k))
			return path_free(k);
		k.obj->deadline_ms = path_idle_at(k);
		return s;
	case IPC_PATH_RESOLVING:
		if (k.now < k.obj->deadline_ms)
			return s;
		k.out.act(IPC_ACT_CANCEL_QUERY);
		return path_query_failed(k, -IPC_ETIMEDOUT);
	case IPC_PATH_VALID:
		if (path_idle(k)) {
			k.out.act(IPC_ACT_RELEASE_AH);
			return path_free(k);
		}
		/* s9.4: revalidate cached link information periodically. */
		if (k.now >= k.obj->revalidate_at_ms) {
			path_resolve(k);
			return IPC_PATH_STALE;
		}
		k.obj->deadline_ms = path_valid_deadline(k);
		return s;
	case IPC_PATH_STALE:
		if (k.now < k.obj->deadline_ms)
			return s;
		k.out.act(IPC_ACT_CANCEL_QUERY);
		return path_doubted(k, -IPC_ETIMEDOUT);
	case IPC_PATH_DOUBTED:
		if (k.now < k.obj->deadline_ms)
			return s;
		if (path_idle(k)) {
			k.out.act(IPC_ACT_RELEASE_AH);
			return path_free(k);
		}
		path_start_query(k); /* attempts go on: the backoff grows */
		return IPC_PATH_STALE;
	case IPC_PATH_FAILED:
		if (k.now < k.obj->deadline_ms)
			return s;
		if (path_retrying(k)) {
			path_start_query(k);
			return IPC_PATH_RESOLVING;
		}
		k.obj->attempts = 0;
		if (path_idle(k))
			return path_free(k);
		k.obj->deadline_ms = path_idle_at(k);
		return IPC_PATH_UNKNOWN;
	default:
		return path_free(k);
	}
}

/*
 * A light flush (SM change, client reregister, GID change): the SA may have
 * lost or changed the records, but LIDs are normally unchanged, so a
 * usable path keeps its handle and keeps sending, and is revalidated at a
 * time drawn from [now, now + flush_spread_ms): every node of a fabric is
 * flushed at the same moment, and asking for every path at once is the
 * storm the SA cannot take (the in-tree driver's ipoib_mark_paths_invalid()
 * makes the next packet of each path ask). An outstanding query may have
 * gone to the old SM: it is asked again now (it was already due). A
 * hold-down is forgotten. Events that can change LIDs or the P_Key
 * (NORMAL and HEAVY) do not come here: the link machine's LEAVE_ALL makes
 * the shim destroy every path, which releases the handles.
 */
ipc_path_state path_on_flush(PathCall &k, ipc_path_state s)
{
	u32 spread = k.c->flush_spread_ms;

	switch (s) {
	case IPC_PATH_UNKNOWN:
		return s;
	case IPC_PATH_RESOLVING:
	case IPC_PATH_STALE:
		k.out.act(IPC_ACT_CANCEL_QUERY);
		path_resolve(k);
		return s;
	case IPC_PATH_VALID:
	case IPC_PATH_DOUBTED:
		k.obj->revalidate_at_ms = after(
			k.now, spread ? rng_between(k.rng, 0, spread - 1) : 0);
		k.obj->deadline_ms = path_valid_deadline(k);
		return IPC_PATH_VALID;
	case IPC_PATH_FAILED:
		if (path_retrying(k))
			return path_resolve(k);
		k.obj->attempts = 0;
		k.obj->deadline_ms = path_idle_at(k);
		return IPC_PATH_UNKNOWN;
	default:
		return path_free(k);
	}
}

/* The queued packets die with the interface: counted as link down. */
void path_on_destroy(PathCall &k, ipc_path_state s)
{
	if (path_has_query(s))
		k.out.act(IPC_ACT_CANCEL_QUERY);
	if (s == IPC_PATH_VALID || s == IPC_PATH_STALE || s == IPC_PATH_DOUBTED)
		k.out.act(IPC_ACT_RELEASE_AH);
	path_purge(k, IPC_R_LINK_DOWN);
	path_free(k);
}

/*
 * Room in a full table. Nothing queued, then: UNKNOWN and FAILED have no
 * handle and no query (FAILED loses at most its hold-down, which only
 * spares the SA); VALID, STALE and DOUBTED only once unused for
 * evict_idle_ms (a STALE path's revalidation is cancelled by the destroy). RESOLVING never:
 * a packet asked for it moments ago and its query is out. Corrupt state:
 * yes, as every other entry frees it.
 */
bool path_evictable(const struct ipc_path *p, const struct ipc_path_cfg *c,
		    u64 now)
{
	if (p->queued)
		return false;
	switch (static_cast<ipc_path_state>(p->state)) {
	case IPC_PATH_RESOLVING:
		return false;
	case IPC_PATH_UNKNOWN:
	case IPC_PATH_FAILED:
		return true;
	case IPC_PATH_VALID:
	case IPC_PATH_STALE:
	case IPC_PATH_DOUBTED:
		return now >= after(p->last_used_ms, c->evict_idle_ms);
	default:
		return true;
	}
}

} // namespace
} // namespace ipc

using namespace ipc;

/*
 * evict_idle_ms: 10 s. Every packet a path carries touches it; 10 s is
 * well beyond the stack's ARP/ND retransmission interval (1 s) and a
 * query's timeout (4 s), so a live conversation keeps its path, and giving
 * up an idle one costs one query when it resumes. Far below idle_ms
 * (300 s): under a flood, idle paths make room long before they expire.
 */
extern "C" void ipc_path_cfg_default(struct ipc_path_cfg *c)
{
	c->queue_max = 16;
	c->max_attempts = 3;
	c->query_timeout_ms = 4000;
	c->revalidate_ms = 60000;
	c->idle_ms = 300000;
	c->backoff.base_ms = 1000;
	c->backoff.cap_ms = 16000;
	c->evict_idle_ms = 10000;
	c->revalidate_jitter_ms = 15000;
	c->flush_spread_ms = 45000;
	c->doubt_backoff.base_ms = 5000;
	c->doubt_backoff.cap_ms = 60000;
}

extern "C" void ipc_path_init(struct ipc_path *p)
{
	path_reset(p);
}

extern "C" void ipc_path_tx(struct ipc_path *p, const struct ipc_path_cfg *c,
			    ipc_u64 now, struct ipc_result *r)
{
	PathCall k(p, c, now, nullptr, r);

	k.commit(path_on_tx(k, k.state<ipc_path_state>()));
}

extern "C" void ipc_path_query_done(struct ipc_path *p,
				    const struct ipc_path_cfg *c, ipc_u64 now,
				    int status, struct ipc_rng *rng,
				    struct ipc_result *r)
{
	PathCall k(p, c, now, rng, r);

	k.commit(path_on_query_done(k, k.state<ipc_path_state>(), status));
}

extern "C" void ipc_path_timer(struct ipc_path *p, const struct ipc_path_cfg *c,
			       ipc_u64 now, struct ipc_rng *rng,
			       struct ipc_result *r)
{
	PathCall k(p, c, now, rng, r);

	k.commit(path_on_timer(k, k.state<ipc_path_state>()));
}

extern "C" void ipc_path_flush(struct ipc_path *p, const struct ipc_path_cfg *c,
			       ipc_u64 now, struct ipc_rng *rng,
			       struct ipc_result *r)
{
	PathCall k(p, c, now, rng, r);

	k.commit(path_on_flush(k, k.state<ipc_path_state>()));
}

extern "C" void ipc_path_query_held(struct ipc_path *p, struct ipc_result *r)
{
	PathCall k(p, nullptr, 0, nullptr, r);
	ipc_path_state s = k.state<ipc_path_state>();

	if (path_has_query(s))
		p->deadline_ms = IPC_NO_DEADLINE;
	k.commit(s);
}

extern "C" void ipc_path_query_sent(struct ipc_path *p,
				    const struct ipc_path_cfg *c, ipc_u64 now,
				    struct ipc_result *r)
{
	PathCall k(p, c, now, nullptr, r);
	ipc_path_state s = k.state<ipc_path_state>();

	if (path_has_query(s))
		p->deadline_ms = after(now, c->query_timeout_ms);
	k.commit(s);
}

/*
 * Frames waiting for it (a destination being resolved, or whose hold-down
 * retry has them): they wait on the SA. Otherwise it is a revalidation.
 */
extern "C" int ipc_path_sa_class(const struct ipc_path *p)
{
	return p->queued ? IPC_SA_WAITING : IPC_SA_REFRESH;
}

extern "C" void ipc_path_destroy(struct ipc_path *p, struct ipc_result *r)
{
	PathCall k(p, nullptr, 0, nullptr, r);

	path_on_destroy(k, k.state<ipc_path_state>());
}

extern "C" int ipc_path_evictable(const struct ipc_path *p,
				  const struct ipc_path_cfg *c, ipc_u64 now)
{
	return path_evictable(p, c, now) ? 1 : 0;
}

extern "C" void ipc_path_view(const struct ipc_path *p, struct ipc_view *v)
{
	view_clear(v);
	v->state = name_of(path_state_names, p->state);
	v->attempts = p->attempts;
	v->queued = p->queued;
	v->last_status = p->last_status;
	v->deadline_ms = p->deadline_ms;
}

extern "C" ipc_u64 ipc_path_deadline(const struct ipc_path *p)
{
	return p->deadline_ms;
}

extern "C" void ipc_path_used(struct ipc_path *p, ipc_u64 when)
{
	if (when > p->last_used_ms)
		p->last_used_ms = when;
}

extern "C" int ipc_path_usable(const struct ipc_path *p)
{
	return p->state == IPC_PATH_VALID || p->state == IPC_PATH_STALE ||
	       p->state == IPC_PATH_DOUBTED;
}
