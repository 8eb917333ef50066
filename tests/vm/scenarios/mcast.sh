#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mcast: IP multicast between four ipoib_ng interfaces (RFC 4391 s4, s5,
# s10), each in its own namespace, over rxe devices on one bridge.
#
#   members     n1 and n2 join 239.1.1.1 and ff05::1:1 (sockets on their
#               interfaces): `ip maddr` shows the RFC 4391 s4 hardware
#               addresses, debugfs mcg the FullMember groups, and the RoCE
#               netdev of each the MGID as an IPv6 group (what rxe needs)
#   send-only   n0 never joins: its datagrams reach every member (s10
#               SendOnlyNonMember join), its RoCE netdev joins no MGID
#   non-member  n3 sees none of it, not even with tcpdump (-p: no promisc)
#   late joiner n3 joins: the next round reaches it
#   leaver      n2 leaves: the membership, the QP attach and the RoCE
#               netdev's IPv6 group go; the next round does not reach it
#   churn       n1 joins and leaves 200 groups, 3 times, while a member's
#               traffic flows and ping runs: nothing lost on the steady
#               group, the RoCE netdev's groups and the driver's group table
#               back to where they were, joins - leaves = groups held
#   allmulti    n3 in all-multicast and promiscuous mode: on RoCE there is
#               no SA to list groups (RFC 4391 s11): said once, no
#               NonMember group, delivery unchanged
#   expiry      n0's send-only memberships are left once idle for
#               sendonly_idle_ms (10 s here)
#
#   +---- n0 ----+  +---- n1 ----+  +---- n2 ----+  +---- n3 ----+
#   | ib 10.2.0.1|  | ib 10.2.0.2|  | ib 10.2.0.3|  | ib 10.2.0.4|
#   +-----|------+  +-----|------+  +-----|------+  +-----|------+
#       rxe0            rxe1            rxe2            rxe3
#       v0a             v1a             v2a             v3a
#        |===== veth ====|===== br0 (no snooping) ======|

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

MC_TOOL="$(dirname "$0")/../mc_tool.py"
G4=239.1.1.1
G6=ff05::1:1
# RFC 4391 s4 on P_Key 0xffff with the broadcast group's scope (2):
# IPv4 ff12:401b:<pkey>::<low 28 bits>, IPv6 ff12:601b:<pkey>:<low 80 bits>.
HW4='00:ff:ff:ff:ff:12:40:1b:ff:ff:00:00:00:00:00:00:0f:01:01:01'
HW6='00:ff:ff:ff:ff:12:60:1b:ff:ff:00:00:00:00:00:00:00:01:00:01'
MGID4='ff12:401b:ffff::f01:101'	# as ip -6 maddr prints them
MGID6='ff12:601b:ffff::1:1'
DBG4='ff12:401b:ffff:0000:0000:0000:0f01:0101'	# as debugfs mcg does
DBG6='ff12:601b:ffff:0000:0000:0000:0001:0001'
ROUND=20

setup_rxe_bridge 4
# Idle send-only memberships expire after 10 s here (default 60 s).
load_ipoib sendonly_idle_ms=10000
declare -A IB
for i in 0 1 2 3; do
	ns_create "n$i"
	ipoib_attach "rxe$i" "n$i" "10.2.0.$((i + 1))/24" "fd02::$((i + 1))/64"
	IB[$i]=$IPOIB_IF
done
for i in 1 2 3; do
	wait_for 60 "ping n0 -> 10.2.0.$((i + 1))" ping_works n0 "10.2.0.$((i + 1))"
done

