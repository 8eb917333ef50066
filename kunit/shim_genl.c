// SPDX-License-Identifier: GPL-2.0
/*
 * The KUnit module's copy of driver/genl.c (see Kbuild). The family is
 * never registered here (ipoib_ng.ko owns the name), so the events of the
 * test interfaces go nowhere.
 */
#define IPN_KUNIT 1
#include "../driver/genl.c"
