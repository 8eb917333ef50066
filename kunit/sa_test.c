// SPDX-License-Identifier: GPL-2.0
/*
 * sa_test.c - suite ipoib_ng_sa: the InfiniBand control paths (SA
 * PathRecord queries, SA multicast joins; RFC 4391 s5, s9.1.2, s10) of the
 * real driver code, against a scripted subnet administrator.
 *
 * Soft-RoCE has no SA, so each case makes a real interface on the RoCE
 * port of the device named by the ibdev parameter (real PD, QP, address
 * handles, attach), switches it to the InfiniBand backend (driver/sa.c) and
 * replaces only the SA calls (struct ipn_sa_ops) by the fake below. The test
 * then answers each request as an SA would: success, timeout, group missing,
 * -ENETRESET, late answers racing with leave, interface down, device gone.
 *
 * The fake keeps ib_sa's contracts: a cancelled query completes later with
 * -EINTR, from another context; after free_multicast() returns, the join
 * callback never runs again, and a callback in flight is waited for.
 */
#define IPN_KUNIT 1
#include <linux/delay.h>
#include IPN_UNALIGNED_H
#include <linux/etherdevice.h>
#include <linux/ip.h>
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <net/addrconf.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_mad.h>
#include "ipoib_ng.h"
#include "ipn_kunit.h"

struct kt_query {
	struct list_head list;
	struct work_struct work;	/* -EINTR delivery after a cancel */
	ipn_sa_path_cb done;
	void *ctx;
	int id;
	struct sa_path_rec req;
	ib_sa_comp_mask mask;
};

struct kt_join {
	struct ib_sa_multicast m;	/* first: the shim sees this */
	struct list_head list;
	struct ib_sa_mcmember_rec req;
	ib_sa_comp_mask mask;
	int in_cb;			/* callbacks running now */
	int seq;			/* kt_sa.join_calls when made */
	bool freed;
};

static struct {
	spinlock_t lock;		/* everything below */
	wait_queue_head_t wait;
	struct workqueue_struct *wq;
	struct list_head queries;	/* outstanding */
	struct list_head joins;		/* not freed */
	int next_id;
	int path_calls, cancels, join_calls, frees;
	int path_ret;			/* != 0: path_rec_get fails with it */
	u8 user_mgid[16];		/* a group another user holds */
	bool user_held;
	/* allmulti.c's MADs: what was sent, agents started and stopped */
	u8 mads[16][IPC_MAD_LEN];
	int n_mads, am_starts, am_stops;
	/* Answered inside am_send, the table listing am_list (n of them). */
	bool am_at_once;
	const u8 (*am_list)[16];
	int am_list_n;
} kt_sa;

static void kt_am_answer(struct ipn_priv *priv, int i, const u8 (*mgids)[16],
			 int n, u16 status);

static int kt_path_rec_get(struct ipn_priv *priv, struct sa_path_rec *rec,
			   ib_sa_comp_mask mask, unsigned long timeout_ms,
			   ipn_sa_path_cb done, void *ctx,
			   struct ib_sa_query **query)
{
	struct kt_query *q;

	spin_lock_bh(&kt_sa.lock);
	kt_sa.path_calls++;
	spin_unlock_bh(&kt_sa.lock);
	if (kt_sa.path_ret)
		return kt_sa.path_ret;
	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	q->done = done;
	q->ctx = ctx;
	q->req = *rec;
	q->mask = mask;
	spin_lock_bh(&kt_sa.lock);
	q->id = ++kt_sa.next_id;
	list_add_tail(&q->list, &kt_sa.queries);
	spin_unlock_bh(&kt_sa.lock);
	*query = (struct ib_sa_query *)q;	/* opaque to the caller */
	return q->id;
}

static void kt_cancel_work(struct work_struct *work)
{
	struct kt_query *q = container_of(work, struct kt_query, work);

	q->done(-EINTR, NULL, 0, q->ctx);
	kfree(q);
}

/* Atomic context (the shim holds priv->lock): complete later. */
static void kt_cancel_query(int id, struct ib_sa_query *query)
{
	struct kt_query *q;

	spin_lock_bh(&kt_sa.lock);
	kt_sa.cancels++;
	list_for_each_entry(q, &kt_sa.queries, list) {
		if (q->id == id && (struct ib_sa_query *)q == query) {
			list_del(&q->list);
			INIT_WORK(&q->work, kt_cancel_work);
			queue_work(kt_sa.wq, &q->work);
			break;
		}
	}
	spin_unlock_bh(&kt_sa.lock);
}

static struct ib_sa_multicast *kt_join(struct ipn_priv *priv,
				       struct ib_sa_mcmember_rec *rec,
				       ib_sa_comp_mask mask,
				       ipn_sa_join_cb done, void *ctx)
{
	struct kt_join *j = kzalloc(sizeof(*j), GFP_KERNEL);

	if (!j)
		return ERR_PTR(-ENOMEM);
	j->m.callback = done;
	j->m.context = ctx;
	j->m.rec = *rec;
	j->m.comp_mask = mask;
	j->req = *rec;
	j->mask = mask;
	spin_lock_bh(&kt_sa.lock);
	j->seq = ++kt_sa.join_calls;
	list_add_tail(&j->list, &kt_sa.joins);
	spin_unlock_bh(&kt_sa.lock);
	return &j->m;
}

static bool kt_join_idle(struct kt_join *j)
{
	bool idle;

	spin_lock_bh(&kt_sa.lock);
	idle = !j->in_cb;
	spin_unlock_bh(&kt_sa.lock);
	return idle;
}

static void kt_free_multicast(struct ib_sa_multicast *m)
{
	struct kt_join *j = container_of(m, struct kt_join, m);

	might_sleep();
	spin_lock_bh(&kt_sa.lock);
	kt_sa.frees++;
	j->freed = true;
	list_del(&j->list);
	spin_unlock_bh(&kt_sa.lock);
	wait_event(kt_sa.wait, kt_join_idle(j));
	kfree(j);
}

static const u8 kt_dmac[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 0x01 };

static int kt_path_ah_attr(struct ipn_priv *priv, struct sa_path_rec *rec,
			   struct rdma_ah_attr *attr)
{
	ipn_roce_attr(priv, rec->dgid.raw, 1, attr);
	memcpy(attr->roce.dmac, kt_dmac, ETH_ALEN);
	return 0;
}

static int kt_mc_ah_attr(struct ipn_priv *priv, struct ib_sa_mcmember_rec *rec,
			 struct rdma_ah_attr *attr)
{
	ipn_roce_attr(priv, rec->mgid.raw, 1, attr);
	rdma_get_mcast_mac((struct in6_addr *)rec->mgid.raw, attr->roce.dmac);
	return 0;
}

/*
 * As ib_sa_get_mcmember_rec(): any membership of the port, another
 * user's (user_mgid) or one of ours (a join not freed).
 */
static int kt_get_mcmember_rec(struct ipn_priv *priv, const u8 *mgid,
			       struct ib_sa_mcmember_rec *rec)
{
	struct kt_join *j;
	int ret = -EADDRNOTAVAIL;

	spin_lock_bh(&kt_sa.lock);
	if (kt_sa.user_held && !memcmp(kt_sa.user_mgid, mgid, 16))
		ret = 0;
	list_for_each_entry(j, &kt_sa.joins, list)
		if (!memcmp(j->req.mgid.raw, mgid, 16))
			ret = 0;
	spin_unlock_bh(&kt_sa.lock);
	memset(rec, 0, sizeof(*rec));
	return ret;
}

static int kt_am_start(struct ipn_priv *priv)
{
	priv->am.tid_hi = 0x4b540000;	/* an agent's hi_tid */
	spin_lock_bh(&kt_sa.lock);
	kt_sa.am_starts++;
	spin_unlock_bh(&kt_sa.lock);
	return 0;
}

static void kt_am_stop(struct ipn_priv *priv)
{
	spin_lock_bh(&kt_sa.lock);
	kt_sa.am_stops++;
	spin_unlock_bh(&kt_sa.lock);
}

static int kt_am_send(struct ipn_priv *priv, const u8 *mad)
{
	int ret = -ENOBUFS;

	int i = -1;

	spin_lock_bh(&kt_sa.lock);
	if (kt_sa.n_mads < ARRAY_SIZE(kt_sa.mads)) {
		i = kt_sa.n_mads++;
		memcpy(kt_sa.mads[i], mad, IPC_MAD_LEN);
		ret = 0;
	}
	spin_unlock_bh(&kt_sa.lock);
	/* An SA that answers before the send returns (a MAD is quick). */
	if (!ret && kt_sa.am_at_once && mad[3] != IB_MGMT_METHOD_REPORT_RESP)
		kt_am_answer(priv, i, kt_sa.am_list, kt_sa.am_list_n, 0);
	return ret;
}

static const struct ipn_sa_ops kt_sa_ops = {
	.am_start = kt_am_start,
	.am_stop = kt_am_stop,
	.am_send = kt_am_send,
	.path_rec_get = kt_path_rec_get,
	.cancel_query = kt_cancel_query,
	.join = kt_join,
	.free_multicast = kt_free_multicast,
	.path_ah_attr = kt_path_ah_attr,
	.mc_ah_attr = kt_mc_ah_attr,
	.get_mcmember_rec = kt_get_mcmember_rec,
};

/* ------------------------------------------------------------------ */
/* The SA's answers                                                     */
/* ------------------------------------------------------------------ */

/* Answer the oldest query for dgid. -ENOENT: none outstanding. */
static int kt_answer_path(const u8 *dgid, int status)
{
	struct sa_path_rec resp = {};
	struct kt_query *q, *found = NULL;

	spin_lock_bh(&kt_sa.lock);
	list_for_each_entry(q, &kt_sa.queries, list) {
		if (!memcmp(q->req.dgid.raw, dgid, 16)) {
			found = q;
			list_del(&q->list);
			break;
		}
	}
	spin_unlock_bh(&kt_sa.lock);
	if (!found)
		return -ENOENT;
	resp = found->req;
	resp.rec_type = SA_PATH_REC_TYPE_IB;
	found->done(status, status ? NULL : &resp, status ? 0 : 1, found->ctx);
	kfree(found);
	return 0;
}

static struct kt_join *kt_find_join(const u8 *mgid)
{
	struct kt_join *j, *found = NULL;

	list_for_each_entry(j, &kt_sa.joins, list)
		if (!memcmp(j->req.mgid.raw, mgid, 16))
			found = j;	/* the newest */
	return found;
}

/*
 * Deliver a join result for mgid as the SA does: on success the record
 * carries the group's Q_Key, MTU and MLID. -ENOENT: no such membership.
 */
static int kt_answer_join(const u8 *mgid, int status, u32 qkey, u8 mtu)
{
	struct kt_join *j;

	spin_lock_bh(&kt_sa.lock);
	j = kt_find_join(mgid);
	if (j)
		j->in_cb++;
	spin_unlock_bh(&kt_sa.lock);
	if (!j)
		return -ENOENT;
	if (!status) {
		j->m.rec.qkey = cpu_to_be32(qkey);
		j->m.rec.mtu = mtu;
		j->m.rec.mlid = cpu_to_be16(0xc001);
		j->m.rec.rate = IB_RATE_10_GBPS;
		j->m.rec.hop_limit = 1;
	}
	j->m.callback(status, &j->m);
	spin_lock_bh(&kt_sa.lock);
	j->in_cb--;
	spin_unlock_bh(&kt_sa.lock);
	wake_up_all(&kt_sa.wait);
	return 0;
}

/* Whether a join of mgid made after the seq-th join call is outstanding. */
static bool kt_joined_after(const u8 *mgid, int seq)
{
	struct kt_join *j;
	bool found;

	spin_lock_bh(&kt_sa.lock);
	j = kt_find_join(mgid);
	found = j && j->seq > seq;
	spin_unlock_bh(&kt_sa.lock);
	return found;
}

/* Memberships not freed, of mgid (NULL: of any group). */
static int kt_count_joins(const u8 *mgid)
{
	struct kt_join *j;
	int n = 0;

	spin_lock_bh(&kt_sa.lock);
	list_for_each_entry(j, &kt_sa.joins, list)
		n += !mgid || !memcmp(j->req.mgid.raw, mgid, 16);
	spin_unlock_bh(&kt_sa.lock);
	return n;
}

static int kt_count_queries(void)
{
	struct kt_query *q;
	int n = 0;

	spin_lock_bh(&kt_sa.lock);
	list_for_each_entry(q, &kt_sa.queries, list)
		n++;
	spin_unlock_bh(&kt_sa.lock);
	return n;
}

/* ------------------------------------------------------------------ */
/* The interface under test                                             */
/* ------------------------------------------------------------------ */

struct kt_ctx {
	struct ib_device *ca;
	struct ipn_priv *priv;
};

/* Let the control work run what the last call queued (it takes rtnl). */
static void kt_settle(struct ipn_priv *priv)
{
	int i;

	for (i = 0; i < 3; i++) {
		flush_workqueue(kt_sa.wq);
		flush_workqueue(priv->wq);
	}
}

/* Wait up to ms for cond, letting the driver's works run. */
#define kt_wait(priv, ms, cond) ({					\
	unsigned long __end = jiffies + msecs_to_jiffies(ms);		\
	bool __ok;							\
	while (!(__ok = (cond)) && time_before(jiffies, __end)) {	\
		kt_settle(priv);					\
		msleep(20);						\
	}								\
	__ok;								\
})

static int kt_init(struct kunit *test)
{
	struct kt_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct inet6_dev *idev;
	struct ipn_priv *priv;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, c);
	test->priv = c;
	spin_lock_init(&kt_sa.lock);
	init_waitqueue_head(&kt_sa.wait);
	INIT_LIST_HEAD(&kt_sa.queries);
	INIT_LIST_HEAD(&kt_sa.joins);
	kt_sa.path_calls = 0;
	kt_sa.cancels = 0;
	kt_sa.join_calls = 0;
	kt_sa.frees = 0;
	kt_sa.path_ret = 0;
	kt_sa.user_held = false;
	kt_sa.n_mads = 0;
	kt_sa.am_starts = 0;
	kt_sa.am_stops = 0;
	kt_sa.am_at_once = false;
	ipn_create_broadcast = false;
	ipn_promisc_allmulti = false;
	kt_sa.wq = alloc_workqueue("ipn_kt_sa", 0, 0);
	KUNIT_ASSERT_NOT_NULL(test, kt_sa.wq);

	c->ca = ipn_kunit_get_ibdev(test);
	priv = ipn_dev_create(c->ca, 1, IPC_PKEY_DEFAULT);
	if (IS_ERR(priv)) {
		ib_device_put(c->ca);
		KUNIT_ASSERT_FAILURE(test, "ipn_dev_create: %pe", priv);
	}
	c->priv = priv;
	/* The InfiniBand backend, with the scripted SA. */
	priv->ops = &ipn_ib_ops;
	priv->sa = &kt_sa_ops;

	rtnl_lock();
	/* No IPv6 autoconfiguration: its groups and DAD are not the subject. */
	idev = __in6_dev_get(priv->dev);
	if (idev)
		idev->cnf.disable_ipv6 = 1;
	ret = dev_open(priv->dev, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, ret, 0);
	return 0;
}

static void kt_exit(struct kunit *test)
{
	struct kt_ctx *c = test->priv;

	if (c && c->priv) {
		ipn_dev_destroy(c->priv);	/* down, then gone */
		flush_workqueue(kt_sa.wq);
		/* Every query was answered or cancelled, every join freed. */
		KUNIT_EXPECT_EQ(test, kt_count_queries(), 0);
		KUNIT_EXPECT_TRUE(test, list_empty(&kt_sa.joins));
	}
	if (c && c->ca)
		ib_device_put(c->ca);
	if (kt_sa.wq)
		destroy_workqueue(kt_sa.wq);
	kt_sa.wq = NULL;
}

