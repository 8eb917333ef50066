// SPDX-License-Identifier: GPL-2.0
/*
 * rx.c - the receive ring and RX NAPI.
 *
 * Each buffer holds the 40-byte GRH area (RoCE: the IP header) followed
 * by the datagram; IPN_RX_RESERVE bytes of headroom let the 20-byte
 * pseudo header (the sender's address) be written in front of the IPoIB
 * header once the GIDs have been read out of the GRH area.
 */
#include <linux/slab.h>
#include "ipoib_ng.h"

static int ipn_rx_alloc(struct ipn_priv *priv, struct ipn_rx_slot *slot,
			gfp_t gfp)
{
	struct sk_buff *skb;
	u64 addr;

	skb = __netdev_alloc_skb(priv->dev, IPN_RX_BUF + IPN_RX_RESERVE, gfp);
	if (!skb)
		return -ENOMEM;
	skb_reserve(skb, IPN_RX_RESERVE);
	addr = ib_dma_map_single(priv->ca, skb->data, IPN_RX_BUF,
				 DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(priv->ca, addr)) {
		dev_kfree_skb_any(skb);
		return -EIO;
	}
	slot->skb = skb;
	slot->mapping = addr;
	return 0;
}

static int ipn_rx_post(struct ipn_priv *priv, unsigned int i)
{
	struct ipn_rx_slot *slot = &priv->rx_ring[i];
	struct ib_sge sge = {
		.addr = slot->mapping,
		.length = IPN_RX_BUF,
		.lkey = priv->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_id = i,
		.sg_list = &sge,
		.num_sge = 1,
	};

	if (ipn_kunit_rx_post_fails(priv))
		return -EIO;
	return ib_post_recv(priv->qp, &wr, NULL);
}

static void ipn_rx_unmap(struct ipn_priv *priv, struct ipn_rx_slot *slot)
{
	ib_dma_unmap_single(priv->ca, slot->mapping, IPN_RX_BUF,
			    DMA_FROM_DEVICE);
}

int ipn_rx_ring_init(struct ipn_priv *priv)
{
	unsigned int i;
	int ret;

	priv->rx_ring = kcalloc(priv->rx_size, sizeof(*priv->rx_ring),
				GFP_KERNEL);
	if (!priv->rx_ring)
		return -ENOMEM;
	for (i = 0; i < priv->rx_size; i++) {
		ret = ipn_rx_alloc(priv, &priv->rx_ring[i], GFP_KERNEL);
		if (!ret)
			ret = ipn_rx_post(priv, i);
		if (ret) {
			netdev_warn(priv->dev, "cannot post receive buffer %u: %d\n",
				    i, ret);
			return ret;	/* the caller flushes the QP and frees */
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
 * byte_len). Returns it ready for the stack (sender's address as the
 * hardware header, protocol, pkt_type, RFC 4391 s6/s9.1.1), or NULL when
 * it was dropped and counted.
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
	struct sk_buff *skb = slot->skb;
	struct ipn_rx_slot fresh;

	if (unlikely(!skb))
		return;
	if (unlikely(wc->status != IB_WC_SUCCESS || drain)) {
		if (wc->status != IB_WC_WR_FLUSH_ERR && !drain) {
			netdev_dbg(priv->dev, "rx completion error %d\n",
				   wc->status);
			ipn_inc(priv, rx_errors);
		}
		/*
		 * An error or a flush outside a drain: the QP is in ERR
		 * (review M5). Its buffers come back flushed; the restart
		 * posts the ring again.
		 */
		if (!drain)
			ipn_qp_failed(priv);
		ipn_rx_unmap(priv, slot);
		dev_kfree_skb_any(skb);
		slot->skb = NULL;
		return;
	}

	/*
	 * Refill first: on failure the old buffer goes back, data dropped.
	 * A post that fails leaves the ring a slot short for good: only a
	 * QP that is not in RTS refuses one, so restart (review M5).
	 */
	if (unlikely(ipn_rx_alloc(priv, &fresh, GFP_ATOMIC))) {
		ipn_inc(priv, rx_dropped);
		if (ipn_rx_post(priv, i)) {
			ipn_rx_unmap(priv, slot);
			dev_kfree_skb_any(skb);
			slot->skb = NULL;
			ipn_qp_failed(priv);
		}
		return;
	}
	ipn_rx_unmap(priv, slot);
	*slot = fresh;
	if (ipn_rx_post(priv, i)) {
		ipn_rx_unmap(priv, slot);
		dev_kfree_skb_any(slot->skb);
		slot->skb = NULL;
		ipn_qp_failed(priv);
	}

	skb_put(skb, wc->byte_len);
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
 * free whatever the device never returned.
 */
void ipn_rx_ring_free(struct ipn_priv *priv)
{
	unsigned long end = jiffies + 5 * HZ;
	struct ib_wc *wc = priv->rx_wc;
	unsigned int i, live;
	int n, k;

	if (!priv->rx_ring)
		return;
	do {
		while ((n = ib_poll_cq(priv->recv_cq, IPN_WC_BATCH, wc)) > 0)
			for (k = 0; k < n; k++)
				ipn_rx_one(priv, &wc[k], true);
		live = 0;
		for (i = 0; i < priv->rx_size; i++)
			live += !!priv->rx_ring[i].skb;
		if (!live)
			break;
		usleep_range(1000, 2000);
	} while (time_before(jiffies, end));

	for (i = 0; i < priv->rx_size; i++) {
		struct ipn_rx_slot *slot = &priv->rx_ring[i];

		if (!slot->skb)
			continue;
		ipn_rx_unmap(priv, slot);
		dev_kfree_skb_any(slot->skb);
		slot->skb = NULL;
	}
	kfree(priv->rx_ring);
	priv->rx_ring = NULL;
}
