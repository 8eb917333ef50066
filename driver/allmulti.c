// SPDX-License-Identifier: GPL-2.0
/*
 * The SA's group notices, for every sender and for routers.
 *
 * RFC 4391 s10: "Senders MUST subscribe to the multicast group create and
 * delete traps". With sa_notices=1 every interface that is up on an
 * InfiniBand port subscribes (InformInfo, traps 66 and 67), so that a
 * send-only membership follows its group: deleted, it is given up (a
 * group made again gets another MLID); created, a cached absence is
 * forgotten (ipc_mc_notice()). Not by default: the subscription is to
 * every group of the fabric, and each group made or deleted costs the SM
 * a Report to every subscribed port (ipoib_core.h).
 *
 * IFF_ALLMULTI (and IFF_PROMISC with promisc_allmulti): the promiscuous
 * multicast mode that IP multicast routers need, emulated as s11 says,
 * since IBA has no such mode:
 *   A) the SA's list of every multicast group (SubnAdmGetTable of
 *      MCMemberRecord),
 *   B) a NonMember join to each group with an IPoIB signature of this
 *      link (ipc_allmulti_wants()),
 *   C) the notices above: a group created later is joined too, a group
 *      deleted is left.
 * Leaving the mode leaves the NonMember memberships (the FullMember ones
 * the stack asked for stay); with sa_notices the subscriptions stay while
 * the interface is up. The core builds and parses the MADs; this file
 * moves them. On RoCE there is no SA and no group directory: nothing is
 * subscribed, and the mode changes nothing there (one message says so).
 *
 * MADs: each interface subscribed has a GSI agent of its own for
 * its requests (unregistering it cancels them and waits for its
 * handlers); each port has one more, in the port's interface
 * (priv->parent), which receives the SA's Reports for every interface of
 * the port and answers them. Both are behind ipn_sa_ops (am_*), which
 * KUnit replaces. Every request goes on the default partition, so the SA
 * holds one subscription per port, whichever interface asked (each asks,
 * the SA updates the one it has); the last interface of the port that
 * holds it cancels it (ipn_am_shared()).
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include "ipoib_ng.h"

#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>

static struct ipn_priv *ipn_am_port_priv(struct ipn_priv *priv)
{
	return priv->parent ?: priv;
}

/*
 * Run the rx_mode work, which calls ipn_allmulti_sync(), at deadline (ms):
 * a run already due sooner stays, a later one is brought forward.
 */
static void ipn_am_arm(struct ipn_priv *priv, u64 deadline)
{
	u64 now = ipn_now_ms();
	unsigned long delay;

	if (deadline == IPC_NO_DEADLINE)
		return;
	delay = deadline > now ? msecs_to_jiffies(deadline - now) : 0;
	if (!queue_delayed_work(priv->wq, &priv->rx_mode_work, delay) &&
	    time_after(READ_ONCE(priv->rx_mode_work.timer.expires),
		       jiffies + delay))
		mod_delayed_work(priv->wq, &priv->rx_mode_work, delay);
}

/*
 * The machine's LOG: what failed (step, status), and when it is tried
 * again; or, once, that RoCE has no SA.
 */
static void ipn_am_log(struct ipn_priv *priv, const struct ipc_result *r,
		       const char *step, int status)
{
	u64 now = ipn_now_ms();
	struct ipc_view v;

	if (r->reason == IPC_AM_LOG_NO_SA) {
		netdev_info(priv->dev, "all-multicast: RoCE has no SA to list the groups; only the stack's groups are joined\n");
		return;
	}
	ipn_inc(priv, mc_failures);
	spin_lock_bh(&priv->lock);
	ipc_am_view(&priv->am.st, &v);
	spin_unlock_bh(&priv->lock);
	net_warn_ratelimited("%s: SA group notices%s: %s: %d, again in %llu ms\n",
			     priv->dev->name, v.want ? " and directory" : "",
			     step, status,
			     r->deadline_ms > now ? r->deadline_ms - now : 0);
}