static int kt_path_state(struct ipn_priv *priv, const u8 *gid)
{
	return ipn_kunit_path(priv, gid).state;
}

static int kt_mc_state(struct ipn_priv *priv, const u8 *mgid)
{
	struct ipn_mcast *mc;
	int state = -1;

	spin_lock_bh(&priv->lock);
	mc = ipn_mcast_find(priv, mgid);
	if (mc)
		state = mc->st.state;
	spin_unlock_bh(&priv->lock);
	return state;
}

#define KT_QKEY 0x0000beefu

/* Bring the broadcast group up through the SA: the common first step. */
static void kt_join_bcast(struct kunit *test, struct ipn_priv *priv)
{
	const u8 *bgid = priv->ifid.bcast_gid;

	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_joins(bgid) > 0));
	KUNIT_ASSERT_EQ(test, kt_answer_join(bgid, 0, KT_QKEY, IB_MTU_2048), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000,
					netif_carrier_ok(priv->dev)));
}

/* ------------------------------------------------------------------ */
/* Cases                                                                */
/* ------------------------------------------------------------------ */

/*
 * RFC 4391 s5, s9.1.2: a FullMember join of the broadcast group; its Q_Key
 * and MTU become the interface's; carrier only once joined.
 */
static void sa_bcast_join(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	const u8 *bgid = priv->ifid.bcast_gid;
	struct kt_join *j;

	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_joins(bgid) > 0));
	KUNIT_EXPECT_FALSE(test, netif_carrier_ok(priv->dev));
	spin_lock_bh(&kt_sa.lock);
	j = kt_find_join(bgid);
	KUNIT_EXPECT_EQ(test, j->req.join_state, IPC_JOIN_FULL);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(j->req.pkey), IPC_PKEY_DEFAULT);
	KT_EXPECT_MEMEQ(test, j->req.port_gid.raw, priv->ifid.gid, 16);
	/* The broadcast group's own parameters are the SA's to choose. */
	KUNIT_EXPECT_FALSE(test, j->mask & IB_SA_MCMEMBER_REC_QKEY);
	spin_unlock_bh(&kt_sa.lock);

	KUNIT_ASSERT_EQ(test, kt_answer_join(bgid, 0, KT_QKEY, IB_MTU_2048), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
					netif_carrier_ok(priv->dev)));
	KUNIT_EXPECT_EQ(test, kt_mc_state(priv, bgid), IPC_MC_JOINED);
	KUNIT_EXPECT_EQ(test, priv->qkey, KT_QKEY);
	KUNIT_EXPECT_TRUE(test, priv->bcast_rec_valid);
	KUNIT_EXPECT_EQ(test, priv->dev->max_mtu, 2044u);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, mc_joins), 1u);
}

/* A failed broadcast join is retried; no carrier meanwhile. */
static void sa_bcast_join_timeout_retries(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	const u8 *bgid = priv->ifid.bcast_gid;
	int calls;

	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_joins(bgid) > 0));
	calls = kt_sa.join_calls;
	KUNIT_ASSERT_EQ(test, kt_answer_join(bgid, -ETIMEDOUT, 0, 0), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 5000, kt_sa.join_calls > calls));
	KUNIT_EXPECT_FALSE(test, netif_carrier_ok(priv->dev));
	KUNIT_EXPECT_GE(test, ipn_stat(priv, mc_failures), 1u);
	/* The retry succeeds. */
	KUNIT_ASSERT_EQ(test, kt_answer_join(bgid, 0, KT_QKEY, IB_MTU_2048), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
					netif_carrier_ok(priv->dev)));
}

/*
 * An SA event (client reregister): ib_sa reports -ENETRESET on every
 * established membership, and the port event reaches the driver's event
 * handler. The -ENETRESET alone changes nothing (no carrier drop, no
 * failure); the event rejoins every group.
 */
static void sa_bcast_enetreset_rejoins(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	const u8 *bgid = priv->ifid.bcast_gid;
	struct ib_event ev = {
		.device = priv->ca,
		.event = IB_EVENT_CLIENT_REREGISTER,
		.element.port_num = priv->port,
	};
	u64 failures;
	int calls;

	kt_join_bcast(test, priv);
	/* The groups held for the broadcast group's parameters join now. */
	kt_settle(priv);
	calls = kt_sa.join_calls;
	failures = ipn_stat(priv, mc_failures);
	KUNIT_ASSERT_EQ(test, kt_answer_join(bgid, -ENETRESET, 0, 0), 0);
	kt_settle(priv);
	KUNIT_EXPECT_TRUE(test, netif_carrier_ok(priv->dev));
	KUNIT_EXPECT_EQ(test, kt_mc_state(priv, bgid), IPC_MC_JOINED);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, mc_failures), failures);
	KUNIT_EXPECT_EQ(test, kt_sa.join_calls, calls);

	priv->event_handler.handler(&priv->event_handler, &ev);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 5000, kt_count_joins(bgid) > 0 &&
					kt_sa.join_calls > calls));
	KUNIT_ASSERT_EQ(test, kt_answer_join(bgid, 0, KT_QKEY, IB_MTU_2048), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, kt_mc_state(priv, bgid) ==
					IPC_MC_JOINED));
	KUNIT_EXPECT_TRUE(test, netif_carrier_ok(priv->dev));
}

/*
 * Each port event kind, as ib_core delivers it, reaches the flush level the
 * core gives it (ib_ipoib's flush light/normal/heavy): LIGHT (SM change,
 * client reregister, GID change) rejoins with the carrier kept; NORMAL and
 * HEAVY (LID change, P_Key change, port error, port active) take the link
 * down, memberships freed and carrier off, and up again with a new
 * broadcast join. The port stays ACTIVE with its P_Key in rxe's cache, as
 * after a transient event; the address does not move.
 */
static void sa_event_kinds(struct kunit *test)
{
	static const struct {
		enum ib_event_type type;
		bool link_down;
	} evs[] = {
		{ IB_EVENT_SM_CHANGE, false },
		{ IB_EVENT_CLIENT_REREGISTER, false },
		{ IB_EVENT_GID_CHANGE, false },
		{ IB_EVENT_LID_CHANGE, true },
		{ IB_EVENT_PKEY_CHANGE, true },
		{ IB_EVENT_PORT_ERR, true },
		{ IB_EVENT_PORT_ACTIVE, true },
	};
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	struct net_device *dev = priv->dev;
	const u8 *bgid = priv->ifid.bcast_gid;
	static const u8 ip_group[4] = { 224, 1, 2, 8 };
	u8 addr[IPC_ADDR_LEN], group[16], hw[IPC_ADDR_LEN];
	int i, calls, frees;

	kt_join_bcast(test, priv);
	memcpy(addr, dev->dev_addr, IPC_ADDR_LEN);
	ipc_mgid_from_ipv4(ip_group, bgid, group);
	ipn_kunit_mc_addr(hw, group);
	KUNIT_ASSERT_EQ(test, dev_mc_add(dev, hw), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_joins(group) > 0));
	KUNIT_ASSERT_EQ(test, kt_answer_join(group, 0, KT_QKEY, IB_MTU_2048), 0);
	for (i = 0; i < ARRAY_SIZE(evs); i++) {
		struct ib_event ev = {
			.device = priv->ca,
			.event = evs[i].type,
			.element.port_num = priv->port,
		};
		const char *name = ib_event_msg(evs[i].type);

		calls = kt_sa.join_calls;
		frees = kt_sa.frees;
		priv->event_handler.handler(&priv->event_handler, &ev);
		KUNIT_EXPECT_TRUE_MSG(test, kt_wait(priv, 5000,
						    kt_sa.join_calls > calls &&
						    kt_count_joins(bgid) > 0),
				      "%s: no broadcast rejoin", name);
		if (evs[i].link_down) {
			KUNIT_EXPECT_FALSE_MSG(test, netif_carrier_ok(dev),
					       "%s: carrier kept", name);
			KUNIT_EXPECT_GT_MSG(test, kt_sa.frees, frees,
					    "%s: membership not freed", name);
		} else {
			KUNIT_EXPECT_TRUE_MSG(test, netif_carrier_ok(dev),
					      "%s: carrier dropped", name);
		}
		KUNIT_ASSERT_EQ(test, kt_answer_join(bgid, 0, KT_QKEY,
						     IB_MTU_2048), 0);
		KUNIT_EXPECT_TRUE_MSG(test, kt_wait(priv, 2000,
						    netif_carrier_ok(dev) &&
						    kt_mc_state(priv, bgid) ==
						    IPC_MC_JOINED),
				      "%s: link not back", name);
		KT_EXPECT_MEMEQ(test, dev->dev_addr, addr, IPC_ADDR_LEN);
		/*
		 * The stack's group is asked for again, and joins: its new
		 * join, not the one the flush left (the control work leaves
		 * it and joins again after the state says JOINING).
		 */
		KUNIT_EXPECT_TRUE_MSG(test, kt_wait(priv, 2000,
						    kt_mc_state(priv, group) ==
						    IPC_MC_JOINING &&
						    kt_joined_after(group,
								    calls)),
				      "%s: stack group not rejoined", name);
		KUNIT_EXPECT_EQ(test, kt_answer_join(group, 0, KT_QKEY,
						     IB_MTU_2048), 0);
		KUNIT_EXPECT_TRUE_MSG(test, kt_wait(priv, 2000,
						    kt_mc_state(priv, group) ==
						    IPC_MC_JOINED),
				      "%s: stack group not joined", name);
	}
	KUNIT_EXPECT_EQ(test, dev_mc_del(dev, hw), 0);
}

/* Deliver a P_Key change event for priv's port, as ib_core does. */
static void kt_pkey_event(struct ipn_priv *priv)
{
	struct ib_event ev = {
		.device = priv->ca,
		.event = IB_EVENT_PKEY_CHANGE,
		.element.port_num = priv->port,
	};

	priv->event_handler.handler(&priv->event_handler, &ev);
}

/*
 * Make the interface's P_Key absent from, or present in, the port's table.
 * rxe's table is fixed (0xffff only): the key the interface looks for is
 * changed instead, which ipn_port_state() cannot tell from the SM editing
 * the table. Under rtnl, as the flush work reads it.
 */
static void kt_pkey_in_table(struct ipn_priv *priv, bool present)
{
	rtnl_lock();
	WRITE_ONCE(priv->wire_pkey, present ? IPC_PKEY_DEFAULT : 0x8123);
	rtnl_unlock();
}

/* The UD QP's state: only in RTR or RTS does it receive (IBA 10.3.1). */
static int kt_qp_state(struct ipn_priv *priv)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;
	int ret;

	rtnl_lock();
	ret = ib_query_qp(priv->qp, &attr, IB_QP_STATE, &init);
	rtnl_unlock();
	return ret ? ret : attr.qp_state;
}

/*
 * One datagram of the default partition (P_Key index 0 of rxe1, whose
 * table holds 0xffff only) from a UD QP of rxe1 to priv's QPN and GID
 * with priv's Q_Key: an IPoIB header of an unknown type, which the
 * driver, if it receives it, counts in drop_bad_type. 0 once rxe1 says
 * it was sent, or -errno.
 */
static noinline_for_stack int kt_ud_send_to(struct kunit *test,
					    struct ipn_priv *priv)
{
	struct ib_qp_init_attr init = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.qp_type = IB_QPT_UD,
	};
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT, .port_num = 1, .qkey = 0x77,
	};
	struct rdma_ah_attr ah_attr = {};
	struct ib_ud_wr wr = {};
	struct ib_device *ca;
	struct ib_sge sge;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp = NULL;
	struct ib_ah *ah = NULL;
	union ib_gid dgid;
	struct ib_wc wc;
	u64 dma = 0;
	u8 *buf;
	int ret, i;

	ca = ipn_kunit_get_peer_ibdev(test);
	buf = kzalloc(64, GFP_KERNEL);
	pd = ib_alloc_pd(ca, 0);
	cq = IS_ERR(pd) ? ERR_CAST(pd) :
			  ib_alloc_cq(ca, NULL, 4, 0, IB_POLL_DIRECT);
	ret = !buf ? -ENOMEM : IS_ERR(cq) ? PTR_ERR(cq) : 0;
	if (ret)
		goto out;
	init.send_cq = cq;
	init.recv_cq = cq;
	qp = ib_create_qp(pd, &init);
	if (IS_ERR(qp)) {
		ret = PTR_ERR(qp);
		qp = NULL;
		goto out;
	}
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_QKEY);
	attr.qp_state = IB_QPS_RTR;
	ret = ret ?: ib_modify_qp(qp, &attr, IB_QP_STATE);
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0;
	ret = ret ?: ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
	if (ret)
		goto out;
	memcpy(dgid.raw, priv->ifid.gid, 16);
	ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&ah_attr, 1);
	rdma_ah_set_grh(&ah_attr, &dgid, 0, 0, 64, 0);
	rdma_get_ll_mac((struct in6_addr *)dgid.raw, ah_attr.roce.dmac);
	ah = rdma_create_ah(pd, &ah_attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah)) {
		ret = PTR_ERR(ah);
		ah = NULL;
		goto out;
	}
	put_unaligned_be16(0x1234, buf);	/* RFC 4391 s6: not in Table 1 */
	dma = ib_dma_map_single(ca, buf, 64, DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ca, dma)) {
		ret = -ENOMEM;
		dma = 0;
		goto out;
	}
	sge.addr = dma;
	sge.length = 64;
	sge.lkey = pd->local_dma_lkey;
	wr.wr.opcode = IB_WR_SEND;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	wr.ah = ah;
	wr.remote_qpn = priv->qp->qp_num;
	wr.remote_qkey = READ_ONCE(priv->qkey);
	ret = ib_post_send(qp, &wr.wr, NULL);
	for (i = 0; !ret && i < 100; i++) {
		if (ib_poll_cq(cq, 1, &wc) == 1) {
			ret = wc.status == IB_WC_SUCCESS ? 0 : -EIO;
			break;
		}
		usleep_range(10000, 20000);
	}
	if (i == 100)
		ret = -ETIMEDOUT;
out:
	if (dma)
		ib_dma_unmap_single(ca, dma, 64, DMA_TO_DEVICE);
	if (ah)
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	if (qp)
		ib_destroy_qp(qp);
	if (!IS_ERR_OR_NULL(cq))
		ib_free_cq(cq);
	if (!IS_ERR_OR_NULL(pd))
		ib_dealloc_pd(pd);
	kfree(buf);
	ib_device_put(ca);
	return ret;
}

/* What priv's driver took from its QP: delivered or dropped. */
static u64 kt_rx_taken(struct ipn_priv *priv)
{
	return ipn_stat(priv, rx_packets) +
	       ipn_stat_drop(priv, IPC_R_BAD_TYPE);
}

/*
 * A P_Key missing from the port table keeps the carrier off, with no join
 * asked; when it appears the interface comes up by itself. Deleted and
 * re-added at the same index (ib_ipoib's known bug: it only looks for a
 * changed index), the link goes down and comes back up. Review H5: while
 * the P_Key is absent the QP is not in RTR/RTS, so no datagram of the
 * partition that holds the index (here the default one) reaches the
 * stack; before the fix it was in RTS on index 0 from the open on, and
 * left in RTS when the P_Key was deleted. A datagram from rxe1 on index
 * 0 shows it: not taken while the P_Key is absent, taken once present.
 */
