// SPDX-License-Identifier: GPL-2.0
/*
 * shim_test.c - suite ipoib_ng_shim: the C shim with real sk_buffs and a
 * real (unregistered) net_device set up by the driver's own ipn_setup():
 * header_ops, the IP group scope read from a frame, the MTU rule, the
 * mapping of each ib_event to the core's events, ethtool's speed of an
 * InfiniBand port, and the SR-IOV VF ops against a fake device.
 */
#define IPN_KUNIT 1
#include <kunit/test.h>
#include <linux/cred.h>
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <net/arp.h>
#include <net/ndisc.h>
#include "ipoib_ng.h"
#include "ipn_kunit.h"

static const u8 kt_daddr[IPC_ADDR_LEN] = {
	0x00, 0x00, 0x00, 0x48, 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
	0x00, 0x02, 0xc9, 0x03, 0x00, 0x0a, 0xb0, 0xc1
};

static void kt_free_netdev(struct kunit_resource *res)
{
	free_netdev(res->data);
}

static struct net_device *kt_netdev(struct kunit *test)
{
	struct net_device *dev;

	dev = kt_manage(test, alloc_netdev(sizeof(struct ipn_priv), "ipnkt%d",
					   NET_NAME_UNKNOWN, ipn_setup),
			kt_free_netdev);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	return dev;
}

static void kt_free_skb(struct kunit_resource *res)
{
	kfree_skb(res->data);
}

static struct sk_buff *kt_skb(struct kunit *test, unsigned int len)
{
	struct sk_buff *skb;

	skb = kt_manage(test, alloc_skb(IPN_HARD_LEN + len, GFP_KERNEL),
			kt_free_skb);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, IPN_HARD_LEN);
	skb_put_zero(skb, len);
	return skb;
}

/* What ipn_setup() gives the stack: RFC 4391 s9.1.1 addresses, s6 header. */
static void shim_setup_device(struct kunit *test)
{
	struct net_device *dev = kt_netdev(test);

	KUNIT_EXPECT_EQ(test, dev->type, ARPHRD_INFINIBAND);
	KUNIT_EXPECT_EQ(test, dev->addr_len, IPC_ADDR_LEN);
	KUNIT_EXPECT_EQ(test, dev->hard_header_len, IPN_HARD_LEN);
	KUNIT_EXPECT_PTR_EQ(test, dev->header_ops, &ipn_header_ops);
	KUNIT_EXPECT_TRUE(test, dev->flags & IFF_BROADCAST);
	KUNIT_EXPECT_TRUE(test, dev->flags & IFF_MULTICAST);
	KUNIT_EXPECT_EQ(test, dev->min_mtu, IPC_MTU_IPV4_MIN);
}

/* create: daddr as pseudo header, then type + reserved 0 (s6). */
static void shim_header_create(struct kunit *test)
{
	struct net_device *dev = kt_netdev(test);
	struct sk_buff *skb = kt_skb(test, 40);
	int ret;

	ret = dev_hard_header(skb, dev, ETH_P_IPV6, kt_daddr, NULL, skb->len);
	KUNIT_EXPECT_EQ(test, ret, IPN_HARD_LEN);
	KUNIT_EXPECT_EQ(test, skb->len, 40u + IPN_HARD_LEN);
	KT_EXPECT_MEMEQ(test, skb->data, kt_daddr, IPC_ADDR_LEN);
	KUNIT_EXPECT_EQ(test, skb->data[20], 0x86);
	KUNIT_EXPECT_EQ(test, skb->data[21], 0xdd);
	KUNIT_EXPECT_EQ(test, skb->data[22], 0);
	KUNIT_EXPECT_EQ(test, skb->data[23], 0);

	/* No destination: the stack must resolve one first. */
	skb = kt_skb(test, 40);
	ret = dev_hard_header(skb, dev, ETH_P_IP, NULL, NULL, skb->len);
	KUNIT_EXPECT_LT(test, ret, 0);
	KUNIT_EXPECT_EQ(test, skb->len, 40u);
}

/* parse: the sender's address for packet sockets and tcpdump. */
static void shim_header_parse(struct kunit *test)
{
	struct net_device *dev = kt_netdev(test);
	struct sk_buff *skb = kt_skb(test, 40);
	u8 haddr[MAX_ADDR_LEN] = {};

	KUNIT_ASSERT_EQ(test, dev_hard_header(skb, dev, ETH_P_ARP, kt_daddr,
					      NULL, skb->len), IPN_HARD_LEN);
	skb_reset_mac_header(skb);
	skb->dev = dev;
	KUNIT_EXPECT_EQ(test, dev_parse_header(skb, haddr), IPC_ADDR_LEN);
	KT_EXPECT_MEMEQ(test, haddr, kt_daddr, IPC_ADDR_LEN);
	KUNIT_EXPECT_EQ(test, dev_parse_header_protocol(skb), htons(ETH_P_ARP));

	/* A type outside RFC 4391 Table 1 has no protocol. */
	skb->data[20] = 0x12;
	KUNIT_EXPECT_EQ(test, dev_parse_header_protocol(skb), 0);

	KUNIT_EXPECT_TRUE(test, ipn_header_ops.validate(skb->data,
							IPN_HARD_LEN));
	KUNIT_EXPECT_FALSE(test, ipn_header_ops.validate(skb->data,
							 IPN_HARD_LEN - 1));
}

/* The IP group scope of a frame, for the RFC 4391 s10 decision. */
static void shim_tx_ip_scope(struct kunit *test)
{
	struct net_device *dev = kt_netdev(test);
	struct ipv6hdr *ip6;
	struct sk_buff *skb;
	struct iphdr *ip;

	skb = kt_skb(test, sizeof(*ip));
	ip = (struct iphdr *)skb->data;
	ip->daddr = htonl(0xefff0101);		/* 239.255.1.1: site, 5 */
	dev_hard_header(skb, dev, ETH_P_IP, kt_daddr, NULL, skb->len);
	KUNIT_EXPECT_EQ(test, ipn_tx_ip_scope(skb), 5);
	ip->daddr = htonl(0xe00000fb);		/* 224.0.0.251: link */
	KUNIT_EXPECT_EQ(test, ipn_tx_ip_scope(skb), IPC_SCOPE_LINK);
	ip->daddr = htonl(0xe1020304);		/* 225.2.3.4: global */
	KUNIT_EXPECT_EQ(test, ipn_tx_ip_scope(skb), 0xe);

	skb = kt_skb(test, sizeof(*ip6));
	ip6 = (struct ipv6hdr *)skb->data;
	ip6->daddr.s6_addr[0] = 0xff;
	ip6->daddr.s6_addr[1] = 0x08;		/* organisation */
	dev_hard_header(skb, dev, ETH_P_IPV6, kt_daddr, NULL, skb->len);
	KUNIT_EXPECT_EQ(test, ipn_tx_ip_scope(skb), 8);

	/* Truncated, or not IP: never routed. */
	skb = kt_skb(test, 8);
	dev_hard_header(skb, dev, ETH_P_IPV6, kt_daddr, NULL, skb->len);
	KUNIT_EXPECT_EQ(test, ipn_tx_ip_scope(skb), IPC_SCOPE_LINK);
	skb = kt_skb(test, 28);
	dev_hard_header(skb, dev, ETH_P_ARP, kt_daddr, NULL, skb->len);
	KUNIT_EXPECT_EQ(test, ipn_tx_ip_scope(skb), IPC_SCOPE_LINK);
}

