#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the test VM, chrooted into the host root by init.sh, with the
# host's bash and tools: runs one scenario under its time budget (or, with
# VM_SEQUENCE from run.sh --one-vm, several in turn, each in a reset VM),
# then a kmemleak scan when the kernel has one, saves dmesg, and writes the
# VM's verdict to $VM_OUT/exitcode. That file is written last: run.sh
# treats its absence as a failure. Lines printed on the console start with
# "| ".
#
# usage: guest.sh VM_OUT/vm.conf

set -u

# shellcheck source=/dev/null
. "$1"
export VM_SCENARIO VM_SCRIPT VM_OUT VM_REPO VM_MODULE VM_TIMEOUT

say() { echo "| guest: $*"; }

# --module installed: the module the VM's kernel finds itself, which DKMS
# or the .deb put under /lib/modules/$(uname -r)/updates/dkms.
if [[ $VM_MODULE == installed ]]; then
	VM_MODULE=$(modinfo -n ipoib_ng 2> /dev/null)
	say "installed module for $(uname -r): ${VM_MODULE:-none}"
fi
if [[ -n $VM_MODULE ]]; then
	say "module $VM_MODULE: version $(modinfo -F version "$VM_MODULE" 2>&1)," \
		"vermagic $(modinfo -F vermagic "$VM_MODULE" 2>&1)"
fi

# run_scenario SCRIPT: under its budget, in a process group of its own.
run_scenario() {
	timeout --kill-after=10 "$VM_TIMEOUT" bash "$1" < /dev/null &
	local pid=$! rc
	wait "$pid"
	rc=$?
	# Leftover background jobs would keep the pipe below open forever.
	kill -KILL -- "-$pid" 2> /dev/null
	return "$rc"
}

# one NAME SCRIPT: run one scenario, its output in $VM_OUT; prints its rc.
one() {
	local start rc
	start=$(date +%s)
	run_scenario "$2" 2>&1 | tee "$VM_OUT/$1.log" | sed -u 's/^/| /' >&2
	rc=${PIPESTATUS[0]}
	if [[ $rc -eq 124 || $rc -eq 137 ]]; then
		say "TIMEOUT: $1 exceeded its budget of ${VM_TIMEOUT}s" >&2
		echo "$VM_TIMEOUT" > "$VM_OUT/timeout"
	fi
	echo $(($(date +%s) - start)) > "$VM_OUT/seconds"
	say "$1 exited $rc after $(< "$VM_OUT/seconds")s" >&2
	echo "$rc"
}

