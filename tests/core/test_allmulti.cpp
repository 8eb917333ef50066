// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The notices machine (allmulti.cpp): the subscription every sender
 * makes (RFC 4391 s10) and the all-multicast mode's directory (s11):
 * every state against every event, the retry's backoff and jitter, the
 * flush's spread, the re-read after Reports refused, and which groups the
 * mode joins and leaves.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core_test.hpp"

namespace
{

using Bytes = std::vector<uint8_t>;
using ct::BCAST;
using ct::mgid;

constexpr uint32_t UNSUB = IPC_AM_ACT_UNSUBSCRIBE;
constexpr uint32_t STOP = IPC_AM_ACT_STOP_AGENT;
constexpr uint32_t LEAVE = IPC_AM_ACT_LEAVE_ALL;
constexpr uint32_t START = IPC_AM_ACT_START_AGENT;
constexpr uint32_t SUB = IPC_AM_ACT_SUBSCRIBE;
constexpr uint32_t READ = IPC_AM_ACT_READ;
constexpr uint32_t SWEEP = IPC_AM_ACT_SWEEP;
constexpr uint32_t LOG = IPC_AM_ACT_LOG;

std::string acts(uint32_t a)
{
	static const char *const names[] = {
		"UNSUBSCRIBE", "STOP_AGENT", "LEAVE_ALL", "START_AGENT",
		"SUBSCRIBE",   "READ",	     "SWEEP",	  "LOG",
	};
	std::string s;
	for (int i = 0; i < 8; i++)
		if (a & (1u << i))
			s += (s.empty() ? "" : "|") + std::string(names[i]);
	return s.empty() ? "none" : s;
}

struct AmT {
	struct ipc_am am;
	struct ipc_rng rng;
	struct ipc_result r;
	struct ipc_notice_rate rate;
	struct ipc_am_flags f = {};
	uint64_t now = 1000;

