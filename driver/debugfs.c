// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs.c - the state of paths, multicast groups and connections, for
 * the administrator: /sys/kernel/debug/ipoib_ng/<ibdev>-<port>-<pkey>/path,
 * mcg and conns, one line per entry, "key value" pairs after the GID (the
 * core's view of each machine, struct ipc_view), and allmulti, the
 * all-multicast mode's line. Named by port and P_Key rather than by
 * interface, which can be renamed and can share a name with another
 * interface in another namespace; a second interface in
 * the same partition gets -<QPN> appended.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include "ipoib_ng.h"

struct dentry *ipn_debugfs_root;

static const char * const ipn_join_names[] = {
	[IPC_JOIN_NONE] = "-",
	[IPC_JOIN_FULL] = "full",
	[IPC_JOIN_NON] = "non",
	[IPC_JOIN_FULL | IPC_JOIN_NON] = "full+non",
	[IPC_JOIN_SENDONLY] = "sendonly",
	[IPC_JOIN_FULL | IPC_JOIN_SENDONLY] = "full+sendonly",
	[IPC_JOIN_NON | IPC_JOIN_SENDONLY] = "non+sendonly",
	[IPC_JOIN_FULL | IPC_JOIN_NON | IPC_JOIN_SENDONLY] = "all",
};

static const char *ipn_join_name(u8 type)
{
	return ipn_join_names[type & 7];
}

/* Milliseconds until the deadline, 0 if none or passed. */
static u64 ipn_ms_left(u64 deadline, u64 now)
{
	return deadline != IPC_NO_DEADLINE && deadline > now ?
	       deadline - now : 0;
}

static void ipn_show_attr(struct seq_file *m, struct ipn_priv *priv,
			  const struct rdma_ah_attr *attr)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(attr);

	seq_printf(m, " sl %u sgid_index %u hop_limit %u",
		   rdma_ah_get_sl(attr), grh->sgid_index, grh->hop_limit);
	if (priv->roce)
		seq_printf(m, " dmac %pM", attr->roce.dmac);
	else
		seq_printf(m, " dlid 0x%04x", rdma_ah_get_dlid(attr));
}

