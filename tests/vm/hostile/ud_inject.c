// SPDX-License-Identifier: GPL-2.0
/*
 * ud_inject.c - a hostile IPoIB peer: crafted UD datagrams sent with raw
 * verbs straight at an interface's QPN over RoCEv2, with no IPoIB driver
 * on the sending side (tests/vm/scenarios/hostile.sh, issue 16).
 *
 * Every datagram starts with the 4-byte IPoIB header of RFC 4391 s6: the
 * EtherType, then 2 reserved octets (zero on send, ignored on receive).
 * Frame kinds, each sent COUNT times, in the order given:
 *
 *   --truncated N   0-3 bytes: shorter than the header
 *   --bad-type N    an EtherType not in s6 Table 1 before an echo request
 *   --reserved N    an IPv4 echo request, reserved octets not zero
 *   --wrong-qkey N  an echo request under Q_Keys the receiver does not use
 *   --other-pkey N  an echo request under the Q_Key of partition --pkey
 *   --arp N         ARP requests for --victim-ip from N forged senders
 *   --arp-probe N   ARP probes (sender IP 0, RFC 5227) from N forged senders
 *   --self-arp N    ARP requests whose sender address is the victim's own
 *                   (sender IPs --self-sip + 0..255, in turn)
 *   --echo N        valid IPv4 echo requests from --echo-src
 *
 * A forged sender s (counted from --sender-base across --arp and
 * --arp-probe) has QPN 0x100000 + s and the GID <--sender-prefix>::1b:ff:fe<s>
 * (link-local by default, so the victim derives the MAC, 02:1b:00:<s>,
 * without resolving anything), ARP sender IP --arp-sip + s.
 *
 * Output: one line per kind, "ud_inject: sent KIND N errors E (...)",
 * then a total with the rate. Exit status 0, 1 on any failed send or
 * verbs error, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <infiniband/verbs.h>

/* RFC 4391 s6 and s9.2; Q_Keys as driver/core/ipoib_core.h and keys.cpp. */
#define IPOIB_HDR_LEN	4
#define IPOIB_ADDR_LEN	20
#define ETH_P_IP	0x0800
#define ETH_P_ARP	0x0806
#define ARP_HW_IB	32
#define ARP_LEN		(8 + 2 * (IPOIB_ADDR_LEN + 4))
#define QKEY_DEFAULT	0x0000000bu	/* IPC_QKEY_DEFAULT */
#define PKEY_BASE_MASK	0x7fff
#define PKEY_DEFAULT	0x7fff
#define ECHO_LEN	(20 + 8 + 56)	/* what ping sends */
#define SLOT_SIZE	128		/* >= IPOIB_HDR_LEN + ECHO_LEN */
#define FORGED_QPN	0x100000u
#define POLL_BATCH	64
#define STUCK_MS	10000		/* no send completion for that long */

enum kind {
	K_TRUNCATED, K_BAD_TYPE, K_RESERVED, K_WRONG_QKEY, K_OTHER_PKEY,
	K_ARP, K_ARP_PROBE, K_SELF_ARP, K_ECHO, K_COUNT
};

static const char *const kind_names[K_COUNT] = {
	[K_TRUNCATED] = "truncated", [K_BAD_TYPE] = "bad-type",
	[K_RESERVED] = "reserved", [K_WRONG_QKEY] = "wrong-qkey",
	[K_OTHER_PKEY] = "other-pkey", [K_ARP] = "arp",
	[K_ARP_PROBE] = "arp-probe", [K_SELF_ARP] = "self-arp",
	[K_ECHO] = "echo",
};

/* Not in s6 Table 1 (IPv4, ARP, RARP, IPv6). */
static const uint16_t bad_types[] = {
	0x0000, 0x05dc, 0x0801, 0x0805, 0x0807, 0x8100, 0x86de, 0x86dc,
	0x88cc, 0x88e5, 0x8915, 0xffff,
};

