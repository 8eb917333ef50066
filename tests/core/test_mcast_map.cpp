// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Multicast addresses (mcast_map.cpp). The stack maps an IP group to its
 * MGID with the kernel's ip_ib_mc_map() and ipv6_ib_mc_map()
 * (include/net/ip.h, include/net/if_inet6.h), transcribed below; the
 * tests' oracle ct::mgid_v4()/mgid_v6() must agree with them byte for
 * byte and with the RFC 4391 s4 examples, and the core must take every
 * address they make as one of its link's.
 */
#include <gtest/gtest.h>

#include <random>

#include "core_test.hpp"

using namespace ct;

namespace
{

/* include/net/ip.h ip_ib_mc_map(), as the kernel writes it. */
void kernel_ip_ib_mc_map(uint32_t naddr_host_order_of_be,
			 const unsigned char *broadcast, unsigned char *buf)
{
	uint32_t addr;
	unsigned char scope = broadcast[5] & 0xF;

	buf[0] = 0;
	buf[1] = 0xff;
	buf[2] = 0xff;
	buf[3] = 0xff;
	addr = naddr_host_order_of_be; /* ntohl(naddr) */
	buf[4] = 0xff;
	buf[5] = 0x10 | scope;
	buf[6] = 0x40;
	buf[7] = 0x1b;
	buf[8] = broadcast[8];
	buf[9] = broadcast[9];
	buf[10] = 0;
	buf[11] = 0;
	buf[12] = 0;
	buf[13] = 0;
	buf[14] = 0;
	buf[15] = 0;
	buf[19] = addr & 0xff;
	addr >>= 8;
	buf[18] = addr & 0xff;
	addr >>= 8;
	buf[17] = addr & 0xff;
	addr >>= 8;
	buf[16] = addr & 0x0f;
}

/* include/net/if_inet6.h ipv6_ib_mc_map(). */
void kernel_ipv6_ib_mc_map(const uint8_t *addr, const unsigned char *broadcast,
			   unsigned char *buf)
{
	unsigned char scope = broadcast[5] & 0xF;

	buf[0] = 0;
	buf[1] = 0xff;
	buf[2] = 0xff;
	buf[3] = 0xff;
	buf[4] = 0xff;
	buf[5] = 0x10 | scope;
	buf[6] = 0x60;
	buf[7] = 0x1b;
	buf[8] = broadcast[8];
	buf[9] = broadcast[9];
	std::memcpy(&buf[10], &addr[6], 10);
}

Hw broadcast(uint16_t pkey, uint8_t scope)
{
	Hw b{};
	ipc_addr_broadcast(pkey, scope, b.data());
	return b;
}

Gid v4(uint8_t a, uint8_t b, uint8_t c, uint8_t d, const Gid &bg)
{
	const uint8_t g[4] = { a, b, c, d };
	return mgid_v4(g, bg);
}

TEST(mcast_map, rfc4391_s4_all_routers_examples)
{
	/* "on an IPoIB link ... with a P_Key of 0x8000, the MGIDs for the
	 * all-router multicast group with group ID 2 are FF12:401B:8000::2
	 * and FF12:601B:8000::2". */
	Gid bg = bcast_gid(0x8000, 2);
	EXPECT_EQ(v4(224, 0, 0, 2, bg), gid("ff12:401b:8000::2"));
	EXPECT_EQ(mgid_v6(gid("ff02::2"), bg), gid("ff12:601b:8000::2"));
	Gid r{};
	ipc_mgid_all_routers(bg.data(), r.data());
	EXPECT_EQ(r, gid("ff12:401b:8000::2"));
	/* A group's all-routers group is the stack's mapping of group 2. */
	ipc_mgid_all_routers(v4(239, 1, 2, 3, bg).data(), r.data());
	EXPECT_EQ(r, v4(224, 0, 0, 2, bg));
	ipc_mgid_all_routers(mgid_v6(gid("ff02::1:ff00:1"), bg).data(),
			     r.data());
	EXPECT_EQ(r, mgid_v6(gid("ff02::2"), bg));
	/* s10: a group's own family, scope and P_Key. */
	ipc_mgid_all_routers(gid("ff15:601b:8123::1:ff00:1").data(), r.data());
	EXPECT_EQ(r, gid("ff15:601b:8123::2"));
	ipc_mgid_all_routers(gid("ff18:401b:8001::f01:101").data(), r.data());
	EXPECT_EQ(r, gid("ff18:401b:8001::2"));
}

/*
 * s4: the limited broadcast maps to the broadcast GID: the stack's
 * broadcast neighbour takes dev->broadcast, which the core classifies as
 * broadcast. A group is mapped normally.
 */
TEST(mcast_map, limited_broadcast_maps_to_broadcast_gid)
{
	Gid bg = bcast_gid(0x8123, 5);
	struct ipc_ifid self = ifid(0x48, gid("fe80::1"), 0x8123, 5);
	struct ipc_tx_verdict v;
	ASSERT_EQ(ipc_tx_classify(&self, mcast_hw(bg).data(), &v), IPC_R_OK);
	EXPECT_EQ(v.kind, IPC_TX_BROADCAST);
	Gid m = v4(255, 255, 255, 254, bg);
	EXPECT_EQ(m, gid("ff15:401b:8123::fff:fffe"));
	ASSERT_EQ(ipc_tx_classify(&self, mcast_hw(m).data(), &v), IPC_R_OK);
	EXPECT_EQ(v.kind, IPC_TX_MULTICAST);
}

TEST(mcast_map, ipv4_keeps_low_28_bits)
{
	Gid bg = bcast_gid(0xffff, 2);
	EXPECT_EQ(v4(239, 255, 1, 2, bg), gid("ff12:401b:ffff::fff:102"));
	EXPECT_EQ(v4(224, 0, 0, 251, bg), gid("ff12:401b:ffff::fb"));
	EXPECT_EQ(ipc_mcast_addr_check(mcast_hw(v4(239, 255, 1, 2, bg)).data(),
				       bg.data()),
		  IPC_R_OK);
}

TEST(mcast_map, scope_and_pkey_follow_broadcast_gid)
{
	for (uint8_t scope : { 1, 2, 5, 8, 0xe }) {
		Gid bg = bcast_gid(0x0042, scope);
		Gid m = v4(224, 1, 2, 3, bg);
		EXPECT_EQ(ipc_mgid_scope(m.data()), scope);
		EXPECT_EQ(m[1], 0x10 | scope);
		EXPECT_EQ(m[4], 0x80);
		EXPECT_EQ(m[5], 0x42);
	}
}

TEST(mcast_map, kernel_compat_vectors_ipv4)
{
	std::mt19937_64 gen(4391);
	const uint16_t pkeys[] = { 0xffff, 0x8000, 0x8001, 0x7fff, 0x1234 };
	for (uint16_t pkey : pkeys) {
		for (uint8_t scope = 0; scope < 16; scope++) {
			Hw bc = broadcast(pkey, scope);
			for (int i = 0; i < 64; i++) {
				uint32_t group = static_cast<uint32_t>(gen());
				if (i == 0)
					group = 0xe0000001; /* 224.0.0.1 */
				if (i == 1)
					group = 0xefffffff;
				uint8_t g[4] = {
					static_cast<uint8_t>(group >> 24),
					static_cast<uint8_t>(group >> 16),
					static_cast<uint8_t>(group >> 8),
					static_cast<uint8_t>(group)
				};
				if (group == 0xffffffff)
					continue; /* handled by the caller in-tree */
				unsigned char kbuf[20];
				kernel_ip_ib_mc_map(group, bc.data(), kbuf);
				Gid m{};
				mgid_v4(g, bc.data() + 4, m.data());
				ASSERT_EQ(hex(kbuf + 4, 16), hex(m))
					<< "pkey " << pkey << " scope "
					<< int(scope) << " group " << group;
				/* The whole hardware address is a link mcast. */
				EXPECT_EQ(ipc_mcast_addr_check(kbuf,
							       bc.data() + 4),
					  IPC_R_OK);
			}
		}
	}
}

TEST(mcast_map, kernel_compat_vectors_ipv6)
{
	std::mt19937_64 gen(6);
	for (uint16_t pkey : { 0xffff, 0x8000, 0x9abc }) {
		for (uint8_t scope = 0; scope < 16; scope++) {
			Hw bc = broadcast(pkey, scope);
			for (int i = 0; i < 64; i++) {
				Gid g{};
				for (auto &b : g)
					b = static_cast<uint8_t>(gen());
				g[0] = 0xff;
				if (i == 0)
					g = gid("ff02::1:ff00:1234");
				unsigned char kbuf[20];
				kernel_ipv6_ib_mc_map(g.data(), bc.data(),
						      kbuf);
				Gid m{};
				mgid_v6(g.data(), bc.data() + 4, m.data());
				ASSERT_EQ(hex(kbuf + 4, 16), hex(m));
				EXPECT_EQ(ipc_mcast_addr_check(kbuf,
							       bc.data() + 4),
					  IPC_R_OK);
			}
		}
	}
}

TEST(mcast_map, solicited_node_example)
{
	Gid bg = bcast_gid(0xffff, 2);
	Gid m = mgid_v6(gid("ff02::1:ff0a:b0c1"), bg);
	EXPECT_EQ(m, gid("ff12:601b:ffff::1:ff0a:b0c1"));
	EXPECT_EQ(ipc_mcast_addr_check(mcast_hw(m).data(), bg.data()),
		  IPC_R_OK);
	EXPECT_FALSE(ipc_mgid_is_all_routers(m.data()));
}

TEST(mcast_check, accepts_broadcast_and_both_signatures)
{
	Hw bc = broadcast(0xffff, 2);
	EXPECT_EQ(ipc_mcast_addr_check(bc.data(), bc.data() + 4), IPC_R_OK);
	Gid bg = bcast_gid(0xffff, 2);
	EXPECT_EQ(ipc_mcast_addr_check(
			  hw(0, 0xffffff, gid("ff12:601b:ffff::1")).data(),
			  bg.data()),
		  IPC_R_OK);
	/* Reserved flag bits are ignored on receive (s9.1.1). */
	Hw f = hw(0, 0xffffff, gid("ff12:401b:ffff::1"));
	f[0] = 0xff;
	EXPECT_EQ(ipc_mcast_addr_check(f.data(), bg.data()), IPC_R_OK);
}

TEST(mcast_check, rejects_other_links_and_non_multicast)
{
	Gid bg = bcast_gid(0xffff, 2);
	struct {
		uint32_t qpn;
		const char *mgid;
		int want;
	} cases[] = {
		{ 0xffffff, "ff12:401b:8001::1", IPC_R_WRONG_LINK }, /* P_Key */
		{ 0xffffff, "ff12:401b:7fff::1",
		  IPC_R_WRONG_LINK }, /* limited */
		{ 0xffffff, "ff15:401b:ffff::1", IPC_R_WRONG_LINK }, /* scope */
		{ 0xffffff, "ff02:401b:ffff::1", IPC_R_WRONG_LINK }, /* T=0 */
		{ 0xffffff, "ff32:401b:ffff::1", IPC_R_WRONG_LINK }, /* flags */
		{ 0xffffff, "ff12:801b:ffff::1", IPC_R_WRONG_LINK }, /* sig */
		{ 0xffffff, "ff12:4010:ffff::1", IPC_R_WRONG_LINK },
		{ 0x000001, "ff12:401b:ffff::1", IPC_R_BAD_ADDR }, /* QPN */
		{ 0xfffffe, "ff12:401b:ffff::1", IPC_R_BAD_ADDR },
		{ 0x000000, "ff12:401b:ffff::1", IPC_R_BAD_ADDR },
		{ 0xffffff, "fe80::1", IPC_R_BAD_ADDR }, /* unicast GID */
	};
	for (auto &c : cases)
		EXPECT_EQ(ipc_mcast_addr_check(hw(0, c.qpn, gid(c.mgid)).data(),
					       bg.data()),
			  c.want)
			<< c.mgid;
}

} // namespace