	explicit AmT(uint64_t seed = 7)
	{
		ipc_am_init(&am);
		ipc_rng_seed(&rng, seed);
		ipc_notice_rate_init(&rate, 0);
		f.up = 1;
		f.allmulti = 1;
		f.has_sa = 1;
	}
	uint32_t sync()
	{
		ipc_am_sync(&am, &f, &rate, now, &r);
		return r.actions;
	}
	uint32_t started(int status)
	{
		ipc_am_started(&am, status, now, &rng, &r);
		return r.actions;
	}
	uint32_t unsent(int status)
	{
		ipc_am_unsent(&am, status, now, &rng, &r);
		return r.actions;
	}
	int answer(int which, int status)
	{
		return ipc_am_answer(&am, which, status, now, &rng, &r);
	}
	uint32_t stop(int can_send)
	{
		ipc_am_stop(&am, can_send, f.shared, &r);
		return r.actions;
	}
	/* The answers of a query, good: the table's in the mode. */
	void answer_all()
	{
		EXPECT_EQ(answer(IPC_TRAP_MCG_CREATED, 0), 1);
		EXPECT_EQ(answer(IPC_TRAP_MCG_DELETED, 0), 1);
		if (am.dir) {
			EXPECT_EQ(answer(0, 0), 1);
		}
	}
	std::string state() const
	{
		struct ipc_view v;
		ipc_am_view(&am, &v);
		return v.state;
	}
};

/* How each state of the table below is reached. */
enum Start {
	S_OFF,
	S_STARTING,
	S_QUERYING,
	S_ON,
	S_BACKOFF,
	S_BACKOFF_NOAGENT
};

void reach(AmT &t, Start s)
{
	if (s == S_OFF)
		return;
	ASSERT_EQ(t.sync(), START);
	if (s == S_STARTING)
		return;
	if (s == S_BACKOFF_NOAGENT) {
		ASSERT_EQ(t.started(-IPC_ENOMEM), LOG);
		return;
	}
	ASSERT_EQ(t.started(0), t.f.allmulti ? SUB | READ : SUB);
	if (s == S_QUERYING)
		return;
	if (s == S_BACKOFF) {
		ASSERT_EQ(t.answer(t.f.allmulti ? 0 : IPC_TRAP_MCG_CREATED,
				   -IPC_ETIMEDOUT),
			  1);
		return;
	}
	t.answer_all();
}

enum Event {
	E_SYNC_UNWANTED, /* allmulti off, still up, no sa_notices */
	E_SYNC_DOWN, /* the interface went down */
	E_SYNC_NO_SA, /* the mode wanted, no SA (RoCE) */
	E_SYNC, /* wanted, now */
	E_SYNC_AT_DEADLINE, /* wanted, at r.deadline_ms */
	E_STARTED_OK,
	E_STARTED_ERR,
	E_UNSENT,
	E_TABLE_OK,
	E_TABLE_ERR,
	E_SUB_OK,
	E_OTHER_ANSWER, /* a TID matched to no request */
	E_FLUSHED,
	E_STOP,
};

struct Row {
	Start from;
	Event ev;
	const char *to;
	uint32_t acts;
	int ret; /* of answer() and flushed(); -1: not asked */
};

uint32_t fire(AmT &t, Event e, int *ret)
{
	*ret = -1;
	switch (e) {
	case E_SYNC_UNWANTED:
		t.f.allmulti = 0;
		return t.sync();
	case E_SYNC_DOWN:
		t.f.up = 0;
		return t.sync();
	case E_SYNC_NO_SA:
		t.f.has_sa = 0;
		return t.sync();
	case E_SYNC:
		return t.sync();
	case E_SYNC_AT_DEADLINE:
		if (t.am.deadline_ms != IPC_NO_DEADLINE)
			t.now = t.am.deadline_ms;
		return t.sync();
	case E_STARTED_OK:
		return t.started(0);
	case E_STARTED_ERR:
		return t.started(-IPC_ENOMEM);
	case E_UNSENT:
		return t.unsent(-IPC_ENOMEM);
	case E_TABLE_OK:
		*ret = t.answer(0, 0);
		return *ret ? t.r.actions : 0;
	case E_TABLE_ERR:
		*ret = t.answer(0, -IPC_EPROTO);
		return *ret ? t.r.actions : 0;
	case E_SUB_OK:
		*ret = t.answer(IPC_TRAP_MCG_CREATED, 0);
		return *ret ? t.r.actions : 0;
	case E_OTHER_ANSWER:
		*ret = t.answer(5, 0);
		return *ret ? t.r.actions : 0;
	case E_FLUSHED:
		*ret = ipc_am_flushed(&t.am, t.now, 1000, &t.rng);
		return 0;
	case E_STOP:
		return t.stop(1);
	}
	return 0;
}

/* clang-format off */
const Row table[] = {
	{ S_OFF, E_SYNC_UNWANTED, "off", 0, -1 },
	{ S_OFF, E_SYNC_DOWN, "off", 0, -1 },
	{ S_OFF, E_SYNC_NO_SA, "off", LOG, -1 },
	{ S_OFF, E_SYNC, "starting", START, -1 },
	{ S_OFF, E_SYNC_AT_DEADLINE, "starting", START, -1 },
	{ S_OFF, E_STARTED_OK, "off", 0, -1 },
	{ S_OFF, E_STARTED_ERR, "off", 0, -1 },
	{ S_OFF, E_UNSENT, "off", 0, -1 },
	{ S_OFF, E_TABLE_OK, "off", 0, 0 },
	{ S_OFF, E_TABLE_ERR, "off", 0, 0 },
	{ S_OFF, E_SUB_OK, "off", 0, 0 },
	{ S_OFF, E_OTHER_ANSWER, "off", 0, 0 },
	{ S_OFF, E_FLUSHED, "off", 0, 0 },
	{ S_OFF, E_STOP, "off", 0, -1 },

	{ S_STARTING, E_SYNC_UNWANTED, "off", LEAVE, -1 },
	{ S_STARTING, E_SYNC_DOWN, "off", LEAVE, -1 },
	{ S_STARTING, E_SYNC_NO_SA, "off", LEAVE | LOG, -1 },
	{ S_STARTING, E_SYNC, "starting", 0, -1 },
	{ S_STARTING, E_SYNC_AT_DEADLINE, "starting", 0, -1 },
	{ S_STARTING, E_STARTED_OK, "querying", SUB | READ, -1 },
	{ S_STARTING, E_STARTED_ERR, "backoff", LOG, -1 },
	{ S_STARTING, E_UNSENT, "starting", 0, -1 },
	{ S_STARTING, E_TABLE_OK, "starting", 0, 0 },
	{ S_STARTING, E_TABLE_ERR, "starting", 0, 0 },
	{ S_STARTING, E_SUB_OK, "starting", 0, 0 },
	{ S_STARTING, E_OTHER_ANSWER, "starting", 0, 0 },
	{ S_STARTING, E_FLUSHED, "starting", 0, 1 },
	{ S_STARTING, E_STOP, "off", LEAVE, -1 },

	{ S_QUERYING, E_SYNC_UNWANTED, "off", STOP | LEAVE, -1 },
	{ S_QUERYING, E_SYNC_DOWN, "off", STOP | LEAVE, -1 },
	{ S_QUERYING, E_SYNC_NO_SA, "off", STOP | LEAVE | LOG, -1 },
	{ S_QUERYING, E_SYNC, "querying", 0, -1 },
	{ S_QUERYING, E_SYNC_AT_DEADLINE, "querying", 0, -1 },
	{ S_QUERYING, E_STARTED_OK, "querying", 0, -1 },
	{ S_QUERYING, E_STARTED_ERR, "querying", 0, -1 },
	{ S_QUERYING, E_UNSENT, "backoff", LOG, -1 },
	{ S_QUERYING, E_TABLE_OK, "querying", SWEEP, 1 },
	{ S_QUERYING, E_TABLE_ERR, "backoff", LOG, 1 },
	{ S_QUERYING, E_SUB_OK, "querying", 0, 1 },
	{ S_QUERYING, E_OTHER_ANSWER, "querying", 0, 0 },
	{ S_QUERYING, E_FLUSHED, "backoff", 0, 1 },
	{ S_QUERYING, E_STOP, "off", STOP | LEAVE, -1 },

	{ S_ON, E_SYNC_UNWANTED, "off", UNSUB | STOP | LEAVE, -1 },
	{ S_ON, E_SYNC_DOWN, "off", STOP | LEAVE, -1 },
	{ S_ON, E_SYNC_NO_SA, "off", UNSUB | STOP | LEAVE | LOG, -1 },
	{ S_ON, E_SYNC, "on", 0, -1 },
	{ S_ON, E_SYNC_AT_DEADLINE, "on", 0, -1 },
	{ S_ON, E_STARTED_OK, "on", 0, -1 },
	{ S_ON, E_STARTED_ERR, "on", 0, -1 },
	{ S_ON, E_UNSENT, "on", 0, -1 },
	{ S_ON, E_TABLE_OK, "on", 0, 0 },
	{ S_ON, E_TABLE_ERR, "on", 0, 0 },
	{ S_ON, E_SUB_OK, "on", 0, 0 },
	{ S_ON, E_OTHER_ANSWER, "on", 0, 0 },
	{ S_ON, E_FLUSHED, "backoff", 0, 1 },
	{ S_ON, E_STOP, "off", UNSUB | STOP | LEAVE, -1 },

	{ S_BACKOFF, E_SYNC_UNWANTED, "off", STOP | LEAVE, -1 },
	{ S_BACKOFF, E_SYNC_DOWN, "off", STOP | LEAVE, -1 },
	{ S_BACKOFF, E_SYNC_NO_SA, "off", STOP | LEAVE | LOG, -1 },
	{ S_BACKOFF, E_SYNC, "backoff", 0, -1 },
	{ S_BACKOFF, E_SYNC_AT_DEADLINE, "querying", SUB | READ, -1 },
	{ S_BACKOFF, E_STARTED_OK, "backoff", 0, -1 },
	{ S_BACKOFF, E_STARTED_ERR, "backoff", 0, -1 },
	{ S_BACKOFF, E_UNSENT, "backoff", 0, -1 },
	{ S_BACKOFF, E_TABLE_OK, "backoff", 0, 0 },
	{ S_BACKOFF, E_TABLE_ERR, "backoff", 0, 0 },
	{ S_BACKOFF, E_SUB_OK, "backoff", 0, 0 },
	{ S_BACKOFF, E_OTHER_ANSWER, "backoff", 0, 0 },
	{ S_BACKOFF, E_FLUSHED, "backoff", 0, 1 },
	{ S_BACKOFF, E_STOP, "off", STOP | LEAVE, -1 },

	{ S_BACKOFF_NOAGENT, E_SYNC_UNWANTED, "off", LEAVE, -1 },
	{ S_BACKOFF_NOAGENT, E_SYNC_DOWN, "off", LEAVE, -1 },
	{ S_BACKOFF_NOAGENT, E_SYNC_NO_SA, "off", LEAVE | LOG, -1 },
	{ S_BACKOFF_NOAGENT, E_SYNC, "backoff", 0, -1 },
	{ S_BACKOFF_NOAGENT, E_SYNC_AT_DEADLINE, "starting", START, -1 },
	{ S_BACKOFF_NOAGENT, E_STARTED_OK, "backoff", 0, -1 },
	{ S_BACKOFF_NOAGENT, E_STARTED_ERR, "backoff", 0, -1 },
	{ S_BACKOFF_NOAGENT, E_UNSENT, "backoff", 0, -1 },
	{ S_BACKOFF_NOAGENT, E_TABLE_OK, "backoff", 0, 0 },
	{ S_BACKOFF_NOAGENT, E_TABLE_ERR, "backoff", 0, 0 },
	{ S_BACKOFF_NOAGENT, E_SUB_OK, "backoff", 0, 0 },
	{ S_BACKOFF_NOAGENT, E_OTHER_ANSWER, "backoff", 0, 0 },
	{ S_BACKOFF_NOAGENT, E_FLUSHED, "backoff", 0, 1 },
	{ S_BACKOFF_NOAGENT, E_STOP, "off", LEAVE, -1 },
};
/* clang-format on */

TEST(allmulti, every_state_against_every_event)
{
	const size_t states = S_BACKOFF_NOAGENT + 1, events = E_STOP + 1;

	ASSERT_EQ(sizeof(table) / sizeof(table[0]), states * events);
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		const Row &row = table[i];
		AmT t;
		int ret;

		/* Each pair once, in order: the table is complete. */
		ASSERT_EQ(row.from, static_cast<int>(i / events)) << i;
		ASSERT_EQ(row.ev, static_cast<int>(i % events)) << i;
		reach(t, row.from);
		uint32_t a = fire(t, row.ev, &ret);
		EXPECT_EQ(acts(a), acts(row.acts)) << "row " << i;
		EXPECT_EQ(t.state(), row.to) << "row " << i;
		EXPECT_EQ(ret, row.ret) << "row " << i;
		/* Off holds nothing, and nothing is awaited. */
		if (t.am.state == IPC_AM_OFF) {
			EXPECT_EQ(t.am.agent, 0) << "row " << i;
			EXPECT_EQ(t.am.deadline_ms, IPC_NO_DEADLINE) << i;
		}
		/* Every failure logs the same way and says when it retries. */
		if (a & LOG && row.ev != E_SYNC_NO_SA) {
			EXPECT_EQ(t.state(), "backoff") << i;
			EXPECT_EQ(t.r.reason, IPC_AM_LOG_FAILED) << i;
			EXPECT_EQ(t.r.deadline_ms, t.am.deadline_ms) << i;
			EXPECT_GT(t.r.deadline_ms, t.now) << i;
		}
	}
}

