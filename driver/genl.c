// SPDX-License-Identifier: GPL-2.0
/*
 * genl.c - the generic netlink family "ipoib_ng" (uapi/linux/ipoib_ng.h,
 * Documentation/netlink/specs/ipoib_ng.yaml): the interfaces, their
 * paths, groups and connections for ipoibctl and the YNL client, and the
 * events of them for `ipoibctl monitor`.
 *
 * Dumps and gets are open to every user: nothing in them is secret (the
 * same is in ip link, ethtool -S and the fabric's SA). What changes state
 * needs CAP_NET_ADMIN (GENL_ADMIN_PERM). The family is per namespace
 * (netnsok): a dump lists the caller's namespace's interfaces, an event
 * goes to the interface's namespace.
 *
 * Locking: every request takes rtnl, which keeps the interface and its
 * priv alive, then priv->lock for the entries. A dump resumes from its
 * cursor in cb->args: interface, then table bucket and place in it (the
 * tables change between two parts, as every netlink dump's do).
 */
#include <linux/rtnetlink.h>
#include <net/genetlink.h>
#include <rdma/ib_cache.h>
#include <linux/ipoib_ng.h>
#include "ipoib_ng.h"
#define CREATE_TRACE_POINTS
#include "trace.h"

static struct genl_family ipn_genl_family;
/* Registered: the KUnit module's copy never is (ipoib_ng.ko's name). */
static bool ipn_genl_registered;

/* More than the most attributes of any set: the dump filter's table. */
#define IPN_GENL_ATTRS_MAX 32
static_assert(__IPOIB_NG_A_IF_MAX <= IPN_GENL_ATTRS_MAX);
static_assert(__IPOIB_NG_A_PATH_MAX <= IPN_GENL_ATTRS_MAX);
static_assert(__IPOIB_NG_A_GROUP_MAX <= IPN_GENL_ATTRS_MAX);
static_assert(__IPOIB_NG_A_CONN_MAX <= IPN_GENL_ATTRS_MAX);

/* The cursor of a dump in cb->args. */
enum {
	IPN_CB_FILTER,		/* the request's ifindex, 0 for all */
	IPN_CB_DEV,		/* interfaces done */
	IPN_CB_PHASE,		/* conns: 0 ours, 1 the peers' */
	IPN_CB_BKT,		/* bucket of a hash table */
	IPN_CB_IDX,		/* entries done in the bucket or list */
	IPN_CB_IFINDEX,		/* the interface the three above are of */
};

/* The core's values are the uapi's (compared as ints: two enums). */
#define IPN_SAME(a, b) ((int)(a) == (int)(b))
static_assert(IPN_SAME(IPOIB_NG_LINK_UP, IPC_LINK_WHY_UP) &&
	      IPN_SAME(IPOIB_NG_LINK_ADMIN_DOWN, IPC_LINK_WHY_ADMIN_DOWN) &&
	      IPN_SAME(IPOIB_NG_LINK_PORT_DOWN, IPC_LINK_WHY_PORT_DOWN) &&
	      IPN_SAME(IPOIB_NG_LINK_NO_PKEY, IPC_LINK_WHY_NO_PKEY) &&
	      IPN_SAME(IPOIB_NG_LINK_BCAST_JOINING,
		       IPC_LINK_WHY_BCAST_JOINING) &&
	      IPN_SAME(IPOIB_NG_LINK_BCAST_FAILED, IPC_LINK_WHY_BCAST_FAILED) &&
	      IPN_SAME(IPOIB_NG_LINK_DATAPATH_FAILED,
		       IPC_LINK_WHY_DATAPATH_FAILED));
static_assert(IPN_SAME(IPOIB_NG_JOIN_FULL, IPC_JOIN_FULL) &&
	      IPN_SAME(IPOIB_NG_JOIN_NON, IPC_JOIN_NON) &&
	      IPN_SAME(IPOIB_NG_JOIN_SENDONLY, IPC_JOIN_SENDONLY));

static const struct nla_policy ipn_if_policy[IPOIB_NG_A_IF_MAX + 1] = {
	[IPOIB_NG_A_IF_IFINDEX] = { .type = NLA_U32 },
};

static const struct nla_policy ipn_path_policy[IPOIB_NG_A_PATH_MAX + 1] = {
	[IPOIB_NG_A_PATH_IFINDEX] = { .type = NLA_U32 },
};

static const struct nla_policy ipn_group_policy[IPOIB_NG_A_GROUP_MAX + 1] = {
	[IPOIB_NG_A_GROUP_IFINDEX] = { .type = NLA_U32 },
};

static const struct nla_policy ipn_conn_policy[IPOIB_NG_A_CONN_MAX + 1] = {
	[IPOIB_NG_A_CONN_IFINDEX] = { .type = NLA_U32 },
};

