#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pkey: P_Key children through iproute2 (netlink) and sysfs, partition
# isolation over soft-RoCE, children in and across namespaces, and
# children going away with their port.
#
#   (a) netlink: `ip link add link ib0 ... type ipoib pkey P`, `ip -d link`
#       (JSON) shows pkey/mode/umcast for parents and children alike,
#       changelink (umcast), and the extack message of every bad input
#   (b) sysfs: create_child/delete_child/mode/umcast/pkey, the ib_ipoib
#       names and formats; a child created there also shows in `ip -d`
#   (c) isolation: two partitions on each side; each pair talks; across
#       partitions neither a broadcast (ARP) nor a unicast to the other
#       partition's QPN (static neighbour) arrives: tcpdump on the far side
#       sees nothing, while the sender's tx counter proves it sent; nor
#       does connected mode carry frames across (RoCE children take no
#       connected mode: RC has no Q_Key)
#   (d) namespaces: a child made from n1 straight into n3 (link-netnsid),
#       moved back and forth between n3 and n1, pinging each time
#   (e) `ip link delete` removes a child but not a port interface;
#       `rdma link delete` removes a port's children in every namespace;
#       rmmod with children left is clean (guest.sh checks kmemleak)
#
#  +---------------- n1 ----------------+   +---------------- n2 ----------------+
#  | $IB1          10.1.0.1   (ffff)    |   | $IB2          10.1.0.2   (ffff)    |
#  | c1a  (netlink) 10.81.0.1 (8001)    |   | c2a (netlink)  10.81.0.2 (8001)    |
#  | $IB1.8002 (sysfs) 10.82.0.1 (8002) |   | $IB2.8002 (sysfs) 10.82.0.2 (8002) |
#  +------------------------------------+   +------------------------------------+
#             rxe0 -- va <=== veth ===> vb -- rxe1   (initial namespace)

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

setup_ipoib_netns_pair
check_ping n1 10.1.0.2

# ipoib_info NS IF: "<kind> <pkey> <mode> <umcast>" from ip -j -d link.
ipoib_info() {
	ip -n "$1" -j -d link show dev "$2" |
		jq -r '.[0].linkinfo | "\(.info_kind) \(.info_data.key) \(.info_data.mode) \(.info_data.umcast)"'
}

# expect_info NS IF WANT: ipoib_info must print WANT.
expect_info() {
	local got
	got=$(ipoib_info "$1" "$2")
	log "ip -d link $2 in $1: $got"
	[[ $got == "$3" ]] || fail "$2 in $1: ip -d link says '$got', expected '$3'"
}

# -------------------------------------------------------------------------
kmsg "(a) netlink children, ip -d link, changelink, extack"
expect_info n1 "$IB1" "ipoib 0xffff datagram 0000"
check ip -n n1 link add link "$IB1" name c1a type ipoib pkey 0x8001
# Without the full-member bit: the driver sets it (IBA s10.9.1.2).
check ip -n n2 link add link "$IB2" name c2a type ipoib pkey 0x0001 mode datagram
expect_info n1 c1a "ipoib 0x8001 datagram 0000"
expect_info n2 c2a "ipoib 0x8001 datagram 0000"
ip -n n1 -d link show dev c1a
ip -n n1 -o link show dev c1a | grep -q "c1a@$IB1:" || fail "c1a does not show as c1a@$IB1"
[[ $(sysfs_read n1 /sys/class/net/c1a/pkey) == 0x8001 ]] || fail "c1a: sysfs pkey is not 0x8001"
# The child's own QP: its QPN differs from the parent's, the GID is the port's.
a1=$(link_addr n1 "$IB1")
c1=$(link_addr n1 c1a)
log "$IB1 $a1, c1a $c1"
[[ ${a1:12} == "${c1:12}" ]] || fail "c1a does not carry the port's GID"
[[ ${a1:0:11} != "${c1:0:11}" ]] || fail "c1a shares its parent's QPN"
check ip -n n1 link set c1a type ipoib umcast 1
expect_info n1 c1a "ipoib 0x8001 datagram 0001"
check ip -n n1 link set c1a type ipoib umcast 0
expect_info n1 c1a "ipoib 0x8001 datagram 0000"