TEST(allmulti, mode_from_the_flags)
{
	/*
	 * s11 is IFF_ALLMULTI; IFF_PROMISC (tcpdump) only when asked. With
	 * sa_notices (s10), up on a port with an SA, the machine starts
	 * whatever the flags.
	 */
	const struct {
		uint8_t up, allmulti, promisc, promisc_too;
		bool in;
	} cases[] = {
		{ 1, 1, 0, 0, true },  { 1, 1, 1, 0, true },
		{ 1, 0, 1, 0, false }, { 1, 0, 1, 1, true },
		{ 1, 0, 0, 1, false }, { 0, 1, 1, 1, false },
	};
	for (uint8_t notices : { 0, 1 }) {
		for (const auto &c : cases) {
			AmT t;
			t.f.up = c.up;
			t.f.allmulti = c.allmulti;
			t.f.promisc = c.promisc;
			t.f.promisc_too = c.promisc_too;
			t.f.notices = notices;
			EXPECT_EQ(t.sync(),
				  (notices ? c.up : c.in) ? START : 0u)
				<< int(c.up) << int(c.allmulti)
				<< int(c.promisc) << int(c.promisc_too)
				<< int(notices);
			EXPECT_EQ(t.am.dir, c.in ? 1 : 0);
		}
	}
}