/* ndo_change_mtu follows the core's resolution of the link MTU (s7). */
static void shim_change_mtu(struct kunit *test)
{
	struct net_device *dev = kt_netdev(test);
	struct ipn_priv *priv = netdev_priv(dev);

	KUNIT_ASSERT_EQ(test, ipc_mtu_resolve(2048, 0, IPC_MODE_DATAGRAM,
					      &priv->mtu), 0);
	KUNIT_EXPECT_EQ(test, ipn_change_mtu(dev, 2044), 0);
	KUNIT_EXPECT_EQ(test, dev->mtu, 2044u);
	KUNIT_EXPECT_EQ(test, ipn_change_mtu(dev, 1280), 0);
	KUNIT_EXPECT_EQ(test, dev->mtu, 1280u);
	KUNIT_EXPECT_EQ(test, ipn_change_mtu(dev, 2045), -EINVAL);
	KUNIT_EXPECT_EQ(test, ipn_change_mtu(dev, 67), -EINVAL);
	KUNIT_EXPECT_EQ(test, dev->mtu, 1280u);
}

/* Each ib_event the driver reacts to, and the level the core gives it. */
static void shim_event_mapping(struct kunit *test)
{
	static const struct {
		enum ib_event_type ib;
		int core;
		int level;
	} map[] = {
		{ IB_EVENT_PORT_ACTIVE, IPC_EV_PORT_ACTIVE, IPC_FLUSH_NORMAL },
		{ IB_EVENT_PORT_ERR, IPC_EV_PORT_ERR, IPC_FLUSH_NORMAL },
		{ IB_EVENT_LID_CHANGE, IPC_EV_LID_CHANGE, IPC_FLUSH_NORMAL },
		{ IB_EVENT_PKEY_CHANGE, IPC_EV_PKEY_CHANGE, IPC_FLUSH_HEAVY },
		{ IB_EVENT_GID_CHANGE, IPC_EV_GID_CHANGE, IPC_FLUSH_LIGHT },
		{ IB_EVENT_SM_CHANGE, IPC_EV_SM_CHANGE, IPC_FLUSH_LIGHT },
		{ IB_EVENT_CLIENT_REREGISTER, IPC_EV_CLIENT_REREGISTER,
		  IPC_FLUSH_LIGHT },
	};
	static const enum ib_event_type ignored[] = {
		IB_EVENT_CQ_ERR, IB_EVENT_QP_FATAL, IB_EVENT_SRQ_ERR,
		IB_EVENT_DEVICE_FATAL, IB_EVENT_QP_LAST_WQE_REACHED,
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(map); i++) {
		KUNIT_EXPECT_EQ(test, ipn_ib_event_to_core(map[i].ib),
				map[i].core);
		KUNIT_EXPECT_EQ(test, ipc_event_flush_level(map[i].core),
				map[i].level);
	}
	for (i = 0; i < ARRAY_SIZE(ignored); i++)
		KUNIT_EXPECT_EQ(test, ipn_ib_event_to_core(ignored[i]), -1);
}

/* ------------------------------------------------------------------ */
/* Receive: ipn_rx_frame() on a buffer as the HCA leaves it             */
/* ------------------------------------------------------------------ */

static void kt_free_stats(struct kunit_resource *res)
{
	free_percpu(res->data);
}

static const u8 kt_own_gid[16] = { 0xfe, 0x80, [8] = 0x02, [15] = 0x01 };
static const u8 kt_peer_gid[16] = { 0xfe, 0x80, [8] = 0x02, [15] = 0x02 };
static const u8 kt_mgid[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff,
				[12] = 0xe0, [15] = 0x05 };

/* An interface as far as the receive path needs one: addresses, counters. */
static struct ipn_priv *kt_rx_priv(struct kunit *test, bool roce)
{
	struct net_device *dev = kt_netdev(test);
	struct ipn_priv *priv = netdev_priv(dev);

	priv->dev = dev;
	priv->roce = roce;
	priv->stats = kt_manage(test, netdev_alloc_pcpu_stats(struct ipn_stats),
				kt_free_stats);
	KUNIT_ASSERT_NOT_NULL(test, priv->stats);
	priv->ifid.qpn = 0x11;
	memcpy(priv->ifid.gid, kt_own_gid, 16);
	ipc_addr_broadcast(IPC_PKEY_DEFAULT, IPC_SCOPE_LINK, dev->broadcast);
	memcpy(priv->ifid.bcast_gid, dev->broadcast + 4, 16);
	return priv;
}

/*
 * A receive buffer: the 40-byte GRH area (InfiniBand: a GRH with the
 * GIDs), the 4-byte IPoIB header with type, then len bytes of payload.
 */
static struct sk_buff *kt_rx_skb(struct kunit *test, const u8 *sgid,
				 const u8 *dgid, u16 type, unsigned int len)
{
	struct sk_buff *skb = alloc_skb(IPN_RX_RESERVE + IPN_RX_BUF, GFP_KERNEL);
	struct ib_grh *grh;
	u8 *p;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, IPN_RX_RESERVE);
	grh = skb_put_zero(skb, IB_GRH_BYTES);
	grh->version_tclass_flow = cpu_to_be32(6 << 28);
	grh->next_hdr = 0x1b;
	if (sgid)
		memcpy(grh->sgid.raw, sgid, 16);
	if (dgid)
		memcpy(grh->dgid.raw, dgid, 16);
	p = skb_put_zero(skb, IPC_HDR_LEN + len);
	p[0] = type >> 8;
	p[1] = type & 0xff;
	return skb;
}

static struct ib_wc kt_wc(u32 src_qp, unsigned int byte_len)
{
	struct ib_wc wc = {
		.status = IB_WC_SUCCESS,
		.src_qp = src_qp,
		.byte_len = byte_len,
		.wc_flags = IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE,
		.network_hdr_type = RDMA_NETWORK_IB,
	};
	return wc;
}

/* The frame made it: check what the stack sees, then free it. */
static void kt_rx_expect(struct kunit *test, struct sk_buff *skb, u16 proto,
			 u8 pkt_type, u32 src_qpn, const u8 *sgid,
			 unsigned int len)
{
	u8 src[IPC_ADDR_LEN] = {}, parsed[IPC_ADDR_LEN];

	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_EQ(test, ntohs(skb->protocol), proto);
	KUNIT_EXPECT_EQ(test, (u8)skb->pkt_type, pkt_type);
	KUNIT_EXPECT_EQ(test, skb->len, len);
	KUNIT_EXPECT_PTR_EQ(test, skb_mac_header(skb) + IPN_HARD_LEN, skb->data);
	if (sgid) {
		src[1] = src_qpn >> 16;
		src[2] = src_qpn >> 8;
		src[3] = src_qpn;
		memcpy(src + 4, sgid, 16);
	}
	/* What packet sockets report as the sender (tcpdump, arping). */
	KUNIT_EXPECT_EQ(test, dev_parse_header(skb, parsed), IPC_ADDR_LEN);
	KT_EXPECT_MEMEQ(test, parsed, src, IPC_ADDR_LEN);
	kfree_skb(skb);
}