/* Milliseconds until deadline, or 0 if none or passed. */
static u64 ipn_genl_left(u64 deadline, u64 now)
{
	return deadline != IPC_NO_DEADLINE && deadline > now ?
	       deadline - now : 0;
}

/* The ipoib_ng interface ifindex of net, or NULL with extack's why. rtnl. */
static struct ipn_priv *ipn_genl_priv(struct net *net, u32 ifindex,
				      struct netlink_ext_ack *extack)
{
	struct net_device *dev;

	ASSERT_RTNL();
	dev = __dev_get_by_index(net, ifindex);
	if (!dev) {
		NL_SET_ERR_MSG(extack, "no such interface");
		return NULL;
	}
	if (!ipn_is_ipn_dev(dev)) {
		NL_SET_ERR_MSG(extack, "not an ipoib_ng interface");
		return NULL;
	}
	return netdev_priv(dev);
}

/* ------------------------------------------------------------------ */
/* Interfaces                                                           */
/* ------------------------------------------------------------------ */

/* An interface's message: its counters (name and value), the rest. */
#define IPN_GENL_IF_SIZE (IPN_N_STATS * (2 * NLA_HDRLEN + ETH_GSTRING_LEN + \
					 NLA_HDRLEN + 8) + 1024)

/* The group's attributes (a dump's entry or IPOIB_NG_A_IF_BCAST). */
static int ipn_genl_put_group(struct sk_buff *skb, struct ipn_priv *priv,
			      struct ipn_mcast *mc, u64 now)
{
	u32 owner = 0;
	struct ipc_view st;

	lockdep_assert_held(&priv->lock);
	ipc_mc_view(&mc->st, &st);
	if (mc->is_bcast)
		owner |= IPOIB_NG_OWNER_BROADCAST;
	else if (st.want & IPC_JOIN_FULL)
		owner |= IPOIB_NG_OWNER_STACK;
	if (st.want & IPC_JOIN_SENDONLY)
		owner |= IPOIB_NG_OWNER_SENDONLY;
	if (st.want & IPC_JOIN_NON)
		owner |= IPOIB_NG_OWNER_ALLMULTI;
	if (nla_put_u32(skb, IPOIB_NG_A_GROUP_IFINDEX, priv->dev->ifindex) ||
	    nla_put(skb, IPOIB_NG_A_GROUP_MGID, IPC_GID_LEN, mc->mgid) ||
	    nla_put_string(skb, IPOIB_NG_A_GROUP_STATE, st.state) ||
	    nla_put_u8(skb, IPOIB_NG_A_GROUP_WANT, st.want) ||
	    nla_put_u8(skb, IPOIB_NG_A_GROUP_JOINED, st.joined) ||
	    nla_put_u8(skb, IPOIB_NG_A_GROUP_PENDING, st.pending) ||
	    nla_put_u32(skb, IPOIB_NG_A_GROUP_OWNER, owner) ||
	    nla_put_s32(skb, IPOIB_NG_A_GROUP_STATUS, st.last_status) ||
	    nla_put_u32(skb, IPOIB_NG_A_GROUP_ATTEMPTS, st.attempts) ||
	    nla_put_u32(skb, IPOIB_NG_A_GROUP_QUEUED, st.queued) ||
	    nla_put_u8(skb, IPOIB_NG_A_GROUP_SCOPE, ipc_mgid_scope(mc->mgid)))
		return -EMSGSIZE;
	if (st.deadline_ms != IPC_NO_DEADLINE &&
	    nla_put_u64_64bit(skb, IPOIB_NG_A_GROUP_RETRY,
			      ipn_genl_left(st.deadline_ms, now),
			      IPOIB_NG_A_GROUP_PAD))
		return -EMSGSIZE;
	if (!mc->ah)
		return 0;
	/* Joined: the group's parameters; with an SA, its record's. */
	if (nla_put_u32(skb, IPOIB_NG_A_GROUP_QKEY, priv->qkey))
		return -EMSGSIZE;
	if (!priv->ops->sa_directory)
		return nla_put_u32(skb, IPOIB_NG_A_GROUP_MTU,
				   ipn_port_ib_mtu(priv)) ? -EMSGSIZE : 0;
	if (nla_put_u32(skb, IPOIB_NG_A_GROUP_MTU,
			ipc_ib_mtu_bytes(mc->rec.mtu)) ||
	    nla_put_u8(skb, IPOIB_NG_A_GROUP_SL, mc->rec.sl) ||
	    nla_put_u8(skb, IPOIB_NG_A_GROUP_RATE, mc->rec.rate) ||
	    nla_put_u16(skb, IPOIB_NG_A_GROUP_MLID, be16_to_cpu(mc->rec.mlid)))
		return -EMSGSIZE;
	return 0;
}

