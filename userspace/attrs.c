// SPDX-License-Identifier: GPL-2.0
/*
 * attrs.c - the attribute sets of the ipoib_ng family (uapi
 * <linux/ipoib_ng.h>), each described by a table of fields: how the
 * attribute is carried (validated before it is read), how it is shown,
 * and its JSON key, the attribute's name in the YNL spec's spelling
 * (IPOIB_NG_A_IF_PKEY_INDEX: "pkey-index"). An entry is printed in its
 * table's order; attributes this tool does not know are ignored, as are
 * those that fail validation.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <inttypes.h>
#include <string.h>
#include <linux/genetlink.h>
#include <linux/ipoib_ng.h>
#include "ipoibctl.h"

/* How an attribute is carried; the numbers first (up to T_U64). */
enum ftype {
	T_U8,
	T_U16,
	T_U32,
	T_S32,
	T_U64,		/* 8 bytes, or 4 (a kernel's variable "uint") */
	T_STR,		/* NUL-terminated */
	T_GID,		/* 16 bytes */
	T_MAC,		/* 6 bytes */
	T_NEST,
};

/* How it is shown. */
enum ffmt {
	FMT_DEC,	/* decimal (signed for T_S32) */
	FMT_HEX,	/* 0x%x: Q_Keys */
	FMT_HEX4,	/* 0x%04x: P_Keys, LIDs */
	FMT_HEX6,	/* 0x%06x: QPNs */
	FMT_MS,		/* milliseconds: "1234ms" */
	FMT_STR,
	FMT_GID,
	FMT_MAC,
	FMT_ENUM,	/* a name of ->names */
	FMT_WORDS,	/* the same, "-" shown as " " in plain text */
	FMT_BITS,	/* names of ->names joined by "+" */
	FMT_UPDOWN,	/* "up" or "down" in plain text */
	FMT_IFINDEX,	/* the interface's name in plain text */
	FMT_GROUP,	/* a nest of IPOIB_NG_A_GROUP_* */
	FMT_STATS,	/* a nest of IPOIB_NG_A_STAT, shown with -s only */
	FMT_HEAD,	/* not in the fields: the entry's head (its ifname) */
};

/* Field flags; "plain" is the text output, without -j. */
#define F_NOPLAIN	0x1	/* JSON only: plain shows it otherwise */
#define F_LINE		0x2	/* plain: starts an indented line */
#define F_NONZERO	0x4	/* plain: not shown when 0 */

struct field {
	uint16_t attr;
	uint8_t type;		/* enum ftype */
	uint8_t fmt;		/* enum ffmt */
	uint8_t flags;
	const char *key;	/* JSON key */
	const char *label;	/* plain: the word before the value; NULL */
	const struct name *names;	/* FMT_ENUM, FMT_WORDS, FMT_BITS */
};

/* An attribute set: a message (or nest) of one kind. */
struct obj {
	uint8_t cmd;		/* its GET (or notification) command */
	uint16_t max;		/* its highest attribute known here */
	uint16_t ifindex_attr;
	uint16_t ifname_attr;	/* 0: none, named after the ifindex */
	bool colon;		/* plain text: "ib0:" heads a block */
	const struct field *fields;
	unsigned int nfields;
};

/* The largest attribute set: a table of pointers indexed by type. */
#define ATTR_TB_SIZE 32
static_assert(IPOIB_NG_A_IF_MAX < ATTR_TB_SIZE, "tb too small");
static_assert(IPOIB_NG_A_PATH_MAX < ATTR_TB_SIZE, "tb too small");
static_assert(IPOIB_NG_A_GROUP_MAX < ATTR_TB_SIZE, "tb too small");
static_assert(IPOIB_NG_A_CONN_MAX < ATTR_TB_SIZE, "tb too small");
static_assert(IPOIB_NG_A_EV_MAX < ATTR_TB_SIZE, "tb too small");

bool show_stats;

