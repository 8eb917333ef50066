// SPDX-License-Identifier: GPL-2.0
/*
 * sa.c - backend for InfiniBand ports: joins and path queries through
 * the subnet administrator (RFC 4391 s5, s9.1.2, s10).
 *
 * SA callbacks run in ib_core's context: they record their result under
 * priv->lock and queue IPN_OP_DONE for the control work, unless the entry
 * is already dead. Cancelling waits until no callback can run any more,
 * so entries are freed only afterwards.
 */
#include <linux/slab.h>
#include <linux/rtnetlink.h>
#include "ipoib_ng.h"

struct ib_sa_client ipn_sa_client;

/* ------------------------------------------------------------------ */
/* ib_core's SA                                                         */
/* ------------------------------------------------------------------ */

static int ipn_sa_ib_path_rec_get(struct ipn_priv *priv,
				  struct sa_path_rec *rec, ib_sa_comp_mask mask,
				  unsigned long timeout_ms, ipn_sa_path_cb done,
				  void *ctx, struct ib_sa_query **query)
{
	return ib_sa_path_rec_get(&ipn_sa_client, priv->ca, priv->port, rec,
				  mask, timeout_ms, GFP_KERNEL, done, ctx,
				  query);
}

static struct ib_sa_multicast *
ipn_sa_ib_join(struct ipn_priv *priv, struct ib_sa_mcmember_rec *rec,
	       ib_sa_comp_mask mask, ipn_sa_join_cb done, void *ctx)
{
	return ib_sa_join_multicast(&ipn_sa_client, priv->ca, priv->port, rec,
				    mask, GFP_KERNEL, done, ctx);
}

static int ipn_sa_ib_path_ah_attr(struct ipn_priv *priv,
				  struct sa_path_rec *rec,
				  struct rdma_ah_attr *attr)
{
	return ib_init_ah_attr_from_path(priv->ca, priv->port, rec, attr, NULL);
}

static int ipn_sa_ib_mc_ah_attr(struct ipn_priv *priv,
				struct ib_sa_mcmember_rec *rec,
				struct rdma_ah_attr *attr)
{
	return ib_init_ah_from_mcmember(priv->ca, priv->port, rec, NULL,
					IB_GID_TYPE_IB, attr);
}

static int ipn_sa_ib_get_mcmember_rec(struct ipn_priv *priv, const u8 *mgid,
				      struct ib_sa_mcmember_rec *rec)
{
	return ib_sa_get_mcmember_rec(priv->ca, priv->port,
				      (union ib_gid *)mgid, rec);
}

const struct ipn_sa_ops ipn_sa_ib = {
	.path_rec_get = ipn_sa_ib_path_rec_get,
	.cancel_query = ib_sa_cancel_query,
	.join = ipn_sa_ib_join,
	.free_multicast = ib_sa_free_multicast,
	.path_ah_attr = ipn_sa_ib_path_ah_attr,
	.mc_ah_attr = ipn_sa_ib_mc_ah_attr,
	.get_mcmember_rec = ipn_sa_ib_get_mcmember_rec,
	.am_start = ipn_am_ib_start,
	.am_stop = ipn_am_ib_stop,
	.am_send = ipn_am_ib_send,
};

/* ------------------------------------------------------------------ */
/* The InfiniBand backend                                               */
/* ------------------------------------------------------------------ */

