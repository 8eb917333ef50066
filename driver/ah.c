// SPDX-License-Identifier: GPL-2.0
/*
 * ah.c - address handles: one reference per user (the path or group that
 * caches it); the last put moves it to the reap list, and it is destroyed
 * in process context once no send can use it. Sends hold no reference
 * (issue 23: two atomics a packet on a line shared by the CPUs that send
 * and complete). The reap waits for an RCU grace period, after which
 * every transmit that found the handle has put its send in the ring,
 * notes the ring's head then, and waits for the tail to pass it.
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
 * Destroy the handles released so far that no send uses any more (all:
 * every one, the QP being gone). A handle first seen here is given the
 * ring position of the last send that may use it; those whose position
 * is still in the ring go back to the list, and TX NAPI queues the reap
 * again once the tail passes the last of them (ah_wait_pos). Each keeps
 * its position: a ring never idle cannot hold one back for ever.
 * reap_mutex makes a reap whole:
 * one that returns has waited for any other in progress (the reap work
 * may have spliced the list away and still be destroying handles of a
 * PD about to go, review M2). It is taken under ctl_mutex, never the
 * other way round: the work does not wait for the control work.
 */
void ipn_ah_reap(struct ipn_priv *priv, bool all)
{
	unsigned int tail, far, last;
	struct ipn_ah *ah, *tmp;
	unsigned long flags;
	bool fresh = false;
	LIST_HEAD(dead);
	LIST_HEAD(busy);

	mutex_lock(&priv->reap_mutex);
	spin_lock_irqsave(&priv->reap_lock, flags);
	list_splice_init(&priv->ah_reap, &dead);
	spin_unlock_irqrestore(&priv->reap_lock, flags);
	if (list_empty(&dead))
		goto out;
	list_for_each_entry(ah, &dead, reap)
		fresh |= !ah->retire_set;
	if (fresh) {
		/* Every transmit that read one has put its send in the ring. */
		synchronize_rcu();
		last = READ_ONCE(priv->tx_head) - 1;
		list_for_each_entry(ah, &dead, reap) {
			if (!ah->retire_set)
				ah->retire_pos = last;
			ah->retire_set = true;
		}
	}
again:
	tail = READ_ONCE(priv->tx_tail);
	far = tail;
	list_for_each_entry_safe(ah, tmp, &dead, reap) {
		unsigned int pos = ah->retire_pos;

		if (!all && ipn_tx_in_ring(priv, pos)) {
			if (pos - tail >= far - tail)
				far = pos;
			list_move_tail(&ah->reap, &busy);
			continue;
		}
		/* Unlinked: the list is walked and spliced again below. */
		list_del(&ah->reap);
		rdma_destroy_ah(ah->ah, RDMA_DESTROY_AH_SLEEPABLE);
		kfree(ah);
	}
	if (list_empty(&busy))
		goto out;
	WRITE_ONCE(priv->ah_wait_pos, far);
	/* Pairs with the smp_rmb() in ipn_tx_poll: the position, then the flag. */
	smp_wmb();
	WRITE_ONCE(priv->ah_waiting, true);
	/*
	 * The flag, then the ring read again; pairs with the smp_mb() in
	 * ipn_tx_poll (the tail written, then the flag read): either TX
	 * NAPI sees the flag or this sees the tail.
	 */
	smp_mb();
	if (!ipn_tx_in_ring(priv, far)) {
		WRITE_ONCE(priv->ah_waiting, false);
		list_splice_init(&busy, &dead);
		goto again;
	}
	spin_lock_irqsave(&priv->reap_lock, flags);
	list_splice(&busy, &priv->ah_reap);
	spin_unlock_irqrestore(&priv->reap_lock, flags);
out:
	mutex_unlock(&priv->reap_mutex);
}

void ipn_ah_reap_work(struct work_struct *work)
{
	ipn_ah_reap(container_of(work, struct ipn_priv, reap_work), false);
}
