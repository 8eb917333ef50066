#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# gidchurn: the RoCE reproducer of review finding H1 (a path query started
# over one still in flight, then a use-after-free in the resolver's
# callback). On RoCE a light flush follows every GID change, which is any
# IP address added to or removed from the Ethernet netdev; paths whose
# resolution is in flight at that moment were queried a second time over
# the same rdma_dev_addr. Before the fix this crashed the kernel within
# 10-30 s (rdma_put_gid_attr from ipn_roce_resolved, ib_addr workqueue).
#
#  - n1's interface gets 40 permanent neighbours whose GIDs nobody has
#    (fd99::100 ...), pinged in a loop, so their paths keep resolving (each
#    resolution takes the resolver's full 2 s);
#  - meanwhile an IPv6 address is added to and removed from va every half
#    second (a GID change on rxe0 each time), and every tenth change the
#    interface goes down and up;
#  - afterwards the interface still reaches its real peer, the path table
#    holds only what was asked for, and the kernel log is clean (run.sh
#    also fails the scenario on any KASAN, lockdep or BUG line).

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

CHURN_S=${GIDCHURN_SECONDS:-40}
MIN_CHANGES=${GIDCHURN_MIN_CHANGES:-20}	# each: an address added and removed
N_GHOSTS=40

setup_ipoib_netns_pair
route_rxe_pair_as_hosts
check_ping n1 10.1.0.2
QPN2=$(link_addr n2 "$IB2" | cut -c1-11)

log "$N_GHOSTS neighbours at GIDs nobody has"
for ((i = 0; i < N_GHOSTS; i++)); do
	gid=$(printf 'fd99:0000:0000:0000:0000:0000:0000:%04x' $((0x100 + i)))
	check ip -n n1 neigh replace "10.1.1.$((i + 1))" dev "$IB1" \
		nud permanent lladdr "$QPN2:$(gid_bytes "$gid")"
done
check ip -n n1 route add 10.1.1.0/24 dev "$IB1"

# One long-lived pinger per neighbour, a frame every 0.3 s each (a new
# process per frame starves the churn under TCG: the debug kernel managed
# 3 address changes in 40 s that way).
pingers=()
for ((i = 1; i <= N_GHOSTS; i++)); do
	ip netns exec n1 timeout $((CHURN_S + 60)) \
		ping -n -q -i 0.3 "10.1.1.$i" > /dev/null 2>&1 &
	pingers+=($!)
done

kmsg "churn: GID changes on rxe0 every 0.5 s, at least $MIN_CHANGES and $CHURN_S s, down/up every 10th"
flushes0=$(eth_stat n1 "$IB1" path_queries || echo 0)
end=$((SECONDS + CHURN_S))
n=0
while ((SECONDS < end || n < MIN_CHANGES)); do
	n=$((n + 1))
	check ip addr add "fd98::$n/64" dev va nodad
	sleep 0.25
	check ip addr del "fd98::$n/64" dev va
	sleep 0.25
	if ((n % 10 == 0)); then
		check ip -n n1 link set dev "$IB1" down
		check ip -n n1 link set dev "$IB1" up
	fi
done
kill "${pingers[@]}" 2> /dev/null || true
wait "${pingers[@]}" 2> /dev/null || true
queries=$(( $(eth_stat n1 "$IB1" path_queries || echo 0) - flushes0 ))
log "churn done: $n address changes (each an add and a delete) in $((SECONDS - end + CHURN_S)) s, $((n / 10)) down/up cycles, $queries path queries"
((queries > N_GHOSTS)) || fail "only $queries path queries: the paths did not resolve during the churn"

log "after the churn: the real peer is reached, nothing is left over"
wait_for 30 "carrier on $IB1 in n1" has_carrier n1 "$IB1"
check_ping n1 10.1.0.2
check_ping n2 10.1.0.1
paths=$(grep -c . "$(ipoib_debugfs rxe0)/path" || true)
log "rxe0's path table: $paths entries"
((paths <= N_GHOSTS + 4)) || fail "path table grew to $paths entries"
check_dmesg_clean "GID churn"
unload_ipoib
log "gidchurn: PASS"
