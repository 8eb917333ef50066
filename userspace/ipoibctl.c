// SPDX-License-Identifier: GPL-2.0
/*
 * ipoibctl.c - the command line of ipoib_ng's generic netlink family
 * (uapi <linux/ipoib_ng.h>): its interfaces, paths, multicast groups and
 * connections, flushing the paths, and its events as they come. The
 * manual is Documentation/ipoibctl.8.
 *
 * Exit status: 0 done, 1 failed (a message on stderr), 2 bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/ipoib_ng.h>
#include "ipoibctl.h"

#ifndef IPOIBCTL_VERSION
#define IPOIBCTL_VERSION "unknown"
#endif

#define EXIT_USAGE 2

/*
 * The family and group asked for: ipoib_ng's. tests/userspace builds a
 * copy with nlctrl's "notify", which every kernel has, to run monitor
 * without the module.
 */
#ifndef IPOIBCTL_FAMILY
#define IPOIBCTL_FAMILY IPOIB_NG_GENL_NAME
#define IPOIBCTL_GROUP IPOIB_NG_MCGRP_EVENTS
#endif

static const char prog[] = "ipoibctl";

static void usage(FILE *f)
{
	fputs("Usage: ipoibctl [OPTIONS] COMMAND [ARGS]\n"
	      "\n"
	      "Commands:\n"
	      "  show [DEV]         the ipoib_ng interfaces (-s: and counters)\n"
	      "  paths [DEV]        the paths to peers\n"
	      "  groups [DEV]       the multicast groups\n"
	      "  conns [DEV]        the connections of connected mode\n"
	      "  flush paths DEV    forget every path of DEV (CAP_NET_ADMIN)\n"
	      "  monitor [DEV]      the events, as they come, until killed\n"
	      "  help               this text\n"
	      "\n"
	      "Options:\n"
	      "  -j, --json         JSON output (monitor: one object a line)\n"
	      "  -p, --pretty       indented JSON (implies -j)\n"
	      "  -s, --stats        show: the counters too\n"
	      "  -h, --help         this text\n"
	      "  -V, --version      the version\n", f);
}

static void __attribute__((format(printf, 1, 2))) err_msg(const char *fmt,
							   ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* A usage error: what is wrong, then the usage. */
static int bad_usage(const char *what, const char *arg)
{
	err_msg("%s%s", what, arg ? arg : "");
	usage(stderr);
	return EXIT_USAGE;
}

/*
 * A command: run() gets the words from the command's name on (argv[0]),
 * and returns the exit status.
 */
struct command {
	const char *name;
	const char *what;	/* in messages */
	const struct obj *obj;	/* the entries it dumps, or NULL */
	bool admin;		/* needs CAP_NET_ADMIN */
	int (*run)(const struct command *c, int argc, char **argv);
};

/*
 * A failed request: the kernel's extack message when it sent one, and
 * what the errno means here.
 */
static int report(const struct command *c, const struct nl *nl,
		  const char *dev, int err)
{
	const char *what = c->what;

	if (err == -EPERM && c->admin)
		err_msg("%s: %s (needs CAP_NET_ADMIN)", what, strerror(EPERM));
	else if (err == -EINTR)
		err_msg("%s: the dump was interrupted by a change, try again",
			what);
	else if (nl->ext_msg[0])
		err_msg("%s: %s (%s)", what, nl->ext_msg, strerror(-err));
	else if (dev && (err == -ENODEV || err == -EOPNOTSUPP))
		err_msg("%s: %s: not an ipoib_ng interface (%s)", what, dev,
			strerror(-err));
	else
		err_msg("%s: %s", what, strerror(-err));
	return EXIT_FAILURE;
}

/* A message the kernel sent with a success (an extack warning). */
static void report_warning(const struct nl *nl)
{
	if (nl->ext_msg[0])
		err_msg("warning: %s", nl->ext_msg);
}

/* The ifindex of a device name; 0 after a message if there is none. */
static uint32_t dev_ifindex(const char *dev)
{
	uint32_t ifindex = if_nametoindex(dev);

	if (!ifindex)
		err_msg("no such interface: %s", dev);
	return ifindex;
}

/*
 * Opens the socket and resolves the ipoib_ng family (and its "events"
 * group). Returns 0, or EXIT_FAILURE after a message.
 */
static int open_family(struct nl *nl, struct nl_family *f)
{
	int err = nl_open(nl);

	if (err) {
		err_msg("generic netlink socket: %s", strerror(-err));
		return EXIT_FAILURE;
	}
	err = nl_family(nl, IPOIBCTL_FAMILY, IPOIBCTL_GROUP, f);
	if (err == -ENOENT) {
		err_msg("the ipoib_ng module is not loaded (no generic netlink family \"%s\")",
			IPOIB_NG_GENL_NAME);
		return EXIT_FAILURE;
	}
	if (err) {
		err_msg("generic netlink family \"%s\": %s",
			IPOIB_NG_GENL_NAME, strerror(-err));
		return EXIT_FAILURE;
	}
	/* The contract: a new version is a change a client must know. */
	if (f->version > IPOIB_NG_GENL_VERSION)
		err_msg("warning: the module's family is version %u, this ipoibctl knows version %d",
			f->version, IPOIB_NG_GENL_VERSION);
	return 0;
}

static int dump_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct command *c = data;

	obj_print(c->obj, nlh);
	return MNL_CB_OK;
}

