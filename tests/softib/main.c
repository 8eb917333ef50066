// SPDX-License-Identifier: GPL-2.0
/*
 * softib: module init and its exact reverse. The fabric first, then each
 * HCA created, cabled and registered; on unload each HCA unregistered
 * (which destroys its QPs) and freed, then the fabric.
 */
#include <linux/module.h>

#include "softib.h"

static int hcas = 3;
module_param(hcas, int, 0444);
MODULE_PARM_DESC(hcas, "HCAs softib0..N-1, one node each (1-16, default 3)");

static int ports_per_hca = 1;
module_param(ports_per_hca, int, 0444);
MODULE_PARM_DESC(ports_per_hca, "ports per HCA (1-2, default 1)");

static int switch_ports = 8;
module_param(switch_ports, int, 0444);
MODULE_PARM_DESC(switch_ports,
		 "external ports of switch sw0 (1-36, default 8); HCA ports beyond stay uncabled");

/* EUI-64 with the locally administered bit (0x02 in the first byte). */
static unsigned long long guid_base = 0x0200000000000000ULL;
module_param(guid_base, ullong, 0444);
MODULE_PARM_DESC(guid_base, "NodeGUID of sw0; node n has guid_base | n << 8");

static struct softib_fabric *softib_fabric;

/*
 * Every HCA leaves ib_core first, then the cables go: the rest of the
 * fabric keeps sending into an unregistered HCA for as long as the others
 * take to unregister (seconds, with ULPs on them), which is what the
 * grace period in softib_hca_unregister() is for (ib-unload floods it).
 */
static void softib_remove_hcas(struct softib_fabric *fabric, int n)
{
	int i;

	for (i = n - 1; i >= 0; i--)
		softib_hca_unregister(fabric->hcas[i]);
	for (i = n - 1; i >= 0; i--) {
		softib_hca_destroy(fabric->hcas[i]);
		fabric->hcas[i] = NULL;
	}
}

static int __init softib_init(void)
{
	struct softib_fabric *fabric;
	struct softib_hca *hca;
	int i, ret;

	if (hcas < 1 || hcas > SOFTIB_MAX_HCAS ||
	    ports_per_hca < 1 || ports_per_hca > SOFTIB_MAX_PORTS_PER_HCA ||
	    switch_ports < 1 || switch_ports > SOFTIB_MAX_SWITCH_PORTS ||
	    (guid_base & 0xffff)) {
		pr_err("softib: parameters out of range (see modinfo softib)\n");
		return -EINVAL;
	}
	fabric = softib_fabric_create(hcas, ports_per_hca, switch_ports,
				      guid_base);
	if (IS_ERR(fabric))
		return PTR_ERR(fabric);
	for (i = 0; i < hcas; i++) {
		hca = softib_hca_create(fabric, i);
		if (IS_ERR(hca)) {
			ret = PTR_ERR(hca);
			goto err_hcas;
		}
		ret = softib_hca_register(hca);
		if (ret) {
			softib_hca_destroy(hca);
			goto err_hcas;
		}
		fabric->hcas[i] = hca;
	}
	softib_fabric = fabric;
	return 0;

err_hcas:
	softib_remove_hcas(fabric, i);
	softib_fabric_destroy(fabric);
	return ret;
}

static void __exit softib_exit(void)
{
	softib_remove_hcas(softib_fabric, softib_fabric->nhcas);
	softib_fabric_destroy(softib_fabric);
}

module_init(softib_init);
module_exit(softib_exit);

MODULE_DESCRIPTION("softib: a simulated InfiniBand fabric for ipoib-ng's tests");
MODULE_LICENSE("GPL");
