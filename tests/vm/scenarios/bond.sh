#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bond: the hardware address (RFC 4391 s9.1.1: flags, QPN, a GID of the
# port) when the administrator picks another of the port's GIDs or the
# port's GIDs change, and bonding active-backup over two interfaces.
#
#   (a) `ip link set IF address A`: refused while up (EBUSY), with another
#       QPN (EINVAL) and with a GID the port does not have
#       (EADDRNOTAVAIL); accepted down with the RoCE GID of fd77::1, an
#       address of v0a. Up again, ping works and n2's neighbour entry
#       holds the new address.
#   (b) fd77::1 leaves v0a, and its GID the port: the interface goes back
#       to GID index 0 by itself and announces it, so n2's neighbour entry
#       follows at once. v0a's MAC changes (down, new MAC, up), and with
#       it GID index 0: the address follows again, announced when the
#       carrier is back.
#   (c) bonding: bond0, active-backup over $IB0 and $IB1 (bonding forces
#       fail_over_mac active for InfiniBand: the bond takes the active
#       slave's address). n2 pings the bond while the active slave's link
#       fails (its veth goes down): a few losses at most, and n2's
#       neighbour entry holds the new active slave's address. And back.
#   (d) the active slave's own address changes ($IB0, given fd78::1's
#       GID out of the bond and made active again, loses it): the bond takes the new address (bonding
#       itself would not until a failover) and announces it, so that n2's
#       neighbour entry follows within 5 s, with no failover.
#
#  +----------- n1 -----------+        +------ n2 ------+
#  | bond0 10.1.0.1 (in c)    |        | $IB2 10.1.0.2  |
#  |   $IB0 ($IB0 in a, b)    |        |                |
#  |   $IB1                   |        |                |
#  +--------------------------+        +----------------+
#    rxe0-v0a   rxe1-v1a   ===  br0  ===   v2a-rxe2   (initial namespace)

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

setup_rxe_bridge 3
load_ipoib
IB0=$(wait_ipoib_if rxe0)
IB1=$(wait_ipoib_if rxe1)
IB2=$(wait_ipoib_if rxe2)
log "rxe0 -> $IB0, rxe1 -> $IB1, rxe2 -> $IB2"
ns_create n1 n2
ns_move "$IB0" n1
ns_move "$IB1" n1
ns_move "$IB2" n2
for a in "n1 $IB0 10.1.0.1" "n2 $IB2 10.1.0.2"; do
	read -r ns ifc ip4 <<< "$a"
	check ip -n "$ns" link set dev "$ifc" up
	wait_for 30 "carrier on $ifc in $ns" has_carrier "$ns" "$ifc"
	check ip -n "$ns" addr add "$ip4/24" dev "$ifc"
done
check_ping n1 10.1.0.2

# expect_neigh NS IF IP WANT: within 5 s (announcements, not NUD probes,
# which take far longer), NS's neighbour entry for IP holds WANT.
expect_neigh() {
	local got
	if ! wait_for_quiet 5 neigh_is "$@"; then
		got=$(neigh_lladdr "$1" "$2" "$3")
		fail "$1's neighbour $3 on $2 is '${got:-none}', expected $4"
	fi
	log "neighbour $3 in $1: $4"
}

neigh_is() {
	[[ $(neigh_lladdr "$1" "$2" "$3") == "$4" ]]
}


# For wait_for, which runs a command again and again: the tests, not their
# values, must be its arguments.
addr_is() {
	[[ $(link_addr "$1" "$2") == "$3" ]]
}
gid_at() {
	[[ $(gid_index "$1" "$2") == "$3" ]]
}

# gid_addr ADDR GID: ADDR's first 4 bytes (flags, QPN) and GID (sysfs form).
gid_addr() {
	echo "${1:0:11}:$(gid_bytes "$2")"
}

# --- (a) choosing another GID of the port --------------------------------
ADDR0=$(link_addr n1 "$IB0")
log "$IB0: $ADDR0"
check_neigh n2 "$IB2" 10.1.0.1
expect_neigh n2 "$IB2" 10.1.0.1 "$ADDR0"

# fd77::1 on v0a (and fd77::3 on v2a, routed as another host's, for rxe2
# to resolve it): rxe0 gets a GID for it.
route_rxe_as_hosts 192.168.77 fd77 v0a:1 v2a:3
GID77=fd77:0000:0000:0000:0000:0000:0000:0001
wait_for 10 "the GID of fd77::1 on rxe0" gid_index rxe0 "$GID77"
IDX77=$(gid_index rxe0 "$GID77")
ADDR77=$(gid_addr "$ADDR0" "$GID77")
log "rxe0 has $GID77 at index $IDX77"

expect_error "busy" ip -n n1 link set dev "$IB0" address "$ADDR77"
check ip -n n1 link set dev "$IB0" down
other_qpn=$(printf '00:%02x%s' $(((0x${ADDR0:3:2} + 1) % 256)) "${ADDR77:5}")
expect_error "Invalid argument" ip -n n1 link set dev "$IB0" address "$other_qpn"
expect_error "Cannot assign requested address" ip -n n1 link set dev "$IB0" \
	address "$(gid_addr "$ADDR0" fd77:0000:0000:0000:0000:0000:0000:0099)"
