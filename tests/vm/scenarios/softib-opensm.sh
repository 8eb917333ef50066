#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# softib-opensm: Debian's OpenSM manages the soft-IB fabric, build plan
# step 4 of Documentation/softib-design.rst. OpenSM runs on softib0's port
# 1: it sweeps by directed route, assigns LIDs, programs the switch's LFT,
# brings every port ACTIVE and answers SA queries over QP1, which cross the
# switch LID-routed on VL0.
#
# Asserts: "SUBNET UP" in OpenSM's log; every HCA port ACTIVE with a LID of
# its own and softib0's LID as its SM LID (ibstat, sysfs); the switch's
# port 0 has a LID and its LFT routes each HCA LID to the HCA's cable
# (ibroute, LID-routed); smpquery by LID reaches each HCA and the switch;
# saquery from softib1 and softib2 lists 4 nodes and the 3 port records;
# a heavy sweep (kill -HUP) changes no LID; a switch port taken down and
# up again is seen by OpenSM (Trap 128) and its HCA comes back ACTIVE
# with its LID; OpenSM's log has no error.

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

SMP_TIMEOUT=60

# At a failure: where OpenSM's threads are, and the SMA's view of each port.
dump_scenario() {
	local t
	for t in "/proc/$(pgrep -x opensm | head -n1)"/task/*; do
		[[ -d $t ]] || continue
		echo "--- opensm thread ${t##*/}: $(cat "$t/wchan") ---"
		cat "$t/stack" 2> /dev/null
	done
	cat /sys/class/infiniband/softib*/ports/1/{lid,sm_lid,state}
	echo "--- trace: $VM_OUT/trace.txt ---"
	cat /sys/kernel/tracing/trace > "$VM_OUT/trace.txt"
}
# ib_mad's and ib_umad's tracepoints: every MAD, kept for a failure.
T=/sys/kernel/tracing
mountpoint -q $T || mount -t tracefs none $T
echo 4096 > $T/buffer_size_kb

load_softib
echo 1 > $T/events/ib_mad/enable
echo 1 > $T/events/ib_umad/enable

start_opensm
grep -E "SUBNET UP|ERR|timeout" "$OSM_LOG" | head -n 40

sm_lid=$(port_field softib0 "Base lid")
log "SM LID $sm_lid"
[[ $sm_lid =~ ^[0-9]+$ && $sm_lid -gt 0 ]] || fail "softib0: LID '$sm_lid'"
declare -A lids=()
for i in 0 1 2; do
	ibstat softib$i 1
	lid=$(port_field softib$i "Base lid")
	[[ $lid =~ ^[0-9]+$ && $lid -gt 0 && $lid -lt 49152 ]] ||
		fail "softib$i: LID '$lid'"
	[[ -z ${lids[$lid]:-} ]] || fail "softib$i: LID $lid is ${lids[$lid]}'s too"
	lids[$lid]=softib$i
	[[ $(port_field softib$i "SM lid") == "$sm_lid" ]] ||
		fail "softib$i: SM lid is not $sm_lid"
	[[ $(port_field softib$i "State") == Active ]] || fail "softib$i: not Active"
	[[ $(port_field softib$i "Physical state") == LinkUp ]] ||
		fail "softib$i: not LinkUp"
	# ib_core's cache saw the change (IB_EVENT_LID_CHANGE): sysfs shows it.
	[[ $(cat /sys/class/infiniband/softib$i/ports/1/lid) == \
		$(printf '0x%x' "$lid") ]] || fail "softib$i: sysfs LID"
done

# The switch: port 0's LID, every cabled port ACTIVE, by directed route.
smp softib0 portinfo 0,1 0
sw_lid=$(sed -n 's/^Lid:\.*//p' /tmp/smp.out)
[[ $sw_lid =~ ^[0-9]+$ && $sw_lid -gt 0 ]] || fail "switch: LID '$sw_lid'"
[[ -z ${lids[$sw_lid]:-} ]] || fail "switch: LID $sw_lid is ${lids[$sw_lid]}'s"
expect_lines /tmp/smp.out "^SMLid:\.+$sm_lid\$"
for p in 1 2 3; do
	smp softib0 portinfo 0,1 $p
	expect_lines /tmp/smp.out "^LinkState:\.+Active\$"
done

log "LID-routed SMPs through the LFT"
for i in 1 2; do
	lid=$(port_field softib$i "Base lid")
	log "\$ smpquery -C softib0 -P 1 nodeinfo $lid"
	timeout 60 smpquery -C softib0 -P 1 -t 1000 nodeinfo "$lid" > /tmp/smp.out 2>&1 ||
		{ cat /tmp/smp.out; fail "smpquery nodeinfo $lid failed"; }
	cat /tmp/smp.out
	expect_lines /tmp/smp.out "^NodeType:\.+Channel Adapter\$" \
		"^Guid:\.+0x0200000000000$((i + 1))00\$"
