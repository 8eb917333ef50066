// SPDX-License-Identifier: GPL-2.0
/*
 * cm_test.c - suite ipoib_ng_cm: connected mode (driver/cm.c, RFC 4755)
 * over real ib_cm connections on soft-RoCE, for the fixes of review H3
 * (passive connections bounded and reaped) and H4 (no RC send holds the
 * shared send ring for good). Interface A is on ibdev (rxe0); its peers
 * are on the RDMA device of the roce_peer netdev (rxe1 on vb), all with
 * GID index 0 (link-local), as tests/vm/scenarios/kunit.sh sets them up:
 *
 *   A (rxe0) <== RC, ib_cm ==> B, B2 (rxe1)   interfaces of the driver
 *   A (rxe0) <== RC, ib_cm ==> raw peer (rxe1): ib_cm calls of this file,
 *                              one RC QP that never posts a receive
 *
 *   1. cm_accept_and_cap: B connects and is accepted; at cm_rx_max, B2's
 *      REQ is refused and B2 reaches A over UD.
 *   2. cm_rx_idle_reaped: A closes B's connection after A's idle time.
 *   3. cm_rnr_hostile_peer: the raw peer answers with an RNR retry count
 *      of 7 (for ever) and RNR-NAKs every send: the driver's QP retries
 *      at most 6 times, the ring drains, the queue runs again.
 *   4. cm_dead_peer_stall: the raw peer's QP never leaves RESET, so no
 *      send is ever acknowledged: the stall check breaks the connection.
 *   5. cm_tx_bounded: A sends to B's GID under ever new QPNs: at most
 *      cm_tx_max connections, and IPN_CM_TX_PER_GID to one GID.
 *   6. cm_late_completion: a connection freed while a send of it is
 *      still out is kept until that send completes.
 */
#define IPN_KUNIT 1
#include <linux/delay.h>
#include <linux/ip.h>
#include <net/addrconf.h>
#include <net/ndisc.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include "ipoib_ng.h"
#include "ipn_kunit.h"

#define KT_PEER_QPN	0x00c0deU	/* the UD QPN the raw peer claims */
#define KT_UD_QPN	0x000022U	/* nobody's: UD sends that fill the ring */
#define KT_STALL_MS	IPN_CM_STALL_MS
#define KT_RNR_MAX	IPN_CM_RNR_RETRY
#define KT_RNR_FOREVER	7		/* IBA 9.7.5.2.8: retry for ever */
#define KT_CONNECT_MS	15000U		/* a REQ answered, a frame through */
#define KT_EVICT_MS	12000U		/* review H4: the ring given back */
#define KT_IDLE_MS	2000U		/* A's idle time in cm_rx_idle_reaped */

/* IPv4 destinations that tell the frames apart at A. */
#define KT_IP_B		cpu_to_be32(0x0a4d0001)	/* 10.77.0.1: from B */
#define KT_IP_B2	cpu_to_be32(0x0a4d0002)	/* from B2 */
#define KT_IP_PEER	cpu_to_be32(0x0a4d0003)	/* to the raw peer */

enum kt_peer_mode {
	KT_PEER_RNR,	/* QP to RTR and RTS, no receive: RNR NAK each send */
	KT_PEER_DEAD,	/* QP left in RESET: every send dropped, no ACK */
};

/* What the raw peer saw; under kt_peer.lock. */
struct kt_peer_seen {
	u32 req_qpn;		/* the REQ's private data: the driver's UD QPN */
	u8 req_rnr_retry;	/* the REQ's RNR retry count */
	int accepts, refused, rtus, dreqs, errors;
};

/*
 * A connected-mode node made of raw ib_cm calls: it listens on the
 * Service ID of KT_PEER_QPN (RFC 4755 s3.5) and accepts one connection,
 * on its own RC QP, answering with an RNR retry count of 7.
 */
struct kt_peer {
	struct ib_device *ca;		/* not referenced: kt_cm.peer_ca */
	enum kt_peer_mode mode;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct ib_cm_id *listen;
	spinlock_t lock;		/* conn, seen */
	struct ib_cm_id *conn;		/* the connection accepted */
	struct kt_peer_seen seen;
};

struct kt_cm {
	struct ib_device *ca;		/* ibdev: A's */
	struct ib_device *peer_ca;	/* on roce_peer: B's, B2's, the peer's */
	struct ipn_priv *a, *b, *b2;
	struct kt_peer peer;
	struct packet_type tap;		/* IPv4 frames A receives */
	bool tapped;
	atomic_t from_b, from_b2;
	unsigned int rx_max;		/* ipn_cm_rx_max as found */
	unsigned int tx_max;		/* ipn_cm_tx_max as found */
	u8 to[IPC_ADDR_LEN];		/* where the case sends, C bit set */
	u64 want_sent;			/* cm_tx_packets kt_a_sending waits for */
};

/* ------------------------------------------------------------------ */
/* Interfaces and what they hold                                        */
/* ------------------------------------------------------------------ */

/*
 * An interface on port 1 of ca, in connected mode, open, with carrier and
 * listener; *slot holds it for kt_cm_exit from its creation on. No IPv6:
 * its autoconfiguration is not the subject, and two interfaces of one
 * port would share a link-local address.
 */
static struct ipn_priv *kt_cm_if(struct kunit *test, struct ib_device *ca,
				 struct ipn_priv **slot)
{
	struct inet6_dev *idev;
	struct ipn_priv *priv;
	int ret;

	priv = ipn_dev_create(ca, 1, IPC_PKEY_DEFAULT);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(priv), "ipn_dev_create on %s: %pe",
			       dev_name(&ca->dev), priv);
	*slot = priv;
	rtnl_lock();
	idev = __in6_dev_get(priv->dev);
	if (idev)
		idev->cnf.disable_ipv6 = 1;
	ret = ipn_dev_set_mode(priv, true, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_EQ(test, ipn_kunit_open(priv), 0);
	KUNIT_ASSERT_TRUE(test, netif_carrier_ok(priv->dev));
	KUNIT_ASSERT_TRUE(test, priv->cm_on);
	KUNIT_ASSERT_TRUE(test, priv->dev->dev_addr[0] & IPC_ADDR_FLAG_CM);
	/* Its ICMP "too big" for a peer reached over UD needs the route. */
	KUNIT_ASSERT_FALSE(test, priv->dev->priv_flags & IFF_XMIT_DST_RELEASE);
	return priv;
}

static void kt_if_destroy(struct ipn_priv *priv)
{
	if (priv)
		ipn_dev_destroy(priv);
}

/* Counts B's and B2's frames by destination; the skb is shared. */
static int kt_tap_rcv(struct sk_buff *skb, struct net_device *dev,
		      struct packet_type *pt, struct net_device *orig)
{
	struct kt_cm *c = container_of(pt, struct kt_cm, tap);
	const struct iphdr *ip;
	struct iphdr buf;

	ip = skb_header_pointer(skb, 0, sizeof(buf), &buf);
	if (ip && ip->daddr == KT_IP_B)
		atomic_inc(&c->from_b);
	else if (ip && ip->daddr == KT_IP_B2)
		atomic_inc(&c->from_b2);
	consume_skb(skb);
	return NET_RX_SUCCESS;
}

static void kt_tap_start(struct kt_cm *c)
{
	c->tap.type = htons(ETH_P_IP);
	c->tap.dev = c->a->dev;
	c->tap.func = kt_tap_rcv;
	dev_add_pack(&c->tap);
	c->tapped = true;
}

/* A connection priv made to addr (C bit set), as priv->lock shows it. */
struct kt_conn {
	int state;		/* enum ipc_cm_state; -1: none */
	int inflight;		/* sends posted, not completed */
	bool qp;		/* its RC QP exists */
};

static struct ipn_cm_tx *kt_tx_find(struct ipn_priv *priv, const u8 *addr)
{
	struct ipn_cm_tx *tx;
	int b;

	lockdep_assert_held(&priv->lock);
	hash_for_each(priv->cm_tx, b, tx, node)
		if (!memcmp(tx->addr + 1, addr + 1, IPC_ADDR_LEN - 1))
			return tx;
	return NULL;
}

