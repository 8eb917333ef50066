// SPDX-License-Identifier: GPL-2.0
/*
 * rx.c - the receive ring and RX NAPI.
 *
 * Every receive has two SGEs: a head of IPN_RX_HEAD bytes (16 of them in
 * a page mapped once for the ring) and a page from the ring's page pool.
 * The device writes the 40-byte GRH area (RoCE: the IP header) and then
 * the datagram across them. A frame that fits the head (an ACK, a ping,
 * ARP, a small datagram) is copied out of it into a small skb, and both
 * SGEs go back to the device as they were. A larger one gets its head
 * copied likewise and the page attached as a fragment; the stack gives
 * the page back to the pool when it frees the skb, and the slot takes a
 * recycled one. So no received frame costs a page allocation, a zeroed
 * buffer (init_on_alloc) or 8 KiB of socket memory, as a fresh 4 KiB skb
 * each did (issue 23, performance review s6 item 1).
 */
#include <linux/slab.h>
#include IPN_PAGE_POOL_H
#include "ipoib_ng.h"

#define IPN_RX_HEADS_PER_PAGE (PAGE_SIZE / IPN_RX_HEAD)
static_assert(IPN_RX_HEAD + PAGE_SIZE >= IPN_RX_BUF);
static_assert(IB_GRH_BYTES + IPC_HDR_LEN <= IPN_RX_HEAD);

static void *ipn_rx_head(struct ipn_priv *priv, unsigned int i)
{
	return page_address(priv->rx_head_pages[i / IPN_RX_HEADS_PER_PAGE]) +
	       (i % IPN_RX_HEADS_PER_PAGE) * IPN_RX_HEAD;
}

static u64 ipn_rx_head_addr(struct ipn_priv *priv, unsigned int i)
{
	return priv->rx_head_addr[i / IPN_RX_HEADS_PER_PAGE] +
	       (i % IPN_RX_HEADS_PER_PAGE) * IPN_RX_HEAD;
}

/*
 * A page for the device to write, from pool (NULL: the page allocator),
 * mapped. ipn_rx_page_free() undoes it.
 */
int ipn_rx_page_map(struct ipn_priv *priv, struct page_pool *pool, gfp_t gfp,
		    struct page **page, u64 *addr)
{
	if (ipn_kunit_rx_alloc_fails(priv))
		*page = NULL;
	else
		*page = pool ? page_pool_alloc_pages(pool, gfp) :
			       alloc_page(gfp);
	if (!*page)
		return -ENOMEM;
	*addr = ib_dma_map_page(priv->ca, *page, 0, PAGE_SIZE,
				DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(priv->ca, *addr)) {
		ipn_rx_page_free(priv, pool, *page, 0);
		*page = NULL;
		return -EIO;
	}
	return 0;
}

/* Unmap page (addr 0: it is not mapped) and give it back. */
void ipn_rx_page_free(struct ipn_priv *priv, struct page_pool *pool,
		      struct page *page, u64 addr)
{
	if (addr)
		ib_dma_unmap_page(priv->ca, addr, PAGE_SIZE, DMA_FROM_DEVICE);
	if (pool)
		page_pool_put_full_page(pool, page, false);
	else
		__free_page(page);
}

/*
 * A received frame dropped for want of an skb or a page to replace the
 * one it used (the slot goes back as it was): rx_dropped, and qstats'
 * rx-alloc-fail. UD's ring and connected mode's SRQ alike.
 */
void ipn_rx_alloc_failed(struct ipn_priv *priv)
{
	ipn_inc(priv, rx_dropped);
	ipn_inc(priv, rx_alloc_fail);
}

/* A page from the pool for slot's SGE 1, mapped for the device. */
static int ipn_rx_page(struct ipn_priv *priv, struct ipn_rx_slot *slot,
		       gfp_t gfp)
{
	return ipn_rx_page_map(priv, priv->rx_pool, gfp, &slot->page,
			       &slot->page_addr);
}

static void ipn_rx_page_unmap(struct ipn_priv *priv, struct ipn_rx_slot *slot)
{
	ib_dma_unmap_page(priv->ca, slot->page_addr, PAGE_SIZE,
			  DMA_FROM_DEVICE);
}

