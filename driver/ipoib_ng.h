/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipoib_ng.h - private header of the C shim.
 *
 * The shim does kernel mechanics only: net_device, NAPI, verbs, SA calls,
 * memory, locking, timers, netlink/sysfs glue. Every protocol decision is
 * the core's (driver/core/ipoib_core.h).
 */
#ifndef IPOIB_NG_H
#define IPOIB_NG_H

#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/workqueue.h>
#include <linux/kref.h>
#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>
#include <linux/u64_stats_sync.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_sa.h>

#include "ipoib_core.h"

struct page_pool;

#define IPN_DRV_NAME "ipoib_ng"

/*
 * Functions the KUnit module calls directly (kunit/): static in the
 * driver, global in the test module's own copy of the shim.
 */
#ifdef IPN_KUNIT
#define IPN_TESTABLE
#else
#define IPN_TESTABLE static
#endif

/*
 * Fault sites of the control path (works and callbacks, which the task's
 * fail-nth used by the KUnit fault suite does not reach): in the test
 * module's copy of the shim they fail in turn (kunit/fault_test.c); in
 * the driver they compile away.
 */
#ifdef IPN_KUNIT
bool ipn_kunit_fault(void);
#define ipn_fault() ipn_kunit_fault()
#else
#define ipn_fault() false
#endif

/*
 * A receive post of priv that KUnit makes fail (kunit/roce_test.c): apart
 * from ipn_fault(), whose sites count in turn, as NAPI's refill runs at
 * times a test cannot count on.
 */
struct ipn_priv;
#ifdef IPN_KUNIT
bool ipn_kunit_rx_post_fails(const struct ipn_priv *priv);
bool ipn_kunit_rx_alloc_fails(const struct ipn_priv *priv);
unsigned int ipn_kunit_tx_post_cut(const struct ipn_priv *priv,
				   unsigned int n);
bool ipn_kunit_cm_poll_held(const struct ipn_priv *priv);
#else
static inline bool ipn_kunit_rx_post_fails(const struct ipn_priv *priv)
{
	return false;
}

/* A receive allocation (ipn_rx_skb(), ipn_rx_page_map()) KUnit fails. */
static inline bool ipn_kunit_rx_alloc_fails(const struct ipn_priv *priv)
{
	return false;
}

/* Of a chain of n sends, how many the device takes: all of them. */
static inline unsigned int ipn_kunit_tx_post_cut(const struct ipn_priv *priv,
						 unsigned int n)
{
	return n;
}

/* Whether KUnit holds priv's CM NAPI off the CQ (kunit/cm_test.c). */
static inline bool ipn_kunit_cm_poll_held(const struct ipn_priv *priv)
{
	return false;
}
#endif

/*
 * ipn_qp_failed() between its test of IPN_QP_FREEING and its queueing:
 * KUnit holds a report there while the interface is freed.
 */
#ifdef IPN_KUNIT
void ipn_kunit_qp_failing(const struct ipn_priv *priv);
#else
static inline void ipn_kunit_qp_failing(const struct ipn_priv *priv)
{
}
#endif

/*
 * The SA path callback's last step, after it let go of priv->lock: KUnit
 * frees the interface there (review 2026-12 L2); nothing of priv's may be
 * touched from here on.
 */
#ifdef IPN_KUNIT
void ipn_kunit_path_done_unlocked(const struct ipn_priv *priv);
#else
static inline void ipn_kunit_path_done_unlocked(const struct ipn_priv *priv)
{
}
#endif

/*
 * ipn_roce_resolved() returning, its answer queued: KUnit holds it there
 * while ib_addr still lists its request (review 2026-12 L4).
 */
#ifdef IPN_KUNIT
void ipn_kunit_roce_resolved_returning(const struct ipn_priv *priv);
#else
static inline void
ipn_kunit_roce_resolved_returning(const struct ipn_priv *priv)
{
}
#endif

/*
 * ipn_ib_leave() of a group whose join may be answered now: KUnit has the
 * SA answer it there, before the leave takes priv->lock.
 */
struct ipn_mcast;
#ifdef IPN_KUNIT
void ipn_kunit_mc_leaving(struct ipn_mcast *mc);
#else
static inline void ipn_kunit_mc_leaving(struct ipn_mcast *mc)
{
}
#endif

/*
 * A passive connection's COMM_EST handler between its read of the CM ID
 * and ib_cm_notify(), inside its RCU section: KUnit holds it there while
 * the connection is destroyed (review 2026-12 L4). It may not sleep.
 */
struct ipn_cm_rx;
#ifdef IPN_KUNIT
void ipn_kunit_cm_comm_est(const struct ipn_cm_rx *rx);
#else
static inline void ipn_kunit_cm_comm_est(const struct ipn_cm_rx *rx)
{
}
#endif

/*
 * ipn_restart_work() running, before it takes rtnl: KUnit holds it there
 * to take rtnl itself first, whatever else the ordered workqueue held.
 */
#ifdef IPN_KUNIT
void ipn_kunit_restart_running(const struct ipn_priv *priv);
#else
static inline void ipn_kunit_restart_running(const struct ipn_priv *priv)
{
}
#endif

/*
 * The GID of a 20-byte hardware address (RFC 4391 s9.1.1: flags and QPN
 * in the first 4 bytes, then the GID).
 */
#define ipn_addr_gid(addr) ((addr) + IPN_ADDR_GID_OFF)

/* The QPN of a 20-byte address (RFC 4391 s9.1.1): per received frame. */
static inline u32 ipn_addr_qpn(const u8 *addr)
{
	struct ipc_addr a;

	ipc_addr_decode(addr, &a);
	return a.qpn;
}

enum {
	IPN_PSEUDO_LEN = IPC_ADDR_LEN,	/* daddr (TX) or saddr (RX) */
	IPN_ADDR_GID_OFF = 4,		/* the GID in an address (s9.1.1) */
	IPN_HARD_LEN = IPN_PSEUDO_LEN + IPC_HDR_LEN,
	IPN_RX_RESERVE = IPN_PSEUDO_LEN,	/* headroom before the GRH */
	IPN_MAX_IB_MTU = 4096,
	IPN_RX_BUF = IB_GRH_BYTES + IPN_MAX_IB_MTU,
	/*
	 * SGE 0 of a receive: the GRH area and the headers, or all of a
	 * small frame (an ACK, a ping, a 64-byte datagram), copied out so
	 * that SGE 1's page goes back to the device untouched (rx.c).
	 */
	IPN_RX_HEAD = 256,
	IPN_MAX_TX_SGE = 1 + MAX_SKB_FRAGS,
	IPN_WC_BATCH = 16,
	/*
	 * UD sends posted in one call, the last with a completion (tx.c):
	 * at most this many wait for netdev_xmit_more()'s end.
	 */
	IPN_TX_BATCH = 16,
};

/* ------------------------------------------------------------------ */
/* Limits and timeouts of the shim, in one place (the protocol's are     */
/* the core's: ipoib_core.h)                                            */
/* ------------------------------------------------------------------ */

/* Transmit queues (ethtool -L tx): one UD QP each, the first priv->qp. */
#define IPN_TXQ_MAX		(IPC_SEND_QPN_MAX + 1)

/* Ring sizes: powers of two in [IPN_RING_MIN, IPN_RING_MAX]. */
#define IPN_RING_MIN		16
#define IPN_RING_MAX		8192

/*
 * The path table (review M3): at most paths_max entries per interface, a
 * module parameter in [IPN_PATHS_MIN, IPN_PATHS_MAX]. At the cap, making
 * room looks at no more than IPN_PATH_EVICT_SCAN paths in no more than
 * IPN_PATH_EVICT_BUCKETS buckets: the work under priv->lock in xmit stays
 * bounded however large the table.
 */
