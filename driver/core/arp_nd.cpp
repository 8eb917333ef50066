// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * arp_nd.cpp - the address-resolution payloads of received frames:
 * ARP/RARP/InARP over IPoIB (RFC 4391 s9.2) and the link-layer address
 * options of IPv6 ND (s9.3), checked by ipc_rx_classify() (encap.cpp).
 *
 * Both reject a sender/option address that cannot be a unicast endpoint
 * (QPN 0 or 0xffffff, zero or multicast GID) with IPC_R_BAD_ADDR: such an
 * address would poison a neighbour entry.
 */
#include "core.hpp"

namespace ipc
{
namespace
{

/* s9.2: the ARP header of [ARP] with IB sizes. */
constexpr size_t arp_hwtype = 0;
constexpr size_t arp_proto = 2;
constexpr size_t arp_hlen = 4;
constexpr size_t arp_plen = 5;
constexpr size_t arp_op = 6;
constexpr size_t arp_fixed = 8;
constexpr size_t arp_sha = arp_fixed;
constexpr size_t arp_sip = arp_sha + IPC_ADDR_LEN;
constexpr size_t arp_tha = arp_sip + 4;
constexpr size_t arp_tip = arp_tha + IPC_ADDR_LEN;
static_assert(arp_tip + 4 == IPC_ARP_LEN, "ARP layout");

enum arp_opcode : u16 {
	ARP_REQUEST = 1,
	ARP_REPLY = 2,
	RARP_REQUEST = 3,
	RARP_REPLY = 4,
	INARP_REQUEST = 8,
	INARP_REPLY = 9,
};

constexpr bool arp_op_known(u16 op)
{
	return (op >= ARP_REQUEST && op <= RARP_REPLY) || op == INARP_REQUEST ||
	       op == INARP_REPLY;
}

/* s9.3: type, length 3 (units of 8 octets), 2 zero pad, 20-byte address. */
constexpr size_t nd_opt_addr = 4;
constexpr u8 nd_opt_units = IPC_ND_OPT_LEN / 8;
enum nd_opt_type : u8 {
	ND_OPT_SOURCE_LL = 1,
	ND_OPT_TARGET_LL = 2,
};

Verdict arp_validate(const u8 *buf, u32 len)
{
	if (len < arp_fixed)
		return IPC_R_TRUNCATED;
	if (load_be16(buf + arp_hwtype) != IPC_ARP_HWTYPE)
		return IPC_R_BAD_HWTYPE;
	if (load_be16(buf + arp_proto) != IPC_ETH_P_IP)
		return IPC_R_BAD_PROTO;
	if (buf[arp_hlen] != IPC_ADDR_LEN)
		return IPC_R_BAD_HLEN;
	if (buf[arp_plen] != 4)
		return IPC_R_BAD_PLEN;
	if (!arp_op_known(load_be16(buf + arp_op)))
		return IPC_R_BAD_OP;
	if (len < IPC_ARP_LEN)
		return IPC_R_TRUNCATED;
	if (!addr_is_unicast_endpoint(buf + arp_sha))
		return IPC_R_BAD_ADDR;
	return IPC_R_OK;
}

/* A source or target link-layer option, its opt[1] * 8 bytes there. */
Verdict nd_opt_validate(const u8 *opt)
{
	if (opt[1] != nd_opt_units)
		return IPC_R_BAD_OPT_LEN;
	/* s9.3: two octets of zero MUST be prepended. */
	if (opt[2] || opt[3])
		return IPC_R_BAD_PAD;
	if (!addr_is_unicast_endpoint(opt + nd_opt_addr))
		return IPC_R_BAD_ADDR;
	return IPC_R_OK;
}

/* RFC 8200 s4: the extension headers an ND message may follow. */
constexpr u8 ip6_hop_by_hop = 0;
constexpr u8 ip6_routing = 43;
constexpr u8 ip6_dest_opts = 60;
constexpr u8 ip6_icmp = 58;
constexpr u32 ip6_hdr_len = 40;
/* More than this many extension headers: not followed (RFC 8200 s4.1). */
constexpr int ip6_ext_max = 8;

/* RFC 4861 s4: where the options of each ND message begin. */
constexpr u32 nd_opts_at(u8 type)
{
	switch (type) {
	case 133: /* Router Solicitation */
		return 8;
	case 134: /* Router Advertisement */
		return 16;
	case 135: /* Neighbor Solicitation */
	case 136: /* Neighbor Advertisement */
		return 24;
	case 137: /* Redirect */
		return 40;
	default:
		return 0;
	}
}

/*
 * An IPv6 packet (p, len visible bytes): if it is an ND message (RFC
 * 4861), the link-layer address options in it (s9.3). Anything else is
 * the stack's to judge. A fragment is not looked into: the stack drops
 * fragmented ND (RFC 6980), and so ND has no options in later fragments.
 */
Verdict nd_validate(const u8 *p, u32 len)
{
	if (len < ip6_hdr_len)
		return IPC_R_TRUNCATED;
	if ((p[0] >> 4) != 6)
		return IPC_R_OK;
	u32 end = ip6_hdr_len + load_be16(p + 4);
	u32 off = ip6_hdr_len;
	u8 next = p[6];

	for (int i = 0; next == ip6_hop_by_hop || next == ip6_routing ||
			next == ip6_dest_opts;
	     i++) {
		if (i == ip6_ext_max)
			return IPC_R_OK;
		if (off + 2 > len)
			return IPC_R_TRUNCATED;
		next = p[off];
		off += (p[off + 1] + 1u) * 8;
	}
	if (next != ip6_icmp)
		return IPC_R_OK;
	if (off + 1 > len)
		return IPC_R_TRUNCATED;
	u32 opts = nd_opts_at(p[off]);
	if (!opts)
		return IPC_R_OK;
	/* What the payload length covers, or what arrived. */
	for (off += opts; off + 2 <= end;) {
		if (off + 2 > len)
			return IPC_R_TRUNCATED;
		u32 olen = p[off + 1] * 8u;
		/* RFC 4861 s4.6: a zero length is invalid, and so the message. */
		if (!olen)
			return IPC_R_BAD_OPT_LEN;
		if (p[off] == ND_OPT_SOURCE_LL || p[off] == ND_OPT_TARGET_LL) {
			if (off + olen > len)
				return IPC_R_TRUNCATED;
			Verdict v = nd_opt_validate(p + off);
			if (!v.is_ok())
				return v;
		}
		off += olen;
	}
	return IPC_R_OK;
}

/*
 * s9.2, s9.3: the address-resolution payload of a received frame of type
 * ethertype (p after the IPoIB header). A sender or option address that
 * cannot be a unicast endpoint would poison the stack's neighbour entry
 * for a unicast IP: a multicast or the broadcast address there sends that
 * host's traffic to every member of the group, the real peer among them,
 * so that nobody notices. The stack checks the lengths, not this.
 */
Verdict resolution_check(u16 ethertype, const u8 *p, u32 len)
{
	if (ethertype == IPC_ETH_P_ARP || ethertype == IPC_ETH_P_RARP)
		return arp_validate(p, len);
	if (ethertype == IPC_ETH_P_IPV6)
		return nd_validate(p, len);
	return IPC_R_OK;
}

} // namespace
} // namespace ipc
