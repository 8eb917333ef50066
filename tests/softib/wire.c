// SPDX-License-Identifier: GPL-2.0
/*
 * The wire: packets cross cables, switches forward them, HCA ports receive
 * them into QPs (design: "The fabric" and "Receive"). Everything runs in
 * the sending QP's send work, after it dropped its locks: delivery is a
 * synchronous call chain, never in the poster's context, and no path holds
 * two QPs' locks. The caller owns the packet; nobody here keeps it.
 */
#include <linux/slab.h>
#include <rdma/ib_mad.h>

#include "softib.h"

/* Links a packet may cross: more is a forwarding loop (IBA 14.2.2: 64). */
#define SOFTIB_WIRE_MAX_HOPS	IB_SMP_MAX_PATH_HOPS

struct softib_pkt *softib_pkt_alloc(u32 len, gfp_t gfp)
{
	struct softib_pkt *pkt = kzalloc(struct_size(pkt, data, len), gfp);

	if (pkt)
		pkt->len = len;
	return pkt;
}

static bool softib_wire_link_up(struct softib_port *port)
{
	return READ_ONCE(port->phys_state) == IB_PORT_PHYS_STATE_LINK_UP;
}

/*
 * Send @pkt out of @port across its cable. Both ends must be LinkUp; data
 * VLs also need both ends ACTIVE, VL15 flows in INIT and ARMED too
 * (IBA 7.2, 7.6.5). Else the packet is lost, as on a real link.
 */
void softib_wire_xmit(struct softib_port *port, struct softib_pkt *pkt)
{
	struct softib_port *peer;

	/* An HCA's ports outlive a grace period after their cable is pulled. */
	rcu_read_lock();
	peer = READ_ONCE(port->peer);
	if (!peer || !softib_wire_link_up(port) || !softib_wire_link_up(peer))
		goto unlock;
	if (pkt->vl != SOFTIB_VL15 &&
	    (READ_ONCE(port->state) != IB_PORT_ACTIVE ||
	     READ_ONCE(peer->state) != IB_PORT_ACTIVE))
		goto unlock;
	if (++pkt->hops > SOFTIB_WIRE_MAX_HOPS)
		goto unlock;
	if (peer->node->type == SOFTIB_NODE_SWITCH)
		softib_switch_rx(peer, pkt);
	else
		softib_wire_hca_rx(peer, pkt);
unlock:
	rcu_read_unlock();
}

/*
 * Multicast at the switch (IBA 18.2.4.3.2): a copy out of every port of
 * the MLID's MulticastForwardingTable entry but the one it came in on.
 * The packet is reused for each copy: delivery keeps nothing.
 */
static void softib_wire_forward_mcast(struct softib_switch *sw, u8 in_port,
				      struct softib_pkt *pkt)
{
	u32 index = pkt->dlid - be16_to_cpu(IB_MULTICAST_LID_BASE);
	unsigned long flags;
	u8 hops = pkt->hops;
	u64 mask;
	int p;

	if (index >= SOFTIB_MFT_CAP)
		return;
	spin_lock_irqsave(&sw->lock, flags);
	mask = sw->mft[index];
	spin_unlock_irqrestore(&sw->lock, flags);
	mask &= ~BIT_ULL(in_port);
	for (p = 1; p <= sw->node.nports; p++) {
		if (!(mask & BIT_ULL(p)))
			continue;
		pkt->hops = hops;
		softib_wire_xmit(&sw->node.ports[p], pkt);
	}
}

/*
 * LID routing at the switch (IBA 18.2.4.3): unicast by the LFT, entry 0
 * is the switch's own port 0 (handled by the caller), 255 or beyond
 * LinearFDBTop drops; multicast by the MFT. @in_port is the port the
 * packet came in on, 0 for the switch's own.
 */
void softib_wire_forward(struct softib_switch *sw, u8 in_port,
			 struct softib_pkt *pkt)
{
	unsigned long flags;
	u8 out = 0;

	if (pkt->dlid == SOFTIB_LID_PERMISSIVE)
		return;
	if (pkt->dlid >= be16_to_cpu(IB_MULTICAST_LID_BASE)) {
		softib_wire_forward_mcast(sw, in_port, pkt);
		return;
	}
	spin_lock_irqsave(&sw->lock, flags);
	if (pkt->dlid <= sw->lft_top)
		out = sw->lft[pkt->dlid];
	spin_unlock_irqrestore(&sw->lock, flags);
	if (out && out <= sw->node.nports)
		softib_wire_xmit(&sw->node.ports[out], pkt);
}

