// SPDX-License-Identifier: GPL-2.0
/*
 * sa/path.c - suite ipoib_ng_sa, included by kunit/sa_test.c (one
 * translation unit): PathRecord queries (RFC 4391 s9.1.2, s9.4): resolved,
 * timed out, bounded, flushed while resolving, stale answers ignored, the
 * table's bound.
 */

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
	/*
	 * ib_sa waits seconds, as the core does, and gives up first (its
	 * eleven tries take 1.1 x): a late answer to the first try (a slow
	 * SA) still counts (ib-faults' sa_delay_ms), a timeout is ib_sa's.
	 */
	KUNIT_EXPECT_GE(test, q->timeout_ms, 3000ul);
	KUNIT_EXPECT_LT(test, q->timeout_ms * 11 / 10,
			(unsigned long)priv->path_cfg.query_timeout_ms);
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

static void kt_free_nlmsg(struct kunit_resource *res)
{
	nlmsg_free(res->data);
}

/*
 * The attributes of the dump message of the path to gid (mgid NULL) or
 * of the group mgid, in an skb the case frees when it ends.
 */
static void kt_genl_msg(struct kunit *test, struct ipn_priv *priv,
			const u8 *gid, const u8 *mgid, struct nlattr **tb,
			int max)
{
	struct sk_buff *skb;

	skb = kt_manage(test, nlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL),
			kt_free_nlmsg);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_EQ(test, ipn_kunit_genl_msg(priv, gid, mgid, skb), 0);
	KUNIT_ASSERT_EQ(test, nlmsg_parse(nlmsg_hdr(skb), GENL_HDRLEN, tb, max,
					  NULL, NULL), 0);
}

/*
 * What the netlink family tells of InfiniBand answers (rxe is RoCE, so
 * only here): the broadcast group's MCMemberRecord (Q_Key, MTU, MLID,
 * rate) and a path the SA answered (valid, its age, its source GID).
 */
static void sa_path_netlink(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	struct nlattr *tb[IPOIB_NG_A_GROUP_MAX + 1];
	u8 hw[20];

	kt_join_bcast(test, priv);
	kt_genl_msg(test, priv, NULL, priv->ifid.bcast_gid, tb,
		    IPOIB_NG_A_GROUP_MAX);
	KUNIT_ASSERT_NOT_NULL(test, tb[IPOIB_NG_A_GROUP_MLID]);
	KT_EXPECT_MEMEQ(test, nla_data(tb[IPOIB_NG_A_GROUP_MGID]),
			priv->ifid.bcast_gid, 16);
	KUNIT_EXPECT_STREQ(test, (char *)nla_data(tb[IPOIB_NG_A_GROUP_STATE]),
			   "joined");
	KUNIT_EXPECT_EQ(test, nla_get_u32(tb[IPOIB_NG_A_GROUP_OWNER]),
			(u32)IPOIB_NG_OWNER_BROADCAST);
	KUNIT_EXPECT_EQ(test, nla_get_u8(tb[IPOIB_NG_A_GROUP_JOINED]),
			(u8)IPOIB_NG_JOIN_FULL);
	KUNIT_EXPECT_EQ(test, nla_get_u32(tb[IPOIB_NG_A_GROUP_QKEY]), KT_QKEY);
	KUNIT_EXPECT_EQ(test, nla_get_u32(tb[IPOIB_NG_A_GROUP_MTU]), 2048u);
	KUNIT_EXPECT_EQ(test, nla_get_u16(tb[IPOIB_NG_A_GROUP_MLID]), 0xc001);
	KUNIT_EXPECT_EQ(test, nla_get_u8(tb[IPOIB_NG_A_GROUP_RATE]),
			(u8)IB_RATE_10_GBPS);

	kt_peer_addr(hw, 0x22);
	ipn_kunit_xmit(priv, hw, htonl(0x0a000002));
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_queries() == 1));
	kt_genl_msg(test, priv, kt_peer_gid, NULL, tb, IPOIB_NG_A_PATH_MAX);
	KUNIT_EXPECT_STREQ(test, (char *)nla_data(tb[IPOIB_NG_A_PATH_STATE]),
			   "resolving");
	KUNIT_EXPECT_EQ(test, nla_get_u32(tb[IPOIB_NG_A_PATH_QUEUED]), 1u);
	/* No answer yet: no handle, nothing of one, no age. */
	KUNIT_EXPECT_NULL(test, tb[IPOIB_NG_A_PATH_SGID]);
	KUNIT_EXPECT_NULL(test, tb[IPOIB_NG_A_PATH_AGE]);

	KUNIT_ASSERT_EQ(test, kt_answer_path(kt_peer_gid, 0), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000,
					kt_path_state(priv, kt_peer_gid) ==
					IPC_PATH_VALID));
	kt_genl_msg(test, priv, kt_peer_gid, NULL, tb, IPOIB_NG_A_PATH_MAX);
	KT_EXPECT_MEMEQ(test, nla_data(tb[IPOIB_NG_A_PATH_GID]), kt_peer_gid,
			16);
	KUNIT_EXPECT_STREQ(test, (char *)nla_data(tb[IPOIB_NG_A_PATH_STATE]),
			   "valid");
	KUNIT_EXPECT_EQ(test, nla_get_u32(tb[IPOIB_NG_A_PATH_QUEUED]), 0u);
	KUNIT_EXPECT_NOT_NULL(test, tb[IPOIB_NG_A_PATH_AGE]);
	KUNIT_EXPECT_NOT_NULL(test, tb[IPOIB_NG_A_PATH_RETRY]);
	KUNIT_EXPECT_NOT_NULL(test, tb[IPOIB_NG_A_PATH_SL]);
	KUNIT_ASSERT_NOT_NULL(test, tb[IPOIB_NG_A_PATH_SGID]);
	KT_EXPECT_MEMEQ(test, nla_data(tb[IPOIB_NG_A_PATH_SGID]),
			priv->ifid.gid, 16);
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
	/* The retries are the timer's: counted too (bd3627a did not). */
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, path_queries),
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
 * The last UD send priv posted with the handle ah, on whichever transmit
 * queue it went (a frame that waited for its path is sent again through
 * dev_queue_xmit, and the stack picks the queue); NULL if none.
 */
