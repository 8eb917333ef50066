// SPDX-License-Identifier: GPL-2.0
/*
 * verbs.c - the verbs resources: PD, CQs and the UD QPs (one per transmit
 * queue) live as long as the net_device, so the QPN in dev_addr is stable
 * across down/up (RFC 4391 s9.4); the QPs brought up and down with the
 * interface.
 */
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include "ipoib_ng.h"

/*
 * The UD QP's asynchronous events (review M5). The fatal ones mean the
 * QP is in ERR: restart. Any context.
 */
static void ipn_qp_event(struct ib_event *ev, void *ctx)
{
	struct ipn_priv *priv = ctx;

	switch (ev->event) {
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
		netdev_warn(priv->dev, "queue pair event: %s\n",
			    ib_event_msg(ev->event));
		ipn_qp_failed(priv);
		break;
	default:
		break;
	}
}

/* Every transmit queue's QP, CQ and ring (those made), last first. */
static void ipn_txqs_destroy(struct ipn_priv *priv)
{
	unsigned int q = priv->txq_count;

	while (q--) {
		struct ipn_txq *txq = &priv->txq[q];

		if (txq->qp)
			ib_destroy_qp(txq->qp);
		if (txq->cq)
			ib_destroy_cq(txq->cq);
		kvfree(txq->ring);
		txq->qp = NULL;
		txq->cq = NULL;
		txq->ring = NULL;
	}
}

/*
 * A transmit queue's ring, send CQ and UD QP. Queue 0's QP also receives
 * (priv->qp, its QPN in dev_addr); the others only send, and complete on
 * their own CQ (issue 23). On error the caller destroys what was made.
 */
static int ipn_txq_create(struct ipn_priv *priv, struct ipn_txq *txq)
{
	/* Their completions spread over the adapter's interrupts. */
	struct ib_cq_init_attr cq_attr = {
		.cqe = priv->tx_size,
		.comp_vector = txq->index %
			       max_t(u32, priv->ca->num_comp_vectors, 1),
	};
	struct ib_qp_init_attr qp_attr = {};

	txq->ring = kvcalloc(priv->tx_size, sizeof(*txq->ring), GFP_KERNEL);
	if (!txq->ring)
		return -ENOMEM;
	txq->cq = ib_create_cq(priv->ca, ipn_tx_comp, NULL, txq, &cq_attr);
	if (IS_ERR(txq->cq)) {
		int ret = PTR_ERR(txq->cq);

		txq->cq = NULL;
		return ret;
	}
	qp_attr.send_cq = txq->cq;
	qp_attr.recv_cq = priv->recv_cq;
	qp_attr.cap.max_send_wr = priv->tx_size;
	qp_attr.cap.max_send_sge = priv->max_sge;
	/* Queue 0 receives: head and page (rx.c). The others never post. */
	qp_attr.cap.max_recv_wr = txq->index ? 1 : priv->rx_size;
	qp_attr.cap.max_recv_sge = txq->index ? 1 : 2;
	/* UD sends ask for a completion per batch (tx.c). */
	qp_attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	qp_attr.qp_type = IB_QPT_UD;
	qp_attr.event_handler = ipn_qp_event;
	qp_attr.qp_context = priv;
	txq->qp = ib_create_qp(priv->pd, &qp_attr);
	if (IS_ERR(txq->qp)) {
		int ret = PTR_ERR(txq->qp);

		txq->qp = NULL;
		return ret;
	}
	return 0;
}

int ipn_verbs_create(struct ipn_priv *priv)
{
	struct ib_cq_init_attr cq_attr = {};
	struct ib_device *ca = priv->ca;
	unsigned int q;
	int ret;

	priv->pd = ib_alloc_pd(ca, 0);
	if (IS_ERR(priv->pd)) {
		ret = PTR_ERR(priv->pd);
		goto err;
	}

	cq_attr.cqe = priv->rx_size;
	priv->recv_cq = ib_create_cq(ca, ipn_rx_comp, NULL, priv, &cq_attr);
	if (IS_ERR(priv->recv_cq)) {
		ret = PTR_ERR(priv->recv_cq);
		goto err_pd;
	}

	priv->max_sge = min_t(int, ca->attrs.max_send_sge, IPN_MAX_TX_SGE);
	for (q = 0; q < priv->txq_count; q++) {
		ret = ipn_txq_create(priv, &priv->txq[q]);
		if (ret)
			goto err_txqs;
	}
	priv->qp = priv->txq[0].qp;
	priv->ifid.qpn = priv->qp->qp_num;
	/* Multicast they send comes back to priv->qp: the core knows it ours. */
	for (q = 1; q < priv->txq_count; q++)
		priv->ifid.send_qpn[q - 1] = priv->txq[q].qp->qp_num;
	priv->ifid.send_qpns = priv->txq_count - 1;
	/* ethtool -C's values survive a ring resize. */
	if (priv->ca->ops.modify_cq &&
	    (memchr_inv(priv->coalesce_usecs, 0, sizeof(priv->coalesce_usecs)) ||
	     memchr_inv(priv->coalesce_frames, 0, sizeof(priv->coalesce_frames))))
		ipn_cq_moderate(priv);
	return 0;

err_txqs:
	ipn_txqs_destroy(priv);
	ib_destroy_cq(priv->recv_cq);
err_pd:
	ib_dealloc_pd(priv->pd);
err:
	/* Review M6: nothing may follow these after a failed resize. */
	priv->qp = NULL;
	priv->recv_cq = NULL;
	priv->pd = NULL;
	return ret;
}

