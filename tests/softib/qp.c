// SPDX-License-Identifier: GPL-2.0
/*
 * QPs on rdmavt: the driver's per-QP data and the send engine. Posting may
 * run in softirq (ipoib's xmit) or under MAD locks, so nothing is sent in
 * the poster's context: every path queues the QP's send work (design: "How
 * a UD send leaves a QP"). The work completes each send and hands its
 * packet to the wire (wire.c).
 */
#include <linux/slab.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_sa.h>

#include "softib.h"

#define SOFTIB_QPT_DATAGRAM	(BIT(IB_QPT_UD) | BIT(IB_QPT_SMI) | \
				 BIT(IB_QPT_GSI))

/*
 * What rvt_post_one_wr accepts: sends on UD, SMI, GSI and RC; RDMA WRITE
 * and READ on RC (rc.c). The length is what it copies of an RC WR
 * (rdmavt takes a struct ib_ud_wr for the datagram QPs whatever it says
 * here). A READ needs the QP's max_rd_atomic (RVT_OPERATION_ATOMIC).
 */
const struct rvt_operation_params softib_qp_post_parms[RVT_OPERATION_MAX] = {
	[IB_WR_SEND] = {
		.length = sizeof(struct ib_send_wr),
		.qpt_support = SOFTIB_QPT_DATAGRAM | BIT(IB_QPT_RC),
	},
	[IB_WR_SEND_WITH_IMM] = {
		.length = sizeof(struct ib_send_wr),
		.qpt_support = SOFTIB_QPT_DATAGRAM | BIT(IB_QPT_RC),
	},
	[IB_WR_RDMA_WRITE] = {
		.length = sizeof(struct ib_rdma_wr),
		.qpt_support = BIT(IB_QPT_RC),
	},
	[IB_WR_RDMA_WRITE_WITH_IMM] = {
		.length = sizeof(struct ib_rdma_wr),
		.qpt_support = BIT(IB_QPT_RC),
	},
	[IB_WR_RDMA_READ] = {
		.length = sizeof(struct ib_rdma_wr),
		.qpt_support = BIT(IB_QPT_RC),
		.flags = RVT_OPERATION_ATOMIC,
	},
};

/* The send completion's opcode per work request opcode (rvt_send_complete). */
const enum ib_wc_opcode softib_qp_wc_opcode[RVT_OPERATION_MAX] = {
	[IB_WR_SEND] = IB_WC_SEND,
	[IB_WR_SEND_WITH_IMM] = IB_WC_SEND,
	[IB_WR_RDMA_WRITE] = IB_WC_RDMA_WRITE,
	[IB_WR_RDMA_WRITE_WITH_IMM] = IB_WC_RDMA_WRITE,
	[IB_WR_RDMA_READ] = IB_WC_RDMA_READ,
};

/*
 * The LRH and GRH fields of a packet out of @port_num of @qp's HCA, to
 * the address @attr (a UD WR's AH, an RC QP's remote address): data VL 0,
 * the SLID the port's LID with the AH's path bits, the SGID from the
 * port's GUID table. The GRH's PayLen is the caller's.
 */
void softib_qp_fill_lrh(struct rvt_qp *qp, const struct rdma_ah_attr *attr,
			u8 port_num, struct softib_pkt *pkt)
{
	struct softib_hca *hca = softib_hca_from_ibdev(qp->ibqp.device);
	struct softib_hca_port *hp = &hca->hports[port_num - 1];

	pkt->port_num = port_num;
	pkt->vl = qp->ibqp.qp_type == IB_QPT_SMI ? SOFTIB_VL15 : 0;
	pkt->sl = rdma_ah_get_sl(attr);
	pkt->dlid = rdma_ah_get_dlid(attr);
	/* A permissive DLID goes with a permissive SLID (IBA 14.2.2.1). */
	if (pkt->dlid == SOFTIB_LID_PERMISSIVE)
		pkt->slid = SOFTIB_LID_PERMISSIVE;
	else
		pkt->slid = READ_ONCE(hp->port->lid) |
			    rdma_ah_get_path_bits(attr);
	if (rdma_ah_get_ah_flags(attr) & IB_AH_GRH) {
		const struct ib_global_route *grh = rdma_ah_read_grh(attr);
		union ib_gid sgid = {};

		sgid.global.subnet_prefix = READ_ONCE(hp->rvp.gid_prefix);
		if (grh->sgid_index < SOFTIB_GUIDS)
			sgid.global.interface_id =
				READ_ONCE(hp->guids[grh->sgid_index]);
		pkt->has_grh = true;
		/* IPVer 6, TClass, FlowLabel (IBA 8.3.1). */
		pkt->grh.version_tclass_flow =
			cpu_to_be32(6 << 28 | grh->traffic_class << 20 |
				    (grh->flow_label & 0xfffff));
		pkt->grh.next_hdr = 0x1b;	/* IBA 8.3.1: a BTH follows */
		pkt->grh.hop_limit = grh->hop_limit;
		pkt->grh.sgid = sgid;
		pkt->grh.dgid = grh->dgid;
	}
}

