#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ib-soak: the InfiniBand part of make soak (issue 49): ipoib_ng on
# softib's fabric with Debian's OpenSM, on the debug kernel, while n1 and
# n2 stream TCP to each other in connected mode (RFC 4755) and their
# P_Key 0x8001 children ping. Rounds of, in turn:
#   osm   OpenSM stopped and started again (a new SM: its first sweep
#         reprograms every port; the interfaces keep their carriers or get
#         them back, the broadcast groups are joined again);
#   pkey  P_Key 0x8001 taken out of partitions.conf and OpenSM re-swept
#         (the children lose their carriers), then put back (they come
#         back and ping);
#   flap  n2's interface down and up under the stream (n1 drains and
#         destroys n2's connection, then accepts the next one).
# IB_SOAK="osm=N pkey=N flap=N" sets the counts (default: 3 each; make
# soak gives the large ones). After each round: the streams still run
# (iperf3 reconnects are not allowed: one client, one connection), n1
# reaches n2 and the children reach each other; at the end both streams
# still move data. Then: the counts
# done and the drains, restarts and rejects the driver counted, printed;
# no connection left draining; every SRQ buffer back (cm_srq_stuck 0);
# OpenSM's log clean but the send-only joins (osm_allow_sendonly) and
# requests that reach a restarted OpenSM before its first sweep.

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

osm=3 pkey=3 flap=3
for kv in ${IB_SOAK:-}; do
	case $kv in
	osm=* | pkey=* | flap=*) printf -v "${kv%%=*}" %d "${kv#*=}" ;;
	*) fail "IB_SOAK: unknown '$kv'" ;;
	esac
done
log "ib-soak: osm=$osm pkey=$pkey flap=$flap"

load_softib
partitions with_p1
softib_hosts
softib_addrs 9
check ip -n n1 link add link "$IB1" name c1 type ipoib pkey 0x8001
check ip -n n2 link add link "$IB2" name c2 type ipoib pkey 0x8001
check ip -n n1 addr add 10.19.0.1/24 dev c1
check ip -n n2 addr add 10.19.0.2/24 dev c2
check ip -n n1 link set dev c1 up
check ip -n n2 link set dev c2 up
osm_allow_sendonly "ffff|8001"
# A new OpenSM answers requests that reach it before its first sweep has
# given the requester's port a LID with these two lines (the interfaces
# keep querying paths while the SM restarts; they ask again).
OSM_ERR_OK="$OSM_ERR_OK|ERR 7504: Lid is out of range: [0-9]+\$|ERR 1F16: Cannot find requester physical port\$"
start_opensm
wait_for 60 "carrier on $IB1 in n1" has_carrier n1 "$IB1"
wait_for 60 "carrier on $IB2 in n2" has_carrier n2 "$IB2"
check ip -n n1 link set dev "$IB1" type ipoib mode connected
check ip -n n2 link set dev "$IB2" type ipoib mode connected

# reachable: n1 and n2 reach each other, and so do their children.
reachable() {
	wait_for 60 "ping n1 -> 10.9.0.2" ping_works n1 10.9.0.2
	wait_for 60 "ping n2 -> 10.9.0.1" ping_works n2 10.9.0.1
	wait_for 60 "carrier on c1" has_carrier n1 c1
	wait_for 60 "carrier on c2" has_carrier n2 c2
	wait_for 60 "ping c1 -> 10.19.0.2" ping_works n1 10.19.0.2
}
reachable

# One stream each way for the whole soak: a client that exits early
# means a connection the rounds broke for good. Stopped at the end.
secs=$((600 + 120 * (osm + pkey + flap)))
bg_run n1 $((secs + 60)) iperf3 -s -1 -p 5301
bg_run n2 $((secs + 60)) iperf3 -s -1 -p 5302
wait_for 30 "iperf3 server in n1" ns_tcp_listening n1 5301
wait_for 30 "iperf3 server in n2" ns_tcp_listening n2 5302
bg_run n2 $((secs + 30)) iperf3 -c 10.9.0.1 -p 5301 -t "$secs" -f m -i 10
c2_pid=$BG_PID
bg_run n1 $((secs + 30)) iperf3 -c 10.9.0.2 -p 5302 -t "$secs" -f m -i 10
c1_pid=$BG_PID
wait_for 60 "the stream out of $IB2" sending n2 "$IB2"
wait_for 60 "the stream out of $IB1" sending n1 "$IB1"

