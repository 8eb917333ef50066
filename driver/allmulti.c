// SPDX-License-Identifier: GPL-2.0
/*
 * IFF_ALLMULTI on InfiniBand (and IFF_PROMISC with promisc_allmulti): the
 * promiscuous multicast mode that IP multicast routers need, emulated as
 * RFC 4391 s11 says, since IBA has no such mode:
 *   A) the SA's list of every multicast group (SubnAdmGetTable of
 *      MCMemberRecord),
 *   B) a NonMember join to each group with an IPoIB signature of this
 *      link (ipc_allmulti_wants()),
 *   C) a subscription to the SA's "group created" notices (InformInfo,
 *      trap 66), so that later groups are joined too; "group deleted"
 *      (trap 67) leaves them.
 * Leaving the mode leaves the NonMember memberships (the FullMember ones
 * the stack asked for stay). The core builds and parses the MADs; this
 * file moves them. On RoCE there is no SA and no group directory: the
 * mode changes nothing there (one message says so).
 *
 * MADs: each interface in the mode has a GSI agent of its own for its
 * requests (unregistering it cancels them and waits for its handlers);
 * each port has one more, in the port's interface (priv->parent), which
 * receives the SA's Reports for every interface of the port and answers
 * them. Both are behind ipn_sa_ops (am_*), which KUnit replaces.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include "ipoib_ng.h"

#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>

#define IPN_AM_RETRY	(5 * HZ)	/* after a failed SA request */
#define IPN_AM_TIMEOUT_MS	1000
#define IPN_AM_RETRIES	3

static struct ipn_priv *ipn_am_port_priv(struct ipn_priv *priv)
{
	return priv->parent ?: priv;
}

/*
 * Send one request built by the core: the group list (trap 0), or the
 * InformInfo that subscribes to trap (or cancels it). The answer to it is
 * taken once its TID is in *expect (priv->am, or NULL for none), which is
 * set before the send, as the SA may answer at once. A list request
 * starts a new directory read (priv->am.gen, read_at). ctl_mutex held.
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
	if (!trap) {
		priv->am.gen++;
		priv->am.read_at = ipn_now_ms();
	}
	spin_unlock_bh(&priv->lock);
	if (trap)
		ipc_sa_inform_req(mad, tid, trap, subscribe);
	else
		ipc_sa_mcmember_table_req(mad, tid);
	ret = priv->sa->am_send(priv, mad);
	kfree(mad);
	return ret;
}

/* A request not sent: all of it again after IPN_AM_RETRY. */
static void ipn_am_unsent(struct ipn_priv *priv, int ret)
{
	net_warn_ratelimited("%s: all-multicast: SA request not sent: %d\n",
			     priv->dev->name, ret);
	ipn_allmulti_restart(priv);
	queue_delayed_work(priv->wq, &priv->rx_mode_work, IPN_AM_RETRY);
}

/* Read the directory and subscribe. ctl_mutex held. */
static void ipn_am_query(struct ipn_priv *priv)
{
	int ret;

	lockdep_assert_held(&priv->ctl_mutex);
	ret = ipn_am_request(priv, &priv->am.sub_tid[0],
			     IPC_TRAP_MCG_CREATED, 1);
	if (!ret)
		ret = ipn_am_request(priv, &priv->am.sub_tid[1],
				     IPC_TRAP_MCG_DELETED, 1);
	if (!ret)
		ret = ipn_am_request(priv, &priv->am.table_tid, 0, 0);
	if (ret)
		ipn_am_unsent(priv, ret);
}

/* Leave a NonMember group the mode joined. priv->lock held. */
static void ipn_am_leave(struct ipn_priv *priv, struct ipn_mcast *mc, u64 now)
{
	struct ipc_result r;

	lockdep_assert_held(&priv->lock);
	priv->am.groups--;
	ipc_mc_unsubscribe(&mc->st, &priv->mc_cfg, IPC_JOIN_NON, now, &r);
	ipn_mcast_apply(priv, mc, &r, NULL);
}

