#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# churn: the interfaces reconfigured, and torn down and brought back, over
# and over while iperf3 runs both ways (review M1, M2; the security
# issue's churn test). make check runs it on the debug kernel (KASAN,
# lockdep, kmemleak) with the counts below; make soak (soak.sh) with
# 50 / 50 / 50 / 200 / 100 / 50.
#
#   mode     datagram <-> connected, n1 by sysfs, n2 by netlink
#   ring     ethtool -G between two ring sizes, n1 and n2 in turn (the
#            QPN changes each time: peers follow the announcement)
#   mtu      2044 <-> 4092 on both ends
#   child    a P_Key child of n1's interface created, up with an address,
#            deleted, while the parent carries the traffic
#   reload   rmmod under traffic, insmod, interfaces configured again
#   rdma     rdma link delete rxe1 under traffic, rdma link add, rxe1's
#            new interface configured again
#
# Two TCP streams run through the first four phases: after each phase they
# are still connected and moving data. Each cycle of the last two starts
# new streams on the interfaces it will tear down, and the next cycle (or
# the pings) shows that the new interfaces work. After every phase: ping
# both ways over IPv4 and IPv6, no kernel warning (and, at the end of the
# VM, kmemleak). Each phase logs its cycles and time.
#
# CHURN="mode=N ring=N mtu=N child=N reload=N rdma=N" sets the counts,
# CHURN_RATE each stream's rate (4M).
#
#  +------------ n1 ------------+             +------------ n2 ------------+
#  |  $IB1 (ipoib_ng on rxe0)   |             |  $IB2 (ipoib_ng on rxe1)   |
#  |  10.1.0.1/24  fd00::1/64   |             |  10.1.0.2/24  fd00::2/64   |
#  |  c1 (P_Key 0x8001, churn)  |             |                            |
#  |  iperf3 -c / -s :5202      |             |  iperf3 -s :5201 / -c      |
#  +-------------|--------------+             +--------------|-------------+
#                |         IPoIB over UD (QPN + GID)         |
#  +-------------|------------ initial namespace ------------|-------------+
#  |           rxe0 -- va <======== veth ========> vb -- rxe1              |
#  +-----------------------------------------------------------------------+

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

