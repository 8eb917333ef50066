// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The multicast machine (mc.cpp): every (state, event) pair. States: IDLE,
 * JOINING, JOINED (full / send-only), BACKOFF, MISSING, LEAVING, HELD.
 * Events: subscribe, unsubscribe, tx, join_done (0, -ENOENT, -ENOBCAST,
 * other), timer before and at the deadline, flush, bcast_joined, destroy.
 */
#include "machine_test.hpp"

using namespace ct;

namespace
{

constexpr uint64_t T0 = 5000000;
constexpr uint8_t SCOPE_SITE = 5;

struct Mc : McT {
	using McT::McT;
	void joining_full()
	{
		sub(T0);
		ASSERT_EQ(state(), IPC_MC_JOINING);
	}
	void joined_full()
	{
		joining_full();
		done(T0 + 10, 0);
		ASSERT_EQ(state(), IPC_MC_JOINED);
	}
	void joining_sendonly()
	{
		tx(T0);
		ASSERT_EQ(state(), IPC_MC_JOINING);
	}
	void joined_sendonly()
	{
		joining_sendonly();
		done(T0 + 10, 0);
		ASSERT_EQ(state(), IPC_MC_JOINED);
		ASSERT_EQ(m.joined, IPC_JOIN_SENDONLY);
	}
	void backoff()
	{
		joining_full();
		done(T0 + 10, -IPC_ETIMEDOUT);
		ASSERT_EQ(state(), IPC_MC_BACKOFF);
	}
	void missing(int routers = 0)
	{
		joining_sendonly();
		done(T0 + 10, -IPC_ENOENT, routers);
		ASSERT_EQ(state(), IPC_MC_MISSING);
	}
	void leaving()
	{
		joining_full();
		unsub(T0 + 5);
		ASSERT_EQ(state(), IPC_MC_LEAVING);
	}
	void held()
	{
		joining_full();
		done(T0 + 1, -IPC_ENOBCAST);
		ASSERT_EQ(state(), IPC_MC_HELD);
	}
};

TEST(mc, defaults_and_names)
{
	Mc t;
	EXPECT_GT(t.c.queue_max, 0);
	EXPECT_GT(t.c.join_timeout_ms, 0u);
	EXPECT_GT(t.c.missing_ttl_ms, 0u);
	EXPECT_GT(t.c.sendonly_idle_ms, 0u);
	EXPECT_LE(t.c.backoff.base_ms, t.c.backoff.cap_ms);
	EXPECT_GT(t.c.evict_idle_ms, 0u);
	EXPECT_LT(t.c.evict_idle_ms, t.c.sendonly_idle_ms);
	EXPECT_EQ(t.state(), IPC_MC_IDLE);
	EXPECT_EQ(t.m.scope, IPC_SCOPE_LINK);
	const char *names[] = { "idle",	   "joining", "joined", "backoff",
				"missing", "leaving", "held" };
	for (int s = 0; s < IPC_MC_STATE_COUNT; s++)
		EXPECT_STREQ(mc_state_name(static_cast<uint8_t>(s)), names[s]);
	EXPECT_STREQ(mc_state_name(IPC_MC_STATE_COUNT), "unknown");
	EXPECT_STREQ(mc_state_name(0xff), "unknown");
	Mc wide(0x1e);
	EXPECT_EQ(wide.m.scope, 0xe);
}

/* ---- IDLE ------------------------------------------------------------- */

TEST(mc_idle, subscribe_full_joins)
{
	Mc t;
	auto &r = t.sub(T0);
	EXPECT_ACTS(r, IPC_ACT_JOIN);
	EXPECT_EQ(r.join_type, IPC_JOIN_FULL);
	EXPECT_EQ(t.m.pending, IPC_JOIN_FULL);
	EXPECT_EQ(r.deadline_ms, T0 + t.c.join_timeout_ms);
}

TEST(mc_idle, subscribe_non_joins_non_rfc4391_s11)
{
	Mc t;
	auto &r = t.sub(T0, IPC_JOIN_NON);
	EXPECT_ACTS(r, IPC_ACT_JOIN);
	EXPECT_EQ(r.join_type, IPC_JOIN_NON);
	EXPECT_ACTS(t.done(T0 + 1, 0), IPC_ACT_ATTACH);
}

TEST(mc_idle, subscribe_bad_type_is_a_no_op)
{
	Mc t;
	for (int type : { 0, int(IPC_JOIN_SENDONLY), 3, 8, -1 })
		EXPECT_ACTS(t.sub(T0, type), 0);
	EXPECT_EQ(t.state(), IPC_MC_IDLE);
	t.joined_full();
	EXPECT_ACTS(t.unsub(T0, IPC_JOIN_SENDONLY), 0);
	EXPECT_EQ(t.state(), IPC_MC_JOINED);
}

TEST(mc_idle, tx_sendonly_joins_and_queues_rfc4391_s10)
{
	Mc t;
	auto &r = t.tx(T0);
	EXPECT_ACTS(r, IPC_ACT_JOIN | IPC_ACT_QUEUE);
	EXPECT_EQ(r.join_type, IPC_JOIN_SENDONLY);
	EXPECT_EQ(t.m.queued, 1);
	EXPECT_EQ(t.m.last_tx_ms, T0);
}

TEST(mc_idle, unsubscribe_frees)
{
	Mc t;
	EXPECT_ACTS(t.unsub(T0), IPC_ACT_FREE);
}

TEST(mc_idle, join_done_timer_flush_destroy)
{
	Mc t;
	EXPECT_ACTS(t.done(T0, 0), 0); /* no join outstanding */
	EXPECT_EQ(t.state(), IPC_MC_IDLE);
	EXPECT_ACTS(t.timer(T0), 0);
	EXPECT_EQ(t.r.deadline_ms, IPC_NO_DEADLINE);
	EXPECT_ACTS(t.flush(T0, 1000), 0);
	EXPECT_EQ(t.state(), IPC_MC_IDLE);
	EXPECT_ACTS(t.destroy(), IPC_ACT_FREE);
}

/* ---- JOINING ---------------------------------------------------------- */

TEST(mc_joining, tx_queues_then_drops_oldest)
{
	Mc t;
	t.c.queue_max = 2;
	t.joining_full();
	EXPECT_ACTS(t.tx(T0 + 1), IPC_ACT_QUEUE);
	EXPECT_ACTS(t.tx(T0 + 2), IPC_ACT_QUEUE);
	auto &r = t.tx(T0 + 3);
	EXPECT_ACTS(r, IPC_ACT_DROP_OLDEST | IPC_ACT_QUEUE);
	EXPECT_EQ(r.reason, IPC_R_QUEUE_FULL);
	EXPECT_EQ(t.m.queued, 2);
}

TEST(mc_joining, zero_queue_drops)
{
	Mc t;
	t.c.queue_max = 0;
	auto &r = t.tx(T0);
	EXPECT_ACTS(r, IPC_ACT_JOIN | IPC_ACT_DROP);
	EXPECT_EQ(r.reason, IPC_R_QUEUE_FULL);
}

TEST(mc_joining, join_ok_attaches_and_flushes)
{
	Mc t;
	t.joining_full();
	t.tx(T0 + 1);
	auto &r = t.done(T0 + 10, 0);
	EXPECT_ACTS(r, IPC_ACT_ATTACH | IPC_ACT_FLUSH_QUEUE);
	EXPECT_EQ(t.m.joined, IPC_JOIN_FULL);
	EXPECT_EQ(t.m.pending, IPC_JOIN_NONE);
	EXPECT_EQ(t.m.queued, 0);
	EXPECT_EQ(r.deadline_ms, IPC_NO_DEADLINE);
}

TEST(mc_joining, sendonly_join_ok_does_not_attach)
{
	Mc t;
	t.joining_sendonly();
	auto &r = t.done(T0 + 10, 0);
	EXPECT_ACTS(r, IPC_ACT_FLUSH_QUEUE);
	EXPECT_EQ(r.deadline_ms, T0 + t.c.sendonly_idle_ms);
}

TEST(mc_joining, join_error_backs_off_logs_once_purges)
{
	Mc t;
	t.joining_sendonly();
	auto &r = t.done(T0 + 10, -IPC_EINVAL);
	EXPECT_ACTS(r, IPC_ACT_PURGE_QUEUE | IPC_ACT_LOG);
	EXPECT_EQ(r.reason, IPC_R_NO_ROUTE);
	EXPECT_EQ(t.state(), IPC_MC_BACKOFF);
	EXPECT_EQ(t.m.last_status, -IPC_EINVAL);
	EXPECT_GE(r.deadline_ms, T0 + 10 + t.c.backoff.base_ms / 2);
	EXPECT_LE(r.deadline_ms, T0 + 10 + t.c.backoff.base_ms);
	/* The retry fails again: no second log line. */
	t.timer(r.deadline_ms);
	ASSERT_EQ(t.state(), IPC_MC_JOINING);
	EXPECT_ACTS(t.done(r.deadline_ms + 1, -IPC_EINVAL), 0);
}

TEST(mc_joining, enoent_for_full_join_is_an_ordinary_error)
{
	Mc t;
	t.joining_full();
	EXPECT_ACTS(t.done(T0 + 1, -IPC_ENOENT), IPC_ACT_LOG);
	EXPECT_EQ(t.state(), IPC_MC_BACKOFF);
}

TEST(mc_joining, enoent_sendonly_link_scope_purges_not_joined)
{
	Mc t; /* scope 2: s10 routes only scope > link-local */
	t.joining_sendonly();
	auto &r = t.done(T0 + 10, -IPC_ENOENT, 1);
	EXPECT_ACTS(r, IPC_ACT_PURGE_QUEUE);
	EXPECT_EQ(r.reason, IPC_R_NOT_JOINED);
	EXPECT_EQ(t.state(), IPC_MC_MISSING);
	EXPECT_EQ(r.deadline_ms, T0 + 10 + t.c.missing_ttl_ms);
}

TEST(mc_joining, enoent_sendonly_wide_scope_goes_to_routers_rfc4391_s10)
{
	Mc t(SCOPE_SITE);
	t.joining_sendonly();
	t.tx(T0 + 1);
	auto &r = t.done(T0 + 10, -IPC_ENOENT, 1);
	EXPECT_ACTS(r, IPC_ACT_TO_ROUTERS);
	EXPECT_EQ(t.m.queued, 0);
	EXPECT_EQ(t.state(), IPC_MC_MISSING);
}

TEST(mc_joining, enoent_sendonly_wide_scope_without_routers_drops)
{
	Mc t(SCOPE_SITE);
	t.joining_sendonly();
	EXPECT_ACTS(t.done(T0 + 10, -IPC_ENOENT, 0), IPC_ACT_PURGE_QUEUE);
	EXPECT_EQ(t.r.reason, IPC_R_NOT_JOINED);
}

/*
 * The stack subscribed FullMember while a send-only join was out, and the
 * SA refused that join (no group yet): the FullMember join creates the
 * group, at once, the frame waiting for it. Before, the absence was
 * cached with the stack's want inside, and freed with it at expiry.
 */
TEST(mc_joining, enoent_sendonly_after_full_subscribe_joins_full)
{
	Mc t;
	t.joining_sendonly();
	t.sub(T0 + 1);
	auto &r = t.done(T0 + 3, -IPC_ENOENT);
	EXPECT_ACTS(r, IPC_ACT_JOIN);
	EXPECT_EQ(r.join_type, IPC_JOIN_FULL);
	EXPECT_EQ(t.state(), IPC_MC_JOINING);
	EXPECT_EQ(t.m.queued, 1);
	EXPECT_ACTS(t.done(T0 + 4, 0), IPC_ACT_ATTACH | IPC_ACT_FLUSH_QUEUE);
	EXPECT_EQ(t.m.joined, IPC_JOIN_FULL);
}

TEST(mc_joining, subscribe_during_sendonly_join_swaps_on_completion)
{
	Mc t;
	t.joining_sendonly();
	EXPECT_ACTS(t.sub(T0 + 1), 0); /* recorded; the join is running */
	EXPECT_EQ(t.m.want, IPC_JOIN_FULL);
	auto &r = t.done(T0 + 10, 0);
	EXPECT_ACTS(r, IPC_ACT_LEAVE | IPC_ACT_JOIN);
	EXPECT_EQ(r.join_type, IPC_JOIN_FULL);
	EXPECT_EQ(t.state(), IPC_MC_JOINING);
	EXPECT_EQ(t.m.queued, 1); /* waits for the full join */
	EXPECT_ACTS(t.done(T0 + 20, 0), IPC_ACT_ATTACH | IPC_ACT_FLUSH_QUEUE);
	EXPECT_EQ(t.m.joined, IPC_JOIN_FULL);
}

TEST(mc_joining, unsubscribe_to_nothing_goes_leaving)
{
	Mc t;
	t.joining_full();
	t.tx(T0 + 1);
	auto &r = t.unsub(T0 + 2);
	EXPECT_ACTS(r, IPC_ACT_PURGE_QUEUE);
	EXPECT_EQ(r.reason, IPC_R_NOT_JOINED);
	EXPECT_EQ(t.state(), IPC_MC_LEAVING);
	EXPECT_EQ(r.deadline_ms, T0 + t.c.join_timeout_ms);
}

TEST(mc_joining, unsubscribe_one_of_two_keeps_joining)
{
	Mc t;
	t.joining_full();
	t.sub(T0 + 1, IPC_JOIN_NON);
	EXPECT_ACTS(t.unsub(T0 + 2, IPC_JOIN_FULL), 0);
	EXPECT_EQ(t.state(), IPC_MC_JOINING);
	/* The FULL join completes but NON is what is wanted now. */
	auto &r = t.done(T0 + 3, 0);
	EXPECT_ACTS(r, IPC_ACT_LEAVE | IPC_ACT_JOIN);
	EXPECT_EQ(r.join_type, IPC_JOIN_NON);
}

TEST(mc_joining, timer_early_then_timeout)
{
	Mc t;
	t.joining_full();
	EXPECT_ACTS(t.timer(T0 + t.c.join_timeout_ms - 1), 0);
	auto &r = t.timer(T0 + t.c.join_timeout_ms);
	EXPECT_ACTS(r, IPC_ACT_LEAVE | IPC_ACT_LOG);
	EXPECT_EQ(t.state(), IPC_MC_BACKOFF);
	EXPECT_EQ(t.m.last_status, -IPC_ETIMEDOUT);
}

TEST(mc_joining, flush_cancels_and_rejoins_within_spread)
{
	Mc t;
	t.joining_sendonly();
	auto &r = t.flush(T0 + 1, 3000);
	EXPECT_ACTS(r, IPC_ACT_LEAVE);
	EXPECT_EQ(t.state(), IPC_MC_BACKOFF);
	EXPECT_EQ(t.m.queued, 1); /* kept for the rejoin */
	EXPECT_GE(r.deadline_ms, T0 + 1);
	EXPECT_LT(r.deadline_ms, T0 + 1 + 3000);
	EXPECT_ACTS(t.timer(r.deadline_ms), IPC_ACT_JOIN);
	EXPECT_EQ(t.r.join_type, IPC_JOIN_SENDONLY);
}

TEST(mc_joining, destroy_cancels_and_purges)
{
	Mc t;
	t.joining_sendonly();
	auto &r = t.destroy();
	EXPECT_ACTS(r, IPC_ACT_LEAVE | IPC_ACT_PURGE_QUEUE | IPC_ACT_FREE);
	EXPECT_EQ(r.reason, IPC_R_LINK_DOWN);
}

/* ---- JOINED ----------------------------------------------------------- */

TEST(mc_joined, tx_sends_any_type)
{
	Mc a, b;
	a.joined_full();
	EXPECT_ACTS(a.tx(T0 + 20), IPC_ACT_SEND);
	b.joined_sendonly();
	EXPECT_ACTS(b.tx(T0 + 20), IPC_ACT_SEND);
	Mc n;
	n.sub(T0, IPC_JOIN_NON);
	n.done(T0 + 1, 0);
	EXPECT_ACTS(n.tx(T0 + 2), IPC_ACT_SEND);
}

TEST(mc_joined, subscribe_same_or_weaker_is_a_no_op)
{
	Mc t;
	t.joined_full();
	EXPECT_ACTS(t.sub(T0 + 20), 0);
	EXPECT_ACTS(t.sub(T0 + 21, IPC_JOIN_NON), 0); /* FULL covers it */
	EXPECT_EQ(t.state(), IPC_MC_JOINED);
}

TEST(mc_joined, full_subscribe_upgrades_sendonly)
{
	Mc t;
	t.joined_sendonly();
	auto &r = t.sub(T0 + 20);
	EXPECT_ACTS(r, IPC_ACT_LEAVE |
			       IPC_ACT_JOIN); /* no DETACH: never attached */
	EXPECT_EQ(r.join_type, IPC_JOIN_FULL);
	EXPECT_EQ(t.state(), IPC_MC_JOINING);
	EXPECT_EQ(t.m.joined, IPC_JOIN_NONE);
	EXPECT_EQ(t.m.want, IPC_JOIN_FULL);
}

TEST(mc_joined, full_subscribe_upgrades_non)
{
	Mc t;
	t.sub(T0, IPC_JOIN_NON);
	t.done(T0 + 1, 0);
	auto &r = t.sub(T0 + 2, IPC_JOIN_FULL);
	EXPECT_ACTS(r, IPC_ACT_DETACH | IPC_ACT_LEAVE | IPC_ACT_JOIN);
	EXPECT_EQ(r.join_type, IPC_JOIN_FULL);
}

TEST(mc_joined, unsubscribe_leaves_detaches_frees)
{
	Mc t;
	t.joined_full();
	auto &r = t.unsub(T0 + 20);
	EXPECT_ACTS(r, IPC_ACT_DETACH | IPC_ACT_LEAVE | IPC_ACT_FREE);
	EXPECT_EQ(t.state(), IPC_MC_IDLE);
}

TEST(mc_joined, unsubscribe_other_type_keeps_membership)
{
	Mc t;
	t.joined_sendonly();
	EXPECT_ACTS(t.unsub(T0 + 20, IPC_JOIN_FULL), 0);
	EXPECT_EQ(t.state(), IPC_MC_JOINED);
}

TEST(mc_joined, late_or_reset_join_done_ignored)
{
	Mc t;
	t.joined_full();
	EXPECT_ACTS(t.done(T0 + 20, -IPC_ENETRESET), 0);
	EXPECT_ACTS(t.done(T0 + 20, 0), 0);
	EXPECT_EQ(t.state(), IPC_MC_JOINED);
	EXPECT_EQ(t.m.joined, IPC_JOIN_FULL);
}

TEST(mc_joined, full_membership_has_no_timer)
{
	Mc t;
	t.joined_full();
	EXPECT_ACTS(t.timer(T0 + 100000000), 0);
	EXPECT_EQ(t.r.deadline_ms, IPC_NO_DEADLINE);
}

TEST(mc_joined, sendonly_expires_when_idle)
{
	Mc t;
	t.joined_sendonly();
	uint64_t d = t.m.deadline_ms;
	ASSERT_EQ(d, T0 + t.c.sendonly_idle_ms);
	t.tx(T0 + 1000); /* does not move the armed deadline */
	EXPECT_EQ(t.r.deadline_ms, d);
	auto &r1 = t.timer(d);
	EXPECT_ACTS(r1, 0);
	EXPECT_EQ(r1.deadline_ms, T0 + 1000 + t.c.sendonly_idle_ms);
	auto &r2 = t.timer(r1.deadline_ms);
	EXPECT_ACTS(r2, IPC_ACT_LEAVE | IPC_ACT_FREE);
	EXPECT_EQ(t.state(), IPC_MC_IDLE);
}

TEST(mc_joined, flush_detaches_leaves_rejoins_within_spread)
{
	Mc t;
	t.joined_full();
	auto &r = t.flush(T0 + 100, 5000);
	EXPECT_ACTS(r, IPC_ACT_DETACH | IPC_ACT_LEAVE);
	EXPECT_EQ(t.state(), IPC_MC_BACKOFF);
	EXPECT_EQ(t.m.joined, IPC_JOIN_NONE);
	EXPECT_GE(r.deadline_ms, T0 + 100);
	EXPECT_LT(r.deadline_ms, T0 + 100 + 5000);
	/* Packets wait for the rejoin. */
	EXPECT_ACTS(t.tx(T0 + 101), IPC_ACT_QUEUE);
	EXPECT_ACTS(t.timer(r.deadline_ms), IPC_ACT_JOIN);
	EXPECT_EQ(t.r.join_type, IPC_JOIN_FULL);
	EXPECT_EQ(t.m.attempts, 1);
	EXPECT_ACTS(t.done(t.m.deadline_ms - 1, 0),
		    IPC_ACT_ATTACH | IPC_ACT_FLUSH_QUEUE);
}

TEST(mc_joined, flush_without_spread_is_immediate)
{
	Mc t;
	t.joined_full();
	EXPECT_EQ(t.flush(T0 + 100, 0).deadline_ms, T0 + 100);
}

TEST(mc_joined, flush_spread_is_uniform)
{
	/* 2000 groups flushed together land evenly over the window. */
	int buckets[10] = {};
	for (int i = 0; i < 2000; i++) {
		Mc t;
		ipc_rng_seed(&t.rng, i);
		t.joined_full();
		uint64_t d = t.flush(T0, 10000).deadline_ms - T0;
		ASSERT_LT(d, 10000u);
		buckets[d / 1000]++;
	}
	for (int n : buckets) {
		EXPECT_GT(n, 140);
		EXPECT_LT(n, 260);
	}
}

TEST(mc_joined, flush_frees_sendonly)
{
	Mc t;
	t.joined_sendonly();
	EXPECT_ACTS(t.flush(T0 + 100, 5000), IPC_ACT_LEAVE | IPC_ACT_FREE);
}

TEST(mc_joined, destroy)
{
	Mc a, b;
	a.joined_full();
	EXPECT_ACTS(a.destroy(), IPC_ACT_DETACH | IPC_ACT_LEAVE | IPC_ACT_FREE);
	b.joined_sendonly();
	EXPECT_ACTS(b.destroy(), IPC_ACT_LEAVE | IPC_ACT_FREE);
}

/* ---- BACKOFF ---------------------------------------------------------- */

TEST(mc_backoff, tx_queues)
{
	Mc t;
	t.backoff();
	EXPECT_ACTS(t.tx(T0 + 20), IPC_ACT_QUEUE);
}

TEST(mc_backoff, subscribe_keeps_the_pace)
{
	Mc t;
	t.backoff();
	uint64_t d = t.m.deadline_ms;
	EXPECT_ACTS(t.sub(T0 + 20, IPC_JOIN_NON), 0);
	EXPECT_EQ(t.r.deadline_ms, d);
	EXPECT_EQ(t.state(), IPC_MC_BACKOFF);
}

TEST(mc_backoff, unsubscribe_frees_and_purges)
{
	Mc t;
	t.backoff();
	t.tx(T0 + 20);
	auto &r = t.unsub(T0 + 21);
	EXPECT_ACTS(r, IPC_ACT_PURGE_QUEUE | IPC_ACT_FREE);
	EXPECT_EQ(r.reason, IPC_R_NOT_JOINED);
}

TEST(mc_backoff, unsubscribe_one_of_two_stays)
{
	Mc t;
	t.backoff();
	t.sub(T0 + 20, IPC_JOIN_NON);
	EXPECT_ACTS(t.unsub(T0 + 21, IPC_JOIN_FULL), 0);
	EXPECT_EQ(t.state(), IPC_MC_BACKOFF);
	EXPECT_ACTS(t.timer(t.m.deadline_ms), IPC_ACT_JOIN);
	EXPECT_EQ(t.r.join_type, IPC_JOIN_NON);
}

TEST(mc_backoff, late_join_done_ignored)
{
	Mc t;
	t.backoff();
	EXPECT_ACTS(t.done(T0 + 20, 0), 0);
	EXPECT_EQ(t.state(), IPC_MC_BACKOFF);
}

TEST(mc_backoff, timer_retries_with_growing_jittered_delay)
{
	Mc t;
	t.backoff();
	EXPECT_ACTS(t.timer(t.m.deadline_ms - 1), 0);
	for (uint32_t attempt = 2; attempt <= 6; attempt++) {
		uint64_t now = t.m.deadline_ms;
		EXPECT_ACTS(t.timer(now), IPC_ACT_JOIN);
		EXPECT_EQ(t.m.attempts, attempt);
		auto &r = t.done(now + 1, -IPC_ETIMEDOUT);
		uint64_t d = ipc_backoff_ms(&t.c.backoff, attempt, nullptr);
		EXPECT_GE(r.deadline_ms, now + 1 + d / 2);
		EXPECT_LE(r.deadline_ms, now + 1 + d);
	}
}

TEST(mc_backoff, flush_reschedules_within_spread)
{
	Mc t;
	t.backoff();
	t.m.attempts = 5;
	auto &r = t.flush(T0 + 20, 100);
	EXPECT_ACTS(r, 0);
	EXPECT_LT(r.deadline_ms, T0 + 20 + 100);
	EXPECT_EQ(t.m.attempts, 0);
}

TEST(mc_backoff, destroy_purges)
{
	Mc t;
	t.backoff();
	t.tx(T0 + 20);
	auto &r = t.destroy();
	EXPECT_ACTS(r, IPC_ACT_PURGE_QUEUE | IPC_ACT_FREE);
	EXPECT_EQ(r.reason, IPC_R_LINK_DOWN);
}

/* ---- MISSING ---------------------------------------------------------- */

TEST(mc_missing, tx_routes_or_drops_rfc4391_s10)
{
	Mc link;
	link.missing(1);
	auto &r = link.tx(T0 + 20, 1);
	EXPECT_ACTS(r, IPC_ACT_DROP); /* link-local scope: never routed */
	EXPECT_EQ(r.reason, IPC_R_NOT_JOINED);
	Mc site(SCOPE_SITE);
	site.missing(1);
	EXPECT_ACTS(site.tx(T0 + 20, 1), IPC_ACT_TO_ROUTERS);
	EXPECT_ACTS(site.tx(T0 + 21, 0), IPC_ACT_DROP); /* no routers */
	EXPECT_EQ(site.state(), IPC_MC_MISSING);
}

TEST(mc_missing, tx_after_ttl_asks_again)
{
	Mc t;
	t.missing();
	auto &r = t.tx(t.m.deadline_ms);
	EXPECT_ACTS(r, IPC_ACT_JOIN | IPC_ACT_QUEUE);
	EXPECT_EQ(r.join_type, IPC_JOIN_SENDONLY);
	EXPECT_EQ(t.state(), IPC_MC_JOINING);
}

TEST(mc_missing, subscribe_creates_the_group)
{
	Mc t;
	t.missing();
	auto &r = t.sub(T0 + 20);
	EXPECT_ACTS(r, IPC_ACT_JOIN);
	EXPECT_EQ(r.join_type, IPC_JOIN_FULL);
}

TEST(mc_missing, unsubscribe_other_type_stays)
{
	Mc t;
	t.missing();
	EXPECT_ACTS(t.unsub(T0 + 20), 0);
	EXPECT_EQ(t.state(), IPC_MC_MISSING);
}

TEST(mc_missing, join_done_ignored_timer_expires_cache)
{
	Mc t;
	t.missing();
	EXPECT_ACTS(t.done(T0 + 20, 0), 0);
	EXPECT_ACTS(t.timer(t.m.deadline_ms - 1), 0);
	EXPECT_ACTS(t.timer(t.m.deadline_ms), IPC_ACT_FREE);
}

TEST(mc_missing, flush_and_destroy_free)
{
	Mc a, b;
	a.missing();
	EXPECT_ACTS(a.flush(T0 + 20, 1000), IPC_ACT_FREE);
	b.missing();
	EXPECT_ACTS(b.destroy(), IPC_ACT_FREE);
}

/* ---- The SA's notices (RFC 4391 s10) ----------------------------------- */

/*
 * "Senders MUST subscribe to the multicast group create and delete
 * traps": a send-only membership of a group deleted is given up (the
 * group may come back under another MLID) and its absence cached.
 */
TEST(mc_notice, deleted_gives_up_a_sendonly_membership)
{
	Mc t(SCOPE_SITE);
	t.joined_sendonly();
	auto &r = t.notice(T0 + 20, 0);
	EXPECT_ACTS(r, IPC_ACT_LEAVE);
	EXPECT_EQ(t.state(), IPC_MC_MISSING);
	EXPECT_EQ(t.m.joined, IPC_JOIN_NONE);
	EXPECT_EQ(r.deadline_ms, T0 + 20 + t.c.missing_ttl_ms);
	/* The next packet goes to the routers without a query. */
	EXPECT_ACTS(t.tx(T0 + 30, 1), IPC_ACT_TO_ROUTERS);
	/* The group made again: the absence forgotten, the next tx joins. */
	EXPECT_ACTS(t.notice(T0 + 40, 1), IPC_ACT_FREE);
	EXPECT_EQ(t.state(), IPC_MC_IDLE);
	auto &j = t.tx(T0 + 50);
	EXPECT_ACTS(j, IPC_ACT_JOIN | IPC_ACT_QUEUE);
	EXPECT_EQ(j.join_type, IPC_JOIN_SENDONLY);
}

/*
 * A group created while its send-only membership stood: left now, joined
 * again once the leave has gone (an SA client may answer a join from the
 * membership it still holds until then); the frames meanwhile wait.
 */
TEST(mc_notice, created_rejoins_a_sendonly_membership)
{
	Mc t;
	t.joined_sendonly();
	auto &r = t.notice(T0 + 20, 1);
	EXPECT_ACTS(r, IPC_ACT_LEAVE);
	EXPECT_EQ(t.state(), IPC_MC_BACKOFF);
	EXPECT_EQ(r.deadline_ms, T0 + 20 + t.c.backoff.base_ms);
	EXPECT_ACTS(t.tx(T0 + 21), IPC_ACT_QUEUE);
	EXPECT_ACTS(t.timer(T0 + 20 + t.c.backoff.base_ms - 1), 0);
	auto &j = t.timer(T0 + 20 + t.c.backoff.base_ms);
	EXPECT_ACTS(j, IPC_ACT_JOIN);
	EXPECT_EQ(j.join_type, IPC_JOIN_SENDONLY);
	EXPECT_ACTS(t.done(T0 + 2000, 0), IPC_ACT_FLUSH_QUEUE);
	EXPECT_EQ(t.state(), IPC_MC_JOINED);
}

/* A join answered before a deletion the SA announced first: given up. */
TEST(mc_notice, sendonly_join_answered_before_a_deletion)
{
	Mc t(SCOPE_SITE);
	t.joining_sendonly();
	EXPECT_ACTS(t.notice(T0 + 5, 0), 0);
	EXPECT_EQ(t.state(), IPC_MC_JOINING);
	auto &r = t.done(T0 + 10, 0, 1);
	/* The queued packet goes to the routers, the handle is left. */
	EXPECT_ACTS(r, IPC_ACT_LEAVE | IPC_ACT_TO_ROUTERS);
	EXPECT_EQ(t.state(), IPC_MC_MISSING);
	EXPECT_EQ(t.m.queued, 0);
}

/* A join refused before a creation the SA announced first: again. */
TEST(mc_notice, sendonly_join_refused_before_a_creation)
{
	Mc t;
	t.joining_sendonly();
	t.notice(T0 + 5, 1);
	auto &r = t.done(T0 + 10, -IPC_ENOENT);
	EXPECT_ACTS(r, IPC_ACT_JOIN);
	EXPECT_EQ(r.join_type, IPC_JOIN_SENDONLY);
	EXPECT_EQ(t.state(), IPC_MC_JOINING);
	EXPECT_EQ(t.m.queued, 1); /* still waiting for it */
	/* The notice counts once: a second refusal is an absence. */
	EXPECT_ACTS(t.done(T0 + 20, -IPC_ENOENT), IPC_ACT_PURGE_QUEUE);
	EXPECT_EQ(t.state(), IPC_MC_MISSING);
}

/* The last notice during a join decides; a new join forgets it. */
TEST(mc_notice, the_last_notice_of_a_join_counts)
{
	Mc a;
	a.joining_sendonly();
	a.notice(T0 + 1, 0);
	a.notice(T0 + 2, 1); /* deleted, then made again */
	EXPECT_ACTS(a.done(T0 + 10, 0), IPC_ACT_FLUSH_QUEUE);
	EXPECT_EQ(a.state(), IPC_MC_JOINED);
	Mc b;
	b.joining_sendonly();
	b.notice(T0 + 1, 0);
	b.done(T0 + 2, -IPC_ETIMEDOUT);
	ASSERT_EQ(b.state(), IPC_MC_BACKOFF);
	b.timer(b.m.deadline_ms);
	ASSERT_EQ(b.state(), IPC_MC_JOINING);
	EXPECT_EQ(b.m.noticed, 0);
	EXPECT_ACTS(b.done(b.m.deadline_ms - 1, 0), 0);
	EXPECT_EQ(b.state(), IPC_MC_JOINED);
}

/* The same, whatever the SA announced during the send-only join. */
TEST(mc_notice, a_full_subscription_during_a_sendonly_join_wins)
{
	for (int notice : { 0, 1 }) {
		Mc t;
		t.joining_sendonly();
		t.sub(T0 + 1);
		t.notice(T0 + 2, notice);
		auto &r = t.done(T0 + 3, -IPC_ENOENT);
		EXPECT_ACTS(r, IPC_ACT_JOIN) << notice;
		EXPECT_EQ(r.join_type, IPC_JOIN_FULL) << notice;
		EXPECT_EQ(t.state(), IPC_MC_JOINING) << notice;
		EXPECT_EQ(t.m.queued, 1) << notice;
		EXPECT_ACTS(t.done(T0 + 4, 0),
			    IPC_ACT_ATTACH | IPC_ACT_FLUSH_QUEUE)
			<< notice;
		EXPECT_EQ(t.m.joined, IPC_JOIN_FULL);
		/* Joined send-only, after a deletion's notice: swapped. */
		Mc u;
		u.joining_sendonly();
		u.sub(T0 + 1);
		u.notice(T0 + 2, 0);
		auto &ru = u.done(T0 + 3, 0);
		EXPECT_ACTS(ru, IPC_ACT_LEAVE | IPC_ACT_JOIN);
		EXPECT_EQ(ru.join_type, IPC_JOIN_FULL);
	}
}

/* Not a sender's: the stack's and the mode's memberships stay. */
TEST(mc_notice, full_and_non_memberships_stay)
{
	for (int created : { 0, 1 }) {
		Mc full, non;
		full.joined_full();
		EXPECT_ACTS(full.notice(T0 + 20, created), 0);
		EXPECT_EQ(full.state(), IPC_MC_JOINED);
		non.sub(T0, IPC_JOIN_NON);
		non.done(T0 + 1, 0);
		EXPECT_ACTS(non.notice(T0 + 20, created), 0);
		EXPECT_EQ(non.state(), IPC_MC_JOINED);
		/* A full join outstanding is not second-guessed either. */
		Mc j;
		j.joining_full();
		j.notice(T0 + 5, !created);
		EXPECT_EQ(j.m.noticed, 0);
	}
}

/* Nothing held, nothing to follow. */
TEST(mc_notice, other_states_change_nothing)
{
	for (int created : { 0, 1 }) {
		Mc idle, backoff, leaving, held, missing;
		EXPECT_ACTS(idle.notice(T0, created), 0);
		EXPECT_EQ(idle.state(), IPC_MC_IDLE);
		backoff.backoff();
		EXPECT_ACTS(backoff.notice(T0 + 20, created), 0);
		EXPECT_EQ(backoff.state(), IPC_MC_BACKOFF);
		leaving.leaving();
		EXPECT_ACTS(leaving.notice(T0 + 20, created), 0);
		EXPECT_EQ(leaving.state(), IPC_MC_LEAVING);
		held.held();
		EXPECT_ACTS(held.notice(T0 + 20, created), 0);
		EXPECT_EQ(held.state(), IPC_MC_HELD);
		missing.missing();
		if (!created) {
			EXPECT_ACTS(missing.notice(T0 + 20, 0), 0);
			EXPECT_EQ(missing.state(), IPC_MC_MISSING);
		}
	}
}

/* ---- LEAVING ---------------------------------------------------------- */

TEST(mc_leaving, tx_drops)
{
	Mc t;
	t.leaving();
	auto &r = t.tx(T0 + 6);
	EXPECT_ACTS(r, IPC_ACT_DROP);
	EXPECT_EQ(r.reason, IPC_R_NOT_JOINED);
}

TEST(mc_leaving, subscribe_again_resumes_joining)
{
	Mc t;
	t.leaving();
	EXPECT_ACTS(t.sub(T0 + 6), 0);
	EXPECT_EQ(t.state(), IPC_MC_JOINING);
	EXPECT_ACTS(t.done(T0 + 7, 0), IPC_ACT_ATTACH);
}

TEST(mc_leaving, unsubscribe_again_is_a_no_op)
{
	Mc t;
	t.leaving();
	EXPECT_ACTS(t.unsub(T0 + 6), 0);
	EXPECT_EQ(t.state(), IPC_MC_LEAVING);
}

TEST(mc_leaving, late_join_ok_leaves_and_frees)
{
	Mc t;
	t.leaving();
	EXPECT_ACTS(t.done(T0 + 6, 0), IPC_ACT_LEAVE | IPC_ACT_FREE);
	EXPECT_EQ(t.state(), IPC_MC_IDLE);
}

TEST(mc_leaving, late_join_error_frees)
{
	Mc t;
	t.leaving();
	EXPECT_ACTS(t.done(T0 + 6, -IPC_ETIMEDOUT), IPC_ACT_FREE);
}

TEST(mc_leaving, timer_cancels_and_frees)
{
	Mc t;
	t.leaving();
	EXPECT_ACTS(t.timer(T0 + 6), 0);
	EXPECT_ACTS(t.timer(T0 + t.c.join_timeout_ms),
		    IPC_ACT_LEAVE | IPC_ACT_FREE);
}

TEST(mc_leaving, flush_and_destroy)
{
	Mc a, b;
	a.leaving();
	EXPECT_ACTS(a.flush(T0 + 6, 100), IPC_ACT_LEAVE | IPC_ACT_FREE);
	b.leaving();
	EXPECT_ACTS(b.destroy(), IPC_ACT_LEAVE | IPC_ACT_FREE);
}

/* ---- HELD: waiting for the broadcast group ----------------------------- */

TEST(mc_held, eagain_holds_without_log_backoff_or_purge)
{
	Mc t;
	t.joining_full();
	auto &r = t.done(T0 + 1, -IPC_ENOBCAST);
	EXPECT_ACTS(r, 0); /* no LOG, no PURGE, no LEAVE: nothing was sent */
	EXPECT_EQ(t.state(), IPC_MC_HELD);
	EXPECT_EQ(r.deadline_ms, IPC_NO_DEADLINE);
	EXPECT_EQ(t.m.attempts, 0);
	EXPECT_EQ(t.m.pending, IPC_JOIN_NONE);
	EXPECT_EQ(t.m.last_status, -IPC_ENOBCAST);
}

TEST(mc_held, sendonly_keeps_its_packets_until_released)
{
	Mc t;
	t.joining_sendonly();
	EXPECT_ACTS(t.done(T0 + 1, -IPC_ENOBCAST), 0);
	EXPECT_ACTS(t.tx(T0 + 2), IPC_ACT_QUEUE);
	EXPECT_EQ(t.m.queued, 2);
	auto &r = t.bcast_joined(T0 + 3);
	EXPECT_ACTS(r, IPC_ACT_JOIN);
	EXPECT_EQ(r.join_type, IPC_JOIN_SENDONLY);
	EXPECT_EQ(r.deadline_ms, T0 + 3 + t.c.join_timeout_ms);
	EXPECT_ACTS(t.done(T0 + 4, 0), IPC_ACT_FLUSH_QUEUE);
	EXPECT_EQ(t.m.queued, 0);
}

TEST(mc_held, release_joins_the_latest_want)
{
	Mc t;
	t.held();
	EXPECT_ACTS(t.sub(T0 + 2, IPC_JOIN_NON), 0);
	EXPECT_EQ(t.state(), IPC_MC_HELD);
	EXPECT_ACTS(t.unsub(T0 + 3, IPC_JOIN_FULL), 0);
	EXPECT_EQ(t.state(), IPC_MC_HELD);
	auto &r = t.bcast_joined(T0 + 4);
	EXPECT_ACTS(r, IPC_ACT_JOIN);
	EXPECT_EQ(r.join_type, IPC_JOIN_NON);
	EXPECT_EQ(t.m.attempts, 1);
}

TEST(mc_held, unsubscribe_to_nothing_purges_and_frees)
{
	Mc t;
	t.held();
	t.tx(T0 + 2);
	auto &r = t.unsub(T0 + 3);
	EXPECT_ACTS(r, IPC_ACT_PURGE_QUEUE | IPC_ACT_FREE);
	EXPECT_EQ(r.reason, IPC_R_NOT_JOINED);
}

TEST(mc_held, join_done_timer_flush_ignored)
{
	Mc t;
	t.held();
	EXPECT_ACTS(t.done(T0 + 2, 0), 0);
	EXPECT_ACTS(t.timer(T0 + 100000), 0);
	EXPECT_ACTS(t.flush(T0 + 3, 1000), 0);
	EXPECT_EQ(t.state(), IPC_MC_HELD);
	EXPECT_EQ(t.r.deadline_ms, IPC_NO_DEADLINE);
}

TEST(mc_held, an_sa_eagain_is_an_ordinary_failure)
{
	Mc t;
	t.joining_full();
	EXPECT_ACTS(t.done(T0 + 1, -IPC_EAGAIN), IPC_ACT_LOG);
	EXPECT_EQ(t.state(), IPC_MC_BACKOFF);
}

TEST(mc_held, release_is_a_no_op_in_other_states)
{
	Mc t;
	EXPECT_ACTS(t.bcast_joined(T0), 0);
	EXPECT_EQ(t.state(), IPC_MC_IDLE);
	t.joining_full();
	EXPECT_ACTS(t.bcast_joined(T0 + 1), 0);
	EXPECT_EQ(t.state(), IPC_MC_JOINING);
	t.done(T0 + 2, 0);
	EXPECT_ACTS(t.bcast_joined(T0 + 3), 0);
	EXPECT_EQ(t.state(), IPC_MC_JOINED);
}

TEST(mc_held, destroy_purges_link_down)
{
	Mc t;
	t.held();
	t.tx(T0 + 2);
	auto &r = t.destroy();
	EXPECT_ACTS(r, IPC_ACT_PURGE_QUEUE | IPC_ACT_FREE);
	EXPECT_EQ(r.reason, IPC_R_LINK_DOWN);
}

TEST(mc_leaving, eagain_frees_without_leave)
{
	Mc t;
	t.leaving();
	EXPECT_ACTS(t.done(T0 + 6, -IPC_ENOBCAST), IPC_ACT_FREE);
}

/* ---- robustness ------------------------------------------------------- */

TEST(mc, corrupt_state_frees)
{
	for (int ev = 0; ev < 9; ev++) {
		Mc t;
		t.m.state = IPC_MC_STATE_COUNT + 1;
		const ipc_result *r = nullptr;
		switch (ev) {
		case 0:
			r = &t.sub(T0);
			break;
		case 1:
			r = &t.unsub(T0);
			break;
		case 2:
			r = &t.tx(T0);
			break;
		case 3:
			r = &t.done(T0, 0);
			break;
		case 4:
			r = &t.timer(T0);
			break;
		case 5:
			r = &t.flush(T0, 10);
			break;
		case 6:
			r = &t.bcast_joined(T0);
			break;
		case 7:
			r = &t.notice(T0, ev & 1);
			break;
		default:
			r = &t.destroy();
			break;
		}
		EXPECT_ACTS(*r, IPC_ACT_FREE) << ev;
		EXPECT_EQ(t.state(), IPC_MC_IDLE);
	}
}

TEST(mc, free_keeps_scope)
{
	Mc t(SCOPE_SITE);
	t.joined_full();
	t.unsub(T0 + 1);
	EXPECT_EQ(t.m.scope, SCOPE_SITE);
}

/* ---- eviction: may a full table give the group up? ------------------ */

/*
 * What the shim does with an evictable group: ipc_mc_destroy(). Nothing
 * is queued, so nothing is purged; FREE always.
 */
void expect_evict_frees(Mc &t, uint32_t also)
{
	auto &r = t.destroy();
	EXPECT_ACTS(r, also | IPC_ACT_FREE);
	EXPECT_EQ(t.state(), IPC_MC_IDLE);
}

TEST(mc_evict, idle_fresh)
{
	Mc t;
	EXPECT_EQ(t.evictable(T0), 1);
	expect_evict_frees(t, 0);
}

/* What the stack subscribed is the stack's to leave, in every state. */
TEST(mc_evict, stack_full_member_never)
{
	Mc joining, joined, backoff, held;
	joining.joining_full();
	joined.joined_full();
	backoff.backoff();
	held.held();
	for (Mc *t : { &joining, &joined, &backoff, &held }) {
		EXPECT_EQ(t->evictable(T0), 0) << t->state();
		EXPECT_EQ(t->evictable(IPC_NO_DEADLINE - 1), 0) << t->state();
	}
	/* Corrupt state too: FULL wanted wins. */
	joined.m.state = IPC_MC_STATE_COUNT;
	EXPECT_EQ(joined.evictable(T0), 0);
}

TEST(mc_evict, joining_never)
{
	Mc t;
	t.joining_sendonly();
	t.m.queued = 0; /* even with its packet gone */
	EXPECT_EQ(t.evictable(IPC_NO_DEADLINE - 1), 0);
	Mc non;
	non.sub(T0, IPC_JOIN_NON);
	ASSERT_EQ(non.state(), IPC_MC_JOINING);
	EXPECT_EQ(non.evictable(IPC_NO_DEADLINE - 1), 0);
}

TEST(mc_evict, leaving_never)
{
	Mc t;
	t.leaving();
	EXPECT_EQ(t.evictable(IPC_NO_DEADLINE - 1), 0);
}

TEST(mc_evict, sendonly_idle_boundary)
{
	Mc t;
	t.joined_sendonly(); /* last tx at T0 */
	uint64_t e = t.c.evict_idle_ms;
	EXPECT_EQ(t.evictable(T0), 0);
	EXPECT_EQ(t.evictable(T0 + e - 1), 0);
	EXPECT_EQ(t.evictable(T0 + e), 1);
	/* A packet makes it live again; the boundary moves with it. */
	EXPECT_ACTS(t.tx(T0 + 5000), IPC_ACT_SEND);
	EXPECT_EQ(t.evictable(T0 + e), 0);
	EXPECT_EQ(t.evictable(T0 + 5000 + e - 1), 0);
	EXPECT_EQ(t.evictable(T0 + 5000 + e), 1);
	/* Send-only: left, never attached. */
	expect_evict_frees(t, IPC_ACT_LEAVE);
}

/* s11: the all-multicast mode holds a NonMember membership. */
TEST(mc_evict, non_member_joined_never)
{
	Mc t;
	t.sub(T0, IPC_JOIN_NON);
	t.done(T0 + 10, 0);
	ASSERT_EQ(t.state(), IPC_MC_JOINED);
	EXPECT_EQ(t.evictable(IPC_NO_DEADLINE - 1), 0);
}

/* A NonMember group that keeps failing may go (it would retry forever). */
TEST(mc_evict, non_member_backoff_at_once)
{
	Mc t;
	t.sub(T0, IPC_JOIN_NON);
	t.done(T0 + 10, -IPC_ETIMEDOUT);
	ASSERT_EQ(t.state(), IPC_MC_BACKOFF);
	EXPECT_EQ(t.evictable(T0 + 10), 1);
	expect_evict_frees(t, 0);
}

TEST(mc_evict, missing_at_once)
{
	Mc t;
	t.missing();
	ASSERT_EQ(t.m.queued, 0);
	EXPECT_EQ(t.evictable(T0 + 10), 1);
	expect_evict_frees(t, 0);
}

TEST(mc_evict, held_without_packets)
{
	Mc t;
	t.sub(T0, IPC_JOIN_NON);
	t.done(T0 + 1, -IPC_ENOBCAST);
	ASSERT_EQ(t.state(), IPC_MC_HELD);
	EXPECT_EQ(t.evictable(T0 + 1), 1);
	expect_evict_frees(t, 0);
}

/* Whatever the state, a group holding packets stays. */
TEST(mc_evict, queued_never)
{
	for (int s = 0; s <= IPC_MC_STATE_COUNT; s++) {
		Mc t;
		t.m.state = static_cast<uint8_t>(s);
		t.m.joined = IPC_JOIN_SENDONLY;
		t.m.queued = 1;
		EXPECT_EQ(t.evictable(IPC_NO_DEADLINE - 1), 0) << s;
		t.m.queued = 0;
		EXPECT_EQ(t.evictable(IPC_NO_DEADLINE - 1),
			  s == IPC_MC_JOINING || s == IPC_MC_LEAVING ? 0 : 1)
			<< s;
	}
}

/* Asking moves nothing. */
TEST(mc_evict, reads_only)
{
	Mc t;
	t.joined_sendonly();
	struct ipc_mc before = t.m;
	(void)t.evictable(T0 + t.c.evict_idle_ms);
	EXPECT_EQ(memcmp(&before, &t.m, sizeof(before)), 0);
}

} // namespace