/* None is the default Q_Key, none has a partition's form (keys.cpp). */
static const uint32_t wrong_qkeys[] = {
	0x00000000, 0x0000000a, 0x0000000c, 0x8000000b, 0x80000b1b,
	0x0badc0de, 0x7fffffff, 0xffffffff,
};

#define N_BAD_TYPES	(sizeof(bad_types) / sizeof(bad_types[0]))
#define N_WRONG_QKEYS	(sizeof(wrong_qkeys) / sizeof(wrong_qkeys[0]))

struct plan {
	enum kind kind;
	uint64_t count;
};

static struct {
	const char *dev;
	int port;
	int gid_index;			/* -1: the first RoCE v2 GID */
	uint32_t dest_qpn;
	uint8_t dest_addr[IPOIB_ADDR_LEN];	/* flags/QPN + GID */
	bool have_qpn, have_gid;
	uint32_t qkey;
	uint16_t pkey;
	uint32_t victim_ip, echo_src, arp_sip, self_sip;	/* host order */
	uint64_t sender_base;
	uint8_t sender_prefix[8];
	unsigned int window, batch;
	const char *pace_file;
	uint64_t ahead;
	unsigned int pace_timeout_ms;
	struct plan plan[64];
	unsigned int nplan;
} opt = {
	.port = 1,
	.gid_index = -1,
	.qkey = QKEY_DEFAULT,
	.pkey = 0x8001,
	.victim_ip = 0x0a010001,	/* 10.1.0.1 */
	.echo_src = 0x0a010002,		/* 10.1.0.2 */
	.arp_sip = 0x0a030001,		/* 10.3.0.1 */
	.self_sip = 0x0a040001,		/* 10.4.0.1 */
	.sender_prefix = { 0xfe, 0x80 },
	.window = 64,
	.batch = 16,
	.ahead = 128,
	.pace_timeout_ms = 2000,
};

