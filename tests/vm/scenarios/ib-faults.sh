#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ib-faults: softib's fault controls (ports/P/softib/link and
# sa_drop_pct; Documentation/softib-design.rst, step 7) against ipoib_ng
# and OpenSM, on ib-ping's three hosts.
#
# Asserts:
# - link down at softib2's port: the port goes DOWN, ipoib_ng's interface
#   in n2 loses its carrier and n1 no longer reaches it; link up: the port
#   trains to INIT, OpenSM's sweep (the switch's Trap 128 tells it) brings
#   it ACTIVE, and the carrier comes back by itself (the broadcast group
#   joined again through the SA): ping both ways;
# - 30% of softib2's SA requests lost (the port counts which): the
#   interface taken down and up joins its broadcast group again through
#   the retries, its socket's group (239.7.0.1) gets every datagram n1
#   sends, and ping works both ways; softib lost the requests its rule
#   says (the n-th when n * pct / 100 steps up), at least two;
# - every SA request of softib2 held 2 s (sa_delay_ms: beyond ib_sa's
#   tries, 300 ms apart for joins and leaves, 320 ms for ipoib_ng's path
#   queries, so that the retries go and the answers come late): the
#   interface taken down and up still gets its carrier, no sooner than the
#   delay, and resolves its path; every request counted was held;
# - the controls refuse what they do not know (-EINVAL).

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

load_softib
softib_hosts
softib_addrs 7
osm_allow_sendonly ffff
start_opensm
wait_for 60 "carrier on $IB1 in n1" has_carrier n1 "$IB1"
wait_for 60 "carrier on $IB2 in n2" has_carrier n2 "$IB2"
wait_for 60 "ping n1 -> 10.7.0.2" ping_works n1 10.7.0.2

CTL=/sys/class/infiniband/softib2/ports/1/softib
STATE=/sys/class/infiniband/softib2/ports/1/state
[[ $(< "$CTL/link") == up ]] || fail "softib2's link reads '$(< "$CTL/link")'"
[[ $(< "$CTL/sa_drop_pct") == 0 ]] || fail "sa_drop_pct reads '$(< "$CTL/sa_drop_pct")'"

kmsg "the controls refuse what they do not know"
! echo sideways > "$CTL/link" 2> /dev/null || fail "link took 'sideways'"
! echo 101 > "$CTL/sa_drop_pct" 2> /dev/null || fail "sa_drop_pct took 101"
[[ $(< "$CTL/sa_drop_pct") == 0 ]] || fail "a refused write changed sa_drop_pct"

kmsg "link down at softib2's port"
echo down > "$CTL/link"
[[ $(< "$CTL/link") == down ]] || fail "softib2's link reads '$(< "$CTL/link")'"
wait_for 10 "softib2's port DOWN" grep -q DOWN "$STATE"
no_carrier() { ! has_carrier n2 "$IB2"; }
wait_for 10 "no carrier on $IB2" no_carrier
! ip netns exec n1 ping -n -c 2 -W 1 10.7.0.2 > /tmp/ping-down.out 2>&1 ||
	fail "n1 reached 10.7.0.2 over a link that is down"
has_carrier n1 "$IB1" || fail "$IB1 lost its carrier with softib2's link"

kmsg "link up: OpenSM's sweep brings the port back, the carrier follows"
echo up > "$CTL/link"
wait_for 60 "softib2's port ACTIVE again" grep -q ACTIVE "$STATE"
wait_for 60 "carrier on $IB2 again" has_carrier n2 "$IB2"
wait_for 60 "ping n1 -> 10.7.0.2 again" ping_works n1 10.7.0.2
check_ping n1 10.7.0.2
check_ping n2 10.7.0.1

kmsg "30% of softib2's SA requests lost"
sa() { cat "$CTL/sa_$1"; }
echo 30 > "$CTL/sa_drop_pct"
r0=$(sa requests)
d0=$(sa dropped)
check ip -n n2 link set dev "$IB2" down
check ip -n n2 link set dev "$IB2" up
wait_for 120 "carrier on $IB2 through the losses" has_carrier n2 "$IB2"
mc_delivers n2 "$IB2" n1 "$IB1" 239.7.0.1
check ip -n n2 neigh flush dev "$IB2"
wait_for 120 "ping n2 -> 10.7.0.1 through the losses" ping_works n2 10.7.0.1
check_ping n2 10.7.0.1
check_ping n1 10.7.0.2
r1=$(sa requests)
d1=$(sa dropped)
echo 0 > "$CTL/sa_drop_pct"
failures=$(eth_stat n2 "$IB2" mc_failures)
log "softib2: $((r1 - r0)) SA requests, $((d1 - d0)) of them lost; mc_failures $failures"
# The rule loses request n when n * 30 / 100 steps up; one request may
# fall between the two counters' reads.
want=$((r1 * 30 / 100 - r0 * 30 / 100))
lost=$((d1 - d0))
((lost >= want - 1 && lost <= want + 1)) ||
	fail "softib2 lost $lost SA requests, the rule says $want"
((lost >= 2)) || fail "only $lost SA requests lost: the losses were not exercised"

kmsg "a slow SA: softib2's SA requests held 2 s"
# ib_sa sends a query's MAD eleven times, a tenth of its timeout apart
# (sa_query.c: 3 s for joins and leaves, 3.2 s for ipoib_ng's path
# queries), under one TID: about six copies of each go before the late
# answer to the first completes the query. Joins and path queries still
# succeed, later.
! echo 30001 > "$CTL/sa_delay_ms" 2> /dev/null || fail "sa_delay_ms took 30001"
[[ $(< "$CTL/sa_delay_ms") == 0 ]] || fail "a refused write changed sa_delay_ms"
echo 2000 > "$CTL/sa_delay_ms"
# The retries of a leave (same TID) reach OpenSM after the first has
# left the group; it refuses each as a delete of no membership.
OSM_ERR_OK+="|ERR 1B25: Received an invalid delete request for MGID: ff12:[46]01b:ffff:[0-9a-f:]+ for PortGID: fe80::200:0:0:301\$"
r0=$(sa requests)
h0=$(sa delayed)
d0=$(sa dropped)
t0=$SECONDS
check ip -n n2 link set dev "$IB2" down
check ip -n n2 link set dev "$IB2" up
wait_for 120 "carrier on $IB2 through the slow SA" has_carrier n2 "$IB2"
up_secs=$((SECONDS - t0))
check ip -n n2 neigh flush dev "$IB2"
wait_for 120 "ping n2 -> 10.7.0.1 through the slow SA" ping_works n2 10.7.0.1
check_ping n2 10.7.0.1
echo 0 > "$CTL/sa_delay_ms"
r1=$(sa requests)
h1=$(sa delayed)
d1=$(sa dropped)
log "softib2: $((r1 - r0)) SA requests, $((h1 - h0)) of them held, $((d1 - d0)) lost; carrier after ${up_secs}s"
# Nothing lost (sa_drop_pct 0, the hold queue never full): every request
# counted while the delay held was held; the counters race, this not.
((d1 == d0)) || fail "$((d1 - d0)) SA requests lost with only a delay set"
((h1 - h0 >= 2)) || fail "only $((h1 - h0)) SA requests held: the delay was not exercised"
# The broadcast join alone waits for the delay.
((up_secs >= 2)) || fail "carrier after ${up_secs}s: the SA's answer was not delayed"

check_dmesg_clean "link down and up, SA requests lost or delayed"
unload_ipoib
stop_opensm
unload_softib
log "ib-faults: PASS"
