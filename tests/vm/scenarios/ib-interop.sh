#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ib-interop: ipoib_ng beside the in-tree ib_ipoib (Debian's module) on
# one kernel, and the two talking over softib's fabric with OpenSM as SM
# and SA: the first check of our wire format against another
# implementation of RFC 4391.
#
# Asserts:
# - coexistence (Documentation/admin-guide.rst, "Beside ib_ipoib"):
#   with ib_ipoib loaded, ipoib_ng's defaults are refused with -EBUSY and
#   a line that names link_kind=0; a ports= of the wrong form is refused
#   with -EINVAL; link_kind=0 ports=softib2 loads, and ipoib_ng serves
#   softib2 only; ib_ipoib unloaded and loaded again beside it works (the
#   link kind was left to it) and they talk again; at the end ports=roce
#   serves none of softib's InfiniBand ports and ports=ib all of them;
# - interop: ib_ipoib's interface of softib1 in n1, ipoib_ng's of softib2
#   in n2. Both get a carrier from the SA's broadcast group; ARP and ND
#   both ways, each side's neighbour entry holding the other driver's
#   20-byte hardware address; ping IPv4 and IPv6 both ways; iperf3 TCP
#   both ways; an IPv4 group joined on either side gets every datagram
#   the other sends; P_Key children on P_Key 0x8001 (each driver's
#   create_child) ping both ways;
# - RFC 4391 s10, "Senders MUST subscribe to the multicast group create
#   and delete traps" (sa_notices=1): ipoib_ng sends to a group ib_ipoib's
#   socket made; the socket gone, OpenSM deletes the group and ipoib_ng,
#   told by the SA's notice, gives its send-only membership up (the
#   absence cached);
#   the group made again under another MLID, ipoib_ng sends to the new
#   one (every datagram arrives) and holds the MLID the SA lists. OpenSM
#   logs no ERR 1B25 (a leave of a membership it no longer has), which
#   it did when ipoib_ng did not follow the notices: ib_ipoib's own
#   send-only groups (ff02::2, ff02::16) go and come back with it.
# - connected mode (RFC 4755) between the two, over softib's RC: each
#   side's mode set by sysfs, MTU 65520; a ping of 60000 bytes with DF
#   each way, whole; iperf3 TCP both ways; ipoib_ng counts the
#   connection it made and the one it accepted (cm_connects,
#   cm_accepts) and frames over both; back to datagram mode, unicast
#   still works.

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

load_softib
cat > /tmp/partitions.conf << 'EOF'
Default=0x7fff, ipoib : ALL=full ;
P1=0x8001, ipoib : ALL=full ;
EOF
# RFC 4391 s10 send-only joins OpenSM refuses (lib.sh), on both P_Keys.
osm_allow_sendonly "ffff|8001"

kmsg "ib_ipoib first: it takes the \"ipoib\" link kind"
check modprobe ib_ipoib
wait_for 30 "ib_ipoib's interface of softib2" ib_ipoib_if softib2
for dep in $(modinfo -F depends "$VM_MODULE" | tr ',' ' '); do
	check modprobe "$dep"
done

# insmod_refused ERROR KERNEL_LINE [PARAM=VALUE...]: insmod of ipoib_ng
# with those parameters fails, insmod prints ERROR, the kernel log has
# KERNEL_LINE (a fixed string), and nothing of the module is left.
insmod_refused() {
	local error=$1 line=$2
	shift 2
	if insmod "$VM_MODULE" "$@" > /tmp/insmod.out 2>&1; then
		fail "ipoib_ng loaded with '$*'"
	fi
	cat /tmp/insmod.out
	expect_lines /tmp/insmod.out "$error"
	dmesg | grep -F "$line" || fail "no kernel line says why ('$*')"
	[[ ! -d /sys/module/$IPOIB_NAME ]] ||
		fail "$IPOIB_NAME is loaded after a refused insmod"
}

kmsg "ipoib_ng's defaults are refused beside it, with the way out named"
insmod_refused "Device or resource busy" \
	'the "ipoib" link kind is taken: unload ib_ipoib first, or load with link_kind=0'
kmsg "a ports= of the wrong form is refused"
insmod_refused "Invalid parameters" \
	'ports: "softib1:0" is not a comma-separated list' link_kind=0 ports=softib1:0

kmsg "link_kind=0 ports=softib2: beside ib_ipoib, on softib2 only"
# sa_notices=1: RFC 4391 s10's subscription for every sender (below).
load_ipoib link_kind=0 ports=softib2 sa_notices=1
NG=$(wait_ipoib_if softib2)
[[ $(< "/sys/module/$IPOIB_NAME/parameters/ports") == softib2 ]] ||
	fail "ports reads '$(< "/sys/module/$IPOIB_NAME/parameters/ports")'"