static struct kt_conn kt_conn(struct ipn_priv *priv, const u8 *addr)
{
	struct kt_conn s = { .state = -1 };
	struct ipn_cm_tx *tx;

	spin_lock_bh(&priv->lock);
	tx = kt_tx_find(priv, addr);
	if (tx) {
		s.state = tx->st.state;
		s.inflight = atomic_read(&tx->inflight);
		s.qp = !!READ_ONCE(tx->qp);
	}
	spin_unlock_bh(&priv->lock);
	return s;
}

/*
 * The RNR retry count of the RC QP of priv's connection to addr, and its
 * state, while it is connected; or -errno. ctl_mutex keeps the control
 * work, which alone destroys the QP, away meanwhile. Out of line: struct
 * ib_qp_attr would crowd a case's stack frame.
 */
static noinline_for_stack int kt_conn_rnr_retry(struct ipn_priv *priv,
						const u8 *addr,
						enum ib_qp_state *state)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;
	struct ipn_cm_tx *tx;
	struct ib_qp *qp = NULL;
	int ret = -ENOTCONN;

	mutex_lock(&priv->ctl_mutex);
	spin_lock_bh(&priv->lock);
	tx = kt_tx_find(priv, addr);
	if (tx && tx->st.state == IPC_CM_CONNECTED)
		qp = tx->qp;
	spin_unlock_bh(&priv->lock);
	if (qp)
		ret = ib_query_qp(qp, &attr, IB_QP_STATE | IB_QP_RNR_RETRY,
				  &init);
	mutex_unlock(&priv->ctl_mutex);
	if (ret)
		return ret;
	*state = attr.qp_state;
	return attr.rnr_retry;
}

/* The connections peers made to priv. */
struct kt_rx {
	unsigned int count;	/* cm_rx_count */
	unsigned int listed;	/* on cm_rx */
	unsigned int dead;	/* retired, not yet in ERR */
	unsigned int draining;	/* in ERR, QP kept: review H1 */
	unsigned int posted;	/* of them, with the drain WR posted */
	u64 last_rx_ms;		/* of the last one listed */
};

static struct kt_rx kt_rx(struct ipn_priv *priv)
{
	struct kt_rx s = {};
	struct ipn_cm_rx *rx;

	spin_lock_bh(&priv->lock);
	s.count = priv->cm_rx_count;
	list_for_each_entry(rx, &priv->cm_rx, list) {
		s.listed++;
		s.last_rx_ms = READ_ONCE(rx->last_rx_ms);
	}
	list_for_each_entry(rx, &priv->cm_rx_dead, list)
		s.dead++;
	spin_unlock_bh(&priv->lock);
	mutex_lock(&priv->ctl_mutex);
	list_for_each_entry(rx, &priv->cm_rx_drain, list) {
		s.draining++;
		s.posted += test_bit(IPN_CM_RX_POSTED, &rx->drain);
	}
	mutex_unlock(&priv->ctl_mutex);
	return s;
}

/* Poll cond every 20 ms for up to ms; whether it came true. */
static bool kt_wait(struct kt_cm *c, unsigned int ms,
		    bool (*cond)(struct kt_cm *c))
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	while (!cond(c)) {
		if (time_after(jiffies, end))
			return false;
		msleep(20);
	}
	return true;
}

/* ------------------------------------------------------------------ */
/* The raw peer                                                          */
/* ------------------------------------------------------------------ */

static void kt_peer_count(struct kt_peer *p, int *what)
{
	spin_lock(&p->lock);
	(*what)++;
	spin_unlock(&p->lock);
}

static struct kt_peer_seen kt_peer_seen(struct kt_peer *p)
{
	struct kt_peer_seen s;

	spin_lock(&p->lock);
	s = p->seen;
	spin_unlock(&p->lock);
	return s;
}

/*
 * The QP to state with the CM's attributes. rq_psn: the passive side's
 * RTR comes before its REP, whose starting PSN is given here (as the
 * driver's ipn_cm_qp_move does).
 */
static int kt_peer_qp_move(struct ib_cm_id *id, struct ib_qp *qp,
			   enum ib_qp_state state, const u32 *rq_psn)
{
	struct ib_qp_attr attr = { .qp_state = state };
	int mask, ret;

	ret = ib_cm_init_qp_attr(id, &attr, &mask);
	if (ret)
		return ret;
	if (rq_psn)
		attr.rq_psn = *rq_psn;
	return ib_modify_qp(qp, &attr, mask);
}

/*
 * A REQ, on its new ID: the first is accepted, with a REP whose RNR retry
 * count is 7 (review H4: the active side takes it from the REP) and valid
 * private data (s6); any later one is refused. The CM calls this before
 * it drops the listener's reference: destroying the listener waits for it.
 */
static int kt_peer_req(struct kt_peer *p, struct ib_cm_id *id,
		       const struct ib_cm_event *ev)
{
	struct ib_cm_rep_param rep = {};
	u32 psn = get_random_u32() & 0xffffff;
	u32 qpn = 0, frame_max;
	u8 data[IPC_CM_PRIV_LEN];
	int ret = 0;

	ipc_cm_priv_parse(ev->private_data, IB_CM_REQ_PRIVATE_DATA_SIZE, &qpn,
			  &frame_max);
	spin_lock(&p->lock);
	if (p->conn || p->seen.accepts) {
		p->seen.refused++;
		spin_unlock(&p->lock);
		return -EBUSY;	/* the CM rejects it and frees the ID */
	}
	p->seen.req_qpn = qpn;
	p->seen.req_rnr_retry = ev->param.req_rcvd.rnr_retry_count;
	p->seen.accepts++;
	spin_unlock(&p->lock);

	/* No receive is ever posted: each send gets an RNR NAK. */
	if (p->mode == KT_PEER_RNR) {
		ret = kt_peer_qp_move(id, p->qp, IB_QPS_INIT, NULL);
		if (!ret)
			ret = kt_peer_qp_move(id, p->qp, IB_QPS_RTR, &psn);
	}
	if (!ret) {
		ipc_cm_priv_build(KT_PEER_QPN, IPC_CM_RX_MAX, data);
		rep.qp_num = p->qp->qp_num;
		rep.starting_psn = psn;
		rep.private_data = data;
		rep.private_data_len = sizeof(data);
		rep.rnr_retry_count = KT_RNR_FOREVER;
		ret = ib_send_cm_rep(id, &rep);
	}
	spin_lock(&p->lock);
	if (ret)
		p->seen.errors++;
	else
		p->conn = id;	/* ours now: kt_peer_stop destroys it */
	spin_unlock(&p->lock);
	return ret;
}

static int kt_peer_handler(struct ib_cm_id *id, const struct ib_cm_event *ev)
{
	struct kt_peer *p = id->context;

	switch (ev->event) {
	case IB_CM_REQ_RECEIVED:
		return kt_peer_req(p, id, ev);
	case IB_CM_RTU_RECEIVED:
	case IB_CM_USER_ESTABLISHED:
		if (p->mode == KT_PEER_RNR &&
		    kt_peer_qp_move(id, p->qp, IB_QPS_RTS, NULL))
			kt_peer_count(p, &p->seen.errors);
		kt_peer_count(p, &p->seen.rtus);
		return 0;
	case IB_CM_DREQ_RECEIVED:
		ib_send_cm_drep(id, NULL, 0);
		kt_peer_count(p, &p->seen.dreqs);
		return 0;
	default:
		return 0;
	}
}

/*
 * Start the raw peer on the peer device: PD, CQ, an RC QP in RESET with
 * one receive slot never filled, the listener. c->to: its address (the C
 * bit, KT_PEER_QPN, the port's GID index 0).
 */