/* @ss over an SWQE's SGEs, whose MR references the SWQE keeps. */
void softib_qp_wqe_ss(struct rvt_swqe *wqe, struct rvt_sge_state *ss)
{
	ss->sge = wqe->sg_list[0];
	ss->sg_list = wqe->sg_list + 1;
	ss->num_sge = wqe->wr.num_sge;
	ss->total_len = wqe->length;
}

/*
 * Copy @len bytes out of the memory of @ss into @data: an SWQE's SGEs
 * (@release false: the SWQE keeps their MR references), or an MR that
 * rvt_rkey_ok() referenced (@release: dropped here).
 */
void softib_qp_copy_out(struct rvt_sge_state *ss, u8 *data, u32 len,
			bool release)
{
	u32 n;

	for (; len; len -= n, data += n) {
		n = rvt_get_sge_length(&ss->sge, len);
		memcpy(data, ss->sge.vaddr, n);
		rvt_update_sge(ss, n, release);
	}
}

/*
 * A UD SWQE as a packet (IBA 9.2, 9.8, 11.4.1.1): LRH from the AH, BTH
 * and DETH from the QP and WR, the payload copied once from the SGEs. The
 * SGEs' MR references stay with the SWQE (rvt_send_complete drops them).
 * NULL if no memory: the packet is lost, as UD allows.
 */
static struct softib_pkt *softib_qp_make_pkt(struct rvt_qp *qp,
					     struct rvt_swqe *wqe)
{
	struct softib_hca *hca = softib_hca_from_ibdev(qp->ibqp.device);
	struct rvt_ah *ah = ibah_to_rvtah(wqe->ud_wr.wr.ah);
	struct softib_hca_port *hp;
	struct rvt_sge_state ss;
	struct softib_pkt *pkt;
	u32 pidx;

	if (wqe->length > SOFTIB_MAX_PAYLOAD)
		return NULL;
	pkt = softib_pkt_alloc(wqe->length, GFP_ATOMIC);
	if (!pkt)
		return NULL;
	softib_qp_fill_lrh(qp, &ah->attr, rdma_ah_get_port_num(&ah->attr),
			   pkt);
	hp = &hca->hports[pkt->port_num - 1];
	if (pkt->vl != SOFTIB_VL15)
		pkt->vl = ah->vl;
	/* BTH 12, DETH 8, ImmDt 4, payload, ICRC 4 (IBA 8.3.1). */
	if (pkt->has_grh)
		pkt->grh.paylen = cpu_to_be16(12 + 8 + wqe->length + 4 +
			(wqe->wr.opcode == IB_WR_SEND_WITH_IMM ? 4 : 0));
	pkt->solicited = !!(wqe->wr.send_flags & IB_SEND_SOLICITED);
	/* QP1 sends with the WR's P_Key, UD with its QP's (IBA 11.4.1.1). */
	pidx = qp->ibqp.qp_type == IB_QPT_GSI ? wqe->ud_wr.wr.pkey_index :
						qp->s_pkey_index;
	pkt->pkey = pidx < SOFTIB_NPKEYS ? READ_ONCE(hp->pkeys[pidx]) : 0;
	pkt->dqpn = wqe->ud_wr.wr.remote_qpn;
	pkt->psn = wqe->psn;
	/* A Q_Key with the high bit set means the QP's own (IBA 10.2.4). */
	pkt->qkey = wqe->ud_wr.wr.remote_qkey & BIT(31) ? qp->qkey :
						       wqe->ud_wr.wr.remote_qkey;
	pkt->sqpn = qp->ibqp.qp_num;
	if (wqe->wr.opcode == IB_WR_SEND_WITH_IMM) {
		pkt->has_imm = true;
		pkt->imm = wqe->wr.ex.imm_data;
	}

