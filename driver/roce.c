// SPDX-License-Identifier: GPL-2.0
/*
 * roce.c - backend for RoCE ports: no subnet administrator.
 *
 * Joins are local: the QP is attached to the MGID AND the MGID is joined
 * as an IPv6 multicast group on the RoCE netdev (rxe programs only the
 * MAC filter; without the IPv6-level join the stack drops the RoCEv2
 * datagram, see Documentation/design.rst). Paths need the destination
 * MAC: derived from link-local and multicast GIDs, otherwise resolved
 * with rdma_resolve_ip().
 */
#include <linux/slab.h>
#include <net/addrconf.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include "ipoib_ng.h"

IPN_TESTABLE void ipn_roce_attr(struct ipn_priv *priv, const u8 *dgid,
				u8 hop, struct rdma_ah_attr *attr)
{
	union ib_gid gid;

	memcpy(gid.raw, dgid, sizeof(gid.raw));
	memset(attr, 0, sizeof(*attr));
	attr->type = rdma_ah_find_type(priv->ca, priv->port);
	rdma_ah_set_port_num(attr, priv->port);
	rdma_ah_set_grh(attr, &gid, 0, READ_ONCE(priv->sgid_index), hop, 0);
}

static int ipn_roce_join(struct ipn_priv *priv, struct ipn_mcast *mc, int type)
{
	return 1;	/* nothing to ask: the group exists for whoever sends */
}

static void ipn_roce_leave(struct ipn_priv *priv, struct ipn_mcast *mc)
{
}

static int ipn_roce_mc_ah_attr(struct ipn_priv *priv, struct ipn_mcast *mc,
			       struct rdma_ah_attr *attr)
{
	u8 hop = ipc_mgid_scope(mc->mgid) <= IPC_SCOPE_LINK ? 1 : 64;

	ipn_roce_attr(priv, mc->mgid, hop, attr);
	rdma_get_mcast_mac((struct in6_addr *)mc->mgid, attr->roce.dmac);
	return 0;
}

static int ipn_roce_attach(struct ipn_priv *priv, struct ipn_mcast *mc)
{
	int ret;

	ret = ipn_fault() ? -ENOMEM :
	      ib_attach_mcast(priv->qp, (union ib_gid *)mc->mgid, 0);
	if (ret)
		return ret;
	ret = ipn_fault() ? -ENOMEM :
	      ipv6_dev_mc_inc(priv->roce_ndev, (struct in6_addr *)mc->mgid);
	if (ret) {
		ib_detach_mcast(priv->qp, (union ib_gid *)mc->mgid, 0);
		return ret;
	}
	mc->ip6_joined = true;
	return 0;
}

static void ipn_roce_detach(struct ipn_priv *priv, struct ipn_mcast *mc)
{
	ASSERT_RTNL();
	if (mc->ip6_joined)
		ipv6_dev_mc_dec(priv->roce_ndev, (struct in6_addr *)mc->mgid);
	mc->ip6_joined = false;
	ib_detach_mcast(priv->qp, (union ib_gid *)mc->mgid, 0);
}

/*
 * The source GID is the one whose IP address the routing table chose for
 * the destination, as a RoCEv2 datagram crossing routers needs a routable
 * source; GID index 0 (link-local) stays the fallback.
 */
static void ipn_roce_pick_sgid(struct ipn_priv *priv, struct ipn_path *path,
			       struct sockaddr *src)
{
	const struct ib_gid_attr *attr;
	union ib_gid gid;

	if (rdma_ip2gid(src, &gid))
		return;
	attr = rdma_find_gid_by_port(priv->ca, &gid,
				     path->dev_addr->sgid_attr->gid_type,
				     priv->port, priv->roce_ndev);
	if (IS_ERR(attr))
		return;
	path->attr.grh.sgid_index = attr->index;
	rdma_put_gid_attr(attr);
}

static void ipn_roce_resolved(int status, struct sockaddr *src,
			      struct rdma_dev_addr *addr, void *ctx)
{
	struct ipn_path *path = ctx;
	struct ipn_priv *priv = path->priv;

	if (!status) {
		memcpy(path->attr.roce.dmac, addr->dst_dev_addr, ETH_ALEN);
		path->attr.grh.hop_limit = addr->hoplimit;
		ipn_roce_pick_sgid(priv, path, src);
	}
	rdma_put_gid_attr(addr->sgid_attr);
	addr->sgid_attr = NULL;
	ipn_path_query_async_done(priv, path, status);
}

static int ipn_roce_path_query(struct ipn_priv *priv, struct ipn_path *path)
{
	struct in6_addr *dgid = (struct in6_addr *)path->gid;
	struct sockaddr_storage src = {}, dst;
	const struct ib_gid_attr *sgid_attr;
	int ret;

	ipn_roce_attr(priv, path->gid, 64, &path->attr);
	if (rdma_link_local_addr(dgid)) {
		rdma_get_ll_mac(dgid, path->attr.roce.dmac);
		return 0;
	}
	if (ipv6_addr_is_multicast(dgid)) {
		rdma_get_mcast_mac(dgid, path->attr.roce.dmac);
		return 0;
	}

	if (!path->dev_addr) {
		path->dev_addr = ipn_fault() ? NULL :
			kzalloc(sizeof(*path->dev_addr), GFP_KERNEL);
		if (!path->dev_addr)
			return -ENOMEM;
	}
	/* path.c cancels a query before it starts the next one. */
	if (WARN_ON_ONCE(path->dev_addr->sgid_attr))
		return -EBUSY;
	sgid_attr = rdma_get_gid_attr(priv->ca, priv->port, 0);
	if (IS_ERR(sgid_attr))
		return PTR_ERR(sgid_attr);
	/*
	 * The GID attribute gives the namespace and the RoCE netdev to
	 * route in (resolve_by_gid_attr: ib_core's addr_resolve() takes
	 * dev_net() of the attribute's netdev and puts init_net back after,
	 * on 6.1 and 6.12 alike; net only has to be set, review L5). The
	 * unspecified source lets the route pick the address.
	 */
	memset(path->dev_addr, 0, sizeof(*path->dev_addr));
	path->dev_addr->sgid_attr = sgid_attr;
	path->dev_addr->net = &init_net;
	rdma_gid2ip((struct sockaddr *)&dst, (union ib_gid *)path->gid);
	src.ss_family = dst.ss_family;
	ret = rdma_resolve_ip((struct sockaddr *)&src, (struct sockaddr *)&dst,
			      path->dev_addr,
			      IPN_ROCE_RESOLVE_MS, ipn_roce_resolved, true,
			      path);
	if (ret) {
		rdma_put_gid_attr(sgid_attr);
		path->dev_addr->sgid_attr = NULL;
		return ret;
	}
	return 1;
}

/* Synchronous: once it returns the callback is not running. */
static void ipn_roce_path_cancel(struct ipn_priv *priv, struct ipn_path *path)
{
	if (!path->dev_addr)
		return;
	rdma_addr_cancel(path->dev_addr);
	if (path->dev_addr->sgid_attr) {
		rdma_put_gid_attr(path->dev_addr->sgid_attr);
		path->dev_addr->sgid_attr = NULL;
	}
}

const struct ipn_backend_ops ipn_roce_ops = {
	.name = "roce",
	.join = ipn_roce_join,
	.leave = ipn_roce_leave,
	.mc_ah_attr = ipn_roce_mc_ah_attr,
	.attach = ipn_roce_attach,
	.detach = ipn_roce_detach,
	.path_query = ipn_roce_path_query,
	.path_cancel = ipn_roce_path_cancel,
};