static void kt_peer_start(struct kunit *test, enum kt_peer_mode mode)
{
	struct kt_cm *c = test->priv;
	struct kt_peer *p = &c->peer;
	struct ipc_addr to = { .flags = IPC_ADDR_FLAG_CM, .qpn = KT_PEER_QPN };
	struct ib_qp_init_attr qa = {
		.cap = {
			.max_send_wr = 1,
			.max_recv_wr = 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.qp_type = IB_QPT_RC,
	};
	struct ib_cm_id *id;
	union ib_gid gid;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;

	p->ca = c->peer_ca;
	p->mode = mode;
	KUNIT_ASSERT_EQ(test, rdma_query_gid(p->ca, 1, 0, &gid), 0);
	memcpy(to.gid, gid.raw, IPC_GID_LEN);
	ipc_addr_encode(&to, c->to);

	pd = ib_alloc_pd(p->ca, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(pd), "ib_alloc_pd: %pe", pd);
	p->pd = pd;
	cq = ib_alloc_cq(p->ca, p, 4, 0, IB_POLL_DIRECT);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(cq), "ib_alloc_cq: %pe", cq);
	p->cq = cq;
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qp = ib_create_qp(pd, &qa);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(qp), "ib_create_qp: %pe", qp);
	p->qp = qp;
	id = ib_create_cm_id(p->ca, kt_peer_handler, p);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(id), "ib_create_cm_id: %pe", id);
	p->listen = id;
	KUNIT_ASSERT_EQ(test, ib_cm_listen(id, cpu_to_be64(ipc_cm_service_id(KT_PEER_QPN))),
			0);
}

/* Undo kt_peer_start(), whatever it got to. */
static void kt_peer_stop(struct kt_peer *p)
{
	struct ib_cm_id *conn;

	/* Afterwards no REQ handler runs (see kt_peer_req). */
	if (p->listen)
		ib_destroy_cm_id(p->listen);
	spin_lock(&p->lock);
	conn = p->conn;
	p->conn = NULL;
	spin_unlock(&p->lock);
	if (conn)
		ib_destroy_cm_id(conn);	/* waits for its handlers */
	if (p->qp)
		ib_destroy_qp(p->qp);
	if (p->cq)
		ib_free_cq(p->cq);
	if (p->pd)
		ib_dealloc_pd(p->pd);
}

/* ------------------------------------------------------------------ */
/* Conditions the cases wait for                                         */
/* ------------------------------------------------------------------ */

/* B's REQ accepted by A, its frame through over RC. */
static bool kt_b_connected(struct kt_cm *c)
{
	return ipn_stat(c->a, cm_accepts) >= 1 &&
	       ipn_stat(c->a, cm_rx_packets) >= 1 &&
	       ipn_stat(c->b, cm_connects) >= 1 &&
	       atomic_read(&c->from_b) >= 1;
}

/* B on the peer device, connected to A by its first frame (tapped). */
static struct ipn_priv *kt_b_connect(struct kunit *test, struct kt_cm *c)
{
	struct ipn_priv *b = kt_cm_if(test, c->peer_ca, &c->b);

	kt_tap_start(c);
	memcpy(c->to, c->a->dev->dev_addr, IPC_ADDR_LEN);
	ipn_kunit_xmit(b, c->to, KT_IP_B);
	KUNIT_ASSERT_TRUE_MSG(test, kt_wait(c, KT_CONNECT_MS, kt_b_connected),
			      "B -> A: not connected");
	return b;
}

/* B's frame f of len bytes to A, or (len 0) a 64-byte IPv4 one. */
static void kt_b_send(struct kt_cm *c, const u8 *f, unsigned int len)
{
	if (len)
		ipn_kunit_xmit_frame(c->b, c->to, ETH_P_IPV6, f, len);
	else
		ipn_kunit_xmit(c->b, c->to, KT_IP_B);
}

/* B2's REQ refused, its frame through all the same. */
static bool kt_b2_fell_back(struct kt_cm *c)
{
	return ipn_stat(c->b2, cm_failures) >= 1 &&
	       atomic_read(&c->from_b2) >= 1;
}

/* B's second frame at A. */
static bool kt_b_again(struct kt_cm *c)
{
	return atomic_read(&c->from_b) >= 2;
}

/* B's third frame at A. */
static bool kt_b_third(struct kt_cm *c)
{
	return atomic_read(&c->from_b) >= 3;
}

/* B connected again after A closed, its frame through. */
static bool kt_b_reconnected(struct kt_cm *c)
{
	return ipn_stat(c->a, cm_accepts) >= 2 &&
	       ipn_stat(c->b, cm_connects) >= 2 && kt_b_again(c);
}

/* No connection to A is left, none waits to be destroyed. */
static bool kt_a_rx_gone(struct kt_cm *c)
{
	struct kt_rx r = kt_rx(c->a);

	return !r.count && !r.listed && !r.dead && !r.draining;
}

/* A's connection in ERR, its drain WR posted, the QP still there. */
static bool kt_a_rx_drain_posted(struct kt_cm *c)
{
	struct kt_rx r = kt_rx(c->a);

	return r.count == 1 && r.draining == 1 && r.posted == 1;
}

/* B's connection to A is no longer up (A's DREQ reached it). */
static bool kt_b_closed(struct kt_cm *c)
{
	return kt_conn(c->b, c->to).state != IPC_CM_CONNECTED;
}

/* A is connected to the raw peer and has posted c->want_sent sends. */
static bool kt_a_sending(struct kt_cm *c)
{
	return kt_conn(c->a, c->to).state == IPC_CM_CONNECTED &&
	       ipn_stat(c->a, cm_tx_packets) >= c->want_sent;
}

/*
 * A gave the connection up: every send of it completed, its QP gone, the
 * ring empty, the queue running.
 */
static bool kt_a_drained(struct kt_cm *c)
{
	struct kt_conn s = kt_conn(c->a, c->to);

	return s.state != IPC_CM_CONNECTED && !s.inflight && !s.qp &&
	       READ_ONCE(c->a->txq[0].head) == READ_ONCE(c->a->txq[0].tail) &&
	       !netif_queue_stopped(c->a->dev);
}

static bool kt_peer_dreq(struct kt_cm *c)
{
	return kt_peer_seen(&c->peer).dreqs >= 1;
}

/* ------------------------------------------------------------------ */
/* The cases                                                             */
/* ------------------------------------------------------------------ */

static int kt_cm_init(struct kunit *test)
{
	struct kt_cm *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	spin_lock_init(&c->peer.lock);
	atomic_set(&c->from_b, 0);
	atomic_set(&c->from_b2, 0);
	c->rx_max = ipn_cm_rx_max;
	c->tx_max = ipn_cm_tx_max;
	test->priv = c;
	c->ca = ipn_kunit_get_ibdev(test);
	c->peer_ca = ipn_kunit_get_peer_ibdev(test);
	KUNIT_ASSERT_PTR_NE(test, c->ca, c->peer_ca);
	kt_cm_if(test, c->ca, &c->a);
	return 0;
}

/* Interfaces first: they close their connections to the raw peer. */
static void kt_cm_exit(struct kunit *test)
{
	struct kt_cm *c = test->priv;

	if (!c)
		return;
	ipn_kunit_rx_alloc_fail_at(NULL, 0);
	ipn_kunit_cm_poll_hold(NULL);
	if (c->tapped)
		dev_remove_pack(&c->tap);
	kt_if_destroy(c->b2);
	kt_if_destroy(c->b);
	kt_if_destroy(c->a);
	kt_peer_stop(&c->peer);
	ipn_cm_rx_max = c->rx_max;
	ipn_cm_tx_max = c->tx_max;
	if (c->peer_ca)
		ib_device_put(c->peer_ca);
	if (c->ca)
		ib_device_put(c->ca);
}

/*
 * RFC 4755 s3: B sends to A's address, whose C bit says A takes
 * connections: B's REQ goes to A's Service ID, A accepts, the frame comes
 * over the connection. Review H3: with cm_rx_max 1 reached, a second peer
 * (B2, another QPN) is refused before any QP is made; it falls back to
 * datagrams, and B's connection is untouched.
 */
