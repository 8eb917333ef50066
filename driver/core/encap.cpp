// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * encap.cpp - the 4-byte encapsulation header (RFC 4391 s6) and the
 * per-packet receive and transmit classification (s6, s10).
 */
#include "core.hpp"

namespace ipc
{
namespace
{

/* s6 Table 1: the types this link carries. */
constexpr bool ethertype_known(u16 t)
{
	return t == IPC_ETH_P_IP || t == IPC_ETH_P_ARP || t == IPC_ETH_P_RARP ||
	       t == IPC_ETH_P_IPV6;
}

Verdict hdr_parse(const u8 *buf, u32 len, u16 *ethertype)
{
	if (len < IPC_HDR_LEN)
		return IPC_R_TRUNCATED;
	u16 t = load_be16(buf);
	/* s6: the reserved field is ignored on receive. */
	if (!ethertype_known(t))
		return IPC_R_BAD_TYPE;
	*ethertype = t;
	return IPC_R_OK;
}

/*
 * The packet type from the destination GID, as ipoib_ib_handle_rx_wc()
 * does: no GRH or a unicast DGID is ours (the HCA delivered it to our QP;
 * on RoCE it may be any GID of the port), a multicast DGID is broadcast
 * when it is the broadcast MGID.
 */
inline u8 rx_pkt_type(const struct ipc_ifid *self, const u8 *dgid)
{
	if (!dgid || !gid_is_mcast(dgid))
		return IPC_PKT_HOST;
	if (mem_equal(dgid, self->bcast_gid, IPC_GID_LEN))
		return IPC_PKT_BROADCAST;
	return IPC_PKT_MULTICAST;
}

Verdict tx_classify(const struct ipc_ifid *self, const u8 *daddr,
		    struct ipc_tx_verdict *v)
{
	u32 qpn = addr_qpn(daddr);
	const u8 *gid = addr_gid(daddr);

	if (gid_is_mcast(gid)) {
		if (qpn != IPC_QPN_MCAST)
			return IPC_R_BAD_ADDR;
		if (mem_equal(gid, self->bcast_gid, IPC_GID_LEN)) {
			v->kind = IPC_TX_BROADCAST;
		} else {
			Verdict link = static_cast<ipc_reason>(
				ipc_mcast_addr_check(daddr, self->bcast_gid));
			if (!link.is_ok())
				return link;
			v->kind = IPC_TX_MULTICAST;
		}
	} else {
		/* The multicast QPN with a unicast GID reaches nobody. */
		if (qpn == 0 || qpn == IPC_QPN_MCAST || gid_is_zero(gid))
			return IPC_R_BAD_ADDR;
		v->kind = IPC_TX_UNICAST;
	}
	v->qpn = qpn;
	mem_copy(v->gid, gid, IPC_GID_LEN);
	return IPC_R_OK;
}

} // namespace
} // namespace ipc

using namespace ipc;

extern "C" void ipc_hdr_build(ipc_u16 ethertype, ipc_u8 hdr[4])
{
	store_be16(hdr, ethertype);
	/* s6: reserved MUST be zero on send. */
	hdr[2] = 0;
	hdr[3] = 0;
}

extern "C" int ipc_hdr_parse(const ipc_u8 *buf, ipc_u32 len, ipc_u16 *ethertype)
{
	return hdr_parse(buf, len, ethertype).to_int();
}

/*
 * The loopback test comes first and does not look at the DGID: like the
 * in-tree driver, anything our own QP sent from our GID is dropped (in
 * practice multicast replicated back by the HCA). v is zeroed first and is
 * meaningful only on IPC_R_OK.
 */
namespace ipc
{
namespace
{

/* The verdict of a frame found good: who it is for, who sent it. */
inline int rx_accept(const struct ipc_ifid *self, const ipc_u8 *sgid,
		     const ipc_u8 *dgid, ipc_u32 src_qpn,
		     struct ipc_rx_verdict *v)
{
	v->pkt_type = rx_pkt_type(self, dgid);
	if (sgid) {
		v->has_src = 1;
		store_be24(v->src_addr + 1, src_qpn);
		mem_copy(v->src_addr + 4, sgid, IPC_GID_LEN);
	}
	return IPC_R_OK;
}

/*
 * A frame that may carry ARP or ND (s9.2, s9.3): its payload checked.
 * Out of line and reached by a tail call, so that IPv4's way through
 * ipc_rx_classify() saves no registers for it.
 */
[[gnu::noinline]] int rx_resolution(const struct ipc_ifid *self,
				    const ipc_u8 *sgid, const ipc_u8 *dgid,
				    ipc_u32 src_qpn, const ipc_u8 *payload,
				    ipc_u32 len, struct ipc_rx_verdict *v)
{
	Verdict res = resolution_check(v->ethertype, payload + IPC_HDR_LEN,
				       len - IPC_HDR_LEN);
	if (!res.is_ok())
		return res.to_int();
	return rx_accept(self, sgid, dgid, src_qpn, v);
}

/* One of the QPs the interface sends from: its own, or a send-only one. */
bool own_qpn(const struct ipc_ifid *self, ipc_u32 qpn)
{
	if (qpn == self->qpn)
		return true;
	ipc_u32 n = self->send_qpns < IPC_SEND_QPN_MAX ? self->send_qpns :
							 IPC_SEND_QPN_MAX;
	for (ipc_u32 i = 0; i < n; i++)
		if (qpn == self->send_qpn[i])
			return true;
	return false;
}

} // namespace
} // namespace ipc

extern "C" int ipc_rx_classify(const struct ipc_ifid *self, const ipc_u8 *sgid,
			       const ipc_u8 *dgid, ipc_u32 src_qpn,
			       const ipc_u8 *payload, ipc_u32 len,
			       struct ipc_rx_verdict *v)
{
	mem_zero(v, sizeof(*v));
	src_qpn &= IPC_QPN_MASK;
	if (sgid && own_qpn(self, src_qpn) &&
	    mem_equal(sgid, self->gid, IPC_GID_LEN))
		return IPC_R_LOOPBACK;
	Verdict hdr = hdr_parse(payload, len, &v->ethertype);
	if (!hdr.is_ok())
		return hdr.to_int();
	/* IPv4, the datapath's common case, carries neither ARP nor ND. */
	if (v->ethertype != IPC_ETH_P_IP)
		return rx_resolution(self, sgid, dgid, src_qpn, payload, len,
				     v);
	return rx_accept(self, sgid, dgid, src_qpn, v);
}

/* v is zeroed first and is meaningful only on IPC_R_OK. */
extern "C" int ipc_tx_classify(const struct ipc_ifid *self,
			       const ipc_u8 daddr[20], struct ipc_tx_verdict *v)
{
	mem_zero(v, sizeof(*v));
	return tx_classify(self, daddr, v).to_int();
}