TEST(allmulti, roce_is_told_once)
{
	AmT t;
	t.f.has_sa = 0;
	EXPECT_EQ(t.sync(), LOG);
	EXPECT_EQ(t.r.reason, IPC_AM_LOG_NO_SA);
	EXPECT_EQ(t.sync(), 0u);
	EXPECT_EQ(t.state(), "off");
}

/* A subscription answered badly fails the query as the table does. */
TEST(allmulti, a_subscription_refused_fails_the_query)
{
	AmT t;
	reach(t, S_QUERYING);
	EXPECT_EQ(t.answer(IPC_TRAP_MCG_DELETED, -IPC_EPROTO), 1);
	EXPECT_EQ(t.r.actions, LOG);
	EXPECT_EQ(t.state(), "backoff");
	/* What was in flight is stale now. */
	EXPECT_EQ(t.answer(0, 0), 0);
	EXPECT_EQ(t.answer(IPC_TRAP_MCG_CREATED, 0), 0);
}

/* On only when all three answered, in any order; the sweep after the table. */
TEST(allmulti, on_after_the_three_answers_in_any_order)
{
	const int orders[][3] = { { 0, 66, 67 }, { 66, 0, 67 }, { 67, 66, 0 } };
	for (const auto &o : orders) {
		AmT t;
		reach(t, S_QUERYING);
		for (int k = 0; k < 3; k++) {
			EXPECT_EQ(t.state(), "querying");
			ASSERT_EQ(t.answer(o[k], 0), 1);
			EXPECT_EQ(t.r.actions, o[k] == 0 ? SWEEP : 0u);
			/* The same answer twice is not awaited. */
			EXPECT_EQ(t.answer(o[k], 0), 0);
		}
		EXPECT_EQ(t.state(), "on");
	}
}

/*
 * Failures in a row back off exponentially with equal jitter, up to the
 * cap; a good query ends the series, and the next failure starts low.
 */
TEST(allmulti, backoff_grows_to_the_cap_then_resets)
{
	AmT t;
	reach(t, S_QUERYING);
	for (uint32_t n = 1; n <= 12; n++) {
		ASSERT_EQ(t.answer(0, -IPC_ETIMEDOUT), 1);
		uint64_t d = t.am.deadline_ms - t.now;
		uint64_t ceil = std::min<uint64_t>(
			IPC_AM_RETRY_CAP_MS, uint64_t(IPC_AM_RETRY_BASE_MS)
						     << (n - 1));
		EXPECT_GE(d, ceil / 2) << n;
		EXPECT_LE(d, ceil) << n;
		/* Not before the deadline. */
		t.now = t.am.deadline_ms - 1;
		EXPECT_EQ(t.sync(), 0u);
		t.now++;
		ASSERT_EQ(t.sync(), SUB | READ) << n;
	}
	t.answer_all();
	EXPECT_EQ(t.am.attempts, 0);
	t.f.up = 0;
	t.sync();
	t.f.up = 1;
	reach(t, S_BACKOFF);
	EXPECT_LE(t.am.deadline_ms - t.now, IPC_AM_RETRY_BASE_MS);
}

/*
 * Up before the SM (the port not active, no SM LID): the requests are not
 * sent, and that is no failure: no log, no attempt, asked again after the
 * base delay, or sooner when the port's activation flushes.
 */
TEST(allmulti, no_sm_yet_waits_quietly)
{
	AmT t;
	t.f.allmulti = 0;
	t.f.notices = 1;
	ASSERT_EQ(t.sync(), START);
	ASSERT_EQ(t.started(0), SUB);
	EXPECT_EQ(t.unsent(-IPC_ENETDOWN), 0u);
	EXPECT_EQ(t.state(), "backoff");
	EXPECT_EQ(t.am.attempts, 0);
	EXPECT_EQ(t.r.deadline_ms, t.now + IPC_AM_RETRY_BASE_MS);
	for (int i = 0; i < 5; i++) {
		t.now = t.am.deadline_ms;
		ASSERT_EQ(t.sync(), SUB);
		EXPECT_EQ(t.unsent(-IPC_ENETDOWN), 0u);
		EXPECT_EQ(t.r.deadline_ms, t.now + IPC_AM_RETRY_BASE_MS);
	}
	/* The SM comes: the flush asks at once (no spread here). */
	ASSERT_EQ(ipc_am_flushed(&t.am, t.now, 0, &t.rng), 1);
	ASSERT_EQ(t.sync(), SUB);
	t.answer_all();
	EXPECT_EQ(t.state(), "on");
}

/* No agent: the retry registers one again before it asks anything. */
TEST(allmulti, no_agent_retries_the_agent)
{
	AmT t;
	reach(t, S_BACKOFF_NOAGENT);
	EXPECT_EQ(t.am.agent, 0);
	t.now = t.am.deadline_ms;
	EXPECT_EQ(t.sync(), START);
	EXPECT_EQ(t.started(0), SUB | READ);
	EXPECT_EQ(t.am.agent, 1);
}

