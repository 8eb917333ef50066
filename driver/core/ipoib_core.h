/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ipoib_core.h - the whole boundary between the C shim and the C++ core.
 *
 * Pure C (C89 types, no includes), extern "C". The core is sans-I/O: it
 * reads no clock, calls no kernel function and allocates nothing. State
 * objects are plain structs declared here; the shim owns their memory and
 * the lock that serialises calls on one object. Time is passed in as
 * milliseconds on a monotonic clock; randomness comes from an ipc_rng the
 * caller seeds. Functions returning int return 0 or a negative errno
 * (IPC_E* below, same values as Linux), unless documented otherwise.
 */
#ifndef IPOIB_CORE_H
#define IPOIB_CORE_H

#ifdef __cplusplus
extern "C" {
#endif

typedef unsigned char ipc_u8;
typedef unsigned short ipc_u16;
typedef unsigned int ipc_u32;
typedef unsigned long long ipc_u64;
typedef int ipc_s32;
typedef long long ipc_s64;

/* errno values returned by the core (Linux numbering). */
enum ipc_errno {
	IPC_ENOENT = 2,
	IPC_EAGAIN = 11,
	IPC_ENOMEM = 12,
	IPC_EBUSY = 16,
	IPC_EINVAL = 22,
	IPC_ERANGE = 34,
	IPC_ENODATA = 61,
	IPC_EPROTO = 71,
	IPC_EMSGSIZE = 90,
	IPC_EOPNOTSUPP = 95,
	IPC_ENETDOWN = 100,
	IPC_ENETUNREACH = 101,
	IPC_ENETRESET = 102,
	IPC_ETIMEDOUT = 110,
	IPC_EHOSTUNREACH = 113,
	/*
	 * Not a Linux errno: a join status meaning "not sent, the broadcast
	 * group is not joined yet" (ipc_mc_join_done()). Distinct from any
	 * status an SA can answer, so that an SA's -EAGAIN stays a failure.
	 */
	IPC_ENOBCAST = 4096
};

/* ------------------------------------------------------------------ */
/* Wire constants (RFC 4391)                                            */
/* ------------------------------------------------------------------ */
enum {
	IPC_ADDR_LEN = 20,	/* s9.1.1: flags(1) + QPN(3) + GID(16) */
	IPC_GID_LEN = 16,
	IPC_HDR_LEN = 4,	/* s6: type(2) + reserved(2) */
	IPC_GRH_LEN = 40,
	IPC_ND_OPT_LEN = 24,	/* s9.3: type, len=3, 2 pad, 20-byte address */
	IPC_ARP_HWTYPE = 32,	/* s9.2 */
	IPC_ARP_LEN = 8 + 2 * (20 + 4)	/* ARP packet with IPv4 addresses */
};

#define IPC_ADDR_FLAG_CM	0x80	/* RFC 4755 s3: connected mode capable */
#define IPC_QPN_MASK		0xffffffu
#define IPC_QPN_MCAST		0xffffffu
#define IPC_SIG_IPV4		0x401b	/* s4 */
#define IPC_SIG_IPV6		0x601b	/* s4 */
#define IPC_SCOPE_LINK		0x2	/* s4.1 RECOMMENDED default */
#define IPC_PKEY_FULL		0x8000	/* full-member bit */
#define IPC_PKEY_DEFAULT	0xffff
#define IPC_QKEY_CONTROLLED	0x80000000u	/* s4.1: high bit */
#define IPC_QKEY_DEFAULT	0x0000000bu	/* the de-facto IPoIB Q_Key */

#define IPC_ETH_P_IP		0x0800
#define IPC_ETH_P_ARP		0x0806
#define IPC_ETH_P_RARP		0x8035
#define IPC_ETH_P_IPV6		0x86dd

/*
 * Reason codes: why a frame or payload was rejected. 0 is "accepted".
 * Stable order: the shim keeps one drop counter per reason and names it
 * with ipc_reason_name().
 */
enum ipc_reason {
	IPC_R_OK = 0,
	IPC_R_TRUNCATED,	/* shorter than the header it claims */
	IPC_R_BAD_TYPE,		/* s6: encapsulated type not in Table 1 */
	IPC_R_LOOPBACK,		/* our own multicast looped back to us */
	IPC_R_BAD_HWTYPE,	/* s9.2: ARP hardware type != 32 */
	IPC_R_BAD_PROTO,	/* ARP protocol type not IPv4 */
	IPC_R_BAD_HLEN,		/* s9.2: ARP hardware length != 20 */
	IPC_R_BAD_PLEN,		/* ARP protocol length != 4 */
	IPC_R_BAD_OP,		/* ARP/RARP operation unknown */
	IPC_R_BAD_OPT_TYPE,	/* s9.3: ND option type not 1 or 2 */
	IPC_R_BAD_OPT_LEN,	/* s9.3: ND option length != 3 */
	IPC_R_BAD_PAD,		/* s9.3: the 2 pad octets are not zero */
	IPC_R_BAD_ADDR,		/* link-layer address unusable (QPN 0, mcast GID as source, ...) */
	IPC_R_NO_ROUTE,		/* no path/group could be resolved */
	IPC_R_QUEUE_FULL,	/* a bounded wait queue overflowed */
	IPC_R_NOT_JOINED,	/* s10: group absent, no routers: dropped */
	IPC_R_WRONG_LINK,	/* MGID of another P_Key/scope/signature */
	IPC_R_TOO_BIG,		/* larger than the link MTU */
	IPC_R_LINK_DOWN,	/* carrier is off */
	IPC_R_PATH_TABLE_FULL,	/* new destination, path table at its cap */
	IPC_R_GROUP_TABLE_FULL,	/* new group, group table at its cap */
	IPC_R_COUNT
};

/* Static name of a reason ("truncated", "bad_type", ...); never NULL. */
const char *ipc_reason_name(int reason);

/* ------------------------------------------------------------------ */
/* Link-layer address (RFC 4391 s9.1.1, RFC 4755 s3)                    */
/* ------------------------------------------------------------------ */
struct ipc_addr {
	ipc_u8 flags;		/* only IPC_ADDR_FLAG_CM is meaningful */
	ipc_u32 qpn;		/* 24 bits */
	ipc_u8 gid[16];
};

/* Encode to 20 bytes; reserved flag bits are written as zero. */
void ipc_addr_encode(const struct ipc_addr *a, ipc_u8 out[20]);
/* Decode 20 bytes; reserved flag bits are ignored (cleared). */
void ipc_addr_decode(const ipc_u8 in[20], struct ipc_addr *a);
/*
 * Same endpoint: QPN and GID equal; flags (reserved and CM bits) are
 * ignored. Returns 1 or 0.
 */
int ipc_addr_same(const ipc_u8 a[20], const ipc_u8 b[20]);
/* Hash of QPN+GID (flags ignored), mixed with seed. */
ipc_u32 ipc_addr_hash(const ipc_u8 a[20], ipc_u32 seed);
/* Hash of a GID, mixed with seed. */
ipc_u32 ipc_gid_hash(const ipc_u8 gid[16], ipc_u32 seed);
/*
 * Broadcast address for a P_Key and scope (s4, figure 2):
 * 00:ff:ff:ff:ff:1<scope>:40:1b:<pkey|0x8000>:00*6:ff:ff:ff:ff.
 */
void ipc_addr_broadcast(ipc_u16 pkey, ipc_u8 scope, ipc_u8 out[20]);

/*
 * May an interface whose address is cur take want (ndo_set_mac_address:
 * an administrator choosing another of the port's GIDs, e.g. an alias
 * GUID)? RFC 4391 s9.1.1: the address is the QPN of the interface's UD QP
 * and a GID of its port. The flags byte and the QPN belong to the QP and
 * cannot be chosen; the GID must be unicast (neither zero nor ff00::/8).
 * Whether the port has that GID is for the shim to look up.
 */
enum ipc_setaddr {
	IPC_SETADDR_OK = 0,
	IPC_SETADDR_QPN,	/* flags or QPN differ from the current ones */
	IPC_SETADDR_GID,	/* zero or multicast GID */
};
int ipc_addr_check_set(const ipc_u8 cur[20], const ipc_u8 want[20]);

/* ------------------------------------------------------------------ */
/* Multicast mapping (RFC 4391 s4)                                      */
/* ------------------------------------------------------------------ */
/*
 * The stack maps an IP group to its MGID itself (ip_ib_mc_map(),
 * ipv6_ib_mc_map(), from dev->broadcast); the core checks the result.
 */
/* Scope nibble of an MGID (ff1S:...). */
ipc_u8 ipc_mgid_scope(const ipc_u8 mgid[16]);
/*
 * Whether a multicast hardware address (from the device's mc list)
 * belongs to this link: QPN 0xffffff, MGID ff1<scope>, an IPoIB
 * signature, and this link's P_Key and scope. Returns IPC_R_OK or
 * IPC_R_WRONG_LINK / IPC_R_BAD_ADDR.
 */
int ipc_mcast_addr_check(const ipc_u8 hw[20], const ipc_u8 bcast_gid[16]);
/*
 * The all-routers MGID (group 2) of this link for the family of mgid (an
 * IPv6-signature MGID gives ff02::2's, anything else 224.0.0.2's), with
 * mgid's scope and P_Key; the broadcast MGID gives the IPv4 one.
 */
void ipc_mgid_all_routers(const ipc_u8 mgid[16], ipc_u8 out[16]);
/* 1 if mgid is the all-routers group of its family, scope and P_Key. */
int ipc_mgid_is_all_routers(const ipc_u8 mgid[16]);

/* ------------------------------------------------------------------ */
/* Encapsulation and RX/TX classification (RFC 4391 s6, s10)            */
/* ------------------------------------------------------------------ */
/* Build the 4-byte header: type, reserved = 0. */
void ipc_hdr_build(ipc_u16 ethertype, ipc_u8 hdr[4]);
/*
 * Parse the 4-byte header at the start of buf. Returns IPC_R_OK with
 * *ethertype set, IPC_R_TRUNCATED or IPC_R_BAD_TYPE. Reserved ignored.
 */
int ipc_hdr_parse(const ipc_u8 *buf, ipc_u32 len, ipc_u16 *ethertype);

/* Send-only UD QPs an interface may have besides its own (issue 23). */
#define IPC_SEND_QPN_MAX 15

/* What the core needs to know about one interface to classify packets. */
struct ipc_ifid {
	ipc_u32 qpn;		/* our UD QPN */
	/*
	 * Our other UD QPNs: transmit queues that send only, from the same
	 * port GID. Multicast they send comes back to qpn like its own.
	 */
	ipc_u32 send_qpn[IPC_SEND_QPN_MAX];
	ipc_u32 send_qpns;	/* how many of send_qpn are ours */
	ipc_u8 gid[16];		/* our port GID (the one in dev_addr) */
	ipc_u8 bcast_gid[16];	/* our broadcast MGID */
};

enum ipc_pkt_type {
	IPC_PKT_HOST = 0,
	IPC_PKT_BROADCAST,
	IPC_PKT_MULTICAST,
	IPC_PKT_OTHERHOST
};

struct ipc_rx_verdict {
	ipc_u16 ethertype;
	ipc_u8 pkt_type;	/* enum ipc_pkt_type */
	ipc_u8 has_src;		/* src_addr valid (sgid known) */
	ipc_u8 src_addr[20];	/* sender: flags 0, src_qpn, sgid */
};

/*
 * Classify a received UD datagram. sgid/dgid are the source and
 * destination GIDs from the GRH (or the RoCE network header), NULL when
 * the completion had no GRH. payload/len start at the IPoIB header.
 * Returns IPC_R_OK (deliver: v filled, strip IPC_HDR_LEN), or the reason
 * to drop: IPC_R_LOOPBACK (multicast we sent: sgid is ours and src_qpn
 * is qpn or one of send_qpn),
 * IPC_R_BAD_TYPE, an ARP payload that is not IPoIB's (s9.2:
 * IPC_R_BAD_HWTYPE ... IPC_R_BAD_OP) or an ND link-layer address option
 * that is not (s9.3: IPC_R_BAD_OPT_*, IPC_R_BAD_PAD), IPC_R_BAD_ADDR for
 * a sender or option address that cannot be a unicast endpoint (it would
 * poison the stack's neighbour entry), IPC_R_TRUNCATED when a header or
 * those payloads end beyond len: a caller that holds more of the frame
 * than len (a paged skb) classifies it again with all of it.
 */
int ipc_rx_classify(const struct ipc_ifid *self, const ipc_u8 *sgid,
		    const ipc_u8 *dgid, ipc_u32 src_qpn, const ipc_u8 *payload,
		    ipc_u32 len, struct ipc_rx_verdict *v);

enum ipc_tx_kind {
	IPC_TX_UNICAST = 0,	/* to qpn at gid, through a path */
	IPC_TX_MULTICAST,	/* to the group mgid (QPN 0xffffff) */
	IPC_TX_BROADCAST	/* to the broadcast group */
};

struct ipc_tx_verdict {
	ipc_u8 kind;		/* enum ipc_tx_kind */
	ipc_u32 qpn;		/* remote QPN (unicast) or 0xffffff */
	ipc_u8 gid[16];		/* remote GID or MGID */
};

/*
 * Decide where a frame to the 20-byte hardware address daddr goes.
 * Returns IPC_R_OK with v filled, IPC_R_BAD_ADDR (QPN 0, zero GID, or a
 * multicast GID with a unicast QPN) or IPC_R_WRONG_LINK (an MGID of
 * another P_Key or scope).
 */
int ipc_tx_classify(const struct ipc_ifid *self, const ipc_u8 daddr[20],
		    struct ipc_tx_verdict *v);

/* ------------------------------------------------------------------ */
/* MTU (RFC 4391 s7, RFC 4755)                                          */
/* ------------------------------------------------------------------ */
#define IPC_MTU_MIN_RFC		2044	/* s7: every implementation supports it */
#define IPC_MTU_CM_MAX		65520	/* RFC 4755 connected-mode bound */
#define IPC_MTU_IPV6_MIN	1280
#define IPC_MTU_IPV4_MIN	68

/* IB MTU enum (1=256 .. 5=4096) to bytes; 0 for an invalid enum. */
ipc_u32 ipc_ib_mtu_bytes(int ib_mtu_enum);
/* Bytes to IB MTU enum, 0 if not one of 256..4096. */
int ipc_ib_mtu_enum(ipc_u32 bytes);
/* IPoIB-link MTU for an IB MTU in bytes: bytes - 4. */
ipc_u32 ipc_link_mtu(ipc_u32 ib_mtu_bytes);

enum ipc_mode {
	IPC_MODE_DATAGRAM = 0,
	IPC_MODE_CONNECTED = 1
};

struct ipc_mtu_info {
	ipc_u32 mcast_mtu;	/* link MTU from the broadcast group (IB) or port (RoCE), already - 4 */
	ipc_u32 max_mtu;	/* largest MTU the device may be set to now */
	ipc_u32 effective;	/* MTU to use given admin_mtu */
	ipc_u8 below_rfc_min;	/* 1 if the link cannot carry 2044 (s7) */
};

/*
 * Resolve the MTU: ib_mtu_bytes is the broadcast group's (IB) or the
 * port's active (RoCE) IB MTU; admin_mtu 0 means "none requested".
 * Datagram: max = ib_mtu - 4. Connected: max = 65520. effective =
 * min(admin_mtu or max, max). Returns 0 or -IPC_EINVAL (bad ib_mtu).
 */
int ipc_mtu_resolve(ipc_u32 ib_mtu_bytes, ipc_u32 admin_mtu, int mode,
		    struct ipc_mtu_info *out);
/*
 * Validate an MTU change request (ndo_change_mtu): 0 if allowed,
 * -IPC_EINVAL if below IPC_MTU_IPV4_MIN or above max_mtu. *reason is set
 * to a static message for an extack/pr_warn.
 */
int ipc_mtu_check(const struct ipc_mtu_info *info, ipc_u32 new_mtu,
		  const char **reason);

/*
 * Over UD (a group; a peer in datagram mode, or whose connection failed)
 * a frame carries at most the link's MTU: ipc_mtu_ud_frame_max() bytes,
 * the 4-byte IPoIB header included. In connected mode the interface's
 * MTU is larger (RFC 4755 s5), so a frame of len bytes (header
 * included) that is bound for UD may not fit: ipc_mtu_ud_too_big()
 * answers 0 when it fits, else the MTU to tell its sender ("fragmentation
 * needed", "packet too big"), and the frame is dropped (IPC_R_TOO_BIG).
 */
ipc_u32 ipc_mtu_ud_frame_max(const struct ipc_mtu_info *info);
ipc_u32 ipc_mtu_ud_too_big(const struct ipc_mtu_info *info, ipc_u32 len);

/* ------------------------------------------------------------------ */
/* P_Key / Q_Key (IBA s10.9, RFC 4391 s4.1)                             */
/* ------------------------------------------------------------------ */
/* 0 for 0x0000 and 0x8000 (invalid), else 1. */
int ipc_pkey_valid(ipc_u16 pkey);
/* pkey with the full-member bit set. */
ipc_u16 ipc_pkey_full(ipc_u16 pkey);
/*
 * Q_Key used on a RoCE port to emulate a partition (RoCE has only P_Key
 * 0xffff): the default P_Key keeps IPC_QKEY_DEFAULT, any other P_Key
 * gets IPC_QKEY_DEFAULT | (pkey_low15 << 16), so that partitions do not
 * accept each other's datagrams. Documented in Documentation/.
 */
ipc_u32 ipc_roce_qkey_for_pkey(ipc_u16 pkey);

/* ------------------------------------------------------------------ */
/* Randomness and backoff                                               */
/* ------------------------------------------------------------------ */
struct ipc_rng {
	ipc_u64 s;		/* never 0 once seeded */
};
void ipc_rng_seed(struct ipc_rng *r, ipc_u64 seed);
ipc_u32 ipc_rng_next(struct ipc_rng *r);

struct ipc_backoff_cfg {
	ipc_u32 base_ms;	/* first retry delay */
	ipc_u32 cap_ms;		/* largest delay */
};
/*
 * Delay before retry number attempt (1-based): d = min(cap, base << (attempt-1)),
 * returned uniformly in [d/2, d] ("equal jitter") so that many nodes
 * failing together spread their retries.
 */
ipc_u32 ipc_backoff_ms(const struct ipc_backoff_cfg *c, ipc_u32 attempt,
		       struct ipc_rng *r);

/* ------------------------------------------------------------------ */
/* Actions returned by the state machines (bit mask)                    */
/* ------------------------------------------------------------------ */
#define IPC_ACT_SEND		0x0001u	/* send this packet now */
#define IPC_ACT_QUEUE		0x0002u	/* append this packet to the wait queue */
#define IPC_ACT_DROP		0x0004u	/* drop this packet (reason given) */
#define IPC_ACT_DROP_OLDEST	0x0008u	/* drop the oldest queued packet first */
#define IPC_ACT_START_QUERY	0x0010u	/* path: start a resolution (cancel none) */
#define IPC_ACT_CANCEL_QUERY	0x0020u	/* path: cancel the outstanding query */
#define IPC_ACT_FLUSH_QUEUE	0x0040u	/* send every queued packet, in order */
#define IPC_ACT_PURGE_QUEUE	0x0080u	/* drop every queued packet (reason given) */
#define IPC_ACT_RELEASE_AH	0x0100u	/* the cached address handle is invalid */
#define IPC_ACT_JOIN		0x0200u	/* mcast: start a join of type join_type */
#define IPC_ACT_LEAVE		0x0400u	/* mcast: leave (free the SA membership) */
#define IPC_ACT_ATTACH		0x0800u	/* mcast: attach the QP to the MGID */
#define IPC_ACT_DETACH		0x1000u	/* mcast: detach the QP from the MGID */
#define IPC_ACT_TO_ROUTERS	0x2000u	/* mcast: send this/queued packets to all-routers */
#define IPC_ACT_FREE		0x4000u	/* the object may be freed now */
#define IPC_ACT_LOG		0x8000u	/* log once (reason/status given) */
#define IPC_ACT_CONNECT		0x10000u	/* cm: send a REQ (new QP) */
#define IPC_ACT_DISCONNECT	0x20000u	/* cm: DREQ, destroy the QP */
#define IPC_ACT_VIA_UD		0x40000u	/* cm: send this frame over UD */

/*
 * The order in which the shim performs the actions of one result, the
 * same for every machine (path, group, connection) and for the simulator
 * in tests/core/sim. What the entry held goes first (a query cancelled, a
 * group detached and left, a connection closed), then the address handle
 * and the packets (this verdict's packet, then the queue), then what
 * starts anew (a query, a join, a connection, an attachment), the log
 * line, and FREE last: after FREE nothing of the entry is left.
 *
 * The actions of IPC_ACT_AT_VERDICT touch only the entry's packets, its
 * address handle and the log: the shim performs them with the result in
 * hand, under the lock that orders the machine's calls, so that its queue
 * always holds what the core counts (ipc_path.queued ...). The others are
 * calls into the backend, which may sleep: the shim performs them later,
 * in process context, in this order, the entry's calls one at a time.
 * Doing the first kind before the second changes nothing: none of the
 * first depends on one of the second placed before it. Three are begun
 * at the verdict and ended later: FLUSH_QUEUE and TO_ROUTERS (the queued
 * frames are the core's no more; they are handed back to transmit, or
 * to the all-routers group, in process context) and FREE (the entry
 * leaves the shim's tables at once, so that no later packet finds it,
 * and its memory goes after its other actions).
 *
 * After CANCEL_QUERY, LEAVE or DISCONNECT the shim reports no completion
 * of the query, join or connect they end; a completion that finished
 * before them and waits to be reported is dropped too.
 */
#define IPC_ACT_ORDER \
	IPC_ACT_CANCEL_QUERY, IPC_ACT_DETACH, IPC_ACT_LEAVE, \
	IPC_ACT_DISCONNECT, IPC_ACT_RELEASE_AH, IPC_ACT_DROP_OLDEST, \
	IPC_ACT_QUEUE, IPC_ACT_SEND, IPC_ACT_VIA_UD, IPC_ACT_DROP, \
	IPC_ACT_TO_ROUTERS, IPC_ACT_PURGE_QUEUE, IPC_ACT_FLUSH_QUEUE, \
	IPC_ACT_START_QUERY, IPC_ACT_JOIN, IPC_ACT_CONNECT, IPC_ACT_ATTACH, \
	IPC_ACT_LOG, IPC_ACT_FREE
#define IPC_ACT_COUNT		19u	/* the actions in IPC_ACT_ORDER */
#define IPC_ACT_ALL		0x7ffffu
#define IPC_ACT_AT_VERDICT \
	(IPC_ACT_RELEASE_AH | IPC_ACT_DROP_OLDEST | IPC_ACT_QUEUE | \
	 IPC_ACT_SEND | IPC_ACT_VIA_UD | IPC_ACT_DROP | IPC_ACT_PURGE_QUEUE | \
	 IPC_ACT_LOG)

#define IPC_NO_DEADLINE		(~0ull)

struct ipc_result {
	ipc_u32 actions;	/* IPC_ACT_* */
	ipc_u8 reason;		/* enum ipc_reason for DROP/PURGE */
	ipc_u8 join_type;	/* enum ipc_join_type for JOIN */
	ipc_u16 pad;
	ipc_u64 deadline_ms;	/* next call to *_timer() due, or IPC_NO_DEADLINE */
};

/*
 * What a path, group or connection machine shows an administrator
 * (debugfs, netlink): a copy. The shim reads no field of a machine; it
 * asks through these views and the accessors below each machine.
 */
struct ipc_view {
	const char *state;	/* the state's name */
	ipc_u8 attempts;	/* failed in a row */
	ipc_u8 want;		/* groups: enum ipc_join_type bits wanted */
	ipc_u8 joined;		/* groups: held */
	ipc_u8 pending;		/* groups: outstanding */
	ipc_u16 queued;		/* frames the shim holds for it */
	ipc_u16 pad;
	ipc_s32 last_status;	/* of the last query, join or connect */
	ipc_u32 members;	/* all-multicast: the NonMember groups held */
	ipc_u64 deadline_ms;	/* the next timer call, or IPC_NO_DEADLINE */
};

/* ------------------------------------------------------------------ */
/* Path / neighbour machine: one per destination GID                    */
/* ------------------------------------------------------------------ */
enum ipc_path_state {
	IPC_PATH_UNKNOWN = 0,	/* nothing known, nothing asked */
	IPC_PATH_RESOLVING,	/* query outstanding, packets queued */
	IPC_PATH_VALID,		/* address handle usable */
	IPC_PATH_STALE,		/* usable, revalidation query outstanding */
	IPC_PATH_FAILED,	/* last query failed, retry at deadline */
	IPC_PATH_DOUBTED,	/* usable, a revalidation failed softly, retry */
	IPC_PATH_STATE_COUNT
};

struct ipc_path_cfg {
	ipc_u16 queue_max;	/* packets held while resolving */
	ipc_u16 max_attempts;	/* queries before FAILED purges the queue */
	ipc_u32 query_timeout_ms;	/* a query not answered by then failed */
	ipc_u32 revalidate_ms;	/* s9.4: VALID -> revalidate after this */
	ipc_u32 idle_ms;	/* unused this long: FREE */
	struct ipc_backoff_cfg backoff;
	ipc_u32 evict_idle_ms;	/* unused this long: may go (table full) */
	ipc_u32 revalidate_jitter_ms;	/* revalidate in [r - jitter, r] */
	ipc_u32 flush_spread_ms;	/* a flush revalidates within this */
	struct ipc_backoff_cfg doubt_backoff;	/* DOUBTED: retry after */
};
/*
 * Defaults (queue 16, 3 attempts, 4 s timeout, revalidation 45 s to 60 s
 * after an answer, within 45 s of a flush, a failed revalidation retried
 * after 2.5 s to 60 s, 300 s idle, evictable after 10 s unused, ...).
 */
void ipc_path_cfg_default(struct ipc_path_cfg *c);

struct ipc_path {
	ipc_u8 state;		/* enum ipc_path_state */
	ipc_u8 attempts;
	ipc_u16 queued;		/* packets the shim holds for this path */
	ipc_s32 last_status;	/* last query status (0 or -errno) */
	ipc_u64 deadline_ms;
	ipc_u64 last_used_ms;
	ipc_u64 revalidate_at_ms;	/* VALID: when to revalidate */
};
void ipc_path_init(struct ipc_path *p);
/* A packet wants to go through this path. */
void ipc_path_tx(struct ipc_path *p, const struct ipc_path_cfg *c,
		 ipc_u64 now, struct ipc_result *r);
/* The outstanding query finished with status (0 or -errno). */
void ipc_path_query_done(struct ipc_path *p, const struct ipc_path_cfg *c,
			 ipc_u64 now, int status, struct ipc_rng *rng,
			 struct ipc_result *r);
/* The deadline passed. */
void ipc_path_timer(struct ipc_path *p, const struct ipc_path_cfg *c,
		    ipc_u64 now, struct ipc_rng *rng, struct ipc_result *r);
/*
 * A light flush (client reregister, SM change): the SA may have lost or
 * changed the record, the handle probably still works. A usable path
 * keeps sending and is revalidated at a time drawn from
 * [now, now + c->flush_spread_ms), so that a fabric's paths do not all
 * ask at once; an outstanding query is asked again now; queued packets
 * are kept.
 */
void ipc_path_flush(struct ipc_path *p, const struct ipc_path_cfg *c,
		    ipc_u64 now, struct ipc_rng *rng, struct ipc_result *r);
/*
 * The query START_QUERY asked for waits for the SA budget
 * (ipc_sa_budget_ask()): no timeout runs until it is sent. Then
 * ipc_path_query_sent() when it goes: its timeout starts then.
 */
void ipc_path_query_held(struct ipc_path *p, struct ipc_result *r);
void ipc_path_query_sent(struct ipc_path *p, const struct ipc_path_cfg *c,
			 ipc_u64 now, struct ipc_result *r);
/* The SA budget's class of the query this path asks (enum ipc_sa_class). */
int ipc_path_sa_class(const struct ipc_path *p);
/*
 * Tear down (interface down, device removal): CANCEL_QUERY, RELEASE_AH,
 * PURGE_QUEUE as needed, and FREE always, whatever the state (corrupt
 * included): the shim frees what it destroys on the core's word.
 */
void ipc_path_destroy(struct ipc_path *p, struct ipc_result *r);
/*
 * The shim's path table is full (it bounds it: review M3). Returns 1 if p
 * may be given up to make room, with ipc_path_destroy(), 0 if not. A path
 * holding packets never is (they wait for it), nor a RESOLVING one (its
 * query is out, for a destination just asked for). UNKNOWN and FAILED
 * paths are (no handle, no query: at most a hold-down is forgotten), as
 * are VALID and STALE ones unused for c->evict_idle_ms (a handle nobody
 * sends with; the next packet asks again). A state out of range is too.
 * Reads p only.
 */
int ipc_path_evictable(const struct ipc_path *p, const struct ipc_path_cfg *c,
		       ipc_u64 now);
void ipc_path_view(const struct ipc_path *p, struct ipc_view *v);
/* When ipc_path_timer() is next due (IPC_NO_DEADLINE: never). */
ipc_u64 ipc_path_deadline(const struct ipc_path *p);
/* 1 while the path's address handle may carry frames (VALID, STALE, DOUBTED). */
int ipc_path_usable(const struct ipc_path *p);
/*
 * Frames went through p's handle without ipc_path_tx(), the last at
 * when: the shim's transmit sends unlocked while ipc_path_usable() says
 * so, which is all ipc_path_tx() would decide then, and reports the use
 * before the path's timer and ipc_path_evictable() run. Idleness counts
 * from the later of it and the last ipc_path_tx().
 */
void ipc_path_used(struct ipc_path *p, ipc_u64 when);

/* ------------------------------------------------------------------ */
/* Multicast group machine (RFC 4391 s5, s10, s11)                      */
/* ------------------------------------------------------------------ */
enum ipc_join_type {
	IPC_JOIN_NONE = 0,
	IPC_JOIN_FULL = 1,	/* JoinState bit 0: FullMember */
	IPC_JOIN_NON = 2,	/* bit 1: NonMember (s11 routers) */
	IPC_JOIN_SENDONLY = 4	/* bit 2: SendOnlyNonMember (s10) */
};

enum ipc_mc_state {
	IPC_MC_IDLE = 0,	/* not joined, nothing wanted */
	IPC_MC_JOINING,		/* join outstanding */
	IPC_MC_JOINED,		/* joined and attached */
	IPC_MC_BACKOFF,		/* join failed, retry at deadline */
	IPC_MC_MISSING,		/* send-only: group does not exist (cached) */
	IPC_MC_LEAVING,		/* leave requested while a join was outstanding */
	IPC_MC_HELD,		/* waits for the broadcast group's parameters */
	IPC_MC_STATE_COUNT
};

struct ipc_mc_cfg {
	ipc_u16 queue_max;	/* packets held while a send-only join runs */
	ipc_u16 pad;
	ipc_u32 sendonly_idle_ms;	/* idle send-only memberships expire */
	ipc_u32 missing_ttl_ms;	/* how long "group missing" is cached */
	ipc_u32 join_timeout_ms;
	struct ipc_backoff_cfg backoff;
	ipc_u32 evict_idle_ms;	/* send-only unused this long: may go */
};
/*
 * Defaults (queue 64, send-only memberships idle after 60 s, "missing"
 * cached 10 s, 10 s join timeout, evictable after 10 s unused, ...).
 */
void ipc_mc_cfg_default(struct ipc_mc_cfg *c);

struct ipc_mc {
	ipc_u8 state;		/* enum ipc_mc_state */
	ipc_u8 want;		/* enum ipc_join_type bits the stack wants */
	ipc_u8 joined;		/* join type currently held */
	ipc_u8 pending;		/* join type outstanding */
	ipc_u8 attempts;
	ipc_u8 scope;		/* IP group scope (see ipc_mc_init) */
	ipc_u16 queued;
	ipc_s32 last_status;
	ipc_u8 noticed;		/* the SA's last notice (trap 66, 67) during the join */
	ipc_u8 pad[3];
	ipc_u64 deadline_ms;
	ipc_u64 last_tx_ms;
};
/*
 * scope: the scope of the IP multicast group (s10 "If the scope of the IP
 * multicast group is beyond link-local"), from ipc_ipv4_mc_scope() or
 * ipc_ipv6_mc_scope(). Not the MGID's scope nibble: s4 makes every MGID of
 * a link carry the broadcast-GID's scope, so it says nothing about the
 * group. Without the IP group at hand pass IPC_SCOPE_LINK (never routed).
 */
void ipc_mc_init(struct ipc_mc *m, ipc_u8 scope);
/*
 * Scope of an IP multicast group, as an IPv6 scope nibble (RFC 7346):
 * IPv6: group[1] & 0xf. IPv4 (RFC 5771, RFC 2365): 224.0.0.0/24 link-local
 * 0x2, 239.255.0.0/16 0x5, 239.192.0.0/14 0x8, anything else 0xe.
 */
ipc_u8 ipc_ipv4_mc_scope(const ipc_u8 group[4]);
ipc_u8 ipc_ipv6_mc_scope(const ipc_u8 group[16]);
/*
 * The scope of the IP group a frame is sent to: frame holds its first len
 * bytes from the 4-byte IPoIB header on (IPC_FRAME_SCOPE_LEN are enough).
 * Not IPv4 or IPv6, or too short to tell: IPC_SCOPE_LINK (never routed).
 */
#define IPC_FRAME_SCOPE_LEN	(IPC_HDR_LEN + 40)
ipc_u8 ipc_frame_mc_scope(const ipc_u8 *frame, ipc_u32 len);
/* The stack subscribed (FULL, or NON for s11 promiscuous emulation). */
void ipc_mc_subscribe(struct ipc_mc *m, const struct ipc_mc_cfg *c, int type,
		      ipc_u64 now, struct ipc_result *r);
/* The stack unsubscribed that type. */
void ipc_mc_unsubscribe(struct ipc_mc *m, const struct ipc_mc_cfg *c,
			int type, ipc_u64 now, struct ipc_result *r);
/*
 * Egress decision for one packet (s10). routers_joined says whether the
 * all-routers group of this link is usable now.
 */
void ipc_mc_tx(struct ipc_mc *m, const struct ipc_mc_cfg *c, ipc_u64 now,
	       int routers_joined, struct ipc_result *r);
/*
 * The outstanding join finished: status 0, -IPC_ENOENT (group does not
 * exist), -IPC_ETIMEDOUT, -IPC_ENETRESET (SA event), -IPC_ENOBCAST (not
 * sent: the broadcast group, whose Q_Key, MTU, SL and rate every other
 * join carries, is not joined yet; the group waits in HELD, without
 * backoff or log, for ipc_mc_bcast_joined()) or another -errno. A
 * send-only join that the SA's notices contradict (ipc_mc_notice()) is
 * not believed: a success after a notice of deletion predates the
 * deletion (given up, the absence cached), an -ENOENT after a notice of
 * creation predates the creation (joined again at once).
 */
void ipc_mc_join_done(struct ipc_mc *m, const struct ipc_mc_cfg *c,
		      ipc_u64 now, int status, int routers_joined,
		      struct ipc_rng *rng, struct ipc_result *r);
void ipc_mc_timer(struct ipc_mc *m, const struct ipc_mc_cfg *c, ipc_u64 now,
		  struct ipc_rng *rng, struct ipc_result *r);
/*
 * The SA announced (s10; trap 66 created 1, trap 67 created 0) that the
 * group was created or deleted. A sender follows it:
 *   - deleted, with a send-only membership: the membership went with the
 *     group. It is given up (LEAVE: the shim's handle goes; the leave the
 *     SA then gets names a group it no longer has) and the absence cached
 *     (MISSING), so that the next packet goes to the routers or is
 *     dropped without a query, and a group made again later is joined
 *     under its new MLID;
 *   - created, with the absence cached: forgotten (FREE); the next packet
 *     joins the group;
 *   - created, with a send-only membership: it was made before the group
 *     was (deleted and made again, the deletion's notice lost): given up,
 *     and joined again c->backoff.base_ms later (BACKOFF), once the leave
 *     has gone: an SA client may answer a join from a membership it still
 *     holds (ib_sa does), with the old MLID;
 *   - either, with a send-only join outstanding: remembered, for its
 *     answer may predate the notice (ipc_mc_join_done());
 *   - a FullMember or NonMember membership: nothing (the stack's, or the
 *     all-multicast mode's, ipc_am_group()).
 */
void ipc_mc_notice(struct ipc_mc *m, const struct ipc_mc_cfg *c, ipc_u64 now,
		   int created, struct ipc_result *r);
/* The broadcast group is joined: a HELD group joins now. */
void ipc_mc_bcast_joined(struct ipc_mc *m, const struct ipc_mc_cfg *c,
			 ipc_u64 now, struct ipc_result *r);
/*
 * The broadcast group's join found no group (-ENOENT) and the search
 * (ipc_bsearch_missing()) moves on to another scope or to creating it:
 * not a failure (no backoff, no LOG; do not feed ipc_mc_join_done()).
 * The machine starts over for the next MGID, which the shim has given the
 * entry: the frames queued for the old one are purged (ARP and ND send
 * again), a FullMember join starts. The join that missed holds nothing.
 */
void ipc_mc_bcast_next(struct ipc_mc *m, const struct ipc_mc_cfg *c,
		       ipc_u64 now, struct ipc_result *r);
/*
 * Flush (client reregister, SM change, port active): rejoin what is
 * wanted, after a jittered delay in [0, spread_ms) so that a whole
 * fabric does not ask the SA in the same instant.
 */
void ipc_mc_flush(struct ipc_mc *m, const struct ipc_mc_cfg *c, ipc_u64 now,
		  ipc_u32 spread_ms, struct ipc_rng *rng,
		  struct ipc_result *r);
/*
 * The spread a group's flush takes, of the interface's spread_ms: the
 * broadcast group's is at most IPC_BCAST_SPREAD_MS (the link's ARP and ND
 * go through it, and every other group waits for it), the others' all.
 */
#define IPC_BCAST_SPREAD_MS	1000u
ipc_u32 ipc_mc_flush_spread(ipc_u32 spread_ms, int is_bcast);
/* The join JOIN asked for waits for the SA budget, then is sent (as paths). */
void ipc_mc_join_held(struct ipc_mc *m, struct ipc_result *r);
void ipc_mc_join_sent(struct ipc_mc *m, const struct ipc_mc_cfg *c,
		      ipc_u64 now, struct ipc_result *r);
/*
 * The SA budget's class of the join this group asks (enum ipc_sa_class):
 * is_bcast says whether it is the broadcast group.
 */
int ipc_mc_sa_class(const struct ipc_mc *m, int is_bcast);
/* Tear down: DETACH, LEAVE, PURGE_QUEUE as needed; FREE always. */
void ipc_mc_destroy(struct ipc_mc *m, struct ipc_result *r);
/*
 * The shim's group table is full (it bounds it: review M3). Returns 1 if
 * m may be given up to make room, with ipc_mc_destroy(), 0 if not. Never
 * a group the stack subscribed FULL (the stack's to leave), one holding
 * packets (they wait for it), or one with a join outstanding (JOINING,
 * LEAVING). IDLE, MISSING, BACKOFF and HELD groups are (no membership
 * held: a cached absence, a retry or a wait is forgotten), as is a
 * send-only membership unused for c->evict_idle_ms. A NonMember
 * membership (s11) is not: the all-multicast mode holds it. A state out
 * of range is. Reads m only.
 */
int ipc_mc_evictable(const struct ipc_mc *m, const struct ipc_mc_cfg *c,
		     ipc_u64 now);
void ipc_mc_view(const struct ipc_mc *m, struct ipc_view *v);
ipc_u64 ipc_mc_deadline(const struct ipc_mc *m);
/* 1 if a subscription of type (enum ipc_join_type bits) is wanted. */
int ipc_mc_wanted(const struct ipc_mc *m, int type);
/* 1 while the group is known not to exist (a send-only join refused). */
int ipc_mc_missing(const struct ipc_mc *m);
/*
 * 1 if a frame sent now would start a SendOnlyNonMember join (s10): the
 * group is not held and no cached absence stands. A stack subscription
 * that has not reached the core yet (the shim syncs the device's list
 * later) is handed over first, so that a member joins as FullMember and
 * never as a sender of a group it belongs to. Reads m only.
 */
int ipc_mc_tx_joins(const struct ipc_mc *m, ipc_u64 now);

/* ------------------------------------------------------------------ */
/* SA request budget: one per port, for every interface on it            */
/* ------------------------------------------------------------------ */
/*
 * On a large fabric the SA is the shared resource every node leans on
 * at the same moments (an SM failover, a client reregister): a node
 * that asks for all it lost at once is one of thousands doing the same.
 * Every SA request of a port (path queries, joins, the all-multicast
 * mode's MADs) spends a token of one bucket: rate tokens a second, at
 * most burst saved up. A request without a token waits, by class: the
 * broadcast group first (the link is down without it), then groups and
 * paths with frames waiting, then the rest (revalidations, rejoins of
 * groups nobody is sending to). Within a class the shim keeps the order
 * of arrival.
 */
enum ipc_sa_class {
	IPC_SA_BCAST = 0,	/* the broadcast group's join */
	IPC_SA_WAITING,		/* a group or path with frames waiting */
	IPC_SA_REFRESH,		/* revalidations, rejoins: nothing waits */
	IPC_SA_CLASS_COUNT
};

struct ipc_sa_budget_cfg {
	ipc_u32 rate;		/* tokens a second (>= 1) */
	ipc_u32 burst;		/* tokens saved up at most (>= 1) */
};
/* Defaults: 50 a second, a burst of 128 (the reasoning: budget.cpp). */
void ipc_sa_budget_cfg_default(struct ipc_sa_budget_cfg *c);

struct ipc_sa_budget {
	ipc_s64 milli;		/* tokens x 1000; below 0 after a charge */
	ipc_u64 at_ms;		/* when milli was brought up to date */
	ipc_u32 waiting[IPC_SA_CLASS_COUNT];	/* requests held, by class */
	ipc_u32 pad;
};
/* A full bucket at now. */
void ipc_sa_budget_init(struct ipc_sa_budget *b,
			const struct ipc_sa_budget_cfg *c, ipc_u64 now);
/*
 * A request of class cls wants to go now. 1: it goes (a token spent).
 * 0: it waits (counted held in cls); the shim holds it and asks
 * ipc_sa_budget_next() for it from *retry_at on. A request waits while
 * one of its class or a more important one is held, so that the order
 * of arrival and the order of importance both hold.
 */
int ipc_sa_budget_ask(struct ipc_sa_budget *b,
		      const struct ipc_sa_budget_cfg *c, ipc_u64 now, int cls,
		      ipc_u64 *retry_at);
/*
 * The first held request of class cls asks again. 1: it goes (a token
 * spent, no longer held). 0: not yet (no token, or a more important
 * class is held): ask again from *retry_at.
 */
int ipc_sa_budget_next(struct ipc_sa_budget *b,
		       const struct ipc_sa_budget_cfg *c, ipc_u64 now, int cls,
		       ipc_u64 *retry_at);
/* A held request of class cls is given up (its entry ended it). */
void ipc_sa_budget_withdraw(struct ipc_sa_budget *b, int cls);
/*
 * A request that does not wait went (the all-multicast mode's MADs,
 * which have their own retry): its token is spent all the same, into
 * debt (down to -burst) if need be, so that what follows waits longer.
 */
void ipc_sa_budget_charge(struct ipc_sa_budget *b,
			  const struct ipc_sa_budget_cfg *c, ipc_u64 now);

/* ------------------------------------------------------------------ */
/* Interface link machine                                               */
/* ------------------------------------------------------------------ */
enum ipc_event {
	IPC_EV_PORT_ACTIVE = 0,
	IPC_EV_PORT_ERR,
	IPC_EV_LID_CHANGE,
	IPC_EV_PKEY_CHANGE,
	IPC_EV_GID_CHANGE,
	IPC_EV_SM_CHANGE,
	IPC_EV_CLIENT_REREGISTER,
	IPC_EV_COUNT
};

enum ipc_flush_level {
	IPC_FLUSH_NONE = 0,
	IPC_FLUSH_LIGHT,	/* paths invalid, multicast rejoined */
	IPC_FLUSH_NORMAL,	/* light + interface down/up */
	IPC_FLUSH_HEAVY		/* normal + P_Key index re-read */
};

/* The flush level for an event (the reason is commented in the core). */
int ipc_event_flush_level(int event);
const char *ipc_event_name(int event);

/* In the order the shim performs them. */
#define IPC_LINK_ACT_CARRIER_OFF	0x01u
#define IPC_LINK_ACT_LEAVE_ALL		0x02u	/* leave every group, flush paths */
#define IPC_LINK_ACT_REREAD_GID		0x04u	/* dev_addr must follow the port GID */
#define IPC_LINK_ACT_REREAD_PKEY	0x08u
#define IPC_LINK_ACT_FLUSH_PATHS	0x10u
#define IPC_LINK_ACT_REJOIN_ALL		0x20u
#define IPC_LINK_ACT_JOIN_BCAST		0x40u	/* start the broadcast join */
#define IPC_LINK_ACT_CARRIER_ON		0x80u

/*
 * A new hardware address is announced (gratuitous ARP, unsolicited NA)
 * IPC_ANNOUNCE_COUNT times, IPC_ANNOUNCE_INTERVAL_MS apart: RFC 4861
 * s7.2.6 allows MAX_NEIGHBOR_ADVERTISEMENT (3) unsolicited NAs, and one
 * frame can be lost while the port under the link settles (RFC 5227 s2.3
 * announces twice for the same reason).
 */
#define IPC_ANNOUNCE_COUNT		3u
#define IPC_ANNOUNCE_INTERVAL_MS	1000u

/*
 * A datapath that failed (the UD QP in the error state) is restarted at
 * once, unless it failed within IPC_RESTART_SETTLE_MS of its last
 * restart: then after a delay that doubles each time, from
 * IPC_RESTART_BASE_MS up to IPC_RESTART_CAP_MS (with equal jitter), so
 * that an adapter that fails again at once costs one restart, one
 * broadcast join and one log line a minute, not a loop.
 */
#define IPC_RESTART_SETTLE_MS		30000u
#define IPC_RESTART_BASE_MS		1000u
#define IPC_RESTART_CAP_MS		60000u

struct ipc_link {
	ipc_u8 admin_up;	/* ndo_open .. ndo_stop */
	ipc_u8 port_active;
	ipc_u8 pkey_present;	/* our P_Key is in the port's table */
	ipc_u8 bcast_state;	/* 0 none, 1 joining, 2 joined, 3 failed */
	ipc_u8 carrier;
	ipc_u8 failed;		/* the datapath failed: down until stopped */
	ipc_u8 restarts;	/* restarts in a row, each soon after the last */
	ipc_u8 restarted;	/* restart_at is set */
	ipc_u64 restart_at;	/* when the last restart was due (ms) */
};
void ipc_link_init(struct ipc_link *l);
/*
 * Each fills r: r->actions the IPC_LINK_ACT_* the shim performs, in bit
 * order; r->deadline_ms IPC_NO_DEADLINE but after ipc_link_failed().
 */
void ipc_link_open(struct ipc_link *l, struct ipc_result *r);
/* Down: the carrier goes off, whatever it was (CARRIER_OFF always). */
void ipc_link_stop(struct ipc_link *l, struct ipc_result *r);
void ipc_link_port_state(struct ipc_link *l, int active, int pkey_present,
			 struct ipc_result *r);
void ipc_link_bcast_done(struct ipc_link *l, int status,
			 struct ipc_result *r);
/*
 * The port events that came since the last call: bit (1 << IPC_EV_*) of
 * each, taken in event order, their actions merged.
 */
void ipc_link_events(struct ipc_link *l, ipc_u32 events,
		     struct ipc_result *r);
/*
 * The datapath failed at now (ms): carrier off until the shim restarts it
 * (ipc_link_stop(), then ipc_link_open(), which start the link afresh).
 * r->deadline_ms is when to restart: now for at once, otherwise after a
 * backoff (IPC_RESTART_*). While the interface is down there is nothing
 * to restart: no action, now. Told again before the restart, it changes
 * nothing and answers the same deadline.
 */
void ipc_link_failed(struct ipc_link *l, ipc_u64 now, struct ipc_rng *rng,
		     struct ipc_result *r);

/*
 * Why the carrier is what it is, for the administrator (netlink, the
 * link event): the first reason that holds, in the order below. The
 * values are the uapi's enum ipoib_ng_link_why.
 */
enum ipc_link_why {
	IPC_LINK_WHY_UP = 0,
	IPC_LINK_WHY_ADMIN_DOWN,
	IPC_LINK_WHY_PORT_DOWN,
	IPC_LINK_WHY_NO_PKEY,
	IPC_LINK_WHY_BCAST_JOINING,
	IPC_LINK_WHY_BCAST_FAILED,
	IPC_LINK_WHY_DATAPATH_FAILED,
};
int ipc_link_why(const struct ipc_link *l);

/*
 * The search for the broadcast group (RFC 4391 s4.1: "searching for a
 * broadcast-GID of ever greater scope by first starting with the local
 * scope"; the link-multicast draft: "SHOULD always look for a MGID of a
 * link-local scope first"): link-local, site, organization, global. Each
 * time the SA says the group of s->scope does not exist, ask for the next
 * step. After the widest scope, the link-local group is created if the
 * administrator allows it, else the search starts over after the group
 * machine's backoff.
 */
enum ipc_bsearch_step {
	IPC_BSEARCH_TRY = 0,	/* join the group of s->scope now */
	IPC_BSEARCH_CREATE,	/* join s->scope (link-local), creating it */
	IPC_BSEARCH_WAIT,	/* none: s->scope is link-local again, retry later */
};
struct ipc_bsearch {
	ipc_u8 scope;		/* the broadcast-GID's scop bits now */
	ipc_u8 creating;	/* the current join carries creation parameters */
	ipc_u8 pad[2];
};
void ipc_bsearch_start(struct ipc_bsearch *s);
int ipc_bsearch_missing(struct ipc_bsearch *s, int create_allowed);
/*
 * What the join that creates the link-local broadcast group (the search's
 * IPC_BSEARCH_CREATE) gives the SA: a controlled Q_Key (s4.1: the high
 * bit set, RECOMMENDED; the low bits 0x0b1b, the Q_Key SMs give IPoIB
 * groups), the port's MTU but at most 2048 bytes (every HCA has it), SL
 * 0; the SA picks the rate.
 */
#define IPC_BCAST_CREATE_QKEY	0x80000b1bu
#define IPC_BCAST_CREATE_MTU_MAX	2048u
struct ipc_bcast_create {
	ipc_u32 qkey;
	ipc_u32 mtu_bytes;
	ipc_u8 sl;
	ipc_u8 pad[3];
};
void ipc_bsearch_create_params(ipc_u32 port_mtu_bytes,
			       struct ipc_bcast_create *out);

/* ------------------------------------------------------------------ */
/* Connected mode (RFC 4755)                                            */
/* ------------------------------------------------------------------ */
/*
 * s3.5: a node in connected mode listens on the Service ID made of the
 * IETF prefix and its UD QPN (the QPN in its link-layer address), so a
 * peer finds it from the address alone.
 */
#define IPC_CM_SID_IETF		0x1000000000000000ull
ipc_u64 ipc_cm_service_id(ipc_u32 ud_qpn);

/*
 * s6: the private data of the REQ and of the REP: the sender's UD QPN
 * (a 32-bit field, its high 8 bits reserved) and its receive MTU: the
 * largest IPoIB-CM frame, 4-octet header included, it accepts on this
 * connection. Both in network byte order.
 */
#define IPC_CM_PRIV_LEN		8u
/* The largest frame we take: IPC_MTU_CM_MAX plus the header. */
#define IPC_CM_RX_MAX		(IPC_MTU_CM_MAX + IPC_HDR_LEN)
void ipc_cm_priv_build(ipc_u32 ud_qpn, ipc_u32 rx_mtu, ipc_u8 out[8]);
/*
 * Parse a peer's private data (len bytes; the CM pads it). Returns 0 with
 * the UD QPN and the frame size we may send, min(its receive MTU,
 * IPC_CM_RX_MAX), or -IPC_EPROTO: too short, a QPN of 0 or the multicast
 * QPN, or a receive MTU that cannot hold the smallest IPv4 packet.
 */
int ipc_cm_priv_parse(const ipc_u8 *buf, ipc_u32 len, ipc_u32 *ud_qpn,
		      ipc_u32 *frame_max);

/*
 * Partitions (IBA s10.9): may an interface of P_Key if_pkey use connected
 * mode (1) or not (0)? On RoCE only the default partition may: RC has no
 * Q_Key, which is what keeps RoCE partitions apart. And is a REQ whose
 * primary path carries req_pkey for this interface (1), or from another
 * partition, to be rejected (0)?
 */
int ipc_cm_pkey_allowed(ipc_u16 if_pkey, int roce);
int ipc_cm_req_pkey_ok(ipc_u16 req_pkey, ipc_u16 if_pkey, int roce);

/*
 * May a REQ from peer address A make a connection to us (review 2026-12
 * H3)? The address is the sender's to write (its private data's QPN and
 * its path's GID), so a REQ naming a peer whose connection received
 * within IPC_CM_REQ_HOLD_MS is refused, never allowed to replace it: a
 * peer that really restarted gets through once its old connection has
 * been quiet that long, or is gone. count is every connection to us that
 * still has a QP, retired ones included, so that max bounds the QPs.
 * have_old: A has a live connection, which received last at
 * old_last_rx_ms.
 */
#define IPC_CM_REQ_HOLD_MS	4000u
enum ipc_cm_admit {
	IPC_CM_ADMIT = 0,	/* a new connection */
	IPC_CM_ADMIT_REPLACE,	/* a new one; A's old one is retired */
	IPC_CM_REFUSE_FULL,	/* max connections (or QPs) already */
	IPC_CM_REFUSE_LIVE,	/* A's connection is in use */
};
enum ipc_cm_admit ipc_cm_req_admit(ipc_u32 count, ipc_u32 max, int have_old,
				   ipc_u64 old_last_rx_ms, ipc_u64 now_ms);

/*
 * One connection we initiate, per peer address (QPN and GID): this node
 * sends on it; the peer's connection to us, if any, is its own (s3.3
 * allows one in each direction, and each side sends on the one it made).
 *
 *   IDLE       --tx--> CONNECTING (CONNECT, QUEUE)
 *   CONNECTING --REP ok--> CONNECTED (FLUSH_QUEUE)
 *   CONNECTING --REJ/error/timeout--> FAILED (DISCONNECT, FLUSH_QUEUE)
 *   CONNECTED  --tx--> SEND (frame fits the peer's MTU) or DROP TOO_BIG
 *   CONNECTED  --broken (DREQ, QP error)--> IDLE (DISCONNECT)
 *   FAILED     --tx--> VIA_UD (fits the UD MTU) or DROP TOO_BIG
 *   FAILED     --backoff over--> IDLE (the next frame connects again)
 *   CONNECTED, IDLE, FAILED --idle_ms unused--> FREE (DISCONNECT)
 *
 * While it fails the peer is still reached over UD (datagram mode is
 * what every IPoIB node speaks, RFC 4391), with datagram-sized frames.
 * The queue is accounted as for paths (core.hpp queue_hold()).
 */
/* IPC_ACT_CONNECT, IPC_ACT_DISCONNECT, IPC_ACT_VIA_UD: with the others. */

enum ipc_cm_state {
	IPC_CM_IDLE = 0,
	IPC_CM_CONNECTING,
	IPC_CM_CONNECTED,
	IPC_CM_FAILED,
	IPC_CM_STATE_COUNT
};

struct ipc_cm_cfg {
	ipc_u16 queue_max;	/* frames held while connecting */
	ipc_u16 pad;
	ipc_u32 connect_timeout_ms;	/* REQ to established, else failed */
	ipc_u32 idle_ms;	/* unused this long: closed and freed */
	struct ipc_backoff_cfg backoff;	/* after a failure, UD until then */
};
void ipc_cm_cfg_default(struct ipc_cm_cfg *c);

struct ipc_cm {
	ipc_u8 state;		/* enum ipc_cm_state */
	ipc_u8 attempts;	/* failed connects in a row */
	ipc_u16 queued;
	ipc_u32 frame_max;	/* CONNECTED: the peer's receive MTU */
	ipc_s32 last_status;
	ipc_u32 pad;
	ipc_u64 deadline_ms;
	ipc_u64 last_used_ms;
};
void ipc_cm_init(struct ipc_cm *c);
/*
 * A frame of len bytes (IPoIB header and payload) to the peer. ud_max is
 * the largest frame the UD QP carries (link MTU + 4). SEND means over the
 * connection. DROP with IPC_R_TOO_BIG: tell the sender the largest frame
 * ipc_cm_frame_max() gives (ICMP "fragmentation needed", "packet too big").
 */
void ipc_cm_tx(struct ipc_cm *c, const struct ipc_cm_cfg *cfg, ipc_u64 now,
	       ipc_u32 len, ipc_u32 ud_max, struct ipc_result *r);
/* The largest frame that goes to this peer now. */
ipc_u32 ipc_cm_frame_max(const struct ipc_cm *c, ipc_u32 ud_max);
/*
 * The REQ was answered: status 0 with the frame size from the REP's
 * private data (ipc_cm_priv_parse()), or -errno (REJ, timeout, bad REP).
 */
void ipc_cm_connect_done(struct ipc_cm *c, const struct ipc_cm_cfg *cfg,
			 ipc_u64 now, int status, ipc_u32 frame_max,
			 struct ipc_rng *rng, struct ipc_result *r);
/* The connection broke: DREQ received, QP error, a send failed. */
void ipc_cm_broken(struct ipc_cm *c, const struct ipc_cm_cfg *cfg,
		   ipc_u64 now, struct ipc_result *r);
void ipc_cm_timer(struct ipc_cm *c, const struct ipc_cm_cfg *cfg, ipc_u64 now,
		  struct ipc_rng *rng, struct ipc_result *r);
/*
 * Tear down (interface down, mode change): DISCONNECT, PURGE_QUEUE as
 * needed; FREE always.
 */
void ipc_cm_destroy(struct ipc_cm *c, struct ipc_result *r);
void ipc_cm_view(const struct ipc_cm *c, struct ipc_view *v);
ipc_u64 ipc_cm_deadline(const struct ipc_cm *c);
/* 1 while connected: frames go over the connection. */
int ipc_cm_connected(const struct ipc_cm *c);
/* 1 after a failed connect, while the peer is reached over UD. */
int ipc_cm_failed(const struct ipc_cm *c);

/* ------------------------------------------------------------------ */
/* Promiscuous multicast for routers (RFC 4391 s11) and its SA MADs     */
/* ------------------------------------------------------------------ */

/*
 * SA MADs (IBA s13.4, s15.2): 256 bytes, the common MAD header (24), the
 * RMPP header (12), the SA header (20: SM_Key, AttributeOffset,
 * ComponentMask), then data. The MAD layer fills nothing but the RMPP
 * fields of a multi-segment send.
 */
#define IPC_MAD_LEN		256u
#define IPC_SA_HDR_LEN		56u
#define IPC_SA_NOTICE_GID_OFF	16u	/* traps 64-67: the GID in the data */
enum ipc_sa_trap {
	IPC_TRAP_MCG_CREATED = 66,	/* IBA s14.2.5.1, trap 66 */
	IPC_TRAP_MCG_DELETED = 67,
};
/*
 * s11 A: SubnAdmGetTable(MCMemberRecord), no component: every group the
 * SA knows (a non-trusted requester sees one record a group).
 */
void ipc_sa_mcmember_table_req(ipc_u8 mad[256], ipc_u64 tid);
/*
 * The reassembled SubnAdmGetTableResp of that query (SA header + records,
 * len bytes). *pos starts at 0; each call gives the next record's MGID.
 * Returns 1 (mgid filled), 0 (no more), -IPC_EPROTO (not our response, a
 * MAD status, a bad AttributeOffset).
 */
int ipc_sa_mcmember_table_next(const ipc_u8 *buf, ipc_u32 len, ipc_u64 tid,
			       ipc_u32 *pos, ipc_u8 mgid[16]);
/*
 * s11 C: SubnAdmSet(InformInfo), generic, any producer and type, trap 66
 * (MC group created) or 67, for every LID, reported to QP 1.
 * subscribe 0 cancels the subscription.
 */
void ipc_sa_inform_req(ipc_u8 mad[256], ipc_u64 tid, int trap,
		       int subscribe);
/* The SubnAdmGetResp(InformInfo) for tid: 0, or -IPC_EPROTO. */
int ipc_sa_inform_resp_check(const ipc_u8 *mad, ipc_u32 len, ipc_u64 tid);
/*
 * Whether a SubnAdmReport came from the SA: sent from the port's SM LID
 * (IBA s15.2: the SA lives there) on the default partition (IBA s15.2.5:
 * the SA answers on it), the partition's membership bit ignored. QP 1
 * takes MADs from any node of any partition the port shares: a Report
 * from elsewhere is a forgery (review M3: trap 66 made NonMember groups,
 * trap 67 left real ones). 1 or 0.
 */
int ipc_sa_report_source_ok(ipc_u16 slid, ipc_u16 sm_lid, ipc_u16 pkey);

/*
 * The SA's Reports of groups created or deleted (traps 66, 67; s11 C) are
 * acted on at most IPC_NOTICE_RATE a second per port, after a burst of
 * IPC_NOTICE_BURST (a token bucket): each one acted on is a join or a
 * leave at the SA by every interface of the port in the mode, so a storm
 * of them (an SM restarting on a fabric of routers, or one misbehaving)
 * would become a storm of joins (review M3). Every Report is answered
 * still (the SA repeats one it gets no ReportResp for). One beyond the
 * budget is not acted on; once none has been for IPC_NOTICE_QUIET_MS, the
 * directory is read again (s11 A): one table in place of what was missed,
 * and the NonMember groups it no longer lists are left. A storm that does
 * not stop is caught up every IPC_NOTICE_REREAD_MAX_MS.
 */
#define IPC_NOTICE_RATE		10u
#define IPC_NOTICE_BURST	64u
#define IPC_NOTICE_QUIET_MS	2000u
#define IPC_NOTICE_REREAD_MAX_MS	10000u
struct ipc_notice_rate {
	ipc_u64 at;		/* ms of the last refill */
	ipc_u64 refused_at;	/* ms of the last Report refused */
	ipc_u64 series_at;	/* ms of the first refused since a quiet */
	ipc_u32 tokens;		/* thousandths of a Report */
	ipc_u8 refused;		/* refused_at and series_at are set */
	ipc_u8 pad[3];
};
void ipc_notice_rate_init(struct ipc_notice_rate *n, ipc_u64 now);
/* A Report at now (ms): 1 to act on it, 0 not (refused). */
int ipc_notice_admit(struct ipc_notice_rate *n, ipc_u64 now);
/*
 * An unsolicited SubnAdmReport(Notice). Returns the trap number (mgid
 * filled for traps 64-67) or -IPC_EPROTO. resp (256 bytes) gets the
 * SubnAdmReportResp the SA waits for (same TID and Notice).
 */
int ipc_sa_notice_parse(const ipc_u8 *mad, ipc_u32 len, ipc_u8 mgid[16],
			ipc_u8 resp[256]);

/*
 * The SA's group notices, one machine per interface (the shim's memory,
 * under the lock it keeps its groups under). Two parts:
 *   - s10: "Senders MUST subscribe to the multicast group create and
 *     delete traps": with notices (module parameter sa_notices), every
 *     interface that is up on a port with an SA subscribes to traps 66
 *     and 67 (InformInfo), so that its send-only memberships and cached
 *     absences follow the groups (ipc_mc_notice()). Not by default: the
 *     subscription is to every group of the fabric, so each group made or
 *     deleted becomes a Report to every subscribed port, N^2 Reports for
 *     N nodes that each make a group at boot (IPv6's solicited-node
 *     groups);
 *   - s11 (the directory part, "dir"): in the all-multicast mode it also
 *     reads the SA's list of groups and NonMember joins those of its link.
 * The shim performs the actions of a result in bit order (IPC_AM_ACT_*)
 * and tells the outcome of each that has one; it calls ipc_am_sync()
 * whenever the flags may have changed and at r->deadline_ms.
 *
 *   OFF      --sync: up, an SA, notices or mode--> STARTING  START_AGENT
 *   STARTING --started(0)------------------------> QUERYING  SUBSCRIBE, READ if dir
 *   QUERYING --the answers awaited, all good-----> ON        (SWEEP after the table)
 *   ON       --sync: the mode entered------------> QUERYING  READ
 *   ON       --sync: dir, Reports refused since
 *              the read, the notice rate says so-> QUERYING  READ
 *   any      --sync: the mode left, notices on---> (same)    LEAVE_ALL
 *   STARTING/QUERYING/ON --a failure-------------> BACKOFF   LOG
 *   BACKOFF  --sync at the deadline--------------> STARTING or QUERYING, as after it
 *   QUERYING/ON/BACKOFF --flushed----------------> BACKOFF   (deadline jittered)
 *   any      --sync: down, no SA, or neither
 *              notices nor mode------------------> OFF       UNSUBSCRIBE, STOP_AGENT,
 *                                                            LEAVE_ALL, as held
 *
 * UNSUBSCRIBE only for subscriptions the SA accepted and no flush or
 * failure may have lost since (it logs a cancellation of one it does not
 * have), and only by the last interface of the port that holds them:
 * the requests go on the default partition, so the SA keeps one
 * subscription per port, whichever interface asked.
 *
 * A failure is a request not sent, an SA that answered with an error or
 * not at all, or no MAD agent. The retry waits ipc_backoff_ms() of
 * IPC_AM_RETRY_BASE_MS .. IPC_AM_RETRY_CAP_MS, jittered, so that the
 * nodes of a fabric that lost its SA together do not come back
 * together; it starts over (the subscriptions may be lost with what
 * failed). The first good answer of a series ends it. A flush (client
 * reregister, SM change: the SA may have lost the subscriptions) starts
 * over too, after a delay drawn from [0, spread_ms), as the rejoins are.
 */
enum ipc_am_state {
	IPC_AM_OFF = 0,		/* down, or no SA: no agent, no group */
	IPC_AM_STARTING,	/* START_AGENT asked, ipc_am_started() awaited */
	IPC_AM_QUERYING,	/* requests out: answers awaited */
	IPC_AM_ON,		/* subscribed (and, with dir, the directory read) */
	IPC_AM_BACKOFF,		/* a failure, or a flush: again at the deadline */
	IPC_AM_STATE_COUNT
};
#define IPC_AM_ACT_UNSUBSCRIBE	0x01u	/* cancel the traps 66, 67 subscriptions (no answer awaited) */
#define IPC_AM_ACT_STOP_AGENT	0x02u	/* unregister the MAD agent: no answer after it */
#define IPC_AM_ACT_LEAVE_ALL	0x04u	/* ipc_am_leave() every group the shim has */
#define IPC_AM_ACT_START_AGENT	0x08u	/* register it, then ipc_am_started() */
#define IPC_AM_ACT_SUBSCRIBE	0x10u	/* InformInfo, traps 66 then 67 */
#define IPC_AM_ACT_READ		0x20u	/* the directory's table, a new read (ipc_am_gen()) */
#define IPC_AM_ACT_SWEEP	0x40u	/* ipc_am_sweep() every group the shim has */
#define IPC_AM_ACT_LOG		0x80u	/* one line, the reason in r->reason (IPC_AM_LOG_*) */
enum ipc_am_log {
	IPC_AM_LOG_NO_SA = 1,	/* the mode wanted, but the port has no SA (RoCE): once */
	IPC_AM_LOG_FAILED,	/* the status the shim gave; again at r->deadline_ms */
};
#define IPC_AM_RETRY_BASE_MS	5000u
#define IPC_AM_RETRY_CAP_MS	300000u
/* The mode's NonMember groups take at most 1/IPC_AM_GROUPS_SHARE of the table. */
#define IPC_AM_GROUPS_SHARE	2u

struct ipc_am {
	ipc_u8 state;		/* enum ipc_am_state */
	ipc_u8 pending;		/* answers awaited: table, traps 66, 67 */
	ipc_u8 attempts;	/* failures in a row */
	ipc_u8 agent;		/* START_AGENT succeeded, no STOP_AGENT since */
	ipc_u8 dir;		/* the all-multicast mode: the directory part is on */
	ipc_u8 told;		/* IPC_AM_LOG_NO_SA said */
	ipc_u8 subscribed;	/* both subscriptions answered good, none lost since */
	ipc_u8 pad;
	ipc_u32 gen;		/* directory reads asked for */
	ipc_u32 groups;		/* NonMember memberships the mode holds */
	ipc_u64 read_at;	/* ms of the last READ */
	ipc_u64 deadline_ms;	/* the retry, or the next re-read */
};
void ipc_am_init(struct ipc_am *am);

/* What ipc_am_sync() looks at. */
struct ipc_am_flags {
	ipc_u8 up;		/* the interface is up (its link machine's admin_up) */
	ipc_u8 allmulti;	/* IFF_ALLMULTI */
	ipc_u8 promisc;		/* IFF_PROMISC */
	ipc_u8 promisc_too;	/* module parameter promisc_allmulti */
	ipc_u8 has_sa;		/* the port has an SA with a group directory (IB) */
	ipc_u8 notices;		/* module parameter sa_notices: s10 for every sender */
	ipc_u8 shared;		/* another interface of the port holds the subscription */
	ipc_u8 pad;
};
/*
 * The flags (rate: the port's Reports, for the re-read) at now. Up on a
 * port with an SA, with notices, the interface subscribes (s10). s11 is
 * the promiscuous
 * MULTICAST mode routers need, which Linux calls IFF_ALLMULTI (ip link
 * set allmulticast on; multicast routing sets it). IFF_PROMISC alone is
 * what tcpdump sets: it enters the mode only with promisc_too, since on a
 * large fabric the mode NonMember-joins every IPoIB group of the link
 * (review M3).
 */
void ipc_am_sync(struct ipc_am *am, const struct ipc_am_flags *f,
		 const struct ipc_notice_rate *rate, ipc_u64 now,
		 struct ipc_result *r);
/*
 * Stop now, whatever the flags: the interface is going down. can_send:
 * its requests can still go; shared: another interface of the port holds
 * the subscription (ipc_am_flags.shared), which is then not cancelled.
 */
void ipc_am_stop(struct ipc_am *am, int can_send, int shared,
		 struct ipc_result *r);
/* The outcome of START_AGENT: 0 or -errno. */
void ipc_am_started(struct ipc_am *am, int status, ipc_u64 now,
		    struct ipc_rng *rng, struct ipc_result *r);
/*
 * A request of SUBSCRIBE or READ was not sent (-errno): the shim sends
 * none of the rest of the result. -IPC_ENETDOWN: the port has no SM yet,
 * which is no failure: asked again after IPC_AM_RETRY_BASE_MS, unlogged
 * and uncounted, and after the flush the port's activation brings
 * (ipc_am_flushed(), within its spread).
 */
void ipc_am_unsent(struct ipc_am *am, int status, ipc_u64 now,
		   struct ipc_rng *rng, struct ipc_result *r);
/*
 * The answer to a request: which is 0 for the table, or the trap of a
 * subscription; status 0 for a good one, else -errno (an error status,
 * a timeout). Returns 1 if it was awaited, 0 for one that is not (the
 * mode left, a failure since): then r has nothing.
 */
int ipc_am_answer(struct ipc_am *am, int which, int status, ipc_u64 now,
		  struct ipc_rng *rng, struct ipc_result *r);
/*
 * The link was flushed: the SA may have lost the subscriptions (client
 * reregister) and the memberships are made again. The machine starts
 * over after a delay drawn from [0, spread_ms) (rng), so that a fabric's
 * nodes do not subscribe again in the same instant. 1 if the shim is to
 * call ipc_am_sync() (the machine runs), else 0.
 */
int ipc_am_flushed(struct ipc_am *am, ipc_u64 now, ipc_u32 spread_ms,
		   struct ipc_rng *rng);
/* The read in flight, or the last: the shim marks the groups it lists. */
ipc_u32 ipc_am_gen(const struct ipc_am *am);
/* v->want is 1 while the directory part (the all-multicast mode) is on. */
void ipc_am_view(const struct ipc_am *am, struct ipc_view *v);

/* What a group decision of the mode needs of the interface. */
struct ipc_am_link {
	const ipc_u8 *bcast_gid;	/* 16 bytes: this link's signature */
	const struct ipc_mc_cfg *mc_cfg;
	ipc_u32 groups_max;	/* the interface's group table */
	ipc_u32 pad;
	ipc_u64 now;
};
#define IPC_AM_GROUP_CREATE	1	/* make an entry (evicting none), ask again */
/*
 * A group the directory lists (listed 1) or a Report announces (trap 66:
 * listed 1, trap 67: 0), for the mode (dir; else nothing). s11 B: a router joins as NonMember the groups
 * with an IPv4 or IPv6 signature (s4) and this link's P_Key and scope,
 * not the broadcast group (FullMember already). mc is the shim's entry
 * for mgid or NULL; *mc_gen the read that last listed it, which the shim
 * keeps beside it. Returns IPC_AM_GROUP_CREATE (no entry yet, and room
 * for one: review M3, the mode's NonMember groups, which nothing evicts
 * while joined, take at most a share of the table), or 0 with r the
 * entry's result (a NonMember subscribe or unsubscribe, or nothing).
 */
int ipc_am_group(struct ipc_am *am, const struct ipc_am_link *k,
		 const ipc_u8 mgid[16], int listed, struct ipc_mc *mc,
		 ipc_u32 *mc_gen, struct ipc_result *r);
/*
 * SWEEP, for each entry: one whose NonMember membership the last read
 * did not list, and that no Report created since it began, is gone from
 * the SA (a trap 67 lost, or beyond the rate): r leaves it.
 */
void ipc_am_sweep(struct ipc_am *am, const struct ipc_am_link *k,
		  struct ipc_mc *mc, ipc_u32 mc_gen, struct ipc_result *r);
/* LEAVE_ALL, for each entry: r leaves the mode's membership, if any. */
void ipc_am_leave(struct ipc_am *am, const struct ipc_am_link *k,
		  struct ipc_mc *mc, struct ipc_result *r);
/* An entry is freed (evicted, torn down): its membership is uncounted. */
void ipc_am_forget(struct ipc_am *am, const struct ipc_mc *mc);

#ifdef __cplusplus
}
#endif

#endif /* IPOIB_CORE_H */