/* IBA 10.9.3: equal non-zero base P_Keys, at least one full member. */
bool softib_wire_pkey_match(u16 a, u16 b)
{
	if (!(a & 0x7fff) || (a & 0x7fff) != (b & 0x7fff))
		return false;
	return (a | b) & 0x8000;
}

/*
 * The P_Key check at the receiving port (IBA 10.9.3): QP0 none (its index
 * is 0), QP1 any entry, UD the QP's own. The index or -1.
 */
static int softib_wire_pkey_index(struct softib_hca_port *hp,
				  struct rvt_qp *qp, u16 pkey)
{
	int i;

	switch (qp->ibqp.qp_type) {
	case IB_QPT_SMI:
		return 0;
	case IB_QPT_GSI:
		for (i = 0; i < SOFTIB_NPKEYS; i++)
			if (softib_wire_pkey_match(READ_ONCE(hp->pkeys[i]),
						   pkey))
				return i;
		return -1;
	default:
		i = qp->s_pkey_index;
		if (i < SOFTIB_NPKEYS &&
		    softib_wire_pkey_match(READ_ONCE(hp->pkeys[i]), pkey))
			return i;
		return -1;
	}
}

/* Is @pkt for this port's LID, or on VL15 the permissive one (IBA 7.11)? */
static bool softib_wire_dlid_ok(struct softib_port *port,
				struct softib_pkt *pkt)
{
	u16 lid = READ_ONCE(port->lid);
	u16 mask = ~((1U << READ_ONCE(port->lmc)) - 1);

	if (pkt->dlid == SOFTIB_LID_PERMISSIVE)
		return pkt->vl == SOFTIB_VL15;
	return lid && (pkt->dlid & mask) == lid;
}

/*
 * Into the QP: a receive WQE, the GRH or 40 skipped bytes, the payload
 * (IBA 11.4.1.2: UD receive buffers start with GRH space), then the
 * completion. Called with rcu_read_lock() held; takes the QP's r_lock.
 */
static void softib_wire_qp_rx(struct rvt_qp *qp, struct softib_pkt *pkt,
			      int pkey_index, u8 path_bits)
{
	struct ib_wc wc = {};
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&qp->r_lock, flags);
	if (!(ib_rvt_state_ops[qp->state] & RVT_PROCESS_RECV_OK))
		goto unlock;
	ret = rvt_get_rwqe(qp, false);
	if (ret < 0) {
		/* A bad receive SGE (qp.c:init_sge): the QP goes to error. */
		rvt_rc_error(qp, IB_WC_LOC_QP_OP_ERR);
		goto unlock;
	}
	if (!ret)
		goto unlock;	/* no receive buffer: the packet is lost */
	if (pkt->len + sizeof(struct ib_grh) > qp->r_len) {
		/* Too long for the buffer: keep the WQE for the next one. */
		qp->r_flags |= RVT_R_REUSE_SGE;
		goto unlock;
	}
	if (pkt->has_grh) {
		rvt_copy_sge(qp, &qp->r_sge, &pkt->grh, sizeof(pkt->grh),
			     true, false);
		wc.wc_flags |= IB_WC_GRH;
	} else {
		rvt_skip_sge(&qp->r_sge, sizeof(struct ib_grh), true);
	}
	rvt_copy_sge(qp, &qp->r_sge, pkt->data, pkt->len, true, false);
	rvt_put_ss(&qp->r_sge);
	if (!test_and_clear_bit(RVT_R_WRID_VALID, &qp->r_aflags))
		goto unlock;
	wc.wr_id = qp->r_wr_id;
	wc.status = IB_WC_SUCCESS;
	wc.opcode = IB_WC_RECV;
	wc.qp = &qp->ibqp;
	wc.byte_len = pkt->len + sizeof(struct ib_grh);
	wc.src_qp = pkt->sqpn;
	wc.slid = pkt->slid;
	wc.sl = pkt->sl;
	wc.pkey_index = pkey_index;
	wc.port_num = qp->port_num;
	wc.dlid_path_bits = path_bits;
	if (pkt->has_imm) {
		wc.ex.imm_data = pkt->imm;
		wc.wc_flags |= IB_WC_WITH_IMM;
	}
	/* A full CQ: rvt_rc_error() takes s_lock for rvt_error_qp(). */
	if (!rvt_cq_enter(ibcq_to_rvtcq(qp->ibqp.recv_cq), &wc, pkt->solicited))
		rvt_rc_error(qp, IB_WC_LOC_QP_OP_ERR);
