// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - module parameters, init and exit (exact reverse) only.
 */
#include <linux/debugfs.h>
#include <linux/module.h>
#include "ipoib_ng.h"

int ipn_recvq_size = 512;
int ipn_sendq_size = 256;

unsigned int ipn_rejoin_spread_ms = 10000;
module_param_named(rejoin_spread_ms, ipn_rejoin_spread_ms, uint, 0644);
MODULE_PARM_DESC(rejoin_spread_ms,
		 "InfiniBand: multicast rejoins after an SM event are spread at random over this many ms (default 10000; 0: at once)");

unsigned int ipn_path_spread_ms = 45000;
module_param_named(path_spread_ms, ipn_path_spread_ms, uint, 0644);
MODULE_PARM_DESC(path_spread_ms,
		 "InfiniBand: after an SM event each path keeps sending and is revalidated at a random time within this many ms (default 45000; 0: at once)");

unsigned int ipn_sendonly_idle_ms = 60000;
module_param_named(sendonly_idle_ms, ipn_sendonly_idle_ms, uint, 0644);
MODULE_PARM_DESC(sendonly_idle_ms,
		 "A send-only membership (RFC 4391 s10) is left after this many ms without a packet (default 60000, at least 1000, at most 3600000)");

unsigned int ipn_cm_rx_max = 512;
module_param_named(cm_rx_max, ipn_cm_rx_max, uint, 0644);
MODULE_PARM_DESC(cm_rx_max,
		 "Connected mode: connections peers may hold to one interface; REQs beyond are rejected and counted in cm_rejects (default 512)");

unsigned int ipn_cm_tx_max = 1024;
/* Review M3: a peer answering ARP with ever new QPNs costs a QP each. */
module_param_named(cm_tx_max, ipn_cm_tx_max, uint, 0644);
MODULE_PARM_DESC(cm_tx_max,
		 "Connected mode: connections one interface makes at most (4 per peer GID); beyond, packets go over datagrams and are counted in cm_tx_refused (default 1024)");

bool ipn_create_broadcast;
module_param_named(create_broadcast, ipn_create_broadcast, bool, 0644);
MODULE_PARM_DESC(create_broadcast,
		 "InfiniBand: create the link-local broadcast group when no scope has one (default N: wait for the SM's)");

static int ipn_param_set_qsize(const char *val, const struct kernel_param *kp)
{
	int n, ret;

	ret = kstrtoint(val, 0, &n);
	if (ret)
		return ret;
	if (n < IPN_RING_MIN || n > IPN_RING_MAX || !is_power_of_2(n)) {
		pr_warn(IPN_DRV_NAME ": %s must be a power of two in %d..%d\n",
			kp->name, IPN_RING_MIN, IPN_RING_MAX);
		return -EINVAL;
	}
	*(int *)kp->arg = n;
	return 0;
}

static const struct kernel_param_ops ipn_qsize_ops = {
	.set = ipn_param_set_qsize,
	.get = param_get_int,
};

unsigned int ipn_paths_max = IPN_PATHS_DEFAULT;
unsigned int ipn_groups_max = IPN_GROUPS_DEFAULT;

/* An unsigned parameter in [min, max]. */
static int ipn_param_set_range(const char *val, const struct kernel_param *kp,
			       unsigned int min, unsigned int max)
{
	unsigned int n;
	int ret;

	ret = kstrtouint(val, 0, &n);
	if (ret)
		return ret;
	if (n < min || n > max) {
		pr_warn(IPN_DRV_NAME ": %s must be in %u..%u\n", kp->name,
			min, max);
		return -EINVAL;
	}
	*(unsigned int *)kp->arg = n;
	return 0;
}

static int ipn_param_set_paths_max(const char *val,
				   const struct kernel_param *kp)
{
	return ipn_param_set_range(val, kp, IPN_PATHS_MIN, IPN_PATHS_MAX);
}

