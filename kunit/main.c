// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - the KUnit module ipoib_ng_kunit.ko: the shim's globals, and the
 * parameter naming the RDMA device the device suites run on.
 *
 * The suites run when the module is loaded (KUnit runs a module's suites
 * before its init). Results: /sys/kernel/debug/kunit/<suite>/results.
 * The device suites (ipoib_ng_sa) need an RDMA device with a RoCE port 1
 * that no other IPoIB driver uses: tests/vm/scenarios/kunit.sh makes one
 * with rdma_rxe.
 */
#define IPN_KUNIT 1
#include <linux/module.h>
#include "ipoib_ng.h"
#include "ipn_kunit.h"

int ipn_recvq_size = 64;
int ipn_sendq_size = 64;
unsigned int ipn_rejoin_spread_ms;	/* rejoin at once: tests are not a fabric */

char *ipn_kunit_ibdev = "rxe0";
module_param_named(ibdev, ipn_kunit_ibdev, charp, 0444);
MODULE_PARM_DESC(ibdev, "RDMA device (RoCE port 1) for the device suites (default rxe0)");

/* The device named by ibdev, referenced (ib_device_put); fails the case without it. */
struct ib_device *ipn_kunit_get_ibdev(struct kunit *test)
{
	struct ib_device *ca;

	ca = ib_device_get_by_name(ipn_kunit_ibdev, RDMA_DRIVER_UNKNOWN);
	KUNIT_ASSERT_NOT_NULL_MSG(test, ca,
				  "no RDMA device %s (module parameter ibdev)",
				  ipn_kunit_ibdev);
	return ca;
}

MODULE_DESCRIPTION("KUnit suites of ipoib_ng");
MODULE_LICENSE("GPL");
