// SPDX-License-Identifier: GPL-2.0
/*
 * roce_test.c - suite ipoib_ng_roce: how the RoCE backend (driver/roce.c)
 * gets the address vector of a unicast path. rxe routes by IP and ignores
 * the MAC, real RoCE adapters do not, so the MAC and the source GID are
 * checked here, on a real interface of the device named by ibdev:
 *
 *   - a link-local GID: the MAC is derived from it (no resolver);
 *   - fd99::2 and ::ffff:192.168.99.2, addresses of the roce_peer netdev
 *     routed as another host's (tests/vm/scenarios/kunit.sh): resolved
 *     with rdma_resolve_ip to the peer's MAC, from the source GID whose
 *     address the route picks;
 *   - a GID no one has: the path fails, with the resolver's status.
 */
#define IPN_KUNIT 1
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/kthread.h>
#include <net/addrconf.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include "ipoib_ng.h"
#include "ipn_kunit.h"

struct kt_roce {
	struct ib_device *ca;
	struct ipn_priv *priv;
	struct ib_device *peer_ca;	/* roce_rx_repost_fails */
	struct ipn_priv *peer;
};

/* Receive posts of kt_rx_post_victim fail while kt_rx_post_fail > 0. */
static const struct ipn_priv *kt_rx_post_victim;
static atomic_t kt_rx_post_fail = ATOMIC_INIT(0);

bool ipn_kunit_rx_post_fails(const struct ipn_priv *priv)
{
	return priv == READ_ONCE(kt_rx_post_victim) &&
	       atomic_add_unless(&kt_rx_post_fail, -1, 0);
}

/* Chains of kt_tx_cut_victim: the device takes kt_tx_cut sends, once. */
static const struct ipn_priv *kt_tx_cut_victim;
static atomic_t kt_tx_cut = ATOMIC_INIT(-1);

unsigned int ipn_kunit_tx_post_cut(const struct ipn_priv *priv,
				   unsigned int n)
{
	int cut;

	if (priv != READ_ONCE(kt_tx_cut_victim))
		return n;
	cut = atomic_xchg(&kt_tx_cut, -1);
	return cut < 0 ? n : min_t(unsigned int, cut, n);
}

/*
 * ipn_qp_failed() of kt_qp_failing_victim, past its test of FREEING, waits
 * here (spinning: it may hold an RCU read section) until released, at
 * most 10 s.
 */
static const struct ipn_priv *kt_qp_failing_victim;
static atomic_t kt_qp_failing_in = ATOMIC_INIT(0);
static atomic_t kt_qp_failing_release = ATOMIC_INIT(0);

void ipn_kunit_qp_failing(const struct ipn_priv *priv)
{
	int i;

	if (priv != READ_ONCE(kt_qp_failing_victim))
		return;
	atomic_set(&kt_qp_failing_in, 1);
	for (i = 0; i < 10000 && !atomic_read(&kt_qp_failing_release); i++)
		mdelay(1);
}

/*
 * ipn_restart_work() of kt_restart_victim, before its rtnl_lock(), waits
 * here until released, at most 10 s.
 */
static const struct ipn_priv *kt_restart_victim;
static atomic_t kt_restart_in = ATOMIC_INIT(0);
static atomic_t kt_restart_release = ATOMIC_INIT(0);

void ipn_kunit_restart_running(const struct ipn_priv *priv)
{
	int i;

	if (priv != READ_ONCE(kt_restart_victim))
		return;
	atomic_set(&kt_restart_in, 1);
	for (i = 0; i < 500 && !atomic_read(&kt_restart_release); i++)
		msleep(20);
}

/*
 * ipn_roce_resolved() of kt_resolved_victim, its answer queued, waits
 * here until released, at most 4 s (ib_addr's work: it may sleep).
 */
static const struct ipn_priv *kt_resolved_victim;
static atomic_t kt_resolved_in = ATOMIC_INIT(0);
static atomic_t kt_resolved_release = ATOMIC_INIT(0);

void ipn_kunit_roce_resolved_returning(const struct ipn_priv *priv)
{
	int i;

	if (priv != READ_ONCE(kt_resolved_victim))
		return;
	atomic_inc(&kt_resolved_in);
	for (i = 0; i < 200 && !atomic_read(&kt_resolved_release); i++)
		msleep(20);
}

static int kt_roce_init(struct kunit *test)
{
	struct kt_roce *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct ipn_priv *priv;

	KUNIT_ASSERT_NOT_NULL(test, c);
	test->priv = c;
	c->ca = ipn_kunit_get_ibdev(test);
	priv = ipn_dev_create(c->ca, 1, IPC_PKEY_DEFAULT);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(priv), "ipn_dev_create: %pe", priv);
	c->priv = priv;
	KUNIT_ASSERT_TRUE(test, priv->roce);
	KUNIT_ASSERT_EQ(test, ipn_kunit_open(priv), 0);
	KUNIT_ASSERT_TRUE(test, netif_carrier_ok(priv->dev));
	return 0;
}

static void kt_roce_exit(struct kunit *test)
{
	struct kt_roce *c = test->priv;

	WRITE_ONCE(kt_rx_post_victim, NULL);
	atomic_set(&kt_rx_post_fail, 0);
	ipn_kunit_rx_alloc_fail_at(NULL, 0);
	WRITE_ONCE(kt_tx_cut_victim, NULL);
	atomic_set(&kt_tx_cut, -1);
	WRITE_ONCE(kt_qp_failing_victim, NULL);
	WRITE_ONCE(kt_restart_victim, NULL);
	atomic_set(&kt_restart_release, 1);
	WRITE_ONCE(kt_resolved_victim, NULL);
	atomic_set(&kt_resolved_release, 1);
	if (c && c->peer)
		ipn_dev_destroy(c->peer);
	if (c && c->peer_ca)
		ib_device_put(c->peer_ca);
	if (c && c->priv)
		ipn_dev_destroy(c->priv);
	if (c && c->ca)
		ib_device_put(c->ca);
}

/* Send to QPN 0x22 at gid; wait until the path leaves RESOLVING. */
static struct ipn_kunit_path kt_roce_resolve(struct ipn_priv *priv,
					     const u8 *gid)
{
	struct ipc_addr a = { .qpn = 0x22 };
	struct ipn_kunit_path p;
	u8 hw[IPC_ADDR_LEN];
	int i;

	memcpy(a.gid, gid, 16);
	ipc_addr_encode(&a, hw);
	ipn_kunit_xmit(priv, hw, htonl(0x0a000002));
	for (i = 0; i < 40; i++) {
		ipn_kunit_settle(priv, 100);
		p = ipn_kunit_path(priv, gid);
		if (p.state != IPC_PATH_RESOLVING && p.state != IPC_PATH_UNKNOWN)
			break;
	}
	return p;
}

/* The index of gid in port 1's table (RoCEv2), -1 if absent. */
static int kt_gid_index(struct ib_device *ca, const u8 *gid)
{
	const struct ib_gid_attr *attr;
	int index;

	attr = rdma_find_gid_by_port(ca, (const union ib_gid *)gid,
				     IB_GID_TYPE_ROCE_UDP_ENCAP, 1, NULL);
	if (IS_ERR(attr))
		return -1;
	index = attr->index;
	rdma_put_gid_attr(attr);
	return index;
}

/* The MAC of the roce_peer netdev (fails the case without it). */
static void kt_peer_mac(struct kunit *test, u8 *mac)
{
	struct net_device *ndev;

	ndev = dev_get_by_name(&init_net, ipn_kunit_roce_peer);
	KUNIT_ASSERT_NOT_NULL_MSG(test, ndev, "no netdev %s (roce_peer)",
				  ipn_kunit_roce_peer);
	ether_addr_copy(mac, ndev->dev_addr);
	dev_put(ndev);
}