/* The most of the sorted times at that fall within one slot. */
size_t densest(const std::vector<uint64_t> &at, uint64_t slot)
{
	size_t worst = 0;
	for (size_t i = 0, j = 0; i < at.size(); i++) {
		while (at[j] + slot <= at[i])
			j++;
		worst = std::max(worst, i - j + 1);
	}
	return worst;
}

/*
 * Review M3 at fabric scale: routers that lost the SA together retry
 * spread over half the delay, not at one instant.
 */
TEST(allmulti, retries_of_many_routers_are_spread)
{
	std::vector<uint64_t> at;
	for (uint64_t seed = 1; seed <= 1000; seed++) {
		AmT t(seed);
		reach(t, S_BACKOFF);
		at.push_back(t.am.deadline_ms - t.now);
	}
	std::sort(at.begin(), at.end());
	EXPECT_GE(at.front(), IPC_AM_RETRY_BASE_MS / 2);
	EXPECT_LE(at.back(), IPC_AM_RETRY_BASE_MS);
	/*
	 * Any 1% of the window holds 10 of them on average; none more
	 * than 25.
	 */
	EXPECT_LE(densest(at, IPC_AM_RETRY_BASE_MS / 200), 25u);
}

/*
 * A flushed link subscribes and reads again, after a delay drawn from the
 * spread: not a failure (no attempt, no log).
 */
TEST(allmulti, flushed_queries_again)
{
	AmT t;
	reach(t, S_ON);
	uint32_t gen = ipc_am_gen(&t.am);
	EXPECT_EQ(ipc_am_flushed(&t.am, t.now, 10000, &t.rng), 1);
	EXPECT_EQ(t.state(), "backoff");
	EXPECT_EQ(t.am.attempts, 0);
	ASSERT_LT(t.am.deadline_ms, t.now + 10000);
	/* An answer to what was in flight is stale now. */
	EXPECT_EQ(t.answer(0, 0), 0);
	t.now = t.am.deadline_ms - 1;
	EXPECT_EQ(t.sync(), 0u);
	EXPECT_EQ(t.r.deadline_ms, t.am.deadline_ms);
	t.now++;
	EXPECT_EQ(t.sync(), SUB | READ);
	EXPECT_EQ(ipc_am_gen(&t.am), gen + 1);
	t.answer_all();
	EXPECT_EQ(t.sync(), 0u);
	/* No spread: at once. */
	EXPECT_EQ(ipc_am_flushed(&t.am, t.now, 0, &t.rng), 1);
	EXPECT_EQ(t.sync(), SUB | READ);
	t.answer_all();
	/* While starting, the start queries anyway: once. */
	EXPECT_EQ(t.stop(1), UNSUB | STOP | LEAVE);
	reach(t, S_STARTING);
	EXPECT_EQ(ipc_am_flushed(&t.am, t.now, 10000, &t.rng), 1);
	EXPECT_EQ(t.started(0), SUB | READ);
	t.answer_all();
	EXPECT_EQ(t.sync(), 0u);
}

/*
 * A fabric's client reregister reaches every node at once: their
 * subscriptions (two MADs each) come back spread over the window, as
 * their rejoins do, not in one instant at the SA.
 */
TEST(allmulti, flushed_subscriptions_are_spread)
{
	const uint32_t spread = 10000;
	std::vector<uint64_t> at;
	for (uint64_t seed = 1; seed <= 1000; seed++) {
		AmT t(seed);
		t.f.allmulti = 0;
		t.f.notices = 1;
		t.sync();
		t.started(0);
		EXPECT_EQ(t.answer(IPC_TRAP_MCG_CREATED, 0), 1);
		EXPECT_EQ(t.answer(IPC_TRAP_MCG_DELETED, 0), 1);
		ASSERT_EQ(t.state(), "on");
		ASSERT_EQ(ipc_am_flushed(&t.am, t.now, spread, &t.rng), 1);
		at.push_back(t.am.deadline_ms - t.now);
	}
	std::sort(at.begin(), at.end());
	EXPECT_LT(at.back(), spread);
	/* Any 1% of the window holds 10 on average; none more than 25. */
	EXPECT_LE(densest(at, spread / 100), 25u);
	EXPECT_LT(at.front(), spread / 10);
	EXPECT_GT(at.back(), spread - spread / 10);
}

/*
 * RFC 4391 s10: "Senders MUST subscribe to the multicast group create and
 * delete traps". With sa_notices, up on a port with an SA, out of the
 * mode: the two subscriptions, no directory; the mode entered later reads
 * it, left leaves its groups and keeps the subscriptions; down cancels
 * them.
 */
