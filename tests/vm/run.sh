#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run VM scenarios: one qemu VM (TCG) per scenario, booting a kernel with a
# busybox initramfs that chroots into the host root shared read-only over 9p.
#
# usage: tests/vm/run.sh [options] SCENARIO...
#   --kernel PATH   bzImage to boot (default: newest /boot/vmlinuz-6.1.*)
#   --modules DIR   its modules tree, the folder holding modules.dep
#                   (default: /lib/modules/<version of the kernel>)
#   --module PATH   ipoib_ng.ko to test, seen at the same path in the VM;
#                   "installed": the one installed for the VM's kernel
#                   (modinfo -n ipoib_ng there: DKMS, the .deb)
#   --timeout SEC   budget of each scenario inside the VM (default 300)
#   --out DIR       results go to DIR/<scenario>/ (default build/vm)
#   --mem SIZE      VM memory (default 2G)
#   --smp N         VM CPUs (default 2)
#   --append ARGS   extra kernel command line (e.g. kmemleak=on)
#   --cpu MODEL     qemu's -cpu (default max; e.g. max,-erms,-fsrm)
#   --icount SHIFT  qemu -icount shift=SHIFT,sleep=off,align=off: the
#                   guest's clock counts the instructions it executes
#                   (2^SHIFT ns each), so that host load cannot change
#                   what the guest measures (QEMU 7.2: with --smp 1 only)
#   --one-vm NAME   run the scenarios one after another in a single VM (one
#                   boot, one final kmemleak scan), the VM reset between
#                   them; results in DIR/NAME/ and DIR/NAME/<scenario>/
#                   (DIR/<scenario> links there)
#   --verbose       stream the VM console while it runs
#   (BENCH_* variables in the environment are set in the VM too)
#   --log           print each scenario's own log after its summary line
#
# SCENARIO is the name of a script in tests/vm/scenarios/ (smoke, ping, ...),
# or the path of a script elsewhere (with a "/"; named after its file).
# Each scenario leaves in DIR/<scenario>/: console.log (the whole serial
# console), <scenario>.log (the scenario's output), dmesg.txt, exitcode,
# boot-time (uptime when /init started), and on trouble kmemleak.txt,
# timeout, watchdog or init-error.
#
# A scenario FAILS when the VM produced no exit code (it did not boot, or
# died), when the exit code is not 0, on a timeout, when kmemleak reports a
# leak, or when a kernel message in the console or dmesg matches one of the
# patterns of tests/vm/kernel-bad.sh. Set VM_CONSOLE_IGNORE to an extended regex to
# tolerate known-benign lines. Exits 0 only when every scenario passed.

set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

KERNEL=
MODULES=
MODULE=
TIMEOUT=300
OUTBASE=$REPO/build/vm
MEM=2G
SMP=2
APPEND=
CPU=max
ICOUNT=()
ONEVM=
VERBOSE=0
SHOWLOG=0
# After the scenario: kmemleak scans (20-25 s each on a debug kernel), dmesg.
GRACE=${VM_GRACE:-120}
# Boot and power-off on top of the scenario budget before qemu is killed.
BOOT_BUDGET=${VM_BOOT_BUDGET:-180}

# Serial console to text: CRLF and SeaBIOS's terminal escapes.
CLEAN='s/\r$//; s/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g'

# shellcheck source=kernel-bad.sh
. "$HERE/kernel-bad.sh"
BAD=$KERNEL_BAD_RE

usage() {
	awk 'NR > 3 && /^#/ { sub(/^# ?/, ""); print; next } NR > 3 { exit }' "$0"
	exit "${1:-2}"
}
die() { echo "vm: $*" >&2; exit 2; }

need_arg() { [[ $# -ge 2 && -n $2 ]] || die "$1 needs an argument"; }
while [[ $# -gt 0 ]]; do
	case $1 in
	--kernel) need_arg "$@"; KERNEL=$2; shift 2 ;;
	--modules) need_arg "$@"; MODULES=$2; shift 2 ;;
	--module) need_arg "$@"; MODULE=$2; shift 2 ;;
	--timeout) need_arg "$@"; TIMEOUT=$2; shift 2 ;;
	--out) need_arg "$@"; OUTBASE=$2; shift 2 ;;
	--mem) need_arg "$@"; MEM=$2; shift 2 ;;
	--smp) need_arg "$@"; SMP=$2; shift 2 ;;
	--append) need_arg "$@"; APPEND=$2; shift 2 ;;
	--cpu) need_arg "$@"; CPU=$2; shift 2 ;;
	--icount) need_arg "$@"; ICOUNT=(-icount "shift=$2,sleep=off,align=off"); shift 2 ;;
	--one-vm) need_arg "$@"; ONEVM=$2; shift 2 ;;
	-v|--verbose) VERBOSE=1; shift ;;
	--log) SHOWLOG=1; shift ;;
	-h|--help) usage 0 ;;
	--) shift; break ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) break ;;
	esac