/* Link-local GID (EUI-64 of 00:11:22:33:44:55): the MAC comes from it. */
static void roce_path_link_local(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_roce *)test->priv)->priv;
	static const u8 gid[16] = { 0xfe, 0x80, [8] = 0x02, 0x11, 0x22, 0xff,
				    0xfe, 0x33, 0x44, 0x55 };
	static const u8 mac[ETH_ALEN] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 };
	struct ipn_kunit_path p = kt_roce_resolve(priv, gid);

	KUNIT_EXPECT_EQ(test, p.state, IPC_PATH_VALID);
	KT_EXPECT_MEMEQ(test, p.dmac, mac, ETH_ALEN);
	KUNIT_EXPECT_EQ(test, p.sgid_index, 0);
	KUNIT_EXPECT_FALSE(test, p.resolver);
	KUNIT_EXPECT_NOT_NULL(test, p.ah);
}

/* gid from src, a GID of ibdev: rdma_resolve_ip to roce_peer's MAC. */
static void kt_roce_routed(struct kunit *test, const u8 *gid, const u8 *src)
{
	struct kt_roce *c = test->priv;
	int sgid = kt_gid_index(c->ca, src);
	struct ipn_kunit_path p;
	u8 mac[ETH_ALEN];

	kt_peer_mac(test, mac);
	KUNIT_ASSERT_GT_MSG(test, sgid, 0, "%s has no GID %pI6", ipn_kunit_ibdev,
			    src);
	p = kt_roce_resolve(c->priv, gid);
	KUNIT_EXPECT_EQ(test, p.state, IPC_PATH_VALID);
	KUNIT_EXPECT_TRUE(test, p.resolver);
	KT_EXPECT_MEMEQ(test, p.dmac, mac, ETH_ALEN);
	KUNIT_EXPECT_EQ(test, p.sgid_index, sgid);
	KUNIT_EXPECT_EQ(test, p.hop_limit, 64);
	KUNIT_EXPECT_NOT_NULL(test, p.ah);
}

/* fd99::2 from fd99::1: rdma_resolve_ip over IPv6. */
static void roce_path_routed_ipv6(struct kunit *test)
{
	static const u8 gid[16] = { 0xfd, 0x99, [15] = 0x02 };
	static const u8 src[16] = { 0xfd, 0x99, [15] = 0x01 };

	kt_roce_routed(test, gid, src);
}

/* ::ffff:192.168.99.2 from ::ffff:192.168.99.1: over IPv4. */
static void roce_path_routed_ipv4(struct kunit *test)
{
	static const u8 gid[16] = { [10] = 0xff, 0xff, 192, 168, 99, 2 };
	static const u8 src[16] = { [10] = 0xff, 0xff, 192, 168, 99, 1 };

	kt_roce_routed(test, gid, src);
}

/*
 * Review 2026-12 L4: ib_addr keeps a request on its list until its
 * callback returns, and rdma_addr_cancel() removes the first request of
 * a dev_addr. A revalidation started meanwhile on the same dev_addr
 * would be left behind by a later cancel, to call back into a freed
 * path. The next request of a path now waits for the last one's to go:
 * with the callback held after its answer, the revalidation due makes
 * no request until it returns.
 */
static void roce_path_requery_waits_for_request(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_roce *)test->priv)->priv;
	static const u8 gid[16] = { 0xfd, 0x99, [15] = 0x02 };
	struct ipn_kunit_path p;
	int i;

	spin_lock_bh(&priv->lock);
	priv->path_cfg.revalidate_ms = 1000;
	priv->path_cfg.revalidate_jitter_ms = 0;
	spin_unlock_bh(&priv->lock);
	atomic_set(&kt_resolved_in, 0);
	atomic_set(&kt_resolved_release, 0);
	WRITE_ONCE(kt_resolved_victim, priv);
	p = kt_roce_resolve(priv, gid);
	/* STALE: the revalidation may be due already, waiting as below. */
	KUNIT_EXPECT_TRUE(test, p.state == IPC_PATH_VALID ||
			  p.state == IPC_PATH_STALE);
	KUNIT_ASSERT_EQ(test, atomic_read(&kt_resolved_in), 1);
	/* The revalidation is due after a second; the callback still runs. */
	msleep(2500);
	p = ipn_kunit_path(priv, gid);
	KUNIT_EXPECT_FALSE_MSG(test, p.requesting,
			       "a request was made while the last one's was listed");
	KUNIT_EXPECT_TRUE(test, p.state == IPC_PATH_VALID ||
			  p.state == IPC_PATH_STALE);
	atomic_set(&kt_resolved_release, 1);
	/* Then the revalidation runs, and is answered. */
	for (i = 0; i < 100 && atomic_read(&kt_resolved_in) < 2; i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&kt_resolved_in), 2);
	WRITE_ONCE(kt_resolved_victim, NULL);
	ipn_kunit_settle(priv, 300);
	p = ipn_kunit_path(priv, gid);
	KUNIT_EXPECT_EQ(test, p.state, IPC_PATH_VALID);
	KUNIT_EXPECT_FALSE(test, p.requesting);
}

/*
 * Review 2026-12 L3: connected mode's REQ on RoCE is made from the path's
 * installed handle, not from path->attr, which a revalidation that has
 * begun holds half filled (ipn_roce_path_query() starts it from zero; the
 * DMAC comes when ib_addr answers). Before, the REQ and the RC QP got
 * DMAC 00:00:00:00:00:00 then.
 */
static void roce_cm_path_rec_from_handle(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_roce *)test->priv)->priv;
	static const u8 gid[16] = { 0xfd, 0x99, [15] = 0x02 };
	static const u8 src[16] = { 0xfd, 0x99, [15] = 0x01 };
	struct sa_path_rec rec = {};
	struct ipn_path *path;
	u8 mac[ETH_ALEN];
	int ret = -ENOENT;

	kt_roce_routed(test, gid, src);
	kt_peer_mac(test, mac);
	spin_lock_bh(&priv->lock);
	path = ipn_path_find(priv, gid);
	if (path) {
		/* As a revalidation begins: no DMAC yet. */
		ipn_roce_attr(priv, gid, 64, &path->attr);
		ret = ipn_cm_path_rec(priv, gid, &rec);
	}
	spin_unlock_bh(&priv->lock);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KT_EXPECT_MEMEQ(test, sa_path_get_dmac(&rec), mac, ETH_ALEN);
	KUNIT_EXPECT_EQ(test, rec.hop_limit, 64);
}

/* fd99::99 answers no neighbour solicitation: the path fails. */
static void roce_path_unreachable(struct kunit *test)
{
	struct ipn_priv *priv = ((struct kt_roce *)test->priv)->priv;
	static const u8 gid[16] = { 0xfd, 0x99, [15] = 0x99 };
	struct ipn_kunit_path p = kt_roce_resolve(priv, gid);

	KUNIT_EXPECT_EQ(test, p.state, IPC_PATH_FAILED);
	KUNIT_EXPECT_LT(test, p.status, 0);
	KUNIT_EXPECT_NULL(test, p.ah);
	KUNIT_EXPECT_GE(test, ipn_stat(priv, path_failures), 1u);
}

/*
 * A child in partition 0x8001 on a RoCE port (Documentation/, "Partitions
 * on RoCE"): P_Key 0xffff on the wire, its own QP with the Q_Key derived
 * from 0x8001, its own broadcast group; carrier without 0x8001 in the
 * table. It goes with its parent.
 */
static void roce_child_partition(struct kunit *test)
{
	struct kt_roce *c = test->priv;
	struct ipn_priv *child;
	u8 bcast[IPC_ADDR_LEN];
	struct ib_qp_attr attr;
	struct ib_qp_init_attr init;

	child = ipn_kunit_child(c->priv, 0x8001);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(child), "child: %pe", child);
	KUNIT_EXPECT_PTR_EQ(test, child->parent, c->priv);
	KUNIT_EXPECT_PTR_EQ(test, list_first_entry(&c->priv->children,
						   struct ipn_priv, list),
			    child);
	KUNIT_EXPECT_EQ(test, child->pkey, 0x8001);
	KUNIT_EXPECT_EQ(test, child->wire_pkey, IPC_PKEY_DEFAULT);
	KUNIT_EXPECT_EQ(test, child->qkey, 0x0001000bU);
	KUNIT_EXPECT_NE(test, child->qp->qp_num, c->priv->qp->qp_num);
	ipc_addr_broadcast(0x8001, IPC_SCOPE_LINK, bcast);
	KT_EXPECT_MEMEQ(test, child->dev->broadcast, bcast, IPC_ADDR_LEN);
	KUNIT_EXPECT_EQ(test, dev_get_iflink(child->dev), c->priv->dev->ifindex);

	KUNIT_ASSERT_EQ(test, ipn_kunit_open(child), 0);
	KUNIT_EXPECT_TRUE(test, netif_carrier_ok(child->dev));
	KUNIT_ASSERT_EQ(test, ib_query_qp(child->qp, &attr,
					  IB_QP_QKEY | IB_QP_PKEY_INDEX,
					  &init), 0);
	KUNIT_EXPECT_EQ(test, attr.qkey, 0x0001000bU);
	KUNIT_EXPECT_EQ(test, attr.pkey_index, 0);
	spin_lock_bh(&child->lock);
	KUNIT_EXPECT_NOT_NULL(test, child->bcast);
	if (child->bcast)
		KT_EXPECT_MEMEQ(test, child->bcast->mgid, bcast + 4, 16);
	spin_unlock_bh(&child->lock);
	/* kt_roce_exit destroys the parent, and the child with it. */
}

