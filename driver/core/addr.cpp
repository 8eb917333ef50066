// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * addr.cpp - the 20-byte link-layer address (RFC 4391 s9.1.1, RFC 4755 s3),
 * its hash, the broadcast address (s4 figure 2), the IPv6 interface
 * identifier (s8) and neighbour QPN tracking (s9.4).
 */
#include "core.hpp"

namespace ipc
{
namespace
{

/* s9.1.1: reserved flag bits MUST be zero on send and ignored on receive. */
constexpr u8 addr_flags_kept = IPC_ADDR_FLAG_CM;

/* Bytes 1..19 (QPN and GID) identify the endpoint; byte 0 is flags. */
constexpr size_t addr_id_off = 1;
constexpr size_t addr_id_len = IPC_ADDR_LEN - addr_id_off;

/* Mixing constants of splitmix64 / murmur3 finalisers. */
constexpr u64 mix_k1 = 0x9e3779b97f4a7c15ull;
constexpr u64 mix_k2 = 0xbf58476d1ce4e5b9ull;
constexpr u64 mix_k3 = 0x94d049bb133111ebull;

constexpr u64 mix64(u64 h, u64 v)
{
	h = (h ^ v) * mix_k2;
	return h ^ (h >> 31);
}

constexpr u32 fold32(u64 h)
{
	h = (h ^ (h >> 30)) * mix_k3;
	h ^= h >> 31;
	return static_cast<u32>(h ^ (h >> 32));
}

/*
 * Hash of the 16 GID bytes with a seed and an extra word. Host-endian:
 * values are only compared within one machine.
 */
inline u32 hash_gid(const u8 *gid, u64 extra, u32 seed)
{
	u64 h = (static_cast<u64>(seed) + 1) * mix_k1 ^ extra;

	h = mix64(h, load_host64(gid));
	h = mix64(h, load_host64(gid + 8));
	return fold32(h);
}

} // namespace
} // namespace ipc

using namespace ipc;

extern "C" void ipc_addr_encode(const struct ipc_addr *a, ipc_u8 out[20])
{
	out[0] = a->flags & addr_flags_kept;
	store_be24(out + 1, a->qpn & IPC_QPN_MASK);
	mem_copy(out + 4, a->gid, IPC_GID_LEN);
}

extern "C" void ipc_addr_decode(const ipc_u8 in[20], struct ipc_addr *a)
{
	a->flags = in[0] & addr_flags_kept;
	a->qpn = addr_qpn(in);
	mem_copy(a->gid, addr_gid(in), IPC_GID_LEN);
}

extern "C" int ipc_addr_same(const ipc_u8 a[20], const ipc_u8 b[20])
{
	return mem_equal(a + addr_id_off, b + addr_id_off, addr_id_len);
}

extern "C" ipc_u32 ipc_addr_hash(const ipc_u8 a[20], ipc_u32 seed)
{
	return hash_gid(addr_gid(a), addr_qpn(a), seed);
}

extern "C" ipc_u32 ipc_gid_hash(const ipc_u8 gid[16], ipc_u32 seed)
{
	return hash_gid(gid, 0, seed);
}

/* s4 figure 2, preceded by flags 0 and the multicast QPN. */
extern "C" void ipc_addr_broadcast(ipc_u16 pkey, ipc_u8 scope, ipc_u8 out[20])
{
	mem_zero(out, IPC_ADDR_LEN);
	store_be24(out + 1, IPC_QPN_MCAST);
	out[4] = 0xff;
	out[5] = static_cast<u8>(0x10 | (scope & 0xf));
	store_be16(out + 6, IPC_SIG_IPV4);
	/* s4.1: a full-membership P_Key MUST be used. */
	store_be16(out + 8, static_cast<u16>(pkey | IPC_PKEY_FULL));
	out[16] = out[17] = out[18] = out[19] = 0xff;
}

/*
 * s9.1.1: bytes 0..3 (flags, QPN) name the interface's own QP; only the
 * GID may be another one of the port's.
 */
extern "C" int ipc_addr_check_set(const ipc_u8 cur[20], const ipc_u8 want[20])
{
	if (!mem_equal(cur, want, addr_id_off + 3))
		return IPC_SETADDR_QPN;
	if (gid_is_zero(addr_gid(want)) || gid_is_mcast(addr_gid(want)))
		return IPC_SETADDR_GID;
	return IPC_SETADDR_OK;
}
