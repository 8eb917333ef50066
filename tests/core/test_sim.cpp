// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Model tests: two and N nodes on a virtual clock driving the real path and
 * multicast machines against a simulated SA that delays, fails, drops and
 * reorders answers (sim/subnet_sim.hpp checks every action it performs).
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
	/* Packets of t = 0..30 ms arrive while resolving (the answer at 30
	 * comes after the packet of 30): 16 held, the 15 oldest dropped. */
	EXPECT_EQ(s.dropped[IPC_R_QUEUE_FULL], 15u);
	EXPECT_EQ(s.delivered, 85u);
	EXPECT_EQ(net.received, 85u);
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

TEST(sim_n_node, random_churn_keeps_invariants)
{
	constexpr int N = 12, GROUPS = 6;
	Subnet net(N, 9);
	net.sa.cfg.min_delay_ms = 1;
	net.sa.cfg.max_delay_ms = 12000; /* answers after join timeouts */
	net.sa.cfg.fail_p = 0.2;
	net.sa.cfg.drop_p = 0.1;
	for (auto &n : net.nodes) {
		n->mcfg.queue_max = 4;
		n->pcfg.queue_max = 4;
		n->mcfg.sendonly_idle_ms = 5000;
		n->pcfg.idle_ms = 20000;
		n->pcfg.revalidate_ms = 7000;
	}
	std::mt19937_64 gen(9);
	for (uint64_t t = 0; t < 600 * SEC; t += 20) {
		int a = gen() % N, b = gen() % N, g = gen() % GROUPS;
		int op = gen() % 100;
		net.loop.at(t, [&net, a, b, g, op] {
			Node &n = net[a];
			uint32_t m = group_ip(g, g % 2);
			n.routers_joined = op & 1;
			if (op < 40 && a != b)
				n.send_unicast(b);
			else if (op < 70)
				n.send_mcast(m);
			else if (op < 80)
				n.subscribe(m, op < 77 ? IPC_JOIN_FULL :
							 IPC_JOIN_NON);
			else if (op < 90)
				n.unsubscribe(m, op < 87 ? IPC_JOIN_FULL :
							   IPC_JOIN_NON);
			else if (op < 92)
				n.flush(op == 90 ? 0 : 3000);
			else if (op == 92)
				n.destroy_all();
		});
	}
	net.loop.run_until(600 * SEC);
	net.expect_accounted();
	Stats s = net.total();
	EXPECT_GT(s.delivered, 1000u);
	EXPECT_GT(s.dropped[IPC_R_QUEUE_FULL], 0u);
	EXPECT_GT(s.dropped[IPC_R_NO_ROUTE] + s.dropped[IPC_R_NOT_JOINED], 0u);
	for (auto &n : net.nodes)
		n->destroy_all();
	/* Let cancelled joins come back: the shim frees what they made. */
	net.loop.run_until(700 * SEC);
	for (int g = 0; g < GROUPS; g++) {
		EXPECT_FALSE(net.sa.exists(net[0].mgid_of(group_ip(g))));
		EXPECT_FALSE(net.sa.exists(net[0].mgid_of(group_ip(g, true))));
	}
}

} // namespace
