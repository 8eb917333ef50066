// SPDX-License-Identifier: GPL-2.0
/*
 * ah.c - address handles: one reference per user (the path or group that
 * caches it); the last put moves it to the reap list, and it is destroyed
 * in process context once no send can use it. Sends hold no reference
 * (issue 23: two atomics a packet on a line shared by the CPUs that send
 * and complete). The reap waits for an RCU grace period, after which
 * every transmit that found the handle has put its send in a ring,
 * notes every transmit queue's head then, and waits for each tail to pass
 * it.
 */
#include <linux/slab.h>
#include "ipoib_ng.h"

struct ipn_ah *ipn_ah_create(struct ipn_priv *priv, struct rdma_ah_attr *attr)
{
	struct ipn_ah *ah;

	ah = ipn_fault() ? NULL : kzalloc(sizeof(*ah), GFP_KERNEL);
	if (!ah)
		return ERR_PTR(-ENOMEM);
	ah->ah = ipn_fault() ? ERR_PTR(-ENOMEM) :
		 rdma_create_ah(priv->pd, attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah->ah)) {
		int ret = PTR_ERR(ah->ah);

		kfree(ah);
		return ERR_PTR(ret);
	}
	kref_init(&ah->ref);
	ah->priv = priv;
	INIT_LIST_HEAD(&ah->reap);
	ah->attr = *attr;
	ah->attr.grh.sgid_attr = NULL;	/* compared, never used */
	return ah;
}

/*
 * Whether ah was made from what attr says: the same destination, the
 * same way there. A revalidation that finds this keeps the handle (no
 * new one to make, none to reap, nothing in flight disturbed).
 */
bool ipn_ah_same(const struct ipn_ah *ah, const struct rdma_ah_attr *attr)
{
	const struct rdma_ah_attr *a = &ah->attr;
	const struct ib_global_route *ga, *gb;

	if (a->type != attr->type || a->port_num != attr->port_num ||
	    rdma_ah_get_dlid(a) != rdma_ah_get_dlid(attr) ||
	    rdma_ah_get_sl(a) != rdma_ah_get_sl(attr) ||
	    rdma_ah_get_path_bits(a) != rdma_ah_get_path_bits(attr) ||
	    rdma_ah_get_static_rate(a) != rdma_ah_get_static_rate(attr) ||
	    rdma_ah_get_ah_flags(a) != rdma_ah_get_ah_flags(attr))
		return false;
	if (a->type == RDMA_AH_ATTR_TYPE_ROCE &&
	    !ether_addr_equal(a->roce.dmac, attr->roce.dmac))
		return false;
	if (!(rdma_ah_get_ah_flags(a) & IB_AH_GRH))
		return true;
	ga = rdma_ah_read_grh(a);
	gb = rdma_ah_read_grh(attr);
	return !memcmp(ga->dgid.raw, gb->dgid.raw, sizeof(ga->dgid.raw)) &&
	       ga->flow_label == gb->flow_label &&
	       ga->sgid_index == gb->sgid_index &&
	       ga->hop_limit == gb->hop_limit &&
	       ga->traffic_class == gb->traffic_class;
}

static void ipn_ah_release(struct kref *ref)
{
	struct ipn_ah *ah = container_of(ref, struct ipn_ah, ref);
	struct ipn_priv *priv = ah->priv;
	unsigned long flags;

	/* Any context (TX completion): destroy later, in process context. */
	spin_lock_irqsave(&priv->reap_lock, flags);
	list_add_tail(&ah->reap, &priv->ah_reap);
	spin_unlock_irqrestore(&priv->reap_lock, flags);
	queue_work(priv->wq, &priv->reap_work);
}

void ipn_ah_put(struct ipn_ah *ah)
{
	if (ah)
		kref_put(&ah->ref, ipn_ah_release);
}

/*
 * A batch for the handles of this reap: a free one, or when all hold
 * handles the newest, whose positions the caller moves on (its handles
 * then wait longer, never less). reap_mutex.
 */
static struct ipn_ah_batch *ipn_ah_batch_take(struct ipn_priv *priv)
{
	unsigned int i, n;

	lockdep_assert_held(&priv->reap_mutex);
	for (i = 1; i <= IPN_AH_BATCHES; i++) {
		n = (priv->ah_batch_last + i) % IPN_AH_BATCHES;
		if (list_empty(&priv->ah_batch[n].ahs)) {
			priv->ah_batch_last = n;
			break;
		}
	}
	return &priv->ah_batch[priv->ah_batch_last];
}