static void sa_pkey_appears(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	struct net_device *dev = priv->dev;
	const u8 *bgid = priv->ifid.bcast_gid;
	int calls, frees, round;
	u64 taken;

	rtnl_lock();
	dev_close(dev);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, kt_count_joins(bgid), 0);
	kt_pkey_in_table(priv, false);
	calls = kt_sa.join_calls;
	KUNIT_ASSERT_EQ(test, ipn_kunit_open(priv), 0);
	kt_settle(priv);
	KUNIT_EXPECT_FALSE(test, netif_carrier_ok(dev));
	KUNIT_EXPECT_EQ(test, kt_sa.join_calls, calls);
	KUNIT_EXPECT_EQ(test, kt_qp_state(priv), IB_QPS_INIT);
	/* A datagram of the partition at index 0 reaches nothing. */
	taken = kt_rx_taken(priv);
	KUNIT_EXPECT_EQ(test, kt_ud_send_to(test, priv), 0);
	msleep(500);
	KUNIT_EXPECT_EQ(test, kt_rx_taken(priv), taken);

	for (round = 0; round < 2; round++) {
		/* The P_Key appears (again, at the same index 0). */
		kt_pkey_in_table(priv, true);
		kt_pkey_event(priv);
		KUNIT_ASSERT_TRUE(test, kt_wait(priv, 5000,
						kt_count_joins(bgid) > 0));
		KUNIT_ASSERT_EQ(test, kt_answer_join(bgid, 0, KT_QKEY,
						     IB_MTU_2048), 0);
		KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
						netif_carrier_ok(dev)));
		KUNIT_EXPECT_EQ(test, priv->pkey_index, 0);
		KUNIT_EXPECT_EQ(test, kt_qp_state(priv), IB_QPS_RTS);
		/* Its own partition now: the same datagram is taken. */
		taken = kt_rx_taken(priv);
		KUNIT_EXPECT_EQ(test, kt_ud_send_to(test, priv), 0);
		KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
						kt_rx_taken(priv) == taken + 1));
		if (round)
			break;
		/* Deleted: down, the membership left, no join asked. */
		frees = kt_sa.frees;
		kt_pkey_in_table(priv, false);
		kt_pkey_event(priv);
		KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
						!netif_carrier_ok(dev) &&
						kt_sa.frees > frees));
		kt_settle(priv);
		/* No membership asked for: no group can join without it. */
		KUNIT_EXPECT_EQ(test, kt_count_joins(NULL), 0);
		KUNIT_EXPECT_EQ(test, kt_qp_state(priv), IB_QPS_INIT);
		taken = kt_rx_taken(priv);
		KUNIT_EXPECT_EQ(test, kt_ud_send_to(test, priv), 0);
		msleep(500);
		KUNIT_EXPECT_EQ(test, kt_rx_taken(priv), taken);
	}
}

/* mgid with the scope (low nibble of byte 1) replaced. */
static void kt_scoped(u8 *out, const u8 *mgid, u8 scope)
{
	memcpy(out, mgid, 16);
	out[1] = (out[1] & 0xf0) | scope;
}

/*
 * RFC 4391 s4.1, link-multicast draft: no link-local broadcast group (the
 * SA rejects the join), so the site-local one is tried next, and found.
 * dev->broadcast takes its scope, and so does every IP group: a group the
 * stack joined during the search is remapped and joined with scope 5.
 */
static void sa_bcast_scope_search(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	struct net_device *dev = priv->dev;
	static const u8 ip_group[4] = { 224, 1, 2, 7 };
	u8 link[16], site[16], group2[16], group5[16];
	struct in_device *in_dev;
	u64 failures;

	memcpy(link, priv->ifid.bcast_gid, 16);
	KUNIT_ASSERT_EQ(test, link[1], 0x12);
	kt_scoped(site, link, 0x5);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_joins(link) > 0));
	rtnl_lock();
	in_dev = __in_dev_get_rtnl(dev);
	if (in_dev)
		ip_mc_inc_group(in_dev, *(const __be32 *)ip_group);
	rtnl_unlock();
	KUNIT_ASSERT_NOT_NULL(test, in_dev);
	ipc_mgid_from_ipv4(ip_group, link, group2);
	ipc_mgid_from_ipv4(ip_group, site, group5);

	failures = ipn_stat(priv, mc_failures);
	KUNIT_ASSERT_EQ(test, kt_answer_join(link, -EINVAL, 0, 0), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, kt_count_joins(site) > 0));
	KUNIT_EXPECT_EQ(test, kt_count_joins(link), 0);
	KUNIT_EXPECT_EQ(test, dev->broadcast[5], 0x15);
	KT_EXPECT_MEMEQ(test, priv->ifid.bcast_gid, site, 16);
	KUNIT_EXPECT_FALSE(test, netif_carrier_ok(dev));
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, mc_failures), failures + 1);

	KUNIT_ASSERT_EQ(test, kt_answer_join(site, 0, KT_QKEY, IB_MTU_2048), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, netif_carrier_ok(dev)));
	KUNIT_EXPECT_EQ(test, kt_mc_state(priv, site), IPC_MC_JOINED);
	/* The stack's group, remapped to the new scope, joins with it. */
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
					kt_count_joins(group5) == 1));
	KUNIT_EXPECT_EQ(test, kt_count_joins(group2), 0);

	rtnl_lock();
	ip_mc_dec_group(in_dev, *(const __be32 *)ip_group);
	rtnl_unlock();
}

/*
 * No broadcast group in any scope, and create_broadcast set: the
 * link-local one is created, with the creation parameters and a
 * controlled Q_Key (RFC 4391 s4.1), which the interface then uses.
 */
static void sa_bcast_create(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	static const u8 scopes[] = { 0x2, 0x5, 0x8, 0xe };
	u8 link[16], mgid[16];
	struct kt_join *j;
	int i;

	ipn_create_broadcast = true;
	memcpy(link, priv->ifid.bcast_gid, 16);
	for (i = 0; i < ARRAY_SIZE(scopes); i++) {
		kt_scoped(mgid, link, scopes[i]);
		KUNIT_ASSERT_TRUE_MSG(test, kt_wait(priv, 2000,
						    kt_count_joins(mgid) > 0),
				      "no join of scope %x", scopes[i]);
		spin_lock_bh(&kt_sa.lock);
		j = kt_find_join(mgid);
		/* Looking, not creating: no Q_Key offered. */
		KUNIT_EXPECT_FALSE(test, j->mask & IB_SA_MCMEMBER_REC_QKEY);
		spin_unlock_bh(&kt_sa.lock);
		KUNIT_ASSERT_EQ(test, kt_answer_join(mgid, -EINVAL, 0, 0), 0);
	}
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_joins(link) > 0));
	spin_lock_bh(&kt_sa.lock);
	j = kt_find_join(link);
	KUNIT_EXPECT_TRUE(test, j->mask & IB_SA_MCMEMBER_REC_QKEY);
	KUNIT_EXPECT_TRUE(test, j->mask & IB_SA_MCMEMBER_REC_SL);
	KUNIT_EXPECT_TRUE(test, j->mask & IB_SA_MCMEMBER_REC_MTU);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(j->req.qkey), 0x80000b1bU);
	KUNIT_EXPECT_LE(test, j->req.mtu, IB_MTU_2048);
	KUNIT_EXPECT_EQ(test, j->req.join_state, IPC_JOIN_FULL);
	spin_unlock_bh(&kt_sa.lock);
	KUNIT_ASSERT_EQ(test, kt_answer_join(link, 0, 0x80000b1bU,
					     IB_MTU_2048), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
					netif_carrier_ok(priv->dev)));
	KUNIT_EXPECT_EQ(test, priv->qkey, 0x80000b1bU);
	KUNIT_EXPECT_EQ(test, priv->dev->broadcast[5], 0x12);
	ipn_create_broadcast = false;
}

static const u8 kt_peer_gid[16] = { 0xfe, 0x80, [8] = 0x02, [15] = 0x42 };

static void kt_peer_addr(u8 *hw, u32 qpn)
{
	struct ipc_addr a = { .qpn = qpn };

	memcpy(a.gid, kt_peer_gid, 16);
	ipc_addr_encode(&a, hw);
}

/* s9.1.2: a unicast send asks the SA for a PathRecord, then flows. */
static void sa_path_query(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	u64 sent;
	struct kt_query *q;
	u8 hw[20];

	kt_join_bcast(test, priv);
	kt_peer_addr(hw, 0x22);
	sent = ipn_stat(priv, tx_packets);
	ipn_kunit_xmit(priv, hw, htonl(0x0a000002));
	ipn_kunit_xmit(priv, hw, htonl(0x0a000002));
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_queries() == 1));
	KUNIT_EXPECT_EQ(test, kt_sa.path_calls, 1);
	spin_lock_bh(&kt_sa.lock);
	q = list_first_entry(&kt_sa.queries, struct kt_query, list);
	KT_EXPECT_MEMEQ(test, q->req.dgid.raw, kt_peer_gid, 16);
	KT_EXPECT_MEMEQ(test, q->req.sgid.raw, priv->ifid.gid, 16);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(q->req.pkey), IPC_PKEY_DEFAULT);
	KUNIT_EXPECT_EQ(test, q->req.numb_path, 1);
	KUNIT_EXPECT_TRUE(test, q->mask & IB_SA_PATH_REC_DGID);
	spin_unlock_bh(&kt_sa.lock);
	KUNIT_EXPECT_EQ(test, kt_path_state(priv, kt_peer_gid),
			IPC_PATH_RESOLVING);

	KUNIT_ASSERT_EQ(test, kt_answer_path(kt_peer_gid, 0), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
					kt_path_state(priv, kt_peer_gid) ==
					IPC_PATH_VALID));
	/* Both waiting frames went out, in order, once. */
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
					ipn_stat(priv, tx_packets) >=
					sent + 2));
	/* A third frame uses the cached handle: no new query. */
	ipn_kunit_xmit(priv, hw, htonl(0x0a000002));
	kt_settle(priv);
	KUNIT_EXPECT_EQ(test, kt_sa.path_calls, 1);
}

/* Timeouts: retried with backoff, then the waiting frames are dropped. */
static void sa_path_timeout(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	u8 hw[20];
	int i;

	kt_join_bcast(test, priv);
	kt_peer_addr(hw, 0x22);
	ipn_kunit_xmit(priv, hw, htonl(0x0a000002));
	for (i = 0; i < priv->path_cfg.max_attempts; i++) {
		KUNIT_ASSERT_TRUE_MSG(test, kt_wait(priv, 10000,
						    kt_count_queries() == 1),
				      "attempt %d", i + 1);
		KUNIT_ASSERT_EQ(test, kt_answer_path(kt_peer_gid, -ETIMEDOUT),
				0);
		kt_settle(priv);
	}
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, path_failures),
			(u64)priv->path_cfg.max_attempts);
	KUNIT_EXPECT_EQ(test, kt_path_state(priv, kt_peer_gid),
			IPC_PATH_FAILED);
	KUNIT_EXPECT_GE(test, ipn_stat_drop(priv, IPC_R_NO_ROUTE), 1u);
}

/*
 * While a path resolves, at most queue_max frames wait for it; the others
 * are dropped and counted as QUEUE_FULL. The ones held go out once, in
 * order, after the answer.
 */
static void sa_path_queue_bounded(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	int i, max = priv->path_cfg.queue_max;
	u64 sent;
	u8 hw[20];

	kt_join_bcast(test, priv);
	kt_peer_addr(hw, 0x22);
	sent = ipn_stat(priv, tx_packets);
	for (i = 0; i < max + 4; i++)
		ipn_kunit_xmit(priv, hw, htonl(0x0a000002));
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_queries() == 1));
	KUNIT_EXPECT_EQ(test, ipn_kunit_path(priv, kt_peer_gid).queued, max);
	KUNIT_EXPECT_EQ(test, ipn_stat_drop(priv, IPC_R_QUEUE_FULL), 4u);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, tx_dropped), 4u);

	KUNIT_ASSERT_EQ(test, kt_answer_path(kt_peer_gid, 0), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, ipn_stat(priv, tx_packets) >=
					sent + max));
	kt_settle(priv);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, tx_packets), sent + max);
	KUNIT_EXPECT_EQ(test, ipn_kunit_path(priv, kt_peer_gid).queued, 0);
}

/*
 * RFC 4391 s9.4: the peer's QPN changed (its interface was restarted)
 * while its GID did not. The path is the GID's: no new query, the same
 * handle, and the new QPN in the work request.
 */
static void sa_path_qpn_change(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	u8 hw[20], hw2[20];
	struct ib_ah *ah;
	u64 sent;

	kt_join_bcast(test, priv);
	kt_peer_addr(hw, 0x22);
	kt_peer_addr(hw2, 0x23);
	KUNIT_EXPECT_EQ(test, ipc_neigh_addr_changed(hw, hw2), 1);
	sent = ipn_stat(priv, tx_packets);
	ipn_kunit_xmit(priv, hw, htonl(0x0a000002));
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_queries() == 1));
	KUNIT_ASSERT_EQ(test, kt_answer_path(kt_peer_gid, 0), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, ipn_stat(priv, tx_packets) >
					sent));
	KUNIT_EXPECT_EQ(test, priv->tx_wr.remote_qpn, 0x22u);
	KUNIT_EXPECT_EQ(test, priv->tx_wr.remote_qkey, KT_QKEY);
	ah = ipn_kunit_path(priv, kt_peer_gid).ah;
	KUNIT_EXPECT_NOT_NULL(test, ah);
	KUNIT_EXPECT_PTR_EQ(test, priv->tx_wr.ah, ah);

	ipn_kunit_xmit(priv, hw2, htonl(0x0a000002));
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, ipn_stat(priv, tx_packets) >
					sent + 1));
	KUNIT_EXPECT_EQ(test, priv->tx_wr.remote_qpn, 0x23u);
	KUNIT_EXPECT_EQ(test, kt_sa.path_calls, 1);
	KUNIT_EXPECT_PTR_EQ(test, priv->tx_wr.ah, ah);
	KUNIT_EXPECT_PTR_EQ(test, ipn_kunit_path(priv, kt_peer_gid).ah, ah);
}

/*
 * A path unused for idle_ms, with nothing queued, is freed with its
 * address handle (the neighbour table's garbage collection); the next
 * frame asks again.
 */
static void sa_path_idle_freed(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	u8 hw[20];

	priv->path_cfg.idle_ms = 300;
	kt_join_bcast(test, priv);
	kt_peer_addr(hw, 0x22);
	ipn_kunit_xmit(priv, hw, htonl(0x0a000002));
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_queries() == 1));
	KUNIT_ASSERT_EQ(test, kt_answer_path(kt_peer_gid, 0), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000,
					kt_path_state(priv, kt_peer_gid) ==
					IPC_PATH_VALID));
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 3000,
					kt_path_state(priv, kt_peer_gid) < 0));
	KUNIT_EXPECT_EQ(test, kt_sa.path_calls, 1);
	ipn_kunit_xmit(priv, hw, htonl(0x0a000002));
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, kt_count_queries() == 1));
	KUNIT_EXPECT_EQ(test, kt_sa.path_calls, 2);
	KUNIT_EXPECT_EQ(test, kt_answer_path(kt_peer_gid, 0), 0);
}

/* Path-table cases: destination i is fe80::2:0:0:1:i, QPN 0x100 + i. */
static void kt_dest(u8 *gid, u8 *hw, int i)
{
	struct ipc_addr a = { .qpn = 0x100 + i };

	memcpy(gid, kt_peer_gid, 16);
	gid[14] = 0x01;
	gid[15] = i;
	memcpy(a.gid, gid, 16);
	ipc_addr_encode(&a, hw);
}

static unsigned int kt_path_count(struct ipn_priv *priv)
{
	unsigned int n;

	spin_lock_bh(&priv->lock);
	n = priv->path_count;
	spin_unlock_bh(&priv->lock);
	return n;
}