/* Hand ipn_cm_req() a REQ whose primary path carries pkey, as ib_cm does. */
static int kt_cm_req_on(struct ipn_priv *priv, u16 pkey, u32 port)
{
	struct sa_path_rec path = { .pkey = cpu_to_be16(pkey) };
	u8 data[IB_CM_REQ_PRIVATE_DATA_SIZE] = {};
	struct ib_cm_event ev = {
		.event = IB_CM_REQ_RECEIVED,
		.private_data = data,
	};
	struct ib_cm_id id = { .context = priv };

	ipc_cm_priv_build(0x123, 2048, data);
	ev.param.req_rcvd.primary_path = &path;
	ev.param.req_rcvd.port = port;
	return ipn_cm_req(&id, &ev);
}

/* The same, through the interface's own port. */
static int kt_cm_req(struct ipn_priv *priv, u16 pkey)
{
	return kt_cm_req_on(priv, pkey, priv->port);
}

/*
 * Review H2: a node that shares only the default partition connected to a
 * child's Service ID and put frames into the child. A REQ is now refused
 * unless its P_Key matches the interface's (IBA rule), before any QP is
 * made, and counted. On RoCE, where every REQ carries 0xffff and RC has
 * no Q_Key to emulate partitions with, a child of another partition
 * cannot take connected mode at all. The InfiniBand rule is checked on
 * the same device with the backend's RoCE flag cleared: nothing below
 * the P_Key check is reached.
 */
static void roce_cm_req_other_partition(struct kunit *test)
{
	struct kt_roce *c = test->priv;
	struct ipn_priv *child;
	int ret;

	child = ipn_kunit_child(c->priv, 0x8001);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(child), "child: %pe", child);
	rtnl_lock();
	ret = ipn_dev_set_mode(child, true, NULL);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, ret, -EOPNOTSUPP);
	KUNIT_EXPECT_FALSE(test, child->cm_mode);

	/* The REQ a default-partition node sends to the child's SID. */
	KUNIT_EXPECT_EQ(test, kt_cm_req(child, IPC_PKEY_DEFAULT), -EACCES);
	KUNIT_EXPECT_EQ(test, ipn_stat(child, cm_rejects), 1u);
	KUNIT_EXPECT_EQ(test, ipn_stat(child, cm_accepts), 0u);
	KUNIT_EXPECT_TRUE(test, list_empty(&child->cm_rx));
	/* The parent refuses a REQ of the child's partition. */
	KUNIT_EXPECT_EQ(test, kt_cm_req(c->priv, 0x8001), -EACCES);
	KUNIT_EXPECT_EQ(test, ipn_stat(c->priv, cm_rejects), 1u);

	/* InfiniBand: P_Keys are real; only a matching REQ gets through. */
	child->roce = false;
	KUNIT_EXPECT_EQ(test, kt_cm_req(child, IPC_PKEY_DEFAULT), -EACCES);
	KUNIT_EXPECT_EQ(test, kt_cm_req(child, 0x8002), -EACCES);
	child->roce = true;
	KUNIT_EXPECT_EQ(test, ipn_stat(child, cm_rejects), 3u);
	KUNIT_EXPECT_TRUE(test, list_empty(&child->cm_rx));
}

/*
 * Review H3: connections peers hold to an interface are bounded
 * (cm_rx_max); a REQ beyond is refused before any QP is made, and
 * counted.
 */
static void roce_cm_req_cap(struct kunit *test)
{
	struct kt_roce *c = test->priv;
	unsigned int max = ipn_cm_rx_max;

	ipn_cm_rx_max = 0;
	KUNIT_EXPECT_EQ(test, kt_cm_req(c->priv, IPC_PKEY_DEFAULT), -EBUSY);
	ipn_cm_rx_max = max;
	KUNIT_EXPECT_EQ(test, ipn_stat(c->priv, cm_rejects), 1u);
	KUNIT_EXPECT_TRUE(test, list_empty(&c->priv->cm_rx));
}

/*
 * Review 2026-12 M1: the listen ID is the device's, so a REQ that came in
 * through another port of it (another fabric, the same P_Key value)
 * reached the interface. It is refused before anything else is decided
 * (with cm_rx_max 0, the cap would refuse it with -EBUSY otherwise), and
 * counted; no QP is made.
 */
static void roce_cm_req_other_port(struct kunit *test)
{
	struct kt_roce *c = test->priv;
	unsigned int max = ipn_cm_rx_max;
	int ret;

	ipn_cm_rx_max = 0;
	ret = kt_cm_req_on(c->priv, IPC_PKEY_DEFAULT, c->priv->port + 1);
	ipn_cm_rx_max = max;
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	KUNIT_EXPECT_EQ(test, ipn_stat(c->priv, cm_rejects), 1u);
	KUNIT_EXPECT_TRUE(test, list_empty(&c->priv->cm_rx));
}

/* dev_set_mac_address() as `ip link set IF address` calls it. */
static int kt_set_addr(struct ipn_priv *priv, const u8 *hw)
{
	struct sockaddr_storage ss = {};
	int ret;

	ss.ss_family = priv->dev->type;
	memcpy(((struct sockaddr *)&ss)->sa_data, hw, IPC_ADDR_LEN);
	rtnl_lock();
	ret = dev_set_mac_address(priv->dev, (struct sockaddr *)&ss, NULL);
	rtnl_unlock();
	return ret;
}

/*
 * ndo_set_mac_address: another GID of the port (fd99::1, from the
 * roce_peer setup), only while down, never another QPN or a GID the port
 * lacks. Datagrams then leave from that GID's index; a GID_CHANGE that
 * keeps the GID keeps the address.
 */
