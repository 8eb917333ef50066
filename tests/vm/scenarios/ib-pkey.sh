#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ib-pkey: partitions from OpenSM's partitions.conf over softib. The SM
# programs each HCA port's PKeyTable; ipoib_ng's P_Key children follow it.
#
#   P1=0x8001 grants softib1 and softib2 (full members), not softib0.
#
# Asserts: the children of P_Key 0x8001 on softib1 and softib2 get a
# carrier and ping each other over IPv4 and IPv6; the child on softib0,
# whose port the SM did not grant the P_Key, gets none. P1 removed from
# partitions.conf and OpenSM re-swept (kill -HUP): the P_Key leaves the
# ports' tables, both children lose their carrier and no ping gets
# through (the ports drop the partition's frames, IBA 10.9.3). P1 back
# and another HUP: the carriers and the pings come back by themselves.
# The children in connected mode: a 60000-byte ping goes whole over an
# RC connection on P_Key 0x8001. Behind the SM's back (softib's pkeys
# control, design step 7): 0x8001 taken out of softib2's table by hand,
# c2 loses its carrier and no ping crosses; put back by hand, c2 comes
# back by itself.

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

load_softib
partitions with_p1
softib_hosts
check ip link add link "$IB0" name c0 type ipoib pkey 0x8001
check ip -n n1 link add link "$IB1" name c1 type ipoib pkey 0x8001
check ip -n n2 link add link "$IB2" name c2 type ipoib pkey 0x8001
check ip link set dev c0 up
check ip -n n1 link set dev c1 up
check ip -n n2 link set dev c2 up
check ip -n n1 addr add 10.4.0.1/24 dev c1
check ip -n n1 addr add fd04::1/64 dev c1 nodad
check ip -n n2 addr add 10.4.0.2/24 dev c2
check ip -n n2 addr add fd04::2/64 dev c2 nodad
check ip addr add 10.4.0.10/24 dev c0

start_opensm
# pkey_in DEV: P_Key 0x8001 is in DEV's port 1 table (sysfs, ib_core's cache).
pkey_in() {
	grep -qx 0x8001 /sys/class/infiniband/"$1"/ports/1/pkeys/*
}
wait_for 30 "0x8001 in softib1's P_Key table" pkey_in softib1
wait_for 30 "0x8001 in softib2's P_Key table" pkey_in softib2
pkey_in softib0 && fail "softib0 has P_Key 0x8001, not granted to it"
wait_for 60 "carrier on c1" has_carrier n1 c1
wait_for 60 "carrier on c2" has_carrier n2 c2
wait_for 60 "ping over P_Key 0x8001" ping_works n1 10.4.0.2
check_ping n1 10.4.0.2
check_ping n2 10.4.0.1
wait_for 60 "ping fd04::2" ping_works n1 fd04::2
check_ping n1 fd04::2
log "softib0's child: no carrier, its port lacks the P_Key"
ip -o link show dev c0
ip -o link show dev c0 | grep -q LOWER_UP && fail "c0 has a carrier without the P_Key"
ping -c 2 -W 2 10.4.0.1 > /dev/null 2>&1 && fail "c0 reached 10.4.0.1"

sweeps() { grep -c "SUBNET UP" "$OSM_LOG"; }
# resweep: OpenSM reads partitions.conf again (SIGHUP: a heavy sweep).
resweep() {
	local n
	n=$(sweeps)
	check pkill -HUP -x opensm
	wait_for 60 "OpenSM's next SUBNET UP" sh -c "[ \$(grep -c 'SUBNET UP' $OSM_LOG) -gt $n ]"
}

log "P1 removed from partitions.conf, OpenSM re-swept"
partitions without_p1
resweep
wait_for 60 "0x8001 out of softib1's table" sh -c "! grep -qx 0x8001 /sys/class/infiniband/softib1/ports/1/pkeys/*"
wait_for 60 "c1 to lose its carrier" sh -c "! ip -n n1 -o link show dev c1 | grep -q LOWER_UP"
wait_for 60 "c2 to lose its carrier" sh -c "! ip -n n2 -o link show dev c2 | grep -q LOWER_UP"
ping_works n1 10.4.0.2 && fail "a ping crossed the removed partition"
log "the parents still talk: the default partition is untouched"
check ip -n n1 addr add 10.3.0.1/24 dev "$IB1"
check ip -n n2 addr add 10.3.0.2/24 dev "$IB2"
wait_for 60 "ping over the default partition" ping_works n1 10.3.0.2

log "P1 back, OpenSM re-swept: the children come back by themselves"
partitions with_p1
resweep
wait_for 60 "0x8001 back in softib1's table" pkey_in softib1
wait_for 60 "carrier on c1 again" has_carrier n1 c1
wait_for 60 "carrier on c2 again" has_carrier n2 c2
wait_for 60 "ping over P_Key 0x8001 again" ping_works n1 10.4.0.2
check_ping n1 10.4.0.2
check_ping n2 10.4.0.1

log "the children in connected mode: RC on P_Key 0x8001"
check ip -n n1 link set dev c1 type ipoib mode connected
check ip -n n2 link set dev c2 type ipoib mode connected
wait_for 60 "a 60000-byte ping over RC" ping_works n1 10.4.0.2 -s 60000 -M "do"
check_ping n1 10.4.0.2 -s 60000 -M "do"
check_ping n2 10.4.0.1 -s 60000 -M "do"
c=$(eth_stat n1 c1 cm_connects)
((c >= 1)) || fail "c1 made no connection"
check ip -n n1 link set dev c1 type ipoib mode datagram
check ip -n n2 link set dev c2 type ipoib mode datagram

log "0x8001 out of softib2's table by hand, behind the SM"
PK=/sys/class/infiniband/softib2/ports/1/softib/pkeys
cat "$PK"
idx=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "0x8001") print i - 1 }' "$PK")
[[ -n $idx ]] || fail "softib2's table has no 0x8001: $(cat "$PK")"
check sh -c "echo '$idx 0x0000' > $PK"
# A malformed write is refused and changes nothing.
sh -c "echo '99 0x8001' > $PK" 2> /dev/null && fail "index 99 accepted"
sh -c "echo 'x' > $PK" 2> /dev/null && fail "a malformed line accepted"
wait_for 60 "c2 to lose its carrier" sh -c "! ip -n n2 -o link show dev c2 | grep -q LOWER_UP"
ping_works n1 10.4.0.2 && fail "a ping crossed into a port without the P_Key"
log "put back by hand: c2 returns by itself"
check sh -c "echo '$idx 0x8001' > $PK"
wait_for 60 "carrier on c2 again" has_carrier n2 c2
wait_for 60 "ping over P_Key 0x8001 again" ping_works n1 10.4.0.2
check_ping n2 10.4.0.1

osm_allow_sendonly "ffff|8001"
stop_opensm
check ip link del c0
check ip -n n1 link del c1
check ip -n n2 link del c2
unload_ipoib
unload_softib
log "ib-pkey: PASS"
