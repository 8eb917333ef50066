// SPDX-License-Identifier: GPL-2.0
/*
 * cm.c - connected mode (RFC 4755): the connections and their RC QPs,
 * moved by ib_cm; the shared receive queue is in srq.c. The core (driver/core/cm.cpp)
 * decides; this file does the verbs and CM calls.
 *
 * Each node sends on the connections it made (struct ipn_cm_tx, one per
 * peer address) and receives on those its peers made to it (struct
 * ipn_cm_rx), all of whose QPs take their receive buffers from one SRQ
 * (s3.3). Sends share the UD send ring and send CQ: the ring's slots then
 * complete out of order, and the tail follows the oldest slot still out.
 *
 * Locking: the connection tables and the core's objects are under
 * priv->lock. CM IDs and QPs are made and destroyed in the control work
 * (ctl_mutex). CM event handlers take priv->lock only: ib_destroy_cm_id(),
 * called under ctl_mutex, waits for them.
 */
#include <linux/slab.h>
#include <linux/random.h>
#include <net/icmp.h>
#include <linux/icmpv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include "ipoib_ng.h"

/* ------------------------------------------------------------------ */
/* Connections to us (passive)                                          */
/* ------------------------------------------------------------------ */

static void ipn_cm_rx_qp_event(struct ib_event *event, void *ctx)
{
	struct ipn_cm_rx *rx = ctx;
	struct ib_cm_id *id;

	/*
	 * Data before the RTU: the QP is established (IBA 12.9.7.3). Review
	 * L4: under RCU, so that the ID, once the connection is going
	 * (ipn_cm_rx_to_err), is destroyed only after this handler is done
	 * with it (a preemptible thread on PREEMPT_RT).
	 */
	if (event->event == IB_EVENT_COMM_EST) {
		rcu_read_lock();
		id = READ_ONCE(rx->id);
		if (id && !test_bit(IPN_CM_RX_GOING, &rx->drain)) {
			ipn_kunit_cm_comm_est(rx);
			ib_cm_notify(id, event->event);
		}
		rcu_read_unlock();
	}
	/*
	 * Review H1: the QP in ERR takes no more from the SRQ; the control
	 * work posts its drain (any context here: a bit and a kick).
	 */
	if (event->event == IB_EVENT_QP_LAST_WQE_REACHED) {
		set_bit(IPN_CM_RX_LAST_WQE, &rx->drain);
		ipn_ctl_kick(rx->priv);
	}
}

/* To the dead list, for the control work to destroy. priv->lock held. */
static void __ipn_cm_rx_retire(struct ipn_priv *priv, struct ipn_cm_rx *rx)
{
	lockdep_assert_held(&priv->lock);
	if (rx->dead)
		return;
	rx->dead = true;
	list_move_tail(&rx->list, &priv->cm_rx_dead);
	/* Still counted (cm_rx_count) until its QP is destroyed: H3. */
	/* Now, not when destroyed: a successor's up may come first. */
	ipn_genl_conn_event(priv, rx->peer, true, false, 0);
}

IPN_TESTABLE void ipn_cm_rx_retire(struct ipn_priv *priv,
				   struct ipn_cm_rx *rx)
{
	spin_lock_bh(&priv->lock);
	__ipn_cm_rx_retire(priv, rx);
	spin_unlock_bh(&priv->lock);
	ipn_ctl_kick(priv);
}

/* A connection to us from the same peer address, or NULL. priv->lock. */
static struct ipn_cm_rx *ipn_cm_rx_of_peer(struct ipn_priv *priv,
					   const u8 *peer)
{
	struct ipn_cm_rx *rx;

	lockdep_assert_held(&priv->lock);
	list_for_each_entry(rx, &priv->cm_rx, list)
		if (!memcmp(rx->peer, peer, IPC_ADDR_LEN))
			return rx;
	return NULL;
}

/*
 * The core's rule for a REQ from peer address hw (review 2026-12 H3).
 * priv->lock held.
 */
static enum ipc_cm_admit ipn_cm_req_admit(struct ipn_priv *priv, const u8 *hw)
{
	struct ipn_cm_rx *old = ipn_cm_rx_of_peer(priv, hw);

	lockdep_assert_held(&priv->lock);
	return ipc_cm_req_admit(priv->cm_rx_count, READ_ONCE(ipn_cm_rx_max),
				!!old, old ? READ_ONCE(old->last_rx_ms) : 0,
				ipn_now_ms());
}

static void ipn_cm_req_refused(struct ipn_priv *priv, enum ipc_cm_admit why)
{
	ipn_inc(priv, cm_rejects);
	if (why == IPC_CM_REFUSE_LIVE)
		net_warn_ratelimited("%s: REQ in the name of a peer whose connection is in use: refused\n",
				     priv->dev->name);
	else
		net_warn_ratelimited("%s: %u connections to it: REQ refused (cm_rx_max)\n",
				     priv->dev->name,
				     READ_ONCE(priv->cm_rx_count));
}

/*
 * The QP to state with the CM's attributes. rq_psn: the passive side's
 * RTR comes before its REP, whose starting PSN the CM learns only when it
 * is sent, so it is given here (the PSN the REP will carry).
 */
static int ipn_cm_qp_move(struct ib_cm_id *id, struct ib_qp *qp,
			  enum ib_qp_state state, const u32 *rq_psn)
{
	struct ib_qp_attr attr = { .qp_state = state };
	int mask, ret;

	ret = ib_cm_init_qp_attr(id, &attr, &mask);
	if (ret)
		return ret;
	if (rq_psn)
		attr.rq_psn = *rq_psn;
	/* The REP's RNR count is the peer's to choose: never infinite. */
	if ((mask & IB_QP_RNR_RETRY) && attr.rnr_retry > IPN_CM_RNR_RETRY)
		attr.rnr_retry = IPN_CM_RNR_RETRY;
	return ib_modify_qp(qp, &attr, mask);
}

