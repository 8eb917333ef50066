// SPDX-License-Identifier: GPL-2.0
/*
 * core_test.c - suite ipoib_ng_core: the C++ core inside the kernel.
 *
 * The key cases of the userspace GoogleTest suite (tests/core/), compiled
 * with the kernel's flags and run in kernel context, so that a difference
 * between the two builds of the core shows here. Where the kernel has its
 * own helper for the same rule (ip_ib_mc_map, ipv6_ib_mc_map,
 * ib_mtu_enum_to_int, errno values), the core is checked against it.
 */
#define IPN_KUNIT 1
#include <kunit/test.h>
#include <linux/random.h>
#include <linux/if_ether.h>
#include <net/ip.h>
#include <net/if_inet6.h>
#include <rdma/ib_verbs.h>
#include "ipoib_core.h"
#include "ipn_kunit.h"

static const u8 kt_port_gid[16] = {
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x03, 0x00, 0x0a,
	0xb0, 0xc1
};

/* RFC 4391 s9.1.1: flags, 24-bit QPN, GID. */
static void core_addr_layout(struct kunit *test)
{
	static const u8 want[20] = {
		0x00, 0x00, 0x00, 0x48, 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
		0x00, 0x02, 0xc9, 0x03, 0x00, 0x0a, 0xb0, 0xc1
	};
	struct ipc_addr a = { .flags = 0, .qpn = 0x48 }, d;
	u8 hw[20];

	memcpy(a.gid, kt_port_gid, 16);
	ipc_addr_encode(&a, hw);
	KT_EXPECT_MEMEQ(test, hw, want, 20);

	/* Reserved flag bits are sent as zero and ignored on receive. */
	a.flags = 0xff;
	a.qpn = 0xab123456;
	ipc_addr_encode(&a, hw);
	KUNIT_EXPECT_EQ(test, hw[0], IPC_ADDR_FLAG_CM);
	KUNIT_EXPECT_EQ(test, hw[1], 0x12);
	hw[0] = 0x7f;
	ipc_addr_decode(hw, &d);
	KUNIT_EXPECT_EQ(test, d.flags, 0);
	KUNIT_EXPECT_EQ(test, d.qpn, 0x123456u);
	KT_EXPECT_MEMEQ(test, d.gid, kt_port_gid, 16);
}

/* RFC 4391 s4 figure 2: the broadcast address of P_Key 0xffff, link scope. */
static void core_broadcast_address(struct kunit *test)
{
	static const u8 want[20] = {
		0x00, 0xff, 0xff, 0xff, 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff,
		0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff
	};
	u8 b[20];

	ipc_addr_broadcast(0xffff, IPC_SCOPE_LINK, b);
	KT_EXPECT_MEMEQ(test, b, want, 20);
	/* A limited-member P_Key is advertised with the full-member bit. */
	ipc_addr_broadcast(0x0042, 5, b);
	KUNIT_EXPECT_EQ(test, b[5], 0x15);
	KUNIT_EXPECT_EQ(test, b[8], 0x80);
	KUNIT_EXPECT_EQ(test, b[9], 0x42);
}

/* RFC 4391 s4: "FF12:401B:8000::2 and FF12:601B:8000::2". */
static void core_mgid_rfc_example(struct kunit *test)
{
	static const u8 v4[16] = { 0xff, 0x12, 0x40, 0x1b, 0x80, 0x00,
				   0, 0, 0, 0, 0, 0, 0, 0, 0, 2 };
	static const u8 v6[16] = { 0xff, 0x12, 0x60, 0x1b, 0x80, 0x00,
				   0, 0, 0, 0, 0, 0, 0, 0, 0, 2 };
	static const u8 g4[4] = { 224, 0, 0, 2 };
	static const u8 g6[16] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0,
				   0, 0, 0, 0, 0, 0, 0, 2 };
	u8 b[20], m[16];

	ipc_addr_broadcast(0x8000, IPC_SCOPE_LINK, b);
	kt_mgid_v4(g4, b + 4, m);
	KT_EXPECT_MEMEQ(test, m, v4, 16);
	kt_mgid_v6(g6, b + 4, m);
	KT_EXPECT_MEMEQ(test, m, v6, 16);
	ipc_mgid_all_routers(b + 4, m);
	KT_EXPECT_MEMEQ(test, m, v4, 16);
}

/*
 * What the stack's own mapping makes of any group (ip_ib_mc_map(),
 * ipv6_ib_mc_map()) is this link's to the core, on random links; the same
 * address on a link of another P_Key or scope is not.
 */
