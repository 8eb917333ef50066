// SPDX-License-Identifier: GPL-2.0
/*
 * sa/fake.c - suite ipoib_ng_sa, included by kunit/sa_test.c (one
 * translation unit): the scripted subnet administrator (struct
 * ipn_sa_ops), the answers a case gives, and the suite's fixture.
 */

#define KT_QKEY 0x0000beefu	/* the broadcast group's, as the SA answers */

struct kt_query {
	struct list_head list;
	struct work_struct work;	/* -EINTR delivery after a cancel */
	ipn_sa_path_cb done;
	void *ctx;
	int id;
	struct sa_path_rec req;
	ib_sa_comp_mask mask;
	unsigned long timeout_ms;	/* what ib_sa would wait, all tries */
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
	int sgid_refs_given;		/* by kt_path_ah_attr */
	int sgid_refs_lost;		/* found still held there: leaked */
	u8 answer_hop_limit;		/* in the records it answers */
	u16 answer_mlid;		/* the MLID its joins get */
	int path_ret;			/* != 0: path_rec_get fails with it */
	u8 user_mgid[16];		/* a group another user holds */
	bool user_held;
	/* allmulti.c's MADs: what was sent, agents started and stopped */
	u8 mads[32][IPC_MAD_LEN];
	int n_mads, am_starts, am_stops;
	/* Answered inside am_send, the table listing am_list (n of them). */
	bool am_at_once;
	const u8 (*am_list)[16];
	int am_list_n;
	/*
	 * Review 2026-12 L1: a join answered while free_multicast() waits
	 * for its callback (answer_in_free), or as its leave begins
	 * (answer_at_leave: that interface's); answered_at_leave counts them.
	 */
	bool answer_in_free;
	const struct ipn_priv *answer_at_leave;
	int answered_at_leave;
} kt_sa;

static int kt_answer_join(const u8 *mgid, int status, u32 qkey, u8 mtu);

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
	q->timeout_ms = timeout_ms;
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
	if (kt_sa.answer_in_free) {
		/* Its callback was already running: the free waits for it. */
		kt_sa.answer_in_free = false;
		if (!kt_answer_join(j->req.mgid.raw, 0, KT_QKEY, IB_MTU_2048))
			kt_sa.answered_at_leave++;
	}
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
	const struct ib_gid_attr *sgid;

	/*
	 * ib_init_ah_attr_from_path() memsets attr first: a reference the
	 * driver left in it is lost for good (review 2026-12 M3). Counted,
	 * and dropped here so that the case leaves the GID table as it was.
	 */
	if (attr->grh.sgid_attr) {
		kt_sa.sgid_refs_lost++;
		rdma_put_gid_attr(attr->grh.sgid_attr);
	}
	ipn_roce_attr(priv, rec->dgid.raw, 1, attr);
	memcpy(attr->roce.dmac, kt_dmac, ETH_ALEN);
	/*
	 * As ib_init_ah_attr_from_path() does for a record with a GRH: the
	 * attributes hold a reference to the source GID's entry, which the
	 * driver must drop (rdma_destroy_ah_attr()).
	 */
	if (rec->hop_limit) {
		sgid = rdma_get_gid_attr(priv->ca, priv->port,
					 attr->grh.sgid_index);
		if (IS_ERR(sgid))
			return PTR_ERR(sgid);
		attr->grh.sgid_attr = sgid;
		kt_sa.sgid_refs_given++;
	}
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
	resp.hop_limit = kt_sa.answer_hop_limit;
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
		j->m.rec.mlid = cpu_to_be16(kt_sa.answer_mlid);
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

void ipn_kunit_mc_leaving(struct ipn_mcast *mc)
{
	if (!mc->priv || mc->priv != READ_ONCE(kt_sa.answer_at_leave))
		return;
	WRITE_ONCE(kt_sa.answer_at_leave, NULL);
	if (!kt_answer_join(mc->mgid, 0, KT_QKEY, IB_MTU_2048))
		kt_sa.answered_at_leave++;
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
	kt_sa.sgid_refs_given = 0;
	kt_sa.sgid_refs_lost = 0;
	kt_sa.answer_hop_limit = 0;
	kt_sa.answer_mlid = 0xc001;
	kt_sa.user_held = false;
	kt_sa.n_mads = 0;
	kt_sa.am_starts = 0;
	kt_sa.am_stops = 0;
	kt_sa.am_at_once = false;
	kt_sa.answer_in_free = false;
	kt_sa.answer_at_leave = NULL;
	kt_sa.answered_at_leave = 0;
	ipn_create_broadcast = false;
	ipn_promisc_allmulti = false;
	ipn_sa_notices = false;
	/* The module's defaults; a case that needs others says why. */
	ipn_rejoin_spread_ms = 10000;
	ipn_path_spread_ms = 45000;
	ipn_sa_rate = 50;
	ipn_sa_burst = 128;
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
		/* No answer's GID reference was overwritten while held. */
		KUNIT_EXPECT_EQ(test, kt_sa.sgid_refs_lost, 0);
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

/* Whether path's answer attributes still hold a GID reference. */
static noinline bool kt_path_holds_sgid(struct ipn_priv *priv, const u8 *gid)
{
	struct ipn_path *path;
	bool held;

	spin_lock_bh(&priv->lock);
	path = ipn_path_find(priv, gid);
	held = path && path->attr.grh.sgid_attr;
	spin_unlock_bh(&priv->lock);
	return held;
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

/* Bring the broadcast group up through the SA: the common first step. */
static void kt_join_bcast(struct kunit *test, struct ipn_priv *priv)
{
	const u8 *bgid = priv->ifid.bcast_gid;

	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_joins(bgid) > 0));
	KUNIT_ASSERT_EQ(test, kt_answer_join(bgid, 0, KT_QKEY, IB_MTU_2048), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000,
					netif_carrier_ok(priv->dev)));
}
