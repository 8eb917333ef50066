# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The kernel log lines that fail a VM run. Sourced by run.sh (the console
# and dmesg.txt after a scenario) and by lib.sh (check_dmesg_clean in the
# middle of one, which also fails on "unregister_netdevice: waiting for").
# Every lockdep report starts with WARNING:; the lockdep lines listed are the
# ones that do not. Not "lockdep" alone: the debug kernel's boot banner says
# "RCU lockdep checking is enabled".

KERNEL_BAD_RE='WARNING:|BUG:|Oops|general protection|KASAN|UBSAN|possible circular locking|DEBUG_LOCKS_WARN_ON|lockdep is turned off|turning off the locking correctness validator|suspicious RCU usage|INFO: task .* blocked|kmemleak: .* new suspected memory leaks|Call Trace:|RCU stall|rcu_.*detected stall|soft lockup|hung_task|Kernel panic'
_KERNEL_BAD_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# kernel_bad_lines RE [FILE]: the lines of FILE (default stdin) matching RE,
# outside the expected dump_stack() of injected faults (fault-regions.awk).
kernel_bad_lines() {
	local re=$1
	shift
	awk -f "$_KERNEL_BAD_DIR/fault-regions.awk" "$@" | grep -E -- "$re"
}