unlock:
	spin_unlock_irqrestore(&qp->r_lock, flags);
}

/*
 * The checks of the receiving QP (IBA 10.9.3, 13.5.1): its P_Key, and
 * on QP1 the GSI Q_Key, on UD the QP's own. Then into the QP. Called
 * with rcu_read_lock() held.
 */
static void softib_wire_qp_check_rx(struct softib_hca_port *hp,
				    struct rvt_qp *qp, struct softib_pkt *pkt,
				    u8 path_bits)
{
	int pkey_index;
	u32 qkey;

	pkey_index = softib_wire_pkey_index(hp, qp, pkt->pkey);
	if (pkey_index < 0) {
		hp->rvp.pkey_violations++;
		return;
	}
	if (qp->ibqp.qp_type != IB_QPT_SMI) {
		qkey = qp->ibqp.qp_type == IB_QPT_GSI ? IB_QP1_QKEY : qp->qkey;
		if (pkt->qkey != qkey) {
			hp->rvp.qkey_violations++;
			return;
		}
	}
	softib_wire_qp_rx(qp, pkt, pkey_index, path_bits);
}

/*
 * A multicast packet at an HCA port (IBA 10.5.2.2): it needs a GRH, whose
 * MGID with the DLID names the group, and QPN 0xFFFFFF; every QP of the
 * port attached to the group gets it (rdmavt's mcast.c holds the
 * attachments), the sender's own QP too when it is attached.
 */
static void softib_wire_mcast_rx(struct softib_hca_port *hp,
				 struct softib_pkt *pkt)
{
	struct rvt_mcast_qp *mqp;
	struct rvt_mcast *mcast;

	if (!pkt->has_grh || pkt->vl == SOFTIB_VL15 || pkt->rc ||
	    pkt->dqpn != IB_MULTICAST_QPN)
		return;
	mcast = rvt_mcast_find(&hp->rvp, &pkt->grh.dgid, pkt->dlid);
	if (!mcast)
		return;
	rcu_read_lock();
	list_for_each_entry_rcu(mqp, &mcast->qp_list, list)
		softib_wire_qp_check_rx(hp, mqp->qp, pkt, 0);
	rcu_read_unlock();
	/* rvt_multicast_detach() waits for the last reference. */
	if (atomic_dec_return(&mcast->refcount) <= 1)
		wake_up(&mcast->wait);
}

/*
 * A packet arrives at HCA port @port (design: "Receive: into the
 * destination QP"). QP0 takes VL15 only and VL15 goes to QP0 only
 * (IBA 9.6.1.1); an RC message goes to an RC QP only (rc.c), a datagram
 * never to one.
 */
void softib_wire_hca_rx(struct softib_port *port, struct softib_pkt *pkt)
{
	struct softib_hca *hca = container_of(port->node, struct softib_hca,
					      node);
	struct softib_hca_port *hp = &hca->hports[port->num - 1];
	struct rvt_qp *qp;
	u8 path_bits = 0;

	rcu_read_lock();
	/*
	 * rdmavt frees its QP table at unregistration with no grace period
	 * (qp.c:rvt_qp_exit): softib_hca_unregister() waits for this section.
	 */
	if (!READ_ONCE(hca->registered))
		goto unlock;
	if (pkt->dlid >= be16_to_cpu(IB_MULTICAST_LID_BASE) &&
	    pkt->dlid != SOFTIB_LID_PERMISSIVE) {
		softib_wire_mcast_rx(hp, pkt);
		goto unlock;
	}
	if (!softib_wire_dlid_ok(port, pkt))
		goto unlock;
	if (pkt->dlid != SOFTIB_LID_PERMISSIVE)
		path_bits = pkt->dlid & ((1U << READ_ONCE(port->lmc)) - 1);
	if (pkt->vl == SOFTIB_VL15 ? pkt->dqpn : !pkt->dqpn)
		goto unlock;
	qp = rvt_lookup_qpn(&hca->rdi, &hp->rvp, pkt->dqpn);
	if (!qp)
		goto unlock;
	if (pkt->rc)
		softib_rc_rx(hp, qp, pkt);
	else if (qp->ibqp.qp_type != IB_QPT_RC)
		softib_wire_qp_check_rx(hp, qp, pkt, path_bits);
unlock:
	rcu_read_unlock();
}
