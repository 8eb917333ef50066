// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ARP over IPoIB (RFC 4391 s9.2) and ND options (s9.3) (arp_nd.cpp). */
#include <gtest/gtest.h>

#include <vector>

#include "core_test.hpp"

using namespace ct;

namespace
{

const Hw me = hw(IPC_ADDR_FLAG_CM, 0x48, gid("fe80::2:c903:a:1"));
const Hw peer = hw(0, 0x99, gid("fe80::2:c903:a:2"));
const uint8_t my_ip[4] = { 10, 0, 0, 1 };
const uint8_t peer_ip[4] = { 10, 0, 0, 2 };

std::vector<uint8_t> arp(uint16_t op, const uint8_t *tha = nullptr)
{
	std::vector<uint8_t> p(IPC_ARP_LEN);
	EXPECT_EQ(ipc_arp_build(op, me.data(), my_ip, tha, peer_ip, p.data(),
				p.size()),
		  IPC_ARP_LEN);
	return p;
}

TEST(arp, build_request_layout)
{
	auto p = arp(1);
	EXPECT_EQ(hex(p.data(), 8), "0020080014040001");
	EXPECT_EQ(hex(p.data() + 8, 20), hex(me));
	EXPECT_EQ(hex(p.data() + 28, 4), "0a000001");
	EXPECT_EQ(hex(p.data() + 32, 20), std::string(40, '0'));
	EXPECT_EQ(hex(p.data() + 52, 4), "0a000002");
	EXPECT_EQ(ipc_arp_validate(p.data(), p.size()), IPC_R_OK);
}

TEST(arp, build_reply_with_target_clears_reserved_flags)
{
	Hw t = peer;
	t[0] = 0x7f; /* reserved bits must go out as zero */
	auto p = arp(2, t.data());
	EXPECT_EQ(p[7], 2);
	EXPECT_EQ(p[32], 0x00);
	EXPECT_EQ(hex(p.data() + 33, 19), hex(peer.data() + 1, 19));
	EXPECT_EQ(ipc_arp_validate(p.data(), p.size()), IPC_R_OK);
}

TEST(arp, build_errors)
{
	std::vector<uint8_t> p(IPC_ARP_LEN + 8);
	EXPECT_EQ(ipc_arp_build(3, me.data(), my_ip, nullptr, peer_ip, p.data(),
				p.size()),
		  -IPC_EINVAL);
	EXPECT_EQ(ipc_arp_build(0, me.data(), my_ip, nullptr, peer_ip, p.data(),
				p.size()),
		  -IPC_EINVAL);
	EXPECT_EQ(ipc_arp_build(1, nullptr, my_ip, nullptr, peer_ip, p.data(),
				p.size()),
		  -IPC_EINVAL);
	EXPECT_EQ(ipc_arp_build(1, me.data(), nullptr, nullptr, peer_ip,
				p.data(), p.size()),
		  -IPC_EINVAL);
	EXPECT_EQ(ipc_arp_build(1, me.data(), my_ip, nullptr, nullptr, p.data(),
				p.size()),
		  -IPC_EINVAL);
	Hw mc = hw(0, 0xffffff, gid("ff12:401b:ffff::1"));
	EXPECT_EQ(ipc_arp_build(1, mc.data(), my_ip, nullptr, peer_ip, p.data(),
				p.size()),
		  -IPC_EINVAL);
	EXPECT_EQ(ipc_arp_build(1, me.data(), my_ip, nullptr, peer_ip, p.data(),
				IPC_ARP_LEN - 1),
		  -IPC_ERANGE);
	EXPECT_EQ(ipc_arp_build(1, me.data(), my_ip, nullptr, peer_ip, nullptr,
				100),
		  -IPC_ERANGE);
	EXPECT_EQ(ipc_arp_build(2, me.data(), my_ip, nullptr, peer_ip, p.data(),
				p.size()),
		  IPC_ARP_LEN);
}

TEST(arp, validate_each_field)
{
	auto good = arp(1);
	struct {
		size_t off;
		uint8_t val;
		int want;
	} cases[] = {
		{ 1, 1, IPC_R_BAD_HWTYPE }, /* Ethernet */
		{ 0, 1, IPC_R_BAD_HWTYPE }, /* 0x0120 */
		{ 2, 0x86, IPC_R_BAD_PROTO }, /* 0x8600 */
		{ 3, 0xdd, IPC_R_BAD_PROTO }, { 4, 6, IPC_R_BAD_HLEN },
		{ 5, 16, IPC_R_BAD_PLEN },    { 7, 0, IPC_R_BAD_OP },
		{ 7, 5, IPC_R_BAD_OP },	      { 7, 10, IPC_R_BAD_OP },
		{ 6, 1, IPC_R_BAD_OP }, /* 0x0101 */
		{ 9, 0, IPC_R_OK }, /* sha QPN 0x000048 -> 0x000048 */
		{ 11, 0, IPC_R_BAD_ADDR }, /* sha QPN 0 */
		{ 12, 0xff, IPC_R_BAD_ADDR }, /* sha GID multicast */
	};
	for (auto &c : cases) {
		auto p = good;
		p[c.off] = c.val;
		EXPECT_EQ(ipc_arp_validate(p.data(), p.size()), c.want)
			<< "offset " << c.off;
	}
}

TEST(arp, validate_accepts_every_known_op)
{
	for (uint8_t op : { 1, 2, 3, 4, 8, 9 }) {
		auto p = arp(1);
		p[7] = op;
		EXPECT_EQ(ipc_arp_validate(p.data(), p.size()), IPC_R_OK);
	}
}

TEST(arp, validate_lengths)
{
	auto p = arp(1);
	for (uint32_t len = 0; len < 8; len++)
		EXPECT_EQ(ipc_arp_validate(p.data(), len), IPC_R_TRUNCATED);
	/* The fixed header is checked before the body length. */
	p[1] = 1;
	EXPECT_EQ(ipc_arp_validate(p.data(), 8), IPC_R_BAD_HWTYPE);
	p[1] = 32;
	EXPECT_EQ(ipc_arp_validate(p.data(), IPC_ARP_LEN - 1), IPC_R_TRUNCATED);
	p.resize(IPC_ARP_LEN + 18, 0); /* Ethernet-style padding */
	EXPECT_EQ(ipc_arp_validate(p.data(), p.size()), IPC_R_OK);
}

TEST(arp, validate_sender_address)
{
	auto p = arp(1);
	/* QPN 0xffffff as a sender */
	p[9] = p[10] = p[11] = 0xff;
	EXPECT_EQ(ipc_arp_validate(p.data(), p.size()), IPC_R_BAD_ADDR);
	p = arp(1);
	std::memset(p.data() + 12, 0, 16); /* zero GID */
	EXPECT_EQ(ipc_arp_validate(p.data(), p.size()), IPC_R_BAD_ADDR);
}

TEST(nd, build_source_and_target_rfc4391_s9_3)
{
	uint8_t o[24];
	ASSERT_EQ(ipc_nd_opt_build(1, me.data(), o), IPC_ND_OPT_LEN);
	EXPECT_EQ(hex(o, 4), "01030000");
	EXPECT_EQ(hex(o + 4, 20), hex(me));
	ASSERT_EQ(ipc_nd_opt_build(2, peer.data(), o), IPC_ND_OPT_LEN);
	EXPECT_EQ(hex(o, 4), "02030000");
	Hw r = peer;
	r[0] = 0x01; /* reserved flag: sent as zero */
	ASSERT_EQ(ipc_nd_opt_build(2, r.data(), o), IPC_ND_OPT_LEN);
	EXPECT_EQ(o[4], 0);
}

TEST(nd, build_errors)
{
	uint8_t o[24] = {};
	EXPECT_EQ(ipc_nd_opt_build(0, me.data(), o), -IPC_EINVAL);
	EXPECT_EQ(ipc_nd_opt_build(3, me.data(), o), -IPC_EINVAL);
	Hw mc = hw(0, 0xffffff, gid("ff12:601b:ffff::1"));
	EXPECT_EQ(ipc_nd_opt_build(1, mc.data(), o), -IPC_EINVAL);
	EXPECT_EQ(o[0], 0);
}

TEST(nd, validate_round_trip_and_pointer)
{
	uint8_t o[32] = {};
	ASSERT_EQ(ipc_nd_opt_build(1, me.data(), o), 24);
	const uint8_t *a = nullptr;
	EXPECT_EQ(ipc_nd_opt_validate(o, 24, &a), IPC_R_OK);
	EXPECT_EQ(a, o + 4);
	EXPECT_EQ(ipc_nd_opt_validate(o, 32, nullptr), IPC_R_OK);
}

TEST(nd, validate_each_field)
{
	uint8_t good[24];
	ASSERT_EQ(ipc_nd_opt_build(2, peer.data(), good), 24);
	struct {
		size_t off;
		uint8_t val;
		int want;
	} cases[] = {
		{ 0, 0, IPC_R_BAD_OPT_TYPE },  { 0, 3, IPC_R_BAD_OPT_TYPE },
		{ 0, 14, IPC_R_BAD_OPT_TYPE }, { 1, 1, IPC_R_BAD_OPT_LEN },
		{ 1, 4, IPC_R_BAD_OPT_LEN },   { 2, 1, IPC_R_BAD_PAD },
		{ 3, 0x80, IPC_R_BAD_PAD },    { 4, 0xff, IPC_R_OK },
		{ 7, 0, IPC_R_BAD_ADDR },      { 8, 0xff, IPC_R_BAD_ADDR },
	};
	for (auto &c : cases) {
		uint8_t o[24];
		std::memcpy(o, good, 24);
		o[c.off] = c.val;
		const uint8_t *a = o;
		EXPECT_EQ(ipc_nd_opt_validate(o, 24, &a), c.want)
			<< "offset " << c.off;
		EXPECT_EQ(a, c.want == IPC_R_OK ? o + 4 : nullptr);
	}
}

TEST(nd, validate_lengths)
{
	uint8_t o[24];
	ASSERT_EQ(ipc_nd_opt_build(1, me.data(), o), 24);
	const uint8_t *a = o;
	EXPECT_EQ(ipc_nd_opt_validate(o, 0, &a), IPC_R_TRUNCATED);
	EXPECT_EQ(ipc_nd_opt_validate(o, 1, &a), IPC_R_TRUNCATED);
	EXPECT_EQ(a, nullptr);
	for (uint32_t len = 2; len < 24; len++)
		EXPECT_EQ(ipc_nd_opt_validate(o, len, &a), IPC_R_TRUNCATED);
	o[1] = 1; /* an Ethernet-sized option is refused before the length */
	EXPECT_EQ(ipc_nd_opt_validate(o, 8, &a), IPC_R_BAD_OPT_LEN);
}

} // namespace