static void roce_set_address(struct kunit *test)
{
	struct kt_roce *c = test->priv;
	struct ipn_priv *priv = c->priv;
	static const u8 fd99_1[16] = { 0xfd, 0x99, [15] = 0x01 };
	static const u8 fd99_77[16] = { 0xfd, 0x99, [15] = 0x77 };
	static const u8 ll[16] = { 0xfe, 0x80, [8] = 0x02, 0x11, 0x22, 0xff,
				   0xfe, 0x33, 0x44, 0x55 };
	int index = kt_gid_index(c->ca, fd99_1);
	u8 old[IPC_ADDR_LEN], hw[IPC_ADDR_LEN];
	struct ipn_kunit_path p;

	KUNIT_ASSERT_GT_MSG(test, index, 0, "%s has no GID fd99::1",
			    ipn_kunit_ibdev);
	memcpy(old, priv->dev->dev_addr, IPC_ADDR_LEN);
	memcpy(hw, old, 4);
	memcpy(hw + 4, fd99_1, 16);
	KUNIT_EXPECT_EQ(test, kt_set_addr(priv, hw), -EBUSY);

	rtnl_lock();
	dev_close(priv->dev);
	rtnl_unlock();
	hw[3] ^= 1;
	KUNIT_EXPECT_EQ(test, kt_set_addr(priv, hw), -EINVAL);
	hw[3] ^= 1;
	hw[0] = IPC_ADDR_FLAG_CM;
	KUNIT_EXPECT_EQ(test, kt_set_addr(priv, hw), -EINVAL);
	hw[0] = old[0];
	memcpy(hw + 4, fd99_77, 16);
	KUNIT_EXPECT_EQ(test, kt_set_addr(priv, hw), -EADDRNOTAVAIL);
	KT_EXPECT_MEMEQ(test, priv->dev->dev_addr, old, IPC_ADDR_LEN);

	memcpy(hw + 4, fd99_1, 16);
	KUNIT_ASSERT_EQ(test, kt_set_addr(priv, hw), 0);
	KT_EXPECT_MEMEQ(test, priv->dev->dev_addr, hw, IPC_ADDR_LEN);
	KT_EXPECT_MEMEQ(test, priv->ifid.gid, fd99_1, 16);
	KUNIT_EXPECT_EQ(test, priv->sgid_index, (u32)index);

	/* A GID_CHANGE that leaves fd99::1 in the table keeps it. */
	set_bit(IPC_EV_GID_CHANGE, &priv->events_pending);
	queue_work(priv->wq, &priv->flush_work);
	flush_work(&priv->flush_work);
	KT_EXPECT_MEMEQ(test, priv->dev->dev_addr, hw, IPC_ADDR_LEN);

	KUNIT_ASSERT_EQ(test, ipn_kunit_open(priv), 0);
	KT_EXPECT_MEMEQ(test, priv->dev->dev_addr, hw, IPC_ADDR_LEN);
	p = kt_roce_resolve(priv, ll);
	KUNIT_EXPECT_EQ(test, p.state, IPC_PATH_VALID);
	KUNIT_EXPECT_EQ(test, p.sgid_index, index);
}

/* The UD QP's state, and how many receive slots are posted. */
static int kt_roce_qp(struct ipn_priv *priv, unsigned int *posted)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;
	unsigned int i, n = 0;
	int ret;

	rtnl_lock();
	ret = ib_query_qp(priv->qp, &attr, IB_QP_STATE, &init);
	for (i = 0; priv->rx_ring && i < priv->rx_size; i++)
		n += READ_ONCE(priv->rx_ring[i].posted);
	rtnl_unlock();
	*posted = n;
	return ret ? ret : attr.qp_state;
}

/*
 * Wait until the datapath runs again after qp_errors reached want, up to
 * 10 s (a drain may wait 5 s for sends that never complete).
 */
static bool kt_roce_recovered(struct ipn_priv *priv, u64 want)
{
	unsigned int posted = 0;
	int i;

	for (i = 0; i < 200; i++) {
		if (ipn_stat(priv, qp_errors) >= want &&
		    kt_roce_qp(priv, &posted) == IB_QPS_RTS &&
		    posted == priv->rx_size && netif_carrier_ok(priv->dev) &&
		    !test_bit(IPN_QP_RESTART_QUEUED, &priv->qp_failed))
			return true;
		msleep(50);
	}
	return false;
}

/*
 * Review M5: the UD QP in the error state, which a fatal adapter event or
 * a completion error puts it in. Before, nothing noticed: the flushed
 * receive buffers were dropped one by one, the ring emptied and the
 * interface stayed dead with its carrier on. Now the flush is seen in
 * NAPI, counted once (qp_errors) and the datapath restarted: the QP back
 * in RTS with its QPN (the address peers hold), the ring full again, the
 * carrier on after the broadcast group. The same for the QP's fatal
 * event.
 */
static void roce_qp_error_recovered(struct kunit *test)
{
	struct kt_roce *c = test->priv;
	struct ipn_priv *priv = c->priv;
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct ib_event ev = { .device = c->ca, .event = IB_EVENT_QP_FATAL };
	u8 addr[IPC_ADDR_LEN];
	unsigned int posted;

	memcpy(addr, priv->dev->dev_addr, IPC_ADDR_LEN);
	KUNIT_ASSERT_EQ(test, kt_roce_qp(priv, &posted), IB_QPS_RTS);
	KUNIT_ASSERT_EQ(test, posted, priv->rx_size);
	KUNIT_ASSERT_EQ(test, ipn_stat(priv, qp_errors), 0u);

	/* The adapter moves the QP to ERR: every posted receive flushes. */
	KUNIT_ASSERT_EQ(test, ib_modify_qp(priv->qp, &attr, IB_QP_STATE), 0);
	KUNIT_EXPECT_TRUE(test, kt_roce_recovered(priv, 1));
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, qp_errors), 1u);
	KT_EXPECT_MEMEQ(test, priv->dev->dev_addr, addr, IPC_ADDR_LEN);

	/* Its fatal event, as the adapter's driver raises it. */
	ev.element.qp = priv->qp;
	priv->qp->event_handler(&ev, priv->qp->qp_context);
	KUNIT_EXPECT_TRUE(test, kt_roce_recovered(priv, 2));
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, qp_errors), 2u);
	KT_EXPECT_MEMEQ(test, priv->dev->dev_addr, addr, IPC_ADDR_LEN);
	KUNIT_EXPECT_EQ(test, kt_roce_qp(priv, &posted), IB_QPS_RTS);
}

/* Wait until a failed QP's restart waits out its backoff, carrier off. */
static bool kt_roce_backing_off(struct ipn_priv *priv)
{
	int i;

	for (i = 0; i < 40; i++) {
		if (test_bit(IPN_QP_RESTART_DELAYED, &priv->qp_failed) &&
		    delayed_work_pending(&priv->restart_work) &&
		    !netif_carrier_ok(priv->dev))
			return true;
		msleep(50);
	}
	return false;
}

/*
 * A QP that fails again soon after its restart (an adapter that keeps
 * failing) was restarted at once, every time: a loop of QP resets,
 * broadcast joins and log lines. Now the link machine's backoff decides:
 * the first failure restarts at once, the next one, soon after, waits
 * 0.5..1 s with the carrier off (nothing sent into a dead queue, a bond
 * fails over), then restarts. The administrator's down/up meanwhile is
 * the restart: nothing stays queued behind it.
 */
static void roce_qp_error_backoff(struct kunit *test)
{
	struct kt_roce *c = test->priv;
	struct ipn_priv *priv = c->priv;
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	unsigned int posted;
	unsigned long t0;
	int ret;

	KUNIT_ASSERT_EQ(test, ib_modify_qp(priv->qp, &attr, IB_QP_STATE), 0);
	KUNIT_ASSERT_TRUE(test, kt_roce_recovered(priv, 1));

	t0 = jiffies;
	KUNIT_ASSERT_EQ(test, ib_modify_qp(priv->qp, &attr, IB_QP_STATE), 0);
	KUNIT_ASSERT_TRUE(test, kt_roce_backing_off(priv));
	KUNIT_EXPECT_EQ(test, kt_roce_qp(priv, &posted), IB_QPS_ERR);
	/* A transmit timeout meanwhile: neither sooner, nor the reason. */
	ipn_tx_timeout(priv->dev, 0);
	KUNIT_EXPECT_TRUE(test, delayed_work_pending(&priv->restart_work));
	KUNIT_EXPECT_STREQ(test, READ_ONCE(priv->restart_why) ?: "(none)",
			   "the queue pair failed (error state)");
	KUNIT_ASSERT_TRUE(test, kt_roce_recovered(priv, 2));
	KUNIT_EXPECT_GE(test, jiffies_to_msecs(jiffies - t0),
			IPC_RESTART_BASE_MS / 2);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, qp_errors), 2u);

	KUNIT_ASSERT_EQ(test, ib_modify_qp(priv->qp, &attr, IB_QP_STATE), 0);
	KUNIT_ASSERT_TRUE(test, kt_roce_backing_off(priv));
	rtnl_lock();
	dev_close(priv->dev);
	ret = dev_open(priv->dev, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_FALSE(test, delayed_work_pending(&priv->restart_work));
	KUNIT_EXPECT_FALSE(test, test_bit(IPN_QP_RESTART_QUEUED,
					  &priv->qp_failed));
	KUNIT_EXPECT_FALSE(test, test_bit(IPN_QP_RESTART_DELAYED,
					  &priv->qp_failed));
	KUNIT_EXPECT_TRUE(test, kt_roce_recovered(priv, 3));
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, qp_errors), 3u);
	/* The first two by the work, the third by the down/up. */
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, restarts), 2u);
}