static void core_mcast_addr_check_takes_kernel_map(struct kunit *test)
{
	static const u8 scopes[] = { 1, 2, 5, 8, 0xe };
	struct net_device *dev;
	u8 other[20], kern[20];
	int i, bad = 0, taken = 0;

	dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	for (i = 0; i < 2000; i++) {
		u16 pkey = (get_random_u32() & 0x7ffe) + 1;
		u8 scope = scopes[i % ARRAY_SIZE(scopes)];
		u8 g6[16];
		__be32 g4;

		ipc_addr_broadcast(pkey, scope, dev->broadcast);
		ipc_addr_broadcast(pkey ^ 1, scope, other);
		g4 = htonl(0xe0000000 | (get_random_u32() & 0x0fffffff));
		ip_ib_mc_map(g4, dev->broadcast, kern);
		bad += ipc_mcast_addr_check(kern, dev->broadcast + 4) != IPC_R_OK;
		taken += ipc_mcast_addr_check(kern, other + 4) == IPC_R_OK;

		get_random_bytes(g6, sizeof(g6));
		g6[0] = 0xff;
		ipv6_ib_mc_map((struct in6_addr *)g6, dev->broadcast, kern);
		bad += ipc_mcast_addr_check(kern, dev->broadcast + 4) != IPC_R_OK;
		taken += ipc_mcast_addr_check(kern, other + 4) == IPC_R_OK;
	}
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_EXPECT_EQ(test, taken, 0);
}

/* The core's errno numbering is the kernel's (its results reach users). */
static void core_errno_values(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, IPC_ENOENT, ENOENT);
	KUNIT_EXPECT_EQ(test, IPC_EAGAIN, EAGAIN);
	KUNIT_EXPECT_EQ(test, IPC_ENOMEM, ENOMEM);
	KUNIT_EXPECT_EQ(test, IPC_EBUSY, EBUSY);
	KUNIT_EXPECT_EQ(test, IPC_EINVAL, EINVAL);
	KUNIT_EXPECT_EQ(test, IPC_ERANGE, ERANGE);
	KUNIT_EXPECT_EQ(test, IPC_ENODATA, ENODATA);
	KUNIT_EXPECT_EQ(test, IPC_EPROTO, EPROTO);
	KUNIT_EXPECT_EQ(test, IPC_EMSGSIZE, EMSGSIZE);
	KUNIT_EXPECT_EQ(test, IPC_EOPNOTSUPP, EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, IPC_ENETDOWN, ENETDOWN);
	KUNIT_EXPECT_EQ(test, IPC_ENETUNREACH, ENETUNREACH);
	KUNIT_EXPECT_EQ(test, IPC_ENETRESET, ENETRESET);
	KUNIT_EXPECT_EQ(test, IPC_ETIMEDOUT, ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, IPC_EHOSTUNREACH, EHOSTUNREACH);
	KUNIT_EXPECT_EQ(test, IPC_ETH_P_IP, ETH_P_IP);
	KUNIT_EXPECT_EQ(test, IPC_ETH_P_ARP, ETH_P_ARP);
	KUNIT_EXPECT_EQ(test, IPC_ETH_P_RARP, ETH_P_RARP);
	KUNIT_EXPECT_EQ(test, IPC_ETH_P_IPV6, ETH_P_IPV6);
	KUNIT_EXPECT_EQ(test, IPC_GRH_LEN, (int)sizeof(struct ib_grh));
}

/* IB MTU enums, RFC 4391 s7 link MTU, and the MTU rules. */
static void core_mtu(struct kunit *test)
{
	struct ipc_mtu_info info;
	const char *why = NULL;
	int e;

	for (e = IB_MTU_256; e <= IB_MTU_4096; e++) {
		KUNIT_EXPECT_EQ(test, ipc_ib_mtu_bytes(e),
				(u32)ib_mtu_enum_to_int(e));
		KUNIT_EXPECT_EQ(test, ipc_ib_mtu_enum(ib_mtu_enum_to_int(e)), e);
	}
	KUNIT_EXPECT_EQ(test, ipc_ib_mtu_bytes(0), 0u);
	KUNIT_EXPECT_EQ(test, ipc_link_mtu(2048), 2044u);
	KUNIT_EXPECT_EQ(test, ipc_mtu_resolve(4096, 0, IPC_MODE_DATAGRAM,
					      &info), 0);
	KUNIT_EXPECT_EQ(test, info.max_mtu, 4092u);
	KUNIT_EXPECT_EQ(test, info.effective, 4092u);
	KUNIT_EXPECT_EQ(test, ipc_mtu_check(&info, 4092, &why), 0);
	KUNIT_EXPECT_EQ(test, ipc_mtu_check(&info, 4093, &why), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, why);
	KUNIT_EXPECT_EQ(test, ipc_mtu_check(&info, 67, &why), -EINVAL);
	KUNIT_EXPECT_EQ(test, ipc_mtu_resolve(1024, 0, IPC_MODE_DATAGRAM,
					      &info), 0);
	KUNIT_EXPECT_EQ(test, info.below_rfc_min, 1);
}

