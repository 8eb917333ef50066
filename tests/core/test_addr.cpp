// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Link-layer address, broadcast address, reason names (addr.cpp). */
#include <gtest/gtest.h>

#include <set>

#include "core_test.hpp"

using namespace ct;

namespace
{

const Gid port_gid = gid("fe80::2:c903:a:b0c1");

TEST(addr, encode_layout_rfc4391_s9_1_1)
{
	Hw a = hw(0, 0x000048, port_gid);
	EXPECT_EQ(hex(a), "00000048fe800000000000000002c903000ab0c1");
}

TEST(addr, encode_masks_reserved_flags_and_qpn)
{
	struct ipc_addr in = {};
	Hw out{};
	in.flags = 0xff;
	in.qpn = 0xab123456;
	ipc_addr_encode(&in, out.data());
	EXPECT_EQ(out[0], IPC_ADDR_FLAG_CM); /* s9.1.1: reserved sent as 0 */
	EXPECT_EQ(out[1], 0x12);
	EXPECT_EQ(out[2], 0x34);
	EXPECT_EQ(out[3], 0x56);
}

TEST(addr, decode_ignores_reserved_flags)
{
	Hw a = hw(0, 0xabcdef, port_gid);
	a[0] = 0x7f;
	struct ipc_addr d;
	std::memset(&d, 0xee, sizeof(d));
	ipc_addr_decode(a.data(), &d);
	EXPECT_EQ(d.flags, 0);
	EXPECT_EQ(d.qpn, 0xabcdefu);
	EXPECT_EQ(0, std::memcmp(d.gid, port_gid.data(), 16));
	a[0] = 0xff;
	ipc_addr_decode(a.data(), &d);
	EXPECT_EQ(d.flags, IPC_ADDR_FLAG_CM);
}

TEST(addr, encode_decode_round_trip)
{
	for (uint32_t q : { 1u, 0x48u, 0x800000u, 0xfffffeu }) {
		for (uint8_t f : { 0, IPC_ADDR_FLAG_CM }) {
			Hw a = hw(f, q, port_gid);
			struct ipc_addr d;
			Hw b{};
			ipc_addr_decode(a.data(), &d);
			ipc_addr_encode(&d, b.data());
			EXPECT_EQ(a, b);
		}
	}
}

TEST(addr, same_ignores_flags_only)
{
	Hw a = hw(0, 0x48, port_gid);
	Hw b = hw(IPC_ADDR_FLAG_CM, 0x48, port_gid);
	b[0] |= 0x01;
	EXPECT_EQ(ipc_addr_same(a.data(), b.data()), 1);
	Hw c = hw(0, 0x49, port_gid);
	EXPECT_EQ(ipc_addr_same(a.data(), c.data()), 0);
	Hw d = hw(0, 0x48, gid("fe80::2:c903:a:b0c2"));
	EXPECT_EQ(ipc_addr_same(a.data(), d.data()), 0);
}

TEST(addr, hash_ignores_flags_and_depends_on_seed_qpn_gid)
{
	Hw a = hw(0, 0x48, port_gid);
	Hw b = hw(IPC_ADDR_FLAG_CM, 0x48, port_gid);
	EXPECT_EQ(ipc_addr_hash(a.data(), 7), ipc_addr_hash(b.data(), 7));
	EXPECT_NE(ipc_addr_hash(a.data(), 7), ipc_addr_hash(a.data(), 8));
	Hw c = hw(0, 0x49, port_gid);
	EXPECT_NE(ipc_addr_hash(a.data(), 7), ipc_addr_hash(c.data(), 7));
	EXPECT_NE(ipc_gid_hash(port_gid.data(), 1),
		  ipc_gid_hash(port_gid.data(), 2));
}

TEST(addr, hash_spreads_sequential_qpns_and_guids)
{
	/* A table of 1024 buckets must not see clustering on sequential
	 * QPNs or GUIDs (what a real fabric hands out). */
	std::array<int, 1024> buckets{};
	for (uint32_t i = 0; i < 8192; i++) {
		Gid g = port_gid;
		g[15] = static_cast<uint8_t>(i);
		g[14] = static_cast<uint8_t>(i >> 8);
		Hw a = hw(0, 0x100 + (i & 7), g);
		buckets[ipc_addr_hash(a.data(), 0x1234) & 1023]++;
	}
	int max = 0;
	for (int n : buckets)
		max = std::max(max, n);
	EXPECT_LT(max, 24); /* mean 8; a poor hash piles far higher */
	std::set<uint32_t> seen;
	for (uint32_t i = 0; i < 4096; i++) {
		Gid g = port_gid;
		g[15] = static_cast<uint8_t>(i);
		g[14] = static_cast<uint8_t>(i >> 8);
		seen.insert(ipc_gid_hash(g.data(), 0));
	}
	EXPECT_EQ(seen.size(), 4096u);
}

TEST(addr, broadcast_default_pkey_link_scope)
{
	Hw b{};
	ipc_addr_broadcast(0xffff, IPC_SCOPE_LINK, b.data());
	EXPECT_EQ(hex(b), "00ffffffff12401bffff000000000000ffffffff");
}

TEST(addr, broadcast_sets_full_member_bit_and_masks_scope)
{
	Hw b{};
	/* s4.1: a Full Membership P_Key MUST be used. */
	ipc_addr_broadcast(0x0001, 0x15, b.data());
	EXPECT_EQ(hex(b), "00ffffffff15401b8001000000000000ffffffff");
	ipc_addr_broadcast(0x8000, 5, b.data());
	EXPECT_EQ(hex(b), "00ffffffff15401b8000000000000000ffffffff");
	/* A multicast address of its own link. */
	EXPECT_EQ(ipc_mcast_addr_check(b.data(), b.data() + 4), IPC_R_OK);
}

TEST(reason, every_reason_has_a_distinct_name)
{
	std::set<std::string> names;
	for (int r = 0; r < IPC_R_COUNT; r++) {
		const char *n = ipc_reason_name(r);
		ASSERT_NE(n, nullptr);
		EXPECT_STRNE(n, "unknown");
		names.insert(n);
	}
	EXPECT_EQ(names.size(), static_cast<size_t>(IPC_R_COUNT));
	EXPECT_STREQ(ipc_reason_name(IPC_R_OK), "ok");
	EXPECT_STREQ(ipc_reason_name(IPC_R_TRUNCATED), "truncated");
	EXPECT_STREQ(ipc_reason_name(IPC_R_LINK_DOWN), "link_down");
	EXPECT_STREQ(ipc_reason_name(IPC_R_GROUP_TABLE_FULL),
		     "group_table_full");
	EXPECT_STREQ(ipc_reason_name(IPC_R_COUNT), "unknown");
	EXPECT_STREQ(ipc_reason_name(-1), "unknown");
}


TEST(addr, set_keeps_flags_and_qpn_takes_any_unicast_gid)
{
	const Hw cur = hw(0, 0x000048, port_gid);

	/* An alias GUID, or a RoCE GID of another address: allowed. */
	EXPECT_EQ(ipc_addr_check_set(cur.data(),
				     hw(0, 0x000048, gid("fe80::2:c903:a:b0c2")).data()),
		  IPC_SETADDR_OK);
	EXPECT_EQ(ipc_addr_check_set(cur.data(),
				     hw(0, 0x000048, gid("::ffff:10.9.0.1")).data()),
		  IPC_SETADDR_OK);
	EXPECT_EQ(ipc_addr_check_set(cur.data(), cur.data()), IPC_SETADDR_OK);
	/* The QPN is the QP's; the flags are ours (CM would claim RFC 4755). */
	EXPECT_EQ(ipc_addr_check_set(cur.data(), hw(0, 0x000049, port_gid).data()),
		  IPC_SETADDR_QPN);
	EXPECT_EQ(ipc_addr_check_set(cur.data(), hw(0, 0x010048, port_gid).data()),
		  IPC_SETADDR_QPN);
	EXPECT_EQ(ipc_addr_check_set(cur.data(),
				     hw(IPC_ADDR_FLAG_CM, 0x000048, port_gid).data()),
		  IPC_SETADDR_QPN);
	Hw reserved = cur;
	reserved[0] = 0x01;
	EXPECT_EQ(ipc_addr_check_set(cur.data(), reserved.data()), IPC_SETADDR_QPN);
	/* Not a GID an interface can own. */
	EXPECT_EQ(ipc_addr_check_set(cur.data(), hw(0, 0x000048, gid("::")).data()),
		  IPC_SETADDR_GID);
	EXPECT_EQ(ipc_addr_check_set(cur.data(),
				     hw(0, 0x000048, gid("ff12:401b:ffff::1")).data()),
		  IPC_SETADDR_GID);
}

} // namespace

