// SPDX-License-Identifier: GPL-2.0
/*
 * fault_test.c - suite ipoib_ng_fault: every allocation of interface
 * creation and of ndo_open fails once, in turn.
 *
 * The task's fail-nth counter (Documentation/fault-injection) makes the
 * n-th fault-injection site this task reaches fail: n = 1, 2, ... until
 * the operation completes without reaching the n-th site. Each failure
 * must surface as an error (never a crash, a warning or a half-made
 * interface), and the operation must succeed once nothing fails. Leaks
 * are found by the kmemleak scan at the end of the VM run. Needs failslab
 * with ignore-gfp-wait=N, which the kunit scenario sets.
 *
 * The control path runs in works and callbacks, out of the task's reach:
 * there the shim's own fault sites (ipn_fault()) fail in turn instead.
 */
#define IPN_KUNIT 1
#include <linux/sched.h>
#include <linux/rtnetlink.h>
#include "ipoib_ng.h"
#include "ipn_kunit.h"

#define KT_FAULT_MAX 2000	/* far more sites than either operation has */

/* > 0: the n-th ipn_fault() site reached from now on fails. */
static atomic_t kt_ctl_nth = ATOMIC_INIT(0);

void ipn_kunit_fault_arm(int n)
{
	atomic_set(&kt_ctl_nth, n);
}

int ipn_kunit_fault_disarm(void)
{
	return atomic_xchg(&kt_ctl_nth, 0);
}

bool ipn_kunit_fault(void)
{
	int n = atomic_read(&kt_ctl_nth);

	while (n > 0)
		if (atomic_try_cmpxchg(&kt_ctl_nth, &n, n - 1))
			return n == 1;
	return false;
}

#ifdef CONFIG_FAULT_INJECTION

/*
 * The markers tell the VM harness that the dump_stack() lines of injected
 * allocation failures in between are expected (tests/vm/fault-regions.awk).
 */
static void kt_region(bool begin)
{
	pr_info(IPN_DRV_NAME ": fault injection %s\n", begin ? "begins" : "ends");
}

/* Arm fail-nth for this task; returns what was left of it afterwards. */
static void kt_arm(unsigned int n)
{
	WRITE_ONCE(current->fail_nth, n);
}

static unsigned int kt_disarm(void)
{
	unsigned int left = READ_ONCE(current->fail_nth);

	WRITE_ONCE(current->fail_nth, 0);
	return left;
}

/* ipn_dev_create(): verbs, netdev, workqueue, stats, registration. */
static void fault_dev_create(struct kunit *test)
{
	struct ib_device *ca = ipn_kunit_get_ibdev(test);
	unsigned int n, failed = 0;
	struct ipn_priv *priv;

	kt_region(true);
	for (n = 1; n < KT_FAULT_MAX; n++) {
		kt_arm(n);
		priv = ipn_dev_create(ca, 1, IPC_PKEY_DEFAULT);
		if (kt_disarm()) {
			/* Fewer than n sites: nothing failed, all done. */
			KUNIT_EXPECT_FALSE(test, IS_ERR(priv));
			if (!IS_ERR(priv))
				ipn_dev_destroy(priv);
			break;
		}
		if (IS_ERR(priv)) {
			failed++;
			KUNIT_EXPECT_LT(test, PTR_ERR(priv), 0L);
		} else {
			/* A failure it could absorb: the interface works. */
			KUNIT_EXPECT_NOT_NULL(test, priv->qp);
			ipn_dev_destroy(priv);
		}
	}
	kt_region(false);
	KUNIT_EXPECT_LT(test, n, (unsigned int)KT_FAULT_MAX);
	KUNIT_EXPECT_GT(test, failed, 0u);
	kunit_info(test, "%u fault sites, %u made creation fail\n", n - 1,
		   failed);
	ib_device_put(ca);
}

/* A P_Key child: the same resources, made under rtnl on a parent. */
static void fault_child_create(struct kunit *test)
{
	struct ib_device *ca = ipn_kunit_get_ibdev(test);
	struct ipn_priv *parent, *priv;
	unsigned int n, failed = 0;

	parent = ipn_dev_create(ca, 1, IPC_PKEY_DEFAULT);
	if (IS_ERR(parent)) {
		ib_device_put(ca);
		KUNIT_ASSERT_FAILURE(test, "ipn_dev_create: %pe", parent);
	}
	kt_region(true);
	for (n = 1; n < KT_FAULT_MAX; n++) {
		kt_arm(n);
		priv = ipn_kunit_child(parent, 0x8001);
		if (kt_disarm()) {
			KUNIT_EXPECT_FALSE(test, IS_ERR(priv));
			break;
		}
		if (IS_ERR(priv)) {
			failed++;
			KUNIT_EXPECT_LT(test, PTR_ERR(priv), 0L);
			/* Nothing half-made stays on the parent. */
			KUNIT_EXPECT_TRUE(test, list_empty(&parent->children));
		} else {
			rtnl_lock();
			unregister_netdevice(priv->dev);
			rtnl_unlock();
		}
	}
	kt_region(false);
	KUNIT_EXPECT_LT(test, n, (unsigned int)KT_FAULT_MAX);
	KUNIT_EXPECT_GT(test, failed, 0u);
	kunit_info(test, "%u fault sites, %u made creation fail\n", n - 1,
		   failed);
	/* The last child, made without a failure, goes with its parent. */
	KUNIT_EXPECT_FALSE(test, list_empty(&parent->children));
	ipn_dev_destroy(parent);
	ib_device_put(ca);
}