	softib_qp_wqe_ss(wqe, &ss);
	softib_qp_copy_out(&ss, pkt->data, wqe->length, false);
	return pkt;
}

enum softib_sa_verdict {
	SOFTIB_SA_NOT,			/* not an SA request */
	SOFTIB_SA_SEND,
	SOFTIB_SA_LOSE,
};

/*
 * An SA request out of QP1 is counted (enum softib_sa_count); LOSE if it
 * is to be lost (ports/P/softib/sa_drop_pct: an SA that does not answer).
 * Which ones, by the count: the n-th is lost when n * pct / 100 steps up,
 * so that pct of them are, spread evenly and the same in every run.
 */
static enum softib_sa_verdict
softib_qp_count_sa(struct softib_hca_port *hp, const struct softib_pkt *pkt)
{
	u8 pct = READ_ONCE(hp->sa_drop_pct);
	s64 n;
	const struct ib_rmpp_mad *rm = (const struct ib_rmpp_mad *)pkt->data;
	const struct ib_mad_hdr *mh = &rm->mad_hdr;
	u16 attr;

	if (pkt->sqpn != be32_to_cpu(IB_QP1) ||
	    pkt->len < sizeof(*mh) + sizeof(rm->rmpp_hdr) ||
	    mh->mgmt_class != IB_MGMT_CLASS_SUBN_ADM ||
	    (mh->method & IB_MGMT_METHOD_RESP))
		return SOFTIB_SA_NOT;
	/*
	 * The receiver's ACK of an RMPP answer (a GetTable's) is the answer's
	 * method with the response bit cleared (mad_rmpp.c): no request.
	 */
	if ((rm->rmpp_hdr.rmpp_rtime_flags & IB_MGMT_RMPP_FLAG_ACTIVE) &&
	    rm->rmpp_hdr.rmpp_type == IB_MGMT_RMPP_TYPE_ACK)
		return SOFTIB_SA_NOT;
	n = atomic64_inc_return(&hp->sa_counts[SOFTIB_SA_REQUESTS]);
	attr = be16_to_cpu(mh->attr_id);
	if (attr == IB_SA_ATTR_MC_MEMBER_REC && mh->method == IB_MGMT_METHOD_SET)
		atomic64_inc(&hp->sa_counts[SOFTIB_SA_JOINS]);
	else if (attr == IB_SA_ATTR_MC_MEMBER_REC &&
		 mh->method == IB_SA_METHOD_DELETE)
		atomic64_inc(&hp->sa_counts[SOFTIB_SA_LEAVES]);
	else if (attr == IB_SA_ATTR_PATH_REC)
		atomic64_inc(&hp->sa_counts[SOFTIB_SA_PATHS]);
	else if (attr == IB_SA_ATTR_INFORM_INFO)
		atomic64_inc(&hp->sa_counts[SOFTIB_SA_INFORMS]);
	if (n * pct / 100 == (n - 1) * pct / 100)
		return SOFTIB_SA_SEND;
	atomic64_inc(&hp->sa_counts[SOFTIB_SA_DROPPED]);
	return SOFTIB_SA_LOSE;
}

/* Out of the port, by the LRH's DLID: no SA accounting. */
static void softib_qp_route(struct softib_hca *hca, u32 port_num,
			    struct softib_pkt *pkt)
{
	struct softib_port *port = hca->hports[port_num - 1].port;
	u16 lid = READ_ONCE(port->lid);
	u16 mask = ~((1U << READ_ONCE(port->lmc)) - 1);

	if (pkt->dlid >= be16_to_cpu(IB_MULTICAST_LID_BASE) &&
	    pkt->dlid != SOFTIB_LID_PERMISSIVE) {
		if (READ_ONCE(port->state) == IB_PORT_ACTIVE)
			softib_wire_hca_rx(port, pkt);
		softib_wire_xmit(port, pkt);
	} else if (lid && (pkt->dlid & mask) == lid) {
		softib_wire_hca_rx(port, pkt);
	} else {
		softib_wire_xmit(port, pkt);
	}
}

