// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mtu.cpp - IB MTU enums and the IPoIB-link MTU (RFC 4391 s7, RFC 4755).
 */
#include "core.hpp"

namespace ipc
{
namespace
{

constexpr int ib_mtu_enum_min = 1; /* IB_MTU_256 */
constexpr int ib_mtu_enum_max = 5; /* IB_MTU_4096 */
constexpr u32 ib_mtu_256 = 256;

constexpr u32 mtu_bytes(int e)
{
	return e >= ib_mtu_enum_min && e <= ib_mtu_enum_max ?
		       ib_mtu_256 << (e - ib_mtu_enum_min) :
		       0;
}

Result<struct ipc_mtu_info> mtu_resolve(u32 ib_mtu, u32 admin_mtu, int mode)
{
	struct ipc_mtu_info info = {};

	if (!ipc_ib_mtu_enum(ib_mtu) ||
	    (mode != IPC_MODE_DATAGRAM && mode != IPC_MODE_CONNECTED))
		return Status::err(IPC_EINVAL);
	info.mcast_mtu = ipc_link_mtu(ib_mtu);
	info.max_mtu = mode == IPC_MODE_CONNECTED ? IPC_MTU_CM_MAX :
						    info.mcast_mtu;
	info.effective = admin_mtu ? min_of(admin_mtu, info.max_mtu) :
				     info.max_mtu;
	/* s7: every implementation must support 2044 octets. */
	info.below_rfc_min = info.mcast_mtu < IPC_MTU_MIN_RFC;
	return info;
}

} // namespace
} // namespace ipc

using namespace ipc;

extern "C" ipc_u32 ipc_ib_mtu_bytes(int ib_mtu_enum)
{
	return mtu_bytes(ib_mtu_enum);
}

extern "C" int ipc_ib_mtu_enum(ipc_u32 bytes)
{
	for (int e = ib_mtu_enum_min; e <= ib_mtu_enum_max; e++)
		if (mtu_bytes(e) == bytes)
			return e;
	return 0;
}

/* s7: the 4-octet encapsulation header comes out of the IB payload. */
extern "C" ipc_u32 ipc_link_mtu(ipc_u32 ib_mtu_bytes)
{
	return ib_mtu_bytes > IPC_HDR_LEN ? ib_mtu_bytes - IPC_HDR_LEN : 0;
}

/*
 * An admin_mtu below IPC_MTU_IPV4_MIN is taken as given: ipc_mtu_check()
 * is what refuses such a request before it is stored. out is untouched on
 * error.
 */
extern "C" int ipc_mtu_resolve(ipc_u32 ib_mtu_bytes, ipc_u32 admin_mtu,
			       int mode, struct ipc_mtu_info *out)
{
	Result<struct ipc_mtu_info> res =
		mtu_resolve(ib_mtu_bytes, admin_mtu, mode);

	if (!res.is_ok())
		return res.status().to_errno();
	*out = res.value();
	return 0;
}

extern "C" ipc_u32 ipc_mtu_ud_frame_max(const struct ipc_mtu_info *info)
{
	return info->mcast_mtu + IPC_HDR_LEN;
}

extern "C" ipc_u32 ipc_mtu_ud_too_big(const struct ipc_mtu_info *info,
				      ipc_u32 len)
{
	return len > ipc_mtu_ud_frame_max(info) ? info->mcast_mtu : 0;
}

/* reason may be NULL; it is set on success too ("ok"), never to NULL. */
extern "C" int ipc_mtu_check(const struct ipc_mtu_info *info, ipc_u32 new_mtu,
			     const char **reason)
{
	const char *why = "ok";
	int ret = 0;

	if (new_mtu < IPC_MTU_IPV4_MIN) {
		why = "MTU below the IPv4 minimum of 68";
		ret = -IPC_EINVAL;
	} else if (new_mtu > info->max_mtu) {
		why = "MTU above the largest this link and mode allow";
		ret = -IPC_EINVAL;
	}
	if (reason)
		*reason = why;
	return ret;
}
