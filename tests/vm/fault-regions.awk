# SPDX-License-Identifier: GPL-2.0
#
# Filter a kernel log before it is searched for warnings: between the lines
# "ipoib_ng: fault injection begins" and "ipoib_ng: fault injection ends"
# (printed by the KUnit suite ipoib_ng_fault around its injected failures),
# drop "Call Trace:" lines. There they belong to the dump_stack() that an
# injected allocation failure makes the kernel print (warn_alloc, sysctl
# registration); every real report keeps its own header (WARNING:, BUG:,
# KASAN, UBSAN, lockdep), which still counts.
#
# And one known kernel bug: Debian 6.1's rdmavt (qp.c:rvt_post_one_wr)
# copies a UD work request (80 bytes) into the 40-byte member &wqe->wr of a
# union that holds it (6.12 copies into &wqe->ud_wr); FORTIFY_SOURCE warns
# once per rdmavt load, at the first UD send (softib's first MAD). From that
# report's first line to its end marker, its WARNING: and Call Trace: lines
# are dropped; any other report's header there still counts.
/detected field-spanning write \(size [0-9]+\) of single field "&wqe->wr" at drivers\/infiniband\/sw\/rdmavt\/qp\.c/ { rvt = 1 }
rvt && /---\[ end trace/ { rvt = 0 }
rvt && /WARNING: CPU: [0-9]+ PID: [0-9]+ at drivers\/infiniband\/sw\/rdmavt\/qp\.c:[0-9]+ rvt_post_send/ { next }
rvt && /Call Trace:/ { next }
/ipoib_ng: fault injection begins/ { inside = 1 }
/ipoib_ng: fault injection ends/ { inside = 0 }
inside && /Call Trace:/ { next }
{ print }
