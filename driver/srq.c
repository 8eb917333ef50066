// SPDX-License-Identifier: GPL-2.0
/*
 * srq.c - connected mode's receive side (RFC 4755 s3.3): the shared
 * receive queue every connection to us takes its buffers from (whole
 * pages from a page pool, IPC_CM_RX_MAX or what its SGEs hold), its CQ
 * and NAPI, and the frames received on it, checked by the core as UD
 * ones are. A frame's pages go to the stack as fragments and come back
 * to the pool; a small frame is copied and its buffer posted again.
 *
 * Locking as in cm.c: the connections to us are found by QP under RCU.
 */
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include IPN_PAGE_POOL_H
#include "ipoib_ng.h"

/* Pages [from, priv->cm_pages) of slot s, from the pool and mapped. */
static int ipn_srq_fill(struct ipn_priv *priv, struct ipn_srq_slot *s,
			unsigned int from, gfp_t gfp)
{
	unsigned int i;
	int ret;

	for (i = from; i < priv->cm_pages; i++) {
		ret = ipn_rx_page_map(priv, priv->cm_pool, gfp, &s->pages[i],
				      &s->mapping[i]);
		if (ret)
			return ret;
	}
	return 0;
}

static void ipn_srq_slot_free(struct ipn_priv *priv, struct ipn_srq_slot *s)
{
	unsigned int i;

	for (i = 0; i < priv->cm_pages; i++) {
		if (s->pages[i])
			ipn_rx_page_free(priv, priv->cm_pool, s->pages[i],
					 s->mapping[i]);
		s->pages[i] = NULL;
	}
}

static int ipn_srq_post(struct ipn_priv *priv, unsigned int i)
{
	struct ipn_srq_slot *s = &priv->srq_ring[i];
	struct ib_sge sge[IPN_CM_MAX_PAGES];
	struct ib_recv_wr wr = {
		.wr_id = i,
		.sg_list = sge,
		.num_sge = priv->cm_pages,
	};
	unsigned int k;

	for (k = 0; k < priv->cm_pages; k++) {
		sge[k].addr = s->mapping[k];
		sge[k].length = PAGE_SIZE;
		sge[k].lkey = priv->pd->local_dma_lkey;
	}
	return ib_post_srq_recv(priv->srq, &wr, NULL);
}

/*
 * Slot i back to the SRQ; a post that fails leaves the slot empty (only
 * an SRQ being destroyed refuses one).
 */
static void ipn_srq_repost(struct ipn_priv *priv, unsigned int i)
{
	struct ipn_srq_slot *s = &priv->srq_ring[i];

	if (s->posted && ipn_srq_post(priv, i)) {
		ipn_srq_slot_free(priv, s);
		s->posted = false;
	}
}

/* The connection a receive came on: by QP, without touching the QP. */
static struct ipn_cm_rx *ipn_cm_rx_find(struct ipn_priv *priv,
					const struct ib_qp *qp)
{
	struct ipn_cm_rx *rx;

	hash_for_each_possible_rcu(priv->cm_rx_qps, rx, qp_node,
				   hash_ptr(qp, 32))
		if (rx->qp == qp)
			return rx;
	return NULL;
}