enum {
	IPN_PATHS_DEFAULT = 16384,
	IPN_PATHS_MIN = 16,
	IPN_PATHS_MAX = 262144,
	IPN_PATH_EVICT_SCAN = 32,
	IPN_PATH_EVICT_BUCKETS = 256,
	IPN_PATH_HASH_MIN_BITS = 6,
};

/*
 * The group table (review M3), the same way: at most groups_max entries
 * per interface, a module parameter in [IPN_GROUPS_MIN, IPN_GROUPS_MAX],
 * found by MGID in a hash of 1024 buckets (chains of 4 at the default
 * cap); making room looks at no more than IPN_MC_EVICT_SCAN groups in
 * IPN_MC_EVICT_BUCKETS buckets.
 */
enum {
	IPN_GROUPS_DEFAULT = 4096,
	IPN_GROUPS_MIN = 16,
	IPN_GROUPS_MAX = 65536,
	IPN_MC_HASH_BITS = 10,
	IPN_MC_EVICT_SCAN = 32,
	IPN_MC_EVICT_BUCKETS = 64,
};

#define IPN_AM_TIMEOUT_MS	1000
#define IPN_AM_RETRIES		3
/* RoCE: rdma_resolve_ip() for a path. */
#define IPN_ROCE_RESOLVE_MS	2000

/*
 * Connected mode's REQ: RC retries (a lost RoCE frame must not kill the
 * connection), the CM's response time (4.096 us * 2^20: about 4 s).
 */
#define IPN_CM_RETRY		7
#define IPN_CM_RESP_TIMEOUT	20
#define IPN_CM_MAX_CM_RETRIES	8
/* Bytes of a connected-mode frame pulled into the skb's head. */
#define IPN_CM_HEAD		128
#define IPN_CM_COPYBREAK	256	/* smaller frames are copied (srq.c) */
#define IPN_CM_POOL_MAX		8192U	/* pages the SRQ's pool keeps ready */

/*
 * RNR retries: 7 would mean for ever, and one peer that never posts
 * buffers would then hold a send slot for good (review H4). 6 retries
 * ride out a briefly empty SRQ; the peer's REP is clamped to the same.
 */
#define IPN_CM_RNR_RETRY	6

/*
 * Review H4: every connection's sends share the one send ring, whose tail
 * moves in order. A connection with sends in flight and none completed
 * for this long (a dead peer, one that never posts buffers) is broken:
 * its QP goes to ERR, which flushes its sends, and the peer is reached
 * over UD. Well below the 10 s TX watchdog, which would restart the
 * whole interface.
 */
#define IPN_CM_STALL_MS		4000

/*
 * Review 2026-12 H1: a passive connection's QP, once in ERR, is kept
 * until it has given back the SRQ buffer it may hold. It waits for
 * IB_EVENT_QP_LAST_WQE_REACHED (IBA 11.6.3.1: no more WQEs taken from the
 * SRQ) at most IPN_CM_LAST_WQE_MS (rxe of 6.1 never raises it), then
 * a send WR, posted on the QP in ERR, is flushed to the SRQ's CQ after its
 * receive completions; the QP is destroyed once CM NAPI has polled that,
 * or after IPN_CM_DRAIN_MS (counted). At most IPN_CM_DRAINS_MAX such WRs
 * are out at once: the CQ has room for them beside the SRQ's.
 */
#define IPN_CM_DRAIN_WRID	BIT_ULL(63)	/* | the connection's drain_id */
#define IPN_CM_LAST_WQE_MS	1000
#define IPN_CM_DRAIN_MS		5000
#define IPN_CM_DRAINS_MAX	8U
/*
 * An SRQ below a quarter of its buffers (IB_EVENT_SRQ_LIMIT_REACHED) with
 * no receive completed for this long and no connection draining has lost
 * buffers to QPs that went away holding them: connected mode restarts
 * (srq.c, ipn_cm_srq_starved).
 */
#define IPN_CM_SRQ_STARVE_MS	2000

/*
 * Review M3: the tick ran under priv->lock with BH off, armed for each
 * entry's deadline as it came. It runs at most once in this many ms, a
 * delay the core's timers (retries and expiries of a second and more) do
 * not notice. What it runs is what is due: entries are filed by deadline
 * (priv->due, entry.c), so its work follows the due entries, not the
 * tables (issue 20: at 100,000 paths a walk of all of them took 99 ms
 * on the debug kernel, ten times a second).
 */
#define IPN_TICK_MIN_MS		100

/* main.c */
extern int ipn_recvq_size;
extern int ipn_sendq_size;
extern unsigned int ipn_rejoin_spread_ms;
extern unsigned int ipn_sa_rate;
extern unsigned int ipn_sa_burst;
extern unsigned int ipn_path_spread_ms;
extern bool ipn_create_broadcast;
extern unsigned int ipn_sendonly_idle_ms;
extern unsigned int ipn_cm_rx_max;
extern unsigned int ipn_cm_tx_max;
extern unsigned int ipn_paths_max;
extern unsigned int ipn_groups_max;
extern bool ipn_promisc_allmulti;
extern bool ipn_sa_notices;
extern bool ipn_link_kind;
/* ports=: at most this long, with its NUL (ib.c). */
#define IPN_PORTS_LEN 256
extern char ipn_ports[IPN_PORTS_LEN];

/* The hash key of a GID (paths, groups, connections by peer GID). */
#define ipn_gid_key(priv, gid) ipc_gid_hash(gid, (priv)->hash_seed)

/*
 * sendonly_idle_ms as the multicast machine takes it: at least 1 s, at
 * most an hour, so that a send-only group always expires (review L5).
 */
static inline u32 ipn_sendonly_idle(void)
{
	return clamp(READ_ONCE(ipn_sendonly_idle_ms), 1000u, 3600000u);
}

/*
 * Counters; per-reason drop counters follow enum ipc_reason. tx_packets
 * and tx_bytes are the transmit queues' (struct ipn_txq), summed in.
 */
struct ipn_stats {
	u64 rx_packets, rx_bytes, tx_packets, tx_bytes;
	u64 rx_dropped, tx_dropped, tx_errors, rx_errors;
	u64 multicast;
	u64 drop[IPC_R_COUNT];
	u64 path_queries, path_failures, mc_joins, mc_leaves, mc_failures;
	u64 path_stale_answers;	/* completions of cancelled queries */
	u64 mc_stale_answers;	/* join answers a leave or rejoin overtook */
	u64 mc_refused;		/* stack groups not of this link */
	u64 tx_timeouts;
	u64 cm_connects, cm_failures, cm_accepts;	/* connected mode */
	u64 cm_tx_packets, cm_rx_packets;
	u64 cm_rejects;		/* REQs refused: partition, cap */
	u64 cm_stalls;		/* connections broken: no send completed */
	u64 path_evictions;	/* paths given up: the table was full */
	u64 sa_reports_refused;	/* SA Reports not from the SM (review M3) */
	u64 mc_evictions;	/* groups given up: the table was full */
	u64 qp_errors;		/* the UD QP went to ERR: restarted (M5) */
	u64 cm_tx_refused;	/* to UD: connection table full (M3) */
	u64 sa_reports_limited;	/* SA Reports beyond the rate (M3) */
	u64 restarts;		/* datapath stopped and opened by the driver */
	u64 path_answers_same;	/* revalidations that kept the handle */
	u64 path_mac_changes;	/* RoCE: revalidated for a peer's new MAC */
	u64 sa_requests;	/* SA requests the port's budget let go */
	u64 sa_delayed;		/* of them, held back by it first */
	u64 sa_delay_ms;	/* the time they were held, summed */
	u64 tx_posts;		/* UD send batches posted (tx.c) */
	u64 rx_alloc_fail;	/* frames dropped: no skb or page for them */
	u64 cm_rx_drains;	/* passive QPs destroyed after their drain */
	u64 cm_drain_timeouts;	/* ... without it, after IPN_CM_DRAIN_MS */
	u64 cm_srq_restarts;	/* connected mode restarted: SRQ starved */
	struct u64_stats_sync syncp;	/* last: only u64 counters before it */
};