/* The mode's view of the interface, for a group decision. priv->lock. */
static void ipn_am_link(struct ipn_priv *priv, struct ipc_am_link *k)
{
	lockdep_assert_held(&priv->lock);
	k->bcast_gid = priv->ifid.bcast_gid;
	k->mc_cfg = &priv->mc_cfg;
	k->groups_max = priv->groups_max;
	k->pad = 0;
	k->now = ipn_now_ms();
}

/*
 * Send one request built by the core: the group list (trap 0), or the
 * InformInfo that subscribes to trap (or cancels it). The answer to it is
 * taken once its TID is in *expect (priv->am, or NULL for none), which is
 * set before the send, as the SA may answer at once. ctl_mutex held.
 */
static int ipn_am_request(struct ipn_priv *priv, u64 *expect, int trap,
			  int subscribe)
{
	u8 *mad = kzalloc(IPC_MAD_LEN, GFP_KERNEL);
	u64 tid;
	int ret;

	lockdep_assert_held(&priv->ctl_mutex);
	if (!mad)
		return -ENOMEM;
	spin_lock_bh(&priv->lock);
	tid = (u64)priv->am.tid_hi << 32 | ++priv->am.tid_seq;
	if (expect)
		*expect = tid;
	spin_unlock_bh(&priv->lock);
	if (trap)
		ipc_sa_inform_req(mad, tid, trap, subscribe);
	else
		ipc_sa_mcmember_table_req(mad, tid);
	ret = priv->sa->am_send(priv, mad);
	if (!ret)
		ipn_sa_charge(priv);
	kfree(mad);
	return ret;
}

/* One group the directory lists, or a Report announces. priv->lock. */
static void ipn_am_group(struct ipn_priv *priv, const u8 *mgid, bool listed)
{
	struct ipn_mcast *mc;
	struct ipc_am_link k;
	struct ipc_result r;
	u32 unmarked;

	lockdep_assert_held(&priv->lock);
	ipn_am_link(priv, &k);
	mc = ipn_mcast_find(priv, mgid);
	if (ipc_am_group(&priv->am.st, &k, mgid, listed, mc ? &mc->st : NULL,
			 mc ? &mc->am_gen : &unmarked, &r) ==
	    IPC_AM_GROUP_CREATE) {
		/* No room made for it: nothing evicts for the mode. */
		mc = ipn_mcast_get(priv, mgid, IPC_SCOPE_LINK, false);
		if (IS_ERR(mc))
			return;	/* a full table, said once */
		ipc_am_group(&priv->am.st, &k, mgid, listed, &mc->st,
			     &mc->am_gen, &r);
	}
	if (mc)
		ipn_mcast_apply(priv, mc, &r, NULL);
}

/* s10: a sender's group follows a notice. priv->lock held. */
static void ipn_am_sender(struct ipn_priv *priv, const u8 *mgid, bool created)
{
	struct ipn_mcast *mc = ipn_mcast_find(priv, mgid);
	struct ipc_result r;

	lockdep_assert_held(&priv->lock);
	if (!mc || mc->is_bcast)
		return;
	ipc_mc_notice(&mc->st, &priv->mc_cfg, ipn_now_ms(), created, &r);
	ipn_mcast_apply(priv, mc, &r, NULL);
}

/*
 * Whether another interface of priv's port (port) has a MAD agent, and
 * so may hold the subscription the SA keeps for the port (its Reports'
 * address: the port's QP 1 on the default partition, whichever interface
 * asked). am_port.lock held.
 */
static bool ipn_am_shared(struct ipn_priv *port, struct ipn_priv *priv)
{
	struct ipn_priv *other;

	lockdep_assert_held(&port->am_port.lock);
	list_for_each_entry(other, &port->am_port.list, am.node)
		if (other != priv)
			return true;
	return false;
}

/* SWEEP, or LEAVE_ALL: each group, as the core says. priv->lock held. */
static void ipn_am_each(struct ipn_priv *priv, bool sweep)
{
	struct ipn_mcast *mc, *tmp;
	struct ipc_am_link k;
	struct ipc_result r;

	lockdep_assert_held(&priv->lock);
	ipn_am_link(priv, &k);
	list_for_each_entry_safe(mc, tmp, &priv->mcasts, list) {
		if (sweep)
			ipc_am_sweep(&priv->am.st, &k, &mc->st, mc->am_gen, &r);
		else
			ipc_am_leave(&priv->am.st, &k, &mc->st, &r);
		ipn_mcast_apply(priv, mc, &r, NULL);
	}
}

