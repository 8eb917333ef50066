// SPDX-License-Identifier: GPL-2.0
/*
 * out.c - the output of ipoibctl: every value goes through one call that
 * writes it either as plain text (" label value", like ip(8)) or as a
 * JSON member ("key": value). The plain text of an entry is one line,
 * or, for show, a first line and indented ones (out_line()).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "ipoibctl.h"
#include "json.h"

static struct json js;
static bool json_mode;
static bool list_mode;		/* entries go into a JSON array */
static bool list_opened;	/* its '[' is written */

/* ifname_of()'s cache, for the length of a dump (names can change). */
static uint32_t cached_ifindex;
static char cached_ifname[IF_NAMESIZE];

void out_init(bool json, bool pretty)
{
	json_mode = json;
	json_init(&js, stdout, pretty);
}

bool out_is_json(void)
{
	return json_mode;
}

/* The entries of a dump follow: JSON puts them in an array. */
void out_list_begin(void)
{
	list_mode = true;
	list_opened = false;
}

/* The dump is over: close the array; a failed empty one writes nothing. */
void out_list_end(bool ok)
{
	if (json_mode && list_mode) {
		if (!list_opened && ok)
			json_arr_open(&js);
		if (list_opened || ok)
			json_arr_close(&js);
	}
	list_mode = false;
	cached_ifindex = 0;
}

/* An interface's name, or "if<index>" when it has none here. */
const char *ifname_of(uint32_t ifindex, char buf[IF_NAMESIZE])
{
	if (list_mode && ifindex && ifindex == cached_ifindex) {
		memcpy(buf, cached_ifname, IF_NAMESIZE);
		return buf;
	}
	if (!ifindex || !if_indextoname(ifindex, buf)) {
		snprintf(buf, IF_NAMESIZE, "if%" PRIu32, ifindex);
		return buf;
	}
	if (list_mode) {
		cached_ifindex = ifindex;
		memcpy(cached_ifname, buf, IF_NAMESIZE);
	}
	return buf;
}

/* An entry: its interface first ("ib0" or "ib0:"; "ifname" in JSON). */
void out_entry_open(const char *ifname, bool colon)
{
	if (!json_mode) {
		printf("%s%s", ifname, colon ? ":" : "");
		return;
	}
	if (list_mode && !list_opened) {
		json_arr_open(&js);
		list_opened = true;
	}
	json_obj_open(&js);
	json_key(&js, "ifname");
	json_str(&js, ifname);
}

void out_entry_close(void)
{
	if (json_mode)
		json_obj_close(&js);
	else
		putchar('\n');
}

/* Plain text: the entry goes on in an indented line. */
void out_line(void)
{
	if (!json_mode)
		fputs("\n   ", stdout);
}

/* Plain text: " label " before a value, or " " without a label. */
static void plain_label(const char *label)
{
	if (label)
		printf(" %s ", label);
	else
		putchar(' ');
}

/* A nested object ("key": {...}); plain text shows its label only. */
void out_nest_open(const char *key, const char *label)
{
	if (json_mode) {
		json_key(&js, key);
		json_obj_open(&js);
	} else {
		printf(" %s", label);
	}
}

void out_nest_close(void)
{
	if (json_mode)
		json_obj_close(&js);
}

void out_str(const char *key, const char *label, const char *s)
{
	if (json_mode) {
		json_key(&js, key);
		json_str(&js, s);
	} else {
		plain_label(label);
		fputs(s, stdout);
	}
}

/* fmt: the plain text's printf format of a uint64_t (decimal if NULL). */
void out_uint(const char *key, const char *label, const char *fmt,
	      uint64_t v)
{
	if (json_mode) {
		json_key(&js, key);
		json_u64(&js, v);
	} else {
		plain_label(label);
		printf(fmt ? fmt : "%" PRIu64, v);
	}
}