/*
 * An address handle with a reference per user that caches it: the path
 * or group. Sends take none (issue 23: no atomic per packet). The last
 * put moves the handle to the reap list, and it is destroyed in process
 * context once no transmit can still be reading it (an RCU grace period)
 * and the send ring's tail has passed the last send that may use it
 * (ipn_ah_reap).
 */
struct ipn_ah {
	struct kref ref;
	struct ib_ah *ah;
	struct ipn_priv *priv;
	struct list_head reap;
	struct rdma_ah_attr attr;	/* made from (no sgid_attr held) */
};

/*
 * Handles released in one reap, after one grace period, and the ring
 * position of the last send on each transmit queue that may use them.
 * A few, so that a reap need not wait for the last batch before the
 * next one starts; when all hold handles, the newest takes more and
 * waits longer (ipn_ah_reap).
 */
#define IPN_AH_BATCHES		4
struct ipn_ah_batch {
	struct list_head ahs;		/* empty: free */
	unsigned int pos[IPN_TXQ_MAX];
};

/*
 * Backend ops: how joins, attaches and path queries are done on this
 * port's link layer (InfiniBand: SA; RoCE: local). Called from the
 * control work (process context, priv->ctl_mutex held). KUnit replaces
 * them.
 */
struct ipn_mcast;
struct ipn_path;
struct ipn_backend_ops {
	const char *name;
	bool sa_directory;	/* an SA lists the groups (allmulti.c) */
	/*
	 * Start a join: < 0 failed (-IPC_ENOBCAST: not sent, it needs the
	 * broadcast group's parameters), 0 completes later (the backend sets
	 * join_status and queues IPN_OP_DONE), 1 succeeded now.
	 */
	int (*join)(struct ipn_priv *priv, struct ipn_mcast *mc, int type);
	void (*leave)(struct ipn_priv *priv, struct ipn_mcast *mc);
	/* Address vector for sending to the group, after a join. */
	int (*mc_ah_attr)(struct ipn_priv *priv, struct ipn_mcast *mc,
			  struct rdma_ah_attr *attr);
	int (*attach)(struct ipn_priv *priv, struct ipn_mcast *mc);
	void (*detach)(struct ipn_priv *priv, struct ipn_mcast *mc);
	/*
	 * Fill path->attr: < 0 failed, 0 done now, 1 completes later
	 * (through ipn_path_query_async_done()). Never called while a query
	 * of the path is outstanding: path.c cancels the old one first.
	 */
	int (*path_query)(struct ipn_priv *priv, struct ipn_path *path);
	/* Synchronous: afterwards no callback of the query runs. */
	void (*path_cancel)(struct ipn_priv *priv, struct ipn_path *path);
	/*
	 * umcast: a membership of mgid exists on this port, ours or another
	 * user's (NULL: the backend cannot tell, as on RoCE).
	 */
	bool (*group_held)(struct ipn_priv *priv, const u8 *mgid);
};

/*
 * The subnet administrator as the InfiniBand backend (sa.c) sees it:
 * ib_core's calls in the driver (ipn_sa_ib), a scripted SA in KUnit
 * (kunit/sa_test.c). That is how the SA paths are proven on machines
 * without an InfiniBand fabric. Same contracts as the ib_sa calls they
 * wrap: a cancelled query completes with -EINTR; after free_multicast
 * returns, the join callback does not run.
 */
typedef void (*ipn_sa_path_cb)(int status, struct sa_path_rec *resp,
			       ipn_sa_num_prs_t num_prs, void *ctx);
typedef int (*ipn_sa_join_cb)(int status, struct ib_sa_multicast *m);
struct ipn_sa_ops {
	int (*path_rec_get)(struct ipn_priv *priv, struct sa_path_rec *rec,
			    ib_sa_comp_mask mask, unsigned long timeout_ms,
			    ipn_sa_path_cb done, void *ctx,
			    struct ib_sa_query **query);
	void (*cancel_query)(int id, struct ib_sa_query *query);
	struct ib_sa_multicast *(*join)(struct ipn_priv *priv,
					struct ib_sa_mcmember_rec *rec,
					ib_sa_comp_mask mask,
					ipn_sa_join_cb done, void *ctx);
	void (*free_multicast)(struct ib_sa_multicast *m);
	int (*path_ah_attr)(struct ipn_priv *priv, struct sa_path_rec *rec,
			    struct rdma_ah_attr *attr);
	int (*mc_ah_attr)(struct ipn_priv *priv, struct ib_sa_mcmember_rec *rec,
			  struct rdma_ah_attr *attr);
	int (*get_mcmember_rec)(struct ipn_priv *priv, const u8 *mgid,
				struct ib_sa_mcmember_rec *rec);
	/* allmulti.c: the SA MADs of RFC 4391 s11 (built by the core). */
	int (*am_start)(struct ipn_priv *priv);
	void (*am_stop)(struct ipn_priv *priv);
	int (*am_send)(struct ipn_priv *priv, const u8 *mad);
};

/* IFF_ALLMULTI/IFF_PROMISC state of an interface (allmulti.c). */
struct ipn_am {
	struct list_head node;		/* in the port's am_port.list */
	struct ib_mad_agent *agent;	/* our requests (IB) */
	u64 table_tid;			/* answers awaited (priv->lock) */
	u64 sub_tid[2];
	u32 tid_hi;			/* the agent's, in every TID */
	u32 tid_seq;
	struct ipc_am st;		/* the core's machine (priv->lock) */
};

/* The port's SA request budget, in the port's interface (budget.c). */
struct ipn_sa_port {
	spinlock_t lock;		/* b; after any priv->lock */
	struct ipc_sa_budget b;
};

/* The SA's Reports to a port, in the port's interface (allmulti.c). */
struct ipn_am_port {
	struct mutex mutex;		/* agent, users */
	struct ib_mad_agent *agent;
	unsigned int users;
	spinlock_t lock;		/* list, rate */
	struct list_head list;		/* interfaces in the mode */
	struct ipc_notice_rate rate;	/* the Reports acted on */
};

/*
 * A core-driven entry: a path, a group, or a connection we make, whose
 * core results entry.c performs in IPC_ACT_ORDER. Each kind embeds one
 * and gives the engine its backend calls.
 */
struct ipn_entry_kind;
struct ipn_entry {
	struct list_head work;		/* on the kind's work list, ops pending */
	struct sk_buff_head queue;	/* frames waiting, pseudo header kept */
	const struct ipn_entry_kind *kind;
	u32 ops;			/* IPC_ACT_* for the work, IPN_OP_* */
	u8 join_type;			/* the last JOIN's (a group) */
	bool dead;			/* FREE seen: off the tables */
	/* budget.c, priv->lock: a start the SA budget holds back. */
	u8 sa_class;			/* enum ipc_sa_class */
	u32 sa_act;			/* START_QUERY or JOIN held; 0: none */
	u64 sa_since;			/* held since (ms) */
	struct list_head sa_node;	/* in priv->sa_held[sa_class] */
	/* entry.c, priv->lock: filed in priv->due while it has a deadline. */
	struct rb_node due_node;	/* RB_EMPTY_NODE(): not filed */
	u64 deadline;			/* the machine's, as filed */
	u64 due;			/* when the tick runs it: the key */
};