TEST(allmulti, senders_subscribe_without_the_mode)
{
	AmT t;
	t.f.allmulti = 0;
	t.f.notices = 1;
	EXPECT_EQ(t.sync(), START);
	EXPECT_EQ(t.started(0), SUB);
	EXPECT_EQ(t.state(), "querying");
	EXPECT_EQ(t.answer(0, 0), 0); /* no table asked */
	EXPECT_EQ(t.answer(IPC_TRAP_MCG_CREATED, 0), 1);
	EXPECT_EQ(t.answer(IPC_TRAP_MCG_DELETED, 0), 1);
	EXPECT_EQ(t.r.actions, 0u);
	EXPECT_EQ(t.state(), "on");
	EXPECT_EQ(t.sync(), 0u);
	EXPECT_EQ(t.r.deadline_ms, IPC_NO_DEADLINE);
	struct ipc_view v;
	ipc_am_view(&t.am, &v);
	EXPECT_EQ(v.want, 0);
	/* The mode: the directory read, the subscriptions stand. */
	t.f.allmulti = 1;
	EXPECT_EQ(t.sync(), READ);
	EXPECT_EQ(t.state(), "querying");
	EXPECT_EQ(t.answer(0, 0), 1);
	EXPECT_EQ(t.r.actions, SWEEP);
	EXPECT_EQ(t.state(), "on");
	ipc_am_view(&t.am, &v);
	EXPECT_EQ(v.want, 1);
	/* Out of it, with a read in flight: its groups left, it dropped. */
	ASSERT_EQ(ipc_am_flushed(&t.am, t.now, 0, &t.rng), 1);
	ASSERT_EQ(t.sync(), SUB | READ);
	t.f.allmulti = 0;
	EXPECT_EQ(t.sync(), LEAVE);
	EXPECT_EQ(t.answer(0, 0), 0);
	EXPECT_EQ(t.answer(IPC_TRAP_MCG_CREATED, 0), 1);
	EXPECT_EQ(t.answer(IPC_TRAP_MCG_DELETED, 0), 1);
	EXPECT_EQ(t.state(), "on");
	/* The last answer awaited was the table: on when it is dropped. */
	t.f.allmulti = 1;
	ASSERT_EQ(ipc_am_flushed(&t.am, t.now, 0, &t.rng), 1);
	ASSERT_EQ(t.sync(), SUB | READ);
	EXPECT_EQ(t.answer(IPC_TRAP_MCG_CREATED, 0), 1);
	EXPECT_EQ(t.answer(IPC_TRAP_MCG_DELETED, 0), 1);
	t.f.allmulti = 0;
	EXPECT_EQ(t.sync(), LEAVE);
	EXPECT_EQ(t.state(), "on");
	/* Down: cancelled while the QP can send (ipc_am_stop). */
	EXPECT_EQ(t.stop(1), UNSUB | STOP | LEAVE);
	EXPECT_EQ(t.state(), "off");
	/* Held by another interface of the port too: not cancelled. */
	EXPECT_EQ(t.sync(), START);
	EXPECT_EQ(t.started(0), SUB);
	t.answer_all();
	t.f.shared = 1;
	EXPECT_EQ(t.stop(1), STOP | LEAVE);
	/*
	 * Not known to the SA (a flush since, unanswered, or failed): not
	 * cancelled either (OpenSM logs the cancellation of one it lacks).
	 */
	t.f.shared = 0;
	EXPECT_EQ(t.sync(), START);
	EXPECT_EQ(t.started(0), SUB);
	EXPECT_EQ(t.stop(1), STOP | LEAVE);
	EXPECT_EQ(t.sync(), START);
	EXPECT_EQ(t.started(0), SUB);
	t.answer_all();
	ASSERT_EQ(ipc_am_flushed(&t.am, t.now, 1000, &t.rng), 1);
	EXPECT_EQ(t.stop(1), STOP | LEAVE);
	EXPECT_EQ(t.sync(), START);
	EXPECT_EQ(t.started(0), SUB);
	EXPECT_EQ(t.answer(IPC_TRAP_MCG_CREATED, 0), 1);
	EXPECT_EQ(t.answer(IPC_TRAP_MCG_DELETED, -IPC_ETIMEDOUT), 1);
	EXPECT_EQ(t.stop(1), STOP | LEAVE);
	/* sa_notices off, out of the mode: the machine stops. */
	EXPECT_EQ(t.sync(), START);
	EXPECT_EQ(t.started(0), SUB);
	t.answer_all();
	t.f.notices = 0;
	EXPECT_EQ(t.sync(), UNSUB | STOP | LEAVE);
	/* RoCE, out of the mode: nothing, not even the message. */
	AmT roce;
	roce.f.allmulti = 0;
	roce.f.has_sa = 0;
	EXPECT_EQ(roce.sync(), 0u);
	EXPECT_EQ(roce.state(), "off");
}

/*
 * Reports refused (beyond the notice rate) since the last read: read the
 * directory again IPC_NOTICE_QUIET_MS after the last refusal, the table
 * alone (the subscriptions stand).
 */
TEST(allmulti, reread_after_reports_refused)
{
	AmT t;
	t.now = 5000;
	ipc_notice_rate_init(&t.rate, t.now);
	reach(t, S_ON);
	for (unsigned int i = 0; i < IPC_NOTICE_BURST; i++)
		ASSERT_EQ(ipc_notice_admit(&t.rate, t.now), 1) << i;
	/* Nothing refused: no re-read, no deadline. */
	EXPECT_EQ(t.sync(), 0u);
	EXPECT_EQ(t.r.deadline_ms, IPC_NO_DEADLINE);
	const uint64_t t0 = t.now;
	EXPECT_EQ(ipc_notice_admit(&t.rate, t0), 0);
	EXPECT_EQ(t.sync(), 0u);
	EXPECT_EQ(t.r.deadline_ms, t0 + IPC_NOTICE_QUIET_MS);
	/* A later refusal: the re-read waits for the quiet after it. */
	EXPECT_EQ(ipc_notice_admit(&t.rate, t0 + 50), 0);
	t.now = t0 + 1999;
	EXPECT_EQ(t.sync(), 0u);
	EXPECT_EQ(t.r.deadline_ms, t0 + 50 + IPC_NOTICE_QUIET_MS);
	t.now = t0 + 2050;
	EXPECT_EQ(t.sync(), READ);
	EXPECT_EQ(t.state(), "querying");
	/* Not twice while it is in flight. */
	t.now += 10000;
	EXPECT_EQ(t.sync(), 0u);
	EXPECT_EQ(t.answer(0, 0), 1);
	EXPECT_EQ(t.r.actions, SWEEP);
	EXPECT_EQ(t.state(), "on");
	/* Read after the refusals: none since. */
	EXPECT_EQ(t.sync(), 0u);
	EXPECT_EQ(t.r.deadline_ms, IPC_NO_DEADLINE);
}

