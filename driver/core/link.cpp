// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * link.cpp - the interface link machine: carrier and the reaction to port
 * events (flush levels), after the in-tree driver's ipoib_ib_dev_flush_*.
 *
 * Carrier is on exactly when admin_up && port_active && pkey_present &&
 * the broadcast group is joined (RFC 4391 s5: the link is formed by the
 * broadcast group membership) and the datapath has not failed since the
 * interface was opened. Every entry point fills an ipc_result with
 * IPC_LINK_ACT_* performed in bit order, and CARRIER_ON/OFF only on a
 * change (but stop: the carrier goes off, whatever it was).
 *
 * What the shim does for each action:
 *   JOIN_BCAST    subscribe FULL to the broadcast group; report the outcome
 *                 with ipc_link_bcast_done() (again after each retry).
 *   LEAVE_ALL     ipc_mc_destroy() every group and ipc_path_destroy() every
 *                 path: the handles are built on a LID or P_Key that may be
 *                 gone.
 *   FLUSH_PATHS   ipc_path_flush() every path (revalidate, keep handles).
 *   REJOIN_ALL    ipc_mc_flush() every group, with the fabric spread.
 *   REREAD_GID    copy the port GID (the one the administrator chose,
 *                 while the port still has it) into dev_addr, before
 *                 paths and joins are made again from it.
 *   REREAD_PKEY   look up the P_Key index again, then report it with
 *                 ipc_link_port_state(), which answers JOIN_BCAST if the
 *                 link can come up. A HEAVY flush therefore carries no
 *                 JOIN_BCAST itself: whether to join at all depends on
 *                 what the re-read finds.
 */
#include "core.hpp"

namespace ipc
{
namespace
{

enum bcast_state : u8 {
	BCAST_NONE = 0,
	BCAST_JOINING = 1,
	BCAST_JOINED = 2,
	BCAST_FAILED = 3,
};

constexpr const char *const event_names[] = {
	"port_active", "port_err",  "lid_change",	 "pkey_change",
	"gid_change",  "sm_change", "client_reregister",
};
static_assert(sizeof(event_names) / sizeof(event_names[0]) == IPC_EV_COUNT,
	      "an event without a name");

/* Why each event flushes as much as it does. */
constexpr u8 event_levels[] = {
	/* PORT_ACTIVE: the port (re)appeared; LID, SM and memberships may
	 * all be new: take the interface down and up. */
	IPC_FLUSH_NORMAL,
	/* PORT_ERR: nothing on the fabric is reachable; carrier off and
	 * every handle and membership is void. */
	IPC_FLUSH_NORMAL,
	/* LID_CHANGE: address handles and multicast forwarding were built
	 * for the old LID. */
	IPC_FLUSH_NORMAL,
	/* PKEY_CHANGE: our P_Key may have moved index or gone; the QP must
	 * be brought up again on the new index (HEAVY). */
	IPC_FLUSH_HEAVY,
	/* GID_CHANGE: the source GID of paths and joins changed and dev_addr
	 * must follow; the LID and handles toward peers are unaffected. */
	IPC_FLUSH_LIGHT,
	/* SM_CHANGE: a new SM may not know our joins or the old path
	 * records; LIDs normally survive: revalidate and rejoin. */
	IPC_FLUSH_LIGHT,
	/* CLIENT_REREGISTER: the SM asks clients to register their SA state
	 * again: rejoin every group, revalidate paths. */
	IPC_FLUSH_LIGHT,
};
static_assert(sizeof(event_levels) == IPC_EV_COUNT, "an event without level");

bool link_ready(const struct ipc_link *l)
{
	return l->admin_up && l->port_active && l->pkey_present;
}

/* Start the broadcast join when the link can carry it and none runs. */
u32 link_maybe_join(struct ipc_link *l)
{
	if (!link_ready(l) ||
	    (l->bcast_state != BCAST_NONE && l->bcast_state != BCAST_FAILED))
		return 0;
	l->bcast_state = BCAST_JOINING;
	return IPC_LINK_ACT_JOIN_BCAST;
}

/*
 * Tear down what depended on the link being up. Nothing is joined or
 * resolved before the broadcast join was asked for (joins and paths follow
 * it), so there is nothing to leave then.
 */
u32 link_down(struct ipc_link *l)
{
	if (l->bcast_state == BCAST_NONE)
		return 0;
	l->bcast_state = BCAST_NONE;
	return IPC_LINK_ACT_LEAVE_ALL;
}

/* Append the carrier edge, if any, to the actions. */
u32 link_commit(struct ipc_link *l, u32 act)
{
	u8 carrier = link_ready(l) && l->bcast_state == BCAST_JOINED &&
		     !l->failed;

	if (carrier != l->carrier)
		act |= carrier ? IPC_LINK_ACT_CARRIER_ON :
				 IPC_LINK_ACT_CARRIER_OFF;
	l->carrier = carrier;
	return act;
}

/* s4.1 / link-multicast draft: link-local first, then ever wider. */
constexpr u8 bsearch_scopes[] = { 0x2, 0x5, 0x8, 0xe };
static_assert(bsearch_scopes[0] == IPC_SCOPE_LINK, "link-local first");

/* A link result: its actions, no deadline. */
void link_out(struct ipc_result *r, u32 act)
{
	Out out = Out::begin(r);

	out.act(act);
}

} // namespace
} // namespace ipc