/* In ipn_entry.ops besides the actions: what the backend reported. */
enum {
	IPN_OP_DONE = BIT(24),		/* a query, join, connect completed */
	IPN_OP_BROKEN = BIT(25),	/* cm: the connection failed */
};

#define IPN_OP_REPORT (IPN_OP_DONE | IPN_OP_BROKEN)

struct ipn_entry_kind {
	size_t work_off;		/* the work list in struct ipn_priv */
	int drop_reason;		/* when the core gave none */
	/* At the verdict, priv->lock held; NULL: never asked of the kind. */
	void (*release_ah)(struct ipn_priv *priv, struct ipn_entry *e);
	/*
	 * After every result, priv->lock held: what transmit reads without
	 * the lock follows the machine (path.c); NULL: nothing.
	 */
	void (*applied)(struct ipn_priv *priv, struct ipn_entry *e);
	void (*log)(struct ipn_priv *priv, struct ipn_entry *e);
	void (*unlink)(struct ipn_priv *priv, struct ipn_entry *e);
	void (*to_routers)(struct ipn_priv *priv, struct ipn_entry *e,
			   struct sk_buff_head *out);
	/* Control context (rtnl, ctl_mutex): one action, in order. */
	void (*perform)(struct ipn_priv *priv, struct ipn_entry *e, u32 act,
			int join_type);
	/* The tick, priv->lock held: when the machine's timer is due, it. */
	u64 (*deadline)(struct ipn_entry *e);
	void (*timer)(struct ipn_priv *priv, struct ipn_entry *e, u64 now,
		      struct ipc_result *r);
	/* IPN_OP_REPORT's: fed to the core (unless they are old). */
	void (*report)(struct ipn_priv *priv, struct ipn_entry *e, u32 ops);
	/* FREE: the backend's resources and the memory. */
	void (*release)(struct ipn_priv *priv, struct ipn_entry *e);
	/*
	 * SA requests (budget.c), priv->lock held; NULL: the kind asks the
	 * SA nothing. Its class; its start held back, then let go.
	 */
	int (*sa_class)(struct ipn_entry *e);
	void (*sa_held)(struct ipn_priv *priv, struct ipn_entry *e,
			struct ipc_result *r);
	void (*sa_sent)(struct ipn_priv *priv, struct ipn_entry *e, u64 now,
			struct ipc_result *r);
};

/*
 * Per destination GID; protected by priv->lock, except what transmit
 * reads under RCU (ipn_path_tx_ah): the hash node, gid, tx_ah, and
 * used_ms, which it writes. Freed after a grace period.
 */
struct ipn_path {
	struct hlist_node node;
	struct ipn_priv *priv;
	u8 gid[16];
	/* ah while the core says the path is usable, else NULL */
	struct ipn_ah __rcu *tx_ah;
	u64 used_ms;			/* the last send through tx_ah */
	struct ipc_path st;
	struct ipn_ah *ah;		/* valid in VALID/STALE */
	struct ipn_entry e;		/* queue, ops: priv->path_work */
	bool querying;			/* a query of ours is outstanding */
	/*
	 * Each query started or cancelled takes a new generation; a
	 * completion is fed to the core only if it is of the current one.
	 */
	u32 query_gen;
	u32 done_gen;			/* the generation query_status is of */
	union {
		struct rdma_ah_attr attr;	/* result of the last query */
		/* Once released (attr destroyed): kfree_rcu(), no larger slab. */
		struct rcu_head rcu;
	};
	struct ib_sa_query *sa_query;
	int sa_query_id;
	int query_status;
	bool sa_busy;			/* IB: a query callback may still run */
	struct sa_path_rec rec;		/* IB: the SA's record (connected mode) */
	bool rec_valid;
	struct rdma_dev_addr *dev_addr;	/* RoCE: rdma_resolve_ip */
	u64 answered_ms;		/* the last good answer, 0: none */
	/*
	 * What the handle in use was made from, for netlink: copied under
	 * priv->lock when it is installed (attr is the next query's).
	 */
	struct ipn_path_shown {
		u8 dmac[ETH_ALEN];	/* RoCE */
		u16 lid;		/* InfiniBand */
		u8 sl;
		u8 rate;
		u8 sgid_index;
		bool grh;
		u32 mtu;		/* bytes, the SA's record; 0: none */
	} shown;
};

/* Per MGID; protected by priv->lock. */
struct ipn_mcast {
	struct list_head list;		/* priv->mcasts */
	struct hlist_node node;		/* priv->mc_hash, by mgid */
	struct ipn_priv *priv;
	u8 mgid[16];
	struct ipc_mc st;
	struct ipn_ah *ah;		/* for sending to the group */
	struct ipn_entry e;		/* queue, ops: priv->mc_work */
	bool attached;
	bool ip6_joined;
	bool seen;			/* rx_mode diff scratch */
	u32 am_gen;			/* the directory read that listed it */
	bool is_bcast;
	struct ib_sa_multicast *sa_mc;
	bool sa_pending;		/* IB: the join's answer is still due */
	/*
	 * IB, under priv->lock: each join and leave is a new generation;
	 * an answer queued for the control work carries its join's, and
	 * is dropped if another came since (review 2026-12 L1).
	 */
	u32 join_gen;
	u32 done_gen;
	struct ib_sa_mcmember_rec rec;	/* learned from the join */
	int join_status;
};

/* Connected mode (cm.c). */
enum {
	IPN_CM_MAX_PAGES = 17,		/* SGEs of one SRQ receive */
	IPN_CM_SRQ_MAX = 256,		/* SRQ entries at most */
	IPN_CM_HASH_BITS = 8,
	/*
	 * Connections we make to one peer GID at most (review M3): an
	 * address is QPN and GID, and a peer with several interfaces on a
	 * port has several QPNs; one that answers ARP with ever new QPNs
	 * gets no more.
	 */
	IPN_CM_TX_PER_GID = 4,
};

/* A connection we made, to the peer address addr; priv->lock. */
struct ipn_cm_tx {
	struct hlist_node node;		/* priv->cm_tx */
	struct ipn_priv *priv;
	u8 addr[IPC_ADDR_LEN];
	struct ipc_cm st;
	struct ipn_entry e;		/* queue, ops: priv->cm_work */
	struct ib_cm_id *id;		/* control work and CM handlers */
	struct ib_qp *qp;
	atomic_t inflight;		/* sends taken or posted, not completed */
	u64 progress_ms;		/* a completion, or the first send */
	int conn_status;		/* the REQ's answer, for IPN_OP_DONE */
	u32 conn_frame_max;
	struct ib_qp *broken_qp;	/* the QP that failed (IPN_OP_BROKEN) */
	struct list_head zombie;	/* priv->cm_zombies: freed, not reaped */
	u64 since_ms;			/* made, or its last change of state */
	u64 frames;			/* sent over it (netif_tx_lock) */
	bool told_up;			/* netlink was told it is up (ctl) */
};

/* A connection a peer made to us. */
struct ipn_cm_rx {
	struct list_head list;	/* priv->cm_rx, cm_rx_dead, then cm_rx_drain */
	struct hlist_node qp_node;	/* priv->cm_rx_qps, RCU */
	struct ipn_priv *priv;
	struct ib_cm_id *id;
	struct ib_qp *qp;
	u8 peer[IPC_ADDR_LEN];		/* CM flag, its UD QPN, its GID */
	u64 last_rx_ms;			/* the idle reaper's clock */
	u64 since_ms;			/* when the peer connected */
	u64 frames;			/* received over it (its NAPI) */
	unsigned long drain;		/* IPN_CM_RX_* bits: review H1 */
	u64 drain_at;			/* cm_rx_drain: the next step by then */
	u32 drain_id;			/* its drain WR's, 0 before it */
	bool dead;
	struct rcu_head rcu;
};