/*
 * A storm that does not stop: the directory is read again every
 * IPC_NOTICE_REREAD_MAX_MS, not never; after it, once quiet.
 */
TEST(allmulti, reread_in_a_storm_at_the_latest)
{
	AmT t;
	std::vector<uint64_t> reads;

	t.now = 500;
	reach(t, S_ON);
	while (ipc_notice_admit(&t.rate, 1000))
		; /* the first refused at 1000 */
	/* 200 a second for 40 s: 10 a second acted on, the rest refused. */
	for (t.now = 1000; t.now < 41000; t.now += 5) {
		ipc_notice_admit(&t.rate, t.now);
		if (t.sync() == READ) {
			reads.push_back(t.now);
			ASSERT_EQ(t.answer(0, 0), 1);
		}
	}
	ASSERT_EQ(reads.size(), 3u);
	for (size_t i = 0; i < reads.size(); i++)
		EXPECT_EQ(reads[i], 1000 + (i + 1) * IPC_NOTICE_REREAD_MAX_MS)
			<< i;
	/* The storm ended at 40995: read at 41000, the latest; then none. */
	EXPECT_EQ(t.sync(), READ);
	t.answer(0, 0);
	t.now += 60000;
	EXPECT_EQ(t.sync(), 0u);
	EXPECT_EQ(t.r.deadline_ms, IPC_NO_DEADLINE);
}

/* The shim's side of a group: an entry and the mark of the last read. */
struct Group {
	struct ipc_mc mc;
	uint32_t gen = 0;
	bool exists = false;
};

struct GroupsT : AmT {
	struct ipc_mc_cfg cfg;
	struct ipc_am_link k = {};
	Bytes bcast = Bytes(BCAST, BCAST + 16);

	GroupsT()
	{
		ipc_mc_cfg_default(&cfg);
		k.bcast_gid = bcast.data();
		k.mc_cfg = &cfg;
		k.groups_max = 16;
		k.now = now;
	}
	/* What the shim does with a group the SA lists or announces. */
	uint32_t group(Group &g, const Bytes &m, int listed)
	{
		int v = ipc_am_group(&am, &k, m.data(), listed,
				     g.exists ? &g.mc : nullptr, &g.gen, &r);
		if (v == IPC_AM_GROUP_CREATE) {
			EXPECT_EQ(r.actions, 0u);
			ipc_mc_init(&g.mc, IPC_SCOPE_LINK);
			g.exists = true;
			v = ipc_am_group(&am, &k, m.data(), listed, &g.mc,
					 &g.gen, &r);
			EXPECT_EQ(v, 0);
		}
		return r.actions;
	}
	bool non(const Group &g) const
	{
		return g.exists && ipc_mc_wanted(&g.mc, IPC_JOIN_NON);
	}
};

TEST(allmulti, groups_of_this_link_only)
{
	const struct {
		Bytes g;
		bool joined;
	} cases[] = {
		{ mgid(2, 0x401b, 0xffff, 1), true },
		{ mgid(2, 0x601b, 0xffff, 1), true },
		/* Not the broadcast group (already FullMember). */
		{ Bytes(BCAST, BCAST + 16), false },
		/* Another P_Key, another scope, no IPoIB signature. */
		{ mgid(2, 0x401b, 0x8001, 1), false },
		{ mgid(5, 0x401b, 0xffff, 1), false },
		{ mgid(2, 0x1234, 0xffff, 1), false },
	};
	for (const auto &c : cases) {
		GroupsT t;
		Group g;
		reach(t, S_ON);
		uint32_t a = t.group(g, c.g, 1);
		EXPECT_EQ(t.non(g), c.joined);
		EXPECT_EQ(a != 0, c.joined);
		EXPECT_EQ(t.am.groups, c.joined ? 1u : 0u);
	}
	/* A site-scope link wants site-scope groups, not link-local ones. */
	GroupsT t;
	Group a, b;
	t.bcast[1] = 0x15;
	reach(t, S_ON);
	t.group(a, mgid(5, 0x601b, 0xffff, 9), 1);
	t.group(b, mgid(2, 0x601b, 0xffff, 9), 1);
	EXPECT_TRUE(t.non(a));
	EXPECT_FALSE(t.non(b));
	/* Not a multicast GID at all. */
	Group u;
	Bytes uni = mgid(2, 0x401b, 0xffff, 1);
	uni[0] = 0xfe;
	EXPECT_EQ(t.group(u, uni, 1), 0u);
	EXPECT_FALSE(u.exists);
}

/* Nothing is followed while the mode has no agent. */
TEST(allmulti, groups_only_in_the_mode)
{
	for (Start s : { S_OFF, S_STARTING, S_BACKOFF_NOAGENT }) {
		GroupsT t;
		Group g;
		reach(t, s);
		EXPECT_EQ(t.group(g, mgid(2, 0x401b, 0xffff, 1), 1), 0u);
		EXPECT_FALSE(g.exists);
	}
	/* With the agent up, during a query and after a failure, yes. */
	for (Start s : { S_QUERYING, S_ON, S_BACKOFF }) {
		GroupsT t;
		Group g;
		reach(t, s);
		t.group(g, mgid(2, 0x401b, 0xffff, 1), 1);
		EXPECT_TRUE(t.non(g)) << s;
	}
	/* Subscribed (s10) but out of the mode: no. */
	GroupsT t;
	Group g;
	t.f.allmulti = 0;
	t.f.notices = 1;
	reach(t, S_ON);
	EXPECT_EQ(t.group(g, mgid(2, 0x401b, 0xffff, 1), 1), 0u);
	EXPECT_FALSE(g.exists);
}