[[ $(< "/sys/module/$IPOIB_NAME/parameters/link_kind") == N ]] ||
	fail "link_kind reads '$(< "/sys/module/$IPOIB_NAME/parameters/link_kind")'"
! ipoib_if_for softib0 > /dev/null || fail "ipoib_ng made an interface on softib0"
! ipoib_if_for softib1 > /dev/null || fail "ipoib_ng made an interface on softib1"
ethtool -i "$NG" | tee /tmp/drv.out
expect_lines /tmp/drv.out "^driver: $IPOIB_NAME\$"
# Its dump still names the kind (the device's own ops), as ip shows it.
ip -d link show dev "$NG" | tee /tmp/link.out
expect_lines /tmp/link.out "ipoib pkey 0xffff mode datagram"

IPO=$(ib_ipoib_if softib1)
log "ib_ipoib: softib1 -> $IPO (n1); ipoib_ng: softib2 -> $NG (n2)"
ns_create n1 n2
ns_move "$IPO" n1
ns_move "$NG" n2
check ip -n n1 addr add 10.4.0.1/24 dev "$IPO"
check ip -n n1 addr add fd04::1/64 dev "$IPO" nodad
check ip -n n2 addr add 10.4.0.2/24 dev "$NG"
check ip -n n2 addr add fd04::2/64 dev "$NG" nodad
check ip -n n1 link set dev "$IPO" up
check ip -n n2 link set dev "$NG" up

start_opensm
wait_for 60 "carrier on $IPO (ib_ipoib) in n1" has_carrier n1 "$IPO"
wait_for 60 "carrier on $NG (ipoib_ng) in n2" has_carrier n2 "$NG"

kmsg "ARP, ND and ping both ways between ib_ipoib and ipoib_ng"
wait_for 60 "ping n2 -> 10.4.0.1" ping_works n2 10.4.0.1
check_ping n2 10.4.0.1
check_ping n1 10.4.0.2
wait_for 60 "ping n2 -> fd04::1" ping_works n2 fd04::1
check_ping n2 fd04::1
check_ping n1 fd04::2
check_ping n1 10.4.0.2 -s 2016	# 2044, the broadcast group's MTU
# Each side holds the other's 20-byte address as the other advertised it
# (RFC 4391 s9.1.1 in ARP, s9.2 in ND).
addr_ipo=$(ip netns exec n1 cat "/sys/class/net/$IPO/address")
addr_ng=$(ip netns exec n2 cat "/sys/class/net/$NG/address")
neigh_has() {
	ip -n "$1" neigh show dev "$2" to "$3" | tee -a /tmp/neigh.out |
		grep -qi "lladdr $4 "
}
neigh_has n1 "$IPO" 10.4.0.2 "$addr_ng" || fail "ib_ipoib's ARP entry is not $addr_ng"
neigh_has n1 "$IPO" fd04::2 "$addr_ng" || fail "ib_ipoib's ND entry is not $addr_ng"
neigh_has n2 "$NG" 10.4.0.1 "$addr_ipo" || fail "ipoib_ng's ARP entry is not $addr_ipo"
neigh_has n2 "$NG" fd04::1 "$addr_ipo" || fail "ipoib_ng's ND entry is not $addr_ipo"
cat /tmp/neigh.out

kmsg "iperf3 TCP both ways"
iperf3_tcp_moves n1 10.4.0.1 n2 /tmp/tcp-ng-ipo.log "TCP ipoib_ng -> ib_ipoib" -t 3
iperf3_tcp_moves n1 10.4.0.1 n2 /tmp/tcp-ipo-ng.log "TCP ib_ipoib -> ipoib_ng" -t 3 -R

kmsg "multicast: ipoib_ng sends to ib_ipoib's group, and back"
mc_delivers n1 "$IPO" n2 "$NG" 239.4.0.1
mc_delivers n2 "$NG" n1 "$IPO" 239.4.0.2

