#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# recover (a probe, run by name: make vm-check VM_SCENARIOS=recover): how
# long two TCP streams stop after ONE reconfiguration of one end (ring
# resize, mode switch, MTU change), with ss -ti and the neighbour tables
# sampled until both move again; twelve changes. Fails when an end sends
# nothing for 60 s or a stream breaks. Its figures are in
# Documentation/reliability.rst ("Churn under traffic"): about 10 minutes
# on the debug kernel, 2 on Debian's.

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

setup_ipoib_netns_pair
ping_all
iperf3_both 900 -b 4M
wait_traffic

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# moved NS IF: tx_bytes grew by more than 50 kB in 0.2 s.
moved() {
	sending "$1" "$2" 0.2 50000
}

snap() {
	local ns
	for ns in n1 n2; do
		log "  $ns ss: $(ip netns exec $ns ss -tinH state established 2> /dev/null | tr -s ' \n' ' ' | grep -o 'rto:[0-9.]*\|backoff:[0-9]*\|retrans:[0-9/]*\|lost:[0-9]*\|unacked:[0-9]*' | tr '\n' ' ')"
		log "  $ns neigh: $(ip -n $ns neigh show | tr '\n' ';')"
	done
}

# measure NAME CMD...: run CMD, then time until both ends send again.
measure() {
	local name=$1 t0 t1=0 t2=0 t
	shift
	sleep 3
	snap
	t0=$(now_ms)
	check "$@"
	log "$name: command took $(($(now_ms) - t0)) ms"
	while ((t1 == 0 || t2 == 0)); do
		t=$(now_ms)
		((t - t0 < 60000)) || fail "$name: no traffic after 60 s"
		((t1 != 0)) || ! moved n1 "$IB1" || t1=$(($(now_ms) - t0))
		((t2 != 0)) || ! moved n2 "$IB2" || t2=$(($(now_ms) - t0))
		(((t - t0) / 1000 % 2 == 0)) && snap
	done
	log "$name: $IB1 sends again after $t1 ms, $IB2 after $t2 ms"
	snap
}

for r in 1 2; do
	measure "ring n1 #$r" ns_exec n1 ethtool -G "$IB1" rx 256 tx 128
	measure "ring n1 back #$r" ns_exec n1 ethtool -G "$IB1" rx 512 tx 256
	measure "mode n1 connected #$r" ns_exec n1 sh -c "echo connected > /sys/class/net/$IB1/mode"
	measure "mode n1 datagram #$r" ns_exec n1 sh -c "echo datagram > /sys/class/net/$IB1/mode"
	measure "mtu n1 2044 #$r" ip -n n1 link set dev "$IB1" mtu 2044
	measure "mtu n1 back #$r" ip -n n1 link set dev "$IB1" mtu 4092
done
iperf3_alive || fail "a stream broke"
bg_stop
log "recover: PASS"