/* One group of the directory, or a notice. priv->lock held. */
static void ipn_am_group(struct ipn_priv *priv, const u8 *mgid, bool join)
{
	struct ipn_mcast *mc;
	struct ipc_result r;
	u64 now = ipn_now_ms();

	lockdep_assert_held(&priv->lock);
	if (!priv->am.active || !ipc_allmulti_wants(priv->ifid.bcast_gid, mgid))
		return;
	mc = ipn_mcast_find(priv, mgid);
	if (join) {
		/*
		 * Review M3: NonMember groups, which the fabric creates and
		 * nothing here evicts while joined, take at most half the
		 * table; the stack's and send-only groups keep the rest.
		 */
		if (!mc && priv->am.groups >= priv->groups_max / 2)
			return;
		mc = mc ?: ipn_mcast_get(priv, mgid, IPC_SCOPE_LINK, false);
		/* A full table: this group is not followed (said once). */
		if (IS_ERR(mc))
			return;
		/* Listed by the read in flight, or created since it began. */
		mc->am_gen = priv->am.gen;
		if (ipc_mc_wanted(&mc->st, IPC_JOIN_NON))
			return;
		priv->am.groups++;
		ipc_mc_subscribe(&mc->st, &priv->mc_cfg, IPC_JOIN_NON, now, &r);
		ipn_mcast_apply(priv, mc, &r, NULL);
	} else if (mc && (ipc_mc_wanted(&mc->st, IPC_JOIN_NON))) {
		ipn_am_leave(priv, mc, now);
	}
}

/*
 * A complete directory read: the NonMember groups it does not list, and
 * that no Report created since it began, are gone from the SA (a trap 67
 * lost, or beyond the rate): left. priv->lock held.
 */
static void ipn_am_sweep(struct ipn_priv *priv)
{
	struct ipn_mcast *mc, *tmp;
	u64 now = ipn_now_ms();

	lockdep_assert_held(&priv->lock);
	list_for_each_entry_safe(mc, tmp, &priv->mcasts, list)
		if ((ipc_mc_wanted(&mc->st, IPC_JOIN_NON)) && mc->am_gen != priv->am.gen)
			ipn_am_leave(priv, mc, now);
}

/*
 * The answer to one of our requests: buf/len the reassembled response,
 * or status (a timeout) with buf NULL. Any context that may sleep but
 * holds no lock of ours.
 */
void ipn_allmulti_answer(struct ipn_priv *priv, u64 tid, const u8 *buf,
			 u32 len, int status)
{
	u32 pos = 0;
	u8 mgid[16];
	bool retry = false;
	int ret = status;

	spin_lock_bh(&priv->lock);
	if (!priv->am.active)
		goto out;
	if (tid == priv->am.table_tid) {
		priv->am.table_tid = 0;
		while (!ret && (ret = ipc_sa_mcmember_table_next(buf, len, tid,
								 &pos,
								 mgid)) == 1) {
			ipn_am_group(priv, mgid, true);
			ret = 0;
		}
		if (!ret)
			ipn_am_sweep(priv);
	} else if (tid == priv->am.sub_tid[0] || tid == priv->am.sub_tid[1]) {
		if (!ret)
			ret = ipc_sa_inform_resp_check(buf, len, tid);
	} else {
		goto out;	/* an unsubscription, or stale */
	}
	retry = ret != 0;
out:
	spin_unlock_bh(&priv->lock);
	if (retry) {
		net_warn_ratelimited("%s: all-multicast: the SA answered %d, again in %d s\n",
				     priv->dev->name, ret, IPN_AM_RETRY / HZ);
		ipn_inc(priv, mc_failures);
		ipn_allmulti_restart(priv);
		queue_delayed_work(priv->wq, &priv->rx_mode_work, IPN_AM_RETRY);
	} else {
		ipn_ctl_kick(priv);
	}
}

