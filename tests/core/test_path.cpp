// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The path machine (path.cpp): every (state, event) pair. States: UNKNOWN,
 * RESOLVING, VALID, STALE, DOUBTED, FAILED (retrying: attempts left;
 * exhausted: hold-down). Events: tx, query_done(0), query_done(err: gone
 * or soft), timer before and at the deadline, flush, held and sent (the
 * SA budget), destroy. Then ipc_path_evictable() in every state, at its
 * idle boundary.
 *
 * The fixture draws no revalidation jitter and no flush spread (each
 * case that is about them sets them): the other cases need to know the
 * exact deadline.
 */
#include "machine_test.hpp"

using namespace ct;

namespace
{

constexpr uint64_t T0 = 1000000;

/* Drive a fresh path into a state at time T0 (and report now). */
struct Path : PathT {
	Path()
	{
		c.revalidate_jitter_ms = 0;
		c.flush_spread_ms = 0;
	}
	void resolving()
	{
		tx(T0);
		ASSERT_EQ(state(), IPC_PATH_RESOLVING);
	}
	void valid()
	{
		resolving();
		done(T0 + 10, 0);
		ASSERT_EQ(state(), IPC_PATH_VALID);
	}
	void stale()
	{
		valid();
		timer(T0 + 10 + c.revalidate_ms);
		ASSERT_EQ(state(), IPC_PATH_STALE);
	}
	void doubted()
	{
		stale();
		done(T0 + 60100, -IPC_ETIMEDOUT);
		ASSERT_EQ(state(), IPC_PATH_DOUBTED);
	}
	void failed_retrying()
	{
		resolving();
		done(T0 + 10, -IPC_ETIMEDOUT);
		ASSERT_EQ(state(), IPC_PATH_FAILED);
		ASSERT_LT(p.attempts, c.max_attempts);
	}
	void failed_exhausted()
	{
		c.max_attempts = 1;
		resolving();
		done(T0 + 10, -IPC_EHOSTUNREACH);
		ASSERT_EQ(state(), IPC_PATH_FAILED);
	}
};

TEST(path, defaults_match_header)
{
	Path t;
	EXPECT_EQ(t.c.queue_max, 16);
	EXPECT_EQ(t.c.max_attempts, 3);
	EXPECT_EQ(t.c.query_timeout_ms, 4000u);
	EXPECT_EQ(t.c.revalidate_ms, 60000u);
	EXPECT_GE(t.c.idle_ms, t.c.revalidate_ms);
	EXPECT_EQ(t.c.evict_idle_ms, 10000u);
	EXPECT_LT(t.c.evict_idle_ms, t.c.idle_ms);
	struct ipc_path_cfg d;
	ipc_path_cfg_default(&d);
	EXPECT_EQ(d.revalidate_jitter_ms, 15000u);
	EXPECT_EQ(d.flush_spread_ms, 45000u);
	EXPECT_EQ(d.doubt_backoff.base_ms, 5000u);
	EXPECT_EQ(d.doubt_backoff.cap_ms, 60000u);
	EXPECT_GT(d.doubt_backoff.base_ms, d.backoff.base_ms);
	EXPECT_LT(d.revalidate_jitter_ms, d.revalidate_ms);
	EXPECT_LE(d.flush_spread_ms, d.revalidate_ms);
	EXPECT_GT(t.c.evict_idle_ms, t.c.query_timeout_ms);
	EXPECT_EQ(t.state(), IPC_PATH_UNKNOWN);
	EXPECT_EQ(t.p.deadline_ms, IPC_NO_DEADLINE);
}

TEST(path, state_names)
{
	EXPECT_STREQ(path_state_name(IPC_PATH_UNKNOWN), "unknown");
	EXPECT_STREQ(path_state_name(IPC_PATH_RESOLVING), "resolving");
	EXPECT_STREQ(path_state_name(IPC_PATH_VALID), "valid");
	EXPECT_STREQ(path_state_name(IPC_PATH_STALE), "stale");
	EXPECT_STREQ(path_state_name(IPC_PATH_FAILED), "failed");
	EXPECT_STREQ(path_state_name(IPC_PATH_DOUBTED), "doubted");
	EXPECT_STREQ(path_state_name(IPC_PATH_STATE_COUNT), "unknown");
	EXPECT_STREQ(path_state_name(0xff), "unknown");
}

/* ---- UNKNOWN ---------------------------------------------------------- */

TEST(path_unknown, tx_starts_query_and_queues)
{
	Path t;
	auto &r = t.tx(T0);
	EXPECT_ACTS(r, IPC_ACT_START_QUERY | IPC_ACT_QUEUE);
	EXPECT_EQ(t.state(), IPC_PATH_RESOLVING);
	EXPECT_EQ(t.p.queued, 1);
	EXPECT_EQ(t.p.attempts, 1);
	EXPECT_EQ(r.deadline_ms, T0 + t.c.query_timeout_ms);
	EXPECT_EQ(t.p.last_used_ms, T0);
}

TEST(path_unknown, query_done_without_query_is_ignored)
{
	Path t;
	EXPECT_ACTS(t.done(T0, 0), 0);
	EXPECT_ACTS(t.done(T0, -IPC_ETIMEDOUT), 0);
	EXPECT_EQ(t.state(), IPC_PATH_UNKNOWN);
}

TEST(path_unknown, timer_frees_when_idle)
{
	Path t;
	/* Fresh: last used "never" (0), idle long ago. */
	EXPECT_ACTS(t.timer(T0), IPC_ACT_FREE);
	EXPECT_EQ(t.r.deadline_ms, IPC_NO_DEADLINE);
}

TEST(path_unknown, flush_and_destroy)
{
	Path t;
	EXPECT_ACTS(t.flush(T0), 0);
	EXPECT_EQ(t.state(), IPC_PATH_UNKNOWN);
	EXPECT_ACTS(t.destroy(), IPC_ACT_FREE);
}

/* ---- RESOLVING -------------------------------------------------------- */

TEST(path_resolving, tx_queues_then_drops_oldest_at_limit)
{
	Path t;
	t.resolving();
	for (int i = 1; i < t.c.queue_max; i++) {
		EXPECT_ACTS(t.tx(T0 + i), IPC_ACT_QUEUE);
		EXPECT_EQ(t.r.deadline_ms, T0 + t.c.query_timeout_ms);
	}
	EXPECT_EQ(t.p.queued, t.c.queue_max);
	/* The newest data wins: drop the oldest, queue this one. */
	EXPECT_ACTS(t.tx(T0 + 100), IPC_ACT_DROP_OLDEST | IPC_ACT_QUEUE);
	EXPECT_EQ(t.r.reason, IPC_R_QUEUE_FULL);
	EXPECT_EQ(t.p.queued, t.c.queue_max);
	EXPECT_EQ(t.p.last_used_ms, T0 + 100);
}

TEST(path_resolving, zero_queue_drops)
{
	Path t;
	t.c.queue_max = 0;
	EXPECT_ACTS(t.tx(T0), IPC_ACT_START_QUERY | IPC_ACT_DROP);
	EXPECT_EQ(t.r.reason, IPC_R_QUEUE_FULL);
	EXPECT_EQ(t.p.queued, 0);
	EXPECT_ACTS(t.tx(T0 + 1), IPC_ACT_DROP);
}

TEST(path_resolving, query_ok_flushes_to_valid)
{
	Path t;
	t.resolving();
	t.tx(T0 + 1);
	auto &r = t.done(T0 + 50, 0);
	EXPECT_ACTS(r, IPC_ACT_FLUSH_QUEUE);
	EXPECT_EQ(t.state(), IPC_PATH_VALID);
	EXPECT_EQ(t.p.queued, 0);
	EXPECT_EQ(t.p.attempts, 0);
	EXPECT_EQ(t.p.revalidate_at_ms, T0 + 50 + t.c.revalidate_ms);
	EXPECT_EQ(r.deadline_ms, T0 + 50 + t.c.revalidate_ms);
}

TEST(path_resolving, query_error_with_attempts_left_keeps_queue)
{
	Path t;
	t.resolving();
	auto &r = t.done(T0 + 5, -IPC_ETIMEDOUT);
	EXPECT_ACTS(r, 0);
	EXPECT_EQ(t.state(), IPC_PATH_FAILED);
	EXPECT_EQ(t.p.queued, 1);
	EXPECT_EQ(t.p.last_status, -IPC_ETIMEDOUT);
	/* Equal jitter of attempt 1: [base/2, base]. */
	EXPECT_GE(r.deadline_ms, T0 + 5 + t.c.backoff.base_ms / 2);
	EXPECT_LE(r.deadline_ms, T0 + 5 + t.c.backoff.base_ms);
}

TEST(path_resolving, last_attempt_error_purges_no_route)
{
	Path t;
	t.resolving();
	for (int i = 1; i < t.c.max_attempts; i++) {
		t.done(t.p.deadline_ms - 1, -IPC_ETIMEDOUT);
		ASSERT_EQ(t.state(), IPC_PATH_FAILED);
		auto &r = t.timer(t.p.deadline_ms);
		EXPECT_ACTS(r, IPC_ACT_START_QUERY);
		EXPECT_EQ(t.state(), IPC_PATH_RESOLVING);
	}
	EXPECT_EQ(t.p.attempts, t.c.max_attempts);
	auto &r = t.done(T0 + 30000, -IPC_ENETUNREACH);
	EXPECT_ACTS(r, IPC_ACT_PURGE_QUEUE);
	EXPECT_EQ(r.reason, IPC_R_NO_ROUTE);
	EXPECT_EQ(t.p.queued, 0);
	EXPECT_EQ(t.state(), IPC_PATH_FAILED);
	uint64_t d = ipc_backoff_ms(&t.c.backoff, t.c.max_attempts, nullptr);
	EXPECT_LE(r.deadline_ms, T0 + 30000 + d);
	EXPECT_GE(r.deadline_ms, T0 + 30000 + d / 2);
}

TEST(path_resolving, timer_early_is_a_no_op)
{
	Path t;
	t.resolving();
	auto &r = t.timer(T0 + 1);
	EXPECT_ACTS(r, 0);
	EXPECT_EQ(t.state(), IPC_PATH_RESOLVING);
	EXPECT_EQ(r.deadline_ms, T0 + t.c.query_timeout_ms);
}

TEST(path_resolving, timer_at_timeout_cancels_and_backs_off)
{
	Path t;
	t.resolving();
	auto &r = t.timer(T0 + t.c.query_timeout_ms);
	EXPECT_ACTS(r, IPC_ACT_CANCEL_QUERY);
	EXPECT_EQ(t.state(), IPC_PATH_FAILED);
	EXPECT_EQ(t.p.last_status, -IPC_ETIMEDOUT);
	EXPECT_EQ(t.p.queued, 1);
	EXPECT_GT(r.deadline_ms, T0 + t.c.query_timeout_ms);
}

TEST(path_resolving, flush_restarts_query_keeps_queue)
{
	Path t;
	t.resolving();
	t.tx(T0 + 1);
	t.done(T0 + 2, -IPC_ETIMEDOUT);
	t.timer(t.p.deadline_ms); /* attempt 2 running */
	ASSERT_EQ(t.p.attempts, 2);
	auto &r = t.flush(T0 + 5000);
	EXPECT_ACTS(r, IPC_ACT_CANCEL_QUERY | IPC_ACT_START_QUERY);
	EXPECT_EQ(t.state(), IPC_PATH_RESOLVING);
	EXPECT_EQ(t.p.attempts, 1);
	EXPECT_EQ(t.p.queued, 2);
	EXPECT_EQ(r.deadline_ms, T0 + 5000 + t.c.query_timeout_ms);
}

TEST(path_resolving, destroy_cancels_and_purges_link_down)
{
	Path t;
	t.resolving();
	auto &r = t.destroy();
	EXPECT_ACTS(r,
		    IPC_ACT_CANCEL_QUERY | IPC_ACT_PURGE_QUEUE | IPC_ACT_FREE);
	EXPECT_EQ(r.reason, IPC_R_LINK_DOWN);
	EXPECT_EQ(t.p.queued, 0);
	EXPECT_EQ(t.state(), IPC_PATH_UNKNOWN);
}

/* ---- VALID ------------------------------------------------------------ */

TEST(path_valid, tx_sends_and_does_not_move_deadline)
{
	Path t;
	t.valid();
	uint64_t d = t.p.deadline_ms;
	EXPECT_ACTS(t.tx(T0 + 20), IPC_ACT_SEND);
	EXPECT_EQ(t.r.deadline_ms, d);
	EXPECT_EQ(t.p.last_used_ms, T0 + 20);
}

TEST(path_valid, late_query_done_ignored)
{
	Path t;
	t.valid();
	EXPECT_ACTS(t.done(T0 + 20, 0), 0);
	EXPECT_ACTS(t.done(T0 + 20, -IPC_EINVAL), 0);
	EXPECT_EQ(t.state(), IPC_PATH_VALID);
	EXPECT_EQ(t.p.revalidate_at_ms, T0 + 10 + t.c.revalidate_ms);
}

TEST(path_valid, timer_before_revalidation_rearms)
{
	Path t;
	t.valid();
	auto &r = t.timer(T0 + 1000);
	EXPECT_ACTS(r, 0);
	EXPECT_EQ(r.deadline_ms, T0 + 10 + t.c.revalidate_ms);
}

TEST(path_valid, timer_at_revalidation_goes_stale_rfc4391_s9_4)
{
	Path t;
	t.valid();
	t.tx(T0 + 30000);
	auto &r = t.timer(T0 + 10 + t.c.revalidate_ms);
	EXPECT_ACTS(r, IPC_ACT_START_QUERY);
	EXPECT_EQ(t.state(), IPC_PATH_STALE);
	EXPECT_EQ(r.deadline_ms,
		  T0 + 10 + t.c.revalidate_ms + t.c.query_timeout_ms);
}

TEST(path_valid, idle_frees_and_releases_handle)
{
	Path t;
	t.c.revalidate_ms = 1000000; /* only idleness matters here */
	t.valid();
	EXPECT_EQ(t.p.deadline_ms, T0 + t.c.idle_ms); /* last used at T0 */
	t.tx(T0 + 100);
	/* Timer at the old idle deadline: used since, so rearmed. */
	auto &r1 = t.timer(T0 + t.c.idle_ms);
	EXPECT_ACTS(r1, 0);
	EXPECT_EQ(r1.deadline_ms, T0 + 100 + t.c.idle_ms);
	auto &r2 = t.timer(T0 + 100 + t.c.idle_ms);
	EXPECT_ACTS(r2, IPC_ACT_RELEASE_AH | IPC_ACT_FREE);
	EXPECT_EQ(t.state(), IPC_PATH_UNKNOWN);
}

/*
 * The shim's unlocked transmit reports its sends with ipc_path_used():
 * they keep the path as ipc_path_tx() would, and an older report (one
 * CPU's, read after another's) moves nothing back.
 */
TEST(path_valid, used_reports_keep_it_from_idling)
{
	Path t;
	t.c.revalidate_ms = 1000000; /* only idleness matters here */
	t.valid();
	ipc_path_used(&t.p, T0 + 100);
	ipc_path_used(&t.p, T0 + 50);
	auto &r1 = t.timer(T0 + t.c.idle_ms);
	EXPECT_ACTS(r1, 0);
	EXPECT_EQ(r1.deadline_ms, T0 + 100 + t.c.idle_ms);
	EXPECT_EQ(ipc_path_evictable(&t.p, &t.c, T0 + t.c.evict_idle_ms), 0);
	EXPECT_EQ(ipc_path_evictable(&t.p, &t.c,
				     T0 + 100 + t.c.evict_idle_ms),
		  1);
	auto &r2 = t.timer(T0 + 100 + t.c.idle_ms);
	EXPECT_ACTS(r2, IPC_ACT_RELEASE_AH | IPC_ACT_FREE);
}

TEST(path_valid, flush_keeps_handle_and_revalidates)
{
	Path t;
	t.valid();
	auto &r = t.flush(T0 + 100);
	/* No spread: due now, asked by the next timer call, never here. */
	EXPECT_ACTS(r, 0);
	EXPECT_EQ(t.state(), IPC_PATH_VALID);
	EXPECT_EQ(r.deadline_ms, T0 + 100);
	EXPECT_ACTS(t.tx(T0 + 101), IPC_ACT_SEND);
	EXPECT_ACTS(t.timer(T0 + 101), IPC_ACT_START_QUERY);
	EXPECT_EQ(t.state(), IPC_PATH_STALE);
}

/*
 * Fabric scale: a flush asks nothing at once. Each path's revalidation is
 * drawn from [now, now + flush_spread_ms): across many paths the draws
 * cover the window, none falls outside it, and the path sends all along.
 */
TEST(path_valid, flush_spreads_revalidation_over_window)
{
	const uint32_t spread = 30000, n = 2000;
	uint64_t lo = IPC_NO_DEADLINE, hi = 0;
	uint32_t buckets[10] = {};
	for (uint32_t i = 0; i < n; i++) {
		Path t;
		t.c.flush_spread_ms = spread;
		ipc_rng_seed(&t.rng, 7000 + i);
		t.valid();
		auto &r = t.flush(T0 + 100);
		ASSERT_ACTS(r, 0);
		ASSERT_EQ(t.state(), IPC_PATH_VALID);
		uint64_t at = t.p.revalidate_at_ms;
		ASSERT_EQ(r.deadline_ms, at);
		ASSERT_GE(at, T0 + 100);
		ASSERT_LT(at, T0 + 100 + spread);
		lo = std::min(lo, at);
		hi = std::max(hi, at);
		buckets[(at - T0 - 100) * 10 / spread]++;
		ASSERT_ACTS(t.tx(at - 1), IPC_ACT_SEND);
		ASSERT_ACTS(t.timer(at - 1), 0);
		ASSERT_ACTS(t.timer(at), IPC_ACT_START_QUERY);
	}
	EXPECT_LT(lo, T0 + 100 + spread / 20);
	EXPECT_GT(hi, T0 + 100 + spread - spread / 20);
	/* Uniform: each tenth of the window holds 200 +- a generous 40%. */
	for (uint32_t b : buckets) {
		EXPECT_GT(b, n / 10 * 6 / 10);
		EXPECT_LT(b, n / 10 * 14 / 10);
	}
}

/* Answers at the same instant revalidate at different times, in [r - j, r]. */
TEST(path_valid, revalidation_jittered_per_path)
{
	const uint32_t n = 500;
	uint64_t lo = IPC_NO_DEADLINE, hi = 0;
	for (uint32_t i = 0; i < n; i++) {
		Path t;
		t.c.revalidate_jitter_ms = 15000;
		ipc_rng_seed(&t.rng, 100 + i);
		t.valid(); /* answered at T0 + 10 */
		uint64_t at = t.p.revalidate_at_ms;
		ASSERT_GE(at, T0 + 10 + 45000);
		ASSERT_LE(at, T0 + 10 + 60000);
		lo = std::min(lo, at);
		hi = std::max(hi, at);
		/* And again after each revalidation: never in step. */
		t.timer(at);
		ASSERT_EQ(t.state(), IPC_PATH_STALE);
		t.done(at + 5, 0);
		ASSERT_GE(t.p.revalidate_at_ms, at + 5 + 45000);
		ASSERT_LE(t.p.revalidate_at_ms, at + 5 + 60000);
	}
	EXPECT_LT(lo, T0 + 10 + 46500);
	EXPECT_GT(hi, T0 + 10 + 58500);
}

/* A jitter larger than the period is taken as the period (no underflow). */
TEST(path_valid, jitter_beyond_period_clamped)
{
	Path t;
	t.c.revalidate_ms = 1000;
	t.c.revalidate_jitter_ms = 5000;
	t.valid();
	EXPECT_GE(t.p.revalidate_at_ms, T0 + 10);
	EXPECT_LE(t.p.revalidate_at_ms, T0 + 10 + 1000);
}

TEST(path_valid, destroy_releases_handle)
{
	Path t;
	t.valid();
	EXPECT_ACTS(t.destroy(), IPC_ACT_RELEASE_AH | IPC_ACT_FREE);
}

/* ---- STALE ------------------------------------------------------------ */

TEST(path_stale, tx_keeps_sending)
{
	Path t;
	t.stale();
	EXPECT_ACTS(t.tx(T0 + 70000), IPC_ACT_SEND);
	EXPECT_EQ(t.p.queued, 0);
}

TEST(path_stale, query_ok_back_to_valid)
{
	Path t;
	t.stale();
	auto &r = t.done(T0 + 60100, 0);
	EXPECT_ACTS(r, 0);
	EXPECT_EQ(t.state(), IPC_PATH_VALID);
	EXPECT_EQ(t.p.revalidate_at_ms, T0 + 60100 + t.c.revalidate_ms);
}

/* The SA's word that the path is gone: the handle goes. */
TEST(path_stale, query_error_releases_handle_and_fails)
{
	Path t;
	t.stale();
	auto &r = t.done(T0 + 60100, -IPC_EHOSTUNREACH);
	EXPECT_ACTS(r, IPC_ACT_RELEASE_AH);
	EXPECT_EQ(t.state(), IPC_PATH_FAILED);
	/* Attempts left: traffic now queues for the retry. */
	EXPECT_ACTS(t.tx(T0 + 60200), IPC_ACT_QUEUE);
	EXPECT_ACTS(t.timer(t.p.deadline_ms), IPC_ACT_START_QUERY);
	EXPECT_EQ(t.state(), IPC_PATH_RESOLVING);
	EXPECT_ACTS(t.done(t.p.deadline_ms - 1, 0), IPC_ACT_FLUSH_QUEUE);
	EXPECT_EQ(t.state(), IPC_PATH_VALID);
}

TEST(path_stale, timer_early_no_op_then_timeout)
{
	Path t;
	t.stale();
	uint64_t d = t.p.deadline_ms;
	EXPECT_ACTS(t.timer(d - 1), 0);
	EXPECT_EQ(t.state(), IPC_PATH_STALE);
	auto &r = t.timer(d);
	/* Stale while revalidating: a lost answer keeps the handle. */
	EXPECT_ACTS(r, IPC_ACT_CANCEL_QUERY);
	EXPECT_EQ(t.state(), IPC_PATH_DOUBTED);
	EXPECT_EQ(t.p.last_status, -IPC_ETIMEDOUT);
	EXPECT_ACTS(t.tx(d + 1), IPC_ACT_SEND);
}

/* Every status that is the SA's "no such path" drops the handle ... */
TEST(path_stale, gone_statuses_release_handle)
{
	for (int st : { -IPC_ENOENT, -IPC_ENODATA, -IPC_EINVAL,
			-IPC_EHOSTUNREACH, -IPC_ENETUNREACH }) {
		Path t;
		t.stale();
		EXPECT_ACTS(t.done(T0 + 60100, st), IPC_ACT_RELEASE_AH) << st;
		EXPECT_EQ(t.state(), IPC_PATH_FAILED) << st;
		EXPECT_EQ(t.evictable(T0 + 60100), 1) << st;
	}
}

/* ... and every other keeps it and keeps sending (stale-while-revalidate). */
TEST(path_stale, soft_errors_keep_handle_and_sending)
{
	for (int st : { -IPC_ETIMEDOUT, -IPC_EAGAIN, -IPC_ENOMEM, -IPC_EBUSY,
			-IPC_ENETRESET, -5 /* EIO */, -4 /* EINTR */ }) {
		Path t;
		t.stale();
		auto &r = t.done(T0 + 60100, st);
		EXPECT_ACTS(r, 0) << st;
		EXPECT_EQ(t.state(), IPC_PATH_DOUBTED) << st;
		EXPECT_EQ(t.p.last_status, st);
		EXPECT_EQ(ipc_path_usable(&t.p), 1);
		EXPECT_ACTS(t.tx(T0 + 60101), IPC_ACT_SEND) << st;
		/* One failed attempt: the first doubt backoff, 2.5 s to 5 s. */
		EXPECT_GE(r.deadline_ms, T0 + 60100 + 2500);
		EXPECT_LE(r.deadline_ms, T0 + 60100 + 5000);
	}
}

TEST(path_stale, query_held_stops_timeout_until_sent)
{
	Path t;
	t.stale();
	auto &h = t.held();
	EXPECT_ACTS(h, 0);
	EXPECT_EQ(h.deadline_ms, IPC_NO_DEADLINE);
	EXPECT_EQ(t.state(), IPC_PATH_STALE);
	EXPECT_ACTS(t.tx(T0 + 200000), IPC_ACT_SEND);
	auto &s = t.sent(T0 + 200000);
	EXPECT_ACTS(s, 0);
	EXPECT_EQ(s.deadline_ms, T0 + 200000 + t.c.query_timeout_ms);
	EXPECT_ACTS(t.timer(T0 + 200000 + t.c.query_timeout_ms - 1), 0);
	EXPECT_ACTS(t.timer(T0 + 200000 + t.c.query_timeout_ms),
		    IPC_ACT_CANCEL_QUERY);
}

TEST(path_stale, sa_class_refresh_without_frames)
{
	Path t;
	t.stale();
	EXPECT_EQ(ipc_path_sa_class(&t.p), IPC_SA_REFRESH);
}

/* ---- DOUBTED ----------------------------------------------------------- */

TEST(path_doubted, timer_retries_with_growing_backoff_sending_all_along)
{
	Path t;
	t.doubted();
	uint64_t now = T0 + 60100;
	for (int round = 2; round <= 6; round++) {
		uint64_t d = t.p.deadline_ms;
		ASSERT_ACTS(t.timer(d - 1), 0);
		ASSERT_ACTS(t.tx(d - 1), IPC_ACT_SEND);
		ASSERT_ACTS(t.timer(d), IPC_ACT_START_QUERY);
		ASSERT_EQ(t.state(), IPC_PATH_STALE);
		ASSERT_EQ(t.p.attempts, round);
		now = d + t.c.query_timeout_ms;
		ASSERT_ACTS(t.timer(now), IPC_ACT_CANCEL_QUERY);
		ASSERT_EQ(t.state(), IPC_PATH_DOUBTED);
		uint32_t cap = std::min<uint32_t>(t.c.doubt_backoff.cap_ms,
						  t.c.doubt_backoff.base_ms << (round - 1));
		EXPECT_GE(t.p.deadline_ms, now + cap / 2);
		EXPECT_LE(t.p.deadline_ms, now + cap);
	}
	/* An answer at last: VALID again, attempts forgotten. */
	t.timer(t.p.deadline_ms);
	EXPECT_ACTS(t.done(t.p.deadline_ms - 1, 0), 0);
	EXPECT_EQ(t.state(), IPC_PATH_VALID);
	EXPECT_EQ(t.p.attempts, 0);
}

TEST(path_doubted, gone_at_the_retry_releases_handle)
{
	Path t;
	t.doubted();
	t.timer(t.p.deadline_ms);
	ASSERT_EQ(t.state(), IPC_PATH_STALE);
	EXPECT_ACTS(t.done(t.p.deadline_ms - 1, -IPC_ENOENT),
		    IPC_ACT_RELEASE_AH);
	EXPECT_EQ(t.state(), IPC_PATH_FAILED);
}

TEST(path_doubted, late_query_done_ignored)
{
	Path t;
	t.doubted();
	EXPECT_ACTS(t.done(T0 + 60200, 0), 0);
	EXPECT_EQ(t.state(), IPC_PATH_DOUBTED);
}

TEST(path_doubted, idle_at_retry_releases_and_frees)
{
	Path t;
	t.c.idle_ms = 70000; /* last used at T0: idle from T0 + 70 s */
	t.doubted();
	uint64_t d = std::max<uint64_t>(t.p.deadline_ms, T0 + 70000);
	EXPECT_ACTS(t.timer(d), IPC_ACT_RELEASE_AH | IPC_ACT_FREE);
	EXPECT_EQ(t.state(), IPC_PATH_UNKNOWN);
}

TEST(path_doubted, flush_schedules_revalidation_keeps_handle)
{
	Path t;
	t.doubted();
	auto &r = t.flush(T0 + 60200);
	EXPECT_ACTS(r, 0);
	EXPECT_EQ(t.state(), IPC_PATH_VALID);
	EXPECT_EQ(r.deadline_ms, T0 + 60200);
	EXPECT_ACTS(t.tx(T0 + 60200), IPC_ACT_SEND);
}

TEST(path_doubted, destroy_releases_handle)
{
	Path t;
	t.doubted();
	EXPECT_ACTS(t.destroy(), IPC_ACT_RELEASE_AH | IPC_ACT_FREE);
}

/* ---- held and sent (the SA budget) ------------------------------------ */

TEST(path_budget, resolving_held_then_sent)
{
	Path t;
	t.resolving();
	EXPECT_EQ(ipc_path_sa_class(&t.p), IPC_SA_WAITING);
	EXPECT_EQ(t.held().deadline_ms, IPC_NO_DEADLINE);
	EXPECT_ACTS(t.timer(T0 + 100000), 0);
	EXPECT_EQ(t.state(), IPC_PATH_RESOLVING);
	EXPECT_EQ(t.sent(T0 + 100000).deadline_ms,
		  T0 + 100000 + t.c.query_timeout_ms);
	EXPECT_ACTS(t.done(T0 + 100050, 0), IPC_ACT_FLUSH_QUEUE);
}

/* Nothing is outstanding elsewhere: held and sent change nothing. */
TEST(path_budget, held_and_sent_without_query_change_nothing)
{
	Path v;
	v.valid();
	uint64_t d = v.p.deadline_ms;
	EXPECT_EQ(v.held().deadline_ms, d);
	EXPECT_EQ(v.sent(T0 + 99).deadline_ms, d);
	EXPECT_EQ(v.state(), IPC_PATH_VALID);
	Path f;
	f.failed_retrying();
	d = f.p.deadline_ms;
	EXPECT_EQ(f.held().deadline_ms, d);
	EXPECT_EQ(f.sent(T0 + 99).deadline_ms, d);
	Path u;
	EXPECT_EQ(u.held().deadline_ms, IPC_NO_DEADLINE);
	EXPECT_EQ(u.state(), IPC_PATH_UNKNOWN);
}

TEST(path_stale, flush_restarts_revalidation)
{
	Path t;
	t.stale();
	auto &r = t.flush(T0 + 61000);
	EXPECT_ACTS(r, IPC_ACT_CANCEL_QUERY | IPC_ACT_START_QUERY);
	EXPECT_EQ(t.state(), IPC_PATH_STALE);
	EXPECT_EQ(t.p.attempts, 1);
	EXPECT_EQ(r.deadline_ms, T0 + 61000 + t.c.query_timeout_ms);
}

TEST(path_stale, destroy)
{
	Path t;
	t.stale();
	EXPECT_ACTS(t.destroy(),
		    IPC_ACT_CANCEL_QUERY | IPC_ACT_RELEASE_AH | IPC_ACT_FREE);
}

/* ---- FAILED, retrying --------------------------------------------------- */

TEST(path_failed_retrying, tx_queues)
{
	Path t;
	t.failed_retrying();
	EXPECT_ACTS(t.tx(T0 + 20), IPC_ACT_QUEUE);
	EXPECT_EQ(t.p.queued, 2);
}

TEST(path_failed_retrying, late_query_done_ignored)
{
	Path t;
	t.failed_retrying();
	EXPECT_ACTS(t.done(T0 + 20, 0), 0);
	EXPECT_EQ(t.state(), IPC_PATH_FAILED);
}

TEST(path_failed_retrying, timer_retries_at_deadline_only)
{
	Path t;
	t.failed_retrying();
	uint64_t d = t.p.deadline_ms;
	EXPECT_ACTS(t.timer(d - 1), 0);
	EXPECT_ACTS(t.timer(d), IPC_ACT_START_QUERY);
	EXPECT_EQ(t.state(), IPC_PATH_RESOLVING);
	EXPECT_EQ(t.p.attempts, 2);
	EXPECT_EQ(t.p.queued, 1);
}

TEST(path_failed_retrying, flush_retries_now)
{
	Path t;
	t.failed_retrying();
	EXPECT_ACTS(t.flush(T0 + 20), IPC_ACT_START_QUERY);
	EXPECT_EQ(t.state(), IPC_PATH_RESOLVING);
	EXPECT_EQ(t.p.attempts, 1);
}

TEST(path_failed_retrying, destroy_purges)
{
	Path t;
	t.failed_retrying();
	auto &r = t.destroy();
	EXPECT_ACTS(r, IPC_ACT_PURGE_QUEUE | IPC_ACT_FREE);
	EXPECT_EQ(r.reason, IPC_R_LINK_DOWN);
}

/* ---- FAILED, exhausted (hold-down) ---------------------------------- */

TEST(path_failed_exhausted, tx_drops_until_deadline_then_requeries)
{
	Path t;
	t.failed_exhausted();
	EXPECT_EQ(t.p.queued, 0);
	uint64_t d = t.p.deadline_ms;
	auto &r = t.tx(d - 1);
	EXPECT_ACTS(r, IPC_ACT_DROP);
	EXPECT_EQ(r.reason, IPC_R_NO_ROUTE);
	auto &r2 = t.tx(d);
	EXPECT_ACTS(r2, IPC_ACT_START_QUERY | IPC_ACT_QUEUE);
	EXPECT_EQ(t.state(), IPC_PATH_RESOLVING);
	EXPECT_EQ(t.p.attempts, 1);
}

TEST(path_failed_exhausted, late_query_done_ignored)
{
	Path t;
	t.failed_exhausted();
	EXPECT_ACTS(t.done(T0 + 20, 0), 0);
	EXPECT_EQ(t.state(), IPC_PATH_FAILED);
}

TEST(path_failed_exhausted, timer_ends_hold_down)
{
	Path t;
	t.failed_exhausted();
	uint64_t d = t.p.deadline_ms;
	EXPECT_ACTS(t.timer(d - 1), 0);
	auto &r = t.timer(d);
	EXPECT_ACTS(r, 0);
	EXPECT_EQ(t.state(), IPC_PATH_UNKNOWN);
	EXPECT_EQ(t.p.attempts, 0);
	EXPECT_EQ(r.deadline_ms, T0 + t.c.idle_ms);
	/* Then an unused UNKNOWN path is freed when idle. */
	EXPECT_ACTS(t.timer(T0 + t.c.idle_ms - 1), 0);
	EXPECT_ACTS(t.timer(T0 + t.c.idle_ms), IPC_ACT_FREE);
}

TEST(path_failed_exhausted, timer_frees_if_already_idle)
{
	Path t;
	t.c.idle_ms = 100;
	t.failed_exhausted();
	EXPECT_ACTS(t.timer(t.p.deadline_ms), IPC_ACT_FREE);
}

TEST(path_failed_exhausted, flush_forgets_hold_down)
{
	Path t;
	t.failed_exhausted();
	EXPECT_ACTS(t.flush(T0 + 20), 0);
	EXPECT_EQ(t.state(), IPC_PATH_UNKNOWN);
	EXPECT_ACTS(t.tx(T0 + 21), IPC_ACT_START_QUERY | IPC_ACT_QUEUE);
}

TEST(path_failed_exhausted, destroy)
{
	Path t;
	t.failed_exhausted();
	EXPECT_ACTS(t.destroy(), IPC_ACT_FREE);
}

TEST(path, zero_max_attempts_means_one)
{
	Path t;
	t.c.max_attempts = 0;
	t.resolving();
	EXPECT_ACTS(t.done(T0 + 1, -IPC_ETIMEDOUT), IPC_ACT_PURGE_QUEUE);
}

TEST(path, attempts_saturate)
{
	Path t;
	t.c.max_attempts = 0xffff;
	t.resolving();
	for (int i = 0; i < 300; i++) {
		t.done(t.p.deadline_ms, -IPC_ETIMEDOUT);
		t.timer(t.p.deadline_ms);
	}
	EXPECT_EQ(t.p.attempts, 0xff);
}

/* A state byte out of range is corrupt memory: every entry frees it. */
TEST(path, corrupt_state_frees)
{
	for (int ev = 0; ev < 5; ev++) {
		Path t;
		t.p.state = IPC_PATH_STATE_COUNT;
		const ipc_result *r = nullptr;
		switch (ev) {
		case 0:
			r = &t.tx(T0);
			break;
		case 1:
			r = &t.done(T0, 0);
			break;
		case 2:
			r = &t.timer(T0);
			break;
		case 3:
			r = &t.flush(T0);
			break;
		default:
			r = &t.destroy();
			break;
		}
		EXPECT_ACTS(*r, IPC_ACT_FREE) << ev;
		EXPECT_EQ(t.state(), IPC_PATH_UNKNOWN);
	}
}

TEST(path, deadlines_saturate_near_u64_max)
{
	Path t;
	t.tx(IPC_NO_DEADLINE - 10);
	EXPECT_EQ(t.r.deadline_ms, IPC_NO_DEADLINE - 1);
}

TEST(path, result_is_cleared_every_call)
{
	Path t;
	t.r.actions = 0xffffffff;
	t.r.reason = 99;
	t.r.join_type = 4;
	t.flush(T0);
	EXPECT_EQ(t.r.actions, 0u);
	EXPECT_EQ(t.r.reason, 0);
	EXPECT_EQ(t.r.join_type, 0);
}

/* ---- eviction: may a full table give the path up? ------------------- */

/*
 * What the shim does with an evictable path: ipc_path_destroy(). Nothing
 * is queued, so nothing is purged; FREE always.
 */
void expect_evict_frees(Path &t, uint32_t also)
{
	auto &r = t.destroy();
	EXPECT_ACTS(r, also | IPC_ACT_FREE);
	EXPECT_EQ(t.state(), IPC_PATH_UNKNOWN);
}

TEST(path_evict, unknown_fresh)
{
	Path t;
	EXPECT_EQ(t.evictable(0), 1);
	EXPECT_EQ(t.evictable(T0), 1);
	expect_evict_frees(t, 0);
}

TEST(path_evict, unknown_after_hold_down_at_once)
{
	Path t;
	t.failed_exhausted();
	t.timer(t.p.deadline_ms);
	ASSERT_EQ(t.state(), IPC_PATH_UNKNOWN);
	/* Used moments ago, but UNKNOWN holds nothing worth keeping. */
	EXPECT_EQ(t.evictable(t.p.last_used_ms), 1);
	expect_evict_frees(t, 0);
}

TEST(path_evict, resolving_never)
{
	Path t;
	t.resolving();
	EXPECT_EQ(t.evictable(T0), 0);
	EXPECT_EQ(t.evictable(T0 + t.c.evict_idle_ms), 0);
	EXPECT_EQ(t.evictable(IPC_NO_DEADLINE - 1), 0);
}

/* A retry of a failed revalidation: RESOLVING with nothing queued. */
TEST(path_evict, resolving_never_even_with_empty_queue)
{
	Path t;
	t.stale();
	t.done(T0 + 60100, -IPC_EHOSTUNREACH);
	t.timer(t.p.deadline_ms);
	ASSERT_EQ(t.state(), IPC_PATH_RESOLVING);
	ASSERT_EQ(t.p.queued, 0);
	EXPECT_EQ(t.evictable(T0 + 60100 + 10 * t.c.evict_idle_ms), 0);
}

TEST(path_evict, valid_idle_boundary)
{
	Path t;
	t.valid(); /* last used at T0 */
	uint64_t e = t.c.evict_idle_ms;
	EXPECT_EQ(t.evictable(T0), 0);
	EXPECT_EQ(t.evictable(T0 + e - 1), 0);
	EXPECT_EQ(t.evictable(T0 + e), 1);
	/* A packet makes it live again; the boundary moves with it. */
	t.tx(T0 + 5000);
	EXPECT_EQ(t.evictable(T0 + e), 0);
	EXPECT_EQ(t.evictable(T0 + 5000 + e - 1), 0);
	EXPECT_EQ(t.evictable(T0 + 5000 + e), 1);
	expect_evict_frees(t, IPC_ACT_RELEASE_AH);
}

TEST(path_evict, stale_idle_boundary)
{
	Path t;
	t.stale();
	uint64_t e = t.c.evict_idle_ms;
	t.tx(T0 + 70000); /* the old handle serves while revalidating */
	EXPECT_EQ(t.evictable(T0 + 70000 + e - 1), 0);
	EXPECT_EQ(t.evictable(T0 + 70000 + e), 1);
	/* Its revalidation is cancelled, its handle released. */
	expect_evict_frees(t, IPC_ACT_CANCEL_QUERY | IPC_ACT_RELEASE_AH);
}

TEST(path_evict, stale_unused_since_valid)
{
	Path t;
	t.stale(); /* revalidate_ms after its last use */
	EXPECT_EQ(t.evictable(T0 + 10 + t.c.revalidate_ms), 1);
}

TEST(path_evict, doubted_idle_boundary)
{
	Path t;
	t.doubted();
	EXPECT_EQ(t.evictable(T0 + t.c.evict_idle_ms - 1), 0);
	EXPECT_EQ(t.evictable(T0 + t.c.evict_idle_ms), 1);
	expect_evict_frees(t, IPC_ACT_RELEASE_AH);
}

TEST(path_evict, failed_retrying_with_queue_never)
{
	Path t;
	t.failed_retrying();
	ASSERT_EQ(t.p.queued, 1);
	EXPECT_EQ(t.evictable(T0 + 20), 0);
	EXPECT_EQ(t.evictable(IPC_NO_DEADLINE - 1), 0);
}

/* A failed revalidation keeps no queue: FAILED, retrying, empty. */
TEST(path_evict, failed_retrying_empty)
{
	Path t;
	t.stale();
	t.done(T0 + 60100, -IPC_EHOSTUNREACH);
	ASSERT_EQ(t.state(), IPC_PATH_FAILED);
	ASSERT_EQ(t.p.queued, 0);
	EXPECT_EQ(t.evictable(T0 + 60100), 1);
	expect_evict_frees(t, 0);
}

TEST(path_evict, failed_exhausted_at_once)
{
	Path t;
	t.failed_exhausted();
	ASSERT_EQ(t.p.queued, 0);
	/* In hold-down, used at T0: failed, so no idle time is asked. */
	EXPECT_EQ(t.evictable(T0 + 10), 1);
	expect_evict_frees(t, 0);
}

/* Whatever the state, a path holding packets stays. */
TEST(path_evict, queued_never)
{
	for (int s = 0; s <= IPC_PATH_STATE_COUNT; s++) {
		Path t;
		t.p.state = static_cast<uint8_t>(s);
		t.p.queued = 1;
		EXPECT_EQ(t.evictable(IPC_NO_DEADLINE - 1), 0) << s;
		t.p.queued = 0;
		EXPECT_EQ(t.evictable(IPC_NO_DEADLINE - 1),
			  s == IPC_PATH_RESOLVING ? 0 : 1)
			<< s;
	}
}

TEST(path_evict, zero_idle_means_any_unused_path)
{
	Path t;
	t.c.evict_idle_ms = 0;
	t.valid();
	t.tx(T0 + 50);
	EXPECT_EQ(t.evictable(T0 + 50), 1);
}

/* last_used_ms + evict_idle_ms past 2^64 must not wrap to "long ago". */
TEST(path_evict, idle_boundary_saturates)
{
	Path t;
	t.valid();
	t.p.last_used_ms = IPC_NO_DEADLINE - 10;
	EXPECT_EQ(t.evictable(IPC_NO_DEADLINE - 5), 0);
	EXPECT_EQ(t.evictable(IPC_NO_DEADLINE - 1), 1);
}

TEST(path_evict, corrupt_state_may_go)
{
	Path t;
	t.p.state = IPC_PATH_STATE_COUNT;
	EXPECT_EQ(t.evictable(T0), 1);
	expect_evict_frees(t, 0);
}

/* A question, not an event: nothing of the path changes. */
TEST(path_evict, reads_only)
{
	Path t;
	t.stale();
	struct ipc_path before = t.p;
	EXPECT_EQ(t.evictable(T0 + 10 + t.c.revalidate_ms), 1);
	EXPECT_EQ(memcmp(&before, &t.p, sizeof(before)), 0);
}

} // namespace

