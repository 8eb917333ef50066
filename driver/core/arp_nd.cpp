// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * arp_nd.cpp - address-resolution payloads: ARP/RARP/InARP over IPoIB
 * (RFC 4391 s9.2) and the IPv6 ND link-layer address option (s9.3).
 *
 * Both validators also reject a sender/option address that cannot be a
 * unicast endpoint (QPN 0 or 0xffffff, zero or multicast GID) with
 * IPC_R_BAD_ADDR: such an address would poison a neighbour entry. The
 * builders refuse what the validators reject, so build-then-validate
 * always round-trips.
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

Verdict nd_opt_validate(const u8 *opt, u32 len)
{
	if (len < 2)
		return IPC_R_TRUNCATED;
	if (opt[0] != ND_OPT_SOURCE_LL && opt[0] != ND_OPT_TARGET_LL)
		return IPC_R_BAD_OPT_TYPE;
	if (opt[1] != nd_opt_units)
		return IPC_R_BAD_OPT_LEN;
	if (len < IPC_ND_OPT_LEN)
		return IPC_R_TRUNCATED;
	/* s9.3: two octets of zero MUST be prepended. */
	if (opt[2] || opt[3])
		return IPC_R_BAD_PAD;
	if (!addr_is_unicast_endpoint(opt + nd_opt_addr))
		return IPC_R_BAD_ADDR;
	return IPC_R_OK;
}

/* The hardware address as sent: reserved flag bits cleared (s9.1.1). */
void put_hw_addr(u8 *out, const u8 *a)
{
	out[0] = a[0] & IPC_ADDR_FLAG_CM;
	mem_copy(out + 1, a + 1, IPC_ADDR_LEN - 1);
}

Status arp_build_check(u16 op, const u8 *sha, const u8 *sip, const u8 *tip,
		       const u8 *out, u32 len)
{
	if ((op != ARP_REQUEST && op != ARP_REPLY) || !sha || !sip || !tip ||
	    !addr_is_unicast_endpoint(sha))
		return Status::err(IPC_EINVAL);
	if (!out || len < IPC_ARP_LEN)
		return Status::err(IPC_ERANGE);
	return Status::ok();
}

Status arp_build(u16 op, const u8 *sha, const u8 *sip, const u8 *tha,
		 const u8 *tip, u8 *out, u32 len)
{
	IPC_TRY(arp_build_check(op, sha, sip, tip, out, len));
	store_be16(out + arp_hwtype, IPC_ARP_HWTYPE);
	store_be16(out + arp_proto, IPC_ETH_P_IP);
	out[arp_hlen] = IPC_ADDR_LEN;
	out[arp_plen] = 4;
	store_be16(out + arp_op, op);
	put_hw_addr(out + arp_sha, sha);
	mem_copy(out + arp_sip, sip, 4);
	if (tha)
		put_hw_addr(out + arp_tha, tha);
	else
		mem_zero(out + arp_tha, IPC_ADDR_LEN);
	mem_copy(out + arp_tip, tip, 4);
	return Status::ok();
}

} // namespace
} // namespace ipc

using namespace ipc;

extern "C" int ipc_arp_validate(const ipc_u8 *buf, ipc_u32 len)
{
	return arp_validate(buf, len).to_int();
}

/* tha may be NULL (a request): the target hardware address is zero. */
extern "C" int ipc_arp_build(ipc_u16 op, const ipc_u8 sha[20],
			     const ipc_u8 sip[4], const ipc_u8 tha[20],
			     const ipc_u8 tip[4], ipc_u8 *out, ipc_u32 len)
{
	Status st = arp_build(op, sha, sip, tha, tip, out, len);

	return st.is_ok() ? IPC_ARP_LEN : st.to_errno();
}

/* addr may be NULL; *addr is set to NULL unless the option is valid. */
extern "C" int ipc_nd_opt_validate(const ipc_u8 *opt, ipc_u32 len,
				   const ipc_u8 **addr)
{
	Verdict v = nd_opt_validate(opt, len);

	if (addr)
		*addr = v.is_ok() ? opt + nd_opt_addr : nullptr;
	return v.to_int();
}

/* -IPC_EINVAL also for an address that cannot be a unicast endpoint. */
extern "C" int ipc_nd_opt_build(ipc_u8 type, const ipc_u8 addr[20],
				ipc_u8 out[24])
{
	if ((type != ND_OPT_SOURCE_LL && type != ND_OPT_TARGET_LL) ||
	    !addr_is_unicast_endpoint(addr))
		return -IPC_EINVAL;
	out[0] = type;
	out[1] = nd_opt_units;
	out[2] = 0;
	out[3] = 0;
	put_hw_addr(out + nd_opt_addr, addr);
	return IPC_ND_OPT_LEN;
}