static int ipn_genl_put_stats(struct sk_buff *skb, struct ipn_priv *priv)
{
	struct nlattr *stats, *stat;
	u64 *vals;
	u8 name[ETH_GSTRING_LEN];
	unsigned int i;
	int ret = -EMSGSIZE;

	vals = kcalloc(IPN_N_STATS, sizeof(*vals), GFP_KERNEL);
	if (!vals)
		return -ENOMEM;
	ipn_stats_values(priv, vals);
	stats = nla_nest_start(skb, IPOIB_NG_A_IF_STATS);
	if (!stats)
		goto out;
	for (i = 0; i < IPN_N_STATS; i++) {
		ipn_stats_name(i, name, sizeof(name));
		stat = nla_nest_start(skb, IPOIB_NG_A_STAT);
		if (!stat ||
		    nla_put_string(skb, IPOIB_NG_A_STAT_NAME, name) ||
		    nla_put_u64_64bit(skb, IPOIB_NG_A_STAT_VALUE, vals[i],
				      IPOIB_NG_A_STAT_PAD))
			goto out;
		nla_nest_end(skb, stat);
	}
	nla_nest_end(skb, stats);
	ret = 0;
out:
	kfree(vals);
	return ret;
}

/* One interface's message. rtnl held. */
static int ipn_genl_fill_if(struct sk_buff *skb, struct ipn_priv *priv,
			    u32 portid, u32 seq, int flags)
{
	struct net_device *dev = priv->dev;
	struct nlattr *nest;
	int why, ret;
	void *hdr;

	ASSERT_RTNL();
	hdr = genlmsg_put(skb, portid, seq, &ipn_genl_family, flags,
			  IPOIB_NG_CMD_IF_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, IPOIB_NG_A_IF_IFINDEX, dev->ifindex) ||
	    nla_put_string(skb, IPOIB_NG_A_IF_IFNAME, dev->name) ||
	    (priv->parent &&
	     nla_put_u32(skb, IPOIB_NG_A_IF_PARENT, priv->parent->dev->ifindex)) ||
	    nla_put_string(skb, IPOIB_NG_A_IF_IBDEV, dev_name(&priv->ca->dev)) ||
	    nla_put_u32(skb, IPOIB_NG_A_IF_PORT, priv->port) ||
	    nla_put_u16(skb, IPOIB_NG_A_IF_PKEY, priv->pkey) ||
	    nla_put_u16(skb, IPOIB_NG_A_IF_PKEY_INDEX, priv->pkey_index) ||
	    nla_put_u32(skb, IPOIB_NG_A_IF_QPN, priv->ifid.qpn) ||
	    nla_put(skb, IPOIB_NG_A_IF_GID, IPC_GID_LEN, priv->ifid.gid) ||
	    nla_put_u8(skb, IPOIB_NG_A_IF_MODE, priv->cm_mode ?
		       IPOIB_NG_MODE_CONNECTED : IPOIB_NG_MODE_DATAGRAM) ||
	    nla_put_u8(skb, IPOIB_NG_A_IF_UMCAST, priv->umcast) ||
	    nla_put_u8(skb, IPOIB_NG_A_IF_ROCE, priv->roce) ||
	    nla_put_u8(skb, IPOIB_NG_A_IF_LINK_UP, netif_carrier_ok(dev)) ||
	    nla_put_u32(skb, IPOIB_NG_A_IF_MTU, dev->mtu))
		goto cancel;

	spin_lock_bh(&priv->lock);
	why = ipc_link_why(&priv->link);
	ret = nla_put_u32(skb, IPOIB_NG_A_IF_LINK_WHY, why) ||
	      nla_put_u32(skb, IPOIB_NG_A_IF_PATHS, priv->path_count) ||
	      nla_put_u32(skb, IPOIB_NG_A_IF_GROUPS, priv->mc_count);
	if (!ret && priv->bcast) {
		nest = nla_nest_start(skb, IPOIB_NG_A_IF_BCAST);
		ret = !nest || ipn_genl_put_group(skb, priv, priv->bcast,
						  ipn_now_ms());
		if (!ret)
			nla_nest_end(skb, nest);
	}
	spin_unlock_bh(&priv->lock);
	if (ret)
		goto cancel;
	ret = ipn_genl_put_stats(skb, priv);
	if (ret) {
		genlmsg_cancel(skb, hdr);
		return ret;
	}
	genlmsg_end(skb, hdr);
	return 0;

cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static int ipn_genl_if_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ipn_priv *priv;
	struct sk_buff *msg;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, IPOIB_NG_A_IF_IFINDEX))
		return -EINVAL;
	msg = genlmsg_new(IPN_GENL_IF_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	rtnl_lock();
	priv = ipn_genl_priv(genl_info_net(info),
			     nla_get_u32(info->attrs[IPOIB_NG_A_IF_IFINDEX]),
			     info->extack);
	ret = priv ? ipn_genl_fill_if(msg, priv, info->snd_portid,
				      info->snd_seq, 0) : -ENODEV;
	rtnl_unlock();
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return genlmsg_reply(msg, info);
}

/* ------------------------------------------------------------------ */
/* Dumps                                                                */
/* ------------------------------------------------------------------ */