/* struct ipn_cm_rx's drain bits (cm.c). */
enum {
	IPN_CM_RX_GOING,	/* in ERR: its ID no longer for events */
	IPN_CM_RX_LAST_WQE,	/* the QP event came */
	IPN_CM_RX_POSTED,	/* the drain WR is on the QP */
	IPN_CM_RX_DRAINED,	/* CM NAPI polled its completion */
};

/* priv->srq_flags (srq.c). */
enum {
	IPN_SRQ_LOW,		/* the limit event came: ipn_cm_srq_starved */
};

struct ipn_srq_slot {
	struct page *pages[IPN_CM_MAX_PAGES];
	u64 mapping[IPN_CM_MAX_PAGES];
	u64 seq;			/* priv->srq_seq when last posted */
	bool posted;
};

enum ipn_cm_route {
	IPN_CM_UD,		/* send over UD with the path's handle */
	IPN_CM_RC,		/* send on the connection */
	IPN_CM_CONSUMED,	/* queued or dropped */
	IPN_CM_TOO_BIG,		/* drop and tell the sender the MTU */
};

struct ipn_tx_slot {
	struct sk_buff *skb;
	struct ipn_cm_tx *cm;		/* RC: the connection */
	struct ib_sge sge[IPN_MAX_TX_SGE];	/* the mapped frame */
	int nr_maps;
	bool head_mapped;	/* sge[0] is the linear part (not after LSO) */
};

/*
 * One transmit queue (issue 23): the stack's netdev_queue of the same
 * index, a UD QP with its send CQ and TX NAPI, and the ring of its sends
 * (tx.c). Queue 0's QP is priv->qp, which also receives and whose QPN is
 * in dev_addr; the others only send, from the same PD, P_Key index and
 * Q_Key. Connections' RC QPs complete on queue 0's CQ, so their sends go
 * in queue 0's ring (ipn_select_queue).
 */
struct ipn_txq {
	struct ipn_priv *priv;
	unsigned int index;
	struct ib_qp *qp;
	struct ib_cq *cq;
	struct ipn_tx_slot *ring;
	struct napi_struct napi;
	/* Handles wait for the sends up to ah_wait_pos: TX NAPI kicks the reap. */
	bool ah_waiting;
	unsigned int ah_wait_pos;

	/* Transmit, under the queue's netif_tx_lock. */
	unsigned int head ____cacheline_aligned_in_smp;
	/* UD sends not yet posted, the last pending slots. */
	unsigned int pending;
	struct ib_ud_wr wrs[IPN_TX_BATCH];
	atomic_t unsent_bytes;		/* BQL's, never posted */
	struct u64_stats_sync xsyncp;
	u64_stats_t stops;		/* the queue stopped, full */

	/* TX NAPI (or the drain, NAPI off). */
	unsigned int tail ____cacheline_aligned_in_smp;
	unsigned int ud_done;		/* UD slots before it freed */
	unsigned int done_pkts;		/* freed, for BQL */
	unsigned int done_bytes;
	struct ib_wc wc[IPN_WC_BATCH];
	struct u64_stats_sync syncp;
	u64_stats_t packets;		/* sends completed */
	u64_stats_t bytes;
};

struct ipn_rx_slot {
	struct page *page;	/* SGE 1: the rest of a datagram (rx_pool) */
	u64 page_addr;
	bool posted;		/* the device's until it completes */
};

/*
 * One net_device: a port's parent interface, or a P_Key child of one.
 * Parents are created and destroyed by the ib_client, children by
 * netlink or sysfs; the lists are under rtnl.
 */
struct ipn_priv {
	struct net_device *dev;
	struct ib_device *ca;
	u32 port;
	u16 pkey;			/* full-member bit set */
	u16 wire_pkey;			/* in the port table: RoCE, 0xffff */
	u16 pkey_index;
	bool qp_rts;			/* UD QP in RTS: its P_Key is present */
	u32 qkey;
	const struct ipn_backend_ops *ops;
	const struct ipn_sa_ops *sa;	/* InfiniBand backend: the SA */
	bool roce;
	bool umcast;			/* sysfs/netlink umcast: see mcast.c */
	bool sysfs_child;		/* made by create_child */
	struct ipn_priv *parent;	/* children: the port's interface */
	struct list_head list;		/* port list, or the parent's children */
	struct list_head children;	/* parents: their P_Key children */

	struct ib_pd *pd;
	struct ib_cq *recv_cq;
	struct ib_qp *qp;		/* NULL only if a ring resize failed */
	/* IPN_TXQ_MAX of them; txq_count in use (the stack's real number) */
	struct ipn_txq *txq;
	unsigned int txq_count;
	unsigned int txq_max;		/* of the net_device, <= IPN_TXQ_MAX */
	struct ipc_ifid ifid;
	u32 sgid_index;			/* of ifid.gid in the port's table */
	bool gid_chosen;		/* by ndo_set_mac_address */
	bool addr_changed;		/* REREAD_GID changed dev_addr */
	bool notify_peers;		/* announce it at carrier on (rtnl) */
	u8 told_addr[IPC_ADDR_LEN];	/* dev_addr as the stack last knew it (rtnl) */
	u8 announce_left;		/* announcements still to send (rtnl) */
	struct ipn_am am;
	struct ipn_am_port am_port;	/* used in the port's interface */
	struct ipn_sa_port sa_port;	/* used in the port's interface */
	struct list_head sa_held[IPC_SA_CLASS_COUNT];	/* priv->lock */
	int max_sge;
	unsigned int rx_size;		/* ring entries, powers of two */
	unsigned int tx_size;
	u32 coalesce_usecs[2];		/* rx, tx: as set with ethtool -C */
	u32 coalesce_frames[2];

	struct napi_struct rx_napi;
	struct ipn_rx_slot *rx_ring;
	struct page_pool *rx_pool;	/* SGE 1 pages, recycled by the stack */
	struct page **rx_head_pages;	/* SGE 0 of every slot, IPN_RX_HEAD each */
	u64 *rx_head_addr;		/* their DMA addresses, a page each */
	unsigned int rx_heads;		/* pages in those two arrays */
	/* Completion batch: owned by the NAPI context (or by teardown, NAPI off). */
	struct ib_wc rx_wc[IPN_WC_BATCH];
	bool rx_posted;

	/* priv->lock: paths, mcasts, core state objects, the rng. */
	spinlock_t lock;
	/*
	 * One bucket for every two paths of paths_max (fabric scale: a
	 * lookup's cost does not grow with the table): 8192 buckets, 64 KB,
	 * at the default; kvcalloc'd when the interface is made.
	 */
	struct hlist_head *paths;
	u8 path_hash_bits;
	unsigned int path_count;	/* allocated, dead ones too */
	unsigned int paths_max;		/* ipn_paths_max when created */
	u32 path_evict_bkt;		/* the next eviction scan's start */
	bool paths_full_told;		/* the log said the table filled */
	struct list_head mcasts;
	DECLARE_HASHTABLE(mc_hash, IPN_MC_HASH_BITS);
	unsigned int mc_count;		/* allocated, dead ones too */
	unsigned int groups_max;	/* ipn_groups_max when created */
	u32 mc_evict_bkt;		/* the next eviction scan's start */
	bool groups_full_told;		/* the log said the table filled */
	bool mc_stack_waiting;		/* a stack group waits for room */
	struct ipn_mcast *bcast;
	struct list_head path_work;
	struct list_head mc_work;
	struct ipc_path_cfg path_cfg;
	struct ipc_mc_cfg mc_cfg;
	struct ipc_link link;
	struct ipc_bsearch bsearch;	/* the broadcast group's scope */
	struct ipc_rng rng;
	struct ipc_mtu_info mtu;
	u64 next_deadline;		/* the tick is armed for it */
	u64 tick_not_before;		/* IPN_TICK_MIN_MS after the last */
	struct rb_root_cached due;	/* entries with a deadline, by due */
	unsigned int tick_runs;		/* for KUnit */
	unsigned int tick_visits;	/* entries the tick ran: for KUnit */