using namespace ipc;

extern "C" void ipc_bsearch_start(struct ipc_bsearch *s)
{
	mem_zero(s, sizeof(*s));
	s->scope = IPC_SCOPE_LINK;
}

extern "C" int ipc_bsearch_missing(struct ipc_bsearch *s, int create_allowed)
{
	constexpr size_t n = sizeof(bsearch_scopes);
	size_t i = 0;

	while (i < n && bsearch_scopes[i] != s->scope)
		i++;
	if (!s->creating && i + 1 < n) {
		s->scope = bsearch_scopes[i + 1];
		return IPC_BSEARCH_TRY;
	}
	s->scope = IPC_SCOPE_LINK;
	/* Create once per search: a refused creation waits like a miss. */
	if (create_allowed && !s->creating) {
		s->creating = 1;
		return IPC_BSEARCH_CREATE;
	}
	s->creating = 0;
	return IPC_BSEARCH_WAIT;
}

extern "C" void ipc_bsearch_create_params(ipc_u32 port_mtu_bytes,
					  struct ipc_bcast_create *out)
{
	mem_zero(out, sizeof(*out));
	out->qkey = IPC_BCAST_CREATE_QKEY;
	out->mtu_bytes = min_of<u32>(port_mtu_bytes, IPC_BCAST_CREATE_MTU_MAX);
	out->sl = 0;
}

extern "C" void ipc_link_init(struct ipc_link *l)
{
	mem_zero(l, sizeof(*l));
}

extern "C" void ipc_link_open(struct ipc_link *l, struct ipc_result *r)
{
	l->admin_up = 1;
	link_out(r, link_commit(l, link_maybe_join(l)));
}

extern "C" void ipc_link_stop(struct ipc_link *l, struct ipc_result *r)
{
	u32 act = 0;

	if (l->admin_up) {
		l->admin_up = 0;
		l->failed = 0;
		act = link_commit(l, link_down(l));
	}
	link_out(r, act | IPC_LINK_ACT_CARRIER_OFF);
}

/*
 * restart_at is when the previous restart was due, so that the time the
 * datapath ran since is now - restart_at whatever the backoff was.
 */
extern "C" void ipc_link_failed(struct ipc_link *l, ipc_u64 now,
				struct ipc_rng *rng, struct ipc_result *r)
{
	constexpr struct ipc_backoff_cfg backoff = { IPC_RESTART_BASE_MS,
						     IPC_RESTART_CAP_MS };
	constexpr u8 restarts_max = 32; /* the delay is capped long before */
	Out out = Out::begin(r);
	u32 delay = 0;
	bool soon;

	out.deadline(now);
	if (!l->admin_up)
		return;
	if (l->failed) {
		if (now < l->restart_at)
			out.deadline(l->restart_at);
		return;
	}
	soon = l->restarted && now < l->restart_at + IPC_RESTART_SETTLE_MS;
	if (!soon)
		l->restarts = 0;
	else if (l->restarts < restarts_max)
		l->restarts++;
	if (l->restarts)
		delay = ipc_backoff_ms(&backoff, l->restarts, rng);
	l->restart_at = now + delay;
	l->restarted = 1;
	l->failed = 1;
	out.act(link_commit(l, 0));
	out.deadline(l->restart_at);
}

