// SPDX-License-Identifier: GPL-2.0
/*
 * sa/teardown.c - suite ipoib_ng_sa, included by kunit/sa_test.c (one
 * translation unit): faults after answers, and answers racing the
 * interface going down or the device going away.
 */

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
	kt_mgid_v4((const u8 *)&group, priv->ifid.bcast_gid, mgid);
	memcpy(hw + 4, mgid, 16);
	ipn_kunit_xmit(priv, hw, group);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, kt_count_queries() == 1 &&
					kt_count_joins(mgid) == 1));
	/* kt_exit destroys the interface now. */
}

/*
 * ipn_kunit_path_done_unlocked() for kt_done.victim: the path callback,
 * run by the case's own thread, starts the interface's free there and
 * waits for it (at most 20 s: the debug kernel's free can take over 3).
 * Whatever the callback touches afterwards is a use after free, which
 * KASAN reports against the case.
 */
static struct {
	const struct ipn_priv *victim;
	struct task_struct *freer;
	struct completion freed;
	bool was_freed;
} kt_done;

void ipn_kunit_path_done_unlocked(const struct ipn_priv *priv)
{
	if (!priv || priv != READ_ONCE(kt_done.victim))
		return;
	WRITE_ONCE(kt_done.victim, NULL);
	wake_up_process(kt_done.freer);
	kt_done.was_freed = wait_for_completion_timeout(&kt_done.freed,
							20 * HZ);
}

static int kt_free_fn(void *arg)
{
	ipn_dev_destroy(arg);
	complete(&kt_done.freed);
	return 0;
}

/*
 * Review 2026-12 L2: the interface freed while the SA path callback is
 * between letting go of priv->lock and returning. Down's cancel waits
 * only for sa_busy, which the callback clears under the lock; before the
 * fix the callback woke priv->sa_wait after the unlock, in freed memory.
 */
static void sa_path_done_races_free(struct kunit *test)
{
	struct kt_ctx *c = test->priv;
	struct ipn_priv *priv = c->priv;
	u8 hw[20];

	kt_join_bcast(test, priv);
	kt_peer_addr(hw, 0x22);
	ipn_kunit_xmit(priv, hw, htonl(0x0a000002));
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_queries() == 1));
	init_completion(&kt_done.freed);
	kt_done.was_freed = false;
	kt_done.freer = kthread_create(kt_free_fn, priv, "kt-sa-free");
	KUNIT_ASSERT_FALSE(test, IS_ERR(kt_done.freer));
	c->priv = NULL;		/* freed by kt_free_fn, not in kt_exit */
	WRITE_ONCE(kt_done.victim, priv);
	KUNIT_EXPECT_EQ(test, kt_answer_path(kt_peer_gid, 0), 0);
	if (READ_ONCE(kt_done.victim)) {	/* the hook never ran */
		WRITE_ONCE(kt_done.victim, NULL);
		wake_up_process(kt_done.freer);
	}
	if (!kt_done.was_freed)	/* else the hook took the completion */
		wait_for_completion(&kt_done.freed);
	KUNIT_EXPECT_TRUE_MSG(test, kt_done.was_freed,
			      "the interface was not freed while the callback returned");
	KUNIT_EXPECT_EQ(test, kt_count_queries(), 0);
}

/*
 * Review 2026-12 L1: the broadcast join answered as a light flush leaves
 * it (the core gave that join up: BACKOFF, a rejoin to come), in_free:
 * while free_multicast() waits for the callback, which then finds no join
 * pending; else just before the leave, the answer queued for the control
 * work, which finds it of an older join. Either way the carrier stays off
 * and no join is counted until the rejoin's answer. Before the fix the
 * link machine took the stale answer: carrier on, with no membership.
 */
static void kt_bcast_answer_races_leave(struct kunit *test, bool in_free)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	const u8 *bgid = priv->ifid.bcast_gid;
	int seq;

	ipn_rejoin_spread_ms = 0;
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_joins(bgid) > 0));
	KUNIT_ASSERT_FALSE(test, netif_carrier_ok(priv->dev));
	seq = kt_sa.join_calls;
	if (in_free)
		kt_sa.answer_in_free = true;
	else
		WRITE_ONCE(kt_sa.answer_at_leave, priv);
	kt_light_flush(priv);
	KUNIT_ASSERT_TRUE_MSG(test, kt_wait(priv, 5000,
					    kt_joined_after(bgid, seq)),
			      "no rejoin after the flush");
	kt_settle(priv);
	KUNIT_EXPECT_EQ(test, kt_sa.answered_at_leave, 1);
	KUNIT_EXPECT_FALSE_MSG(test, netif_carrier_ok(priv->dev),
			       "carrier on from a join given up");
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, mc_joins), 0u);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, mc_stale_answers), in_free ? 0u : 1u);
	/* The rejoin's answer is the one that counts. */
	KUNIT_ASSERT_EQ(test, kt_answer_join(bgid, 0, KT_QKEY, IB_MTU_2048), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, netif_carrier_ok(priv->dev)));
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, mc_joins), 1u);
}

static void sa_bcast_answer_in_free(struct kunit *test)
{
	kt_bcast_answer_races_leave(test, true);
}

static void sa_bcast_answer_before_leave(struct kunit *test)
{
	kt_bcast_answer_races_leave(test, false);
}