void out_int(const char *key, const char *label, int64_t v)
{
	if (json_mode) {
		json_key(&js, key);
		json_s64(&js, v);
	} else {
		plain_label(label);
		printf("%" PRId64, v);
	}
}

/* Milliseconds: a number in JSON, "1234ms" in plain text. */
void out_ms(const char *key, const char *label, uint64_t v)
{
	out_uint(key, label, "%" PRIu64 "ms", v);
}

/* A GID (16 bytes, network order) in IPv6 notation. */
void out_gid(const char *key, const char *label, const void *gid)
{
	char s[INET6_ADDRSTRLEN];

	if (!inet_ntop(AF_INET6, gid, s, sizeof(s)))
		strcpy(s, "?");
	out_str(key, label, s);
}

void out_mac(const char *key, const char *label, const uint8_t *mac)
{
	char s[18];

	snprintf(s, sizeof(s), "%02x:%02x:%02x:%02x:%02x:%02x",
		 mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
	out_str(key, label, s);
}

static const char *name_of(const struct name *names, uint32_t v)
{
	for (; names->name; names++)
		if (names->val == v)
			return names->name;
	return NULL;
}

/*
 * An enum's value by its name, or its number when this tool does not
 * know it (a newer module). words: plain text writes "group-joined" as
 * "group joined".
 */
void out_enum(const char *key, const char *label, const struct name *names,
	      uint32_t v, bool words)
{
	const char *name = name_of(names, v);
	const char *c;

	if (!name) {
		out_uint(key, label, NULL, v);
		return;
	}
	if (json_mode) {
		out_str(key, label, name);
		return;
	}
	plain_label(label);
	for (c = name; *c; c++)
		putchar(words && *c == '-' ? ' ' : *c);
}

/*
 * A set of bits by their names: "full+sendonly" ("-": none) in plain
 * text, ["full", "sendonly"] in JSON. Unknown bits as one "0x..".
 */
void out_bits(const char *key, const char *label, const struct name *names,
	      uint32_t v)
{
	const struct name *n;
	uint32_t left = v;
	char hex[16];
	bool first = true;

	if (json_mode) {
		json_key(&js, key);
		json_arr_open(&js);
	} else {
		plain_label(label);
	}
	for (n = names; n->name; n++) {
		if (!(v & n->val))
			continue;
		left &= ~n->val;
		if (json_mode)
			json_str(&js, n->name);
		else
			printf("%s%s", first ? "" : "+", n->name);
		first = false;
	}
	if (left) {
		snprintf(hex, sizeof(hex), "0x%" PRIx32, left);
		if (json_mode)
			json_str(&js, hex);
		else
			printf("%s%s", first ? "" : "+", hex);
		first = false;
	}
	if (json_mode)
		json_arr_close(&js);
	else if (first)
		putchar('-');
}

/* A carrier: the number in JSON, "up" or "down" in plain text. */
void out_updown(const char *key, const char *label, uint32_t up)
{
	if (json_mode)
		out_uint(key, label, NULL, up);
	else
		out_str(key, label, up ? "up" : "down");
}

/* An ifindex: the number in JSON, the name in plain text when it has one. */
void out_ifindex(const char *key, const char *label, uint32_t ifindex)
{
	char name[IF_NAMESIZE];

	if (json_mode || !if_indextoname(ifindex, name))
		out_uint(key, label, NULL, ifindex);
	else
		out_str(key, label, name);
}

/* The counters: "stats": {name: value} in JSON, a line each in plain. */
void out_stats_open(void)
{
	if (json_mode) {
		json_key(&js, "stats");
		json_obj_open(&js);
	} else {
		fputs("\n    stats:", stdout);
	}
}

void out_stat(const char *name, uint64_t v)
{
	if (json_mode) {
		json_key(&js, name);
		json_u64(&js, v);
	} else {
		printf("\n        %s %" PRIu64, name, v);
	}
}

void out_stats_close(void)
{
	if (json_mode)
		json_obj_close(&js);
}