/* RFC 4391 s6: the 4-byte header; types outside Table 1 are dropped. */
static void core_encap(struct kunit *test)
{
	u8 h[4] = { 0xaa, 0xaa, 0xaa, 0xaa };
	u16 type = 0;

	ipc_hdr_build(ETH_P_IPV6, h);
	KUNIT_EXPECT_EQ(test, h[0], 0x86);
	KUNIT_EXPECT_EQ(test, h[1], 0xdd);
	KUNIT_EXPECT_EQ(test, h[2], 0);
	KUNIT_EXPECT_EQ(test, h[3], 0);
	KUNIT_EXPECT_EQ(test, ipc_hdr_parse(h, 4, &type), IPC_R_OK);
	KUNIT_EXPECT_EQ(test, type, ETH_P_IPV6);
	KUNIT_EXPECT_EQ(test, ipc_hdr_parse(h, 3, &type), IPC_R_TRUNCATED);
	h[0] = 0x12;
	KUNIT_EXPECT_EQ(test, ipc_hdr_parse(h, 4, &type), IPC_R_BAD_TYPE);
}

/* RX classification: unicast, broadcast, our own multicast looped back. */
static void core_rx_classify(struct kunit *test)
{
	static const u8 peer[16] = { 0xfe, 0x80, [15] = 7 };
	struct ipc_ifid self = { .qpn = 0x11 };
	struct ipc_rx_verdict v;
	u8 b[20], pkt[8] = { 0x08, 0x00, 0, 0 };

	memcpy(self.gid, kt_port_gid, 16);
	ipc_addr_broadcast(0xffff, IPC_SCOPE_LINK, b);
	memcpy(self.bcast_gid, b + 4, 16);

	KUNIT_EXPECT_EQ(test, ipc_rx_classify(&self, peer, self.gid, 0x22, pkt,
					      sizeof(pkt), &v), IPC_R_OK);
	KUNIT_EXPECT_EQ(test, v.pkt_type, IPC_PKT_HOST);
	KUNIT_EXPECT_EQ(test, v.ethertype, ETH_P_IP);
	KUNIT_EXPECT_TRUE(test, v.has_src);
	KUNIT_EXPECT_EQ(test, v.src_addr[3], 0x22);
	KT_EXPECT_MEMEQ(test, v.src_addr + 4, peer, 16);

	KUNIT_EXPECT_EQ(test, ipc_rx_classify(&self, peer, self.bcast_gid, 0x22,
					      pkt, sizeof(pkt), &v), IPC_R_OK);
	KUNIT_EXPECT_EQ(test, v.pkt_type, IPC_PKT_BROADCAST);

	KUNIT_EXPECT_EQ(test, ipc_rx_classify(&self, self.gid, self.bcast_gid,
					      0x11, pkt, sizeof(pkt), &v),
			IPC_R_LOOPBACK);
	KUNIT_EXPECT_EQ(test, ipc_rx_classify(&self, peer, self.gid, 0x22, pkt,
					      3, &v), IPC_R_TRUNCATED);
}

/* The path machine on a virtual clock (RFC 4391 s9.4 revalidation). */
static void core_path_machine(struct kunit *test)
{
	struct ipc_path_cfg c;
	struct ipc_result r;
	struct ipc_path p;
	struct ipc_rng rng;
	u64 now = 1000;

	ipc_path_cfg_default(&c);
	ipc_rng_seed(&rng, 42);
	ipc_path_init(&p);

	ipc_path_tx(&p, &c, now, &r);
	KUNIT_EXPECT_TRUE(test, r.actions & IPC_ACT_START_QUERY);
	KUNIT_EXPECT_TRUE(test, r.actions & IPC_ACT_QUEUE);
	KUNIT_EXPECT_EQ(test, p.state, IPC_PATH_RESOLVING);
	p.queued++;			/* the shim queued it */

	ipc_path_query_done(&p, &c, now + 5, 0, &rng, &r);
	KUNIT_EXPECT_EQ(test, p.state, IPC_PATH_VALID);
	KUNIT_EXPECT_TRUE(test, r.actions & IPC_ACT_FLUSH_QUEUE);
	KUNIT_EXPECT_EQ(test, p.queued, 0);

	ipc_path_tx(&p, &c, now + 10, &r);
	KUNIT_EXPECT_TRUE(test, r.actions & IPC_ACT_SEND);

	/* s9.4: revalidate after revalidate_ms, still usable meanwhile. */
	now += c.revalidate_ms + 5;
	ipc_path_timer(&p, &c, now, &rng, &r);
	KUNIT_EXPECT_EQ(test, p.state, IPC_PATH_STALE);
	KUNIT_EXPECT_TRUE(test, r.actions & IPC_ACT_START_QUERY);
	ipc_path_tx(&p, &c, now + 1, &r);
	KUNIT_EXPECT_TRUE(test, r.actions & IPC_ACT_SEND);

	/* Failed queries up to max_attempts: FAILED, queue purged. */
	ipc_path_init(&p);
	ipc_path_tx(&p, &c, now, &r);
	p.queued++;
	ipc_path_query_done(&p, &c, now + 1, -ETIMEDOUT, &rng, &r);
	KUNIT_EXPECT_NE(test, p.state, IPC_PATH_VALID);
	ipc_path_destroy(&p, &r);
	KUNIT_EXPECT_TRUE(test, r.actions & IPC_ACT_FREE);
}