static void cm_accept_and_cap(struct kunit *test)
{
	struct kt_cm *c = test->priv;
	struct ipn_priv *a = c->a, *b, *b2;
	u8 ud_to[IPC_ADDR_LEN];
	u64 rc_frames;

	b = kt_cm_if(test, c->peer_ca, &c->b);
	KUNIT_ASSERT_EQ(test, ipn_kunit_set_txqs(b, 2), 0);
	kt_tap_start(c);
	memcpy(c->to, a->dev->dev_addr, IPC_ADDR_LEN);

	ipn_kunit_xmit(b, c->to, KT_IP_B);
	KUNIT_ASSERT_TRUE_MSG(test, kt_wait(c, KT_CONNECT_MS, kt_b_connected),
			      "B -> A: A accepted %llu, B connected %llu, %d frames at A",
			      ipn_stat(a, cm_accepts), ipn_stat(b, cm_connects),
			      atomic_read(&c->from_b));
	KUNIT_EXPECT_EQ(test, ipn_stat(a, cm_accepts), 1u);
	KUNIT_EXPECT_EQ(test, ipn_stat(a, cm_rejects), 0u);
	KUNIT_EXPECT_EQ(test, ipn_stat(a, cm_rx_packets), 1u);
	KUNIT_EXPECT_EQ(test, ipn_stat(b, cm_connects), 1u);
	KUNIT_EXPECT_EQ(test, ipn_stat(b, cm_failures), 0u);
	KUNIT_EXPECT_EQ(test, kt_rx(a).count, 1u);
	KUNIT_EXPECT_EQ(test, kt_conn(b, c->to).state, IPC_CM_CONNECTED);

	ipn_cm_rx_max = 1;	/* kt_cm_exit restores it */
	b2 = kt_cm_if(test, c->peer_ca, &c->b2);
	KUNIT_ASSERT_NE(test, b2->ifid.qpn, b->ifid.qpn);
	rc_frames = ipn_stat(a, cm_rx_packets);
	ipn_kunit_xmit(b2, c->to, KT_IP_B2);
	KUNIT_ASSERT_TRUE_MSG(test, kt_wait(c, KT_CONNECT_MS, kt_b2_fell_back),
			      "B2 -> A: A rejected %llu, B2 failed %llu, %d frames at A",
			      ipn_stat(a, cm_rejects), ipn_stat(b2, cm_failures),
			      atomic_read(&c->from_b2));
	KUNIT_EXPECT_EQ(test, ipn_stat(a, cm_rejects), 1u);
	KUNIT_EXPECT_EQ(test, ipn_stat(a, cm_accepts), 1u);
	KUNIT_EXPECT_EQ(test, kt_rx(a).count, 1u);
	KUNIT_EXPECT_EQ(test, kt_rx(a).listed, 1u);
	KUNIT_EXPECT_EQ(test, ipn_stat(b2, cm_connects), 0u);
	KUNIT_EXPECT_EQ(test, ipn_stat(b2, cm_failures), 1u);
	KUNIT_EXPECT_NE(test, kt_conn(b2, c->to).state, IPC_CM_CONNECTED);
	/* B2's frame came, and not over a connection: over UD. */
	KUNIT_EXPECT_EQ(test, atomic_read(&c->from_b2), 1);
	KUNIT_EXPECT_EQ(test, ipn_stat(a, cm_rx_packets), rc_frames);

	ipn_kunit_xmit(b, c->to, KT_IP_B);
	KUNIT_EXPECT_TRUE(test, kt_wait(c, KT_CONNECT_MS, kt_b_again));
	KUNIT_EXPECT_EQ(test, ipn_stat(a, cm_rx_packets), rc_frames + 1);
	KUNIT_EXPECT_EQ(test, ipn_stat(b, cm_connects), 1u);

	/*
	 * Issue 23: B has two transmit queues. A connection's QP completes
	 * on queue 0's CQ, so a frame for a peer with the C bit goes to
	 * queue 0 whatever its hash; another frame with that hash to queue
	 * 1. One put on queue 1 all the same (it chose before connected
	 * mode started) goes over UD, not over B's connection.
	 */
	memcpy(ud_to, c->to, IPC_ADDR_LEN);
	ud_to[0] &= ~IPC_ADDR_FLAG_CM;
	KUNIT_EXPECT_EQ(test, ipn_kunit_select_queue(b, c->to, U32_MAX), 0);
	KUNIT_EXPECT_EQ(test, ipn_kunit_select_queue(b, ud_to, U32_MAX), 1);
	ipn_kunit_xmit_on(b, 1, c->to, KT_IP_B);
	KUNIT_EXPECT_TRUE(test, kt_wait(c, KT_CONNECT_MS, kt_b_third));
	KUNIT_EXPECT_EQ(test, ipn_stat(a, cm_rx_packets), rc_frames + 1);
	KUNIT_EXPECT_GE(test, ipn_kunit_txq_packets(b, 1), 1u);
}

/*
 * Review H3: a passive connection never sends, so it cannot see its peer
 * go; A closes one that received nothing for A's idle time (B's is 300 s,
 * so B never closes it first), with a DREQ, and its QP and ID go in A's
 * control work. B's next frame connects again.
 */
static void cm_rx_idle_reaped(struct kunit *test)
{
	struct kt_cm *c = test->priv;
	struct ipn_priv *a = c->a, *b;
	struct kt_rx r;
	u64 gone_ms;

	spin_lock_bh(&a->lock);
	a->cm_cfg.idle_ms = KT_IDLE_MS;
	spin_unlock_bh(&a->lock);
	b = kt_cm_if(test, c->peer_ca, &c->b);
	KUNIT_ASSERT_GT(test, b->cm_cfg.idle_ms, 10 * KT_IDLE_MS);
	kt_tap_start(c);
	memcpy(c->to, a->dev->dev_addr, IPC_ADDR_LEN);

	ipn_kunit_xmit(b, c->to, KT_IP_B);
	KUNIT_ASSERT_TRUE_MSG(test, kt_wait(c, KT_CONNECT_MS, kt_b_connected),
			      "B -> A: A accepted %llu, B connected %llu, %d frames at A",
			      ipn_stat(a, cm_accepts), ipn_stat(b, cm_connects),
			      atomic_read(&c->from_b));
	r = kt_rx(a);
	KUNIT_EXPECT_EQ(test, r.count, 1u);
	KUNIT_EXPECT_EQ(test, r.listed, 1u);

	KUNIT_ASSERT_TRUE_MSG(test, kt_wait(c, KT_IDLE_MS + 8000, kt_a_rx_gone),
			      "A still holds %u connections (%u listed, %u retired)",
			      kt_rx(a).count, kt_rx(a).listed, kt_rx(a).dead);
	gone_ms = ipn_now_ms();
	/* Not before the idle time: the frame's arrival was the last use. */
	if (r.listed)
		KUNIT_EXPECT_GE(test, gone_ms, r.last_rx_ms + KT_IDLE_MS);
	KUNIT_EXPECT_EQ(test, ipn_stat(a, cm_accepts), 1u);
	KUNIT_EXPECT_TRUE_MSG(test, kt_wait(c, 5000, kt_b_closed),
			      "B's connection still up: no DREQ from A");

	ipn_kunit_xmit(b, c->to, KT_IP_B);
	KUNIT_EXPECT_TRUE_MSG(test, kt_wait(c, KT_CONNECT_MS, kt_b_reconnected),
			      "B again: A accepted %llu, B connected %llu, %d frames at A",
			      ipn_stat(a, cm_accepts), ipn_stat(b, cm_connects),
			      atomic_read(&c->from_b));
	KUNIT_EXPECT_EQ(test, ipn_stat(a, cm_rejects), 0u);
}

/* priv's CM NAPI back to its CQ (ipn_kunit_cm_poll_hold). */
static void kt_cm_poll_release(struct ipn_priv *priv)
{
	ipn_kunit_cm_poll_hold(NULL);
	local_bh_disable();
	napi_schedule(&priv->cm_napi);
	local_bh_enable();
}

/*
 * Review 2026-12 H1: a passive QP destroyed before its receive
 * completions were polled takes the SRQ buffer of the message it was in
 * the middle of with it. A's connection from B is retired (A's idle time)
 * while A's CM NAPI polls nothing: the QP goes to ERR, its drain WR is
 * posted (rxe of 6.1 raises no last-WQE event: after IPN_CM_LAST_WQE_MS)
 * and the QP stays, counted against cm_rx_max, for as long as nobody
 * polls. NAPI back: the drain is polled, the QP goes,
 * cm_rx_drains counts it, and B connects again.
 */