static const struct name mode_names[] = {
	{ IPOIB_NG_MODE_DATAGRAM, "datagram" },
	{ IPOIB_NG_MODE_CONNECTED, "connected" },
	{ 0, NULL }
};

static const struct name why_names[] = {
	{ IPOIB_NG_LINK_UP, "up" },
	{ IPOIB_NG_LINK_ADMIN_DOWN, "admin-down" },
	{ IPOIB_NG_LINK_PORT_DOWN, "port-down" },
	{ IPOIB_NG_LINK_NO_PKEY, "no-pkey" },
	{ IPOIB_NG_LINK_BCAST_JOINING, "bcast-joining" },
	{ IPOIB_NG_LINK_BCAST_FAILED, "bcast-failed" },
	{ IPOIB_NG_LINK_DATAPATH_FAILED, "datapath-failed" },
	{ 0, NULL }
};

static const struct name owner_names[] = {
	{ IPOIB_NG_OWNER_STACK, "stack" },
	{ IPOIB_NG_OWNER_SENDONLY, "sendonly" },
	{ IPOIB_NG_OWNER_ALLMULTI, "allmulti" },
	{ IPOIB_NG_OWNER_BROADCAST, "broadcast" },
	{ 0, NULL }
};

static const struct name join_names[] = {
	{ IPOIB_NG_JOIN_FULL, "full" },
	{ IPOIB_NG_JOIN_NON, "non" },
	{ IPOIB_NG_JOIN_SENDONLY, "sendonly" },
	{ 0, NULL }
};

static const struct name dir_names[] = {
	{ IPOIB_NG_CONN_TX, "tx" },
	{ IPOIB_NG_CONN_RX, "rx" },
	{ 0, NULL }
};

static const struct name event_names[] = {
	{ IPOIB_NG_EV_GROUP_JOINED, "group-joined" },
	{ IPOIB_NG_EV_GROUP_FAILED, "group-failed" },
	{ IPOIB_NG_EV_GROUP_LEFT, "group-left" },
	{ IPOIB_NG_EV_PATH_RESOLVED, "path-resolved" },
	{ IPOIB_NG_EV_PATH_FAILED, "path-failed" },
	{ IPOIB_NG_EV_CONN_UP, "conn-up" },
	{ IPOIB_NG_EV_CONN_DOWN, "conn-down" },
	{ IPOIB_NG_EV_LINK, "link" },
	{ 0, NULL }
};

/*
 * ipoibctl show: "ib0: ifindex 5 ..." and indented lines, in this order
 * (which is also the JSON's).
 */
static const struct field if_fields[] = {
	{ IPOIB_NG_A_IF_IFNAME, T_STR, FMT_HEAD, 0, "ifname", NULL, NULL },
	{ IPOIB_NG_A_IF_IFINDEX, T_U32, FMT_DEC, 0, "ifindex", "ifindex",
	  NULL },
	{ IPOIB_NG_A_IF_PARENT, T_U32, FMT_IFINDEX, 0, "parent", "parent",
	  NULL },
	{ IPOIB_NG_A_IF_IBDEV, T_STR, FMT_STR, 0, "ibdev", "ibdev", NULL },
	{ IPOIB_NG_A_IF_PORT, T_U32, FMT_DEC, 0, "port", "port", NULL },
	{ IPOIB_NG_A_IF_MTU, T_U32, FMT_DEC, 0, "mtu", "mtu", NULL },
	{ IPOIB_NG_A_IF_LINK_UP, T_U8, FMT_UPDOWN, 0, "link-up", "link",
	  NULL },
	{ IPOIB_NG_A_IF_LINK_WHY, T_U32, FMT_ENUM, F_NONZERO, "link-why",
	  "why", why_names },
	{ IPOIB_NG_A_IF_MODE, T_U8, FMT_ENUM, F_LINE, "mode", "mode",
	  mode_names },
	{ IPOIB_NG_A_IF_UMCAST, T_U8, FMT_DEC, 0, "umcast", "umcast", NULL },
	{ IPOIB_NG_A_IF_ROCE, T_U8, FMT_DEC, 0, "roce", "roce", NULL },
	{ IPOIB_NG_A_IF_PKEY, T_U16, FMT_HEX4, F_LINE, "pkey", "pkey", NULL },
	{ IPOIB_NG_A_IF_PKEY_INDEX, T_U16, FMT_DEC, 0, "pkey-index",
	  "pkey-index", NULL },
	{ IPOIB_NG_A_IF_QPN, T_U32, FMT_HEX6, 0, "qpn", "qpn", NULL },
	{ IPOIB_NG_A_IF_GID, T_GID, FMT_GID, F_LINE, "gid", "gid", NULL },
	{ IPOIB_NG_A_IF_PATHS, T_U32, FMT_DEC, F_LINE, "paths", "paths",
	  NULL },
	{ IPOIB_NG_A_IF_GROUPS, T_U32, FMT_DEC, 0, "groups", "groups", NULL },
	{ IPOIB_NG_A_IF_BCAST, T_NEST, FMT_GROUP, F_LINE, "bcast", "bcast",
	  NULL },
	{ IPOIB_NG_A_IF_STATS, T_NEST, FMT_STATS, 0, "stats", NULL, NULL },
};