static int ipn_am_start_agent(struct ipn_priv *priv)
{
	struct ipn_priv *port = ipn_am_port_priv(priv);
	int ret;

	ret = priv->sa->am_start(priv);
	if (ret)
		return ret;
	spin_lock_bh(&port->am_port.lock);
	list_add_tail(&priv->am.node, &port->am_port.list);
	spin_unlock_bh(&port->am_port.lock);
	return 0;
}

/* No Report and no answer reaches the mode after this. */
static void ipn_am_stop_agent(struct ipn_priv *priv)
{
	struct ipn_priv *port = ipn_am_port_priv(priv);

	spin_lock_bh(&port->am_port.lock);
	list_del_init(&priv->am.node);
	spin_unlock_bh(&port->am_port.lock);
	spin_lock_bh(&priv->lock);
	priv->am.table_tid = 0;
	priv->am.sub_tid[0] = 0;
	priv->am.sub_tid[1] = 0;
	spin_unlock_bh(&priv->lock);
	priv->sa->am_stop(priv);	/* waits for the agent's handlers */
}

/*
 * Perform a result of the mode's machine, in bit order (IPC_AM_ACT_*).
 * START_AGENT and the requests tell the machine how they went, and its
 * answer (later bits only) is performed on. ctl_mutex held.
 */
static void ipn_am_perform(struct ipn_priv *priv, struct ipc_result *r)
{
	const char *step = NULL;
	int ret = 0;

	lockdep_assert_held(&priv->ctl_mutex);
	if (r->actions & IPC_AM_ACT_UNSUBSCRIBE) {
		/* Best effort: the agent goes right after. */
		ipn_am_request(priv, NULL, IPC_TRAP_MCG_CREATED, 0);
		ipn_am_request(priv, NULL, IPC_TRAP_MCG_DELETED, 0);
	}
	if (r->actions & IPC_AM_ACT_STOP_AGENT)
		ipn_am_stop_agent(priv);
	if (r->actions & IPC_AM_ACT_LEAVE_ALL) {
		spin_lock_bh(&priv->lock);
		ipn_am_each(priv, false);
		spin_unlock_bh(&priv->lock);
		ipn_mcast_run(priv);
	}
	if (r->actions & IPC_AM_ACT_START_AGENT) {
		ret = ipn_am_start_agent(priv);
		spin_lock_bh(&priv->lock);
		ipc_am_started(&priv->am.st, ret, ipn_now_ms(), &priv->rng, r);
		spin_unlock_bh(&priv->lock);
		step = "no MAD agent";
	}
	if (r->actions & IPC_AM_ACT_SUBSCRIBE) {
		ret = ipn_am_request(priv, &priv->am.sub_tid[0],
				     IPC_TRAP_MCG_CREATED, 1);
		if (!ret)
			ret = ipn_am_request(priv, &priv->am.sub_tid[1],
					     IPC_TRAP_MCG_DELETED, 1);
	}
	if (!ret && (r->actions & IPC_AM_ACT_READ))
		ret = ipn_am_request(priv, &priv->am.table_tid, 0, 0);
	if (ret && (r->actions & (IPC_AM_ACT_SUBSCRIBE | IPC_AM_ACT_READ))) {
		spin_lock_bh(&priv->lock);
		ipc_am_unsent(&priv->am.st, ret, ipn_now_ms(), &priv->rng, r);
		spin_unlock_bh(&priv->lock);
		step = "SA request not sent";
	}
	if (r->actions & IPC_AM_ACT_LOG)
		ipn_am_log(priv, r, step, ret);
	ipn_am_arm(priv, r->deadline_ms);
}

/*
 * The answer to one of our requests: buf/len the reassembled response,
 * or status (a timeout) with buf NULL. Any context that may sleep but
 * holds no lock of ours.
 */
