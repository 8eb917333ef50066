// SPDX-License-Identifier: GPL-2.0
/* The KUnit module's copy of driver/sriov.c (see Kbuild). */
#define IPN_KUNIT 1
#include "../driver/sriov.c"