static void cm_rx_drained_before_destroy(struct kunit *test)
{
	struct kt_cm *c = test->priv;
	struct ipn_priv *a = c->a, *b;
	struct kt_rx r;

	b = kt_b_connect(test, c);
	KUNIT_ASSERT_EQ(test, kt_rx(a).count, 1u);
	ipn_kunit_cm_poll_hold(a);
	/* The tick that reaps it, now: it was armed for the old idle time. */
	spin_lock_bh(&a->lock);
	a->cm_cfg.idle_ms = KT_IDLE_MS;
	ipn_tick_arm(a, ipn_now_ms());
	spin_unlock_bh(&a->lock);
	if (!kt_wait(c, KT_IDLE_MS + 8000, kt_a_rx_drain_posted)) {
		r = kt_rx(a);
		kt_cm_poll_release(a);
		KUNIT_FAIL(test, "no drain: %u connections, %u listed, %u retired, %u draining",
			   r.count, r.listed, r.dead, r.draining);
		return;
	}
	/* Nothing polls: it stays, well short of IPN_CM_DRAIN_MS. */
	msleep(IPN_CM_DRAIN_MS / 2);
	r = kt_rx(a);
	KUNIT_EXPECT_EQ(test, r.count, 1u);
	KUNIT_EXPECT_EQ(test, r.draining, 1u);
	KUNIT_EXPECT_EQ(test, ipn_stat(a, cm_rx_drains), 0u);

	kt_cm_poll_release(a);
	KUNIT_EXPECT_TRUE_MSG(test, kt_wait(c, IPN_CM_DRAIN_MS, kt_a_rx_gone),
			      "A still holds %u connections (%u draining)",
			      kt_rx(a).count, kt_rx(a).draining);
	KUNIT_EXPECT_EQ(test, ipn_stat(a, cm_rx_drains), 1u);
	KUNIT_EXPECT_EQ(test, ipn_stat(a, cm_drain_timeouts), 0u);
	KUNIT_EXPECT_EQ(test, ipn_stat(a, cm_srq_restarts), 0u);

	spin_lock_bh(&a->lock);
	a->cm_cfg.idle_ms = 10 * KT_CONNECT_MS;
	spin_unlock_bh(&a->lock);
	KUNIT_EXPECT_TRUE(test, kt_wait(c, 5000, kt_b_closed));
	ipn_kunit_xmit(b, c->to, KT_IP_B);
	KUNIT_EXPECT_TRUE_MSG(test, kt_wait(c, KT_CONNECT_MS, kt_b_reconnected),
			      "B again: A accepted %llu, B connected %llu, %d frames at A",
			      ipn_stat(a, cm_accepts), ipn_stat(b, cm_connects),
			      atomic_read(&c->from_b));
}

/*
 * The COMM_EST handler of kt_comm_est_victim waits in its RCU section
 * (ipn_kunit_cm_comm_est) until released, 6 s at least: busy, as it may
 * not sleep there (RCU's stall warning comes at 21 s).
 */
static const struct ipn_cm_rx *kt_comm_est_victim;
static atomic_t kt_comm_est_in = ATOMIC_INIT(0);
static atomic_t kt_comm_est_release = ATOMIC_INIT(0);

void ipn_kunit_cm_comm_est(const struct ipn_cm_rx *rx)
{
	int i;

	if (rx != READ_ONCE(kt_comm_est_victim))
		return;
	atomic_set(&kt_comm_est_in, 1);
	for (i = 0; i < 6000 && !atomic_read(&kt_comm_est_release); i++)
		mdelay(1);
}

/* The provider's COMM_EST for a QP, from a worker of its own. */
struct kt_comm_est {
	struct work_struct work;
	struct ib_qp *qp;
};

static void kt_comm_est_fn(struct work_struct *work)
{
	struct kt_comm_est *k = container_of(work, struct kt_comm_est, work);
	struct ib_event ev = {
		.device = k->qp->device,
		.element.qp = k->qp,
		.event = IB_EVENT_COMM_EST,
	};

	k->qp->event_handler(&ev, k->qp->qp_context);
}

/*
 * Review 2026-12 L4: a COMM_EST event (data before the RTU, IBA
 * 12.9.7.3) whose handler has read the connection's CM ID when the
 * connection is retired and its ID destroyed (on PREEMPT_RT the handler
 * is a preemptible thread). The handler is held between its read and
 * ib_cm_notify(); the ID must outlive it: destroyed only after the
 * handler's RCU section (ipn_cm_rx_to_err's grace period). Without that
 * the ID is freed under the handler, and KASAN reports its use.
 */
static void cm_rx_comm_est_while_destroyed(struct kunit *test)
{
	struct kt_cm *c = test->priv;
	struct ipn_priv *a = c->a;
	struct kt_comm_est k;
	struct ipn_cm_rx *rx;
	bool in, going, id_kept;
	int i;

	kt_b_connect(test, c);
	spin_lock_bh(&a->lock);
	rx = list_first_entry_or_null(&a->cm_rx, struct ipn_cm_rx, list);
	spin_unlock_bh(&a->lock);
	KUNIT_ASSERT_NOT_NULL(test, rx);

	atomic_set(&kt_comm_est_in, 0);
	atomic_set(&kt_comm_est_release, 0);
	WRITE_ONCE(kt_comm_est_victim, rx);
	k.qp = rx->qp;
	INIT_WORK_ONSTACK(&k.work, kt_comm_est_fn);
	queue_work(system_unbound_wq, &k.work);
	for (i = 0; i < 100 && !atomic_read(&kt_comm_est_in); i++)
		msleep(20);
	in = atomic_read(&kt_comm_est_in);
	going = false;
	id_kept = false;
	if (in) {
		/* Retired: the control work moves it to ERR and destroys. */
		ipn_cm_rx_retire(a, rx);
		for (i = 0; i < 50 && !going; i++) {
			msleep(20);
			going = test_bit(IPN_CM_RX_GOING, &rx->drain);
		}
		/* Long enough for the destroy, had it not waited. */
		msleep(500);
		id_kept = READ_ONCE(rx->id);
	}
	atomic_set(&kt_comm_est_release, 1);
	flush_work(&k.work);
	destroy_work_on_stack(&k.work);
	WRITE_ONCE(kt_comm_est_victim, NULL);
	KUNIT_ASSERT_TRUE_MSG(test, in, "the COMM_EST handler never came");
	KUNIT_EXPECT_TRUE_MSG(test, going, "the connection was not retired");
	KUNIT_EXPECT_TRUE_MSG(test, id_kept,
			      "the CM ID was destroyed under its COMM_EST handler");
	KUNIT_EXPECT_TRUE_MSG(test, kt_wait(c, IPN_CM_DRAIN_MS + 2000,
					    kt_a_rx_gone),
			      "A still holds %u connections", kt_rx(a).count);
}

static int kt_idle_cm_handler(struct ib_cm_id *id,
			      const struct ib_cm_event *ev)
{
	return 0;
}

/*
 * Hand A's REQ handler a REQ through A's port in the name of peer address
 * (qpn, gid), as a node that writes its own REQ MAD can (the private
 * data's QPN and the path's GID are the sender's). The ID is a fresh one
 * of A's device, in no CM state: a REQ that got past the admission would
 * fail at ib_cm_init_qp_attr() (-EINVAL) and be counted nowhere.
 */
static int kt_forged_req(struct kunit *test, struct kt_cm *c, u32 qpn,
			 const u8 *gid)
{
	struct sa_path_rec path = { .pkey = cpu_to_be16(IPC_PKEY_DEFAULT) };
	u8 data[IB_CM_REQ_PRIVATE_DATA_SIZE] = {};
	struct ib_cm_event ev = {
		.event = IB_CM_REQ_RECEIVED,
		.private_data = data,
	};
	struct ib_cm_id *id;
	int ret;

	id = ib_create_cm_id(c->ca, kt_idle_cm_handler, c->a);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(id), "cm id: %pe", id);
	ipc_cm_priv_build(qpn, 2048, data);
	memcpy(path.dgid.raw, gid, IPC_GID_LEN);
	ev.param.req_rcvd.primary_path = &path;
	ev.param.req_rcvd.port = c->a->port;
	ret = ipn_cm_req(id, &ev);
	ib_destroy_cm_id(id);
	return ret;
}