alive() {
	kill -0 "$c1_pid" 2> /dev/null || fail "$1: the stream from n1 ended"
	kill -0 "$c2_pid" 2> /dev/null || fail "$1: the stream from n2 ended"
}
resweep() {
	check pkill -HUP -x opensm
	sleep 2
}
nocarrier() { ! has_carrier "$1" "$2"; }

done_osm=0 done_pkey=0 done_flap=0
rounds=$((osm > pkey ? osm : pkey))
rounds=$((flap > rounds ? flap : rounds))
for ((r = 1; r <= rounds; r++)); do
	if ((r <= osm)); then
		log "round $r: OpenSM restarted"
		stop_opensm
		sleep 2
		start_opensm
		reachable
		alive "OpenSM restart $r"
		done_osm=$r
	fi
	if ((r <= pkey)); then
		log "round $r: P_Key 0x8001 out and back"
		partitions without_p1
		resweep
		wait_for 60 "c1 to lose its carrier" nocarrier n1 c1
		partitions with_p1
		resweep
		reachable
		alive "P_Key change $r"
		done_pkey=$r
	fi
	if ((r <= flap)); then
		log "round $r: n2's interface down and up under the stream"
		check ip -n n2 link set dev "$IB2" down
		sleep 1
		check ip -n n2 link set dev "$IB2" up
		wait_for 60 "carrier on $IB2 in n2" has_carrier n2 "$IB2"
		reachable
		alive "flap $r"
		done_flap=$r
	fi
done

alive "the end"
wait_for 60 "the stream out of $IB2 at the end" sending n2 "$IB2"
wait_for 60 "the stream out of $IB1 at the end" sending n1 "$IB1"
bg_stop
# No QP left of a connection that went (draining, or leaked): softib1's
# RC QPs are those of the connections its debugfs lists.
qps_listed() {
	local q c
	q=$(rdma res show qp link softib1/1 | grep -c " type RC " || true)
	c=$(grep -c '^[rt]x ' "$(ipoib_debugfs softib1)/conns" || true)
	((q <= c))
}
wait_for 30 "softib1's RC QPs to be its connections'" qps_listed
check ping_works n2 10.9.0.1 -s 100
for ns_if in "n1 $IB1" "n2 $IB2"; do
	read -r ns ifc <<< "$ns_if"
	stuck=$(eth_stat "$ns" "$ifc" cm_srq_stuck)
	log "IB_SOAK $ns: osm=$done_osm pkey=$done_pkey flap=$done_flap" \
		"cm_connects=$(eth_stat "$ns" "$ifc" cm_connects)" \
		"cm_accepts=$(eth_stat "$ns" "$ifc" cm_accepts)" \
		"cm_rx_drains=$(eth_stat "$ns" "$ifc" cm_rx_drains)" \
		"cm_drain_timeouts=$(eth_stat "$ns" "$ifc" cm_drain_timeouts)" \
		"cm_srq_restarts=$(eth_stat "$ns" "$ifc" cm_srq_restarts)" \
		"cm_rejects=$(eth_stat "$ns" "$ifc" cm_rejects)" \
		"cm_srq_stuck=$stuck" \
		"mc_joins=$(eth_stat "$ns" "$ifc" mc_joins)"
	((stuck == 0)) || fail "$ifc: $stuck SRQ buffers never came back"
done
((done_osm == osm && done_pkey == pkey && done_flap == flap)) ||
	fail "rounds done: osm=$done_osm pkey=$done_pkey flap=$done_flap"
(($(eth_stat n1 "$IB1" cm_accepts) >= flap)) ||
	fail "n1 accepted fewer connections than n2's $flap flaps"
stop_opensm
check ip -n n1 link del c1
check ip -n n2 link del c2
unload_softib
log "ib-soak: PASS"