static const struct ib_ud_wr *kt_sent_wr(struct ipn_priv *priv,
					 const struct ib_ah *ah)
{
	unsigned int q;

	for (q = 0; q < priv->txq_count; q++)
		if (priv->txq[q].wrs[0].ah == ah)
			return &priv->txq[q].wrs[0];
	return NULL;
}

/*
 * RFC 4391 s9.4: the peer's QPN changed (its interface was restarted)
 * while its GID did not. The path is the GID's: no new query, the same
 * handle, and the new QPN in the work request.
 */
static void sa_path_qpn_change(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	const struct ib_ud_wr *wr;
	u8 hw[20], hw2[20];
	struct ib_ah *ah;
	u64 sent;

	kt_join_bcast(test, priv);
	kt_peer_addr(hw, 0x22);
	kt_peer_addr(hw2, 0x23);
	sent = ipn_stat(priv, tx_packets);
	ipn_kunit_xmit(priv, hw, htonl(0x0a000002));
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_queries() == 1));
	KUNIT_ASSERT_EQ(test, kt_answer_path(kt_peer_gid, 0), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, ipn_stat(priv, tx_packets) >
					sent));
	ah = ipn_kunit_path(priv, kt_peer_gid).ah;
	KUNIT_ASSERT_NOT_NULL(test, ah);
	wr = kt_sent_wr(priv, ah);
	KUNIT_ASSERT_NOT_NULL(test, wr);
	KUNIT_EXPECT_EQ(test, wr->remote_qpn, 0x22u);
	KUNIT_EXPECT_EQ(test, wr->remote_qkey, KT_QKEY);

	ipn_kunit_xmit(priv, hw2, htonl(0x0a000002));
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, ipn_stat(priv, tx_packets) >
					sent + 1));
	KUNIT_EXPECT_EQ(test, priv->txq[0].wrs[0].remote_qpn, 0x23u);
	KUNIT_EXPECT_EQ(test, kt_sa.path_calls, 1);
	KUNIT_EXPECT_PTR_EQ(test, priv->txq[0].wrs[0].ah, ah);
	KUNIT_EXPECT_PTR_EQ(test, ipn_kunit_path(priv, kt_peer_gid).ah, ah);
}