kmsg "RFC 4391 s10: ipoib_ng follows the SA's notices of a group it sends to"
DBG_NG=$(ipoib_debugfs softib2)
MG9=ff12:401b:ffff:0000:0000:0000:0f04:0009	# 239.4.0.9, as debugfs prints it
# ng_mc STATE: ipoib_ng's entry of 239.4.0.9 is in STATE.
ng_mc() { grep -q "^$MG9 state $1 " "$DBG_NG/mcg"; }
ng_mlid() { grep "^$MG9 " "$DBG_NG/mcg" | sed -n 's/.* mlid \(0x[0-9a-f]*\).*/\1/p'; }
# sa_mlid: the MLID the SA lists for 239.4.0.9 (lower case).
sa_mlid() {
	sa_mcmr ff12:401b:ffff::f04:9
	grep -m1 -io "mlid\.*0x[0-9a-f]*" /tmp/mcm.out | sed 's/.*0x/0x/' |
		tr 'A-F' 'a-f'
}
ng_subscribed() { grep -q "^state on directory off " "$DBG_NG/allmulti"; }
wait_for 30 "ipoib_ng's subscription to the SA's notices" ng_subscribed
# ib_ipoib's socket in n1 makes the group (FullMember); n2 sends to it,
# SendOnlyNonMember. The socket gone, ib_ipoib leaves, OpenSM deletes
# the group and reports it (trap 67).
mc_delivers n1 "$IPO" n2 "$NG" 239.4.0.9
old_mlid=$(ng_mlid)
log "ipoib_ng sent to 239.4.0.9 at MLID $old_mlid"
wait_for 30 "OpenSM's deletion of 239.4.0.9's group" \
	grep -q "Mcast group deleted.*ff12:401b:ffff::f04:9" "$OSM_LOG"
wait_for 10 "ipoib_ng's cached absence of 239.4.0.9 (the deletion's notice)" \
	ng_mc missing
grep "^$MG9 " "$DBG_NG/mcg"
# Another group takes the freed MLID (OpenSM 3.3.23, Debian 12's, gives a
# new group the lowest free one); then 239.4.0.9 is made again.
mc_member n1 "$IPO" 239.4.0.10 5003 /tmp/mc-10
pid10=$MC_MEMBER_PID
wait_for 30 "239.4.0.10's group" sa_member ff12:401b:ffff::f04:a fe80::200:0:0:201
mc_member n1 "$IPO" 239.4.0.9 5004 /tmp/mc-9
pid9=$MC_MEMBER_PID
wait_for 30 "239.4.0.9's group made again" sa_member ff12:401b:ffff::f04:9 fe80::200:0:0:201
# Its creation's notice (trap 66) ends the cached absence, if the cache's
# 10 s have not (KUnit's sa_sender_follows_notices tells the two apart).
mc_delivers n1 "$IPO" n2 "$NG" 239.4.0.9
new_mlid=$(ng_mlid)
sa_now=$(sa_mlid)
log "239.4.0.9: MLID $old_mlid, then $new_mlid; the SA lists $sa_now"
[[ -n $new_mlid && $new_mlid == "$sa_now" ]] ||
	fail "ipoib_ng sends to MLID $new_mlid, the SA lists $sa_now"
[[ $new_mlid != "$old_mlid" ]] ||
	fail "the group came back under its old MLID $old_mlid: not what is tested"
kill "$pid9" "$pid10"
wait "$pid9" "$pid10" || true

kmsg "P_Key 0x8001 children, each by its driver's create_child"
check sysfs_write n1 "/sys/class/net/$IPO/create_child" 0x8001
check sysfs_write n2 "/sys/class/net/$NG/create_child" 0x8001
# ib_ipoib makes its child in the initial namespace, whatever its
# parent's (ipoib_vlan.c); ipoib_ng in the parent's.
ns_move "$IPO.8001" n1
ip -n n2 link show dev "$NG.8001" > /dev/null || fail "$NG.8001 is not in n2"
check ip -n n1 addr add 10.5.0.1/24 dev "$IPO.8001"
check ip -n n2 addr add 10.5.0.2/24 dev "$NG.8001"
check ip -n n1 link set dev "$IPO.8001" up
check ip -n n2 link set dev "$NG.8001" up
wait_for 60 "carrier on $IPO.8001" has_carrier n1 "$IPO.8001"
wait_for 60 "carrier on $NG.8001" has_carrier n2 "$NG.8001"
wait_for 60 "ping n2 -> 10.5.0.1" ping_works n2 10.5.0.1
check_ping n2 10.5.0.1
check_ping n1 10.5.0.2
# Without the link kind, ip link del still reaches ipoib_ng's dellink.
check ip -n n2 link del dev "$NG.8001"
wait_for 10 "$NG.8001 gone" sh -c "! ip -n n2 link show dev $NG.8001 2> /dev/null"
check sysfs_write n1 "/sys/class/net/$IPO/delete_child" 0x8001

