// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * allmulti.cpp - the SA's group notices: every sender's subscription to
 * them (RFC 4391 s10: "Senders MUST subscribe to the multicast group
 * create and delete traps"), and the promiscuous multicast mode for
 * routers (s11), which IBA does not have and IPoIB emulates: A) the SA's
 * list of every group, B) a NonMember join to each group of this link,
 * C) the notices of groups created (trap 66) and deleted (trap 67). This
 * file decides: when the interface subscribes and reads, which requests
 * go and when they are tried again, which groups the mode joins and
 * leaves, and how many. mc.cpp follows a notice for a sender's group
 * (ipc_mc_notice()); sa.cpp builds and parses the MADs; the shim moves
 * them.
 */
#include "core.hpp"

namespace ipc
{
namespace
{

/* The answers a QUERYING interface waits for (struct ipc_am.pending). */
enum am_pending : u8 {
	am_pend_table = 0x1,
	am_pend_created = 0x2,
	am_pend_deleted = 0x4,
	am_pend_all = 0x7,
};

constexpr const char *const am_state_names[] = {
	"off", "starting", "querying", "on", "backoff",
};
static_assert(sizeof(am_state_names) / sizeof(am_state_names[0]) ==
		      IPC_AM_STATE_COUNT,
	      "a state without a name");
static_assert(sizeof(struct ipc_am) == 32, "ipc_am layout");

constexpr struct ipc_backoff_cfg am_backoff = { IPC_AM_RETRY_BASE_MS,
						IPC_AM_RETRY_CAP_MS };

/*
 * s11 is IFF_ALLMULTI; IFF_PROMISC only with promisc_too (review M3).
 * Never while down.
 */
bool am_mode(const struct ipc_am_flags *f)
{
	return f->up && (f->allmulti || (f->promisc && f->promisc_too));
}

/*
 * Up on a port with an SA: subscribed for s10 when notices asks for it
 * (sa_notices: the fabric's cost, ipoib_core.h), for s11 in the mode.
 */
bool am_subscribes(const struct ipc_am_flags *f)
{
	return f->up && f->has_sa && (f->notices || am_mode(f));
}

/*
 * s11 B: an IPv4 or IPv6 signature (s4), this link's P_Key and scope
 * (the broadcast GID's), not the broadcast group itself.
 */
bool am_wants(const u8 *bcast_gid, const u8 *mgid)
{
	u16 sig = load_be16(mgid + mgid_signature);

	return mgid[0] == 0xff &&
	       mgid[mgid_flags_scope] ==
		       (mgid_tflag | (bcast_gid[mgid_flags_scope] & 0xf)) &&
	       (sig == IPC_SIG_IPV4 || sig == IPC_SIG_IPV6) &&
	       mem_equal(mgid + mgid_pkey, bcast_gid + mgid_pkey, 2) &&
	       !mem_equal(mgid, bcast_gid, IPC_GID_LEN);
}

/*
 * Whether an interface that last read the directory at read_at is to read
 * it again at now, because Reports were refused since (ipc_notice_admit):
 * IPC_NOTICE_QUIET_MS after the last refusal, and at the latest
 * IPC_NOTICE_REREAD_MAX_MS after the first one since read_at. Else
 * *deadline says when to ask again (IPC_NO_DEADLINE: none refused).
 */
bool am_reread_due(const struct ipc_notice_rate *n, u64 read_at, u64 now,
		   u64 *deadline)
{
	u64 quiet, cap;

	*deadline = IPC_NO_DEADLINE;
	if (!n || !n->refused || n->refused_at < read_at)
		return false;
	quiet = after(n->refused_at, IPC_NOTICE_QUIET_MS);
	cap = after(n->series_at > read_at ? n->series_at : read_at,
		    IPC_NOTICE_REREAD_MAX_MS);
	if (cap < quiet)
		quiet = cap;
	if (now >= quiet)
		return true;
	*deadline = quiet;
	return false;
}

void am_enter(struct ipc_am *am, ipc_am_state s, u64 deadline)
{
	am->state = static_cast<u8>(s);
	am->deadline_ms = deadline;
}

/* A new read of the directory (s11 A). */
void am_read(struct ipc_am *am, Out &out, u64 now)
{
	am->pending |= am_pend_table;
	am->gen++;
	am->read_at = now;
	am_enter(am, IPC_AM_QUERYING, IPC_NO_DEADLINE);
	out.act(IPC_AM_ACT_READ);
}

/* Subscribe (s10, s11 C) and, in the mode, read: from the start. */
void am_query(struct ipc_am *am, Out &out, u64 now)
{
	am->pending = am_pend_created | am_pend_deleted;
	out.act(IPC_AM_ACT_SUBSCRIBE);
	if (am->dir)
		am_read(am, out, now);
	else
		am_enter(am, IPC_AM_QUERYING, IPC_NO_DEADLINE);
}

/* A failure: everything again after a jittered backoff. */
void am_fail(struct ipc_am *am, Out &out, u64 now, struct ipc_rng *rng)
{
	count_attempt(&am->attempts);
	am->pending = 0;
	am->subscribed = 0;
	am_enter(am, IPC_AM_BACKOFF,
		 after(now, ipc_backoff_ms(&am_backoff, am->attempts, rng)));
	out.act(IPC_AM_ACT_LOG);
	out.why(IPC_AM_LOG_FAILED);
}

void am_leave_mode(struct ipc_am *am, Out &out, bool can_send, bool shared)
{
	if (am->state == IPC_AM_OFF)
		return;
	if (am->agent && can_send && !shared && am->subscribed)
		out.act(IPC_AM_ACT_UNSUBSCRIBE);
	if (am->agent)
		out.act(IPC_AM_ACT_STOP_AGENT);
	out.act(IPC_AM_ACT_LEAVE_ALL);
	am->agent = 0;
	am->pending = 0;
	am->attempts = 0;
	am->dir = 0;
	am->subscribed = 0;
	am_enter(am, IPC_AM_OFF, IPC_NO_DEADLINE);
}

/*
 * The directory part follows the mode: entered, the directory is read
 * (now, or by the query to come); left, its groups are left and a read
 * in flight is no longer awaited.
 */
void am_follow_mode(struct ipc_am *am, Out &out, bool mode, u64 now)
{
	if (mode == (am->dir != 0))
		return;
	am->dir = mode ? 1 : 0;
	if (!mode) {
		out.act(IPC_AM_ACT_LEAVE_ALL);
		am->pending &= static_cast<u8>(~am_pend_table);
		if (am->state == IPC_AM_QUERYING && !am->pending)
			am_enter(am, IPC_AM_ON, IPC_NO_DEADLINE);
	} else if (am->state == IPC_AM_QUERYING || am->state == IPC_AM_ON) {
		am_read(am, out, now);
	}
}

/* The mode's membership of mc, counted; r leaves it. */
void am_unsubscribe(struct ipc_am *am, const struct ipc_am_link *k,
		    struct ipc_mc *mc, struct ipc_result *r)
{
	if (am->groups)
		am->groups--;
	ipc_mc_unsubscribe(mc, k->mc_cfg, IPC_JOIN_NON, k->now, r);
}

} // namespace
} // namespace ipc