expect_error "Invalid argument" ip -n n1 link set dev "$IB0" \
	address "$(gid_addr "$ADDR0" ff12:401b:ffff:0000:0000:0000:0000:0001)"
[[ $(link_addr n1 "$IB0") == "$ADDR0" ]] || fail "a refused address changed $IB0"
check ip -n n1 link set dev "$IB0" address "$ADDR77"
check ip -n n1 link set dev "$IB0" up
wait_for 30 "carrier on $IB0" has_carrier n1 "$IB0"
[[ $(link_addr n1 "$IB0") == "$ADDR77" ]] ||
	fail "$IB0 is $(link_addr n1 "$IB0") after up, expected $ADDR77"
check_ping n1 10.1.0.2
expect_neigh n2 "$IB2" 10.1.0.1 "$ADDR77"
check_ping n2 10.1.0.1
check_dmesg_clean "(a) choosing GID index $IDX77"

# --- (b) the port's GIDs change under the interface ----------------------
kmsg "(b) fd77::1 leaves v0a"
check ip addr del fd77::1/64 dev v0a
wait_for 10 "$IB0 back on GID index 0" addr_is n1 "$IB0" "$ADDR0"
expect_neigh n2 "$IB2" 10.1.0.1 "$ADDR0"
check_ping n2 10.1.0.1
dmesg | grep -q "$IB0: GID fd77::1 left the port's GID table" ||
	fail "no message that the chosen GID left the port"

kmsg "(b) v0a gets another MAC"
# What reaches n2 meanwhile, shown if n2 does not follow.
ip netns exec n2 timeout 60 tcpdump -l -i "$IB2" -nn -e 'arp or icmp' \
	> "$VM_OUT/tcpdump-$IB2.txt" 2> /tmp/tcpdump-b.err &
tcpdump_pid=$!
wait_for 30 "tcpdump to listen" grep -q 'listening on' /tmp/tcpdump-b.err
check ip link set dev v0a down
check ip link set dev v0a address 02:77:00:00:00:01
check ip link set dev v0a up
rxe_wait_active rxe0
GIDMAC=fe80:0000:0000:0000:0077:00ff:fe00:0001
wait_for 10 "rxe0 GID index 0 from the new MAC" gid_at rxe0 "$GIDMAC" 0
ADDRMAC=$(gid_addr "$ADDR0" "$GIDMAC")
wait_for 10 "$IB0 on the new GID" addr_is n1 "$IB0" "$ADDRMAC"
wait_for 30 "carrier on $IB0" has_carrier n1 "$IB0"
# The driver announces the new address 3 times, 1 s apart, from the
# carrier-up: n2's entry must follow within 5 s, before its own probes
# would find the address (a broadcast request once its unicast probes of
# the old address fail). On a failure, what n2 received and what n1 sent.
if ! wait_for_quiet 5 neigh_is n2 "$IB2" 10.1.0.1 "$ADDRMAC"; then
	log "no announcement of $IB0's new address reached n2 in 5 s"
	kill "$tcpdump_pid" 2> /dev/null
	cat "$VM_OUT/tcpdump-$IB2.txt" /tmp/tcpdump-b.err
	ip -n n2 neigh show dev "$IB2"
	ip netns exec n1 ethtool -S "$IB0" | grep -v ': 0$'
	cat "$(ipoib_debugfs rxe0)/mcg" "$(ipoib_debugfs rxe2)/mcg"
	rdma statistic show link rxe0/1
	dmesg | grep -E "$IB0|$IB2|rxe0|v0a|scenario" | tail -n 30
	fail "n2 kept $(neigh_lladdr n2 "$IB2" 10.1.0.1) for 10.1.0.1: the announcements of $ADDRMAC were lost"
fi
expect_neigh n2 "$IB2" 10.1.0.1 "$ADDRMAC"
kill "$tcpdump_pid"
wait "$tcpdump_pid" || true
check_ping n2 10.1.0.1
check_dmesg_clean "(b) GID changes"

# --- (c) bonding active-backup --------------------------------------------
kmsg "(c) bonding"
check modprobe bonding
check ip -n n1 addr flush dev "$IB0"
check ip -n n1 link set dev "$IB0" down
check ip -n n1 link add bond0 type bond mode active-backup miimon 100
check ip -n n1 link set dev "$IB0" master bond0
check ip -n n1 link set dev "$IB1" master bond0
check ip -n n1 link set dev bond0 up
check ip -n n1 addr add 10.1.0.1/24 dev bond0
wait_for 30 "carrier on bond0" has_carrier n1 bond0

bond_info() {
	ip -n n1 -j -d link show dev bond0 | jq -r ".[0].linkinfo.info_data.$1"
}
active_is() {
	[[ $(bond_info active_slave) == "$1" ]]
}
[[ $(bond_info fail_over_mac) == active ]] ||
	fail "bond0 fail_over_mac is '$(bond_info fail_over_mac)', expected active"
