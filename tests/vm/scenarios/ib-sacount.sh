#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ib-sacount: what a client reregister costs the SA, ipoib_ng against the
# in-tree ib_ipoib in the same run. ib_ipoib serves softib1, ipoib_ng
# (link_kind=0 ports=softib2, "Beside ib_ipoib") softib2; each has its
# port interface and three P_Key children (0x8001-0x8003), every one of
# them up and a member of SACOUNT_GROUPS IPv4 groups. OpenSM runs on a
# fourth HCA, softib3, and is stopped and started again on softib0, as in
# ib-rereg: the new SM knows no group, and its first sweep sets
# ClientReregister on every port (IBA 14.4.11), so both drivers rejoin
# everything. (Started again on the same port, OpenSM 3.3.23 sets no
# ClientReregister: nothing was asked of the SA then.) softib counts the SA requests each port sends (QP1, class
# SubnAdm, not a response: ports/1/softib/sa_*); on softib's lossless
# fabric that is what OpenSM receives from it.
#
# Prints, for each driver: the requests in the 30 s after the new SM's
# SUBNET UP, by kind (joins, leaves, path queries, InformInfo, other),
# and by when the first join, 90% of them and all were sent (a sample a
# second; the sampling itself takes about half a second more under TCG).
# Asserts, of ipoib_ng: every FullMember group it held is held again;
# it sent at most one join for each membership it held (and one more
# per interface, for a send-only group of the stack's that came and
# went); no leave of a group the new SM never had; the joins of its
# FullMember groups are spread over more than 2 s and sent within
# rejoin_spread_ms plus 5 s. ib_ipoib is the reference:
# only that it rejoined its broadcast groups (the new SA's member records)
# is checked.

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

GROUPS_PER_IF=${SACOUNT_GROUPS:-8}
PKEYS=(8001 8002 8003)

SOFTIB_HCAS=4
load_softib
{
	echo "Default=0x7fff, ipoib : ALL=full ;"
	for pk in "${PKEYS[@]}"; do
		echo "P$pk=0x$pk, ipoib : ALL=full ;"
	done
} > /tmp/partitions.conf
osm_allow_sendonly "ffff|8001|8002|8003"
OSM_DEV=softib3
start_opensm

check modprobe ib_ipoib
wait_for 30 "ib_ipoib's interface of softib1" ib_ipoib_if softib1
load_ipoib link_kind=0 ports=softib2
IPO=$(ib_ipoib_if softib1)
NG=$(wait_ipoib_if softib2)
log "ib_ipoib: softib1 -> $IPO; ipoib_ng: softib2 -> $NG"
# Each driver's interfaces in a namespace of their own: n1 ib_ipoib's,
# n2 ipoib_ng's; the children made in the parent's namespace.
ns_create n1 n2
# autojoin holds every group on one socket of the namespace: more than
# the 20 memberships a socket may have by default.
for ns in n1 n2; do
	check ip netns exec "$ns" sysctl -qw net.ipv4.igmp_max_memberships=1024
done
ns_move "$IPO" n1
ns_move "$NG" n2
for pk in "${PKEYS[@]}"; do
	check sysfs_write n1 "/sys/class/net/$IPO/create_child" "0x$pk"
	check sysfs_write n2 "/sys/class/net/$NG/create_child" "0x$pk"
	# ib_ipoib makes its children in the initial namespace (ib-interop).
	ns_move "$IPO.$pk" n1
done
IFS_IPO=("$IPO" "${PKEYS[@]/#/$IPO.}")
IFS_NG=("$NG" "${PKEYS[@]/#/$NG.}")
# up_and_join NS IF N: IF up, a carrier, and members of 239.20.N.1-G.
up_and_join() {
	local g
	check ip -n "$1" link set dev "$2" up
	wait_for 60 "carrier on $2 in $1" has_carrier "$1" "$2"
	for ((g = 1; g <= GROUPS_PER_IF; g++)); do
		check ip -n "$1" addr add "239.20.$3.$g/32" dev "$2" autojoin
	done
}
for i in "${!IFS_IPO[@]}"; do
	up_and_join n1 "${IFS_IPO[$i]}" "$i"
	up_and_join n2 "${IFS_NG[$i]}" "$((i + 10))"
done