/*
 * A slow SA (ports/P/softib/sa_delay_ms): the port's SA requests are held
 * that long, in the order they came, then go out as they would have. The
 * requester's MAD layer times out and retries meanwhile when the delay
 * is beyond its timeout; answers to the first tries come late. A copy is
 * held (callers free the packet); without memory, or past
 * SOFTIB_SA_HELD_MAX held, a request is lost and counted so.
 */
static void softib_qp_sa_hold(struct softib_hca_port *hp,
			      const struct softib_pkt *pkt, u16 delay_ms)
{
	struct softib_pkt *held = NULL;
	bool first = false;

	spin_lock_bh(&hp->sa_held_lock);
	if (hp->sa_nheld < SOFTIB_SA_HELD_MAX)
		held = kmemdup(pkt, struct_size(pkt, data, pkt->len),
			       GFP_ATOMIC);
	if (held) {
		held->due = jiffies + msecs_to_jiffies(delay_ms);
		first = list_empty(&hp->sa_held);
		list_add_tail(&held->list, &hp->sa_held);
		hp->sa_nheld++;
	}
	spin_unlock_bh(&hp->sa_held_lock);
	if (!held) {
		atomic64_inc(&hp->sa_counts[SOFTIB_SA_DROPPED]);
		return;
	}
	atomic64_inc(&hp->sa_counts[SOFTIB_SA_DELAYED]);
	if (first)
		schedule_delayed_work(&hp->sa_held_work,
				      msecs_to_jiffies(delay_ms));
}

/* The held requests that are due go; the work waits for the next one. */
static void softib_qp_sa_held_work(struct work_struct *work)
{
	struct softib_hca_port *hp = container_of(to_delayed_work(work),
						  struct softib_hca_port,
						  sa_held_work);
	struct softib_port *port = hp->port;
	struct softib_hca *hca = container_of(port->node, struct softib_hca,
					      node);
	struct softib_pkt *pkt, *next;
	LIST_HEAD(due);

	spin_lock_bh(&hp->sa_held_lock);
	list_for_each_entry_safe(pkt, next, &hp->sa_held, list) {
		if (time_before(jiffies, pkt->due)) {
			schedule_delayed_work(&hp->sa_held_work,
					      pkt->due - jiffies);
			break;
		}
		list_move_tail(&pkt->list, &due);
		hp->sa_nheld--;
	}
	spin_unlock_bh(&hp->sa_held_lock);

	list_for_each_entry_safe(pkt, next, &due, list) {
		softib_qp_route(hca, port->num, pkt);
		kfree(pkt);
	}
}

void softib_qp_sa_held_init(struct softib_hca_port *hp)
{
	spin_lock_init(&hp->sa_held_lock);
	INIT_LIST_HEAD(&hp->sa_held);
	INIT_DELAYED_WORK(&hp->sa_held_work, softib_qp_sa_held_work);
}

/* The port goes: what it still holds is lost. Nothing sends any more. */
void softib_qp_sa_held_flush(struct softib_hca_port *hp)
{
	struct softib_pkt *pkt, *next;

	cancel_delayed_work_sync(&hp->sa_held_work);
	list_for_each_entry_safe(pkt, next, &hp->sa_held, list)
		kfree(pkt);
	INIT_LIST_HEAD(&hp->sa_held);
	hp->sa_nheld = 0;
}

/*
 * Out of the AH's port; to the own LID it loops back in the HCA. A
 * multicast packet also loops back to the port's own attached QPs, as
 * HCAs do (and rxe; IPoIB drops its own echo by source QPN and LID).
 */
void softib_qp_xmit(struct softib_hca *hca, u32 port_num,
		    struct softib_pkt *pkt)
{
	struct softib_hca_port *hp = &hca->hports[port_num - 1];
	u16 delay_ms;

	switch (softib_qp_count_sa(hp, pkt)) {
	case SOFTIB_SA_LOSE:
		return;
	case SOFTIB_SA_SEND:
		delay_ms = READ_ONCE(hp->sa_delay_ms);
		if (delay_ms) {
			softib_qp_sa_hold(hp, pkt, delay_ms);
			return;
		}
		break;
	case SOFTIB_SA_NOT:
		break;
	}
	softib_qp_route(hca, port_num, pkt);
}

