#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ipoibctl without a fabric: what needs no ipoib_ng interface.
#
#   1. The command line: exit codes and messages of bad usage (2), of an
#      interface that does not exist (1), of the module not loaded (1);
#      when it is loaded, that the dumps are valid JSON instead.
#   2. The printers (print_test.c) on messages built as the kernel sends
#      them: the plain text against print_test.expected, the JSON parsed
#      by python3 and its values checked.
#   3. The netlink layer (nl_test.c) against the kernel's own nlctrl:
#      family, multicast group, multi-part dump, error with extack; and
#      monitor, built to listen to nlctrl's "notify" group instead of
#      ipoib_ng's "events": it runs until SIGTERM or SIGINT, then exits 0.
#
# Usage: tests/userspace/ipoibctl-cli.sh [IPOIBCTL]
#   IPOIBCTL defaults to build/userspace/ipoibctl (make ipoibctl).
# Exits 1 if any check fails. Needs cc, libmnl-dev and python3 (make setup).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${1:-$root/build/userspace/ipoibctl}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
passed=0

fail() {
	echo "ipoibctl-cli: FAIL: $*" >&2
	failed=$((failed + 1))
}

ok() {
	passed=$((passed + 1))
}

# expect DESC RC STDERR -- CMD...: CMD exits RC and the first line of its
# stderr is STDERR ("" for any); on a failure (RC != 0), stdout is empty.
expect() {
	local desc=$1 want_rc=$2 want_err=$3 rc line
	shift 4
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	line=$(head -n 1 "$tmp/err")
	if [ "$rc" != "$want_rc" ]; then
		fail "$desc: exit $rc, expected $want_rc (stderr: $line)"
	elif [ -n "$want_err" ] && [ "$line" != "$want_err" ]; then
		fail "$desc: stderr \"$line\", expected \"$want_err\""
	elif [ "$rc" != 0 ] && [ -s "$tmp/out" ]; then
		fail "$desc: failed, yet wrote on stdout: $(head -c 200 "$tmp/out")"
	else
		ok
	fi
}

# expect_out DESC PATTERN: the last command's stdout matches (grep -E).
expect_out() {
	if grep -Eq -- "$2" "$tmp/out"; then
		ok
	else
		fail "$1: stdout does not match /$2/: $(head -c 200 "$tmp/out")"
	fi
}

# json_valid DESC: the last command's stdout is one JSON array of
# objects, each with an "ifname".
json_valid() {
	if python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))
assert isinstance(v, list), "not an array"
for e in v:
    assert isinstance(e, dict) and isinstance(e.get("ifname"), str), e
' "$tmp/out" 2>"$tmp/py"; then
		ok
	else
		fail "$1: not a JSON array of entries: $(tail -n 1 "$tmp/py")"
	fi
}

cli_usage() {
	local c

	expect "-h" 0 "" -- "$bin" -h
	expect_out "-h" "^Usage: ipoibctl "
	expect "--help" 0 "" -- "$bin" --help
	expect "help" 0 "" -- "$bin" help
	expect_out "help" "flush paths DEV"
	expect "-V" 0 "" -- "$bin" -V
	expect_out "-V" "^ipoibctl \(ipoib-ng\) [^ ]+, generic netlink family ipoib_ng version [0-9]+$"
	expect "no command" 2 "ipoibctl: no command" -- "$bin"
	expect "unknown command" 2 "ipoibctl: unknown command: bogus" -- \
		"$bin" bogus
	grep -q "^Usage: ipoibctl " "$tmp/err" && ok ||
		fail "unknown command: no usage on stderr"
	expect "unknown option" 2 "ipoibctl: unknown option: -x" -- \
		"$bin" -x show
	expect "unknown long option" 2 "ipoibctl: unknown option: --bogus" -- \
		"$bin" --bogus show
	for c in show paths groups conns monitor; do
		expect "$c: two devices" 2 "ipoibctl: too many arguments: b" -- \
			"$bin" "$c" a b
	done
	expect "flush alone" 2 "" -- "$bin" flush
	expect "flush groups" 2 "" -- "$bin" flush groups lo
	expect "flush paths without DEV" 2 "" -- "$bin" flush paths
	expect "flush paths, two devices" 2 "" -- "$bin" flush paths a b
}

