// SPDX-License-Identifier: GPL-2.0
/*
 * print_test.c - ipoibctl's printers (userspace/attrs.c, out.c, json.c)
 * on messages built here as the kernel would send them, with what a
 * client must survive: attributes it does not know, a GID of the wrong
 * length, a u64 sent in 4 bytes, bits and enum values it has no name
 * for, an interface name that is not UTF-8. No kernel, no module.
 *
 * Usage: print_test plain|json|pretty. ipoibctl-cli.sh compares plain
 * with print_test.expected and checks that the JSON parses.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <linux/genetlink.h>
#include <linux/ipoib_ng.h>
#include "ipoibctl.h"

/* Interface indexes: lo (always 1) and one that does not exist. */
#define LO 1
#define GONE 999999

static _Alignas(8) char buf[8192];

static struct nlmsghdr *msg(uint8_t cmd)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = 0x20;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = IPOIB_NG_GENL_VERSION;
	return nlh;
}

static void put_gid(struct nlmsghdr *nlh, uint16_t type, const char *s)
{
	struct in6_addr a;

	inet_pton(AF_INET6, s, &a);
	mnl_attr_put(nlh, type, sizeof(a), &a);
}

/* A broadcast group's attributes, in an interface or on their own. */
static void put_bcast(struct nlmsghdr *nlh)
{
	put_gid(nlh, IPOIB_NG_A_GROUP_MGID, "ff12:401b:ffff::ffff:ffff");
	mnl_attr_put_strz(nlh, IPOIB_NG_A_GROUP_STATE, "joined");
	mnl_attr_put_u8(nlh, IPOIB_NG_A_GROUP_WANT, IPOIB_NG_JOIN_FULL);
	mnl_attr_put_u8(nlh, IPOIB_NG_A_GROUP_JOINED, IPOIB_NG_JOIN_FULL);
	mnl_attr_put_u8(nlh, IPOIB_NG_A_GROUP_PENDING, 0);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_GROUP_OWNER,
			 IPOIB_NG_OWNER_BROADCAST);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_GROUP_QKEY, 0xb1b);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_GROUP_MTU, 2048);
	mnl_attr_put_u8(nlh, IPOIB_NG_A_GROUP_SL, 0);
	mnl_attr_put_u8(nlh, IPOIB_NG_A_GROUP_RATE, 3);
	mnl_attr_put_u8(nlh, IPOIB_NG_A_GROUP_SCOPE, 2);
	mnl_attr_put_u16(nlh, IPOIB_NG_A_GROUP_MLID, 0xc000);
}

static void put_stat(struct nlmsghdr *nlh, const char *name, uint64_t v)
{
	struct nlattr *s = mnl_attr_nest_start(nlh, IPOIB_NG_A_STAT);

	mnl_attr_put_strz(nlh, IPOIB_NG_A_STAT_NAME, name);
	mnl_attr_put_u64(nlh, IPOIB_NG_A_STAT_VALUE, v);
	mnl_attr_nest_end(nlh, s);
}

/* A P_Key child of lo (as if), up, with everything. */
static void if_full(void)
{
	struct nlmsghdr *nlh = msg(IPOIB_NG_CMD_IF_GET);
	struct nlattr *n;

	mnl_attr_put_u32(nlh, IPOIB_NG_A_IF_IFINDEX, GONE);
	mnl_attr_put_strz(nlh, IPOIB_NG_A_IF_IFNAME, "ib0.8001");
	mnl_attr_put_u32(nlh, IPOIB_NG_A_IF_PARENT, LO);
	mnl_attr_put_strz(nlh, IPOIB_NG_A_IF_IBDEV, "rxe0");
	mnl_attr_put_u32(nlh, IPOIB_NG_A_IF_PORT, 1);
	mnl_attr_put_u16(nlh, IPOIB_NG_A_IF_PKEY, 0x8001);
	mnl_attr_put_u16(nlh, IPOIB_NG_A_IF_PKEY_INDEX, 1);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_IF_QPN, 0x11);
	put_gid(nlh, IPOIB_NG_A_IF_GID, "fe80::5054:ff:fe12:3456");
	mnl_attr_put_u8(nlh, IPOIB_NG_A_IF_MODE, IPOIB_NG_MODE_CONNECTED);
	mnl_attr_put_u8(nlh, IPOIB_NG_A_IF_UMCAST, 0);
	mnl_attr_put_u8(nlh, IPOIB_NG_A_IF_ROCE, 1);
	mnl_attr_put_u8(nlh, IPOIB_NG_A_IF_LINK_UP, 1);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_IF_LINK_WHY, IPOIB_NG_LINK_UP);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_IF_MTU, 2044);
	n = mnl_attr_nest_start(nlh, IPOIB_NG_A_IF_BCAST);
	put_bcast(nlh);
	mnl_attr_nest_end(nlh, n);
	n = mnl_attr_nest_start(nlh, IPOIB_NG_A_IF_STATS);
	put_stat(nlh, "rx_packets", 12345);
	put_stat(nlh, "tx_dropped_no_path", 0);
	put_stat(nlh, "big", UINT64_MAX);
	mnl_attr_nest_end(nlh, n);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_IF_PATHS, 3);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_IF_GROUPS, 4);
	/* A newer module's attribute: ignored. */
	mnl_attr_put_u32(nlh, IPOIB_NG_A_IF_MAX + 1, 7);
	obj_print(&obj_if, nlh);
}

