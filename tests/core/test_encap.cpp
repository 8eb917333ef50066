// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Encapsulation header and rx/tx classification (encap.cpp). */
#include <gtest/gtest.h>

#include <vector>

#include "core_test.hpp"

using namespace ct;

namespace
{

const Gid my_gid = gid("fe80::2:c903:a:1");
const Gid peer_gid = gid("fe80::2:c903:a:2");
constexpr uint32_t my_qpn = 0x48;
const struct ipc_ifid self = ifid(my_qpn, my_gid, 0xffff, 2);

/*
 * A frame of type with a payload its type's checks pass (test_arp_nd.cpp
 * has those): an ARP request from the peer, an IPv6 packet with no next
 * header, else payload bytes of 0xab.
 */
Bytes frame(uint16_t type, size_t payload = 20)
{
	static const uint8_t ip[4] = { 10, 0, 0, 2 };

	if (type == IPC_ETH_P_ARP || type == IPC_ETH_P_RARP)
		return ct::frame(type, arp_payload(1, hw(0, 0x99, peer_gid), ip,
						   Hw{}, ip));
	if (type == IPC_ETH_P_IPV6)
		return ct::frame(type,
				 ipv6_packet(59, Bytes(payload, 0xab),
					     gid("fe80::1"), gid("ff02::1")));
	return ct::frame(type, Bytes(payload, 0xab));
}

TEST(hdr, build_writes_type_and_zero_reserved_rfc4391_s6)
{
	uint8_t h[4] = { 0xff, 0xff, 0xff, 0xff };
	ipc_hdr_build(IPC_ETH_P_IPV6, h);
	EXPECT_EQ(hex(h, 4), "86dd0000");
	ipc_hdr_build(IPC_ETH_P_ARP, h);
	EXPECT_EQ(hex(h, 4), "08060000");
}

TEST(hdr, parse_table_1_types)
{
	for (uint16_t t :
	     { IPC_ETH_P_IP, IPC_ETH_P_ARP, IPC_ETH_P_RARP, IPC_ETH_P_IPV6 }) {
		uint8_t h[4];
		uint16_t got = 0;
		ipc_hdr_build(t, h);
		EXPECT_EQ(ipc_hdr_parse(h, 4, &got), IPC_R_OK);
		EXPECT_EQ(got, t);
	}
}

TEST(hdr, parse_ignores_reserved)
{
	const uint8_t h[4] = { 0x08, 0x00, 0x12, 0x34 };
	uint16_t t = 0;
	EXPECT_EQ(ipc_hdr_parse(h, 4, &t), IPC_R_OK);
	EXPECT_EQ(t, IPC_ETH_P_IP);
}

TEST(hdr, parse_rejects_short_and_unknown)
{
	const uint8_t h[4] = { 0x88, 0xcc, 0, 0 }; /* LLDP: not in Table 1 */
	uint16_t t = 0x5555;
	EXPECT_EQ(ipc_hdr_parse(h, 4, &t), IPC_R_BAD_TYPE);
	EXPECT_EQ(t, 0x5555); /* untouched */
	for (uint32_t len = 0; len < 4; len++)
		EXPECT_EQ(ipc_hdr_parse(h, len, &t), IPC_R_TRUNCATED);
	EXPECT_EQ(ipc_hdr_parse(nullptr, 0, &t), IPC_R_TRUNCATED);
}

TEST(rx, unicast_with_grh_to_us)
{
	auto f = frame(IPC_ETH_P_IP);
	struct ipc_rx_verdict v;
	ASSERT_EQ(ipc_rx_classify(&self, peer_gid.data(), my_gid.data(), 0x99,
				  f.data(), f.size(), &v),
		  IPC_R_OK);
	EXPECT_EQ(v.ethertype, IPC_ETH_P_IP);
	EXPECT_EQ(v.pkt_type, IPC_PKT_HOST);
	EXPECT_EQ(v.has_src, 1);
	EXPECT_EQ(hex(v.src_addr, 20), hex(hw(0, 0x99, peer_gid)));
}

TEST(rx, no_grh_is_host_without_source)
{
	auto f = frame(IPC_ETH_P_ARP);
	struct ipc_rx_verdict v;
	ASSERT_EQ(ipc_rx_classify(&self, nullptr, nullptr, 0x99, f.data(),
				  f.size(), &v),
		  IPC_R_OK);
	EXPECT_EQ(v.pkt_type, IPC_PKT_HOST);
	EXPECT_EQ(v.has_src, 0);
	EXPECT_EQ(hex(v.src_addr, 20), std::string(40, '0'));
	/* Our own QPN without a GRH cannot be told apart: delivered. */
	EXPECT_EQ(ipc_rx_classify(&self, nullptr, nullptr, my_qpn, f.data(),
				  f.size(), &v),
		  IPC_R_OK);
}

TEST(rx, unicast_to_another_port_gid_still_host)
{
	/* RoCE: the DGID may be any GID of our port. */
	auto f = frame(IPC_ETH_P_IPV6);
	struct ipc_rx_verdict v;
	Gid other = gid("::ffff:c0a8:101");
	ASSERT_EQ(ipc_rx_classify(&self, peer_gid.data(), other.data(), 0x99,
				  f.data(), f.size(), &v),
		  IPC_R_OK);
	EXPECT_EQ(v.pkt_type, IPC_PKT_HOST);
}

TEST(rx, broadcast_and_multicast)
{
	auto f = frame(IPC_ETH_P_ARP);
	struct ipc_rx_verdict v;
	ASSERT_EQ(ipc_rx_classify(&self, peer_gid.data(), self.bcast_gid, 0x99,
				  f.data(), f.size(), &v),
		  IPC_R_OK);
	EXPECT_EQ(v.pkt_type, IPC_PKT_BROADCAST);
	Gid mg = gid("ff12:601b:ffff::1:ff0a:1");
	ASSERT_EQ(ipc_rx_classify(&self, peer_gid.data(), mg.data(), 0x99,
				  f.data(), f.size(), &v),
		  IPC_R_OK);
	EXPECT_EQ(v.pkt_type, IPC_PKT_MULTICAST);
	EXPECT_EQ(v.has_src, 1);
}

TEST(rx, own_multicast_looped_back_is_dropped)
{
	auto f = frame(IPC_ETH_P_IP);
	struct ipc_rx_verdict v;
	EXPECT_EQ(ipc_rx_classify(&self, my_gid.data(), self.bcast_gid, my_qpn,
				  f.data(), f.size(), &v),
		  IPC_R_LOOPBACK);
	/* Same QPN on another node, or another QP of ours: delivered. */
	EXPECT_EQ(ipc_rx_classify(&self, peer_gid.data(), self.bcast_gid,
				  my_qpn, f.data(), f.size(), &v),
		  IPC_R_OK);
	EXPECT_EQ(ipc_rx_classify(&self, my_gid.data(), self.bcast_gid,
				  my_qpn + 1, f.data(), f.size(), &v),
		  IPC_R_OK);
	/* Loopback wins over a bad header: it is counted as ours. */
	EXPECT_EQ(ipc_rx_classify(&self, my_gid.data(), self.bcast_gid, my_qpn,
				  f.data(), 2, &v),
		  IPC_R_LOOPBACK);
	/* The completion's QPN field may carry high bits: masked. */
	EXPECT_EQ(ipc_rx_classify(&self, my_gid.data(), self.bcast_gid,
				  my_qpn | 0xff000000u, f.data(), f.size(), &v),
		  IPC_R_LOOPBACK);
}

TEST(rx, own_multicast_from_a_send_queue_is_dropped)
{
	auto f = frame(IPC_ETH_P_IP);
	struct ipc_rx_verdict v;
	struct ipc_ifid mq = self;
	mq.send_qpn[0] = 0x4242;
	mq.send_qpn[1] = 0x77;
	mq.send_qpns = 2;
	/* Multicast our transmit queues' QPs sent comes back: ours. */
	EXPECT_EQ(ipc_rx_classify(&mq, my_gid.data(), self.bcast_gid, 0x77,
				  f.data(), f.size(), &v),
		  IPC_R_LOOPBACK);
	EXPECT_EQ(ipc_rx_classify(&mq, my_gid.data(), self.bcast_gid,
				  0x4242 | 0xff000000u, f.data(), f.size(), &v),
		  IPC_R_LOOPBACK);
	EXPECT_EQ(ipc_rx_classify(&mq, my_gid.data(), self.bcast_gid, my_qpn,
				  f.data(), f.size(), &v),
		  IPC_R_LOOPBACK);
	/* Without them in the list, the same frame is another QP's. */
	EXPECT_EQ(ipc_rx_classify(&self, my_gid.data(), self.bcast_gid, 0x77,
				  f.data(), f.size(), &v),
		  IPC_R_OK);
	/* Slots past the count are not ours, nor are they from a peer. */
	mq.send_qpns = 1;
	EXPECT_EQ(ipc_rx_classify(&mq, my_gid.data(), self.bcast_gid, 0x77,
				  f.data(), f.size(), &v),
		  IPC_R_OK);
	EXPECT_EQ(ipc_rx_classify(&mq, peer_gid.data(), self.bcast_gid, 0x4242,
				  f.data(), f.size(), &v),
		  IPC_R_OK);
	/* A count beyond the array reads no further than it. */
	mq.send_qpns = 1000;
	mq.send_qpn[IPC_SEND_QPN_MAX - 1] = 0x555;
	EXPECT_EQ(ipc_rx_classify(&mq, my_gid.data(), self.bcast_gid, 0x555,
				  f.data(), f.size(), &v),
		  IPC_R_LOOPBACK);
}

TEST(rx, bad_header)
{
	auto f = frame(0x88cc);
	struct ipc_rx_verdict v;
	EXPECT_EQ(ipc_rx_classify(&self, peer_gid.data(), my_gid.data(), 0x99,
				  f.data(), f.size(), &v),
		  IPC_R_BAD_TYPE);
	EXPECT_EQ(ipc_rx_classify(&self, peer_gid.data(), my_gid.data(), 0x99,
				  f.data(), 3, &v),
		  IPC_R_TRUNCATED);
	EXPECT_EQ(v.has_src, 0);
}

TEST(tx, unicast)
{
	struct ipc_tx_verdict v;
	Hw d = hw(IPC_ADDR_FLAG_CM, 0x99, peer_gid);
	ASSERT_EQ(ipc_tx_classify(&self, d.data(), &v), IPC_R_OK);
	EXPECT_EQ(v.kind, IPC_TX_UNICAST);
	EXPECT_EQ(v.qpn, 0x99u);
	EXPECT_EQ(0, std::memcmp(v.gid, peer_gid.data(), 16));
}

TEST(tx, broadcast_and_multicast)
{
	struct ipc_tx_verdict v;
	Hw b{};
	ipc_addr_broadcast(0xffff, 2, b.data());
	ASSERT_EQ(ipc_tx_classify(&self, b.data(), &v), IPC_R_OK);
	EXPECT_EQ(v.kind, IPC_TX_BROADCAST);
	EXPECT_EQ(v.qpn, IPC_QPN_MCAST);
	EXPECT_EQ(0, std::memcmp(v.gid, self.bcast_gid, 16));
	Gid mg = gid("ff12:401b:ffff::1");
	ASSERT_EQ(ipc_tx_classify(&self, hw(0, 0xffffff, mg).data(), &v),
		  IPC_R_OK);
	EXPECT_EQ(v.kind, IPC_TX_MULTICAST);
	EXPECT_EQ(0, std::memcmp(v.gid, mg.data(), 16));
}

TEST(tx, bad_addresses)
{
	struct ipc_tx_verdict v;
	struct {
		uint32_t qpn;
		Gid g;
		int want;
	} cases[] = {
		{ 0, peer_gid, IPC_R_BAD_ADDR }, /* QPN 0 */
		{ 0x99, Gid{}, IPC_R_BAD_ADDR }, /* zero GID */
		{ 0xffffff, peer_gid,
		  IPC_R_BAD_ADDR }, /* mcast QPN, ucast GID */
		{ 0x99, gid("ff12:401b:ffff::1"), IPC_R_BAD_ADDR },
		{ 0xfffffe, gid("ff12:401b:ffff::1"), IPC_R_BAD_ADDR },
		{ 0xffffff, gid("ff12:401b:8001::1"), IPC_R_WRONG_LINK },
		{ 0xffffff, gid("ff15:401b:ffff::1"), IPC_R_WRONG_LINK },
		{ 0xffffff, gid("ff0e::1"), IPC_R_WRONG_LINK },
	};
	for (auto &c : cases) {
		std::memset(&v, 0x5a, sizeof(v));
		EXPECT_EQ(ipc_tx_classify(&self, hw(0, c.qpn, c.g).data(), &v),
			  c.want)
			<< hex(c.g);
		EXPECT_EQ(v.kind, 0); /* zeroed, not left half-filled */
	}
}

} // namespace
