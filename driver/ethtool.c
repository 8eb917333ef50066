// SPDX-License-Identifier: GPL-2.0
/*
 * ethtool.c - driver information, link settings, ring sizes, transmit
 * queues and the driver's counters for ethtool (-i, -g, -l, -S) and
 * NetworkManager.
 */
#include <linux/ethtool.h>
#include <rdma/ib_verbs.h>
#include "ipoib_ng.h"

static void ipn_get_drvinfo(struct net_device *dev,
			    struct ethtool_drvinfo *info)
{
	struct ipn_priv *priv = netdev_priv(dev);
	struct device *parent = priv->ca->dev.parent;

	strscpy(info->driver, IPN_DRV_NAME, sizeof(info->driver));
	strscpy(info->version, IPOIB_NG_VERSION, sizeof(info->version));
	ib_get_device_fw_str(priv->ca, info->fw_version);
	strscpy(info->bus_info, parent ? dev_name(parent) :
		dev_name(&priv->ca->dev), sizeof(info->bus_info));
}

/*
 * An InfiniBand port's rate in Mb/s, as ethtool reports it: its lanes
 * (PortInfo:LinkWidthActive, IBA 14.2.5.6) times the nominal rate of one
 * (LinkSpeedActive and LinkSpeedExtActive): SDR 2.5, DDR 5, QDR and FDR10
 * 10, FDR 14, EDR 25, HDR 50, NDR 100, XDR 200 Gb/s. SPEED_UNKNOWN for a
 * width or speed the kernel has no name for.
 */
u32 ipn_ib_link_speed(u8 width, u16 speed)
{
	int lanes = ib_width_enum_to_int(width);
	u32 lane;

	switch (speed) {
	case IB_SPEED_SDR:
		lane = SPEED_2500;
		break;
	case IB_SPEED_DDR:
		lane = SPEED_5000;
		break;
	case IB_SPEED_QDR:
	case IB_SPEED_FDR10:
		lane = SPEED_10000;
		break;
	case IB_SPEED_FDR:
		lane = SPEED_14000;
		break;
	case IB_SPEED_EDR:
		lane = SPEED_25000;
		break;
	case IB_SPEED_HDR:
		lane = SPEED_50000;
		break;
	case IB_SPEED_NDR:
		lane = SPEED_100000;
		break;
	case IPN_IB_SPEED_XDR:
		lane = SPEED_200000;
		break;
	default:
		return SPEED_UNKNOWN;
	}
	return lanes > 0 ? lanes * lane : SPEED_UNKNOWN;
}

/*
 * RoCE: the Ethernet netdev's settings (rtnl is held, as
 * __ethtool_get_link_ksettings wants; ib_query_port is not called, rxe
 * takes rtnl in it). InfiniBand: the port's speed times its width.
 */
static int ipn_get_link_ksettings(struct net_device *dev,
				  struct ethtool_link_ksettings *cmd)
{
	struct ipn_priv *priv = netdev_priv(dev);
	struct ib_port_attr attr;
	int ret;

	ethtool_link_ksettings_zero_link_mode(cmd, supported);
	ethtool_link_ksettings_zero_link_mode(cmd, advertising);
	cmd->base.duplex = DUPLEX_FULL;
	cmd->base.autoneg = AUTONEG_DISABLE;
	cmd->base.port = PORT_OTHER;
	if (priv->roce) {
		struct ethtool_link_ksettings eth;

		ret = __ethtool_get_link_ksettings(priv->roce_ndev, &eth);
		if (ret)
			return ret;
		cmd->base.speed = eth.base.speed;
		cmd->base.duplex = eth.base.duplex;
		return 0;
	}
	ret = ib_query_port(priv->ca, priv->port, &attr);
	if (ret)
		return ret;
	cmd->base.speed = ipn_ib_link_speed(attr.active_width,
					    attr.active_speed);
	return 0;
}

static void ipn_get_ringparam(struct net_device *dev,
			      struct ethtool_ringparam *ring,
			      struct kernel_ethtool_ringparam *kring,
			      struct netlink_ext_ack *extack)
{
	struct ipn_priv *priv = netdev_priv(dev);

	ring->rx_max_pending = IPN_RING_MAX;
	ring->tx_max_pending = IPN_RING_MAX;
	ring->rx_pending = priv->rx_size;
	ring->tx_pending = priv->tx_size;
}

/*
 * ethtool -G: sizes are rounded up to powers of two (as ib_ipoib does);
 * ethtool itself refuses more than the maximum. The resize takes a new QP
 * (device.c), so the QPN in the hardware address changes and the peers are
 * told (gratuitous ARP, unsolicited NA).
 */
static int ipn_set_ringparam(struct net_device *dev,
			     struct ethtool_ringparam *ring,
			     struct kernel_ethtool_ringparam *kring,
			     struct netlink_ext_ack *extack)
{
	if (ring->rx_pending < IPN_RING_MIN || ring->tx_pending < IPN_RING_MIN) {
		NL_SET_ERR_MSG_MOD(extack,
				   "rings need at least " __stringify(IPN_RING_MIN) " entries");
		return -EINVAL;
	}
	return ipn_dev_resize_rings(netdev_priv(dev),
				    roundup_pow_of_two(ring->rx_pending),
				    roundup_pow_of_two(ring->tx_pending),
				    extack);
}

static int ipn_get_coalesce(struct net_device *dev,
			    struct ethtool_coalesce *c,
			    struct kernel_ethtool_coalesce *kc,
			    struct netlink_ext_ack *extack)
{
	struct ipn_priv *priv = netdev_priv(dev);