cli_no_such_dev() {
	local c msg="ipoibctl: no such interface: nosuchdev0"

	for c in show paths groups conns monitor; do
		expect "$c nosuchdev0" 1 "$msg" -- "$bin" "$c" nosuchdev0
		expect "-j $c nosuchdev0" 1 "$msg" -- "$bin" -j "$c" nosuchdev0
	done
	expect "flush paths nosuchdev0" 1 "$msg" -- \
		"$bin" flush paths nosuchdev0
}

cli_module_absent() {
	local c msg='ipoibctl: the ipoib_ng module is not loaded (no generic netlink family "ipoib_ng")'

	for c in show paths groups conns monitor; do
		expect "$c, no module" 1 "$msg" -- "$bin" "$c"
		expect "$c lo, no module" 1 "$msg" -- "$bin" "$c" lo
		expect "-j $c, no module" 1 "$msg" -- "$bin" -j "$c"
	done
	expect "show -s -p, no module" 1 "$msg" -- "$bin" -s -p show
	expect "flush paths lo, no module" 1 "$msg" -- "$bin" flush paths lo
}

cli_module_loaded() {
	local c

	for c in show paths groups conns; do
		expect "-j $c" 0 "" -- "$bin" -j "$c"
		json_valid "-j $c"
		expect "-p $c" 0 "" -- "$bin" -p "$c"
		json_valid "-p $c"
		expect "$c" 0 "" -- "$bin" "$c"
	done
	expect "-j -s show" 0 "" -- "$bin" -j -s show
	json_valid "-j -s show"
	# lo is no ipoib_ng interface: the kernel refuses it.
	expect "show lo" 1 "" -- "$bin" show lo
	grep -q "^ipoibctl: show: " "$tmp/err" && ok ||
		fail "show lo: stderr: $(head -n 1 "$tmp/err")"
}

# The JSON of print_test: parsed, and its values as the kernel sent them.
check_print_json() {
	python3 - "$tmp/print.json" "$tmp/print.pretty" 2>"$tmp/py" <<'PY'
import json, sys

def values(path):
    text = open(path, encoding="utf-8").read()
    dec, i, out = json.JSONDecoder(), 0, []
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        v, i = dec.raw_decode(text, i)
        out.append(v)
    return out

compact, pretty = values(sys.argv[1]), values(sys.argv[2])
assert compact == pretty, "compact and pretty differ"
# JSON lines: each top-level value on a line of its own.
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
assert [json.loads(l) for l in lines] == compact, "not one value a line"
ifs, odd, ifs_nostats, paths, groups, conns = compact[:6]
events = compact[6:]
i = ifs[0]
assert i["ifname"] == "ib0.8001" and i["ifindex"] == 999999, i
assert i["parent"] == 1 and i["pkey"] == 0x8001 and i["pkey-index"] == 1
assert i["qpn"] == 0x11 and i["gid"] == "fe80::5054:ff:fe12:3456"
assert i["mode"] == "connected" and i["link-up"] == 1
assert i["link-why"] == "up" and i["mtu"] == 2044 and i["roce"] == 1
assert i["bcast"]["mgid"] == "ff12:401b:ffff::ffff:ffff"
assert i["bcast"]["qkey"] == 0xb1b and i["bcast"]["owner"] == ["broadcast"]
assert i["stats"] == {"rx_packets": 12345, "tx_dropped_no_path": 0,
                      "big": 2**64 - 1}
assert "stats" not in ifs_nostats[0]
assert "gid" not in odd[0] and "port" not in odd[0], odd[0]
assert odd[0]["ifname"] == "q\"\\\t\x01\xff\xe9\xe2\x82", odd[0]["ifname"]
assert odd[0]["link-why"] == 42 and odd[1]["link-why"] == "port-down"
assert paths[0]["ifname"] == "lo" and paths[0]["lid"] == 1
assert paths[0]["age"] == 5000 and paths[0]["state"] == "valid"
assert paths[1]["ifname"] == "if999999" and paths[1]["status"] == -110
assert paths[1]["dmac"] == "52:54:00:ab:cd:ef" and paths[1]["retry"] == 1234
g = groups[1]
assert g["want"] == ["full", "sendonly"] and g["joined"] == []
assert g["pending"] == ["sendonly"]
assert g["owner"] == ["stack", "sendonly", "0x100"], g["owner"]
assert conns[0]["dir"] == "tx" and conns[1]["dir"] == "rx"
assert conns[1]["qpn"] == 0x123456 and conns[1]["idle"] == 3
types = [e["type"] for e in events]
assert types == ["group-joined", "group-failed", "group-left",
                 "path-resolved", "path-failed", "conn-up", "conn-down",
                 "link", "link", 77], types
assert events[0]["join"] == ["full"] and events[4]["status"] == -110
assert events[7]["link-up"] == 0 and events[7]["link-why"] == "port-down"
assert all(e["ifname"] for e in events)
PY
	if [ $? = 0 ]; then
		ok
	else
		fail "print_test JSON: $(tail -n 1 "$tmp/py")"
	fi
}

