// SPDX-License-Identifier: GPL-2.0
/*
 * sriov.c - the adapter's virtual functions, set through the interface of
 * its physical function: `ip link set ib0 vf N node_guid G`, `port_guid
 * G`, `state auto|enable|disable`, and what `ip link show ib0` lists per
 * VF (its GUIDs, link state, counters). The InfiniBand device does the
 * work (ib_set_vf_guid() and friends); this file checks what it is asked
 * and refuses clearly what the device cannot do, which rtnetlink's VF
 * calls, having no extack, can only say through one log line.
 */
#include <linux/capability.h>
#include <linux/if_link.h>
#include <rdma/ib_verbs.h>
#include "ipoib_ng.h"

/*
 * The number of VFs enabled, as rtnetlink counts them for IFLA_NUM_VF:
 * from the interface's parent device (the PCI function of the adapter).
 */
static int ipn_vf_count(struct net_device *dev)
{
	return dev->dev.parent ? dev_num_vf(dev->dev.parent) : 0;
}

/*
 * 0 if the device's op (has_op: it has one) can be called for vf.
 * Otherwise the error, said when set (an administrator's command: one
 * line per command, rate-limited; rtnetlink dumps only read): a P_Key
 * child, a caller without CAP_NET_ADMIN in the initial user namespace
 * (set only), a RoCE port, a device that is itself a VF, a device
 * without the op (rxe, softib: no SR-IOV), or a VF index beyond those
 * enabled (sriov_numvfs of the parent: the device's op may not check it).
 *
 * Review 2026-12 H2: rtnetlink checks CAP_NET_ADMIN in the user namespace
 * of the caller's network namespace only. The VFs belong to the whole
 * adapter (other tenants' VMs and pods, the partitions the SM gives their
 * port GUIDs), so a child, which is a partition's and may be a pod's,
 * neither sets nor lists them, and the port's interface sets them only
 * for the host's administrator, wherever its namespace is.
 */
static int ipn_vf_check(struct net_device *dev, int vf, bool has_op,
			bool set)
{
	struct ipn_priv *priv = netdev_priv(dev);
	struct ib_device *ca = priv->ca;
	int n;

	if (priv->parent) {
		if (set && net_ratelimit())
			netdev_warn(dev, "a P_Key child: set VFs through the port's interface, %s\n",
				    priv->parent->dev->name);
		return -EOPNOTSUPP;
	}
	if (set && !capable(CAP_NET_ADMIN)) {
		if (net_ratelimit())
			netdev_warn(dev, "setting VFs needs CAP_NET_ADMIN in the initial user namespace\n");
		return -EPERM;
	}
	if (priv->roce) {
		/*
		 * mlx5 offers these ops on every physical function; on a RoCE
		 * port the VFs are Ethernet functions, which their Ethernet
		 * driver manages (ip link set <eth> vf N ...).
		 */
		if (set && net_ratelimit())
			netdev_warn(dev, "%s port %u is RoCE: set its VFs through the Ethernet interface\n",
				    dev_name(&ca->dev), priv->port);
		return -EOPNOTSUPP;
	}
	if (ca->attrs.kernel_cap_flags & IBK_VIRTUAL_FUNCTION) {
		if (set && net_ratelimit())
			netdev_warn(dev, "%s is a virtual function: set VFs through the physical function's interface\n",
				    dev_name(&ca->dev));
		return -EOPNOTSUPP;
	}
	if (!has_op) {
		if (set && net_ratelimit())
			netdev_warn(dev, "%s has no SR-IOV virtual functions to set\n",
				    dev_name(&ca->dev));
		return -EOPNOTSUPP;
	}
	n = ipn_vf_count(dev);
	if (vf < 0 || vf >= n) {
		if (set && net_ratelimit())
			netdev_warn(dev, "vf %d: %s has %d virtual functions enabled (sriov_numvfs)\n",
				    vf, dev_name(&ca->dev), n);
		return -EINVAL;
	}
	return 0;
}

int ipn_set_vf_guid(struct net_device *dev, int vf, u64 guid, int type)
{
	struct ipn_priv *priv = netdev_priv(dev);
	int ret;

	ASSERT_RTNL();
	if (type != IFLA_VF_IB_NODE_GUID && type != IFLA_VF_IB_PORT_GUID)
		return -EINVAL;
	ret = ipn_vf_check(dev, vf, !!priv->ca->ops.set_vf_guid, true);
	if (ret)
		return ret;
	return ib_set_vf_guid(priv->ca, vf, priv->port, guid, type);
}

int ipn_get_vf_guid(struct net_device *dev, int vf,
		    struct ifla_vf_guid *node_guid,
		    struct ifla_vf_guid *port_guid)
{
	struct ipn_priv *priv = netdev_priv(dev);
	int ret = ipn_vf_check(dev, vf, !!priv->ca->ops.get_vf_guid, false);

	return ret ? ret : ib_get_vf_guid(priv->ca, vf, priv->port, node_guid,
					  port_guid);
}

int ipn_set_vf_link_state(struct net_device *dev, int vf, int state)
{
	struct ipn_priv *priv = netdev_priv(dev);
	int ret;

	ASSERT_RTNL();
	if (state != IFLA_VF_LINK_STATE_AUTO &&
	    state != IFLA_VF_LINK_STATE_ENABLE &&
	    state != IFLA_VF_LINK_STATE_DISABLE)
		return -EINVAL;
	ret = ipn_vf_check(dev, vf, !!priv->ca->ops.set_vf_link_state, true);
	if (ret)
		return ret;
	return ib_set_vf_link_state(priv->ca, vf, priv->port, state);
}

/*
 * The VF's configuration as the device knows it. Its hardware address is
 * left zero: a VF's IPoIB address holds the QPN of the VF's own interface,
 * which the physical function cannot know (ib_ipoib shows the PF's own).
 */
int ipn_get_vf_config(struct net_device *dev, int vf, struct ifla_vf_info *ivf)
{
	struct ipn_priv *priv = netdev_priv(dev);
	int ret = ipn_vf_check(dev, vf, !!priv->ca->ops.get_vf_config, false);

	if (ret)
		return ret;
	ret = ib_get_vf_config(priv->ca, vf, priv->port, ivf);
	if (ret)
		return ret;
	ivf->vf = vf;
	return 0;
}

int ipn_get_vf_stats(struct net_device *dev, int vf,
		     struct ifla_vf_stats *stats)
{
	struct ipn_priv *priv = netdev_priv(dev);
	int ret = ipn_vf_check(dev, vf, !!priv->ca->ops.get_vf_stats, false);

	return ret ? ret : ib_get_vf_stats(priv->ca, vf, priv->port, stats);
}