static int ipn_param_set_groups_max(const char *val,
				    const struct kernel_param *kp)
{
	return ipn_param_set_range(val, kp, IPN_GROUPS_MIN, IPN_GROUPS_MAX);
}

static const struct kernel_param_ops ipn_paths_max_ops = {
	.set = ipn_param_set_paths_max,
	.get = param_get_uint,
};

static const struct kernel_param_ops ipn_groups_max_ops = {
	.set = ipn_param_set_groups_max,
	.get = param_get_uint,
};

/* Review M3: read when an interface is made (priv->paths_max). */
module_param_cb(paths_max, &ipn_paths_max_ops, &ipn_paths_max, 0444);
MODULE_PARM_DESC(paths_max,
		 "Destinations (paths) one interface keeps at most, 16..262144 (default 16384); at the cap, a packet to a new one is dropped (drop_path_table_full) and an idle or failed path gives way (path_evictions)");

/* Review M3: read when an interface is made (priv->groups_max). */
module_param_cb(groups_max, &ipn_groups_max_ops, &ipn_groups_max, 0444);
MODULE_PARM_DESC(groups_max,
		 "Multicast groups one interface keeps at most, the broadcast group included (never refused), 16..65536 (default 4096); at the cap, a packet to a new group is dropped (drop_group_table_full), a stack group waits, and an idle send-only or failed group gives way (mc_evictions)");

/*
 * The port's SA request budget (budget.c): every path query, join and
 * all-multicast MAD of the port's interfaces spends a token.
 */
unsigned int ipn_sa_rate = 50;
unsigned int ipn_sa_burst = 128;

static int ipn_param_set_sa(const char *val, const struct kernel_param *kp)
{
	return ipn_param_set_range(val, kp, 1, 100000);
}

static const struct kernel_param_ops ipn_sa_ops = {
	.set = ipn_param_set_sa,
	.get = param_get_uint,
};

module_param_cb(sa_rate, &ipn_sa_ops, &ipn_sa_rate, 0644);
MODULE_PARM_DESC(sa_rate,
		 "InfiniBand: SA requests (path queries, joins) a port's interfaces make per second at most, beyond its burst; the rest wait, the broadcast group first, then what has frames waiting, then revalidations (sa_delayed); 1..100000 (default 50)");
module_param_cb(sa_burst, &ipn_sa_ops, &ipn_sa_burst, 0644);
MODULE_PARM_DESC(sa_burst,
		 "InfiniBand: SA requests a port's interfaces may make at once after a quiet time, 1..100000 (default 128)");

bool ipn_promisc_allmulti;
/* Review M3: tcpdump's IFF_PROMISC must not join every group of a fabric. */
module_param_named(promisc_allmulti, ipn_promisc_allmulti, bool, 0444);
MODULE_PARM_DESC(promisc_allmulti,
		 "IFF_PROMISC also enters the RFC 4391 s11 all-multicast mode, NonMember joins to every IPoIB group of the link (default N: only IFF_ALLMULTI does, which multicast routing sets)");

bool ipn_sa_notices;
/*
 * RFC 4391 s10's subscription by every sender: off by default, for its
 * cost to the SM on a large fabric (admin guide, "The SA's group notices").
 */
module_param_named(sa_notices, ipn_sa_notices, bool, 0444);
MODULE_PARM_DESC(sa_notices,
		 "InfiniBand: every interface subscribes to the SA's notices of groups created and deleted (RFC 4391 s10), so that its send-only groups follow them; each group made or deleted on the fabric then costs the SM a Report to every such port (default N: only the all-multicast mode subscribes)");

/*
 * Beside ib_ipoib (Documentation/admin-guide.rst, "Beside ib_ipoib"): the
 * two drivers share the "ipoib" rtnl link kind, so one of them goes
 * without it; ports= says which ports ipoib_ng serves.
 */
bool ipn_link_kind = true;
module_param_named(link_kind, ipn_link_kind, bool, 0444);
MODULE_PARM_DESC(link_kind,
		 "Register the \"ipoib\" rtnl link kind (ip link add ... type ipoib); N leaves it to ib_ipoib so that both drivers load, children are then made with create_child (default Y)");

