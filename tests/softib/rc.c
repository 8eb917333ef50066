// SPDX-License-Identifier: GPL-2.0
/*
 * RC on an ideal wire (design: step 8). A message crosses the fabric
 * whole, as one softib_pkt, by the same wire as UD: the switch's LFT, the
 * links' states, the receiving port's P_Key table. The responder answers
 * in the same call chain (pkt->rc_result), so there are no PSNs, no ACK
 * packets and no duplicates: what the requester learns is what a real
 * one would, an ACK, an RNR NAK, a NAK, or nothing (IBA 9.7.5.2).
 * Nothing is a timeout: the message goes again after the QP's local ACK
 * timeout, retry_cnt times, then IB_WC_RETRY_EXC_ERR. An RNR NAK waits
 * the responder's min_rnr_timer, rnr_retry times (7: for ever), then
 * IB_WC_RNR_RETRY_EXC_ERR. rdmavt's timers do the waiting (RVT_S_TIMER,
 * RVT_S_WAIT_RNR), its schedule_send brings the send work back.
 *
 * Locks: the requester's r_lock then s_lock to pick and complete an SWQE,
 * none while its message is on the wire; the responder takes its own
 * r_lock (and s_lock through rvt_rc_error). No path holds two QPs' locks.
 */
#include <linux/slab.h>
#include <rdma/ib_hdrs.h>

#include "softib.h"

/* SWQEs one run of the send work takes before it queues itself again. */
#define SOFTIB_RC_BUDGET	64

/* A message's packet: header and payload, as large as the message. */
static struct softib_pkt *softib_rc_pkt_alloc(u32 len)
{
	struct softib_pkt *pkt = kvmalloc(struct_size(pkt, data, len),
					  GFP_KERNEL);

	if (pkt) {
		memset(pkt, 0, sizeof(*pkt));
		pkt->len = len;
	}
	return pkt;
}

/*
 * The requester's message for @wqe to its QP's remote address and QPN,
 * on the wire; what the responder answered. No locks held: the SWQE stays
 * at s_last until the send work completes it, and reset waits for the
 * work (stop_send_queue) before it frees anything.
 */
static enum softib_rc_result softib_rc_request(struct rvt_qp *qp,
					       struct rvt_swqe *wqe,
					       u8 *rnr_timer)
{
	struct softib_hca *hca = softib_hca_from_ibdev(qp->ibqp.device);
	bool read = wqe->wr.opcode == IB_WR_RDMA_READ;
	struct softib_hca_port *hp;
	enum softib_rc_result res;
	struct rvt_sge_state ss;
	struct softib_pkt *pkt;
	u8 pidx;

	if (!qp->port_num || qp->port_num > hca->node.nports)
		return SOFTIB_RC_LOST;
	pkt = softib_rc_pkt_alloc(wqe->length);
	if (!pkt)
		return SOFTIB_RC_LOST;	/* as if lost: tried again */
	softib_qp_fill_lrh(qp, &qp->remote_ah_attr, qp->port_num, pkt);
	hp = &hca->hports[qp->port_num - 1];
	pidx = qp->s_pkey_index;
	pkt->pkey = pidx < SOFTIB_NPKEYS ? READ_ONCE(hp->pkeys[pidx]) : 0;
	pkt->rc = true;
	pkt->opcode = wqe->wr.opcode;
	pkt->dqpn = qp->remote_qpn;
	pkt->sqpn = qp->ibqp.qp_num;
	pkt->solicited = !!(wqe->wr.send_flags & IB_SEND_SOLICITED);
	if (wqe->wr.opcode == IB_WR_SEND_WITH_IMM ||
	    wqe->wr.opcode == IB_WR_RDMA_WRITE_WITH_IMM) {
		pkt->has_imm = true;
		pkt->imm = wqe->wr.ex.imm_data;
	}
	if (wqe->wr.opcode != IB_WR_SEND &&
	    wqe->wr.opcode != IB_WR_SEND_WITH_IMM) {
		pkt->vaddr = wqe->rdma_wr.remote_addr;
		pkt->rkey = wqe->rdma_wr.rkey;
	}
	if (!read && wqe->length) {
		softib_qp_wqe_ss(wqe, &ss);
		softib_qp_copy_out(&ss, pkt->data, wqe->length, false);
	}

	/* As UD's: to the own LID it loops back in the HCA (IBA 7.11). */
	softib_qp_xmit(hca, qp->port_num, pkt);

	res = pkt->rc_result;
	if (res == SOFTIB_RC_ACK && read && wqe->length) {
		softib_qp_wqe_ss(wqe, &ss);
		rvt_copy_sge(qp, &ss, pkt->data, wqe->length, false, false);
	}
	/* An RNR NAK's AETH carries the responder's timer (IBA 9.7.5.2.8). */
	*rnr_timer = pkt->rnr_timer;
	kvfree(pkt);
	return res;
}

