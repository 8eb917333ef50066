// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - the per-CPU counters: summed for ip -s and ethtool -S, and
 * the drop of a frame with its reason.
 */
#include "ipoib_ng.h"

/*
 * Every counter summed over the CPUs, each CPU's counters read together
 * (the u64_stats retry loop). The counters are the u64 members before syncp.
 */
void ipn_stats_read(struct ipn_priv *priv, struct ipn_stats *sum)
{
	const size_t len = offsetof(struct ipn_stats, syncp);
	struct ipn_stats snap;
	unsigned int start;
	size_t i;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct ipn_stats *s = per_cpu_ptr(priv->stats, cpu);

		do {
			start = u64_stats_fetch_begin(&s->syncp);
			memcpy(&snap, s, len);
		} while (u64_stats_fetch_retry(&s->syncp, start));
		for (i = 0; i < len / sizeof(u64); i++)
			((u64 *)sum)[i] += ((u64 *)&snap)[i];
	}
}

/* The sum over CPUs of the u64 counter at offset off of struct ipn_stats. */
u64 ipn_stat_sum(struct ipn_priv *priv, size_t off)
{
	struct ipn_stats sum;

	ipn_stats_read(priv, &sum);
	return *(u64 *)((u8 *)&sum + off);
}

void ipn_get_stats64(struct net_device *dev, struct rtnl_link_stats64 *st)
{
	struct ipn_priv *priv = netdev_priv(dev);
	struct ipn_stats sum;

	ipn_stats_read(priv, &sum);
	st->rx_packets = sum.rx_packets;
	st->rx_bytes = sum.rx_bytes;
	st->tx_packets = sum.tx_packets;
	st->tx_bytes = sum.tx_bytes;
	st->rx_dropped = sum.rx_dropped;
	st->tx_dropped = sum.tx_dropped;
	st->tx_errors = sum.tx_errors;
	st->rx_errors = sum.rx_errors;
	st->multicast = sum.multicast;
}

void ipn_drop(struct ipn_priv *priv, struct sk_buff *skb, int reason, bool tx)
{
	struct ipn_stats *s = get_cpu_ptr(priv->stats);

	u64_stats_update_begin(&s->syncp);
	if (tx)
		s->tx_dropped++;
	else
		s->rx_dropped++;
	if (reason > 0 && reason < IPC_R_COUNT)
		s->drop[reason]++;
	u64_stats_update_end(&s->syncp);
	put_cpu_ptr(priv->stats);
	dev_kfree_skb_any(skb);
}