/* ipoibctl paths: "ib0 fe80::2 state valid lid 0x0001 ...". */
static const struct field path_fields[] = {
	{ IPOIB_NG_A_PATH_IFINDEX, T_U32, FMT_DEC, F_NOPLAIN, "ifindex", NULL,
	  NULL },
	{ IPOIB_NG_A_PATH_GID, T_GID, FMT_GID, 0, "gid", NULL, NULL },
	{ IPOIB_NG_A_PATH_STATE, T_STR, FMT_STR, 0, "state", "state", NULL },
	{ IPOIB_NG_A_PATH_LID, T_U16, FMT_HEX4, 0, "lid", "lid", NULL },
	{ IPOIB_NG_A_PATH_SL, T_U8, FMT_DEC, 0, "sl", "sl", NULL },
	{ IPOIB_NG_A_PATH_RATE, T_U8, FMT_DEC, 0, "rate", "rate", NULL },
	{ IPOIB_NG_A_PATH_MTU, T_U32, FMT_DEC, 0, "mtu", "mtu", NULL },
	{ IPOIB_NG_A_PATH_DMAC, T_MAC, FMT_MAC, 0, "dmac", "dmac", NULL },
	{ IPOIB_NG_A_PATH_SGID, T_GID, FMT_GID, 0, "sgid", "sgid", NULL },
	{ IPOIB_NG_A_PATH_AGE, T_U64, FMT_MS, 0, "age", "age", NULL },
	{ IPOIB_NG_A_PATH_STATUS, T_S32, FMT_DEC, 0, "status", "status",
	  NULL },
	{ IPOIB_NG_A_PATH_ATTEMPTS, T_U32, FMT_DEC, 0, "attempts", "attempts",
	  NULL },
	{ IPOIB_NG_A_PATH_QUEUED, T_U32, FMT_DEC, 0, "queued", "queued",
	  NULL },
	{ IPOIB_NG_A_PATH_RETRY, T_U64, FMT_MS, 0, "retry", "retry", NULL },
};