[[ $(ip -n n1 -j link show dev bond0 | jq -r '.[0].link_type') == infiniband ]] ||
	fail "bond0 did not take the InfiniBand link type"

# failover FROM_VETH: the active slave's link fails while n2 pings the
# bond; the other slave takes over with at most a few losses, and the bond
# and n2's neighbour entry carry its address.
failover() {
	local veth=$1 old new out sent got
	old=$(bond_info active_slave)
	[[ $old == "$IB0" || $old == "$IB1" ]] || fail "bond0's active slave is '$old'"
	new=$IB1
	[[ $old == "$IB1" ]] && new=$IB0
	check_ping n2 10.1.0.1
	expect_neigh n2 "$IB2" 10.1.0.1 "$(link_addr n1 "$old")"
	log "failover: $old -> $new, by $veth down"
	(ns_exec n2 ping -n -i 0.2 -c 60 -W 1 10.1.0.1 > /tmp/bond-ping.out 2>&1 || true) &
	sleep 3
	check ip link set dev "$veth" down
	wait_for 10 "bond0 to fail over to $new" active_is "$new"
	[[ $(link_addr n1 bond0) == "$(link_addr n1 "$new")" ]] ||
		fail "bond0 is $(link_addr n1 bond0), not $new's $(link_addr n1 "$new")"
	expect_neigh n2 "$IB2" 10.1.0.1 "$(link_addr n1 "$new")"
	wait
	out=$(< /tmp/bond-ping.out)
	echo "$out" | tail -3
	sent=$(sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' <<< "$out")
	got=$(sed -n 's/.* \([0-9]*\) received.*/\1/p' <<< "$out")
	[[ -n $sent && -n $got ]] || fail "cannot read the ping summary"
	log "failover $old -> $new: $((sent - got)) of $sent echo requests lost"
	((sent - got <= 5)) || fail "failover lost $((sent - got)) of $sent (at most 5 allowed)"
	check ip link set dev "$veth" up
	wait_for 30 "$old to have carrier again" has_carrier n1 "$old"
}

if [[ $(bond_info active_slave) == "$IB0" ]]; then
	failover v0a
	failover v1a
else
	failover v1a
	failover v0a
fi
check_dmesg_clean "(c) bonding failovers"

# --- (d) the active slave's own address changes -----------------------------
# Bonding copies the active slave's address at a failover only; the driver
# gives the bond its new one, and announces it from the bond.
kmsg "(d) the active slave's GID changes"
# $IB0 out of the bond, given fd78::1's GID (only while down), back in,
# made active. Not fd77::1 again: n2 keeps its path to that GID, resolved
# in (a) to v0a's MAC of then, until the path's revalidation.
route_rxe_as_hosts 192.168.78 fd78 v0a:1 v2a:3
GID78=fd78:0000:0000:0000:0000:0000:0000:0001
wait_for 10 "the GID of fd78::1 on rxe0" gid_index rxe0 "$GID78"
ADDR78=$(gid_addr "$ADDRMAC" "$GID78")
if active_is "$IB0"; then
	wait_for 10 "bond0 to make $IB1 active" \
		ip -n n1 link set dev bond0 type bond active_slave "$IB1"
	wait_for 10 "bond0 to make $IB1 active" active_is "$IB1"
fi
check ip -n n1 link set dev "$IB0" nomaster
check ip -n n1 link set dev "$IB0" down
check ip -n n1 link set dev "$IB0" address "$ADDR78"
check ip -n n1 link set dev "$IB0" master bond0
wait_for 30 "carrier on $IB0" has_carrier n1 "$IB0"
# Refused (EINVAL) until miimon has seen $IB0's link up.
wait_for 10 "bond0 to make $IB0 active" \
	ip -n n1 link set dev bond0 type bond active_slave "$IB0"
wait_for 10 "bond0 to make $IB0 active" active_is "$IB0"
# n2 meets this address for the first time: a path to resolve.
wait_for 10 "n2 to reach bond0" ping_works n2 10.1.0.1
[[ $(link_addr n1 bond0) == "$ADDR78" ]] ||
	fail "bond0 is $(link_addr n1 bond0), not $IB0's $ADDR78"
check_ping n2 10.1.0.1
expect_neigh n2 "$IB2" 10.1.0.1 "$ADDR78"
check ip addr del fd78::1/64 dev v0a
wait_for 10 "$IB0 back on GID index 0" addr_is n1 "$IB0" "$ADDRMAC"
wait_for 10 "bond0 to take $IB0's new address" addr_is n1 bond0 "$ADDRMAC"
active_is "$IB0" || fail "bond0 failed over to $(bond_info active_slave)"
dmesg | grep -q "$IB0: bond0, whose active slave this is, takes the new address" ||
	fail "no message that bond0 took $IB0's new address"
expect_neigh n2 "$IB2" 10.1.0.1 "$ADDRMAC"
check_ping n2 10.1.0.1
check_dmesg_clean "(d) the active slave's GID change"

check ip -n n1 link delete bond0
unload_ipoib
