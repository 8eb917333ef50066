// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sa.cpp - the SA MADs of the promiscuous multicast emulation for routers
 * (RFC 4391 s11): the group list (SubnAdmGetTable of MCMemberRecord), the
 * subscription to group creation (SubnAdmSet of InformInfo) and its
 * notices (SubnAdmReport of Notice). Wire formats: IBA s13.4 (MAD and
 * RMPP headers), s15.2 (SA header, MCMemberRecord, InformInfo), s13.4.8.2
 * (Notice), s14.2.5.1 (traps 64-67).
 */
#include "core.hpp"

namespace ipc
{
namespace
{

/* IBA s13.4.2: the common MAD header. */
constexpr size_t mad_base_version = 0;
constexpr size_t mad_class = 1;
constexpr size_t mad_class_version = 2;
constexpr size_t mad_method = 3;
constexpr size_t mad_status = 4;
constexpr size_t mad_tid = 8;
constexpr size_t mad_attr_id = 16;
/* s15.2.1.1: the SA header after the RMPP header (24 + 12). */
constexpr size_t sa_attr_offset = 44;
constexpr size_t sa_data = IPC_SA_HDR_LEN;

constexpr u8 class_subn_adm = 0x03;
constexpr u8 sa_class_version = 2;
constexpr u8 method_set = 0x02;
constexpr u8 method_get_resp = 0x81;
constexpr u8 method_report = 0x06;
constexpr u8 method_report_resp = 0x86;
constexpr u8 method_get_table = 0x12;
constexpr u8 method_get_table_resp = 0x92;
constexpr u16 attr_notice = 0x0002;
constexpr u16 attr_inform_info = 0x0003;
constexpr u16 attr_mcmember = 0x0038;
/* s15.2.1.1 Table 187: status bits 8-14, "no records" is 3. */
constexpr u16 sa_status_no_records = 0x0300;

/* s15.2.5.17: MCMemberRecord is 52 bytes; the MGID comes first. */
constexpr u32 mcmember_len = 52;

/* s15.2.5.12 (InformInfo) offsets in the data. */
constexpr size_t ii_lid_begin = 16;
constexpr size_t ii_is_generic = 22;
constexpr size_t ii_subscribe = 23;
constexpr size_t ii_type = 24;
constexpr size_t ii_trap = 26;
constexpr size_t ii_qpn = 28;
constexpr size_t ii_producer = 33;
constexpr u8 resp_time_value = 19; /* 4.096 us * 2^19: about 2 s */

/* s13.4.8.2 (Notice) offsets in the data. */
constexpr size_t notice_type = 0; /* IsGeneric:1, Type:7 */
constexpr size_t notice_trap = 4;
constexpr u8 notice_generic = 0x80;

inline void store_be64(u8 *p, u64 v)
{
	for (int i = 7; i >= 0; i--) {
		p[i] = static_cast<u8>(v);
		v >>= 8;
	}
}

inline u64 load_be64(const u8 *p)
{
	u64 v = 0;

	for (int i = 0; i < 8; i++)
		v = (v << 8) | p[i];
	return v;
}

void sa_header(u8 *mad, u8 method, u16 attr, u64 tid)
{
	mem_zero(mad, IPC_MAD_LEN);
	mad[mad_base_version] = 1;
	mad[mad_class] = class_subn_adm;
	mad[mad_class_version] = sa_class_version;
	mad[mad_method] = method;
	store_be64(mad + mad_tid, tid);
	store_be16(mad + mad_attr_id, attr);
}

/* A MAD of the SA class with this method and attribute, status aside. */
bool sa_is(const u8 *mad, u32 len, u8 method, u16 attr)
{
	return len >= sa_data && mad[mad_class] == class_subn_adm &&
	       mad[mad_class_version] == sa_class_version &&
	       mad[mad_method] == method &&
	       load_be16(mad + mad_attr_id) == attr;
}

} // namespace
} // namespace ipc

using namespace ipc;

extern "C" int ipc_sa_report_source_ok(ipc_u16 slid, ipc_u16 sm_lid,
				       ipc_u16 pkey)
{
	return slid == sm_lid && (pkey | IPC_PKEY_FULL) == IPC_PKEY_DEFAULT;
}

extern "C" void ipc_notice_rate_init(struct ipc_notice_rate *n, ipc_u64 now)
{
	n->at = now;
	n->refused_at = 0;
	n->series_at = 0;
	n->tokens = IPC_NOTICE_BURST * 1000u;
	n->refused = 0;
	n->pad[0] = n->pad[1] = n->pad[2] = 0;
}

