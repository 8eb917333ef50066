#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# softib-wire: QP0 over the cables and the switch SMA, build plan step 3 of
# Documentation/softib-design.rst. Directed-route SMPs leave softibN's QP0,
# cross the cable to sw0, which forwards them by initial_path or answers
# them itself, and come back along the return path (IBA 14.2.2). No SM.
#
#   softib0 (HCA) port 1 ---+
#   softib1 (HCA) port 1 ---+--- sw0 ports 1..3 (4..8 uncabled)
#   softib2 (HCA) port 1 ---+
#
# Asserts: the switch's NodeInfo, NodeDescription, PortInfo (ports 0, 3,
# 5), SwitchInfo at 0,1; the HCAs' NodeInfo at 0,1,2 and 0,1,3, at 0,1,1
# from softib2 (softib0) and softib0 (itself); 0x000C for an attribute
# the switch lacks; a switch port armed by ibportstate; ibnetdiscover finds 3 CAs and 1 switch, each cable with
# its port numbers and GUIDs; ibroute -D 0,1 (unicast and multicast)
# reads the tables. Then softib unloads after the traffic.

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

# Through the switch, under TCG: the SMP's retries may take a while.
SMP_TIMEOUT=60

load_softib

smp softib0 nodeinfo 0,1
expect_lines /tmp/smp.out \
	"^BaseVers:\.+1\$" "^ClassVers:\.+1\$" \
	"^NodeType:\.+Switch\$" "^NumPorts:\.+8\$" \
	"^SystemGuid:\.+0x0200000000000000\$" "^Guid:\.+0x0200000000000000\$" \
	"^PortGuid:\.+0x0200000000000000\$" "^PartCap:\.+32\$" \
	"^DevId:\.+0x5f1b\$" "^LocalPort:\.+1\$"
smp softib0 nodedesc 0,1
expect_lines /tmp/smp.out "^Node Description:\.+sw0 softib switch\$"
smp softib0 switchinfo 0,1
expect_lines /tmp/smp.out "^LinearFdbCap:\.+49152\$" "FdbCap:\.+1024\$" \
	"^LinearFdbTop:\.+0\$"
smp softib0 portinfo 0,1 0
expect_lines /tmp/smp.out "^LocalPort:\.+1\$" "^LinkState:\.+Initialize\$"
smp softib0 portinfo 0,1 3
expect_lines /tmp/smp.out "^LocalPort:\.+1\$" "^LinkState:\.+Initialize\$" \
	"^PhysLinkState:\.+LinkUp\$" "^NeighborMTU:\.+4096\$" \
	"^LinkWidthActive:\.+4X\$" "^LinkSpeedActive:\.+10.0 Gbps\$"
smp softib0 portinfo 0,1 5
expect_lines /tmp/smp.out "^LinkState:\.+Down\$" "^PhysLinkState:\.+Polling\$"

# Through the switch to each HCA: the SMP comes in on the HCA's port 1.
smp softib0 nodeinfo 0,1,2
expect_lines /tmp/smp.out "^NodeType:\.+Channel Adapter\$" \
	"^Guid:\.+0x0200000000000200\$" "^PortGuid:\.+0x0200000000000201\$" \
	"^LocalPort:\.+1\$"
smp softib0 nodedesc 0,1,3
expect_lines /tmp/smp.out "^Node Description:\.+softib2 HCA-1\$"
# initial_path[1] is the sender's own port: softib2's port 1, sw0's port 1.
smp softib2 nodeinfo 0,1,1
expect_lines /tmp/smp.out "^Guid:\.+0x0200000000000100\$"
smp softib1 nodeinfo 0,1
expect_lines /tmp/smp.out "^NodeType:\.+Switch\$" "^LocalPort:\.+2\$"
# The loop back to the sender itself.
smp softib0 portinfo 0,1,1
expect_lines /tmp/smp.out "^LinkState:\.+Initialize\$"

log "GUIDInfo of the switch: 0x000C"
if timeout 60 smpquery -e -C softib0 -P 1 -t 1000 -D guidinfo 0,1 > /tmp/gi.out 2>&1; then
	cat /tmp/gi.out
	fail "GUIDInfo answered by the switch"
fi
cat /tmp/gi.out
expect_lines /tmp/gi.out "error status 0xc;"

log "a path through an uncabled port: no answer"
check_fails timeout 60 smpquery -C softib0 -P 1 -t 200 -D nodeinfo 0,1,5

log "switch port 3 armed over the wire"
check timeout 60 ibportstate -C softib0 -P 1 -D 0,1 3 arm
smp softib0 portinfo 0,1 3
expect_lines /tmp/smp.out "^LinkState:\.+Armed\$"

log "\$ ibnetdiscover -C softib0 -P 1"
timeout 120 ibnetdiscover -C softib0 -P 1 > /tmp/net.out 2>&1 ||
	{ cat /tmp/net.out; fail "ibnetdiscover failed"; }
cat /tmp/net.out
[[ $(grep -c '^Ca' /tmp/net.out) == 3 ]] || fail "ibnetdiscover: not 3 CAs"
[[ $(grep -c '^Switch' /tmp/net.out) == 1 ]] || fail "ibnetdiscover: not 1 switch"
expect_lines /tmp/net.out \
	'^Switch[[:space:]]+8 "S-0200000000000000"' \
	'^\[1\][[:space:]]+"H-0200000000000100"\[1\]\(200000000000101\)' \
	'^\[2\][[:space:]]+"H-0200000000000200"\[1\]\(200000000000201\)' \
	'^\[3\][[:space:]]+"H-0200000000000300"\[1\]\(200000000000301\)' \
	'^Ca[[:space:]]+1 "H-0200000000000100"' \
	'^Ca[[:space:]]+1 "H-0200000000000200"' \
	'^Ca[[:space:]]+1 "H-0200000000000300"' \
	'^\[1\]\(200000000000101\)[[:space:]]+"S-0200000000000000"\[1\]' \
	'^\[1\]\(200000000000201\)[[:space:]]+"S-0200000000000000"\[2\]' \
	'^\[1\]\(200000000000301\)[[:space:]]+"S-0200000000000000"\[3\]'
# Nothing behind the uncabled ports 4..8.
! grep -E '^\[[4-8]\]' /tmp/net.out || fail "ibnetdiscover: a link on port 4..8"

log "\$ ibroute -C softib0 -P 1 -D 0,1"
timeout 60 ibroute -C softib0 -P 1 -t 1000 -D 0,1 > /tmp/route.out 2>&1 ||
	{ cat /tmp/route.out; fail "ibroute failed"; }
cat /tmp/route.out
expect_lines /tmp/route.out "Unicast lids" "0x0200000000000000"
log "\$ ibroute -M -C softib0 -P 1 -D 0,1"
timeout 120 ibroute -M -C softib0 -P 1 -t 1000 -D 0,1 > /tmp/mroute.out 2>&1 ||
	{ cat /tmp/mroute.out; fail "ibroute -M failed"; }
cat /tmp/mroute.out
expect_lines /tmp/mroute.out "Multicast mlids"

unload_softib
log "softib-wire: PASS"
