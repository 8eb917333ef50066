// SPDX-License-Identifier: GPL-2.0
/*
 * tx.c - ndo_start_xmit, the transmit queues' send rings and TX NAPI.
 *
 * Every transmit queue (struct ipn_txq, ethtool -L tx) has its UD QP,
 * send CQ, TX NAPI and ring; the stack picks the queue (XPS, the flow's
 * hash), and nothing here is shared between queues but the paths and
 * groups the core keeps (issue 23). The ring is a power-of-two array
 * indexed by free-running counters: head advances under the queue's
 * netif_tx_lock (xmit), tail in its TX NAPI (or in the drain with NAPI
 * off); the address handles' reap reads both at any time
 * (ipn_tx_in_ring). A queue stops at sendq - 1 slots in flight and wakes
 * at half. On queue 0 the UD QP and the connections' RC QPs (cm.c) share
 * the ring: each QP completes in order, but the QPs interleave, so a slot
 * is freed when its send completes and the tail moves over freed slots.
 *
 * UD sends wait while the stack says more follows (netdev_xmit_more())
 * and go to the device as one chain of at most IPN_TX_BATCH, only the
 * last asking for a completion (issue 23). Byte queue limits count the
 * UD sends only: a connection's send may wait seconds for its peer (RNR
 * retries, review H4) and must not stop the datagrams queued behind it.
 */
#include <linux/slab.h>
#include "ipoib_ng.h"

static void ipn_tx_unmap(struct ipn_priv *priv, struct ipn_tx_slot *slot)
{
	int i = 0;

	if (!slot->nr_maps)
		return;
	if (slot->head_mapped) {
		ib_dma_unmap_single(priv->ca, slot->sge[0].addr,
				    slot->sge[0].length, DMA_TO_DEVICE);
		i = 1;
	}
	for (; i < slot->nr_maps; i++)
		ib_dma_unmap_page(priv->ca, slot->sge[i].addr,
				  slot->sge[i].length, DMA_TO_DEVICE);
	slot->nr_maps = 0;
}

/* The linear part (unless LSO took all of it as headers) and the frags. */
static int ipn_tx_map(struct ipn_priv *priv, struct ipn_tx_slot *slot)
{
	struct sk_buff *skb = slot->skb;
	u32 lkey = priv->pd->local_dma_lkey;
	int i;

	slot->nr_maps = 0;
	slot->head_mapped = skb_headlen(skb) > 0;
	if (slot->head_mapped) {
		slot->sge[0].addr = ib_dma_map_single(priv->ca, skb->data,
						      skb_headlen(skb),
						      DMA_TO_DEVICE);
		if (ib_dma_mapping_error(priv->ca, slot->sge[0].addr))
			return -EIO;
		slot->sge[0].length = skb_headlen(skb);
		slot->sge[0].lkey = lkey;
		slot->nr_maps = 1;
	}
	for (i = 0; i < skb_shinfo(skb)->nr_frags; i++) {
		const skb_frag_t *frag = &skb_shinfo(skb)->frags[i];
		struct ib_sge *sge = &slot->sge[slot->nr_maps];

		sge->addr = ib_dma_map_page(priv->ca, skb_frag_page(frag),
					    skb_frag_off(frag),
					    skb_frag_size(frag), DMA_TO_DEVICE);
		if (ib_dma_mapping_error(priv->ca, sge->addr)) {
			ipn_tx_unmap(priv, slot);
			return -EIO;
		}
		sge->length = skb_frag_size(frag);
		sge->lkey = lkey;
		slot->nr_maps++;
	}
	return 0;
}

/*
 * A frame that will not be sent: counted and dropped, the send cm's
 * inflight count given back.
 */
static void ipn_tx_discard(struct ipn_priv *priv, struct sk_buff *skb,
			   struct ipn_cm_tx *cm)
{
	ipn_inc(priv, tx_errors);
	ipn_drop(priv, skb, IPC_R_OK, true);
	if (cm && atomic_dec_and_test(&cm->inflight))
		wake_up(&priv->cm_wait);
}

/*
 * The adapter's part of a UD send (ipn_offload_features): the checksum
 * the stack left for it (IB_SEND_IP_CSUM), and for a GSO frame the
 * segmentation (IB_WR_LSO): the headers, from the IPoIB header to TCP's,
 * go in the WR, repeated by the adapter in front of every mss bytes; the
 * skb keeps the payload only. skb->data at the IPoIB header. -EINVAL for
 * a GSO frame that is not TCP (the features offer no other).
 */