/* ethtool -C's values on the receive CQ and every send CQ. */
int ipn_cq_moderate(struct ipn_priv *priv)
{
	unsigned int q;
	int ret;

	ret = rdma_set_cq_moderation(priv->recv_cq, priv->coalesce_frames[0],
				     priv->coalesce_usecs[0]);
	for (q = 0; q < priv->txq_count && !ret; q++)
		ret = rdma_set_cq_moderation(priv->txq[q].cq,
					     priv->coalesce_frames[1],
					     priv->coalesce_usecs[1]);
	return ret;
}

void ipn_verbs_destroy(struct ipn_priv *priv)
{
	if (!priv->qp)
		return;		/* a failed ring resize left none */
	ipn_txqs_destroy(priv);
	ib_destroy_cq(priv->recv_cq);
	/*
	 * Review M2: a reap work already running may have spliced the list
	 * away and still be destroying handles of this PD: ipn_ah_reap()
	 * waits for it. Not flush_work(): the reap work can be queued on the
	 * ordered workqueue behind a control work that waits for ctl_mutex,
	 * which a ring resize holds here.
	 */
	ipn_ah_reap(priv, true);
	ib_dealloc_pd(priv->pd);
	priv->qp = NULL;
	priv->recv_cq = NULL;
	priv->pd = NULL;
}

/* One UD QP from RESET to RTS on the interface's P_Key index and Q_Key. */
static int ipn_qp_ready(struct ipn_priv *priv, struct ib_qp *qp, bool rts)
{
	struct ib_qp_attr attr = {};
	int ret;

	attr.qp_state = IB_QPS_INIT;
	attr.qkey = priv->qkey;
	attr.port_num = priv->port;
	attr.pkey_index = priv->pkey_index;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_QKEY);
	if (ret || !rts)
		return ret;
	attr.qp_state = IB_QPS_RTR;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE);
	if (ret)
		return ret;
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0;
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
}

/* Every UD QP to state (ERR or RESET); false if one refused. */
static bool ipn_qps_move(struct ipn_priv *priv, enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };
	bool ok = true;
	unsigned int q;

	for (q = 0; q < priv->txq_count; q++)
		if (ib_modify_qp(priv->txq[q].qp, &attr, IB_QP_STATE))
			ok = false;
	return ok;
}

/*
 * INIT -> RTR -> RTS for every transmit queue's QP, then the receive
 * ring. Control context.
 *
 * Without the interface's P_Key in the port's table the QPs stay in INIT
 * (review H5): priv->qp holds its receive buffers but receives nothing,
 * and sends fail, until ipn_qp_repkey() finds the P_Key and cycles them.
 * An RTS QP on another index would take another partition's datagrams,
 * or send into it: every queue's QP is on the same index.
 */
int ipn_qp_up(struct ipn_priv *priv)
{
	unsigned int q;
	bool pkey_ok;
	int ret = 0;

	pkey_ok = !ib_find_pkey(priv->ca, priv->port, priv->wire_pkey,
				&priv->pkey_index);
	if (!pkey_ok)
		priv->pkey_index = 0;
	priv->qp_rts = false;

	for (q = 0; q < priv->txq_count && !ret; q++)
		ret = ipn_qp_ready(priv, priv->txq[q].qp, pkey_ok);
	if (ret) {
		ipn_qps_move(priv, IB_QPS_RESET);
		return ret;
	}
	priv->qp_rts = pkey_ok;

	ret = ipn_rx_ring_init(priv);
	if (ret) {
		ipn_qp_down(priv);
		return ret;
	}
	return 0;
}

/*
 * The QPs to ERR flush every posted WR; reap the completions with NAPI
 * off, then RESET. Afterwards no slot of any ring is live.
 */
void ipn_qp_down(struct ipn_priv *priv)
{
	unsigned int q;

	if (!ipn_qps_move(priv, IB_QPS_ERR))
		netdev_warn(priv->dev, "failed to move a QP to ERR\n");
	for (q = 0; q < priv->txq_count; q++)
		ipn_tx_ring_drain(&priv->txq[q]);
	ipn_cm_reap(priv, true);	/* no slot points at one any more */
	ipn_rx_ring_free(priv);
	if (!ipn_qps_move(priv, IB_QPS_RESET))
		netdev_warn(priv->dev, "failed to reset a QP\n");
}
