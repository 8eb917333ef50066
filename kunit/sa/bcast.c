// SPDX-License-Identifier: GPL-2.0
/*
 * sa/bcast.c - suite ipoib_ng_sa, included by kunit/sa_test.c (one
 * translation unit): the broadcast group (RFC 4391 s5, s4.1: joined,
 * retried, rejoined, searched scope by scope, created) and the port's
 * events (P_Key, SM, LID, client reregister).
 */

/*
 * RFC 4391 s5, s9.1.2: a FullMember join of the broadcast group; its Q_Key
 * and MTU become the interface's; carrier only once joined.
 */
static void sa_bcast_join(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	const u8 *bgid = priv->ifid.bcast_gid;
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;
	struct kt_join *j;
	unsigned int q;

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
	/*
	 * And every transmit queue's QP (issue 23): with a controlled Q_Key
	 * (high bit set) a send goes with its QP's own, not the WR's.
	 */
	KUNIT_EXPECT_GE(test, priv->txq_count, 2u);
	for (q = 0; q < priv->txq_count; q++) {
		KUNIT_ASSERT_EQ(test, ib_query_qp(priv->txq[q].qp, &attr,
						  IB_QP_QKEY, &init), 0);
		KUNIT_EXPECT_EQ_MSG(test, attr.qkey, KT_QKEY, "queue %u", q);
	}
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

	/* About what the event does, not when: the rejoin at once. */
	ipn_rejoin_spread_ms = 0;
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

	/* About each event's flush level, not its timing: rejoins at once. */
	ipn_rejoin_spread_ms = 0;
	kt_join_bcast(test, priv);
	memcpy(addr, dev->dev_addr, IPC_ADDR_LEN);
	kt_mgid_v4(ip_group, bgid, group);
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
	kt_mgid_v4(ip_group, link, group2);
	kt_mgid_v4(ip_group, site, group5);

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

/*
 * No broadcast group in any scope, and create_broadcast off: the group
 * backs off, and its retry looks for the link-local group again, where
 * the search starts (a group the SM creates later is found), with
 * dev->broadcast back at link-local scope. Before, the retry joined the
 * widest scope again, and the search went on from there: link-local was
 * never looked at again until a down/up.
 */
static void sa_bcast_search_starts_over(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_ctx *)test->priv)->priv;
	static const u8 scopes[] = { 0x2, 0x5, 0x8, 0xe };
	u8 link[16], mgid[16];
	int i;

	memcpy(link, priv->ifid.bcast_gid, 16);
	for (i = 0; i < ARRAY_SIZE(scopes); i++) {
		kt_scoped(mgid, link, scopes[i]);
		KUNIT_ASSERT_TRUE_MSG(test, kt_wait(priv, 2000,
						    kt_count_joins(mgid) > 0),
				      "no join of scope %x", scopes[i]);
		KUNIT_ASSERT_EQ(test, kt_answer_join(mgid, -EINVAL, 0, 0), 0);
	}
	/* The backoff's first delay is at most a second. */
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 3000, kt_count_joins(link) > 0));
	kt_scoped(mgid, link, 0xe);
	KUNIT_EXPECT_EQ(test, kt_count_joins(mgid), 0);
	KUNIT_EXPECT_EQ(test, priv->dev->broadcast[5], 0x12);
	KT_EXPECT_MEMEQ(test, priv->ifid.bcast_gid, link, 16);
	/* Found this time: the link comes up on it. */
	KUNIT_ASSERT_EQ(test, kt_answer_join(link, 0, KT_QKEY, IB_MTU_2048), 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(priv, 2000,
					netif_carrier_ok(priv->dev)));
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
	kt_mgid_v4(ip_group, bgid, mgid);
	kt_mgid_v4(ip_send, bgid, sgid);
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