/*
 * A restart already running, blocked on rtnl, while whoever holds rtnl
 * stops and opens the interface (a ring resize, a mode switch, a down/up
 * in one rtnl section): that stop and open was the restart. Before, the
 * work then went on: the link machine counted a failure of the fresh
 * datapath, carrier off, restarted again (after a backoff, had the last
 * restart been recent). Now ipn_stop answers what was asked.
 */
static void roce_qp_error_then_down_up(struct kunit *test)
{
	struct kt_roce *c = test->priv;
	struct ipn_priv *priv = c->priv;
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	bool running = false;
	int ret, i;

	/*
	 * The restart work is held before its rtnl_lock() (whatever the
	 * ordered workqueue ran ahead of it has run: rtnl is free until
	 * then), rtnl taken here, then the work let go into rtnl_lock().
	 */
	atomic_set(&kt_restart_in, 0);
	atomic_set(&kt_restart_release, 0);
	WRITE_ONCE(kt_restart_victim, priv);
	ret = ib_modify_qp(priv->qp, &attr, IB_QP_STATE);
	for (i = 0; !ret && i < 100 && !running; i++) {
		msleep(50);
		running = atomic_read(&kt_restart_in);
	}
	if (running) {
		rtnl_lock();
		KUNIT_EXPECT_TRUE(test, test_bit(IPN_QP_RESTART_QUEUED,
						 &priv->qp_failed));
		atomic_set(&kt_restart_release, 1);
		msleep(100);	/* into rtnl_lock() */
		dev_close(priv->dev);
		ret = dev_open(priv->dev, NULL);
		rtnl_unlock();
	}
	WRITE_ONCE(kt_restart_victim, NULL);
	atomic_set(&kt_restart_release, 1);
	KUNIT_ASSERT_TRUE_MSG(test, running, "the restart work never ran");
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_TRUE(test, kt_roce_recovered(priv, 1));
	flush_delayed_work(&priv->restart_work);
	KUNIT_EXPECT_EQ(test, priv->link.restarted, 0);
	KUNIT_EXPECT_TRUE(test, netif_carrier_ok(priv->dev));
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, qp_errors), 1u);
	/* The work found the restart done: no second stop and open. */
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, restarts), 0u);
}

static int kt_qp_fail_fn(void *arg)
{
	ipn_qp_failed(arg);
	return 0;
}

struct kt_destroy {
	struct ipn_priv *priv;
	struct completion done;
};

static int kt_destroy_fn(void *arg)
{
	struct kt_destroy *d = arg;

	ipn_dev_destroy(d->priv);
	complete(&d->done);
	return 0;
}

/*
 * A QP error reported (ipn_qp_failed(), any context: the QP's event
 * handler) while the interface is freed: the report passed its test of
 * IPN_QP_FREEING, then the free went on to destroy the workqueue and free
 * priv under it (a use after free, a work queued on a destroyed
 * workqueue). Now the free waits for a report that began (an RCU grace
 * period), so it cannot end while one is held between test and queueing.
 */
static void roce_qp_failed_while_freed(struct kunit *test)
{
	struct kt_roce *c = test->priv;
	struct task_struct *failing, *freeing;
	struct kt_destroy *d;
	bool freed;
	int i;

	d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d);
	init_completion(&d->done);
	d->priv = c->priv;
	atomic_set(&kt_qp_failing_in, 0);
	atomic_set(&kt_qp_failing_release, 0);
	WRITE_ONCE(kt_qp_failing_victim, d->priv);
	failing = kthread_run(kt_qp_fail_fn, d->priv, "kt-qp-failing");
	KUNIT_ASSERT_FALSE(test, IS_ERR(failing));
	for (i = 0; i < 100 && !atomic_read(&kt_qp_failing_in); i++)
		msleep(20);
	KUNIT_ASSERT_EQ(test, atomic_read(&kt_qp_failing_in), 1);

	c->priv = NULL;		/* freed here, not in exit */
	freeing = kthread_run(kt_destroy_fn, d, "kt-freeing");
	if (IS_ERR(freeing)) {
		atomic_set(&kt_qp_failing_release, 1);
		ipn_dev_destroy(d->priv);
		KUNIT_FAIL(test, "kthread_run: %pe", freeing);
		return;
	}
	/* Without the fix, a few hundred ms even on a slow VM. */
	freed = wait_for_completion_timeout(&d->done, 3 * HZ);
	atomic_set(&kt_qp_failing_release, 1);
	wait_for_completion(&d->done);
	KUNIT_EXPECT_FALSE_MSG(test, freed,
			       "the interface was freed under a QP error report");
}

/*
 * Review M3: the tick runs under priv->lock, and was armed for whichever
 * deadline came first, so n entries with deadlines apart cost n runs per
 * period. It runs at most once in IPN_TICK_MIN_MS now, however often it
 * is armed: here for "now", every 2 ms for a second. (What a run does is
 * what is due: sa_tick_runs_what_is_due.)
 */
static void roce_tick_rate(struct kunit *test)
{
	struct kt_roce *c = test->priv;
	struct ipn_priv *priv = c->priv;
	unsigned long end = jiffies + HZ;
	unsigned int ticks, arms = 0;

	ticks = READ_ONCE(priv->tick_runs);
	while (time_before(jiffies, end)) {
		spin_lock_bh(&priv->lock);
		ipn_tick_arm(priv, ipn_now_ms());
		spin_unlock_bh(&priv->lock);
		arms++;
		usleep_range(2000, 3000);
	}
	msleep(2 * IPN_TICK_MIN_MS);
	ticks = READ_ONCE(priv->tick_runs) - ticks;
	kunit_info(test, "armed %u times, ran %u times", arms, ticks);
	KUNIT_EXPECT_GE(test, ticks, 5u);
	KUNIT_EXPECT_LE(test, ticks, 1000 / IPN_TICK_MIN_MS + 3);
}

/* B: an open interface on the peer device (c->peer, freed by exit). */
static struct ipn_priv *kt_roce_peer(struct kunit *test)
{
	struct kt_roce *c = test->priv;
	struct ipn_priv *b;

	c->peer_ca = ipn_kunit_get_peer_ibdev(test);
	b = ipn_dev_create(c->peer_ca, 1, IPC_PKEY_DEFAULT);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(b), "ipn_dev_create: %pe", b);
	c->peer = b;
	KUNIT_ASSERT_EQ(test, ipn_kunit_open(b), 0);
	return b;
}

/*
 * Review M5, the last way the ring runs dry: NAPI takes a received buffer
 * out, and posting its replacement fails (only a QP that is not in RTS
 * refuses a post). Before, the ring stayed a slot short for good, one
 * more each time; now that is a QP failure like the others: counted,
 * the datapath restarted, the ring full again. B, on the peer device,
 * receives A's frames; its next post fails once.
 */
static void roce_rx_repost_fails(struct kunit *test)
{
	struct kt_roce *c = test->priv;
	struct ipn_priv *a = c->priv, *b;
	unsigned int posted;
	int i;

	b = kt_roce_peer(test);
	KUNIT_ASSERT_TRUE(test, netif_carrier_ok(b->dev));
	KUNIT_ASSERT_EQ(test, ipn_stat(b, qp_errors), 0u);

	WRITE_ONCE(kt_rx_post_victim, b);
	atomic_set(&kt_rx_post_fail, 1);
	for (i = 0; i < 50 && atomic_read(&kt_rx_post_fail); i++) {
		ipn_kunit_xmit(a, b->dev->dev_addr, htonl(0x0a630002));
		msleep(100);
	}
	WRITE_ONCE(kt_rx_post_victim, NULL);
	KUNIT_ASSERT_EQ_MSG(test, atomic_read(&kt_rx_post_fail), 0,
			    "B received nothing in 5 s");
	KUNIT_EXPECT_TRUE(test, kt_roce_recovered(b, 1));
	KUNIT_EXPECT_EQ(test, ipn_stat(b, qp_errors), 1u);
	KUNIT_EXPECT_EQ(test, kt_roce_qp(b, &posted), IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, posted, b->rx_size);
}

