#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# observe: the driver seen through its generic netlink family "ipoib_ng"
# (uapi/linux/ipoib_ng.h) by two independent clients, ipoibctl
# (userspace/, libmnl) and the kernel's own YNL client (tools/net/ynl of
# linux-source-6.12, with Documentation/netlink/specs/ipoib_ng.yaml), and
# through its tracepoints in tracefs. The topology of ping.sh: IB1 in n1,
# IB2 in n2.
#
#   a) `ipoibctl monitor -j` runs in n1 from the start. The paths of n1 are
#      flushed (ipoibctl flush paths, CAP_NET_ADMIN), a ping resolves the
#      peer again, a socket joins 239.1.1.1: the monitor printed the path's
#      resolution and the join, with the peer's GID and the group's MGID.
#   b) both clients dump the interface (carrier up and why, the broadcast
#      group with its Q_Key), the path to the peer (valid, its RoCE answer),
#      the groups (broadcast and 239.1.1.1 joined FullMember by the stack):
#      the JSON of each parsed and the two compared.
#   c) the tracepoints of the ping and of the join in tracefs.
#   d) connected mode: a connection from n1 to n2 in both dumps (tx
#      connected in n1, rx in n2, frames counted), conn-up in the monitor.
#   e) nobody (uid 65534) reads everything and is refused the flush; a
#      bad interface gets the kernel's extack message; the link event with
#      its reason when the interface goes down; after the module is gone,
#      "not loaded".

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

REPO=$(cd "$(dirname "$0")/../../.." && pwd)
CTL=$REPO/build/userspace/ipoibctl
CHECK=$REPO/tests/vm/obs_check.py
MC_TOOL=$REPO/tests/vm/mc_tool.py
# Extracted on the host by `make userspace-check` (the root is read-only).
export YNL_DIR=${YNL_DIR:-$REPO/build/ynl}
[[ -x $CTL ]] || fail "$CTL: not built (make ipoibctl)"
[[ -d $YNL_DIR ]] || fail "$YNL_DIR: the YNL client is not extracted (scripts/ynl.sh --prepare)"
ynl() {
	"$REPO/scripts/ynl.sh" --output-json "$@"
}
OUT=/tmp/observe
mkdir -p "$OUT"
G4=239.1.1.1
MGID4=ff12:401b:ffff::f01:101
BCAST=ff12:401b:ffff::ffff:ffff

setup_ipoib_netns_pair
check_ping n1 10.1.0.2
IFX1=$(ip netns exec n1 cat "/sys/class/net/$IB1/ifindex")
GID2=$(ip netns exec n2 "$CTL" -j show "$IB2" |
	python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["gid"])')
GID1=$(ip netns exec n1 "$CTL" -j show "$IB1" |
	python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["gid"])')
log "$IB1 (ifindex $IFX1) GID $GID1, peer $IB2 GID $GID2"

TR=/sys/kernel/tracing
mountpoint -q "$TR" || check mount -t tracefs nodev "$TR"
[[ -d $TR/events/ipoib_ng ]] || fail "no ipoib_ng events in $TR/events"
echo 0 > "$TR/tracing_on"
echo > "$TR/trace"
echo 1 > "$TR/events/ipoib_ng/enable"
echo 1 > "$TR/tracing_on"

log "a) ipoibctl monitor, then a path flushed and resolved, a group joined"
ip netns exec n1 "$CTL" -j monitor > "$OUT/monitor.jsonl" 2> "$OUT/monitor.err" &
MON=$!
# Subscribed once its netlink socket is in the family's group.
sleep 2
kill -0 "$MON" || fail "ipoibctl monitor exited: $(cat "$OUT/monitor.err")"
check ip netns exec n1 "$CTL" flush paths "$IB1"
check_ping n1 10.1.0.2
rm -f /tmp/obs-mc /tmp/obs-mc.ready
ip netns exec n1 python3 "$MC_TOOL" recv "$IB1" "$G4" 5001 /tmp/obs-mc &
MCR=$!
wait_for 10 "a member socket for $G4 in n1" test -e /tmp/obs-mc.ready
wait_for 30 "the monitor to print the join of $MGID4" \
	grep -q group-joined "$OUT/monitor.jsonl"
check python3 "$CHECK" events "$OUT/monitor.jsonl" \
	path-resolved gid "$GID2" group-joined mgid "$MGID4"