IPN_TESTABLE int ipn_tx_offload(struct sk_buff *skb, struct ib_ud_wr *wr)
{
	wr->wr.opcode = IB_WR_SEND;
	wr->wr.send_flags = 0;
	wr->header = NULL;
	wr->hlen = 0;
	wr->mss = 0;
	if (skb->ip_summed == CHECKSUM_PARTIAL)
		wr->wr.send_flags = IB_SEND_IP_CSUM;
	if (!skb_is_gso(skb))
		return 0;
	if (!(skb_shinfo(skb)->gso_type & (SKB_GSO_TCPV4 | SKB_GSO_TCPV6)) ||
	    !pskb_may_pull(skb, skb_tcp_all_headers(skb)))
		return -EINVAL;
	wr->wr.opcode = IB_WR_LSO;
	wr->header = skb->data;
	wr->hlen = skb_tcp_all_headers(skb);
	wr->mss = skb_shinfo(skb)->gso_size;
	/* The WR points at them; the adapter copies them at the post. */
	skb_pull(skb, wr->hlen);
	return 0;
}

/*
 * The length of the IPoIB frame (from its 4-byte header) that UD carries
 * for skb, at the pseudo header: the frame; for a TCP GSO frame, which the
 * adapter segments (LSO), one segment: its headers and the mss. What the
 * core compares with UD's frame size (ipc_mtu_ud_too_big).
 */
IPN_TESTABLE u32 ipn_tx_ud_len(const struct sk_buff *skb)
{
	if (skb_is_gso(skb) &&
	    (skb_shinfo(skb)->gso_type & (SKB_GSO_TCPV4 | SKB_GSO_TCPV6)))
		return IPC_HDR_LEN + skb_transport_offset(skb) -
		       skb_network_offset(skb) + tcp_hdrlen(skb) +
		       skb_shinfo(skb)->gso_size;
	return skb->len - IPN_PSEUDO_LEN;
}

/* A send that never reached the device: its slot freed, skb dropped. */
static void ipn_tx_unsent(struct ipn_priv *priv, struct ipn_tx_slot *slot)
{
	ipn_tx_unmap(priv, slot);
	ipn_tx_discard(priv, slot->skb, slot->cm);
	slot->skb = NULL;
	slot->cm = NULL;
}

/*
 * ib_post_send() of the n sends in the queue's wrs; under KUnit, a device
 * that takes only the first of them, as a QP that fails mid-chain does.
 */
static int ipn_tx_post(struct ipn_txq *txq, unsigned int n,
		       const struct ib_send_wr **bad)
{
	unsigned int cut = ipn_kunit_tx_post_cut(txq->priv, n);

	if (unlikely(cut < n)) {
		*bad = &txq->wrs[cut].wr;
		if (!cut)
			return -ENOMEM;
		txq->wrs[cut - 1].wr.next = NULL;
		return ib_post_send(txq->qp, &txq->wrs[0].wr, NULL) ?: -ENOMEM;
	}
	return ib_post_send(txq->qp, &txq->wrs[0].wr, bad);
}

/*
 * Post the UD sends waiting in the queue's wrs, its last pending slots,
 * in one call, with a completion requested for the last only: a QP
 * completes its sends in order, so that one completion frees them all
 * (ipn_tx_one). A batch is posted when the stack has no more for now
 * (ipn_start_xmit), when it is full, and before a send on a connection.
 * The queue's netif_tx_lock.
 */