/* B received want frames, within 2 s. */
static bool kt_rx_reached(struct ipn_priv *b, u64 want)
{
	int i;

	for (i = 0; i < 40 && ipn_stat(b, rx_packets) < want; i++)
		msleep(50);
	return ipn_stat(b, rx_packets) >= want;
}

/* Every send of priv's queue q completed and freed, BQL's count at 0. */
static bool kt_txq_idle(struct ipn_priv *priv, unsigned int q)
{
	struct netdev_queue *nq = netdev_get_tx_queue(priv->dev, q);
	struct ipn_txq *txq = &priv->txq[q];

	return READ_ONCE(txq->tail) == READ_ONCE(txq->head) &&
	       READ_ONCE(nq->dql.num_completed) == READ_ONCE(nq->dql.num_queued);
}

/* The same of every transmit queue, within 2 s. */
static bool kt_tx_idle(struct ipn_priv *priv)
{
	unsigned int q;
	int i;

	for (i = 0; i < 40; i++) {
		for (q = 0; q < priv->txq_count && kt_txq_idle(priv, q); q++)
			;
		if (q == priv->txq_count)
			return true;
		msleep(50);
	}
	return false;
}

/*
 * A's sends to B with nothing else in between: B on the peer device, A
 * without IPv6 (no router solicitation or MLD report of the stack's among
 * the counted sends), the path to B resolved, A's ring idle.
 */
static struct ipn_priv *kt_roce_tx_pair(struct kunit *test, __be32 ip)
{
	struct kt_roce *c = test->priv;
	struct ipn_priv *a = c->priv, *b;
	struct inet6_dev *idev;
	int i;

	b = kt_roce_peer(test);
	rtnl_lock();
	idev = __in6_dev_get(a->dev);
	if (idev)
		idev->cnf.disable_ipv6 = 1;
	rtnl_unlock();
	/* The path first: frames wait for it, and go one by one after. */
	for (i = 0; i < 50 && !ipn_stat(b, rx_packets); i++) {
		ipn_kunit_xmit(a, b->dev->dev_addr, ip);
		msleep(100);
	}
	KUNIT_ASSERT_GT_MSG(test, ipn_stat(b, rx_packets), 0u,
			    "B received nothing in 5 s");
	KUNIT_ASSERT_TRUE(test, kt_tx_idle(a));
	/* Datagram mode: the stack releases the route before the qdisc. */
	KUNIT_EXPECT_TRUE(test, a->dev->priv_flags & IFF_XMIT_DST_RELEASE);
	return b;
}

/*
 * Issue 23's transmit batching: UD sends wait while netdev_xmit_more()
 * says more comes, then go in one post of at most IPN_TX_BATCH, and only
 * the last of a post asks for a completion; that one completion frees
 * the whole batch (a QP completes in order). 20 frames in one train: two
 * posts (16 + 4), 20 sends completed, the ring and BQL empty. Three
 * frames told "more": all three wait, nothing posted, until a fourth
 * without it. One left waiting when the interface closes: freed by the
 * drain at once, not after its 5 s wait for completions. The trains go
 * in one hold of the queue's lock.
 */
static void roce_tx_batch(struct kunit *test)
{
	struct kt_roce *c = test->priv;
	__be32 ip = htonl(0x0a630002);
	struct ipn_priv *a = c->priv, *b;
	u64 posts, sent, rx;
	unsigned long t;

	b = kt_roce_tx_pair(test, ip);
	rx = ipn_stat(b, rx_packets);
	sent = ipn_stat(a, tx_packets);
	KUNIT_EXPECT_EQ(test, ipn_kunit_xmit_train(a, b->dev->dev_addr, ip, 20,
						   false, &posts), 0u);
	KUNIT_EXPECT_EQ(test, posts, 2u);
	KUNIT_EXPECT_TRUE(test, kt_rx_reached(b, rx + 20));
	KUNIT_EXPECT_TRUE(test, kt_tx_idle(a));
	KUNIT_EXPECT_EQ(test, ipn_stat(a, tx_packets) - sent, 20u);
	KUNIT_EXPECT_EQ(test, ipn_stat(a, tx_errors), 0u);

	rx = ipn_stat(b, rx_packets);
	KUNIT_EXPECT_EQ(test, ipn_kunit_xmit_train(a, b->dev->dev_addr, ip, 3,
						   true, &posts), 3u);
	KUNIT_EXPECT_EQ(test, posts, 0u);
	KUNIT_EXPECT_EQ(test, ipn_kunit_xmit_train(a, b->dev->dev_addr, ip, 1,
						   false, &posts), 0u);
	KUNIT_EXPECT_EQ(test, posts, 1u);
	KUNIT_EXPECT_TRUE(test, kt_rx_reached(b, rx + 4));
	KUNIT_EXPECT_TRUE(test, kt_tx_idle(a));

	KUNIT_ASSERT_EQ(test, ipn_kunit_xmit_train(a, b->dev->dev_addr, ip, 1,
						   true, NULL), 1u);
	t = jiffies;
	rtnl_lock();
	dev_close(a->dev);
	rtnl_unlock();
	KUNIT_EXPECT_LT(test, jiffies_to_msecs(jiffies - t), 2000u);
}

/*
 * Review 2026-12 L4: a send completion that comes after its ring was
 * drained (a provider that keeps a destroyed or reset QP's completions)
 * names a position of the old ring. The ring's positions run on across a
 * drain, so it falls outside the new ring and is ignored. Before, the
 * drain set them back to 0 and such a completion could land on a send of
 * the new ring still waiting to be posted, which it freed under the queue.
 */
static void roce_tx_stale_completion(struct kunit *test)
{
	struct kt_roce *c = test->priv;
	__be32 ip = htonl(0x0a630002);
	struct ipn_priv *a = c->priv, *b;
	struct ib_wc wc = { .status = IB_WC_SUCCESS, .opcode = IB_WC_SEND };
	unsigned int i, mask, base;
	struct ipn_txq *txq;
	u64 rx;

	b = kt_roce_tx_pair(test, ip);
	rx = ipn_stat(b, rx_packets);
	/* The old ring: more than 20 positions used. */
	ipn_kunit_xmit_train(a, b->dev->dev_addr, ip, 20, false, NULL);
	KUNIT_ASSERT_TRUE(test, kt_rx_reached(b, rx + 20));
	KUNIT_ASSERT_TRUE(test, kt_tx_idle(a));
	rtnl_lock();
	dev_close(a->dev);	/* the drain */
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, ipn_kunit_open(a), 0);
	txq = &a->txq[0];
	mask = a->tx_size - 1;
	base = READ_ONCE(txq->head);	/* where the new ring starts */
	rx = ipn_stat(b, rx_packets);
	for (i = 0; i < 50 && ipn_stat(b, rx_packets) == rx; i++) {
		ipn_kunit_xmit(a, b->dev->dev_addr, ip);	/* the path again */
		msleep(100);
	}
	KUNIT_ASSERT_TRUE(test, kt_tx_idle(a));
	KUNIT_ASSERT_LT(test, READ_ONCE(txq->head) - base, 16u);
	rx = ipn_stat(b, rx_packets);
	/* Four sends waiting for more, not posted. */
	KUNIT_ASSERT_EQ(test, ipn_kunit_xmit_train(a, b->dev->dev_addr, ip, 4,
						   true, NULL), 4u);
	/*
	 * A completion of the old ring's send at the position, counted from
	 * 0, that the first send now waiting has in the new ring: a ring
	 * counted from 0 again gives it to that send.
	 */
	wc.wr_id = txq->head - 4 - base;
	wc.qp = txq->qp;
	napi_disable(&txq->napi);	/* as TX NAPI would deliver it */
	local_bh_disable();
	ipn_tx_one(txq, &wc, 0);
	local_bh_enable();
	napi_enable(&txq->napi);
	KUNIT_EXPECT_EQ(test, txq->pending, 4u);
	for (i = 1; i <= 4; i++)
		KUNIT_EXPECT_NOT_NULL_MSG(test,
					  txq->ring[(txq->head - i) & mask].skb,
					  "the send %u before head was freed", i);
	/* They go with the next, and all five arrive. */
	KUNIT_EXPECT_EQ(test, ipn_kunit_xmit_train(a, b->dev->dev_addr, ip, 1,
						   false, NULL), 0u);
	KUNIT_EXPECT_TRUE(test, kt_rx_reached(b, rx + 5));
	KUNIT_EXPECT_TRUE(test, kt_tx_idle(a));
}