bg_pids=()
declare -A RECV_PID
# recv I GROUP PORT: a member socket in n<I>, its datagrams in /tmp/mc-I-GROUP.
recv() {
	local i=$1 g=$2 port=$3 out="/tmp/mc-$1-$2"
	rm -f "$out" "$out.ready"
	ip netns exec "n$i" python3 "$MC_TOOL" recv "${IB[$i]}" "$g" "$port" "$out" &
	RECV_PID[$i-$g]=$!
	bg_pids+=($!)
	wait_for 10 "member socket for $g in n$i" test -e "$out.ready"
}
recv_stop() {
	kill "${RECV_PID[$1-$2]}"
	wait "${RECV_PID[$1-$2]}" || true
}
# got I GROUP TAG: how many of round TAG reached n<I>'s socket for GROUP.
got() {
	grep -c "^$3 " "/tmp/mc-$1-$2" 2> /dev/null || true
}
# got_all I GROUP TAG COUNT: n<I> got COUNT datagrams of round TAG (a test
# for wait_for, which must run the count again each time).
got_all() {
	(($(got "$1" "$2" "$3") == $4))
}
# send I GROUP PORT TAG: one round from n<I>.
send() {
	check ip netns exec "n$1" python3 "$MC_TOOL" send "${IB[$1]}" "$2" "$3" "$4" "$ROUND"
}
# expect_all TAG I...: every member I got the whole round TAG of both groups.
expect_all() {
	local tag=$1 i g
	shift
	for i in "$@"; do
		for g in "$G4" "$G6"; do
			wait_for 10 "round $tag of $g in n$i" got_all "$i" "$g" "$tag" "$ROUND"
		done
	done
	log "round $tag: all $ROUND datagrams of $G4 and $G6 reached$(printf ' n%s' "$@")"
}
round() {
	local tag=$1
	send 0 "$G4" 5001 "$tag"
	send 0 "$G6" 5002 "$tag"
}

# sniff_start I: tcpdump -p on n<I>'s interface, the test's UDP ports only.
sniff_start() {
	rm -f "/tmp/sniff-$1.pcap" "/tmp/sniff-$1.err"
	ip netns exec "n$1" timeout 120 tcpdump -p -U -i "${IB[$1]}" -nn \
		-w "/tmp/sniff-$1.pcap" 'udp port 5001 or udp port 5002' \
		2> "/tmp/sniff-$1.err" &
	SNIFF_PID=$!
	wait_for 30 "tcpdump in n$1" grep -q 'listening on' "/tmp/sniff-$1.err"
}
# sniff_count I: stop it; how many datagrams it saw.
sniff_count() {
	sleep 1
	kill "$SNIFF_PID" 2> /dev/null || true
	wait "$SNIFF_PID" 2> /dev/null || true
	tcpdump -nn -r "/tmp/sniff-$1.pcap" 2> /dev/null | wc -l
}

roce_maddr() {
	ip -6 maddr show dev "v${1}a"
}
mcg() {
	cat "$(ipoib_debugfs "rxe$1")/mcg"
}
mcg_has() {
	grep -q "^$2 state $3 " <(mcg "$1")
}
# ethstat I NAME: a counter of ethtool -S on n<I>'s interface.
ethstat() {
	ip netns exec "n$1" ethtool -S "${IB[$1]}" | awk -v k="$2:" '$1 == k { print $2 }'
}

# ---------------------------------------------------------------------------
kmsg "members n1 and n2 join $G4 and $G6"
for i in 1 2; do
	recv "$i" "$G4" 5001
	recv "$i" "$G6" 5002
done
for i in 1 2; do
	out=$(ip -n "n$i" maddr show dev "${IB[$i]}")
	echo "$out"
	grep -q "link  *$HW4\b" <<< "$out" || fail "n$i: no $HW4 (RFC 4391 s4 form of $G4) in ip maddr"
	grep -q "link  *$HW6\b" <<< "$out" || fail "n$i: no $HW6 (RFC 4391 s4 form of $G6) in ip maddr"
	wait_for 10 "n$i: $DBG4 joined (debugfs mcg)" mcg_has "$i" "$DBG4" joined
	wait_for 10 "n$i: $DBG6 joined (debugfs mcg)" mcg_has "$i" "$DBG6" joined
	mcg "$i"
	grep -q "^$DBG4 state joined want full joined full " <(mcg "$i") ||
		fail "n$i: $MGID4 is not a FullMember join"
	roce_maddr "$i"
	roce_maddr "$i" | grep -q "inet6 $MGID4\b" || fail "v${i}a: the RoCE netdev has not joined $MGID4"
	roce_maddr "$i" | grep -q "inet6 $MGID6\b" || fail "v${i}a: the RoCE netdev has not joined $MGID6"
