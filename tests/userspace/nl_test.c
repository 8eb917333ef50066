// SPDX-License-Identifier: GPL-2.0
/*
 * nl_test.c - ipoibctl's netlink layer (userspace/nl.c) against the
 * running kernel's own generic netlink controller, "nlctrl", which is
 * always there: resolving a family and a multicast group, a multi-part
 * dump up to NLMSG_DONE, a family that does not exist (-ENOENT, what
 * ipoibctl reports as the module not loaded), and a request the kernel
 * rejects with an extack message. Prints "nl_test: ok" or fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/genetlink.h>
#include "ipoibctl.h"

static int failures;

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "nl_test: FAIL: " __VA_ARGS__);	\
			fputc('\n', stderr);				\
			failures++;					\
		}							\
	} while (0)

static int count_cb(const struct nlmsghdr *nlh, void *data)
{
	int *n = data;

	(void)nlh;
	(*n)++;
	return MNL_CB_OK;
}

int main(void)
{
	struct nl_family f;
	struct nlmsghdr *nlh;
	struct nl nl;
	int err, n = 0;

	err = nl_open(&nl);
	if (err) {
		fprintf(stderr, "nl_test: socket: %s\n", strerror(-err));
		return 1;
	}

	err = nl_family(&nl, "nlctrl", "notify", &f);
	CHECK(!err, "nlctrl: %s", strerror(-err));
	CHECK(f.id == GENL_ID_CTRL, "nlctrl's id %u", f.id);
	CHECK(f.group != 0, "nlctrl's \"notify\" group not found");

	/* Every family: NLM_F_MULTI parts, then NLMSG_DONE. */
	nlh = nl_msg(&nl, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, NLM_F_DUMP);
	err = nl_talk(&nl, nlh, count_cb, &n);
	CHECK(!err, "dump: %s", strerror(-err));
	CHECK(n >= 1, "dump: %d families", n);

	err = nl_family(&nl, "no_such_fam", NULL, &f);
	CHECK(err == -ENOENT, "unknown family: %d, not -ENOENT", err);

	/* CTRL_ATTR_FAMILY_ID is a u16: one byte fails the policy. */
	nlh = nl_msg(&nl, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, NLM_F_ACK);
	mnl_attr_put_u8(nlh, CTRL_ATTR_FAMILY_ID, 1);
	err = nl_talk(&nl, nlh, NULL, NULL);
	CHECK(err < 0, "a bad attribute was accepted");
	CHECK(nl.ext_msg[0], "no extack message (error %d)", err);
	printf("nl_test: %d families; rejected with %d \"%s\"\n", n, err,
	       nl.ext_msg);

	/* The socket is still in step: a second request works. */
	err = nl_family(&nl, "nlctrl", NULL, &f);
	CHECK(!err && f.id == GENL_ID_CTRL, "nlctrl again: %d", err);

	nl_close(&nl);
	if (failures)
		return 1;
	printf("nl_test: ok\n");
	return 0;
}
