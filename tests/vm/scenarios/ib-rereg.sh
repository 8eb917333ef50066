#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ib-rereg: the subnet manager stops and another one starts, on another
# port (IBA 14.4.11: client reregistration). OpenSM runs on softib0, then
# is stopped and started again on softib1: the SM LID changes, the new SM
# knows no multicast group but the broadcast groups of partitions.conf,
# and its first sweep sets ClientReregister on every port.
#
# Asserts: while no SM runs, unicast keeps working (paths and LIDs are
# unchanged); after the new SM's sweep every port's SM LID is softib1's,
# each interface rejoined its groups (mc_joins grew by at least the
# FullMember groups it holds, and the new SA lists all three ports in the
# broadcast group again); IPv4 and IPv6 ping both ways; an IPv4 ping
# running through the whole restart lost nothing.

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

load_softib
softib_hosts
softib_addrs 5
start_opensm
wait_for 60 "carrier on $IB1" has_carrier n1 "$IB1"
wait_for 60 "carrier on $IB2" has_carrier n2 "$IB2"
wait_for 60 "ping 10.5.0.2" ping_works n1 10.5.0.2
wait_for 60 "ping fd05::2" ping_works n1 fd05::2
lid0=$(port_field softib0 "Base lid")
lid1=$(port_field softib1 "Base lid")

# joins NS IF: the interface's mc_joins counter (ethtool -S).
joins() {
	eth_stat "$1" "$2" mc_joins
}
# full_groups DEV: the FullMember groups the interface on DEV holds.
full_groups() {
	grep -c " joined full" "$(ipoib_debugfs "$1")/mcg" || true
}
j1=$(joins n1 "$IB1")
j2=$(joins n2 "$IB2")
g1=$(full_groups softib1)
g2=$(full_groups softib2)
log "before: mc_joins $j1 and $j2, FullMember groups $g1 and $g2"
cat "$(ipoib_debugfs softib1)/mcg"

# A ping through the restart: one echo every 0.2 s, each answer logged.
ip netns exec n1 ping -D -i 0.2 -W 1 10.5.0.2 > /tmp/restart-ping.out 2>&1 &
ping_pid=$!

log "OpenSM stops: no SM, unicast goes on"
osm_allow_sendonly ffff
stop_opensm
sleep 3
check_ping n1 10.5.0.2
check_ping n2 fd05::1

log "OpenSM starts on softib1: a new SM LID, ClientReregister"
OSM_LOG=$VM_OUT/opensm-2.log
OSM_DEV=softib1
start_opensm
for d in softib0 softib1 softib2; do
	wait_for 30 "$d's SM LID $lid1" sh -c \
		"[ \"\$(cat /sys/class/infiniband/$d/ports/1/sm_lid)\" = $(printf '0x%x' "$lid1") ]"
done
[[ $(port_field softib0 "Base lid") == "$lid0" ]] || fail "softib0's LID changed"
rejoined() {
	(($(joins n1 "$IB1") >= j1 + g1 && $(joins n2 "$IB2") >= j2 + g2))
}
wait_for 60 "both interfaces to rejoin their groups" rejoined
log "after: mc_joins $(joins n1 "$IB1") and $(joins n2 "$IB2")"
sa_mcmr ff12:401b:ffff::ffff:ffff
for g in fe80::200:0:0:101 fe80::200:0:0:201 fe80::200:0:0:301; do
	expect_lines /tmp/mcm.out "PortGid\.+$g\$"
done
check_ping n1 10.5.0.2
check_ping n2 10.5.0.1
check_ping n1 fd05::2
check_ping n2 fd05::1
sleep 2
kill -INT "$ping_pid"
wait "$ping_pid" || true
tail -n 5 /tmp/restart-ping.out
sent=$(sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' /tmp/restart-ping.out)
got=$(sed -n 's/.* \([0-9]*\) received.*/\1/p' /tmp/restart-ping.out)
log "through the restart: $got of $sent echoes answered"
[[ -n $sent && $sent -gt 20 ]] || fail "the restart ping sent '$sent'"
# Unicast needs no group, and paths and LIDs did not change: nothing may
# be lost (but the echo in flight when ping was stopped).
((sent - got <= 1)) || fail "$((sent - got)) of $sent echoes lost through the SM restart"

stop_opensm
unload_ipoib
unload_softib
log "ib-rereg: PASS"