/*
 * A chain the device refuses: whole (a QP not in RTS), or after taking
 * part of it (a QP failing mid-chain). Refused sends are dropped and
 * counted; BQL learns of their bytes as completed, in TX NAPI, or the
 * queue would stay stopped for good (and a completion counted before the
 * bytes were queued is a BUG_ON in dql_completed: they are queued before
 * the post). Sends taken without a completion of their own would never
 * be freed: the QP is restarted (review M5), and its drain frees them.
 */
static void roce_tx_post_fails(struct kunit *test)
{
	struct kt_roce *c = test->priv;
	__be32 ip = htonl(0x0a630002);
	struct ipn_priv *a = c->priv, *b;
	u64 errors, rx;

	b = kt_roce_tx_pair(test, ip);
	WRITE_ONCE(kt_tx_cut_victim, a);

	errors = ipn_stat(a, tx_errors);
	atomic_set(&kt_tx_cut, 0);
	ipn_kunit_xmit_train(a, b->dev->dev_addr, ip, 3, false, NULL);
	KUNIT_EXPECT_EQ(test, ipn_stat(a, tx_errors) - errors, 3u);
	KUNIT_EXPECT_TRUE(test, kt_tx_idle(a));
	KUNIT_EXPECT_EQ(test, ipn_stat(a, qp_errors), 0u);
	rx = ipn_stat(b, rx_packets);
	ipn_kunit_xmit_train(a, b->dev->dev_addr, ip, 2, false, NULL);
	KUNIT_EXPECT_TRUE(test, kt_rx_reached(b, rx + 2));
	KUNIT_EXPECT_TRUE(test, kt_tx_idle(a));

	errors = ipn_stat(a, tx_errors);
	atomic_set(&kt_tx_cut, 2);
	ipn_kunit_xmit_train(a, b->dev->dev_addr, ip, 4, false, NULL);
	KUNIT_EXPECT_EQ(test, ipn_stat(a, tx_errors) - errors, 2u);
	KUNIT_EXPECT_TRUE(test, kt_roce_recovered(a, 1));
	KUNIT_EXPECT_EQ(test, ipn_stat(a, qp_errors), 1u);
	KUNIT_EXPECT_TRUE(test, kt_tx_idle(a));
	rx = ipn_stat(b, rx_packets);
	ipn_kunit_xmit(a, b->dev->dev_addr, ip);
	KUNIT_EXPECT_TRUE(test, kt_rx_reached(b, rx + 1));
}

/* Every path torn down, their handles released (as at interface down). */
static void kt_paths_down(struct ipn_priv *priv)
{
	mutex_lock(&priv->ctl_mutex);
	ipn_path_destroy_all(priv);
	mutex_unlock(&priv->ctl_mutex);
}

/* Address handles released, still waiting for sends (ipn_ah_reap). */
static bool kt_ah_waiting(struct ipn_priv *priv)
{
	bool waiting;
	unsigned int i;

	flush_workqueue(priv->wq);
	spin_lock_irq(&priv->reap_lock);
	waiting = !list_empty(&priv->ah_reap);
	spin_unlock_irq(&priv->reap_lock);
	mutex_lock(&priv->reap_mutex);
	for (i = 0; i < IPN_AH_BATCHES; i++)
		waiting |= !list_empty(&priv->ah_batch[i].ahs);
	mutex_unlock(&priv->reap_mutex);
	return waiting;
}

/*
 * One send to B told more follows, so it waits unposted on queue 0, and
 * then A's paths torn down: the reap keeps the handle, and queue 0's TX
 * NAPI is to tell it when the send is gone.
 */
static void kt_release_waiting(struct kunit *test, struct ipn_priv *a,
			       struct ipn_priv *b, __be32 ip)
{
	KUNIT_ASSERT_EQ(test, ipn_kunit_xmit_train(a, b->dev->dev_addr, ip, 1,
						   true, NULL), 1u);
	kt_paths_down(a);
	KUNIT_EXPECT_TRUE(test, kt_ah_waiting(a));
	KUNIT_EXPECT_TRUE(test, READ_ONCE(a->txq[0].ah_waiting));
}

/*
 * One more send posts the waiting one; B receives both (rx counted
 * before them), A's rings go idle, and the reap then lets the handle go.
 */
static void kt_post_and_reaped(struct kunit *test, struct ipn_priv *a,
			       struct ipn_priv *b, __be32 ip, u64 rx)
{
	int i;

	ipn_kunit_xmit(a, b->dev->dev_addr, ip);
	KUNIT_EXPECT_TRUE(test, kt_rx_reached(b, rx + 2));
	KUNIT_EXPECT_TRUE(test, kt_tx_idle(a));
	for (i = 0; i < 40 && kt_ah_waiting(a); i++)
		msleep(50);
	KUNIT_EXPECT_FALSE(test, kt_ah_waiting(a));
	KUNIT_EXPECT_EQ(test, ipn_stat(a, tx_errors), 0u);
}

/*
 * Issue 23: a send holds no reference on its address handle; it records
 * its ring position in it, and a released handle is destroyed only once
 * the ring's tail has passed that. A send waiting to be posted (more to
 * come) when its path is torn down: the reap keeps the handle, the send
 * goes with it and is received, and its completion has TX NAPI queue
 * the reap again, which destroys it.
 */
static void roce_tx_ah_retired_by_ring(struct kunit *test)
{
	struct kt_roce *c = test->priv;
	__be32 ip = htonl(0x0a630002);
	struct ipn_priv *a = c->priv, *b;
	u64 rx;

	b = kt_roce_tx_pair(test, ip);
	KUNIT_ASSERT_FALSE(test, kt_ah_waiting(a));
	rx = ipn_stat(b, rx_packets);
	/* The second send (waiting for the new path) posts the first. */
	kt_release_waiting(test, a, b, ip);
	kt_post_and_reaped(test, a, b, ip, rx);
}

/*
 * One reap that destroys a handle and keeps another: A's send has
 * completed, B's waits in the ring. A is destroyed, B stays on the
 * list, and once its send completes it goes too. A reap that freed A
 * without taking it off the list walked into it when it moved B
 * (KASAN: use-after-free in list_move_tail), found in review.
 */
static void roce_tx_ah_retire_mixed(struct kunit *test)
{
	struct kt_roce *c = test->priv;
	__be32 ip = htonl(0x0a630002);
	struct ipn_priv *a = c->priv, *b;
	u64 rx;

	b = kt_roce_tx_pair(test, ip);
	rx = ipn_stat(b, rx_packets);
	/* A: released with its send waiting; the reap keeps it. */
	kt_release_waiting(test, a, b, ip);
	/* Its send completes, TX NAPI told nothing: A stays listed. */
	WRITE_ONCE(a->txq[0].ah_waiting, false);
	ipn_kunit_xmit(a, b->dev->dev_addr, ip);
	KUNIT_ASSERT_TRUE(test, kt_rx_reached(b, rx + 2));
	KUNIT_ASSERT_TRUE(test, kt_tx_idle(a));
	KUNIT_ASSERT_TRUE(test, kt_ah_waiting(a));
	/* B: the new path's handle, released with its send waiting. */
	kt_release_waiting(test, a, b, ip);
	kt_post_and_reaped(test, a, b, ip, rx + 2);
}

/*
 * Issue 23's transmit queues (ethtool -L tx 2): a second UD QP on the
 * same P_Key index, in RTS, its QPN in the core's list of ours. A frame
 * on queue 1 is posted on that QP and completes on its CQ (queue 1's
 * counter). A broadcast sent from it comes back to queue 0's QP (rxe
 * loops multicast back) and is dropped as our own, not delivered as a
 * stranger's. Back to one queue: the second QP and the list are gone.
 */