static void ipn_ib_path_done(int status, struct sa_path_rec *resp,
			     ipn_sa_num_prs_t num_prs, void *ctx)
{
	struct ipn_path *path = ctx;
	struct ipn_priv *priv = path->priv;

	if (!status && resp)
		status = priv->sa->path_ah_attr(priv, resp, &path->attr);
	else if (!status)
		status = -ENODATA;
	spin_lock_bh(&priv->lock);
	path->sa_query = NULL;
	if (!status) {
		path->rec = *resp;	/* connected mode's REQ (cm.c) */
		path->rec_valid = true;
	}
	if (status != -EINTR)
		__ipn_path_query_async_done(priv, path, status);
	path->sa_busy = false;
	/*
	 * Review 2026-12 L2: woken under the lock. A waiter that sees
	 * sa_busy false may go on to free the interface, but it takes
	 * priv->lock first (ipn_path_cancel(), ipn_ib_path_query()), so it
	 * cannot pass before the unlock, after which nothing is touched.
	 */
	wake_up_all(&priv->sa_wait);
	spin_unlock_bh(&priv->lock);
	ipn_kunit_path_done_unlocked(priv);
}

static int ipn_ib_path_query(struct ipn_priv *priv, struct ipn_path *path)
{
	struct sa_path_rec rec = {};
	unsigned long timeout_ms;
	int id;

	rec.rec_type = SA_PATH_REC_TYPE_IB;
	memcpy(rec.dgid.raw, path->gid, IPC_GID_LEN);
	memcpy(rec.sgid.raw, priv->ifid.gid, IPC_GID_LEN);
	rec.numb_path = 1;
	rec.pkey = cpu_to_be16(priv->pkey);
	/*
	 * The last query's callback queues its answer before it lets go of
	 * sa_busy: the control work may take the answer and start again
	 * before the callback has returned. Only this work starts queries.
	 */
	wait_event(priv->sa_wait, !READ_ONCE(path->sa_busy));
	spin_lock_bh(&priv->lock);
	if (WARN_ON_ONCE(path->sa_busy)) {	/* path.c cancels first */
		spin_unlock_bh(&priv->lock);
		return -EBUSY;
	}
	path->sa_busy = true;
	/*
	 * Nearly as long as the core waits for the answer: ib_sa sends the
	 * MAD eleven times, a tenth of the timeout apart (sa_query.c:
	 * send_mad), under one TID, so a late answer to the first try still
	 * completes the query; and it gives up (1.1 x) before the core's
	 * own deadline, so that a timeout is reported as one (path.c). With
	 * a second's wait, an SA that answers in more than one (a large
	 * subnet's, a busy one's) answered nothing at all, eleven times.
	 */
	timeout_ms = priv->path_cfg.query_timeout_ms * 8 / 10;
	spin_unlock_bh(&priv->lock);
	id = priv->sa->path_rec_get(priv, &rec,
				    IB_SA_PATH_REC_DGID | IB_SA_PATH_REC_SGID |
				    IB_SA_PATH_REC_NUMB_PATH | IB_SA_PATH_REC_PKEY,
				    timeout_ms, ipn_ib_path_done, path,
				    &path->sa_query);
	if (id < 0) {
		spin_lock_bh(&priv->lock);
		path->sa_busy = false;
		spin_unlock_bh(&priv->lock);
		return id;
	}
	path->sa_query_id = id;
	return 1;
}

static void ipn_ib_path_cancel(struct ipn_priv *priv, struct ipn_path *path)
{
	spin_lock_bh(&priv->lock);
	if (path->sa_query)
		priv->sa->cancel_query(path->sa_query_id, path->sa_query);
	spin_unlock_bh(&priv->lock);
	wait_event(priv->sa_wait, !READ_ONCE(path->sa_busy));
}