declare -A N=([mode]=2 [ring]=2 [mtu]=2 [child]=4 [reload]=1 [rdma]=1)
for kv in ${CHURN:-}; do
	[[ $kv =~ ^(mode|ring|mtu|child|reload|rdma)=([0-9]+)$ ]] ||
		fail "CHURN: '$kv' is not <phase>=<count>"
	N[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
done
log "counts: mode ${N[mode]} ring ${N[ring]} mtu ${N[mtu]} child ${N[child]} reload ${N[reload]} rdma ${N[rdma]}"

# A rate that leaves the VM's two vCPUs time for the churn itself: at full
# speed iperf3 and rxe take both, and every command of the churn takes
# seconds to start (CHURN_RATE, iperf3's -b, changes it).
RATE=(-b "${CHURN_RATE:-4M}")
# The streams of a phase run at most this long.
STREAM_SECS=36000

setup_ipoib_netns_pair
ping_all

mode_of() {
	ns_exec "$1" cat "/sys/class/net/$2/mode"
}

# stream_start: TCP both ways. stream_check NAME: after phase NAME both
# connections survived and still move data.
stream_start() {
	iperf3_both "$STREAM_SECS" "${RATE[@]}"
	wait_traffic
}
stream_check() {
	iperf3_alive || {
		bg_stop
		fail "$1: an iperf3 stream broke"
	}
	wait_traffic
}

# phase_end NAME START CYCLES
phase_end() {
	ping_all
	check_dmesg_clean "$1"
	log "$1: $3 cycles in $((SECONDS - $2)) s"
}

# ---------------------------------------------------------------------------
stream_start

kmsg "mode: ${N[mode]} switches each end under traffic"
t0=$SECONDS
for ((i = 0; i < N[mode]; i++)); do
	m=connected
	((i % 2 == 0)) || m=datagram
	check ns_exec n1 sh -c "echo $m > /sys/class/net/$IB1/mode"
	check ip -n n2 link set dev "$IB2" type ipoib mode "$m"
	[[ $(mode_of n1 "$IB1") == "$m" && $(mode_of n2 "$IB2") == "$m" ]] ||
		fail "mode: cycle $i: $(mode_of n1 "$IB1") / $(mode_of n2 "$IB2"), not $m"
done
stream_check mode
if [[ $(mode_of n1 "$IB1") != datagram ]]; then
	check ns_exec n1 sh -c "echo datagram > /sys/class/net/$IB1/mode"
	check ip -n n2 link set dev "$IB2" type ipoib mode datagram
fi
phase_end mode "$t0" "${N[mode]}"

# ---------------------------------------------------------------------------
kmsg "ring: ${N[ring]} resizes under traffic"
t0=$SECONDS
for ((i = 0; i < N[ring]; i++)); do
	ns=n1 ifc=$IB1
	((i % 2 == 0)) || ns=n2 ifc=$IB2
	if ((i / 2 % 2 == 0)); then
		check ns_exec "$ns" ethtool -G "$ifc" rx 256 tx 128
	else
		check ns_exec "$ns" ethtool -G "$ifc" rx 512 tx 256
	fi
done
stream_check ring
phase_end ring "$t0" "${N[ring]}"

# ---------------------------------------------------------------------------
kmsg "mtu: ${N[mtu]} changes each end under traffic"
t0=$SECONDS
for ((i = 0; i < N[mtu]; i++)); do
	mtu=2044
	((i % 2 == 0)) || mtu=4092
	check ip -n n1 link set dev "$IB1" mtu "$mtu"
	check ip -n n2 link set dev "$IB2" mtu "$mtu"
done
stream_check mtu
check ip -n n1 link set dev "$IB1" mtu 4092
check ip -n n2 link set dev "$IB2" mtu 4092
phase_end mtu "$t0" "${N[mtu]}"

# ---------------------------------------------------------------------------
kmsg "child: ${N[child]} children of $IB1 created and deleted under traffic"
t0=$SECONDS
for ((i = 0; i < N[child]; i++)); do
	check ip -n n1 link add link "$IB1" name c1 type ipoib pkey 0x8001
	check ip -n n1 addr add 10.2.0.1/24 dev c1
	check ip -n n1 link set dev c1 up
	check ip -n n1 link delete dev c1
done
stream_check child
bg_stop
phase_end child "$t0" "${N[child]}"

# ---------------------------------------------------------------------------
kmsg "reload: ${N[reload]} module unloads under traffic"
t0=$SECONDS
for ((i = 0; i < N[reload]; i++)); do
	stream_start
	check timeout 120 rmmod "$IPOIB_NAME"
	wait_for 60 "$IPOIB_NAME to unload" test ! -d "/sys/module/$IPOIB_NAME"
	if_gone n1 "$IB1" || fail "reload: cycle $i: $IB1 still in n1 after rmmod"
	if_gone n2 "$IB2" || fail "reload: cycle $i: $IB2 still in n2 after rmmod"
	bg_stop
	load_ipoib
	reattach
done
phase_end reload "$t0" "${N[reload]}"

# ---------------------------------------------------------------------------
kmsg "rdma: ${N[rdma]} times rdma link delete rxe1 under traffic"
t0=$SECONDS
for ((i = 0; i < N[rdma]; i++)); do
	stream_start
	check timeout 120 rdma link delete rxe1
	wait_for 60 "$IB2 to vanish from n2" if_gone n2 "$IB2"
	bg_stop
	check rdma link add rxe1 type rxe netdev vb
	rxe_wait_active rxe1
	ipoib_attach rxe1 n2 10.1.0.2/24 fd00::2/64
	IB2=$IPOIB_IF
	# n1 holds the old interface's address for the peer: a gratuitous
	# ARP from n2 updates IPv4, IPv6 is flushed (no tool here sends an
	# unsolicited NA).
	check ns_exec n2 arping -U -I "$IB2" -c 2 -w 10 10.1.0.2
	check ip -n n1 -6 neigh flush dev "$IB1"
done
phase_end rdma "$t0" "${N[rdma]}"

kmsg "unload"
unload_ipoib
check_dmesg_clean "the final rmmod"
log "churn: PASS"
