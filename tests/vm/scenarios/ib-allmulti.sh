#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ib-allmulti: the all-multicast mode (RFC 4391 s11) against a real SA.
# Three ipoib_ng hosts on softib with OpenSM (ib-ping's); n1 is the
# "router": `ip link set allmulticast on`, and its stack joins no group.
# The mode asks OpenSM's SA for every group (SubnAdmGetTable of
# MCMemberRecord, an RMPP answer), joins each of this link NonMember,
# and subscribes to the SA's group created and deleted notices
# (InformInfo, traps 66 and 67), which OpenSM sends as Reports.
#
# Asserts: the mode reaches "on"; a group n2 made before is joined
# NonMember, and n1's interface receives what the initial namespace
# sends to it (tcpdump in n1: the frames reach n1, whose stack never
# joined); a group n2 creates afterwards is joined NonMember through the
# SA's Report, and its frames reach n1 too; when n2 leaves it, OpenSM
# deletes it and its Report makes n1 leave it; allmulticast off cancels
# the subscriptions and leaves the NonMember groups; no Report was
# refused or beyond the rate; OpenSM logs no error
# but the send-only refusals (lib.sh).

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

load_softib
softib_hosts
softib_addrs 6
osm_allow_sendonly ffff
start_opensm
wait_for 60 "carrier on $IB0" sh -c "ip -o link show dev $IB0 | grep -q LOWER_UP"
wait_for 60 "carrier on $IB1 in n1" has_carrier n1 "$IB1"
wait_for 60 "carrier on $IB2 in n2" has_carrier n2 "$IB2"

DBG=$(ipoib_debugfs softib1)
mcg1() { cat "$DBG/mcg"; }
# The debugfs form (%pI6) of the MGID of 239.6.0.N on P_Key 0xffff
# (RFC 4391 s4: the low 28 bits of the group).
mgid_of() { printf 'ff12:401b:ffff:0000:0000:0000:0f06:%04x' "$1"; }
# reaches_n1 GROUP TAG: datagrams the initial namespace sends to GROUP
# reach n1's interface (tcpdump -A there, n1's stack has no socket):
# after a first one (the switch's MFT follows the join a moment after
# the SA answered it), 10 more, every one.
reaches_n1() {
	local group=$1 tag=$2 pid
	# -p: promiscuous mode stays off, the all-multicast mode alone.
	ip netns exec n1 timeout 90 tcpdump -p -l -i "$IB1" -nn -A \
		"udp and dst host $group and dst port 5002" \
		> "/tmp/td-$tag.txt" 2> "/tmp/td-$tag.err" &
	pid=$!
	wait_for 30 "tcpdump in n1" grep -q 'listening on' "/tmp/td-$tag.err"
	_probe() {
		check python3 "$MC_TOOL" send "$IB0" "$group" 5002 "w$tag" 1
		grep -q "w$tag [0-9]" "/tmp/td-$tag.txt"
	}
	wait_for 30 "a first datagram to $group at n1's interface" _probe
	check python3 "$MC_TOOL" send "$IB0" "$group" 5002 "r$tag" 10 0.1
	_all() { (($(grep -c "r$tag [0-9]" "/tmp/td-$tag.txt") == 10)); }
	wait_for 10 "10 datagrams to $group at n1's interface" _all
	kill "$pid"
	wait "$pid" || true
	log "n1's interface received all 10 datagrams to $group"
}

kmsg "n2 makes 239.6.0.1 before the mode"
mc_member n2 "$IB2" 239.6.0.1 5001 /tmp/mc-a
first_pid=$MC_MEMBER_PID
wait_for 30 "softib2 in the SA's group of 239.6.0.1" \
	sa_member ff12:401b:ffff::f06:1 fe80::200:0:0:301
! mcg1 | grep -q "^$(mgid_of 1) " || fail "n1 holds 239.6.0.1 before the mode"

kmsg "n1 enters the all-multicast mode"
check ip -n n1 link set dev "$IB1" allmulticast on
am_on() { grep -q "^state on directory on " "$DBG/allmulti"; }
wait_for 60 "n1's all-multicast mode on" am_on
cat "$DBG/allmulti"
non_joined() { mcg1 | grep -q "^$(mgid_of "$1") state joined want non joined non "; }
wait_for 30 "n1's NonMember join of 239.6.0.1" non_joined 1
mcg1 | grep "want non"
reaches_n1 239.6.0.1 a

kmsg "n2 creates 239.6.0.2: OpenSM's Report (trap 66) brings n1 in"
mc_member n2 "$IB2" 239.6.0.2 5001 /tmp/mc-b
second_pid=$MC_MEMBER_PID
wait_for 60 "n1's NonMember join of 239.6.0.2 (from the Report)" non_joined 2
grep -q 'New mcast group created.*ff12:401b:ffff::f06:2' "$OSM_LOG" ||
	fail "OpenSM did not report the creation of 239.6.0.2's group"
reaches_n1 239.6.0.2 b

kmsg "n2 leaves 239.6.0.2: OpenSM deletes it, its Report (trap 67) takes n1 out"
kill "$second_pid"
wait "$second_pid" || true
gone() { ! mcg1 | grep -q "^$(mgid_of "$1") "; }
wait_for 60 "n1 to leave 239.6.0.2 (from the Report)" gone 2
grep -q 'Mcast group deleted.*ff12:401b:ffff::f06:2' "$OSM_LOG" ||
	fail "OpenSM did not report the deletion of 239.6.0.2's group"
non_joined 1 || fail "n1 left 239.6.0.1 too"

kmsg "allmulticast off: the subscriptions cancelled, the NonMember groups left"
check ip -n n1 link set dev "$IB1" allmulticast off
am_off() { grep -q "^state off " "$DBG/allmulti"; }
wait_for 30 "n1's all-multicast mode off" am_off
wait_for 30 "n1 to leave 239.6.0.1" gone 1
! mcg1 | grep " want non" || fail "NonMember groups left after the mode"
kill "$first_pid"
wait "$first_pid" || true

# Every Report came from the SM's LID on the default partition and was
# followed, none beyond the rate. (mc_failures counts the send-only joins
# OpenSM refuses too: no measure of the mode.)
for c in sa_reports_refused sa_reports_limited; do
	[[ $(eth_stat n1 "$IB1" "$c") == 0 ]] ||
		fail "n1: $c is $(eth_stat n1 "$IB1" "$c")"
done
check_dmesg_clean "the all-multicast mode against OpenSM"
stop_opensm
unload_ipoib
unload_softib
log "ib-allmulti: PASS"
