// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ipoib_core_all.cpp - the one translation unit of the C++ core. Kbuild
 * compiles only this file, so that no inline function or template becomes a
 * COMDAT group shared between objects (Documentation/cxx-in-kernel.rst pitfall 1);
 * the userspace tests compile it too, so they test what the kernel runs.
 */
#include "reason.cpp"
#include "addr.cpp"
#include "mcast_map.cpp"
#include "arp_nd.cpp"
#include "encap.cpp"
#include "mtu.cpp"
#include "keys.cpp"
#include "backoff.cpp"
#include "budget.cpp"
#include "path.cpp"
#include "mc.cpp"
#include "link.cpp"
#include "sa.cpp"
#include "allmulti.cpp"
#include "cm.cpp"