done
for i in 0 3; do
	! roce_maddr "$i" | grep -q "inet6 $MGID4\b" || fail "v${i}a joined $MGID4, but n$i has no member"
	! mcg "$i" | grep -q "^$DBG4 " || fail "n$i holds $DBG4 before sending to it"
done

kmsg "send-only: n0 (no member) sends to both groups; n3 is no member"
sniff_start 3
round A
expect_all A 1 2
seen=$(sniff_count 3)
((seen == 0)) || fail "n3, not a member, received $seen datagrams of the groups"
log "n3 (not a member) saw none of them"
mcg 0
for m in "$DBG4" "$DBG6"; do
	grep -q "^$m state joined want sendonly joined sendonly " <(mcg 0) ||
		fail "n0: $m is not a SendOnlyNonMember join"
done
# s10: a send-only member is not attached: nothing is routed to it.
! roce_maddr 0 | grep -q "inet6 $MGID4\b\|inet6 $MGID6\b" ||
	fail "v0a joined an MGID for a send-only membership"

kmsg "late joiner: n3 joins"
recv 3 "$G4" 5001
recv 3 "$G6" 5002
wait_for 10 "n3: $DBG4 joined" mcg_has 3 "$DBG4" joined
wait_for 10 "n3: $DBG6 joined" mcg_has 3 "$DBG6" joined
round B
expect_all B 1 2 3

kmsg "leaver: n2 leaves both groups"
recv_stop 2 "$G4"
recv_stop 2 "$G6"
gone2() {
	! mcg 2 | grep -q "^$DBG4 \|^$DBG6 " &&
		! roce_maddr 2 | grep -q "inet6 $MGID4\b\|inet6 $MGID6\b"
}
wait_for 10 "n2's memberships, attach and RoCE netdev groups to go" gone2
ip -n n2 maddr show dev "${IB[2]}" | grep -q "$HW4\|$HW6" && fail "n2: ip maddr still lists the groups"
sniff_start 2
round C
expect_all C 1 3
seen=$(sniff_count 2)
((seen == 0)) || fail "n2 left, yet received $seen datagrams of the groups"
[[ $(got 2 "$G4" C) == 0 ]] || fail "n2's closed socket file grew"
log "n2 (left) saw none of round C"

kmsg "churn: n1 joins and leaves 200 groups 3 times under traffic"
check ip netns exec n1 sysctl -qw net.ipv4.igmp_max_memberships=512
before_roce=$(roce_maddr 1 | sort)
# FullMember groups only: idle send-only memberships expire meanwhile.
full_groups() {
	mcg 1 | awk '$5 == "full" { print $1, $3, $7 }' | sort
}
before_mcg=$(full_groups)
ip netns exec n0 python3 "$MC_TOOL" send "${IB[0]}" "$G4" 5001 D 200 0.05 &
sender=$!
bg_pids+=("$sender")
ip netns exec n1 timeout 120 ping -q -c 40 -i 0.25 10.2.0.1 > /tmp/mc-ping.txt 2>&1 &
pinger=$!
bg_pids+=("$pinger")
# 239.3.0.1 .. 239.3.0.200. nsenter, not ip netns exec, which mounts a
# sysfs of n1 over /sys and hides debugfs from the tool.
nsenter --net=/run/netns/n1 timeout 300 python3 "$MC_TOOL" churn "${IB[1]}" 239.3 200 3 1 \
	"$(ipoib_debugfs rxe1)/mcg" > /tmp/mc-churn.txt 2>&1 || fail "churn: $(cat /tmp/mc-churn.txt)"
