// SPDX-License-Identifier: GPL-2.0
/*
 * sa_test.c - suite ipoib_ng_sa: the InfiniBand control paths (SA
 * PathRecord queries, SA multicast joins; RFC 4391 s5, s9.1.2, s10) of the
 * real driver code, against a scripted subnet administrator.
 *
 * Soft-RoCE has no SA, so each case makes a real interface on the RoCE
 * port of the device named by the ibdev parameter (real PD, QP, address
 * handles, attach), switches it to the InfiniBand backend (driver/sa.c) and
 * replaces only the SA calls (struct ipn_sa_ops) by the fake below. The test
 * then answers each request as an SA would: success, timeout, group missing,
 * -ENETRESET, late answers racing with leave, interface down, device gone.
 *
 * The fake keeps ib_sa's contracts: a cancelled query completes later with
 * -EINTR, from another context; after free_multicast() returns, the join
 * callback never runs again, and a callback in flight is waited for.
 *
 * The suite is one translation unit in several files: kunit/sa/fake.c (the
 * fake SA and the fixture), then the cases by concern: bcast.c (the
 * broadcast group and port events), path.c, mcast.c, allmulti.c (RFC 4391
 * s11), teardown.c (faults and races with down and removal).
 */
#define IPN_KUNIT 1
#include <linux/delay.h>
#include <linux/kthread.h>
#include IPN_UNALIGNED_H
#include <linux/etherdevice.h>
#include <linux/ip.h>
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <net/addrconf.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include <net/genetlink.h>
#include <linux/ipoib_ng.h>
#include "ipoib_ng.h"
#include "ipn_kunit.h"

/* One translation unit: the fake SA, then the cases by concern. */
#include "sa/fake.c"
#include "sa/bcast.c"
#include "sa/path.c"
#include "sa/mcast.c"
#include "sa/allmulti.c"
#include "sa/teardown.c"
#include "sa/budget.c"

static struct kunit_case ipn_sa_cases[] = {
	KUNIT_CASE(sa_bcast_join),
	KUNIT_CASE(sa_bcast_join_timeout_retries),
	KUNIT_CASE(sa_bcast_enetreset_rejoins),
	KUNIT_CASE(sa_event_kinds),
	KUNIT_CASE(sa_pkey_appears),
	KUNIT_CASE(sa_bcast_scope_search),
	KUNIT_CASE(sa_bcast_create),
	KUNIT_CASE(sa_bcast_search_starts_over),
	KUNIT_CASE(sa_path_query),
	KUNIT_CASE(sa_path_netlink),
	KUNIT_CASE(sa_path_flush_while_resolving),
	KUNIT_CASE(sa_path_stale_completion_ignored),
	KUNIT_CASE(sa_path_superseded_answer_drops_gid_ref),
	KUNIT_CASE(sa_path_timeout),
	KUNIT_CASE(sa_path_start_fails),
	KUNIT_CASE(sa_path_queue_bounded),
	KUNIT_CASE(sa_path_qpn_change),
	KUNIT_CASE(sa_path_idle_freed),
	KUNIT_CASE(sa_path_used_unlocked_stays),
	KUNIT_CASE(sa_path_table_bounded),
	KUNIT_CASE(sa_group_table_bounded),
	KUNIT_CASE(sa_rx_mode_diff),
	KUNIT_CASE(sa_member_tx_before_sync),
	KUNIT_CASE(sa_umcast),
	KUNIT_CASE(sa_sender_subscribes),
	KUNIT_CASE(sa_sender_follows_notices),
	KUNIT_CASE(sa_allmulti),
	KUNIT_CASE(sa_allmulti_groups_bounded),
	KUNIT_CASE(sa_allmulti_reports_limited),
	KUNIT_CASE(sa_allmulti_answer_at_once),
	KUNIT_CASE(sa_allmulti_mad_agents),
	KUNIT_CASE(sa_groups_wait_for_bcast),
	KUNIT_CASE(sa_tx_decisions),
	KUNIT_CASE(sa_faults_after_answers),
	KUNIT_CASE(sa_path_cancel_on_down),
	KUNIT_CASE(sa_sendonly_group_missing),
	KUNIT_CASE(sa_join_answer_races_down),
	KUNIT_CASE(sa_remove_with_requests_outstanding),
	KUNIT_CASE(sa_path_done_races_free),
	KUNIT_CASE(sa_bcast_answer_in_free),
	KUNIT_CASE(sa_bcast_answer_before_leave),
	KUNIT_CASE(sa_budget_port_shared),
	KUNIT_CASE(sa_sender_subscription_shared),
	KUNIT_CASE(sa_budget_bcast_first),
	KUNIT_CASE(sa_path_revalidation_keeps_sending),
	KUNIT_CASE(sa_flush_spread_defaults),
	KUNIT_CASE(sa_path_answer_drops_gid_ref),
	KUNIT_CASE(sa_tick_runs_what_is_due),
	{}
};

static struct kunit_suite ipn_sa_suite = {
	.name = "ipoib_ng_sa",
	.init = kt_init,
	.exit = kt_exit,
	.test_cases = ipn_sa_cases,
};

kunit_test_suite(ipn_sa_suite);