/* How many of the n destinations have a path in state. */
static int kt_paths_in(struct ipn_priv *priv, u8 (*gid)[16], int n, int state)
{
	int i, k = 0;

	for (i = 0; i < n; i++)
		k += kt_path_state(priv, gid[i]) == state;
	return k;
}

#define KT_PATHS 4
/* Packets it may take an eviction scan, bounded, to go round the table. */
#define KT_EVICT_TRIES ((1 << IPN_PATH_HASH_BITS) / IPN_PATH_EVICT_BUCKETS + 1)

/*
 * Send to hw until a path has been given up (evictions counted reach
 * want) or the scan has been round the table; each packet is dropped.
 * Returns the packets sent. The count never passes the cap meanwhile.
 */
static int kt_xmit_until_evicted(struct kunit *test, struct ipn_priv *priv,
				 const u8 *hw, u64 want)
{
	int n;

	for (n = 0; n < KT_EVICT_TRIES &&
	     ipn_stat(priv, path_evictions) < want; n++) {
		ipn_kunit_xmit(priv, hw, htonl(0x0a000002));
		KUNIT_EXPECT_LE(test, kt_path_count(priv),
				(unsigned int)KT_PATHS);
	}
	return n;
}

/* The destinations of sa_path_table_bounded: off the stack (KASAN). */
struct kt_dests {
	u8 gid[KT_PATHS + 2][16];
	u8 hw[KT_PATHS + 2][20];
};

/* Full of RESOLVING paths: refused; one FAILED gives way. */
static noinline void kt_table_fill_and_fail(struct kunit *test,
					    struct ipn_priv *priv,
					    struct kt_dests *d)
{
	u8 (*gid)[16] = d->gid, (*hw)[20] = d->hw;
	int i, n;
	u64 full;

	spin_lock_bh(&priv->lock);
	priv->paths_max = KT_PATHS;
	/*
	 * No timeout during the case; a failure is final (no queue kept)
	 * and its hold-down outlasts the case.
	 */
	priv->path_cfg.query_timeout_ms = 60000;
	priv->path_cfg.max_attempts = 1;
	priv->path_cfg.backoff.base_ms = 60000;
	priv->path_cfg.backoff.cap_ms = 60000;
	priv->path_cfg.evict_idle_ms = 60000;
	spin_unlock_bh(&priv->lock);
	kt_join_bcast(test, priv);
	for (i = 0; i < KT_PATHS + 2; i++)
		kt_dest(gid[i], hw[i], i);

	for (i = 0; i < KT_PATHS; i++)
		ipn_kunit_xmit(priv, hw[i], htonl(0x0a000002));
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000,
					kt_count_queries() == KT_PATHS));
	KUNIT_EXPECT_EQ(test, kt_path_count(priv), (unsigned int)KT_PATHS);

	/* Full, every path RESOLVING: refused, nothing given up. */
	for (i = 0; i < KT_EVICT_TRIES; i++)
		ipn_kunit_xmit(priv, hw[KT_PATHS], htonl(0x0a000002));
	kt_settle(priv);
	KUNIT_EXPECT_EQ(test, kt_path_state(priv, gid[KT_PATHS]), -1);
	KUNIT_EXPECT_EQ(test, ipn_stat_drop(priv, IPC_R_PATH_TABLE_FULL),
			(u64)KT_EVICT_TRIES);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, path_evictions), 0u);
	KUNIT_EXPECT_EQ(test, kt_paths_in(priv, gid, KT_PATHS,
					  IPC_PATH_RESOLVING), KT_PATHS);
	KUNIT_EXPECT_EQ(test, kt_path_count(priv), (unsigned int)KT_PATHS);
	KUNIT_EXPECT_EQ(test, kt_sa.path_calls, KT_PATHS);
	KUNIT_EXPECT_TRUE(test, priv->paths_full_told);

	/* One fails for good: it gives way to a later packet. */
	KUNIT_ASSERT_EQ(test, kt_answer_path(gid[0], -EHOSTUNREACH), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000,
					kt_path_state(priv, gid[0]) ==
					IPC_PATH_FAILED));
	full = ipn_stat_drop(priv, IPC_R_PATH_TABLE_FULL);
	n = kt_xmit_until_evicted(test, priv, hw[KT_PATHS], 1);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, path_evictions), 1u);
	KUNIT_EXPECT_EQ(test, kt_path_state(priv, gid[0]), -1);
	/* The packet that made room was dropped as well. */
	KUNIT_EXPECT_EQ(test, ipn_stat_drop(priv, IPC_R_PATH_TABLE_FULL),
			full + n);
	KUNIT_EXPECT_EQ(test, kt_path_state(priv, gid[KT_PATHS]), -1);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, kt_path_count(priv) ==
					KT_PATHS - 1));
	ipn_kunit_xmit(priv, hw[KT_PATHS], htonl(0x0a000002));
	KUNIT_EXPECT_EQ(test, kt_path_state(priv, gid[KT_PATHS]),
			IPC_PATH_RESOLVING);
	KUNIT_EXPECT_EQ(test, kt_path_count(priv), (unsigned int)KT_PATHS);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
					kt_count_queries() == KT_PATHS));
}

/* VALID paths in use stay; idle ones give way; down frees them all. */
static noinline void kt_table_valid_then_idle(struct kunit *test,
					      struct ipn_priv *priv,
					      struct kt_dests *d)
{
	u8 (*gid)[16] = d->gid, (*hw)[20] = d->hw;
	int i, n;
	u64 full;

	/* Answered: VALID, used within evict_idle_ms. None gives way. */
	for (i = 1; i <= KT_PATHS; i++)
		KUNIT_ASSERT_EQ(test, kt_answer_path(gid[i], 0), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000,
					kt_paths_in(priv, gid + 1, KT_PATHS,
						    IPC_PATH_VALID) ==
					KT_PATHS));
	full = ipn_stat_drop(priv, IPC_R_PATH_TABLE_FULL);
	n = kt_xmit_until_evicted(test, priv, hw[KT_PATHS + 1], 2);
	KUNIT_EXPECT_EQ(test, n, (int)KT_EVICT_TRIES);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, path_evictions), 1u);
	KUNIT_EXPECT_EQ(test, ipn_stat_drop(priv, IPC_R_PATH_TABLE_FULL),
			full + n);
	KUNIT_EXPECT_EQ(test, kt_path_state(priv, gid[KT_PATHS + 1]), -1);

	/* Unused for evict_idle_ms: one of them gives way. */
	spin_lock_bh(&priv->lock);
	priv->path_cfg.evict_idle_ms = 100;
	spin_unlock_bh(&priv->lock);
	msleep(200);
	kt_xmit_until_evicted(test, priv, hw[KT_PATHS + 1], 2);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, path_evictions), 2u);
	KUNIT_EXPECT_EQ(test, kt_paths_in(priv, gid + 1, KT_PATHS,
					  IPC_PATH_VALID), KT_PATHS - 1);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, kt_path_count(priv) ==
					KT_PATHS - 1));
	ipn_kunit_xmit(priv, hw[KT_PATHS + 1], htonl(0x0a000002));
	KUNIT_EXPECT_EQ(test, kt_path_state(priv, gid[KT_PATHS + 1]),
			IPC_PATH_RESOLVING);
	KUNIT_EXPECT_EQ(test, kt_path_count(priv), (unsigned int)KT_PATHS);

	/* Down: every path freed and uncounted, its query cancelled. */
	rtnl_lock();
	dev_close(priv->dev);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, kt_path_count(priv), 0u);
	KUNIT_EXPECT_EQ(test, kt_count_queries(), 0);
}

/*
 * Review M3: an interface keeps at most paths_max paths (a forged ARP or
 * NS with a fresh sender made one each, for 300 s). Full of RESOLVING
 * paths, none of which may go, a packet to a new destination is dropped
 * as path_table_full and nothing is given up. A path that failed gives
 * way (path_evictions), and once the control work has freed it the next
 * packet (the stack's ARP retry) makes the new one. VALID paths in use
 * stay; unused for evict_idle_ms, one gives way. The count never passes
 * the cap, and nothing is left when the interface goes down.
 */
static void sa_path_table_bounded(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	struct kt_dests *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, d);
	kt_table_fill_and_fail(test, priv, d);
	kt_table_valid_then_idle(test, priv, d);
}

/* Send-only groups that fill the table in sa_group_table_bounded. */
#define KT_SO 3
#define KT_MC_EVICT_TRIES ((1 << IPN_MC_HASH_BITS) / IPN_MC_EVICT_BUCKETS + 1)

static unsigned int kt_mc_count(struct ipn_priv *priv)
{
	unsigned int n;

	spin_lock_bh(&priv->lock);
	n = priv->mc_count;
	spin_unlock_bh(&priv->lock);
	return n;
}

/* The groups of sa_group_table_bounded: off the stack (KASAN). */
struct kt_groups {
	unsigned int base;		/* the broadcast and stack's groups */
	unsigned int cap;		/* groups_max: base + KT_SO */
	__be32 ip[KT_SO + 3];		/* 224.0.0.100.. (link scope) */
	u8 mgid[KT_SO + 3][16];
	u8 hw[KT_SO + 3][20];
	__be32 stack_ip;		/* 224.0.0.99, joined by the stack */
	u8 stack_mgid[16], stack_hw[20];
};

static void kt_group(struct ipn_priv *priv, __be32 ip, u8 *mgid, u8 *hw)
{
	ipc_mgid_from_ipv4((const u8 *)&ip, priv->ifid.bcast_gid, mgid);
	ipn_kunit_mc_addr(hw, mgid);
}

/*
 * Send to group i until a group has been given up (evictions counted reach
 * want) or the scan has been round the table; each frame is dropped.
 * Returns the frames sent. The count never passes the cap meanwhile.
 */
static int kt_mc_xmit_until_evicted(struct kunit *test, struct ipn_priv *priv,
				    struct kt_groups *g, int i, u64 want)
{
	int n;

	for (n = 0; n < KT_MC_EVICT_TRIES &&
	     ipn_stat(priv, mc_evictions) < want; n++) {
		ipn_kunit_xmit(priv, g->hw[i], g->ip[i]);
		KUNIT_EXPECT_LE(test, kt_mc_count(priv), g->cap);
	}
	return n;
}

/* Full of joining send-only groups: refused; one missing gives way. */
static noinline void kt_groups_fill_and_miss(struct kunit *test,
					     struct ipn_priv *priv,
					     struct kt_groups *g)
{
	int i, n;
	u64 full;

	spin_lock_bh(&priv->lock);
	/* No timeout, retry or idle expiry during the case. */
	priv->mc_cfg.join_timeout_ms = 60000;
	priv->mc_cfg.evict_idle_ms = 60000;
	spin_unlock_bh(&priv->lock);
	kt_join_bcast(test, priv);
	kt_settle(priv);
	/*
	 * What the interface joined for itself: the broadcast group, the
	 * stack's groups (all-hosts, ...). Three more fill it.
	 */
	g->base = kt_mc_count(priv);
	g->cap = g->base + KT_SO;
	spin_lock_bh(&priv->lock);
	priv->groups_max = g->cap;
	spin_unlock_bh(&priv->lock);
	for (i = 0; i < KT_SO + 3; i++) {
		g->ip[i] = htonl(0xe0000064 + i);
		kt_group(priv, g->ip[i], g->mgid[i], g->hw[i]);
	}
	g->stack_ip = htonl(0xe0000063);
	kt_group(priv, g->stack_ip, g->stack_mgid, g->stack_hw);

	/* s10: each frame to a new group makes a send-only join. */
	for (i = 0; i < KT_SO; i++)
		ipn_kunit_xmit(priv, g->hw[i], g->ip[i]);
	for (i = 0; i < KT_SO; i++)
		KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000,
						kt_count_joins(g->mgid[i]) ==
						1));
	KUNIT_EXPECT_EQ(test, kt_mc_count(priv), g->cap);

	/* Full, the new groups joining, the others the stack's: refused. */
	for (i = 0; i < KT_MC_EVICT_TRIES; i++)
		ipn_kunit_xmit(priv, g->hw[KT_SO], g->ip[KT_SO]);
	kt_settle(priv);
	KUNIT_EXPECT_EQ(test, kt_mc_state(priv, g->mgid[KT_SO]), -1);
	KUNIT_EXPECT_EQ(test, kt_count_joins(g->mgid[KT_SO]), 0);
	KUNIT_EXPECT_EQ(test, ipn_stat_drop(priv, IPC_R_GROUP_TABLE_FULL),
			(u64)KT_MC_EVICT_TRIES);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, mc_evictions), 0u);
	KUNIT_EXPECT_EQ(test, kt_mc_count(priv), g->cap);
	KUNIT_EXPECT_TRUE(test, priv->groups_full_told);

	/* The SA says group 0 does not exist: MISSING, it gives way. */
	KUNIT_ASSERT_EQ(test, kt_answer_join(g->mgid[0], -EINVAL, 0, 0), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000,
					kt_mc_state(priv, g->mgid[0]) ==
					IPC_MC_MISSING));
	full = ipn_stat_drop(priv, IPC_R_GROUP_TABLE_FULL);
	n = kt_mc_xmit_until_evicted(test, priv, g, KT_SO, 1);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, mc_evictions), 1u);
	KUNIT_EXPECT_EQ(test, kt_mc_state(priv, g->mgid[0]), -1);
	KUNIT_EXPECT_EQ(test, ipn_stat_drop(priv, IPC_R_GROUP_TABLE_FULL),
			full + n);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, kt_mc_count(priv) ==
					g->cap - 1));
	ipn_kunit_xmit(priv, g->hw[KT_SO], g->ip[KT_SO]);
	KUNIT_EXPECT_EQ(test, kt_mc_state(priv, g->mgid[KT_SO]),
			IPC_MC_JOINING);
	KUNIT_EXPECT_EQ(test, kt_mc_count(priv), g->cap);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
					kt_count_joins(g->mgid[KT_SO]) == 1));
}

/*
 * Send-only memberships in use stay; idle ones give way; a stack group
 * waits for room; down frees everything.
 */
static noinline void kt_groups_idle_and_stack(struct kunit *test,
					      struct ipn_priv *priv,
					      struct kt_groups *g)
{
	struct kt_join *j;
	int i, n, frees;

