// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Helpers shared by the GoogleTest suites of the core. */
#ifndef IPOIB_CORE_TEST_HPP
#define IPOIB_CORE_TEST_HPP

#include <array>
#include <cstdint>
#include <cstring>
#include <string>

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

} // namespace ct

#endif