/* A REQ: a QP on our SRQ, to INIT and RTR, and the REP. */
IPN_TESTABLE int ipn_cm_req(struct ib_cm_id *id, const struct ib_cm_event *ev)
{
	struct ipn_priv *priv = id->context;
	struct ib_qp_init_attr qa = {};
	struct ib_cm_rep_param rep = {};
	u8 data[IPC_CM_PRIV_LEN];
	struct ipc_addr peer;
	struct ipn_cm_rx *rx, *old;
	u32 qpn, frame_max, psn;
	u8 hw[IPC_ADDR_LEN];
	enum ipc_cm_admit admit;
	int ret;

	/*
	 * Review 2026-12 M1: the listen ID is the whole device's; a REQ that
	 * came in through another port is from another fabric.
	 */
	if (ev->param.req_rcvd.port != priv->port) {
		ipn_inc(priv, cm_rejects);
		netdev_dbg(priv->dev, "REQ on port %u refused\n",
			   ev->param.req_rcvd.port);
		return -EINVAL;	/* the CM rejects it and frees the ID */
	}
	/*
	 * Review H2: only a REQ of this interface's partition; the CM would
	 * otherwise give the QP the P_Key index of the REQ's own P_Key.
	 */
	if (!ipc_cm_req_pkey_ok(be16_to_cpu(ev->param.req_rcvd.primary_path->pkey),
				priv->pkey, priv->roce)) {
		ipn_inc(priv, cm_rejects);
		netdev_dbg(priv->dev, "REQ of P_Key 0x%04x refused\n",
			   be16_to_cpu(ev->param.req_rcvd.primary_path->pkey));
		return -EACCES;	/* the CM rejects it and frees the ID */
	}
	if (ipc_cm_priv_parse(ev->private_data, IB_CM_REQ_PRIVATE_DATA_SIZE,
			      &qpn, &frame_max))
		return -EINVAL;	/* the CM rejects it and frees the ID */
	peer.flags = IPC_ADDR_FLAG_CM;
	peer.qpn = qpn;
	memcpy(peer.gid, ev->param.req_rcvd.primary_path->dgid.raw,
	       IPC_GID_LEN);
	ipc_addr_encode(&peer, hw);
	spin_lock_bh(&priv->lock);
	admit = ipn_cm_req_admit(priv, hw);
	spin_unlock_bh(&priv->lock);
	if (admit >= IPC_CM_REFUSE_FULL) {
		ipn_cm_req_refused(priv, admit);
		return -EBUSY;
	}
	rx = kzalloc(sizeof(*rx), GFP_KERNEL);
	if (!rx)
		return -ENOMEM;
	rx->priv = priv;
	memcpy(rx->peer, hw, sizeof(rx->peer));

	/* Its one send is the drain, polled by CM NAPI after its receives. */
	qa.send_cq = priv->cm_rcq;
	qa.recv_cq = priv->cm_rcq;
	qa.srq = priv->srq;
	qa.cap.max_send_wr = 1;
	qa.cap.max_send_sge = 1;
	qa.sq_sig_type = IB_SIGNAL_ALL_WR;
	qa.qp_type = IB_QPT_RC;
	qa.event_handler = ipn_cm_rx_qp_event;
	qa.qp_context = rx;
	rx->qp = ib_create_qp(priv->pd, &qa);
	if (IS_ERR(rx->qp)) {
		ret = PTR_ERR(rx->qp);
		goto err_free;
	}
	psn = get_random_u32() & 0xffffff;
	ret = ipn_cm_qp_move(id, rx->qp, IB_QPS_INIT, NULL);
	if (!ret)
		ret = ipn_cm_qp_move(id, rx->qp, IB_QPS_RTR, &psn);
	if (ret)
		goto err_qp;

	spin_lock_bh(&priv->lock);
	if (!priv->cm_accepting) {
		spin_unlock_bh(&priv->lock);
		ret = -ENETDOWN;
		goto err_qp;
	}
	/* Again: the table may have changed while the QP was made. */
	admit = ipn_cm_req_admit(priv, rx->peer);
	if (admit >= IPC_CM_REFUSE_FULL) {
		spin_unlock_bh(&priv->lock);
		ipn_cm_req_refused(priv, admit);
		ret = -EBUSY;
		goto err_qp;
	}
	/* The same peer address, quiet for the hold: it restarted. */
	old = admit == IPC_CM_ADMIT_REPLACE ?
	      ipn_cm_rx_of_peer(priv, rx->peer) : NULL;
	if (old)
		__ipn_cm_rx_retire(priv, old);
	rx->id = id;
	rx->last_rx_ms = ipn_now_ms();
	rx->since_ms = rx->last_rx_ms;
	id->context = rx;
	list_add_tail(&rx->list, &priv->cm_rx);
	priv->cm_rx_count++;
	ipn_tick_arm(priv, rx->last_rx_ms + priv->cm_cfg.idle_ms);
	hash_add_rcu(priv->cm_rx_qps, &rx->qp_node, hash_ptr(rx->qp, 32));
	spin_unlock_bh(&priv->lock);
	if (old)
		ipn_ctl_kick(priv);

	ipc_cm_priv_build(priv->ifid.qpn, priv->cm_frame_max, data);
	rep.qp_num = rx->qp->qp_num;
	rep.starting_psn = psn;
	rep.private_data = data;
	rep.private_data_len = sizeof(data);
	rep.rnr_retry_count = IPN_CM_RNR_RETRY;
	rep.srq = 1;
	ret = ib_send_cm_rep(id, &rep);
	if (ret) {
		netdev_dbg(priv->dev, "cannot send the REP: %d\n", ret);
		/* The ID stays ours: the retired connection destroys it. */
		ipn_cm_rx_retire(priv, rx);
		return 0;
	}
	ipn_inc(priv, cm_accepts);
	return 0;

err_qp:
	ib_destroy_qp(rx->qp);
err_free:
	kfree(rx);
	id->context = priv;
	return ret;
}