static struct {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *chan;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	struct ibv_mr *mr;
	uint8_t *slots;
	uint64_t head;			/* next slot: a UD send queue completes in order */
	unsigned int inflight;
	uint64_t sent[K_COUNT], errors[K_COUNT];
	uint64_t next_sender;
	/* Pacing: frames that pass the Q_Key check, and the counter's base. */
	int pace_fd;
	uint64_t paced, pace_base, pace_waits, pace_stalls;
} st = { .pace_fd = -1 };

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("ud_inject: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put24(uint8_t *p, uint32_t v)
{
	p[0] = v >> 16;
	p[1] = v >> 8;
	p[2] = v;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/* RFC 1071 over an even length. */
static uint16_t csum(const uint8_t *p, size_t len)
{
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum;
}

/* An IPv4 ICMP echo request, --echo-src to --victim-ip, as ping sends. */
static size_t build_echo(uint8_t *p, uint64_t i)
{
	uint8_t *icmp = p + 20;
	unsigned int j;

	memset(p, 0, ECHO_LEN);
	p[0] = 0x45;
	put16(p + 2, ECHO_LEN);
	put16(p + 4, i);		/* identification */
	put16(p + 6, 0x4000);		/* DF */
	p[8] = 64;
	p[9] = 1;			/* ICMP */
	put32(p + 12, opt.echo_src);
	put32(p + 16, opt.victim_ip);
	put16(p + 10, csum(p, 20));
	icmp[0] = 8;			/* echo request */
	put16(icmp + 4, 0x4849);	/* identifier "HI" */
	put16(icmp + 6, i);		/* sequence */
	for (j = 8; j < ECHO_LEN - 20; j++)
		icmp[j] = i + j;
	put16(icmp + 2, csum(icmp, ECHO_LEN - 20));
	return ECHO_LEN;
}

static void forged_addr(uint8_t *a, uint64_t s)
{
	uint32_t low = s & 0xffffff;

	memset(a, 0, IPOIB_ADDR_LEN);
	put24(a + 1, FORGED_QPN + (s % 0xe00000));
	memcpy(a + 4, opt.sender_prefix, 8);
	/* EUI-64 of the locally administered MAC 02:1b:00:<s> */
	a[12] = 0x00;
	a[13] = 0x1b;
	a[14] = 0x00;
	a[15] = 0xff;
	a[16] = 0xfe;
	put24(a + 17, low);
}

/* s9.2: ARP with hardware type 32 and 20-byte hardware addresses. */
static size_t build_arp(uint8_t *p, const uint8_t *sha, uint32_t sip)
{
	memset(p, 0, ARP_LEN);
	put16(p, ARP_HW_IB);
	put16(p + 2, ETH_P_IP);
	p[4] = IPOIB_ADDR_LEN;
	p[5] = 4;
	put16(p + 6, 1);		/* request */
	memcpy(p + 8, sha, IPOIB_ADDR_LEN);
	put32(p + 8 + IPOIB_ADDR_LEN, sip);
	/* target hardware address: zero */
	put32(p + 8 + 2 * IPOIB_ADDR_LEN + 4, opt.victim_ip);
	return ARP_LEN;
}

static uint32_t other_pkey_qkey(void)
{
	return QKEY_DEFAULT | (uint32_t)(opt.pkey & PKEY_BASE_MASK) << 16;
}

/*
 * Frame i of kind k into buf; returns its length and sets *qkey. The
 * 4-byte header first, then the payload, which must fit SLOT_SIZE.
 */
static size_t build(enum kind k, uint64_t i, uint8_t *buf, uint32_t *qkey)
{
	uint8_t *pl = buf + IPOIB_HDR_LEN;
	uint8_t sha[IPOIB_ADDR_LEN];
	uint16_t type = ETH_P_IP, rsvd = 0;
	size_t len = 0;

	*qkey = opt.qkey;
	switch (k) {
	case K_TRUNCATED:
		/* A prefix of a valid IPv4 header: 0, 1, 2 or 3 bytes. */
		put16(buf, ETH_P_IP);
		buf[2] = 0;
		return i % IPOIB_HDR_LEN;
	case K_BAD_TYPE:
		type = bad_types[i % N_BAD_TYPES];
		len = build_echo(pl, i);
		break;
	case K_RESERVED:
		rsvd = i % 0xffff + 1;
		len = build_echo(pl, i);
		break;
	case K_WRONG_QKEY:
		*qkey = wrong_qkeys[i % N_WRONG_QKEYS];
		if (*qkey == opt.qkey)	/* the values differ: one can match */
			*qkey = wrong_qkeys[(i + 1) % N_WRONG_QKEYS];
		len = build_echo(pl, i);
		break;
	case K_OTHER_PKEY:
		*qkey = other_pkey_qkey();
		len = build_echo(pl, i);
		break;
	case K_ARP:
	case K_ARP_PROBE:
		type = ETH_P_ARP;
		forged_addr(sha, st.next_sender);
		len = build_arp(pl, sha, k == K_ARP ?
				opt.arp_sip + (uint32_t)st.next_sender : 0);
		st.next_sender++;
		break;
	case K_SELF_ARP:
		type = ETH_P_ARP;
		len = build_arp(pl, opt.dest_addr, opt.self_sip + i % 256);
		break;
	case K_ECHO:
		len = build_echo(pl, i);
		break;
	default:
		abort();
	}
	put16(buf, type);
	put16(buf + 2, rsvd);
	return IPOIB_HDR_LEN + len;
}

/* Frames the receiving HCA accepts: they count in the pacing counter. */
static bool kind_passes_qkey(enum kind k)
{
	return k != K_WRONG_QKEY && k != K_OTHER_PKEY;
}

static uint64_t pace_read(void)
{
	char buf[32];
	ssize_t n;

	n = pread(st.pace_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		die("cannot read %s: %s", opt.pace_file,
		    n < 0 ? strerror(errno) : "empty");
	buf[n] = 0;
	return strtoull(buf, NULL, 0);
}

/*
 * Keep at most --ahead accepted frames beyond what the receiver counted
 * (--pace-file), so that its receive queue is never found empty. A
 * counter that stays still for --pace-timeout ms is taken to have lost
 * frames: the base moves up and the stall is counted.
 */
static void pace_wait(unsigned int more)
{
	uint64_t last = ~0ull, since = now_ms(), got;
	struct timespec ts = { 0, 200000 };

	if (st.pace_fd < 0)
		return;
	for (;;) {
		got = pace_read() - st.pace_base;
		if (st.paced + more <= got + opt.ahead)
			return;
		if (got != last) {
			last = got;
			since = now_ms();
		} else if (now_ms() - since > opt.pace_timeout_ms) {
			st.pace_stalls++;
			st.pace_base -= st.paced + more - got - opt.ahead;
			return;
		}
		st.pace_waits++;
		nanosleep(&ts, NULL);
	}
}

/* Take the completions there are; returns how many. */
static int reap_some(void)
{
	struct ibv_wc wc[POLL_BATCH];
	int n, i;

	n = ibv_poll_cq(st.cq, POLL_BATCH, wc);
	if (n < 0)
		die("ibv_poll_cq failed");
	for (i = 0; i < n; i++) {
		enum kind k = wc[i].wr_id >> 56;

		if (wc[i].status != IBV_WC_SUCCESS && st.errors[k]++ == 0)
			fprintf(stderr, "ud_inject: %s: send completion %s\n",
				kind_names[k], ibv_wc_status_str(wc[i].status));
	}
	st.inflight -= n;
	return n;
}

/* Block until at least one send completes (the completion channel). */
static void reap_wait(void)
{
	struct pollfd pfd = { .fd = st.chan->fd, .events = POLLIN };
	uint64_t start = now_ms();
	struct ibv_cq *ev_cq;
	void *ev_ctx;

	while (!reap_some()) {
		if (ibv_req_notify_cq(st.cq, 0))
			die("ibv_req_notify_cq failed");
		if (reap_some())	/* one that came before the request */
			return;
		if (poll(&pfd, 1, 100) > 0 &&
		    !ibv_get_cq_event(st.chan, &ev_cq, &ev_ctx))
			ibv_ack_cq_events(ev_cq, 1);
		if (now_ms() - start > STUCK_MS)
			die("no send completion for %u s, %u sends in flight",
			    STUCK_MS / 1000, st.inflight);
	}
}

static void send_kind(enum kind k, uint64_t count)
{
	struct ibv_send_wr wr[64], *bad;
	struct ibv_sge sge[64];
	uint64_t i = 0, t0 = now_ms(), ms;
	unsigned int n, j;
	int ret;

	while (i < count) {
		if (st.inflight == opt.window)
			reap_wait();
		n = opt.window - st.inflight;
		if (n > opt.batch)
			n = opt.batch;
		if (n > count - i)
			n = count - i;
		if (kind_passes_qkey(k))
			pace_wait(n);
		for (j = 0; j < n; j++, i++) {
			size_t s = st.head++ % opt.window;
			uint8_t *buf = st.slots + (size_t)s * SLOT_SIZE;
			uint32_t qkey;
			size_t len = build(k, i, buf, &qkey);

			sge[j] = (struct ibv_sge){
				.addr = (uintptr_t)buf,
				.length = len,
				.lkey = st.mr->lkey,
			};
			wr[j] = (struct ibv_send_wr){
				.wr_id = (uint64_t)k << 56 | i,
				.next = j + 1 < n ? &wr[j + 1] : NULL,
				.sg_list = len ? &sge[j] : NULL,
				.num_sge = len ? 1 : 0,
				.opcode = IBV_WR_SEND,
				.send_flags = IBV_SEND_SIGNALED,
				.wr.ud = {
					.ah = st.ah,
					.remote_qpn = opt.dest_qpn,
					.remote_qkey = qkey,
				},
			};
		}
		ret = ibv_post_send(st.qp, wr, &bad);
		if (ret)
			die("ibv_post_send (%s, frame %" PRIu64 "): %s",
			    kind_names[k], i, strerror(ret));
		st.inflight += n;
		st.sent[k] += n;
		if (kind_passes_qkey(k))
			st.paced += n;
		reap_some();
	}
	while (st.inflight)
		reap_wait();
	ms = now_ms() - t0;
	printf("ud_inject: sent %s %" PRIu64 " errors %" PRIu64
	       " (%" PRIu64 ".%01" PRIu64 " s, %" PRIu64 " frames/s)\n",
	       kind_names[k], st.sent[k], st.errors[k], ms / 1000,
	       ms % 1000 / 100, ms ? count * 1000 / ms : count);
	fflush(stdout);
}

static bool gid_is_link_local(const union ibv_gid *g)
{
	return g->raw[0] == 0xfe && (g->raw[1] & 0xc0) == 0x80;
}

/* The GID index: as given, or the first RoCE v2 one, link-local first. */
static int pick_gid(union ibv_gid *gid)
{
	struct ibv_port_attr pa;
	struct ibv_gid_entry e;
	int i, any = -1;

	if (ibv_query_port(st.ctx, opt.port, &pa))
		die("ibv_query_port %s/%d failed", opt.dev, opt.port);
	if (pa.state != IBV_PORT_ACTIVE)
		die("%s port %d is not ACTIVE", opt.dev, opt.port);
	if (opt.gid_index >= 0) {
		if (ibv_query_gid(st.ctx, opt.port, opt.gid_index, gid))
			die("no GID %d on %s", opt.gid_index, opt.dev);
		return opt.gid_index;
	}
	for (i = 0; i < pa.gid_tbl_len; i++) {
		if (ibv_query_gid_ex(st.ctx, opt.port, i, &e, 0) ||
		    e.gid_type != IBV_GID_TYPE_ROCE_V2)
			continue;
		if (gid_is_link_local(&e.gid)) {
			*gid = e.gid;
			return i;
		}
		if (any < 0)
			any = i;
	}
	if (any < 0)
		die("%s port %d has no RoCE v2 GID", opt.dev, opt.port);
	ibv_query_gid(st.ctx, opt.port, any, gid);
	return any;
}

static void setup(void)
{
	struct ibv_device **list;
	struct ibv_qp_init_attr qia = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = opt.window, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_all = 1,
	};
	struct ibv_qp_attr qa;
	struct ibv_ah_attr aa;
	union ibv_gid sgid;
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
	int i, n, gid_index;
	size_t size;

	list = ibv_get_device_list(&n);
	if (!list)
		die("ibv_get_device_list: %s", strerror(errno));
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), opt.dev))
			break;
	if (i == n)
		die("no RDMA device %s", opt.dev);
	st.ctx = ibv_open_device(list[i]);
	if (!st.ctx)
		die("cannot open %s: %s", opt.dev, strerror(errno));
	ibv_free_device_list(list);

	gid_index = pick_gid(&sgid);
	st.pd = ibv_alloc_pd(st.ctx);
	st.chan = ibv_create_comp_channel(st.ctx);
	if (!st.pd || !st.chan)
		die("cannot allocate a PD or a completion channel");
	st.cq = ibv_create_cq(st.ctx, opt.window, NULL, st.chan, 0);
	if (!st.cq)
		die("ibv_create_cq(%u): %s", opt.window, strerror(errno));
	qia.send_cq = qia.recv_cq = st.cq;
	st.qp = ibv_create_qp(st.pd, &qia);
	if (!st.qp)
		die("ibv_create_qp (UD, %u sends): %s", opt.window,
		    strerror(errno));

	/* Our own Q_Key does not matter: nothing is received. */
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_INIT;
	qa.pkey_index = 0;
	qa.port_num = opt.port;
	qa.qkey = opt.qkey;
	if (ibv_modify_qp(st.qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		die("QP to INIT failed");
	qa.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(st.qp, &qa, IBV_QP_STATE))
		die("QP to RTR failed");
	qa.qp_state = IBV_QPS_RTS;
	qa.sq_psn = 0;
	if (ibv_modify_qp(st.qp, &qa, IBV_QP_STATE | IBV_QP_SQ_PSN))
		die("QP to RTS failed");

	memset(&aa, 0, sizeof(aa));
	aa.is_global = 1;
	memcpy(aa.grh.dgid.raw, opt.dest_addr + 4, 16);
	aa.grh.sgid_index = gid_index;
	aa.grh.hop_limit = 64;
	aa.port_num = opt.port;
	st.ah = ibv_create_ah(st.pd, &aa);
	if (!st.ah)
		die("ibv_create_ah: %s", strerror(errno));

	size = ((size_t)opt.window * SLOT_SIZE + 4095) & ~(size_t)4095;
	st.slots = aligned_alloc(4096, size);
	if (!st.slots)
		die("out of memory");
	st.mr = ibv_reg_mr(st.pd, st.slots, size, 0);
	if (!st.mr)
		die("ibv_reg_mr: %s", strerror(errno));

	if (opt.pace_file) {
		st.pace_fd = open(opt.pace_file, O_RDONLY);
		if (st.pace_fd < 0)
			die("cannot open %s: %s", opt.pace_file,
			    strerror(errno));
		st.pace_base = pace_read();
	}

	inet_ntop(AF_INET6, sgid.raw, s, sizeof(s));
	inet_ntop(AF_INET6, opt.dest_addr + 4, d, sizeof(d));
	printf("ud_inject: %s port %d GID index %d (%s) QPN 0x%06x -> QPN 0x%06x GID %s, Q_Key 0x%08x\n",
	       opt.dev, opt.port, gid_index, s, st.qp->qp_num, opt.dest_qpn,
	       d, opt.qkey);
	fflush(stdout);
}