/*
 * A Report beyond the rate (ipc_notice_admit): answered, not acted on;
 * every interface in the mode reads the directory again when the core
 * says (ipn_allmulti_sync, ipc_notice_reread). am_port.lock held.
 */
static void ipn_am_limited(struct ipn_priv *port_priv)
{
	struct ipn_priv *priv;

	lockdep_assert_held(&port_priv->am_port.lock);
	ipn_inc(port_priv, sa_reports_limited);
	netdev_warn_once(port_priv->dev,
			 "SA Reports beyond %u a second: not acted on; the group directory is read again once they stop (sa_reports_limited)\n",
			 IPC_NOTICE_RATE);
	/* Not later than it was: the stack's groups wait in it too. */
	list_for_each_entry(priv, &port_priv->am_port.list, am.node)
		queue_delayed_work(priv->wq, &priv->rx_mode_work,
				   msecs_to_jiffies(IPC_NOTICE_QUIET_MS));
}

/*
 * Reports were refused since this interface last read the directory: read
 * it again when the core says, or arm the rx_mode work for then (it runs
 * this). ctl_mutex held.
 */
static void ipn_am_reread(struct ipn_priv *priv, u64 now)
{
	struct ipn_priv *port = ipn_am_port_priv(priv);
	u64 read_at, deadline;
	int due, ret;

	lockdep_assert_held(&priv->ctl_mutex);
	spin_lock_bh(&priv->lock);
	read_at = priv->am.read_at;
	spin_unlock_bh(&priv->lock);
	spin_lock_bh(&port->am_port.lock);
	due = ipc_notice_reread(&port->am_port.rate, read_at, now, &deadline);
	spin_unlock_bh(&port->am_port.lock);
	if (due) {
		ret = ipn_am_request(priv, &priv->am.table_tid, 0, 0);
		if (ret)
			ipn_am_unsent(priv, ret);
	} else if (deadline != IPC_NO_DEADLINE) {
		queue_delayed_work(priv->wq, &priv->rx_mode_work,
				   msecs_to_jiffies(deadline - now));
	}
}

/*
 * A Report to the port of port_priv (its interface without a parent),
 * from LID slid on the partition pkey, while the port's SM is at sm_lid:
 * a group was created or deleted. Every interface of the port in the
 * mode follows. resp gets the ReportResp to send back. Returns 0 when
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
		spin_unlock(&priv->lock);
		ipn_ctl_kick(priv);
	}
	spin_unlock_bh(&port_priv->am_port.lock);
	return 0;
}

static int ipn_am_start(struct ipn_priv *priv)
{
	struct ipn_priv *port = ipn_am_port_priv(priv);
	int ret;

	ret = priv->sa->am_start(priv);
	if (ret)
		return ret;
	spin_lock_bh(&port->am_port.lock);
	list_add_tail(&priv->am.node, &port->am_port.list);
	spin_unlock_bh(&port->am_port.lock);
	spin_lock_bh(&priv->lock);
	priv->am.active = true;
	priv->am.groups = 0;
	spin_unlock_bh(&priv->lock);
	return 0;
}

/*
 * Leave the mode: the subscriptions are cancelled (best effort: the
 * agent goes right after), the NonMember memberships left. ctl_mutex.
 */