expect_error "P_Key 0x0000 and 0x8000 are invalid" \
	ip -n n1 link add link "$IB1" name bad type ipoib pkey 0x8000
expect_error "P_Key 0x0000 and 0x8000 are invalid" \
	ip -n n1 link add link "$IB1" name bad type ipoib pkey 0
expect_error "the parent is a P_Key child itself" \
	ip -n n1 link add link c1a name bad type ipoib pkey 0x8003
# Connected mode (RFC 4755) on RoCE is for the default partition only: RC
# has no Q_Key, which is what keeps RoCE partitions apart (review H2). At
# creation the child is made, in datagram mode, with the reason as a
# warning; cm.sh covers connected mode on the default partition.
out=$(ip -n n1 link add link "$IB1" name c1m type ipoib pkey 0x8003 mode connected 2>&1) ||
	fail "ip link add c1m: $out"
log "ip link add c1m ... mode connected: $out"
[[ $out == *"connected mode on RoCE is for the default partition only"* ]] ||
	fail "no warning for connected mode on a RoCE child"
expect_info n1 c1m "ipoib 0x8003 datagram 0000"
[[ $(link_addr n1 c1m | cut -c1-2) == 00 ]] || fail "c1m's address has the C bit"
check ip -n n1 link del c1m
expect_error "umcast is 0 or 1" \
	ip -n n1 link add link "$IB1" name bad type ipoib pkey 0x8003 umcast 2
expect_error "a P_Key child needs a parent" \
	ip -n n1 link add name bad type ipoib pkey 0x8003
expect_error "the parent is not an ipoib_ng interface" \
	ip -n n1 link add link lo name bad type ipoib pkey 0x8003
expect_error "the P_Key of an interface cannot change" \
	ip -n n1 link set c1a type ipoib pkey 0x8005
expect_error "connected mode on RoCE is for the default partition only" \
	ip -n n1 link set c1a type ipoib mode connected
expect_info n1 c1a "ipoib 0x8001 datagram 0000"
check ip -n n1 link set c1a type ipoib mode datagram
check_fails ip -n n1 link show dev bad

# -------------------------------------------------------------------------
kmsg "(b) sysfs: create_child, delete_child, mode, umcast"
check sysfs_write n1 "/sys/class/net/$IB1/create_child" 0x8002
check sysfs_write n2 "/sys/class/net/$IB2/create_child" 0x8002
expect_info n1 "$IB1.8002" "ipoib 0x8002 datagram 0000"
expect_info n2 "$IB2.8002" "ipoib 0x8002 datagram 0000"
[[ $(sysfs_read n1 "/sys/class/net/$IB1.8002/mode") == datagram ]] || fail "mode is not datagram"
check_fails sysfs_write n1 "/sys/class/net/$IB1.8002/mode" connected
[[ $(sysfs_read n1 "/sys/class/net/$IB1.8002/mode") == datagram ]] || fail "mode is not datagram"
expect_info n1 "$IB1.8002" "ipoib 0x8002 datagram 0000"
check_fails sysfs_write n1 "/sys/class/net/$IB1.8002/mode" bogus
check sysfs_write n1 "/sys/class/net/$IB1.8002/mode" datagram
check sysfs_write n1 "/sys/class/net/$IB1.8002/umcast" 1
[[ $(sysfs_read n1 "/sys/class/net/$IB1.8002/umcast") == 1 ]] || fail "umcast did not stick"
expect_info n1 "$IB1.8002" "ipoib 0x8002 datagram 0001"
check sysfs_write n1 "/sys/class/net/$IB1.8002/umcast" 0
check_fails sysfs_write n1 "/sys/class/net/$IB1/create_child" 0x8000
check_fails sysfs_write n1 "/sys/class/net/$IB1/create_child" 0x10000
check_fails sysfs_write n1 "/sys/class/net/$IB1/create_child" 0x8002	# exists
# Children have no children (as in ib_ipoib): no create_child file.
check_fails ns_exec n1 test -e /sys/class/net/c1a/create_child
check ns_exec n1 test -e /sys/class/net/c1a/umcast
# delete_child removes what create_child made, not netlink children.
check_fails sysfs_write n1 "/sys/class/net/$IB1/delete_child" 0x8001
check sysfs_write n1 "/sys/class/net/$IB1/create_child" 0x7ff0
check ip -n n1 link show dev "$IB1.7ff0"
check sysfs_write n1 "/sys/class/net/$IB1/delete_child" 0x7ff0
check_fails ip -n n1 link show dev "$IB1.7ff0"