/*
 * RFC 4391 s6, s9.1.1: the sender's address from the completion's source
 * QPN and the GRH, the type from the IPoIB header, pkt_type from the
 * destination GID; our own multicast and malformed frames are dropped,
 * each counted under its reason.
 */
static void shim_rx_frame(struct kunit *test)
{
	struct ipn_priv *priv = kt_rx_priv(test, false);
	struct ib_wc wc = kt_wc(0x22, IB_GRH_BYTES + IPC_HDR_LEN + 28);
	struct sk_buff *skb;

	/* Unicast to us. */
	skb = kt_rx_skb(test, kt_peer_gid, kt_own_gid, ETH_P_IP, 28);
	kt_rx_expect(test, ipn_rx_frame(priv, skb, &wc), ETH_P_IP, PACKET_HOST,
		     0x22, kt_peer_gid, 28);
	/* The broadcast group (s4). */
	skb = kt_rx_skb(test, kt_peer_gid, priv->ifid.bcast_gid, ETH_P_IP, 28);
	kt_rx_expect(test, ipn_rx_frame(priv, skb, &wc), ETH_P_IP,
		     PACKET_BROADCAST, 0x22, kt_peer_gid, 28);
	/* Another group: multicast, counted. */
	skb = kt_rx_skb(test, kt_peer_gid, kt_mgid, ETH_P_IP, 28);
	kt_rx_expect(test, ipn_rx_frame(priv, skb, &wc), ETH_P_IP,
		     PACKET_MULTICAST, 0x22, kt_peer_gid, 28);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, multicast), 1u);
	/* No valid GRH: no sender address, still delivered. */
	wc.wc_flags = 0;
	skb = kt_rx_skb(test, NULL, NULL, ETH_P_IP, 28);
	kt_rx_expect(test, ipn_rx_frame(priv, skb, &wc), ETH_P_IP, PACKET_HOST,
		     0, NULL, 28);
	wc = kt_wc(0x22, IB_GRH_BYTES + IPC_HDR_LEN + 28);

	/* Our own multicast, looped back by the fabric: not an error. */
	wc.src_qp = priv->ifid.qpn;
	skb = kt_rx_skb(test, kt_own_gid, priv->ifid.bcast_gid, ETH_P_IP, 28);
	KUNIT_EXPECT_NULL(test, ipn_rx_frame(priv, skb, &wc));
	KUNIT_EXPECT_EQ(test, ipn_stat_drop(priv, IPC_R_LOOPBACK), 1u);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, rx_dropped), 0u);
	wc.src_qp = 0x22;
	/* A type RFC 4391 s6 does not carry. */
	skb = kt_rx_skb(test, kt_peer_gid, kt_own_gid, 0x88b5, 28);
	KUNIT_EXPECT_NULL(test, ipn_rx_frame(priv, skb, &wc));
	KUNIT_EXPECT_EQ(test, ipn_stat_drop(priv, IPC_R_BAD_TYPE), 1u);
	/* Shorter than the GRH area; then shorter than the IPoIB header. */
	skb = kt_rx_skb(test, kt_peer_gid, kt_own_gid, ETH_P_IP, 0);
	skb_trim(skb, IB_GRH_BYTES - 1);
	KUNIT_EXPECT_NULL(test, ipn_rx_frame(priv, skb, &wc));
	skb = kt_rx_skb(test, kt_peer_gid, kt_own_gid, ETH_P_IP, 0);
	skb_trim(skb, IB_GRH_BYTES + IPC_HDR_LEN - 1);
	KUNIT_EXPECT_NULL(test, ipn_rx_frame(priv, skb, &wc));
	KUNIT_EXPECT_EQ(test, ipn_stat_drop(priv, IPC_R_TRUNCATED), 2u);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, rx_dropped), 3u);
}

/*
 * RoCEv2 over IPv4: the GRH area holds the IPv4 header in its last 20
 * bytes, and the GIDs are the IPv4-mapped addresses (IBTA A17.4.5.1).
 */
static void shim_rx_frame_roce_ipv4(struct kunit *test)
{
	struct ipn_priv *priv = kt_rx_priv(test, true);
	struct ib_wc wc = kt_wc(0x33, IB_GRH_BYTES + IPC_HDR_LEN + 28);
	u8 sgid[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 2 };
	struct sk_buff *skb;
	struct iphdr *ip;

	wc.wc_flags = IB_WC_GRH;	/* the version decides, as rxe leaves it */
	skb = kt_rx_skb(test, NULL, NULL, ETH_P_IP, 28);
	memset(skb->data, 0, IB_GRH_BYTES);
	ip = (struct iphdr *)(skb->data + IB_GRH_BYTES - sizeof(*ip));
	ip->version = 4;
	ip->ihl = 5;
	ip->saddr = htonl(0x0a000002);
	ip->daddr = htonl(0x0a000001);
	kt_rx_expect(test, ipn_rx_frame(priv, skb, &wc), ETH_P_IP, PACKET_HOST,
		     0x33, sgid, 28);
}

/*
 * A frame carrying the bytes of skb (its network header on) as an RX
 * buffer from the peer, to us.
 */
static struct sk_buff *kt_rx_copy(struct kunit *test, u16 type,
				  const struct sk_buff *from, unsigned int *len)
{
	struct sk_buff *skb;

	*len = skb_tail_pointer(from) - skb_network_header(from);
	skb = kt_rx_skb(test, kt_peer_gid, kt_own_gid, type, *len);
	memcpy(skb->data + IB_GRH_BYTES + IPC_HDR_LEN,
	       skb_network_header(from), *len);
	return skb;
}

/* The kernel's own Neighbor Solicitation from dev, for target 10::2. */
static struct sk_buff *kt_ns(struct kunit *test, struct net_device *dev,
			     const u8 *lladdr)
{
	struct sk_buff *ns = alloc_skb(256, GFP_KERNEL);
	struct ipv6hdr *ip6;
	struct nd_msg *msg;

	KUNIT_ASSERT_NOT_NULL(test, ns);
	ns->dev = dev;
	skb_reset_network_header(ns);
	ip6 = skb_put_zero(ns, sizeof(*ip6));
	ip6->version = 6;
	ip6->nexthdr = IPPROTO_ICMPV6;
	ip6->hop_limit = 255;
	msg = skb_put_zero(ns, sizeof(*msg));
	msg->icmph.icmp6_type = NDISC_NEIGHBOUR_SOLICITATION;
	msg->target.s6_addr[0] = 0x10;
	msg->target.s6_addr[15] = 2;
	__ndisc_fill_addr_option(ns, ND_OPT_SOURCE_LL_ADDR, lladdr,
				 dev->addr_len,
				 ndisc_addr_option_pad(dev->type));
	ip6->payload_len = htons(ns->len - sizeof(*ip6));
	return ns;
}

/*
 * RFC 4391 s9.2, s9.3: the ARP and ND the kernel itself builds for an
 * IPoIB device (arp_create(), the ND option writer) go through; the same
 * with a sender or option address that is no unicast endpoint (the
 * broadcast address: every host of the partition would get the traffic
 * of the IP it claims, the real peer among them, so that nobody notices)
 * is dropped under IPC_R_BAD_ADDR, before the stack's neighbour table.
 */
