// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The link machine (link.cpp): carrier = admin_up && port_active &&
 * pkey_present && broadcast joined; event flush levels and their actions.
 */
#include <gtest/gtest.h>

#include <string>

#include "core_test.hpp"

namespace
{

constexpr uint32_t ON = IPC_LINK_ACT_CARRIER_ON;
constexpr uint32_t OFF = IPC_LINK_ACT_CARRIER_OFF;
constexpr uint32_t JOIN = IPC_LINK_ACT_JOIN_BCAST;
constexpr uint32_t LEAVE = IPC_LINK_ACT_LEAVE_ALL;
constexpr uint32_t PATHS = IPC_LINK_ACT_FLUSH_PATHS;
constexpr uint32_t REJOIN = IPC_LINK_ACT_REJOIN_ALL;
constexpr uint32_t PKEY = IPC_LINK_ACT_REREAD_PKEY;
constexpr uint32_t GID = IPC_LINK_ACT_REREAD_GID;

/* The link machine's entry points, each answering its r.actions. */
uint32_t lk_open(struct ipc_link *l)
{
	struct ipc_result r;

	ipc_link_open(l, &r);
	EXPECT_EQ(r.deadline_ms, IPC_NO_DEADLINE);
	return r.actions;
}

uint32_t lk_stop(struct ipc_link *l)
{
	struct ipc_result r;

	ipc_link_stop(l, &r);
	return r.actions;
}

uint32_t lk_port_state(struct ipc_link *l, int active, int pkey)
{
	struct ipc_result r;

	ipc_link_port_state(l, active, pkey, &r);
	return r.actions;
}

uint32_t lk_bcast_done(struct ipc_link *l, int status)
{
	struct ipc_result r;

	ipc_link_bcast_done(l, status, &r);
	return r.actions;
}

/* One event alone; one beyond the mask's bits: an unknown bit. */
uint32_t lk_event(struct ipc_link *l, int ev)
{
	struct ipc_result r;

	ipc_link_events(l, ev >= 0 && ev < 31 ? 1u << ev : 1u << 31, &r);
	return r.actions;
}

/* *delay: r.deadline_ms - now. */
uint32_t lk_failed(struct ipc_link *l, uint64_t now, struct ipc_rng *rng,
		   uint32_t *delay)
{
	struct ipc_result r;

	ipc_link_failed(l, now, rng, &r);
	EXPECT_GE(r.deadline_ms, now);
	*delay = static_cast<uint32_t>(r.deadline_ms - now);
	return r.actions;
}

struct Link {
	struct ipc_link l;
	Link()
	{
		ipc_link_init(&l);
	}
	/* Open on an active port with our P_Key and a joined broadcast. */
	void up()
	{
		EXPECT_EQ(lk_port_state(&l, 1, 1), 0u);
		EXPECT_EQ(lk_open(&l), JOIN);
		EXPECT_EQ(lk_bcast_done(&l, 0), ON);
		EXPECT_EQ(l.carrier, 1);
	}
};

TEST(link, init_is_all_down)
{
	Link t;
	EXPECT_EQ(t.l.admin_up, 0);
	EXPECT_EQ(t.l.carrier, 0);
	EXPECT_EQ(t.l.bcast_state, 0);
}

TEST(link, carrier_needs_all_four_conditions)
{
	Link t;
	EXPECT_EQ(lk_open(&t.l), 0u); /* port not active yet */
	EXPECT_EQ(lk_port_state(&t.l, 1, 0), 0u); /* no P_Key */
	EXPECT_EQ(lk_port_state(&t.l, 1, 1), JOIN);
	EXPECT_EQ(t.l.carrier, 0); /* not joined yet */
	EXPECT_EQ(lk_bcast_done(&t.l, 0), ON);
	EXPECT_EQ(t.l.carrier, 1);
}

TEST(link, open_order_does_not_matter)
{
	Link t;
	t.up();
	Link u;
	EXPECT_EQ(lk_open(&u.l), 0u);
	EXPECT_EQ(lk_port_state(&u.l, 1, 1), JOIN);
	EXPECT_EQ(lk_bcast_done(&u.l, 0), ON);
}

TEST(link, stop_drops_carrier_and_leaves)
{
	Link t;
	t.up();
	EXPECT_EQ(lk_stop(&t.l), OFF | LEAVE);
	EXPECT_EQ(t.l.bcast_state, 0);
	EXPECT_EQ(lk_stop(&t.l), OFF); /* already down: off all the same */
	/* A join completion that raced with stop is ignored. */
	EXPECT_EQ(lk_bcast_done(&t.l, 0), 0u);
	EXPECT_EQ(t.l.carrier, 0);
}

TEST(link, stop_while_joining_has_no_carrier_edge)
{
	Link t;
	lk_port_state(&t.l, 1, 1);
	EXPECT_EQ(lk_open(&t.l), JOIN);
	EXPECT_EQ(lk_stop(&t.l), OFF | LEAVE);
}

TEST(link, reopen_rejoins)
{
	Link t;
	t.up();
	lk_stop(&t.l);
	EXPECT_EQ(lk_open(&t.l), JOIN);
	EXPECT_EQ(lk_open(&t.l), 0u); /* join already running */
}

TEST(link, bcast_failure_and_retry)
{
	Link t;
	lk_port_state(&t.l, 1, 1);
	lk_open(&t.l);
	EXPECT_EQ(lk_bcast_done(&t.l, -IPC_ETIMEDOUT), 0u);
	EXPECT_EQ(t.l.bcast_state, 3);
	/* The shim's multicast machine retries and reports success. */
	EXPECT_EQ(lk_bcast_done(&t.l, 0), ON);
	/* A membership lost while joined drops carrier. */
	EXPECT_EQ(lk_bcast_done(&t.l, -IPC_ENETRESET), OFF);
	/* A port state report restarts the join after a failure. */
	EXPECT_EQ(lk_port_state(&t.l, 1, 1), JOIN);
	EXPECT_EQ(lk_bcast_done(&t.l, 0), ON);
	EXPECT_EQ(lk_bcast_done(&t.l, 0), 0u); /* no edge twice */
}

TEST(link, port_down_and_pkey_loss)
{
	Link t;
	t.up();
	EXPECT_EQ(lk_port_state(&t.l, 0, 1), OFF | LEAVE);
	EXPECT_EQ(lk_port_state(&t.l, 0, 1), 0u);
	EXPECT_EQ(lk_port_state(&t.l, 1, 1), JOIN);
	EXPECT_EQ(lk_bcast_done(&t.l, 0), ON);
	EXPECT_EQ(lk_port_state(&t.l, 1, 0), OFF | LEAVE);
	EXPECT_EQ(t.l.pkey_present, 0);
	/* Unchanged readiness: nothing. */
	Link u;
	u.up();
	EXPECT_EQ(lk_port_state(&u.l, 1, 1), 0u);
}

TEST(link, flush_levels_with_reasons_in_core)
{
	EXPECT_EQ(ipc_event_flush_level(IPC_EV_PORT_ACTIVE), IPC_FLUSH_NORMAL);
	EXPECT_EQ(ipc_event_flush_level(IPC_EV_PORT_ERR), IPC_FLUSH_NORMAL);
	EXPECT_EQ(ipc_event_flush_level(IPC_EV_LID_CHANGE), IPC_FLUSH_NORMAL);
	EXPECT_EQ(ipc_event_flush_level(IPC_EV_PKEY_CHANGE), IPC_FLUSH_HEAVY);
	EXPECT_EQ(ipc_event_flush_level(IPC_EV_GID_CHANGE), IPC_FLUSH_LIGHT);
	EXPECT_EQ(ipc_event_flush_level(IPC_EV_SM_CHANGE), IPC_FLUSH_LIGHT);
	EXPECT_EQ(ipc_event_flush_level(IPC_EV_CLIENT_REREGISTER),
		  IPC_FLUSH_LIGHT);
	EXPECT_EQ(ipc_event_flush_level(IPC_EV_COUNT), IPC_FLUSH_NONE);
	EXPECT_EQ(ipc_event_flush_level(-1), IPC_FLUSH_NONE);
}

TEST(link, event_names)
{
	const char *names[] = { "port_active",	    "port_err",	  "lid_change",
				"pkey_change",	    "gid_change", "sm_change",
				"client_reregister" };
	for (int e = 0; e < IPC_EV_COUNT; e++)
		EXPECT_STREQ(ipc_event_name(e), names[e]);
	EXPECT_STREQ(ipc_event_name(IPC_EV_COUNT), "unknown");
	EXPECT_STREQ(ipc_event_name(-1), "unknown");
}

TEST(link, light_events_flush_paths_and_rejoin_keeping_carrier)
{
	for (int ev : { IPC_EV_SM_CHANGE, IPC_EV_CLIENT_REREGISTER }) {
		Link t;
		t.up();
		EXPECT_EQ(lk_event(&t.l, ev), PATHS | REJOIN);
		EXPECT_EQ(t.l.carrier, 1);
	}
	Link g;
	g.up();
	EXPECT_EQ(lk_event(&g.l, IPC_EV_GID_CHANGE),
		  PATHS | REJOIN | GID);
}

TEST(link, normal_events_bounce_the_interface)
{
	for (int ev : { IPC_EV_LID_CHANGE, IPC_EV_PORT_ACTIVE }) {
		Link t;
		t.up();
		EXPECT_EQ(lk_event(&t.l, ev), OFF | LEAVE | JOIN);
		EXPECT_EQ(t.l.carrier, 0);
		EXPECT_EQ(t.l.bcast_state, 1);
		EXPECT_EQ(lk_bcast_done(&t.l, 0), ON);
	}
}

TEST(link, port_err_leaves_without_rejoin)
{
	Link t;
	t.up();
	EXPECT_EQ(lk_event(&t.l, IPC_EV_PORT_ERR), OFF | LEAVE);
	EXPECT_EQ(t.l.port_active, 0);
	/* Nothing joined since the error: nothing to leave. */
	EXPECT_EQ(lk_event(&t.l, IPC_EV_PORT_ACTIVE), JOIN);
	EXPECT_EQ(t.l.port_active, 1);
}

TEST(link, heavy_event_rereads_pkey_before_rejoining)
{
	Link t;
	t.up();
	EXPECT_EQ(lk_event(&t.l, IPC_EV_PKEY_CHANGE), OFF | LEAVE | PKEY);
	EXPECT_EQ(t.l.bcast_state, 0);
	/* The shim re-read the table: P_Key still there -> join. */
	EXPECT_EQ(lk_port_state(&t.l, 1, 1), JOIN);
	EXPECT_EQ(lk_bcast_done(&t.l, 0), ON);
	/* Next time it is gone: nothing to join. */
	EXPECT_EQ(lk_event(&t.l, IPC_EV_PKEY_CHANGE), OFF | LEAVE | PKEY);
	EXPECT_EQ(lk_port_state(&t.l, 1, 0), 0u);
}

TEST(link, events_while_down_only_reread)
{
	Link t;
	lk_port_state(&t.l, 1, 1);
	EXPECT_EQ(lk_event(&t.l, IPC_EV_SM_CHANGE), 0u);
	EXPECT_EQ(lk_event(&t.l, IPC_EV_LID_CHANGE), 0u);
	EXPECT_EQ(lk_event(&t.l, IPC_EV_GID_CHANGE), GID);
	/* The open reads the P_Key index: nothing to re-read while down. */
	EXPECT_EQ(lk_event(&t.l, IPC_EV_PKEY_CHANGE), 0u);
	EXPECT_EQ(lk_event(&t.l, IPC_EV_PORT_ERR), 0u);
	EXPECT_EQ(t.l.port_active, 0);
	EXPECT_EQ(lk_event(&t.l, IPC_EV_PORT_ACTIVE), 0u);
	EXPECT_EQ(t.l.port_active, 1);
	EXPECT_EQ(lk_event(&t.l, 99), 0u);
}

TEST(link, unknown_event_while_up_does_nothing)
{
	Link t;
	t.up();
	EXPECT_EQ(lk_event(&t.l, IPC_EV_COUNT), 0u);
	EXPECT_EQ(t.l.carrier, 1);
}

TEST(link, normal_event_without_pkey_does_not_join)
{
	Link t;
	lk_open(&t.l);
	lk_port_state(&t.l, 1, 0);
	EXPECT_EQ(lk_event(&t.l, IPC_EV_LID_CHANGE), 0u);
}

TEST(link, stop_before_any_join_has_nothing_to_leave)
{
	Link t;
	EXPECT_EQ(lk_open(&t.l), 0u);
	EXPECT_EQ(lk_stop(&t.l), OFF);
	EXPECT_EQ(t.l.admin_up, 0);
}


TEST(bsearch, link_local_first_then_ever_wider_rfc4391_s4_1)
{
	struct ipc_bsearch s;

	ipc_bsearch_start(&s);
	EXPECT_EQ(s.scope, IPC_SCOPE_LINK);
	for (uint8_t wider : { 0x5, 0x8, 0xe }) {
		EXPECT_EQ(ipc_bsearch_missing(&s, 0), IPC_BSEARCH_TRY);
		EXPECT_EQ(s.scope, wider);
	}
	/* Nothing anywhere, no creation: start over at link-local, later. */
	EXPECT_EQ(ipc_bsearch_missing(&s, 0), IPC_BSEARCH_WAIT);
	EXPECT_EQ(s.scope, IPC_SCOPE_LINK);
	EXPECT_EQ(s.creating, 0);
	EXPECT_EQ(ipc_bsearch_missing(&s, 0), IPC_BSEARCH_TRY);
	EXPECT_EQ(s.scope, 0x5);
}

/*
 * Fail at now, then restart when told: stop (carrier already off), open,
 * the broadcast group joined again. Returns the delay the core chose.
 */
static uint32_t fail_and_restart(Link &t, uint64_t now, struct ipc_rng *r)
{
	uint32_t delay = 12345;

	EXPECT_EQ(lk_failed(&t.l, now, r, &delay), OFF);
	EXPECT_EQ(t.l.carrier, 0);
	EXPECT_EQ(lk_stop(&t.l), OFF | LEAVE);
	EXPECT_EQ(lk_open(&t.l), JOIN);
	EXPECT_EQ(lk_bcast_done(&t.l, 0), ON);
	return delay;
}

TEST(link_restart, first_failure_restarts_at_once_with_carrier_off)
{
	Link t;
	struct ipc_rng r;
	uint32_t delay = 1;

	ipc_rng_seed(&r, 1);
	t.up();
	EXPECT_EQ(lk_failed(&t.l, 5000, &r, &delay), OFF);
	EXPECT_EQ(delay, 0u);
	EXPECT_EQ(t.l.failed, 1);
	/* Nothing brings the carrier back before the restart. */
	EXPECT_EQ(lk_bcast_done(&t.l, 0), 0u);
	EXPECT_EQ(lk_port_state(&t.l, 1, 1), 0u);
	EXPECT_EQ(lk_event(&t.l, IPC_EV_SM_CHANGE), PATHS | REJOIN);
	EXPECT_EQ(t.l.carrier, 0);
	/* Told again before it: nothing new, no second count. */
	EXPECT_EQ(lk_failed(&t.l, 5001, &r, &delay), 0u);
	EXPECT_EQ(delay, 0u);
	EXPECT_EQ(t.l.restarts, 0);
	/* The restart: stop clears the failure, open starts afresh. */
	EXPECT_EQ(lk_stop(&t.l), OFF | LEAVE);
	EXPECT_EQ(t.l.failed, 0);
	EXPECT_EQ(lk_open(&t.l), JOIN);
	EXPECT_EQ(lk_bcast_done(&t.l, 0), ON);
}

TEST(link_restart, failing_again_at_once_backs_off_to_the_cap)
{
	Link t;
	struct ipc_rng r;
	uint64_t now = 1000;
	uint32_t restarts = 0, longest = 0;

	ipc_rng_seed(&r, 7);
	t.up();
	/* An adapter that fails 10 ms after every restart, for an hour. */
	for (uint64_t end = now + 3600u * 1000u; now < end; restarts++) {
		uint32_t delay = fail_and_restart(t, now, &r);
		uint32_t ceiling = IPC_RESTART_CAP_MS;

		if (restarts == 0) {
			EXPECT_EQ(delay, 0u);
		} else {
			if (restarts < 7)
				ceiling = IPC_RESTART_BASE_MS << (restarts - 1);
			EXPECT_GE(delay, ceiling / 2) << restarts;
			EXPECT_LE(delay, ceiling) << restarts;
		}
		longest = delay > longest ? delay : longest;
		now += delay + 10;
	}
	EXPECT_GT(longest, IPC_RESTART_CAP_MS / 2);
	/* Past the first minutes, at most one restart a (jittered) minute. */
	EXPECT_LE(restarts, 7u + 3600u / 30u);
	EXPECT_GE(restarts, 3600u / 60u);
}

TEST(link_restart, a_datapath_that_ran_long_enough_restarts_at_once)
{
	Link t;
	struct ipc_rng r;
	uint64_t now = 0; /* a clock that starts at 0 */

	ipc_rng_seed(&r, 3);
	t.up();
	EXPECT_EQ(fail_and_restart(t, now, &r), 0u);
	uint32_t d = fail_and_restart(t, now += 10, &r);
	EXPECT_GE(d, IPC_RESTART_BASE_MS / 2);
	d = fail_and_restart(t, now += d + 10, &r);
	EXPECT_GE(d, IPC_RESTART_BASE_MS);
	/* It ran IPC_RESTART_SETTLE_MS after the restart was due: at once. */
	EXPECT_EQ(fail_and_restart(t, now += d + IPC_RESTART_SETTLE_MS, &r), 0u);
	EXPECT_EQ(t.l.restarts, 0);
	/* Just short of it: the backoff starts again from its base. */
	d = fail_and_restart(t, now += IPC_RESTART_SETTLE_MS - 1, &r);
	EXPECT_GE(d, IPC_RESTART_BASE_MS / 2);
	EXPECT_LE(d, IPC_RESTART_BASE_MS);
}

TEST(link_restart, down_interface_has_nothing_to_restart)
{
	Link t;
	struct ipc_rng r;
	uint32_t delay = 1;

	ipc_rng_seed(&r, 1);
	EXPECT_EQ(lk_failed(&t.l, 100, &r, &delay), 0u);
	EXPECT_EQ(delay, 0u);
	EXPECT_EQ(t.l.failed, 0);
	/* Failed, then stopped by the administrator: opened afresh. */
	t.up();
	EXPECT_EQ(lk_failed(&t.l, 200, &r, &delay), OFF);
	EXPECT_EQ(lk_stop(&t.l), OFF | LEAVE);
	EXPECT_EQ(lk_open(&t.l), JOIN);
	EXPECT_EQ(lk_bcast_done(&t.l, 0), ON);
}

TEST(bsearch, creates_link_local_once_when_allowed)
{
	struct ipc_bsearch s;

	ipc_bsearch_start(&s);
	for (int i = 0; i < 3; i++)
		EXPECT_EQ(ipc_bsearch_missing(&s, 1), IPC_BSEARCH_TRY);
	EXPECT_EQ(ipc_bsearch_missing(&s, 1), IPC_BSEARCH_CREATE);
	EXPECT_EQ(s.scope, IPC_SCOPE_LINK); /* s4.1: 0x2 RECOMMENDED */
	EXPECT_EQ(s.creating, 1);
	/* The SA refused the creation: wait, then search again. */
	EXPECT_EQ(ipc_bsearch_missing(&s, 1), IPC_BSEARCH_WAIT);
	EXPECT_EQ(s.scope, IPC_SCOPE_LINK);
	EXPECT_EQ(s.creating, 0);
	EXPECT_EQ(ipc_bsearch_missing(&s, 1), IPC_BSEARCH_TRY);
	EXPECT_EQ(s.scope, 0x5);
}

TEST(bsearch, an_unknown_scope_restarts_at_link_local)
{
	struct ipc_bsearch s;

	ipc_bsearch_start(&s);
	s.scope = 0x3;
	EXPECT_EQ(ipc_bsearch_missing(&s, 0), IPC_BSEARCH_WAIT);
	EXPECT_EQ(s.scope, IPC_SCOPE_LINK);
}

/* Events that came together: each taken in order, the actions merged. */
TEST(link, events_together_merge_their_actions)
{
	Link t;
	struct ipc_result r;

	t.up();
	ipc_link_events(&t.l, 1u << IPC_EV_SM_CHANGE | 1u << IPC_EV_GID_CHANGE,
			&r);
	EXPECT_EQ(r.actions, PATHS | REJOIN | GID);
	/*
	 * PORT_ACTIVE and PORT_ERR in one batch, taken in event order: the
	 * port ends inactive, so the join the first asked for is not made
	 * (the shim reads the port's state next, which joins if it is up).
	 */
	ipc_link_events(&t.l, 1u << IPC_EV_PORT_ERR | 1u << IPC_EV_PORT_ACTIVE,
			&r);
	EXPECT_EQ(r.actions, OFF | LEAVE);
	EXPECT_EQ(lk_port_state(&t.l, 1, 1), JOIN);
	EXPECT_EQ(lk_bcast_done(&t.l, 0), ON);
	/* No event: nothing. */
	ipc_link_events(&t.l, 0, &r);
	EXPECT_EQ(r.actions, 0u);
}

} // namespace

