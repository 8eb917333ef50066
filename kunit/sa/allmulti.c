// SPDX-License-Identifier: GPL-2.0
/*
 * sa/allmulti.c - suite ipoib_ng_sa, included by kunit/sa_test.c (one
 * translation unit): the SA's group notices, which with sa_notices every
 * sender subscribes to and follows (RFC 4391 s10), and the all-multicast
 * mode (s11): the SA's directory, its Reports, their bounds and rate, the
 * MAD agents.
 */

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

/* The mode's machine, as debugfs shows it (out of line: stack frames). */
static noinline struct ipc_view kt_am_view(struct ipn_priv *priv)
{
	struct ipc_view v;

	spin_lock_bh(&priv->lock);
	ipc_am_view(&priv->am.st, &v);
	spin_unlock_bh(&priv->lock);
	return v;
}

static noinline const char *kt_am_state(struct ipn_priv *priv)
{
	return kt_am_view(priv).state;
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
 * sa_notices on (RFC 4391 s10 for every sender), taken at the next sync:
 * the interface brought down and up subscribes; both InformInfo answered
 * good. Returns the index of the first of them in kt_sa.mads.
 */
static int kt_notices_on(struct kunit *test, struct ipn_priv *priv)
{
	int n;

	ipn_sa_notices = true;
	rtnl_lock();
	dev_close(priv->dev);
	n = kt_sa.n_mads;
	KUNIT_EXPECT_EQ(test, dev_open(priv->dev, NULL), 0);
	rtnl_unlock();
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, kt_sa.n_mads == n + 2));
	kt_am_answer(priv, n, NULL, 0, 0);
	kt_am_answer(priv, n + 1, NULL, 0, 0);
	KUNIT_EXPECT_STREQ(test, kt_am_state(priv), "on");
	return n;
}

/*
 * RFC 4391 s10: "Senders MUST subscribe to the multicast group create and
 * delete traps". Off by default (sa_notices=0): an interface out of the
 * mode starts no agent and sends nothing. With sa_notices: the two
 * InformInfo (Subscribe 1, traps 66 and 67, the agent's TIDs), no
 * directory; a flush (client reregister: the SA forgets subscriptions)
 * subscribes again after the rejoin spread; down, both cancelled and the
 * agent stopped; a flush just before going down cancels nothing (the SA
 * may not have them: OpenSM logs such a cancellation as an error).
 */
static void sa_sender_subscribes(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	int i, n;

	kt_settle(priv);
	KUNIT_EXPECT_EQ(test, kt_sa.n_mads, 0);
	KUNIT_EXPECT_EQ(test, kt_sa.am_starts, 0);
	KUNIT_EXPECT_STREQ(test, kt_am_state(priv), "off");

	n = kt_notices_on(test, priv);
	KUNIT_EXPECT_EQ(test, kt_sa.am_starts, 1);
	for (i = n; i < n + 2; i++) {
		KUNIT_EXPECT_EQ(test, kt_sa.mads[i][3], 0x02);	/* Set */
		KUNIT_EXPECT_EQ(test, get_unaligned_be16(&kt_sa.mads[i][16]),
				IB_SA_ATTR_INFORM_INFO);
		KUNIT_EXPECT_EQ(test, kt_sa.mads[i][IPC_SA_HDR_LEN + 23], 1);
		KUNIT_EXPECT_EQ(test, get_unaligned_be16(&kt_sa.mads[i][IPC_SA_HDR_LEN + 26]),
				66 + i - n);
		KUNIT_EXPECT_EQ(test, get_unaligned_be32(&kt_sa.mads[i][8]),
				0x4b540000u);
	}
	kt_join_bcast(test, priv);
	kt_settle(priv);
	KUNIT_EXPECT_EQ(test, kt_sa.n_mads, n + 2);
	KUNIT_EXPECT_EQ(test, kt_am_view(priv).want, 0);

	/* A client reregister: again, spread (here over 300 ms). */
	ipn_rejoin_spread_ms = 300;
	kt_light_flush(priv);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, kt_sa.n_mads == n + 4));
	kt_am_answer(priv, n + 2, NULL, 0, 0);
	kt_am_answer(priv, n + 3, NULL, 0, 0);
	KUNIT_EXPECT_STREQ(test, kt_am_state(priv), "on");
	KUNIT_EXPECT_EQ(test, kt_sa.am_starts, 1);

	/* Down: cancelled (Subscribe 0), the agent stopped. */
	rtnl_lock();
	dev_close(priv->dev);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, kt_sa.n_mads, n + 6);
	for (i = n + 4; i < n + 6; i++)
		KUNIT_EXPECT_EQ(test, kt_sa.mads[i][IPC_SA_HDR_LEN + 23], 0);
	KUNIT_EXPECT_EQ(test, kt_sa.am_stops, 1);
	KUNIT_EXPECT_STREQ(test, kt_am_state(priv), "off");

	/* Up, subscribed; flushed and down before the new subscription. */
	n = kt_sa.n_mads;
	rtnl_lock();
	KUNIT_EXPECT_EQ(test, dev_open(priv->dev, NULL), 0);
	rtnl_unlock();
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, kt_sa.n_mads == n + 2));
	kt_am_answer(priv, n, NULL, 0, 0);
	kt_am_answer(priv, n + 1, NULL, 0, 0);
	KUNIT_EXPECT_EQ(test, kt_sa.am_starts, 2);
	ipn_rejoin_spread_ms = 60000;
	kt_light_flush(priv);
	/* The event's flush runs in a work: done once the machine waits. */
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
					!strcmp(kt_am_state(priv), "backoff")));
	rtnl_lock();
	dev_close(priv->dev);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, kt_sa.n_mads, n + 2);
	KUNIT_EXPECT_EQ(test, kt_sa.am_stops, 2);
}