/* ndo_open: QP to RTS, rings, NAPI, the broadcast group (RoCE backend). */
static void fault_dev_open(struct kunit *test)
{
	struct ib_device *ca = ipn_kunit_get_ibdev(test);
	unsigned int n, failed = 0;
	struct ipn_priv *priv;
	int ret;

	priv = ipn_dev_create(ca, 1, IPC_PKEY_DEFAULT);
	if (IS_ERR(priv)) {
		ib_device_put(ca);
		KUNIT_ASSERT_FAILURE(test, "ipn_dev_create: %pe", priv);
	}
	kt_region(true);
	for (n = 1; n < KT_FAULT_MAX; n++) {
		rtnl_lock();
		kt_arm(n);
		ret = dev_open(priv->dev, NULL);
		if (kt_disarm()) {
			KUNIT_EXPECT_EQ(test, ret, 0);
			dev_close(priv->dev);
			rtnl_unlock();
			break;
		}
		if (ret) {
			failed++;
			KUNIT_EXPECT_FALSE(test, netif_running(priv->dev));
		} else {
			dev_close(priv->dev);
		}
		rtnl_unlock();
		flush_workqueue(priv->wq);
	}
	kt_region(false);
	KUNIT_EXPECT_LT(test, n, (unsigned int)KT_FAULT_MAX);
	KUNIT_EXPECT_GT(test, failed, 0u);
	kunit_info(test, "%u fault sites, %u made open fail\n", n - 1, failed);

	/* And after all that, it opens. */
	rtnl_lock();
	KUNIT_EXPECT_EQ(test, dev_open(priv->dev, NULL), 0);
	rtnl_unlock();
	ipn_dev_destroy(priv);
	ib_device_put(ca);
}

/*
 * The control path of a running interface (RoCE backend): a unicast path
 * (its entry, resolution, address handle), a stack multicast group (the
 * rx_mode diff, the group entry, the attach at QP and IPv6 level) and a
 * send to it. Each ipn_fault() site fails once, in turn; afterwards the
 * interface still reaches the peer (the core retries what failed), and
 * teardown leaves nothing attached or allocated.
 */
static void fault_control_path(struct kunit *test)
{
	static const u8 peer[20] = { 0, 0, 0, 0x22, 0xfe, 0x80, [12] = 0x02,
				     [19] = 0x42 };
	struct ib_device *ca = ipn_kunit_get_ibdev(test);
	static const u8 ip_group[4] = { 224, 1, 2, 3 };
	unsigned int n, failed = 0;
	u8 mgid[16], group[20];
	struct ipn_priv *priv;
	bool done = false;
	u64 sent;
	int i;

	kt_region(true);
	for (n = 1; n < 200 && !done; n++) {
		priv = ipn_dev_create(ca, 1, IPC_PKEY_DEFAULT);
		KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(priv), "create: %pe", priv);
		KUNIT_EXPECT_EQ(test, ipn_kunit_open(priv), 0);
		KUNIT_EXPECT_TRUE(test, netif_carrier_ok(priv->dev));
		/* 224.1.2.3 on this link (RFC 4391 s4). */
		kt_mgid_v4(ip_group, priv->ifid.bcast_gid, mgid);
		ipn_kunit_mc_addr(group, mgid);

		ipn_kunit_fault_arm(n);
		ipn_kunit_xmit(priv, peer, htonl(0x0a000002));
		KUNIT_EXPECT_EQ(test, dev_mc_add(priv->dev, group), 0);
		ipn_kunit_settle(priv, 100);
		ipn_kunit_xmit(priv, group, htonl(0xe0010203));
		ipn_kunit_settle(priv, 100);
		if (ipn_kunit_fault_disarm())
			done = true;	/* fewer than n sites */
		else
			failed++;

		/* Whatever failed, the peer is reached again within seconds. */
		sent = ipn_stat(priv, tx_packets);
		for (i = 0; i < 40 && ipn_stat(priv, tx_packets) <= sent; i++) {
			ipn_kunit_xmit(priv, peer, htonl(0x0a000002));
			ipn_kunit_settle(priv, 200);
		}
		KUNIT_EXPECT_GT_MSG(test, ipn_stat(priv, tx_packets), sent,
				    "site %u: the peer is not reached again", n);
		KUNIT_EXPECT_EQ(test, dev_mc_del(priv->dev, group), 0);
		ipn_dev_destroy(priv);
	}
	kt_region(false);
	KUNIT_EXPECT_TRUE(test, done);
	KUNIT_EXPECT_GT(test, failed, 0u);
	kunit_info(test, "%u control-path fault sites failed in turn\n", failed);
	ib_device_put(ca);
}