static void teardown(void)
{
	ibv_dereg_mr(st.mr);
	free(st.slots);
	ibv_destroy_ah(st.ah);
	ibv_destroy_qp(st.qp);
	ibv_destroy_cq(st.cq);
	ibv_destroy_comp_channel(st.chan);
	ibv_dealloc_pd(st.pd);
	ibv_close_device(st.ctx);
	if (st.pace_fd >= 0)
		close(st.pace_fd);
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: ud_inject -d DEV --dest ADDR [options] [--KIND COUNT]...\n"
"  -d, --device DEV        RDMA device to send from (e.g. rxe1)\n"
"  -p, --port N            its port (default 1)\n"
"  -x, --gid-index N       source GID index (default: the first RoCE v2 GID,\n"
"                          link-local first)\n"
"  --dest ADDR             the victim's 20-byte IPoIB address, as ip link\n"
"                          prints it (flags/QPN, then the GID)\n"
"  --qpn N, --gid GID      or its QPN and GID separately\n"
"  --qkey Q                the victim's Q_Key (default 0x%08x, the default\n"
"                          partition's; driver/core/keys.cpp)\n"
"  --pkey P                partition of --other-pkey (default 0x8001)\n"
"  --victim-ip A           target of ARP and echo (default 10.1.0.1)\n"
"  --echo-src A            source of echo requests (default 10.1.0.2)\n"
"  --arp-sip A             first sender IP of --arp (default 10.3.0.1)\n"
"  --self-sip A            first of the 256 sender IPs of --self-arp\n"
"                          (default 10.4.0.1)\n"
"  --sender-base N         first forged sender (default 0)\n"
"  --sender-prefix P       first 64 bits of forged GIDs (default fe80::)\n"
"  --window N              sends in flight (default 64)\n"
"  --batch N               sends per post (default 16)\n"
"  --pace-file F           a receiver's counter (e.g. the victim device's\n"
"                          hw_counters/rdma_recvs): keep at most --ahead\n"
"                          frames that pass the Q_Key check beyond it\n"
"  --ahead N               (default 128)\n"
"  --pace-timeout MS       a counter still that long: frames lost, go on\n"
"                          (default 2000)\n"
"kinds: --truncated --bad-type --reserved --wrong-qkey --other-pkey --arp\n"
"       --arp-probe --self-arp --echo, each with a count, sent in order\n",
		QKEY_DEFAULT);
}