/* ipoibctl groups, and show's bcast: "ff12:401b::1 state joined ...". */
static const struct field group_fields[] = {
	{ IPOIB_NG_A_GROUP_IFINDEX, T_U32, FMT_DEC, F_NOPLAIN, "ifindex",
	  NULL, NULL },
	{ IPOIB_NG_A_GROUP_MGID, T_GID, FMT_GID, 0, "mgid", NULL, NULL },
	{ IPOIB_NG_A_GROUP_STATE, T_STR, FMT_STR, 0, "state", "state", NULL },
	{ IPOIB_NG_A_GROUP_WANT, T_U8, FMT_BITS, 0, "want", "want",
	  join_names },
	{ IPOIB_NG_A_GROUP_JOINED, T_U8, FMT_BITS, 0, "joined", "joined",
	  join_names },
	{ IPOIB_NG_A_GROUP_PENDING, T_U8, FMT_BITS, 0, "pending", "pending",
	  join_names },
	{ IPOIB_NG_A_GROUP_OWNER, T_U32, FMT_BITS, 0, "owner", "owner",
	  owner_names },
	{ IPOIB_NG_A_GROUP_QKEY, T_U32, FMT_HEX, 0, "qkey", "qkey", NULL },
	{ IPOIB_NG_A_GROUP_MTU, T_U32, FMT_DEC, 0, "mtu", "mtu", NULL },
	{ IPOIB_NG_A_GROUP_SL, T_U8, FMT_DEC, 0, "sl", "sl", NULL },
	{ IPOIB_NG_A_GROUP_RATE, T_U8, FMT_DEC, 0, "rate", "rate", NULL },
	{ IPOIB_NG_A_GROUP_SCOPE, T_U8, FMT_DEC, 0, "scope", "scope", NULL },
	{ IPOIB_NG_A_GROUP_MLID, T_U16, FMT_HEX4, 0, "mlid", "mlid", NULL },
	{ IPOIB_NG_A_GROUP_STATUS, T_S32, FMT_DEC, 0, "status", "status",
	  NULL },
	{ IPOIB_NG_A_GROUP_ATTEMPTS, T_U32, FMT_DEC, 0, "attempts",
	  "attempts", NULL },
	{ IPOIB_NG_A_GROUP_QUEUED, T_U32, FMT_DEC, 0, "queued", "queued",
	  NULL },
	{ IPOIB_NG_A_GROUP_RETRY, T_U64, FMT_MS, 0, "retry", "retry", NULL },
};

/* ipoibctl conns: "ib0 fe80::2 qpn 0x000011 dir tx state connected ...". */
static const struct field conn_fields[] = {
	{ IPOIB_NG_A_CONN_IFINDEX, T_U32, FMT_DEC, F_NOPLAIN, "ifindex", NULL,
	  NULL },
	{ IPOIB_NG_A_CONN_GID, T_GID, FMT_GID, 0, "gid", NULL, NULL },
	{ IPOIB_NG_A_CONN_QPN, T_U32, FMT_HEX6, 0, "qpn", "qpn", NULL },
	{ IPOIB_NG_A_CONN_DIR, T_U8, FMT_ENUM, 0, "dir", "dir", dir_names },
	{ IPOIB_NG_A_CONN_STATE, T_STR, FMT_STR, 0, "state", "state", NULL },
	{ IPOIB_NG_A_CONN_SINCE, T_U64, FMT_MS, 0, "since", "since", NULL },
	{ IPOIB_NG_A_CONN_FRAMES, T_U64, FMT_DEC, 0, "frames", "frames",
	  NULL },
	{ IPOIB_NG_A_CONN_QUEUED, T_U32, FMT_DEC, 0, "queued", "queued",
	  NULL },
	{ IPOIB_NG_A_CONN_IDLE, T_U64, FMT_MS, 0, "idle", "idle", NULL },
	{ IPOIB_NG_A_CONN_STATUS, T_S32, FMT_DEC, 0, "status", "status",
	  NULL },
};

/*
 * ipoibctl monitor: "ib0 group joined ff12:401b::1 join full",
 * "ib0 conn up fe80::2 qpn 0x000011 tx", "ib0 link down why port-down".
 */
