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
	/* Its place in the SRQ's order (ipn_cm_srq_lost); CM NAPI's. */
	WRITE_ONCE(s->seq, ++priv->srq_seq);
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
		WRITE_ONCE(s->posted, false);
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

/*
 * Review H1: the drain WR of a connection in ERR came back, behind every
 * receive completion of its QP: the control work may destroy the QP.
 */
static void ipn_cm_rx_drained(struct ipn_priv *priv, struct ib_wc *wc)
{
	struct ipn_cm_rx *rx;

	rcu_read_lock();
	rx = ipn_cm_rx_find(priv, wc->qp);
	/* Its own drain, not that of a QP destroyed at the same address. */
	if (rx && (u32)wc->wr_id == READ_ONCE(rx->drain_id))
		set_bit(IPN_CM_RX_DRAINED, &rx->drain);
	rcu_read_unlock();
	ipn_ctl_kick(priv);
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

	if (unlikely(wc->wr_id & IPN_CM_DRAIN_WRID)) {
		ipn_cm_rx_drained(priv, wc);
		return;
	}
	/* This NAPI context: the one writer; ipn_cm_srq_starved reads them. */
	WRITE_ONCE(priv->cm_rx_polled, priv->cm_rx_polled + 1);
	if (s->seq > priv->srq_done_seq)
		WRITE_ONCE(priv->srq_done_seq, s->seq);
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

	if (ipn_kunit_cm_poll_held(priv)) {
		napi_complete_done(napi, 0);	/* the CQ left unarmed */
		return 0;
	}
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

/*
 * Review H1: the SRQ fell below a quarter of its buffers. Any context: a
 * note of when, of the receives polled so far and of the newest buffer
 * completed, and a kick. The limit stays off until ipn_cm_srq_starved().
 */
static void ipn_srq_event(struct ib_event *ev, void *ctx)
{
	struct ipn_priv *priv = ctx;

	if (ev->event != IB_EVENT_SRQ_LIMIT_REACHED ||
	    test_bit(IPN_SRQ_LOW, &priv->srq_flags))
		return;
	WRITE_ONCE(priv->srq_low_polled, READ_ONCE(priv->cm_rx_polled));
	WRITE_ONCE(priv->srq_low_seq, READ_ONCE(priv->srq_done_seq));
	WRITE_ONCE(priv->srq_low_ms, ipn_now_ms());
	smp_mb__before_atomic();	/* the note before the bit */
	set_bit(IPN_SRQ_LOW, &priv->srq_flags);
	ipn_ctl_kick(priv);
}

/* The limit event, armed (one-shot, IBA 10.2.9.4). ctl_mutex held. */
static void ipn_srq_arm(struct ipn_priv *priv)
{
	struct ib_srq_attr attr = { .srq_limit = priv->srq_size / 4 };
	int ret = ib_modify_srq(priv->srq, &attr, IB_SRQ_LIMIT);

	if (ret)
		netdev_dbg(priv->dev, "no SRQ limit event (%d): a starved SRQ is not restarted\n",
			   ret);
}

/*
 * Buffers taken before the newest one completed by seq, and not back
 * since. rxe and mlx5 hand the SRQ's buffers out in the order posted, so
 * each was taken by a QP: one still in the middle of its message (at most
 * one a QP), or one that went away holding it. ctl_mutex held; the ring's
 * fields are CM NAPI's, read as they stand.
 */
static unsigned int ipn_cm_srq_lost(struct ipn_priv *priv, u64 seq)
{
	unsigned int i, n = 0;

	for (i = 0; i < priv->srq_size; i++)
		n += READ_ONCE(priv->srq_ring[i].posted) &&
		     READ_ONCE(priv->srq_ring[i].seq) < seq;
	return n;
}

/*
 * Buffers posted after the newest one completed (seq done): in the SRQ,
 * but for those taken since by a QP in the middle of a message (at most
 * one a QP). ctl_mutex held, as ipn_cm_srq_lost.
 */
static unsigned int ipn_cm_srq_fresh(struct ipn_priv *priv, u64 done)
{
	unsigned int i, n = 0;

	lockdep_assert_held(&priv->ctl_mutex);
	for (i = 0; i < priv->srq_size; i++)
		n += READ_ONCE(priv->srq_ring[i].posted) &&
		     READ_ONCE(priv->srq_ring[i].seq) > done;
	return n;
}

/*
 * Whether connected mode must restart to get the SRQ's buffers back
 * (review H1: some providers never give back the buffer of a QP destroyed
 * in the middle of a message; rxe of 6.12). Once the SRQ's limit event
 * came, looked at every IPN_CM_SRQ_STARVE_MS from a note (of the receives
 * polled, the newest buffer completed and the time), with no connection
 * draining, or regardless once drains have held it off IPN_CM_DRAIN_MS
 * more (reconnecting peers can keep one draining at all times):
 * - no receive completed since the note: fewer than a quarter of the
 *   buffers were in the SRQ, and nothing posts one again: it starved;
 * - more buffers taken before the note and still out than there are QPs
 *   to hold them: some are lost, and the SRQ keeps losing depth;
 * - every buffer taken before the newest one completed is back, and more
 *   were posted since than messages in progress can hold (one a QP, or
 *   the limit where QPs are many): the SRQ is not empty. The event is
 *   armed again; being one-shot, and raised only when a take leaves the
 *   SRQ below its limit, it must not be armed on an empty one, where no
 *   take comes (tests/core cm_sim_rearm.limit_rearmed_on_an_empty_srq);
 * - otherwise a fresh note, and another look.
 * Buffers posted after the newest completion are not told from those in
 * the SRQ: if they were all it had, all lost since or all held by
 * messages in progress, it is armed empty (tests/core cm_sim_gap, which
 * also keeps the other limits of this guess: a shallow SRQ left as is
 * while receives come, and a restart after a quiet window where a
 * crashed peer's message holds a buffer). *deadline: when to look if not
 * yet. ctl_mutex held.
 */
bool ipn_cm_srq_starved(struct ipn_priv *priv, u64 now, bool draining,
			u64 *deadline)
{
	unsigned int held, fresh;
	u64 at, note, polled, done;

	lockdep_assert_held(&priv->ctl_mutex);
	if (!test_bit(IPN_SRQ_LOW, &priv->srq_flags))
		return false;
	smp_rmb();			/* the bit before the note */
	note = READ_ONCE(priv->srq_low_ms);
	at = note + IPN_CM_SRQ_STARVE_MS;
	if (draining && now >= at && now < at + IPN_CM_DRAIN_MS)
		at = min(at + IPN_CM_DRAIN_MS, now + IPN_CM_SRQ_STARVE_MS);
	if (now < at) {
		*deadline = min(*deadline, max(at, now + IPN_TICK_MIN_MS));
		return false;
	}
	/*
	 * CM NAPI's progress, read once: what is judged is what the next
	 * note holds, so that a receive after this read counts in the next
	 * window, not in none.
	 */
	polled = READ_ONCE(priv->cm_rx_polled);
	done = READ_ONCE(priv->srq_done_seq);
	if (polled == READ_ONCE(priv->srq_low_polled))
		return true;
	held = READ_ONCE(priv->cm_rx_count);
	if (ipn_cm_srq_lost(priv, READ_ONCE(priv->srq_low_seq)) > held)
		return true;
	fresh = ipn_cm_srq_fresh(priv, done);
	if (!ipn_cm_srq_lost(priv, done) &&
	    fresh > min(held, priv->srq_size / 4)) {
		clear_bit(IPN_SRQ_LOW, &priv->srq_flags);
		ipn_srq_arm(priv);
		return false;
	}
	WRITE_ONCE(priv->srq_low_polled, polled);
	WRITE_ONCE(priv->srq_low_seq, done);
	WRITE_ONCE(priv->srq_low_ms, now);
	*deadline = min(*deadline, now + IPN_CM_SRQ_STARVE_MS);
	return false;
}

/*
 * ethtool -S: the SRQ's size (0 in datagram mode); the buffers given to it
 * and not back, in it or held by a QP (short of the size only where a
 * post failed); and of those, the ones taken before the newest one given
 * back: a message in progress holds one per connection, and at rest any
 * is lost (review H1). ctl_mutex held: the ring's lifetime.
 */
void ipn_cm_srq_gauges(struct ipn_priv *priv, u64 *size, u64 *posted,
		       u64 *stuck)
{
	unsigned int i;

	lockdep_assert_held(&priv->ctl_mutex);
	*size = 0;
	*posted = 0;
	*stuck = 0;
	if (!priv->srq_ring)
		return;
	*size = priv->srq_size;
	for (i = 0; i < priv->srq_size; i++)
		*posted += READ_ONCE(priv->srq_ring[i].posted);
	*stuck = ipn_cm_srq_lost(priv, READ_ONCE(priv->srq_done_seq));
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

	/*
	 * The SRQ's completions and the passive QPs' drains (H1), twice:
	 * a drain given up on may still complete.
	 */
	ca.cqe = priv->srq_size + 2 * IPN_CM_DRAINS_MAX;
	priv->cm_rcq = ib_create_cq(priv->ca, ipn_cm_rx_comp, NULL, priv, &ca);
	if (IS_ERR(priv->cm_rcq)) {
		ret = PTR_ERR(priv->cm_rcq);
		priv->cm_rcq = NULL;
		return ret;
	}
	sa.attr.max_wr = priv->srq_size;
	sa.attr.max_sge = pages;
	sa.srq_type = IB_SRQT_BASIC;
	sa.event_handler = ipn_srq_event;
	sa.srq_context = priv;
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
	priv->srq_done_seq = priv->srq_seq;	/* none of the new ones */
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
	clear_bit(IPN_SRQ_LOW, &priv->srq_flags);
	ipn_srq_arm(priv);
	return 0;
err:
	ipn_cm_verbs_destroy(priv);
	return ret;
}