static int ipn_rx_post(struct ipn_priv *priv, unsigned int i)
{
	struct ipn_rx_slot *slot = &priv->rx_ring[i];
	struct ib_sge sge[2] = {
		{
			.addr = ipn_rx_head_addr(priv, i),
			.length = IPN_RX_HEAD,
			.lkey = priv->pd->local_dma_lkey,
		}, {
			.addr = slot->page_addr,
			.length = PAGE_SIZE,
			.lkey = priv->pd->local_dma_lkey,
		},
	};
	struct ib_recv_wr wr = {
		.wr_id = i,
		.sg_list = sge,
		.num_sge = ARRAY_SIZE(sge),
	};
	int ret;

	if (ipn_kunit_rx_post_fails(priv))
		return -EIO;
	ib_dma_sync_single_for_device(priv->ca, sge[0].addr, IPN_RX_HEAD,
				      DMA_FROM_DEVICE);
	ret = ib_post_recv(priv->qp, &wr, NULL);
	if (!ret)
		slot->posted = true;
	return ret;
}

int ipn_rx_ring_init(struct ipn_priv *priv)
{
	unsigned int i, heads = DIV_ROUND_UP(priv->rx_size,
					    IPN_RX_HEADS_PER_PAGE);
	struct page_pool_params pp = {
		.pool_size = priv->rx_size,
		.nid = NUMA_NO_NODE,
		.dma_dir = DMA_FROM_DEVICE,
	};
	int ret;

	/* On failure the caller flushes the QP and ipn_rx_ring_free()s. */
	priv->rx_ring = kcalloc(priv->rx_size, sizeof(*priv->rx_ring),
				GFP_KERNEL);
	priv->rx_head_pages = kcalloc(heads, sizeof(*priv->rx_head_pages),
				      GFP_KERNEL);
	priv->rx_head_addr = kcalloc(heads, sizeof(*priv->rx_head_addr),
				     GFP_KERNEL);
	if (!priv->rx_ring || !priv->rx_head_pages || !priv->rx_head_addr)
		return -ENOMEM;
	priv->rx_heads = heads;
	for (i = 0; i < heads; i++) {
		ret = ipn_rx_page_map(priv, NULL, GFP_KERNEL,
				      &priv->rx_head_pages[i],
				      &priv->rx_head_addr[i]);
		if (ret)
			return ret;
	}
	priv->rx_pool = page_pool_create(&pp);
	if (IS_ERR(priv->rx_pool)) {
		ret = PTR_ERR(priv->rx_pool);
		priv->rx_pool = NULL;
		return ret;
	}
	for (i = 0; i < priv->rx_size; i++) {
		ret = ipn_rx_page(priv, &priv->rx_ring[i], GFP_KERNEL);
		if (!ret)
			ret = ipn_rx_post(priv, i);
		if (ret) {
			netdev_warn(priv->dev, "cannot post receive buffer %u: %d\n",
				    i, ret);
			return ret;
		}
	}
	return 0;
}

/*
 * How to read the GRH area: the completion says, or on RoCEv2 the IP
 * version in the header does. -1: unreadable, no sender address.
 */
static int ipn_rx_net_type(struct ipn_priv *priv, const struct ib_wc *wc,
			   const u8 *grh)
{
	if (wc->wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE)
		return wc->network_hdr_type;
	if (!priv->roce)
		return RDMA_NETWORK_IB;
	switch (ib_get_rdma_header_version((const void *)grh)) {
	case 4:
		return RDMA_NETWORK_IPV4;
	case 6:
		return RDMA_NETWORK_IPV6;
	default:
		return -1;
	}
}

/*
 * One received datagram: skb holds the GRH area and the datagram (wc's
 * byte_len), at least the GRH area in its linear part. Returns it ready
 * for the stack (sender's address as the hardware header, protocol,
 * pkt_type, RFC 4391 s6/s9.1.1), or NULL when it was dropped and
 * counted.
 */