/* The multicast machine: join, attach, -ENETRESET, flush rejoin, leave. */
static void core_mc_machine(struct kunit *test)
{
	struct ipc_mc_cfg c;
	struct ipc_result r;
	struct ipc_rng rng;
	struct ipc_mc m;
	u64 now = 1000;

	ipc_mc_cfg_default(&c);
	ipc_rng_seed(&rng, 7);
	ipc_mc_init(&m, IPC_SCOPE_LINK);

	ipc_mc_subscribe(&m, &c, IPC_JOIN_FULL, now, &r);
	KUNIT_EXPECT_TRUE(test, r.actions & IPC_ACT_JOIN);
	KUNIT_EXPECT_EQ(test, r.join_type, IPC_JOIN_FULL);
	KUNIT_EXPECT_EQ(test, m.state, IPC_MC_JOINING);

	ipc_mc_join_done(&m, &c, now + 1, 0, 0, &rng, &r);
	KUNIT_EXPECT_EQ(test, m.state, IPC_MC_JOINED);
	KUNIT_EXPECT_TRUE(test, r.actions & IPC_ACT_ATTACH);

	/*
	 * -ENETRESET on an established membership is not a join result:
	 * ignored; the SA event behind it arrives as a flush, which rejoins.
	 */
	ipc_mc_join_done(&m, &c, now + 2, -ENETRESET, 0, &rng, &r);
	KUNIT_EXPECT_EQ(test, m.state, IPC_MC_JOINED);
	KUNIT_EXPECT_EQ(test, r.actions, 0u);
	ipc_mc_flush(&m, &c, now + 3, 0, &rng, &r);
	if (!(r.actions & IPC_ACT_JOIN)) {
		KUNIT_EXPECT_NE(test, r.deadline_ms, IPC_NO_DEADLINE);
		ipc_mc_timer(&m, &c, r.deadline_ms, &rng, &r);
	}
	KUNIT_EXPECT_TRUE(test, r.actions & IPC_ACT_JOIN);

	ipc_mc_destroy(&m, &r);
	KUNIT_EXPECT_TRUE(test, r.actions & IPC_ACT_FREE);
}

/* Event -> flush level: what each port event costs the interface. */
static void core_event_levels(struct kunit *test)
{
	int ev;

	for (ev = 0; ev < IPC_EV_COUNT; ev++) {
		int l = ipc_event_flush_level(ev);

		KUNIT_EXPECT_GE(test, l, IPC_FLUSH_NONE);
		KUNIT_EXPECT_LE(test, l, IPC_FLUSH_HEAVY);
		KUNIT_EXPECT_NOT_NULL(test, ipc_event_name(ev));
	}
	KUNIT_EXPECT_EQ(test, ipc_event_flush_level(IPC_EV_PKEY_CHANGE),
			IPC_FLUSH_HEAVY);
	KUNIT_EXPECT_GE(test, ipc_event_flush_level(IPC_EV_CLIENT_REREGISTER),
			IPC_FLUSH_LIGHT);
}

static struct kunit_case ipn_core_cases[] = {
	KUNIT_CASE(core_addr_layout),
	KUNIT_CASE(core_broadcast_address),
	KUNIT_CASE(core_mgid_rfc_example),
	KUNIT_CASE(core_mcast_addr_check_takes_kernel_map),
	KUNIT_CASE(core_errno_values),
	KUNIT_CASE(core_mtu),
	KUNIT_CASE(core_encap),
	KUNIT_CASE(core_rx_classify),
	KUNIT_CASE(core_path_machine),
	KUNIT_CASE(core_mc_machine),
	KUNIT_CASE(core_event_levels),
	{}
};

static struct kunit_suite ipn_core_suite = {
	.name = "ipoib_ng_core",
	.test_cases = ipn_core_cases,
};

kunit_test_suite(ipn_core_suite);