	for (i = 1; i <= KT_SO; i++)
		KUNIT_ASSERT_EQ(test, kt_answer_join(g->mgid[i], 0, KT_QKEY,
						     IB_MTU_2048), 0);
	for (i = 1; i <= KT_SO; i++)
		KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000,
						kt_mc_state(priv,
							    g->mgid[i]) ==
						IPC_MC_JOINED));
	n = kt_mc_xmit_until_evicted(test, priv, g, KT_SO + 1, 2);
	KUNIT_EXPECT_EQ(test, n, (int)KT_MC_EVICT_TRIES);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, mc_evictions), 1u);
	KUNIT_EXPECT_EQ(test, kt_mc_state(priv, g->mgid[KT_SO + 1]), -1);

	/* Unused for evict_idle_ms: one of them is left and gives way. */
	spin_lock_bh(&priv->lock);
	priv->mc_cfg.evict_idle_ms = 100;
	spin_unlock_bh(&priv->lock);
	msleep(200);
	frees = kt_sa.frees;
	kt_mc_xmit_until_evicted(test, priv, g, KT_SO + 1, 2);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, mc_evictions), 2u);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, kt_sa.frees == frees + 1));
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, kt_mc_count(priv) ==
					g->cap - 1));
	ipn_kunit_xmit(priv, g->hw[KT_SO + 1], g->ip[KT_SO + 1]);
	KUNIT_EXPECT_EQ(test, kt_mc_state(priv, g->mgid[KT_SO + 1]),
			IPC_MC_JOINING);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
					kt_count_joins(g->mgid[KT_SO + 1]) ==
					1));

	/*
	 * Full again. A group the stack joins waits; the diff gives up an
	 * idle send-only group for it, and once that is freed the stack's
	 * group is joined, FullMember.
	 */
	msleep(200);
	rtnl_lock();
	KUNIT_EXPECT_EQ(test, dev_mc_add(priv->dev, g->stack_hw), 0);
	rtnl_unlock();
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
					kt_count_joins(g->stack_mgid) == 1));
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, mc_evictions), 3u);
	KUNIT_EXPECT_EQ(test, kt_mc_count(priv), g->cap);
	spin_lock_bh(&kt_sa.lock);
	j = kt_find_join(g->stack_mgid);
	KUNIT_EXPECT_EQ(test, j ? j->req.join_state : -1, IPC_JOIN_FULL);
	spin_unlock_bh(&kt_sa.lock);
	KUNIT_ASSERT_NOT_NULL(test, j);

	/*
	 * What the stack joined never gives way, idle or not: with the cap
	 * down to the stack's groups, the idle send-only groups go and then
	 * a new group is refused.
	 */
	KUNIT_ASSERT_EQ(test, kt_answer_join(g->stack_mgid, 0, KT_QKEY,
					     IB_MTU_2048), 0);
	KUNIT_ASSERT_EQ(test, kt_answer_join(g->mgid[KT_SO + 1], 0, KT_QKEY,
					     IB_MTU_2048), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000,
					kt_mc_state(priv, g->stack_mgid) ==
					IPC_MC_JOINED &&
					kt_mc_state(priv,
						    g->mgid[KT_SO + 1]) ==
					IPC_MC_JOINED));
	spin_lock_bh(&priv->lock);
	priv->groups_max = g->base + 1;
	spin_unlock_bh(&priv->lock);
	msleep(200);
	kt_mc_xmit_until_evicted(test, priv, g, 0, 5);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, mc_evictions), 5u);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, kt_mc_count(priv) ==
					g->base + 1));
	n = kt_mc_xmit_until_evicted(test, priv, g, 0, 6);
	KUNIT_EXPECT_EQ(test, n, (int)KT_MC_EVICT_TRIES);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, mc_evictions), 5u);
	KUNIT_EXPECT_EQ(test, kt_mc_state(priv, g->stack_mgid), IPC_MC_JOINED);
	KUNIT_EXPECT_EQ(test, kt_mc_state(priv, g->mgid[0]), -1);
	KUNIT_EXPECT_EQ(test, kt_mc_count(priv), g->base + 1);

	/* Down: every group freed and uncounted, every membership left. */
	rtnl_lock();
	dev_mc_del(priv->dev, g->stack_hw);
	dev_close(priv->dev);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, kt_mc_count(priv), 0u);
	KUNIT_EXPECT_EQ(test, kt_count_joins(NULL), 0);
}

/*
 * Review M3: any unprivileged sendto() to a new group made a send-only
 * entry and an SA join, without bound. An interface keeps at most
 * groups_max groups, the broadcast group included. Full of groups whose
 * joins are out or that the stack joined, a frame to a new group is
 * dropped as group_table_full and nothing is given up; a group the SA
 * says is missing gives way (mc_evictions), and once freed the next frame
 * makes the new one. Send-only memberships in use stay; unused for
 * evict_idle_ms, one is left and gives way. A group the stack joins at
 * the cap waits and is joined once room is made; what the stack joined
 * never gives way. The count never passes the cap, and nothing is left
 * when the interface goes down.
 */
static void sa_group_table_bounded(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	struct kt_groups *g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, g);
	kt_groups_fill_and_miss(test, priv, g);
	kt_groups_idle_and_stack(test, priv, g);
}

/* A light flush (SM change): the event, as ib_core delivers it. */
static void kt_light_flush(struct ipn_priv *priv)
{
	struct ib_event ev = {
		.device = priv->ca,
		.event = IB_EVENT_SM_CHANGE,
		.element.port_num = priv->port,
	};

	priv->event_handler.handler(&priv->event_handler, &ev);
}

/*
 * Review H1: a light flush of a RESOLVING path makes the core ask for
 * CANCEL and START together. The shim must cancel the query in flight
 * before it starts the next one: exactly one query is outstanding, the
 * old one's -EINTR never reaches the core, and the new answer resolves
 * the path. Before the fix the cancel was skipped: two queries in flight,
 * the first still pointing at the path after it was freed.
 */
static void sa_path_flush_while_resolving(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	const u8 *bgid = priv->ifid.bcast_gid;
	int calls, i;
	u8 hw[20];

	kt_join_bcast(test, priv);
	kt_peer_addr(hw, 0x22);
	ipn_kunit_xmit(priv, hw, htonl(0x0a000002));
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_queries() == 1));
	for (i = 0; i < 3; i++) {
		calls = kt_sa.path_calls;
		kt_light_flush(priv);
		KUNIT_ASSERT_TRUE_MSG(test, kt_wait(priv, 5000,
						    kt_sa.path_calls > calls),
				      "flush %d: no new query", i);
		kt_settle(priv);
		KUNIT_EXPECT_EQ_MSG(test, kt_count_queries(), 1,
				    "flush %d: queries in flight", i);
		KUNIT_EXPECT_EQ_MSG(test, kt_sa.cancels, i + 1,
				    "flush %d: cancels", i);
		KUNIT_EXPECT_EQ(test, kt_path_state(priv, kt_peer_gid),
				IPC_PATH_RESOLVING);
		/* The flush rejoined the broadcast group: answer it. */
		if (kt_count_joins(bgid))
			kt_answer_join(bgid, 0, KT_QKEY, IB_MTU_2048);
	}
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, path_failures), 0u);
	KUNIT_ASSERT_EQ(test, kt_answer_path(kt_peer_gid, 0), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
					kt_path_state(priv, kt_peer_gid) ==
					IPC_PATH_VALID));
	KUNIT_EXPECT_EQ(test, kt_count_queries(), 0);
}

/*
 * The answer of a query arrives (its completion is queued for the control
 * work) and a light flush follows before the control work runs: the core,
 * which has not seen the answer, cancels and starts again. The old answer
 * must not be taken for the new query's: the path stays RESOLVING with
 * one query out, and only the new answer makes it VALID.
 */
static void sa_path_stale_completion_ignored(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	u8 hw[20];

	kt_join_bcast(test, priv);
	kt_peer_addr(hw, 0x22);
	ipn_kunit_xmit(priv, hw, htonl(0x0a000002));
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_queries() == 1));
	/*
	 * Both works take rtnl and run in order on the interface's ordered
	 * workqueue: hold rtnl so that the flush runs first and finds the
	 * answer's completion still queued.
	 */
	rtnl_lock();
	kt_light_flush(priv);
	KUNIT_EXPECT_EQ(test, kt_answer_path(kt_peer_gid, -EHOSTUNREACH), 0);
	rtnl_unlock();
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 5000, kt_count_queries() == 1));
	kt_settle(priv);
	KUNIT_EXPECT_EQ(test, kt_count_queries(), 1);
	KUNIT_EXPECT_EQ(test, kt_sa.path_calls, 2);
	/* The stale failure was not fed to the core. */
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, path_failures), 0u);
	KUNIT_EXPECT_EQ(test, kt_path_state(priv, kt_peer_gid),
			IPC_PATH_RESOLVING);
	KUNIT_ASSERT_EQ(test, kt_answer_path(kt_peer_gid, 0), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
					kt_path_state(priv, kt_peer_gid) ==
					IPC_PATH_VALID));
}

/*
 * ndo_set_rx_mode: the device's multicast list is diffed against the
 * groups. A new address gets one FullMember join however often it was
 * added; its removal leaves the group (RFC 4391 s10); an address of
 * another P_Key is refused and counted, never joined.
 */
static void sa_rx_mode_diff(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	struct net_device *dev = priv->dev;
	static const u8 ip_group[4] = { 224, 1, 2, 3 };
	u8 mgid[16], other[16], hw[20], hw_other[20];
	struct kt_join *j;
	int frees;

	kt_join_bcast(test, priv);
	/* 224.1.2.3 on this link (s4), and the same group on P_Key 0x8001. */
	ipc_mgid_from_ipv4(ip_group, priv->ifid.bcast_gid, mgid);
	memcpy(other, mgid, 16);
	other[4] = 0x80;
	other[5] = 0x01;
	ipn_kunit_mc_addr(hw, mgid);
	ipn_kunit_mc_addr(hw_other, other);

	KUNIT_ASSERT_EQ(test, dev_mc_add(dev, hw), 0);
	KUNIT_ASSERT_EQ(test, dev_mc_add(dev, hw), 0);
	KUNIT_ASSERT_EQ(test, dev_mc_add(dev, hw_other), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_joins(mgid) > 0));
	kt_settle(priv);
	KUNIT_EXPECT_EQ(test, kt_count_joins(mgid), 1);
	KUNIT_EXPECT_EQ(test, kt_count_joins(other), 0);
	KUNIT_EXPECT_GE(test, ipn_stat(priv, mc_refused), 1u);
	spin_lock_bh(&kt_sa.lock);
	j = kt_find_join(mgid);
	KUNIT_EXPECT_EQ(test, j->req.join_state, IPC_JOIN_FULL);
	/* s10: the broadcast group's Q_Key for every other group. */
	KUNIT_EXPECT_EQ(test, be32_to_cpu(j->req.qkey), KT_QKEY);
	spin_unlock_bh(&kt_sa.lock);
	KUNIT_ASSERT_EQ(test, kt_answer_join(mgid, 0, KT_QKEY, IB_MTU_2048), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, kt_mc_state(priv, mgid) ==
					IPC_MC_JOINED));

	/* One of two references gone: still wanted. */
	frees = kt_sa.frees;
	KUNIT_ASSERT_EQ(test, dev_mc_del(dev, hw), 0);
	kt_settle(priv);
	KUNIT_EXPECT_EQ(test, kt_sa.frees, frees);
	KUNIT_EXPECT_EQ(test, kt_mc_state(priv, mgid), IPC_MC_JOINED);
	/* The last one: the membership is left. */
	KUNIT_ASSERT_EQ(test, dev_mc_del(dev, hw), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, kt_sa.frees == frees + 1));
	KUNIT_EXPECT_EQ(test, kt_count_joins(mgid), 0);
	KUNIT_EXPECT_GE(test, ipn_stat(priv, mc_leaves), 1u);
	KUNIT_EXPECT_TRUE(test, kt_mc_state(priv, mgid) < 0 ||
			  kt_mc_state(priv, mgid) == IPC_MC_IDLE);
	KUNIT_EXPECT_EQ(test, dev_mc_del(dev, hw_other), 0);
}

/*
 * umcast (sysfs/netlink, as ib_ipoib's): a stack group that another user
 * of the port already holds at the SA is not joined; one that nobody
 * holds is; a group this interface holds itself (ib_sa reports it too)
 * stays joined on the next diff. Without umcast, every group is joined.
 */
static void sa_umcast(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	struct net_device *dev = priv->dev;
	static const u8 ip_user[4] = { 224, 1, 2, 4 };
	static const u8 ip_free[4] = { 224, 1, 2, 5 };
	static const u8 ip_more[4] = { 224, 1, 2, 6 };
	u8 user[16], free[16], more[16], hw_user[20], hw_free[20], hw_more[20];
	int frees;

	kt_join_bcast(test, priv);
	ipc_mgid_from_ipv4(ip_user, priv->ifid.bcast_gid, user);
	ipc_mgid_from_ipv4(ip_free, priv->ifid.bcast_gid, free);
	ipc_mgid_from_ipv4(ip_more, priv->ifid.bcast_gid, more);
	ipn_kunit_mc_addr(hw_user, user);
	ipn_kunit_mc_addr(hw_free, free);
	ipn_kunit_mc_addr(hw_more, more);
	memcpy(kt_sa.user_mgid, user, 16);
	kt_sa.user_held = true;

	/* umcast 0: the user's group is joined all the same. */
	KUNIT_ASSERT_EQ(test, dev_mc_add(dev, hw_user), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_joins(user) == 1));
	KUNIT_ASSERT_EQ(test, kt_answer_join(user, 0, KT_QKEY, IB_MTU_2048), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, kt_mc_state(priv, user) ==
					IPC_MC_JOINED));
	frees = kt_sa.frees;
	KUNIT_ASSERT_EQ(test, dev_mc_del(dev, hw_user), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, kt_sa.frees == frees + 1));

	WRITE_ONCE(priv->umcast, true);
	KUNIT_ASSERT_EQ(test, dev_mc_add(dev, hw_user), 0);
	KUNIT_ASSERT_EQ(test, dev_mc_add(dev, hw_free), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_joins(free) == 1));
	kt_settle(priv);
	KUNIT_EXPECT_EQ(test, kt_count_joins(user), 0);
	KUNIT_EXPECT_TRUE(test, kt_mc_state(priv, user) < 0 ||
			  kt_mc_state(priv, user) == IPC_MC_IDLE);
	KUNIT_ASSERT_EQ(test, kt_answer_join(free, 0, KT_QKEY, IB_MTU_2048), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, kt_mc_state(priv, free) ==
					IPC_MC_JOINED));

	/* Another diff: our own membership is not mistaken for a user's. */
	frees = kt_sa.frees;
	KUNIT_ASSERT_EQ(test, dev_mc_add(dev, hw_more), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_joins(more) == 1));
	KUNIT_ASSERT_EQ(test, kt_answer_join(more, 0, KT_QKEY, IB_MTU_2048), 0);
	kt_settle(priv);
	KUNIT_EXPECT_EQ(test, kt_sa.frees, frees);
	KUNIT_EXPECT_EQ(test, kt_mc_state(priv, free), IPC_MC_JOINED);
	KUNIT_EXPECT_EQ(test, kt_count_joins(user), 0);

	KUNIT_EXPECT_EQ(test, dev_mc_del(dev, hw_user), 0);
	KUNIT_EXPECT_EQ(test, dev_mc_del(dev, hw_free), 0);
	KUNIT_EXPECT_EQ(test, dev_mc_del(dev, hw_more), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, kt_count_joins(free) == 0 &&
					kt_count_joins(more) == 0));
}

/* FullMember, NonMember, ... joins of mgid not freed, of that JoinState. */
static int kt_count_joins_state(const u8 *mgid, u8 state)
{
	struct kt_join *j;
	int n = 0;

	spin_lock_bh(&kt_sa.lock);
	list_for_each_entry(j, &kt_sa.joins, list)
		n += !memcmp(j->req.mgid.raw, mgid, 16) &&
		     j->req.join_state == state;
	spin_unlock_bh(&kt_sa.lock);
	return n;
}

/* The index of the n-th sent MAD of that method and attribute, or -1. */
static int kt_find_mad(u8 method, u16 attr, int nth)
{
	int i, found = -1;

	spin_lock_bh(&kt_sa.lock);
	for (i = 0; i < kt_sa.n_mads && found < 0; i++)
		if (kt_sa.mads[i][3] == method &&
		    get_unaligned_be16(&kt_sa.mads[i][16]) == attr && !nth--)
			found = i;
	spin_unlock_bh(&kt_sa.lock);
	return found;
}

/* Answer the sent MAD i as the SA would, with records for a table. */
static void kt_am_answer(struct ipn_priv *priv, int i, const u8 (*mgids)[16],
			 int n, u16 status)
{
	u32 len = IPC_SA_HDR_LEN + n * 56;
	u8 *b = kzalloc(max_t(u32, len, IPC_MAD_LEN), GFP_KERNEL);
	int k;

	if (!b)
		return;
	memcpy(b, kt_sa.mads[i], IPC_MAD_LEN);
	/* SubnAdmGetTableResp, or SubnAdmGetResp to a SubnAdmSet */
	b[3] = b[3] == 0x12 ? 0x92 : 0x81;
	put_unaligned_be16(status, &b[4]);
	if (b[3] == 0x92) {
		put_unaligned_be16(7, &b[44]);	/* AttributeOffset */
		for (k = 0; k < n; k++)
			memcpy(&b[IPC_SA_HDR_LEN + k * 56], mgids[k], 16);
	} else {
		len = IPC_MAD_LEN;
	}
	ipn_allmulti_answer(priv, get_unaligned_be64(&b[8]), b, len, 0);
	kfree(b);
}

