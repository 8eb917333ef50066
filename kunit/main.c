// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - the KUnit module ipoib_ng_kunit.ko: the shim's globals, and the
 * parameter naming the RDMA device the device suites run on.
 *
 * The suites run when the module is loaded (KUnit runs a module's suites
 * before its init). Results: /sys/kernel/debug/kunit/<suite>/results.
 * The device suites (ipoib_ng_sa) need an RDMA device with a RoCE port 1
 * that no other IPoIB driver uses: tests/vm/scenarios/kunit.sh makes one
 * with rdma_rxe.
 */
#define IPN_KUNIT 1
#include <linux/delay.h>
#include <linux/ip.h>
#include <linux/module.h>
#include "ipoib_ng.h"
#include "ipn_kunit.h"

int ipn_recvq_size = 64;
int ipn_sendq_size = 64;
/* The module's defaults: a case that needs a rejoin or revalidation at once says so. */
unsigned int ipn_rejoin_spread_ms = 10000;
unsigned int ipn_path_spread_ms = 45000;
unsigned int ipn_sa_rate = 50;
unsigned int ipn_sa_burst = 128;
bool ipn_create_broadcast;		/* set by the case that creates */
unsigned int ipn_sendonly_idle_ms = 60000;
unsigned int ipn_cm_rx_max = 512;
unsigned int ipn_cm_tx_max = 1024;
unsigned int ipn_paths_max = IPN_PATHS_DEFAULT;
unsigned int ipn_groups_max = IPN_GROUPS_DEFAULT;
bool ipn_promisc_allmulti;		/* set by the case that needs it */
bool ipn_sa_notices;			/* set by the s10 cases */
bool ipn_link_kind;			/* the KUnit module registers none */
char ipn_ports[IPN_PORTS_LEN];		/* every port */

char *ipn_kunit_ibdev = "rxe0";
module_param_named(ibdev, ipn_kunit_ibdev, charp, 0444);
MODULE_PARM_DESC(ibdev, "RDMA device (RoCE port 1) for the device suites (default rxe0)");

char *ipn_kunit_roce_peer = "vb";
module_param_named(roce_peer, ipn_kunit_roce_peer, charp, 0444);
MODULE_PARM_DESC(roce_peer,
		 "The netdev across ibdev's link, with fd99::2/64 and 192.168.99.2/24 routed as another host's (default vb)");

/* The device named by ibdev, referenced (ib_device_put); fails the case without it. */
struct ib_device *ipn_kunit_get_ibdev(struct kunit *test)
{
	struct ib_device *ca;

	ca = ib_device_get_by_name(ipn_kunit_ibdev, RDMA_DRIVER_UNKNOWN);
	KUNIT_ASSERT_NOT_NULL_MSG(test, ca,
				  "no RDMA device %s (module parameter ibdev)",
				  ipn_kunit_ibdev);
	return ca;
}

/* The RDMA device on the roce_peer netdev, referenced; fails without. */
struct ib_device *ipn_kunit_get_peer_ibdev(struct kunit *test)
{
	struct net_device *ndev;
	struct ib_device *ca = NULL;

	ndev = dev_get_by_name(&init_net, ipn_kunit_roce_peer);
	if (ndev) {
		ca = ib_device_get_by_netdev(ndev, RDMA_DRIVER_UNKNOWN);
		dev_put(ndev);
	}
	KUNIT_ASSERT_NOT_NULL_MSG(test, ca, "no RDMA device on %s (roce_peer)",
				  ipn_kunit_roce_peer);
	return ca;
}

/*
 * Receive allocations (skb, page) of kt_rx_alloc_victim: the
 * kt_rx_alloc_at-th from now fails, once.
 */
static const struct ipn_priv *kt_rx_alloc_victim;
static atomic_t kt_rx_alloc_at = ATOMIC_INIT(0);

bool ipn_kunit_rx_alloc_fails(const struct ipn_priv *priv)
{
	return priv == READ_ONCE(kt_rx_alloc_victim) &&
	       atomic_dec_if_positive(&kt_rx_alloc_at) == 0;
}

void ipn_kunit_rx_alloc_fail_at(const struct ipn_priv *priv, int n)
{
	atomic_set(&kt_rx_alloc_at, n);
	WRITE_ONCE(kt_rx_alloc_victim, n ? priv : NULL);
}

static const struct ipn_priv *kt_cm_poll_held;

bool ipn_kunit_cm_poll_held(const struct ipn_priv *priv)
{
	return priv == READ_ONCE(kt_cm_poll_held);
}

void ipn_kunit_cm_poll_hold(const struct ipn_priv *priv)
{
	WRITE_ONCE(kt_cm_poll_held, priv);
}

bool ipn_kunit_rx_alloc_failed(void)
{
	int i;

	for (i = 0; i < 40 && atomic_read(&kt_rx_alloc_at) > 0; i++)
		msleep(50);
	WRITE_ONCE(kt_rx_alloc_victim, NULL);
	return !atomic_xchg(&kt_rx_alloc_at, 0);
}