/* Back-date the last receive of A's connection from B by ms. */
static void kt_a_rx_quiet(struct kt_cm *c, u64 ms)
{
	struct ipn_cm_rx *rx;

	spin_lock_bh(&c->a->lock);
	list_for_each_entry(rx, &c->a->cm_rx, list)
		WRITE_ONCE(rx->last_rx_ms, ipn_now_ms() - ms);
	spin_unlock_bh(&c->a->lock);
}

/*
 * Review 2026-12 H3: a REQ forged in the name of B, whose connection to A
 * carries frames, replaced it: A tore down B's connection (a DREQ, B's
 * message in flight lost) and took the forger's. Now it is refused
 * (IPC_CM_REQ_HOLD_MS), counted in cm_rejects, and B's connection goes
 * on untouched. Once that connection has been quiet for the hold, a REQ
 * of B's address (a B that restarted) is let through the admission: here
 * it fails only at the fresh ID's QP attributes.
 */
static void cm_req_forged_refused(struct kunit *test)
{
	struct kt_cm *c = test->priv;
	struct ipn_priv *a = c->a, *b;
	u64 rc_frames;
	int ret;

	b = kt_b_connect(test, c);
	rc_frames = ipn_stat(a, cm_rx_packets);
	ret = kt_forged_req(test, c, b->ifid.qpn, b->ifid.gid);
	KUNIT_EXPECT_EQ(test, ret, -EBUSY);
	KUNIT_EXPECT_EQ(test, ipn_stat(a, cm_rejects), 1u);
	KUNIT_EXPECT_EQ(test, ipn_stat(a, cm_accepts), 1u);
	KUNIT_EXPECT_EQ(test, kt_rx(a).listed, 1u);
	KUNIT_EXPECT_EQ(test, kt_rx(a).dead, 0u);
	KUNIT_EXPECT_EQ(test, kt_rx(a).count, 1u);
	/* B's connection still carries B's frames, and B saw no DREQ. */
	kt_b_send(c, NULL, 0);
	KUNIT_EXPECT_TRUE(test, kt_wait(c, KT_CONNECT_MS, kt_b_again));
	KUNIT_EXPECT_EQ(test, ipn_stat(a, cm_rx_packets), rc_frames + 1);
	KUNIT_EXPECT_EQ(test, kt_conn(b, c->to).state, IPC_CM_CONNECTED);
	KUNIT_EXPECT_EQ(test, ipn_stat(b, cm_connects), 1u);

	kt_a_rx_quiet(c, IPC_CM_REQ_HOLD_MS);
	ret = kt_forged_req(test, c, b->ifid.qpn, b->ifid.gid);
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	KUNIT_EXPECT_EQ(test, ipn_stat(a, cm_rejects), 1u);
}

/*
 * Review 2026-12 H3: a retired connection stopped counting against
 * cm_rx_max at once, though its QP lives until the control work, behind
 * rtnl, destroys it; REQs could then make QPs without bound while rtnl
 * was held. With cm_rx_max 1, B's connection idles out while the test
 * holds rtnl: retired, not destroyed, it still counts, and another
 * peer's REQ is refused. Once rtnl is free it goes, and the count with
 * it. (Without the fix the REQ got past the cap to the fresh ID's QP
 * attributes: -EINVAL, nothing counted.)
 */
static void cm_req_dead_counted(struct kunit *test)
{
	struct kt_cm *c = test->priv;
	struct ipn_priv *a = c->a;
	static const u8 gid[IPC_GID_LEN] = {
		0xfe, 0x80, [8] = 0x02, [15] = 0x77,
	};
	struct kt_rx r;
	int ret;

	kt_b_connect(test, c);
	ipn_cm_rx_max = 1;	/* kt_cm_exit restores it */

	/*
	 * The tick shares the control work's queue, so with rtnl held it
	 * is run here, once B's connection has idled for A's idle time.
	 */
	rtnl_lock();
	kt_a_rx_quiet(c, a->cm_cfg.idle_ms + 1);
	spin_lock_bh(&a->lock);
	ipn_cm_timers(a, ipn_now_ms());
	spin_unlock_bh(&a->lock);
	r = kt_rx(a);
	ret = kt_forged_req(test, c, 0x123, gid);
	rtnl_unlock();
	ipn_ctl_kick(a);
	KUNIT_EXPECT_EQ(test, r.listed, 0u);
	KUNIT_EXPECT_EQ(test, r.dead, 1u);
	KUNIT_EXPECT_EQ(test, r.count, 1u);
	KUNIT_EXPECT_EQ(test, ret, -EBUSY);
	KUNIT_EXPECT_EQ(test, ipn_stat(a, cm_rejects), 1u);
	KUNIT_EXPECT_TRUE_MSG(test, kt_wait(c, 8000, kt_a_rx_gone),
			      "A still holds %u connections (%u retired)",
			      kt_rx(a).count, kt_rx(a).dead);
}

/*
 * Review H4: the raw peer answers A's REQ with an RNR retry count of 7
 * and never posts a receive, so every send of A's gets RNR NAKs (each
 * 655 ms apart: ib_cm gives the peer's RTR min_rnr_timer 0). A's QP
 * retries at most 6 times; the stuck sends pin the tail of the ring they
 * share with UD, which UD sends then fill until the queue stops. Within
 * KT_EVICT_MS every send of the connection has completed (RNR retries
 * exceeded, or the stall check), the connection is closed, the ring is
 * empty and the queue runs, without a transmit timeout. A driver that
 * took 7 from the REP and never evicted would hold the ring until the
 * 10 s watchdog restarted the interface.
 */
static void cm_rnr_hostile_peer(struct kunit *test)
{
	struct kt_cm *c = test->priv;
	struct ipn_priv *a = c->a;
	enum ib_qp_state qp_state = IB_QPS_RESET;
	struct ipc_addr ud = { .qpn = KT_UD_QPN };
	struct kt_peer_seen seen;
	u8 hw[IPC_ADDR_LEN];
	unsigned int i;
	int rnr;

	kt_peer_start(test, KT_PEER_RNR);
	memcpy(ud.gid, c->to + 4, IPC_GID_LEN);
	ipc_addr_encode(&ud, hw);

	c->want_sent = 3;
	for (i = 0; i < c->want_sent; i++)
		ipn_kunit_xmit(a, c->to, KT_IP_PEER);
	KUNIT_ASSERT_TRUE_MSG(test, kt_wait(c, KT_CONNECT_MS, kt_a_sending),
			      "A -> peer: state %d, %llu sends over RC, %llu connects, %llu failures",
			      kt_conn(a, c->to).state, ipn_stat(a, cm_tx_packets),
			      ipn_stat(a, cm_connects), ipn_stat(a, cm_failures));
	rnr = kt_conn_rnr_retry(a, c->to, &qp_state);
	KUNIT_EXPECT_GE(test, rnr, 0);
	KUNIT_EXPECT_LE(test, rnr, KT_RNR_MAX);
	KUNIT_EXPECT_EQ(test, qp_state, IB_QPS_RTS);
	seen = kt_peer_seen(&c->peer);
	KUNIT_EXPECT_EQ(test, seen.accepts, 1);
	KUNIT_EXPECT_EQ(test, seen.req_qpn, a->ifid.qpn);
	KUNIT_EXPECT_LE(test, seen.req_rnr_retry, KT_RNR_MAX);

	for (i = 0; i < a->tx_size && !netif_queue_stopped(a->dev); i++)
		ipn_kunit_xmit(a, hw, KT_IP_PEER);
	KUNIT_EXPECT_TRUE_MSG(test, netif_queue_stopped(a->dev),
			      "%u UD sends did not fill the ring behind the stuck ones",
			      i);

	KUNIT_EXPECT_TRUE_MSG(test, kt_wait(c, KT_EVICT_MS, kt_a_drained),
			      "after %u ms: state %d, %d sends in flight, ring %u/%u, queue %s",
			      KT_EVICT_MS, kt_conn(a, c->to).state,
			      kt_conn(a, c->to).inflight,
			      READ_ONCE(a->txq[0].head) - READ_ONCE(a->txq[0].tail),
			      a->tx_size,
			      netif_queue_stopped(a->dev) ? "stopped" : "running");
	KUNIT_EXPECT_NE(test, kt_conn(a, c->to).state, IPC_CM_CONNECTED);
	KUNIT_EXPECT_GE(test, ipn_stat(a, cm_stalls) + ipn_stat(a, tx_errors),
			1u);
	KUNIT_EXPECT_EQ(test, ipn_stat(a, tx_timeouts), 0u);
	KUNIT_EXPECT_FALSE(test, netif_queue_stopped(a->dev));
	KUNIT_EXPECT_TRUE_MSG(test, kt_wait(c, 5000, kt_peer_dreq),
			      "the peer got no DREQ");
	KUNIT_EXPECT_EQ(test, kt_peer_seen(&c->peer).errors, 0);
}

