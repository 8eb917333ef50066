// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Model tests: two and N nodes on a virtual clock driving the real path and
 * multicast machines against a simulated SA that delays, fails, drops and
 * reorders answers (sim/subnet_sim.hpp checks every action it performs).
 * The sim_h1 suite runs review H1's scenarios against the shim of 7312acf
 * (ShimConfig::old_path_contract) and the fixed one: the checker must
 * catch the first and find nothing in the second.
 */
#include <gtest/gtest.h>

#include "sim/subnet_sim.hpp"

using namespace sim;

namespace
{

constexpr uint64_t SEC = 1000;

/* 239.1.x.y (global scope) or 224.0.0.x (link-local). */
uint32_t group_ip(int i, bool link_local = false)
{
	return link_local ? 0xe0000000u | (100 + i) : 0xef010000u | i;
}

/* Send from src to dst every period_ms in [from, to). */
void unicast_stream(Subnet &net, int src, int dst, uint64_t from, uint64_t to,
		    uint64_t period_ms)
{
	for (uint64_t t = from; t < to; t += period_ms)
		net.loop.at(t,
			    [&net, src, dst] { net[src].send_unicast(dst); });
}

TEST(sim_two_node, first_packets_wait_for_the_path_in_order)
{
	Subnet net(2, 1);
	net.sa.cfg.min_delay_ms = 30;
	net.sa.cfg.max_delay_ms = 30;
	unicast_stream(net, 0, 1, 0, 100, 1); /* 100 packets in 100 ms */
	net.loop.run_until(10 * SEC);
	Stats s = net[0].stats;
	EXPECT_EQ(s.sent, 100u);
	/* The control work runs 1 ms after a kick: the query starts at 1,
	 * answers at 31 and is fed to the core at 32, after the packet of
	 * 32. Packets of t = 0..32 ms wait: 16 held, the 17 oldest dropped. */
	EXPECT_EQ(s.dropped[IPC_R_QUEUE_FULL], 17u);
	EXPECT_EQ(s.delivered, 83u);
	EXPECT_EQ(net.received, 83u);
	EXPECT_EQ(net.sa.path_queries, 1u);
	EXPECT_TRUE(net[0].path_valid(1));
	net.expect_accounted();
}

TEST(sim_two_node, sa_faults_then_recovery)
{
	Subnet net(2, 2);
	net.sa.cfg.min_delay_ms = 1;
	net.sa.cfg.max_delay_ms = 6000; /* past the 4 s query timeout */
	net.sa.cfg.fail_p = 0.3;
	net.sa.cfg.drop_p = 0.2;
	for (auto &n : net.nodes)
		n->pcfg.revalidate_ms = 20 * SEC; /* many revalidations */
	unicast_stream(net, 0, 1, 0, 600 * SEC, 100);
	unicast_stream(net, 1, 0, 50, 600 * SEC, 100);
	net.loop.run_until(300 * SEC);
	net.expect_accounted();
	/* Faults stop; once the paths are valid nothing is lost. */
	net.sa.cfg.fail_p = 0;
	net.sa.cfg.drop_p = 0;
	net.sa.cfg.max_delay_ms = 50;
	net.loop.run_until(340 * SEC);
	ASSERT_TRUE(net[0].path_valid(1));
	ASSERT_TRUE(net[1].path_valid(0));
	Stats before = net.total();
	net.loop.run_until(600 * SEC);
	Stats after = net.total();
	EXPECT_EQ(after.dropped_total(), before.dropped_total());
	EXPECT_EQ(after.delivered - before.delivered, after.sent - before.sent);
	net.expect_accounted();
	EXPECT_GT(net.sa.path_queries, 20u);
}

TEST(sim_two_node, unreachable_destination_is_held_down)
{
	Subnet net(2, 3);
	net.sa.cfg.path_exists = false;
	unicast_stream(net, 0, 1, 0, 60 * SEC, 100);
	net.loop.run_until(60 * SEC);
	Stats s = net[0].stats;
	EXPECT_EQ(s.delivered, 0u);
	EXPECT_GT(s.dropped[IPC_R_NO_ROUTE], 500u);
	/* Three queries per cycle, then a hold-down: far fewer queries
	 * than packets (600 packets). */
	EXPECT_LT(net.sa.path_queries, 40u);
	EXPECT_GE(net.sa.path_queries, 6u);
	/* The path appears: traffic flows within a hold-down or two. */
	net.sa.cfg.path_exists = true;
	unicast_stream(net, 0, 1, 60 * SEC, 120 * SEC, 100);
	net.loop.run_until(120 * SEC);
	EXPECT_TRUE(net[0].path_valid(1));
	EXPECT_GT(net[0].stats.delivered, 400u);
	net.expect_accounted();
}

TEST(sim_two_node, revalidation_and_light_flush_lose_nothing)
{
	Subnet net(2, 4);
	net.sa.cfg.max_delay_ms = 200;
	unicast_stream(net, 0, 1, 0, 300 * SEC, 10);
	net.loop.at(100 * SEC, [&net] { net[0].flush(0); });
	net.loop.at(100 * SEC + 5, [&net] { net[0].flush(0); }); /* twice */
	net.loop.run_until(301 * SEC);
	Stats s = net[0].stats;
	EXPECT_EQ(s.sent, 30000u);
	/* Only the very first packets can overflow the resolving queue. */
	EXPECT_EQ(s.delivered + s.dropped[IPC_R_QUEUE_FULL], s.sent);
	EXPECT_LE(s.dropped[IPC_R_QUEUE_FULL], 4u);
	/* 1 resolution + ~5 revalidations (60 s) + 2 flushes. */
	EXPECT_GE(net.sa.path_queries, 6u);
	EXPECT_LE(net.sa.path_queries, 9u);
	net.expect_accounted();
}

TEST(sim_two_node, idle_path_is_freed)
{
	Subnet net(2, 5);
	net[0].send_unicast(1);
	net.loop.run_until(SEC);
	EXPECT_EQ(net[0].npaths(), 1u);
	net.loop.run_until(net[0].pcfg.idle_ms + 2 * SEC);
	EXPECT_EQ(net[0].npaths(), 0u);
	net.expect_accounted();
}

TEST(sim_two_node, sendonly_sender_and_full_member_rfc4391_s10)
{
	Subnet net(2, 6);
	uint32_t g = group_ip(1);
	/* No member yet: the send-only join finds no group. */
	net[0].send_mcast(g);
	net.loop.run_until(SEC);
	EXPECT_EQ(net[0].mc_state(g), IPC_MC_MISSING);
	EXPECT_EQ(net[0].stats.dropped[IPC_R_NOT_JOINED], 1u);
	net[0].send_mcast(g); /* cached: dropped without asking */
	EXPECT_EQ(net.sa.joins, 1u);
	/* Node 1 subscribes; after the cache expires node 0 joins. */
	net[1].subscribe(g);
	net.loop.run_until(20 * SEC);
	EXPECT_EQ(net[1].mc_state(g), IPC_MC_JOINED);
	EXPECT_EQ(net[0].mc_state(g), -1); /* cache expired: freed */
	uint64_t before = net.received;
	for (int i = 0; i < 5; i++)
		net[0].send_mcast(g);
	net.loop.run_until(21 * SEC);
	EXPECT_EQ(net[0].mc_joined(g), IPC_JOIN_SENDONLY);
	EXPECT_EQ(net.received - before, 5u);
	/* Idle send-only membership expires. */
	net.loop.run_until(21 * SEC + net[0].mcfg.sendonly_idle_ms + SEC);
	EXPECT_EQ(net[0].mc_state(g), -1);
	net.expect_accounted();
	for (auto &n : net.nodes)
		n->destroy_all();
}

TEST(sim_two_node, off_link_scope_goes_to_routers)
{
	Subnet net(2, 7);
	uint32_t g = group_ip(9); /* global scope */
	net[0].routers_joined = true;
	net[0].send_mcast(g);
	net.loop.run_until(SEC);
	EXPECT_EQ(net[0].stats.to_routers, 1u);
	net[0].send_mcast(g);
	EXPECT_EQ(net[0].stats.to_routers, 2u);
	net.expect_accounted();
}

/*
 * N nodes, each a full member of a few groups and sending unicast and
 * multicast, under SA faults, then an SM failover: the SA forgets every
 * membership and every node flushes at the same instant.
 */
TEST(sim_n_node, client_reregister_converges_spread_and_loses_no_accounting)
{
	constexpr int N = 40, GROUPS = 8;
	constexpr uint32_t SPREAD = 5000;
	Subnet net(N, 8);
	net.sa.cfg.min_delay_ms = 5;
	net.sa.cfg.max_delay_ms = 400;
	net.sa.cfg.fail_p = 0.05;
	net.sa.cfg.drop_p = 0.02;
	std::mt19937_64 gen(8);
	for (int i = 0; i < N; i++)
		for (int k = 0; k < 3; k++)
			net[i].subscribe(group_ip((i + k * 3) % GROUPS));
	for (uint64_t t = 0; t < 180 * SEC; t += 50) {
		int src = gen() % N, dst = gen() % N;
		if (src != dst)
			net.loop.at(t, [&net, src, dst] {
				net[src].send_unicast(dst);
			});
		int g = gen() % GROUPS;
		net.loop.at(t + 25, [&net, src, g] {
			net[src].send_mcast(group_ip(g));
		});
	}
	net.loop.run_until(60 * SEC);
	net.sa.cfg.fail_p = 0;
	net.sa.cfg.drop_p = 0;
	net.loop.run_until(90 * SEC);
	for (int i = 0; i < N; i++)
		for (int k = 0; k < 3; k++)
			ASSERT_EQ(net[i].mc_joined(
					  group_ip((i + k * 3) % GROUPS)),
				  IPC_JOIN_FULL);
	/* SM failover at t = 90 s. */
	uint64_t joins_before = net.sa.joins;
	std::vector<uint64_t> joins_at(20, 0);
	net.loop.at(90 * SEC, [&net] {
		net.sa.forget_all();
		for (auto &n : net.nodes)
			n->flush(SPREAD);
	});
	for (int w = 0; w < 20; w++)
		net.loop.at(90 * SEC + w * 500 + 499, [&net, &joins_at, w] {
			joins_at[w] = net.sa.joins;
		});
	net.loop.run_until(100 * SEC);
	/* Every full membership came back within the spread plus one SA
	 * answer, and the joins were spread over the window: no half second
	 * carried more than a quarter of them (all-at-once would be 100%). */
	for (int i = 0; i < N; i++)
		for (int k = 0; k < 3; k++)
			EXPECT_EQ(net[i].mc_joined(
					  group_ip((i + k * 3) % GROUPS)),
				  IPC_JOIN_FULL);
	uint64_t prev = joins_before, total = joins_at[19] - joins_before;
	EXPECT_GE(total, uint64_t(N * 3));
	for (int w = 0; w < 20; w++) {
		EXPECT_LE(joins_at[w] - prev, total / 4) << "window " << w;
		prev = joins_at[w];
	}
	net.loop.run_until(200 * SEC);
	net.expect_accounted();
	Stats s = net.total();
	EXPECT_GT(s.delivered, s.sent / 2);
	for (auto &n : net.nodes)
		n->destroy_all();
	for (int g = 0; g < GROUPS; g++)
		EXPECT_FALSE(net.sa.exists(net[0].mgid_of(group_ip(g))));
}

/*
 * N nodes sending, subscribing, flushing and going down at random for
 * 600 s against an SA that answers after the timeouts, fails and drops.
 * The control work waits up to 1.5 s (rtnl), so a query timeout's CANCEL,
 * the retry's START and late answers merge, and light flushes meet them.
 */
void random_churn(Subnet &net, uint64_t seed, int n, int groups)
{
	net.sa.cfg.min_delay_ms = 1;
	net.sa.cfg.max_delay_ms = 12000; /* answers after join timeouts */
	net.sa.cfg.fail_p = 0.2;
	net.sa.cfg.drop_p = 0.1;
	net.shim.ctl_min_delay_ms = 1;
	net.shim.ctl_max_delay_ms = 1500;
	net.shim.cancel_race_p = 0.3;
	net.shim.query_now_p = 0.05;
	for (auto &nd : net.nodes) {
		nd->mcfg.queue_max = 4;
		nd->pcfg.queue_max = 4;
		nd->mcfg.sendonly_idle_ms = 5000;
		nd->pcfg.idle_ms = 20000;
		nd->pcfg.revalidate_ms = 7000;
	}
	std::mt19937_64 gen(seed);
	for (uint64_t t = 0; t < 600 * SEC; t += 20) {
		int a = gen() % n, b = gen() % n, g = gen() % groups;
		int op = gen() % 100;
		net.loop.at(t, [&net, a, b, g, op] {
			Node &nd = net[a];
			uint32_t m = group_ip(g, g % 2);
			nd.routers_joined = op & 1;
			if (op < 40 && a != b)
				nd.send_unicast(b);
			else if (op < 70)
				nd.send_mcast(m);
			else if (op < 80)
				nd.subscribe(m, op < 77 ? IPC_JOIN_FULL :
							  IPC_JOIN_NON);
			else if (op < 90)
				nd.unsubscribe(m, op < 87 ? IPC_JOIN_FULL :
							    IPC_JOIN_NON);
			else if (op < 92)
				nd.flush(op == 90 ? 0 : 3000);
			else if (op == 92)
				nd.destroy_all();
		});
	}
	net.loop.run_until(600 * SEC);
}

TEST(sim_n_node, random_churn_keeps_invariants)
{
	constexpr int N = 12, GROUPS = 6;
	Subnet net(N, 9);
	random_churn(net, 9, N, GROUPS);
	net.expect_accounted();
	Stats s = net.total();
	EXPECT_GT(s.delivered, 1000u);
	EXPECT_GT(s.dropped[IPC_R_QUEUE_FULL], 0u);
	EXPECT_GT(s.dropped[IPC_R_NO_ROUTE] + s.dropped[IPC_R_NOT_JOINED], 0u);
	/* The races of review H1 happened, and the shim kept its contract
	 * (every violation is a failure already; strict is the default). */
	ShimStats sh = net.shim_total();
	EXPECT_GT(sh.cancel_and_query, 0u);
	EXPECT_GT(sh.cancel_and_done, 0u);
	EXPECT_GT(sh.stale_answers, 0u);
	EXPECT_GT(sh.queries_now, 0u);
	EXPECT_EQ(sh.violations_total(), 0u);
	for (auto &n : net.nodes)
		n->destroy_all();
	/* Let cancelled joins come back: the shim frees what they made. */
	net.loop.run_until(700 * SEC);
	for (int g = 0; g < GROUPS; g++) {
		EXPECT_FALSE(net.sa.exists(net[0].mgid_of(group_ip(g))));
		EXPECT_FALSE(net.sa.exists(net[0].mgid_of(group_ip(g, true))));
	}
	for (auto &n : net.nodes)
		EXPECT_EQ(n->queries_outstanding(), 0u);
}

/* ---- review H1: the shim of 7312acf is caught, the fixed one is clean -- */

/* A two-node subnet whose checker counts instead of failing. */
struct H1Net : Subnet {
	H1Net(bool old_contract, uint32_t sa_delay_ms)
		: Subnet(2, 21)
	{
		shim.old_path_contract = old_contract;
		shim.strict = false;
		sa.cfg.min_delay_ms = sa_delay_ms;
		sa.cfg.max_delay_ms = sa_delay_ms;
	}
};

/*
 * The review's trigger: a light flush (SM change, client reregister; GID
 * change on RoCE) while a path resolves, then interface down.
 *   t = 0    tx: START_QUERY, Q1 starts at 1 and answers at 301
 *   t = 50   light flush: CANCEL_QUERY | START_QUERY, Q2 answers at 350
 *   t = 320  interface down: the path is freed
 * 7312acf skips the cancel (Q1 and Q2 outstanding), feeds Q1's answer to
 * the core at 302, frees the path with Q2 outstanding, and Q2's callback
 * runs on the freed path at 350.
 */
TEST(sim_h1, light_flush_while_resolving)
{
	for (bool old : { true, false }) {
		SCOPED_TRACE(old ? "7312acf" : "fixed");
		H1Net net(old, 300);
		net[0].send_unicast(1);
		net.loop.at(50, [&net] { net[0].flush(0); });
		net.loop.at(320, [&net] { net[0].destroy_all(); });
		net.loop.run_until(340);
		EXPECT_EQ(net[0].npaths(), 0u);
		EXPECT_EQ(net[0].queries_outstanding(), old ? 1u : 0u);
		net.loop.run_until(2 * SEC);
		EXPECT_EQ(net.sa.path_queries, 2u);
		EXPECT_EQ(net[0].queries_outstanding(), 0u);
		ShimStats sh = net.shim_total();
		const uint64_t *v = sh.violations;
		if (old) {
			EXPECT_EQ(v[V_TWO_QUERIES], 1u);
			EXPECT_EQ(v[V_CANCELLED_ANSWER], 1u);
			EXPECT_EQ(v[V_FREE_WITH_QUERY], 1u);
			EXPECT_EQ(v[V_USE_AFTER_FREE], 1u);
			EXPECT_EQ(v[V_OTHER], 0u);
			/* Q1's stale answer made the path valid. */
			EXPECT_EQ(net[0].stats.delivered, 1u);
		} else {
			EXPECT_EQ(sh.violations_total(), 0u);
			EXPECT_EQ(net[0].stats.dropped[IPC_R_LINK_DOWN], 1u);
		}
		net.expect_accounted();
	}
}

/*
 * No flush needed: the control work waits 1.5 s for rtnl, so a
 * RESOLVING timeout's CANCEL_QUERY (t = 4000) and the retry's
 * START_QUERY (t = 4500..5000) run together at 5500, while Q1 (started
 * at 1500, answering at 6500) is outstanding.
 */
TEST(sim_h1, timeout_and_retry_merge_in_one_run)
{
	for (bool old : { true, false }) {
		SCOPED_TRACE(old ? "7312acf" : "fixed");
		H1Net net(old, 5000);
		net.shim.ctl_min_delay_ms = 1500;
		net.shim.ctl_max_delay_ms = 1500;
		net[0].send_unicast(1);
		net.loop.run_until(5400);
		EXPECT_EQ(net[0].path_state(1), IPC_PATH_RESOLVING);
		net.loop.at(9000, [&net] { net[0].destroy_all(); });
		net.loop.run_until(20 * SEC);
		ShimStats sh = net.shim_total();
		const uint64_t *v = sh.violations;
		EXPECT_EQ(sh.cancel_and_query, 1u);
		if (old) {
			EXPECT_EQ(v[V_TWO_QUERIES], 1u);
			EXPECT_EQ(v[V_CANCELLED_ANSWER], 1u);
			EXPECT_EQ(v[V_FREE_WITH_QUERY], 1u);
			EXPECT_EQ(v[V_USE_AFTER_FREE], 1u);
		} else {
			EXPECT_EQ(sh.violations_total(), 0u);
		}
		EXPECT_EQ(net[0].queries_outstanding(), 0u);
		net.expect_accounted();
	}
}

/*
 * The answer comes while the timeout's cancel runs (the callback was
 * already running; ib_sa cannot stop it): it is queued as DONE for the
 * generation being cancelled. 7312acf feeds it to the core after the
 * CANCEL_QUERY; the fixed shim drops it as stale.
 */
TEST(sim_h1, answer_racing_its_cancel)
{
	for (bool old : { true, false }) {
		SCOPED_TRACE(old ? "7312acf" : "fixed");
		H1Net net(old, 6000);
		net.shim.cancel_race_p = 1;
		net[0].send_unicast(1);
		net.loop.run_until(4100); /* timed out at 4000, cancelled */
		ShimStats sh = net.shim_total();
		EXPECT_EQ(sh.cancel_races, 1u);
		EXPECT_EQ(net[0].path_state(1), IPC_PATH_FAILED);
		if (old) {
			EXPECT_EQ(sh.violations[V_CANCELLED_ANSWER], 1u);
			EXPECT_EQ(sh.stale_answers, 0u);
		} else {
			EXPECT_EQ(sh.violations_total(), 0u);
			EXPECT_EQ(sh.stale_answers, 1u);
		}
		net.loop.run_until(60 * SEC);
		net[0].destroy_all();
		net.expect_accounted();
	}
}

/*
 * The random churn as random_churn_keeps_invariants runs it: against the
 * shim of 7312acf the checker finds every kind of H1 violation.
 */
TEST(sim_h1, random_churn_catches_7312acf)
{
	constexpr int N = 12, GROUPS = 6;
	Subnet net(N, 9);
	net.shim.old_path_contract = true;
	net.shim.strict = false;
	random_churn(net, 9, N, GROUPS);
	ShimStats sh = net.shim_total();
	EXPECT_GT(sh.violations[V_TWO_QUERIES], 0u);
	EXPECT_GT(sh.violations[V_CANCELLED_ANSWER], 0u);
	EXPECT_GT(sh.violations[V_FREE_WITH_QUERY], 0u);
	EXPECT_GT(sh.violations[V_USE_AFTER_FREE], 0u);
	net.expect_accounted();
	for (auto &n : net.nodes)
		n->destroy_all();
}

} // namespace
