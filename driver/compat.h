/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - every kernel-version difference lives here. Force-included
 * (-include) into each C file of the shim, so the rest carries no
 * LINUX_VERSION_CODE tests. Supported: 5.15 .. 6.12 (6.1 is tested).
 */
#ifndef IPOIB_NG_COMPAT_H
#define IPOIB_NG_COMPAT_H

#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 15, 0)
#error "ipoib_ng needs Linux 5.15 or newer"
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#error "ipoib_ng has not been ported to Linux 6.13 or newer yet"
#endif

/* 6.1 added netif_napi_add_weight(); before, netif_napi_add took a weight. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#define ipn_napi_add(dev, napi, poll) netif_napi_add(dev, napi, poll, 64)
#define ipn_napi_add_tx(dev, napi, poll) netif_tx_napi_add(dev, napi, poll, 64)
#else
#define ipn_napi_add(dev, napi, poll) netif_napi_add(dev, napi, poll)
#define ipn_napi_add_tx(dev, napi, poll) netif_napi_add_tx(dev, napi, poll)
#endif

#endif /* IPOIB_NG_COMPAT_H */