/* ---- what the shim may ask (ipc_mc_view, _deadline, _wanted, _missing) -- */

TEST(mc_access, wanted_follows_subscriptions)
{
	Mc t;
	EXPECT_FALSE(ipc_mc_wanted(&t.m, IPC_JOIN_FULL));
	t.joined_full();
	EXPECT_TRUE(ipc_mc_wanted(&t.m, IPC_JOIN_FULL));
	EXPECT_FALSE(ipc_mc_wanted(&t.m, IPC_JOIN_NON));
	EXPECT_TRUE(ipc_mc_wanted(&t.m, IPC_JOIN_FULL | IPC_JOIN_NON));
	t.unsub(T0 + 20);
	EXPECT_FALSE(ipc_mc_wanted(&t.m, IPC_JOIN_FULL));
}

TEST(mc_access, missing_only_when_refused)
{
	Mc t;
	t.missing();
	EXPECT_TRUE(ipc_mc_missing(&t.m));
	Mc j;
	j.joined_sendonly();
	EXPECT_FALSE(ipc_mc_missing(&j.m));
	Mc b;
	b.backoff();
	EXPECT_FALSE(ipc_mc_missing(&b.m));
}

/*
 * tx_joins says what the next frame would do: a send-only join from IDLE
 * and from an expired absence, nothing else; and the next tx agrees.
 */