# -------------------------------------------------------------------------
kmsg "(c) partition isolation"
for args in "n1 c1a 10.81.0.1" "n2 c2a 10.81.0.2" \
	"n1 $IB1.8002 10.82.0.1" "n2 $IB2.8002 10.82.0.2"; do
	read -r ns ifc addr <<< "$args"
	check ns_exec "$ns" sysctl -qw "net/ipv6/conf/$ifc/disable_ipv6=1"
	check ip -n "$ns" link set dev "$ifc" up
	wait_for 30 "carrier on $ifc in $ns" has_carrier "$ns" "$ifc"
	check ip -n "$ns" addr add "$addr/24" dev "$ifc"
done
check_ping n1 10.81.0.2
check_ping n2 10.81.0.1
check_ping n1 10.82.0.2
check_ping n2 10.82.0.1
check_ping n1 10.1.0.2
# Each child joined its own partition's broadcast group (P_Key in the MGID).
grep -q "^ff12:401b:8001:0000:0000:0000:ffff:ffff .*broadcast" \
	"$(ipoib_debugfs rxe0 1 8001)/mcg" || fail "c1a is not in the 0x8001 broadcast group"
grep -q "^ff12:401b:8002:0000:0000:0000:ffff:ffff .*broadcast" \
	"$(ipoib_debugfs rxe1 1 8002)/mcg" || fail "$IB2.8002 is not in the 0x8002 broadcast group"

# Across partitions: c1a (0x8001) in n1, $IB2.8002 in n2, one subnet. n2
# answers ARP only on the interface that has the address: else c2a, in
# 0x8001, answers for its sibling (weak host model) and the ping goes
# within 0x8001.
check ns_exec n2 sysctl -qw net.ipv4.conf.all.arp_ignore=1
check ip -n n1 addr add 10.83.0.1/24 dev c1a
check ip -n n2 addr add 10.83.0.2/24 dev "$IB2.8002"
far=$(link_addr n2 "$IB2.8002")
# timeout ends it (124): no failure of the job's own to report.
(ns_exec n2 timeout 20 tcpdump -n -p -l -i "$IB2.8002" 'arp or icmp' \
	> /tmp/far.txt 2> /tmp/far.err || true) &
tpid=$!
sleep 3
ping_fails_cleanly n1 10.83.0.2	# ARP to the 0x8001 broadcast group
check ip -n n1 neigh replace 10.83.0.2 lladdr "$far" dev c1a nud permanent
tx0=$(if_stat n1 c1a tx_packets)
ping_fails_cleanly n1 10.83.0.2	# unicast to 0x8002's QPN, 0x8001's Q_Key
tx1=$(if_stat n1 c1a tx_packets)
log "c1a sent $((tx1 - tx0)) frames to $IB2.8002's QPN"
((tx1 - tx0 >= 3)) || fail "c1a did not send its echo requests"
wait "$tpid" || true
log "tcpdump on $IB2.8002: $(tr '\n' ' ' < /tmp/far.err)"
if grep -q 10.83.0.1 /tmp/far.txt; then
	cat /tmp/far.txt
	fail "a frame from partition 0x8001 arrived in partition 0x8002"
fi
sed "s/^/  tcpdump: /" /tmp/far.txt
grep -q "listening on $IB2.8002" /tmp/far.err || fail "tcpdump did not run on $IB2.8002"
# The pairs still talk.
check_ping n1 10.81.0.2
check_ping n1 10.82.0.2