/* The MLID the group mgid's entry learned from its join, 0: no entry. */
static u16 kt_mc_mlid(struct ipn_priv *priv, const u8 *mgid)
{
	struct ipn_mcast *mc;
	u16 mlid;

	spin_lock_bh(&priv->lock);
	mc = ipn_mcast_find(priv, mgid);
	mlid = mc ? be16_to_cpu(mc->rec.mlid) : 0;
	spin_unlock_bh(&priv->lock);
	return mlid;
}

/*
 * RFC 4391 s10 with the SA's notices. ib_ipoib creates groups as
 * SendOnlyFullMember and deletes them when it leaves; a sender's
 * SendOnlyNonMember membership goes with the group, unannounced unless
 * the sender follows the notices. Here: a send-only group deleted is
 * given up (its handle left) and its absence cached, so that a frame to
 * it makes no query for it; created again, the absence is forgotten and
 * the next frame joins it under the new MLID. A FullMember group of the
 * stack stays whatever the notices say. A creation's notice for a group
 * held send-only (its deletion's lost) leaves it and joins it again once
 * the leave has gone.
 */
static void sa_sender_follows_notices(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	__be32 group = htonl(0xefc00007);	/* 239.192.0.7, scope 8 */
	__be32 stack = htonl(0xef010108);	/* 239.1.1.8 */
	u8 hw[20], mgid[16], hw_s[20], smgid[16], routers[16];
	int calls, frees;
	u64 sent;

	kt_notices_on(test, priv);
	kt_join_bcast(test, priv);
	kt_mgid_v4((const u8 *)&group, priv->ifid.bcast_gid, mgid);
	ipc_mgid_all_routers(mgid, routers);
	ipn_kunit_mc_addr(hw, mgid);
	ipn_kunit_xmit(priv, hw, group);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_joins(mgid) == 1));
	KUNIT_ASSERT_EQ(test, kt_count_joins_state(mgid, IPC_JOIN_SENDONLY), 1);
	KUNIT_ASSERT_EQ(test, kt_answer_join(mgid, 0, KT_QKEY, IB_MTU_2048), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_mc_state(priv, mgid) ==
					IPC_MC_JOINED));
	/* The stack's own group, FullMember. */
	kt_mgid_v4((const u8 *)&stack, priv->ifid.bcast_gid, smgid);
	ipn_kunit_mc_addr(hw_s, smgid);
	KUNIT_ASSERT_EQ(test, dev_mc_add(priv->dev, hw_s), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_joins(smgid) == 1));
	KUNIT_ASSERT_EQ(test, kt_answer_join(smgid, 0, KT_QKEY, IB_MTU_2048), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_mc_state(priv, smgid) ==
					IPC_MC_JOINED));

	/* Deleted: the membership given up, the absence cached. */
	kt_am_notice(test, priv, IPC_TRAP_MCG_DELETED, mgid);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, kt_count_joins(mgid) == 0));
	KUNIT_EXPECT_EQ(test, kt_mc_state(priv, mgid), IPC_MC_MISSING);
	kt_am_notice(test, priv, IPC_TRAP_MCG_DELETED, smgid);
	kt_settle(priv);
	KUNIT_EXPECT_EQ(test, kt_count_joins_state(smgid, IPC_JOIN_FULL), 1);
	KUNIT_EXPECT_EQ(test, kt_mc_state(priv, smgid), IPC_MC_JOINED);
	/*
	 * A frame to it now: no query for it; scoped beyond the link, it
	 * goes to the all-routers group (whose send-only join starts).
	 */
	calls = kt_sa.join_calls;
	ipn_kunit_xmit(priv, hw, group);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
					kt_count_joins(routers) == 1));
	KUNIT_EXPECT_EQ(test, kt_count_joins(mgid), 0);
	KUNIT_EXPECT_EQ(test, kt_sa.join_calls, calls + 1);

	/* Created again, under another MLID: the next frame joins it. */
	kt_am_notice(test, priv, IPC_TRAP_MCG_CREATED, mgid);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
					kt_mc_state(priv, mgid) == -1));
	kt_sa.answer_mlid = 0xc00e;
	sent = ipn_stat(priv, tx_packets);
	ipn_kunit_xmit(priv, hw, group);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_joins(mgid) == 1));
	KUNIT_ASSERT_EQ(test, kt_answer_join(mgid, 0, KT_QKEY, IB_MTU_2048), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, ipn_stat(priv, tx_packets) >
					sent));
	KUNIT_EXPECT_EQ(test, kt_mc_mlid(priv, mgid), 0xc00e);

	/*
	 * Created while the send-only membership stands (its deletion's
	 * notice lost): the membership left at once, joined again only
	 * after the machine's backoff base (1 s), once the leave has gone.
	 */
	calls = kt_sa.join_calls;
	frees = kt_sa.frees;
	kt_am_notice(test, priv, IPC_TRAP_MCG_CREATED, mgid);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 500, kt_sa.frees == frees + 1));
	KUNIT_EXPECT_EQ(test, kt_sa.join_calls, calls);
	KUNIT_EXPECT_EQ(test, kt_mc_state(priv, mgid), IPC_MC_BACKOFF);
	kt_sa.answer_mlid = 0xc00f;
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 3000,
					kt_sa.join_calls == calls + 1));
	KUNIT_EXPECT_EQ(test, kt_count_joins_state(mgid, IPC_JOIN_SENDONLY), 1);
	KUNIT_ASSERT_EQ(test, kt_answer_join(mgid, 0, KT_QKEY, IB_MTU_2048), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, kt_mc_state(priv, mgid) ==
					IPC_MC_JOINED));
	KUNIT_EXPECT_EQ(test, kt_mc_mlid(priv, mgid), 0xc00f);
	KUNIT_EXPECT_EQ(test, dev_mc_del(priv->dev, hw_s), 0);
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
	kt_mgid_v4(ip_a, priv->ifid.bcast_gid, g[0]);
	kt_mgid_v6(ip6_b, priv->ifid.bcast_gid, g[1]);
	memcpy(g[2], g[0], 16);
	g[2][5] ^= 0x01;		/* P_Key 0xfffe */
	memcpy(g[3], priv->ifid.bcast_gid, 16);
	kt_mgid_v4(ip_d, priv->ifid.bcast_gid, g[4]);
	kt_mgid_v4(ip_e, priv->ifid.bcast_gid, g[5]);

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
	KUNIT_EXPECT_STREQ(test, kt_am_state(priv), "on");
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
	KUNIT_EXPECT_STREQ(test, kt_am_state(priv), "backoff");
	/*
	 * Tried again after the machine's backoff (IPC_AM_RETRY_BASE_MS
	 * at most, the first time), from the start: both subscriptions
	 * and the table, nothing before half of it.
	 */
	kt_sa.n_mads = 0;
	msleep(IPC_AM_RETRY_BASE_MS / 2 - 500);
	KUNIT_EXPECT_EQ(test, kt_sa.n_mads, 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, IPC_AM_RETRY_BASE_MS / 2 + 1500,
					kt_sa.n_mads == 3));
	KUNIT_EXPECT_GE(test, kt_find_mad(0x02, IB_SA_ATTR_INFORM_INFO, 1), 0);
	KUNIT_EXPECT_GE(test, kt_find_mad(0x12, IB_SA_ATTR_MC_MEMBER_REC, 0), 0);
	KUNIT_EXPECT_STREQ(test, kt_am_state(priv), "querying");
	KUNIT_EXPECT_EQ(test, kt_sa.am_starts, 2);
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
		kt_mgid_v4(ip, priv->ifid.bcast_gid, g[i]);
		kt_am_notice(test, priv, IPC_TRAP_MCG_CREATED, g[i]);
	}
	kt_settle(priv);
	am_groups = kt_am_view(priv).members;
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
	kt_mgid_v4(ip, priv->ifid.bcast_gid, g[0]);
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
	KUNIT_EXPECT_STREQ(test, kt_am_state(priv), "on");
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
		kt_mgid_v4(ip, priv->ifid.bcast_gid, g[i]);
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
	kt_mgid_v4(ip, priv->ifid.bcast_gid, g[1]);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
					kt_count_joins_state(g[3], IPC_JOIN_NON) == 1 &&
					kt_count_joins(g[1]) == 0));
	KUNIT_EXPECT_EQ(test, kt_count_joins_state(g[0], IPC_JOIN_NON), 1);
	KUNIT_EXPECT_EQ(test, kt_count_joins_state(g[2], IPC_JOIN_NON), 1);
	KUNIT_EXPECT_EQ(test, kt_count_joins_state(g[4], IPC_JOIN_NON), 1);
	KUNIT_EXPECT_EQ(test, kt_mc_state(priv, g[0]), IPC_MC_JOINED);
	KUNIT_EXPECT_EQ(test, kt_mc_state(priv, g[4]), IPC_MC_JOINED);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, sa_reports_limited), 2u);
	KUNIT_EXPECT_EQ(test, kt_am_view(priv).members, 4u);
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
	kt_mgid_v4(ip_g, priv->ifid.bcast_gid, g);

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