void ipn_allmulti_answer(struct ipn_priv *priv, u64 tid, const u8 *buf,
			 u32 len, int status)
{
	struct ipc_result r;
	int which, ret = status;
	bool awaited;
	u32 pos = 0;
	u8 mgid[16];

	spin_lock_bh(&priv->lock);
	if (!tid) {
		which = -1;
	} else if (tid == priv->am.table_tid) {
		which = 0;
		priv->am.table_tid = 0;
	} else if (tid == priv->am.sub_tid[0]) {
		which = IPC_TRAP_MCG_CREATED;
	} else if (tid == priv->am.sub_tid[1]) {
		which = IPC_TRAP_MCG_DELETED;
	} else {
		which = -1;	/* an unsubscription, or stale */
	}
	if (which < 0) {
		spin_unlock_bh(&priv->lock);
		return;
	}
	if (!which) {
		while (!ret && (ret = ipc_sa_mcmember_table_next(buf, len, tid,
								 &pos,
								 mgid)) == 1) {
			ipn_am_group(priv, mgid, true);
			ret = 0;
		}
	} else if (!ret) {
		ret = ipc_sa_inform_resp_check(buf, len, tid);
	}
	awaited = ipc_am_answer(&priv->am.st, which, ret, ipn_now_ms(),
				&priv->rng, &r);
	if (awaited && (r.actions & IPC_AM_ACT_SWEEP))
		ipn_am_each(priv, true);
	spin_unlock_bh(&priv->lock);
	if (!awaited)
		return;
	if (r.actions & IPC_AM_ACT_LOG)
		ipn_am_log(priv, &r, "the SA answered", ret);
	ipn_am_arm(priv, r.deadline_ms);
	ipn_ctl_kick(priv);
}

/*
 * A Report beyond the rate (ipc_notice_admit): answered, not acted on;
 * every interface subscribed syncs once they may have stopped, and one in
 * the mode reads the directory again when the rate says (ipc_am_sync()).
 * A sender's group that missed its notice is right again when its
 * send-only membership idles out, or its cached absence expires.
 * am_port.lock held.
 */
static void ipn_am_limited(struct ipn_priv *port_priv)
{
	u64 quiet = ipn_now_ms() + IPC_NOTICE_QUIET_MS;
	struct ipn_priv *priv;

	lockdep_assert_held(&port_priv->am_port.lock);
	ipn_inc(port_priv, sa_reports_limited);
	netdev_warn_once(port_priv->dev,
			 "SA Reports beyond %u a second: not acted on; the group directory is read again once they stop (sa_reports_limited)\n",
			 IPC_NOTICE_RATE);
	list_for_each_entry(priv, &port_priv->am_port.list, am.node)
		ipn_am_arm(priv, quiet);
}

/*
 * A Report to the port of port_priv (its interface without a parent),
 * from LID slid on the partition pkey, while the port's SM is at sm_lid:
 * a group was created or deleted. Every interface of the port that is
 * subscribed follows: its send-only group (s10), and in the mode its
 * NonMember one (s11). resp gets the ReportResp to send back. Returns 0 when
 * resp is to be sent, -EPROTO for what is no notice, -EACCES for a Report
 * that is not the SA's (counted in sa_reports_refused, said once). Those
 * beyond the rate are answered, not acted on (ipn_am_limited()).
 */
int ipn_allmulti_notice(struct ipn_priv *port_priv, u16 slid, u16 sm_lid,
			u16 pkey, const u8 *mad, u32 len, u8 *resp)
{
	struct ipn_priv *priv;
	u8 mgid[16];
	int trap;

	if (!ipc_sa_report_source_ok(slid, sm_lid, pkey)) {
		ipn_inc(port_priv, sa_reports_refused);
		netdev_warn_once(port_priv->dev,
				 "an SA Report from LID %u P_Key 0x%04x, not the SM's (LID %u): ignored (sa_reports_refused)\n",
				 slid, pkey, sm_lid);
		return -EACCES;
	}
	trap = ipc_sa_notice_parse(mad, len, mgid, resp);
	if (trap < 0)
		return -EPROTO;
	if (trap != IPC_TRAP_MCG_CREATED && trap != IPC_TRAP_MCG_DELETED)
		return 0;
	spin_lock_bh(&port_priv->am_port.lock);
	if (!ipc_notice_admit(&port_priv->am_port.rate, ipn_now_ms())) {
		ipn_am_limited(port_priv);
		spin_unlock_bh(&port_priv->am_port.lock);
		return 0;
	}
	list_for_each_entry(priv, &port_priv->am_port.list, am.node) {
		spin_lock(&priv->lock);
		ipn_am_group(priv, mgid, trap == IPC_TRAP_MCG_CREATED);
		ipn_am_sender(priv, mgid, trap == IPC_TRAP_MCG_CREATED);
		spin_unlock(&priv->lock);
		ipn_ctl_kick(priv);
	}
	spin_unlock_bh(&port_priv->am_port.lock);
	return 0;
}

