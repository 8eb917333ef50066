#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check that run.sh fails when it should: it runs the fixtures in
# tests/vm/selftest/ and a few broken setups, and compares each outcome with
# the expected one. About 2 minutes under TCG.
#
# usage: tests/vm/selftest.sh [run.sh options, e.g. --kernel PATH --modules DIR]

set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=$(cd "$HERE/../.." && pwd)/build/vm/selftest
T=$HERE/selftest
failures=0

# expect pass|fail TEXT [env NAME=VALUE...] -- run.sh ARGS...: the run must
# pass or fail as said, and its output must contain TEXT.
expect() {
	local want=$1 text=$2 envs=() out rc got
	shift 2
	while [[ $1 != -- ]]; do
		envs+=("$1")
		shift
	done
	shift
	out=$(env "${envs[@]}" "$HERE/run.sh" --out "$OUT" "$@" 2>&1)
	rc=$?
	got=pass
	[[ $rc -eq 0 ]] || got=fail
	if [[ $got == "$want" && $out == *"$text"* ]]; then
		echo "selftest: ok: $want: ${*: -1}: $text"
	else
		echo "selftest: NOT OK: ${*: -1}: wanted $want with \"$text\", got $got (exit $rc):"
		printf '%s\n' "$out" | sed 's/^/    /' | head -n 30
		failures=$((failures + 1))
	fi
}

expect pass "PASS" -- "$@" "$T/pass.sh"
expect fail "the scenario exited 3" -- "$@" "$T/fail-exit.sh"
expect fail "FAIL: 'false' exited 1" -- "$@" --log "$T/fail-check.sh"
expect fail "WARNING: CPU: 0 PID: 1 at selftest.c:1" -- "$@" "$T/kernel-warning.sh"
expect fail "ran out of its 10s budget" -- "$@" --timeout 10 "$T/hang.sh"
expect fail "watchdog powered off" VM_GRACE=0 -- "$@" --timeout 10 "$T/hang.sh"
expect fail "qemu killed" VM_GRACE=0 VM_BOOT_BUDGET=0 -- "$@" --timeout 5 "$T/hang.sh"
expect fail "no result file" -- "$@" --append rdinit=/bogus "$T/pass.sh"
expect fail "not a bzImage" -- "$@" --kernel /etc/hostname "$T/pass.sh"
expect fail "no scenario" -- "$@" no-such-scenario

if [[ $failures -ne 0 ]]; then
	echo "selftest: $failures NOT OK"
	exit 1
fi
echo "selftest: all ok"
