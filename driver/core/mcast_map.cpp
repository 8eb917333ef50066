// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mcast_map.cpp - IP multicast group to MGID (RFC 4391 s4), byte for byte
 * what the kernel's ip_ib_mc_map() and ipv6_ib_mc_map() write at bytes
 * 4..19 of the hardware address, with scope and P_Key taken from the
 * link's broadcast MGID as those helpers take them from dev->broadcast.
 */
#include "core.hpp"

namespace ipc
{
namespace
{

/* Offsets inside a 16-byte MGID (s4 figure 1). */
constexpr size_t mgid_flags_scope = 1; /* ff1S: T flag set, scope S */
constexpr size_t mgid_signature = 2;
constexpr size_t mgid_pkey = 4;

constexpr u8 mgid_tflag = 0x10;

/* IPv6 multicast scopes (RFC 7346) used for IPv4 groups. */
constexpr u8 ip_scope_site = 0x5;
constexpr u8 ip_scope_org = 0x8;
constexpr u8 ip_scope_global = 0xe;

/* The first 6 bytes shared by every MGID of this link. */
inline void mgid_prefix(const u8 *bcast_gid, u16 signature, u8 *mgid)
{
	mem_zero(mgid, IPC_GID_LEN);
	mgid[0] = 0xff;
	mgid[mgid_flags_scope] = static_cast<u8>(
		mgid_tflag | (bcast_gid[mgid_flags_scope] & 0xf));
	store_be16(mgid + mgid_signature, signature);
	mgid[mgid_pkey] = bcast_gid[mgid_pkey];
	mgid[mgid_pkey + 1] = bcast_gid[mgid_pkey + 1];
}

} // namespace
} // namespace ipc

using namespace ipc;

extern "C" ipc_u8 ipc_mgid_scope(const ipc_u8 mgid[16])
{
	return mgid[mgid_flags_scope] & 0xf;
}

/*
 * Not multicast at all (QPN or GID): IPC_R_BAD_ADDR. Multicast but not an
 * IPoIB MGID of this link (T flag clear, unknown signature, other scope or
 * P_Key; s4: "All MGIDs ... MUST use the same scop bits as in the
 * broadcast-GID"): IPC_R_WRONG_LINK. The P_Key is compared on all 16 bits,
 * as the kernel copies it from dev->broadcast.
 */
extern "C" int ipc_mcast_addr_check(const ipc_u8 hw[20],
				    const ipc_u8 bcast_gid[16])
{
	const u8 *mgid = addr_gid(hw);

	if (!addr_is_mcast(hw))
		return IPC_R_BAD_ADDR;
	u16 sig = load_be16(mgid + mgid_signature);
	if (mgid[mgid_flags_scope] !=
		    (mgid_tflag | (bcast_gid[mgid_flags_scope] & 0xf)) ||
	    (sig != IPC_SIG_IPV4 && sig != IPC_SIG_IPV6) ||
	    !mem_equal(mgid + mgid_pkey, bcast_gid + mgid_pkey, 2))
		return IPC_R_WRONG_LINK;
	return IPC_R_OK;
}

/*
 * IPv4 has no scope field: the administratively scoped blocks of RFC 2365
 * and the RFC 5771 local network control block stand in for it.
 */
extern "C" ipc_u8 ipc_ipv4_mc_scope(const ipc_u8 group[4])
{
	if (group[0] == 224 && group[1] == 0 && group[2] == 0)
		return IPC_SCOPE_LINK;
	if (group[0] == 239 && group[1] == 255)
		return ip_scope_site;
	if (group[0] == 239 && (group[1] & 0xfc) == 192)
		return ip_scope_org;
	return ip_scope_global;
}

extern "C" ipc_u8 ipc_ipv6_mc_scope(const ipc_u8 group[16])
{
	return group[1] & 0xf;
}

/* The destination: at 16 in an IPv4 header, at 24 in an IPv6 one. */
extern "C" ipc_u8 ipc_frame_mc_scope(const ipc_u8 *frame, ipc_u32 len)
{
	u16 type;

	if (!frame || ipc_hdr_parse(frame, len, &type))
		return IPC_SCOPE_LINK;
	if (type == IPC_ETH_P_IP && len >= IPC_HDR_LEN + 20)
		return ipc_ipv4_mc_scope(frame + IPC_HDR_LEN + 16);
	if (type == IPC_ETH_P_IPV6 && len >= IPC_HDR_LEN + 40)
		return ipc_ipv6_mc_scope(frame + IPC_HDR_LEN + 24);
	return IPC_SCOPE_LINK;
}

/*
 * s4 example: the all-routers group ID 2 (224.0.0.2, ff02::2), of the
 * family (signature), scope and P_Key of mgid: "FF12:401B:8000::2, for
 * IPv4 ... and FF12:601B:8000::2, for IPv6".
 */
extern "C" void ipc_mgid_all_routers(const ipc_u8 mgid[16], ipc_u8 out[16])
{
	u16 sig = load_be16(mgid + mgid_signature);

	mgid_prefix(mgid, sig == IPC_SIG_IPV6 ? IPC_SIG_IPV6 : IPC_SIG_IPV4,
		    out);
	out[IPC_GID_LEN - 1] = 2;
}

extern "C" int ipc_mgid_is_all_routers(const ipc_u8 mgid[16])
{
	u8 routers[16];

	ipc_mgid_all_routers(mgid, routers);
	for (int i = 0; i < 16; i++)
		if (routers[i] != mgid[i])
			return 0;
	return 1;
}
