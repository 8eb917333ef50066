// SPDX-License-Identifier: GPL-2.0
/*
 * sa/mcast.c - suite ipoib_ng_sa, included by kunit/sa_test.c (one
 * translation unit): multicast groups (RFC 4391 s10): the table's bound,
 * the stack's groups diffed from rx_mode, umcast, transmit decisions,
 * send-only joins to missing groups.
 */

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
	kt_mgid_v4((const u8 *)&ip, priv->ifid.bcast_gid, mgid);
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
	kt_mgid_v4(ip_group, priv->ifid.bcast_gid, mgid);
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
 * A frame to a group the stack has joined, sent before rx_mode_work has
 * handed the device's list to the core (the DAD probe to an address's own
 * solicited-node group, at interface up): the member joins FullMember and
 * the frame waits for that join. A SendOnlyNonMember join there would ask
 * the SA for a group nobody has created yet (OpenSM: ERR 1B10, the probe
 * lost). RTNL held keeps the work from running in between.
 */
static void sa_member_tx_before_sync(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	struct net_device *dev = priv->dev;
	static const u8 ip_group[4] = { 224, 1, 2, 4 };
	u8 mgid[16], hw[20];
	struct kt_join *j;
	u64 sent;

	kt_join_bcast(test, priv);
	kt_mgid_v4(ip_group, priv->ifid.bcast_gid, mgid);
	ipn_kunit_mc_addr(hw, mgid);
	sent = ipn_stat(priv, tx_packets);
	rtnl_lock();
	KUNIT_EXPECT_EQ(test, dev_mc_add(dev, hw), 0);
	ipn_kunit_xmit(priv, hw, htonl(0xe0010204));
	rtnl_unlock();
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000, kt_count_joins(mgid) > 0));
	kt_settle(priv);
	KUNIT_EXPECT_EQ(test, kt_count_joins(mgid), 1);
	spin_lock_bh(&kt_sa.lock);
	j = kt_find_join(mgid);
	KUNIT_EXPECT_EQ(test, j->req.join_state, IPC_JOIN_FULL);
	spin_unlock_bh(&kt_sa.lock);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, tx_packets), sent);
	KUNIT_ASSERT_EQ(test, kt_answer_join(mgid, 0, KT_QKEY, IB_MTU_2048), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, ipn_stat(priv, tx_packets) >
					sent));
	KUNIT_EXPECT_EQ(test, kt_mc_state(priv, mgid), IPC_MC_JOINED);
	KUNIT_EXPECT_EQ(test, ipn_stat_drop(priv, IPC_R_NOT_JOINED), 0u);

	/* The work's diff agrees: left when the stack lets go. */
	KUNIT_ASSERT_EQ(test, dev_mc_del(dev, hw), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, kt_count_joins(mgid) == 0));
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
	kt_mgid_v4(ip_user, priv->ifid.bcast_gid, user);
	kt_mgid_v4(ip_free, priv->ifid.bcast_gid, free);
	kt_mgid_v4(ip_more, priv->ifid.bcast_gid, more);
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
	KUNIT_EXPECT_EQ(test, priv->txq[0].wrs[0].remote_qpn, (u32)IPC_QPN_MCAST);
	KUNIT_EXPECT_EQ(test, priv->txq[0].wrs[0].remote_qkey, KT_QKEY);
	KUNIT_EXPECT_PTR_EQ(test, priv->txq[0].wrs[0].ah, priv->bcast->ah->ah);

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
	kt_mgid_v4(ip_group, priv->ifid.bcast_gid, mgid);
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
	KUNIT_EXPECT_EQ(test, priv->txq[0].wrs[0].remote_qpn, (u32)IPC_QPN_MCAST);
	KUNIT_EXPECT_EQ(test, kt_mc_state(priv, mgid), IPC_MC_JOINED);
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
	kt_mgid_v4((const u8 *)&group, priv->ifid.bcast_gid, mgid);
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
	KUNIT_EXPECT_PTR_EQ(test, priv->txq[0].wrs[0].ah,
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
	kt_mgid_v4((const u8 *)&local, priv->ifid.bcast_gid, lmgid);
	ipn_kunit_mc_addr(hw, lmgid);
	ipn_kunit_xmit(priv, hw, local);
	KUNIT_ASSERT_TRUE(test, kt_wait(priv, 2000,
					kt_count_joins(lmgid) == 1));
	KUNIT_ASSERT_EQ(test, kt_answer_join(lmgid, -EINVAL, 0, 0), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000, kt_mc_state(priv, lmgid) ==
					IPC_MC_MISSING));
	KUNIT_EXPECT_EQ(test, ipn_stat_drop(priv, IPC_R_NOT_JOINED), 1u);
}