static void roce_tx_queues(struct kunit *test)
{
	struct kt_roce *c = test->priv;
	__be32 ip = htonl(0x0a630002);
	struct ipn_priv *a = c->priv, *b;
	unsigned int was = a->txq_count;
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;
	u64 rx, p1, loop;
	int i;

	KUNIT_ASSERT_GE_MSG(test, a->txq_max, 2u,
			    "the test VM has at least two CPUs");
	KUNIT_ASSERT_EQ(test, ipn_kunit_set_txqs(a, 2), 0);
	KUNIT_EXPECT_EQ(test, a->txq_count, 2u);
	KUNIT_EXPECT_EQ(test, a->dev->real_num_tx_queues, 2u);
	KUNIT_ASSERT_NOT_NULL(test, a->txq[1].qp);
	KUNIT_EXPECT_NE(test, a->txq[1].qp->qp_num, a->qp->qp_num);
	KUNIT_EXPECT_EQ(test, a->ifid.send_qpns, 1u);
	KUNIT_EXPECT_EQ(test, a->ifid.send_qpn[0], a->txq[1].qp->qp_num);
	KUNIT_ASSERT_EQ(test, ib_query_qp(a->txq[1].qp, &attr,
					  IB_QP_STATE | IB_QP_PKEY_INDEX,
					  &init), 0);
	KUNIT_EXPECT_EQ(test, attr.qp_state, IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, attr.pkey_index, a->pkey_index);

	b = kt_roce_tx_pair(test, ip);
	rx = ipn_stat(b, rx_packets);
	p1 = ipn_kunit_txq_packets(a, 1);
	ipn_kunit_xmit_on(a, 1, b->dev->dev_addr, ip);
	KUNIT_EXPECT_TRUE(test, kt_rx_reached(b, rx + 1));
	KUNIT_EXPECT_TRUE(test, kt_tx_idle(a));
	KUNIT_EXPECT_GE(test, ipn_kunit_txq_packets(a, 1) - p1, 1u);

	loop = ipn_stat_drop(a, IPC_R_LOOPBACK);
	rx = ipn_stat(b, rx_packets);
	ipn_kunit_xmit_on(a, 1, a->dev->broadcast, htonl(0x0a6300ff));
	KUNIT_EXPECT_TRUE(test, kt_rx_reached(b, rx + 1));
	for (i = 0; i < 40 && ipn_stat_drop(a, IPC_R_LOOPBACK) == loop; i++)
		msleep(50);
	KUNIT_EXPECT_GE_MSG(test, ipn_stat_drop(a, IPC_R_LOOPBACK) - loop, 1u,
			    "our broadcast from queue 1 was not dropped as ours");
	KUNIT_EXPECT_EQ(test, ipn_stat(a, tx_errors), 0u);

	KUNIT_ASSERT_EQ(test, ipn_kunit_set_txqs(a, 1), 0);
	KUNIT_EXPECT_EQ(test, a->dev->real_num_tx_queues, 1u);
	KUNIT_EXPECT_NULL(test, a->txq[1].qp);
	KUNIT_EXPECT_EQ(test, a->ifid.send_qpns, 0u);
	rtnl_lock();
	KUNIT_EXPECT_EQ(test, ipn_dev_set_txqs(a, a->txq_max + 1, NULL),
			-EINVAL);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, a->txq_count, 1u);
	KUNIT_EXPECT_EQ(test, ipn_kunit_set_txqs(a, was), 0);
}

/*
 * B's n-th receive allocation from now fails while A sends it an IPv4
 * frame of len bytes: true once it did.
 */
static bool kt_rx_alloc_fail_on(struct ipn_priv *a, struct ipn_priv *b,
				int n, unsigned int len)
{
	ipn_kunit_rx_alloc_fail_at(b, n);
	ipn_kunit_xmit_ip(a, b->dev->dev_addr, htonl(0x0a630002), len);
	return ipn_kunit_rx_alloc_failed();
}

/*
 * A received frame for which NAPI gets no skb, or no page to put in the
 * slot in place of the one the frame filled (GFP_ATOMIC, under memory
 * pressure): the frame is dropped, counted in rx_dropped and
 * rx_alloc_fail (qstats' rx-alloc-fail, which pp_alloc_fail.py reads),
 * and the slot is posted again as it was: the ring stays full, the QP
 * runs, the next frame arrives. 64 bytes: the skb fails; 1024 (past the
 * 256-byte head, so the page is the frame's): first the skb, then the
 * page with the skb already taken (it must not leak: kmemleak).
 */
static void roce_rx_alloc_fails(struct kunit *test)
{
	struct kt_roce *c = test->priv;
	struct ipn_priv *a = c->priv, *b;
	static const struct {
		unsigned int len;
		int at;
	} cases[] = { { 64, 1 }, { 1024, 1 }, { 1024, 2 } };
	unsigned int posted, k;
	u64 rx, dropped, failed;

	b = kt_roce_tx_pair(test, htonl(0x0a630002));
	for (k = 0; k < ARRAY_SIZE(cases); k++) {
		kunit_info(test, "%u bytes, allocation %d fails\n",
			   cases[k].len, cases[k].at);
		rx = ipn_stat(b, rx_packets);
		dropped = ipn_stat(b, rx_dropped);
		failed = ipn_stat(b, rx_alloc_fail);
		KUNIT_ASSERT_TRUE_MSG(test,
				      kt_rx_alloc_fail_on(a, b, cases[k].at,
							  cases[k].len),
				      "B received nothing in 2 s");
		KUNIT_EXPECT_TRUE(test, kt_tx_idle(a));
		KUNIT_EXPECT_EQ(test, ipn_stat(b, rx_alloc_fail), failed + 1);
		KUNIT_EXPECT_EQ(test, ipn_stat(b, rx_dropped), dropped + 1);
		KUNIT_EXPECT_EQ(test, ipn_stat(b, rx_packets), rx);
		KUNIT_EXPECT_EQ(test, kt_roce_qp(b, &posted), IB_QPS_RTS);
		KUNIT_EXPECT_EQ(test, posted, b->rx_size);

		ipn_kunit_xmit_ip(a, b->dev->dev_addr, htonl(0x0a630002),
				  cases[k].len);
		KUNIT_EXPECT_TRUE(test, kt_rx_reached(b, rx + 1));
		KUNIT_EXPECT_EQ(test, ipn_stat(b, rx_alloc_fail), failed + 1);
	}
	KUNIT_EXPECT_EQ(test, ipn_stat(b, qp_errors), 0u);
}

static struct kunit_case ipn_roce_cases[] = {
	KUNIT_CASE(roce_child_partition),
	KUNIT_CASE(roce_cm_req_other_partition),
	KUNIT_CASE(roce_cm_req_cap),
	KUNIT_CASE(roce_cm_req_other_port),
	KUNIT_CASE(roce_path_link_local),
	KUNIT_CASE(roce_path_routed_ipv6),
	KUNIT_CASE(roce_path_routed_ipv4),
	KUNIT_CASE(roce_path_requery_waits_for_request),
	KUNIT_CASE(roce_cm_path_rec_from_handle),
	KUNIT_CASE(roce_path_unreachable),
	KUNIT_CASE(roce_set_address),
	KUNIT_CASE(roce_qp_error_recovered),
	KUNIT_CASE(roce_qp_error_backoff),
	KUNIT_CASE(roce_qp_error_then_down_up),
	KUNIT_CASE(roce_qp_failed_while_freed),
	KUNIT_CASE(roce_rx_repost_fails),
	KUNIT_CASE(roce_rx_alloc_fails),
	KUNIT_CASE(roce_tx_batch),
	KUNIT_CASE(roce_tx_post_fails),
	KUNIT_CASE(roce_tx_ah_retired_by_ring),
	KUNIT_CASE(roce_tx_ah_retire_mixed),
	KUNIT_CASE(roce_tx_queues),
	KUNIT_CASE(roce_tick_rate),
	/* Last: without its fix, it frees a send under the queue. */
	KUNIT_CASE(roce_tx_stale_completion),
	{}
};

static struct kunit_suite ipn_roce_suite = {
	.name = "ipoib_ng_roce",
	.init = kt_roce_init,
	.exit = kt_roce_exit,
	.test_cases = ipn_roce_cases,
};

kunit_test_suite(ipn_roce_suite);