TEST(mc_access, tx_joins_matches_what_tx_does)
{
	Mc i;
	EXPECT_TRUE(ipc_mc_tx_joins(&i.m, T0));
	i.tx(T0);
	EXPECT_EQ(i.m.pending, IPC_JOIN_SENDONLY);
	EXPECT_FALSE(ipc_mc_tx_joins(&i.m, T0));

	Mc t;
	t.missing();
	uint64_t expiry = t.m.deadline_ms;
	EXPECT_FALSE(ipc_mc_tx_joins(&t.m, expiry - 1));
	EXPECT_TRUE(ipc_mc_tx_joins(&t.m, expiry));
	t.tx(expiry);
	EXPECT_EQ(t.state(), IPC_MC_JOINING);

	Mc j, b, h, l;
	j.joined_full();
	b.backoff();
	h.held();
	l.leaving();
	for (const Mc *o : { &j, &b, &h, &l })
		EXPECT_FALSE(ipc_mc_tx_joins(&o->m, T0 + 100000000));
}

/* A subscription handed over first: the frame waits for a FULL join. */
TEST(mc_access, subscribe_before_tx_joins_full_rfc4391_s10)
{
	Mc t;
	ASSERT_TRUE(ipc_mc_tx_joins(&t.m, T0));
	t.sub(T0);
	t.tx(T0);
	EXPECT_EQ(t.state(), IPC_MC_JOINING);
	EXPECT_EQ(t.m.pending, IPC_JOIN_FULL);
	EXPECT_EQ(t.m.queued, 1);
}