/*
 * The request's filter (the IFINDEX, attribute 1 of every set), checked
 * before the dump starts, so that a bad one is answered with an error
 * (NLMSG_ERROR) and, from 6.2 on (a start got no extack before), its
 * extack message.
 */
static int ipn_genl_dump_start(struct netlink_callback *cb,
			       const struct nla_policy *policy, int maxattr)
{
	struct nlattr *tb[IPN_GENL_ATTRS_MAX];
	u32 ifindex = 0;
	int ret;

	ret = nlmsg_parse(cb->nlh, GENL_HDRLEN, tb, maxattr, policy,
			  cb->extack);
	if (ret)
		return ret;
	if (tb[1]) {
		ifindex = nla_get_u32(tb[1]);
		rtnl_lock();
		if (!ipn_genl_priv(sock_net(cb->skb->sk), ifindex, cb->extack))
			ret = -ENODEV;
		rtnl_unlock();
	}
	cb->args[IPN_CB_FILTER] = ifindex;
	return ret;
}

static int ipn_genl_if_start(struct netlink_callback *cb)
{
	return ipn_genl_dump_start(cb, ipn_if_policy, IPOIB_NG_A_IF_MAX);
}

static int ipn_genl_path_start(struct netlink_callback *cb)
{
	return ipn_genl_dump_start(cb, ipn_path_policy, IPOIB_NG_A_PATH_MAX);
}

static int ipn_genl_group_start(struct netlink_callback *cb)
{
	return ipn_genl_dump_start(cb, ipn_group_policy, IPOIB_NG_A_GROUP_MAX);
}

static int ipn_genl_conn_start(struct netlink_callback *cb)
{
	return ipn_genl_dump_start(cb, ipn_conn_policy, IPOIB_NG_A_CONN_MAX);
}

/*
 * One interface's entries into skb from the cursor; -EMSGSIZE when skb
 * is full (the cursor says where to go on). rtnl held.
 */
typedef int (*ipn_genl_dump_fn)(struct sk_buff *skb,
				struct netlink_callback *cb,
				struct ipn_priv *priv);

/*
 * Every ipoib_ng interface of the caller's namespace (or the filter's),
 * each through fn, from the cursor on.
 */
static int ipn_genl_dump_each(struct sk_buff *skb, struct netlink_callback *cb,
			      ipn_genl_dump_fn fn)
{
	u32 filter = cb->args[IPN_CB_FILTER];
	struct net_device *dev;
	long idx = 0;
	int ret = 0;

	rtnl_lock();
	for_each_netdev(sock_net(skb->sk), dev) {
		if (!ipn_is_ipn_dev(dev) || (filter && dev->ifindex != filter))
			continue;
		if (idx++ < cb->args[IPN_CB_DEV])
			continue;
		/* One before it went: this one from its start. */
		if (cb->args[IPN_CB_IFINDEX] != dev->ifindex) {
			cb->args[IPN_CB_IFINDEX] = dev->ifindex;
			cb->args[IPN_CB_PHASE] = 0;
			cb->args[IPN_CB_BKT] = 0;
			cb->args[IPN_CB_IDX] = 0;
		}
		ret = fn(skb, cb, netdev_priv(dev));
		if (ret)
			break;
		cb->args[IPN_CB_DEV] = idx;
		cb->args[IPN_CB_IFINDEX] = 0;
	}
	rtnl_unlock();
	/* Full: what it holds goes now, the rest in the next part. */
	if (ret == -EMSGSIZE && skb->len)
		return skb->len;
	return ret ?: skb->len;
}

static int ipn_genl_if_one(struct sk_buff *skb, struct netlink_callback *cb,
			   struct ipn_priv *priv)
{
	return ipn_genl_fill_if(skb, priv, NETLINK_CB(cb->skb).portid,
				cb->nlh->nlmsg_seq, NLM_F_MULTI);
}

static int ipn_genl_if_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return ipn_genl_dump_each(skb, cb, ipn_genl_if_one);
}

static void *ipn_genl_entry_put(struct sk_buff *skb,
				struct netlink_callback *cb, u8 cmd)
{
	return genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			   &ipn_genl_family, NLM_F_MULTI, cmd);
}