# Review H2, reproduced at 7312acf: the default partition's interface in
# connected mode reached a child of another partition over RC, which has
# no Q_Key. Now the child takes no connected mode on RoCE (and a REQ not
# of its P_Key would be refused, KUnit roce_cm_req_other_partition): the
# REQ is rejected, the sender falls back to UD, whose Q_Key the child's
# QP refuses. 3000-byte echo requests, as in the reproduction.
kmsg "(c) connected mode does not cross partitions"
check ip -n n1 link set dev "$IB1" type ipoib mode connected
check ip -n n1 addr add 10.85.0.1/24 dev "$IB1"
check ip -n n2 addr add 10.85.0.2/24 dev "$IB2.8002"
check ip -n n1 neigh replace 10.85.0.2 lladdr "80${far:2}" dev "$IB1" nud permanent
(ns_exec n2 timeout 20 tcpdump -n -p -l -i "$IB2.8002" icmp \
	> /tmp/farc.txt 2> /tmp/farc.err || true) &
tpid=$!
sleep 3
ping_fails_cleanly n1 10.85.0.2 -s 3000
wait "$tpid" || true
grep -q "listening on $IB2.8002" /tmp/farc.err || fail "tcpdump did not run on $IB2.8002"
if grep -q 10.85.0.1 /tmp/farc.txt; then
	cat /tmp/farc.txt
	fail "connected mode carried frames from the default partition into 0x8002"
fi
[[ $(eth_stat n2 "$IB2.8002" cm_accepts) == 0 ]] || fail "$IB2.8002 accepted a connection"
log "$IB1 cm_connects $(eth_stat n1 "$IB1" cm_connects) cm_failures $(eth_stat n1 "$IB1" cm_failures); $IB2.8002 cm_accepts 0"
check ip -n n1 neigh del 10.85.0.2 dev "$IB1"
check ip -n n1 addr del 10.85.0.1/24 dev "$IB1"
check ip -n n1 link set dev "$IB1" type ipoib mode datagram
check_ping n1 10.1.0.2

# -------------------------------------------------------------------------
kmsg "(d) namespaces: a child made into n3, moved back and forth"
ns_create n3
check ip -n n1 link add link "$IB1" name c1x netns n3 type ipoib pkey 0x8004
expect_info n3 c1x "ipoib 0x8004 datagram 0000"
ip -n n3 -d link show dev c1x
ip -n n3 -o link show dev c1x | grep -q "link-netns" || fail "c1x in n3 does not name its parent's namespace"
check ip -n n2 link add link "$IB2" name c2x type ipoib pkey 0x8004
check ip -n n2 link set dev c2x up
check ip -n n2 addr add 10.84.0.2/24 dev c2x
for round in 1 2 3; do
	for ns in n3 n1; do
		if [[ $(ip -n "$ns" -o link show dev c1x 2> /dev/null) == "" ]]; then
			from=$([[ $ns == n3 ]] && echo n1 || echo n3)
			check ip -n "$from" link set dev c1x netns "$ns"
		fi
		check ip -n "$ns" link set dev c1x up
		check ip -n "$ns" addr add 10.84.0.1/24 dev c1x
		wait_for 30 "carrier on c1x in $ns" has_carrier "$ns" c1x
		check_ping "$ns" 10.84.0.2
		log "round $round: c1x in $ns talks"
	done
done

# -------------------------------------------------------------------------
kmsg "(e) deletion"
check ip -n n1 link del c1a
check_fails ip -n n1 link show dev c1a
check ip -n n1 link del "$IB1"
check ip -n n1 link show dev "$IB1"	# a port interface stays
check_ping n1 10.82.0.2
check_ping n1 10.1.0.2
# The port goes: its children go with it, whichever namespace they are in.
check ip -n n1 link set dev c1x netns n3
check rdma link delete rxe0
wait_for 30 "$IB1 to go" bash -c "! ip -n n1 link show dev $IB1"
check_fails ip -n n1 link show dev "$IB1.8002"
check_fails ip -n n3 link show dev c1x
check_fails compgen -G "/sys/kernel/debug/$IPOIB_NAME/rxe0-*"
check_dmesg_clean "rdma link delete with children"
# rmmod with n2's children still there.
check ip -n n2 link show dev c2x
unload_ipoib
check_dmesg_clean "rmmod with children"
log "pkey: all checks passed"