/*
 * Down, a GID of the wrong length and a port of the wrong size (not
 * shown), a parent with no name here, a reason newer than this tool;
 * in JSON, a name that needs escaping (plain text writes it raw).
 */
static void if_odd(void)
{
	struct nlmsghdr *nlh = msg(IPOIB_NG_CMD_IF_GET);
	static const char bad_gid[8] = { 1 };

	mnl_attr_put_u32(nlh, IPOIB_NG_A_IF_IFINDEX, GONE);
	mnl_attr_put_strz(nlh, IPOIB_NG_A_IF_IFNAME, out_is_json() ?
			  "q\"\\\t\x01\xff\xc3\xa9\xe2\x82" : "ib1");
	mnl_attr_put_u32(nlh, IPOIB_NG_A_IF_PARENT, GONE);
	mnl_attr_put(nlh, IPOIB_NG_A_IF_GID, sizeof(bad_gid), bad_gid);
	mnl_attr_put_u8(nlh, IPOIB_NG_A_IF_LINK_UP, 0);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_IF_LINK_WHY, 42);
	mnl_attr_put_u16(nlh, IPOIB_NG_A_IF_PORT, 1);	/* wrong size */
	obj_print(&obj_if, nlh);

	nlh = msg(IPOIB_NG_CMD_IF_GET);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_IF_IFINDEX, LO);
	mnl_attr_put_u8(nlh, IPOIB_NG_A_IF_LINK_UP, 0);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_IF_LINK_WHY,
			 IPOIB_NG_LINK_PORT_DOWN);
	mnl_attr_put_u8(nlh, IPOIB_NG_A_IF_MODE, IPOIB_NG_MODE_DATAGRAM);
	obj_print(&obj_if, nlh);
}

static void paths(void)
{
	struct nlmsghdr *nlh = msg(IPOIB_NG_CMD_PATH_GET);

	/* InfiniBand, valid. */
	mnl_attr_put_u32(nlh, IPOIB_NG_A_PATH_IFINDEX, LO);
	put_gid(nlh, IPOIB_NG_A_PATH_GID, "fe80::2:c903:1:2");
	mnl_attr_put_strz(nlh, IPOIB_NG_A_PATH_STATE, "valid");
	mnl_attr_put_u64(nlh, IPOIB_NG_A_PATH_AGE, 5000);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_PATH_STATUS, 0);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_PATH_ATTEMPTS, 0);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_PATH_QUEUED, 0);
	mnl_attr_put_u16(nlh, IPOIB_NG_A_PATH_LID, 1);
	mnl_attr_put_u8(nlh, IPOIB_NG_A_PATH_SL, 0);
	mnl_attr_put_u8(nlh, IPOIB_NG_A_PATH_RATE, 16);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_PATH_MTU, 4096);
	obj_print(&obj_path, nlh);

	/* RoCE, failed, retrying; the u64 in 4 bytes. */
	nlh = msg(IPOIB_NG_CMD_PATH_GET);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_PATH_IFINDEX, GONE);
	put_gid(nlh, IPOIB_NG_A_PATH_GID, "fe80::5054:ff:fe00:2");
	mnl_attr_put_strz(nlh, IPOIB_NG_A_PATH_STATE, "failed");
	mnl_attr_put_u32(nlh, IPOIB_NG_A_PATH_STATUS, (uint32_t)-110);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_PATH_ATTEMPTS, 3);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_PATH_QUEUED, 2);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_PATH_RETRY, 1234);
	mnl_attr_put(nlh, IPOIB_NG_A_PATH_DMAC, 6,
		     "\x52\x54\x00\xab\xcd\xef");
	put_gid(nlh, IPOIB_NG_A_PATH_SGID, "fe80::5054:ff:fe00:1");
	obj_print(&obj_path, nlh);
}

