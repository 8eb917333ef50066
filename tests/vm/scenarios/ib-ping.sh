#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ib-ping: ipoib_ng over InfiniBand with a real subnet manager. softib's
# three HCAs and switch (tests/softib/), Debian's OpenSM on softib0 as SM
# and SA; ipoib_ng's interfaces of softib1 and softib2 in namespaces n1
# and n2, the one of softib0 in the initial namespace: three hosts.
#
# Asserts: no carrier before the SM brought the ports ACTIVE and the
# broadcast group was joined through the SA; the Q_Key and MTU come from
# the SA's MCMemberRecord (OpenSM's defaults for an ipoib partition with
# no mtu or rate set: Q_Key 0x0b1b, MTU 2048, so an interface MTU of
# 2044; osm_base.h); ARP and ND; ping IPv4 and IPv6 both
# ways between every pair of the three hosts; the path table holds the
# peers' paths with their LIDs, as the SA answered them; the SA lists the
# three ports as members of the broadcast group; a group one host joined
# (239.1.1.1) is created through the SA and gets every datagram another
# host sends to it. Connected mode (RFC 4755) over softib's RC between
# n1 and n2: a 60000-byte ping with DF each way goes whole, one
# connection made and one accepted on each side, and iperf3 TCP runs.

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

load_softib
softib_hosts
softib_addrs 3

log "no SM yet: the ports are INIT, no interface has a carrier"
sleep 3
grep -q INIT /sys/class/infiniband/softib1/ports/1/state ||
	fail "softib1 port 1 is not INIT before the SM"
! has_carrier n1 "$IB1" || fail "$IB1 has a carrier without an SM"
! has_carrier n2 "$IB2" || fail "$IB2 has a carrier without an SM"

start_opensm
wait_for 60 "carrier on $IB0" sh -c "ip -o link show dev $IB0 | grep -q LOWER_UP"
wait_for 60 "carrier on $IB1 in n1" has_carrier n1 "$IB1"
wait_for 60 "carrier on $IB2 in n2" has_carrier n2 "$IB2"

log "the MTU from the SA's MCMemberRecord"
ip -n n1 -d link show dev "$IB1"
sa_mcmr ff12:401b:ffff::ffff:ffff
cat /tmp/mcm.out
for g in fe80::200:0:0:101 fe80::200:0:0:201 fe80::200:0:0:301; do
	expect_lines /tmp/mcm.out "PortGid\.+$g\$"
done
mtu_code=$(sed -n 's/^[[:space:]]*mtu\.*//p' /tmp/mcm.out | head -n1)
qkey=$(sed -n 's/^[[:space:]]*qkey\.*//p' /tmp/mcm.out | head -n1)
log "broadcast group: MTU code ${mtu_code:-?}, Q_Key ${qkey:-?}"
# IBA MTU codes 1..5 are 256..4096; the IPoIB MTU is 4 bytes less
# (RFC 4391 s5), in datagram mode the interface's ceiling.
mtu_code=$(( ${mtu_code:-0} & 0x3f ))
[[ $mtu_code -ge 1 && $mtu_code -le 5 ]] || fail "MCMemberRecord MTU '$mtu_code'"
want=$(( (128 << mtu_code) - 4 ))
mtu=$(ip -n n1 -o link show dev "$IB1" | sed -n 's/.* mtu \([0-9]*\) .*/\1/p')
[[ $mtu == "$want" ]] || fail "$IB1: MTU $mtu, the SA's group says $want"

log "ping between the three hosts"
wait_for 60 "ping n1 -> 10.3.0.2" ping_works n1 10.3.0.2
check_ping n1 10.3.0.2
check_ping n2 10.3.0.1
check_ping n1 10.3.0.10
check_ping n2 10.3.0.10
wait_for 60 "ping n1 -> fd03::2" ping_works n1 fd03::2
check_ping n1 fd03::2
check_ping n2 fd03::1
check_ping n2 fd03::10
check_neigh n1 "$IB1" 10.3.0.2
check_neigh n2 "$IB2" fd03::1
log "\$ ping -c 3 10.3.0.1 (initial namespace)"
ping -c 3 -i 0.3 -W 5 10.3.0.1 || fail "ping 10.3.0.1 from the initial namespace"

log "paths from the SA: softib2's LID in n1's path to it"
lid2=$(port_field softib2 "Base lid")
cat "$(ipoib_debugfs softib1)/path"
line=$(path_line softib1 fe80:0000:0000:0000:0200:0000:0000:0301) ||
	fail "$IB1: no path to softib2's GID"
log "path: $line"
[[ $line == *"state "* && $line == *" dlid $(printf '0x%04x' "$lid2")"* ]] ||
	fail "$IB1: the path to softib2 is not by its LID $lid2"

log "the Q_Key from the SA's MCMemberRecord (OpenSM's 0x0b1b)"
CTL=$VM_REPO/build/userspace/ipoibctl
[[ -x $CTL ]] || fail "$CTL: not built (make ipoibctl)"
ip netns exec n1 "$CTL" show "$IB1" | tee /tmp/show.out
expect_lines /tmp/show.out "qkey 0x0*b1b"
[[ $qkey =~ 0x0*b1b ]] || fail "the SA's broadcast group has Q_Key '$qkey'"

log "multicast: n1 joins 239.1.1.1, the initial namespace sends to it"
# n1's FullMember join creates the group (RFC 4391 s4: ff12:401b:ffff::
# and the group's low 28 bits); OpenSM programs the switch's MFT.
mc_delivers n1 "$IB1" "" "$IB0" 239.1.1.1 \
	wait_for 30 "softib1 in the SA's group of 239.1.1.1" \
	sa_member ff12:401b:ffff::f01:101 fe80::200:0:0:201

log "connected mode between n1 and n2 over RC"
check ip -n n1 link set dev "$IB1" type ipoib mode connected
check ip -n n2 link set dev "$IB2" type ipoib mode connected
ip -n n1 -d link show dev "$IB1" | tee /tmp/link.out
expect_lines /tmp/link.out "mode connected" "mtu 65520 "
wait_for 60 "a 60000-byte ping n1 -> 10.3.0.2" ping_works n1 10.3.0.2 -s 60000 -M "do"
check_ping n1 10.3.0.2 -s 60000 -M "do"
check_ping n2 10.3.0.1 -s 60000 -M "do"
iperf3_tcp_moves n2 10.3.0.2 n1 /tmp/cm-tcp.log "CM TCP n1 -> n2" -t 3
for h in "n1 $IB1" "n2 $IB2"; do
	read -r ns ifc <<< "$h"
	c=$(eth_stat "$ns" "$ifc" cm_connects)
	a=$(eth_stat "$ns" "$ifc" cm_accepts)
	t=$(eth_stat "$ns" "$ifc" cm_tx_packets)
	log "$ifc: cm_connects $c cm_accepts $a cm_tx_packets $t"
	((c >= 1 && a >= 1 && t >= 3)) || fail "$ifc: no connection each way"
done

osm_allow_sendonly ffff
stop_opensm
unload_ipoib
unload_softib
log "ib-ping: PASS"