static const struct field event_fields[] = {
	{ IPOIB_NG_A_EV_IFNAME, T_STR, FMT_HEAD, 0, "ifname", NULL, NULL },
	{ IPOIB_NG_A_EV_TYPE, T_U32, FMT_WORDS, 0, "type", NULL, event_names },
	{ IPOIB_NG_A_EV_IFINDEX, T_U32, FMT_DEC, F_NOPLAIN, "ifindex", NULL,
	  NULL },
	{ IPOIB_NG_A_EV_LINK_UP, T_U8, FMT_UPDOWN, 0, "link-up", NULL, NULL },
	{ IPOIB_NG_A_EV_LINK_WHY, T_U32, FMT_ENUM, F_NONZERO, "link-why",
	  "why", why_names },
	{ IPOIB_NG_A_EV_GID, T_GID, FMT_GID, 0, "gid", NULL, NULL },
	{ IPOIB_NG_A_EV_MGID, T_GID, FMT_GID, 0, "mgid", NULL, NULL },
	{ IPOIB_NG_A_EV_QPN, T_U32, FMT_HEX6, 0, "qpn", "qpn", NULL },
	{ IPOIB_NG_A_EV_DIR, T_U8, FMT_ENUM, 0, "dir", NULL, dir_names },
	{ IPOIB_NG_A_EV_JOIN, T_U8, FMT_BITS, 0, "join", "join", join_names },
	{ IPOIB_NG_A_EV_STATUS, T_S32, FMT_DEC, 0, "status", "status", NULL },
};

#define OBJ_FIELDS(f) .fields = (f), .nfields = ARRAY_SIZE(f)

const struct obj obj_if = {
	.cmd = IPOIB_NG_CMD_IF_GET,
	.max = IPOIB_NG_A_IF_MAX, .ifindex_attr = IPOIB_NG_A_IF_IFINDEX,
	.ifname_attr = IPOIB_NG_A_IF_IFNAME, .colon = true,
	OBJ_FIELDS(if_fields),
};

const struct obj obj_path = {
	.cmd = IPOIB_NG_CMD_PATH_GET,
	.max = IPOIB_NG_A_PATH_MAX, .ifindex_attr = IPOIB_NG_A_PATH_IFINDEX,
	OBJ_FIELDS(path_fields),
};

const struct obj obj_group = {
	.cmd = IPOIB_NG_CMD_GROUP_GET,
	.max = IPOIB_NG_A_GROUP_MAX, .ifindex_attr = IPOIB_NG_A_GROUP_IFINDEX,
	OBJ_FIELDS(group_fields),
};

const struct obj obj_conn = {
	.cmd = IPOIB_NG_CMD_CONN_GET,
	.max = IPOIB_NG_A_CONN_MAX, .ifindex_attr = IPOIB_NG_A_CONN_IFINDEX,
	OBJ_FIELDS(conn_fields),
};

const struct obj obj_event = {
	.cmd = IPOIB_NG_CMD_EVENT,
	.max = IPOIB_NG_A_EV_MAX, .ifindex_attr = IPOIB_NG_A_EV_IFINDEX,
	.ifname_attr = IPOIB_NG_A_EV_IFNAME,
	OBJ_FIELDS(event_fields),
};

uint8_t obj_cmd(const struct obj *o)
{
	return o->cmd;
}

uint16_t obj_ifindex_attr(const struct obj *o)
{
	return o->ifindex_attr;
}

static const struct field *obj_field(const struct obj *o, uint16_t attr)
{
	unsigned int i;

	for (i = 0; i < o->nfields; i++)
		if (o->fields[i].attr == attr)
			return &o->fields[i];
	return NULL;
}

/*
 * A u64 of 8 bytes (nla_put_u64_64bit), or of 4 (the kernel's variable
 * width "uint", nla_put_uint, for a value that fits).
 */
static bool u64_valid(const struct nlattr *a)
{
	return !mnl_attr_validate(a, MNL_TYPE_U64) ||
	       !mnl_attr_validate(a, MNL_TYPE_U32);
}

static uint64_t u64_get(const struct nlattr *a)
{
	if (mnl_attr_get_payload_len(a) == sizeof(uint64_t))
		return mnl_attr_get_u64(a);
	return mnl_attr_get_u32(a);
}

