#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the test VM, chrooted into the host root by init.sh, with the
# host's bash and tools: runs one scenario under its time budget, then a
# kmemleak scan when the kernel has one, saves dmesg, and writes the VM's
# verdict to $VM_OUT/exitcode. That file is written last: run.sh treats its
# absence as a failure. Lines printed on the console start with "| ".
#
# usage: guest.sh VM_OUT/vm.conf

set -u

# shellcheck source=/dev/null
. "$1"
export VM_SCENARIO VM_SCRIPT VM_OUT VM_REPO VM_MODULE VM_TIMEOUT

say() { echo "| guest: $*"; }

script=$VM_SCRIPT
if [[ ! -f $script ]]; then
	say "no scenario $script"
	echo 2 > "$VM_OUT/exitcode"
	exit 2
fi
if [[ -n $VM_MODULE ]]; then
	say "module $VM_MODULE: version $(modinfo -F version "$VM_MODULE" 2>&1)," \
		"vermagic $(modinfo -F vermagic "$VM_MODULE" 2>&1)"
fi

run_scenario() {
	# timeout puts itself and the scenario in a process group of their own.
	timeout --kill-after=10 "$VM_TIMEOUT" bash "$script" < /dev/null &
	local pid=$! rc
	wait "$pid"
	rc=$?
	# Leftover background jobs would keep the pipe below open forever.
	kill -KILL -- "-$pid" 2> /dev/null
	return "$rc"
}

start=$(date +%s)
run_scenario 2>&1 | tee "$VM_OUT/$VM_SCENARIO.log" | sed -u 's/^/| /'
rc=${PIPESTATUS[0]}
if [[ $rc -eq 124 || $rc -eq 137 ]]; then
	say "TIMEOUT: $VM_SCENARIO exceeded its budget of ${VM_TIMEOUT}s"
	echo "$VM_TIMEOUT" > "$VM_OUT/timeout"
fi
say "$VM_SCENARIO exited $rc after $(($(date +%s) - start))s"

# Two scans: an object is reported once it has stayed unreferenced long
# enough, so a single scan right after the scenario misses the newest leaks.
leaks=/sys/kernel/debug/kmemleak
if [[ -w $leaks ]]; then
	say "kmemleak scan"
	echo scan > "$leaks"
	sleep 5
	echo scan > "$leaks"
	cat "$leaks" > "$VM_OUT/kmemleak.txt"
	if [[ -s $VM_OUT/kmemleak.txt ]]; then
		say "kmemleak reports suspected leaks:"
		sed 's/^/| kmemleak: /' "$VM_OUT/kmemleak.txt"
	fi
fi

dmesg > "$VM_OUT/dmesg.txt"
echo "$rc" > "$VM_OUT/exitcode"
sync