/*
 * The interface is going down: cancel the subscriptions and leave the
 * mode now, while the QP can still send. ctl_mutex held.
 */
void ipn_allmulti_stop(struct ipn_priv *priv)
{
	struct ipn_priv *port = ipn_am_port_priv(priv);
	struct ipc_result r;
	bool shared;

	spin_lock_bh(&port->am_port.lock);
	shared = ipn_am_shared(port, priv);
	spin_unlock_bh(&port->am_port.lock);
	spin_lock_bh(&priv->lock);
	ipc_am_stop(&priv->am.st, priv->up, shared, &r);
	spin_unlock_bh(&priv->lock);
	ipn_am_perform(priv, &r);
}

/*
 * Follow the device's flags and the machine's deadline: called by the
 * rx_mode work (rtnl, ctl_mutex).
 */
void ipn_allmulti_sync(struct ipn_priv *priv)
{
	struct ipn_priv *port = ipn_am_port_priv(priv);
	unsigned int flags = priv->dev->flags;
	struct ipc_am_flags f = {
		.up = priv->up,
		.allmulti = !!(flags & IFF_ALLMULTI),
		.promisc = !!(flags & IFF_PROMISC),
		.promisc_too = READ_ONCE(ipn_promisc_allmulti),
		.has_sa = priv->ops->sa_directory && priv->sa->am_start,
		.notices = READ_ONCE(ipn_sa_notices),
	};
	struct ipc_notice_rate rate;
	struct ipc_result r;

	ASSERT_RTNL();
	lockdep_assert_held(&priv->ctl_mutex);
	spin_lock_bh(&port->am_port.lock);
	rate = port->am_port.rate;
	f.shared = ipn_am_shared(port, priv);
	spin_unlock_bh(&port->am_port.lock);
	spin_lock_bh(&priv->lock);
	ipc_am_sync(&priv->am.st, &f, &rate, ipn_now_ms(), &r);
	spin_unlock_bh(&priv->lock);
	ipn_am_perform(priv, &r);
}

/*
 * The link was flushed: the memberships are made again and the SA may
 * have lost the subscriptions. true if the machine runs: the caller runs
 * the rx_mode work, whose sync subscribes (and in the mode reads) again
 * after a delay spread as the rejoins are.
 */
bool ipn_allmulti_flushed(struct ipn_priv *priv)
{
	u32 spread = priv->ops->sa_directory ?
			     READ_ONCE(ipn_rejoin_spread_ms) : 0;
	bool in;

	spin_lock_bh(&priv->lock);
	in = ipc_am_flushed(&priv->am.st, ipn_now_ms(), spread, &priv->rng);
	spin_unlock_bh(&priv->lock);
	return in;
}

/* An entry goes: the mode's count of its groups follows. priv->lock. */
void ipn_allmulti_forget(struct ipn_priv *priv, const struct ipc_mc *st)
{
	lockdep_assert_held(&priv->lock);
	ipc_am_forget(&priv->am.st, st);
}

void ipn_allmulti_init(struct ipn_priv *priv)
{
	INIT_LIST_HEAD(&priv->am.node);
	ipc_am_init(&priv->am.st);
	spin_lock_init(&priv->am_port.lock);
	INIT_LIST_HEAD(&priv->am_port.list);
	ipc_notice_rate_init(&priv->am_port.rate, ipn_now_ms());
	mutex_init(&priv->am_port.mutex);
}

/* ------------------------------------------------------------------ */
/* The MADs on InfiniBand (ipn_sa_ib's am_* operations)                 */
/* ------------------------------------------------------------------ */