/*
 * Review H4, the stall check alone: the raw peer's QP stays in RESET, so
 * A's send is never acknowledged, and transport retries (7, about 2 s
 * each) would outlast the 10 s watchdog. The send has been out for
 * KT_STALL_MS when the stall check breaks the connection: counted as a
 * stall, with no send completed in error, no sooner, and no transmit
 * timeout.
 */
static void cm_dead_peer_stall(struct kunit *test)
{
	struct kt_cm *c = test->priv;
	struct ipn_priv *a = c->a;
	u64 sent_ms, drained_ms;

	kt_peer_start(test, KT_PEER_DEAD);
	c->want_sent = 1;
	sent_ms = ipn_now_ms();
	ipn_kunit_xmit(a, c->to, KT_IP_PEER);
	KUNIT_ASSERT_TRUE_MSG(test, kt_wait(c, KT_CONNECT_MS, kt_a_sending),
			      "A -> peer: state %d, %llu sends over RC, %llu connects, %llu failures",
			      kt_conn(a, c->to).state, ipn_stat(a, cm_tx_packets),
			      ipn_stat(a, cm_connects), ipn_stat(a, cm_failures));
	KUNIT_EXPECT_EQ(test, kt_conn(a, c->to).inflight, 1);

	KUNIT_ASSERT_TRUE_MSG(test, kt_wait(c, KT_EVICT_MS, kt_a_drained),
			      "after %u ms: state %d, %d sends in flight, %llu stalls",
			      KT_EVICT_MS, kt_conn(a, c->to).state,
			      kt_conn(a, c->to).inflight, ipn_stat(a, cm_stalls));
	drained_ms = ipn_now_ms();
	KUNIT_EXPECT_EQ(test, ipn_stat(a, cm_stalls), 1u);
	KUNIT_EXPECT_EQ(test, ipn_stat(a, tx_errors), 0u);
	KUNIT_EXPECT_EQ(test, ipn_stat(a, tx_timeouts), 0u);
	KUNIT_EXPECT_GE(test, drained_ms - sent_ms, (u64)KT_STALL_MS);
	KUNIT_EXPECT_EQ(test, ipn_stat(a, cm_tx_packets), 1u);
	KUNIT_EXPECT_TRUE_MSG(test, kt_wait(c, 5000, kt_peer_dreq),
			      "the peer got no DREQ");
	KUNIT_EXPECT_EQ(test, kt_peer_seen(&c->peer).errors, 0);
}

/* Poll cond every 20 ms for ms at most; its last value. */
#define kt_until(ms, cond) ({						\
	unsigned long __end = jiffies + msecs_to_jiffies(ms);		\
	bool __ok;							\
	while (!(__ok = (cond)) && time_before(jiffies, __end))	\
		msleep(20);						\
	__ok;								\
})

/* A's connections to gid (dead ones are off the hash already). */
static unsigned int kt_tx_to_gid(struct ipn_priv *priv, const u8 *gid)
{
	struct ipn_cm_tx *tx;
	unsigned int n = 0;
	int b;

	spin_lock_bh(&priv->lock);
	hash_for_each(priv->cm_tx, b, tx, node)
		n += !memcmp(tx->addr + IPN_ADDR_GID_OFF, gid, IPC_GID_LEN);
	spin_unlock_bh(&priv->lock);
	return n;
}

/* B's address with QPN qpn: what a peer answering ARP with it claims. */
static void kt_b_qpn(u8 *hw, const u8 *b_addr, u32 qpn)
{
	memcpy(hw, b_addr, IPC_ADDR_LEN);
	hw[1] = qpn >> 16;
	hw[2] = qpn >> 8;
	hw[3] = qpn;
}

/*
 * Review M3: every peer address with the C bit got a connection of its
 * own, an RC QP with a send queue of tx_size, so a peer answering ARP
 * with ever new QPNs on its one GID made A open connection after
 * connection. A keeps at most cm_tx_max connections and
 * IPN_CM_TX_PER_GID to one GID; beyond, frames go over datagrams
 * (cm_tx_refused) and no connection is made.
 */
static void cm_tx_bounded(struct kunit *test)
{
	struct kt_cm *c = test->priv;
	struct ipn_priv *a = c->a, *b;
	u8 hw[IPC_ADDR_LEN];
	const u8 *gid;
	int q;

	b = kt_cm_if(test, c->peer_ca, &c->b);
	gid = b->dev->dev_addr + IPN_ADDR_GID_OFF;
	ipn_cm_tx_max = 2;	/* kt_cm_exit restores it */
	ipn_kunit_xmit(a, b->dev->dev_addr, KT_IP_B);
	KUNIT_ASSERT_TRUE_MSG(test,
			      kt_until(KT_CONNECT_MS, kt_tx_to_gid(a, gid) == 1),
			      "A made no connection to B");

	/* The table's cap: one more address, then none. */
	for (q = 0; q < 2; q++) {
		kt_b_qpn(hw, b->dev->dev_addr, 0x100 + q);
		ipn_kunit_xmit(a, hw, KT_IP_B);
	}
	KUNIT_EXPECT_TRUE(test, kt_until(2000, ipn_stat(a, cm_tx_refused) >= 1));
	KUNIT_EXPECT_EQ(test, kt_tx_to_gid(a, gid), 2u);
	KUNIT_EXPECT_EQ(test, ipn_stat(a, cm_tx_refused), 1u);
	KUNIT_EXPECT_EQ(test, kt_conn(a, hw).state, -1);

	/* The GID's cap: two more, then none, the table's cap aside. */
	ipn_cm_tx_max = 1024;
	for (q = 1; q < 6; q++) {
		kt_b_qpn(hw, b->dev->dev_addr, 0x100 + q);
		ipn_kunit_xmit(a, hw, KT_IP_B);
	}
	KUNIT_EXPECT_TRUE(test, kt_until(2000, ipn_stat(a, cm_tx_refused) >= 4));
	KUNIT_EXPECT_EQ(test, kt_tx_to_gid(a, gid),
			(unsigned int)IPN_CM_TX_PER_GID);
	KUNIT_EXPECT_EQ(test, ipn_stat(a, cm_tx_refused), 4u);
	KUNIT_EXPECT_EQ(test, kt_conn(a, hw).state, -1);
	/* The first connection, B's own, was never touched. */
	KUNIT_EXPECT_GE(test, kt_conn(a, b->dev->dev_addr).state, 0);
}

/* Connections freed with sends out, kept until those come back. */
static unsigned int kt_zombies(struct ipn_priv *priv)
{
	struct ipn_cm_tx *tx;
	unsigned int n = 0;

	spin_lock_bh(&priv->lock);
	list_for_each_entry(tx, &priv->cm_zombies, zombie)
		n++;
	spin_unlock_bh(&priv->lock);
	return n;
}

/*
 * Review L2: a connection whose disconnect waited 5 s for sends that
 * never came back was freed all the same, while send ring slots still
 * pointed at it, so a completion that came later (not every provider
 * purges a destroyed QP's completions from the CQ) wrote freed memory.
 * rxe flushes every send of a QP in ERR, so the send that never
 * completes is made here (inflight raised by hand); A's connection to B
 * goes idle and is freed; then the late completion comes, through what
 * the send ring's completion handler calls. Without the fix KASAN
 * reports a use after free.
 */
