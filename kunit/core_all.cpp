// SPDX-License-Identifier: GPL-2.0
/* The KUnit module's copy of the C++ core, compiled like ipoib_ng.ko's. */
#include "../driver/core/ipoib_core_all.cpp"