/* Whether the attribute has the size and form its field says. */
static bool attr_valid(const struct field *f, const struct nlattr *a)
{
	switch (f->type) {
	case T_U8:
		return mnl_attr_validate(a, MNL_TYPE_U8) == 0;
	case T_U16:
		return mnl_attr_validate(a, MNL_TYPE_U16) == 0;
	case T_U32:
	case T_S32:
		return mnl_attr_validate(a, MNL_TYPE_U32) == 0;
	case T_U64:
		return u64_valid(a);
	case T_STR:
		return mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0;
	case T_GID:
		return mnl_attr_validate2(a, MNL_TYPE_BINARY, 16) == 0;
	case T_MAC:
		return mnl_attr_validate2(a, MNL_TYPE_BINARY, 6) == 0;
	case T_NEST:
		return mnl_attr_validate(a, MNL_TYPE_NESTED) == 0;
	}
	return false;
}

/* mnl_attr_parse()'s state: the set, and where its attributes go. */
struct parse {
	const struct obj *o;
	const struct nlattr **tb;
};

/* Keeps an attribute the set knows and that validates; skips the rest. */
static int parse_cb(const struct nlattr *a, void *data)
{
	struct parse *p = data;
	uint16_t type = mnl_attr_get_type(a);
	const struct field *f;

	if (type > p->o->max)
		return MNL_CB_OK;
	f = obj_field(p->o, type);
	if (f && attr_valid(f, a))
		p->tb[type] = a;
	return MNL_CB_OK;
}

/* The attributes of a message of o's set, by type, into tb. */
static void parse_msg(const struct obj *o, const struct nlmsghdr *nlh,
		      const struct nlattr **tb)
{
	struct parse p = { .o = o, .tb = tb };

	memset(tb, 0, ATTR_TB_SIZE * sizeof(*tb));
	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), parse_cb, &p);
}

/* The same, of a nest. */
static void parse_nest(const struct obj *o, const struct nlattr *nest,
		       const struct nlattr **tb)
{
	struct parse p = { .o = o, .tb = tb };

	memset(tb, 0, ATTR_TB_SIZE * sizeof(*tb));
	mnl_attr_parse_nested(nest, parse_cb, &p);
}

static bool field_is_num(const struct field *f)
{
	return f->type <= T_U64;
}

/* A number's value, whatever its size (validated: attr_valid()). */
static uint64_t attr_uint(const struct field *f, const struct nlattr *a)
{
	switch (f->type) {
	case T_U8:
		return mnl_attr_get_u8(a);
	case T_U16:
		return mnl_attr_get_u16(a);
	case T_U64:
		return u64_get(a);
	default:
		return mnl_attr_get_u32(a);
	}
}

static void print_fields(const struct obj *o, const struct nlattr **tb);

/* IPOIB_NG_A_IF_STATS: IPOIB_NG_A_STAT nests of a name and a value. */
static void print_stats(const struct nlattr *stats)
{
	const struct nlattr *stat, *a, *name, *value;

	out_stats_open();
	mnl_attr_for_each_nested(stat, stats) {
		if (mnl_attr_get_type(stat) != IPOIB_NG_A_STAT ||
		    mnl_attr_validate(stat, MNL_TYPE_NESTED) < 0)
			continue;
		name = value = NULL;
		mnl_attr_for_each_nested(a, stat) {
			uint16_t t = mnl_attr_get_type(a);

			if (t == IPOIB_NG_A_STAT_NAME &&
			    !mnl_attr_validate(a, MNL_TYPE_NUL_STRING))
				name = a;
			else if (t == IPOIB_NG_A_STAT_VALUE && u64_valid(a))
				value = a;
		}
		if (!name || !value)
			continue;
		out_stat(mnl_attr_get_str(name), u64_get(value));
	}
	out_stats_close();
}

/* A nest of group attributes (IPOIB_NG_A_IF_BCAST). */
static void print_group_nest(const struct field *f, const struct nlattr *a)
{
	const struct nlattr *tb[ATTR_TB_SIZE];

	parse_nest(&obj_group, a, tb);
	out_nest_open(f->key, f->label);
	print_fields(&obj_group, tb);
	out_nest_close();
}