using namespace ipc;

extern "C" void ipc_am_init(struct ipc_am *am)
{
	mem_zero(am, sizeof(*am));
	am->deadline_ms = IPC_NO_DEADLINE;
}

extern "C" void ipc_am_sync(struct ipc_am *am, const struct ipc_am_flags *f,
			    const struct ipc_notice_rate *rate, ipc_u64 now,
			    struct ipc_result *r)
{
	Out out = Out::begin(r);
	u64 deadline;

	if (am_mode(f) && !f->has_sa && !am->told) {
		/* RoCE: no SA, no directory; the stack's groups only. */
		am->told = 1;
		out.act(IPC_AM_ACT_LOG);
		out.why(IPC_AM_LOG_NO_SA);
	}
	if (!am_subscribes(f)) {
		am_leave_mode(am, out, f->up, f->shared);
		out.deadline(am->deadline_ms);
		return;
	}
	am_follow_mode(am, out, am_mode(f), now);
	switch (am->state) {
	case IPC_AM_OFF:
		am_enter(am, IPC_AM_STARTING, IPC_NO_DEADLINE);
		out.act(IPC_AM_ACT_START_AGENT);
		break;
	case IPC_AM_BACKOFF:
		if (now < am->deadline_ms)
			break;
		if (am->agent) {
			am_query(am, out, now);
		} else {
			am_enter(am, IPC_AM_STARTING, IPC_NO_DEADLINE);
			out.act(IPC_AM_ACT_START_AGENT);
		}
		break;
	case IPC_AM_QUERYING:
	case IPC_AM_ON:
		if (!am->dir || (am->pending & am_pend_table)) {
			am->deadline_ms = IPC_NO_DEADLINE;
		} else if (am_reread_due(rate, am->read_at, now, &deadline)) {
			am_read(am, out, now);
		} else {
			am->deadline_ms = deadline;
		}
		break;
	default: /* STARTING: ipc_am_started() comes */
		break;
	}
	out.deadline(am->deadline_ms);
}

extern "C" void ipc_am_stop(struct ipc_am *am, int can_send, int shared,
			    struct ipc_result *r)
{
	Out out = Out::begin(r);

	am_leave_mode(am, out, can_send, shared);
	out.deadline(am->deadline_ms);
}

extern "C" void ipc_am_started(struct ipc_am *am, int status, ipc_u64 now,
			       struct ipc_rng *rng, struct ipc_result *r)
{
	Out out = Out::begin(r);

	if (am->state == IPC_AM_STARTING) {
		if (status) {
			am->agent = 0;
			am_fail(am, out, now, rng);
		} else {
			am->agent = 1;
			am_query(am, out, now);
		}
	}
	out.deadline(am->deadline_ms);
}

