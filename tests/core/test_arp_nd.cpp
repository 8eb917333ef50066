// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The address-resolution payloads of received frames (arp_nd.cpp), as
 * ipc_rx_classify() checks them: ARP/RARP/InARP over IPoIB (RFC 4391
 * s9.2) and the link-layer address options of IPv6 ND (s9.3). Every frame
 * is classified from a buffer of exactly len bytes, so that ASan sees a
 * read past it.
 */
#include <gtest/gtest.h>

#include <memory>

#include "core_test.hpp"

using namespace ct;

namespace
{

const Gid my_gid = gid("fe80::2:c903:a:1");
const Gid peer_gid = gid("fe80::2:c903:a:2");
constexpr uint32_t my_qpn = 0x48;
constexpr uint32_t peer_qpn = 0x99;
const struct ipc_ifid self = ifid(my_qpn, my_gid, 0xffff, 2);
const Hw me = hw(IPC_ADDR_FLAG_CM, my_qpn, my_gid);
const Hw peer = hw(IPC_ADDR_FLAG_CM, peer_qpn, peer_gid);
const uint8_t my_ip[4] = { 10, 0, 0, 1 };
const uint8_t peer_ip[4] = { 10, 0, 0, 2 };

/* Unusable as a sender or an option's address: each one IPC_R_BAD_ADDR. */
const Hw not_endpoints[] = {
	hw(0, 0, peer_gid), /* QPN 0 */
	hw(0, IPC_QPN_MCAST, peer_gid), /* the multicast QPN */
	hw(0, peer_qpn, Gid{}), /* zero GID */
	hw(0, peer_qpn, gid("ff12:601b:ffff::1")), /* multicast GID */
	hw(0, IPC_QPN_MCAST, bcast_gid(0xffff, 2)), /* the broadcast address */
};

/*
 * Classify the first len bytes of f (all of it by default), received from
 * the peer with a GRH to dgid (our GID by default).
 */
int rx(const Bytes &f, size_t len = SIZE_MAX, const uint8_t *dgid = nullptr,
       struct ipc_rx_verdict *out = nullptr)
{
	if (len > f.size())
		len = f.size();
	std::unique_ptr<uint8_t[]> buf(new uint8_t[len ? len : 1]);
	if (len)
		std::memcpy(buf.get(), f.data(), len);
	struct ipc_rx_verdict v;
	int rc = ipc_rx_classify(&self, peer_gid.data(),
				 dgid ? dgid : my_gid.data(), peer_qpn,
				 buf.get(), static_cast<uint32_t>(len), &v);
	if (out)
		*out = v;
	/* v is zeroed, and filled only on IPC_R_OK. */
	EXPECT_EQ(v.has_src, rc == IPC_R_OK ? 1 : 0);
	return rc;
}

/* ---- ARP over IPoIB (RFC 4391 s9.2) ----------------------------------- */

Bytes arp(uint16_t op = 1, const Hw &sha = peer, const Hw &tha = Hw{})
{
	return arp_payload(op, sha, peer_ip, tha, my_ip);
}

Bytes arp_frame(const Bytes &payload, uint16_t type = IPC_ETH_P_ARP)
{
	return frame(type, payload);
}

TEST(arp, request_and_reply_accepted)
{
	struct ipc_rx_verdict v;
	auto req = arp_frame(arp(1));
	ASSERT_EQ(req.size(), size_t(IPC_HDR_LEN + IPC_ARP_LEN));
	EXPECT_EQ(hex(req.data(), 12), "080600000020080014040001");
	ASSERT_EQ(rx(req, SIZE_MAX, self.bcast_gid, &v), IPC_R_OK);
	EXPECT_EQ(v.ethertype, IPC_ETH_P_ARP);
	EXPECT_EQ(v.pkt_type, IPC_PKT_BROADCAST);
	EXPECT_EQ(hex(v.src_addr, 20), hex(hw(0, peer_qpn, peer_gid)));
	ASSERT_EQ(rx(arp_frame(arp(2, peer, me)), SIZE_MAX, nullptr, &v),
		  IPC_R_OK);
	EXPECT_EQ(v.pkt_type, IPC_PKT_HOST);
}

TEST(arp, validate_each_field)
{
	struct {
		size_t off; /* in the ARP packet */
		uint8_t val;
		int want;
	} cases[] = {
		{ 1, 1, IPC_R_BAD_HWTYPE }, /* Ethernet */
		{ 0, 1, IPC_R_BAD_HWTYPE }, /* 0x0120 */
		{ 2, 0x86, IPC_R_BAD_PROTO }, /* 0x8600 */
		{ 3, 0xdd, IPC_R_BAD_PROTO },
		{ 4, 6, IPC_R_BAD_HLEN },
		{ 5, 16, IPC_R_BAD_PLEN },
		{ 7, 0, IPC_R_BAD_OP },
		{ 7, 5, IPC_R_BAD_OP },
		{ 7, 7, IPC_R_BAD_OP },
		{ 7, 10, IPC_R_BAD_OP },
		{ 6, 1, IPC_R_BAD_OP }, /* 0x0101 */
		{ 8, 0xff, IPC_R_OK }, /* sha flags: reserved bits ignored */
		{ 9, 0, IPC_R_OK }, /* sha QPN 0x000099 -> 0x000099 */
		{ 11, 0, IPC_R_BAD_ADDR }, /* sha QPN 0 */
		{ 12, 0xff, IPC_R_BAD_ADDR }, /* sha GID multicast */
		{ 28, 0, IPC_R_OK }, /* sip, tha, tip: the stack's */
		{ 32, 0xff, IPC_R_OK },
		{ 36, 0xff, IPC_R_OK },
		{ 55, 0xff, IPC_R_OK },
	};
	for (uint16_t type : { IPC_ETH_P_ARP, IPC_ETH_P_RARP }) {
		for (auto &c : cases) {
			auto p = arp(1);
			p[c.off] = c.val;
			EXPECT_EQ(rx(arp_frame(p, type)), c.want)
				<< "type " << std::hex << type << " offset "
				<< std::dec << c.off;
		}
	}
}

TEST(arp, accepts_every_known_op)
{
	/* ARP, RARP request/reply; InARP request/reply (RFC 2390). */
	for (uint16_t op : { 1, 2, 3, 4, 8, 9 }) {
		EXPECT_EQ(rx(arp_frame(arp(op))), IPC_R_OK) << op;
		EXPECT_EQ(rx(arp_frame(arp(op), IPC_ETH_P_RARP)), IPC_R_OK)
			<< op;
	}
	for (uint16_t op : { 0, 5, 6, 7, 10, 0x100, 0xffff })
		EXPECT_EQ(rx(arp_frame(arp(op))), IPC_R_BAD_OP) << op;
}

TEST(arp, validate_lengths)
{
	auto f = arp_frame(arp(1));
	/* Shorter than the fixed header (8 bytes after the IPoIB header). */
	for (size_t len = IPC_HDR_LEN; len < IPC_HDR_LEN + 8; len++)
		EXPECT_EQ(rx(f, len), IPC_R_TRUNCATED) << len;
	EXPECT_EQ(rx(f, IPC_HDR_LEN + 8), IPC_R_TRUNCATED);
	/* The fixed header is checked before the body length. */
	f[IPC_HDR_LEN + 1] = 1;
	EXPECT_EQ(rx(f, IPC_HDR_LEN + 8), IPC_R_BAD_HWTYPE);
	f[IPC_HDR_LEN + 1] = 32;
	f[IPC_HDR_LEN + 7] = 5;
	EXPECT_EQ(rx(f, IPC_HDR_LEN + 8), IPC_R_BAD_OP);
	f[IPC_HDR_LEN + 7] = 1;
	for (size_t len = IPC_HDR_LEN + 8; len < f.size(); len++)
		EXPECT_EQ(rx(f, len), IPC_R_TRUNCATED) << len;
	EXPECT_EQ(rx(f, f.size()), IPC_R_OK);
	f.resize(f.size() + 18, 0); /* Ethernet-style padding */
	EXPECT_EQ(rx(f), IPC_R_OK);
}

TEST(arp, sender_must_be_a_unicast_endpoint)
{
	for (const Hw &a : not_endpoints) {
		EXPECT_EQ(rx(arp_frame(arp(1, a))), IPC_R_BAD_ADDR) << hex(a);
		EXPECT_EQ(rx(arp_frame(arp(2, a), IPC_ETH_P_RARP)),
			  IPC_R_BAD_ADDR)
			<< hex(a);
	}
	/* QPN 0xfffffe, and fe00::1 (not ff00::/8), are unicast. */
	EXPECT_EQ(rx(arp_frame(arp(1, hw(0, 0xfffffe, peer_gid)))), IPC_R_OK);
	EXPECT_EQ(rx(arp_frame(arp(1, hw(0, 1, gid("fe00::1"))))), IPC_R_OK);
	/* The sender's address is checked after the length. */
	auto f = arp_frame(arp(1, not_endpoints[0]));
	EXPECT_EQ(rx(f, f.size() - 1), IPC_R_TRUNCATED);
}

TEST(arp, target_address_is_the_stacks)
{
	/* A request's target is unknown (zero); nothing about it is ours. */
	EXPECT_EQ(rx(arp_frame(arp(1, peer, Hw{}))), IPC_R_OK);
	for (const Hw &a : not_endpoints)
		EXPECT_EQ(rx(arp_frame(arp(2, peer, a))), IPC_R_OK) << hex(a);
}

TEST(arp, checked_from_any_source_after_loopback)
{
	auto bad = arp_frame(arp(1, not_endpoints[3]));
	struct ipc_rx_verdict v;
	/* No GRH (no sgid): still checked. */
	EXPECT_EQ(ipc_rx_classify(&self, nullptr, nullptr, peer_qpn, bad.data(),
				  static_cast<uint32_t>(bad.size()), &v),
		  IPC_R_BAD_ADDR);
	EXPECT_EQ(rx(bad, SIZE_MAX, self.bcast_gid), IPC_R_BAD_ADDR);
	/* Our own multicast looped back is counted as that, first. */
	EXPECT_EQ(ipc_rx_classify(&self, my_gid.data(), self.bcast_gid, my_qpn,
				  bad.data(), static_cast<uint32_t>(bad.size()),
				  &v),
		  IPC_R_LOOPBACK);
}

/* ---- IPv6 ND link-layer address options (RFC 4391 s9.3) -------------- */

const Gid peer_ip6 = gid("fe80::202:c903:a:2");
const Gid solicited = gid("ff02::1:ff0a:1");

enum : uint8_t {
	ND_RS = 133,
	ND_RA = 134,
	ND_NS = 135,
	ND_NA = 136,
	ND_REDIRECT = 137,
	IP6_HOP = 0,
	IP6_TCP = 6,
	IP6_UDP = 17,
	IP6_ROUTING = 43,
	IP6_FRAGMENT = 44,
	IP6_ICMP = 58,
	IP6_NONE = 59,
	IP6_DEST = 60,
};

/* RFC 4861 s4: the fixed part of each ND message after its first 4 bytes. */
size_t nd_fixed(uint8_t type)
{
	switch (type) {
	case ND_RS:
		return 4;
	case ND_RA:
		return 12;
	case ND_REDIRECT:
		return 36;
	default:
		return 20;
	}
}

/* The ICMPv6 ND message type with its options. */
Bytes nd_msg(uint8_t type, const Bytes &opts, uint8_t fill = 0)
{
	return icmp6(type, nd_fixed(type), opts, fill);
}

/* An IPv6 frame from the peer: next header next, then body. */
Bytes v6_frame(uint8_t next, const Bytes &body)
{
	return frame(IPC_ETH_P_IPV6,
		     ipv6_packet(next, body, peer_ip6, solicited));
}

Bytes nd_frame(uint8_t type, const Bytes &opts, uint8_t fill = 0)
{
	return v6_frame(IP6_ICMP, nd_msg(type, opts, fill));
}

/* Where the first option of an ND frame begins, in the frame. */
size_t opt_at(uint8_t type)
{
	return IPC_HDR_LEN + IPC_GRH_LEN + 4 + nd_fixed(type);
}

/*
 * An extension header (RFC 8200 s4) of 8 * (units + 1) bytes: next
 * header, length, then PadN filling.
 */
Bytes ext_hdr(uint8_t next, uint8_t units = 0)
{
	Bytes h(8 * (units + 1u), 0);
	h[0] = next;
	h[1] = units;
	h[2] = 1; /* PadN */
	h[3] = static_cast<uint8_t>(h.size() - 4);
	return h;
}

/* An option of another type (MTU 5, prefix 3, ...) of units * 8 bytes. */
Bytes other_opt(uint8_t type, uint8_t units, uint8_t fill = 0)
{
	Bytes o(8u * units, fill);
	o[0] = type;
	o[1] = units;
	return o;
}

const Bytes slla = nd_ll_opt(1, peer);
const Bytes tlla = nd_ll_opt(2, peer);

TEST(nd, ns_with_source_option_accepted)
{
	auto f = nd_frame(ND_NS, slla);
	EXPECT_EQ(hex(f.data() + opt_at(ND_NS), 4), "01030000");
	struct ipc_rx_verdict v;
	Gid mg = mgid_v6(solicited, bcast_gid(0xffff, 2));
	ASSERT_EQ(rx(f, SIZE_MAX, mg.data(), &v), IPC_R_OK);
	EXPECT_EQ(v.ethertype, IPC_ETH_P_IPV6);
	EXPECT_EQ(v.pkt_type, IPC_PKT_MULTICAST);
	/* No option at all (DAD), or the target's in an NA. */
	EXPECT_EQ(rx(nd_frame(ND_NS, {})), IPC_R_OK);
	EXPECT_EQ(rx(nd_frame(ND_NA, tlla)), IPC_R_OK);
}

TEST(nd, option_address_must_be_a_unicast_endpoint)
{
	for (const Hw &a : not_endpoints) {
		EXPECT_EQ(rx(nd_frame(ND_NS, nd_ll_opt(1, a))), IPC_R_BAD_ADDR)
			<< hex(a);
		EXPECT_EQ(rx(nd_frame(ND_NA, nd_ll_opt(2, a))), IPC_R_BAD_ADDR)
			<< hex(a);
	}
	EXPECT_EQ(rx(nd_frame(ND_NS, nd_ll_opt(1, hw(0, 0xfffffe, peer_gid)))),
		  IPC_R_OK);
}

TEST(nd, validate_each_field)
{
	struct {
		size_t off; /* in the option */
		uint8_t val;
		int want;
	} cases[] = {
		{ 1, 1, IPC_R_BAD_OPT_LEN }, /* Ethernet's size */
		{ 1, 2, IPC_R_BAD_OPT_LEN },
		{ 2, 1, IPC_R_BAD_PAD },
		{ 3, 0x80, IPC_R_BAD_PAD },
		{ 4, 0xff, IPC_R_OK }, /* flags: reserved bits ignored */
		{ 5, 0x01, IPC_R_OK }, /* QPN 0x010099 */
		{ 7, 0, IPC_R_BAD_ADDR }, /* QPN 0 */
		{ 8, 0xff, IPC_R_BAD_ADDR }, /* multicast GID */
		{ 23, 0, IPC_R_OK },
	};
	for (uint8_t type : { 1, 2 }) {
		for (auto &c : cases) {
			Bytes o = nd_ll_opt(type, peer);
			o[c.off] = c.val;
			EXPECT_EQ(rx(nd_frame(ND_NA, o)), c.want)
				<< "type " << int(type) << " offset " << c.off;
		}
	}
}

TEST(nd, na_target_option_of_another_length)
{
	/* 8 bytes: Ethernet's target option; its address is ours no more. */
	Bytes eth = other_opt(2, 1);
	EXPECT_EQ(rx(nd_frame(ND_NA, eth)), IPC_R_BAD_OPT_LEN);
	/* 32 bytes, all of them present. */
	Bytes big = cat({ tlla, Bytes(8, 0) });
	big[1] = 4;
	EXPECT_EQ(rx(nd_frame(ND_NA, big)), IPC_R_BAD_OPT_LEN);
	/* 32 bytes claimed, 24 present: cut short first. */
	Bytes over = tlla;
	over[1] = 4;
	EXPECT_EQ(rx(nd_frame(ND_NA, over)), IPC_R_TRUNCATED);
	/* 16 bytes, followed by 8 more that the 24-byte option would take. */
	Bytes two = cat({ other_opt(2, 2), other_opt(5, 1) });
	EXPECT_EQ(rx(nd_frame(ND_NA, two)), IPC_R_BAD_OPT_LEN);
}

TEST(nd, zero_length_option)
{
	/* RFC 4861 s4.6: invalid whatever its type; the walk cannot go on. */
	for (uint8_t type : { 1, 2, 3, 5, 14, 0 }) {
		Bytes z = other_opt(type, 1);
		z[1] = 0;
		EXPECT_EQ(rx(nd_frame(ND_NS, z)), IPC_R_BAD_OPT_LEN)
			<< int(type);
		EXPECT_EQ(rx(nd_frame(ND_RA, cat({ slla, z }))),
			  IPC_R_BAD_OPT_LEN)
			<< int(type);
	}
	/* Two bytes of it are enough to tell. */
	Bytes z = { 5, 0 };
	EXPECT_EQ(rx(nd_frame(ND_NS, z)), IPC_R_BAD_OPT_LEN);
}

TEST(nd, other_option_types_are_skipped)
{
	/* Types other than 1 and 2 are not link-layer addresses. */
	for (uint8_t type : { 0, 3, 4, 5, 14, 25, 31, 255 }) {
		Bytes o =
			other_opt(type, 3, 0xff); /* no pad, mcast "address" */
		EXPECT_EQ(rx(nd_frame(ND_RA, o)), IPC_R_OK) << int(type);
		Bytes bad = nd_ll_opt(1, not_endpoints[3]);
		EXPECT_EQ(rx(nd_frame(ND_RA, cat({ o, bad }))), IPC_R_BAD_ADDR)
			<< int(type);
	}
}

TEST(nd, every_ll_option_is_checked)
{
	Bytes bad = nd_ll_opt(2, not_endpoints[0]);
	EXPECT_EQ(rx(nd_frame(ND_NA, cat({ slla, tlla }))), IPC_R_OK);
	EXPECT_EQ(rx(nd_frame(ND_NA, cat({ slla, bad }))), IPC_R_BAD_ADDR);
	EXPECT_EQ(rx(nd_frame(ND_NA, cat({ bad, slla }))), IPC_R_BAD_ADDR);
}

TEST(nd, options_at_each_message_offset)
{
	/*
	 * The fixed part is filled with 0x01: read as options it is a
	 * source option of 8 bytes (IPC_R_BAD_OPT_LEN).
	 */
	for (uint8_t type : { ND_RS, ND_RA, ND_NS, ND_NA, ND_REDIRECT }) {
		auto f = nd_frame(type, slla, 0x01);
		EXPECT_EQ(hex(f.data() + opt_at(type), 4), "01030000");
		EXPECT_EQ(rx(f), IPC_R_OK) << int(type);
		EXPECT_EQ(rx(nd_frame(type, {}, 0x01)), IPC_R_OK) << int(type);
		Bytes bad = slla;
		bad[2] = 1;
		EXPECT_EQ(rx(nd_frame(type, bad, 0x01)), IPC_R_BAD_PAD)
			<< int(type);
		EXPECT_EQ(rx(nd_frame(type, cat({ slla, bad }), 0x01)),
			  IPC_R_BAD_PAD)
			<< int(type);
	}
}

TEST(nd, router_advertisement_with_other_options)
{
	/* MTU (5, 8 bytes), prefix information (3, 32 bytes), then ours. */
	Bytes opts = cat({ other_opt(5, 1), other_opt(3, 4, 0xff), slla });
	EXPECT_EQ(rx(nd_frame(ND_RA, opts)), IPC_R_OK);
	Bytes bad = cat({ other_opt(5, 1), other_opt(3, 4, 0xff),
			  nd_ll_opt(1, not_endpoints[4]) });
	EXPECT_EQ(rx(nd_frame(ND_RA, bad)), IPC_R_BAD_ADDR);
	/* Redirect: a target option, then a redirected header (4). */
	Bytes red = cat({ tlla, other_opt(4, 6, 0xff) });
	EXPECT_EQ(rx(nd_frame(ND_REDIRECT, red)), IPC_R_OK);
}

TEST(nd, options_after_extension_headers)
{
	Bytes bad = slla;
	bad[3] = 1;
	for (uint8_t ext : { IP6_HOP, IP6_ROUTING, IP6_DEST }) {
		for (uint8_t units : { 0, 1, 3 }) {
			Bytes good = cat({ ext_hdr(IP6_ICMP, units),
					   nd_msg(ND_NS, slla) });
			EXPECT_EQ(rx(v6_frame(ext, good)), IPC_R_OK)
				<< int(ext) << " " << int(units);
			Bytes b = cat({ ext_hdr(IP6_ICMP, units),
					nd_msg(ND_NS, bad) });
			EXPECT_EQ(rx(v6_frame(ext, b)), IPC_R_BAD_PAD)
				<< int(ext) << " " << int(units);
		}
	}
	/* Hop-by-hop (MLD's router alert), routing, destination options. */
	Bytes chain = cat({ ext_hdr(IP6_ROUTING), ext_hdr(IP6_DEST, 2),
			    ext_hdr(IP6_ICMP), nd_msg(ND_NA, bad) });
	EXPECT_EQ(rx(v6_frame(IP6_HOP, chain)), IPC_R_BAD_PAD);
	/* An extension header leading elsewhere: not ND. */
	Bytes udp = cat({ ext_hdr(IP6_UDP), nd_msg(ND_NA, bad) });
	EXPECT_EQ(rx(v6_frame(IP6_DEST, udp)), IPC_R_OK);
}

TEST(nd, at_most_eight_extension_headers_followed)
{
	Bytes bad = slla;
	bad[1] = 1;
	for (int n : { 1, 7, 8, 9, 12 }) {
		Bytes body;
		for (int i = 0; i < n; i++)
			body = cat({ body, ext_hdr(i + 1 < n ? IP6_DEST :
							       IP6_ICMP) });
		body = cat({ body, nd_msg(ND_NS, bad) });
		/* Beyond eight, the packet is the stack's to judge. */
		EXPECT_EQ(rx(v6_frame(IP6_DEST, body)),
			  n <= 8 ? IPC_R_BAD_OPT_LEN : IPC_R_OK)
			<< n;
	}
}

TEST(nd, fragment_not_inspected)
{
	/* RFC 6980: the stack drops fragmented ND; nothing to look at. */
	Bytes frag(8, 0);
	frag[0] = IP6_ICMP;
	Bytes bad = slla;
	bad[1] = 0;
	EXPECT_EQ(rx(v6_frame(IP6_FRAGMENT, cat({ frag, nd_msg(ND_NS, bad) }))),
		  IPC_R_OK);
	Bytes via_dest =
		cat({ ext_hdr(IP6_FRAGMENT), frag, nd_msg(ND_NS, bad) });
	EXPECT_EQ(rx(v6_frame(IP6_DEST, via_dest)), IPC_R_OK);
}

TEST(nd, other_icmpv6_and_other_protocols_not_inspected)
{
	Bytes garbage(64, 0);
	for (size_t i = 0; i < garbage.size(); i++)
		garbage[i] = static_cast<uint8_t>(i % 3 ? 0x01 : 0x00);
	/* Echo request and reply, MLD (130..132), 138 (router renumbering). */
	for (uint8_t type : { 1, 128, 129, 130, 131, 132, 138, 143, 255 })
		EXPECT_EQ(rx(v6_frame(IP6_ICMP, cat({ Bytes{ type, 0, 0, 0 },
						      garbage }))),
			  IPC_R_OK)
			<< int(type);
	/* ND's types over UDP, TCP; no next header. */
	for (int next : { 17, 6, 59, 255 })
		EXPECT_EQ(rx(v6_frame(static_cast<uint8_t>(next),
				      nd_msg(ND_NS, garbage))),
			  IPC_R_OK)
			<< next;
	EXPECT_EQ(rx(v6_frame(IP6_UDP, {})), IPC_R_OK);
	/* Not version 6: the stack's to drop. */
	auto f = nd_frame(ND_NS, Bytes{ 1, 0 });
	f[IPC_HDR_LEN] = 0x40;
	EXPECT_EQ(rx(f), IPC_R_OK);
	f[IPC_HDR_LEN] = 0x60;
	EXPECT_EQ(rx(f), IPC_R_BAD_OPT_LEN);
}

TEST(nd, ipv4_frame_not_inspected)
{
	/* An IPv4 frame that holds an ND message with a bad option. */
	auto v6 = nd_frame(ND_NS, Bytes{ 1, 0 });
	Bytes body(v6.begin() + IPC_HDR_LEN, v6.end());
	auto f = frame(IPC_ETH_P_IP, body);
	EXPECT_EQ(rx(f), IPC_R_OK);
	/* Short ones too: the stack checks IPv4's lengths. */
	for (size_t len = IPC_HDR_LEN; len < 40; len++)
		EXPECT_EQ(rx(f, len), IPC_R_OK) << len;
}

TEST(nd, ipv6_header_truncated)
{
	auto f = v6_frame(IP6_NONE, {});
	ASSERT_EQ(f.size(), size_t(IPC_HDR_LEN + IPC_GRH_LEN));
	EXPECT_EQ(rx(f), IPC_R_OK);
	/* A frame of 28 bytes, and every one shorter than 44. */
	EXPECT_EQ(rx(f, 28), IPC_R_TRUNCATED);
	for (size_t len = IPC_HDR_LEN; len < f.size(); len++)
		EXPECT_EQ(rx(f, len), IPC_R_TRUNCATED) << len;
}

TEST(nd, headers_and_options_past_len_truncated)
{
	Bytes bad = slla;
	bad[1] = 1;
	/* The next header of an extension header, past len. */
	auto e = v6_frame(IP6_DEST,
			  cat({ ext_hdr(IP6_ICMP, 1), nd_msg(ND_NS, slla) }));
	const size_t at = IPC_HDR_LEN + IPC_GRH_LEN;
	EXPECT_EQ(rx(e, at), IPC_R_TRUNCATED);
	EXPECT_EQ(rx(e, at + 1), IPC_R_TRUNCATED);
	/* The ICMPv6 type, past len. */
	EXPECT_EQ(rx(e, at + 16), IPC_R_TRUNCATED);
	EXPECT_EQ(rx(e), IPC_R_OK);
	/* An option cut anywhere inside, however long the rest was. */
	auto f = nd_frame(ND_NS, slla);
	const size_t o = opt_at(ND_NS);
	for (size_t len = o; len < f.size(); len++)
		EXPECT_EQ(rx(f, len), IPC_R_TRUNCATED) << len;
	EXPECT_EQ(rx(f, f.size()), IPC_R_OK);
	/* Options after one of another type, cut. */
	auto g = nd_frame(ND_RA, cat({ other_opt(5, 1), slla }));
	EXPECT_EQ(rx(g, opt_at(ND_RA) + 8 + 1), IPC_R_TRUNCATED);
	EXPECT_EQ(rx(g, opt_at(ND_RA) + 8 + 23), IPC_R_TRUNCATED);
	/* The fixed part cut: options claimed are cut too... */
	EXPECT_EQ(rx(f, o - 1), IPC_R_TRUNCATED);
	/* ... while a message without options is the stack's to judge. */
	EXPECT_EQ(rx(nd_frame(ND_NS, {}), o - 1), IPC_R_OK);
	/* Ethernet's 8-byte option is refused before the length. */
	auto h = nd_frame(ND_NS, cat({ bad, Bytes(16, 0) }));
	EXPECT_EQ(rx(h, o + 8), IPC_R_BAD_OPT_LEN);
}

TEST(nd, what_the_payload_length_leaves_out_is_not_read)
{
	Bytes bad = slla;
	bad[2] = 1;
	/* The bad option arrived, after the packet's end. */
	auto f = nd_frame(ND_NS, cat({ slla, bad }));
	const size_t end = opt_at(ND_NS) + IPC_ND_OPT_LEN;
	EXPECT_EQ(rx(f), IPC_R_BAD_PAD);
	put_be16(f.data() + IPC_HDR_LEN + 4,
		 static_cast<uint16_t>(end - IPC_HDR_LEN - IPC_GRH_LEN));
	EXPECT_EQ(rx(f), IPC_R_OK);
	/* An option's first byte only inside the packet: not one. */
	put_be16(f.data() + IPC_HDR_LEN + 4,
		 static_cast<uint16_t>(end + 1 - IPC_HDR_LEN - IPC_GRH_LEN));
	EXPECT_EQ(rx(f), IPC_R_OK);
	put_be16(f.data() + IPC_HDR_LEN + 4,
		 static_cast<uint16_t>(end + 2 - IPC_HDR_LEN - IPC_GRH_LEN));
	EXPECT_EQ(rx(f), IPC_R_BAD_PAD);
}

} // namespace