static int ipn_cm_rx_handler(struct ib_cm_id *id,
			     const struct ib_cm_event *ev)
{
	struct ipn_cm_rx *rx = id->context;

	switch (ev->event) {
	case IB_CM_REQ_RECEIVED:
		return ipn_cm_req(id, ev);
	case IB_CM_RTU_RECEIVED:
	case IB_CM_USER_ESTABLISHED:
		if (ipn_cm_qp_move(id, rx->qp, IB_QPS_RTS, NULL))
			ipn_cm_rx_retire(rx->priv, rx);
		else
			ipn_genl_conn_event(rx->priv, rx->peer, true, true, 0);
		return 0;
	case IB_CM_DREQ_RECEIVED:
		ib_send_cm_drep(id, NULL, 0);
		fallthrough;
	case IB_CM_REJ_RECEIVED:
	case IB_CM_REP_ERROR:
	case IB_CM_DREQ_ERROR:
		ipn_cm_rx_retire(rx->priv, rx);
		return 0;
	default:
		return 0;
	}
}

/*
 * The retired connections to us: their QPs to ERR, their IDs destroyed;
 * each QP stays on cm_rx_drain until it has given its SRQ buffers back
 * (review H1, ipn_cm_rx_drain_run). ctl_mutex held.
 */
static void ipn_cm_rx_to_err(struct ipn_priv *priv)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct ipn_cm_rx *rx, *tmp;
	LIST_HEAD(going);
	u64 now;

	lockdep_assert_held(&priv->ctl_mutex);
	spin_lock_bh(&priv->lock);
	list_splice_tail_init(&priv->cm_rx_dead, &going);
	spin_unlock_bh(&priv->lock);
	if (list_empty(&going))
		return;
	/*
	 * Review L1: the QP first, so that no COMM_EST event comes for an
	 * ID being destroyed; L4: one that came is done with the ID after
	 * the grace period. A QP that does not go to ERR is not drained.
	 */
	list_for_each_entry(rx, &going, list) {
		if (ib_modify_qp(rx->qp, &attr, IB_QP_STATE))
			set_bit(IPN_CM_RX_DRAINED, &rx->drain);
		set_bit(IPN_CM_RX_GOING, &rx->drain);
	}
	synchronize_net();
	now = ipn_now_ms();
	list_for_each_entry_safe(rx, tmp, &going, list) {
		ib_destroy_cm_id(rx->id);	/* waits for its handlers */
		WRITE_ONCE(rx->id, NULL);
		rx->drain_at = now + IPN_CM_LAST_WQE_MS;
		list_move_tail(&rx->list, &priv->cm_rx_drain);
	}
}

/* The QP, then the memory (RCU): NAPI finds rx by its QP. ctl_mutex. */
static void ipn_cm_rx_free(struct ipn_priv *priv, struct ipn_cm_rx *rx)
{
	lockdep_assert_held(&priv->ctl_mutex);
	list_del(&rx->list);
	if (test_bit(IPN_CM_RX_POSTED, &rx->drain))
		priv->cm_drains--;
	spin_lock_bh(&priv->lock);
	hash_del_rcu(&rx->qp_node);
	priv->cm_rx_count--;	/* counted from its REQ to here: H3 */
	spin_unlock_bh(&priv->lock);
	/* A late completion is matched by pointer only, never followed. */
	ib_destroy_qp(rx->qp);
	kfree_rcu(rx, rcu);
}

/*
 * Review H1: an RC QP takes an SRQ buffer at a message's first packet.
 * Destroyed before that buffer's completion was polled, the buffer is
 * lost: mlx5 purges a destroyed QP's completions, rxe of 6.12 never
 * completes the message in progress. So (IBA 10.3.1, as ib_ipoib does):
 * ERR, then the last-WQE event, then a send WR flushed behind the
 * receives, polled by CM NAPI, then the QP goes. Returns the earliest
 * deadline of the connections still draining. ctl_mutex held.
 */
