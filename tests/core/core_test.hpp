// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Helpers shared by the GoogleTest suites of the core. */
#ifndef IPOIB_CORE_TEST_HPP
#define IPOIB_CORE_TEST_HPP

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include "ipoib_core.h"
}

namespace ct
{

using Gid = std::array<uint8_t, 16>;
using Hw = std::array<uint8_t, 20>;

/* "fe80::2:c903:1:2" style, or 32 hex digits with optional ':' */
inline Gid gid(const char *text)
{
	Gid g{};
	std::string s(text);
	size_t dc = s.find("::");
	auto parse = [](const std::string &part, std::array<uint16_t, 8> &w,
			int &n) {
		size_t i = 0;
		while (i < part.size()) {
			size_t j = part.find(':', i);
			if (j == std::string::npos)
				j = part.size();
			w[n++] = static_cast<uint16_t>(
				std::stoul(part.substr(i, j - i), nullptr, 16));
			i = j + 1;
		}
	};
	std::array<uint16_t, 8> head{}, tail{};
	int nh = 0, nt = 0;
	if (dc == std::string::npos) {
		parse(s, head, nh);
	} else {
		parse(s.substr(0, dc), head, nh);
		parse(s.substr(dc + 2), tail, nt);
	}
	std::array<uint16_t, 8> w{};
	for (int i = 0; i < nh; i++)
		w[i] = head[i];
	for (int i = 0; i < nt; i++)
		w[8 - nt + i] = tail[i];
	for (int i = 0; i < 8; i++) {
		g[2 * i] = static_cast<uint8_t>(w[i] >> 8);
		g[2 * i + 1] = static_cast<uint8_t>(w[i]);
	}
	return g;
}

inline Hw hw(uint8_t flags, uint32_t qpn, const Gid &g)
{
	struct ipc_addr a = {};
	Hw out{};
	a.flags = flags;
	a.qpn = qpn;
	std::memcpy(a.gid, g.data(), 16);
	ipc_addr_encode(&a, out.data());
	return out;
}

/* The broadcast MGID (bytes 4..19 of the broadcast address). */
inline Gid bcast_gid(uint16_t pkey, uint8_t scope)
{
	Hw b{};
	Gid g{};
	ipc_addr_broadcast(pkey, scope, b.data());
	std::memcpy(g.data(), b.data() + 4, 16);
	return g;
}

inline std::string hex(const uint8_t *p, size_t n)
{
	static const char d[] = "0123456789abcdef";
	std::string s;
	for (size_t i = 0; i < n; i++) {
		s += d[p[i] >> 4];
		s += d[p[i] & 15];
	}
	return s;
}

template <size_t N> std::string hex(const std::array<uint8_t, N> &a)
{
	return hex(a.data(), N);
}

/* An interface identity: QPN, port GID, broadcast MGID for P_Key/scope. */
inline struct ipc_ifid ifid(uint32_t qpn, const Gid &port, uint16_t pkey,
			    uint8_t scope)
{
	struct ipc_ifid id = {};
	id.qpn = qpn;
	std::memcpy(id.gid, port.data(), 16);
	Gid b = bcast_gid(pkey, scope);
	std::memcpy(id.bcast_gid, b.data(), 16);
	return id;
}

/*
 * A state's name as the views give it (struct ipc_view.state) for a
 * machine in state s; "unknown" for a state that has none.
 */
inline const char *path_state_name(uint8_t s)
{
	struct ipc_path p = {};
	struct ipc_view v;
	p.state = s;
	ipc_path_view(&p, &v);
	return v.state;
}

inline const char *mc_state_name(uint8_t s)
{
	struct ipc_mc m = {};
	struct ipc_view v;
	m.state = s;
	ipc_mc_view(&m, &v);
	return v.state;
}

inline const char *cm_state_name(uint8_t s)
{
	struct ipc_cm c = {};
	struct ipc_view v;
	c.state = s;
	ipc_cm_view(&c, &v);
	return v.state;
}

inline const char *am_state_name(uint8_t s)
{
	struct ipc_am am = {};
	struct ipc_view v;
	am.state = s;
	ipc_am_view(&am, &v);
	return v.state;
}

/*
 * The test oracle for the RFC 4391 s4 mapping of an IP multicast group to
 * its MGID, which the stack does itself: byte for byte what the kernel's
 * ip_ib_mc_map() (include/net/ip.h) and ipv6_ib_mc_map()
 * (include/net/if_inet6.h) write at bytes 4..19 of the hardware address,
 * scope and P_Key taken from the broadcast MGID (bcast_gid = bytes 4..19 of
 * dev->broadcast) as those take them from dev->broadcast.
 *
 * ff, 1<scope>, signature 401b, P_Key, 6 zero bytes, the low 28 bits of
 * the group, 255.255.255.255 included. s4's limited broadcast, which
 * SHALL map to the broadcast GID, never comes here: the stack's broadcast
 * neighbour takes dev->broadcast.
 */
inline void mgid_v4(const uint8_t group[4], const uint8_t bcast_gid[16],
		    uint8_t mgid[16])
{
	std::memset(mgid, 0, 16);
	mgid[0] = 0xff;
	mgid[1] = static_cast<uint8_t>(0x10 | (bcast_gid[1] & 0xf));
	mgid[2] = IPC_SIG_IPV4 >> 8;
	mgid[3] = IPC_SIG_IPV4 & 0xff;
	mgid[4] = bcast_gid[4];
	mgid[5] = bcast_gid[5];
	mgid[12] = group[0] & 0x0f;
	mgid[13] = group[1];
	mgid[14] = group[2];
	mgid[15] = group[3];
}

/* ff, 1<scope>, signature 601b, P_Key, the low 80 bits of the group. */
inline void mgid_v6(const uint8_t group[16], const uint8_t bcast_gid[16],
		    uint8_t mgid[16])
{
	mgid[0] = 0xff;
	mgid[1] = static_cast<uint8_t>(0x10 | (bcast_gid[1] & 0xf));
	mgid[2] = IPC_SIG_IPV6 >> 8;
	mgid[3] = IPC_SIG_IPV6 & 0xff;
	mgid[4] = bcast_gid[4];
	mgid[5] = bcast_gid[5];
	std::memcpy(mgid + 6, group + 6, 10);
}

/* The same, returned. */
inline Gid mgid_v4(const uint8_t group[4], const Gid &bcast)
{
	Gid m{};
	mgid_v4(group, bcast.data(), m.data());
	return m;
}

inline Gid mgid_v6(const Gid &group, const Gid &bcast)
{
	Gid m{};
	mgid_v6(group.data(), bcast.data(), m.data());
	return m;
}

/* The multicast hardware address of an MGID: QPN 0xffffff (s9.1.1). */
inline Hw mcast_hw(const Gid &mgid)
{
	return hw(0, IPC_QPN_MCAST, mgid);
}

/* ---- received frames: payloads for ipc_rx_classify() ---------------- */

using Bytes = std::vector<uint8_t>;

/* ff12:401b:ffff::ffff:ffff, the default broadcast GID. */
inline const uint8_t BCAST[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff,
				   0,	 0,    0,    0,	   0,	 0,
				   0xff, 0xff, 0xff, 0xff };

/* An MGID ff1<scope>:<sig>:<pkey>::<last>. */
inline Bytes mgid(uint8_t scope, uint16_t sig, uint16_t pkey, uint8_t last)
{
	Bytes g(16, 0);
	g[0] = 0xff;
	g[1] = static_cast<uint8_t>(0x10 | scope);
	g[2] = static_cast<uint8_t>(sig >> 8);
	g[3] = static_cast<uint8_t>(sig);
	g[4] = static_cast<uint8_t>(pkey >> 8);
	g[5] = static_cast<uint8_t>(pkey);
	g[15] = last;
	return g;
}

inline void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = static_cast<uint8_t>(v >> 8);
	p[1] = static_cast<uint8_t>(v);
}