# Between two scenarios of one VM: what a fresh boot would give the next
# one (no namespaces, links, RDMA devices, modules, rules or /tmp files of
# the previous one).
reset_vm() {
	local l f pref
	pkill -KILL -x 'iperf3|tcpdump|socat|ping|arping|ib_send_bw' 2> /dev/null
	ip -all netns delete 2> /dev/null
	for l in $(rdma link show 2> /dev/null | awk '{ sub(/\/.*/, "", $2); print $2 }'); do
		rdma link delete "$l"
	done
	rmmod ipoib_ng_kunit 2> /dev/null	# insmod-ed: unknown to modprobe
	rmmod ipoib_ng 2> /dev/null
	for l in /sys/class/net/*; do
		[[ ${l##*/} == lo ]] || ip link delete "${l##*/}" 2> /dev/null
	done
	# rdma_rxe stays: reloaded in 6.1, its ports no longer send.
	modprobe -r bonding 2> /dev/null
	# The default rules (route_rxe_as_hosts moves "local" after its own).
	for f in -4 -6; do
		[[ -n $(ip "$f" rule show pref 0) ]] || ip "$f" rule add pref 0 lookup local
		for pref in $(ip "$f" rule show | cut -d: -f1); do
			[[ $pref == 0 || $pref == 32766 || $pref == 32767 ]] ||
				ip "$f" rule del pref "$pref"
		done
	done
	sysctl -qw net.ipv4.conf.all.accept_local=0
	# /tmp is the VM's tmpfs, but a repository cloned under /tmp (CI) and
	# so the results are mounted inside it: they stay.
	for f in /tmp/* /tmp/.[!.]*; do
		[[ -e $f ]] || continue
		case $VM_REPO/ in "$f"/*) continue ;; esac
		case $base/ in "$f"/*) continue ;; esac
		rm -rf --one-file-system "$f"
	done
	! lsmod | grep -E '^ipoib_ng' >&2 || say "reset: ipoib_ng modules still loaded" >&2
}

# An emulator bug, not the kernel's: under QEMU 7.2's TCG a vCPU can run
# into the int3 that x86 text patching already took back ("Oops: int3" in
# netif_rx_internal or __netif_receive_skb_core, Debian 6.12, in about one
# run in five of ping or datapath). It happens when the netstamp static key
# flips while the other vCPU receives: every ping opens and closes a
# timestamping socket, and a trace of jump_label_update over datapath.sh
# shows that key flipping 62 times; the others flip once (rdma_rxe's UDP
# tunnel, DO_ONCE). Earlier versions of this holder never held it: Python
# has no socket.SO_TIMESTAMP, and the error went to /dev/null. A
# socket that holds SO_TIMESTAMP for the VM's life flips it once, here,
# while nothing else runs. 29 is SO_TIMESTAMP_OLD (asm-generic/socket.h, x86). The holder says "held"
# once the option is set; without that the VM stops here, a failure.
exec {stamp}< <(python3 -c 'import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 29, 1)
assert s.getsockopt(socket.SOL_SOCKET, 29) == 1
print("held", flush=True)
time.sleep(1 << 30)' < /dev/null 2>&1)
held=
read -r -t 30 -u "$stamp" held
if [[ $held != held ]]; then
	say "timestamp holder failed: ${held:-no answer in 30 s}"
	echo "guest: timestamp holder failed: ${held:-no answer}" > "$VM_OUT/init-error"
	echo 1 > "$VM_OUT/exitcode"
	exit 1
fi
# The other keys that flip while scenarios run are DO_ONCE keys, each
# turned off by a work item the first time its code runs: the flow hash
# (IPv6 flow labels), the TCP and ephemeral-port secrets, the IPv4 and
# IPv6 established-hash secrets, the inet_peer hash (IPv4 reassembly).
# The same race, once per VM: take them all now in a scratch namespace.
if ! prime=$(unshare -n python3 - 2>&1 <<'PY'
import socket, subprocess
subprocess.run(['ip', 'link', 'set', 'lo', 'up', 'mtu', '1500'], check=True)
for fam, addr in ((socket.AF_INET, '127.0.0.1'), (socket.AF_INET6, '::1')):
    lst = socket.socket(fam, socket.SOCK_STREAM)
    lst.bind((addr, 0))
    lst.listen()
    con = socket.create_connection(lst.getsockname()[:2], timeout=5)
    acc = lst.accept()[0]
    con.sendall(b'x')
    assert acc.recv(1) == b'x'
    rx = socket.socket(fam, socket.SOCK_DGRAM)
    rx.bind((addr, 0))
    rx.settimeout(5)
    socket.socket(fam, socket.SOCK_DGRAM).sendto(b'x' * 3000, rx.getsockname()[:2])
    assert len(rx.recv(4000)) == 3000
PY
); then
	say "priming the DO_ONCE keys failed: $prime"
	echo "guest: priming the DO_ONCE keys failed: $prime" > "$VM_OUT/init-error"
	echo 1 > "$VM_OUT/exitcode"
	exit 1
fi
sleep 1	# net_enable_timestamp() and DO_ONCE patch from work items

rc=0
if [[ -n ${VM_SEQUENCE:-} ]]; then
	# run.sh --one-vm: each scenario's output in $VM_OUT/<name>/, with its
	# own dmesg (cleared after each), exitcode and seconds.
	base=$VM_OUT
	for entry in $VM_SEQUENCE; do
		name=${entry%%=*}
		export VM_SCENARIO=$name VM_SCRIPT=${entry#*=} VM_OUT=$base/$name
		mkdir -p "$VM_OUT"
		echo "ipoib-ng-vm: scenario $name begins" > /dev/kmsg
		if [[ -f $VM_SCRIPT ]]; then
			one_rc=$(one "$name" "$VM_SCRIPT")
		else
			say "no scenario $VM_SCRIPT"
			one_rc=2
		fi
		dmesg > "$VM_OUT/dmesg.txt"
		dmesg -C
		echo "$one_rc" > "$VM_OUT/exitcode"
		[[ $rc -ne 0 ]] || rc=$one_rc
		reset_vm
	done
	VM_OUT=$base
else
	if [[ ! -f $VM_SCRIPT ]]; then
		say "no scenario $VM_SCRIPT"
		echo 2 > "$VM_OUT/exitcode"
		exit 2
	fi
	rc=$(one "$VM_SCENARIO" "$VM_SCRIPT")
fi

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