static void shim_rx_resolution(struct kunit *test)
{
	struct ipn_priv *priv = kt_rx_priv(test, false);
	struct net_device *dev = priv->dev;
	u8 peer[IPC_ADDR_LEN] = { 0, 0, 0, 0x22 };
	struct sk_buff *arp, *ns, *skb;
	struct ib_wc wc;
	unsigned int len;

	memcpy(peer + 4, kt_peer_gid, 16);
	dev_addr_set(dev, peer);
	arp = arp_create(ARPOP_REQUEST, ETH_P_ARP, htonl(0x0a000001), dev,
			 htonl(0x0a000002), dev->broadcast, peer, NULL);
	KUNIT_ASSERT_NOT_NULL(test, arp);
	skb = kt_rx_copy(test, ETH_P_ARP, arp, &len);
	KUNIT_EXPECT_EQ(test, len, (unsigned int)IPC_ARP_LEN);
	wc = kt_wc(0x22, IB_GRH_BYTES + IPC_HDR_LEN + len);
	kt_rx_expect(test, ipn_rx_frame(priv, skb, &wc), ETH_P_ARP,
		     PACKET_HOST, 0x22, kt_peer_gid, len);

	/* The sender claims the broadcast address. */
	memcpy(skb_network_header(arp) + 8, dev->broadcast, IPC_ADDR_LEN);
	skb = kt_rx_copy(test, ETH_P_ARP, arp, &len);
	KUNIT_EXPECT_NULL(test, ipn_rx_frame(priv, skb, &wc));
	KUNIT_EXPECT_EQ(test, ipn_stat_drop(priv, IPC_R_BAD_ADDR), 1u);
	/* Not IPoIB's ARP: Ethernet's hardware type and length. */
	skb_network_header(arp)[1] = ARPHRD_ETHER;
	skb = kt_rx_copy(test, ETH_P_ARP, arp, &len);
	KUNIT_EXPECT_NULL(test, ipn_rx_frame(priv, skb, &wc));
	KUNIT_EXPECT_EQ(test, ipn_stat_drop(priv, IPC_R_BAD_HWTYPE), 1u);
	kfree_skb(arp);

	ns = kt_ns(test, dev, peer);
	skb = kt_rx_copy(test, ETH_P_IPV6, ns, &len);
	wc = kt_wc(0x22, IB_GRH_BYTES + IPC_HDR_LEN + len);
	kt_rx_expect(test, ipn_rx_frame(priv, skb, &wc), ETH_P_IPV6,
		     PACKET_HOST, 0x22, kt_peer_gid, len);
	kfree_skb(ns);
	ns = kt_ns(test, dev, dev->broadcast);
	skb = kt_rx_copy(test, ETH_P_IPV6, ns, &len);
	KUNIT_EXPECT_NULL(test, ipn_rx_frame(priv, skb, &wc));
	KUNIT_EXPECT_EQ(test, ipn_stat_drop(priv, IPC_R_BAD_ADDR), 2u);
	kfree_skb(ns);
	KUNIT_EXPECT_EQ(test, ipn_stat(priv, rx_dropped), 3u);
}

/*
 * skb as the receive ring hands a long frame on (rx.c): its first head
 * bytes in the linear part, the rest in a page fragment. Frees skb.
 */
static struct sk_buff *kt_rx_paged(struct kunit *test, struct sk_buff *skb,
				   unsigned int head)
{
	struct sk_buff *paged = alloc_skb(IPN_RX_RESERVE + head, GFP_KERNEL);
	struct page *page = alloc_page(GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, paged);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_ASSERT_GT(test, skb->len, head);
	skb_reserve(paged, IPN_RX_RESERVE);
	skb_put_data(paged, skb->data, head);
	memcpy(page_address(page), skb->data + head, skb->len - head);
	skb_add_rx_frag(paged, 0, page, 0, skb->len - head, PAGE_SIZE);
	kfree_skb(skb);
	return paged;
}

/*
 * A frame whose ND option lies in the page, past the head the ring
 * copied: classified on all of it (the core reads past the head only
 * when it must), a good option delivered, the broadcast address as the
 * option still dropped under IPC_R_BAD_ADDR. An ARP split inside its
 * sender address likewise.
 */
static void shim_rx_frame_paged(struct kunit *test)
{
	struct ipn_priv *priv = kt_rx_priv(test, false);
	struct net_device *dev = priv->dev;
	/* GRH area, IPoIB header, IPv6 header, 20 of the NS's 24 bytes. */
	unsigned int head = IB_GRH_BYTES + IPC_HDR_LEN + 40 + 20, len;
	u8 peer[IPC_ADDR_LEN] = { 0, 0, 0, 0x22 };
	struct sk_buff *ns, *arp, *skb;
	struct ib_wc wc;

	memcpy(peer + 4, kt_peer_gid, 16);
	dev_addr_set(dev, peer);
	ns = kt_ns(test, dev, peer);
	skb = kt_rx_paged(test, kt_rx_copy(test, ETH_P_IPV6, ns, &len), head);
	KUNIT_EXPECT_EQ(test, skb_headlen(skb), head);
	wc = kt_wc(0x22, IB_GRH_BYTES + IPC_HDR_LEN + len);
	kt_rx_expect(test, ipn_rx_frame(priv, skb, &wc), ETH_P_IPV6,
		     PACKET_HOST, 0x22, kt_peer_gid, len);
	kfree_skb(ns);
	ns = kt_ns(test, dev, dev->broadcast);
	skb = kt_rx_paged(test, kt_rx_copy(test, ETH_P_IPV6, ns, &len), head);
	KUNIT_EXPECT_NULL(test, ipn_rx_frame(priv, skb, &wc));
	KUNIT_EXPECT_EQ(test, ipn_stat_drop(priv, IPC_R_BAD_ADDR), 1u);
	kfree_skb(ns);

	arp = arp_create(ARPOP_REQUEST, ETH_P_ARP, htonl(0x0a000001), dev,
			 htonl(0x0a000002), dev->broadcast, peer, NULL);
	KUNIT_ASSERT_NOT_NULL(test, arp);
	skb = kt_rx_paged(test, kt_rx_copy(test, ETH_P_ARP, arp, &len),
			  IB_GRH_BYTES + IPC_HDR_LEN + 16);
	wc = kt_wc(0x22, IB_GRH_BYTES + IPC_HDR_LEN + len);
	kt_rx_expect(test, ipn_rx_frame(priv, skb, &wc), ETH_P_ARP,
		     PACKET_HOST, 0x22, kt_peer_gid, len);
	kfree_skb(arp);
	KUNIT_EXPECT_EQ(test, ipn_stat_drop(priv, IPC_R_TRUNCATED), 0u);
}

/*
 * Issue 23's offloads, from the adapter's attributes (rxe offers none:
 * fake ones): SG with more than one SGE; IPv4 checksums, both ways, with
 * IB_DEVICE_UD_IP_CSUM; TSO only with those, SG and IBK_UD_TSO. In
 * connected mode checksums and TSO are off (RC does neither).
 */