IPN_TESTABLE struct sk_buff *ipn_rx_frame(struct ipn_priv *priv,
					  struct sk_buff *skb,
					  const struct ib_wc *wc)
{
	const u8 *sgid = NULL, *dgid = NULL;
	struct ipc_rx_verdict v;
	union ib_gid s, d;
	int reason;

	if (unlikely(skb->len < IB_GRH_BYTES)) {
		ipn_drop(priv, skb, IPC_R_TRUNCATED, false);
		return NULL;
	}
	if (wc->wc_flags & IB_WC_GRH) {
		int nt = ipn_rx_net_type(priv, wc, skb->data);

		if (nt >= 0 &&
		    !ib_get_gids_from_rdma_hdr((void *)skb->data, nt, &s, &d)) {
			sgid = s.raw;
			dgid = d.raw;
		}
	}
	skb_pull(skb, IB_GRH_BYTES);

	reason = ipc_rx_classify(&priv->ifid, sgid, dgid, wc->src_qp,
				 skb->data, skb_headlen(skb), &v);
	/*
	 * The core reads past the head only for a frame whose ARP/ND
	 * payload goes on in the page (rare): all of it, again.
	 */
	if (unlikely(reason == IPC_R_TRUNCATED &&
		     skb_headlen(skb) < skb->len) &&
	    pskb_may_pull(skb, skb->len))
		reason = ipc_rx_classify(&priv->ifid, sgid, dgid, wc->src_qp,
					 skb->data, skb->len, &v);
	if (unlikely(reason != IPC_R_OK)) {
		if (reason == IPC_R_LOOPBACK) {
			/* Our own multicast: expected, not an error. */
			ipn_inc(priv, drop[IPC_R_LOOPBACK]);
			dev_consume_skb_any(skb);
			return NULL;
		}
		ipn_drop(priv, skb, reason, false);
		return NULL;
	}

	/* The GIDs were copied out: the GRH area may now be overwritten. */
	ipn_rx_set_header(priv, skb, &v);
	/* The adapter checked the IPv4/TCP/UDP checksums (offload on). */
	if ((wc->wc_flags & IB_WC_IP_CSUM_OK) &&
	    (priv->dev->features & NETIF_F_RXCSUM))
		skb->ip_summed = CHECKSUM_UNNECESSARY;
	return skb;
}

/*
 * skb->data at the IPoIB header, IPN_PSEUDO_LEN bytes of headroom: the
 * sender's address goes in front as the hardware header, then protocol
 * and pkt_type for the stack (RFC 4391 s6, s9.1.1).
 */
void ipn_rx_set_header(struct ipn_priv *priv, struct sk_buff *skb,
		       const struct ipc_rx_verdict *v)
{
	u8 *h = skb_push(skb, IPN_PSEUDO_LEN);

	if (v->has_src)
		memcpy(h, v->src_addr, IPN_PSEUDO_LEN);
	else
		memset(h, 0, IPN_PSEUDO_LEN);
	skb_reset_mac_header(skb);
	skb_pull(skb, IPN_HARD_LEN);
	skb->protocol = htons(v->ethertype);
	switch (v->pkt_type) {
	case IPC_PKT_BROADCAST:
		skb->pkt_type = PACKET_BROADCAST;
		break;
	case IPC_PKT_MULTICAST:
		skb->pkt_type = PACKET_MULTICAST;
		ipn_inc(priv, multicast);
		break;
	case IPC_PKT_OTHERHOST:
		skb->pkt_type = PACKET_OTHERHOST;
		break;
	default:
		skb->pkt_type = PACKET_HOST;
		break;
	}
	skb->dev = priv->dev;
}

static void ipn_rx_one(struct ipn_priv *priv, struct ib_wc *wc, bool drain)
{
	unsigned int i = wc->wr_id & (priv->rx_size - 1);
	struct ipn_rx_slot *slot = &priv->rx_ring[i];
	unsigned int len = wc->byte_len;
	struct ipn_rx_slot fresh;
	struct sk_buff *skb;

	if (unlikely(!slot->posted))
		return;
	slot->posted = false;
	if (unlikely(wc->status != IB_WC_SUCCESS || drain)) {
		if (wc->status != IB_WC_WR_FLUSH_ERR && !drain) {
			netdev_dbg(priv->dev, "rx completion error %d\n",
				   wc->status);
			ipn_inc(priv, rx_errors);
		}
		/*
		 * An error or a flush outside a drain: the QP is in ERR
		 * (review M5). Its buffers come back flushed; the slot keeps
		 * its page, the restart frees the ring and posts a new one.
		 */
		if (!drain)
			ipn_qp_failed(priv);
		return;
	}

	/*
	 * A new skb, and for a frame longer than the head a page for the
	 * slot, before anything is handed on: short of either, the frame
	 * is dropped and the slot goes back as it was.
	 */
	skb = NULL;
	if (unlikely(len > IPN_RX_BUF)) {	/* more than the SGEs hold */
		ipn_inc(priv, rx_errors);
		goto repost;
	}
	ib_dma_sync_single_for_cpu(priv->ca, ipn_rx_head_addr(priv, i),
				   IPN_RX_HEAD, DMA_FROM_DEVICE);
	skb = ipn_rx_skb(priv, &priv->rx_napi,
			 min_t(unsigned int, len, IPN_RX_HEAD));
	if (unlikely(!skb)) {
		ipn_rx_alloc_failed(priv);
		goto repost;
	}
	if (len <= IPN_RX_HEAD) {
		skb_put_data(skb, ipn_rx_head(priv, i), len);
		goto repost;
	}
	if (unlikely(ipn_rx_page(priv, &fresh, GFP_ATOMIC))) {
		dev_kfree_skb_any(skb);
		ipn_rx_alloc_failed(priv);
		skb = NULL;
		goto repost;
	}
	skb_put_data(skb, ipn_rx_head(priv, i), IPN_RX_HEAD);
	ipn_rx_page_unmap(priv, slot);
	skb_add_rx_frag(skb, 0, slot->page, 0, len - IPN_RX_HEAD, PAGE_SIZE);
	skb_mark_for_recycle(skb);
	slot->page = fresh.page;
	slot->page_addr = fresh.page_addr;

repost:
	/*
	 * A post that fails leaves the ring a slot short for good: only a
	 * QP that is not in RTS refuses one, so restart (review M5).
	 */
	if (unlikely(ipn_rx_post(priv, i)))
		ipn_qp_failed(priv);
	if (!skb)
		return;
	skb = ipn_rx_frame(priv, skb, wc);
	if (!skb)
		return;
	ipn_inc(priv, rx_packets);
	ipn_add(priv, rx_bytes, skb->len);
	napi_gro_receive(&priv->rx_napi, skb);
}

