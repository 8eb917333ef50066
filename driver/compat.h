/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - every kernel-version difference lives here. Force-included
 * (-include) into each C file of the shim and of kunit/, so the rest
 * carries no LINUX_VERSION_CODE tests.
 *
 * The range is what is built here (make module-check): Debian 12's 6.1,
 * 6.12 and 6.12-rt headers, every API difference between them below.
 * Before 6.1 more calls differ (the NAPI weight, the SA path callback
 * without num_prs, before 5.17 the ethtool ring callbacks) with no headers
 * at hand to build them; nothing after 6.12 has been built.
 */
#ifndef IPOIB_NG_COMPAT_H
#define IPOIB_NG_COMPAT_H

#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0) || \
	LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#error "ipoib_ng builds on Linux 6.1 to 6.12 only (see driver/compat.h)"
#endif

/* 6.3: the ib_sa_path_rec_get() callback's num_prs became unsigned int. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
#define ipn_sa_num_prs_t unsigned int
#else
#define ipn_sa_num_prs_t int
#endif

/* 6.11 renamed KUNIT_ASSERT_FAILURE to KUNIT_FAIL_AND_ABORT (kunit/). */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define KUNIT_ASSERT_FAILURE KUNIT_FAIL_AND_ABORT
#endif

/* IB_SPEED_XDR (200 Gb/s lanes) is in 6.12's enum ib_port_speed, not 6.1's. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define IPN_IB_SPEED_XDR IB_SPEED_XDR
#else
#define IPN_IB_SPEED_XDR 256	/* the value 6.12 gives it */
#endif

/* 6.12: asm/unaligned.h moved to linux/unaligned.h. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define IPN_UNALIGNED_H "linux/unaligned.h"
#else
#define IPN_UNALIGNED_H "asm/unaligned.h"
#endif

/* 6.6: the page pool's header split in two (net/page_pool/helpers.h). */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
#define IPN_PAGE_POOL_H "net/page_pool/helpers.h"
#else
#define IPN_PAGE_POOL_H "net/page_pool.h"
#endif

/*
 * 6.12.78: header_ops.parse also takes the net_device (a stable fix that
 * other stable lines may take: told by the member's type, not the version).
 * After fn(skb, haddr): IPN_DEFINE_HEADER_PARSE(fn), and in the header_ops
 * .parse = IPN_HEADER_PARSE(fn).
 */
#define ipn_header_parse_has_dev()					\
	__builtin_types_compatible_p(typeof(((struct header_ops *)0)->parse), \
				     int (*)(const struct sk_buff *,	\
					     const struct net_device *,	\
					     unsigned char *))
#define IPN_DEFINE_HEADER_PARSE(fn)					\
	static int fn##_dev(const struct sk_buff *skb,			\
			    const struct net_device *dev,		\
			    unsigned char *haddr)			\
	{								\
		return fn(skb, haddr);					\
	}
#define IPN_HEADER_PARSE(fn)						\
	__builtin_choose_expr(ipn_header_parse_has_dev(), fn##_dev, fn)

/* 6.10: __assign_str() takes the source from __string() (driver/trace.h). */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define ipn_assign_str(dst, src) __assign_str(dst)
#else
#define ipn_assign_str(dst, src) __assign_str(dst, src)
#endif

/*
 * 6.8: a queue names its NAPI instance (netif_queue_set_napi(), netlink
 * queue-get); 6.9: per-queue statistics (netdev_stat_ops, qstats-get).
 * Before, neither is offered: ip -s and ethtool -S have the counters.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0)
#define IPN_HAVE_QUEUE_NAPI 1
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
#define IPN_HAVE_QSTATS 1
#endif

#endif /* IPOIB_NG_COMPAT_H */