extern "C" void ipc_am_unsent(struct ipc_am *am, int status, ipc_u64 now,
			      struct ipc_rng *rng, struct ipc_result *r)
{
	Out out = Out::begin(r);

	if (am->state == IPC_AM_QUERYING && status == -IPC_ENETDOWN) {
		/*
		 * No SM yet (the port not active, or no SM LID): nothing
		 * failed. Asked again quietly, and after the flush the
		 * port's activation brings (within its spread).
		 */
		am->pending = 0;
		am_enter(am, IPC_AM_BACKOFF, after(now, IPC_AM_RETRY_BASE_MS));
	} else if (am->state == IPC_AM_QUERYING && status) {
		am_fail(am, out, now, rng);
	}
	out.deadline(am->deadline_ms);
}

extern "C" int ipc_am_answer(struct ipc_am *am, int which, int status,
			     ipc_u64 now, struct ipc_rng *rng,
			     struct ipc_result *r)
{
	Out out = Out::begin(r);
	u8 bit = which == 0		       ? am_pend_table :
		 which == IPC_TRAP_MCG_CREATED ? am_pend_created :
		 which == IPC_TRAP_MCG_DELETED ? am_pend_deleted :
						 0;

	if (am->state != IPC_AM_QUERYING || !(am->pending & bit))
		return 0;
	if (status) {
		am_fail(am, out, now, rng);
	} else {
		am->pending &= static_cast<u8>(~bit);
		if (!(am->pending & (am_pend_created | am_pend_deleted)))
			am->subscribed = 1;
		if (bit == am_pend_table)
			out.act(IPC_AM_ACT_SWEEP);
		if (!am->pending) {
			am->attempts = 0;
			am_enter(am, IPC_AM_ON, IPC_NO_DEADLINE);
		}
	}
	out.deadline(am->deadline_ms);
	return 1;
}

extern "C" int ipc_am_flushed(struct ipc_am *am, ipc_u64 now, ipc_u32 spread_ms,
			      struct ipc_rng *rng)
{
	switch (am->state) {
	case IPC_AM_OFF:
		return 0;
	case IPC_AM_STARTING: /* its query comes after the flush */
		return 1;
	default:
		break;
	}
	/* Not a failure: no attempt counted, nothing logged. */
	am->pending = 0;
	am->subscribed = 0; /* the SA may have lost it */
	am_enter(am, IPC_AM_BACKOFF,
		 after(now,
		       spread_ms ? rng_between(rng, 0, spread_ms - 1) : 0));
	return 1;
}

extern "C" ipc_u32 ipc_am_gen(const struct ipc_am *am)
{
	return am->gen;
}

extern "C" void ipc_am_view(const struct ipc_am *am, struct ipc_view *v)
{
	view_clear(v);
	v->state = name_of(am_state_names, am->state);
	v->attempts = am->attempts;
	v->pending = am->pending;
	v->want = am->dir;
	v->members = am->groups;
	v->deadline_ms = am->deadline_ms;
}

extern "C" int ipc_am_group(struct ipc_am *am, const struct ipc_am_link *k,
			    const ipc_u8 mgid[16], int listed,
			    struct ipc_mc *mc, ipc_u32 *mc_gen,
			    struct ipc_result *r)
{
	Out::begin(r);
	if (!am->agent || !am->dir || !am_wants(k->bcast_gid, mgid))
		return 0;
	if (!listed) {
		if (mc && ipc_mc_wanted(mc, IPC_JOIN_NON))
			am_unsubscribe(am, k, mc, r);
		return 0;
	}
	if (!mc)
		return am->groups < k->groups_max / IPC_AM_GROUPS_SHARE ?
			       IPC_AM_GROUP_CREATE :
			       0;
	/* Listed by the read in flight, or created since it began. */
	*mc_gen = am->gen;
	if (!ipc_mc_wanted(mc, IPC_JOIN_NON)) {
		am->groups++;
		ipc_mc_subscribe(mc, k->mc_cfg, IPC_JOIN_NON, k->now, r);
	}
	return 0;
}

extern "C" void ipc_am_sweep(struct ipc_am *am, const struct ipc_am_link *k,
			     struct ipc_mc *mc, ipc_u32 mc_gen,
			     struct ipc_result *r)
{
	Out::begin(r);
	if (ipc_mc_wanted(mc, IPC_JOIN_NON) && mc_gen != am->gen)
		am_unsubscribe(am, k, mc, r);
}

extern "C" void ipc_am_leave(struct ipc_am *am, const struct ipc_am_link *k,
			     struct ipc_mc *mc, struct ipc_result *r)
{
	Out::begin(r);
	if (ipc_mc_wanted(mc, IPC_JOIN_NON))
		am_unsubscribe(am, k, mc, r);
}

extern "C" void ipc_am_forget(struct ipc_am *am, const struct ipc_mc *mc)
{
	if (ipc_mc_wanted(mc, IPC_JOIN_NON) && am->groups)
		am->groups--;
}