/* The path to the peer (hw) resolved, freed after 300 ms unused. */
static void kt_peer_path_idling(struct kunit *test, struct ipn_priv *priv,
				u8 *hw)
{
	priv->path_cfg.idle_ms = 300;
	kt_join_bcast(test, priv);
	kt_peer_addr(hw, 0x22);
	ipn_kunit_xmit(priv, hw, htonl(0x0a000002));
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_queries() == 1));
	KUNIT_ASSERT_EQ(test, kt_answer_path(kt_peer_gid, 0), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000,
					kt_path_state(priv, kt_peer_gid) ==
					IPC_PATH_VALID));
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

	kt_peer_path_idling(test, priv, hw);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 3000,
					kt_path_state(priv, kt_peer_gid) < 0));
	KUNIT_EXPECT_EQ(test, kt_sa.path_calls, 1);
	ipn_kunit_xmit(priv, hw, htonl(0x0a000002));
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, kt_count_queries() == 1));
	KUNIT_EXPECT_EQ(test, kt_sa.path_calls, 2);
	KUNIT_EXPECT_EQ(test, kt_answer_path(kt_peer_gid, 0), 0);
}

/*
 * Issue 23: transmit sends through a usable path without priv->lock and
 * without the core (ipn_path_tx_ah); the core hears of those sends before
 * it judges the path idle (ipc_path_used). A path in use for three times
 * its idle time is kept and asked for once; unused, it goes.
 */
static void sa_path_used_unlocked_stays(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	u64 sent;
	u8 hw[20];
	int i;

	kt_peer_path_idling(test, priv, hw);
	sent = ipn_stat(priv, tx_packets);
	for (i = 0; i < 9; i++) {
		ipn_kunit_xmit(priv, hw, htonl(0x0a000002));
		ipn_kunit_settle(priv, 100);
		KUNIT_EXPECT_EQ(test, kt_path_state(priv, kt_peer_gid),
				IPC_PATH_VALID);
	}
	KUNIT_EXPECT_EQ(test, kt_sa.path_calls, 1);
	KUNIT_EXPECT_GE(test, ipn_stat(priv, tx_packets) - sent, 9u);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 3000,
					kt_path_state(priv, kt_peer_gid) < 0));
	KUNIT_EXPECT_EQ(test, kt_sa.path_calls, 1);
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
#define KT_EVICT_TRIES (ipn_path_buckets(priv) / IPN_PATH_EVICT_BUCKETS + 1)

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
 * The path's first query is answered with status, and a light flush
 * comes before the control work runs: the core, which has not seen the
 * answer, cancels and starts again. Then that new query is answered with
 * success. The old answer must not be taken for the new query's: the path
 * stays RESOLVING with one query out, and only the new answer makes it
 * VALID.
 */
static void kt_answer_overtaken_by_flush(struct kunit *test,
					 struct ipn_priv *priv, int status)
{
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
	KUNIT_EXPECT_EQ(test, kt_answer_path(kt_peer_gid, status), 0);
	rtnl_unlock();
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 5000, kt_count_queries() == 1));
	kt_settle(priv);
	KUNIT_EXPECT_EQ(test, kt_count_queries(), 1);
	KUNIT_EXPECT_EQ(test, kt_sa.path_calls, 2);
	/* The stale answer was not fed to the core. */
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, path_failures), 0u);
	KUNIT_EXPECT_EQ(test, kt_path_state(priv, kt_peer_gid),
			IPC_PATH_RESOLVING);
	KUNIT_ASSERT_EQ(test, kt_answer_path(kt_peer_gid, 0), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
					kt_path_state(priv, kt_peer_gid) ==
					IPC_PATH_VALID));
}

/* A failure overtaken by a flush. */
static void sa_path_stale_completion_ignored(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;

	kt_answer_overtaken_by_flush(test, priv, -EHOSTUNREACH);
}

/*
 * Review 2026-12 M3: a successful answer with a GRH (a routed peer: its
 * attributes hold a reference to the source GID's entry) overtaken by a
 * flush. The first answer's reference must be dropped before the second
 * answer's attributes overwrite it. Before the fix it was lost
 * (kt_path_ah_attr counts it; on hardware the GID entry leaks).
 */
static void sa_path_superseded_answer_drops_gid_ref(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;

	kt_sa.answer_hop_limit = 2;
	kt_answer_overtaken_by_flush(test, priv, 0);
	kt_settle(priv);
	KUNIT_EXPECT_EQ(test, kt_sa.sgid_refs_given, 2);
	KUNIT_EXPECT_EQ(test, kt_sa.sgid_refs_lost, 0);
	KUNIT_EXPECT_FALSE(test, kt_path_holds_sgid(priv, kt_peer_gid));
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