static void shim_offload_features(struct kunit *test)
{
	const netdev_features_t csum = NETIF_F_IP_CSUM | NETIF_F_RXCSUM;
	struct ipn_priv *priv = kt_rx_priv(test, false);
	struct ib_device_attr attrs = {};
	netdev_features_t all;

	KUNIT_EXPECT_EQ(test, ipn_offload_features(&attrs, 1), 0);
	KUNIT_EXPECT_EQ(test, ipn_offload_features(&attrs, 4), NETIF_F_SG);
	attrs.kernel_cap_flags = IBK_UD_TSO;
	KUNIT_EXPECT_EQ(test, ipn_offload_features(&attrs, 4), NETIF_F_SG);
	attrs.device_cap_flags = IB_DEVICE_UD_IP_CSUM;
	all = NETIF_F_SG | csum | NETIF_F_TSO;
	KUNIT_EXPECT_EQ(test, ipn_offload_features(&attrs, 4), all);
	KUNIT_EXPECT_EQ(test, ipn_offload_features(&attrs, 1), csum);
	attrs.kernel_cap_flags = 0;
	KUNIT_EXPECT_EQ(test, ipn_offload_features(&attrs, 4),
			NETIF_F_SG | csum);

	priv->cm_mode = false;
	KUNIT_EXPECT_EQ(test, ipn_fix_features(priv->dev, all), all);
	priv->cm_mode = true;
	KUNIT_EXPECT_EQ(test, ipn_fix_features(priv->dev, all),
			NETIF_F_SG | NETIF_F_RXCSUM);
}

/* IPoIB header, IPv4, TCP (20 bytes each), payload bytes of data. */
static struct sk_buff *kt_tcp_skb(struct kunit *test, unsigned int payload)
{
	struct sk_buff *skb = alloc_skb(64 + payload, GFP_KERNEL);
	struct tcphdr *th;
	struct iphdr *ip;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, 16);
	skb_put_zero(skb, IPC_HDR_LEN);
	skb_set_network_header(skb, IPC_HDR_LEN);
	ip = skb_put_zero(skb, sizeof(*ip));
	ip->version = 4;
	ip->ihl = 5;
	ip->protocol = IPPROTO_TCP;
	skb_set_transport_header(skb, IPC_HDR_LEN + sizeof(*ip));
	th = skb_put_zero(skb, sizeof(*th));
	th->doff = 5;
	skb_put_zero(skb, payload);
	return skb;
}

/*
 * A UD send's offload fields: nothing for a frame whose checksum is done;
 * IB_SEND_IP_CSUM for one the stack left to the device; for a TCP GSO
 * frame IB_WR_LSO with the 44 bytes of headers in the WR, the mss, and
 * the skb holding the payload only. A GSO frame of another kind is
 * refused (the features offer TSO only).
 */
static void shim_tx_offload(struct kunit *test)
{
	struct ib_ud_wr wr;
	struct sk_buff *skb;
	u8 *data;

	skb = kt_tcp_skb(test, 100);
	memset(&wr, 0xff, sizeof(wr));
	KUNIT_EXPECT_EQ(test, ipn_tx_offload(skb, &wr), 0);
	KUNIT_EXPECT_EQ(test, wr.wr.opcode, IB_WR_SEND);
	KUNIT_EXPECT_EQ(test, wr.wr.send_flags, 0u);
	KUNIT_EXPECT_EQ(test, skb->len, IPC_HDR_LEN + 40u + 100u);
	skb->ip_summed = CHECKSUM_PARTIAL;
	KUNIT_EXPECT_EQ(test, ipn_tx_offload(skb, &wr), 0);
	KUNIT_EXPECT_EQ(test, wr.wr.opcode, IB_WR_SEND);
	KUNIT_EXPECT_EQ(test, wr.wr.send_flags, (unsigned int)IB_SEND_IP_CSUM);
	kfree_skb(skb);

	skb = kt_tcp_skb(test, 3000);
	skb->ip_summed = CHECKSUM_PARTIAL;
	skb_shinfo(skb)->gso_size = 1000;
	skb_shinfo(skb)->gso_type = SKB_GSO_TCPV4;
	data = skb->data;
	KUNIT_EXPECT_EQ(test, ipn_tx_offload(skb, &wr), 0);
	KUNIT_EXPECT_EQ(test, wr.wr.opcode, IB_WR_LSO);
	KUNIT_EXPECT_EQ(test, wr.wr.send_flags, (unsigned int)IB_SEND_IP_CSUM);
	KUNIT_EXPECT_PTR_EQ(test, wr.header, (void *)data);
	KUNIT_EXPECT_EQ(test, wr.hlen, IPC_HDR_LEN + 40);
	KUNIT_EXPECT_EQ(test, wr.mss, 1000);
	KUNIT_EXPECT_EQ(test, skb->len, 3000u);
	kfree_skb(skb);

	skb = kt_tcp_skb(test, 3000);
	skb_shinfo(skb)->gso_size = 1000;
	skb_shinfo(skb)->gso_type = SKB_GSO_UDP_L4;
	KUNIT_EXPECT_EQ(test, ipn_tx_offload(skb, &wr), -EINVAL);
	kfree_skb(skb);
}

/*
 * What UD must carry of a frame, for the MTU check: a TCP GSO frame of
 * 3000 bytes that the adapter cuts into segments of 1000 carries 1044
 * bytes a segment (4 of IPoIB, 40 of IP and TCP), not 3044: the check
 * would answer "too big" to every TSO frame. Other frames: all of it
 * but the pseudo header.
 */
static void shim_tx_ud_len(struct kunit *test)
{
	struct sk_buff *skb = kt_tcp_skb(test, 3000);

	KUNIT_EXPECT_EQ(test, ipn_tx_ud_len(skb),
			IPC_HDR_LEN + 40u + 3000u - IPN_PSEUDO_LEN);
	skb_shinfo(skb)->gso_size = 1000;
	skb_shinfo(skb)->gso_type = SKB_GSO_TCPV4;
	KUNIT_EXPECT_EQ(test, ipn_tx_ud_len(skb), IPC_HDR_LEN + 40u + 1000u);
	skb_shinfo(skb)->gso_type = SKB_GSO_TCPV6;
	KUNIT_EXPECT_EQ(test, ipn_tx_ud_len(skb), IPC_HDR_LEN + 40u + 1000u);
	kfree_skb(skb);
}

/*
 * A receive the adapter says has good IPv4/TCP/UDP checksums
 * (IB_WC_IP_CSUM_OK) goes up CHECKSUM_UNNECESSARY while rx-checksumming
 * is on (ethtool -K), CHECKSUM_NONE otherwise and for any other.
 */
static void shim_rx_csum(struct kunit *test)
{
	struct ipn_priv *priv = kt_rx_priv(test, false);
	struct ib_wc wc = kt_wc(0x22, IB_GRH_BYTES + IPC_HDR_LEN + 28);
	struct sk_buff *skb;

	wc.wc_flags |= IB_WC_IP_CSUM_OK;
	skb = ipn_rx_frame(priv, kt_rx_skb(test, kt_peer_gid, kt_own_gid,
					   ETH_P_IP, 28), &wc);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_EQ(test, (int)skb->ip_summed, CHECKSUM_NONE);
	kfree_skb(skb);
	priv->dev->features |= NETIF_F_RXCSUM;
	skb = ipn_rx_frame(priv, kt_rx_skb(test, kt_peer_gid, kt_own_gid,
					   ETH_P_IP, 28), &wc);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_EQ(test, (int)skb->ip_summed, CHECKSUM_UNNECESSARY);
	kfree_skb(skb);
	wc.wc_flags &= ~IB_WC_IP_CSUM_OK;
	skb = ipn_rx_frame(priv, kt_rx_skb(test, kt_peer_gid, kt_own_gid,
					   ETH_P_IP, 28), &wc);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_EQ(test, (int)skb->ip_summed, CHECKSUM_NONE);
	kfree_skb(skb);
}