static int ipn_ib_join_done(int status, struct ib_sa_multicast *m)
{
	struct ipn_mcast *mc = m->context;
	struct ipn_priv *priv = mc->priv;

	spin_lock_bh(&priv->lock);
	if (!mc->sa_pending) {
		/*
		 * Not the answer to our join but news about an established
		 * membership: -ENETRESET after an SA event. The port event
		 * behind it reaches us as a flush (ipn_event), which rejoins.
		 */
		spin_unlock_bh(&priv->lock);
		netdev_dbg(priv->dev, "multicast group %pI6: membership event %d\n",
			   mc->mgid, status);
		return 0;
	}
	mc->sa_pending = false;
	if (!status)
		mc->rec = m->rec;
	/*
	 * ib_sa reports every SA rejection (MAD status) as -EINVAL. For a
	 * join that does not create the group (SendOnlyNonMember, NonMember,
	 * or a FullMember join without the creation parameters), that is
	 * how the SA says the group does not exist (IBA 15.2.5.17).
	 */
	if (status == -EINVAL)
		status = -ENOENT;
	if (!mc->e.dead) {
		mc->join_status = status;
		mc->done_gen = mc->join_gen;
		ipn_entry_queue_ops(priv, &mc->e, IPN_OP_DONE);
	}
	spin_unlock_bh(&priv->lock);
	return 0;	/* the membership is freed by ipn_ib_leave() */
}

/* The parameters a FullMember join gives to create its group. */
#define IPN_SA_CREATE_MASK \
	(IB_SA_MCMEMBER_REC_QKEY | IB_SA_MCMEMBER_REC_MTU_SELECTOR | \
	 IB_SA_MCMEMBER_REC_MTU | IB_SA_MCMEMBER_REC_TRAFFIC_CLASS | \
	 IB_SA_MCMEMBER_REC_SL | IB_SA_MCMEMBER_REC_FLOW_LABEL | \
	 IB_SA_MCMEMBER_REC_HOP_LIMIT)

/*
 * Every group but the broadcast one takes the broadcast group's
 * parameters (RFC 4391 s10: same P_Key, Q_Key, SL, MTU, HopLimit), so a
 * FullMember join can create it.
 */
static int ipn_ib_join(struct ipn_priv *priv, struct ipn_mcast *mc, int type)
{
	ib_sa_comp_mask mask = IB_SA_MCMEMBER_REC_MGID |
			       IB_SA_MCMEMBER_REC_PORT_GID |
			       IB_SA_MCMEMBER_REC_PKEY |
			       IB_SA_MCMEMBER_REC_JOIN_STATE;
	struct ib_sa_mcmember_rec rec = {};
	struct ipc_bcast_create create;
	struct ib_sa_multicast *m;

	if (mc->sa_mc) {
		priv->sa->free_multicast(mc->sa_mc);
		mc->sa_mc = NULL;
	}
	memcpy(rec.mgid.raw, mc->mgid, IPC_GID_LEN);
	memcpy(rec.port_gid.raw, priv->ifid.gid, IPC_GID_LEN);
	rec.pkey = cpu_to_be16(priv->pkey);
	rec.join_state = type;
	if (!mc->is_bcast) {
		if (!priv->bcast_rec_valid)
			return -IPC_ENOBCAST;
		rec.qkey = priv->bcast_rec.qkey;
		rec.mtu_selector = IB_SA_EQ;
		rec.mtu = priv->bcast_rec.mtu;
		rec.traffic_class = priv->bcast_rec.traffic_class;
		rec.sl = priv->bcast_rec.sl;
		rec.flow_label = priv->bcast_rec.flow_label;
		rec.hop_limit = priv->bcast_rec.hop_limit;
		rec.rate_selector = IB_SA_EQ;
		rec.rate = priv->bcast_rec.rate;
		mask |= IPN_SA_CREATE_MASK | IB_SA_MCMEMBER_REC_RATE_SELECTOR |
			IB_SA_MCMEMBER_REC_RATE;
	} else if (priv->bsearch.creating) {
		/* No broadcast group anywhere: the core's, created (s4.1). */
		ipc_bsearch_create_params(ipn_port_ib_mtu(priv), &create);
		rec.qkey = cpu_to_be32(create.qkey);
		rec.mtu_selector = IB_SA_EQ;
		rec.mtu = ib_mtu_int_to_enum(create.mtu_bytes);
		rec.sl = create.sl;
		mask |= IPN_SA_CREATE_MASK;
	}
	spin_lock_bh(&priv->lock);
	mc->sa_pending = true;
	mc->join_gen++;
	spin_unlock_bh(&priv->lock);
	m = priv->sa->join(priv, &rec, mask, ipn_ib_join_done, mc);
	if (IS_ERR(m)) {
		spin_lock_bh(&priv->lock);
		mc->sa_pending = false;
		spin_unlock_bh(&priv->lock);
		return PTR_ERR(m);
	}
	mc->sa_mc = m;
	return 0;
}