/* One path's message. priv->lock held. */
static int ipn_genl_fill_path(struct sk_buff *skb, struct netlink_callback *cb,
			      struct ipn_priv *priv, struct ipn_path *path,
			      u64 now)
{
	const struct ipn_path_shown *shown = &path->shown;
	struct ipc_view st;
	union ib_gid sgid;
	void *hdr;

	lockdep_assert_held(&priv->lock);
	hdr = ipn_genl_entry_put(skb, cb, IPOIB_NG_CMD_PATH_GET);
	if (!hdr)
		return -EMSGSIZE;
	ipc_path_view(&path->st, &st);
	if (nla_put_u32(skb, IPOIB_NG_A_PATH_IFINDEX, priv->dev->ifindex) ||
	    nla_put(skb, IPOIB_NG_A_PATH_GID, IPC_GID_LEN, path->gid) ||
	    nla_put_string(skb, IPOIB_NG_A_PATH_STATE, st.state) ||
	    nla_put_s32(skb, IPOIB_NG_A_PATH_STATUS, st.last_status) ||
	    nla_put_u32(skb, IPOIB_NG_A_PATH_ATTEMPTS, st.attempts) ||
	    nla_put_u32(skb, IPOIB_NG_A_PATH_QUEUED, st.queued))
		goto cancel;
	if (st.deadline_ms != IPC_NO_DEADLINE &&
	    nla_put_u64_64bit(skb, IPOIB_NG_A_PATH_RETRY,
			      ipn_genl_left(st.deadline_ms, now),
			      IPOIB_NG_A_PATH_PAD))
		goto cancel;
	if (path->answered_ms &&
	    nla_put_u64_64bit(skb, IPOIB_NG_A_PATH_AGE,
			      now - min(now, path->answered_ms),
			      IPOIB_NG_A_PATH_PAD))
		goto cancel;
	if (!path->ah)
		goto end;
	/* The answer the handle was made from (ipn_path_shown). */
	if (nla_put_u8(skb, IPOIB_NG_A_PATH_SL, shown->sl) ||
	    nla_put_u8(skb, IPOIB_NG_A_PATH_RATE, shown->rate))
		goto cancel;
	if (priv->roce) {
		if (nla_put(skb, IPOIB_NG_A_PATH_DMAC, ETH_ALEN, shown->dmac))
			goto cancel;
	} else if (nla_put_u16(skb, IPOIB_NG_A_PATH_LID, shown->lid)) {
		goto cancel;
	}
	if (shown->mtu &&
	    nla_put_u32(skb, IPOIB_NG_A_PATH_MTU, shown->mtu))
		goto cancel;
	/* Without a GRH (IB, same subnet) the source is the port's GID. */
	if (!shown->grh)
		memcpy(sgid.raw, priv->ifid.gid, IPC_GID_LEN);
	else if (rdma_query_gid(priv->ca, priv->port, shown->sgid_index,
				&sgid))
		goto end;
	if (nla_put(skb, IPOIB_NG_A_PATH_SGID, IPC_GID_LEN, sgid.raw))
		goto cancel;
end:
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* An entry of a hash table, at its hlist_node, into skb. priv->lock held. */
typedef int (*ipn_genl_fill_fn)(struct sk_buff *skb,
				struct netlink_callback *cb,
				struct ipn_priv *priv, struct hlist_node *node,
				u64 now);

/*
 * The entries of a hash table of size buckets, from the dump's cursor
 * (bucket, place in it) on, each through fill: -EMSGSIZE when skb is
 * full, the cursor at the entry that did not fit. priv->lock held.
 */
static int ipn_genl_hash_walk(struct sk_buff *skb, struct netlink_callback *cb,
			      struct ipn_priv *priv, struct hlist_head *table,
			      unsigned int size, ipn_genl_fill_fn fill, u64 now)
{
	struct hlist_node *node;
	long bkt, idx;
	int ret;

	lockdep_assert_held(&priv->lock);
	for (bkt = cb->args[IPN_CB_BKT]; bkt < size; bkt++) {
		idx = 0;
		hlist_for_each(node, &table[bkt]) {
			if (idx++ < cb->args[IPN_CB_IDX])
				continue;
			ret = fill(skb, cb, priv, node, now);
			if (ret)
				return ret;
			cb->args[IPN_CB_IDX] = idx;
		}
		cb->args[IPN_CB_BKT] = bkt + 1;
		cb->args[IPN_CB_IDX] = 0;
	}
	return 0;
}

static int ipn_genl_path_node(struct sk_buff *skb, struct netlink_callback *cb,
			      struct ipn_priv *priv, struct hlist_node *node,
			      u64 now)
{
	return ipn_genl_fill_path(skb, cb, priv,
				  hlist_entry(node, struct ipn_path, node),
				  now);
}

static int ipn_genl_path_one(struct sk_buff *skb, struct netlink_callback *cb,
			     struct ipn_priv *priv)
{
	int ret;

	spin_lock_bh(&priv->lock);
	ret = ipn_genl_hash_walk(skb, cb, priv, priv->paths,
				 ipn_path_buckets(priv), ipn_genl_path_node,
				 ipn_now_ms());
	spin_unlock_bh(&priv->lock);
	return ret;
}

static int ipn_genl_path_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	return ipn_genl_dump_each(skb, cb, ipn_genl_path_one);
}

static int ipn_genl_group_one(struct sk_buff *skb, struct netlink_callback *cb,
			      struct ipn_priv *priv)
{
	u64 now = ipn_now_ms();
	struct ipn_mcast *mc;
	long idx = 0;
	void *hdr;
	int ret = 0;

