// SPDX-License-Identifier: GPL-2.0
/*
 * The KUnit module's copy of driver/debugfs.c (see Kbuild). Its root stays
 * NULL (kunit/main.c defines no other), so test interfaces add no files.
 */
#define IPN_KUNIT 1
#include "../driver/debugfs.c"