/*
 * show, paths, groups, conns [DEV]: a dump, filtered by the kernel to
 * DEV's entries when given (show DEV: a "do" of IF_GET).
 */
static int cmd_dump(const struct command *c, int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : NULL;
	struct nl_family f;
	struct nlmsghdr *nlh;
	uint32_t ifindex = 0;
	struct nl nl;
	int err, ret;

	if (argc > 2)
		return bad_usage("too many arguments: ", argv[2]);
	if (dev) {
		ifindex = dev_ifindex(dev);
		if (!ifindex)
			return EXIT_FAILURE;
	}
	ret = open_family(&nl, &f);
	if (ret)
		goto out;
	nlh = nl_msg(&nl, f.id, obj_cmd(c->obj), IPOIB_NG_GENL_VERSION,
		     c->obj == &obj_if && ifindex ? NLM_F_ACK : NLM_F_DUMP);
	if (ifindex)
		mnl_attr_put_u32(nlh, obj_ifindex_attr(c->obj), ifindex);
	out_list_begin();
	err = nl_talk(&nl, nlh, dump_cb, (void *)c);
	out_list_end(!err);
	fflush(stdout);
	if (err)
		ret = report(c, &nl, dev, err);
	else
		report_warning(&nl);
out:
	nl_close(&nl);
	return ret;
}

/* flush paths DEV */
static int cmd_flush(const struct command *c, int argc, char **argv)
{
	struct nl_family f;
	struct nlmsghdr *nlh;
	uint32_t ifindex;
	struct nl nl;
	int err, ret;

	if (argc < 2 || strcmp(argv[1], "paths"))
		return bad_usage("flush: only paths can be flushed (flush paths DEV)",
				 NULL);
	if (argc != 3)
		return bad_usage("flush paths: one interface expected", NULL);
	ifindex = dev_ifindex(argv[2]);
	if (!ifindex)
		return EXIT_FAILURE;
	ret = open_family(&nl, &f);
	if (ret)
		goto out;
	nlh = nl_msg(&nl, f.id, IPOIB_NG_CMD_PATH_FLUSH, IPOIB_NG_GENL_VERSION,
		     NLM_F_ACK);
	mnl_attr_put_u32(nlh, IPOIB_NG_A_PATH_IFINDEX, ifindex);
	err = nl_talk(&nl, nlh, NULL, NULL);
	if (err)
		ret = report(c, &nl, argv[2], err);
	else
		report_warning(&nl);
out:
	nl_close(&nl);
	return ret;
}

/* What the monitor listens for. */
struct monitor {
	uint16_t family;
	uint32_t ifindex;	/* only this interface's events; 0: all */
	bool gone;		/* the family was unregistered */
};

static int monitor_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	struct monitor *m = data;

	if (nl_family_gone(nlh, m->family)) {
		m->gone = true;
		return MNL_CB_STOP;
	}
	if (nlh->nlmsg_type != m->family ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*g) ||
	    g->cmd != IPOIB_NG_CMD_EVENT)
		return MNL_CB_OK;
	if (m->ifindex && obj_ifindex(&obj_event, nlh) != m->ifindex)
		return MNL_CB_OK;
	obj_print(&obj_event, nlh);
	fflush(stdout);
	return MNL_CB_OK;
}