TEST(mc_access, view_and_deadline_copy_the_machine)
{
	Mc t;
	t.backoff();
	struct ipc_view v;
	ipc_mc_view(&t.m, &v);
	EXPECT_STREQ(v.state, "backoff");
	EXPECT_EQ(v.want, t.m.want);
	EXPECT_EQ(v.joined, t.m.joined);
	EXPECT_EQ(v.pending, t.m.pending);
	EXPECT_EQ(v.attempts, t.m.attempts);
	EXPECT_EQ(v.queued, t.m.queued);
	EXPECT_EQ(v.last_status, -IPC_ETIMEDOUT);
	EXPECT_EQ(v.deadline_ms, t.m.deadline_ms);
	EXPECT_EQ(ipc_mc_deadline(&t.m), t.m.deadline_ms);
	EXPECT_NE(v.deadline_ms, IPC_NO_DEADLINE);
}

/* The broadcast search moves on after a miss: no failure, a fresh join. */
TEST(mc_joining, bcast_next_purges_and_joins_full)
{
	Mc t;
	t.joining_full();
	t.tx(T0 + 1); /* a frame waits for the group */
	ASSERT_EQ(t.m.queued, 1);
	struct ipc_result r;
	ipc_mc_bcast_next(&t.m, &t.c, T0 + 20, &r);
	EXPECT_ACTS(r, IPC_ACT_PURGE_QUEUE | IPC_ACT_JOIN);
	EXPECT_EQ(r.reason, IPC_R_NOT_JOINED);
	EXPECT_EQ(r.join_type, IPC_JOIN_FULL);
	EXPECT_EQ(t.state(), IPC_MC_JOINING);
	EXPECT_EQ(t.m.queued, 0);
	EXPECT_EQ(t.m.attempts, 1); /* a first attempt, for the new MGID */
	EXPECT_FALSE(r.actions & IPC_ACT_LOG);
	/* Nothing queued: nothing purged. */
	ipc_mc_bcast_next(&t.m, &t.c, T0 + 30, &r);
	EXPECT_ACTS(r, IPC_ACT_JOIN);
}

