#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# softib-sma: each HCA's SMA at hop 0, build plan step 2 of
# Documentation/softib-design.rst. The tools of infiniband-diags send
# directed-route SMPs to the local port ("-D 0"), which the MAD layer hands
# to softib's process_mad without touching the wire.
#
#   smpquery/ibportstate -C softibN -D 0
#        |  umad -> mad.c:handle_outgoing_dr_smp -> process_mad
#   softib0 (HCA) port 1 ---+
#   softib1 (HCA) port 1 ---+--- sw0 ports 1..3     (the wire: step 3)
#   softib2 (HCA) port 1 ---+
#
# For each HCA: NodeInfo, NodeDescription, PortInfo, PKeyTable, GUIDInfo,
# SLtoVL, VLArbitration as the design gives them. On softib1: PortState
# INIT -> ARMED -> ACTIVE by ibportstate, seen by ibv_devinfo and as
# IBV_EVENT_PORT_ACTIVE by ibv_asyncwatch; ACTIVE from INIT refused (0x001C);
# LID and SM LID set with their events; Down retrains to INIT with
# PORT_ERR; SwitchInfo on an HCA answered 0x000C; a hop-1 SMP is answered
# by the switch (softib-wire tests the wire). Then the kernel log is clean and softib unloads.

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

# A hop-0 SMP is answered at once; one timeout is a hang.
SMP_TIMEOUT=30

port_state() {
	ibv_devinfo -d "$1" | awk '$1 == "state:" { print $2 }'
}

load_softib

for ((i = 0; i < SOFTIB_HCAS; i++)); do
	d=softib$i
	n=$((i + 1))	# node number: sw0 is node 0
	smp "$d" nodeinfo 0
	expect_lines /tmp/smp.out \
		"^BaseVers:\.+1\$" "^ClassVers:\.+1\$" \
		"^NodeType:\.+Channel Adapter\$" "^NumPorts:\.+1\$" \
		"^SystemGuid:\.+0x0200000000000${n}00\$" \
		"^Guid:\.+0x0200000000000${n}00\$" \
		"^PortGuid:\.+0x0200000000000${n}01\$" \
		"^PartCap:\.+32\$" "^DevId:\.+0x5f1b\$" "^LocalPort:\.+1\$"
	smp "$d" nodedesc 0
	expect_lines /tmp/smp.out "^Node Description:\.+$d HCA-1\$"
	smp "$d" portinfo 0
	expect_lines /tmp/smp.out \
		"^Lid:\.+0\$" "^SMLid:\.+0\$" "^LMC:\.+0\$" "^LocalPort:\.+1\$" \
		"IsTrapSupported" "IsSystemImageGUIDsupported" \
		"IsCapabilityMaskNoticeSupported" \
		"IsClientRegistrationSupported" \
		"^LinkWidthSupported:\.+1X or 4X\$" "^LinkWidthActive:\.+4X\$" \
		"^LinkSpeedSupported:\.+2.5 Gbps or 5.0 Gbps or 10.0 Gbps\$" \
		"^LinkSpeedActive:\.+10.0 Gbps\$" \
		"^LinkState:\.+Initialize\$" "^PhysLinkState:\.+LinkUp\$" \
		"^LinkDownDefState:\.+Polling\$" \
		"^NeighborMTU:\.+4096\$" "^MtuCap:\.+4096\$" \
		"^VLCap:\.+VL0\$" "^OperVLs:\.+VL0\$" "^GuidCap:\.+8\$"
	smp "$d" pkeys 0
	expect_lines /tmp/smp.out "0xffff" "32 pkeys capacity for this port"
	smp "$d" guidinfo 0
	expect_lines /tmp/smp.out "0x0200000000000${n}01"
	smp "$d" sl2vl 0
	smp "$d" vlarb 0
done

# softib1's port through its states, with ibv_asyncwatch listening.
ibv_asyncwatch -d softib1 > /tmp/async.out 2>&1 &
asyncwatch=$!
sleep 1
log "\$ ibportstate -C softib1 -D 0 1 active (from INIT: refused, 0x001C)"
if timeout 30 ibportstate -e -C softib1 -P 1 -D 0 1 active > /tmp/ps.out 2>&1; then
	cat /tmp/ps.out
	fail "ACTIVE from INIT accepted"
fi
cat /tmp/ps.out
expect_lines /tmp/ps.out "error status 0x1c;"
[[ $(port_state softib1) == PORT_INIT ]] || fail "ACTIVE from INIT was applied"
# On a CA, arm also sets LID and SM LID 0x1234 (ibportstate's default).
check timeout 30 ibportstate -C softib1 -P 1 -D 0 1 arm
wait_for 10 "softib1 ARMED" test "$(port_state softib1)" = PORT_ARMED
check timeout 30 ibportstate -C softib1 -P 1 -D 0 1 active
wait_for 10 "softib1 ACTIVE" test "$(port_state softib1)" = PORT_ACTIVE
smp softib1 portinfo 0
expect_lines /tmp/smp.out "^LinkState:\.+Active\$"
check timeout 30 ibportstate -C softib1 -P 1 -D 0 1 lid 7
check timeout 30 ibportstate -C softib1 -P 1 -D 0 1 smlid 7
ibv_devinfo -d softib1
ibv_devinfo -d softib1 | grep -qE "port_lid:[[:space:]]+7\$" || fail "LID 7 not in force"
ibv_devinfo -d softib1 | grep -qE "sm_lid:[[:space:]]+7\$" || fail "SM LID 7 not in force"
check timeout 30 ibportstate -C softib1 -P 1 -D 0 1 down
wait_for 10 "softib1 back in INIT" test "$(port_state softib1)" = PORT_INIT
sleep 1
kill "$asyncwatch"
wait "$asyncwatch" || true
cat /tmp/async.out
# In order: arm (LID, SM LID), active, lid 7, smlid 7, down.
[[ $(grep -oE 'IBV_EVENT_[A-Z_]+' /tmp/async.out | xargs) == \
   "IBV_EVENT_LID_CHANGE IBV_EVENT_SM_CHANGE IBV_EVENT_PORT_ACTIVE IBV_EVENT_LID_CHANGE IBV_EVENT_SM_CHANGE IBV_EVENT_PORT_ERR" ]] ||
	fail "events: $(grep -oE 'IBV_EVENT_[A-Z_]+' /tmp/async.out | xargs)"

log "SwitchInfo of an HCA: 0x000C"
if timeout 30 smpquery -e -C softib1 -P 1 -t 1000 -D switchinfo 0 > /tmp/si.out 2>&1; then
	cat /tmp/si.out
	fail "SwitchInfo answered by an HCA"
fi
cat /tmp/si.out
# libibmad prints a DR SMP's status without the direction bit.
expect_lines /tmp/si.out "error status 0xc;"

log "NodeInfo at hop 1: the switch answers over the wire"
smp softib1 nodeinfo 0,1
expect_lines /tmp/smp.out "^NodeType:\.+Switch\$" "^LocalPort:\.+2\$"

unload_softib
log "softib-sma: PASS"
