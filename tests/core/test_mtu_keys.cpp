// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* MTU (mtu.cpp, RFC 4391 s7) and P_Key/Q_Key rules (keys.cpp). */
#include <gtest/gtest.h>

#include "core_test.hpp"

namespace
{

TEST(mtu, ib_enum_to_bytes_and_back)
{
	const uint32_t bytes[] = { 256, 512, 1024, 2048, 4096 };
	for (int e = 1; e <= 5; e++) {
		EXPECT_EQ(ipc_ib_mtu_bytes(e), bytes[e - 1]);
		EXPECT_EQ(ipc_ib_mtu_enum(bytes[e - 1]), e);
	}
	EXPECT_EQ(ipc_ib_mtu_bytes(0), 0u);
	EXPECT_EQ(ipc_ib_mtu_bytes(6), 0u);
	EXPECT_EQ(ipc_ib_mtu_bytes(-1), 0u);
	for (uint32_t b : { 0u, 1u, 255u, 257u, 1500u, 2044u, 8192u })
		EXPECT_EQ(ipc_ib_mtu_enum(b), 0) << b;
}

TEST(mtu, link_mtu_rfc4391_s7)
{
	EXPECT_EQ(ipc_link_mtu(2048), 2044u); /* "an MTU of 2044 octets" */
	EXPECT_EQ(ipc_link_mtu(4096), 4092u);
	EXPECT_EQ(ipc_link_mtu(4), 0u);
	EXPECT_EQ(ipc_link_mtu(0), 0u);
}

TEST(mtu, resolve_datagram)
{
	struct ipc_mtu_info i;
	ASSERT_EQ(ipc_mtu_resolve(4096, 0, IPC_MODE_DATAGRAM, &i), 0);
	EXPECT_EQ(i.mcast_mtu, 4092u);
	EXPECT_EQ(i.max_mtu, 4092u);
	EXPECT_EQ(i.effective, 4092u);
	EXPECT_EQ(i.below_rfc_min, 0);
	ASSERT_EQ(ipc_mtu_resolve(4096, 1500, IPC_MODE_DATAGRAM, &i), 0);
	EXPECT_EQ(i.effective, 1500u);
	ASSERT_EQ(ipc_mtu_resolve(2048, 9000, IPC_MODE_DATAGRAM, &i), 0);
	EXPECT_EQ(i.effective, 2044u); /* admin above max is clamped */
	EXPECT_EQ(i.below_rfc_min, 0);
	ASSERT_EQ(ipc_mtu_resolve(1024, 0, IPC_MODE_DATAGRAM, &i), 0);
	EXPECT_EQ(i.effective, 1020u);
	EXPECT_EQ(i.below_rfc_min, 1);
}

TEST(mtu, resolve_connected)
{
	struct ipc_mtu_info i;
	ASSERT_EQ(ipc_mtu_resolve(2048, 0, IPC_MODE_CONNECTED, &i), 0);
	EXPECT_EQ(i.mcast_mtu, 2044u);
	EXPECT_EQ(i.max_mtu, 65520u);
	EXPECT_EQ(i.effective, 65520u);
	ASSERT_EQ(ipc_mtu_resolve(2048, 65521, IPC_MODE_CONNECTED, &i), 0);
	EXPECT_EQ(i.effective, 65520u);
	ASSERT_EQ(ipc_mtu_resolve(2048, 9000, IPC_MODE_CONNECTED, &i), 0);
	EXPECT_EQ(i.effective, 9000u);
}

TEST(mtu, resolve_errors_leave_out_untouched)
{
	struct ipc_mtu_info i = { 1, 2, 3, 4 };
	EXPECT_EQ(ipc_mtu_resolve(2000, 0, IPC_MODE_DATAGRAM, &i), -IPC_EINVAL);
	EXPECT_EQ(ipc_mtu_resolve(0, 0, IPC_MODE_DATAGRAM, &i), -IPC_EINVAL);
	EXPECT_EQ(ipc_mtu_resolve(2048, 0, 2, &i), -IPC_EINVAL);
	EXPECT_EQ(ipc_mtu_resolve(2048, 0, -1, &i), -IPC_EINVAL);
	EXPECT_EQ(i.mcast_mtu, 1u);
	EXPECT_EQ(i.effective, 3u);
}

TEST(mtu, check_bounds_and_reason)
{
	struct ipc_mtu_info i;
	ASSERT_EQ(ipc_mtu_resolve(2048, 0, IPC_MODE_DATAGRAM, &i), 0);
	const char *why = nullptr;
	EXPECT_EQ(ipc_mtu_check(&i, 2044, &why), 0);
	EXPECT_STREQ(why, "ok");
	EXPECT_EQ(ipc_mtu_check(&i, 68, &why), 0);
	EXPECT_EQ(ipc_mtu_check(&i, 67, &why), -IPC_EINVAL);
	EXPECT_NE(std::string(why).find("68"), std::string::npos);
	EXPECT_EQ(ipc_mtu_check(&i, 2045, &why), -IPC_EINVAL);
	EXPECT_NE(std::string(why).find("above"), std::string::npos);
	EXPECT_EQ(ipc_mtu_check(&i, 0, nullptr), -IPC_EINVAL);
	ASSERT_EQ(ipc_mtu_resolve(2048, 0, IPC_MODE_CONNECTED, &i), 0);
	EXPECT_EQ(ipc_mtu_check(&i, 65520, &why), 0);
	EXPECT_EQ(ipc_mtu_check(&i, 65521, &why), -IPC_EINVAL);
}

TEST(pkey, validity_and_membership)
{
	EXPECT_EQ(ipc_pkey_valid(0x0000), 0);
	EXPECT_EQ(ipc_pkey_valid(0x8000), 0);
	EXPECT_EQ(ipc_pkey_valid(0x0001), 1);
	EXPECT_EQ(ipc_pkey_valid(0xffff), 1);
	EXPECT_EQ(ipc_pkey_valid(0x7fff), 1);
	EXPECT_EQ(ipc_pkey_full(0x7fff), 0xffff);
	EXPECT_EQ(ipc_pkey_full(0x8001), 0x8001);
}

/*
 * IBA s10.9.3, as a REQ's P_Key (a) is matched against the interface's
 * (b) on InfiniBand: same base, at least one full member, neither
 * invalid.
 */
TEST(pkey, match_iba_rule)
{
	struct {
		uint16_t a, b;
		int want;
	} cases[] = {
		{ 0xffff, 0xffff, 1 }, { 0xffff, 0x7fff, 1 },
		{ 0x7fff, 0xffff, 1 }, { 0x7fff, 0x7fff, 0 }, /* both limited */
		{ 0x1234, 0x1234, 0 }, { 0x9234, 0x9234, 1 },
		{ 0x8001, 0x8002, 0 }, { 0x8000, 0x8000, 0 }, /* invalid */
		{ 0x0000, 0x8000, 0 }, { 0x0000, 0x0000, 0 },
		{ 0x8000, 0x0000, 0 }, { 0x9234, 0x1234, 1 },
		{ 0x1234, 0x9234, 1 }, { 0x9234, 0x1235, 0 },
		{ 0xf234, 0x1234, 0 },
	};
	for (auto &c : cases)
		EXPECT_EQ(ipc_cm_req_pkey_ok(c.a, c.b, 0), c.want)
			<< std::hex << c.a << " " << c.b;
}

TEST(qkey, roce_partition_emulation)
{
	EXPECT_EQ(ipc_roce_qkey_for_pkey(0xffff), IPC_QKEY_DEFAULT);
	EXPECT_EQ(ipc_roce_qkey_for_pkey(0x7fff), IPC_QKEY_DEFAULT);
	EXPECT_EQ(ipc_roce_qkey_for_pkey(0x8001), 0x0001000bu);
	EXPECT_EQ(ipc_roce_qkey_for_pkey(0x0001), 0x0001000bu);
	EXPECT_EQ(ipc_roce_qkey_for_pkey(0xfffe), 0x7ffe000bu);
	/* Distinct partitions never share a Q_Key, never controlled. */
	for (uint32_t p = 1; p < 0x7fff; p++) {
		uint32_t q = ipc_roce_qkey_for_pkey(static_cast<uint16_t>(p));
		EXPECT_NE(q, IPC_QKEY_DEFAULT);
		EXPECT_EQ(q >> 16, p);
		EXPECT_EQ(q & IPC_QKEY_CONTROLLED, 0u); /* s4.1 */
	}
}

} // namespace