/* What a join that creates the broadcast group asks for (s4.1). */
TEST(bsearch, create_params)
{
	struct ipc_bcast_create p;

	ipc_bsearch_create_params(4096, &p);
	EXPECT_EQ(p.qkey, 0x80000b1bu);
	EXPECT_TRUE(p.qkey & 0x80000000u); /* controlled */
	EXPECT_EQ(p.mtu_bytes, 2048u);
	EXPECT_EQ(p.sl, 0);
	ipc_bsearch_create_params(1024, &p);
	EXPECT_EQ(p.mtu_bytes, 1024u);
}

/* The reason the administrator sees (netlink): the first that holds. */
TEST(link, why_names_the_first_reason_that_holds)
{
	Link t;
	struct ipc_rng r;
	uint32_t delay;

	ipc_rng_seed(&r, 1);
	EXPECT_EQ(ipc_link_why(&t.l), IPC_LINK_WHY_ADMIN_DOWN);
	lk_port_state(&t.l, 0, 0);
	lk_open(&t.l);
	EXPECT_EQ(ipc_link_why(&t.l), IPC_LINK_WHY_PORT_DOWN);
	lk_port_state(&t.l, 1, 0);
	EXPECT_EQ(ipc_link_why(&t.l), IPC_LINK_WHY_NO_PKEY);
	lk_port_state(&t.l, 1, 1);
	EXPECT_EQ(ipc_link_why(&t.l), IPC_LINK_WHY_BCAST_JOINING);
	lk_bcast_done(&t.l, -IPC_ETIMEDOUT);
	EXPECT_EQ(ipc_link_why(&t.l), IPC_LINK_WHY_BCAST_FAILED);
	EXPECT_EQ(lk_bcast_done(&t.l, 0), ON);
	EXPECT_EQ(ipc_link_why(&t.l), IPC_LINK_WHY_UP);
	/* A failed datapath comes before the port: it is why, until stop. */
	lk_failed(&t.l, 5000, &r, &delay);
	lk_port_state(&t.l, 0, 1);
	EXPECT_EQ(ipc_link_why(&t.l), IPC_LINK_WHY_DATAPATH_FAILED);
	/* Down by the administrator comes first of all. */
	lk_stop(&t.l);
	EXPECT_EQ(ipc_link_why(&t.l), IPC_LINK_WHY_ADMIN_DOWN);
}