static void ipn_tx_flush(struct ipn_txq *txq)
{
	struct ipn_priv *priv = txq->priv;
	unsigned int n = txq->pending, mask = priv->tx_size - 1, i, ok;
	unsigned int first = txq->head - n, bytes = 0;
	const struct ib_send_wr *bad = NULL;
	int ret;

	if (!n)
		return;
	txq->pending = 0;
	for (i = 0; i < n; i++) {
		struct ib_ud_wr *wr = &txq->wrs[i];

		wr->wr.next = i + 1 < n ? &txq->wrs[i + 1].wr : NULL;
		wr->wr.send_flags &= ~IB_SEND_SIGNALED;
		if (i + 1 == n)
			wr->wr.send_flags |= IB_SEND_SIGNALED;
		/* Before the post: the completion may free them at once. */
		bytes += txq->ring[(first + i) & mask].skb->len;
	}
	/*
	 * BQL first: once posted, the completion may be counted on another
	 * CPU before this one goes on, and BQL must never see more bytes
	 * completed than queued.
	 */
	netdev_tx_sent_queue(netdev_get_tx_queue(priv->dev, txq->index),
			     bytes);
	ipn_inc(priv, tx_posts);
	ret = ipn_tx_post(txq, n, &bad);
	if (likely(!ret))
		return;
	ok = bad ? container_of(bad, struct ib_ud_wr, wr) - txq->wrs : 0;
	if (ok > n)	/* a bad_wr not of this chain: take none as posted */
		ok = 0;
	netdev_dbg(priv->dev, "posting %u sends on queue %u failed at %u: %d\n",
		   n, txq->index, ok, ret);
	bytes = 0;
	for (i = ok; i < n; i++) {
		struct ipn_tx_slot *slot = &txq->ring[(first + i) & mask];

		bytes += slot->skb->len;
		ipn_tx_unsent(priv, slot);
	}
	/* BQL learns of them as completed, in TX NAPI (the one completer). */
	atomic_add(bytes, &txq->unsent_bytes);
	napi_schedule(&txq->napi);
	/*
	 * Some went, none with a completion: nothing would ever free them.
	 * A QP that takes part of a chain is broken: restart it (M5).
	 */
	if (ok)
		ipn_qp_failed(priv);
}

/*
 * Queue one frame on txq: over UD with ah to qpn (posted by
 * ipn_tx_flush), or on the connection cm at once (queue 0 only, whose CQ
 * its QP completes on). skb->data is at the pseudo header; consumes skb
 * and the send cm's inflight counts in every case. ah, read in the
 * caller's RCU read section, lives until the send completes: the slot is
 * taken before that section ends (ipn_ah_reap). Called under the queue's
 * netif_tx_lock.
 */
static int ipn_send(struct ipn_txq *txq, struct sk_buff *skb,
		    struct ipn_ah *ah, u32 qpn, struct ipn_cm_tx *cm)
{
	struct ipn_priv *priv = txq->priv;
	unsigned int mask = priv->tx_size - 1;
	struct netdev_queue *nq;
	struct ipn_tx_slot *slot;
	int ret;

	skb_pull(skb, IPN_PSEUDO_LEN);
	if (skb_shinfo(skb)->nr_frags + 1 > priv->max_sge &&
	    skb_linearize(skb)) {
		ret = -ENOMEM;
		goto drop;
	}
	if (unlikely(txq->head - READ_ONCE(txq->tail) >= priv->tx_size)) {
		ret = -ENOBUFS;
		goto drop;
	}
	if (cm) {
		/*
		 * RC does no offload (ipn_fix_features); a frame the stack
		 * made before the mode changed: its checksum here, and a
		 * GSO one is dropped (TCP sends it again, then segmented).
		 */
		if (unlikely(skb_is_gso(skb)) ||
		    (skb->ip_summed == CHECKSUM_PARTIAL &&
		     skb_checksum_help(skb))) {
			ret = -EINVAL;
			goto drop;
		}
	} else if (unlikely(ipn_tx_offload(skb, &txq->wrs[txq->pending]))) {
		ret = -EINVAL;
		goto drop;
	}
	slot = &txq->ring[txq->head & mask];
	slot->skb = skb;
	ret = ipn_tx_map(priv, slot);
	if (ret) {
		slot->skb = NULL;
		goto drop;
	}
	slot->cm = cm;
	nq = netdev_get_tx_queue(priv->dev, txq->index);
	txq_trans_cond_update(nq);
	if (cm) {
		struct ib_send_wr wr = {
			.wr_id = txq->head,
			.opcode = IB_WR_SEND,
			.send_flags = IB_SEND_SIGNALED,
			.sg_list = slot->sge,
			.num_sge = slot->nr_maps,
		};

		/* In order with what went over UD before. */
		ipn_tx_flush(txq);
		/*
		 * Counted first: once posted, the completion may drop the
		 * last inflight and the connection be freed.
		 * netif_tx_lock: the one writer; netlink reads it.
		 */
		WRITE_ONCE(cm->frames, cm->frames + 1);
		/* Pairs with the acquire in ipn_tx_one: filled, then posted. */
		smp_store_release(&txq->head, txq->head + 1);
		ret = ib_post_send(cm->qp, &wr, NULL);
		if (ret) {
			WRITE_ONCE(cm->frames, cm->frames - 1);
			ipn_tx_unsent(priv, slot);
			return ret;
		}
		ipn_inc(priv, cm_tx_packets);
	} else {
		struct ib_ud_wr *wr = &txq->wrs[txq->pending];

		/* opcode, flags, LSO: ipn_tx_offload. */
		wr->wr.wr_id = txq->head;
		wr->wr.sg_list = slot->sge;
		wr->wr.num_sge = slot->nr_maps;
		wr->ah = ah->ah;
		wr->remote_qpn = qpn;
		wr->remote_qkey = priv->qkey;
		/* Pairs with the acquire in ipn_tx_one: the slot is filled. */
		smp_store_release(&txq->head, txq->head + 1);
		if (++txq->pending == IPN_TX_BATCH)
			ipn_tx_flush(txq);
	}
	if (txq->head - READ_ONCE(txq->tail) >= priv->tx_size - 1) {
		/* No more xmits: what waits goes now. */
		ipn_tx_flush(txq);
		netif_tx_stop_queue(nq);
		u64_stats_update_begin(&txq->xsyncp);
		u64_stats_inc(&txq->stops);
		u64_stats_update_end(&txq->xsyncp);
		/* Pairs with the barrier in ipn_tx_poll before the wake. */
		smp_mb();
		if (txq->head - READ_ONCE(txq->tail) < priv->tx_size / 2)
			netif_tx_wake_queue(nq);
	}
	return 0;

drop:
	ipn_tx_discard(priv, skb, cm);
	return ret;
}

