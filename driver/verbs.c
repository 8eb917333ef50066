// SPDX-License-Identifier: GPL-2.0
/*
 * verbs.c - the verbs resources: PD, CQs and the UD QP live as long as
 * the net_device, so the QPN in dev_addr is stable across down/up (RFC
 * 4391 s9.4); the QP brought up and down with the interface.
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

int ipn_verbs_create(struct ipn_priv *priv)
{
	struct ib_cq_init_attr cq_attr = {};
	struct ib_qp_init_attr qp_attr = {};
	struct ib_device *ca = priv->ca;
	int ret;

	priv->tx_ring = kvcalloc(priv->tx_size, sizeof(*priv->tx_ring),
				 GFP_KERNEL);
	if (!priv->tx_ring)
		return -ENOMEM;
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
	cq_attr.cqe = priv->tx_size;
	priv->send_cq = ib_create_cq(ca, ipn_tx_comp, NULL, priv, &cq_attr);
	if (IS_ERR(priv->send_cq)) {
		ret = PTR_ERR(priv->send_cq);
		goto err_rcq;
	}

	priv->max_sge = min_t(int, ca->attrs.max_send_sge, IPN_MAX_TX_SGE);
	qp_attr.send_cq = priv->send_cq;
	qp_attr.recv_cq = priv->recv_cq;
	qp_attr.cap.max_send_wr = priv->tx_size;
	qp_attr.cap.max_recv_wr = priv->rx_size;
	qp_attr.cap.max_send_sge = priv->max_sge;
	qp_attr.cap.max_recv_sge = 2;	/* head and page (rx.c) */
	/* UD sends ask for a completion per batch (tx.c). */
	qp_attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	qp_attr.qp_type = IB_QPT_UD;
	qp_attr.event_handler = ipn_qp_event;
	qp_attr.qp_context = priv;
	priv->qp = ib_create_qp(priv->pd, &qp_attr);
	if (IS_ERR(priv->qp)) {
		ret = PTR_ERR(priv->qp);
		goto err_scq;
	}
	priv->ifid.qpn = priv->qp->qp_num;
	/* ethtool -C's values survive a ring resize. */
	if (priv->ca->ops.modify_cq &&
	    (memchr_inv(priv->coalesce_usecs, 0, sizeof(priv->coalesce_usecs)) ||
	     memchr_inv(priv->coalesce_frames, 0, sizeof(priv->coalesce_frames))))
		ipn_cq_moderate(priv);
	return 0;

err_scq:
	ib_destroy_cq(priv->send_cq);
err_rcq:
	ib_destroy_cq(priv->recv_cq);
err_pd:
	ib_dealloc_pd(priv->pd);
err:
	kvfree(priv->tx_ring);
	priv->tx_ring = NULL;
	/* Review M6: nothing may follow these after a failed resize. */
	priv->qp = NULL;
	priv->send_cq = NULL;
	priv->recv_cq = NULL;
	priv->pd = NULL;
	return ret;
}

/* ethtool -C's values on both CQs. */
int ipn_cq_moderate(struct ipn_priv *priv)
{
	int ret;

	ret = rdma_set_cq_moderation(priv->recv_cq, priv->coalesce_frames[0],
				     priv->coalesce_usecs[0]);
	if (!ret)
		ret = rdma_set_cq_moderation(priv->send_cq,
					     priv->coalesce_frames[1],
					     priv->coalesce_usecs[1]);
	return ret;
}

void ipn_verbs_destroy(struct ipn_priv *priv)
{
	if (!priv->qp)
		return;		/* a failed ring resize left none */
	ib_destroy_qp(priv->qp);
	ib_destroy_cq(priv->send_cq);
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
	kvfree(priv->tx_ring);
	priv->tx_ring = NULL;
	priv->qp = NULL;
	priv->send_cq = NULL;
	priv->recv_cq = NULL;
	priv->pd = NULL;
}

/*
 * INIT -> RTR -> RTS, then the receive ring. Control context.
 *
 * Without the interface's P_Key in the port's table the QP stays in INIT
 * (review H5): it holds its receive buffers but receives nothing, and
 * sends fail, until ipn_qp_repkey() finds the P_Key and cycles it. An
 * RTS QP on another index would take another partition's datagrams.
 */
int ipn_qp_up(struct ipn_priv *priv)
{
	struct ib_qp_attr attr = {};
	bool pkey_ok;
	int ret;

	pkey_ok = !ib_find_pkey(priv->ca, priv->port, priv->wire_pkey,
				&priv->pkey_index);
	if (!pkey_ok)
		priv->pkey_index = 0;
	priv->qp_rts = false;

	attr.qp_state = IB_QPS_INIT;
	attr.qkey = priv->qkey;
	attr.port_num = priv->port;
	attr.pkey_index = priv->pkey_index;
	ret = ib_modify_qp(priv->qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_QKEY);
	if (ret)
		goto err;
	if (pkey_ok) {
		attr.qp_state = IB_QPS_RTR;
		ret = ib_modify_qp(priv->qp, &attr, IB_QP_STATE);
		if (ret)
			goto err;
		attr.qp_state = IB_QPS_RTS;
		attr.sq_psn = 0;
		ret = ib_modify_qp(priv->qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
		if (ret)
			goto err;
		priv->qp_rts = true;
	}

	ret = ipn_rx_ring_init(priv);
	if (ret) {
		ipn_qp_down(priv);
		return ret;
	}
	return 0;
err:
	attr.qp_state = IB_QPS_RESET;
	ib_modify_qp(priv->qp, &attr, IB_QP_STATE);
	return ret;
}

/*
 * QP to ERR flushes every posted WR; reap the completions with NAPI off,
 * then RESET. Afterwards no slot of either ring is live.
 */
void ipn_qp_down(struct ipn_priv *priv)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	if (ib_modify_qp(priv->qp, &attr, IB_QP_STATE))
		netdev_warn(priv->dev, "failed to move the QP to ERR\n");
	ipn_tx_ring_drain(priv);
	ipn_cm_reap(priv, true);	/* no slot points at one any more */
	ipn_rx_ring_free(priv);
	attr.qp_state = IB_QPS_RESET;
	if (ib_modify_qp(priv->qp, &attr, IB_QP_STATE))
		netdev_warn(priv->dev, "failed to reset the QP\n");
}