/*
 * Blocks until the join callback cannot run any more. Review 2026-12 L1:
 * an answer to the join may be on its way (free_multicast() waits for a
 * callback already running) or queued already: neither is this group's
 * any more. A callback that comes after finds no join pending; an answer
 * queued before is of an older generation (ipn_mcast_report()).
 */
static void ipn_ib_leave(struct ipn_priv *priv, struct ipn_mcast *mc)
{
	if (!mc->sa_mc)
		return;
	ipn_kunit_mc_leaving(mc);
	spin_lock_bh(&priv->lock);
	mc->sa_pending = false;
	mc->join_gen++;
	spin_unlock_bh(&priv->lock);
	priv->sa->free_multicast(mc->sa_mc);
	mc->sa_mc = NULL;
}

static int ipn_ib_mc_ah_attr(struct ipn_priv *priv, struct ipn_mcast *mc,
			     struct rdma_ah_attr *attr)
{
	return priv->sa->mc_ah_attr(priv, &mc->rec, attr);
}

/*
 * Attach the QP. For the broadcast group also adopt its Q_Key and MTU
 * (RFC 4391 s5, s9.1.2 b). Control context, rtnl held.
 */
static int ipn_ib_attach(struct ipn_priv *priv, struct ipn_mcast *mc)
{
	int ret;

	ASSERT_RTNL();
	if (mc->is_bcast) {
		struct ib_qp_attr attr = {
			.qkey = be32_to_cpu(mc->rec.qkey),
		};
		unsigned int q;

		/*
		 * Every transmit queue's QP: a Q_Key with the high bit set
		 * (controlled) is sent from the QP's own, not the WR's.
		 */
		for (q = 0; q < priv->txq_count; q++) {
			ret = ib_modify_qp(priv->txq[q].qp, &attr, IB_QP_QKEY);
			if (ret)
				return ret;
		}
		priv->qkey = attr.qkey;
		priv->bcast_rec = mc->rec;
		priv->bcast_rec_valid = true;
		ASSERT_RTNL();
		ipn_dev_update_mtu(priv, ipc_ib_mtu_bytes(mc->rec.mtu));
	}
	return ib_attach_mcast(priv->qp, &mc->rec.mgid,
			       be16_to_cpu(mc->rec.mlid));
}

static void ipn_ib_detach(struct ipn_priv *priv, struct ipn_mcast *mc)
{
	ib_detach_mcast(priv->qp, &mc->rec.mgid, be16_to_cpu(mc->rec.mlid));
	if (mc->is_bcast)
		priv->bcast_rec_valid = false;
}

/*
 * ib_sa keeps one membership per group and port for all its users: an
 * application that joined through ib_ucma shows there as well as we do.
 */
static bool ipn_ib_group_held(struct ipn_priv *priv, const u8 *mgid)
{
	struct ib_sa_mcmember_rec rec;

	return priv->sa->get_mcmember_rec(priv, mgid, &rec) == 0;
}

const struct ipn_backend_ops ipn_ib_ops = {
	.name = "infiniband",
	.sa_directory = true,
	.join = ipn_ib_join,
	.leave = ipn_ib_leave,
	.mc_ah_attr = ipn_ib_mc_ah_attr,
	.attach = ipn_ib_attach,
	.detach = ipn_ib_detach,
	.path_query = ipn_ib_path_query,
	.path_cancel = ipn_ib_path_cancel,
	.group_held = ipn_ib_group_held,
};