done
[[ $# -ge 1 ]] || usage
[[ $TIMEOUT =~ ^[0-9]+$ ]] || die "--timeout takes seconds"
command -v qemu-system-x86_64 > /dev/null || die "qemu-system-x86_64 missing (apt-get install qemu-system-x86)"

# Inside the VM the host's /tmp and /run are fresh tmpfs: paths there vanish.
host_path() {
	local p
	p=$(readlink -f -- "$1") || die "$1: no such file"
	[[ -e $p ]] || die "$1: no such file"
	case $p in
	"$REPO" | "$REPO"/*) ;;	# the VM keeps the repository visible (init.sh)
	/tmp|/tmp/*|/run|/run/*) die "$p is under /tmp or /run, which the VM does not share" ;;
	esac
	echo "$p"
}

# The version string of a bzImage: setup header field kernel_version (0x20e)
# is an offset from 0x200 to "6.1.0-56-amd64 (debian-kernel@...) #1 ...".
kernel_version() {
	local magic off
	magic=$(dd if="$1" bs=1 skip=514 count=4 2> /dev/null)
	[[ $magic == HdrS ]] || return 1
	off=$(od -An -tu2 -j526 -N2 "$1" | tr -d ' ')
	[[ -n $off && $off -gt 0 ]] || return 1
	dd if="$1" bs=1 skip=$((off + 512)) count=256 2> /dev/null |
		tr '\0' '\n' | head -n1 | cut -d' ' -f1
}

# Single-quoted for sh, as vm.conf is sourced by busybox sh and bash.
shq() { printf "'%s'" "${1//\'/\'\\\'\'}"; }

if [[ -z $KERNEL ]]; then
	KERNEL=$(find /boot -maxdepth 1 -name 'vmlinuz-6.1.*' 2> /dev/null | sort -V | tail -n1)
	[[ -n $KERNEL ]] || die "no /boot/vmlinuz-6.1.* (apt-get install linux-image-amd64) and no --kernel"
fi
if [[ -n $MODULE && $MODULE != installed ]]; then
	MODULE=$(host_path "$MODULE")
	[[ -f $MODULE ]] || die "--module $MODULE is not a file"
fi
REPO=$(host_path "$REPO")
mkdir -p "$OUTBASE" || die "cannot create $OUTBASE"
OUTBASE=$(readlink -f "$OUTBASE")

# Everything that can go wrong before qemu runs still fails each scenario.
setup_error=
KVER=
if [[ ! -r $KERNEL ]]; then
	setup_error="kernel $KERNEL: not readable"
elif ! KVER=$(kernel_version "$KERNEL") || [[ -z $KVER ]]; then
	setup_error="kernel $KERNEL: not a bzImage (no version in its setup header)"
fi
MODULES_VM=
if [[ -z $setup_error ]]; then
	if [[ -n $MODULES ]]; then
		MODULES=$(host_path "$MODULES")
		# Inside the VM only /lib/modules/$KVER is searched: bind it there.
		[[ $MODULES == "$(readlink -f "/lib/modules/$KVER")" ]] || MODULES_VM=$MODULES
	else
		MODULES=/lib/modules/$KVER
	fi
	if INITRD=$("$HERE/mkinitramfs.sh" --cache "$REPO/build/vm" "$KVER" "$MODULES" 2> "$OUTBASE/.mkinitramfs.err"); then
		rm -f "$OUTBASE/.mkinitramfs.err"
	else
		setup_error="mkinitramfs failed: $(cat "$OUTBASE/.mkinitramfs.err")"
	fi
fi
HOST_LIBMODULES=$(readlink -f /lib/modules 2> /dev/null || echo /lib/modules)
[[ -z $MODULES_VM || -d $HOST_LIBMODULES ]] ||
	die "the host has no /lib/modules for the VM to mount $MODULES over"

# Prints why the run in $1 failed, one reason a line; nothing if it passed.
verdict() {
	local out=$1 qrc=$2 rc
	if [[ ! -f $out/exitcode ]]; then
		if [[ $qrc -eq 124 || $qrc -eq 137 ]]; then
			echo "qemu killed after $((TIMEOUT + GRACE + BOOT_BUDGET))s without a result"
		else
			echo "no result file: the VM did not boot or died before the end (qemu exit $qrc)"
		fi
	else
		rc=$(< "$out/exitcode")
		[[ $rc == 0 ]] || echo "the scenario exited $rc"
	fi
	[[ ! -f $out/init-error ]] || cat "$out/init-error"
	[[ ! -f $out/timeout ]] || echo "the scenario ran out of its ${TIMEOUT}s budget"
	[[ ! -f $out/watchdog ]] || echo "the VM watchdog powered off after $(< "$out/watchdog")s"
	[[ ! -s $out/kmemleak.txt ]] || echo "kmemleak reports leaks: $out/kmemleak.txt"
	if [[ -n $(kernel_lines "$out") ]]; then
		echo "kernel warnings in the console or dmesg:"
	fi
}

# Kernel lines matching BAD; lines starting with "| " come from userspace.
kernel_lines() {
	local f lines
	for f in "$1/console.log" "$1/dmesg.txt"; do
		[[ -f $f ]] || continue
		lines=$(kernel_bad_lines "$BAD" "$f" | grep -v '^| ')
		if [[ -n ${VM_CONSOLE_IGNORE:-} ]]; then
			lines=$(grep -Ev -- "$VM_CONSOLE_IGNORE" <<< "$lines")
		fi
		[[ -z $lines ]] || printf '%s\n' "$lines" | sed "s|^|  ${f##*/}: |" | head -n 20
	done
}

# resolve SCENARIO: sets r_name and r_script, or prints why not, returns 1.
resolve() {
	r_name=${1##*/}
	r_name=${r_name%.sh}
	r_script=$HERE/scenarios/$1.sh
	[[ $1 != */* ]] || r_script=$(readlink -f -- "$1")
	if [[ -n $setup_error ]]; then
		echo "  $setup_error"
		return 1
	fi
	if [[ ! -f $r_script ]]; then
		echo "  no scenario $r_script"
		return 1
	fi
	case $r_script in
	"$REPO"/*) ;;
	/tmp/*|/run/*) echo "  $r_script: /tmp and /run are not shared"; return 1 ;;
	esac
}

# clean_out DIR NAME: remove what an earlier run left there.
clean_out() {
	local f
	mkdir -p "$1"
	for f in console.log exitcode boot-time timeout watchdog init-error \
		kmemleak.txt dmesg.txt vm.conf seconds "$2.log"; do
		rm -f "$1/$f"
	done
}

# boot OUT NAME SCRIPT SEQUENCE COUNT: writes OUT/vm.conf, runs qemu with
# OUT as the results share; sets qrc.
boot() {
	local out=$1 budget=$(($5 * TIMEOUT + GRACE + BOOT_BUDGET))
	{
		echo "VM_SCENARIO=$(shq "$2")"
		echo "VM_SCRIPT=$(shq "$3")"
		echo "VM_SEQUENCE=$(shq "$4")"
		echo "VM_COUNT=$5"
		echo "VM_OUT=$(shq "$out")"
		echo "VM_REPO=$(shq "$REPO")"
		echo "VM_MODULE=$(shq "$MODULE")"
		echo "VM_MODULES_DIR=$(shq "$MODULES_VM")"
		echo "VM_HOST_LIBMODULES=$(shq "$HOST_LIBMODULES")"
		echo "VM_TIMEOUT=$TIMEOUT"
		echo "VM_GRACE=$GRACE"
		# The bench's knobs (BENCH_ROUNDS=...) reach the scenario.
		local v
		for v in $(compgen -v BENCH_); do
			echo "export $v=$(shq "${!v}")"
		done
	} > "$out/vm.conf"

	# tsc=unstable: under TCG the kernel finds the TSC unstable anyway, but
	# only after sched_clock was marked stable at about 1.2 s, a static
	# key patched with int3 while the other vCPU runs the code; TCG's
	# cross-modifying code sometimes lets that vCPU hit the int3 after
	# the patch ("Oops: int3" in sched_clock_cpu, seen on 6.12 before
	# any module loaded). Unstable from the start, nothing is patched.
	local qemu=(qemu-system-x86_64 -M q35 -accel tcg -cpu "$CPU" "${ICOUNT[@]}"
		-smp "$SMP" -m "$MEM" -nographic -no-reboot -nic none
		-kernel "$KERNEL" -initrd "$INITRD"
		-append "console=ttyS0 panic=-1 rdinit=/init tsc=unstable $APPEND"
		-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
		-virtfs "local,path=$out,mount_tag=results,security_model=none")
	# To rerun by hand: sh DIR/<scenario>/qemu.cmd (vm.conf is kept).
	printf '%q ' "${qemu[@]}" > "$out/qemu.cmd"
	echo >> "$out/qemu.cmd"
	if [[ $VERBOSE -eq 1 ]]; then
		timeout -k 10 "$budget" "${qemu[@]}" < /dev/null 2>&1 |
			sed -u "$CLEAN" | tee "$out/console.log"
	else
		timeout -k 10 "$budget" "${qemu[@]}" < /dev/null 2>&1 |
			sed -u "$CLEAN" > "$out/console.log"
	fi
	qrc=${PIPESTATUS[0]}
}

# report NAME OUT START REASONS LOG: the verdict line, and on failure why.
report() {
	if [[ -z $4 ]]; then
		echo "vm: $1: PASS ($(($(date +%s) - $3)) s)"
		[[ $VERBOSE -eq 0 || ! -f $2/boot-time ]] ||
			echo "vm: $1: userspace at $(< "$2/boot-time")s"
		return 0
	fi
	echo "vm: $1: FAIL ($(($(date +%s) - $3)) s)"
	printf '%s\n' "$4" | sed 's/^/  /'
	kernel_lines "$2"
	echo "  --- tail of $5 ---"
	tail -n 40 "$5" | sed 's/^/  /'
	echo "  --- logs in $2 ---"
	return 1
}

run_one() {
	local start out why reasons
	start=$(date +%s)
	if ! why=$(resolve "$1"); then
		echo "vm: ${1##*/}: FAIL (0 s)"
		echo "$why"
		return 1
	fi
	resolve "$1"
	out=$OUTBASE/$r_name
	[[ ! -L $out ]] || rm -f "$out"	# an --one-vm run left a link
	clean_out "$out" "$r_name"
	boot "$out" "$r_name" "$r_script" "" 1
	reasons=$(verdict "$out" "$qrc")
	if [[ $SHOWLOG -eq 1 && -f $out/$r_name.log ]]; then
		cat "$out/$r_name.log"
	fi
	report "$r_name" "$out" "$start" "$reasons" "$out/console.log"
}

# run_seq SCENARIO...: all in one VM (--one-vm NAME).
run_seq() {
	local start out sub seq='' names=() n why reasons rc=0 secs
	start=$(date +%s)
	out=$OUTBASE/$ONEVM
	clean_out "$out" "$ONEVM"
	find "$out" -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} +	# earlier sequences
	for n in "$@"; do
		if ! why=$(resolve "$n"); then
			echo "vm: ${n##*/}: FAIL (0 s)"
			echo "$why"
			rc=1
			continue
		fi
		resolve "$n"
		names+=("$r_name")
		seq+="$r_name=$r_script "
		rm -rf "${out:?}/$r_name" "${OUTBASE:?}/$r_name"
		ln -s "$ONEVM/$r_name" "$OUTBASE/$r_name"
	done
	[[ ${#names[@]} -gt 0 ]] || return 1
	boot "$out" "$ONEVM" "" "$seq" "${#names[@]}"
	for n in "${names[@]}"; do
		sub=$out/$n
		if [[ ! -f $sub/exitcode ]]; then
			reasons="it did not run to the end: the VM stopped before (see $out/console.log)"
		else
			reasons=$(verdict "$sub" 0)
		fi
		if [[ $SHOWLOG -eq 1 && -f $sub/$n.log ]]; then
			cat "$sub/$n.log"
		fi
		secs=$(cat "$sub/seconds" 2> /dev/null || echo 0)
		report "$n" "$sub" $(($(date +%s) - secs)) "$reasons" "$sub/$n.log" || rc=1
	done
	reasons=$(verdict "$out" "$qrc")
	report "$ONEVM (one VM: ${names[*]})" "$out" "$start" "$reasons" \
		"$out/console.log" || rc=1
	return $rc
}

status=0
if [[ -n $ONEVM ]]; then
	run_seq "$@" || status=1
else
	for s in "$@"; do
		run_one "$s" || status=1
	done
fi
exit $status