/* ---- what the shim may ask (ipc_path_view, _deadline, _usable) -------- */

TEST(path_access, usable_only_with_a_handle)
{
	Path t;
	EXPECT_FALSE(ipc_path_usable(&t.p));
	t.resolving();
	EXPECT_FALSE(ipc_path_usable(&t.p));
	Path v;
	v.valid();
	EXPECT_TRUE(ipc_path_usable(&v.p));
	Path s;
	s.stale();
	EXPECT_TRUE(ipc_path_usable(&s.p));
	Path f;
	f.failed_retrying();
	EXPECT_FALSE(ipc_path_usable(&f.p));
	f.p.state = IPC_PATH_STATE_COUNT; /* corrupt */
	EXPECT_FALSE(ipc_path_usable(&f.p));
}

TEST(path_access, view_and_deadline_copy_the_machine)
{
	Path t;
	t.failed_retrying();
	struct ipc_view v;
	ipc_path_view(&t.p, &v);
	EXPECT_STREQ(v.state, "failed");
	EXPECT_EQ(v.attempts, t.p.attempts);
	EXPECT_EQ(v.queued, t.p.queued);
	EXPECT_EQ(v.last_status, t.p.last_status);
	EXPECT_NE(v.last_status, 0);
	EXPECT_EQ(v.deadline_ms, t.p.deadline_ms);
	EXPECT_EQ(ipc_path_deadline(&t.p), t.p.deadline_ms);
	EXPECT_EQ(v.want | v.joined | v.pending, 0);
	t.p.state = 0xee;
	ipc_path_view(&t.p, &v);
	EXPECT_STREQ(v.state, "unknown");
}