/*
 * ethtool's speed of an InfiniBand port from its attributes: every width
 * times every speed the kernel names, NDR's 100 and XDR's 200 Gb/s lanes
 * included, and SPEED_UNKNOWN for what it does not name.
 */
static void shim_ib_link_speed(struct kunit *test)
{
	static const struct { u8 width; u32 lanes; } widths[] = {
		{ IB_WIDTH_1X, 1 }, { IB_WIDTH_2X, 2 }, { IB_WIDTH_4X, 4 },
		{ IB_WIDTH_8X, 8 }, { IB_WIDTH_12X, 12 },
	};
	static const struct { u16 speed; u32 mbps; } speeds[] = {
		{ IB_SPEED_SDR, 2500 }, { IB_SPEED_DDR, 5000 },
		{ IB_SPEED_QDR, 10000 }, { IB_SPEED_FDR10, 10000 },
		{ IB_SPEED_FDR, 14000 }, { IB_SPEED_EDR, 25000 },
		{ IB_SPEED_HDR, 50000 }, { IB_SPEED_NDR, 100000 },
		{ IPN_IB_SPEED_XDR, 200000 },
	};
	unsigned int w, v;
	u32 got;

	for (w = 0; w < ARRAY_SIZE(widths); w++) {
		for (v = 0; v < ARRAY_SIZE(speeds); v++) {
			got = ipn_ib_link_speed(widths[w].width,
						speeds[v].speed);
			KUNIT_EXPECT_EQ_MSG(test, got,
					    widths[w].lanes * speeds[v].mbps,
					    "width %u speed %u",
					    widths[w].width, speeds[v].speed);
		}
	}
	/* The figures users quote: 4X NDR 400G, 4X XDR 800G, 12X EDR 300G. */
	KUNIT_EXPECT_EQ(test, ipn_ib_link_speed(IB_WIDTH_4X, IB_SPEED_NDR),
			(u32)SPEED_400000);
	KUNIT_EXPECT_EQ(test, ipn_ib_link_speed(IB_WIDTH_4X, IPN_IB_SPEED_XDR),
			800000u);
	KUNIT_EXPECT_EQ(test, ipn_ib_link_speed(IB_WIDTH_12X, IB_SPEED_EDR),
			300000u);
	KUNIT_EXPECT_EQ(test, ipn_ib_link_speed(0, IB_SPEED_QDR),
			(u32)SPEED_UNKNOWN);
	KUNIT_EXPECT_EQ(test, ipn_ib_link_speed(3, IB_SPEED_QDR),
			(u32)SPEED_UNKNOWN);
	KUNIT_EXPECT_EQ(test, ipn_ib_link_speed(IB_WIDTH_4X, 0),
			(u32)SPEED_UNKNOWN);
	KUNIT_EXPECT_EQ(test, ipn_ib_link_speed(IB_WIDTH_4X, 3),
			(u32)SPEED_UNKNOWN);
	KUNIT_EXPECT_EQ(test, ipn_ib_link_speed(IB_WIDTH_4X, 512),
			(u32)SPEED_UNKNOWN);
}

/*
 * ports= (ib.c): what it accepts, and which ports it gives an interface.
 * Beside ib_ipoib, "roce" leaves it the InfiniBand ports.
 */
static void shim_ports_param(struct kunit *test)
{
	static const char * const good[] = {
		"", "ib", "roce", "rxe0", "softib1:1", "roce,mlx5_1:2",
		"mlx5_0:1,mlx5_0:2,ib", "rxe0:4294967295",
		"a_device_name_of_sixty_three_characters_the_longest_ib_core_has",
	};
	static const char * const bad[] = {
		",", "ib,", ",roce", "rxe0:", "rxe0:0", "rxe0:x", "rxe0:01",
		"rxe0:+1", ":1", "rxe0:1:2", "rxe 0", "rxe0:4294967296",
		"a_device_name_longer_than_sixty_three_characters_is_not_a_name_x",
		"ib\nroce", "rxe0\t", "rxe\x01", "rxe0,,ib",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(good); i++)
		KUNIT_EXPECT_TRUE_MSG(test, ipn_ports_valid(good[i]), "\"%s\"",
				      good[i]);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_FALSE_MSG(test, ipn_ports_valid(bad[i]), "\"%s\"",
				       bad[i]);

	/* Empty: every InfiniBand and RoCE port, nothing else (iWARP). */
	KUNIT_EXPECT_TRUE(test, ipn_ports_select("", "mlx5_0", 1, true, false));
	KUNIT_EXPECT_TRUE(test, ipn_ports_select("", "rxe0", 1, false, true));
	KUNIT_EXPECT_FALSE(test, ipn_ports_select("", "siw0", 1, false, false));
	/* Link layers. */
	KUNIT_EXPECT_TRUE(test, ipn_ports_select("roce", "rxe0", 1, false, true));
	KUNIT_EXPECT_FALSE(test, ipn_ports_select("roce", "mlx5_0", 1, true, false));
	KUNIT_EXPECT_TRUE(test, ipn_ports_select("ib", "mlx5_0", 2, true, false));
	KUNIT_EXPECT_FALSE(test, ipn_ports_select("ib", "rxe0", 1, false, true));
	/* Devices: the whole name, every port or the one named. */
	KUNIT_EXPECT_TRUE(test, ipn_ports_select("softib1", "softib1", 1, true, false));
	KUNIT_EXPECT_FALSE(test, ipn_ports_select("softib1", "softib10", 1, true, false));
	KUNIT_EXPECT_FALSE(test, ipn_ports_select("softib10", "softib1", 1, true, false));
	KUNIT_EXPECT_TRUE(test, ipn_ports_select("mlx5_0:2", "mlx5_0", 2, true, false));
	KUNIT_EXPECT_FALSE(test, ipn_ports_select("mlx5_0:2", "mlx5_0", 1, true, false));
	/* A device named is still only served on IB and RoCE ports. */
	KUNIT_EXPECT_FALSE(test, ipn_ports_select("siw0", "siw0", 1, false, false));
	/* Any item of a list. */
	KUNIT_EXPECT_TRUE(test, ipn_ports_select("roce,softib2:1", "softib2", 1, true, false));
	KUNIT_EXPECT_FALSE(test, ipn_ports_select("roce,softib2:1", "softib0", 1, true, false));
	KUNIT_EXPECT_TRUE(test, ipn_ports_select("roce,softib2:1", "rxe1", 1, false, true));
}

/* ------------------------------------------------------------------ */
/* SR-IOV: a PF's VF ops reach the device's, checked first             */
/* ------------------------------------------------------------------ */

/* What the fake device's VF ops were called with. */
static struct {
	int calls;
	int vf;
	u32 port;
	u64 guid;
	int type;
	int state;
} kt_vf;

static int kt_set_vf_guid(struct ib_device *ca, int vf, u32 port, u64 guid,
			  int type)
{
	kt_vf.calls++;
	kt_vf.vf = vf;
	kt_vf.port = port;
	kt_vf.guid = guid;
	kt_vf.type = type;
	return 0;
}