static int ipn_path_show(struct seq_file *m, void *v)
{
	struct ipn_priv *priv = m->private;
	u64 now = ipn_now_ms();
	struct ipn_path *path;
	struct ipc_view st;
	unsigned int bkt;

	spin_lock_bh(&priv->lock);
	for (bkt = 0; bkt < ipn_path_buckets(priv); bkt++) {
		hlist_for_each_entry(path, &priv->paths[bkt], node) {
			ipc_path_view(&path->st, &st);
			seq_printf(m, "%pI6 state %s attempts %u queued %u status %d retry_ms %llu",
				   path->gid, st.state, st.attempts, st.queued,
				   st.last_status,
				   ipn_ms_left(st.deadline_ms, now));
			if (path->ah)
				ipn_show_attr(m, priv, &path->attr);
			seq_putc(m, '\n');
		}
	}
	spin_unlock_bh(&priv->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ipn_path);

static int ipn_mcg_show(struct seq_file *m, void *v)
{
	struct ipn_priv *priv = m->private;
	u64 now = ipn_now_ms();
	struct ipn_mcast *mc;
	struct ipc_view st;

	spin_lock_bh(&priv->lock);
	list_for_each_entry(mc, &priv->mcasts, list) {
		ipc_mc_view(&mc->st, &st);
		seq_printf(m, "%pI6 state %s want %s joined %s pending %s attempts %u queued %u status %d retry_ms %llu mlid 0x%04x%s\n",
			   mc->mgid, st.state, ipn_join_name(st.want),
			   ipn_join_name(st.joined), ipn_join_name(st.pending),
			   st.attempts, st.queued, st.last_status,
			   ipn_ms_left(st.deadline_ms, now),
			   be16_to_cpu(mc->rec.mlid),
			   mc->is_bcast ? " broadcast" : "");
	}
	spin_unlock_bh(&priv->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ipn_mcg);

/*
 * Connected mode's connections: "tx" those this interface made (the
 * core's machine, the sends in flight), "rx" those peers made to it (ms
 * since their last frame: the idle reaper's clock).
 */
static int ipn_conns_show(struct seq_file *m, void *v)
{
	struct ipn_priv *priv = m->private;
	u64 now = ipn_now_ms();
	struct ipn_cm_tx *tx;
	struct ipn_cm_rx *rx;
	struct ipc_view st;
	int bkt;

	spin_lock_bh(&priv->lock);
	hash_for_each(priv->cm_tx, bkt, tx, node) {
		ipc_cm_view(&tx->st, &st);
		seq_printf(m, "tx %pI6 qpn 0x%06x state %s attempts %u queued %u status %d retry_ms %llu inflight %d\n",
			   ipn_addr_gid(tx->addr), ipn_addr_qpn(tx->addr),
			   st.state, st.attempts, st.queued, st.last_status,
			   ipn_ms_left(st.deadline_ms, now),
			   atomic_read(&tx->inflight));
	}
	list_for_each_entry(rx, &priv->cm_rx, list)
		seq_printf(m, "rx %pI6 qpn 0x%06x idle_ms %llu\n",
			   ipn_addr_gid(rx->peer), ipn_addr_qpn(rx->peer),
			   now - min(now, READ_ONCE(rx->last_rx_ms)));
	spin_unlock_bh(&priv->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ipn_conns);

/*
 * The SA's group notices (RFC 4391 s10) and the all-multicast mode
 * (s11): the core's machine; directory on while in the mode.
 */
static int ipn_allmulti_show(struct seq_file *m, void *v)
{
	struct ipn_priv *priv = m->private;
	struct ipc_view st;

	spin_lock_bh(&priv->lock);
	ipc_am_view(&priv->am.st, &st);
	spin_unlock_bh(&priv->lock);
	seq_printf(m, "state %s directory %s attempts %u groups %u retry_ms %llu\n",
		   st.state, st.want ? "on" : "off", st.attempts, st.members,
		   ipn_ms_left(st.deadline_ms, ipn_now_ms()));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ipn_allmulti);

/*
 * Best effort, as debugfs is: a failure leaves the files out. A second
 * interface of a port in one partition (a child with its parent's P_Key,
 * as container plugins make one per pod) gets its QPN added to the name;
 * looked up first, so that debugfs does not log "already present" once
 * per pod.
 */
void ipn_debugfs_add(struct ipn_priv *priv)
{
	char name[IB_DEVICE_NAME_MAX + 16];
	struct dentry *taken;

	if (!ipn_debugfs_root)
		return;
	snprintf(name, sizeof(name), "%s-%u-%04x", dev_name(&priv->ca->dev),
		 priv->port, priv->pkey);
	taken = debugfs_lookup(name, ipn_debugfs_root);
	if (taken) {
		dput(taken);
		snprintf(name, sizeof(name), "%s-%u-%04x-%06x",
			 dev_name(&priv->ca->dev), priv->port, priv->pkey,
			 priv->ifid.qpn);
	}
	priv->debugfs = debugfs_create_dir(name, ipn_debugfs_root);
	debugfs_create_file("path", 0400, priv->debugfs, priv, &ipn_path_fops);
	debugfs_create_file("mcg", 0400, priv->debugfs, priv, &ipn_mcg_fops);
	debugfs_create_file("conns", 0400, priv->debugfs, priv,
			    &ipn_conns_fops);
	debugfs_create_file("allmulti", 0400, priv->debugfs, priv,
			    &ipn_allmulti_fops);
}

/* Waits for readers in progress: priv may be freed afterwards. */
void ipn_debugfs_remove(struct ipn_priv *priv)
{
	debugfs_remove(priv->debugfs);
	priv->debugfs = NULL;
}
