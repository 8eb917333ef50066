#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo: the ping scenario narrated for a human (make vm-demo). Two
# soft-RoCE devices on a veth pair stand in for two InfiniBand ports; one
# ipoib_ng interface on each, in its own namespace, talks IPv4 and IPv6.
#
#  +------------ n1 ------------+             +------------ n2 ------------+
#  |  $IB1 (ipoib_ng on rxe0)   |             |  $IB2 (ipoib_ng on rxe1)   |
#  |  10.1.0.1/24  fd00::1/64   |             |  10.1.0.2/24  fd00::2/64   |
#  +-------------|--------------+             +--------------|-------------+
#                |         IPoIB over UD (QPN + GID)         |
#  +-------------|------------ initial namespace ------------|-------------+
#  |           rxe0                                         rxe1           |
#  |             |              RoCEv2, UDP 4791              |            |
#  |            va  <============ veth, MTU 9000 ===========>  vb           |
#  +-----------------------------------------------------------------------+

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

say() {
	echo
	echo "==> $*"
}

# demo [--] CMD...: show a command and its output, as typed at a prompt.
demo() {
	echo "# $*"
	"$@" || fail "'$*' exited $?"
}

say "Two soft-RoCE devices (rdma_rxe) on the ends of a veth pair, then ipoib_ng"
setup_ipoib_netns_pair
demo rdma link show
demo ibv_devinfo -d rxe0

say "ipoib_ng made $IB1 on rxe0 (moved to namespace n1) and $IB2 on rxe1 (namespace n2)"
demo ip -n n1 -d link show dev "$IB1"
demo ip -n n2 -d link show dev "$IB2"
echo "The 20-byte hardware address is the 4-byte QP number (with flags) and the port's 16-byte GID."

say "Addresses"
demo ip -n n1 addr show dev "$IB1"
demo ip -n n2 addr show dev "$IB2"

say "IPv4: n1 pings n2, and back"
demo ip netns exec n1 ping -c 3 -i 0.3 -W 5 10.1.0.2
demo ip netns exec n2 ping -c 3 -i 0.3 -W 5 10.1.0.1

say "IPv6, global and link-local"
demo ip netns exec n1 ping -c 3 -i 0.3 -W 5 fd00::2
wait_for 30 "link-local address on $IB2 in n2" ll_addr6 n2 "$IB2"
demo ip netns exec n1 ping -c 3 -i 0.3 -W 5 "$(ll_addr6 n2 "$IB2")%$IB1"

say "n1's neighbour table: ARP and ND resolved the peer to its IPoIB address"
demo ip -n n1 neigh show
check_neigh n1 "$IB1" 10.1.0.2 > /dev/null

say "Interface counters in n1"
demo ip -n n1 -s link show dev "$IB1"

say "Done: IPoIB over soft-RoCE works in this VM."
