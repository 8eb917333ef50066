#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kunit: the KUnit suites of ipoib_ng_kunit.ko (kunit/), on a kernel with
# CONFIG_KUNIT (the test kernel: make kunit). The device suites need an RDMA
# device with a RoCE port: rxe0 on a veth pair. KUnit runs the suites while
# the module loads. Results are read from the kernel log after a marker
# (the debugfs results files keep only 512 bytes of each case's log in 6.1,
# so a failing case can lose its result line there): for each suite, its
# "# Subtest:" header, the plan 1..N, one "ok"/"not ok" line per case and
# the suite's own line. The scenario fails unless every suite ran, the cases
# reported match the plan, every case is "ok" without SKIP, and the suite
# line agrees with its debugfs results file. The counts are printed; the
# log slice and the results files are kept in VM_OUT.
#
#   rxe0 -- va <== veth ==> vb -- rxe1     ipoib_ng_kunit.ko ibdev=rxe0
#   fd99::1 192.168.99.1    fd99::2 192.168.99.2   (routed as two hosts)

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

SUITES=(ipoib_ng_core ipoib_ng_shim ipoib_ng_sa ipoib_ng_roce ipoib_ng_fault ipoib_ng_cm
	ipoib_ng_bench)
KUNIT_KO=${VM_KUNIT_MODULE:-${VM_MODULE%/*}/ipoib_ng_kunit.ko}

[[ -f $KUNIT_KO ]] || fail "$KUNIT_KO: no such file (build it against a CONFIG_KUNIT kernel: make module-debug)"
[[ -d /sys/kernel/debug/kunit ]] || fail "this kernel has no KUnit debugfs (CONFIG_KUNIT_DEBUGFS)"

setup_rxe_pair
# ipoib_ng_roce resolves rxe1's fd99::2 and ::ffff:192.168.99.2 from rxe0.
route_rxe_pair_as_hosts
wait_for 30 "rxe1's GID fd99::2" gid_index rxe1 fd99:0000:0000:0000:0000:0000:0000:0002
wait_for 30 "rxe1's GID ::ffff:192.168.99.2" gid_index rxe1 0000:0000:0000:0000:0000:ffff:c0a8:6302
for dep in $(modinfo -F depends "$KUNIT_KO" | tr ',' ' '); do
	check modprobe "$dep"
done
kmsg "loading $KUNIT_KO: the suites run now"
# ipoib_ng_fault fails each allocation in turn through the task's fail-nth:
# failslab must consider sleeping allocations and stay quiet (a stack trace
# per injected fault would read as a kernel warning).
F=/sys/kernel/debug/failslab
[[ -d $F ]] || fail "this kernel has no failslab (CONFIG_FAILSLAB, FAULT_INJECTION_DEBUG_FS)"
echo N > "$F/ignore-gfp-wait"
echo 0 > "$F/verbose"
echo 0 > "$F/probability"	# only fail-nth injects

marker="ipoib_ng kunit run $$-$RANDOM"
echo "$marker" > /dev/kmsg
check insmod "$KUNIT_KO" ibdev=rxe0 roce_peer=vb
dmesg | sed -n "/$marker/,\$p" | sed 's/^\[[^]]*\] //' > "$VM_OUT/kunit-console.txt"

# parse_suite SUITE: print "pass fail skip plan top" from the log slice.
parse_suite() {
	awk -v suite="$1" '
		$0 ~ ("^ +# Subtest: " suite "$") { in_suite = 1; next }
		!in_suite { next }
		/^ +1\.\.[0-9]+$/ && !plan { sub(/^ +1\.\./, ""); plan = $0 + 0; next }
		/^    (not )?ok [0-9]+ / {
			if ($0 ~ /# SKIP/) skip++
			else if ($0 ~ /^    ok /) pass++
			else { fail++; print "| FAILED:" $0 > "/dev/stderr" }
			next
		}
		$0 ~ ("^(not )?ok [0-9]+ (- )?" suite "( |$)") {
			top = ($0 ~ /^ok /) ? "ok" : "not_ok"; in_suite = 0
		}
		END { printf "%d %d %d %d %s\n", pass, fail, skip, plan, top == "" ? "none" : top }
	' "$VM_OUT/kunit-console.txt"
}

total_pass=0 total_fail=0 total_skip=0 bad=0
for s in "${SUITES[@]}"; do
	res=/sys/kernel/debug/kunit/$s/results
	read -r p f k plan top < <(parse_suite "$s")
	log "suite $s: $p passed, $f failed, $k skipped, plan $plan, suite line: $top"
	if [[ -r $res ]]; then
		cp "$res" "$VM_OUT/kunit-$s.ktap"
		dbg=$(grep -E "^(not )?ok [0-9]+ " "$res" | tail -n1 | awk '{ print ($1 == "ok") ? "ok" : "not_ok" }')
	else
		dbg=missing
	fi
	if ((f > 0 || k > 0 || plan == 0 || p + f + k != plan)) ||
		[[ $top != ok || $dbg != ok ]]; then
		log "suite $s: FAILED (debugfs results: $dbg)"
		bad=1
		awk -v suite="$s" '$0 ~ ("# Subtest: " suite "$"), $0 ~ ("^(not )?ok [0-9]+ (- )?" suite "( |$)")' \
			"$VM_OUT/kunit-console.txt" | sed 's/^/| /'
	fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	total_skip=$((total_skip + k))
done
# The benchmark's figures (ipoib_ng_bench), for make kunit to print.
sed -n 's/.*# bench_[a-z_]*: \(bench: .*\)/\1/p' "$VM_OUT/kunit-console.txt" > "$VM_OUT/bench.txt"
log "kunit: $total_pass passed, $total_fail failed, $total_skip skipped in ${#SUITES[@]} suites"
echo "kunit: $total_pass passed, $total_fail failed, $total_skip skipped in ${#SUITES[@]} suites" > "$VM_OUT/kunit-summary.txt"
((bad == 0)) || fail "KUnit suites failed (documents in $VM_OUT/kunit-*.ktap)"

check rmmod ipoib_ng_kunit
check_dmesg_clean "the KUnit suites"
log "kunit: PASS"