/*
 * The responder's answer applied to the SWQE at s_last, with r_lock and
 * s_lock held. Returns true if the QP went to the error state with its
 * last receive WQE consumed (IB_EVENT_QP_LAST_WQE_REACHED, after the
 * locks are dropped).
 */
static bool softib_rc_answer(struct rvt_qp *qp, struct rvt_swqe *wqe,
			     enum softib_rc_result res, u8 rnr_timer)
{
	struct rvt_dev_info *rdi = ib_to_rvt(qp->ibqp.device);
	struct rvt_ibport *rvp = rdi->ports[qp->port_num - 1];
	enum ib_wc_status status;

	switch (res) {
	case SOFTIB_RC_ACK:
		qp->s_rnr_retry = qp->s_rnr_retry_cnt;
		qp->s_retry = qp->s_retry_cnt;
		rvt_send_complete(qp, wqe, IB_WC_SUCCESS);
		return false;
	case SOFTIB_RC_RNR:
		rvp->n_rnr_naks++;
		if (!qp->s_rnr_retry) {
			status = IB_WC_RNR_RETRY_EXC_ERR;
			break;
		}
		/* 7 is for ever (IBA 9.7.5.2.8). */
		if (qp->s_rnr_retry_cnt < 7)
			qp->s_rnr_retry--;
		rvt_add_rnr_timer(qp, (u32)rnr_timer << IB_AETH_CREDIT_SHIFT);
		return false;
	case SOFTIB_RC_LOST:
		if (!qp->s_retry) {
			status = IB_WC_RETRY_EXC_ERR;
			break;
		}
		qp->s_retry--;
		rvt_add_retry_timer_ext(qp, 0);
		return false;
	case SOFTIB_RC_NAK_ACCESS:
		status = IB_WC_REM_ACCESS_ERR;
		break;
	case SOFTIB_RC_NAK_OP:
		status = IB_WC_REM_OP_ERR;
		break;
	case SOFTIB_RC_NAK_INV:
	default:
		status = IB_WC_REM_INV_REQ_ERR;
		break;
	}
	qp->s_rnr_retry = qp->s_rnr_retry_cnt;
	qp->s_retry = qp->s_retry_cnt;
	rvt_send_complete(qp, wqe, status);
	/* A requester's error ends the connection (IBA 10.8.3.3). */
	return rvt_error_qp(qp, IB_WC_WR_FLUSH_ERR);
}