/*
 * Review M3: NonMember groups take at most 1/IPC_AM_GROUPS_SHARE of the
 * table; a group known already (the stack's) is joined anyway, and one
 * left makes room.
 */
TEST(allmulti, groups_bounded_to_their_share)
{
	GroupsT t;
	std::vector<Group> g(12);
	reach(t, S_ON);
	for (int i = 0; i < 12; i++)
		t.group(g[i], mgid(2, 0x401b, 0xffff, static_cast<uint8_t>(i)),
			1);
	int joined = 0;
	for (auto &x : g)
		joined += t.non(x);
	EXPECT_EQ(joined, 8);
	EXPECT_EQ(t.am.groups, 8u);
	EXPECT_FALSE(g[8].exists);
	/* The stack's group: an entry exists, FullMember; joined too. */
	Group stack;
	ipc_mc_init(&stack.mc, IPC_SCOPE_LINK);
	stack.exists = true;
	ipc_mc_subscribe(&stack.mc, &t.cfg, IPC_JOIN_FULL, t.now, &t.r);
	t.group(stack, mgid(2, 0x401b, 0xffff, 99), 1);
	EXPECT_TRUE(t.non(stack));
	EXPECT_EQ(t.am.groups, 9u);
	/* Deleted ones leave; then one more fits. */
	t.group(g[0], mgid(2, 0x401b, 0xffff, 0), 0);
	EXPECT_FALSE(t.non(g[0]));
	t.group(stack, mgid(2, 0x401b, 0xffff, 99), 0);
	EXPECT_TRUE(ipc_mc_wanted(&stack.mc, IPC_JOIN_FULL));
	EXPECT_EQ(t.am.groups, 7u);
	t.group(g[8], mgid(2, 0x401b, 0xffff, 8), 1);
	EXPECT_TRUE(t.non(g[8]));
	/* An evicted or torn-down entry is uncounted. */
	ipc_am_forget(&t.am, &g[8].mc);
	EXPECT_EQ(t.am.groups, 7u);
	ipc_am_forget(&t.am, &stack.mc);
	EXPECT_EQ(t.am.groups, 7u);
}

/*
 * The sweep after a complete read: the groups it did not list are gone
 * from the SA, unless a Report created them while it was in flight.
 */
TEST(allmulti, sweep_leaves_what_the_read_did_not_list)
{
	GroupsT t;
	Group listed, gone, created;
	reach(t, S_ON);
	t.group(listed, mgid(2, 0x401b, 0xffff, 1), 1);
	t.group(gone, mgid(2, 0x401b, 0xffff, 2), 1);
	/* A re-read: listed is in it; created comes by a Report meanwhile. */
	ASSERT_EQ(ipc_am_flushed(&t.am, t.now, 0, &t.rng), 1);
	ASSERT_EQ(t.sync(), SUB | READ);
	t.group(created, mgid(2, 0x401b, 0xffff, 3), 1);
	t.group(listed, mgid(2, 0x401b, 0xffff, 1), 1);
	ASSERT_EQ(t.answer(0, 0), 1);
	ASSERT_EQ(t.r.actions, SWEEP);
	for (Group *g : { &listed, &gone, &created })
		ipc_am_sweep(&t.am, &t.k, &g->mc, g->gen, &t.r);
	EXPECT_TRUE(t.non(listed));
	EXPECT_FALSE(t.non(gone));
	EXPECT_TRUE(t.non(created));
	EXPECT_EQ(t.am.groups, 2u);
}

/* Out of the mode: its memberships left, the stack's kept. */
TEST(allmulti, leave_all_keeps_the_stacks_groups)
{
	GroupsT t;
	Group mine, stack;
	reach(t, S_ON);
	t.group(mine, mgid(2, 0x401b, 0xffff, 1), 1);
	ipc_mc_init(&stack.mc, IPC_SCOPE_LINK);
	stack.exists = true;
	ipc_mc_subscribe(&stack.mc, &t.cfg, IPC_JOIN_FULL, t.now, &t.r);
	t.f.allmulti = 0;
	ASSERT_EQ(t.sync(), UNSUB | STOP | LEAVE);
	for (Group *g : { &mine, &stack })
		ipc_am_leave(&t.am, &t.k, &g->mc, &t.r);
	EXPECT_FALSE(t.non(mine));
	EXPECT_TRUE(ipc_mc_wanted(&stack.mc, IPC_JOIN_FULL));
	EXPECT_EQ(t.am.groups, 0u);
	/* A Report after it joins nothing. */
	Group late;
	EXPECT_EQ(t.group(late, mgid(2, 0x401b, 0xffff, 5), 1), 0u);
	EXPECT_FALSE(late.exists);
}

TEST(allmulti, view_and_names)
{
	AmT t;
	struct ipc_view v;
	reach(t, S_BACKOFF);
	ipc_am_view(&t.am, &v);
	EXPECT_STREQ(v.state, "backoff");
	EXPECT_EQ(v.attempts, 1);
	EXPECT_EQ(v.deadline_ms, t.am.deadline_ms);
	EXPECT_STREQ(ct::am_state_name(IPC_AM_STATE_COUNT), "unknown");
	EXPECT_STREQ(ct::am_state_name(0xff), "unknown");
}

} // namespace
