// SPDX-License-Identifier: GPL-2.0
/*
 * sa.c - backend for InfiniBand ports: joins and path queries through
 * the subnet administrator.
 *
 * Not implemented yet: every operation fails with -EOPNOTSUPP, so an
 * InfiniBand port gets an interface whose carrier stays off, and one
 * warning says why. Tracked in the issue "Kernel module ipoib_ng.ko".
 */
#include "ipoib_ng.h"

static int ipn_ib_unsupported(struct ipn_priv *priv)
{
	netdev_warn_once(priv->dev, "InfiniBand SA joins and path queries are not implemented yet\n");
	return -EOPNOTSUPP;
}

static int ipn_ib_join(struct ipn_priv *priv, struct ipn_mcast *mc, int type)
{
	return ipn_ib_unsupported(priv);
}

static void ipn_ib_leave(struct ipn_priv *priv, struct ipn_mcast *mc)
{
}

static int ipn_ib_mc_ah_attr(struct ipn_priv *priv, struct ipn_mcast *mc,
			     struct rdma_ah_attr *attr)
{
	return ipn_ib_unsupported(priv);
}

static int ipn_ib_attach(struct ipn_priv *priv, struct ipn_mcast *mc)
{
	return ipn_ib_unsupported(priv);
}

static void ipn_ib_detach(struct ipn_priv *priv, struct ipn_mcast *mc)
{
}

static int ipn_ib_path_query(struct ipn_priv *priv, struct ipn_path *path)
{
	return ipn_ib_unsupported(priv);
}

static void ipn_ib_path_cancel(struct ipn_priv *priv, struct ipn_path *path)
{
}

const struct ipn_backend_ops ipn_ib_ops = {
	.name = "infiniband",
	.join = ipn_ib_join,
	.leave = ipn_ib_leave,
	.mc_ah_attr = ipn_ib_mc_ah_attr,
	.attach = ipn_ib_attach,
	.detach = ipn_ib_detach,
	.path_query = ipn_ib_path_query,
	.path_cancel = ipn_ib_path_cancel,
};