char ipn_ports[IPN_PORTS_LEN];

static int ipn_param_set_ports(const char *val, const struct kernel_param *kp)
{
	char buf[IPN_PORTS_LEN];
	size_t len = strlen(val);

	/* echo's newline ends the value; any other is refused below. */
	if (len && val[len - 1] == '\n')
		len--;

	if (len >= sizeof(buf)) {
		pr_warn(IPN_DRV_NAME ": ports: at most %zu characters\n",
			sizeof(buf) - 1);
		return -EINVAL;
	}
	memcpy(buf, val, len);
	buf[len] = '\0';
	if (!ipn_ports_valid(buf)) {
		pr_warn(IPN_DRV_NAME ": ports: \"%s\" is not a comma-separated list of ib, roce, <device> or <device>:<port>\n",
			buf);
		return -EINVAL;
	}
	strscpy(ipn_ports, buf, sizeof(ipn_ports));
	return 0;
}

static int ipn_param_get_ports(char *buffer, const struct kernel_param *kp)
{
	return scnprintf(buffer, PAGE_SIZE, "%s\n", ipn_ports);
}

static const struct kernel_param_ops ipn_ports_ops = {
	.set = ipn_param_set_ports,
	.get = ipn_param_get_ports,
};

module_param_cb(ports, &ipn_ports_ops, NULL, 0444);
MODULE_PARM_DESC(ports,
		 "The RDMA ports that get an interface: a comma-separated list of ib (every InfiniBand port), roce (every RoCE port), <device> or <device>:<port>, e.g. roce,mlx5_1:2 (default: every InfiniBand and RoCE port)");

module_param_cb(recv_queue_size, &ipn_qsize_ops, &ipn_recvq_size, 0444);
MODULE_PARM_DESC(recv_queue_size,
		 "Receive ring entries per interface (power of two, "
		 __stringify(IPN_RING_MIN) ".." __stringify(IPN_RING_MAX)
		 ", default 512)");
module_param_cb(send_queue_size, &ipn_qsize_ops, &ipn_sendq_size, 0444);
MODULE_PARM_DESC(send_queue_size,
		 "Send ring entries per interface (power of two, "
		 __stringify(IPN_RING_MIN) ".." __stringify(IPN_RING_MAX)
		 ", default 256)");

static int __init ipn_init(void)
{
	int ret;

	ipn_debugfs_root = debugfs_create_dir(IPN_DRV_NAME, NULL);
	ret = ipn_netlink_init();
	if (ret)
		goto err_debugfs;
	/* Before any interface, whose events it carries. */
	ret = ipn_genl_init();
	if (ret)
		goto err_netlink;
	ret = ipn_dev_init();
	if (ret)
		goto err_genl;
	ret = ipn_roce_init();
	if (ret)
		goto err_dev;
	ret = ipn_ib_init();
	if (ret)
		goto err_roce;
	pr_info(IPN_DRV_NAME ": IP over InfiniBand and RoCE, version %s\n",
		IPOIB_NG_VERSION);
	return 0;

err_roce:
	ipn_roce_exit();
err_dev:
	ipn_dev_exit();
err_genl:
	ipn_genl_exit();
err_netlink:
	ipn_netlink_exit();
err_debugfs:
	debugfs_remove(ipn_debugfs_root);
	return ret;
}

static void __exit ipn_exit(void)
{
	ipn_ib_exit();
	ipn_roce_exit();
	ipn_dev_exit();
	ipn_genl_exit();
	ipn_netlink_exit();
	debugfs_remove(ipn_debugfs_root);
}

module_init(ipn_init);
module_exit(ipn_exit);
MODULE_AUTHOR("The ipoib-ng authors");
MODULE_DESCRIPTION("IP over InfiniBand (RFC 4391/4755) for InfiniBand and RoCE ports");
MODULE_LICENSE("GPL");
MODULE_VERSION(IPOIB_NG_VERSION);