/*
 * The send work: each SWQE from s_last to s_head becomes a packet and is
 * completed; the packets go on the wire once the QP's locks are dropped
 * (a packet may come back to this QP). Locks in rdmavt's order, r_lock
 * then s_lock (qp.c:_rvt_reset_qp): a full CQ makes rvt_send_complete()
 * reach rvt_error_qp(), which asserts both.
 */
static void softib_qp_send_work(struct work_struct *work)
{
	struct softib_qp *sqp = container_of(work, struct softib_qp, send_work);
	struct rvt_qp *qp = sqp->qp;
	struct softib_hca *hca = softib_hca_from_ibdev(qp->ibqp.device);
	struct softib_pkt *pkt, *next;
	enum ib_wc_status status;
	unsigned long flags;
	struct rvt_swqe *wqe;
	LIST_HEAD(batch);
	u32 head;
	int ops;

	if (qp->ibqp.qp_type == IB_QPT_RC) {
		softib_rc_send_work(qp);
		return;
	}
	spin_lock_irqsave(&qp->r_lock, flags);
	spin_lock(&qp->s_lock);
	head = READ_ONCE(qp->s_head);
	/* Pairs with rvt_post_one_wr()'s smp_wmb() between SWQE and s_head. */
	smp_rmb();
	while (qp->s_last != head) {
		/* A completion may move the QP to the error state. */
		ops = ib_rvt_state_ops[qp->state];
		wqe = rvt_get_swqe_ptr(qp, qp->s_last);
		if (ops & RVT_PROCESS_NEXT_SEND_OK) {
			status = IB_WC_SUCCESS;
			pkt = softib_qp_make_pkt(qp, wqe);
			if (pkt)
				list_add_tail(&pkt->list, &batch);
		} else if (ops & RVT_FLUSH_SEND) {
			status = IB_WC_WR_FLUSH_ERR;
		} else {
			break;
		}
		rvt_send_complete(qp, wqe, status);
	}
	spin_unlock(&qp->s_lock);
	spin_unlock_irqrestore(&qp->r_lock, flags);

	list_for_each_entry_safe(pkt, next, &batch, list) {
		softib_qp_xmit(hca, pkt->port_num, pkt);
		kfree(pkt);
	}
}

/* Called with or without s_lock, from any context: only queues. */
bool softib_qp_queue_send(struct rvt_qp *qp)
{
	struct softib_hca *hca = softib_hca_from_ibdev(qp->ibqp.device);
	struct softib_qp *sqp = qp->priv;

	if (!(ib_rvt_state_ops[READ_ONCE(qp->state)] &
	      RVT_PROCESS_OR_FLUSH_SEND))
		return false;
	return queue_work(hca->fabric->wq, &sqp->send_work);
}

static void softib_qp_do_send(struct rvt_qp *qp)
{
	softib_qp_queue_send(qp);
}

/*
 * A UD message is one packet: it fits the AH's path MTU (log_pmtu, set by
 * notify_new_ah). An RC message crosses the ideal wire whole (rc.c). Never
 * send inline: see the file comment.
 */
static int softib_qp_setup_wqe(struct rvt_qp *qp, struct rvt_swqe *wqe,
			       bool *call_send)
{
	struct rvt_ah *ah;

	switch (qp->ibqp.qp_type) {
	case IB_QPT_UD:
	case IB_QPT_SMI:
	case IB_QPT_GSI:
		ah = ibah_to_rvtah(wqe->ud_wr.wr.ah);
		if (wqe->length > (1U << ah->log_pmtu))
			return -EINVAL;
		break;
	default:
		break;
	}
	*call_send = false;
	return 0;
}

/*
 * UC (and XRC) are refused. Here, not in qp_priv_init: rdmavt frees the
 * QPN on no error path after qp_priv_init (qp.c:rvt_create_qp,
 * bail_rq_wq), and qp_priv_alloc runs before the QPN is taken.
 */
