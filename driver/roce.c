// SPDX-License-Identifier: GPL-2.0
/*
 * roce.c - backend for RoCE ports: no subnet administrator.
 *
 * Joins are local: the QP is attached to the MGID AND the MGID is joined
 * as an IPv6 multicast group on the RoCE netdev (rxe programs only the
 * MAC filter; without the IPv6-level join the stack drops the RoCEv2
 * datagram, see Documentation/design.rst). Paths need the destination
 * MAC: derived from link-local and multicast GIDs, otherwise resolved
 * with rdma_resolve_ip(), and resolved again when the neighbour layer
 * learns another MAC for the GID's address.
 */
#include <linux/etherdevice.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/neighbour.h>
#include <net/netevent.h>
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
	ipn_kunit_roce_resolved_returning(priv);
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
	/*
	 * Review 2026-12 L4: the last query's callback may have answered
	 * and ib_addr still list its request until the callback returns.
	 * rdma_addr_cancel() takes the first request of a dev_addr, so a
	 * later cancel would remove that one and leave the new query to
	 * call back into a freed path: the old request goes first (this
	 * waits for its callback to return; nothing for one already gone).
	 */
	rdma_addr_cancel(path->dev_addr);
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

/*
 * A path to a routable GID takes its destination MAC from the kernel's
 * neighbour entry for the GID's IP address on the port's netdev, read when
 * the path is resolved and again at each revalidation (RFC 4391 s9.4; 45 s
 * to 60 s here). A peer whose MAC changes under the same address (another
 * adapter, a moved VM, an Ethernet bond's failover) would meanwhile be
 * sent to at its old MAC by an adapter that puts the handle's MAC on the
 * wire as it is (hardware does; rxe goes through the neighbour table
 * again). So when the neighbour layer learns another MAC for an address
 * (the peer's unsolicited NA or gratuitous ARP, or its own probes), each
 * interface of that netdev with a path to the GID that was made with
 * another MAC revalidates it at once (ipn_path_revalidate()), while the
 * old handle keeps sending. Link-local GIDs carry their MAC (rdma_get_ll_mac()).
 *
 * ipn_roce_privs holds every RoCE interface from its registration to its
 * ndo_uninit, both under rtnl; the netevent notifier walks it under
 * ipn_roce_lock (BH: neighbour updates come from softirqs), taking each
 * interface's priv->lock inside it, the netdevice notifier under rtnl.
 */
static DEFINE_SPINLOCK(ipn_roce_lock);
static LIST_HEAD(ipn_roce_privs);

void ipn_roce_watch(struct ipn_priv *priv)
{
	spin_lock_bh(&ipn_roce_lock);
	list_add_tail(&priv->roce_node, &ipn_roce_privs);
	spin_unlock_bh(&ipn_roce_lock);
}

void ipn_roce_unwatch(struct ipn_priv *priv)
{
	spin_lock_bh(&ipn_roce_lock);
	list_del_init(&priv->roce_node);
	spin_unlock_bh(&ipn_roce_lock);
}

/*
 * Review 2026-12 M2: the Ethernet MTU under RoCE interfaces changed, and
 * with it the port's IB MTU (rxe follows NETDEV_CHANGEMTU; a UD send
 * longer than the port MTU completes unsent, IBA C10-93.1.1). The MTU
 * follows; connections made for a larger path MTU are made again.
 * rtnl held, which the list's writers (registration, ndo_uninit) hold too.
 */
void ipn_roce_lower_mtu(struct net_device *ndev)
{
	struct ipn_priv *priv;
	u32 was, ib_mtu;

	ASSERT_RTNL();
	list_for_each_entry(priv, &ipn_roce_privs, roce_node) {
		if (priv->roce_ndev != ndev)
			continue;
		was = ipn_ud_frame_max(priv);
		ib_mtu = ipn_port_ib_mtu(priv);
		if (ib_mtu == was)
			continue;
		netdev_info(priv->dev, "%s's MTU is %u: IB MTU %u\n",
			    ndev->name, ndev->mtu, ib_mtu);
		ipn_dev_update_mtu(priv, ib_mtu);
		if (ib_mtu > was)
			continue;
		mutex_lock(&priv->ctl_mutex);
		ipn_cm_restart(priv);
		mutex_unlock(&priv->ctl_mutex);
	}
}

static void ipn_roce_neigh_changed(struct ipn_priv *priv, const u8 *gid,
				   const u8 *ha)
{
	struct ipn_path *path;
	bool kick = false;

	lockdep_assert_held(&ipn_roce_lock);
	spin_lock_bh(&priv->lock);
	path = priv->up ? ipn_path_find(priv, gid) : NULL;
	if (path && path->ah && ipc_path_usable(&path->st) &&
	    !ether_addr_equal(path->shown.dmac, ha)) {
		ipn_path_revalidate(priv, path);
		ipn_inc(priv, path_mac_changes);
		kick = true;
	}
	spin_unlock_bh(&priv->lock);
	if (kick)
		ipn_ctl_kick(priv);
}

static int ipn_roce_netevent(struct notifier_block *nb, unsigned long event,
			     void *ptr)
{
	struct neighbour *n = ptr;
	struct ipn_priv *priv;
	u8 ha[MAX_ADDR_LEN];
	union ib_gid gid;

	if (event != NETEVENT_NEIGH_UPDATE ||
	    !(READ_ONCE(n->nud_state) & NUD_VALID) ||
	    n->dev->addr_len != ETH_ALEN)
		return NOTIFY_DONE;
	if (n->tbl->family == AF_INET6)
		memcpy(gid.raw, n->primary_key, sizeof(gid.raw));
	else if (n->tbl->family == AF_INET)
		ipv6_addr_set_v4mapped(*(__be32 *)n->primary_key,
				       (struct in6_addr *)gid.raw);
	else
		return NOTIFY_DONE;
	if (rdma_link_local_addr((struct in6_addr *)gid.raw))
		return NOTIFY_DONE;
	neigh_ha_snapshot(ha, n, n->dev);
	spin_lock_bh(&ipn_roce_lock);
	list_for_each_entry(priv, &ipn_roce_privs, roce_node)
		if (priv->roce_ndev == n->dev)
			ipn_roce_neigh_changed(priv, gid.raw, ha);
	spin_unlock_bh(&ipn_roce_lock);
	return NOTIFY_DONE;
}

static struct notifier_block ipn_roce_netevent_nb = {
	.notifier_call = ipn_roce_netevent,
};

int ipn_roce_init(void)
{
	return register_netevent_notifier(&ipn_roce_netevent_nb);
}

void ipn_roce_exit(void)
{
	unregister_netevent_notifier(&ipn_roce_netevent_nb);
}