extern "C" void ipc_link_port_state(struct ipc_link *l, int active,
				    int pkey_present, struct ipc_result *r)
{
	bool was_ready = link_ready(l);
	u32 act = 0;

	l->port_active = active != 0;
	l->pkey_present = pkey_present != 0;
	if (was_ready && !link_ready(l))
		act |= link_down(l);
	act |= link_maybe_join(l);
	link_out(r, link_commit(l, act));
}

/*
 * The broadcast join finished (status 0 or -errno). Reported while joining
 * or after a failure (the shim's multicast machine retries); a failure
 * while joined means the membership was lost. Ignored when no join was
 * asked for (a completion that raced with stop or a port error).
 */
extern "C" void ipc_link_bcast_done(struct ipc_link *l, int status,
				    struct ipc_result *r)
{
	u32 act = 0;

	if (l->bcast_state != BCAST_NONE) {
		l->bcast_state = status ? BCAST_FAILED : BCAST_JOINED;
		act = link_commit(l, 0);
	}
	link_out(r, act);
}

extern "C" int ipc_event_flush_level(int event)
{
	if (event < 0 || event >= IPC_EV_COUNT)
		return IPC_FLUSH_NONE;
	return event_levels[event];
}

extern "C" const char *ipc_event_name(int event)
{
	return name_of(event_names, event);
}

namespace ipc
{
namespace
{

/*
 * PORT_ACTIVE and PORT_ERR also set port_active. While the interface is
 * down there is nothing to flush and no P_Key index to re-read (the open
 * reads it): only the GID is re-read, as the hardware address follows it
 * up or down.
 */
u32 link_event(struct ipc_link *l, int event)
{
	int level = ipc_event_flush_level(event);
	u32 act = 0;

	if (event == IPC_EV_PORT_ACTIVE)
		l->port_active = 1;
	else if (event == IPC_EV_PORT_ERR)
		l->port_active = 0;
	if (event == IPC_EV_GID_CHANGE)
		act |= IPC_LINK_ACT_REREAD_GID;
	if (!l->admin_up)
		return act;
	if (level == IPC_FLUSH_HEAVY)
		act |= IPC_LINK_ACT_REREAD_PKEY;
	switch (level) {
	case IPC_FLUSH_LIGHT:
		act |= IPC_LINK_ACT_FLUSH_PATHS | IPC_LINK_ACT_REJOIN_ALL;
		break;
	case IPC_FLUSH_NORMAL:
		act |= link_down(l) | link_maybe_join(l);
		break;
	case IPC_FLUSH_HEAVY: /* JOIN_BCAST follows the P_Key re-read */
		act |= link_down(l);
		break;
	default:
		break;
	}
	return act;
}

} // namespace
} // namespace ipc

extern "C" void ipc_link_events(struct ipc_link *l, ipc_u32 events,
				struct ipc_result *r)
{
	u32 act = 0;

	for (int ev = 0; ev < IPC_EV_COUNT; ev++)
		if (events & (1u << ev))
			act |= link_event(l, ev);
	/* A join an earlier event asked for and a later one ended: none. */
	if (l->bcast_state != BCAST_JOINING)
		act &= ~IPC_LINK_ACT_JOIN_BCAST;
	link_out(r, link_commit(l, act));
}

/*
 * Down by the administrator first; then what a datapath failure, the
 * port, the partition and the broadcast group (s5) say, as carrier is on
 * exactly when none holds.
 */
extern "C" int ipc_link_why(const struct ipc_link *l)
{
	if (!l->admin_up)
		return IPC_LINK_WHY_ADMIN_DOWN;
	if (l->failed)
		return IPC_LINK_WHY_DATAPATH_FAILED;
	if (!l->port_active)
		return IPC_LINK_WHY_PORT_DOWN;
	if (!l->pkey_present)
		return IPC_LINK_WHY_NO_PKEY;
	if (l->carrier)
		return IPC_LINK_WHY_UP;
	return l->bcast_state == BCAST_FAILED ? IPC_LINK_WHY_BCAST_FAILED :
						IPC_LINK_WHY_BCAST_JOINING;
}