static void groups(void)
{
	struct nlmsghdr *nlh = msg(IPOIB_NG_CMD_GROUP_GET);

	mnl_attr_put_u32(nlh, IPOIB_NG_A_GROUP_IFINDEX, LO);
	put_bcast(nlh);
	obj_print(&obj_group, nlh);

	/* Joining, a send-only join pending, an owner bit unknown here. */
	nlh = msg(IPOIB_NG_CMD_GROUP_GET);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_GROUP_IFINDEX, LO);
	put_gid(nlh, IPOIB_NG_A_GROUP_MGID, "ff12:601b:ffff::1:ff00:2");
	mnl_attr_put_strz(nlh, IPOIB_NG_A_GROUP_STATE, "joining");
	mnl_attr_put_u8(nlh, IPOIB_NG_A_GROUP_WANT,
			IPOIB_NG_JOIN_FULL | IPOIB_NG_JOIN_SENDONLY);
	mnl_attr_put_u8(nlh, IPOIB_NG_A_GROUP_JOINED, 0);
	mnl_attr_put_u8(nlh, IPOIB_NG_A_GROUP_PENDING,
			IPOIB_NG_JOIN_SENDONLY);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_GROUP_OWNER,
			 IPOIB_NG_OWNER_STACK | IPOIB_NG_OWNER_SENDONLY |
			 0x100);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_GROUP_STATUS, (uint32_t)-11);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_GROUP_ATTEMPTS, 1);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_GROUP_QUEUED, 5);
	mnl_attr_put_u64(nlh, IPOIB_NG_A_GROUP_RETRY, 250);
	obj_print(&obj_group, nlh);
}

static void conns(void)
{
	struct nlmsghdr *nlh = msg(IPOIB_NG_CMD_CONN_GET);

	mnl_attr_put_u32(nlh, IPOIB_NG_A_CONN_IFINDEX, LO);
	put_gid(nlh, IPOIB_NG_A_CONN_GID, "fe80::2:c903:1:2");
	mnl_attr_put_u32(nlh, IPOIB_NG_A_CONN_QPN, 0x48);
	mnl_attr_put_u8(nlh, IPOIB_NG_A_CONN_DIR, IPOIB_NG_CONN_TX);
	mnl_attr_put_strz(nlh, IPOIB_NG_A_CONN_STATE, "connected");
	mnl_attr_put_u64(nlh, IPOIB_NG_A_CONN_SINCE, 60000);
	mnl_attr_put_u64(nlh, IPOIB_NG_A_CONN_FRAMES, 1000000);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_CONN_QUEUED, 0);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_CONN_STATUS, 0);
	obj_print(&obj_conn, nlh);

	nlh = msg(IPOIB_NG_CMD_CONN_GET);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_CONN_IFINDEX, LO);
	put_gid(nlh, IPOIB_NG_A_CONN_GID, "fe80::2:c903:1:3");
	mnl_attr_put_u32(nlh, IPOIB_NG_A_CONN_QPN, 0x123456);
	mnl_attr_put_u8(nlh, IPOIB_NG_A_CONN_DIR, IPOIB_NG_CONN_RX);
	mnl_attr_put_strz(nlh, IPOIB_NG_A_CONN_STATE, "connected");
	mnl_attr_put_u64(nlh, IPOIB_NG_A_CONN_SINCE, 10);
	mnl_attr_put_u64(nlh, IPOIB_NG_A_CONN_FRAMES, 7);
	mnl_attr_put_u64(nlh, IPOIB_NG_A_CONN_IDLE, 3);
	obj_print(&obj_conn, nlh);
}

/* An event of type type on lo (named in the message). */
static struct nlmsghdr *event(uint32_t type)
{
	struct nlmsghdr *nlh = msg(IPOIB_NG_CMD_EVENT);

