// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * keys.cpp - P_Key and Q_Key rules (IBA s10.9, RFC 4391 s4.1).
 */
#include "core.hpp"

namespace ipc
{
namespace
{

constexpr u16 pkey_base_mask = 0x7fff;
constexpr u16 pkey_default_base = 0x7fff;
constexpr unsigned roce_qkey_shift = 16;

constexpr u16 pkey_base(u16 pkey)
{
	return pkey & pkey_base_mask;
}

constexpr bool pkey_is_full(u16 pkey)
{
	return (pkey & IPC_PKEY_FULL) != 0;
}

/* IBA s10.9.3: equal base, at least one full member, both valid. */
constexpr bool pkey_match(u16 a, u16 b)
{
	return pkey_base(a) != 0 && pkey_base(b) != 0 &&
	       pkey_base(a) == pkey_base(b) &&
	       (pkey_is_full(a) || pkey_is_full(b));
}

} // namespace
} // namespace ipc

using namespace ipc;

/* IBA s10.9.1.2: a P_Key with base 0 (0x0000, 0x8000) is invalid. */
extern "C" int ipc_pkey_valid(ipc_u16 pkey)
{
	return pkey_base(pkey) != 0;
}

extern "C" ipc_u16 ipc_pkey_full(ipc_u16 pkey)
{
	return static_cast<u16>(pkey | IPC_PKEY_FULL);
}

/*
 * The default partition (base 0x7fff, full or limited) keeps the standard
 * Q_Key; any other base is folded into bits 16..30, which never sets the
 * controlled bit.
 */
extern "C" ipc_u32 ipc_roce_qkey_for_pkey(ipc_u16 pkey)
{
	if (pkey_base(pkey) == pkey_default_base)
		return IPC_QKEY_DEFAULT;
	return IPC_QKEY_DEFAULT |
	       (static_cast<u32>(pkey_base(pkey)) << roce_qkey_shift);
}

/*
 * RFC 4755 connected mode and partitions. RC has no Q_Key, so the Q_Key
 * that stands in for a partition on RoCE (ipc_roce_qkey_for_pkey()) does
 * not separate connections, and every RoCE REQ carries the default P_Key
 * (RoCE ports have no other): on RoCE only an interface of the default
 * partition may use connected mode.
 */
extern "C" int ipc_cm_pkey_allowed(ipc_u16 if_pkey, int roce)
{
	return ipc_pkey_valid(if_pkey) &&
	       (!roce || pkey_base(if_pkey) == pkey_default_base);
}

/*
 * A REQ is taken only on the partition of the interface it names: its
 * primary path's P_Key must match the interface's by the rule datagrams
 * follow (IBA s10.9.3), and the interface must be allowed connected mode.
 */
extern "C" int ipc_cm_req_pkey_ok(ipc_u16 req_pkey, ipc_u16 if_pkey, int roce)
{
	return ipc_cm_pkey_allowed(if_pkey, roce) &&
	       pkey_match(req_pkey, if_pkey);
}
