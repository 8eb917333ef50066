#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ping: ipoib_ng carries IPv4 and IPv6 between two namespaces. The interfaces
# of rxe0 and rxe1 move into n1 and n2; the rxe devices and the veth pair
# under them stay in the initial namespace, where rxe keeps its UDP sockets.
# Ends by unloading the module with its interfaces still in n1 and n2.
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

log "unload with the interfaces in n1 and n2"
unload_ipoib
check_fails ip -n n1 link show dev "$IB1"
check_fails ip -n n2 link show dev "$IB2"

log "ping: PASS"