	spin_lock_bh(&priv->lock);
	list_for_each_entry(mc, &priv->mcasts, list) {
		if (idx++ < cb->args[IPN_CB_IDX])
			continue;
		hdr = ipn_genl_entry_put(skb, cb, IPOIB_NG_CMD_GROUP_GET);
		ret = hdr ? ipn_genl_put_group(skb, priv, mc, now) : -EMSGSIZE;
		if (ret) {
			if (hdr)
				genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		cb->args[IPN_CB_IDX] = idx;
	}
	spin_unlock_bh(&priv->lock);
	return ret;
}

static int ipn_genl_group_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	return ipn_genl_dump_each(skb, cb, ipn_genl_group_one);
}

/* A connection's message, the fields every one has. */
static void *ipn_genl_conn_put(struct sk_buff *skb, struct netlink_callback *cb,
			       struct ipn_priv *priv, const u8 *addr, u8 dir,
			       const char *state, u64 since, u64 frames,
			       u64 now)
{
	void *hdr = ipn_genl_entry_put(skb, cb, IPOIB_NG_CMD_CONN_GET);

	if (!hdr)
		return NULL;
	if (nla_put_u32(skb, IPOIB_NG_A_CONN_IFINDEX, priv->dev->ifindex) ||
	    nla_put(skb, IPOIB_NG_A_CONN_GID, IPC_GID_LEN, ipn_addr_gid(addr)) ||
	    nla_put_u32(skb, IPOIB_NG_A_CONN_QPN, ipn_addr_qpn(addr)) ||
	    nla_put_u8(skb, IPOIB_NG_A_CONN_DIR, dir) ||
	    nla_put_string(skb, IPOIB_NG_A_CONN_STATE, state) ||
	    nla_put_u64_64bit(skb, IPOIB_NG_A_CONN_SINCE,
			      now - min(now, since), IPOIB_NG_A_CONN_PAD) ||
	    nla_put_u64_64bit(skb, IPOIB_NG_A_CONN_FRAMES, frames,
			      IPOIB_NG_A_CONN_PAD)) {
		genlmsg_cancel(skb, hdr);
		return NULL;
	}
	return hdr;
}

static int ipn_genl_conn_tx(struct sk_buff *skb, struct netlink_callback *cb,
			    struct ipn_priv *priv, struct ipn_cm_tx *tx,
			    u64 now)
{
	struct ipc_view st;
	void *hdr;

	ipc_cm_view(&tx->st, &st);
	hdr = ipn_genl_conn_put(skb, cb, priv, tx->addr, IPOIB_NG_CONN_TX,
				st.state, tx->since_ms, READ_ONCE(tx->frames),
				now);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, IPOIB_NG_A_CONN_QUEUED, st.queued) ||
	    nla_put_s32(skb, IPOIB_NG_A_CONN_STATUS, st.last_status)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int ipn_genl_conn_rx(struct sk_buff *skb, struct netlink_callback *cb,
			    struct ipn_priv *priv, struct ipn_cm_rx *rx,
			    u64 now)
{
	u64 last = READ_ONCE(rx->last_rx_ms);
	void *hdr;

	hdr = ipn_genl_conn_put(skb, cb, priv, rx->peer, IPOIB_NG_CONN_RX,
				"connected", rx->since_ms,
				READ_ONCE(rx->frames), now);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, IPOIB_NG_A_CONN_IDLE, now - min(now, last),
			      IPOIB_NG_A_CONN_PAD)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int ipn_genl_conn_node(struct sk_buff *skb, struct netlink_callback *cb,
			      struct ipn_priv *priv, struct hlist_node *node,
			      u64 now)
{
	return ipn_genl_conn_tx(skb, cb, priv,
				hlist_entry(node, struct ipn_cm_tx, node), now);
}

/* Ours (the hash, by bucket), then the peers' (the list). */
static int ipn_genl_conn_one(struct sk_buff *skb, struct netlink_callback *cb,
			     struct ipn_priv *priv)
{
	u64 now = ipn_now_ms();
	struct ipn_cm_rx *rx;
	long idx = 0;
	int ret = 0;

	spin_lock_bh(&priv->lock);
	if (!cb->args[IPN_CB_PHASE]) {
		ret = ipn_genl_hash_walk(skb, cb, priv, priv->cm_tx,
					 HASH_SIZE(priv->cm_tx),
					 ipn_genl_conn_node, now);
		if (ret)
			goto out;
		cb->args[IPN_CB_PHASE] = 1;
		cb->args[IPN_CB_IDX] = 0;
	}
	list_for_each_entry(rx, &priv->cm_rx, list) {
		if (idx++ < cb->args[IPN_CB_IDX])
			continue;
		ret = ipn_genl_conn_rx(skb, cb, priv, rx, now);
		if (ret)
			break;
		cb->args[IPN_CB_IDX] = idx;
	}
out:
	spin_unlock_bh(&priv->lock);
	return ret;
}