int ipn_rx_poll(struct napi_struct *napi, int budget)
{
	struct ipn_priv *priv = container_of(napi, struct ipn_priv, rx_napi);
	struct ib_wc *wc = priv->rx_wc;
	int done = 0, n, i;

	while (done < budget) {
		n = ib_poll_cq(priv->recv_cq,
			       min_t(int, IPN_WC_BATCH, budget - done), wc);
		for (i = 0; i < n; i++)
			ipn_rx_one(priv, &wc[i], false);
		done += max(n, 0);
		if (n < IPN_WC_BATCH)
			break;
	}
	if (done < budget && napi_complete_done(napi, done) &&
	    ib_req_notify_cq(priv->recv_cq, IB_CQ_NEXT_COMP |
			     IB_CQ_REPORT_MISSED_EVENTS) > 0)
		napi_schedule(napi);
	return done;
}

void ipn_rx_comp(struct ib_cq *cq, void *ctx)
{
	struct ipn_priv *priv = ctx;

	napi_schedule(&priv->rx_napi);
}

/*
 * After the QP went to ERR: reap the flushed buffers (NAPI is off), then
 * free whatever the device never returned, the pool and the heads. Also
 * undoes a ring_init that stopped half-way.
 */
void ipn_rx_ring_free(struct ipn_priv *priv)
{
	unsigned long end = jiffies + 5 * HZ;
	struct ib_wc *wc = priv->rx_wc;
	unsigned int i, live;
	int n, k;

	if (priv->rx_ring) {
		do {
			while ((n = ib_poll_cq(priv->recv_cq, IPN_WC_BATCH,
					       wc)) > 0)
				for (k = 0; k < n; k++)
					ipn_rx_one(priv, &wc[k], true);
			live = 0;
			for (i = 0; i < priv->rx_size; i++)
				live += priv->rx_ring[i].posted;
			if (!live)
				break;
			usleep_range(1000, 2000);
		} while (time_before(jiffies, end));

		for (i = 0; i < priv->rx_size; i++) {
			struct ipn_rx_slot *slot = &priv->rx_ring[i];

			if (!slot->page)
				continue;
			ipn_rx_page_free(priv, priv->rx_pool, slot->page,
					 slot->page_addr);
			slot->page = NULL;
			slot->posted = false;
		}
		kfree(priv->rx_ring);
		priv->rx_ring = NULL;
	}
	/* Pages still in skbs come back to the pool later; it waits. */
	if (priv->rx_pool)
		page_pool_destroy(priv->rx_pool);
	priv->rx_pool = NULL;
	for (i = 0; priv->rx_head_pages && i < priv->rx_heads; i++) {
		if (priv->rx_head_pages[i])
			ipn_rx_page_free(priv, NULL, priv->rx_head_pages[i],
					 priv->rx_head_addr[i]);
	}
	kfree(priv->rx_head_pages);
	kfree(priv->rx_head_addr);
	priv->rx_head_pages = NULL;
	priv->rx_head_addr = NULL;
	priv->rx_heads = 0;
}