#define KT_SM_LID 1

/*
 * A Report(Notice) of trap for mgid to the port, from LID slid on
 * partition pkey (the SM is at KT_SM_LID). The return of
 * ipn_allmulti_notice(); resp (IPC_MAD_LEN) gets the ReportResp.
 */
static int kt_am_report(struct kunit *test, struct ipn_priv *priv, u16 trap,
			const u8 *mgid, u16 slid, u16 pkey, u8 *resp)
{
	u8 *m = kzalloc(IPC_MAD_LEN, GFP_KERNEL);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, m);
	m[0] = 1;
	m[1] = IB_MGMT_CLASS_SUBN_ADM;
	m[2] = 2;
	m[3] = IB_MGMT_METHOD_REPORT;
	put_unaligned_be64(0x5a, &m[8]);
	put_unaligned_be16(IB_SA_ATTR_NOTICE, &m[16]);
	m[IPC_SA_HDR_LEN] = 0x80 | 4;	/* generic, informational */
	put_unaligned_be16(trap, &m[IPC_SA_HDR_LEN + 4]);
	memcpy(&m[IPC_SA_HDR_LEN + IPC_SA_NOTICE_GID_OFF], mgid, 16);
	ret = ipn_allmulti_notice(priv, slid, KT_SM_LID, pkey, m, IPC_MAD_LEN,
				  resp);
	kfree(m);
	return ret;
}

/* A Report(Notice) from the SA; checks the response. */
static void kt_am_notice(struct kunit *test, struct ipn_priv *priv,
			 u16 trap, const u8 *mgid)
{
	u8 *resp = kzalloc(IPC_MAD_LEN, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, resp);
	KUNIT_EXPECT_EQ(test, kt_am_report(test, priv, trap, mgid, KT_SM_LID,
					   0xffff, resp), 0);
	KUNIT_EXPECT_EQ(test, resp[3], IB_MGMT_METHOD_REPORT_RESP);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(&resp[8]), 0x5aull);
	kfree(resp);
}

/*
 * IFF_ALLMULTI on, and the three requests of the mode sent: the two
 * subscriptions (InformInfo, traps 66 and 67) and the directory's table,
 * their indices in kt_sa.mads.
 */
static void kt_am_enter(struct kunit *test, struct ipn_priv *priv,
			int *sub66, int *sub67, int *table)
{
	rtnl_lock();
	KUNIT_ASSERT_EQ(test, dev_set_allmulti(priv->dev, 1), 0);
	rtnl_unlock();
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_sa.n_mads == 3));
	*sub66 = kt_find_mad(0x02, IB_SA_ATTR_INFORM_INFO, 0);
	*sub67 = kt_find_mad(0x02, IB_SA_ATTR_INFORM_INFO, 1);
	*table = kt_find_mad(0x12, IB_SA_ATTR_MC_MEMBER_REC, 0);
	KUNIT_ASSERT_GE(test, *sub66, 0);
	KUNIT_ASSERT_GE(test, *sub67, 0);
	KUNIT_ASSERT_GE(test, *table, 0);
}

/*
 * RFC 4391 s11: IFF_ALLMULTI on InfiniBand. The interface subscribes to
 * group creation and deletion, reads the SA's group list and NonMember
 * joins every IPoIB group of its link; a notice of a new group joins it,
 * of a deleted one leaves it; leaving the mode cancels the subscriptions
 * and leaves the NonMember groups, never the stack's FullMember ones.
 */
static void sa_allmulti(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	struct net_device *dev = priv->dev;
	static const u8 ip_a[4] = { 239, 1, 1, 1 }, ip_d[4] = { 224, 1, 2, 9 };
	static const u8 ip_e[4] = { 239, 1, 1, 5 };
	static const u8 ip6_b[16] = { 0xff, 0x02, [15] = 0x77 };
	u8 g[6][16], hw_d[20];	/* a b c(other P_Key) bcast d(stack) e */
	u8 *resp;
	int i, sub66, sub67, table, failures;

	kt_join_bcast(test, priv);
	ipc_mgid_from_ipv4(ip_a, priv->ifid.bcast_gid, g[0]);
	ipc_mgid_from_ipv6(ip6_b, priv->ifid.bcast_gid, g[1]);
	memcpy(g[2], g[0], 16);
	g[2][5] ^= 0x01;		/* P_Key 0xfffe */
	memcpy(g[3], priv->ifid.bcast_gid, 16);
	ipc_mgid_from_ipv4(ip_d, priv->ifid.bcast_gid, g[4]);
	ipc_mgid_from_ipv4(ip_e, priv->ifid.bcast_gid, g[5]);

	/* The stack's own group d: FullMember. */
	ipn_kunit_mc_addr(hw_d, g[4]);
	KUNIT_ASSERT_EQ(test, dev_mc_add(dev, hw_d), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_joins(g[4]) == 1));
	KUNIT_ASSERT_EQ(test, kt_answer_join(g[4], 0, KT_QKEY, IB_MTU_2048), 0);

	kt_am_enter(test, priv, &sub66, &sub67, &table);
	KUNIT_EXPECT_EQ(test, kt_sa.am_starts, 1);
	/* Subscribe = 1; traps 66 and 67; TIDs carry the agent's hi_tid. */
	KUNIT_EXPECT_EQ(test, kt_sa.mads[sub66][IPC_SA_HDR_LEN + 23], 1);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(&kt_sa.mads[sub66][IPC_SA_HDR_LEN + 26]), 66);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(&kt_sa.mads[sub67][IPC_SA_HDR_LEN + 26]), 67);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, get_unaligned_be32(&kt_sa.mads[i][8]),
				0x4b540000u);

	failures = ipn_stat(priv, mc_failures);
	kt_am_answer(priv, sub66, NULL, 0, 0);
	kt_am_answer(priv, sub67, NULL, 0, 0);
	kt_am_answer(priv, table, (const u8 (*)[16])g, 5, 0);
	KUNIT_EXPECT_EQ(test, (int)ipn_stat(priv, mc_failures), failures);
	KUNIT_EXPECT_FALSE(test, priv->am.restart);
	/* s11 B: a and b NonMember; not c, not the broadcast group. */
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
					kt_count_joins_state(g[0], IPC_JOIN_NON) == 1 &&
					kt_count_joins_state(g[1], IPC_JOIN_NON) == 1));
	kt_settle(priv);
	KUNIT_EXPECT_EQ(test, kt_count_joins(g[2]), 0);
	KUNIT_EXPECT_EQ(test, kt_count_joins(g[3]), 1);
	/* d stays the stack's FullMember membership. */
	KUNIT_EXPECT_EQ(test, kt_count_joins(g[4]), 1);
	KUNIT_EXPECT_EQ(test, kt_count_joins_state(g[4], IPC_JOIN_FULL), 1);
	KUNIT_ASSERT_EQ(test, kt_answer_join(g[0], 0, KT_QKEY, IB_MTU_2048), 0);
	KUNIT_ASSERT_EQ(test, kt_answer_join(g[1], 0, KT_QKEY, IB_MTU_2048), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
					kt_mc_state(priv, g[0]) == IPC_MC_JOINED));

	/*
	 * Review M3: a Report not from the SM (another LID; the SM's LID on
	 * another partition) is a forgery: refused, counted, unanswered; no
	 * group joined or left.
	 */
	resp = kzalloc(IPC_MAD_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, resp);
	KUNIT_EXPECT_EQ(test, kt_am_report(test, priv, 67, g[1], 7, 0xffff,
					   resp), -EACCES);
	KUNIT_EXPECT_EQ(test, kt_am_report(test, priv, 66, g[5], KT_SM_LID,
					   0x8001, resp), -EACCES);
	KUNIT_EXPECT_EQ(test, resp[3], 0);
	kfree(resp);
	kt_settle(priv);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, sa_reports_refused), 2u);
	KUNIT_EXPECT_EQ(test, kt_count_joins(g[5]), 0);
	KUNIT_EXPECT_EQ(test, kt_mc_state(priv, g[1]), IPC_MC_JOINED);

	/* s11 C: a group created later is joined; a deleted one left. */
	kt_am_notice(test, priv, 66, g[5]);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
					kt_count_joins_state(g[5], IPC_JOIN_NON) == 1));
	KUNIT_ASSERT_EQ(test, kt_answer_join(g[5], 0, KT_QKEY, IB_MTU_2048), 0);
	kt_am_notice(test, priv, 67, g[0]);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, kt_count_joins(g[0]) == 0));
	/* A notice of another link's group changes nothing. */
	kt_am_notice(test, priv, 66, g[2]);
	kt_settle(priv);
	KUNIT_EXPECT_EQ(test, kt_count_joins(g[2]), 0);

	/* Out of the mode: unsubscribed, b and e left, d kept. */
	rtnl_lock();
	KUNIT_ASSERT_EQ(test, dev_set_allmulti(dev, -1), 0);
	rtnl_unlock();
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
					kt_count_joins(g[1]) == 0 &&
					kt_count_joins(g[5]) == 0));
	KUNIT_EXPECT_EQ(test, kt_sa.am_stops, 1);
	i = kt_find_mad(0x02, IB_SA_ATTR_INFORM_INFO, 2);
	KUNIT_ASSERT_GE(test, i, 0);
	KUNIT_EXPECT_EQ(test, kt_sa.mads[i][IPC_SA_HDR_LEN + 23], 0);
	i = kt_find_mad(0x02, IB_SA_ATTR_INFORM_INFO, 3);
	KUNIT_ASSERT_GE(test, i, 0);
	KUNIT_EXPECT_EQ(test, kt_sa.mads[i][IPC_SA_HDR_LEN + 23], 0);
	KUNIT_EXPECT_EQ(test, kt_count_joins_state(g[4], IPC_JOIN_FULL), 1);
	/* After the mode, a notice joins nothing. */
	kt_am_notice(test, priv, 66, g[1]);
	kt_settle(priv);
	KUNIT_EXPECT_EQ(test, kt_count_joins(g[1]), 0);

	/*
	 * IFF_PROMISC alone (tcpdump) is not s11's mode: no SA request
	 * (review M3), unless promisc_allmulti asks for it.
	 */
	kt_sa.n_mads = 0;
	rtnl_lock();
	KUNIT_ASSERT_EQ(test, dev_set_promiscuity(dev, 1), 0);
	rtnl_unlock();
	kt_settle(priv);
	KUNIT_EXPECT_EQ(test, kt_sa.n_mads, 0);
	KUNIT_EXPECT_EQ(test, kt_sa.am_starts, 1);
	rtnl_lock();
	KUNIT_ASSERT_EQ(test, dev_set_promiscuity(dev, -1), 0);
	rtnl_unlock();

	/* With promisc_allmulti; an SA error is counted and retried. */
	ipn_promisc_allmulti = true;
	failures = ipn_stat(priv, mc_failures);
	rtnl_lock();
	KUNIT_ASSERT_EQ(test, dev_set_promiscuity(dev, 1), 0);
	rtnl_unlock();
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_sa.n_mads == 3));
	KUNIT_EXPECT_EQ(test, kt_sa.am_starts, 2);
	table = kt_find_mad(0x12, IB_SA_ATTR_MC_MEMBER_REC, 0);
	KUNIT_ASSERT_GE(test, table, 0);
	kt_am_answer(priv, table, NULL, 0, 0x0100);	/* ERR_NO_RESOURCES */
	KUNIT_EXPECT_EQ(test, (int)ipn_stat(priv, mc_failures), failures + 1);
	KUNIT_EXPECT_TRUE(test, priv->am.restart);
	rtnl_lock();
	KUNIT_ASSERT_EQ(test, dev_set_promiscuity(dev, -1), 0);
	rtnl_unlock();
	ipn_promisc_allmulti = false;
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, kt_sa.am_stops == 2));
	KUNIT_EXPECT_EQ(test, dev_mc_del(dev, hw_d), 0);
}

/* rxe1 playing the SA's part of a notice (sa_allmulti_mad_agents). */
static struct {
	struct completion resp;
	u8 method;
	u64 tid;
	int send_status;
} kt_fsa;

static void kt_fsa_send_done(struct ib_mad_agent *agent,
			     struct ib_mad_send_wc *wc)
{
	kt_fsa.send_status = wc->status;
	rdma_destroy_ah(wc->send_buf->ah, RDMA_DESTROY_AH_SLEEPABLE);
	ib_free_send_mad(wc->send_buf);
}

static void kt_fsa_recv(struct ib_mad_agent *agent,
			struct ib_mad_send_buf *send, struct ib_mad_recv_wc *wc)
{
	kt_fsa.method = wc->recv_buf.mad->mad_hdr.method;
	kt_fsa.tid = be64_to_cpu(wc->recv_buf.mad->mad_hdr.tid);
	ib_free_recv_mad(wc);
	complete(&kt_fsa.resp);
}

/*
 * Review M3: in the all-multicast mode every group the SA announces with
 * this link's signature becomes a NonMember membership, which nothing
 * here evicts while joined: anyone in the partition who creates groups
 * would fill the table and starve the stack's groups. They take at most
 * half of groups_max; beyond, a notice is not followed, and no other
 * group is given up for it (a notice is not retried).
 */
static void sa_allmulti_groups_bounded(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	u8 (*g)[16] = kunit_kzalloc(test, 12 * 16, GFP_KERNEL);
	int i, sub66, sub67, table, followed = 0;
	unsigned int am_groups;
	u8 ip[4] = { 239, 2, 0, 0 };

	KUNIT_ASSERT_NOT_NULL(test, g);
	kt_join_bcast(test, priv);
	spin_lock_bh(&priv->lock);
	priv->groups_max = 16;
	spin_unlock_bh(&priv->lock);
	kt_am_enter(test, priv, &sub66, &sub67, &table);
	kt_am_answer(priv, sub66, NULL, 0, 0);
	kt_am_answer(priv, sub67, NULL, 0, 0);
	kt_am_answer(priv, table, NULL, 0, 0);

	/* Twelve groups created on the fabric, one notice each. */
	for (i = 0; i < 12; i++) {
		ip[3] = i;
		ipc_mgid_from_ipv4(ip, priv->ifid.bcast_gid, g[i]);
		kt_am_notice(test, priv, IPC_TRAP_MCG_CREATED, g[i]);
	}
	kt_settle(priv);
	spin_lock_bh(&priv->lock);
	am_groups = priv->am.groups;
	spin_unlock_bh(&priv->lock);
	for (i = 0; i < 12; i++)
		followed += kt_count_joins_state(g[i], IPC_JOIN_NON);
	KUNIT_EXPECT_EQ(test, am_groups, 8u);
	KUNIT_EXPECT_EQ(test, followed, 8);
	KUNIT_EXPECT_EQ(test, kt_mc_state(priv, g[11]), -1);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, mc_evictions), 0u);
	KUNIT_EXPECT_LE(test, priv->mc_count, priv->groups_max);

	/* One deleted: its room goes to the next notice. */
	kt_am_notice(test, priv, IPC_TRAP_MCG_DELETED, g[0]);
	kt_am_notice(test, priv, IPC_TRAP_MCG_CREATED, g[11]);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
					kt_count_joins_state(g[11],
							     IPC_JOIN_NON) ==
					1));
	rtnl_lock();
	dev_set_allmulti(priv->dev, -1);
	rtnl_unlock();
}