static int ipn_genl_conn_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	return ipn_genl_dump_each(skb, cb, ipn_genl_conn_one);
}

/* ------------------------------------------------------------------ */
/* Commands that change state (GENL_ADMIN_PERM)                         */
/* ------------------------------------------------------------------ */

static int ipn_genl_path_flush_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ipn_priv *priv;

	if (GENL_REQ_ATTR_CHECK(info, IPOIB_NG_A_PATH_IFINDEX))
		return -EINVAL;
	rtnl_lock();
	priv = ipn_genl_priv(genl_info_net(info),
			     nla_get_u32(info->attrs[IPOIB_NG_A_PATH_IFINDEX]),
			     info->extack);
	if (priv) {
		mutex_lock(&priv->ctl_mutex);
		ipn_path_destroy_all(priv);
		mutex_unlock(&priv->ctl_mutex);
	}
	rtnl_unlock();
	return priv ? 0 : -ENODEV;
}

/* ------------------------------------------------------------------ */
/* Events                                                               */
/* ------------------------------------------------------------------ */

enum { IPN_GENL_MCGRP_EVENTS };

static const struct genl_multicast_group ipn_genl_mcgrps[] = {
	[IPN_GENL_MCGRP_EVENTS] = { .name = IPOIB_NG_MCGRP_EVENTS },
};

static bool ipn_genl_listened(struct net *net)
{
	return READ_ONCE(ipn_genl_registered) &&
	       genl_has_listeners(&ipn_genl_family, net, IPN_GENL_MCGRP_EVENTS);
}

/* An event's attributes: NULL or negative when it has none. */
struct ipn_genl_ev {
	u32 type;		/* enum ipoib_ng_event */
	const u8 *gid;		/* a path's GID */
	const u8 *mgid;		/* a group's */
	const u8 *addr;		/* a peer's address (QPN and GID) */
	int dir;		/* with addr */
	int status;		/* 0: none */
	int join;		/* joined state bits */
	int why;		/* the link's, with the carrier */
};

/*
 * Tell the listeners of the interface's namespace, if any. Any context:
 * the message is made GFP_ATOMIC, and lost, as any netlink event may be,
 * when there is no memory.
 */
static void ipn_genl_event(struct ipn_priv *priv, const struct ipn_genl_ev *e)
{
	struct net_device *dev = priv->dev;
	struct net *net = dev_net(dev);
	struct sk_buff *skb;
	void *hdr;

	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_ATOMIC);
	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, &ipn_genl_family, 0, IPOIB_NG_CMD_EVENT);
	if (!hdr)
		goto free;
	if (nla_put_u32(skb, IPOIB_NG_A_EV_TYPE, e->type) ||
	    nla_put_u32(skb, IPOIB_NG_A_EV_IFINDEX, dev->ifindex) ||
	    nla_put_string(skb, IPOIB_NG_A_EV_IFNAME, dev->name) ||
	    (e->gid && nla_put(skb, IPOIB_NG_A_EV_GID, IPC_GID_LEN, e->gid)) ||
	    (e->mgid &&
	     nla_put(skb, IPOIB_NG_A_EV_MGID, IPC_GID_LEN, e->mgid)) ||
	    (e->addr && (nla_put(skb, IPOIB_NG_A_EV_GID, IPC_GID_LEN,
				 ipn_addr_gid(e->addr)) ||
			 nla_put_u32(skb, IPOIB_NG_A_EV_QPN,
				     ipn_addr_qpn(e->addr)) ||
			 nla_put_u8(skb, IPOIB_NG_A_EV_DIR, e->dir))) ||
	    (e->status && nla_put_s32(skb, IPOIB_NG_A_EV_STATUS, e->status)) ||
	    (e->join >= 0 && nla_put_u8(skb, IPOIB_NG_A_EV_JOIN, e->join)) ||
	    (e->why >= 0 &&
	     (nla_put_u8(skb, IPOIB_NG_A_EV_LINK_UP, netif_carrier_ok(dev)) ||
	      nla_put_u32(skb, IPOIB_NG_A_EV_LINK_WHY, e->why))))
		goto free;
	genlmsg_end(skb, hdr);
	genlmsg_multicast_netns(&ipn_genl_family, net, skb, 0,
				IPN_GENL_MCGRP_EVENTS, GFP_ATOMIC);
	return;
free:
	nlmsg_free(skb);
}

/* A path's query answered: resolved (status 0) or failed. */
void ipn_genl_path_event(struct ipn_priv *priv, const u8 *gid, int status)
{
	struct ipn_genl_ev e = {
		.type = status ? IPOIB_NG_EV_PATH_FAILED :
			IPOIB_NG_EV_PATH_RESOLVED,
		.gid = gid, .status = status, .join = -1, .why = -1,
	};

	trace_ipoib_ng_sa_answer(priv->dev, "path", gid, status);
	if (ipn_genl_listened(dev_net(priv->dev)))
		ipn_genl_event(priv, &e);
}