namespace
{

TEST(mc_scope, ipv4_scopes_rfc5771_rfc2365)
{
	struct {
		uint8_t g[4];
		uint8_t want;
	} cases[] = {
		{ { 224, 0, 0, 1 }, 0x2 },	 { { 224, 0, 0, 255 }, 0x2 },
		{ { 224, 0, 1, 1 }, 0xe },	 { { 224, 1, 0, 0 }, 0xe },
		{ { 239, 255, 0, 1 }, 0x5 },	 { { 239, 192, 0, 1 }, 0x8 },
		{ { 239, 195, 255, 255 }, 0x8 }, { { 239, 196, 0, 0 }, 0xe },
		{ { 239, 1, 2, 3 }, 0xe },	 { { 232, 1, 1, 1 }, 0xe },
	};
	for (auto &c : cases)
		EXPECT_EQ(ipc_ipv4_mc_scope(c.g), c.want)
			<< int(c.g[0]) << "." << int(c.g[1]) << "."
			<< int(c.g[2]) << "." << int(c.g[3]);
}

TEST(mc_scope, ipv6_scope_nibble)
{
	EXPECT_EQ(ipc_ipv6_mc_scope(ct::gid("ff02::1").data()), 0x2);
	EXPECT_EQ(ipc_ipv6_mc_scope(ct::gid("ff05::2").data()), 0x5);
	EXPECT_EQ(ipc_ipv6_mc_scope(ct::gid("ff3e::8000:1").data()), 0xe);
}

} // namespace