	mnl_attr_put_u32(nlh, IPOIB_NG_A_EV_TYPE, type);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_EV_IFINDEX, LO);
	mnl_attr_put_strz(nlh, IPOIB_NG_A_EV_IFNAME, "ib0");
	return nlh;
}

static void events(void)
{
	struct nlmsghdr *nlh;

	nlh = event(IPOIB_NG_EV_GROUP_JOINED);
	put_gid(nlh, IPOIB_NG_A_EV_MGID, "ff12:401b:ffff::ffff:ffff");
	mnl_attr_put_u8(nlh, IPOIB_NG_A_EV_JOIN, IPOIB_NG_JOIN_FULL);
	obj_print(&obj_event, nlh);

	nlh = event(IPOIB_NG_EV_GROUP_FAILED);
	put_gid(nlh, IPOIB_NG_A_EV_MGID, "ff12:601b:ffff::1:ff00:2");
	mnl_attr_put_u32(nlh, IPOIB_NG_A_EV_STATUS, (uint32_t)-110);
	obj_print(&obj_event, nlh);

	nlh = event(IPOIB_NG_EV_GROUP_LEFT);
	put_gid(nlh, IPOIB_NG_A_EV_MGID, "ff12:601b:ffff::1:ff00:2");
	obj_print(&obj_event, nlh);

	nlh = event(IPOIB_NG_EV_PATH_RESOLVED);
	put_gid(nlh, IPOIB_NG_A_EV_GID, "fe80::2:c903:1:2");
	obj_print(&obj_event, nlh);

	nlh = event(IPOIB_NG_EV_PATH_FAILED);
	put_gid(nlh, IPOIB_NG_A_EV_GID, "fe80::2:c903:1:2");
	mnl_attr_put_u32(nlh, IPOIB_NG_A_EV_STATUS, (uint32_t)-110);
	obj_print(&obj_event, nlh);

	nlh = event(IPOIB_NG_EV_CONN_UP);
	put_gid(nlh, IPOIB_NG_A_EV_GID, "fe80::2:c903:1:2");
	mnl_attr_put_u32(nlh, IPOIB_NG_A_EV_QPN, 0x11);
	mnl_attr_put_u8(nlh, IPOIB_NG_A_EV_DIR, IPOIB_NG_CONN_TX);
	obj_print(&obj_event, nlh);

	nlh = event(IPOIB_NG_EV_CONN_DOWN);
	put_gid(nlh, IPOIB_NG_A_EV_GID, "fe80::2:c903:1:2");
	mnl_attr_put_u32(nlh, IPOIB_NG_A_EV_QPN, 0x11);
	mnl_attr_put_u8(nlh, IPOIB_NG_A_EV_DIR, IPOIB_NG_CONN_RX);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_EV_STATUS, (uint32_t)-104);
	obj_print(&obj_event, nlh);

	nlh = event(IPOIB_NG_EV_LINK);
	mnl_attr_put_u8(nlh, IPOIB_NG_A_EV_LINK_UP, 0);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_EV_LINK_WHY,
			 IPOIB_NG_LINK_PORT_DOWN);
	obj_print(&obj_event, nlh);

	nlh = event(IPOIB_NG_EV_LINK);
	mnl_attr_put_u8(nlh, IPOIB_NG_A_EV_LINK_UP, 1);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_EV_LINK_WHY, IPOIB_NG_LINK_UP);
	obj_print(&obj_event, nlh);

	/* A newer module's event, without a name: the index's. */
	nlh = msg(IPOIB_NG_CMD_EVENT);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_EV_TYPE, 77);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_EV_IFINDEX, LO);
	obj_print(&obj_event, nlh);
}

/* Each dump as ipoibctl writes it: a list (a JSON array) of entries. */
static void list(void (*fn)(void))
{
	out_list_begin();
	fn();
	out_list_end(true);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "plain";

	if (strcmp(mode, "plain") && strcmp(mode, "json") &&
	    strcmp(mode, "pretty")) {
		fprintf(stderr, "usage: print_test plain|json|pretty\n");
		return 2;
	}
	out_init(strcmp(mode, "plain") != 0, !strcmp(mode, "pretty"));
	show_stats = true;
	list(if_full);
	list(if_odd);
	show_stats = false;
	list(if_full);
	list(paths);
	list(groups);
	list(conns);
	/* Events: JSON lines, outside any list. */
	events();
	return 0;
}