/* A frame as received: the 4-byte IPoIB header (s6), then payload. */
inline Bytes frame(uint16_t ethertype, const Bytes &payload)
{
	Bytes f(IPC_HDR_LEN);
	ipc_hdr_build(ethertype, f.data());
	f.insert(f.end(), payload.begin(), payload.end());
	return f;
}

/*
 * An ARP packet over IPoIB (RFC 4391 s9.2), IPC_ARP_LEN bytes: hardware
 * type 32, protocol 0x0800, lengths 20 and 4, op, sha, sip, tha, tip. The
 * addresses are written as given (reserved flag bits included).
 */
inline Bytes arp_payload(uint16_t op, const Hw &sha, const uint8_t sip[4],
			 const Hw &tha, const uint8_t tip[4])
{
	Bytes p(IPC_ARP_LEN);
	put_be16(p.data(), IPC_ARP_HWTYPE);
	put_be16(p.data() + 2, IPC_ETH_P_IP);
	p[4] = IPC_ADDR_LEN;
	p[5] = 4;
	put_be16(p.data() + 6, op);
	std::memcpy(p.data() + 8, sha.data(), IPC_ADDR_LEN);
	std::memcpy(p.data() + 28, sip, 4);
	std::memcpy(p.data() + 32, tha.data(), IPC_ADDR_LEN);
	std::memcpy(p.data() + 52, tip, 4);
	return p;
}

