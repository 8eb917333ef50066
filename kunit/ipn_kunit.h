/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the KUnit suites of ipoib_ng (kunit/). */
#ifndef IPN_KUNIT_H
#define IPN_KUNIT_H

#include <kunit/test.h>
#include <kunit/resource.h>

#include <linux/string.h>
#include <net/if_inet6.h>
#include <net/ip.h>

struct ib_device;
struct ipn_priv;

/*
 * The MGID the stack maps an IP group to on the link of bcast_gid (RFC
 * 4391 s4), by the kernel's own helpers: the tests' oracle.
 */
static inline void kt_mgid_v4(const u8 *ip, const u8 *bcast_gid, u8 *mgid)
{
	u8 bcast[20] = {}, hw[20];
	__be32 group;

	memcpy(&group, ip, 4);
	memcpy(bcast + 4, bcast_gid, 16);
	ip_ib_mc_map(group, bcast, hw);
	memcpy(mgid, hw + 4, 16);
}

static inline void kt_mgid_v6(const u8 *ip6, const u8 *bcast_gid, u8 *mgid)
{
	u8 bcast[20] = {}, hw[20];
	struct in6_addr group;

	memcpy(&group, ip6, 16);
	memcpy(bcast + 4, bcast_gid, 16);
	ipv6_ib_mc_map(&group, bcast, hw);
	memcpy(mgid, hw + 4, 16);
}

extern char *ipn_kunit_ibdev;
extern char *ipn_kunit_roce_peer;
struct ib_device *ipn_kunit_get_ibdev(struct kunit *test);
struct ib_device *ipn_kunit_get_peer_ibdev(struct kunit *test);

/* A path's state, copied under the interface's lock; state -1: none. */
struct ipn_kunit_path {
	int state;
	int status;		/* last query status */
	int queued;		/* frames the shim holds for it */
	struct ib_ah *ah;	/* the handle it caches */
	bool resolver;		/* RoCE: rdma_resolve_ip was used */
	bool requesting;	/* RoCE: a request of it is outstanding */
	u8 dmac[6];
	u8 sgid_index;
	u8 hop_limit;
};

struct ipn_kunit_path ipn_kunit_path(struct ipn_priv *priv, const u8 *gid);

/* The netlink dump's message of a path (mgid NULL) or group (shim_genl.c). */
int ipn_kunit_genl_msg(struct ipn_priv *priv, const u8 *gid, const u8 *mgid,
		       struct sk_buff *skb);

/*
 * priv's n-th receive allocation (an skb or a page, in NAPI) from now
 * fails, once (n 0, priv NULL: none). ipn_kunit_rx_alloc_failed() waits
 * up to 2 s for it, disarms, and tells whether it failed.
 */
void ipn_kunit_rx_alloc_fail_at(const struct ipn_priv *priv, int n);
bool ipn_kunit_rx_alloc_failed(void);

/*
 * priv's CM NAPI polls nothing and leaves its CQ unarmed (NULL: none);
 * whoever releases it schedules the NAPI.
 */
void ipn_kunit_cm_poll_hold(const struct ipn_priv *priv);

/* Send one IPv4 frame to the 20-byte address daddr, as the stack does. */
void ipn_kunit_xmit(struct ipn_priv *priv, const u8 *daddr, __be32 ip_dst);
/* The same, len (>= 20) bytes long: an IPv4 header, then zeros. */
void ipn_kunit_xmit_ip(struct ipn_priv *priv, const u8 *daddr, __be32 ip_dst,
		       unsigned int len);
void ipn_kunit_xmit_on(struct ipn_priv *priv, unsigned int q, const u8 *daddr,
		       __be32 ip_dst);
u16 ipn_kunit_select_queue(struct ipn_priv *priv, const u8 *daddr, u32 hash);
/*
 * n (<= 32) of them in one hold of the queue's lock, netdev_xmit_more()
 * saying more (a qdisc's bulk, a GSO train) for all but the last, and for
 * the last too if last_more. Returns the sends left waiting (queue 0);
 * *posts: the batches posted meanwhile.
 */
unsigned int ipn_kunit_xmit_train(struct ipn_priv *priv, const u8 *daddr,
				  __be32 ip_dst, unsigned int n,
				  bool last_more, u64 *posts);
/* The same with len bytes of data of type proto. */
void ipn_kunit_xmit_frame(struct ipn_priv *priv, const u8 *daddr, u16 proto,
			  const void *data, unsigned int len);

/*
 * Control-path faults (kunit/fault_test.c): from arm(n) on, the n-th
 * ipn_fault() site reached fails; disarm() returns what was left of n
 * (> 0: fewer than n sites were reached).
 */
void ipn_kunit_fault_arm(int n);
int ipn_kunit_fault_disarm(void);

/* Let the interface's works and the core's timers run for about ms. */
void ipn_kunit_settle(struct ipn_priv *priv, unsigned int ms);

/* dev_open(), then up to 2 s for the carrier; returns dev_open()'s result. */
int ipn_kunit_open(struct ipn_priv *priv);
int ipn_kunit_set_txqs(struct ipn_priv *priv, unsigned int n);
u64 ipn_kunit_txq_packets(struct ipn_priv *priv, unsigned int q);

/* A P_Key child of parent (rtnl_newlink's way); ERR_PTR on failure. */
struct ipn_priv *ipn_kunit_child(struct ipn_priv *parent, u16 pkey);

/* The 20-byte multicast address of mgid (QPN 0xffffff). */
void ipn_kunit_mc_addr(u8 *hw, const u8 *mgid);

/* KUNIT_EXPECT_MEMEQ arrived in 6.2; this one prints both sides. */
static inline void kt_expect_memeq(struct kunit *test, const void *a,
				   const void *b, size_t n, const char *what,
				   int line)
{
	KUNIT_EXPECT_TRUE_MSG(test, !memcmp(a, b, n), "line %d: %s: %*ph != %*ph",
			      line, what, (int)n, a, (int)n, b);
}

#define KT_EXPECT_MEMEQ(test, a, b, n) \
	kt_expect_memeq(test, a, b, n, #a, __LINE__)

static inline int kt_res_init(struct kunit_resource *res, void *ctx)
{
	res->data = ctx;
	return 0;
}

/* Hand obj to the test: free_fn(res) runs when the case ends. */
static inline void *kt_manage(struct kunit *test, void *obj,
			      kunit_resource_free_t free_fn)
{
	if (!obj)
		return NULL;
	if (!kunit_alloc_resource(test, kt_res_init, free_fn, GFP_KERNEL,
				  obj)) {
		struct kunit_resource res = { .data = obj };

		free_fn(&res);
		return NULL;
	}
	return obj;
}

#endif /* IPN_KUNIT_H */