/*
 * Scope of the IP multicast group a frame is sent to, for the core's
 * RFC 4391 s10 decision; IPC_SCOPE_LINK when it is not IP.
 */
IPN_TESTABLE u8 ipn_tx_ip_scope(const struct sk_buff *skb)
{
	u8 buf[IPC_FRAME_SCOPE_LEN];
	u32 len = min_t(u32, skb->len - IPN_PSEUDO_LEN, sizeof(buf));

	if (skb_copy_bits(skb, IPN_PSEUDO_LEN, buf, len))
		return IPC_SCOPE_LINK;
	return ipc_frame_mc_scope(buf, len);
}

/*
 * Whether the stack has mgid in the device's list: rx_mode_work hands the
 * list to the core later, under RTNL, which the DAD of an address being
 * added can outrun by seconds on a busy machine. BH is off (xmit).
 */
static bool ipn_mcast_stack_listed(struct ipn_priv *priv, const u8 *mgid)
{
	struct net_device *dev = priv->dev;
	struct netdev_hw_addr *ha;
	bool listed = false;

	netif_addr_lock(dev);
	netdev_for_each_mc_addr(ha, dev) {
		/* What rx_mode_work would take. */
		if (!memcmp(ipn_addr_gid(ha->addr), mgid, IPC_GID_LEN) &&
		    ipn_mcast_addr_taken(priv, ha->addr)) {
			listed = true;
			break;
		}
	}
	netif_addr_unlock(dev);
	return listed;
}

/*
 * A frame for the group mgid: the core's RFC 4391 s10 decision, carried
 * out. A group that does not exist and is scoped beyond the link sends
 * to the all-routers group of its family instead (once: redirect).
 * Returns the handle to send skb with, or NULL when skb was queued or
 * dropped. priv->lock held.
 */
static struct ipn_ah *ipn_mcast_tx(struct ipn_priv *priv, const u8 *mgid,
				   struct sk_buff *skb, u64 now, bool redirect)
{
	struct ipn_mcast *mc = ipn_mcast_find(priv, mgid);
	struct ipn_ah *ah = NULL;
	struct ipc_result r;

