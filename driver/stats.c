// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - the per-CPU counters: summed for ip -s and ethtool -S, and
 * the drop of a frame with its reason.
 */
#include "ipoib_ng.h"
#include "trace.h"
#ifdef IPN_HAVE_QSTATS
#include <net/netdev_queues.h>
#endif

/*
 * The sends transmit queues [from, to) completed, each queue's two
 * counters read together. The queues count them, not the per-CPU
 * counters: their NAPI is their one writer, and qstats-get gives them.
 */
void ipn_txq_stats_read(struct ipn_priv *priv, unsigned int from,
			unsigned int to, u64 *packets, u64 *bytes)
{
	unsigned int q, start;
	u64 p, b;

	*packets = 0;
	*bytes = 0;
	for (q = from; priv->txq && q < to; q++) {
		const struct ipn_txq *txq = &priv->txq[q];

		do {
			start = u64_stats_fetch_begin(&txq->syncp);
			p = u64_stats_read(&txq->packets);
			b = u64_stats_read(&txq->bytes);
		} while (u64_stats_fetch_retry(&txq->syncp, start));
		*packets += p;
		*bytes += b;
	}
}

/*
 * Every counter summed over the CPUs, each CPU's counters read together
 * (the u64_stats retry loop). The counters are the u64 members before
 * syncp; tx_packets and tx_bytes, the transmit queues' (all of them: a
 * queue ethtool -L took away keeps what it sent).
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
	ipn_txq_stats_read(priv, 0, priv->txq_max, &sum->tx_packets,
			   &sum->tx_bytes);
}

/* The sum over CPUs of the u64 counter at offset off of struct ipn_stats. */
u64 ipn_stat_sum(struct ipn_priv *priv, size_t off)
{
	struct ipn_stats sum;

	ipn_stats_read(priv, &sum);
	return *(u64 *)((u8 *)&sum + off);
}

/*
 * The counters of struct ipn_stats, in the order ethtool -S and netlink
 * (IPOIB_NG_A_IF_STATS) give them; then one drop counter per reason but
 * OK: "drop_<reason>".
 */
static const struct {
	const char *name;
	size_t off;
} ipn_counters[] = {
#define IPN_COUNTER(m) { #m, offsetof(struct ipn_stats, m) }
	IPN_COUNTER(rx_packets), IPN_COUNTER(rx_bytes),
	IPN_COUNTER(tx_packets), IPN_COUNTER(tx_bytes),
	IPN_COUNTER(rx_dropped), IPN_COUNTER(tx_dropped),
	IPN_COUNTER(rx_errors), IPN_COUNTER(tx_errors),
	IPN_COUNTER(multicast), IPN_COUNTER(path_queries),
	IPN_COUNTER(path_failures), IPN_COUNTER(mc_joins),
	IPN_COUNTER(mc_leaves), IPN_COUNTER(mc_failures),
	IPN_COUNTER(mc_refused), IPN_COUNTER(tx_timeouts),
	IPN_COUNTER(cm_connects), IPN_COUNTER(cm_failures),
	IPN_COUNTER(cm_accepts), IPN_COUNTER(cm_tx_packets),
	IPN_COUNTER(cm_rx_packets), IPN_COUNTER(path_stale_answers),
	IPN_COUNTER(cm_rejects), IPN_COUNTER(cm_stalls),
	IPN_COUNTER(path_evictions), IPN_COUNTER(sa_reports_refused),
	IPN_COUNTER(mc_evictions), IPN_COUNTER(qp_errors),
	IPN_COUNTER(cm_tx_refused), IPN_COUNTER(sa_reports_limited),
	IPN_COUNTER(restarts), IPN_COUNTER(path_answers_same),
	IPN_COUNTER(path_mac_changes),
	IPN_COUNTER(sa_requests),
	IPN_COUNTER(sa_delayed), IPN_COUNTER(sa_delay_ms),
	IPN_COUNTER(tx_posts), IPN_COUNTER(rx_alloc_fail),
	IPN_COUNTER(mc_stale_answers), IPN_COUNTER(cm_rx_drains),
	IPN_COUNTER(cm_drain_timeouts), IPN_COUNTER(cm_srq_restarts),
#undef IPN_COUNTER
};

static_assert(ARRAY_SIZE(ipn_counters) + IPC_R_COUNT - 1 == IPN_N_STATS);

/* The name of counter i (< IPN_N_STATS) into buf. */
void ipn_stats_name(unsigned int i, u8 *buf, size_t len)
{
	if (i < ARRAY_SIZE(ipn_counters))
		strscpy(buf, ipn_counters[i].name, len);
	else
		snprintf(buf, len, "drop_%s",
			 ipc_reason_name(i - ARRAY_SIZE(ipn_counters) + 1));
}

/* Every counter's value, IPN_N_STATS of them, into data. */
void ipn_stats_values(struct ipn_priv *priv, u64 *data)
{
	struct ipn_stats sum;
	unsigned int i;

	ipn_stats_read(priv, &sum);
	for (i = 0; i < ARRAY_SIZE(ipn_counters); i++)
		*data++ = *(u64 *)((u8 *)&sum + ipn_counters[i].off);
	for (i = IPC_R_OK + 1; i < IPC_R_COUNT; i++)
		*data++ = sum.drop[i];
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

#ifdef IPN_HAVE_QSTATS
/*
 * Per-queue statistics (netlink qstats-get, 6.9 on), from the counters
 * ip -s reads, so the two agree. One receive queue: the interface's
 * totals. A transmit queue: its own (ipn_tx_done). The base: the
 * transmit queues not in use, whose sends ip -s still counts; the
 * counters outlive a down/up. rtnl held (txq_count).
 */
static void ipn_qstats_rx(struct net_device *dev, int idx,
			  struct netdev_queue_stats_rx *rx)
{
	struct ipn_stats sum;

	ipn_stats_read(netdev_priv(dev), &sum);
	rx->packets = sum.rx_packets;
	rx->bytes = sum.rx_bytes;
	rx->alloc_fail = sum.rx_alloc_fail;
}

static void ipn_qstats_tx(struct net_device *dev, int idx,
			  struct netdev_queue_stats_tx *tx)
{
	u64 packets, bytes;

	ipn_txq_stats_read(netdev_priv(dev), idx, idx + 1, &packets, &bytes);
	tx->packets = packets;
	tx->bytes = bytes;
}

static void ipn_qstats_base(struct net_device *dev,
			    struct netdev_queue_stats_rx *rx,
			    struct netdev_queue_stats_tx *tx)
{
	struct ipn_priv *priv = netdev_priv(dev);
	u64 packets, bytes;

	ASSERT_RTNL();
	ipn_txq_stats_read(priv, priv->txq_count, priv->txq_max, &packets,
			   &bytes);
	rx->packets = 0;
	rx->bytes = 0;
	rx->alloc_fail = 0;
	tx->packets = packets;
	tx->bytes = bytes;
}

const struct netdev_stat_ops ipn_stat_ops = {
	.get_queue_stats_rx = ipn_qstats_rx,
	.get_queue_stats_tx = ipn_qstats_tx,
	.get_base_stats = ipn_qstats_base,
};
#endif

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
	trace_ipoib_ng_drop(priv->dev, reason, tx);
	dev_kfree_skb_any(skb);
}