/*
 * A frame of len bytes of type proto (data, or zeros if data is NULL) to
 * the 20-byte address daddr.
 */
static struct sk_buff *kt_skb(struct ipn_priv *priv, const u8 *daddr,
			      u16 proto, const void *data, unsigned int len)
{
	struct net_device *dev = priv->dev;
	struct sk_buff *skb;

	skb = alloc_skb(IPN_HARD_LEN + len, GFP_KERNEL);
	if (!skb)
		return NULL;
	skb_reserve(skb, IPN_HARD_LEN);
	if (data)
		skb_put_data(skb, data, len);
	else
		skb_put_zero(skb, len);
	skb_reset_network_header(skb);
	skb->dev = dev;
	skb->protocol = htons(proto);
	dev_hard_header(skb, dev, proto, daddr, NULL, skb->len);
	skb_reset_mac_header(skb);
	return skb;
}

/*
 * Transmit skbs[0..n) as the stack does, in one hold of the queue's lock
 * (nothing of the stack's comes between), netdev_xmit_more() true for
 * all but the last, and for the last too if last_more, on transmit
 * queue q. Returns the UD sends left waiting there and the posts made
 * (*posts).
 */
static unsigned int kt_xmit_skbs_on(struct ipn_priv *priv, unsigned int q,
				    struct sk_buff **skbs, unsigned int n,
				    bool last_more, u64 *posts)
{
	struct net_device *dev = priv->dev;
	struct netdev_queue *txq;
	unsigned int i, pending;
	u64 before;

	local_bh_disable();
	txq = netdev_get_tx_queue(dev, q);
	__netif_tx_lock(txq, smp_processor_id());
	before = ipn_stat(priv, tx_posts);
	for (i = 0; i < n; i++) {
		skb_set_queue_mapping(skbs[i], q);
		/* As dev_hard_start_xmit(): netdev_xmit_more() tells more. */
		if (netdev_start_xmit(skbs[i], dev, txq,
				      i + 1 < n || last_more) != NETDEV_TX_OK)
			kfree_skb(skbs[i]);
	}
	pending = priv->txq[q].pending;
	if (posts)
		*posts = ipn_stat(priv, tx_posts) - before;
	__netif_tx_unlock(txq);
	local_bh_enable();
	return pending;
}

static unsigned int kt_xmit_skbs(struct ipn_priv *priv, struct sk_buff **skbs,
				 unsigned int n, bool last_more, u64 *posts)
{
	return kt_xmit_skbs_on(priv, 0, skbs, n, last_more, posts);
}

static void kt_xmit(struct ipn_priv *priv, const u8 *daddr, u16 proto,
		    const void *data, unsigned int len)
{
	struct sk_buff *skb = kt_skb(priv, daddr, proto, data, len);

	if (skb)
		kt_xmit_skbs(priv, &skb, 1, false, NULL);
}

void ipn_kunit_xmit_frame(struct ipn_priv *priv, const u8 *daddr, u16 proto,
			  const void *data, unsigned int len)
{
	kt_xmit(priv, daddr, proto, data, len);
}

/* An IPv4 frame of len (>= 20) bytes to ip_dst: a header, then zeros. */
static struct sk_buff *kt_ip_skb(struct ipn_priv *priv, const u8 *daddr,
				 __be32 ip_dst, unsigned int len)
{
	struct sk_buff *skb = kt_skb(priv, daddr, ETH_P_IP, NULL, len);
	struct iphdr *ip;

	if (!skb)
		return NULL;
	ip = ip_hdr(skb);
	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 1;
	ip->tot_len = htons(len);
	ip->daddr = ip_dst;
	return skb;
}

/* Send one IPv4 frame to the 20-byte address daddr, as the stack does. */
void ipn_kunit_xmit(struct ipn_priv *priv, const u8 *daddr, __be32 ip_dst)
{
	ipn_kunit_xmit_train(priv, daddr, ip_dst, 1, false, NULL);
}

/* An IPv4 frame of len (>= 20) bytes to ip_dst, on transmit queue 0. */
void ipn_kunit_xmit_ip(struct ipn_priv *priv, const u8 *daddr, __be32 ip_dst,
		       unsigned int len)
{
	struct sk_buff *skb = kt_ip_skb(priv, daddr, ip_dst, len);

	if (skb)
		kt_xmit_skbs(priv, &skb, 1, false, NULL);
}

/* The same on transmit queue q. */
void ipn_kunit_xmit_on(struct ipn_priv *priv, unsigned int q, const u8 *daddr,
		       __be32 ip_dst)
{
	struct sk_buff *skb = kt_ip_skb(priv, daddr, ip_dst, 64);

	if (skb)
		kt_xmit_skbs_on(priv, q, &skb, 1, false, NULL);
}

/*
 * The transmit queue the driver picks for an IPv4 frame to daddr whose
 * flow hash is hash (with no XPS map and no socket: the stack's pick is
 * hash scaled to the queues).
 */