/*
 * The SA's answer can come before am_send returns (a MAD there and back
 * takes microseconds); the TIDs it is matched against were set only after
 * all three requests were sent, so such an answer was taken for a stale
 * one and dropped: no group list, no retry. Now each TID is expected
 * before its request goes.
 */
static void sa_allmulti_answer_at_once(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	static const u8 ip[4] = { 239, 4, 0, 1 };
	u8 (*g)[16] = kunit_kzalloc(test, 16, GFP_KERNEL);
	int sub66, sub67, table, failures;

	KUNIT_ASSERT_NOT_NULL(test, g);
	ipc_mgid_from_ipv4(ip, priv->ifid.bcast_gid, g[0]);
	kt_join_bcast(test, priv);
	failures = ipn_stat(priv, mc_failures);
	kt_sa.am_list = (const u8 (*)[16])g;
	kt_sa.am_list_n = 1;
	kt_sa.am_at_once = true;
	kt_am_enter(test, priv, &sub66, &sub67, &table);
	kt_sa.am_at_once = false;
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
					kt_count_joins_state(g[0], IPC_JOIN_NON) == 1));
	KUNIT_EXPECT_EQ(test, (int)ipn_stat(priv, mc_failures), failures);
	KUNIT_EXPECT_FALSE(test, priv->am.restart);
	rtnl_lock();
	dev_set_allmulti(priv->dev, -1);
	rtnl_unlock();
}

/*
 * Review M3: every Report acted on is a join or a leave at the SA by every
 * interface of the port in the mode, so a storm of them became a storm of
 * joins. Now those beyond IPC_NOTICE_RATE a second (after a burst) are
 * answered and counted, not acted on; once they stop for
 * IPC_NOTICE_QUIET_MS the directory is read again (the table alone, not
 * the subscriptions), and what it says is followed: the group created
 * meanwhile is joined, the one deleted meanwhile left, one a Report
 * created while the table was in flight kept.
 */
static void sa_allmulti_reports_limited(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	u8 (*g)[16] = kunit_kzalloc(test, 5 * 16, GFP_KERNEL);
	u8 ip[4] = { 239, 3, 0, 0 };
	int i, sub66, sub67, table, mads;
	unsigned long t0;

	KUNIT_ASSERT_NOT_NULL(test, g);
	for (i = 0; i < 5; i++) {
		ip[3] = i;
		ipc_mgid_from_ipv4(ip, priv->ifid.bcast_gid, g[i]);
	}
	kt_join_bcast(test, priv);
	kt_am_enter(test, priv, &sub66, &sub67, &table);
	kt_am_answer(priv, sub66, NULL, 0, 0);
	kt_am_answer(priv, sub67, NULL, 0, 0);
	kt_am_answer(priv, table, (const u8 (*)[16])g, 2, 0);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000,
					kt_count_joins_state(g[0], IPC_JOIN_NON) == 1 &&
					kt_count_joins_state(g[1], IPC_JOIN_NON) == 1));
	KUNIT_ASSERT_EQ(test, kt_answer_join(g[0], 0, KT_QKEY, IB_MTU_2048), 0);
	KUNIT_ASSERT_EQ(test, kt_answer_join(g[1], 0, KT_QKEY, IB_MTU_2048), 0);
	/* Within the rate: acted on. */
	kt_am_notice(test, priv, IPC_TRAP_MCG_CREATED, g[2]);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000,
					kt_count_joins_state(g[2], IPC_JOIN_NON) == 1));
	KUNIT_ASSERT_EQ(test, kt_answer_join(g[2], 0, KT_QKEY, IB_MTU_2048), 0);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, sa_reports_limited), 0u);

	/*
	 * The budget spent, and no refill for 10 s (its clock set ahead),
	 * so that what follows is beyond it however slow this machine is.
	 */
	spin_lock_bh(&priv->am_port.lock);
	priv->am_port.rate.tokens = 0;
	priv->am_port.rate.at = ipn_now_ms() + 10000;
	spin_unlock_bh(&priv->am_port.lock);
	mads = kt_sa.n_mads;
	t0 = jiffies;
	kt_am_notice(test, priv, IPC_TRAP_MCG_DELETED, g[1]);
	kt_am_notice(test, priv, IPC_TRAP_MCG_CREATED, g[3]);
	kt_settle(priv);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, sa_reports_limited), 2u);
	KUNIT_EXPECT_EQ(test, kt_count_joins(g[3]), 0);
	KUNIT_EXPECT_EQ(test, kt_mc_state(priv, g[1]), IPC_MC_JOINED);
	KUNIT_EXPECT_EQ(test, kt_sa.n_mads, mads);

	/* The quiet over: the table again, and nothing else. */
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 3 * IPC_NOTICE_QUIET_MS,
					kt_sa.n_mads > mads));
	KUNIT_EXPECT_GE(test, jiffies_to_msecs(jiffies - t0),
			IPC_NOTICE_QUIET_MS);
	kt_settle(priv);
	KUNIT_EXPECT_EQ(test, kt_sa.n_mads, mads + 1);
	table = kt_find_mad(0x12, IB_SA_ATTR_MC_MEMBER_REC, 1);
	KUNIT_ASSERT_EQ(test, table, mads);
	/*
	 * While it is in flight, one Report within the budget: group 4,
	 * created after the table was taken, is not in it and stays.
	 */
	spin_lock_bh(&priv->am_port.lock);
	priv->am_port.rate.tokens = 1000;
	spin_unlock_bh(&priv->am_port.lock);
	kt_am_notice(test, priv, IPC_TRAP_MCG_CREATED, g[4]);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000,
					kt_count_joins_state(g[4], IPC_JOIN_NON) == 1));
	KUNIT_ASSERT_EQ(test, kt_answer_join(g[4], 0, KT_QKEY, IB_MTU_2048), 0);
	/* It lists 0, 2 and 3: 3 is joined, 1 left, 0, 2 and 4 kept. */
	memcpy(g[1], g[3], 16);
	kt_am_answer(priv, table, (const u8 (*)[16])g, 3, 0);
	ip[3] = 1;
	ipc_mgid_from_ipv4(ip, priv->ifid.bcast_gid, g[1]);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
					kt_count_joins_state(g[3], IPC_JOIN_NON) == 1 &&
					kt_count_joins(g[1]) == 0));
	KUNIT_EXPECT_EQ(test, kt_count_joins_state(g[0], IPC_JOIN_NON), 1);
	KUNIT_EXPECT_EQ(test, kt_count_joins_state(g[2], IPC_JOIN_NON), 1);
	KUNIT_EXPECT_EQ(test, kt_count_joins_state(g[4], IPC_JOIN_NON), 1);
	KUNIT_EXPECT_EQ(test, kt_mc_state(priv, g[0]), IPC_MC_JOINED);
	KUNIT_EXPECT_EQ(test, kt_mc_state(priv, g[4]), IPC_MC_JOINED);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, sa_reports_limited), 2u);
	spin_lock_bh(&priv->lock);
	KUNIT_EXPECT_EQ(test, priv->am.groups, 4u);
	spin_unlock_bh(&priv->lock);
	rtnl_lock();
	dev_set_allmulti(priv->dev, -1);
	rtnl_unlock();
}

/*
 * allmulti.c's MAD agents for real, over soft-RoCE: the interface on rxe0
 * registers its request agent and the port's Report agent; rxe1, as the
 * SA would, sends a Report(Notice) of a new group to rxe0's QP 1. The
 * port agent answers with a ReportResp (same TID, through an AH made
 * from the received GRH) and the interface NonMember joins the group.
 * What RoCE cannot carry: the requests to the SM's LID (the scripted SA
 * takes them here).
 */
static void sa_allmulti_mad_agents(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	struct ipn_sa_ops *ops = kunit_kzalloc(test, sizeof(*ops), GFP_KERNEL);
	static const u8 ip_g[4] = { 239, 1, 1, 9 };
	struct rdma_ah_attr attr = {};
	struct ib_mad_send_buf *send;
	struct ib_mad_agent *fsa;
	struct ib_device *peer;
	union ib_gid dgid;
	struct ib_ah *ah;
	int i, failures;
	u8 g[16], *m;
	u64 tid;

	KUNIT_ASSERT_NOT_NULL(test, ops);
	*ops = kt_sa_ops;
	ops->am_start = ipn_am_ib_start;
	ops->am_stop = ipn_am_ib_stop;
	priv->sa = ops;
	kt_join_bcast(test, priv);
	ipc_mgid_from_ipv4(ip_g, priv->ifid.bcast_gid, g);

	rtnl_lock();
	KUNIT_ASSERT_EQ(test, dev_set_allmulti(priv->dev, 1), 0);
	rtnl_unlock();
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_sa.n_mads == 3));
	KUNIT_ASSERT_NOT_NULL(test, priv->am.agent);
	KUNIT_ASSERT_NOT_NULL(test, priv->am_port.agent);
	KUNIT_EXPECT_EQ(test, priv->am_port.users, 1u);
	failures = ipn_stat(priv, mc_failures);
	for (i = 0; i < 3; i++)
		kt_am_answer(priv, i, NULL, 0, 0);
	KUNIT_EXPECT_EQ(test, (int)ipn_stat(priv, mc_failures), failures);
	/* The TIDs carry the request agent's hi_tid (ib_mad routes by it). */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(&kt_sa.mads[0][8]),
			priv->am.agent->hi_tid);

	peer = ib_device_get_by_name("rxe1", RDMA_DRIVER_UNKNOWN);
	KUNIT_ASSERT_NOT_NULL_MSG(test, peer, "no rxe1 to play the SA");
	init_completion(&kt_fsa.resp);
	fsa = ib_register_mad_agent(peer, 1, IB_QPT_GSI, NULL, 0,
				    kt_fsa_send_done, kt_fsa_recv, NULL, 0);
	if (IS_ERR(fsa)) {
		ib_device_put(peer);
		KUNIT_ASSERT_FAILURE(test, "rxe1 MAD agent: %pe", fsa);
	}
	attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&attr, 1);
	memcpy(dgid.raw, priv->ifid.gid, 16);
	rdma_ah_set_grh(&attr, &dgid, 0, 0, 64, 0);
	ah = rdma_create_ah(fsa->qp->pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	send = IS_ERR(ah) ? ERR_CAST(ah) :
	       ib_create_send_mad(fsa, 1, 0, 0, IB_MGMT_SA_HDR, IB_MGMT_SA_DATA,
				  GFP_KERNEL, IB_MGMT_BASE_VERSION);
	if (IS_ERR(send)) {
		if (!IS_ERR(ah))
			rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		ib_unregister_mad_agent(fsa);
		ib_device_put(peer);
		KUNIT_ASSERT_FAILURE(test, "rxe1's Report: %pe", send);
	}
	m = send->mad;
	m[0] = 1;
	m[1] = IB_MGMT_CLASS_SUBN_ADM;
	m[2] = 2;
	m[3] = IB_MGMT_METHOD_REPORT;
	tid = (u64)fsa->hi_tid << 32 | 0x66;
	put_unaligned_be64(tid, &m[8]);
	put_unaligned_be16(IB_SA_ATTR_NOTICE, &m[16]);
	m[IPC_SA_HDR_LEN] = 0x80 | 4;
	put_unaligned_be16(IPC_TRAP_MCG_CREATED, &m[IPC_SA_HDR_LEN + 4]);
	memcpy(&m[IPC_SA_HDR_LEN + IPC_SA_NOTICE_GID_OFF], g, 16);
	send->ah = ah;
	send->timeout_ms = 2000;
	send->retries = 2;
	KUNIT_EXPECT_EQ(test, ib_post_send_mad(send, NULL), 0);

	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&kt_fsa.resp,
							    10 * HZ) > 0);
	KUNIT_EXPECT_EQ(test, kt_fsa.method, IB_MGMT_METHOD_REPORT_RESP);
	KUNIT_EXPECT_EQ(test, kt_fsa.tid, tid);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
					kt_count_joins_state(g, IPC_JOIN_NON) == 1));
	KUNIT_EXPECT_EQ(test, kt_answer_join(g, 0, KT_QKEY, IB_MTU_2048), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
					kt_mc_state(priv, g) == IPC_MC_JOINED));
	ib_unregister_mad_agent(fsa);
	ib_device_put(peer);

	rtnl_lock();
	KUNIT_ASSERT_EQ(test, dev_set_allmulti(priv->dev, -1), 0);
	rtnl_unlock();
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, !priv->am.agent &&
					!priv->am_port.agent));
	KUNIT_EXPECT_EQ(test, priv->am_port.users, 0u);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, kt_count_joins(g) == 0));
	priv->sa = &kt_sa_ops;
}

/*
 * Stack groups added before the broadcast group is joined wait for it
 * (RFC 4391 s5: their joins carry its Q_Key, MTU, SL and rate): no SA
 * request, no failure counted, no "join failed" log; the broadcast join
 * releases them with the parameters it brought. A send-only frame waits too.
 */
static void sa_groups_wait_for_bcast(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	static const u8 ip_group[4] = { 224, 1, 2, 4 };
	static const u8 ip_send[4] = { 224, 1, 2, 5 };
	const u8 *bgid = priv->ifid.bcast_gid;
	u8 mgid[16], sgid[16], hw[20];
	struct kt_join *j;

	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_joins(bgid) > 0));
	ipc_mgid_from_ipv4(ip_group, bgid, mgid);
	ipc_mgid_from_ipv4(ip_send, bgid, sgid);
	ipn_kunit_mc_addr(hw, mgid);
	KUNIT_ASSERT_EQ(test, dev_mc_add(priv->dev, hw), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_mc_state(priv, mgid) ==
					IPC_MC_HELD));
	/* A send-only frame to another group is held as well, not dropped. */
	ipn_kunit_mc_addr(hw, sgid);
	ipn_kunit_xmit(priv, hw, htonl(0xe0010205));
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_mc_state(priv, sgid) ==
					IPC_MC_HELD));
	kt_settle(priv);
	KUNIT_EXPECT_EQ(test, kt_count_joins(mgid), 0);
	KUNIT_EXPECT_EQ(test, kt_count_joins(sgid), 0);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, mc_failures), 0u);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, tx_dropped), 0u);

	kt_join_bcast(test, priv);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_joins(mgid) == 1 &&
					kt_count_joins(sgid) == 1));
	spin_lock_bh(&kt_sa.lock);
	j = kt_find_join(mgid);
	KUNIT_EXPECT_EQ(test, j->req.join_state, IPC_JOIN_FULL);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(j->req.qkey), KT_QKEY);
	KUNIT_EXPECT_EQ(test, j->req.mtu, IB_MTU_2048);
	j = kt_find_join(sgid);
	KUNIT_EXPECT_EQ(test, j->req.join_state, IPC_JOIN_SENDONLY);
	spin_unlock_bh(&kt_sa.lock);
	KUNIT_ASSERT_EQ(test, kt_answer_join(mgid, 0, KT_QKEY, IB_MTU_2048), 0);
	KUNIT_ASSERT_EQ(test, kt_answer_join(sgid, 0, KT_QKEY, IB_MTU_2048), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, kt_mc_state(priv, mgid) ==
					IPC_MC_JOINED &&
					kt_mc_state(priv, sgid) ==
					IPC_MC_JOINED));
	/* The held frame went out once the send-only join completed. */
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
					ipn_stat(priv, tx_packets) >= 1));
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, mc_failures), 0u);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, mc_joins), 3u);
	ipn_kunit_mc_addr(hw, mgid);
	KUNIT_EXPECT_EQ(test, dev_mc_del(priv->dev, hw), 0);
}

