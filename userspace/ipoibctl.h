/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipoibctl.h - what the files of ipoibctl share: the output (out.c), the
 * attribute sets of the ipoib_ng family (attrs.c) and the netlink
 * socket (nl.c). ipoibctl.c holds main() and the commands.
 */
#ifndef IPOIBCTL_H
#define IPOIBCTL_H

#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>
#include <libmnl/libmnl.h>

/* libmnl 1.0.5 defines it; Debian 12 has 1.0.4. */
#ifndef MNL_SOCKET_DUMP_SIZE
#define MNL_SOCKET_DUMP_SIZE 32768
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* out.c: one writer for the plain text and the JSON of an entry. */

/* A name for a value (an enum) or a bit (a set of flags). */
struct name {
	uint32_t val;
	const char *name;
};

void out_init(bool json, bool pretty);
bool out_is_json(void);
void out_list_begin(void);
void out_list_end(bool ok);
void out_entry_open(const char *ifname, bool colon);
void out_entry_close(void);
void out_line(void);
void out_nest_open(const char *key, const char *label);
void out_nest_close(void);
void out_str(const char *key, const char *label, const char *s);
void out_uint(const char *key, const char *label, const char *fmt,
	      uint64_t v);
void out_int(const char *key, const char *label, int64_t v);
void out_ms(const char *key, const char *label, uint64_t v);
void out_gid(const char *key, const char *label, const void *gid);
void out_mac(const char *key, const char *label, const uint8_t *mac);
void out_enum(const char *key, const char *label, const struct name *names,
	      uint32_t v, bool words);
void out_bits(const char *key, const char *label, const struct name *names,
	      uint32_t v);
void out_updown(const char *key, const char *label, uint32_t up);
void out_ifindex(const char *key, const char *label, uint32_t ifindex);
void out_stats_open(void);
void out_stat(const char *name, uint64_t v);
void out_stats_close(void);
const char *ifname_of(uint32_t ifindex, char buf[IF_NAMESIZE]);

/* attrs.c: the attribute sets, validated, printed by a table. */

struct obj;
extern const struct obj obj_if, obj_path, obj_group, obj_conn, obj_event;
extern bool show_stats;

void obj_print(const struct obj *o, const struct nlmsghdr *nlh);
uint32_t obj_ifindex(const struct obj *o, const struct nlmsghdr *nlh);
uint16_t obj_ifindex_attr(const struct obj *o);
uint8_t obj_cmd(const struct obj *o);

/* nl.c: a generic netlink socket. */

struct nl {
	struct mnl_socket *sk;
	unsigned int portid;
	unsigned int seq;
	char ext_msg[256];	/* the extack message of the last request */
	char *buf;		/* the receive buffer, MNL_SOCKET_DUMP_SIZE */
	_Alignas(8) char req[8192];	/* the request being built */
};

/* A generic netlink family, as CTRL_CMD_GETFAMILY tells it. */
struct nl_family {
	uint16_t id;
	uint32_t version;
	uint32_t group;		/* the id of the group asked; 0: none */
};

int nl_open(struct nl *nl);
void nl_close(struct nl *nl);
int nl_family(struct nl *nl, const char *name, const char *group,
	      struct nl_family *f);
struct nlmsghdr *nl_msg(struct nl *nl, uint16_t type, uint8_t cmd,
			uint8_t version, uint16_t flags);
int nl_talk(struct nl *nl, struct nlmsghdr *req, mnl_cb_t cb, void *data);
int nl_join(struct nl *nl, uint32_t group);
int nl_recv(struct nl *nl, mnl_cb_t cb, void *data);
bool nl_family_gone(const struct nlmsghdr *nlh, uint16_t id);

#endif /* IPOIBCTL_H */