static void *softib_qp_priv_alloc(struct rvt_dev_info *rdi, struct rvt_qp *qp)
{
	struct softib_qp *sqp;

	if (qp->ibqp.qp_type != IB_QPT_UD && qp->ibqp.qp_type != IB_QPT_SMI &&
	    qp->ibqp.qp_type != IB_QPT_GSI && qp->ibqp.qp_type != IB_QPT_RC)
		return ERR_PTR(-EOPNOTSUPP);
	sqp = kzalloc_node(sizeof(*sqp), GFP_KERNEL, rdi->dparms.node);
	if (!sqp)
		return ERR_PTR(-ENOMEM);
	sqp->qp = qp;
	INIT_WORK(&sqp->send_work, softib_qp_send_work);
	return sqp;
}

/*
 * A QP already in RESET skips stop_send_queue on destroy
 * (qp.c:_rvt_reset_qp), and a poster that saw it running may have queued
 * the work since: wait for it here too.
 */
static void softib_qp_priv_free(struct rvt_dev_info *rdi, struct rvt_qp *qp)
{
	struct softib_qp *sqp = qp->priv;

	cancel_work_sync(&sqp->send_work);
	kfree(sqp);
}

/* _rvt_reset_qp() drops the QP's locks before calling it: may sleep. */
static void softib_qp_stop_send_queue(struct rvt_qp *qp)
{
	struct softib_qp *sqp = qp->priv;

	cancel_work_sync(&sqp->send_work);
}

/*
 * No wait lists, and packets will hold copies, not QP references: nothing
 * to flush, drain or forget on reset or error.
 */
static void softib_qp_nothing(struct rvt_qp *qp)
{
}

/* rc.c counts the retries down; the timer's schedule_send does the rest. */
static void softib_qp_notify_restart_rc(struct rvt_qp *qp, u32 psn, int wait)
{
}

static struct softib_port *softib_qp_port(struct rvt_dev_info *rdi,
					  struct rvt_qp *qp)
{
	u32 idx = qp->port_num ? qp->port_num - 1 : 0;

	return softib_hca_from_rdi(rdi)->hports[idx].port;
}

/* The path MTU a QP uses: the lesser of its attribute and the port's. */
static int softib_qp_get_pmtu_from_attr(struct rvt_dev_info *rdi,
					struct rvt_qp *qp,
					struct ib_qp_attr *attr)
{
	int port_mtu = READ_ONCE(softib_qp_port(rdi, qp)->neighbor_mtu);

	if (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096)
		return -EINVAL;
	return min_t(int, attr->path_mtu, port_mtu);
}

static u32 softib_qp_mtu_from_qp(struct rvt_dev_info *rdi, struct rvt_qp *qp,
				 u32 pmtu)
{
	return ib_mtu_enum_to_int(pmtu);
}

static int softib_qp_mtu_to_path_mtu(u32 mtu)
{
	return ib_mtu_int_to_enum(mtu);
}

/* QP0 and QP1 still in rdmavt's per-port slots. */
static unsigned int softib_qp_free_all_qps(struct rvt_dev_info *rdi)
{
	unsigned int n = 0;
	int p, i;

	for (p = 0; p < rdi->dparms.nports; p++)
		for (i = 0; i < ARRAY_SIZE(rdi->ports[p]->qp); i++)
			if (rcu_access_pointer(rdi->ports[p]->qp[i]))
				n++;
	return n;
}

void softib_qp_set_callbacks(struct rvt_driver_provided *f)
{
	f->schedule_send = softib_qp_queue_send;
	f->schedule_send_no_lock = softib_qp_queue_send;
	f->do_send = softib_qp_do_send;
	f->setup_wqe = softib_qp_setup_wqe;
	f->qp_priv_alloc = softib_qp_priv_alloc;
	f->qp_priv_free = softib_qp_priv_free;
	f->stop_send_queue = softib_qp_stop_send_queue;
	f->notify_qp_reset = softib_qp_nothing;
	f->flush_qp_waiters = softib_qp_nothing;
	f->quiesce_qp = softib_qp_nothing;
	f->notify_error_qp = softib_qp_nothing;
	f->notify_restart_rc = softib_qp_notify_restart_rc;
	f->get_pmtu_from_attr = softib_qp_get_pmtu_from_attr;
	f->mtu_from_qp = softib_qp_mtu_from_qp;
	f->mtu_to_path_mtu = softib_qp_mtu_to_path_mtu;
	f->free_all_qps = softib_qp_free_all_qps;
}
