// SPDX-License-Identifier: GPL-2.0
/*
 * nl.c - the generic netlink socket of ipoibctl: the family's id, version
 * and multicast group (CTRL_CMD_GETFAMILY), a request and its replies up
 * to the ACK or the dump's NLMSG_DONE, with the kernel's errno and its
 * extack message (NETLINK_EXT_ACK), and the notifications of a group.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include "ipoibctl.h"

/* The receive buffer of a monitor: bursts of events (a fabric's SM). */
#define NL_MONITOR_RCVBUF (1 << 20)

int nl_open(struct nl *nl)
{
	int one = 1;

	memset(nl, 0, sizeof(*nl));
	nl->buf = malloc(MNL_SOCKET_DUMP_SIZE);
	if (!nl->buf)
		return -ENOMEM;
	nl->sk = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->sk)
		return -errno;
	/* Best effort: without them, errors come without a message. */
	mnl_socket_setsockopt(nl->sk, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sk, NETLINK_CAP_ACK, &one, sizeof(one));
	if (mnl_socket_bind(nl->sk, 0, MNL_SOCKET_AUTOPID) < 0)
		return -errno;
	nl->portid = mnl_socket_get_portid(nl->sk);
	nl->seq = time(NULL);
	return 0;
}

void nl_close(struct nl *nl)
{
	if (nl->sk)
		mnl_socket_close(nl->sk);
	free(nl->buf);
	nl->sk = NULL;
	nl->buf = NULL;
}

/* A generic netlink request in nl->req, to which attributes are added. */
struct nlmsghdr *nl_msg(struct nl *nl, uint16_t type, uint8_t cmd,
			uint8_t version, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nl->req);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = version;
	return nlh;
}

/* A request in flight: where its replies go, and how it ended. */
struct talk {
	struct nl *nl;
	uint16_t type;	/* the request's family: its replies' type */
	mnl_cb_t cb;
	void *data;
	int err;	/* the kernel's negative errno, or 0 */
};

/*
 * A reply: to the caller's callback if it has a generic netlink header.
 * Anything else (a notification of a group the socket joined: sequence
 * 0 passes libmnl's check) is not a reply.
 */
static int talk_data_cb(const struct nlmsghdr *nlh, void *data)
{
	struct talk *t = data;

	if (nlh->nlmsg_type != t->type || !nlh->nlmsg_seq ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(struct genlmsghdr))
		return MNL_CB_OK;
	return t->cb ? t->cb(nlh, t->data) : MNL_CB_OK;
}

/*
 * The extack attributes after the payload (off bytes) of an error or a
 * NLMSG_DONE: keeps the message, without a trailing newline.
 */
static void talk_extack(struct talk *t, const struct nlmsghdr *nlh,
			size_t off)
{
	char *msg = t->nl->ext_msg;
	const struct nlattr *a;
	size_t len;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) ||
	    mnl_nlmsg_size(MNL_ALIGN(off)) > nlh->nlmsg_len)
		return;
	mnl_attr_for_each(a, nlh, off) {
		if (mnl_attr_get_type(a) != NLMSGERR_ATTR_MSG ||
		    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
			continue;
		snprintf(msg, sizeof(t->nl->ext_msg), "%s",
			 mnl_attr_get_str(a));
		len = strlen(msg);
		while (len && msg[len - 1] == '\n')
			msg[--len] = '\0';
	}
}

/*
 * NLMSG_ERROR: the ACK (error 0) or the failure of the request. Unless
 * the kernel capped it (NETLINK_CAP_ACK), the request is echoed first.
 */
static int talk_error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	struct talk *t = data;
	size_t off = sizeof(*e);

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*e)) {
		t->err = -EBADMSG;
		return MNL_CB_STOP;
	}
	t->err = e->error > 0 ? -e->error : e->error;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		if (e->msg.nlmsg_len < sizeof(struct nlmsghdr))
			return MNL_CB_STOP;
		off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
	}
	talk_extack(t, nlh, off);
	return MNL_CB_STOP;
}

/* NLMSG_DONE: the dump's end, with its error if it failed. */
static int talk_done_cb(const struct nlmsghdr *nlh, void *data)
{
	struct talk *t = data;
	int err;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(err))
		return MNL_CB_STOP;
	memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
	if (err < 0)
		t->err = err;
	talk_extack(t, nlh, sizeof(err));
	return MNL_CB_STOP;
}

/*
 * Sends req and passes each reply to cb, up to the ACK (set NLM_F_ACK
 * on a "do") or the dump's NLMSG_DONE. Returns 0, the kernel's negative
 * errno (its message in nl->ext_msg), or -EINTR: the dump was
 * interrupted by a change of the tables (NLM_F_DUMP_INTR).
 */