	lockdep_assert_held(&priv->lock);
	/* The IP group's scope matters only to a new group. */
	if (!mc)
		mc = ipn_mcast_get(priv, mgid, ipc_mgid_is_all_routers(mgid) ?
				   IPC_SCOPE_LINK : ipn_tx_ip_scope(skb), true);
	if (IS_ERR(mc)) {
		ipn_drop(priv, skb, PTR_ERR(mc) == -ENOSPC ?
			 IPC_R_GROUP_TABLE_FULL : IPC_R_NO_ROUTE, true);
		return NULL;
	}
	/*
	 * A frame that would start a send-only join to a group the stack
	 * has joined (its own solicited-node group, for DAD): the
	 * subscription goes to the core first, and the frame waits for the
	 * FullMember join. Not under umcast, where rx_mode_work asks
	 * whether another user holds the group, which may sleep.
	 */
	if (ipc_mc_tx_joins(&mc->st, now) && !READ_ONCE(priv->umcast) &&
	    !ipc_mc_wanted(&mc->st, IPC_JOIN_FULL) &&
	    ipn_mcast_stack_listed(priv, mgid)) {
		ipc_mc_subscribe(&mc->st, &priv->mc_cfg, IPC_JOIN_FULL, now,
				 &r);
		ipn_mcast_apply(priv, mc, &r, NULL);
	}
	ipc_mc_tx(&mc->st, &priv->mc_cfg, now,
		  redirect && ipn_mcast_routers_usable(priv, mgid), &r);
	/* SEND: sent with the group's handle (the engine drops it without). */
	if (r.actions & IPC_ACT_SEND)
		ah = mc->ah;
	if (r.actions & IPC_ACT_TO_ROUTERS) {
		ipn_mcast_apply(priv, mc, &r, NULL);
		if (!ipn_mcast_redirect(skb)) {
			ipn_drop(priv, skb, IPC_R_NOT_JOINED, true);
			return NULL;
		}
		return ipn_mcast_tx(priv, ipn_addr_gid(skb->data), skb, now,
				    false);
	}
	ipn_mcast_apply(priv, mc, &r, ah ? NULL : skb);
	return ah;
}

/*
 * A frame to a usable path over UD, sent without priv->lock (issue 23):
 * true when it went (or was dropped as too big), false when the core
 * must be asked under the lock. Not a peer connected mode would take.
 */
static bool ipn_xmit_fast(struct ipn_priv *priv, struct ipn_txq *txq,
			  struct sk_buff *skb, const struct ipc_tx_verdict *v,
			  u64 now)
{
	struct ipn_ah *ah;
	u32 mtu;

	if (unlikely(!READ_ONCE(priv->up)) ||
	    ((skb->data[0] & IPC_ADDR_FLAG_CM) && READ_ONCE(priv->cm_on)))
		return false;
	ah = ipn_path_tx_ah(priv, v->gid, now);
	if (!ah)
		return false;
	mtu = ipc_mtu_ud_too_big(&priv->mtu, ipn_tx_ud_len(skb));
	if (unlikely(mtu))
		ipn_tx_too_big(priv, skb, mtu);
	else
		ipn_send(txq, skb, ah, v->qpn, NULL);
	return true;
}

/*
 * One frame from the stack for txq: the core decides, ipn_send queues
 * it. The handles read here stay valid until the RCU read section ends,
 * and then until the sends put in the ring within it complete
 * (ipn_ah_reap).
 */
static void ipn_xmit_frame(struct ipn_priv *priv, struct ipn_txq *txq,
			   struct sk_buff *skb)
{
	enum ipn_cm_route route = IPN_CM_UD;
	struct ipn_cm_tx *cm = NULL;
	struct ipc_tx_verdict v;
	struct ipn_ah *ah = NULL;
	struct ipc_result r;
	u32 mtu = 0;
	int reason;
	u64 now;

	if (unlikely(skb->len < IPN_HARD_LEN)) {
		ipn_drop(priv, skb, IPC_R_TRUNCATED, true);
		return;
	}
	reason = ipc_tx_classify(&priv->ifid, skb->data, &v);
	if (unlikely(reason != IPC_R_OK)) {
		ipn_drop(priv, skb, reason, true);
		return;
	}

	now = ipn_now_ms();
	rcu_read_lock();
	if (v.kind == IPC_TX_UNICAST && ipn_xmit_fast(priv, txq, skb, &v, now))
		goto out;
	spin_lock(&priv->lock);
	if (unlikely(!priv->up)) {
		reason = IPC_R_LINK_DOWN;
		goto drop_locked;
	}
	if (v.kind == IPC_TX_UNICAST) {
		struct ipn_path *path = ipn_path_get(priv, v.gid, now);

		if (IS_ERR(path)) {
			reason = PTR_ERR(path) == -ENOSPC ?
				 IPC_R_PATH_TABLE_FULL : IPC_R_NO_ROUTE;
			goto drop_locked;
		}
		ipc_path_tx(&path->st, &priv->path_cfg, now, &r);
		if (r.actions & IPC_ACT_SEND)
			ah = path->ah;
		ipn_path_apply(priv, path, &r, ah ? NULL : skb);
		/*
		 * RFC 4755 s3.1: a peer whose address has the C bit. On queue
		 * 0 only (ipn_select_queue): a frame that chose another before
		 * connected mode started goes over UD.
		 */
		if (ah && priv->cm_on && (skb->data[0] & IPC_ADDR_FLAG_CM) &&
		    !txq->index)
			route = ipn_cm_xmit(priv, skb, now, &cm, &mtu);
	} else {
		ah = ipn_mcast_tx(priv, v.gid, skb, now, true);
	}
	/* Connected mode's MTU is not UD's: what UD cannot carry. */
	if (ah && route == IPN_CM_UD) {
		mtu = ipc_mtu_ud_too_big(&priv->mtu, ipn_tx_ud_len(skb));
		if (mtu)
			route = IPN_CM_TOO_BIG;
	}
	spin_unlock(&priv->lock);