/* The IP group of a frame (s10's routing decision), from its bytes. */
TEST(mcast_map, frame_mc_scope)
{
	uint8_t f[IPC_FRAME_SCOPE_LEN] = {};

	/* IPv4 to 239.255.1.1: site. */
	f[0] = 0x08;
	f[1] = 0x00;
	f[IPC_HDR_LEN + 16] = 239;
	f[IPC_HDR_LEN + 17] = 255;
	f[IPC_HDR_LEN + 18] = 1;
	f[IPC_HDR_LEN + 19] = 1;
	EXPECT_EQ(ipc_frame_mc_scope(f, IPC_HDR_LEN + 20), 5);
	EXPECT_EQ(ipc_frame_mc_scope(f, IPC_HDR_LEN + 19), IPC_SCOPE_LINK);
	/* IPv6 to ff08::1: organisation. */
	f[0] = 0x86;
	f[1] = 0xdd;
	f[IPC_HDR_LEN + 24] = 0xff;
	f[IPC_HDR_LEN + 25] = 0x08;
	EXPECT_EQ(ipc_frame_mc_scope(f, sizeof(f)), 8);
	EXPECT_EQ(ipc_frame_mc_scope(f, sizeof(f) - 1), IPC_SCOPE_LINK);
	/* ARP, a header cut short, nothing. */
	f[0] = 0x08;
	f[1] = 0x06;
	EXPECT_EQ(ipc_frame_mc_scope(f, sizeof(f)), IPC_SCOPE_LINK);
	f[1] = 0x00;
	EXPECT_EQ(ipc_frame_mc_scope(f, 2), IPC_SCOPE_LINK);
	EXPECT_EQ(ipc_frame_mc_scope(nullptr, 0), IPC_SCOPE_LINK);
}

TEST(mcast_map, is_all_routers)
{
	uint8_t b[16], m[16], r[16];

	memcpy(b, ct::gid("ff12:401b:ffff::ffff:ffff").data(), 16);
	ct::mgid_v4((const uint8_t *)"\xe0\x00\x00\x02", b, r);
	EXPECT_TRUE(ipc_mgid_is_all_routers(r));
	ct::mgid_v4((const uint8_t *)"\xe0\x00\x00\xfb", b, m);
	EXPECT_FALSE(ipc_mgid_is_all_routers(m));
	ipc_mgid_all_routers(m, r);
	EXPECT_TRUE(ipc_mgid_is_all_routers(r));
}