static void ipn_cm_rx_one(struct ipn_priv *priv, struct ib_wc *wc)
{
	unsigned int i = wc->wr_id & (priv->srq_size - 1);
	struct ipn_srq_slot *s = &priv->srq_ring[i];
	struct ipn_srq_slot fresh;
	unsigned int n, k, len = wc->byte_len;
	struct ipc_rx_verdict v;
	struct ipn_cm_rx *rx;
	struct sk_buff *skb;
	u8 peer[IPC_ADDR_LEN];
	int reason;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		if (wc->status != IB_WC_WR_FLUSH_ERR) {
			netdev_dbg(priv->dev, "cm rx completion error %d\n",
				   wc->status);
			ipn_inc(priv, rx_errors);
		}
		goto repost;
	}
	rcu_read_lock();
	rx = ipn_cm_rx_find(priv, wc->qp);
	if (rx) {
		memcpy(peer, rx->peer, sizeof(peer));
		WRITE_ONCE(rx->last_rx_ms, ipn_now_ms());
		/* This NAPI context: the one writer; netlink reads it. */
		WRITE_ONCE(rx->frames, rx->frames + 1);
	}
	rcu_read_unlock();
	if (unlikely(!rx || !len || len > priv->cm_pages * PAGE_SIZE)) {
		ipn_inc(priv, rx_errors);
		goto repost;
	}
	if (len <= IPN_CM_COPYBREAK) {
		/*
		 * A small frame (TCP's ACKs): copied out, and the slot goes
		 * back with its page, which no allocation (zeroed under
		 * init_on_alloc) replaces (performance review s2.4).
		 */
		skb = ipn_rx_skb(priv, &priv->cm_napi, IPN_PSEUDO_LEN + len);
		if (unlikely(!skb)) {
			ipn_rx_alloc_failed(priv);
			goto repost;
		}
		skb_reserve(skb, IPN_PSEUDO_LEN);
		ib_dma_sync_single_for_cpu(priv->ca, s->mapping[0], len,
					   DMA_FROM_DEVICE);
		skb_put_data(skb, page_address(s->pages[0]), len);
		ib_dma_sync_single_for_device(priv->ca, s->mapping[0], len,
					      DMA_FROM_DEVICE);
		ipn_srq_repost(priv, i);
		goto deliver;
	}
	/* Fresh pages for those the frame used; short: drop, keep the old. */
	n = DIV_ROUND_UP(len, PAGE_SIZE);
	memset(&fresh, 0, sizeof(fresh));
	if (unlikely(ipn_srq_fill(priv, &fresh, priv->cm_pages - n,
				  GFP_ATOMIC))) {
		ipn_srq_slot_free(priv, &fresh);
		ipn_rx_alloc_failed(priv);
		goto repost;
	}
	skb = ipn_rx_skb(priv, &priv->cm_napi, IPN_PSEUDO_LEN + IPN_CM_HEAD);
	if (unlikely(!skb)) {
		ipn_srq_slot_free(priv, &fresh);
		ipn_rx_alloc_failed(priv);
		goto repost;
	}
	skb_reserve(skb, IPN_PSEUDO_LEN);
	for (k = 0; k < n; k++) {
		ib_dma_unmap_page(priv->ca, s->mapping[k], PAGE_SIZE,
				  DMA_FROM_DEVICE);
		skb_add_rx_frag(skb, k, s->pages[k], 0,
				min_t(unsigned int, PAGE_SIZE,
				      len - k * PAGE_SIZE), PAGE_SIZE);
		s->pages[k] = fresh.pages[priv->cm_pages - n + k];
		s->mapping[k] = fresh.mapping[priv->cm_pages - n + k];
	}
	/* The stack gives the pages back to cm_pool when it frees skb. */
	skb_mark_for_recycle(skb);
	ipn_srq_repost(priv, i);
deliver:
	if (unlikely(!pskb_may_pull(skb, min_t(u32, len, IPN_CM_HEAD)))) {
		ipn_drop(priv, skb, IPC_R_TRUNCATED, false);
		return;
	}
	reason = ipc_rx_classify(&priv->ifid, ipn_addr_gid(peer),
				 priv->ifid.gid, ipn_addr_qpn(peer), skb->data,
				 skb_headlen(skb), &v);
	/*
	 * The core reads past the head only for a frame whose headers or
	 * ARP/ND payload go on in the pages (rare): all of it, again.
	 */
	if (unlikely(reason == IPC_R_TRUNCATED &&
		     skb_headlen(skb) < skb->len) &&
	    pskb_may_pull(skb, skb->len))
		reason = ipc_rx_classify(&priv->ifid, ipn_addr_gid(peer),
					 priv->ifid.gid, ipn_addr_qpn(peer),
					 skb->data, skb->len, &v);
	if (unlikely(reason != IPC_R_OK)) {
		ipn_drop(priv, skb, reason, false);
		return;
	}
	ipn_rx_set_header(priv, skb, &v);
	ipn_inc(priv, rx_packets);
	ipn_inc(priv, cm_rx_packets);
	ipn_add(priv, rx_bytes, skb->len);
	napi_gro_receive(&priv->cm_napi, skb);
	return;

repost:
	ipn_srq_repost(priv, i);
}