/*
 * An ND source (type 1) or target (type 2) link-layer address option
 * (RFC 4391 s9.3), IPC_ND_OPT_LEN bytes: type, length 3 (units of 8
 * octets), 2 zero pad octets, the 20-byte address.
 */
inline Bytes nd_ll_opt(uint8_t type, const Hw &addr)
{
	Bytes o(IPC_ND_OPT_LEN, 0);
	o[0] = type;
	o[1] = IPC_ND_OPT_LEN / 8;
	std::memcpy(o.data() + 4, addr.data(), IPC_ADDR_LEN);
	return o;
}

/*
 * An IPv6 packet (RFC 8200 s3): version 6, payload length body.size(),
 * next header next, hop limit 255, from src to dst, then body.
 */
inline Bytes ipv6_packet(uint8_t next, const Bytes &body, const Gid &src,
			 const Gid &dst)
{
	Bytes p(IPC_GRH_LEN, 0);
	p[0] = 0x60;
	put_be16(p.data() + 4, static_cast<uint16_t>(body.size()));
	p[6] = next;
	p[7] = 255;
	std::memcpy(p.data() + 8, src.data(), 16);
	std::memcpy(p.data() + 24, dst.data(), 16);
	p.insert(p.end(), body.begin(), body.end());
	return p;
}

/*
 * An ICMPv6 message (next header 58) of type: type, code 0, a checksum
 * of zero (nobody below the stack checks it), fixed more bytes of body
 * filled with fill, then opts. The ND messages' fixed parts (RFC 4861
 * s4): RS 4, RA 12, NS and NA 20, Redirect 36 bytes after the first 4.
 */
inline Bytes icmp6(uint8_t type, size_t fixed, const Bytes &opts = {},
		   uint8_t fill = 0)
{
	Bytes m(4 + fixed, fill);
	m[0] = type;
	m[1] = 0;
	m[2] = m[3] = 0;
	m.insert(m.end(), opts.begin(), opts.end());
	return m;
}

/* Concatenation, for options and extension headers. */
inline Bytes cat(std::initializer_list<Bytes> parts)
{
	Bytes out;
	for (const Bytes &b : parts)
		out.insert(out.end(), b.begin(), b.end());
	return out;
}

} // namespace ct

#endif