static void ipn_am_send_done(struct ib_mad_agent *agent,
			     struct ib_mad_send_wc *wc)
{
	struct ib_mad_send_buf *send = wc->send_buf;
	struct ipn_priv *priv = send->context[0];
	u64 tid = be64_to_cpu(((struct ib_mad_hdr *)send->mad)->tid);

	/* Cancelled ones (the agent going) and answered ones need nothing. */
	if (priv && wc->status != IB_WC_SUCCESS &&
	    wc->status != IB_WC_WR_FLUSH_ERR)
		ipn_allmulti_answer(priv, tid, NULL, 0, -ETIMEDOUT);
	if (send->ah)
		rdma_destroy_ah(send->ah, RDMA_DESTROY_AH_SLEEPABLE);
	ib_free_send_mad(send);
}

/*
 * The segments of an RMPP response in one buffer, as the SA sent it: a
 * large fabric's table is megabytes, hence kvmalloc (review L5).
 */
static u8 *ipn_am_coalesce(struct ib_mad_recv_wc *wc, u32 *len)
{
	struct ib_mad_recv_buf *seg;
	size_t total = wc->mad_len, off = 0, n;
	u8 *buf = kvmalloc(total, GFP_KERNEL);

	if (!buf)
		return NULL;
	list_for_each_entry(seg, &wc->rmpp_list, list) {
		if (off >= total)
			break;
		if (!off) {
			n = min(total, wc->mad_seg_size);
			memcpy(buf, seg->mad, n);
		} else {
			n = min(total - off, wc->mad_seg_size - IPC_SA_HDR_LEN);
			memcpy(buf + off, (u8 *)seg->mad + IPC_SA_HDR_LEN, n);
		}
		off += n;
	}
	*len = off;
	return buf;
}

static void ipn_am_req_recv(struct ib_mad_agent *agent,
			    struct ib_mad_send_buf *send,
			    struct ib_mad_recv_wc *wc)
{
	struct ipn_priv *priv = agent->context;
	u64 tid = be64_to_cpu(wc->recv_buf.mad->mad_hdr.tid);
	u32 len = 0;
	u8 *buf;

	buf = ipn_am_coalesce(wc, &len);
	ipn_allmulti_answer(priv, tid, buf, len, buf ? 0 : -ENOMEM);
	kvfree(buf);
	ib_free_recv_mad(wc);
}

/* A Report to the port: answer it, then every interface follows. */
static void ipn_am_port_recv(struct ib_mad_agent *agent,
			     struct ib_mad_send_buf *send,
			     struct ib_mad_recv_wc *wc)
{
	struct ipn_priv *port = agent->context;
	struct ib_mad_send_buf *resp;
	struct ib_port_attr pattr;
	struct ib_ah *ah;
	u16 pkey;
	u8 *buf;

	buf = kmalloc(IPC_MAD_LEN, GFP_KERNEL);
	if (!buf || wc->mad_len < IPC_MAD_LEN ||
	    ib_query_port(port->ca, agent->port_num, &pattr) ||
	    ib_get_cached_pkey(port->ca, agent->port_num, wc->wc->pkey_index,
			       &pkey) ||
	    ipn_allmulti_notice(port, ib_lid_cpu16(wc->wc->slid),
				ib_lid_cpu16(pattr.sm_lid), pkey,
				(u8 *)wc->recv_buf.mad,
				wc->mad_len, buf))
		goto out;
	ah = ib_create_ah_from_wc(agent->qp->pd, wc->wc, wc->recv_buf.grh,
				  agent->port_num);
	if (IS_ERR(ah))
		goto out;
	resp = ib_create_send_mad(agent, wc->wc->src_qp, wc->wc->pkey_index,
				  0, IB_MGMT_SA_HDR, IB_MGMT_SA_DATA,
				  GFP_KERNEL, IB_MGMT_BASE_VERSION);
	if (IS_ERR(resp)) {
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		goto out;
	}
	memcpy(resp->mad, buf, IPC_MAD_LEN);
	resp->ah = ah;
	resp->context[0] = NULL;
	if (ib_post_send_mad(resp, NULL)) {
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		ib_free_send_mad(resp);
	}
out:
	kfree(buf);
	ib_free_recv_mad(wc);
}