int ipn_cm_rx_poll(struct napi_struct *napi, int budget)
{
	struct ipn_priv *priv = container_of(napi, struct ipn_priv, cm_napi);
	struct ib_wc *wc = priv->cm_wc;
	int done = 0, n, i;

	while (done < budget) {
		n = ib_poll_cq(priv->cm_rcq,
			       min_t(int, IPN_WC_BATCH, budget - done), wc);
		for (i = 0; i < n; i++)
			ipn_cm_rx_one(priv, &wc[i]);
		done += max(n, 0);
		if (n < IPN_WC_BATCH)
			break;
	}
	if (done < budget && napi_complete_done(napi, done) &&
	    ib_req_notify_cq(priv->cm_rcq, IB_CQ_NEXT_COMP |
			     IB_CQ_REPORT_MISSED_EVENTS) > 0)
		napi_schedule(napi);
	return done;
}

static void ipn_cm_rx_comp(struct ib_cq *cq, void *ctx)
{
	struct ipn_priv *priv = ctx;

	napi_schedule(&priv->cm_napi);
}

static void ipn_srq_ring_free(struct ipn_priv *priv)
{
	unsigned int i;

	if (!priv->srq_ring)
		return;
	for (i = 0; i < priv->srq_size; i++)
		ipn_srq_slot_free(priv, &priv->srq_ring[i]);
	kvfree(priv->srq_ring);
	priv->srq_ring = NULL;
}

void ipn_cm_verbs_destroy(struct ipn_priv *priv)
{
	if (priv->srq) {
		ib_destroy_srq(priv->srq);
		priv->srq = NULL;
	}
	ipn_srq_ring_free(priv);
	/* Pages still in skbs come back to the pool later; it waits. */
	if (priv->cm_pool)
		page_pool_destroy(priv->cm_pool);
	priv->cm_pool = NULL;
	if (priv->cm_rcq) {
		ib_destroy_cq(priv->cm_rcq);
		priv->cm_rcq = NULL;
	}
}

/* CQ, SRQ and its buffers. */
int ipn_cm_verbs_create(struct ipn_priv *priv)
{
	struct page_pool_params pp = {
		.nid = NUMA_NO_NODE,
		.dma_dir = DMA_FROM_DEVICE,
	};
	struct ib_srq_init_attr sa = {};
	struct ib_cq_init_attr ca = {};
	unsigned int i, pages;
	int ret;

	pages = min3(DIV_ROUND_UP(IPC_CM_RX_MAX, PAGE_SIZE),
		     (unsigned long)priv->ca->attrs.max_srq_sge,
		     (unsigned long)IPN_CM_MAX_PAGES);
	priv->cm_pages = pages;
	priv->cm_frame_max = min_t(u32, IPC_CM_RX_MAX, pages * PAGE_SIZE);
	priv->srq_size = min_t(unsigned int, priv->rx_size, IPN_CM_SRQ_MAX);

	ca.cqe = priv->srq_size;
	priv->cm_rcq = ib_create_cq(priv->ca, ipn_cm_rx_comp, NULL, priv, &ca);
	if (IS_ERR(priv->cm_rcq)) {
		ret = PTR_ERR(priv->cm_rcq);
		priv->cm_rcq = NULL;
		return ret;
	}
	sa.attr.max_wr = priv->srq_size;
	sa.attr.max_sge = pages;
	sa.srq_type = IB_SRQT_BASIC;
	priv->srq = ib_create_srq(priv->pd, &sa);
	if (IS_ERR(priv->srq)) {
		ret = PTR_ERR(priv->srq);
		priv->srq = NULL;
		goto err;
	}
	priv->srq_ring = kvcalloc(priv->srq_size, sizeof(*priv->srq_ring),
				  GFP_KERNEL);
	if (!priv->srq_ring) {
		ret = -ENOMEM;
		goto err;
	}
	pp.pool_size = min(priv->srq_size * pages, IPN_CM_POOL_MAX);
	priv->cm_pool = page_pool_create(&pp);
	if (IS_ERR(priv->cm_pool)) {
		ret = PTR_ERR(priv->cm_pool);
		priv->cm_pool = NULL;
		goto err;
	}
	for (i = 0; i < priv->srq_size; i++) {
		ret = ipn_srq_fill(priv, &priv->srq_ring[i], 0, GFP_KERNEL);
		if (!ret)
			ret = ipn_srq_post(priv, i);
		if (ret)
			goto err;
		priv->srq_ring[i].posted = true;
	}
	return 0;
err:
	ipn_cm_verbs_destroy(priv);
	return ret;
}