int nl_talk(struct nl *nl, struct nlmsghdr *req, mnl_cb_t cb, void *data)
{
	mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
		[NLMSG_ERROR] = talk_error_cb,
		[NLMSG_DONE] = talk_done_cb,
	};
	struct talk t = {
		.nl = nl, .type = req->nlmsg_type, .cb = cb, .data = data,
	};
	ssize_t n;
	int ret;

	nl->ext_msg[0] = '\0';
	if (++nl->seq == 0)	/* 0 is a notification's */
		nl->seq++;
	req->nlmsg_seq = nl->seq;
	if (mnl_socket_sendto(nl->sk, req, req->nlmsg_len) < 0)
		return -errno;
	do {
		n = mnl_socket_recvfrom(nl->sk, nl->buf, MNL_SOCKET_DUMP_SIZE);
		if (n < 0)
			return -errno;
		ret = mnl_cb_run2(nl->buf, n, req->nlmsg_seq, nl->portid,
				  talk_data_cb, &t, ctl, ARRAY_SIZE(ctl));
		if (ret == MNL_CB_ERROR)
			return -errno;
	} while (ret > MNL_CB_STOP);
	return t.err;
}

/* A CTRL_CMD_GETFAMILY request: what it looks for, what it found. */
struct family {
	const char *group;	/* the multicast group wanted, or NULL */
	struct nl_family *f;
};

/* One CTRL_ATTR_MCAST_GROUPS entry: the wanted group's id. */
static void family_group(struct family *fam, const struct nlattr *g)
{
	const struct nlattr *a, *name = NULL, *id = NULL;

	if (mnl_attr_validate(g, MNL_TYPE_NESTED) < 0)
		return;
	mnl_attr_for_each_nested(a, g) {
		uint16_t type = mnl_attr_get_type(a);

		if (type == CTRL_ATTR_MCAST_GRP_NAME &&
		    !mnl_attr_validate(a, MNL_TYPE_NUL_STRING))
			name = a;
		else if (type == CTRL_ATTR_MCAST_GRP_ID &&
			 !mnl_attr_validate(a, MNL_TYPE_U32))
			id = a;
	}
	if (name && id && fam->group &&
	    !strcmp(mnl_attr_get_str(name), fam->group))
		fam->f->group = mnl_attr_get_u32(id);
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	struct family *fam = data;
	const struct nlattr *a, *g;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case CTRL_ATTR_FAMILY_ID:
			if (!mnl_attr_validate(a, MNL_TYPE_U16))
				fam->f->id = mnl_attr_get_u16(a);
			break;
		case CTRL_ATTR_VERSION:
			if (!mnl_attr_validate(a, MNL_TYPE_U32))
				fam->f->version = mnl_attr_get_u32(a);
			break;
		case CTRL_ATTR_MCAST_GROUPS:
			if (mnl_attr_validate(a, MNL_TYPE_NESTED) < 0)
				break;
			mnl_attr_for_each_nested(g, a)
				family_group(fam, g);
			break;
		}
	}
	return MNL_CB_OK;
}

/*
 * Resolves a family by its name: its id, its version and the id of its
 * multicast group named group (NULL: none wanted). -ENOENT: no such
 * family (its module is not loaded).
 */
int nl_family(struct nl *nl, const char *name, const char *group,
	      struct nl_family *f)
{
	struct family fam = { .group = group, .f = f };
	struct nlmsghdr *nlh;
	int err;

	memset(f, 0, sizeof(*f));
	nlh = nl_msg(nl, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, NLM_F_ACK);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);
	err = nl_talk(nl, nlh, family_cb, &fam);
	if (err)
		return err;
	return f->id ? 0 : -ENOENT;
}

/*
 * Whether nlh is nlctrl's notification that the family id is gone (its
 * module was unloaded): CTRL_CMD_DELFAMILY on the "notify" group.
 */
bool nl_family_gone(const struct nlmsghdr *nlh, uint16_t id)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;

	if (nlh->nlmsg_type != GENL_ID_CTRL ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*g) ||
	    g->cmd != CTRL_CMD_DELFAMILY)
		return false;
	mnl_attr_for_each(a, nlh, sizeof(*g)) {
		if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID &&
		    !mnl_attr_validate(a, MNL_TYPE_U16))
			return mnl_attr_get_u16(a) == id;
	}
	return false;
}

/* Joins a multicast group, with a receive buffer for its bursts. */
int nl_join(struct nl *nl, uint32_t group)
{
	int size = NL_MONITOR_RCVBUF;

	setsockopt(mnl_socket_get_fd(nl->sk), SOL_SOCKET, SO_RCVBUF, &size,
		   sizeof(size));
	if (mnl_socket_setsockopt(nl->sk, NETLINK_ADD_MEMBERSHIP, &group,
				  sizeof(group)) < 0)
		return -errno;
	return 0;
}

/*
 * Waits for the next datagram of notifications and passes each message
 * to cb. -ENOBUFS: the socket overflowed, notifications were lost.
 */
int nl_recv(struct nl *nl, mnl_cb_t cb, void *data)
{
	ssize_t n;

	n = mnl_socket_recvfrom(nl->sk, nl->buf, MNL_SOCKET_DUMP_SIZE);
	if (n < 0)
		return -errno;
	if (mnl_cb_run(nl->buf, n, 0, 0, cb, data) == MNL_CB_ERROR)
		return -errno;
	return 0;
}
