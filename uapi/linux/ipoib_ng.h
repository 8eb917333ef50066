/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * ipoib_ng: the generic netlink family "ipoib_ng", shared by the driver
 * (driver/genl.c) and its tools (userspace/ipoibctl, the kernel's YNL
 * client with Documentation/netlink/specs/ipoib_ng.yaml).
 *
 * What an administrator of a fabric needs to see, script and monitor:
 * the interfaces and why their link is up or down, the paths to peers
 * (what the SA, or on RoCE the neighbour table, answered), the multicast
 * groups and their memberships, the connections of connected mode, and
 * the events of all of these as they happen.
 *
 * Access: GET and dump commands are open to every user (nothing in them
 * is secret: the same is in ip link, ethtool -S and the fabric's SA);
 * commands that change state need CAP_NET_ADMIN (GENL_ADMIN_PERM: in the
 * initial user namespace, as for the driver's module parameters). The family is per network namespace: a dump lists
 * the interfaces of the caller's namespace, and events go to listeners
 * in the interface's namespace.
 *
 * Versioning: IPOIB_NG_GENL_VERSION is the family's version. Attributes
 * and commands are only ever added, at the end of their enum; a client
 * ignores the attributes it does not know. A new version number marks
 * a change a client must know about.
 *
 * Times are milliseconds. A "retry" attribute is the time left until the
 * entry's machine is next called (retry, timeout, revalidation), absent
 * when nothing is due. A "status" is 0 or a negative errno. Each set with
 * a u64 has a PAD attribute (the alignment of nla_put_u64_64bit), which
 * carries nothing.
 */
#ifndef _UAPI_LINUX_IPOIB_NG_H
#define _UAPI_LINUX_IPOIB_NG_H

#define IPOIB_NG_GENL_NAME	"ipoib_ng"
#define IPOIB_NG_GENL_VERSION	1
/* The multicast group of the notifications (IPOIB_NG_CMD_EVENT). */
#define IPOIB_NG_MCGRP_EVENTS	"events"

/* IPOIB_NG_A_IF_MODE */
enum ipoib_ng_mode {
	IPOIB_NG_MODE_DATAGRAM = 0,	/* RFC 4391 */
	IPOIB_NG_MODE_CONNECTED = 1,	/* RFC 4755 */
};

/*
 * IPOIB_NG_A_IF_LINK_WHY, IPOIB_NG_A_EV_LINK_WHY: why the carrier is
 * what it is; the first reason that holds, in the order noted.
 */
enum ipoib_ng_link_why {
	IPOIB_NG_LINK_UP = 0,		/* carrier on */
	IPOIB_NG_LINK_ADMIN_DOWN,	/* the interface is down (ip link): 1st */
	IPOIB_NG_LINK_PORT_DOWN,	/* the port is not ACTIVE: 3rd */
	IPOIB_NG_LINK_NO_PKEY,		/* our P_Key is not in the port's
					 * table: 4th */
	IPOIB_NG_LINK_BCAST_JOINING,	/* the broadcast group is being
					 * joined (RFC 4391 s5): 5th */
	IPOIB_NG_LINK_BCAST_FAILED,	/* its join failed, retrying: 5th */
	IPOIB_NG_LINK_DATAPATH_FAILED,	/* the QP failed, restarting: 2nd */
};

/* IPOIB_NG_A_GROUP_OWNER: who asked for a group (bits). */
enum ipoib_ng_group_owner {
	IPOIB_NG_OWNER_STACK = 1,	/* the IP stack (FullMember) */
	IPOIB_NG_OWNER_SENDONLY = 2,	/* a sender, not a member (s10) */
	IPOIB_NG_OWNER_ALLMULTI = 4,	/* the all-multicast mode (s11) */
	IPOIB_NG_OWNER_BROADCAST = 8,	/* the link's broadcast group */
};

/*
 * IPOIB_NG_A_GROUP_WANT, _JOINED, _PENDING: SA JoinState bits (IBA
 * 15.2.5.17), wanted, held and outstanding.
 */
enum ipoib_ng_join_state {
	IPOIB_NG_JOIN_FULL = 1,		/* FullMember */
	IPOIB_NG_JOIN_NON = 2,		/* NonMember */
	IPOIB_NG_JOIN_SENDONLY = 4,	/* SendOnlyNonMember */
};

/* IPOIB_NG_A_CONN_DIR */
enum ipoib_ng_conn_dir {
	IPOIB_NG_CONN_TX = 0,		/* we connected to the peer */
	IPOIB_NG_CONN_RX = 1,		/* the peer connected to us */
};

/* IPOIB_NG_A_EV_TYPE */
enum ipoib_ng_event {
	IPOIB_NG_EV_UNSPEC = 0,
	IPOIB_NG_EV_GROUP_JOINED,	/* MGID, JOIN (the state joined) */
	IPOIB_NG_EV_GROUP_FAILED,	/* MGID, STATUS (errno) */
	IPOIB_NG_EV_GROUP_LEFT,		/* MGID */
	IPOIB_NG_EV_PATH_RESOLVED,	/* GID */
	IPOIB_NG_EV_PATH_FAILED,	/* GID, STATUS */
	IPOIB_NG_EV_CONN_UP,		/* GID, QPN, DIR */
	IPOIB_NG_EV_CONN_DOWN,		/* GID, QPN, DIR, STATUS */
	IPOIB_NG_EV_LINK,		/* LINK_UP, LINK_WHY */
};

enum ipoib_ng_cmd {
	IPOIB_NG_CMD_UNSPEC = 0,
	/*
	 * Interfaces: with IPOIB_NG_A_IF_IFINDEX (do), the one; as a dump,
	 * every ipoib_ng interface of the namespace. Reply: IPOIB_NG_A_IF_*.
	 */
	IPOIB_NG_CMD_IF_GET,
	/*
	 * Dumps of one interface's entries (the IFINDEX attribute of the
	 * reply's set in the request: IPOIB_NG_A_PATH_IFINDEX, ...) or,
	 * without it, of every interface's. Replies: IPOIB_NG_A_PATH_*,
	 * IPOIB_NG_A_GROUP_*, IPOIB_NG_A_CONN_*.
	 */
	IPOIB_NG_CMD_PATH_GET,
	IPOIB_NG_CMD_GROUP_GET,
	IPOIB_NG_CMD_CONN_GET,
	/* Notification, to IPOIB_NG_MCGRP_EVENTS: IPOIB_NG_A_EV_*. */
	IPOIB_NG_CMD_EVENT,
	/*
	 * CAP_NET_ADMIN: forget every path of the interface
	 * (IPOIB_NG_A_PATH_IFINDEX); the next frame to a peer resolves it
	 * again, as after an SM event.
	 */
	IPOIB_NG_CMD_PATH_FLUSH,

	__IPOIB_NG_CMD_MAX,
	IPOIB_NG_CMD_MAX = __IPOIB_NG_CMD_MAX - 1
};

/* An interface (IPOIB_NG_CMD_IF_GET). */
enum ipoib_ng_if_attr {
	IPOIB_NG_A_IF_UNSPEC = 0,
	IPOIB_NG_A_IF_IFINDEX,		/* u32 */
	IPOIB_NG_A_IF_IFNAME,		/* string */
	IPOIB_NG_A_IF_PARENT,		/* u32: a P_Key child's parent ifindex */
	IPOIB_NG_A_IF_IBDEV,		/* string: the RDMA device */
	IPOIB_NG_A_IF_PORT,		/* u32 */
	IPOIB_NG_A_IF_PKEY,		/* u16, full-member bit set */
	IPOIB_NG_A_IF_PKEY_INDEX,	/* u16: in the port's P_Key table */
	IPOIB_NG_A_IF_QPN,		/* u32: our UD QP */
	IPOIB_NG_A_IF_GID,		/* binary, 16: our port GID */
	IPOIB_NG_A_IF_MODE,		/* u8: enum ipoib_ng_mode */
	IPOIB_NG_A_IF_UMCAST,		/* u8: 1 user multicast allowed */
	IPOIB_NG_A_IF_ROCE,		/* u8: 1 a RoCE port */
	IPOIB_NG_A_IF_LINK_UP,		/* u8: the carrier */
	IPOIB_NG_A_IF_LINK_WHY,		/* u32: enum ipoib_ng_link_why */
	IPOIB_NG_A_IF_MTU,		/* u32: the interface's MTU */
	IPOIB_NG_A_IF_BCAST,		/* nest: IPOIB_NG_A_GROUP_* of the
					 * broadcast group, with its
					 * parameters */
	IPOIB_NG_A_IF_STATS,		/* nest: IPOIB_NG_A_STAT (multi) */
	IPOIB_NG_A_IF_PATHS,		/* u32: paths held */
	IPOIB_NG_A_IF_GROUPS,		/* u32: groups held */

	__IPOIB_NG_A_IF_MAX,
	IPOIB_NG_A_IF_MAX = __IPOIB_NG_A_IF_MAX - 1
};

/* IPOIB_NG_A_IF_STATS holds one IPOIB_NG_A_STAT per counter of ethtool -S. */
enum ipoib_ng_stats_attr {
	IPOIB_NG_A_STATS_UNSPEC = 0,
	IPOIB_NG_A_STAT,		/* nest: IPOIB_NG_A_STAT_* */

	__IPOIB_NG_A_STATS_MAX,
	IPOIB_NG_A_STATS_MAX = __IPOIB_NG_A_STATS_MAX - 1
};

enum ipoib_ng_stat_attr {
	IPOIB_NG_A_STAT_UNSPEC = 0,
	IPOIB_NG_A_STAT_NAME,		/* string: ethtool -S's name */
	IPOIB_NG_A_STAT_VALUE,		/* u64 */
	IPOIB_NG_A_STAT_PAD,

	__IPOIB_NG_A_STAT_MAX,
	IPOIB_NG_A_STAT_MAX = __IPOIB_NG_A_STAT_MAX - 1
};

/*
 * A path: the way to one peer GID. InfiniBand: the SA's PathRecord
 * (LID, SL, rate, MTU); RoCE: the neighbour's MAC and the source GID.
 */
enum ipoib_ng_path_attr {
	IPOIB_NG_A_PATH_UNSPEC = 0,
	IPOIB_NG_A_PATH_IFINDEX,	/* u32 */
	IPOIB_NG_A_PATH_GID,		/* binary, 16 */
	IPOIB_NG_A_PATH_STATE,		/* string: unknown, resolving, valid,
					 * stale (usable, being revalidated),
					 * failed, doubted (usable, its
					 * revalidation failed, retried) */
	IPOIB_NG_A_PATH_AGE,		/* u64 ms: since the last answer */
	IPOIB_NG_A_PATH_STATUS,		/* s32: of the last query */
	IPOIB_NG_A_PATH_ATTEMPTS,	/* u32: failed in a row */
	IPOIB_NG_A_PATH_QUEUED,		/* u32: frames waiting for it */
	IPOIB_NG_A_PATH_RETRY,		/* u64 ms: to the next deadline */
	IPOIB_NG_A_PATH_LID,		/* u16: InfiniBand, the DLID */
	IPOIB_NG_A_PATH_SL,		/* u8 */
	IPOIB_NG_A_PATH_RATE,		/* u8: IBA static rate enum */
	IPOIB_NG_A_PATH_MTU,		/* u32: bytes (IB: the PathRecord's) */
	IPOIB_NG_A_PATH_DMAC,		/* binary, 6: RoCE */
	IPOIB_NG_A_PATH_SGID,		/* binary, 16: the source GID used */
	IPOIB_NG_A_PATH_PAD,

	__IPOIB_NG_A_PATH_MAX,
	IPOIB_NG_A_PATH_MAX = __IPOIB_NG_A_PATH_MAX - 1
};

/* A multicast group (also IPOIB_NG_A_IF_BCAST). */
enum ipoib_ng_group_attr {
	IPOIB_NG_A_GROUP_UNSPEC = 0,
	IPOIB_NG_A_GROUP_IFINDEX,	/* u32 */
	IPOIB_NG_A_GROUP_MGID,		/* binary, 16 */
	IPOIB_NG_A_GROUP_STATE,		/* string: idle, joining, joined,
					 * failed, leaving */
	IPOIB_NG_A_GROUP_WANT,		/* u8: enum ipoib_ng_join_state bits */
	IPOIB_NG_A_GROUP_JOINED,	/* u8: held */
	IPOIB_NG_A_GROUP_PENDING,	/* u8: asked, no answer yet */
	IPOIB_NG_A_GROUP_OWNER,		/* u32: enum ipoib_ng_group_owner bits */
	IPOIB_NG_A_GROUP_STATUS,	/* s32: of the last join */
	IPOIB_NG_A_GROUP_ATTEMPTS,	/* u32: failed in a row */
	IPOIB_NG_A_GROUP_QUEUED,	/* u32: frames waiting for the join */
	IPOIB_NG_A_GROUP_RETRY,		/* u64 ms: to the next deadline */
	/* The group's parameters, once joined (the SA's MCMemberRecord). */
	IPOIB_NG_A_GROUP_QKEY,		/* u32 */
	IPOIB_NG_A_GROUP_MTU,		/* u32: bytes */
	IPOIB_NG_A_GROUP_SL,		/* u8 */
	IPOIB_NG_A_GROUP_RATE,		/* u8: IBA static rate enum */
	IPOIB_NG_A_GROUP_SCOPE,		/* u8: the MGID's scope (RFC 4291) */
	IPOIB_NG_A_GROUP_MLID,		/* u16: InfiniBand */
	IPOIB_NG_A_GROUP_PAD,

	__IPOIB_NG_A_GROUP_MAX,
	IPOIB_NG_A_GROUP_MAX = __IPOIB_NG_A_GROUP_MAX - 1
};

/* A connection of connected mode (RFC 4755). */
enum ipoib_ng_conn_attr {
	IPOIB_NG_A_CONN_UNSPEC = 0,
	IPOIB_NG_A_CONN_IFINDEX,	/* u32 */
	IPOIB_NG_A_CONN_GID,		/* binary, 16: the peer's */
	IPOIB_NG_A_CONN_QPN,		/* u32: the peer's UD QPN (its address) */
	IPOIB_NG_A_CONN_DIR,		/* u8: enum ipoib_ng_conn_dir */
	IPOIB_NG_A_CONN_STATE,		/* string: tx: idle, connecting,
					 * connected, failed, closing; rx:
					 * connected */
	IPOIB_NG_A_CONN_SINCE,		/* u64 ms: in this state (tx), since
					 * the connection came (rx) */
	IPOIB_NG_A_CONN_FRAMES,		/* u64: frames sent (tx) or received
					 * (rx) over it */
	IPOIB_NG_A_CONN_QUEUED,		/* u32: tx, frames waiting */
	IPOIB_NG_A_CONN_IDLE,		/* u64 ms: rx, since the last frame */
	IPOIB_NG_A_CONN_STATUS,		/* s32: tx, of the last connect */
	IPOIB_NG_A_CONN_PAD,

	__IPOIB_NG_A_CONN_MAX,
	IPOIB_NG_A_CONN_MAX = __IPOIB_NG_A_CONN_MAX - 1
};

/* A notification (IPOIB_NG_CMD_EVENT). */
enum ipoib_ng_ev_attr {
	IPOIB_NG_A_EV_UNSPEC = 0,
	IPOIB_NG_A_EV_TYPE,		/* u32: enum ipoib_ng_event */
	IPOIB_NG_A_EV_IFINDEX,		/* u32 */
	IPOIB_NG_A_EV_IFNAME,		/* string */
	IPOIB_NG_A_EV_GID,		/* binary, 16: a path's or a peer's */
	IPOIB_NG_A_EV_MGID,		/* binary, 16 */
	IPOIB_NG_A_EV_QPN,		/* u32 */
	IPOIB_NG_A_EV_DIR,		/* u8: enum ipoib_ng_conn_dir */
	IPOIB_NG_A_EV_STATUS,		/* s32: of a failure */
	IPOIB_NG_A_EV_JOIN,		/* u8: enum ipoib_ng_join_state bits */
	IPOIB_NG_A_EV_LINK_UP,		/* u8 */
	IPOIB_NG_A_EV_LINK_WHY,		/* u32: enum ipoib_ng_link_why */

	__IPOIB_NG_A_EV_MAX,
	IPOIB_NG_A_EV_MAX = __IPOIB_NG_A_EV_MAX - 1
};

#endif /* _UAPI_LINUX_IPOIB_NG_H */