# monitor_signal SIG [-j]: the nlctrl build of monitor (see the top)
# waits for events, and SIG ends it with status 0.
monitor_signal() {
	local sig=$1 pid rc

	shift
	"$tmp/ipoibctl-nlctrl" "$@" monitor >"$tmp/mon.out" 2>"$tmp/mon.err" &
	pid=$!
	sleep 0.5
	if ! kill -0 "$pid" 2>/dev/null; then
		wait "$pid"
		fail "monitor $*: exited at once ($?): $(head -n 1 "$tmp/mon.err")"
		return
	fi
	kill -"$sig" "$pid"
	wait "$pid"
	rc=$?
	[ "$rc" = 0 ] && ok || fail "monitor $*: SIG$sig: exit $rc, expected 0"
}

# The parts built here from userspace/ (no kernel module involved).
unit_tests() {
	local cc=${CC:-cc} flags="-std=c11 -O2 -g -Wall -Wextra -Werror"

	if ! $cc $flags -I "$root/uapi" -I "$root/userspace" \
		-o "$tmp/print_test" "$here/print_test.c" \
		"$root/userspace/attrs.c" "$root/userspace/out.c" \
		"$root/userspace/json.c" -lmnl 2>"$tmp/cc.log" ||
	   ! $cc $flags -I "$root/uapi" -I "$root/userspace" \
		-o "$tmp/nl_test" "$here/nl_test.c" "$root/userspace/nl.c" \
		-lmnl 2>>"$tmp/cc.log"; then
		cat "$tmp/cc.log" >&2
		fail "building print_test and nl_test (needs libmnl-dev)"
		return
	fi
	"$tmp/print_test" plain >"$tmp/print.plain" &&
		diff -u "$here/print_test.expected" "$tmp/print.plain" >&2 &&
		ok || fail "print_test plain differs from print_test.expected"
	"$tmp/print_test" json >"$tmp/print.json" &&
		"$tmp/print_test" pretty >"$tmp/print.pretty" &&
		check_print_json || fail "print_test json"
	"$tmp/nl_test" >"$tmp/nl.log" 2>&1 && ok ||
		fail "nl_test: $(cat "$tmp/nl.log")"
	if $cc $flags -I "$root/uapi" -DIPOIBCTL_FAMILY='"nlctrl"' \
		-DIPOIBCTL_GROUP='"notify"' -o "$tmp/ipoibctl-nlctrl" \
		"$root"/userspace/*.c -lmnl 2>"$tmp/cc.log"; then
		monitor_signal TERM
		monitor_signal INT -j
	else
		cat "$tmp/cc.log" >&2
		fail "building the nlctrl monitor"
	fi
}

if [ ! -x "$bin" ]; then
	echo "ipoibctl-cli: $bin not found: make ipoibctl" >&2
	exit 1
fi
cli_usage
cli_no_such_dev
if [ -d /sys/module/ipoib_ng ]; then
	cli_module_loaded
else
	cli_module_absent
fi
unit_tests
echo "ipoibctl-cli: $passed passed, $failed failed"
[ "$failed" = 0 ]