cat /tmp/mc-churn.txt
(($(grep -c 'joined in the driver: 200$' /tmp/mc-churn.txt) == 3)) ||
	fail "the driver did not hold all 200 groups in every round"
wait "$sender" || fail "the sender during churn failed"
wait "$pinger" || true
cat /tmp/mc-ping.txt
grep -q ' 0% packet loss' /tmp/mc-ping.txt || fail "ping from n1 lost packets during the churn"
wait_for 10 "round D of $G4 in n1" got_all 1 "$G4" D 200
wait_for 10 "round D of $G4 in n3" got_all 3 "$G4" D 200
log "all 200 datagrams of round D reached n1 and n3 during the churn"
settled() {
	[[ $(roce_maddr 1 | sort) == "$before_roce" &&
		$(full_groups) == "$before_mcg" ]]
}
wait_for 20 "v1a's IPv6 groups and n1's group table back to before the churn" settled
log "n1 after the churn: $(mcg 1 | wc -l) groups, v1a: $(roce_maddr 1 | grep -c inet6) IPv6 groups"
# A snapshot: the group table read between two equal readings of the
# counters (idle send-only memberships expire on their own, any time).
for ((try = 0; try < 5; try++)); do
	joins=$(ethstat 1 mc_joins)
	leaves=$(ethstat 1 mc_leaves)
	held=$(mcg 1 | grep -c ' state joined ')
	[[ $(ethstat 1 mc_joins) == "$joins" && $(ethstat 1 mc_leaves) == "$leaves" ]] && break
	log "n1's join/leave counters moved while reading the group table: again"
done
((try < 5)) || fail "n1's join/leave counters never stood still for a snapshot"
log "n1: mc_joins $joins, mc_leaves $leaves, joined now $held, mc_failures $(ethstat 1 mc_failures)"
((joins >= 600)) || fail "n1: only $joins joins counted for 3 x 200 groups"
((joins - leaves == held)) || fail "n1: mc_joins - mc_leaves = $((joins - leaves)), but $held groups are joined"
[[ $(ethstat 1 mc_failures) == 0 ]] || fail "n1: multicast join failures during the churn"

kmsg "members still served after the churn"
round E
expect_all E 1 3

# RFC 4391 s11 needs the SA's list of groups; RoCE has none: all-multicast
# mode is accepted, said once, and changes no membership.
kmsg "all-multicast mode on RoCE"
check ip -n n3 link set dev "${IB[3]}" allmulticast on
check ip -n n3 link set dev "${IB[3]}" promisc on
wait_for 10 "the all-multicast message" \
	grep -q "${IB[3]}: all-multicast: RoCE has no SA" <(dmesg)
((  $(dmesg | grep -c "${IB[3]}: all-multicast: RoCE has no SA") == 1 )) ||
	fail "the RoCE all-multicast message was not said once"
! mcg 3 | grep ' want non' || fail "NonMember groups on RoCE"
round F
expect_all F 1 3
check ip -n n3 link set dev "${IB[3]}" promisc off
check ip -n n3 link set dev "${IB[3]}" allmulticast off

# s10 send-only memberships are left when idle (sendonly_idle_ms).
kmsg "n0's idle send-only memberships expire"
leaves=$(ethstat 0 mc_leaves)
sendonly_gone() {
	! mcg 0 | grep -q "^$DBG4 \|^$DBG6 "
}
wait_for 40 "n0's send-only memberships of $G4 and $G6 to expire" sendonly_gone
(($(ethstat 0 mc_leaves) >= leaves + 2)) ||
	fail "n0: mc_leaves $(ethstat 0 mc_leaves), expected at least $((leaves + 2))"
log "n0 left both idle send-only groups, mc_leaves $leaves -> $(ethstat 0 mc_leaves)"

for p in "${bg_pids[@]}"; do
	kill "$p" 2> /dev/null || true
	wait "$p" 2> /dev/null || true
done
check_dmesg_clean "mcast"
log "mcast: PASS"