done
log "\$ smpquery -C softib2 -P 1 switchinfo $sw_lid"
timeout 60 smpquery -C softib2 -P 1 -t 1000 switchinfo "$sw_lid" > /tmp/smp.out 2>&1 ||
	{ cat /tmp/smp.out; fail "smpquery switchinfo $sw_lid failed"; }
cat /tmp/smp.out
expect_lines /tmp/smp.out "^LinearFdbCap:\.+49152\$"

log "\$ ibroute -C softib1 -P 1 $sw_lid"
timeout 60 ibroute -C softib1 -P 1 -t 1000 "$sw_lid" > /tmp/route.out 2>&1 ||
	{ cat /tmp/route.out; fail "ibroute failed"; }
cat /tmp/route.out
for i in 0 1 2; do
	lid=$(port_field softib$i "Base lid")
	expect_lines /tmp/route.out \
		"^$(printf '0x%04x' "$lid") 00$((i + 1)) : \(Channel Adapter"
done

log "SA queries over QP1, LID-routed to the SM"
for dev in softib1 softib2; do
	log "\$ saquery -C $dev -P 1 -t 1000"
	timeout 60 saquery -C "$dev" -P 1 -t 1000 > /tmp/sa.out 2>&1 ||
		{ cat /tmp/sa.out; fail "saquery on $dev failed"; }
	n=$(grep -c "^NodeRecord dump:" /tmp/sa.out || true)
	[[ $n == 4 ]] || { cat /tmp/sa.out; fail "saquery on $dev: $n NodeRecords, not 4"; }
	expect_lines /tmp/sa.out "NodeDescription\.+sw0 softib switch" \
		"NodeDescription\.+softib1 HCA-1"
done
log "\$ saquery -C softib2 -P 1 PR $(port_field softib1 "Base lid") ..."
timeout 60 saquery -C softib2 -P 1 -t 1000 -p \
	--src-to-dst "$(port_field softib2 "Base lid"):$(port_field softib1 "Base lid")" \
	> /tmp/pr.out 2>&1 || { cat /tmp/pr.out; fail "saquery PathRecord failed"; }
cat /tmp/pr.out
expect_lines /tmp/pr.out "dlid\.+$(port_field softib1 "Base lid")\$" \
	"slid\.+$(port_field softib2 "Base lid")\$"
# OpenSM answers PKeyTableRecords to trusted requesters only: its
# default SM_Key (opensm.conf sm_key 0x1).
timeout 60 saquery -C softib1 -P 1 -t 1000 --smkey 1 PKeyTableRecord > /tmp/pk.out 2>&1 ||
	{ cat /tmp/pk.out; fail "saquery PKeyTableRecord failed"; }
expect_lines /tmp/pk.out "0xffff"

log "a heavy sweep (kill -HUP) changes nothing"
declare -A before=()
for i in 0 1 2; do before[$i]=$(port_field softib$i "Base lid"); done
ups=$(grep -c "SUBNET UP" "$OSM_LOG")
check pkill -HUP -x opensm
wait_for 60 "the heavy sweep's SUBNET UP" \
	sh -c "[ \$(grep -c 'SUBNET UP' $OSM_LOG) -gt $ups ]"
for i in 0 1 2; do
	[[ $(port_field softib$i "Base lid") == "${before[$i]}" ]] ||
		fail "softib$i: LID changed on a heavy sweep"
	[[ $(port_field softib$i "State") == Active ]] ||
		fail "softib$i: not Active after a heavy sweep"
done

log "switch port 3 down and up: Trap 128, softib2 ACTIVE again"
traps=$(grep -c "Received Generic Notice type:1 num:128" "$OSM_LOG" || true)
check timeout 60 ibportstate -C softib0 -P 1 -t 1000 "$sw_lid" 3 disable
wait_for 30 "softib2 port 1 DOWN" \
	grep -q DOWN /sys/class/infiniband/softib2/ports/1/state
check timeout 60 ibportstate -C softib0 -P 1 -t 1000 "$sw_lid" 3 enable
wait_for 120 "softib2 port 1 ACTIVE again" \
	grep -q ACTIVE /sys/class/infiniband/softib2/ports/1/state
wait_for 30 "OpenSM's Trap 128" sh -c \
	"[ \$(grep -c 'Received Generic Notice type:1 num:128' $OSM_LOG) -gt $traps ]"
[[ $(port_field softib2 "Base lid") == "${before[2]}" ]] ||
	fail "softib2: LID changed after the link came back"

stop_opensm
unload_softib
log "softib-opensm: PASS"