extern "C" int ipc_notice_admit(struct ipc_notice_rate *n, ipc_u64 now)
{
	constexpr u64 full = IPC_NOTICE_BURST * 1000ull;
	/* IPC_NOTICE_RATE a second: that many thousandths a millisecond. */
	u64 t = n->tokens;

	if (now > n->at) {
		u64 dt = now - n->at;

		t = dt >= full / IPC_NOTICE_RATE ? full :
						   t + dt * IPC_NOTICE_RATE;
		if (t > full)
			t = full;
		n->at = now;
	}
	if (t >= 1000) {
		n->tokens = static_cast<u32>(t - 1000);
		return 1;
	}
	n->tokens = static_cast<u32>(t);
	if (!n->refused || now >= after(n->refused_at, IPC_NOTICE_QUIET_MS))
		n->series_at = now;
	n->refused = 1;
	n->refused_at = now;
	return 0;
}

extern "C" void ipc_sa_mcmember_table_req(ipc_u8 mad[256], ipc_u64 tid)
{
	sa_header(mad, method_get_table, attr_mcmember, tid);
	/* The record stays zero: ComponentMask 0 selects every group. */
}

extern "C" int ipc_sa_mcmember_table_next(const ipc_u8 *buf, ipc_u32 len,
					  ipc_u64 tid, ipc_u32 *pos,
					  ipc_u8 mgid[16])
{
	if (!sa_is(buf, len, method_get_table_resp, attr_mcmember) ||
	    load_be64(buf + mad_tid) != tid)
		return -IPC_EPROTO;
	u16 status = load_be16(buf + mad_status);
	if (status == sa_status_no_records)
		return 0;
	if (status)
		return -IPC_EPROTO;
	/* s15.2.1.1: records are AttributeOffset 8-byte words apart. */
	u32 stride = static_cast<u32>(load_be16(buf + sa_attr_offset)) * 8;
	if (len == sa_data)
		return 0;
	if (stride < mcmember_len)
		return -IPC_EPROTO;
	/* Zero padding may end the last segment: skip what is no MGID. */
	while (*pos <= len / stride) {
		u32 at = sa_data + *pos * stride;

		if (at > len || len - at < mcmember_len)
			return 0;
		(*pos)++;
		if (buf[at] == 0xff) {
			mem_copy(mgid, buf + at, IPC_GID_LEN);
			return 1;
		}
	}
	return 0;
}

extern "C" void ipc_sa_inform_req(ipc_u8 mad[256], ipc_u64 tid, int trap,
				  int subscribe)
{
	u8 *ii = mad + sa_data;

	sa_header(mad, method_set, attr_inform_info, tid);
	/* GID 0 and LIDRangeBegin 0xffff: every port (s13.4.8.3). */
	store_be16(ii + ii_lid_begin, 0xffff);
	ii[ii_is_generic] = 1;
	ii[ii_subscribe] = subscribe ? 1 : 0;
	store_be16(ii + ii_type, 0xffff); /* any type */
	store_be16(ii + ii_trap, static_cast<u16>(trap));
	store_be24(ii + ii_qpn, 1); /* reports come to the GSI, QP 1 */
	ii[ii_qpn + 3] = resp_time_value;
	store_be24(ii + ii_producer, 0xffffff); /* any producer */
}

extern "C" int ipc_sa_inform_resp_check(const ipc_u8 *mad, ipc_u32 len,
					ipc_u64 tid)
{
	if (!sa_is(mad, len, method_get_resp, attr_inform_info) ||
	    load_be64(mad + mad_tid) != tid || load_be16(mad + mad_status))
		return -IPC_EPROTO;
	return 0;
}

extern "C" int ipc_sa_notice_parse(const ipc_u8 *mad, ipc_u32 len,
				   ipc_u8 mgid[16], ipc_u8 resp[256])
{
	const u8 *n = mad + sa_data;

	if (len < IPC_MAD_LEN || !sa_is(mad, len, method_report, attr_notice) ||
	    !(n[notice_type] & notice_generic))
		return -IPC_EPROTO;
	int trap = load_be16(n + notice_trap);
	if (trap >= 64 && trap <= 67)
		mem_copy(mgid, n + IPC_SA_NOTICE_GID_OFF, IPC_GID_LEN);
	/* s13.4.8.2: the response repeats the Notice. */
	mem_copy(resp, mad, IPC_MAD_LEN);
	resp[mad_method] = method_report_resp;
	store_be16(resp + mad_status, 0);
	mem_zero(resp + 24, 12); /* RMPP header */
	return trap;
}