/*
 * SIGINT, SIGTERM: the normal end of a monitor. Every line is flushed
 * as it is written, so nothing is pending: exit at once.
 */
static void monitor_signal(int sig)
{
	(void)sig;
	_exit(EXIT_SUCCESS);
}

static void monitor_signals(void)
{
	struct sigaction sa = { .sa_handler = monitor_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/*
 * Joins the family's events and nlctrl's notifications (to see the
 * family go when its module is unloaded). nlctrl is asked first: once
 * a group is joined, the socket is for notifications only.
 */
static int monitor_join(struct nl *nl, const struct nl_family *f)
{
	struct nl_family ctrl;
	int err;

	if (!f->group) {
		err_msg("monitor: the %s family has no \"%s\" group",
			IPOIB_NG_GENL_NAME, IPOIB_NG_MCGRP_EVENTS);
		return EXIT_FAILURE;
	}
	if (nl_family(nl, "nlctrl", "notify", &ctrl))
		ctrl.group = 0;
	err = nl_join(nl, f->group);
	if (!err && ctrl.group)
		err = nl_join(nl, ctrl.group);
	if (err) {
		err_msg("monitor: joining the events: %s", strerror(-err));
		return EXIT_FAILURE;
	}
	return 0;
}

/* monitor [DEV]: one line (or JSON object) per event, until killed. */
static int cmd_monitor(const struct command *c, int argc, char **argv)
{
	struct monitor m = { 0 };
	struct nl_family f;
	struct nl nl;
	int err, ret;

	(void)c;
	if (argc > 2)
		return bad_usage("too many arguments: ", argv[2]);
	if (argc == 2) {
		m.ifindex = dev_ifindex(argv[1]);
		if (!m.ifindex)
			return EXIT_FAILURE;
	}
	monitor_signals();
	ret = open_family(&nl, &f);
	if (!ret)
		ret = monitor_join(&nl, &f);
	if (ret)
		goto out;
	m.family = f.id;
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (!m.gone) {
		err = nl_recv(&nl, monitor_cb, &m);
		if (err == -ENOBUFS)
			err_msg("monitor: events were lost (receive buffer overrun)");
		else if (err && err != -EINTR)
			break;
	}
	if (m.gone)
		err_msg("monitor: the ipoib_ng module was unloaded");
	else
		err_msg("monitor: %s", strerror(-err));
	ret = EXIT_FAILURE;
out:
	nl_close(&nl);
	return ret;
}

static int cmd_help(const struct command *c, int argc, char **argv)
{
	(void)c;
	(void)argc;
	(void)argv;
	usage(stdout);
	return EXIT_SUCCESS;
}

static const struct command commands[] = {
	{ "show", "show", &obj_if, false, cmd_dump },
	{ "paths", "paths", &obj_path, false, cmd_dump },
	{ "groups", "groups", &obj_group, false, cmd_dump },
	{ "conns", "conns", &obj_conn, false, cmd_dump },
	{ "flush", "flush paths", NULL, true, cmd_flush },
	{ "monitor", "monitor", NULL, false, cmd_monitor },
	{ "help", "help", NULL, false, cmd_help },
};

static const struct option long_options[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "pretty", no_argument, NULL, 'p' },
	{ "stats", no_argument, NULL, 's' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

int main(int argc, char **argv)
{
	bool json = false, pretty = false;
	unsigned int i;
	int opt;

	opterr = 0;	/* our message, with our name */
	while ((opt = getopt_long(argc, argv, "jpshV", long_options,
				  NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'p':
			json = pretty = true;
			break;
		case 's':
			show_stats = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_SUCCESS;
		case 'V':
			printf("ipoibctl (ipoib-ng) %s, generic netlink family %s version %d\n",
			       IPOIBCTL_VERSION, IPOIB_NG_GENL_NAME,
			       IPOIB_NG_GENL_VERSION);
			return EXIT_SUCCESS;
		default:
			return bad_usage("unknown option: ", argv[optind - 1]);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		return bad_usage("no command", NULL);

	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		if (strcmp(argv[0], commands[i].name))
			continue;
		/* JSON lines: one object a line, never indented. */
		out_init(json, pretty && commands[i].run != cmd_monitor);
		return commands[i].run(&commands[i], argc, argv);
	}
	return bad_usage("unknown command: ", argv[0]);
}