static int kt_get_vf_guid(struct ib_device *ca, int vf, u32 port,
			  struct ifla_vf_guid *node_guid,
			  struct ifla_vf_guid *port_guid)
{
	kt_vf.calls++;
	node_guid->guid = 0x0002c90300001000ULL + vf;
	port_guid->guid = 0x0002c90300002000ULL + vf;
	return 0;
}

static int kt_set_vf_link_state(struct ib_device *ca, int vf, u32 port,
				int state)
{
	kt_vf.calls++;
	kt_vf.vf = vf;
	kt_vf.port = port;
	kt_vf.state = state;
	return 0;
}

static int kt_get_vf_config(struct ib_device *ca, int vf, u32 port,
			    struct ifla_vf_info *ivf)
{
	kt_vf.calls++;
	kt_vf.vf = vf;
	kt_vf.port = port;
	ivf->vf = 99;	/* whatever the device leaves: the driver sets it */
	ivf->linkstate = IFLA_VF_LINK_STATE_DISABLE;
	return 0;
}

static int kt_get_vf_stats(struct ib_device *ca, int vf, u32 port,
			   struct ifla_vf_stats *stats)
{
	kt_vf.calls++;
	stats->rx_packets = 1000 + vf;
	return 0;
}

static const struct ib_device_ops kt_vf_ops = {
	.set_vf_guid = kt_set_vf_guid,
	.get_vf_guid = kt_get_vf_guid,
	.set_vf_link_state = kt_set_vf_link_state,
	.get_vf_config = kt_get_vf_config,
	.get_vf_stats = kt_get_vf_stats,
};

/* The PF's PCI function as rtnetlink counts its VFs: 2 of them enabled. */
static int kt_num_vf(struct device *dev)
{
	return 2;
}

static struct bus_type kt_vf_bus = {
	.name = "ipn_kt_vf",
	.num_vf = kt_num_vf,
};

/*
 * An interface on port 2 of a fake device with the ops given, its
 * netdev's parent a function with 2 VFs (parent false: none).
 */
static struct net_device *kt_vf_netdev(struct kunit *test,
				       const struct ib_device_ops *ops,
				       bool parent)
{
	struct net_device *dev = kt_netdev(test);
	struct ipn_priv *priv = netdev_priv(dev);
	struct device *pf;

	priv->dev = dev;
	priv->port = 2;
	dev_addr_set(dev, kt_daddr);	/* not what a VF's address is */
	priv->ca = kunit_kzalloc(test, sizeof(*priv->ca), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, priv->ca);
	priv->ca->dev.init_name = "ipnkt_ib";
	if (ops)
		priv->ca->ops = *ops;
	if (parent) {
		pf = kunit_kzalloc(test, sizeof(*pf), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, pf);
		pf->bus = &kt_vf_bus;
		dev->dev.parent = pf;
	}
	memset(&kt_vf, 0, sizeof(kt_vf));
	return dev;
}

/*
 * ip link set ib0 vf N node_guid|port_guid|state, ip link show ib0: each
 * reaches the device's op with the VF, the interface's port and the value,
 * and what the device reports comes back with the VF's index.
 */
static void shim_sriov_ops(struct kunit *test)
{
	struct net_device *dev = kt_vf_netdev(test, &kt_vf_ops, true);
	const struct net_device_ops *ops = dev->netdev_ops;
	struct ifla_vf_guid node = {}, port = {};
	struct ifla_vf_stats stats = {};
	struct ifla_vf_info ivf = {};
	static const u8 zero[sizeof(ivf.mac)];
	int ret;

	KUNIT_EXPECT_TRUE(test, ops->ndo_set_vf_guid == ipn_set_vf_guid);
	rtnl_lock();	/* as rtnetlink calls them; no ASSERT until unlocked */
	KUNIT_EXPECT_EQ(test, ops->ndo_set_vf_guid(dev, 1, 0x0011223344556677ULL,
						   IFLA_VF_IB_PORT_GUID), 0);
	KUNIT_EXPECT_EQ(test, kt_vf.calls, 1);
	KUNIT_EXPECT_EQ(test, kt_vf.vf, 1);
	KUNIT_EXPECT_EQ(test, kt_vf.port, 2u);
	KUNIT_EXPECT_EQ(test, kt_vf.guid, 0x0011223344556677ULL);
	KUNIT_EXPECT_EQ(test, kt_vf.type, IFLA_VF_IB_PORT_GUID);
	KUNIT_EXPECT_EQ(test, ops->ndo_set_vf_guid(dev, 0, 0x42,
						   IFLA_VF_IB_NODE_GUID), 0);
	KUNIT_EXPECT_EQ(test, kt_vf.vf, 0);
	KUNIT_EXPECT_EQ(test, kt_vf.type, IFLA_VF_IB_NODE_GUID);

	KUNIT_EXPECT_EQ(test, ops->ndo_get_vf_guid(dev, 1, &node, &port), 0);
	KUNIT_EXPECT_EQ(test, node.guid, 0x0002c90300001001ULL);
	KUNIT_EXPECT_EQ(test, port.guid, 0x0002c90300002001ULL);

	ret = ops->ndo_set_vf_link_state(dev, 1, IFLA_VF_LINK_STATE_ENABLE);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, kt_vf.vf, 1);
	KUNIT_EXPECT_EQ(test, kt_vf.port, 2u);
	KUNIT_EXPECT_EQ(test, kt_vf.state, IFLA_VF_LINK_STATE_ENABLE);
	ret = ops->ndo_set_vf_link_state(dev, 0, IFLA_VF_LINK_STATE_AUTO);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, kt_vf.vf, 0);
	KUNIT_EXPECT_EQ(test, kt_vf.state, IFLA_VF_LINK_STATE_AUTO);

	kt_vf.port = 0;
	KUNIT_EXPECT_EQ(test, ops->ndo_get_vf_config(dev, 1, &ivf), 0);
	KUNIT_EXPECT_EQ(test, kt_vf.vf, 1);
	KUNIT_EXPECT_EQ(test, kt_vf.port, 2u);
	KUNIT_EXPECT_EQ(test, ivf.vf, 1u);
	KUNIT_EXPECT_EQ(test, ivf.linkstate, (u32)IFLA_VF_LINK_STATE_DISABLE);
	KT_EXPECT_MEMEQ(test, ivf.mac, zero, sizeof(zero));

	KUNIT_EXPECT_EQ(test, ops->ndo_get_vf_stats(dev, 1, &stats), 0);
	KUNIT_EXPECT_EQ(test, stats.rx_packets, 1001ULL);
	KUNIT_EXPECT_EQ(test, kt_vf.calls, 7);
	rtnl_unlock();
}

/*
 * What is refused before the device is asked: a GUID type or link state
 * rtnetlink does not define, a VF beyond those enabled (rtnetlink passes
 * any index), a RoCE port (mlx5 offers the ops on every PF), a device that
 * is itself a VF, a device without VF ops (softib), an interface whose
 * adapter has no VFs.
 */