/*
 * Review H2: a REQ is taken only on its own partition. InfiniBand: the
 * REQ's P_Key must match the interface's (IBA s10.9.3). RoCE: every REQ
 * carries 0xffff and RC has no Q_Key, so only the default partition takes
 * connected mode at all.
 */
TEST(pkey, cm_partition_rule)
{
	/* InfiniBand. */
	EXPECT_TRUE(ipc_cm_pkey_allowed(0xffff, 0));
	EXPECT_TRUE(ipc_cm_pkey_allowed(0x8002, 0));
	EXPECT_FALSE(ipc_cm_pkey_allowed(0x8000, 0));
	EXPECT_TRUE(ipc_cm_req_pkey_ok(0x8002, 0x8002, 0));
	EXPECT_TRUE(ipc_cm_req_pkey_ok(0x0002, 0x8002, 0)); /* limited, full */
	EXPECT_FALSE(ipc_cm_req_pkey_ok(0xffff, 0x8002, 0));
	EXPECT_FALSE(ipc_cm_req_pkey_ok(0x8001, 0x8002, 0));
	EXPECT_FALSE(ipc_cm_req_pkey_ok(0x0002, 0x0002, 0)); /* both limited */
	EXPECT_FALSE(ipc_cm_req_pkey_ok(0x8000, 0x8000, 0));
	/* RoCE. */
	EXPECT_TRUE(ipc_cm_pkey_allowed(0xffff, 1));
	EXPECT_TRUE(ipc_cm_pkey_allowed(0x7fff, 1));
	EXPECT_FALSE(ipc_cm_pkey_allowed(0x8001, 1));
	EXPECT_TRUE(ipc_cm_req_pkey_ok(0xffff, 0xffff, 1));
	EXPECT_FALSE(ipc_cm_req_pkey_ok(0xffff, 0x8001, 1));
	EXPECT_FALSE(ipc_cm_req_pkey_ok(0x8001, 0x8001, 1));
}

/* What UD carries, in connected mode too (RFC 4755 s5). */
TEST(mtu, ud_frame_max_and_too_big)
{
	struct ipc_mtu_info dg, cm;
	ASSERT_EQ(0, ipc_mtu_resolve(2048, 0, IPC_MODE_DATAGRAM, &dg));
	ASSERT_EQ(0, ipc_mtu_resolve(2048, 0, IPC_MODE_CONNECTED, &cm));
	EXPECT_EQ(ipc_mtu_ud_frame_max(&dg), 2048u);
	EXPECT_EQ(ipc_mtu_ud_frame_max(&cm), 2048u);
	/* Datagram mode: the interface's MTU fits UD. */
	EXPECT_EQ(ipc_mtu_ud_too_big(&dg, dg.effective + IPC_HDR_LEN), 0u);
	EXPECT_EQ(ipc_mtu_ud_too_big(&cm, 2048), 0u);
	EXPECT_EQ(ipc_mtu_ud_too_big(&cm, 2049), 2044u);
	EXPECT_EQ(ipc_mtu_ud_too_big(&cm, cm.effective + IPC_HDR_LEN), 2044u);
	EXPECT_EQ(ipc_mtu_ud_too_big(&cm, 0), 0u);
}
