// SPDX-License-Identifier: GPL-2.0
/*
 * shim_test.c - suite ipoib_ng_shim: the C shim with real sk_buffs and a
 * real (unregistered) net_device set up by the driver's own ipn_setup():
 * header_ops, the IP group scope read from a frame, the MTU rule, and the
 * mapping of each ib_event to the core's events.
 */
#define IPN_KUNIT 1
#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
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

static struct kunit_case ipn_shim_cases[] = {
	KUNIT_CASE(shim_setup_device),
	KUNIT_CASE(shim_header_create),
	KUNIT_CASE(shim_header_parse),
	KUNIT_CASE(shim_tx_ip_scope),
	KUNIT_CASE(shim_change_mtu),
	KUNIT_CASE(shim_event_mapping),
	{}
};

static struct kunit_suite ipn_shim_suite = {
	.name = "ipoib_ng_shim",
	.test_cases = ipn_shim_cases,
};

kunit_test_suite(ipn_shim_suite);