	/* Control: one ordered workqueue, serialised by ctl_mutex. */
	struct workqueue_struct *wq;
	struct mutex ctl_mutex;		/* after rtnl: control operations */
	struct work_struct ctl_work;	/* runs path/mc ops */
	struct delayed_work rx_mode_work;	/* also retries after -ENOMEM */
	struct delayed_work announce_work;	/* the next announcement */
	struct work_struct flush_work;
	struct delayed_work tick;	/* earliest core deadline */
	struct work_struct reap_work;
	struct delayed_work restart_work;	/* TX watchdog, QP error */
	const char *restart_why;	/* for the log: what asked */
	unsigned long qp_failed;	/* IPN_QP_* bits */
	struct ib_event_handler event_handler;
	unsigned long events_pending;	/* bit per enum ipc_event */
	bool up;			/* QP in RTS, rings live */

	spinlock_t reap_lock;		/* ah_reap, any context (irqsave) */
	struct list_head ah_reap;
	struct mutex reap_mutex;	/* a reap, from splice to the last destroy */
	struct ipn_ah_batch ah_batch[IPN_AH_BATCHES];	/* reap_mutex */
	unsigned int ah_batch_last;	/* the newest of them */

	struct net_device *roce_ndev;	/* RoCE: the Ethernet netdev (held) */
	struct list_head roce_node;	/* RoCE: ipn_roce_privs (roce.c) */
	struct ib_sa_mcmember_rec bcast_rec;	/* IB: the broadcast group's */
	bool bcast_rec_valid;
	wait_queue_head_t sa_wait;	/* IB: query callbacks finished */

	/* Connected mode (cm.c): priv->lock but for the verbs (ctl_mutex). */
	bool cm_mode;			/* administrator's choice (rtnl) */
	bool cm_on;			/* SRQ and listener live */
	bool cm_accepting;
	struct ib_cm_id *cm_listen;
	struct ib_srq *srq;
	struct ib_cq *cm_rcq;
	struct napi_struct cm_napi;
	struct ib_wc cm_wc[IPN_WC_BATCH];
	struct ipn_srq_slot *srq_ring;
	struct page_pool *cm_pool;	/* its pages, recycled by the stack */
	unsigned int srq_size;
	unsigned int cm_pages;
	u32 cm_frame_max;		/* our receive MTU (s6) */
	DECLARE_HASHTABLE(cm_tx, IPN_CM_HASH_BITS);
	DECLARE_HASHTABLE(cm_rx_qps, IPN_CM_HASH_BITS);
	struct list_head cm_rx;
	unsigned int cm_rx_count;	/* with a QP, dead too; <= cm_rx_max */
	unsigned int cm_tx_count;	/* made, dead ones too; ipn_cm_tx_max */
	bool cm_tx_full_told;		/* the log said the table filled */
	struct list_head cm_rx_dead;
	struct list_head cm_rx_drain;	/* ctl_mutex: in ERR, see H1 */
	unsigned int cm_drains;		/* ctl_mutex: drain WRs out */
	u32 cm_drain_ids;		/* ctl_mutex: the last drain_id given */
	unsigned long srq_flags;	/* IPN_SRQ_* bits (srq.c) */
	u64 srq_low_ms;			/* when the SRQ limit event came */
	u64 srq_low_polled;		/* cm_rx_polled then */
	u64 srq_low_seq;		/* srq_done_seq then */
	u64 cm_rx_polled;		/* CM NAPI: receive completions polled */
	u64 srq_seq;			/* CM NAPI: buffers posted, ever (no wrap) */
	u64 srq_done_seq;		/* CM NAPI: the newest completed's seq */
	struct list_head cm_work;
	struct list_head cm_zombies;	/* ipn_cm_reap(): review L2 */
	wait_queue_head_t cm_wait;	/* a connection's sends completed */
	struct ipc_cm_cfg cm_cfg;

	struct ipn_stats __percpu *stats;
	u32 hash_seed;
	struct dentry *debugfs;		/* this interface's directory */
};

static inline u64 ipn_now_ms(void)
{
	return jiffies64_to_msecs(get_jiffies_64());
}

/* The largest frame UD carries (the IB MTU): the link MTU and the header. */
static inline u32 ipn_ud_frame_max(const struct ipn_priv *priv)
{
	return ipc_mtu_ud_frame_max(&priv->mtu);
}

/* Add n to the u64 counter at offset off of this CPU's ipn_stats. */
static inline void ipn_count(struct ipn_priv *priv, size_t off, u64 n)
{
	struct ipn_stats *s = get_cpu_ptr(priv->stats);

	u64_stats_update_begin(&s->syncp);
	*(u64 *)((u8 *)s + off) += n;
	u64_stats_update_end(&s->syncp);
	put_cpu_ptr(priv->stats);
}

#define ipn_add(priv, member, n) \
	ipn_count(priv, offsetof(struct ipn_stats, member), n)
#define ipn_inc(priv, member) ipn_add(priv, member, 1)

/* sriov.c */
int ipn_set_vf_guid(struct net_device *dev, int vf, u64 guid, int type);
int ipn_get_vf_guid(struct net_device *dev, int vf,
		    struct ifla_vf_guid *node_guid,
		    struct ifla_vf_guid *port_guid);
int ipn_set_vf_link_state(struct net_device *dev, int vf, int state);
int ipn_get_vf_config(struct net_device *dev, int vf, struct ifla_vf_info *ivf);
int ipn_get_vf_stats(struct net_device *dev, int vf,
		     struct ifla_vf_stats *stats);

/* stats.c */
void ipn_drop(struct ipn_priv *priv, struct sk_buff *skb, int reason, bool tx);
void ipn_stats_read(struct ipn_priv *priv, struct ipn_stats *sum);
u64 ipn_stat_sum(struct ipn_priv *priv, size_t off);
/* The counters of ethtool -S: 42 named, then one per drop reason. */
#define IPN_N_STATS (42 + IPC_R_COUNT - 1)
void ipn_stats_name(unsigned int i, u8 *buf, size_t len);
void ipn_stats_values(struct ipn_priv *priv, u64 *data);
void ipn_txq_stats_read(struct ipn_priv *priv, unsigned int from,
			unsigned int to, u64 *packets, u64 *bytes);
void ipn_get_stats64(struct net_device *dev, struct rtnl_link_stats64 *st);
#ifdef IPN_HAVE_QSTATS
extern const struct netdev_stat_ops ipn_stat_ops;
#endif
#define ipn_stat(priv, member) \
	ipn_stat_sum(priv, offsetof(struct ipn_stats, member))
/* The drops counted for enum ipc_reason r. */
#define ipn_stat_drop(priv, r) \
	ipn_stat_sum(priv, offsetof(struct ipn_stats, drop) + \
		     (r) * sizeof(u64))

/* device.c */
int ipn_open(struct net_device *dev);
int ipn_stop(struct net_device *dev);
bool ipn_is_ipn_dev(const struct net_device *dev);
void ipn_setup(struct net_device *dev);
void ipn_dev_set_carrier(struct ipn_priv *priv, bool on);
void ipn_dev_update_mtu(struct ipn_priv *priv, u32 ib_mtu_bytes);
u32 ipn_port_ib_mtu(struct ipn_priv *priv);
/* priv->qp_failed: the datapath's restart (review M5: the UD QP's errors). */
enum {
	IPN_QP_RESTART_WANTED,	/* a restart is asked for; ipn_stop answers */
	IPN_QP_RESTART_QUEUED,	/* a restart for ERR is queued */
	IPN_QP_RESTART_DELAYED,	/* ... and waits out the link's backoff */
	IPN_QP_FREEING,		/* the interface is being freed: none more */
};