static u64 ipn_cm_rx_drain_run(struct ipn_priv *priv, u64 now)
{
	struct ib_send_wr drain = {
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	u64 next = IPC_NO_DEADLINE;
	struct ipn_cm_rx *rx, *tmp;

	lockdep_assert_held(&priv->ctl_mutex);
	list_for_each_entry_safe(rx, tmp, &priv->cm_rx_drain, list) {
		if (test_bit(IPN_CM_RX_DRAINED, &rx->drain)) {
			ipn_inc(priv, cm_rx_drains);
			ipn_cm_rx_free(priv, rx);
			continue;
		}
		if (test_bit(IPN_CM_RX_POSTED, &rx->drain)) {
			if (now < rx->drain_at) {
				next = min(next, rx->drain_at);
				continue;
			}
			netdev_dbg(priv->dev, "QP %u: no drain completion\n",
				   rx->qp->qp_num);
			ipn_inc(priv, cm_drain_timeouts);
			ipn_cm_rx_free(priv, rx);
			continue;
		}
		/* Without the event, once it is overdue (rxe of 6.1). */
		if (!test_bit(IPN_CM_RX_LAST_WQE, &rx->drain) &&
		    now < rx->drain_at) {
			next = min(next, rx->drain_at);
			continue;
		}
		if (priv->cm_drains >= IPN_CM_DRAINS_MAX)
			continue;	/* a drain that completes kicks the work */
		/* Never 0: the ID a connection has before its drain. */
		rx->drain_id = ++priv->cm_drain_ids ?: ++priv->cm_drain_ids;
		drain.wr_id = IPN_CM_DRAIN_WRID | rx->drain_id;
		if (ib_post_send(rx->qp, &drain, NULL)) {
			ipn_inc(priv, cm_drain_timeouts);
			ipn_cm_rx_free(priv, rx);
			continue;
		}
		priv->cm_drains++;
		set_bit(IPN_CM_RX_POSTED, &rx->drain);
		rx->drain_at = now + IPN_CM_DRAIN_MS;
		next = min(next, rx->drain_at);
	}
	return next;
}

/* ------------------------------------------------------------------ */
/* Connections we make (active)                                         */
/* ------------------------------------------------------------------ */

static const struct ipn_entry_kind ipn_cm_kind;

/* Carry out the core's verdict (entry.c). priv->lock held. */
static void ipn_cm_apply(struct ipn_priv *priv, struct ipn_cm_tx *tx,
			 const struct ipc_result *r, struct sk_buff *skb)
{
	ipn_entry_apply(priv, &tx->e, r, skb);
}

/*
 * The connection to addr, made if need be. NULL: none (no memory, or
 * cm_tx_max connections, or IPN_CM_TX_PER_GID to addr's GID: review M3),
 * the frame goes over UD. priv->lock held.
 */
static struct ipn_cm_tx *ipn_cm_tx_get(struct ipn_priv *priv, const u8 *addr)
{
	/* By the GID alone: a peer's addresses share a bucket. */
	u32 key = ipn_gid_key(priv, ipn_addr_gid(addr));
	unsigned int same_gid = 0;
	struct ipn_cm_tx *tx;

	lockdep_assert_held(&priv->lock);
	hash_for_each_possible(priv->cm_tx, tx, node, key) {
		if (ipc_addr_same(tx->addr, addr))
			return tx;
		same_gid += !memcmp(ipn_addr_gid(tx->addr),
				    ipn_addr_gid(addr), IPC_GID_LEN);
	}
	if (same_gid >= IPN_CM_TX_PER_GID ||
	    priv->cm_tx_count >= READ_ONCE(ipn_cm_tx_max)) {
		ipn_inc(priv, cm_tx_refused);
		if (!priv->cm_tx_full_told) {
			priv->cm_tx_full_told = true;
			netdev_warn(priv->dev, "connected mode: %u connections, %u to %pI6c (cm_tx_max, %d per GID): more go over datagrams (cm_tx_refused)\n",
				    priv->cm_tx_count, same_gid,
				    ipn_addr_gid(addr), IPN_CM_TX_PER_GID);
		}
		return NULL;
	}
	tx = ipn_fault() ? NULL : kzalloc(sizeof(*tx), GFP_ATOMIC);
	if (!tx)
		return NULL;
	tx->priv = priv;
	memcpy(tx->addr, addr, IPC_ADDR_LEN);
	tx->addr[0] = IPC_ADDR_FLAG_CM;
	ipc_cm_init(&tx->st);
	ipn_entry_init(&tx->e, &ipn_cm_kind);
	atomic_set(&tx->inflight, 0);
	tx->since_ms = ipn_now_ms();
	hash_add(priv->cm_tx, &tx->node, key);
	priv->cm_tx_count++;
	return tx;
}

/*
 * A unicast frame (skb at the pseudo header) to a peer in connected mode,
 * whose path is valid: the core says over which QP. priv->lock held.
 */
enum ipn_cm_route ipn_cm_xmit(struct ipn_priv *priv, struct sk_buff *skb,
			      u64 now, struct ipn_cm_tx **txp, u32 *mtu)
{
	u32 len = skb->len - IPN_PSEUDO_LEN;
	struct ipn_cm_tx *tx;
	struct ipc_result r;

	lockdep_assert_held(&priv->lock);
	tx = ipn_cm_tx_get(priv, skb->data);
	if (!tx)
		return IPN_CM_UD;
	ipc_cm_tx(&tx->st, &priv->cm_cfg, now, len, ipn_ud_frame_max(priv), &r);
	if (r.actions & IPC_ACT_SEND) {
		ipn_cm_apply(priv, tx, &r, NULL);
		/* The QP stays until it is sent; the stall clock starts. */
		if (atomic_inc_return(&tx->inflight) == 1) {
			WRITE_ONCE(tx->progress_ms, now);
			ipn_tick_arm(priv, now + IPN_CM_STALL_MS);
		}
		*txp = tx;
		return IPN_CM_RC;
	}
	if (r.actions & IPC_ACT_VIA_UD) {
		ipn_cm_apply(priv, tx, &r, NULL);
		return IPN_CM_UD;
	}
	if ((r.actions & IPC_ACT_DROP) && r.reason == IPC_R_TOO_BIG) {
		ipn_cm_apply(priv, tx, &r, NULL);	/* the caller drops it */
		*mtu = ipc_cm_frame_max(&tx->st, ipn_ud_frame_max(priv)) -
		       IPC_HDR_LEN;
		return IPN_CM_TOO_BIG;
	}
	ipn_cm_apply(priv, tx, &r, skb);
	return IPN_CM_CONSUMED;
}

/*
 * A frame too big for where it goes: the sender learns the MTU (ICMP
 * "fragmentation needed", ICMPv6 "packet too big"), the frame is dropped.
 * skb at the pseudo header, the network header set by the stack. In
 * datagram mode the stack has released the route (IFF_XMIT_DST_RELEASE)
 * and IPv4's message cannot be sent: only a frame queued across an MTU
 * shrink gets here then; it is counted (drop_too_big).
 */
void ipn_tx_too_big(struct ipn_priv *priv, struct sk_buff *skb, u32 mtu)
{
	if (skb->protocol == htons(ETH_P_IP))
		icmp_ndo_send(skb, ICMP_DEST_UNREACH, ICMP_FRAG_NEEDED,
			      htonl(mtu));
	else if (skb->protocol == htons(ETH_P_IPV6))
		icmpv6_ndo_send(skb, ICMPV6_PKT_TOOBIG, 0,
				max_t(u32, mtu, IPV6_MIN_MTU));
	ipn_drop(priv, skb, IPC_R_TOO_BIG, true);
}

/* A send on tx's QP failed (not flushed): NAPI context. */
void ipn_cm_tx_error(struct ipn_priv *priv, struct ipn_cm_tx *tx,
		     struct ib_qp *qp)
{
	spin_lock(&priv->lock);
	if (!tx->e.dead) {
		tx->broken_qp = qp;
		ipn_entry_queue_ops(priv, &tx->e, IPN_OP_BROKEN);
	}
	spin_unlock(&priv->lock);
}

static void ipn_cm_tx_event(struct ipn_cm_tx *tx, u32 op, int status,
			    u32 frame_max)
{
	struct ipn_priv *priv = tx->priv;

	spin_lock_bh(&priv->lock);
	if (!tx->e.dead) {
		tx->conn_status = status;
		tx->conn_frame_max = frame_max;
		tx->broken_qp = tx->qp;
		ipn_entry_queue_ops(priv, &tx->e, op);
	}
	spin_unlock_bh(&priv->lock);
}

/* The REP: check its private data, QP to RTR and RTS, the RTU. */
static int ipn_cm_rep(struct ipn_cm_tx *tx, struct ib_cm_id *id,
		      const struct ib_cm_event *ev, u32 *frame_max)
{
	u32 qpn;
	int ret;

	ret = ipc_cm_priv_parse(ev->private_data, IB_CM_REP_PRIVATE_DATA_SIZE,
				&qpn, frame_max);
	if (ret || qpn != ipn_addr_qpn(tx->addr))
		return -EPROTO;	/* not the interface we asked for */
	ret = ipn_cm_qp_move(id, tx->qp, IB_QPS_RTR, NULL);
	if (!ret)
		ret = ipn_cm_qp_move(id, tx->qp, IB_QPS_RTS, NULL);
	if (!ret)
		ret = ib_send_cm_rtu(id, NULL, 0);
	return ret;
}

static int ipn_cm_tx_handler(struct ib_cm_id *id,
			     const struct ib_cm_event *ev)
{
	struct ipn_cm_tx *tx = id->context;
	u32 frame_max = 0;
	int ret;

	switch (ev->event) {
	case IB_CM_REP_RECEIVED:
		ret = ipn_cm_rep(tx, id, ev, &frame_max);
		ipn_cm_tx_event(tx, IPN_OP_DONE, ret, frame_max);
		return 0;
	case IB_CM_REJ_RECEIVED:
		ipn_cm_tx_event(tx, IPN_OP_DONE, -ECONNREFUSED, 0);
		return 0;
	case IB_CM_REQ_ERROR:
	case IB_CM_REP_ERROR:
		ipn_cm_tx_event(tx, IPN_OP_DONE, -ETIMEDOUT, 0);
		return 0;
	case IB_CM_DREQ_RECEIVED:
		ib_send_cm_drep(id, NULL, 0);
		ipn_cm_tx_event(tx, IPN_OP_BROKEN, 0, 0);
		return 0;
	default:
		return 0;
	}
}

/*
 * The path record for the REQ. InfiniBand: the SA's, kept with the path.
 * RoCE: made from the resolved address as rdma_cm does (dmac, GIDs, hop
 * limit; P_Key 0xffff), as the installed handle has it: path->attr is the
 * last query's, half filled while a revalidation runs (review 2026-12
 * L3: a zero DMAC). priv->lock held.
 */
IPN_TESTABLE int ipn_cm_path_rec(struct ipn_priv *priv, const u8 *gid,
				 struct sa_path_rec *rec)
{
	struct ipn_path *path = ipn_path_find(priv, gid);
	const struct rdma_ah_attr *ah;

	lockdep_assert_held(&priv->lock);
	if (!path || !ipc_path_usable(&path->st))
		return -EHOSTUNREACH;
	if (!priv->roce) {
		if (!path->rec_valid)
			return -EHOSTUNREACH;
		*rec = path->rec;
		return 0;
	}
	if (!path->ah)
		return -EHOSTUNREACH;
	ah = &path->ah->attr;
	memset(rec, 0, sizeof(*rec));
	rec->rec_type = SA_PATH_REC_TYPE_ROCE_V2;
	memcpy(rec->dgid.raw, gid, IPC_GID_LEN);
	memcpy(rec->sgid.raw, priv->ifid.gid, IPC_GID_LEN);
	sa_path_set_dmac(rec, (u8 *)ah->roce.dmac);
	rec->hop_limit = ah->grh.hop_limit;
	rec->traffic_class = ah->grh.traffic_class;
	rec->flow_label = cpu_to_be32(ah->grh.flow_label);
	rec->reversible = 1;
	rec->numb_path = 1;
	rec->pkey = cpu_to_be16(IPC_PKEY_DEFAULT);
	rec->sl = rdma_ah_get_sl(ah);
	rec->mtu_selector = IB_SA_EQ;
	rec->mtu = ipc_ib_mtu_enum(ipn_port_ib_mtu(priv));
	rec->rate_selector = IB_SA_EQ;
	rec->rate = IB_RATE_PORT_CURRENT;
	rec->packet_life_time_selector = IB_SA_EQ;
	rec->packet_life_time = 18;	/* 1 s: rdma_cm's for RoCE */
	return 0;
}

/* IPC_ACT_CONNECT: an RC QP in INIT, a CM ID, the REQ. Control context. */
static int ipn_cm_connect(struct ipn_priv *priv, struct ipn_cm_tx *tx)
{
	const struct ib_gid_attr *sgid_attr = NULL;
	struct ib_qp_init_attr qa = {};
	struct ib_cm_req_param req = {};
	struct ib_qp_attr attr = {};
	u8 data[IPC_CM_PRIV_LEN];
	struct sa_path_rec rec;
	int ret;

	spin_lock_bh(&priv->lock);
	ret = ipn_cm_path_rec(priv, ipn_addr_gid(tx->addr), &rec);
	spin_unlock_bh(&priv->lock);
	if (ret)
		return ret;

	qa.send_cq = priv->txq[0].cq;	/* its sends: queue 0's ring */
	qa.recv_cq = priv->cm_rcq;
	qa.cap.max_send_wr = priv->tx_size;
	qa.cap.max_send_sge = priv->max_sge;
	qa.cap.max_recv_wr = 1;
	qa.cap.max_recv_sge = 1;
	qa.sq_sig_type = IB_SIGNAL_ALL_WR;
	qa.qp_type = IB_QPT_RC;
	qa.qp_context = tx;
	tx->qp = ipn_fault() ? ERR_PTR(-ENOMEM) : ib_create_qp(priv->pd, &qa);
	if (IS_ERR(tx->qp)) {
		ret = PTR_ERR(tx->qp);
		tx->qp = NULL;
		return ret;
	}
	attr.qp_state = IB_QPS_INIT;
	attr.pkey_index = priv->pkey_index;
	attr.port_num = priv->port;
	attr.qp_access_flags = 0;
	ret = ib_modify_qp(tx->qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;
	tx->id = ib_create_cm_id(priv->ca, ipn_cm_tx_handler, tx);
	if (IS_ERR(tx->id)) {
		ret = PTR_ERR(tx->id);
		tx->id = NULL;
		return ret;
	}
	if (priv->roce) {
		sgid_attr = rdma_get_gid_attr(priv->ca, priv->port,
					      READ_ONCE(priv->sgid_index));
		if (IS_ERR(sgid_attr))
			return PTR_ERR(sgid_attr);
		rec.rec_type = sa_conv_gid_to_pathrec_type(sgid_attr->gid_type);
	}
	ipc_cm_priv_build(priv->ifid.qpn, priv->cm_frame_max, data);
	req.primary_path = &rec;
	req.ppath_sgid_attr = sgid_attr;
	req.service_id = cpu_to_be64(ipc_cm_service_id(ipn_addr_qpn(tx->addr)));
	req.qp_num = tx->qp->qp_num;
	req.qp_type = IB_QPT_RC;
	req.starting_psn = get_random_u32() & 0xffffff;
	req.private_data = data;
	req.private_data_len = sizeof(data);
	req.responder_resources = 0;
	req.initiator_depth = 0;
	req.remote_cm_response_timeout = IPN_CM_RESP_TIMEOUT;
	req.local_cm_response_timeout = IPN_CM_RESP_TIMEOUT;
	req.retry_count = IPN_CM_RETRY;
	req.rnr_retry_count = IPN_CM_RNR_RETRY;
	req.max_cm_retries = IPN_CM_MAX_CM_RETRIES;
	ret = ib_send_cm_req(tx->id, &req);
	if (sgid_attr)
		rdma_put_gid_attr(sgid_attr);
	return ret;
}

/*
 * IPC_ACT_DISCONNECT: the ID first (a DREQ if established; afterwards no
 * handler runs), then the QP to ERR, which flushes its sends through TX
 * NAPI; once none is left the QP goes. Control context.
 */
/*
 * Tell netlink a connection we made came up or went down (or failed to
 * come up): a down only after an up, once. Control context.
 */
static void ipn_cm_tell(struct ipn_priv *priv, struct ipn_cm_tx *tx, bool up,
			int status)
{
	lockdep_assert_held(&priv->ctl_mutex);
	if (!up && tx->told_up == up && !status)
		return;
	tx->told_up = up;
	ipn_genl_conn_event(priv, tx->addr, false, up, status);
}

static void ipn_cm_disconnect(struct ipn_priv *priv, struct ipn_cm_tx *tx)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	ipn_cm_tell(priv, tx, false, 0);

	if (tx->id) {
		ib_destroy_cm_id(tx->id);
		tx->id = NULL;
	}
	if (!tx->qp)
		return;
	ib_modify_qp(tx->qp, &attr, IB_QP_STATE);
	if (!wait_event_timeout(priv->cm_wait, !atomic_read(&tx->inflight),
				5 * HZ))
		netdev_warn(priv->dev, "%d sends of a connection never completed\n",
			    atomic_read(&tx->inflight));
	ib_destroy_qp(tx->qp);
	tx->qp = NULL;
}

static struct ipn_cm_tx *ipn_cm_tx_of(struct ipn_entry *e)
{
	return container_of(e, struct ipn_cm_tx, e);
}

static void ipn_cm_unlink(struct ipn_priv *priv, struct ipn_entry *e)
{
	hash_del(&ipn_cm_tx_of(e)->node);
}

/* The connect's answer to the core. Control context. */
static void ipn_cm_connect_done(struct ipn_priv *priv, struct ipn_cm_tx *tx,
				int status, u32 frame_max)
{
	struct ipc_result r;
	bool was, up, failed;

	spin_lock_bh(&priv->lock);
	was = ipc_cm_connected(&tx->st);
	ipc_cm_connect_done(&tx->st, &priv->cm_cfg, ipn_now_ms(), status,
			    frame_max, &priv->rng, &r);
	up = ipc_cm_connected(&tx->st);
	failed = !up && ipc_cm_failed(&tx->st);
	if (up)
		ipn_inc(priv, cm_connects);
	else if (failed)
		ipn_inc(priv, cm_failures);
	if (up != was || failed)
		tx->since_ms = ipn_now_ms();
	ipn_cm_apply(priv, tx, &r, NULL);
	spin_unlock_bh(&priv->lock);
	/* A change only: up, or down (told up before) or failed. */
	if (up != was || failed)
		ipn_cm_tell(priv, tx, up, status);
}

/* DISCONNECT and CONNECT. Control context (rtnl, ctl_mutex). */
static void ipn_cm_perform(struct ipn_priv *priv, struct ipn_entry *e,
			   u32 act, int join_type)
{
	struct ipn_cm_tx *tx = ipn_cm_tx_of(e);
	int ret;

	if (act == IPC_ACT_DISCONNECT) {
		ipn_cm_disconnect(priv, tx);
		return;
	}
	if (act != IPC_ACT_CONNECT)
		return;
	ret = ipn_cm_connect(priv, tx);
	if (ret) {
		netdev_dbg(priv->dev, "cannot connect to %pI6c: %d\n",
			   ipn_addr_gid(tx->addr), ret);
		ipn_cm_connect_done(priv, tx, ret, 0);
	}
}

/* The CM's answer (IPN_OP_DONE), a broken connection (IPN_OP_BROKEN). */
static void ipn_cm_report(struct ipn_priv *priv, struct ipn_entry *e, u32 ops)
{
	struct ipn_cm_tx *tx = ipn_cm_tx_of(e);
	struct ipc_result r;
	bool broken;
	int status;
	u32 frame_max;

	if (ops & IPN_OP_DONE) {
		spin_lock_bh(&priv->lock);
		status = tx->conn_status;
		frame_max = tx->conn_frame_max;
		spin_unlock_bh(&priv->lock);
		ipn_cm_connect_done(priv, tx, status, frame_max);
	}
	spin_lock_bh(&priv->lock);
	broken = (ops & IPN_OP_BROKEN) && tx->broken_qp == tx->qp && tx->qp;
	if (broken) {
		ipc_cm_broken(&tx->st, &priv->cm_cfg, ipn_now_ms(), &r);
		tx->since_ms = ipn_now_ms();
		ipn_cm_apply(priv, tx, &r, NULL);
	}
	spin_unlock_bh(&priv->lock);
	if (broken)
		ipn_cm_tell(priv, tx, false, -ECONNRESET);
}

static void ipn_cm_release(struct ipn_priv *priv, struct ipn_entry *e)
{
	struct ipn_cm_tx *tx = ipn_cm_tx_of(e);

	ipn_cm_disconnect(priv, tx);
	/* Freed by ipn_cm_reap(), at once unless sends are out. */
	spin_lock_bh(&priv->lock);
	list_add_tail(&tx->zombie, &priv->cm_zombies);
	spin_unlock_bh(&priv->lock);
	ipn_cm_reap(priv, false);
}

static u64 ipn_cm_deadline(struct ipn_entry *e)
{
	return ipc_cm_deadline(&ipn_cm_tx_of(e)->st);
}

static void ipn_cm_timer(struct ipn_priv *priv, struct ipn_entry *e, u64 now,
			 struct ipc_result *r)
{
	ipc_cm_timer(&ipn_cm_tx_of(e)->st, &priv->cm_cfg, now, &priv->rng, r);
}

static const struct ipn_entry_kind ipn_cm_kind = {
	.work_off = offsetof(struct ipn_priv, cm_work),
	.drop_reason = IPC_R_NO_ROUTE,
	.unlink = ipn_cm_unlink,
	.deadline = ipn_cm_deadline,
	.timer = ipn_cm_timer,
	.perform = ipn_cm_perform,
	.report = ipn_cm_report,
	.release = ipn_cm_release,
};

/*
 * Free the connections the core freed whose sends all came back. Review
 * L2: one freed while sends of its QP never came back
 * (ipn_cm_disconnect gave up waiting for them and destroyed the QP) is
 * kept, because not every provider purges a destroyed QP's completions
 * from the CQ and each would reach it through its send ring slot. It goes
 * when its last send completes after all, or, with all, once the send
 * ring is drained (ipn_qp_down: no slot points at it any more). It still
 * counts against cm_tx_max until then. Control context.
 */
void ipn_cm_reap(struct ipn_priv *priv, bool all)
{
	struct ipn_cm_tx *tx, *tmp;
	LIST_HEAD(gone);

	spin_lock_bh(&priv->lock);
	list_for_each_entry_safe(tx, tmp, &priv->cm_zombies, zombie) {
		if (all || !atomic_read(&tx->inflight)) {
			list_move_tail(&tx->zombie, &gone);
			priv->cm_tx_count--;
		}
	}
	spin_unlock_bh(&priv->lock);
	list_for_each_entry_safe(tx, tmp, &gone, zombie)
		kfree(tx);
}

/*
 * The control work's share: connection ops, retired connections to ERR,
 * those drained destroyed, a starved SRQ restarted (H1).
 */
void ipn_cm_run(struct ipn_priv *priv)
{
	u64 now, next;

	lockdep_assert_held(&priv->ctl_mutex);
	ipn_entry_run(priv, &priv->cm_work);
	ipn_cm_rx_to_err(priv);
	now = ipn_now_ms();
	next = ipn_cm_rx_drain_run(priv, now);
	if (priv->cm_on &&
	    ipn_cm_srq_starved(priv, now, !list_empty(&priv->cm_rx_drain),
			       &next)) {
		netdev_warn(priv->dev, "connected mode: the shared receive queue starved, restarting it\n");
		ipn_inc(priv, cm_srq_restarts);
		ipn_cm_restart(priv);
	}
	if (next != IPC_NO_DEADLINE) {
		spin_lock_bh(&priv->lock);
		ipn_tick_arm(priv, next);
		spin_unlock_bh(&priv->lock);
	}
	ipn_cm_reap(priv, false);
}

/*
 * Review H4: sends in flight on tx's QP, none completed for
 * IPN_CM_STALL_MS: the connection is broken (the control work moves the
 * QP to ERR, which gives the ring its slots back). priv->lock held.
 */
static void ipn_cm_stall_check(struct ipn_priv *priv, struct ipn_cm_tx *tx,
			       u64 now)
{
	u64 stall_at = READ_ONCE(tx->progress_ms) + IPN_CM_STALL_MS;

	lockdep_assert_held(&priv->lock);
	if (tx->e.dead || !tx->qp || !atomic_read(&tx->inflight))
		return;
	if (stall_at > now) {
		ipn_tick_arm(priv, stall_at);
		return;
	}
	net_warn_ratelimited("%s: connection to %pI6c: %d sends stuck for %u ms, back to datagrams\n",
			     priv->dev->name, ipn_addr_gid(tx->addr),
			     atomic_read(&tx->inflight), IPN_CM_STALL_MS);
	ipn_inc(priv, cm_stalls);
	WRITE_ONCE(tx->progress_ms, now);	/* once per stall */
	tx->broken_qp = tx->qp;
	ipn_entry_queue_ops(priv, &tx->e, IPN_OP_BROKEN);
}

/*
 * What the connections need of the tick besides their machines' deadlines
 * (filed, entry.c): the passive ones' idle time and the stalled sends. A
 * walk bounded by cm_rx_max and cm_tx_max. priv->lock held.
 */
void ipn_cm_timers(struct ipn_priv *priv, u64 now)
{
	struct ipn_cm_rx *rx, *rtmp;
	struct hlist_node *tmp;
	struct ipn_cm_tx *tx;
	u64 idle_end;
	int b;

	lockdep_assert_held(&priv->lock);
	/*
	 * Review H3: a passive connection never sends, so it cannot see its
	 * peer die; one that received nothing for the idle time goes (the
	 * tick work kicks the control work, which destroys it).
	 */
	list_for_each_entry_safe(rx, rtmp, &priv->cm_rx, list) {
		idle_end = READ_ONCE(rx->last_rx_ms) + priv->cm_cfg.idle_ms;
		if (idle_end > now) {
			ipn_tick_arm(priv, idle_end);
			continue;
		}
		__ipn_cm_rx_retire(priv, rx);
	}

	hash_for_each_safe(priv->cm_tx, b, tmp, tx, node)
		ipn_cm_stall_check(priv, tx, now);
}

/* ------------------------------------------------------------------ */
/* Start and stop with the interface                                    */
/* ------------------------------------------------------------------ */

/* Connected mode on an opening interface: SRQ, listener. ctl_mutex held. */
int ipn_cm_start(struct ipn_priv *priv)
{
	struct ib_cm_id *id;
	int ret;

	lockdep_assert_held(&priv->ctl_mutex);
	if (!priv->cm_mode)
		return 0;
	ret = ipn_cm_verbs_create(priv);
	if (ret)
		return ret;
	id = ib_create_cm_id(priv->ca, ipn_cm_rx_handler, priv);
	if (IS_ERR(id)) {
		ret = PTR_ERR(id);
		goto err;
	}
	ret = ib_cm_listen(id, cpu_to_be64(ipc_cm_service_id(priv->ifid.qpn)));
	if (ret) {
		ib_destroy_cm_id(id);
		goto err;
	}
	priv->cm_listen = id;
	napi_enable(&priv->cm_napi);
	ib_req_notify_cq(priv->cm_rcq, IB_CQ_NEXT_COMP);
	spin_lock_bh(&priv->lock);
	priv->cm_accepting = true;
	priv->cm_on = true;
	spin_unlock_bh(&priv->lock);
	return 0;
err:
	ipn_cm_verbs_destroy(priv);
	return ret;
}

/*
 * Every connection goes, both ways, then the SRQ. TX NAPI still runs
 * (the flushed sends complete through it). ctl_mutex held.
 */
void ipn_cm_stop(struct ipn_priv *priv)
{
	struct ipn_cm_rx *rx, *rtmp;
	struct ipn_cm_tx *tx;
	struct hlist_node *tmp;
	struct ipc_result r;
	int b;

	lockdep_assert_held(&priv->ctl_mutex);
	if (!priv->cm_on)
		return;
	ib_destroy_cm_id(priv->cm_listen);	/* no new REQ handler starts */
	priv->cm_listen = NULL;
	spin_lock_bh(&priv->lock);
	priv->cm_accepting = false;
	priv->cm_on = false;
	hash_for_each_safe(priv->cm_tx, b, tmp, tx, node) {
		ipc_cm_destroy(&tx->st, &r);
		ipn_cm_apply(priv, tx, &r, NULL);
	}
	list_splice_tail_init(&priv->cm_rx, &priv->cm_rx_dead);
	list_for_each_entry(rx, &priv->cm_rx_dead, list) {
		if (!rx->dead)
			ipn_genl_conn_event(priv, rx->peer, true, false, 0);
		rx->dead = true;
	}
	spin_unlock_bh(&priv->lock);
	ipn_entry_run(priv, &priv->cm_work);
	ipn_cm_reap(priv, false);
	/*
	 * No drain: the SRQ goes next, and every buffer with it, whatever
	 * the QPs held (H1 is about a live SRQ).
	 */
	ipn_cm_rx_to_err(priv);
	list_for_each_entry_safe(rx, rtmp, &priv->cm_rx_drain, list)
		ipn_cm_rx_free(priv, rx);

	napi_disable(&priv->cm_napi);
	/* Every RC QP is gone: the SRQ's buffers come back unposted. */
	ipn_cm_verbs_destroy(priv);
}

/*
 * Connected mode stopped and started again: every connection and the SRQ
 * made anew (a starved SRQ, a smaller path MTU). ctl_mutex held.
 */
void ipn_cm_restart(struct ipn_priv *priv)
{
	lockdep_assert_held(&priv->ctl_mutex);
	if (!priv->cm_on)
		return;
	ipn_cm_stop(priv);
	if (priv->qp_rts && ipn_cm_start(priv))
		netdev_warn(priv->dev, "cannot start connected mode: peers reach us over UD only\n");
}

void ipn_cm_init(struct ipn_priv *priv)
{
	hash_init(priv->cm_tx);
	hash_init(priv->cm_rx_qps);
	INIT_LIST_HEAD(&priv->cm_rx);
	INIT_LIST_HEAD(&priv->cm_rx_dead);
	INIT_LIST_HEAD(&priv->cm_rx_drain);
	INIT_LIST_HEAD(&priv->cm_work);
	INIT_LIST_HEAD(&priv->cm_zombies);
	init_waitqueue_head(&priv->cm_wait);
	ipc_cm_cfg_default(&priv->cm_cfg);
}