/* One attribute, as its field says. */
static void print_field(const struct field *f, const struct nlattr *a)
{
	uint64_t v = 0;

	if (field_is_num(f))
		v = attr_uint(f, a);

	switch (f->fmt) {
	case FMT_DEC:
		if (f->type == T_S32)
			out_int(f->key, f->label, (int32_t)v);
		else
			out_uint(f->key, f->label, NULL, v);
		break;
	case FMT_HEX:
		out_uint(f->key, f->label, "0x%" PRIx64, v);
		break;
	case FMT_HEX4:
		out_uint(f->key, f->label, "0x%04" PRIx64, v);
		break;
	case FMT_HEX6:
		out_uint(f->key, f->label, "0x%06" PRIx64, v);
		break;
	case FMT_MS:
		out_ms(f->key, f->label, v);
		break;
	case FMT_STR:
		out_str(f->key, f->label, mnl_attr_get_str(a));
		break;
	case FMT_GID:
		out_gid(f->key, f->label, mnl_attr_get_payload(a));
		break;
	case FMT_MAC:
		out_mac(f->key, f->label, mnl_attr_get_payload(a));
		break;
	case FMT_ENUM:
	case FMT_WORDS:
		out_enum(f->key, f->label, f->names, v, f->fmt == FMT_WORDS);
		break;
	case FMT_BITS:
		out_bits(f->key, f->label, f->names, v);
		break;
	case FMT_UPDOWN:
		out_updown(f->key, f->label, v);
		break;
	case FMT_IFINDEX:
		out_ifindex(f->key, f->label, v);
		break;
	case FMT_GROUP:
		print_group_nest(f, a);
		break;
	case FMT_STATS:
		print_stats(a);
		break;
	case FMT_HEAD:
		break;
	}
}

/* Whether a field present in the message is shown in this output. */
static bool field_shown(const struct field *f, const struct nlattr *a)
{
	if (f->fmt == FMT_HEAD)
		return false;
	if (f->fmt == FMT_STATS)
		return show_stats;
	if (out_is_json())
		return true;
	if (f->flags & F_NOPLAIN)
		return false;
	if ((f->flags & F_NONZERO) && field_is_num(f))
		return attr_uint(f, a) != 0;
	return true;
}

/* Every attribute present, in the table's order. */
static void print_fields(const struct obj *o, const struct nlattr **tb)
{
	bool newline = false;
	unsigned int i;

	for (i = 0; i < o->nfields; i++) {
		const struct field *f = &o->fields[i];
		const struct nlattr *a = tb[f->attr];

		if (f->flags & F_LINE)
			newline = true;
		if (!a || !field_shown(f, a))
			continue;
		if (newline)
			out_line();
		newline = false;
		print_field(f, a);
	}
}

/* The interface of a message, 0 if it names none. */
static uint32_t tb_ifindex(const struct obj *o, const struct nlattr **tb)
{
	const struct nlattr *a = tb[o->ifindex_attr];

	return a ? mnl_attr_get_u32(a) : 0;
}

uint32_t obj_ifindex(const struct obj *o, const struct nlmsghdr *nlh)
{
	const struct nlattr *tb[ATTR_TB_SIZE];

	parse_msg(o, nlh, tb);
	return tb_ifindex(o, tb);
}

/* One entry: its interface's name, then its fields. */
void obj_print(const struct obj *o, const struct nlmsghdr *nlh)
{
	const struct nlattr *tb[ATTR_TB_SIZE];
	char buf[IF_NAMESIZE];
	const char *ifname;

	parse_msg(o, nlh, tb);
	if (o->ifname_attr && tb[o->ifname_attr])
		ifname = mnl_attr_get_str(tb[o->ifname_attr]);
	else
		ifname = ifname_of(tb_ifindex(o, tb), buf);
	out_entry_open(ifname, o->colon);
	print_fields(o, tb);
	out_entry_close();
}