void ipn_restart_work(struct work_struct *work);
void ipn_restart(struct ipn_priv *priv, const char *why);
void ipn_qp_failed(struct ipn_priv *priv);

/* iface.c */
struct ipn_priv *ipn_dev_create(struct ib_device *ca, u32 port, u16 pkey);
int ipn_child_create(struct ipn_priv *parent, struct net_device *dev,
		     u16 pkey, bool sysfs);
void ipn_dev_unregister_queue(struct ipn_priv *priv, struct list_head *kill);
void ipn_dev_destroy(struct ipn_priv *priv);
int ipn_dev_resize_rings(struct ipn_priv *priv, unsigned int rx,
			 unsigned int tx, struct netlink_ext_ack *extack);
int ipn_dev_set_txqs(struct ipn_priv *priv, unsigned int count,
		     struct netlink_ext_ack *extack);
unsigned int ipn_txq_max(void);
int ipn_dev_set_mode(struct ipn_priv *priv, bool connected,
		     struct netlink_ext_ack *extack);

/* hwaddr.c */
extern const struct header_ops ipn_header_ops;
int ipn_dev_set_hwaddr(struct ipn_priv *priv);
bool ipn_dev_reread_gid(struct ipn_priv *priv);
void ipn_dev_addr_changed(struct ipn_priv *priv);
void ipn_announce_work(struct work_struct *work);
int ipn_dev_set_bcast_scope(struct ipn_priv *priv, u8 scope);
int ipn_set_mac_address(struct net_device *dev, void *p);
int ipn_dev_init(void);
void ipn_dev_exit(void);

/* sysfs.c */
extern const struct attribute_group ipn_port_attr_group;
extern const struct attribute_group ipn_child_attr_group;
bool ipn_may_choose_pkey(void);

/* ib.c */
int ipn_ib_init(void);
bool ipn_ports_valid(const char *list);
bool ipn_ports_select(const char *list, const char *name, u32 port, bool ib,
		      bool roce);
void ipn_ib_exit(void);

/* verbs.c */
int ipn_verbs_create(struct ipn_priv *priv);
void ipn_verbs_destroy(struct ipn_priv *priv);
int ipn_cq_moderate(struct ipn_priv *priv);
int ipn_qp_up(struct ipn_priv *priv);
void ipn_qp_down(struct ipn_priv *priv);

/* ah.c */
struct ipn_ah *ipn_ah_create(struct ipn_priv *priv, struct rdma_ah_attr *attr);
bool ipn_ah_same(const struct ipn_ah *ah, const struct rdma_ah_attr *attr);
void ipn_ah_put(struct ipn_ah *ah);
void ipn_ah_reap(struct ipn_priv *priv, bool all);

/*
 * Whether the send at ring position pos may still be in txq's ring, in
 * [tail, head). The two reads are not ordered, and a drain may reset
 * both to 0 between them: a window read so is larger than the ring's
 * (or wraps), which only keeps a handle longer. Any context.
 */
static inline bool ipn_tx_in_ring(const struct ipn_txq *txq, unsigned int pos)
{
	unsigned int tail = READ_ONCE(txq->tail);
	unsigned int head = READ_ONCE(txq->head);

	return pos - tail < head - tail;
}

void ipn_ah_reap_work(struct work_struct *work);

/* ctl.c */
void ipn_event_handler_register(struct ipn_priv *priv);
void ipn_event_handler_unregister(struct ipn_priv *priv);
void ipn_ctl_kick(struct ipn_priv *priv);
void ipn_tick_arm(struct ipn_priv *priv, u64 deadline);
void ipn_ctl_work(struct work_struct *work);
void ipn_tick_work(struct work_struct *work);
void ipn_flush_work(struct work_struct *work);
void ipn_link_apply(struct ipn_priv *priv, const struct ipc_result *r);
int ipn_port_state(struct ipn_priv *priv, int *active, int *pkey_ok);

/* allmulti.c */
void ipn_allmulti_init(struct ipn_priv *priv);
void ipn_allmulti_sync(struct ipn_priv *priv);
void ipn_allmulti_stop(struct ipn_priv *priv);
bool ipn_allmulti_flushed(struct ipn_priv *priv);
void ipn_allmulti_forget(struct ipn_priv *priv, const struct ipc_mc *st);
void ipn_allmulti_answer(struct ipn_priv *priv, u64 tid, const u8 *buf,
			 u32 len, int status);
int ipn_allmulti_notice(struct ipn_priv *port_priv, u16 slid, u16 sm_lid,
			u16 pkey, const u8 *mad, u32 len, u8 *resp);
int ipn_am_ib_start(struct ipn_priv *priv);
void ipn_am_ib_stop(struct ipn_priv *priv);
int ipn_am_ib_send(struct ipn_priv *priv, const u8 *mad);

/* rx.c */
int ipn_rx_page_map(struct ipn_priv *priv, struct page_pool *pool, gfp_t gfp,
		    struct page **page, u64 *addr);
void ipn_rx_page_free(struct ipn_priv *priv, struct page_pool *pool,
		      struct page *page, u64 addr);
void ipn_rx_alloc_failed(struct ipn_priv *priv);

/*
 * An skb of len bytes for a frame NAPI received (UD's ring, the SRQ);
 * with ipn_rx_page_map() the only receive allocations KUnit fails.
 */
static inline struct sk_buff *ipn_rx_skb(struct ipn_priv *priv,
					 struct napi_struct *napi,
					 unsigned int len)
{
	return ipn_kunit_rx_alloc_fails(priv) ? NULL :
	       napi_alloc_skb(napi, len);
}

int ipn_rx_ring_init(struct ipn_priv *priv);
void ipn_rx_ring_free(struct ipn_priv *priv);
int ipn_rx_poll(struct napi_struct *napi, int budget);
void ipn_rx_comp(struct ib_cq *cq, void *ctx);
void ipn_rx_set_header(struct ipn_priv *priv, struct sk_buff *skb,
		       const struct ipc_rx_verdict *v);

/* tx.c */
netdev_tx_t ipn_start_xmit(struct sk_buff *skb, struct net_device *dev);
int ipn_tx_poll(struct napi_struct *napi, int budget);
void ipn_tx_comp(struct ib_cq *cq, void *ctx);
void ipn_tx_ring_drain(struct ipn_txq *txq);
void ipn_cm_tx_sent(struct ipn_priv *priv, struct ipn_cm_tx *cm);
u16 ipn_select_queue(struct net_device *dev, struct sk_buff *skb,
		     struct net_device *sb_dev);
void ipn_tx_napi_enable(struct ipn_priv *priv);
void ipn_tx_napi_disable(struct ipn_priv *priv);
void ipn_tx_timeout(struct net_device *dev, unsigned int txqueue);
void ipn_xmit_list(struct sk_buff_head *list);

/* budget.c */
void ipn_sa_init(struct ipn_priv *priv);
bool ipn_sa_gate(struct ipn_priv *priv, struct ipn_entry *e, u32 act);
void ipn_sa_withdraw(struct ipn_priv *priv, struct ipn_entry *e);
void ipn_sa_release(struct ipn_priv *priv, u64 now);
void ipn_sa_charge(struct ipn_priv *priv);

/* entry.c */
void ipn_entry_init(struct ipn_entry *e, const struct ipn_entry_kind *kind);
void ipn_entry_apply(struct ipn_priv *priv, struct ipn_entry *e,
		     const struct ipc_result *r, struct sk_buff *skb);
