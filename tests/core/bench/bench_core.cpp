// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Per-packet paths of the core, in ns/op (make core-bench). */
#include <benchmark/benchmark.h>

#include "core_test.hpp"

namespace
{

const ct::Gid my_gid = ct::gid("fe80::2:c903:a:1");
const ct::Gid peer_gid = ct::gid("fe80::2:c903:a:2");
const struct ipc_ifid self = ct::ifid(0x48, my_gid, 0xffff, 2);

void hdr_build(benchmark::State &st)
{
	uint8_t h[4];
	uint16_t t = IPC_ETH_P_IP;
	for (auto _ : st) {
		benchmark::DoNotOptimize(t);
		ipc_hdr_build(t, h);
		benchmark::DoNotOptimize(h);
	}
}
BENCHMARK(hdr_build);

void hdr_parse(benchmark::State &st)
{
	uint8_t f[64] = { 0x86, 0xdd };
	uint16_t t;
	for (auto _ : st) {
		benchmark::DoNotOptimize(f);
		benchmark::DoNotOptimize(ipc_hdr_parse(f, sizeof(f), &t));
	}
}
BENCHMARK(hdr_parse);

void rx_classify(benchmark::State &st, const uint8_t *dgid)
{
	uint8_t f[64] = { 0x08, 0x00 };
	struct ipc_rx_verdict v;
	for (auto _ : st) {
		benchmark::DoNotOptimize(f);
		benchmark::DoNotOptimize(ipc_rx_classify(
			&self, peer_gid.data(), dgid, 0x99, f, sizeof(f), &v));
	}
}
BENCHMARK_CAPTURE(rx_classify, unicast, my_gid.data());
BENCHMARK_CAPTURE(rx_classify, broadcast, self.bcast_gid);
BENCHMARK_CAPTURE(rx_classify, no_grh, nullptr);

/* An IPv6 datagram (UDP): the ND check reads its header, finds no ICMPv6. */
void rx_classify_ipv6(benchmark::State &st)
{
	uint8_t f[64] = { 0x86, 0xdd, 0, 0, 0x60 };
	struct ipc_rx_verdict v;
	f[4 + 6] = 17;
	for (auto _ : st) {
		benchmark::DoNotOptimize(f);
		benchmark::DoNotOptimize(ipc_rx_classify(
			&self, peer_gid.data(), my_gid.data(), 0x99, f,
			sizeof(f), &v));
	}
}
BENCHMARK(rx_classify_ipv6);

/* Frames whose payload ipc_rx_classify() reads: ARP, an ND message. */
const ct::Hw peer_hw = ct::hw(0, 0x99, peer_gid);
const uint8_t peer_ip[4] = { 10, 0, 0, 2 };
const ct::Bytes arp_request = ct::frame(
	IPC_ETH_P_ARP, ct::arp_payload(1, peer_hw, peer_ip, ct::Hw{}, peer_ip));
const ct::Bytes neigh_solicit = ct::frame(
	IPC_ETH_P_IPV6,
	ct::ipv6_packet(58, ct::icmp6(135, 20, ct::nd_ll_opt(1, peer_hw)),
			ct::gid("fe80::202:c903:a:2"),
			ct::gid("ff02::1:ff0a:1")));

void rx_resolution(benchmark::State &st, const ct::Bytes &f)
{
	struct ipc_rx_verdict v;
	for (auto _ : st) {
		benchmark::DoNotOptimize(f.data());
		benchmark::DoNotOptimize(ipc_rx_classify(
			&self, peer_gid.data(), self.bcast_gid, 0x99, f.data(),
			static_cast<uint32_t>(f.size()), &v));
	}
}
BENCHMARK_CAPTURE(rx_resolution, arp, arp_request);
BENCHMARK_CAPTURE(rx_resolution, neigh_solicit, neigh_solicit);

void tx_classify(benchmark::State &st, const ct::Hw &d)
{
	struct ipc_tx_verdict v;
	for (auto _ : st) {
		benchmark::DoNotOptimize(d);
		benchmark::DoNotOptimize(ipc_tx_classify(&self, d.data(), &v));
	}
}
const ct::Hw uni = ct::hw(IPC_ADDR_FLAG_CM, 0x99, peer_gid);
const ct::Hw mc = ct::hw(0, IPC_QPN_MCAST, ct::gid("ff12:401b:ffff::1"));
BENCHMARK_CAPTURE(tx_classify, unicast, uni);
BENCHMARK_CAPTURE(tx_classify, multicast, mc);

void addr_hash(benchmark::State &st)
{
	for (auto _ : st) {
		benchmark::DoNotOptimize(uni);
		benchmark::DoNotOptimize(ipc_addr_hash(uni.data(), 0x1234));
	}
}
BENCHMARK(addr_hash);

void addr_same(benchmark::State &st)
{
	ct::Hw other = uni;
	for (auto _ : st) {
		benchmark::DoNotOptimize(other);
		benchmark::DoNotOptimize(
			ipc_addr_same(uni.data(), other.data()));
	}
}
BENCHMARK(addr_same);

void path_tx_valid(benchmark::State &st)
{
	struct ipc_path_cfg c;
	struct ipc_path p;
	struct ipc_result r;
	struct ipc_rng rng;
	ipc_path_cfg_default(&c);
	ipc_path_init(&p);
	ipc_rng_seed(&rng, 1);
	ipc_path_tx(&p, &c, 1, &r);
	ipc_path_query_done(&p, &c, 2, 0, &rng, &r);
	uint64_t now = 3;
	for (auto _ : st) {
		ipc_path_tx(&p, &c, now++, &r);
		benchmark::DoNotOptimize(r);
	}
}
BENCHMARK(path_tx_valid);

void mc_tx_joined(benchmark::State &st)
{
	struct ipc_mc_cfg c;
	struct ipc_mc m;
	struct ipc_result r;
	struct ipc_rng rng;
	ipc_mc_cfg_default(&c);
	ipc_mc_init(&m, 2);
	ipc_rng_seed(&rng, 1);
	ipc_mc_subscribe(&m, &c, IPC_JOIN_FULL, 1, &r);
	ipc_mc_join_done(&m, &c, 2, 0, 0, &rng, &r);
	uint64_t now = 3;
	for (auto _ : st) {
		ipc_mc_tx(&m, &c, now++, 0, &r);
		benchmark::DoNotOptimize(r);
	}
}
BENCHMARK(mc_tx_joined);

} // namespace

BENCHMARK_MAIN();
