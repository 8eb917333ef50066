#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ping: ipoib_ng carries IPv4 and IPv6 between two namespaces. The interfaces
# of rxe0 and rxe1 move into n1 and n2; the rxe devices and the veth pair
# under them stay in the initial namespace, where rxe keeps its UDP sockets.
# Then the peers are reached through GIDs beyond link-local: va and vb get
# fd99::/64 and 192.168.99.0/24 addresses (rxe makes GIDs of them) and
# static neighbours point at those GIDs, so that the driver resolves them
# with rdma_resolve_ip: the destination MAC, and the source GID that the
# route picks. tcpdump on va shows the RoCEv2 datagrams' IP addresses; the
# driver's debugfs path table shows MAC and source GID index; a GID nobody
# has fails cleanly. Ends by unloading the module with its interfaces still
# in n1 and n2.
#
#  +------------ n1 ------------+             +------------ n2 ------------+
#  |  $IB1 (ipoib_ng on rxe0)   |             |  $IB2 (ipoib_ng on rxe1)   |
#  |  10.1.0.1/24  fd00::1/64   |             |  10.1.0.2/24  fd00::2/64   |
#  |  fe80:: from the port GID  |             |  fe80:: from the port GID  |
#  +-------------|--------------+             +--------------|-------------+
#                |         IPoIB over UD (QPN + GID)         |
#  +-------------|------------ initial namespace ------------|-------------+
#  |           rxe0                                         rxe1           |
#  |             |              RoCEv2, UDP 4791              |            |
#  |            va  <============ veth, MTU 9000 ===========>  vb           |
#  +-----------------------------------------------------------------------+

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

setup_ipoib_netns_pair

log "IPv4"
check_ping n1 10.1.0.2
check_ping n2 10.1.0.1

log "IPv6 link-local"
wait_for 30 "link-local address on $IB1 in n1" ll_addr6 n1 "$IB1"
wait_for 30 "link-local address on $IB2 in n2" ll_addr6 n2 "$IB2"
ll1=$(ll_addr6 n1 "$IB1")
ll2=$(ll_addr6 n2 "$IB2")
log "$IB1: $ll1, $IB2: $ll2"
check_ping n1 "$ll2%$IB1" -6
check_ping n2 "$ll1%$IB2" -6

log "IPv6 global"
check_ping n1 fd00::2
check_ping n2 fd00::1

log "neighbours: 20-byte IPoIB hardware addresses"
check_neigh n1 "$IB1" 10.1.0.2
check_neigh n1 "$IB1" fd00::2
check_neigh n2 "$IB2" 10.1.0.1
check ip -n n1 neigh show
check ip -n n1 -d link show dev "$IB1"
check ip -n n2 -d link show dev "$IB2"

log "RoCE GIDs beyond link-local, resolved with rdma_resolve_ip"
GID_V6_1=fd99:0000:0000:0000:0000:0000:0000:0001
GID_V6_2=fd99:0000:0000:0000:0000:0000:0000:0002
GID_V6_NONE=fd99:0000:0000:0000:0000:0000:0000:0099
GID_V4_1=0000:0000:0000:0000:0000:ffff:c0a8:6301
GID_V4_2=0000:0000:0000:0000:0000:ffff:c0a8:6302
route_rxe_pair_as_hosts
wait_for 30 "GID fd99::1 on rxe0" gid_index rxe0 "$GID_V6_1"
wait_for 30 "GID fd99::2 on rxe1" gid_index rxe1 "$GID_V6_2"
wait_for 30 "GID ::ffff:192.168.99.1 on rxe0" gid_index rxe0 "$GID_V4_1"
wait_for 30 "GID ::ffff:192.168.99.2 on rxe1" gid_index rxe1 "$GID_V4_2"
SGID1=$(gid_index rxe0 "$GID_V6_1")
SGID2=$(gid_index rxe1 "$GID_V4_2")
log "rxe0: fd99::1 is GID $SGID1; rxe1: ::ffff:192.168.99.2 is GID $SGID2"
QPN1=$(link_addr n1 "$IB1" | cut -c1-11)
QPN2=$(link_addr n2 "$IB2" | cut -c1-11)
# n1 reaches 10.1.0.2 at rxe1's IPv6 GID, n2 reaches 10.1.0.1 at rxe0's
# IPv4-mapped GID: both address families of rdma_resolve_ip.
check ip -n n1 neigh replace 10.1.0.2 dev "$IB1" nud permanent \
	lladdr "$QPN2:$(gid_bytes "$GID_V6_2")"
check ip -n n2 neigh replace 10.1.0.1 dev "$IB2" nud permanent \
	lladdr "$QPN1:$(gid_bytes "$GID_V4_1")"
cap=$VM_OUT/ping-va.txt
timeout 60 tcpdump -i va -n -l 'udp port 4791' > "$cap" 2> "$cap.err" &
tcpdump_pid=$!
wait_for 30 "tcpdump on va" grep -q "listening on va" "$cap.err"
check_ping n1 10.1.0.2
sleep 1
kill -INT "$tcpdump_pid"
wait "$tcpdump_pid" || fail "tcpdump on va exited $?: $(cat "$cap.err")"
cat "$cap"
grep -Eq " IP6 fd99::1\.[0-9]+ > fd99::2\.4791: UDP" "$cap" ||
	fail "no RoCEv2 datagram fd99::1 > fd99::2 on va: source GID not chosen by the route"
grep -Eq " IP 192\.168\.99\.2\.[0-9]+ > 192\.168\.99\.1\.4791: UDP" "$cap" ||
	fail "no RoCEv2 datagram 192.168.99.2 > 192.168.99.1 on va"
line=$(path_line rxe0 "$GID_V6_2") || fail "rxe0: no path to $GID_V6_2 in debugfs"
log "rxe0 path: $line"
[[ $line == *" state valid "* && $line == *" sgid_index $SGID1 "* &&
	$line == *" dmac $(< /sys/class/net/vb/address)"* ]] ||
	fail "rxe0's path to fd99::2: not valid, source GID not $SGID1 or MAC not vb's"
line=$(path_line rxe1 "$GID_V4_1") || fail "rxe1: no path to $GID_V4_1 in debugfs"
log "rxe1 path: $line"
[[ $line == *" state valid "* && $line == *" sgid_index $SGID2 "* &&
	$line == *" dmac $(< /sys/class/net/va/address)"* ]] ||
	fail "rxe1's path to 192.168.99.1: not valid, source GID not $SGID2 or MAC not va's"
log "a GID that no one has: the path fails, ping fails cleanly"
check ip -n n1 neigh replace 10.1.0.99 dev "$IB1" nud permanent \
	lladdr "$QPN2:$(gid_bytes "$GID_V6_NONE")"
ping_fails_cleanly n1 10.1.0.99
wait_for 30 "the path to fd99::99 to fail" \
	bash -c "grep -q '^$GID_V6_NONE state failed ' $(ipoib_debugfs rxe0)/path"
path_line rxe0 "$GID_V6_NONE"
check_ping n1 10.1.0.2

log "unload with the interfaces in n1 and n2"
unload_ipoib
check_fails ip -n n1 link show dev "$IB1"
check_fails ip -n n2 link show dev "$IB2"

log "ping: PASS"
