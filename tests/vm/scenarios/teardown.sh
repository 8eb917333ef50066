#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# teardown: ipoib_ng interfaces go away under traffic and come back.
#
#   (a) rmmod ipoib_ng while iperf3 runs both ways; insmod; ping again
#   (b) rdma link delete rxe1 while its interface carries iperf3 traffic in
#       n2: the interface vanishes, n1's side stays up and its pings fail
#       cleanly; rdma link add rxe1 again: the driver (an ib_client) gives
#       the new device an interface, which works once configured
#   (c) ib_ipoib and ipoib_ng exclude each other: exclusion.sh (it needs
#       a kernel with ib_ipoib, which the debug test kernel is not)
#   (d) the interfaces outlive what should not delete them: `ip link delete`
#       of a port interface, and deleting the namespace holding one (a
#       fresh n3: see there), which must hand it back to the initial
#       namespace (as ib_ipoib does)
#
#  +------------ n1 ------------+             +------------ n2 ------------+
#  |  $IB1 (ipoib_ng on rxe0)   |             |  $IB2 (ipoib_ng on rxe1)   |
#  |  10.1.0.1/24  fd00::1/64   |             |  10.1.0.2/24  fd00::2/64   |
#  |  iperf3 -c / -s :5202      |             |  iperf3 -s :5201 / -c      |
#  +-------------|--------------+             +--------------|-------------+
#                |         IPoIB over UD (QPN + GID)         |
#  +-------------|------------ initial namespace ------------|-------------+
#  |           rxe0                                     rxe1 (deleted and  |
#  |             |                                      |     re-added)    |
#  |            va  <============ veth, MTU 9000 ===========>  vb           |
#  +-----------------------------------------------------------------------+

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

# (d) guards a fixed bug: without .dellink/.netns_refund in netlink.c,
# `ip link delete` and a namespace's teardown unregistered port interfaces
# behind the driver's back, and the later rmmod hit BUG_ON(dev->reg_state
# != NETREG_REGISTERED) in unregister_netdevice_many with rtnl held.

setup_ipoib_netns_pair
check_ping n1 10.1.0.2
check_ping n2 10.1.0.1

# ---------------------------------------------------------------------------
kmsg "(a) rmmod $IPOIB_NAME under iperf3 traffic both ways"
iperf3_both 200
wait_traffic
t0=$SECONDS
check timeout 120 rmmod "$IPOIB_NAME"
wait_for 60 "$IPOIB_NAME to unload" test ! -d "/sys/module/$IPOIB_NAME"
log "unloaded under traffic in $((SECONDS - t0)) s"
if_gone n1 "$IB1" || fail "$IB1 still in n1 after rmmod"
if_gone n2 "$IB2" || fail "$IB2 still in n2 after rmmod"
bg_stop
check_dmesg_clean "rmmod under traffic"

kmsg "(a) insmod again"
load_ipoib
reattach
ping_all
check_dmesg_clean "(a)"

# ---------------------------------------------------------------------------
kmsg "(b) rdma link delete rxe1 under iperf3 traffic, $IB2 in n2"
iperf3_both 200
wait_traffic
t0=$SECONDS
check timeout 120 rdma link delete rxe1
wait_for 60 "$IB2 to vanish from n2" if_gone n2 "$IB2"
log "rxe1 and $IB2 gone in $((SECONDS - t0)) s"
check rdma link show
! rdma link show | grep -q '^link rxe1/' || fail "rxe1 still listed after rdma link delete"
bg_stop
check_dmesg_clean "rdma link delete rxe1"

kmsg "(b) n1 with its peer gone"
check ip -n n1 link show dev "$IB1"
has_carrier n1 "$IB1" || fail "$IB1 lost its carrier when the peer's device went away"
ping_fails_cleanly n1 10.1.0.2
ping_fails_cleanly n1 fd00::2
check_ping n1 10.1.0.1
check_dmesg_clean "pinging the vanished peer"

kmsg "(b) rdma link add rxe1 again: hot-plug"
check rdma link add rxe1 type rxe netdev vb
rxe_wait_active rxe1
ipoib_attach rxe1 n2 10.1.0.2/24 fd00::2/64
IB2=$IPOIB_IF
[[ $(ns_exec n2 cat "/sys/class/net/$IB2/ibdev") == rxe1 ]] || fail "$IB2 is not bound to the new rxe1"
ADDR2=$(link_addr n2 "$IB2")
log "new $IB2: $ADDR2"
# n1 may still hold the old interface's address (another QPN) for the peer,
# as for a replaced Ethernet NIC: a gratuitous ARP from n2 must update it.
# No tool here sends an unsolicited NA: flush n1's IPv6 neighbours instead.
check ns_exec n2 arping -U -I "$IB2" -c 2 -w 10 10.1.0.2
neigh_at() {
	[[ $(ip -n n1 neigh show 10.1.0.2 dev "$IB1") == *"lladdr $ADDR2 "* ]]
}
wait_for 10 "n1's neighbour 10.1.0.2 at $ADDR2 after the gratuitous ARP" neigh_at
log "n1: $(ip -n n1 neigh show 10.1.0.2 dev "$IB1")"
check ip -n n1 -6 neigh flush dev "$IB1"
ping_all
check_dmesg_clean "(b)"

# ---------------------------------------------------------------------------
kmsg "(d) ip link delete $IB1, ip netns del n3 with $IB2 inside"
bugs=()
log "\$ ip -n n1 link delete dev $IB1 (must leave it in place)"
ip -n n1 link delete dev "$IB1" || log "refused: exit $?"
if if_gone n1 "$IB1"; then
	bugs+=("'ip link delete $IB1' unregistered the interface behind the driver")
else
	check_ping n1 10.1.0.2
fi
# Not n2 itself: the TCP sockets iperf3 had in n2 when it was killed under
# traffic in (a) and (b) may linger orphaned, retransmitting, and each
# holds a reference on n2, so deleting n2 would only unmount it and the
# kernel would dismantle it (and hand $IB2 back) when the last one gives
# up, minutes later. A namespace that never held a socket shows the
# driver's part alone: $IB2 moves into n3, and n3 is deleted.
log "TCP sockets and processes left in n2:"
ip netns exec n2 ss -tanH
ip netns pids n2
ns_create n3
check ip -n n2 link set dev "$IB2" netns n3
check ip netns del n3
# The namespace is dismantled by a kernel worker, after ip returns.
back=
deadline=$((SECONDS + 15))
while ((SECONDS < deadline)); do
	back=$(ipoib_if_for rxe1) && break
	sleep 0.5
done
if [[ -z $back ]]; then
	bugs+=("'ip netns del n3' deleted $IB2 instead of returning it to the initial namespace")
else
	IB2=$back
	log "$IB2 is back in the initial namespace"
	check ip link show dev "$IB2"
fi
check_dmesg_clean "(d)"
((${#bugs[@]} == 0)) || fail "(d): ${bugs[*]}"

kmsg "unload"
unload_ipoib
if_gone n1 "$IB1" || fail "$IB1 still in n1 after rmmod"
! ip link show dev "$IB2" > /dev/null 2>&1 || fail "$IB2 still in the initial namespace after rmmod"
check_dmesg_clean "the final rmmod"

log "teardown: PASS"