/*
 * Whether a send that may use the batch's handles is still in the ring
 * of a transmit queue; *q the first such queue.
 */
static bool ipn_ah_batch_busy(struct ipn_priv *priv,
			      const struct ipn_ah_batch *b, unsigned int *q)
{
	unsigned int i;

	for (i = 0; i < priv->txq_count; i++) {
		if (ipn_tx_in_ring(&priv->txq[i], b->pos[i])) {
			*q = i;
			return true;
		}
	}
	return false;
}

static void ipn_ah_batch_destroy(struct ipn_ah_batch *b)
{
	struct ipn_ah *ah, *tmp;

	list_for_each_entry_safe(ah, tmp, &b->ahs, reap) {
		list_del(&ah->reap);
		rdma_destroy_ah(ah->ah, RDMA_DESTROY_AH_SLEEPABLE);
		kfree(ah);
	}
}

/*
 * Destroy the handles released so far that no send uses any more (all:
 * every one, the QPs being gone). The handles first seen here form a
 * batch with the ring position of the last send on every transmit queue
 * that may use them; a batch with a position still in its queue's ring
 * waits, and that queue's TX NAPI queues the reap again once its tail
 * passes the furthest such position (ah_wait_pos). A batch keeps its
 * positions: a ring never idle cannot hold one back for ever.
 * reap_mutex makes a reap whole:
 * one that returns has waited for any other in progress (the reap work
 * may have spliced the list away and still be destroying handles of a
 * PD about to go, review M2). It is taken under ctl_mutex, never the
 * other way round: the work does not wait for the control work.
 */
void ipn_ah_reap(struct ipn_priv *priv, bool all)
{
	unsigned int far[IPN_TXQ_MAX], i, q;
	struct ipn_ah_batch *b;
	unsigned long waits;
	unsigned long flags;
	LIST_HEAD(fresh);

	mutex_lock(&priv->reap_mutex);
	spin_lock_irqsave(&priv->reap_lock, flags);
	list_splice_init(&priv->ah_reap, &fresh);
	spin_unlock_irqrestore(&priv->reap_lock, flags);
	if (!list_empty(&fresh)) {
		/* Every transmit that read one has put its send in a ring. */
		synchronize_rcu();
		b = ipn_ah_batch_take(priv);
		for (q = 0; q < priv->txq_count; q++)
			b->pos[q] = READ_ONCE(priv->txq[q].head) - 1;
		list_splice_tail(&fresh, &b->ahs);
	}
again:
	waits = 0;
	for (i = 0; i < IPN_AH_BATCHES; i++) {
		b = &priv->ah_batch[i];
		if (list_empty(&b->ahs))
			continue;
		if (all || !ipn_ah_batch_busy(priv, b, &q)) {
			ipn_ah_batch_destroy(b);
			continue;
		}
		/* Woken when queue q's tail passes the furthest of them. */
		if (!(waits & BIT(q)) ||
		    b->pos[q] - READ_ONCE(priv->txq[q].tail) >
		    far[q] - READ_ONCE(priv->txq[q].tail))
			far[q] = b->pos[q];
		waits |= BIT(q);
	}
	for_each_set_bit(q, &waits, IPN_TXQ_MAX) {
		WRITE_ONCE(priv->txq[q].ah_wait_pos, far[q]);
		/* Pairs with the smp_rmb() in ipn_tx_poll: the position, then the flag. */
		smp_wmb();
		WRITE_ONCE(priv->txq[q].ah_waiting, true);
	}
	/*
	 * The flags, then the rings read again; pairs with the smp_mb() in
	 * ipn_tx_poll (the tail written, then the flag read): either TX
	 * NAPI sees the flag or this sees the tail.
	 */
	smp_mb();
	for_each_set_bit(q, &waits, IPN_TXQ_MAX) {
		if (!ipn_tx_in_ring(&priv->txq[q], far[q])) {
			WRITE_ONCE(priv->txq[q].ah_waiting, false);
			goto again;
		}
	}
	mutex_unlock(&priv->reap_mutex);
}

void ipn_ah_reap_work(struct work_struct *work)
{
	ipn_ah_reap(container_of(work, struct ipn_priv, reap_work), false);
}
