/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace.h - the driver's tracepoints, for perf and tracefs
 * (/sys/kernel/tracing/events/ipoib_ng/): what the SA (or on RoCE the
 * neighbour resolution) was asked and answered, the state a path took,
 * the joins and leaves of groups, connections up and down, and each
 * dropped frame with its reason. Made in genl.c (CREATE_TRACE_POINTS),
 * beside the netlink events they mirror. The KUnit module's copies are
 * in a system of their own, so that both modules can be loaded.
 */
#undef TRACE_SYSTEM
#ifdef IPN_KUNIT
#define TRACE_SYSTEM ipoib_ng_kunit
#else
#define TRACE_SYSTEM ipoib_ng
#endif

#if !defined(IPN_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define IPN_TRACE_H

#include <linux/netdevice.h>
#include <linux/tracepoint.h>

/* A request to the SA (InfiniBand) or to rdma_resolve_ip (RoCE). */
TRACE_EVENT(ipoib_ng_sa_request,
	TP_PROTO(const struct net_device *dev, const char *what,
		 const u8 *gid),
	TP_ARGS(dev, what, gid),
	TP_STRUCT__entry(
		__string(dev, dev->name)
		__string(what, what)
		__array(u8, gid, 16)
	),
	TP_fast_assign(
		ipn_assign_str(dev, dev->name);
		ipn_assign_str(what, what);
		memcpy(__entry->gid, gid, 16);
	),
	TP_printk("dev=%s %s gid=%pI6c", __get_str(dev), __get_str(what),
		  __entry->gid)
);

/* Its answer: status 0 or an errno. */
TRACE_EVENT(ipoib_ng_sa_answer,
	TP_PROTO(const struct net_device *dev, const char *what,
		 const u8 *gid, int status),
	TP_ARGS(dev, what, gid, status),
	TP_STRUCT__entry(
		__string(dev, dev->name)
		__string(what, what)
		__array(u8, gid, 16)
		__field(int, status)
	),
	TP_fast_assign(
		ipn_assign_str(dev, dev->name);
		ipn_assign_str(what, what);
		memcpy(__entry->gid, gid, 16);
		__entry->status = status;
	),
	TP_printk("dev=%s %s gid=%pI6c status=%d", __get_str(dev),
		  __get_str(what), __entry->gid, __entry->status)
);

/* The state the core's path machine took after an answer. */
TRACE_EVENT(ipoib_ng_path_state,
	TP_PROTO(const struct net_device *dev, const u8 *gid,
		 const char *state),
	TP_ARGS(dev, gid, state),
	TP_STRUCT__entry(
		__string(dev, dev->name)
		__array(u8, gid, 16)
		__string(state, state)
	),
	TP_fast_assign(
		ipn_assign_str(dev, dev->name);
		memcpy(__entry->gid, gid, 16);
		ipn_assign_str(state, state);
	),
	TP_printk("dev=%s gid=%pI6c state=%s", __get_str(dev), __entry->gid,
		  __get_str(state))
);

/* A group joined (status 0) or not, or left (join 0). */
TRACE_EVENT(ipoib_ng_mcast,
	TP_PROTO(const struct net_device *dev, const u8 *mgid, bool left,
		 int join, int status),
	TP_ARGS(dev, mgid, left, join, status),
	TP_STRUCT__entry(
		__string(dev, dev->name)
		__array(u8, mgid, 16)
		__field(bool, left)
		__field(int, join)
		__field(int, status)
	),
	TP_fast_assign(
		ipn_assign_str(dev, dev->name);
		memcpy(__entry->mgid, mgid, 16);
		__entry->left = left;
		__entry->join = join;
		__entry->status = status;
	),
	TP_printk("dev=%s mgid=%pI6c %s join=0x%x status=%d", __get_str(dev),
		  __entry->mgid, __entry->left ? "leave" : "join",
		  __entry->join, __entry->status)
);

/* A connection of connected mode up or down. */
TRACE_EVENT(ipoib_ng_conn,
	TP_PROTO(const struct net_device *dev, const u8 *gid, u32 qpn,
		 bool rx, bool up, int status),
	TP_ARGS(dev, gid, qpn, rx, up, status),
	TP_STRUCT__entry(
		__string(dev, dev->name)
		__array(u8, gid, 16)
		__field(u32, qpn)
		__field(bool, rx)
		__field(bool, up)
		__field(int, status)
	),
	TP_fast_assign(
		ipn_assign_str(dev, dev->name);
		memcpy(__entry->gid, gid, 16);
		__entry->qpn = qpn;
		__entry->rx = rx;
		__entry->up = up;
		__entry->status = status;
	),
	TP_printk("dev=%s gid=%pI6c qpn=0x%06x %s %s status=%d",
		  __get_str(dev), __entry->gid, __entry->qpn,
		  __entry->rx ? "rx" : "tx", __entry->up ? "up" : "down",
		  __entry->status)
);

/* A frame dropped, with the reason ethtool -S counts it under. */
TRACE_EVENT(ipoib_ng_drop,
	TP_PROTO(const struct net_device *dev, int reason, bool tx),
	TP_ARGS(dev, reason, tx),
	TP_STRUCT__entry(
		__string(dev, dev->name)
		__string(reason, ipc_reason_name(reason))
		__field(bool, tx)
	),
	TP_fast_assign(
		ipn_assign_str(dev, dev->name);
		ipn_assign_str(reason, ipc_reason_name(reason));
		__entry->tx = tx;
	),
	TP_printk("dev=%s %s reason=%s", __get_str(dev),
		  __entry->tx ? "tx" : "rx", __get_str(reason))
);

#endif /* IPN_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