log "b) ipoibctl and the YNL client agree"
ip netns exec n1 "$CTL" -j -s show "$IB1" > "$OUT/show.json"
ip netns exec n1 "$CTL" -j -p paths "$IB1" > "$OUT/paths.json"
ip netns exec n1 "$CTL" -j groups "$IB1" > "$OUT/groups.json"
check ip netns exec n1 "$CTL" show "$IB1"
check ip netns exec n1 "$CTL" paths
check ip netns exec n1 "$CTL" groups
ynl_dump() {
	local op=$1 out=$2
	log "\$ scripts/ynl.sh --output-json --dump $op --json '{\"ifindex\": $IFX1}'"
	ip netns exec n1 "$REPO/scripts/ynl.sh" --output-json --dump "$op" \
		--json "{\"ifindex\": $IFX1}" > "$out" ||
		fail "the YNL client failed: $(cat "$out")"
}
ynl_dump if-get "$OUT/ynl-show.json"
ynl_dump path-get "$OUT/ynl-paths.json"
ynl_dump group-get "$OUT/ynl-groups.json"
check python3 "$CHECK" show "$OUT/show.json" "$OUT/ynl-show.json" "$IB1" "$BCAST"
check python3 "$CHECK" path "$OUT/paths.json" "$OUT/ynl-paths.json" "$GID2" valid
check python3 "$CHECK" group "$OUT/groups.json" "$OUT/ynl-groups.json" \
	"$BCAST" broadcast full
check python3 "$CHECK" group "$OUT/groups.json" "$OUT/ynl-groups.json" \
	"$MGID4" stack full

log "c) the tracepoints of the ping and of the join"
echo 0 > "$TR/tracing_on"
cp "$TR/trace" "$OUT/trace.txt"
for re in "ipoib_ng_sa_request: dev=$IB1 path gid=" \
	"ipoib_ng_sa_answer: dev=$IB1 path gid=.* status=0" \
	"ipoib_ng_path_state: dev=$IB1 gid=.* state=valid" \
	"ipoib_ng_sa_request: dev=$IB1 join gid=$MGID4" \
	"ipoib_ng_mcast: dev=$IB1 mgid=$MGID4 join join=0x1 status=0"; do
	grep -q -- "$re" "$OUT/trace.txt" ||
		fail "no trace line matching '$re' in $OUT/trace.txt: $(grep -c . "$OUT/trace.txt") lines"
	log "trace: $(grep -m1 -- "$re" "$OUT/trace.txt")"
done
echo 0 > "$TR/events/ipoib_ng/enable"

log "d) connected mode: the connection in both dumps and in the monitor"
check ip netns exec n1 sh -c "echo connected > /sys/class/net/$IB1/mode"
check ip netns exec n2 sh -c "echo connected > /sys/class/net/$IB2/mode"
wait_for 30 "carrier on $IB1" has_carrier n1 "$IB1"
wait_for 30 "carrier on $IB2" has_carrier n2 "$IB2"
check_ping n1 10.1.0.2
conn_up() {
	ip netns exec n1 "$CTL" -j conns "$IB1" > "$OUT/conns1.json" &&
		python3 "$CHECK" conn "$OUT/conns1.json" tx "$GID2" connected
}
wait_for 30 "a connected connection from n1 to n2" conn_up
check python3 "$CHECK" conn "$OUT/conns1.json" tx "$GID2" connected
ip netns exec n2 "$CTL" -j conns "$IB2" > "$OUT/conns2.json"
check python3 "$CHECK" conn "$OUT/conns2.json" rx "$GID1" connected
ynl_dump conn-get "$OUT/ynl-conns.json"
check grep -q connected "$OUT/ynl-conns.json"
check ip netns exec n1 "$CTL" conns
wait_for 10 "the monitor to print conn-up" grep -q conn-up "$OUT/monitor.jsonl"
check python3 "$CHECK" events "$OUT/monitor.jsonl" conn-up "gid&dir" "$GID2&tx" \
	conn-up "gid&dir" "$GID2&rx"

log "e) permissions, errors, the link event"
check ip netns exec n1 setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$CTL" -j show "$IB1"
check ip netns exec n1 setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$CTL" paths "$IB1"
expect_error "Operation not permitted" ip netns exec n1 setpriv --reuid=65534 \
	--regid=65534 --clear-groups "$CTL" flush paths "$IB1"
expect_error "no such interface" ip netns exec n1 "$CTL" show nosuchdev
expect_error "not an ipoib_ng interface" "$CTL" show va
expect_error "No such device" "$REPO/scripts/ynl.sh" --dump path-get \
	--json '{"ifindex": 1}'
downs() {
	python3 "$CHECK" count "$OUT/monitor.jsonl" link "link-up&link-why" "0&admin-down"
}
n=$(downs)
more_downs() {
	(($(downs) > n))
}
check ip -n n1 link set dev "$IB1" down
wait_for 10 "the monitor to print the link down" more_downs
# Down: the connection to n2 and the groups went with it, each told.
check python3 "$CHECK" events "$OUT/monitor.jsonl" conn-down "gid&dir" "$GID2&tx" \
	group-left mgid "$MGID4"
kill "$MON" "$MCR"
wait "$MON" || fail "ipoibctl monitor did not exit 0 on SIGTERM"
wait "$MCR" || true
log "monitor printed $(grep -c . "$OUT/monitor.jsonl") events"
cp "$OUT"/* "$VM_OUT/" 2> /dev/null || true

unload_ipoib
expect_error "module is not loaded" "$CTL" show
log "observe: ok"