	if (route == IPN_CM_RC)
		ipn_send(txq, skb, NULL, 0, cm);
	else if (route == IPN_CM_TOO_BIG)
		ipn_tx_too_big(priv, skb, mtu);
	else if (ah && route == IPN_CM_UD)
		ipn_send(txq, skb, ah, v.qpn, NULL);
out:
	rcu_read_unlock();
	return;

drop_locked:
	spin_unlock(&priv->lock);
	rcu_read_unlock();
	ipn_drop(priv, skb, reason, true);
}

netdev_tx_t ipn_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct ipn_priv *priv = netdev_priv(dev);
	struct ipn_txq *txq = &priv->txq[skb_get_queue_mapping(skb)];

	ipn_xmit_frame(priv, txq, skb);
	/* The stack has more at once (a GSO train, a qdisc's bulk): wait. */
	if (!netdev_xmit_more())
		ipn_tx_flush(txq);
	return NETDEV_TX_OK;
}

/*
 * The stack's choice (XPS, the flow's hash), but for a frame connected
 * mode may carry (RFC 4755 s3.1: a peer with the C bit): queue 0, whose
 * CQ the connections' QPs complete on. skb->data is at the pseudo header.
 */
u16 ipn_select_queue(struct net_device *dev, struct sk_buff *skb,
		     struct net_device *sb_dev)
{
	struct ipn_priv *priv = netdev_priv(dev);

	if (READ_ONCE(priv->cm_on) && skb_headlen(skb) &&
	    (skb->data[0] & IPC_ADDR_FLAG_CM))
		return 0;
	return netdev_pick_tx(dev, skb, sb_dev);
}

/*
 * Re-inject packets that waited for a path or a join (pseudo header
 * intact): xmit asks the core again. Process context.
 */
void ipn_xmit_list(struct sk_buff_head *list)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(list)))
		dev_queue_xmit(skb);
}

/* Send slot of txq done with status (on the QP qp): counted, freed. */
static void ipn_tx_done(struct ipn_txq *txq, struct ipn_tx_slot *slot,
			enum ib_wc_status status, struct ib_qp *qp, int budget)
{
	struct ipn_priv *priv = txq->priv;
	struct ipn_cm_tx *cm = slot->cm;
	struct sk_buff *skb = slot->skb;

	ipn_tx_unmap(priv, slot);
	if (!cm) {
		txq->done_pkts++;
		txq->done_bytes += skb->len;
	}
	if (likely(status == IB_WC_SUCCESS)) {
		/* ip -s's tx_packets and tx_bytes (ipn_stats_read). */
		u64_stats_update_begin(&txq->syncp);
		u64_stats_inc(&txq->packets);
		u64_stats_add(&txq->bytes, skb->len);
		u64_stats_update_end(&txq->syncp);
	} else if (status != IB_WC_WR_FLUSH_ERR) {
		netdev_dbg(priv->dev, "tx completion error %d\n", status);
		ipn_inc(priv, tx_errors);
		if (cm)
			ipn_cm_tx_error(priv, cm, qp);
		else
			ipn_qp_failed(priv);	/* a UD send error: QP in ERR */
	} else if (!cm && budget) {
		/* Flushed in NAPI: the UD QP went to ERR under us (M5). */
		ipn_qp_failed(priv);
	}
	napi_consume_skb(skb, budget);
	slot->skb = NULL;
	slot->cm = NULL;
	/* Last: the connection may go once its sends are all back. */
	if (cm)
		ipn_cm_tx_sent(priv, cm);
}