static void shim_sriov_refused(struct kunit *test)
{
	struct net_device *noops = kt_vf_netdev(test, NULL, true);
	struct net_device *novf = kt_vf_netdev(test, &kt_vf_ops, false);
	struct net_device *dev = kt_vf_netdev(test, &kt_vf_ops, true);
	const struct net_device_ops *ops = dev->netdev_ops;
	struct ipn_priv *priv = netdev_priv(dev);
	struct ifla_vf_info ivf = {};
	int ret;

	rtnl_lock();	/* as rtnetlink calls them; no ASSERT until unlocked */
	KUNIT_EXPECT_EQ(test, ops->ndo_set_vf_guid(dev, 0, 1, IFLA_VF_IB_PORT_GUID + 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ops->ndo_set_vf_guid(dev, 0, 1, 0), -EINVAL);
	ret = ops->ndo_set_vf_link_state(dev, 0, IFLA_VF_LINK_STATE_DISABLE + 1);
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	KUNIT_EXPECT_EQ(test, ops->ndo_set_vf_link_state(dev, 0, -1), -EINVAL);
	KUNIT_EXPECT_EQ(test, ops->ndo_set_vf_guid(dev, 2, 1, IFLA_VF_IB_NODE_GUID),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ops->ndo_set_vf_guid(dev, -1, 1, IFLA_VF_IB_NODE_GUID),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ops->ndo_get_vf_config(dev, 2, &ivf), -EINVAL);
	KUNIT_EXPECT_EQ(test, kt_vf.calls, 0);

	/* A RoCE port: its VFs are Ethernet functions, not ours to set. */
	priv->roce = true;
	KUNIT_EXPECT_EQ(test, ops->ndo_set_vf_guid(dev, 0, 1, IFLA_VF_IB_NODE_GUID),
			-EOPNOTSUPP);
	ret = ops->ndo_set_vf_link_state(dev, 0, IFLA_VF_LINK_STATE_AUTO);
	KUNIT_EXPECT_EQ(test, ret, -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, ops->ndo_get_vf_config(dev, 0, &ivf), -EOPNOTSUPP);
	priv->roce = false;

	/* The adapter is itself a VF: its VFs are not its to set. */
	priv->ca->attrs.kernel_cap_flags |= IBK_VIRTUAL_FUNCTION;
	KUNIT_EXPECT_EQ(test, ops->ndo_set_vf_guid(dev, 0, 1, IFLA_VF_IB_NODE_GUID),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, kt_vf.calls, 0);

	/* A device without VF ops (rxe, softib), parent or not. */
	KUNIT_EXPECT_EQ(test, ops->ndo_set_vf_guid(noops, 0, 1, IFLA_VF_IB_NODE_GUID),
			-EOPNOTSUPP);
	ret = ops->ndo_set_vf_link_state(noops, 0, IFLA_VF_LINK_STATE_AUTO);
	KUNIT_EXPECT_EQ(test, ret, -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, ops->ndo_get_vf_config(noops, 0, &ivf), -EOPNOTSUPP);

	/* VF ops, but no VF enabled (sriov_numvfs 0, or no PCI parent). */
	KUNIT_EXPECT_EQ(test, ops->ndo_set_vf_guid(novf, 0, 1, IFLA_VF_IB_NODE_GUID),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kt_vf.calls, 0);
	rtnl_unlock();
}

/*
 * Review 2026-12 H2: who may set the VFs. rtnetlink checks CAP_NET_ADMIN
 * in the caller's own user namespace only, so a pod given a P_Key child,
 * or the port's interface in its namespace, would reach every VF of the
 * physical function. A child refuses the VF ops, sets and gets: the VFs
 * are the port's, not a partition's. The port's interface sets them only
 * for CAP_NET_ADMIN in the initial user namespace; it still lists them.
 */
static void shim_sriov_privilege(struct kunit *test)
{
	struct net_device *dev = kt_vf_netdev(test, &kt_vf_ops, true);
	struct net_device *child = kt_vf_netdev(test, &kt_vf_ops, true);
	const struct net_device_ops *ops = dev->netdev_ops;
	struct ipn_priv *cpriv = netdev_priv(child);
	struct ifla_vf_guid node = {}, port = {};
	struct ifla_vf_stats stats = {};
	struct ifla_vf_info ivf = {};
	const struct cred *old;
	struct cred *cred;
	int ret;

	cpriv->parent = netdev_priv(dev);
	rtnl_lock();	/* as rtnetlink calls them; no ASSERT until unlocked */
	ret = ops->ndo_set_vf_guid(child, 1, 0x42, IFLA_VF_IB_PORT_GUID);
	KUNIT_EXPECT_EQ(test, ret, -EOPNOTSUPP);
	ret = ops->ndo_set_vf_link_state(child, 1, IFLA_VF_LINK_STATE_DISABLE);
	KUNIT_EXPECT_EQ(test, ret, -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, ops->ndo_get_vf_guid(child, 1, &node, &port),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, ops->ndo_get_vf_config(child, 1, &ivf),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, ops->ndo_get_vf_stats(child, 1, &stats),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, kt_vf.calls, 0);

	/* The port's interface, CAP_NET_ADMIN lost: it lists, not sets. */
	cred = prepare_creds();
	KUNIT_ASSERT_NOT_NULL(test, cred);
	cap_lower(cred->cap_effective, CAP_NET_ADMIN);
	old = override_creds(cred);
	ret = ops->ndo_set_vf_guid(dev, 1, 0x42, IFLA_VF_IB_PORT_GUID);
	KUNIT_EXPECT_EQ(test, ret, -EPERM);
	ret = ops->ndo_set_vf_link_state(dev, 1, IFLA_VF_LINK_STATE_DISABLE);
	KUNIT_EXPECT_EQ(test, ret, -EPERM);
	KUNIT_EXPECT_EQ(test, kt_vf.calls, 0);
	KUNIT_EXPECT_EQ(test, ops->ndo_get_vf_config(dev, 1, &ivf), 0);
	KUNIT_EXPECT_EQ(test, kt_vf.calls, 1);
	revert_creds(old);
	put_cred(cred);

	/* With it, as in shim_sriov_ops. */
	ret = ops->ndo_set_vf_link_state(dev, 1, IFLA_VF_LINK_STATE_DISABLE);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, kt_vf.calls, 2);
	rtnl_unlock();
}

static struct kunit_case ipn_shim_cases[] = {
	KUNIT_CASE(shim_setup_device),
	KUNIT_CASE(shim_header_create),
	KUNIT_CASE(shim_header_parse),
	KUNIT_CASE(shim_tx_ip_scope),
	KUNIT_CASE(shim_change_mtu),
	KUNIT_CASE(shim_event_mapping),
	KUNIT_CASE(shim_rx_frame),
	KUNIT_CASE(shim_rx_frame_roce_ipv4),
	KUNIT_CASE(shim_rx_resolution),
	KUNIT_CASE(shim_rx_frame_paged),
	KUNIT_CASE(shim_offload_features),
	KUNIT_CASE(shim_tx_offload),
	KUNIT_CASE(shim_tx_ud_len),
	KUNIT_CASE(shim_rx_csum),
	KUNIT_CASE(shim_ib_link_speed),
	KUNIT_CASE(shim_ports_param),
	KUNIT_CASE(shim_sriov_ops),
	KUNIT_CASE(shim_sriov_refused),
	KUNIT_CASE(shim_sriov_privilege),
	{}
};

static struct kunit_suite ipn_shim_suite = {
	.name = "ipoib_ng_shim",
	.test_cases = ipn_shim_cases,
};

kunit_test_suite(ipn_shim_suite);