/* ---- held and sent (the SA budget) ------------------------------------ */
namespace
{

TEST(mc_budget, joining_held_then_sent)
{
	struct ipc_mc m;
	struct ipc_mc_cfg c;
	struct ipc_result r;
	ipc_mc_cfg_default(&c);
	ipc_mc_init(&m, IPC_SCOPE_LINK);
	ipc_mc_subscribe(&m, &c, IPC_JOIN_FULL, 1000, &r);
	ASSERT_TRUE(r.actions & IPC_ACT_JOIN);
	EXPECT_EQ(ipc_mc_sa_class(&m, 0), IPC_SA_REFRESH);
	EXPECT_EQ(ipc_mc_sa_class(&m, 1), IPC_SA_BCAST);
	ipc_mc_join_held(&m, &r);
	EXPECT_EQ(r.actions, 0u);
	EXPECT_EQ(r.deadline_ms, IPC_NO_DEADLINE);
	ipc_mc_timer(&m, &c, 900000, nullptr, &r);
	EXPECT_EQ(r.actions, 0u); /* no timeout while held */
	ipc_mc_join_sent(&m, &c, 900000, &r);
	EXPECT_EQ(r.deadline_ms, 900000 + c.join_timeout_ms);
	ipc_mc_timer(&m, &c, 900000 + c.join_timeout_ms - 1, nullptr, &r);
	EXPECT_EQ(r.actions, 0u);
	struct ipc_rng rng;
	ipc_rng_seed(&rng, 1);
	ipc_mc_timer(&m, &c, 900000 + c.join_timeout_ms, &rng, &r);
	EXPECT_TRUE(r.actions & IPC_ACT_LEAVE); /* the timeout runs now */
}

TEST(mc_budget, sendonly_with_frames_is_waiting_class)
{
	struct ipc_mc m;
	struct ipc_mc_cfg c;
	struct ipc_result r;
	ipc_mc_cfg_default(&c);
	ipc_mc_init(&m, IPC_SCOPE_LINK);
	ipc_mc_tx(&m, &c, 1000, 0, &r);
	ASSERT_TRUE(r.actions & IPC_ACT_QUEUE);
	EXPECT_EQ(ipc_mc_sa_class(&m, 0), IPC_SA_WAITING);
}

/* Unsubscribed while held: LEAVING waits for the join, sent or not. */
TEST(mc_budget, leaving_held_then_sent)
{
	struct ipc_mc m;
	struct ipc_mc_cfg c;
	struct ipc_result r;
	ipc_mc_cfg_default(&c);
	ipc_mc_init(&m, IPC_SCOPE_LINK);
	ipc_mc_subscribe(&m, &c, IPC_JOIN_FULL, 1000, &r);
	ipc_mc_join_held(&m, &r);
	ipc_mc_unsubscribe(&m, &c, IPC_JOIN_FULL, 2000, &r);
	EXPECT_EQ(r.deadline_ms, IPC_NO_DEADLINE);
	ipc_mc_join_sent(&m, &c, 50000, &r);
	EXPECT_EQ(r.deadline_ms, 50000 + c.join_timeout_ms);
	ipc_mc_join_done(&m, &c, 50010, 0, 0, nullptr, &r);
	EXPECT_TRUE(r.actions & IPC_ACT_FREE);
}

TEST(mc_budget, bcast_flush_spread_at_most_a_second)
{
	EXPECT_EQ(ipc_mc_flush_spread(10000, 1), IPC_BCAST_SPREAD_MS);
	EXPECT_EQ(ipc_mc_flush_spread(500, 1), 500u);
	EXPECT_EQ(ipc_mc_flush_spread(0, 1), 0u);
	EXPECT_EQ(ipc_mc_flush_spread(10000, 0), 10000u);
	EXPECT_EQ(ipc_mc_flush_spread(0, 0), 0u);
}

TEST(mc_budget, held_and_sent_elsewhere_change_nothing)
{
	struct ipc_mc m;
	struct ipc_mc_cfg c;
	struct ipc_result r;
	ipc_mc_cfg_default(&c);
	ipc_mc_init(&m, IPC_SCOPE_LINK);
	ipc_mc_join_held(&m, &r);
	EXPECT_EQ(r.deadline_ms, IPC_NO_DEADLINE);
	ipc_mc_subscribe(&m, &c, IPC_JOIN_FULL, 1000, &r);
	ipc_mc_join_done(&m, &c, 1010, 0, 0, nullptr, &r);
	uint64_t d = m.deadline_ms;
	ipc_mc_join_held(&m, &r);
	EXPECT_EQ(r.deadline_ms, d);
	ipc_mc_join_sent(&m, &c, 99999, &r);
	EXPECT_EQ(r.deadline_ms, d);
	EXPECT_EQ(r.actions, 0u);
}

} // namespace