IPN_TESTABLE void ipn_tx_one(struct ipn_txq *txq, struct ib_wc *wc,
			     int budget)
{
	struct ipn_priv *priv = txq->priv;
	unsigned int mask = priv->tx_size - 1, tail, head, pos = wc->wr_id;
	struct ipn_tx_slot *slot = &txq->ring[pos & mask];

	tail = txq->tail;
	/* Pairs with the release in ipn_send: slots below head are filled. */
	head = smp_load_acquire(&txq->head);
	/* Not a send in flight: a stale completion (after a drain gave up). */
	if (unlikely(pos - tail >= head - tail)) {
		netdev_warn_once(priv->dev, "send completion for slot %u of queue %u outside the ring [%u, %u)\n",
				 pos, txq->index, tail, head);
		return;
	}
	if (unlikely(!slot->skb))
		return;
	if (!slot->cm) {
		/*
		 * UD: the QP completes in order and only a batch's last send
		 * asks for a completion (ipn_tx_flush): every UD send before
		 * this one is done. Connections' slots between them are not.
		 * From the tail or from the last UD completion, whichever is
		 * nearer to pos: distances, for counters that wrap.
		 */
		unsigned int p = txq->ud_done;

		if (pos - p > pos - tail)
			p = tail;
		for (; p != pos; p++) {
			struct ipn_tx_slot *s = &txq->ring[p & mask];

			if (s->skb && !s->cm)
				ipn_tx_done(txq, s, IB_WC_SUCCESS, wc->qp,
					    budget);
		}
		txq->ud_done = pos + 1;
	}
	ipn_tx_done(txq, slot, wc->status, wc->qp, budget);
}

/* The tail moves over every slot freed: completed, or never posted. */
static void ipn_tx_advance_tail(struct ipn_txq *txq)
{
	unsigned int mask = txq->priv->tx_size - 1, tail = txq->tail;
	/* Pairs with the release in ipn_send: slots below head are filled. */
	unsigned int head = smp_load_acquire(&txq->head);

	while (tail != head && !txq->ring[tail & mask].skb)
		tail++;
	WRITE_ONCE(txq->tail, tail);
}

/*
 * One send of connection cm completed: progress for the stall check
 * (review H4), and once none is left its disconnect may go on, or, if
 * it was freed before (review L2, ipn_cm_reap), the control work frees
 * it. dead is read first: at 0 the connection may be gone at once.
 */
void ipn_cm_tx_sent(struct ipn_priv *priv, struct ipn_cm_tx *cm)
{
	bool dead = READ_ONCE(cm->e.dead);

	WRITE_ONCE(cm->progress_ms, ipn_now_ms());
	if (atomic_dec_and_test(&cm->inflight)) {
		wake_up(&priv->cm_wait);
		if (dead)
			ipn_ctl_kick(priv);
	}
}

static int ipn_tx_reap(struct ipn_txq *txq, int budget)
{
	struct ib_wc *wc = txq->wc;
	int done = 0, n, i;

	do {
		n = ib_poll_cq(txq->cq, IPN_WC_BATCH, wc);
		for (i = 0; i < n; i++)
			ipn_tx_one(txq, &wc[i], budget);
		done += max(n, 0);
	} while (n == IPN_WC_BATCH && done < budget);
	ipn_tx_advance_tail(txq);
	return done;
}

/* Handles waiting for this queue's sends: the reap looks again. */
static void ipn_ah_kick(struct ipn_txq *txq)
{
	WRITE_ONCE(txq->ah_waiting, false);
	queue_work(txq->priv->wq, &txq->priv->reap_work);
}