sa() {
	cat "/sys/class/infiniband/$1/ports/1/softib/sa_$2"
}
# ng_groups PATTERN: the groups of ipoib_ng's four interfaces whose
# debugfs line matches PATTERN.
ng_groups() {
	local pk n=0
	for pk in ffff "${PKEYS[@]}"; do
		n=$((n + $(grep -c "$1" "$(ipoib_debugfs softib2 1 "$pk")/mcg" || true)))
	done
	echo "$n"
}
ng_full() { ng_groups " joined full"; }
# settled DEV: no SA request from DEV for 3 s.
settled() {
	local a b
	a=$(sa "$1" requests)
	sleep 3
	b=$(sa "$1" requests)
	[[ $a == "$b" ]]
}
want=$((${#IFS_NG[@]} * GROUPS_PER_IF))
ng_has_groups() { (($(ng_full) >= want)); }
wait_for 60 "ipoib_ng's $want groups joined" ng_has_groups
wait_for 60 "softib1's SA requests to settle" settled softib1
wait_for 60 "softib2's SA requests to settle" settled softib2
held=$(ng_full)
# Every membership, send-only ones included (the stack's reports and
# solicitations): each is joined again after a reregister.
members=$(ng_groups " state joined ")
log "before: ipoib_ng holds $members memberships, $held FullMember, on ${#IFS_NG[@]} interfaces"
log "before: SA requests so far: softib1 $(sa softib1 requests), softib2 $(sa softib2 requests)"

kinds=(requests joins leaves paths informs)
declare -A base
for dev in softib1 softib2; do
	for k in "${kinds[@]}"; do
		base[$dev.$k]=$(sa "$dev" "$k")
	done
done

kmsg "OpenSM stopped and started again: ClientReregister on every port"
stop_opensm
OSM_LOG=$VM_OUT/opensm-2.log
OSM_DEV=softib0
start_opensm
t0=$(date +%s.%N)
# A sample a second for 30 s: how many joins each port had sent by when
# (seconds since the new SM's SUBNET UP), in /tmp/timeline.
: > /tmp/timeline
for ((s = 1; s <= 30; s++)); do
	sleep 1
	t=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	for dev in softib1 softib2; do
		echo "$t $dev $(($(sa "$dev" joins) - ${base[$dev.joins]}))" >> /tmp/timeline
	done
done
# at DEV N: when DEV's joins reached N ("-": never).
at() {
	awk -v d="$1" -v n="$2" '$2 == d && $3 >= n { print $1; f = 1; exit } END { if (!f) print "-" }' /tmp/timeline
}

# "other": ib_sa's own requests (ClassPortInfo after an SM change).
fmt='%-10s %-8s %9s %6s %7s %6s %8s %6s %7s %7s %7s\n'
# shellcheck disable=SC2059 # the format is the one above
printf "$fmt" driver port requests joins leaves paths informs other \
	join1_s join90_s joinN_s | tee /tmp/sacount.txt
row() {
	local drv=$1 dev=$2 k v=() other
	for k in "${kinds[@]}"; do
		v+=("$(($(sa "$dev" "$k") - ${base[$dev.$k]}))")
	done
	other=$((v[0] - v[1] - v[2] - v[3] - v[4]))
	# shellcheck disable=SC2059
	printf "$fmt" "$drv" "$dev" "${v[@]}" "$other" "$(at "$dev" 1)" \
		"$(at "$dev" $(((v[1] * 9 + 9) / 10)))" "$(at "$dev" "${v[1]}")" |
		tee -a /tmp/sacount.txt
}
row ib_ipoib softib1
row ipoib_ng softib2
cp /tmp/sacount.txt /tmp/timeline "$VM_OUT/" 2> /dev/null || true

kmsg "ipoib_ng rejoined every group, once, spread in time"
ng_back() { (($(ng_full) >= held)); }
wait_for 30 "ipoib_ng's $held groups held again" ng_back
joins=$(($(sa softib2 joins) - ${base[softib2.joins]}))
leaves=$(($(sa softib2 leaves) - ${base[softib2.leaves]}))
((joins >= held)) || fail "ipoib_ng: $joins joins for $held FullMember groups"
((joins <= members + ${#IFS_NG[@]})) ||
	fail "ipoib_ng: $joins joins for $members memberships (at most $((members + ${#IFS_NG[@]})))"
((leaves == 0)) || fail "ipoib_ng: $leaves leaves sent to an SM that knows no group"
# By when the port had sent as many joins as ipoib_ng held FullMember
# groups (send-only and broadcast joins count too, so this is no later
# than its last FullMember join): spread, and within rejoin_spread_ms
# (plus the sampling's and the SM's seconds).
t1=$(at softib2 1)
tall=$(at softib2 "$held")
limit=$(( $(< "/sys/module/$IPOIB_NAME/parameters/rejoin_spread_ms") / 1000 + 5 ))
[[ $tall != - ]] || fail "ipoib_ng: fewer than $held joins in 30 s"
awk -v a="$t1" -v b="$tall" 'BEGIN { exit !(b - a > 2) }' ||
	fail "ipoib_ng's $held joins came within $t1..$tall s: not spread"
awk -v b="$tall" -v m="$limit" 'BEGIN { exit !(b <= m) }' ||
	fail "ipoib_ng's $held joins took until $tall s, more than $limit s"
log "ipoib_ng: $joins joins for $members memberships, the $held FullMember ones from $t1 to $tall s"

kmsg "ib_ipoib rejoined its broadcast groups, as ipoib_ng did"
for pk in ffff "${PKEYS[@]}"; do
	sa_mcmr "ff12:401b:$pk::ffff:ffff"
	expect_lines /tmp/mcm.out "PortGid\.+fe80::200:0:0:201\$" \
		"PortGid\.+fe80::200:0:0:301\$"
done

cat /tmp/sacount.txt
unload_ipoib
check rmmod ib_ipoib
stop_opensm
unload_softib
log "ib-sacount: PASS"