static uint64_t num(const char *name, const char *s, uint64_t max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || end == s || v > max || *s == '-') {
		fprintf(stderr, "ud_inject: %s: bad number '%s'\n", name, s);
		exit(2);
	}
	return v;
}

static uint32_t ip4(const char *name, const char *s)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1) {
		fprintf(stderr, "ud_inject: %s: bad IPv4 address '%s'\n",
			name, s);
		exit(2);
	}
	return ntohl(a.s_addr);
}

/* A GID as IPv6 text or in sysfs form (8 groups of 4 hex digits). */
static void gid(const char *name, const char *s, uint8_t *out)
{
	if (inet_pton(AF_INET6, s, out) != 1) {
		fprintf(stderr, "ud_inject: %s: bad GID '%s'\n", name, s);
		exit(2);
	}
}

static void hwaddr(const char *s, uint8_t *out)
{
	unsigned int i, b;
	int used;

	for (i = 0; i < IPOIB_ADDR_LEN; i++) {
		if (sscanf(s, i ? ":%2x%n" : "%2x%n", &b, &used) != 1)
			goto bad;
		out[i] = b;
		s += used;
	}
	if (!*s)
		return;
bad:
	fprintf(stderr, "ud_inject: --dest: not a 20-byte address\n");
	exit(2);
}