static unsigned int kt_moderated;

static int kt_modify_cq(struct ib_cq *cq, u16 count, u16 period)
{
	kt_moderated++;
	return 0;
}

/*
 * Review M6: a ring resize whose new rings and then old rings both fail
 * leaves no QP; the CQ pointers went with it, so a later `ethtool -C`
 * must not reach the freed CQs (before: rdma_set_cq_moderation() on
 * them, a use-after-free under KASAN). The settings are kept; the
 * interface is destroyed cleanly. rxe has no completion moderation: the
 * case lends the device a modify_cq that counts its calls.
 */
static void fault_resize_fails_twice(struct kunit *test)
{
	struct ib_device *ca = ipn_kunit_get_ibdev(test);
	struct kernel_ethtool_coalesce kec = {};
	struct ethtool_coalesce ec = {
		.rx_coalesce_usecs = 8, .rx_max_coalesced_frames = 4,
		.tx_coalesce_usecs = 8, .tx_max_coalesced_frames = 4,
	};
	unsigned int rx, n, left = 0;
	struct ipn_priv *priv;
	int ret, set = -1;

	priv = ipn_dev_create(ca, 1, IPC_PKEY_DEFAULT);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(priv), "create: %pe", priv);
	KUNIT_ASSERT_NULL(test, ca->ops.modify_cq);
	ca->ops.modify_cq = kt_modify_cq;
	kt_moderated = 0;
	rtnl_lock();
	/*
	 * The CQs are moderated while they exist: the receive CQ and every
	 * transmit queue's.
	 */
	ret = ipn_ethtool_ops.set_coalesce(priv->dev, &ec, &kec, NULL);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, kt_moderated, 1 + priv->txq_count);
	rtnl_unlock();
	rx = priv->rx_size;
	kt_region(true);
	rtnl_lock();
	/*
	 * The resize's own fault site fails the new rings; fail-nth then
	 * fails the n-th allocation after it, n = 1, 2, ... until one of
	 * them makes the old rings fail too (earlier ones may be absorbed,
	 * or land where a failure is not fatal).
	 */
	for (n = 1; n < KT_FAULT_MAX; n++) {
		ipn_kunit_fault_arm(1);
		kt_arm(n);
		ret = ipn_dev_resize_rings(priv, rx * 2, priv->tx_size, NULL);
		left = kt_disarm();
		ipn_kunit_fault_disarm();
		if (ret >= 0 || !priv->qp || left)
			break;
	}
	/* Asserts only with rtnl dropped and the device's ops restored. */
	kt_moderated = 0;
	if (!priv->qp)
		set = ipn_ethtool_ops.set_coalesce(priv->dev, &ec, &kec, NULL);
	rtnl_unlock();
	kt_region(false);
	ca->ops.modify_cq = NULL;
	KUNIT_EXPECT_LT(test, ret, 0);
	KUNIT_EXPECT_EQ_MSG(test, left, 0u,
			    "no allocation of the old rings' remaking failed (%u tried)",
			    n);
	KUNIT_EXPECT_NULL(test, priv->qp);
	KUNIT_EXPECT_NULL(test, priv->txq[0].cq);
	KUNIT_EXPECT_NULL(test, priv->recv_cq);
	KUNIT_EXPECT_EQ(test, priv->rx_size, rx);
	KUNIT_EXPECT_EQ(test, set, 0);
	KUNIT_EXPECT_EQ(test, kt_moderated, 0u);
	kunit_info(test, "the old rings failed at allocation %u\n", n);
	ipn_dev_destroy(priv);
	ib_device_put(ca);
}

#else

static void fault_dev_create(struct kunit *test)
{
	KUNIT_FAIL(test, "the kernel has no CONFIG_FAULT_INJECTION");
}

static void fault_child_create(struct kunit *test)
{
	KUNIT_FAIL(test, "the kernel has no CONFIG_FAULT_INJECTION");
}

static void fault_dev_open(struct kunit *test)
{
	KUNIT_FAIL(test, "the kernel has no CONFIG_FAULT_INJECTION");
}

static void fault_control_path(struct kunit *test)
{
	KUNIT_FAIL(test, "the kernel has no CONFIG_FAULT_INJECTION");
}

static void fault_resize_fails_twice(struct kunit *test)
{
	KUNIT_FAIL(test, "the kernel has no CONFIG_FAULT_INJECTION");
}

#endif

static struct kunit_case ipn_fault_cases[] = {
	KUNIT_CASE(fault_dev_create),
	KUNIT_CASE(fault_child_create),
	KUNIT_CASE(fault_dev_open),
	KUNIT_CASE(fault_control_path),
	KUNIT_CASE(fault_resize_fails_twice),
	{}
};

static struct kunit_suite ipn_fault_suite = {
	.name = "ipoib_ng_fault",
	.test_cases = ipn_fault_cases,
};

kunit_test_suite(ipn_fault_suite);