int ipn_tx_poll(struct napi_struct *napi, int budget)
{
	struct ipn_txq *txq = container_of(napi, struct ipn_txq, napi);
	struct ipn_priv *priv = txq->priv;
	struct net_device *dev = priv->dev;
	struct netdev_queue *nq = netdev_get_tx_queue(dev, txq->index);
	unsigned int unsent;
	int done;

	done = ipn_tx_reap(txq, budget);
	/* BQL's one completer: the sends done, and those never posted. */
	unsent = atomic_xchg(&txq->unsent_bytes, 0);
	if (txq->done_pkts || unsent) {
		netdev_tx_completed_queue(nq, txq->done_pkts,
					  txq->done_bytes + unsent);
		txq->done_pkts = 0;
		txq->done_bytes = 0;
	}
	/*
	 * Pairs with the barrier in ipn_send after the stop, and with the
	 * one in ipn_ah_reap: the tail moved, then handles waiting for it.
	 */
	smp_mb();
	if (unlikely(READ_ONCE(txq->ah_waiting))) {
		smp_rmb();	/* the position, written before the flag */
		if (!ipn_tx_in_ring(txq, READ_ONCE(txq->ah_wait_pos)))
			ipn_ah_kick(txq);
	}
	/*
	 * Not once ipn_stop() stopped the queues (review M1): up goes false
	 * after netif_tx_disable(), and a wake here in between would let
	 * transmits in while the rings are being drained.
	 */
	if (unlikely(netif_tx_queue_stopped(nq)) &&
	    txq->head - READ_ONCE(txq->tail) <= priv->tx_size / 2 &&
	    netif_carrier_ok(dev) && READ_ONCE(priv->up)) {
		__netif_tx_lock(nq, smp_processor_id());
		if (netif_tx_queue_stopped(nq))
			netif_tx_wake_queue(nq);
		__netif_tx_unlock(nq);
	}
	if (done < budget && napi_complete_done(napi, done) &&
	    ib_req_notify_cq(txq->cq, IB_CQ_NEXT_COMP |
			     IB_CQ_REPORT_MISSED_EVENTS) > 0)
		napi_schedule(napi);
	return min(done, budget);
}

void ipn_tx_comp(struct ib_cq *cq, void *ctx)
{
	struct ipn_txq *txq = ctx;

	napi_schedule(&txq->napi);
}

/* Every transmit queue's TX NAPI on, each CQ armed. */
void ipn_tx_napi_enable(struct ipn_priv *priv)
{
	unsigned int q;

	for (q = 0; q < priv->txq_count; q++) {
		napi_enable(&priv->txq[q].napi);
		ib_req_notify_cq(priv->txq[q].cq, IB_CQ_NEXT_COMP);
	}
}

void ipn_tx_napi_disable(struct ipn_priv *priv)
{
	unsigned int q;

	for (q = 0; q < priv->txq_count; q++)
		napi_disable(&priv->txq[q].napi);
}

/* Its QP in ERR, NAPI off: reap every send, free what never completed. */
void ipn_tx_ring_drain(struct ipn_txq *txq)
{
	struct ipn_priv *priv = txq->priv;
	unsigned long end = jiffies + 5 * HZ;
	unsigned int i;

	/* Sends never posted (pending) never complete. */
	while (txq->head - txq->pending != txq->tail &&
	       time_before(jiffies, end)) {
		int n;

		/* As in NAPI: the queue's counters have one writer context. */
		local_bh_disable();
		n = ipn_tx_reap(txq, 0);
		local_bh_enable();
		if (!n)
			usleep_range(1000, 2000);
	}
	for (i = 0; i < priv->tx_size; i++) {
		struct ipn_tx_slot *slot = &txq->ring[i];

		if (!slot->skb)
			continue;
		ipn_tx_unmap(priv, slot);
		dev_kfree_skb_any(slot->skb);
		slot->skb = NULL;
		slot->cm = NULL;	/* every connection went before */
	}
	/*
	 * Review 2026-12 L4: the positions run on, never back to 0. A
	 * completion that still comes for a send of the drained ring (a
	 * provider that keeps a destroyed QP's) then falls outside the new
	 * ring (ipn_tx_one()) instead of freeing a send of it; the handles'
	 * wait positions stay meaningful too. The reap reads tail.
	 */
	WRITE_ONCE(txq->tail, txq->head);
	txq->ud_done = txq->head;
	txq->pending = 0;
	txq->done_pkts = 0;
	txq->done_bytes = 0;
	atomic_set(&txq->unsent_bytes, 0);
	netdev_tx_reset_queue(netdev_get_tx_queue(priv->dev, txq->index));
	/* The ring is empty: no handle waits for a send any more. */
	smp_mb();
	if (READ_ONCE(txq->ah_waiting))
		ipn_ah_kick(txq);
}

void ipn_tx_timeout(struct net_device *dev, unsigned int txqueue)
{
	struct ipn_priv *priv = netdev_priv(dev);
	struct ipn_txq *txq = &priv->txq[min(txqueue, priv->txq_count - 1)];

	netdev_warn(dev, "transmit timeout on queue %u: %u sends in flight\n",
		    txqueue, txq->head - READ_ONCE(txq->tail));
	ipn_inc(priv, tx_timeouts);
	ipn_restart(priv, "a transmit timeout");
}