void ipn_entry_run(struct ipn_priv *priv, struct list_head *work);
void ipn_entry_file(struct ipn_priv *priv, struct ipn_entry *e);
void ipn_entry_run_due(struct ipn_priv *priv, u64 now);
void ipn_entry_arm_first(struct ipn_priv *priv);

/*
 * Give the control work ops to perform on e (IPC_ACT_* not of
 * IPC_ACT_AT_VERDICT, IPN_OP_*); inline for the completion handlers
 * that report. priv->lock held.
 */
static inline void ipn_entry_queue_ops(struct ipn_priv *priv,
				       struct ipn_entry *e, u32 ops)
{
	lockdep_assert_held(&priv->lock);
	e->ops |= ops;
	if (list_empty(&e->work))
		list_add_tail(&e->work, (struct list_head *)((char *)priv +
							     e->kind->work_off));
	ipn_ctl_kick(priv);
}

/* path.c */
extern const struct ipn_entry_kind ipn_path_kind;
int ipn_path_table_alloc(struct ipn_priv *priv);
void ipn_path_table_free(struct ipn_priv *priv);

static inline unsigned int ipn_path_buckets(const struct ipn_priv *priv)
{
	return 1u << priv->path_hash_bits;
}

struct ipn_path *ipn_path_get(struct ipn_priv *priv, const u8 *gid, u64 now);
struct ipn_path *ipn_path_find(struct ipn_priv *priv, const u8 *gid);
struct ipn_ah *ipn_path_tx_ah(struct ipn_priv *priv, const u8 *gid, u64 now);
void ipn_path_apply(struct ipn_priv *priv, struct ipn_path *path,
		    const struct ipc_result *r, struct sk_buff *skb);
void ipn_path_run(struct ipn_priv *priv);
void __ipn_path_query_async_done(struct ipn_priv *priv,
				 struct ipn_path *path, int status);
void ipn_path_query_async_done(struct ipn_priv *priv, struct ipn_path *path,
			       int status);
void ipn_path_query_complete(struct ipn_priv *priv, struct ipn_path *path,
			     int status);
void ipn_path_flush_all(struct ipn_priv *priv);
void ipn_path_revalidate(struct ipn_priv *priv, struct ipn_path *path);
void ipn_path_destroy_all(struct ipn_priv *priv);

/* mcast.c */
extern const struct ipn_entry_kind ipn_mcast_kind;
bool ipn_mcast_addr_taken(const struct ipn_priv *priv, const u8 *addr);
struct ipn_mcast *ipn_mcast_find(struct ipn_priv *priv, const u8 *mgid);
struct ipn_mcast *ipn_mcast_get(struct ipn_priv *priv, const u8 *mgid,
				u8 scope, bool make_room);
int ipn_mcast_routers_usable(struct ipn_priv *priv, const u8 *mgid);
bool ipn_mcast_redirect(struct sk_buff *skb);
void ipn_mcast_apply(struct ipn_priv *priv, struct ipn_mcast *mc,
		     const struct ipc_result *r, struct sk_buff *skb);
void ipn_mcast_run(struct ipn_priv *priv);
void ipn_mcast_join_complete(struct ipn_priv *priv, struct ipn_mcast *mc,
			     int status);
void ipn_mcast_rx_mode_work(struct work_struct *work);
int ipn_mcast_join_bcast(struct ipn_priv *priv);
void ipn_mcast_flush_all(struct ipn_priv *priv);
void ipn_mcast_destroy_all(struct ipn_priv *priv);

/* cm.c */
void ipn_cm_init(struct ipn_priv *priv);
int ipn_cm_start(struct ipn_priv *priv);
void ipn_cm_stop(struct ipn_priv *priv);
void ipn_cm_restart(struct ipn_priv *priv);
void ipn_cm_run(struct ipn_priv *priv);
void ipn_cm_reap(struct ipn_priv *priv, bool all);
void ipn_cm_timers(struct ipn_priv *priv, u64 now);
enum ipn_cm_route ipn_cm_xmit(struct ipn_priv *priv, struct sk_buff *skb,
			      u64 now, struct ipn_cm_tx **txp, u32 *mtu);
void ipn_cm_tx_error(struct ipn_priv *priv, struct ipn_cm_tx *tx,
		     struct ib_qp *qp);
void ipn_tx_too_big(struct ipn_priv *priv, struct sk_buff *skb, u32 mtu);

/* srq.c */
int ipn_cm_rx_poll(struct napi_struct *napi, int budget);
int ipn_cm_verbs_create(struct ipn_priv *priv);
void ipn_cm_verbs_destroy(struct ipn_priv *priv);
void ipn_cm_srq_gauges(struct ipn_priv *priv, u64 *size, u64 *posted,
		       u64 *stuck);
bool ipn_cm_srq_starved(struct ipn_priv *priv, u64 now, bool draining,
			u64 *deadline);

/* sa.c */
extern const struct ipn_sa_ops ipn_sa_ib;
extern const struct ipn_backend_ops ipn_ib_ops;
extern struct ib_sa_client ipn_sa_client;

/* roce.c */
extern const struct ipn_backend_ops ipn_roce_ops;
int ipn_roce_init(void);
void ipn_roce_exit(void);
void ipn_roce_lower_mtu(struct net_device *ndev);
void ipn_roce_watch(struct ipn_priv *priv);
void ipn_roce_unwatch(struct ipn_priv *priv);

/* debugfs.c */
extern struct dentry *ipn_debugfs_root;
void ipn_debugfs_add(struct ipn_priv *priv);
void ipn_debugfs_remove(struct ipn_priv *priv);

/* ethtool.c */
extern const struct ethtool_ops ipn_ethtool_ops;
u32 ipn_ib_link_speed(u8 width, u16 speed);

/* genl.c */
int ipn_genl_init(void);
void ipn_genl_exit(void);
void ipn_genl_path_event(struct ipn_priv *priv, const u8 *gid, int status);
void ipn_genl_group_event(struct ipn_priv *priv, const u8 *mgid, bool left,
			  int status, int join);
void ipn_genl_conn_event(struct ipn_priv *priv, const u8 *addr, bool rx,
			 bool up, int status);
void ipn_genl_link_event(struct ipn_priv *priv);

/* netlink.c */
int ipn_netlink_init(void);
void ipn_netlink_exit(void);
extern struct rtnl_link_ops ipn_link_ops;

#ifdef IPN_KUNIT
int ipn_change_mtu(struct net_device *dev, int new_mtu);
netdev_features_t ipn_offload_features(const struct ib_device_attr *attrs,
				       int max_sge);
netdev_features_t ipn_fix_features(struct net_device *dev,
				   netdev_features_t features);
int ipn_tx_offload(struct sk_buff *skb, struct ib_ud_wr *wr);
u32 ipn_tx_ud_len(const struct sk_buff *skb);
int ipn_ib_event_to_core(enum ib_event_type type);
u8 ipn_tx_ip_scope(const struct sk_buff *skb);
void ipn_roce_attr(struct ipn_priv *priv, const u8 *dgid, u8 hop,
		   struct rdma_ah_attr *attr);
struct sk_buff *ipn_rx_frame(struct ipn_priv *priv, struct sk_buff *skb,
			     const struct ib_wc *wc);
struct ib_cm_id;
struct ib_cm_event;
int ipn_cm_req(struct ib_cm_id *id, const struct ib_cm_event *ev);
void ipn_cm_rx_retire(struct ipn_priv *priv, struct ipn_cm_rx *rx);
void ipn_tx_one(struct ipn_txq *txq, struct ib_wc *wc, int budget);
struct sa_path_rec;
int ipn_cm_path_rec(struct ipn_priv *priv, const u8 *gid,
		    struct sa_path_rec *rec);
#endif

#endif /* IPOIB_NG_H */