static void cm_late_completion(struct kunit *test)
{
	struct kt_cm *c = test->priv;
	struct ipn_priv *a = c->a, *b;
	struct ipn_cm_tx *tx;
	unsigned int count;

	b = kt_cm_if(test, c->peer_ca, &c->b);
	spin_lock_bh(&a->lock);
	a->cm_cfg.idle_ms = KT_IDLE_MS;
	spin_unlock_bh(&a->lock);
	ipn_kunit_xmit(a, b->dev->dev_addr, KT_IP_B);
	KUNIT_ASSERT_TRUE_MSG(test,
			      kt_until(KT_CONNECT_MS,
				       kt_conn(a, b->dev->dev_addr).state ==
				       IPC_CM_CONNECTED),
			      "A did not connect to B");
	spin_lock_bh(&a->lock);
	tx = kt_tx_find(a, b->dev->dev_addr);
	if (tx)
		atomic_inc(&tx->inflight);	/* a send that never completes */
	count = a->cm_tx_count;
	spin_unlock_bh(&a->lock);
	KUNIT_ASSERT_NOT_NULL(test, tx);

	/* Idle: freed after a disconnect that gives up waiting (5 s). */
	KUNIT_EXPECT_TRUE_MSG(test,
			      kt_until(KT_IDLE_MS + 10000, kt_zombies(a) == 1),
			      "state %d, %u kept, %u connections",
			      kt_conn(a, b->dev->dev_addr).state, kt_zombies(a),
			      READ_ONCE(a->cm_tx_count));
	KUNIT_EXPECT_EQ(test, kt_conn(a, b->dev->dev_addr).state, -1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(a->cm_tx_count), count);

	/* The late completion; then it goes. */
	ipn_cm_tx_sent(a, tx);
	KUNIT_EXPECT_TRUE_MSG(test, kt_until(2000, !kt_zombies(a)),
			      "%u kept after their last send", kt_zombies(a));
	KUNIT_EXPECT_EQ(test, READ_ONCE(a->cm_tx_count), count - 1);
}

/*
 * An NS of 344 bytes whose source link-layer option (RFC 4391 s9.3) comes
 * after 256 bytes of another option: the option lies in the pages of the
 * receive skb, past the 128-byte head. lladdr: the address it claims.
 */
static void kt_ns_padded(u8 *f, unsigned int len, const u8 *lladdr)
{
	memset(f, 0, len);
	f[0] = 0x60;				/* IPv6 */
	f[4] = (len - 40) >> 8;
	f[5] = (len - 40) & 0xff;
	f[6] = IPPROTO_ICMPV6;
	f[7] = 255;
	f[40] = NDISC_NEIGHBOUR_SOLICITATION;
	f[64] = 200;				/* an unknown option */
	f[65] = 256 / 8;
	f[64 + 256] = ND_OPT_SOURCE_LL_ADDR;
	f[64 + 256 + 1] = 3;
	memcpy(&f[64 + 256 + 4], lladdr, IPC_ADDR_LEN);
}

/*
 * The CM receive path pulls 128 bytes into the skb's head; the core
 * checks the ND options (and ARP) of a frame, which may go on in the
 * pages. Such a frame is classified again with all of it: a good one is
 * delivered (without that, dropped as truncated), one claiming the
 * broadcast address is dropped as such (IPC_R_BAD_ADDR).
 */
static void cm_rx_nd_in_pages(struct kunit *test)
{
	struct kt_cm *c = test->priv;
	struct ipn_priv *a = c->a, *b;
	u8 *f = kunit_kzalloc(test, 344, GFP_KERNEL);
	u64 rc, bad;

	KUNIT_ASSERT_NOT_NULL(test, f);
	b = kt_b_connect(test, c);
	rc = ipn_stat(a, cm_rx_packets);
	bad = ipn_stat_drop(a, IPC_R_BAD_ADDR);

	kt_ns_padded(f, 344, b->dev->dev_addr);
	ipn_kunit_xmit_frame(b, c->to, ETH_P_IPV6, f, 344);
	KUNIT_EXPECT_TRUE_MSG(test,
			      kt_until(2000, ipn_stat(a, cm_rx_packets) > rc),
			      "the NS did not come through: %llu truncated",
			      ipn_stat_drop(a, IPC_R_TRUNCATED));
	KUNIT_EXPECT_EQ(test, ipn_stat_drop(a, IPC_R_TRUNCATED), 0u);

	kt_ns_padded(f, 344, b->dev->broadcast);
	ipn_kunit_xmit_frame(b, c->to, ETH_P_IPV6, f, 344);
	KUNIT_EXPECT_TRUE(test, kt_until(2000, ipn_stat_drop(a, IPC_R_BAD_ADDR) >
					 bad));
	KUNIT_EXPECT_EQ(test, ipn_stat(a, cm_rx_packets), rc + 1);
	/* Both went over the connection. */
	KUNIT_EXPECT_EQ(test, ipn_stat(b, cm_connects), 1u);
}

/*
 * Connected mode's receive short of memory (GFP_ATOMIC, in NAPI): no skb
 * to copy a small frame into; no pages to replace those a large frame
 * filled; pages taken, then no skb (they go back: kmemleak). Each time
 * the frame is dropped and counted (rx_dropped, rx_alloc_fail: qstats'
 * rx-alloc-fail), the SRQ slot is posted again as it was, and the next
 * frame comes through over the same connection.
 */
static void cm_rx_alloc_fails(struct kunit *test)
{
	struct kt_cm *c = test->priv;
	struct ipn_priv *a = c->a, *b;
	static const struct {
		unsigned int len;	/* 0: a 64-byte IPv4 frame */
		int at;
	} tries[] = { { 0, 1 }, { 344, 1 }, { 344, 2 } };
	u8 *f = kunit_kzalloc(test, 344, GFP_KERNEL);
	u64 rc, dropped, failed;
	unsigned int k;

	KUNIT_ASSERT_NOT_NULL(test, f);
	b = kt_b_connect(test, c);
	kt_ns_padded(f, 344, b->dev->dev_addr);
	for (k = 0; k < ARRAY_SIZE(tries); k++) {
		kunit_info(test, "%u bytes, allocation %d fails\n",
			   tries[k].len ? tries[k].len : 64, tries[k].at);
		rc = ipn_stat(a, cm_rx_packets);
		dropped = ipn_stat(a, rx_dropped);
		failed = ipn_stat(a, rx_alloc_fail);
		ipn_kunit_rx_alloc_fail_at(a, tries[k].at);
		kt_b_send(c, f, tries[k].len);
		KUNIT_ASSERT_TRUE_MSG(test, ipn_kunit_rx_alloc_failed(),
				      "A received nothing in 2 s");
		KUNIT_EXPECT_EQ(test, ipn_stat(a, rx_alloc_fail), failed + 1);
		KUNIT_EXPECT_EQ(test, ipn_stat(a, rx_dropped), dropped + 1);
		KUNIT_EXPECT_EQ(test, ipn_stat(a, cm_rx_packets), rc);

		kt_b_send(c, f, tries[k].len);
		KUNIT_EXPECT_TRUE_MSG(test,
				      kt_until(2000,
					       ipn_stat(a, cm_rx_packets) > rc),
				      "the next frame did not come through");
		KUNIT_EXPECT_EQ(test, ipn_stat(a, rx_alloc_fail), failed + 1);
	}
	KUNIT_EXPECT_EQ(test, ipn_stat(b, cm_connects), 1u);
	KUNIT_EXPECT_EQ(test, ipn_stat(a, cm_accepts), 1u);
}

static struct kunit_case ipn_cm_cases[] = {
	KUNIT_CASE(cm_accept_and_cap),
	KUNIT_CASE(cm_rx_idle_reaped),
	KUNIT_CASE(cm_rx_drained_before_destroy),
	KUNIT_CASE(cm_rx_comm_est_while_destroyed),
	KUNIT_CASE(cm_req_forged_refused),
	KUNIT_CASE(cm_req_dead_counted),
	KUNIT_CASE(cm_rnr_hostile_peer),
	KUNIT_CASE(cm_dead_peer_stall),
	KUNIT_CASE(cm_tx_bounded),
	KUNIT_CASE(cm_late_completion),
	KUNIT_CASE(cm_rx_nd_in_pages),
	KUNIT_CASE(cm_rx_alloc_fails),
	{}
};

static struct kunit_suite ipn_cm_suite = {
	.name = "ipoib_ng_cm",
	.init = kt_cm_init,
	.exit = kt_cm_exit,
	.test_cases = ipn_cm_cases,
};

kunit_test_suite(ipn_cm_suite);
