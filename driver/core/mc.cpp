// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mc.cpp - the multicast group machine: one per MGID, joining what the
 * stack wants (RFC 4391 s5), send-only joins for egress (s10), NonMember
 * joins for routers (s11).
 *
 * Memberships: one at a time, the strongest wanted: FULL, else NON, else
 * SENDONLY. FULL and NON are subscribed by the stack; SENDONLY is wanted
 * implicitly by a tx that finds nothing held, and a FULL/NON subscription
 * replaces it (a full member may send). FULL and NON memberships are
 * attached to the QP; a SENDONLY one is not (s10: "only the FullMember join
 * causes multicast packets to be routed TO the port"), as in-tree.
 *
 * Who owns what: the shim holds the packets, the SA join handle and the QP
 * attachment; m->queued is written by the core only (core.hpp queue_hold():
 * QUEUE +1, DROP_OLDEST|QUEUE same, FLUSH_QUEUE / TO_ROUTERS in a join
 * result / PURGE_QUEUE = 0). LEAVE frees the membership or cancels the
 * outstanding join (ib_sa_free_multicast() does both); after it the shim
 * must not report that join's completion. A completion where no join is
 * outstanding is ignored: in JOINED that includes -IPC_ENETRESET on an
 * established membership, since the port event behind it arrives as a
 * flush (SM change, client reregister).
 *
 * A result is performed in IPC_ACT_ORDER (ipoib_core.h). TO_ROUTERS in a tx result is for this
 * packet; in a join_done result it is for the queued packets.
 *
 *   IDLE     --subscribe--> JOINING (JOIN FULL/NON)
 *   IDLE     --tx--> JOINING (JOIN SENDONLY, QUEUE)
 *   JOINING  --ok--> JOINED (ATTACH unless send-only, FLUSH_QUEUE)
 *   JOINING  --ENOENT on a send-only join--> MISSING (TO_ROUTERS or PURGE),
 *            or JOINING (JOIN) what the stack subscribed meanwhile
 *   JOINING  --send-only ok, after a notice: deleted--> MISSING (LEAVE)
 *   JOINING  --send-only ENOENT, after a notice: created--> JOINING (JOIN)
 *   JOINED   --notice: deleted, send-only--> MISSING (LEAVE)
 *   JOINED   --notice: created, send-only--> BACKOFF (LEAVE; joins after
 *            backoff.base_ms)
 *   MISSING  --notice: created--> FREE
 *   JOINING  --err/timeout--> BACKOFF (PURGE, LOG on the first)
 *   BACKOFF  --deadline--> JOINING
 *   JOINING  --unsubscribe--> LEAVING --join done--> FREE (LEAVE if joined)
 *   JOINED   --unsubscribe, or send-only idle--> FREE (DETACH, LEAVE)
 *   JOINED   --flush--> BACKOFF (DETACH, LEAVE; rejoin within spread_ms)
 *   JOINING  --ENOBCAST--> HELD --broadcast group joined--> JOINING
 *
 * Eviction: a shim whose table is full may destroy a group that
 * ipc_mc_evictable() names; the machine does not move, the shim asks.
 *
 * HELD: every join but the broadcast group's carries that group's Q_Key,
 * MTU, SL, rate and traffic class (RFC 4391 s5: "the same ... as the
 * broadcast group"), so until it is joined the others wait, packets
 * queued, without counting a failure or logging one: an interface coming
 * up with a dozen stack groups would otherwise log and back off a dozen
 * times for a join that merely came first.
 */
#include "core.hpp"

namespace ipc
{
namespace
{

constexpr const char *const mc_state_names[] = {
	"idle", "joining", "joined", "backoff", "missing", "leaving", "held",
};
static_assert(sizeof(mc_state_names) / sizeof(mc_state_names[0]) ==
		      IPC_MC_STATE_COUNT,
	      "a multicast state without a name");

using McCall = Call<struct ipc_mc, struct ipc_mc_cfg>;

void mc_reset(struct ipc_mc *m, u8 scope)
{
	mem_zero(m, sizeof(*m));
	m->state = IPC_MC_IDLE;
	m->scope = scope & 0xf;
	m->deadline_ms = IPC_NO_DEADLINE;
}

constexpr bool mc_subscribable(int type)
{
	return type == IPC_JOIN_FULL || type == IPC_JOIN_NON;
}

/* The membership to hold: the strongest wanted. */
u8 mc_desired(const struct ipc_mc *m)
{
	if (m->want & IPC_JOIN_FULL)
		return IPC_JOIN_FULL;
	if (m->want & IPC_JOIN_NON)
		return IPC_JOIN_NON;
	return m->want & IPC_JOIN_SENDONLY;
}

constexpr bool mc_attached(u8 joined)
{
	return joined == IPC_JOIN_FULL || joined == IPC_JOIN_NON;
}

ipc_mc_state mc_free(McCall &k)
{
	k.out.act(IPC_ACT_FREE);
	mc_reset(k.obj, k.obj->scope);
	return IPC_MC_IDLE;
}

/* Give up the membership held (JOINED only). */
void mc_drop_membership(McCall &k)
{
	if (mc_attached(k.obj->joined))
		k.out.act(IPC_ACT_DETACH);
	k.out.act(IPC_ACT_LEAVE);
	k.obj->joined = IPC_JOIN_NONE;
}

ipc_mc_state mc_join(McCall &k, u8 type)
{
	k.out.join(type);
	k.obj->pending = type;
	k.obj->noticed = 0;
	count_attempt(&k.obj->attempts);
	k.obj->deadline_ms = after(k.now, k.c->join_timeout_ms);
	return IPC_MC_JOINING;
}

ipc_mc_state mc_join_fresh(McCall &k, u8 type)
{
	k.obj->attempts = 0;
	return mc_join(k, type);
}

void mc_enqueue(McCall &k)
{
	queue_hold(k.out, &k.obj->queued, k.c->queue_max);
}

/*
 * s10: with the group absent, a group scoped beyond link-local goes to the
 * on-link routers. m->scope is the IP group's scope (ipc_mc_init()).
 */
bool mc_to_routers(const McCall &k, int routers_joined)
{
	return routers_joined && k.obj->scope > IPC_SCOPE_LINK;
}

u64 mc_joined_deadline(const McCall &k)
{
	if (k.obj->joined != IPC_JOIN_SENDONLY)
		return IPC_NO_DEADLINE;
	return after(k.obj->last_tx_ms, k.c->sendonly_idle_ms);
}

/*
 * A join failed or timed out: the packets that waited a whole join are
 * dropped, the retry comes after a jittered backoff, and only the first
 * failure of a run is logged.
 */
ipc_mc_state mc_join_failed(McCall &k, int status)
{
	k.obj->last_status = status;
	k.obj->pending = IPC_JOIN_NONE;
	queue_purge(k.out, &k.obj->queued, IPC_R_NO_ROUTE);
	if (k.obj->attempts <= 1)
		k.out.act(IPC_ACT_LOG, IPC_R_NO_ROUTE);
	k.obj->deadline_ms = after(
		k.now, ipc_backoff_ms(&k.c->backoff, k.obj->attempts, k.rng));
	return IPC_MC_BACKOFF;
}

ipc_mc_state mc_joined(McCall &k)
{
	k.obj->joined = k.obj->pending;
	k.obj->pending = IPC_JOIN_NONE;
	u8 want = mc_desired(k.obj);
	if (want != k.obj->joined) {
		/* The stack changed its mind during the join: swap it. */
		k.out.act(IPC_ACT_LEAVE);
		k.obj->joined = IPC_JOIN_NONE;
		return mc_join_fresh(k, want);
	}
	k.obj->attempts = 0;
	if (mc_attached(k.obj->joined))
		k.out.act(IPC_ACT_ATTACH);
	queue_release(k.out, &k.obj->queued, IPC_ACT_FLUSH_QUEUE);
	k.obj->deadline_ms = mc_joined_deadline(k);
	return IPC_MC_JOINED;
}

/*
 * s10: the group does not exist. The packets that waited for the join go
 * to the routers or are dropped, and the absence is cached for
 * missing_ttl_ms (or until the SA's notice of its creation).
 */
ipc_mc_state mc_absent(McCall &k, int routers_joined)
{
	k.obj->pending = IPC_JOIN_NONE;
	k.obj->attempts = 0;
	if (mc_to_routers(k, routers_joined))
		queue_release(k.out, &k.obj->queued, IPC_ACT_TO_ROUTERS);
	else
		queue_purge(k.out, &k.obj->queued, IPC_R_NOT_JOINED);
	k.obj->deadline_ms = after(k.now, k.c->missing_ttl_ms);
	return IPC_MC_MISSING;
}

/* JOINED but holding the wrong type (or none wanted): converge. */
ipc_mc_state mc_reconcile(McCall &k)
{
	u8 want = mc_desired(k.obj);

	if (want == k.obj->joined)
		return IPC_MC_JOINED;
	mc_drop_membership(k);
	if (want == IPC_JOIN_NONE)
		return mc_free(k);
	return mc_join_fresh(k, want);
}

/* s10 egress without a membership: all-routers or drop. */
void mc_route_or_drop(McCall &k, int routers_joined)
{
	if (mc_to_routers(k, routers_joined))
		k.out.act(IPC_ACT_TO_ROUTERS);
	else
		k.out.act(IPC_ACT_DROP, IPC_R_NOT_JOINED);
}

/* ---- handlers: (state, event) -> next state ----------------------- */

ipc_mc_state mc_on_subscribe(McCall &k, ipc_mc_state s, u8 type)
{
	/* A full or non member may send: the implicit send-only want goes. */
	k.obj->want =
		static_cast<u8>((k.obj->want | type) & ~IPC_JOIN_SENDONLY);
	switch (s) {
	case IPC_MC_IDLE:
	case IPC_MC_MISSING: /* a FULL join creates the group */
		return mc_join_fresh(k, mc_desired(k.obj));
	case IPC_MC_JOINING: /* join_done converges on the new want */
	case IPC_MC_BACKOFF: /* the retry joins the new want: keep the pace */
	case IPC_MC_HELD: /* the release joins the new want */
		return s;
	case IPC_MC_JOINED:
		return mc_reconcile(k);
	case IPC_MC_LEAVING: /* the outstanding join is wanted again */
		return IPC_MC_JOINING;
	default:
		return mc_free(k);
	}
}

ipc_mc_state mc_on_unsubscribe(McCall &k, ipc_mc_state s, u8 type)
{
	k.obj->want = static_cast<u8>(k.obj->want & ~type);
	bool none = mc_desired(k.obj) == IPC_JOIN_NONE;
	switch (s) {
	case IPC_MC_IDLE:
		return mc_free(k);
	case IPC_MC_JOINING:
		if (!none)
			return s;
		queue_purge(k.out, &k.obj->queued, IPC_R_NOT_JOINED);
		return IPC_MC_LEAVING;
	case IPC_MC_JOINED:
		return mc_reconcile(k);
	case IPC_MC_BACKOFF:
	case IPC_MC_MISSING:
	case IPC_MC_HELD:
		if (!none)
			return s;
		queue_purge(k.out, &k.obj->queued, IPC_R_NOT_JOINED);
		return mc_free(k);
	case IPC_MC_LEAVING:
		return s;
	default:
		return mc_free(k);
	}
}

/* MISSING: the cached absence has expired; a frame asks again. */
bool mc_absence_expired(const struct ipc_mc *m, u64 now)
{
	return now >= m->deadline_ms;
}

/* s10 egress: "if the egress port is already a SendOnlyNonMember or a
 * FullMember => send the packet, else ... do a SendOnlyNonMember join". */
ipc_mc_state mc_on_tx(McCall &k, ipc_mc_state s, int routers_joined)
{
	k.obj->last_tx_ms = k.now;
	switch (s) {
	case IPC_MC_MISSING:
		if (!mc_absence_expired(k.obj, k.now)) {
			mc_route_or_drop(k, routers_joined);
			return s;
		}
		/* The cached absence expired: ask again, as from IDLE. */
		[[fallthrough]];
	case IPC_MC_IDLE:
		k.obj->want |= IPC_JOIN_SENDONLY;
		mc_enqueue(k);
		return mc_join_fresh(k, IPC_JOIN_SENDONLY);
	case IPC_MC_JOINING:
	case IPC_MC_BACKOFF:
	case IPC_MC_HELD:
		mc_enqueue(k);
		return s;
	case IPC_MC_JOINED:
		k.out.act(IPC_ACT_SEND);
		return s;
	case IPC_MC_LEAVING: /* the object is going; a new one will join */
		k.out.act(IPC_ACT_DROP, IPC_R_NOT_JOINED);
		return s;
	default:
		return mc_free(k);
	}
}

ipc_mc_state mc_on_join_done(McCall &k, ipc_mc_state s, int status,
			     int routers_joined)
{
	bool sendonly;

	switch (s) {
	case IPC_MC_JOINING:
		k.obj->last_status = status;
		/* A send-only join, and still only that wanted. */
		sendonly = k.obj->pending == IPC_JOIN_SENDONLY &&
			   mc_desired(k.obj) == IPC_JOIN_SENDONLY;
		if (!status && sendonly &&
		    k.obj->noticed == IPC_TRAP_MCG_DELETED) {
			/* Joined before the deletion the SA announced. */
			k.out.act(IPC_ACT_LEAVE);
			return mc_absent(k, routers_joined);
		}
		if (!status)
			return mc_joined(k);
		if (status == -IPC_ENOBCAST) {
			k.obj->pending = IPC_JOIN_NONE;
			k.obj->attempts = 0;
			k.obj->deadline_ms = IPC_NO_DEADLINE;
			return IPC_MC_HELD;
		}
		/*
		 * No group for a send-only join, but the stack subscribed
		 * during it: its join creates the group (s10), now.
		 */
		if (status == -IPC_ENOENT &&
		    k.obj->pending == IPC_JOIN_SENDONLY && !sendonly)
			return mc_join_fresh(k, mc_desired(k.obj));
		if (status != -IPC_ENOENT || !sendonly)
			return mc_join_failed(k, status);
		/* Refused before the creation the SA announced: again. */
		if (k.obj->noticed == IPC_TRAP_MCG_CREATED)
			return mc_join_fresh(k, IPC_JOIN_SENDONLY);
		/* s10: no such group. */
		return mc_absent(k, routers_joined);
	case IPC_MC_LEAVING:
		k.obj->last_status = status;
		if (!status) /* joined, never attached: only the leave */
			k.out.act(IPC_ACT_LEAVE);
		return mc_free(k);
	case IPC_MC_IDLE:
	case IPC_MC_JOINED:
	case IPC_MC_BACKOFF:
	case IPC_MC_MISSING:
	case IPC_MC_HELD:
		/* No join outstanding: a late or reset completion, ignored. */
		return s;
	default:
		return mc_free(k);
	}
}

ipc_mc_state mc_on_timer(McCall &k, ipc_mc_state s)
{
	switch (s) {
	case IPC_MC_IDLE: /* IDLE and HELD arm no deadline: a spurious call */
	case IPC_MC_HELD:
		return s;
	case IPC_MC_JOINING:
		if (k.now < k.obj->deadline_ms)
			return s;
		k.out.act(IPC_ACT_LEAVE); /* cancels the join */
		return mc_join_failed(k, -IPC_ETIMEDOUT);
	case IPC_MC_JOINED:
		if (k.obj->joined != IPC_JOIN_SENDONLY)
			return s;
		if (k.now < mc_joined_deadline(k)) {
			k.obj->deadline_ms = mc_joined_deadline(k);
			return s;
		}
		mc_drop_membership(k);
		return mc_free(k);
	case IPC_MC_BACKOFF:
		if (k.now < k.obj->deadline_ms)
			return s;
		return mc_join(k, mc_desired(k.obj));
	case IPC_MC_MISSING: /* the cache expired: a later tx starts over */
		if (k.now < k.obj->deadline_ms)
			return s;
		return mc_free(k);
	case IPC_MC_LEAVING:
		if (k.now < k.obj->deadline_ms)
			return s;
		k.out.act(IPC_ACT_LEAVE);
		return mc_free(k);
	default:
		return mc_free(k);
	}
}

/*
 * A flush (client reregister, SM change): the SA may have forgotten the
 * membership, and a rejoin may return another MLID, so the membership is
 * given up now (DETACH and LEAVE, as the in-tree ipoib_mcast_dev_flush()
 * does) and rejoined from BACKOFF after a delay drawn from [0, spread_ms):
 * a whole fabric flushed at once reaches the SA spread over that window. A
 * send-only membership is not rejoined: the next tx asks again.
 */
ipc_mc_state mc_on_flush(McCall &k, ipc_mc_state s, u32 spread_ms)
{
	u32 delay = spread_ms ? rng_between(k.rng, 0, spread_ms - 1) : 0;

	switch (s) {
	case IPC_MC_IDLE:
	case IPC_MC_HELD: /* the broadcast group's rejoin releases it */
		return s;
	case IPC_MC_JOINING:
		k.out.act(IPC_ACT_LEAVE);
		k.obj->pending = IPC_JOIN_NONE;
		break;
	case IPC_MC_JOINED:
		mc_drop_membership(k);
		if (mc_desired(k.obj) == IPC_JOIN_SENDONLY)
			return mc_free(k);
		break;
	case IPC_MC_BACKOFF:
		break;
	case IPC_MC_MISSING: /* the group may exist now */
		return mc_free(k);
	case IPC_MC_LEAVING:
		k.out.act(IPC_ACT_LEAVE);
		return mc_free(k);
	default:
		return mc_free(k);
	}
	k.obj->attempts = 0;
	k.obj->deadline_ms = after(k.now, delay);
	return IPC_MC_BACKOFF;
}

/* s10: the SA's notice that the group was created or deleted. */
ipc_mc_state mc_on_notice(McCall &k, ipc_mc_state s, bool created)
{
	switch (s) {
	case IPC_MC_MISSING: /* the absence cached is over */
		return created ? mc_free(k) : s;
	case IPC_MC_JOINED:
		if (k.obj->joined != IPC_JOIN_SENDONLY)
			return s;
		/* Either way the membership held is of a group gone. */
		mc_drop_membership(k);
		if (!created)
			return mc_absent(k, 0); /* nothing queued in JOINED */
		/*
		 * Joined again once the leave has gone: the shim's SA
		 * client may answer a join from the membership it still
		 * holds until then (ib_sa does), with the old MLID.
		 */
		k.obj->attempts = 0;
		k.obj->deadline_ms = after(k.now, k.c->backoff.base_ms);
		return IPC_MC_BACKOFF;
	case IPC_MC_JOINING:
		if (k.obj->pending == IPC_JOIN_SENDONLY)
			k.obj->noticed =
				static_cast<u8>(created ? IPC_TRAP_MCG_CREATED :
							  IPC_TRAP_MCG_DELETED);
		return s;
	case IPC_MC_IDLE:
	case IPC_MC_BACKOFF:
	case IPC_MC_LEAVING:
	case IPC_MC_HELD:
		return s;
	default:
		return mc_free(k);
	}
}

ipc_mc_state mc_on_bcast_joined(McCall &k, ipc_mc_state s)
{
	switch (s) {
	case IPC_MC_HELD:
		return mc_join_fresh(k, mc_desired(k.obj));
	case IPC_MC_IDLE:
	case IPC_MC_JOINING:
	case IPC_MC_JOINED:
	case IPC_MC_BACKOFF:
	case IPC_MC_MISSING:
	case IPC_MC_LEAVING:
		return s;
	default:
		return mc_free(k);
	}
}

/* The queued packets die with the interface: counted as link down. */
void mc_on_destroy(McCall &k, ipc_mc_state s)
{
	if (s == IPC_MC_JOINED)
		mc_drop_membership(k);
	else if (s == IPC_MC_JOINING || s == IPC_MC_LEAVING)
		k.out.act(IPC_ACT_LEAVE);
	queue_purge(k.out, &k.obj->queued, IPC_R_LINK_DOWN);
	mc_free(k);
}

/* subscribe and unsubscribe: a type other than FULL or NON changes nothing. */
void mc_subscription(McCall &k, int type,
		     ipc_mc_state (*handler)(McCall &, ipc_mc_state, u8))
{
	ipc_mc_state s = k.state<ipc_mc_state>();

	k.commit(mc_subscribable(type) ? handler(k, s, static_cast<u8>(type)) :
					 s);
}

/*
 * Room in a full table. Never what the stack subscribed FULL (it decides
 * when that goes), nor a group holding packets, nor one whose join is out
 * (JOINING, LEAVING: the shim holds a join handle for it). Without a
 * membership held (IDLE, MISSING, BACKOFF, HELD) a group is only a cached
 * absence, a retry or a wait: it may go, including the NonMember groups
 * of the all-multicast mode that keep failing. JOINED: a send-only
 * membership once unused for evict_idle_ms (the next packet joins again);
 * a NonMember one not, the mode holds it. Corrupt state: yes, as every
 * other entry frees it.
 */
bool mc_evictable(const struct ipc_mc *m, const struct ipc_mc_cfg *c, u64 now)
{
	if ((m->want & IPC_JOIN_FULL) || m->queued)
		return false;
	switch (static_cast<ipc_mc_state>(m->state)) {
	case IPC_MC_JOINING:
	case IPC_MC_LEAVING:
		return false;
	case IPC_MC_IDLE:
	case IPC_MC_MISSING:
	case IPC_MC_BACKOFF:
	case IPC_MC_HELD:
		return true;
	case IPC_MC_JOINED:
		return m->joined == IPC_JOIN_SENDONLY &&
		       now >= after(m->last_tx_ms, c->evict_idle_ms);
	default:
		return true;
	}
}

} // namespace
} // namespace ipc

using namespace ipc;

/*
 * evict_idle_ms: 10 s, as for paths: far beyond the gap between packets
 * of a live multicast sender, far below sendonly_idle_ms (60 s), so that
 * under a flood of new groups the idle ones make room long before they
 * expire.
 */
extern "C" void ipc_mc_cfg_default(struct ipc_mc_cfg *c)
{
	c->queue_max = 64;
	c->pad = 0;
	c->sendonly_idle_ms = 60000;
	c->missing_ttl_ms = 10000;
	c->join_timeout_ms = 10000;
	c->backoff.base_ms = 1000;
	c->backoff.cap_ms = 16000;
	c->evict_idle_ms = 10000;
}

extern "C" void ipc_mc_init(struct ipc_mc *m, ipc_u8 scope)
{
	mc_reset(m, scope);
}

extern "C" void ipc_mc_subscribe(struct ipc_mc *m, const struct ipc_mc_cfg *c,
				 int type, ipc_u64 now, struct ipc_result *r)
{
	McCall k(m, c, now, nullptr, r);

	mc_subscription(k, type, mc_on_subscribe);
}

extern "C" void ipc_mc_unsubscribe(struct ipc_mc *m, const struct ipc_mc_cfg *c,
				   int type, ipc_u64 now, struct ipc_result *r)
{
	McCall k(m, c, now, nullptr, r);

	mc_subscription(k, type, mc_on_unsubscribe);
}

extern "C" void ipc_mc_tx(struct ipc_mc *m, const struct ipc_mc_cfg *c,
			  ipc_u64 now, int routers_joined, struct ipc_result *r)
{
	McCall k(m, c, now, nullptr, r);

	k.commit(mc_on_tx(k, k.state<ipc_mc_state>(), routers_joined));
}

extern "C" void ipc_mc_join_done(struct ipc_mc *m, const struct ipc_mc_cfg *c,
				 ipc_u64 now, int status, int routers_joined,
				 struct ipc_rng *rng, struct ipc_result *r)
{
	McCall k(m, c, now, rng, r);

	k.commit(mc_on_join_done(k, k.state<ipc_mc_state>(), status,
				 routers_joined));
}

extern "C" void ipc_mc_timer(struct ipc_mc *m, const struct ipc_mc_cfg *c,
			     ipc_u64 now, struct ipc_rng *rng,
			     struct ipc_result *r)
{
	McCall k(m, c, now, rng, r);

	k.commit(mc_on_timer(k, k.state<ipc_mc_state>()));
}

extern "C" void ipc_mc_notice(struct ipc_mc *m, const struct ipc_mc_cfg *c,
			      ipc_u64 now, int created, struct ipc_result *r)
{
	McCall k(m, c, now, nullptr, r);

	k.commit(mc_on_notice(k, k.state<ipc_mc_state>(), created != 0));
}

extern "C" void ipc_mc_bcast_joined(struct ipc_mc *m,
				    const struct ipc_mc_cfg *c, ipc_u64 now,
				    struct ipc_result *r)
{
	McCall k(m, c, now, nullptr, r);

	k.commit(mc_on_bcast_joined(k, k.state<ipc_mc_state>()));
}

extern "C" void ipc_mc_bcast_next(struct ipc_mc *m, const struct ipc_mc_cfg *c,
				  ipc_u64 now, struct ipc_result *r)
{
	McCall k(m, c, now, nullptr, r);

	queue_purge(k.out, &m->queued, IPC_R_NOT_JOINED);
	mc_reset(m, IPC_SCOPE_LINK);
	mc_subscription(k, IPC_JOIN_FULL, mc_on_subscribe);
}

extern "C" void ipc_mc_flush(struct ipc_mc *m, const struct ipc_mc_cfg *c,
			     ipc_u64 now, ipc_u32 spread_ms,
			     struct ipc_rng *rng, struct ipc_result *r)
{
	McCall k(m, c, now, rng, r);

	k.commit(mc_on_flush(k, k.state<ipc_mc_state>(), spread_ms));
}

/*
 * One join a node, the broadcast group's, spread over a second still
 * spreads a fabric's 10,000 of them; over the whole window it would leave
 * the node without broadcast (ARP, ND) for up to that long, and hold
 * every other group (HELD) until it comes.
 */
extern "C" ipc_u32 ipc_mc_flush_spread(ipc_u32 spread_ms, int is_bcast)
{
	return is_bcast ? min_of(spread_ms, IPC_BCAST_SPREAD_MS) : spread_ms;
}

/* A join is outstanding in JOINING and LEAVING: its timeout waits or runs. */
extern "C" void ipc_mc_join_held(struct ipc_mc *m, struct ipc_result *r)
{
	McCall k(m, nullptr, 0, nullptr, r);
	ipc_mc_state s = k.state<ipc_mc_state>();

	if (s == IPC_MC_JOINING || s == IPC_MC_LEAVING)
		m->deadline_ms = IPC_NO_DEADLINE;
	k.commit(s);
}

extern "C" void ipc_mc_join_sent(struct ipc_mc *m, const struct ipc_mc_cfg *c,
				 ipc_u64 now, struct ipc_result *r)
{
	McCall k(m, c, now, nullptr, r);
	ipc_mc_state s = k.state<ipc_mc_state>();

	if (s == IPC_MC_JOINING || s == IPC_MC_LEAVING)
		m->deadline_ms = after(now, c->join_timeout_ms);
	k.commit(s);
}

/*
 * The broadcast group first: no other join can carry its parameters, and
 * the link is down without it (RFC 4391 s5). Then a group with frames
 * queued for its send-only join (s10), then the rest: the stack's
 * subscriptions, rejoins after a flush.
 */
extern "C" int ipc_mc_sa_class(const struct ipc_mc *m, int is_bcast)
{
	if (is_bcast)
		return IPC_SA_BCAST;
	return m->queued ? IPC_SA_WAITING : IPC_SA_REFRESH;
}

extern "C" void ipc_mc_destroy(struct ipc_mc *m, struct ipc_result *r)
{
	McCall k(m, nullptr, 0, nullptr, r);

	mc_on_destroy(k, k.state<ipc_mc_state>());
}

extern "C" int ipc_mc_evictable(const struct ipc_mc *m,
				const struct ipc_mc_cfg *c, ipc_u64 now)
{
	return mc_evictable(m, c, now) ? 1 : 0;
}

extern "C" void ipc_mc_view(const struct ipc_mc *m, struct ipc_view *v)
{
	view_clear(v);
	v->state = name_of(mc_state_names, m->state);
	v->attempts = m->attempts;
	v->want = m->want;
	v->joined = m->joined;
	v->pending = m->pending;
	v->queued = m->queued;
	v->last_status = m->last_status;
	v->deadline_ms = m->deadline_ms;
}

extern "C" ipc_u64 ipc_mc_deadline(const struct ipc_mc *m)
{
	return m->deadline_ms;
}

extern "C" int ipc_mc_wanted(const struct ipc_mc *m, int type)
{
	return (m->want & type) ? 1 : 0;
}

extern "C" int ipc_mc_missing(const struct ipc_mc *m)
{
	return m->state == IPC_MC_MISSING;
}

extern "C" int ipc_mc_tx_joins(const struct ipc_mc *m, ipc_u64 now)
{
	switch (m->state) {
	case IPC_MC_IDLE:
		return 1;
	case IPC_MC_MISSING: /* as mc_on_tx decides */
		return mc_absence_expired(m, now);
	default:
		return 0;
	}
}