u16 ipn_kunit_select_queue(struct ipn_priv *priv, const u8 *daddr, u32 hash)
{
	struct sk_buff *skb = kt_ip_skb(priv, daddr, htonl(0x0a630063), 64);
	u16 q;

	if (!skb)
		return U16_MAX;
	skb_set_hash(skb, hash, PKT_HASH_TYPE_L4);
	q = ipn_select_queue(priv->dev, skb, NULL);
	kfree_skb(skb);
	return q;
}

unsigned int ipn_kunit_xmit_train(struct ipn_priv *priv, const u8 *daddr,
				  __be32 ip_dst, unsigned int n,
				  bool last_more, u64 *posts)
{
	struct sk_buff *skbs[32];
	unsigned int i;

	n = min_t(unsigned int, n, ARRAY_SIZE(skbs));
	for (i = 0; i < n; i++) {
		skbs[i] = kt_ip_skb(priv, daddr, ip_dst, 64);
		if (!skbs[i])
			break;
	}
	return kt_xmit_skbs(priv, skbs, i, last_more, posts);
}

/* Let the interface's works and the core's timers run for about ms. */
void ipn_kunit_settle(struct ipn_priv *priv, unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	do {
		flush_workqueue(priv->wq);
		msleep(20);
	} while (time_before(jiffies, end));
}

/*
 * ethtool -L tx n on priv (the datapath made again if it runs), then up
 * to 2 s for the carrier of a running interface. ipn_dev_set_txqs()'s
 * result.
 */
int ipn_kunit_set_txqs(struct ipn_priv *priv, unsigned int n)
{
	int ret, i;

	rtnl_lock();
	ret = ipn_dev_set_txqs(priv, n, NULL);
	rtnl_unlock();
	for (i = 0; !ret && netif_running(priv->dev) && i < 100 &&
	     !netif_carrier_ok(priv->dev); i++)
		ipn_kunit_settle(priv, 20);
	return ret;
}

/* The sends transmit queue q of priv completed (ethtool -S txN_packets). */
u64 ipn_kunit_txq_packets(struct ipn_priv *priv, unsigned int q)
{
	u64 packets, bytes;

	ipn_txq_stats_read(priv, q, q + 1, &packets, &bytes);
	return packets;
}

/*
 * Open priv's interface and wait up to 2 s for its carrier (the broadcast
 * group joined). Returns dev_open()'s result.
 */
int ipn_kunit_open(struct ipn_priv *priv)
{
	int ret, i;

	rtnl_lock();
	ret = dev_open(priv->dev, NULL);
	rtnl_unlock();
	for (i = 0; !ret && i < 100 && !netif_carrier_ok(priv->dev); i++)
		ipn_kunit_settle(priv, 20);
	return ret;
}

/*
 * A P_Key child of parent, made as rtnl_newlink makes one: the net_device
 * allocated with the driver's setup, ipn_child_create() under rtnl, freed
 * by the caller on failure.
 */
struct ipn_priv *ipn_kunit_child(struct ipn_priv *parent, u16 pkey)
{
	struct net_device *dev;
	int ret;

	dev = alloc_netdev(sizeof(struct ipn_priv), "ktc%d", NET_NAME_ENUM,
			   ipn_setup);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	rtnl_lock();
	ret = ipn_child_create(parent, dev, pkey, false);
	if (ret)
		free_netdev(dev);
	rtnl_unlock();
	return ret ? ERR_PTR(ret) : netdev_priv(dev);
}

/* The 20-byte multicast address of mgid (RFC 4391 s9.1.1: QPN 0xffffff). */
void ipn_kunit_mc_addr(u8 *hw, const u8 *mgid)
{
	struct ipc_addr a = { .qpn = IPC_QPN_MCAST };

	memcpy(a.gid, mgid, 16);
	ipc_addr_encode(&a, hw);
}

/* What the path to gid is now; state -1: there is none. */
struct ipn_kunit_path ipn_kunit_path(struct ipn_priv *priv, const u8 *gid)
{
	struct ipn_kunit_path snap = { .state = -1, .queued = -1 };
	struct ipn_path *path;

	spin_lock_bh(&priv->lock);
	path = ipn_path_find(priv, gid);
	if (path) {
		snap.state = path->st.state;
		snap.status = path->st.last_status;
		snap.queued = skb_queue_len(&path->e.queue);
		snap.ah = path->ah ? path->ah->ah : NULL;
		snap.resolver = !!path->dev_addr;
		snap.requesting = path->dev_addr && path->dev_addr->sgid_attr;
		memcpy(snap.dmac, path->attr.roce.dmac, ETH_ALEN);
		snap.sgid_index = path->attr.grh.sgid_index;
		snap.hop_limit = path->attr.grh.hop_limit;
	}
	spin_unlock_bh(&priv->lock);
	return snap;
}

MODULE_DESCRIPTION("KUnit suites of ipoib_ng");
MODULE_LICENSE("GPL");