enum {
	O_DEST = 256, O_QPN, O_GID, O_QKEY, O_PKEY, O_VICTIM_IP, O_ECHO_SRC,
	O_ARP_SIP, O_SELF_SIP, O_SENDER_BASE, O_SENDER_PREFIX, O_WINDOW,
	O_BATCH, O_PACE_FILE, O_AHEAD, O_PACE_TIMEOUT, O_KIND = 512,
};

int main(int argc, char **argv)
{
	static struct option lo[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "port", required_argument, NULL, 'p' },
		{ "gid-index", required_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ "dest", required_argument, NULL, O_DEST },
		{ "qpn", required_argument, NULL, O_QPN },
		{ "gid", required_argument, NULL, O_GID },
		{ "qkey", required_argument, NULL, O_QKEY },
		{ "pkey", required_argument, NULL, O_PKEY },
		{ "victim-ip", required_argument, NULL, O_VICTIM_IP },
		{ "echo-src", required_argument, NULL, O_ECHO_SRC },
		{ "arp-sip", required_argument, NULL, O_ARP_SIP },
		{ "self-sip", required_argument, NULL, O_SELF_SIP },
		{ "sender-base", required_argument, NULL, O_SENDER_BASE },
		{ "sender-prefix", required_argument, NULL, O_SENDER_PREFIX },
		{ "window", required_argument, NULL, O_WINDOW },
		{ "batch", required_argument, NULL, O_BATCH },
		{ "pace-file", required_argument, NULL, O_PACE_FILE },
		{ "ahead", required_argument, NULL, O_AHEAD },
		{ "pace-timeout", required_argument, NULL, O_PACE_TIMEOUT },
		{ "truncated", required_argument, NULL, O_KIND + K_TRUNCATED },
		{ "bad-type", required_argument, NULL, O_KIND + K_BAD_TYPE },
		{ "reserved", required_argument, NULL, O_KIND + K_RESERVED },
		{ "wrong-qkey", required_argument, NULL, O_KIND + K_WRONG_QKEY },
		{ "other-pkey", required_argument, NULL, O_KIND + K_OTHER_PKEY },
		{ "arp", required_argument, NULL, O_KIND + K_ARP },
		{ "arp-probe", required_argument, NULL, O_KIND + K_ARP_PROBE },
		{ "self-arp", required_argument, NULL, O_KIND + K_SELF_ARP },
		{ "echo", required_argument, NULL, O_KIND + K_ECHO },
		{ 0 }
	};
	uint8_t prefix[16];
	uint64_t total = 0, errors = 0, t0, ms;
	unsigned int i;
	int c;

	while ((c = getopt_long(argc, argv, "d:p:x:h", lo, NULL)) != -1) {
		switch (c) {
		case 'd': opt.dev = optarg; break;
		case 'p': opt.port = num("--port", optarg, 255); break;
		case 'x': opt.gid_index = num("--gid-index", optarg, 65535); break;
		case 'h': usage(stdout); return 0;
		case O_DEST:
			hwaddr(optarg, opt.dest_addr);
			opt.have_qpn = opt.have_gid = true;
			break;
		case O_QPN:
			put24(opt.dest_addr + 1, num("--qpn", optarg, 0xffffff));
			opt.have_qpn = true;
			break;
		case O_GID:
			gid("--gid", optarg, opt.dest_addr + 4);
			opt.have_gid = true;
			break;
		case O_QKEY: opt.qkey = num("--qkey", optarg, 0xffffffff); break;
		case O_PKEY: opt.pkey = num("--pkey", optarg, 0xffff); break;
		case O_VICTIM_IP: opt.victim_ip = ip4("--victim-ip", optarg); break;
		case O_ECHO_SRC: opt.echo_src = ip4("--echo-src", optarg); break;
		case O_ARP_SIP: opt.arp_sip = ip4("--arp-sip", optarg); break;
		case O_SELF_SIP: opt.self_sip = ip4("--self-sip", optarg); break;
		case O_SENDER_BASE:
			opt.sender_base = num("--sender-base", optarg, 0xffffff);
			break;
		case O_SENDER_PREFIX:
			gid("--sender-prefix", optarg, prefix);
			memcpy(opt.sender_prefix, prefix, 8);
			break;
		case O_WINDOW: opt.window = num("--window", optarg, 4096); break;
		case O_BATCH: opt.batch = num("--batch", optarg, 64); break;
		case O_PACE_FILE: opt.pace_file = optarg; break;
		case O_AHEAD: opt.ahead = num("--ahead", optarg, 1 << 20); break;
		case O_PACE_TIMEOUT:
			opt.pace_timeout_ms = num("--pace-timeout", optarg, 600000);
			break;
		default:
			if (c >= O_KIND && c < O_KIND + K_COUNT &&
			    opt.nplan < sizeof(opt.plan) / sizeof(opt.plan[0])) {
				opt.plan[opt.nplan].kind = c - O_KIND;
				opt.plan[opt.nplan++].count =
					num(kind_names[c - O_KIND], optarg,
					    1ull << 32);
				break;
			}
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || !opt.dev || !opt.have_qpn || !opt.have_gid ||
	    !opt.window || !opt.batch) {
		usage(stderr);
		return 2;
	}
	opt.dest_qpn = (uint32_t)opt.dest_addr[1] << 16 |
		       opt.dest_addr[2] << 8 | opt.dest_addr[3];
	if ((opt.pkey & PKEY_BASE_MASK) == PKEY_DEFAULT ||
	    !(opt.pkey & PKEY_BASE_MASK) || other_pkey_qkey() == opt.qkey) {
		fprintf(stderr, "ud_inject: --pkey 0x%04x is not another partition\n",
			opt.pkey);
		return 2;
	}
	st.next_sender = opt.sender_base;

	setup();
	t0 = now_ms();
	for (i = 0; i < opt.nplan; i++)
		send_kind(opt.plan[i].kind, opt.plan[i].count);
	ms = now_ms() - t0;
	for (i = 0; i < K_COUNT; i++) {
		total += st.sent[i];
		errors += st.errors[i];
	}
	printf("ud_inject: total %" PRIu64 " frames, %" PRIu64 " errors, %"
	       PRIu64 ".%01" PRIu64 " s, %" PRIu64 " frames/s",
	       total, errors, ms / 1000, ms % 1000 / 100,
	       ms ? total * 1000 / ms : total);
	if (st.pace_fd >= 0)
		printf("; paced on %s: %" PRIu64 " waits, %" PRIu64 " stalls",
		       opt.pace_file, st.pace_waits, st.pace_stalls);
	printf("\n");
	teardown();
	return errors ? 1 : 0;
}