	c->rx_coalesce_usecs = priv->coalesce_usecs[0];
	c->rx_max_coalesced_frames = priv->coalesce_frames[0];
	c->tx_coalesce_usecs = priv->coalesce_usecs[1];
	c->tx_max_coalesced_frames = priv->coalesce_frames[1];
	return 0;
}

/* ethtool -C: completion moderation of the CQs, where the device has it. */
static int ipn_set_coalesce(struct net_device *dev,
			    struct ethtool_coalesce *c,
			    struct kernel_ethtool_coalesce *kc,
			    struct netlink_ext_ack *extack)
{
	struct ipn_priv *priv = netdev_priv(dev);
	u32 usecs[2] = { c->rx_coalesce_usecs, c->tx_coalesce_usecs };
	u32 frames[2] = { c->rx_max_coalesced_frames,
			  c->tx_max_coalesced_frames };
	int i, ret;

	for (i = 0; i < 2; i++) {
		if (usecs[i] > U16_MAX || frames[i] > U16_MAX) {
			NL_SET_ERR_MSG_MOD(extack,
					   "usecs and frames go up to 65535 (the CQ fields)");
			return -EINVAL;
		}
	}
	if (!priv->ca->ops.modify_cq) {
		NL_SET_ERR_MSG_MOD(extack, "the RDMA device has no completion moderation");
		return -EOPNOTSUPP;
	}
	mutex_lock(&priv->ctl_mutex);
	memcpy(priv->coalesce_usecs, usecs, sizeof(usecs));
	memcpy(priv->coalesce_frames, frames, sizeof(frames));
	/* Kept for the CQs a later ring resize makes (review M6). */
	ret = priv->qp ? ipn_cq_moderate(priv) : 0;
	mutex_unlock(&priv->ctl_mutex);
	if (ret)
		NL_SET_ERR_MSG_MOD(extack, "the RDMA device refused the moderation");
	return ret;
}

/*
 * ethtool -l/-L: transmit queues, each with its UD QP (tx.c); one
 * receive queue (the QPN in dev_addr). A change makes the verbs
 * resources again, as ethtool -G does.
 */
static void ipn_get_channels(struct net_device *dev,
			     struct ethtool_channels *ch)
{
	struct ipn_priv *priv = netdev_priv(dev);

	ch->max_rx = 1;
	ch->max_tx = priv->txq_max;
	ch->rx_count = 1;
	ch->tx_count = priv->txq_count;
}

static int ipn_set_channels(struct net_device *dev,
			    struct ethtool_channels *ch)
{
	struct ipn_priv *priv = netdev_priv(dev);

	/* The ethtool core checked the counts against the maxima. */
	if (ch->rx_count != 1 || !ch->tx_count || ch->combined_count ||
	    ch->other_count)
		return -EINVAL;
	return ipn_dev_set_txqs(priv, ch->tx_count, NULL);
}

/*
 * The driver's counters, these of every transmit queue in use, then three
 * gauges of connected mode's shared receive queue.
 */
#define IPN_TXQ_STATS	3
#define IPN_SRQ_STATS	3

static int ipn_get_sset_count(struct net_device *dev, int sset)
{
	struct ipn_priv *priv = netdev_priv(dev);

	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return IPN_N_STATS +
	       priv->txq_count * IPN_TXQ_STATS + IPN_SRQ_STATS;
}

static void ipn_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	struct ipn_priv *priv = netdev_priv(dev);
	unsigned int i, q;

	if (sset != ETH_SS_STATS)
		return;
	for (i = 0; i < IPN_N_STATS; i++) {
		ipn_stats_name(i, data, ETH_GSTRING_LEN);
		data += ETH_GSTRING_LEN;
	}
	for (q = 0; q < priv->txq_count; q++) {
		ethtool_sprintf(&data, "tx%u_packets", q);
		ethtool_sprintf(&data, "tx%u_bytes", q);
		ethtool_sprintf(&data, "tx%u_stops", q);
	}
	ethtool_sprintf(&data, "cm_srq_size");
	ethtool_sprintf(&data, "cm_srq_posted");
	ethtool_sprintf(&data, "cm_srq_stuck");
}

static void ipn_get_ethtool_stats(struct net_device *dev,
				  struct ethtool_stats *stats, u64 *data)
{
	struct ipn_priv *priv = netdev_priv(dev);
	unsigned int q, start;

	ipn_stats_values(priv, data);
	data += IPN_N_STATS;
	for (q = 0; q < priv->txq_count; q++) {
		const struct ipn_txq *txq = &priv->txq[q];

		ipn_txq_stats_read(priv, q, q + 1, &data[0], &data[1]);
		do {
			start = u64_stats_fetch_begin(&txq->xsyncp);
			data[2] = u64_stats_read(&txq->stops);
		} while (u64_stats_fetch_retry(&txq->xsyncp, start));
		data += IPN_TXQ_STATS;
	}
	mutex_lock(&priv->ctl_mutex);
	ipn_cm_srq_gauges(priv, &data[0], &data[1], &data[2]);
	mutex_unlock(&priv->ctl_mutex);
}

const struct ethtool_ops ipn_ethtool_ops = {
	.get_drvinfo = ipn_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_link_ksettings = ipn_get_link_ksettings,
	.supported_coalesce_params = ETHTOOL_COALESCE_USECS |
				     ETHTOOL_COALESCE_MAX_FRAMES,
	.get_ringparam = ipn_get_ringparam,
	.set_ringparam = ipn_set_ringparam,
	.get_channels = ipn_get_channels,
	.set_channels = ipn_set_channels,
	.get_coalesce = ipn_get_coalesce,
	.set_coalesce = ipn_set_coalesce,
	.get_sset_count = ipn_get_sset_count,
	.get_strings = ipn_get_strings,
	.get_ethtool_stats = ipn_get_ethtool_stats,
};