kmsg "connected mode between ib_ipoib and ipoib_ng, both ways"
check sysfs_write n1 "/sys/class/net/$IPO/mode" connected
check sysfs_write n2 "/sys/class/net/$NG/mode" connected
check ip -n n1 link set dev "$IPO" mtu 65520
check ip -n n2 link set dev "$NG" mtu 65520
ip -n n2 -d link show dev "$NG" | tee /tmp/link.out
expect_lines /tmp/link.out "mode connected" "mtu 65520 "
c0=$(eth_stat n2 "$NG" cm_connects)
a0=$(eth_stat n2 "$NG" cm_accepts)
wait_for 60 "a 60000-byte ping n2 -> 10.4.0.1" ping_works n2 10.4.0.1 -s 60000 -M "do"
check_ping n2 10.4.0.1 -s 60000 -M "do"
wait_for 60 "a 60000-byte ping n1 -> 10.4.0.2" ping_works n1 10.4.0.2 -s 60000 -M "do"
check_ping n1 10.4.0.2 -s 60000 -M "do"
stat_ng() { ip netns exec n2 cat "/sys/class/net/$NG/statistics/$1"; }
tx0=$(stat_ng tx_packets) rx0=$(stat_ng rx_packets)
ct0=$(eth_stat n2 "$NG" cm_tx_packets) cr0=$(eth_stat n2 "$NG" cm_rx_packets)
iperf3_tcp_moves n1 10.4.0.1 n2 /tmp/cm-ng-ipo.log "CM TCP ipoib_ng -> ib_ipoib" -t 3
iperf3_tcp_moves n1 10.4.0.1 n2 /tmp/cm-ipo-ng.log "CM TCP ib_ipoib -> ipoib_ng" -t 3 -R
c=$(eth_stat n2 "$NG" cm_connects)
a=$(eth_stat n2 "$NG" cm_accepts)
t=$(($(eth_stat n2 "$NG" cm_tx_packets) - ct0))
r=$(($(eth_stat n2 "$NG" cm_rx_packets) - cr0))
ntx=$(($(stat_ng tx_packets) - tx0))
nrx=$(($(stat_ng rx_packets) - rx0))
log "$NG: cm_connects $c (was $c0), cm_accepts $a (was $a0); during iperf3 $t of $ntx frames sent and $r of $nrx received over RC"
((c > c0)) || fail "ipoib_ng made no connection to ib_ipoib"
((a > a0)) || fail "ipoib_ng accepted no connection from ib_ipoib"
# Both TCP runs went over the connections (a few ARP or ND frames may not).
((ntx > 100 && t * 10 >= ntx * 9)) || fail "ipoib_ng: $t of $ntx frames sent over RC"
((nrx > 100 && r * 10 >= nrx * 9)) || fail "ipoib_ng: $r of $nrx frames received over RC"
check sysfs_write n1 "/sys/class/net/$IPO/mode" datagram
check sysfs_write n2 "/sys/class/net/$NG/mode" datagram
check_ping n2 10.4.0.1
check_ping n1 10.4.0.2

kmsg "ib_ipoib unloaded and loaded again beside ipoib_ng"
check rmmod ib_ipoib
sleep 3
has_carrier n2 "$NG" || fail "$NG lost its carrier when ib_ipoib went"
check modprobe ib_ipoib
wait_for 30 "ib_ipoib's interface of softib1 again" ib_ipoib_if softib1
IPO=$(ib_ipoib_if softib1)
ns_move "$IPO" n1
check ip -n n1 addr add 10.4.0.1/24 dev "$IPO"
check ip -n n1 link set dev "$IPO" up
wait_for 60 "carrier on $IPO in n1" has_carrier n1 "$IPO"
# A new interface has a new QPN, so a new hardware address: n2's entry
# for 10.4.0.1 holds the old one until the neighbour timers run out (up
# to 45 s REACHABLE, ib_ipoib sends no gratuitous ARP), as on Ethernet
# when a peer's MAC changes. Not what is tested here.
check ip -n n2 neigh flush dev "$NG"
wait_for 30 "ping n2 -> 10.4.0.1 again" ping_works n2 10.4.0.1
check_ping n2 10.4.0.1
check_ping n1 10.4.0.2

check_dmesg_clean "ib_ipoib and ipoib_ng on one fabric"
unload_ipoib

kmsg "ports=roce leaves softib's InfiniBand ports alone, ports=ib takes them"
load_ipoib link_kind=0 ports=roce
sleep 2
# No ipoib_ng interface at all (its have an ibdev file; not ipoib_if_for,
# which without any falls back to ib_ipoib's by creation order).
if compgen -G '/sys/class/net/*/ibdev' > /dev/null; then
	grep . /sys/class/net/*/ibdev
	fail "ports=roce made interfaces on softib's InfiniBand ports"
fi
unload_ipoib
load_ipoib link_kind=0 ports=ib
for d in softib0 softib1 softib2; do
	wait_ipoib_if "$d" > /dev/null
done
unload_ipoib

check rmmod ib_ipoib
stop_opensm
unload_softib
log "ib-interop: PASS"