void ipn_allmulti_stop(struct ipn_priv *priv)
{
	struct ipn_priv *port = ipn_am_port_priv(priv);
	struct ipn_mcast *mc, *tmp;
	u64 now;

	if (!priv->am.on)
		return;
	if (priv->up) {
		ipn_am_request(priv, NULL, IPC_TRAP_MCG_CREATED, 0);
		ipn_am_request(priv, NULL, IPC_TRAP_MCG_DELETED, 0);
	}
	spin_lock_bh(&port->am_port.lock);
	list_del(&priv->am.node);
	spin_unlock_bh(&port->am_port.lock);
	spin_lock_bh(&priv->lock);
	priv->am.active = false;
	priv->am.table_tid = 0;
	priv->am.sub_tid[0] = 0;
	priv->am.sub_tid[1] = 0;
	spin_unlock_bh(&priv->lock);
	priv->sa->am_stop(priv);	/* no answer runs after this */
	priv->am.on = false;

	now = ipn_now_ms();
	spin_lock_bh(&priv->lock);
	list_for_each_entry_safe(mc, tmp, &priv->mcasts, list)
		if (ipc_mc_wanted(&mc->st, IPC_JOIN_NON))
			ipn_am_leave(priv, mc, now);
	priv->am.groups = 0;
	spin_unlock_bh(&priv->lock);
	ipn_mcast_run(priv);
}

/*
 * Follow the device's flags: called by the rx_mode work (rtnl,
 * ctl_mutex), with the link up. A restart (the link was flushed: the
 * memberships and maybe the SA's subscriptions are gone) reads the
 * directory and subscribes again.
 */
void ipn_allmulti_sync(struct ipn_priv *priv)
{
	unsigned int flags = priv->dev->flags;
	bool want = ipc_allmulti_mode(priv->up, !!(flags & IFF_ALLMULTI),
				      !!(flags & IFF_PROMISC),
				      READ_ONCE(ipn_promisc_allmulti));
	bool restart;

	ASSERT_RTNL();
	lockdep_assert_held(&priv->ctl_mutex);
	if (!want) {
		ipn_allmulti_stop(priv);
		return;
	}
	if (!priv->ops->sa_directory || !priv->sa->am_start) {
		if (!priv->am.told) {
			netdev_info(priv->dev, "all-multicast: RoCE has no SA to list the groups; only the stack's groups are joined\n");
			priv->am.told = true;
		}
		return;
	}
	spin_lock_bh(&priv->lock);
	restart = priv->am.restart;
	priv->am.restart = false;
	spin_unlock_bh(&priv->lock);
	if (priv->am.on && !restart) {
		ipn_am_reread(priv, ipn_now_ms());
		return;
	}
	if (!priv->am.on) {
		int ret = ipn_am_start(priv);

		if (ret) {
			net_warn_ratelimited("%s: all-multicast: no MAD agent: %d\n",
					     priv->dev->name, ret);
			queue_delayed_work(priv->wq, &priv->rx_mode_work,
					   IPN_AM_RETRY);
			return;
		}
		priv->am.on = true;
	}
	ipn_am_query(priv);
}

/* The link was flushed: read the directory again at the next sync. */
void ipn_allmulti_restart(struct ipn_priv *priv)
{
	spin_lock_bh(&priv->lock);
	priv->am.restart = true;
	spin_unlock_bh(&priv->lock);
}

void ipn_allmulti_init(struct ipn_priv *priv)
{
	INIT_LIST_HEAD(&priv->am.node);
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

/* To the SM's LID (IBA s15.2: the SA lives there). */
int ipn_am_ib_send(struct ipn_priv *priv, const u8 *mad)
{
	struct ib_mad_agent *agent = priv->am.agent;
	struct rdma_ah_attr attr = {};
	struct ib_port_attr pattr;
	struct ib_mad_send_buf *send;
	struct ib_ah *ah;
	int ret;

	ret = ib_query_port(priv->ca, priv->port, &pattr);
	if (ret)
		return ret;
	attr.type = rdma_ah_find_type(priv->ca, priv->port);
	rdma_ah_set_dlid(&attr, pattr.sm_lid);
	rdma_ah_set_sl(&attr, pattr.sm_sl);
	rdma_ah_set_port_num(&attr, priv->port);
	ah = rdma_create_ah(agent->qp->pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah))
		return PTR_ERR(ah);
	send = ib_create_send_mad(agent, 1, priv->pkey_index, 0,
				  IB_MGMT_SA_HDR, IB_MGMT_SA_DATA, GFP_KERNEL,
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