/*
 * ndo_start_xmit's decisions, observed on the work request the shim
 * posts: the broadcast group's handle, QPN 0xffffff and Q_Key (s5, s9.1.2);
 * addresses that cannot be sent to dropped under their reason; a group not
 * joined gets a SendOnlyNonMember join and its frame waits for it (s10).
 */
static void sa_tx_decisions(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	static const u8 ip_group[4] = { 239, 1, 2, 3 };
	u8 hw[20], mgid[16];
	struct kt_join *j;
	u64 sent;

	kt_join_bcast(test, priv);
	sent = ipn_stat(priv, tx_packets);
	ipn_kunit_xmit(priv, priv->dev->broadcast, htonl(0xffffffff));
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, ipn_stat(priv, tx_packets) >
					sent));
	KUNIT_EXPECT_EQ(test, priv->tx_wr.remote_qpn, (u32)IPC_QPN_MCAST);
	KUNIT_EXPECT_EQ(test, priv->tx_wr.remote_qkey, KT_QKEY);
	KUNIT_EXPECT_PTR_EQ(test, priv->tx_wr.ah, priv->bcast->ah->ah);

	/* QPN 0; a multicast GID with a unicast QPN; another P_Key's MGID. */
	kt_peer_addr(hw, 0);
	ipn_kunit_xmit(priv, hw, htonl(0x0a000002));
	memcpy(hw, priv->dev->broadcast, 20);
	hw[3] = 0x22;
	ipn_kunit_xmit(priv, hw, htonl(0x0a000002));
	KUNIT_EXPECT_EQ(test, ipn_stat_drop(priv, IPC_R_BAD_ADDR), 2u);
	memcpy(hw, priv->dev->broadcast, 20);
	hw[8] = 0x80;
	hw[9] = 0x01;
	ipn_kunit_xmit(priv, hw, htonl(0xffffffff));
	KUNIT_EXPECT_EQ(test, ipn_stat_drop(priv, IPC_R_WRONG_LINK), 1u);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, tx_dropped), 3u);

	/* 239.1.2.3, never joined: a send-only join, the frame waits. */
	ipc_mgid_from_ipv4(ip_group, priv->ifid.bcast_gid, mgid);
	ipn_kunit_mc_addr(hw, mgid);
	sent = ipn_stat(priv, tx_packets);
	ipn_kunit_xmit(priv, hw, htonl(0xef010203));
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_joins(mgid) == 1));
	spin_lock_bh(&kt_sa.lock);
	j = kt_find_join(mgid);
	KUNIT_EXPECT_EQ(test, j->req.join_state, IPC_JOIN_SENDONLY);
	spin_unlock_bh(&kt_sa.lock);
	kt_settle(priv);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, tx_packets), sent);
	KUNIT_ASSERT_EQ(test, kt_answer_join(mgid, 0, KT_QKEY, IB_MTU_2048), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, ipn_stat(priv, tx_packets) >
					sent));
	KUNIT_EXPECT_EQ(test, priv->tx_wr.remote_qpn, (u32)IPC_QPN_MCAST);
	KUNIT_EXPECT_EQ(test, kt_mc_state(priv, mgid), IPC_MC_JOINED);
}

/* Answer every outstanding path query with success. */
static void kt_answer_all_paths(void)
{
	struct kt_query *q;
	u8 dgid[16];

	for (;;) {
		spin_lock_bh(&kt_sa.lock);
		q = list_first_entry_or_null(&kt_sa.queries, struct kt_query,
					     list);
		if (q)
			memcpy(dgid, q->req.dgid.raw, 16);
		spin_unlock_bh(&kt_sa.lock);
		if (!q || kt_answer_path(dgid, 0))
			return;
	}
}

/*
 * What the control work does with the SA's answers (path and group
 * entries, address handles, the rx_mode diff, attaches) fails at each
 * ipn_fault() site in turn. Each time the peer is reached again and the
 * group joined again within seconds: the core retries what failed.
 */
static void sa_faults_after_answers(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	unsigned int n, failed = 0;
	u8 hw[20], mc[20];
	bool done = false;
	u64 sent;
	int i;

	kt_join_bcast(test, priv);
	ipn_kunit_mc_addr(mc, priv->ifid.bcast_gid);
	for (n = 1; n < 100 && !done; n++) {
		kt_peer_addr(hw, 0x22);
		hw[18] = n;		/* a new peer GID each round */
		mc[19] = n;		/* and a new group */
		ipn_kunit_fault_arm(n);
		ipn_kunit_xmit(priv, hw, htonl(0x0a000002));
		kt_wait(priv, 500, kt_count_queries() > 0);
		kt_answer_all_paths();
		KUNIT_EXPECT_EQ(test, dev_mc_add(priv->dev, mc), 0);
		kt_wait(priv, 500, kt_count_joins(mc + 4) > 0);
		kt_answer_join(mc + 4, 0, KT_QKEY, IB_MTU_2048);
		kt_settle(priv);
		if (ipn_kunit_fault_disarm())
			done = true;
		else
			failed++;

		sent = ipn_stat(priv, tx_packets);
		for (i = 0; i < 30 && ipn_stat(priv, tx_packets) <= sent; i++) {
			ipn_kunit_xmit(priv, hw, htonl(0x0a000002));
			kt_answer_all_paths();
			ipn_kunit_settle(priv, 200);
		}
		KUNIT_EXPECT_GT_MSG(test, ipn_stat(priv, tx_packets), sent,
				    "site %u: the peer is not reached again", n);
		for (i = 0; i < 30 && kt_mc_state(priv, mc + 4) !=
		     IPC_MC_JOINED; i++) {
			kt_answer_join(mc + 4, 0, KT_QKEY, IB_MTU_2048);
			ipn_kunit_settle(priv, 200);
		}
		KUNIT_EXPECT_EQ_MSG(test, kt_mc_state(priv, mc + 4),
				    IPC_MC_JOINED, "site %u: group not joined", n);
		KUNIT_EXPECT_EQ(test, dev_mc_del(priv->dev, mc), 0);
		kt_settle(priv);
	}
	KUNIT_EXPECT_TRUE(test, done);
	KUNIT_EXPECT_GT(test, failed, 0u);
	kunit_info(test, "%u fault sites after SA answers failed in turn\n",
		   failed);
}

/* The query cannot even start: a failure now, nothing left behind. */
static void sa_path_start_fails(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	u8 hw[20];

	kt_join_bcast(test, priv);
	kt_sa.path_ret = -ENOMEM;
	kt_peer_addr(hw, 0x22);
	ipn_kunit_xmit(priv, hw, htonl(0x0a000002));
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
					ipn_stat(priv, path_failures) >= 1));
	KUNIT_EXPECT_EQ(test, kt_count_queries(), 0);
	KUNIT_EXPECT_NE(test, kt_path_state(priv, kt_peer_gid),
			IPC_PATH_VALID);
}

/*
 * Interface down while a query is outstanding: it is cancelled, its
 * -EINTR completion arrives after the cancel from another context, and
 * down waits for it. A late answer finds nothing.
 */
static void sa_path_cancel_on_down(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	u8 hw[20];

	kt_join_bcast(test, priv);
	kt_peer_addr(hw, 0x22);
	ipn_kunit_xmit(priv, hw, htonl(0x0a000002));
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_queries() == 1));
	rtnl_lock();
	dev_close(priv->dev);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, kt_sa.cancels, 1);
	KUNIT_EXPECT_EQ(test, kt_count_queries(), 0);
	KUNIT_EXPECT_EQ(test, kt_answer_path(kt_peer_gid, 0), -ENOENT);
	KUNIT_EXPECT_EQ(test, kt_path_state(priv, kt_peer_gid), -1);
	/* Every membership was freed by the leave. */
	KUNIT_EXPECT_TRUE(test, list_empty(&kt_sa.joins));
}

/*
 * RFC 4391 s10: a frame to a group we are not in makes a SendOnly join
 * with the broadcast group's parameters. When the SA rejects it (the group
 * does not exist), a group scoped beyond the link is sent to the
 * all-routers group of its family; a link-scope one is dropped.
 */
static void sa_sendonly_group_missing(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	__be32 group = htonl(0xefc00001);	/* 239.192.0.1, scope 8 */
	__be32 local = htonl(0xe0000005);	/* 224.0.0.5, link scope */
	u8 hw[20], mgid[16], routers[16], lmgid[16];
	struct kt_join *j;
	int calls;
	u64 sent;

	kt_join_bcast(test, priv);
	ipc_mgid_from_ipv4((const u8 *)&group, priv->ifid.bcast_gid, mgid);
	ipc_mgid_all_routers(mgid, routers);
	ipn_kunit_mc_addr(hw, mgid);
	ipn_kunit_xmit(priv, hw, group);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_joins(mgid) == 1));
	spin_lock_bh(&kt_sa.lock);
	j = kt_find_join(mgid);
	KUNIT_EXPECT_EQ(test, j->req.join_state, IPC_JOIN_SENDONLY);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(j->req.qkey), KT_QKEY);
	KUNIT_EXPECT_EQ(test, j->req.mtu, IB_MTU_2048);
	KUNIT_EXPECT_TRUE(test, j->mask & IB_SA_MCMEMBER_REC_QKEY);
	spin_unlock_bh(&kt_sa.lock);

	/* The SA rejects it as ib_sa reports that: -EINVAL. */
	sent = ipn_stat(priv, tx_packets);
	KUNIT_ASSERT_EQ(test, kt_answer_join(mgid, -EINVAL, 0, 0), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, kt_mc_state(priv, mgid) ==
					IPC_MC_MISSING));
	/* s10: scoped beyond the link, the frame goes to the all-routers group. */
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000,
					kt_count_joins(routers) == 1));
	spin_lock_bh(&kt_sa.lock);
	j = kt_find_join(routers);
	KUNIT_EXPECT_EQ(test, j->req.join_state, IPC_JOIN_SENDONLY);
	spin_unlock_bh(&kt_sa.lock);
	KUNIT_ASSERT_EQ(test, kt_answer_join(routers, 0, KT_QKEY,
					     IB_MTU_2048), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, ipn_stat(priv, tx_packets) >
					sent));
	KUNIT_EXPECT_EQ(test, kt_mc_state(priv, routers), IPC_MC_JOINED);
	spin_lock_bh(&priv->lock);
	KUNIT_EXPECT_PTR_EQ(test, priv->tx_wr.ah,
			    ipn_mcast_find(priv, routers)->ah->ah);
	spin_unlock_bh(&priv->lock);
	/* The next frame to the missing group goes there at once. */
	sent = ipn_stat(priv, tx_packets);
	calls = kt_sa.join_calls;
	ipn_kunit_xmit(priv, hw, group);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, ipn_stat(priv, tx_packets) >
					sent));
	KUNIT_EXPECT_EQ(test, kt_sa.join_calls, calls);
	KUNIT_EXPECT_EQ(test, ipn_stat_drop(priv, IPC_R_NOT_JOINED), 0u);

	/* A missing link-scope group is never routed: dropped. */
	ipc_mgid_from_ipv4((const u8 *)&local, priv->ifid.bcast_gid, lmgid);
	ipn_kunit_mc_addr(hw, lmgid);
	ipn_kunit_xmit(priv, hw, local);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000,
					kt_count_joins(lmgid) == 1));
	KUNIT_ASSERT_EQ(test, kt_answer_join(lmgid, -EINVAL, 0, 0), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, kt_mc_state(priv, lmgid) ==
					IPC_MC_MISSING));
	KUNIT_EXPECT_EQ(test, ipn_stat_drop(priv, IPC_R_NOT_JOINED), 1u);
}

/*
 * A join answer racing with the interface going down: the answer runs on
 * another CPU while ndo_stop leaves the group. Either order must end with
 * the membership freed and nothing touched after free (KASAN watches).
 */
struct kt_late {
	struct work_struct work;
	u8 mgid[16];
	int ret;
};

static void kt_late_work(struct work_struct *work)
{
	struct kt_late *l = container_of(work, struct kt_late, work);

	l->ret = kt_answer_join(l->mgid, 0, KT_QKEY, IB_MTU_2048);
}

static void sa_join_answer_races_down(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	struct kt_late *l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, l);
	memcpy(l->mgid, priv->ifid.bcast_gid, 16);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000,
					kt_count_joins(l->mgid) > 0));
	INIT_WORK(&l->work, kt_late_work);
	queue_work(system_unbound_wq, &l->work);
	rtnl_lock();
	dev_close(priv->dev);
	rtnl_unlock();
	flush_work(&l->work);
	KUNIT_EXPECT_TRUE(test, l->ret == 0 || l->ret == -ENOENT);
	KUNIT_EXPECT_TRUE(test, list_empty(&kt_sa.joins));
	KUNIT_EXPECT_FALSE(test, netif_carrier_ok(priv->dev));
	/* And the interface comes back: a fresh join. */
	rtnl_lock();
	KUNIT_EXPECT_EQ(test, dev_open(priv->dev, NULL), 0);
	rtnl_unlock();
	kt_join_bcast(test, priv);
}

/* Device removal with a query and a join outstanding (kt_exit checks). */
static void sa_remove_with_requests_outstanding(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	__be32 group = htonl(0xe1000001);
	u8 hw[20], mgid[16];

	kt_join_bcast(test, priv);
	kt_peer_addr(hw, 0x33);
	ipn_kunit_xmit(priv, hw, htonl(0x0a000003));
	memcpy(hw, priv->dev->broadcast, 20);
	ipc_mgid_from_ipv4((const u8 *)&group, priv->ifid.bcast_gid, mgid);
	memcpy(hw + 4, mgid, 16);
	ipn_kunit_xmit(priv, hw, group);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, kt_count_queries() == 1 &&
					kt_count_joins(mgid) == 1));
	/* kt_exit destroys the interface now. */
}

static struct kunit_case ipn_sa_cases[] = {
	KUNIT_CASE(sa_bcast_join),
	KUNIT_CASE(sa_bcast_join_timeout_retries),
	KUNIT_CASE(sa_bcast_enetreset_rejoins),
	KUNIT_CASE(sa_event_kinds),
	KUNIT_CASE(sa_pkey_appears),
	KUNIT_CASE(sa_bcast_scope_search),
	KUNIT_CASE(sa_bcast_create),
	KUNIT_CASE(sa_path_query),
	KUNIT_CASE(sa_path_flush_while_resolving),
	KUNIT_CASE(sa_path_stale_completion_ignored),
	KUNIT_CASE(sa_path_timeout),
	KUNIT_CASE(sa_path_start_fails),
	KUNIT_CASE(sa_path_queue_bounded),
	KUNIT_CASE(sa_path_qpn_change),
	KUNIT_CASE(sa_path_idle_freed),
	KUNIT_CASE(sa_path_table_bounded),
	KUNIT_CASE(sa_group_table_bounded),
	KUNIT_CASE(sa_rx_mode_diff),
	KUNIT_CASE(sa_umcast),
	KUNIT_CASE(sa_allmulti),
	KUNIT_CASE(sa_allmulti_groups_bounded),
	KUNIT_CASE(sa_allmulti_reports_limited),
	KUNIT_CASE(sa_allmulti_answer_at_once),
	KUNIT_CASE(sa_allmulti_mad_agents),
	KUNIT_CASE(sa_groups_wait_for_bcast),
	KUNIT_CASE(sa_tx_decisions),
	KUNIT_CASE(sa_faults_after_answers),
	KUNIT_CASE(sa_path_cancel_on_down),
	KUNIT_CASE(sa_sendonly_group_missing),
	KUNIT_CASE(sa_join_answer_races_down),
	KUNIT_CASE(sa_remove_with_requests_outstanding),
	{}
};

static struct kunit_suite ipn_sa_suite = {
	.name = "ipoib_ng_sa",
	.init = kt_init,
	.exit = kt_exit,
	.test_cases = ipn_sa_cases,
};

kunit_test_suite(ipn_sa_suite);