/* An asynchronous event of @qp to its owner; no QP lock held. */
static void softib_rc_event(struct rvt_qp *qp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = type,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/*
 * The send work of an RC QP: the SWQEs from s_last, one message each, in
 * order; in the error state each is flushed. It stops while a timer waits
 * (RNR or a lost message): the timer schedules it again.
 */
void softib_rc_send_work(struct rvt_qp *qp)
{
	int budget = SOFTIB_RC_BUDGET;
	enum softib_rc_result res;
	struct rvt_swqe *wqe;
	unsigned long flags;
	u8 rnr_timer = 0;
	bool lastwqe;
	int ops;

	spin_lock_irqsave(&qp->r_lock, flags);
	spin_lock(&qp->s_lock);
	while (qp->s_last != READ_ONCE(qp->s_head)) {
		/* Pairs with rvt_post_one_wr()'s smp_wmb(): SWQE, then s_head. */
		smp_rmb();
		ops = ib_rvt_state_ops[qp->state];
		wqe = rvt_get_swqe_ptr(qp, qp->s_last);
		if (!(ops & RVT_PROCESS_NEXT_SEND_OK)) {
			if (!(ops & RVT_FLUSH_SEND))
				break;
			rvt_send_complete(qp, wqe, IB_WC_WR_FLUSH_ERR);
			continue;
		}
		if (qp->s_flags & (RVT_S_WAIT_RNR | RVT_S_TIMER))
			break;
		if (!budget--) {
			softib_qp_queue_send(qp);
			break;
		}
		qp->s_flags |= RVT_S_BUSY;
		spin_unlock(&qp->s_lock);
		spin_unlock_irqrestore(&qp->r_lock, flags);

		res = softib_rc_request(qp, wqe, &rnr_timer);
		cond_resched();

		spin_lock_irqsave(&qp->r_lock, flags);
		spin_lock(&qp->s_lock);
		qp->s_flags &= ~RVT_S_BUSY;
		/* Gone to error or drained meanwhile: the loop decides. */
		if (!(ib_rvt_state_ops[qp->state] & RVT_PROCESS_NEXT_SEND_OK))
			continue;
		lastwqe = softib_rc_answer(qp, wqe, res, rnr_timer);
		if (lastwqe) {
			spin_unlock(&qp->s_lock);
			spin_unlock_irqrestore(&qp->r_lock, flags);
			softib_rc_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
			spin_lock_irqsave(&qp->r_lock, flags);
			spin_lock(&qp->s_lock);
		}
	}
	spin_unlock(&qp->s_lock);
	spin_unlock_irqrestore(&qp->r_lock, flags);
}

/*
 * The receive completion of a SEND or a WRITE with immediate data, for
 * the receive WQE rvt_get_rwqe() took. With r_lock held.
 */
static void softib_rc_recv_done(struct softib_hca_port *hp, struct rvt_qp *qp,
				struct softib_pkt *pkt, enum ib_wc_opcode op)
{
	struct ib_wc wc = {};

	if (!test_and_clear_bit(RVT_R_WRID_VALID, &qp->r_aflags))
		return;
	wc.wr_id = qp->r_wr_id;
	wc.status = IB_WC_SUCCESS;
	wc.opcode = op;
	wc.qp = &qp->ibqp;
	wc.byte_len = pkt->len;
	wc.src_qp = pkt->sqpn;
	wc.slid = pkt->slid;
	wc.sl = pkt->sl;
	wc.pkey_index = qp->s_pkey_index;
	wc.port_num = qp->port_num;
	if (pkt->has_imm) {
		wc.ex.imm_data = pkt->imm;
		wc.wc_flags |= IB_WC_WITH_IMM;
	}
	/* A full CQ: rvt_rc_error() takes s_lock for rvt_error_qp(). */
	if (!rvt_cq_enter(ibcq_to_rvtcq(qp->ibqp.recv_cq), &wc,
			  pkt->solicited))
		rvt_rc_error(qp, IB_WC_LOC_QP_OP_ERR);
}

/*
 * @ss over the responder's memory an RDMA message names: its R_Key
 * checked against the QP's PD and the access @acc, the MR referenced
 * (dropped as the copy consumes it).
 */
static bool softib_rc_rkey(struct rvt_qp *qp, const struct softib_pkt *pkt,
			   int acc, struct rvt_sge_state *ss)
{
	if (!rvt_rkey_ok(qp, &ss->sge, pkt->len, pkt->vaddr, pkt->rkey, acc))
		return false;
	ss->sg_list = NULL;
	ss->num_sge = 1;
	ss->total_len = pkt->len;
	return true;
}

/*
 * The responder's work for one message, with r_lock held: a receive WQE
 * for a SEND (none: RNR NAK with the QP's min_rnr_timer), the R_Key
 * checked against the QP's PD and access flags for RDMA (IBA 10.6.3,
 * 9.7.4.1.5), the data moved, the completion. Errors move the responder
 * to the error state too, as a real one does for these NAKs.
 */
static enum softib_rc_result softib_rc_respond(struct softib_hca_port *hp,
					       struct rvt_qp *qp,
					       struct softib_pkt *pkt)
{
	enum ib_wc_status err = IB_WC_LOC_QP_OP_ERR;
	enum softib_rc_result res = SOFTIB_RC_NAK_INV;
	bool imm = pkt->opcode == IB_WR_RDMA_WRITE_WITH_IMM;
	struct rvt_sge_state ss = {};
	int ret;

	switch (pkt->opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		ret = rvt_get_rwqe(qp, false);
		if (ret < 0) {
			res = SOFTIB_RC_NAK_OP;
			goto err;
		}
		if (!ret)
			goto rnr;
		if (pkt->len > qp->r_len)
			goto err;	/* too long for the buffer */
		rvt_copy_sge(qp, &qp->r_sge, pkt->data, pkt->len, true, false);
		rvt_put_ss(&qp->r_sge);
		softib_rc_recv_done(hp, qp, pkt, IB_WC_RECV);
		return SOFTIB_RC_ACK;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		if (!(qp->qp_access_flags & IB_ACCESS_REMOTE_WRITE))
			goto err;
		if (imm) {
			ret = rvt_get_rwqe(qp, true);
			if (ret < 0) {
				res = SOFTIB_RC_NAK_OP;
				goto err;
			}
			if (!ret)
				goto rnr;
		}
		if (pkt->len) {
			if (!softib_rc_rkey(qp, pkt, IB_ACCESS_REMOTE_WRITE,
					    &ss))
				goto access;
			rvt_copy_sge(qp, &ss, pkt->data, pkt->len, true, false);
			rvt_put_ss(&ss);
		}
		if (imm)
			softib_rc_recv_done(hp, qp, pkt,
					    IB_WC_RECV_RDMA_WITH_IMM);
		return SOFTIB_RC_ACK;
	case IB_WR_RDMA_READ:
		if (!(qp->qp_access_flags & IB_ACCESS_REMOTE_READ))
			goto err;
		if (pkt->len) {
			if (!softib_rc_rkey(qp, pkt, IB_ACCESS_REMOTE_READ,
					    &ss))
				goto access;
			softib_qp_copy_out(&ss, pkt->data, pkt->len, true);
			rvt_put_ss(&ss);
		}
		return SOFTIB_RC_ACK;
	default:
		goto err;
	}
rnr:
	pkt->rnr_timer = qp->r_min_rnr_timer;
	return SOFTIB_RC_RNR;
access:
	res = SOFTIB_RC_NAK_ACCESS;
	err = IB_WC_LOC_PROT_ERR;
err:
	rvt_rc_error(qp, err);
	return res;
}

/*
 * An RC message at its responder @qp, found by DQPN on the port @hp
 * (wire.c, under rcu_read_lock()). The header checks of IBA 9.6.1.5:
 * an RC QP able to receive, the source LID and QPN those of its
 * connection, the P_Key its own; a message that fails them is dropped
 * without a word, and its requester times out.
 */
void softib_rc_rx(struct softib_hca_port *hp, struct rvt_qp *qp,
		  struct softib_pkt *pkt)
{
	bool comm_est = false;
	unsigned long flags;
	u8 pidx;

	if (qp->ibqp.qp_type != IB_QPT_RC ||
	    qp->port_num != hp->port->num ||
	    pkt->sqpn != qp->remote_qpn ||
	    pkt->slid != rdma_ah_get_dlid(&qp->remote_ah_attr))
		return;
	pidx = qp->s_pkey_index;
	if (pidx >= SOFTIB_NPKEYS ||
	    !softib_wire_pkey_match(READ_ONCE(hp->pkeys[pidx]), pkt->pkey)) {
		hp->rvp.pkey_violations++;
		return;
	}
	spin_lock_irqsave(&qp->r_lock, flags);
	if (ib_rvt_state_ops[qp->state] & RVT_PROCESS_RECV_OK) {
		/* The first message in RTR: the connection is up (ib_cm). */
		if (qp->state == IB_QPS_RTR &&
		    !(qp->r_flags & RVT_R_COMM_EST)) {
			qp->r_flags |= RVT_R_COMM_EST;
			comm_est = true;
		}
		pkt->rc_result = softib_rc_respond(hp, qp, pkt);
	}
	spin_unlock_irqrestore(&qp->r_lock, flags);
	/*
	 * Not rvt_comm_est() under r_lock: ib_cm's handler takes its
	 * cm_id lock, which nests a softirq-unsafe one, and r_lock is taken
	 * in softirq (rvt_rc_timeout): lockdep's SOFTIRQ-safe -> unsafe.
	 * The QP outlives this RCU section (rvt_remove_qp waits for it).
	 */
	if (comm_est)
		softib_rc_event(qp, IB_EVENT_COMM_EST);
}
