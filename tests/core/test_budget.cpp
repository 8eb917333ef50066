// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The SA request budget (budget.cpp): the bucket's arithmetic (refill,
 * cap, debt), the order of classes and of arrival, withdrawal, and the
 * bound it promises: over any window of t ms no more than
 * burst + rate * t / 1000 requests go.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <vector>

#include "core_test.hpp"

namespace
{

constexpr uint64_t T0 = 5000000;

struct Budget {
	struct ipc_sa_budget b;
	struct ipc_sa_budget_cfg c;
	ipc_u64 retry = 0;

	Budget(uint32_t rate, uint32_t burst)
	{
		c.rate = rate;
		c.burst = burst;
		ipc_sa_budget_init(&b, &c, T0);
	}
	int ask(uint64_t now, int cls)
	{
		return ipc_sa_budget_ask(&b, &c, now, cls, &retry);
	}
	int next(uint64_t now, int cls)
	{
		return ipc_sa_budget_next(&b, &c, now, cls, &retry);
	}
};

TEST(sa_budget, defaults)
{
	struct ipc_sa_budget_cfg c;
	ipc_sa_budget_cfg_default(&c);
	EXPECT_EQ(c.rate, 50u);
	EXPECT_EQ(c.burst, 128u);
}

TEST(sa_budget, burst_then_rate)
{
	Budget t(10, 4);
	for (int i = 0; i < 4; i++)
		EXPECT_EQ(t.ask(T0, IPC_SA_REFRESH), 1);
	EXPECT_EQ(t.ask(T0, IPC_SA_REFRESH), 0);
	/* One token every 100 ms. */
	EXPECT_EQ(t.retry, T0 + 100);
	EXPECT_EQ(t.b.waiting[IPC_SA_REFRESH], 1u);
	EXPECT_EQ(t.next(T0 + 99, IPC_SA_REFRESH), 0);
	EXPECT_EQ(t.retry, T0 + 100);
	EXPECT_EQ(t.next(T0 + 100, IPC_SA_REFRESH), 1);
	EXPECT_EQ(t.b.waiting[IPC_SA_REFRESH], 0u);
	/* A quiet minute fills it to the burst, no more. */
	for (int i = 0; i < 4; i++)
		EXPECT_EQ(t.ask(T0 + 60000, IPC_SA_WAITING), 1);
	EXPECT_EQ(t.ask(T0 + 60000, IPC_SA_WAITING), 0);
}

TEST(sa_budget, held_ahead_make_later_arrivals_wait)
{
	Budget t(10, 1);
	EXPECT_EQ(t.ask(T0, IPC_SA_REFRESH), 1);
	EXPECT_EQ(t.ask(T0, IPC_SA_REFRESH), 0); /* first held */
	EXPECT_EQ(t.retry, T0 + 100);
	EXPECT_EQ(t.ask(T0, IPC_SA_REFRESH), 0); /* second held */
	EXPECT_EQ(t.retry, T0 + 200);		 /* after the first's turn */
	/* A token came, but the held ones are first: a new one waits. */
	EXPECT_EQ(t.ask(T0 + 100, IPC_SA_REFRESH), 0);
	EXPECT_EQ(t.b.waiting[IPC_SA_REFRESH], 3u);
	EXPECT_EQ(t.next(T0 + 100, IPC_SA_REFRESH), 1);
}

TEST(sa_budget, classes_in_order_of_importance)
{
	Budget t(10, 1);
	EXPECT_EQ(t.ask(T0, IPC_SA_REFRESH), 1);
	EXPECT_EQ(t.ask(T0, IPC_SA_REFRESH), 0);
	EXPECT_EQ(t.ask(T0, IPC_SA_WAITING), 0);
	/* The broadcast group waits only for the token, not behind them. */
	EXPECT_EQ(t.ask(T0, IPC_SA_BCAST), 0);
	EXPECT_EQ(t.retry, T0 + 100);
	/* At the token: the refresh may not go while more important wait ... */
	EXPECT_EQ(t.next(T0 + 100, IPC_SA_REFRESH), 0);
	EXPECT_EQ(t.retry, T0 + 300); /* behind two more important ones */
	EXPECT_EQ(t.next(T0 + 100, IPC_SA_WAITING), 0);
	EXPECT_EQ(t.retry, T0 + 200);
	EXPECT_EQ(t.next(T0 + 100, IPC_SA_BCAST), 1);
	EXPECT_EQ(t.next(T0 + 200, IPC_SA_REFRESH), 0);
	EXPECT_EQ(t.next(T0 + 200, IPC_SA_WAITING), 1);
	EXPECT_EQ(t.next(T0 + 300, IPC_SA_REFRESH), 1);
	for (unsigned w : t.b.waiting)
		EXPECT_EQ(w, 0u);
	/* A broadcast join with only refreshes held goes with a token. */
	Budget u(10, 2);
	EXPECT_EQ(u.ask(T0, IPC_SA_REFRESH), 1);
	EXPECT_EQ(u.ask(T0 + 1, IPC_SA_BCAST), 1);
}

TEST(sa_budget, withdraw_lets_the_next_go)
{
	Budget t(10, 1);
	EXPECT_EQ(t.ask(T0, IPC_SA_REFRESH), 1);
	EXPECT_EQ(t.ask(T0, IPC_SA_WAITING), 0);
	EXPECT_EQ(t.ask(T0, IPC_SA_REFRESH), 0);
	ipc_sa_budget_withdraw(&t.b, IPC_SA_WAITING);
	EXPECT_EQ(t.next(T0 + 100, IPC_SA_REFRESH), 1);
	/* Withdrawing from an empty class, or a class out of range, is harmless. */
	ipc_sa_budget_withdraw(&t.b, IPC_SA_BCAST);
	ipc_sa_budget_withdraw(&t.b, 77);
	for (unsigned w : t.b.waiting)
		EXPECT_EQ(w, 0u);
}

TEST(sa_budget, charge_goes_into_debt_bounded)
{
	Budget t(10, 2);
	for (int i = 0; i < 10; i++)
		ipc_sa_budget_charge(&t.b, &t.c, T0);
	/* Debt down to -burst: 4 tokens short, 400 ms, then the first. */
	EXPECT_EQ(t.ask(T0, IPC_SA_BCAST), 0);
	EXPECT_EQ(t.retry, T0 + 300);
	EXPECT_EQ(t.next(T0 + 299, IPC_SA_BCAST), 0);
	EXPECT_EQ(t.next(T0 + 300, IPC_SA_BCAST), 1);
}

/* The burst lowered at run time (sa_burst): the saved tokens follow at once. */
TEST(sa_budget, lowered_burst_applies_at_once)
{
	Budget t(10, 100);
	t.c.burst = 2;
	EXPECT_EQ(t.ask(T0, IPC_SA_REFRESH), 1);
	EXPECT_EQ(t.ask(T0, IPC_SA_REFRESH), 1);
	EXPECT_EQ(t.ask(T0, IPC_SA_REFRESH), 0);
}

TEST(sa_budget, clock_going_back_adds_nothing)
{
	Budget t(1000, 1);
	EXPECT_EQ(t.ask(T0, IPC_SA_REFRESH), 1);
	EXPECT_EQ(t.ask(T0 - 5000, IPC_SA_REFRESH), 0);
	EXPECT_EQ(t.next(T0, IPC_SA_REFRESH), 0);
	EXPECT_EQ(t.next(T0 + 1, IPC_SA_REFRESH), 1);
}

TEST(sa_budget, zero_config_is_one_per_second)
{
	Budget t(0, 0);
	EXPECT_EQ(t.ask(T0, IPC_SA_REFRESH), 1);
	EXPECT_EQ(t.ask(T0, IPC_SA_REFRESH), 0);
	EXPECT_EQ(t.retry, T0 + 1000);
	/* Idle for years: no overflow, one token. */
	EXPECT_EQ(t.next(T0 + (1ull << 60), IPC_SA_REFRESH), 1);
	EXPECT_EQ(t.ask(T0 + (1ull << 60), IPC_SA_REFRESH), 0);
}

/*
 * The promise, under a random load of three classes: over every window
 * [a, a + w) no more than burst + rate * w / 1000 go; every request goes
 * eventually, in class order; within a class in order of arrival.
 */
TEST(sa_budget, bound_holds_under_random_load)
{
	const uint32_t rate = 50, burst = 16;
	Budget t(rate, burst);
	struct ipc_rng rng;
	ipc_rng_seed(&rng, 4242);
	std::deque<uint32_t> held[IPC_SA_CLASS_COUNT];
	std::vector<uint64_t> sent_at;
	std::vector<int> sent_cls;
	uint32_t id = 0, asked = 0;
	uint64_t wake = IPC_NO_DEADLINE;
	std::vector<uint32_t> order[IPC_SA_CLASS_COUNT];
	for (uint64_t now = T0; now < T0 + 60000; now++) {
		/* Serve what is held, most important first, when due. */
		if (now >= wake) {
			wake = IPC_NO_DEADLINE;
			for (int c = 0; c < IPC_SA_CLASS_COUNT; c++)
				while (!held[c].empty()) {
					if (!t.next(now, c)) {
						wake = std::min<uint64_t>(wake, t.retry);
						break;
					}
					order[c].push_back(held[c].front());
					held[c].pop_front();
					sent_at.push_back(now);
					sent_cls.push_back(c);
				}
		}
		/* Bursts of arrivals in the first 30 s. */
		if (now < T0 + 30000 && ipc_rng_next(&rng) % 100 < 8) {
			int c = ipc_rng_next(&rng) % IPC_SA_CLASS_COUNT;
			asked++;
			if (t.ask(now, c)) {
				order[c].push_back(id);
				sent_at.push_back(now);
				sent_cls.push_back(c);
			} else {
				held[c].push_back(id);
				wake = std::min<uint64_t>(wake, t.retry);
			}
			id++;
		}
	}
	EXPECT_EQ(sent_at.size(), asked);
	for (auto &h : held)
		EXPECT_TRUE(h.empty());
	for (auto &o : order)
		for (size_t i = 1; i < o.size(); i++)
			ASSERT_LT(o[i - 1], o[i]);
	for (uint64_t w : { 1ull, 10ull, 100ull, 1000ull, 10000ull }) {
		size_t lo = 0;
		for (size_t hi = 0; hi < sent_at.size(); hi++) {
			while (sent_at[hi] - sent_at[lo] >= w)
				lo++;
			ASSERT_LE(hi - lo + 1, burst + rate * w / 1000 + 1)
				<< "window " << w << " ms at " << sent_at[hi];
		}
	}
	/* The load exceeded the rate: the budget did hold some back. */
	EXPECT_GT(asked, rate * 30 + burst);
}

} // namespace