int ipn_am_ib_start(struct ipn_priv *priv)
{
	struct ipn_priv *port = ipn_am_port_priv(priv);
	struct ib_mad_reg_req reg = {
		.mgmt_class = IB_MGMT_CLASS_SUBN_ADM,
		.mgmt_class_version = 2,
	};
	struct ib_mad_agent *agent;
	int ret = 0;

	agent = ib_register_mad_agent(priv->ca, priv->port, IB_QPT_GSI, NULL,
				      IB_MGMT_RMPP_VERSION, ipn_am_send_done,
				      ipn_am_req_recv, priv, 0);
	if (IS_ERR(agent))
		return PTR_ERR(agent);
	priv->am.agent = agent;
	priv->am.tid_hi = agent->hi_tid;

	mutex_lock(&port->am_port.mutex);
	if (!port->am_port.users) {
		set_bit(IB_MGMT_METHOD_REPORT, reg.method_mask);
		port->am_port.agent =
			ib_register_mad_agent(priv->ca, priv->port, IB_QPT_GSI,
					      &reg, 0, ipn_am_send_done,
					      ipn_am_port_recv, port, 0);
		if (IS_ERR(port->am_port.agent)) {
			ret = PTR_ERR(port->am_port.agent);
			port->am_port.agent = NULL;
		}
	}
	if (!ret)
		port->am_port.users++;
	mutex_unlock(&port->am_port.mutex);
	if (ret) {
		ib_unregister_mad_agent(agent);
		priv->am.agent = NULL;
	}
	return ret;
}

void ipn_am_ib_stop(struct ipn_priv *priv)
{
	struct ipn_priv *port = ipn_am_port_priv(priv);

	ib_unregister_mad_agent(priv->am.agent);
	priv->am.agent = NULL;
	mutex_lock(&port->am_port.mutex);
	if (!--port->am_port.users) {
		ib_unregister_mad_agent(port->am_port.agent);
		port->am_port.agent = NULL;
	}
	mutex_unlock(&port->am_port.mutex);
}

/*
 * To the SM's LID (IBA s15.2: the SA lives there), on the default
 * partition, as ib_sa's queries go: the one every port shares with the SM,
 * whatever the interface's P_Key, and the one the SA's Reports are taken
 * on (ipc_sa_report_source_ok()). -ENETDOWN while the port has no SM
 * (not active yet) or no default P_Key: the machine waits for them.
 */
int ipn_am_ib_send(struct ipn_priv *priv, const u8 *mad)
{
	struct ib_mad_agent *agent = priv->am.agent;
	struct rdma_ah_attr attr = {};
	struct ib_port_attr pattr;
	struct ib_mad_send_buf *send;
	struct ib_ah *ah;
	u16 pkey_index;
	int ret;

	ret = ib_query_port(priv->ca, priv->port, &pattr);
	if (ret)
		return ret;
	if (pattr.state != IB_PORT_ACTIVE || !pattr.sm_lid ||
	    ib_find_cached_pkey(priv->ca, priv->port, IPC_PKEY_DEFAULT,
				&pkey_index))
		return -ENETDOWN;
	attr.type = rdma_ah_find_type(priv->ca, priv->port);
	rdma_ah_set_dlid(&attr, pattr.sm_lid);
	rdma_ah_set_sl(&attr, pattr.sm_sl);
	rdma_ah_set_port_num(&attr, priv->port);
	ah = rdma_create_ah(agent->qp->pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah))
		return PTR_ERR(ah);
	send = ib_create_send_mad(agent, 1, pkey_index, 0, IB_MGMT_SA_HDR,
				  IB_MGMT_SA_DATA, GFP_KERNEL,
				  IB_MGMT_BASE_VERSION);
	if (IS_ERR(send)) {
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		return PTR_ERR(send);
	}
	memcpy(send->mad, mad, IPC_MAD_LEN);
	send->ah = ah;
	send->context[0] = priv;
	send->timeout_ms = IPN_AM_TIMEOUT_MS;
	send->retries = IPN_AM_RETRIES;
	ret = ib_post_send_mad(send, NULL);
	if (ret) {
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		ib_free_send_mad(send);
	}
	return ret;
}
