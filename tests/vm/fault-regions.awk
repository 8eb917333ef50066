# SPDX-License-Identifier: GPL-2.0
#
# Filter a kernel log before it is searched for warnings: between the lines
# "ipoib_ng: fault injection begins" and "ipoib_ng: fault injection ends"
# (printed by the KUnit suite ipoib_ng_fault around its injected failures),
# drop "Call Trace:" lines. There they belong to the dump_stack() that an
# injected allocation failure makes the kernel print (warn_alloc, sysctl
# registration); every real report keeps its own header (WARNING:, BUG:,
# KASAN, UBSAN, lockdep), which still counts.
/ipoib_ng: fault injection begins/ { inside = 1 }
/ipoib_ng: fault injection ends/ { inside = 0 }
inside && /Call Trace:/ { next }
{ print }