/* A group joined (status 0, with its join state), failed, or left. */
void ipn_genl_group_event(struct ipn_priv *priv, const u8 *mgid, bool left,
			  int status, int join)
{
	struct ipn_genl_ev e = {
		.type = left ? IPOIB_NG_EV_GROUP_LEFT : status ?
			IPOIB_NG_EV_GROUP_FAILED : IPOIB_NG_EV_GROUP_JOINED,
		.mgid = mgid, .status = status, .join = -1, .why = -1,
	};

	if (e.type == IPOIB_NG_EV_GROUP_JOINED)
		e.join = join;
	if (!left)
		trace_ipoib_ng_sa_answer(priv->dev, "join", mgid, status);
	trace_ipoib_ng_mcast(priv->dev, mgid, left, left ? 0 : join, status);
	if (ipn_genl_listened(dev_net(priv->dev)))
		ipn_genl_event(priv, &e);
}

/* A connection to or from the peer at addr came up or went down. */
void ipn_genl_conn_event(struct ipn_priv *priv, const u8 *addr, bool rx,
			 bool up, int status)
{
	struct ipn_genl_ev e = {
		.type = up ? IPOIB_NG_EV_CONN_UP : IPOIB_NG_EV_CONN_DOWN,
		.addr = addr, .dir = rx ? IPOIB_NG_CONN_RX : IPOIB_NG_CONN_TX,
		.status = status, .join = -1, .why = -1,
	};

	trace_ipoib_ng_conn(priv->dev, ipn_addr_gid(addr), ipn_addr_qpn(addr),
			    rx, up, status);
	if (ipn_genl_listened(dev_net(priv->dev)))
		ipn_genl_event(priv, &e);
}

/* The carrier changed: up, or down and the core's why. Not priv->lock. */
void ipn_genl_link_event(struct ipn_priv *priv)
{
	struct ipn_genl_ev e = {
		.type = IPOIB_NG_EV_LINK, .join = -1,
	};

	if (!ipn_genl_listened(dev_net(priv->dev)))
		return;
	spin_lock_bh(&priv->lock);
	e.why = ipc_link_why(&priv->link);
	spin_unlock_bh(&priv->lock);
	ipn_genl_event(priv, &e);
}

/* ------------------------------------------------------------------ */

static const struct genl_ops ipn_genl_ops[] = {
	{
		.cmd = IPOIB_NG_CMD_IF_GET,
		.doit = ipn_genl_if_doit,
		.start = ipn_genl_if_start,
		.dumpit = ipn_genl_if_dumpit,
		.policy = ipn_if_policy,
		.maxattr = IPOIB_NG_A_IF_MAX,
	},
	{
		.cmd = IPOIB_NG_CMD_PATH_GET,
		.start = ipn_genl_path_start,
		.dumpit = ipn_genl_path_dumpit,
		.policy = ipn_path_policy,
		.maxattr = IPOIB_NG_A_PATH_MAX,
	},
	{
		.cmd = IPOIB_NG_CMD_GROUP_GET,
		.start = ipn_genl_group_start,
		.dumpit = ipn_genl_group_dumpit,
		.policy = ipn_group_policy,
		.maxattr = IPOIB_NG_A_GROUP_MAX,
	},
	{
		.cmd = IPOIB_NG_CMD_CONN_GET,
		.start = ipn_genl_conn_start,
		.dumpit = ipn_genl_conn_dumpit,
		.policy = ipn_conn_policy,
		.maxattr = IPOIB_NG_A_CONN_MAX,
	},
	{
		.cmd = IPOIB_NG_CMD_PATH_FLUSH,
		.doit = ipn_genl_path_flush_doit,
		.policy = ipn_path_policy,
		.maxattr = IPOIB_NG_A_PATH_MAX,
		.flags = GENL_ADMIN_PERM,
	},
};

static struct genl_family ipn_genl_family = {
	.name = IPOIB_NG_GENL_NAME,
	.version = IPOIB_NG_GENL_VERSION,
	.netnsok = true,
	/* rtnl and priv->lock serialise; the genl mutex is not needed. */
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = ipn_genl_ops,
	.n_ops = ARRAY_SIZE(ipn_genl_ops),
	.mcgrps = ipn_genl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(ipn_genl_mcgrps),
	/* Every command is new: strict validation of all of them. */
	.resv_start_op = IPOIB_NG_CMD_UNSPEC + 1,
};

/* Before the first interface (its events), after the last at exit. */
int ipn_genl_init(void)
{
	int ret = genl_register_family(&ipn_genl_family);

	WRITE_ONCE(ipn_genl_registered, !ret);
	return ret;
}

void ipn_genl_exit(void)
{
	WRITE_ONCE(ipn_genl_registered, false);
	genl_unregister_family(&ipn_genl_family);
}
