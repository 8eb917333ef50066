#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ib-hostile: forged connected-mode REQs (review 2026-12 H3) on ib-ping's
# three hosts over softib and OpenSM. n2 streams TCP to n1 over RC in
# connected mode (RFC 4755); the initial namespace's host, softib0, runs
# cm_inject (tests/vm/hostile/cm_inject.c): CM REQ MADs on its QP1, to
# n1's LID, that claim what the injector chooses.
#
# Asserts:
# - 40 REQs in n2's name (n2's GID, UD QPN and LID) while n2's
#   connection to n1 is in use: every one refused and counted
#   (cm_rejects), n1 accepts nothing new, n2's connection is never
#   replaced (its cm_connects and cm_stalls stay), and the driver says
#   why once;
# - 40 REQs from 40 distinct forged peers whose answers go to a LID
#   nobody has (so each accepted one holds its QP while the CM retries its
#   REP, 8 s), with cm_rx_max 4: every REQ decided (accepted plus refused
#   is 40), at most 3 accepted beside n2's, and the RC QPs softib1 holds
#   seen at the cap, never above it (plus n1's own connections);
#   afterwards the forged connections go, their QPs with them, and n2's
#   stays;
# - a REQ of partition 0x8001, which softib1 is a member of but the
#   interface is not: refused and counted;
# - n2's stream carried on through all of it: after each step its
#   iperf3 client still runs and frames still arrive over RC into n1.

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

INJECT=$VM_REPO/build/hostile/cm_inject
[[ -x $INJECT ]] || fail "$INJECT: no such program (make hostile)"

load_softib
softib_hosts
softib_addrs 8
printf '%s\n' "Default=0x7fff, ipoib : ALL=full ;" \
	"Other=0x8001, ipoib : ALL=full ;" > /tmp/partitions.conf
osm_allow_sendonly ffff
start_opensm
wait_for 60 "carrier on $IB1 in n1" has_carrier n1 "$IB1"
wait_for 60 "carrier on $IB2 in n2" has_carrier n2 "$IB2"

check ip -n n1 link set dev "$IB1" type ipoib mode connected
check ip -n n2 link set dev "$IB2" type ipoib mode connected
wait_for 60 "ping n2 -> 10.8.0.1" ping_works n2 10.8.0.1

CAP=/sys/module/ipoib_ng/parameters/cm_rx_max
cap_was=$(< "$CAP")
check sh -c "echo 4 > $CAP"

# hw_qpn NS IF, hw_gid NS IF: the UD QPN and the GID of IF's address.
hw_qpn() {
	link_addr "$1" "$2" | awk -F: '{ printf "0x%s%s%s\n", $2, $3, $4 }'
}
hw_gid() {
	link_addr "$1" "$2" | awk -F: '{ for (i = 5; i <= 20; i += 2)
		printf "%s%s%s", $i, $(i + 1), (i < 19 ? ":" : "\n") }'
}
# rc_qps DEV: the RC QPs of DEV's port 1 that rdma's resource tracking
# lists (kernel QPs included).
rc_qps() {
	rdma res show qp link "$1/1" | grep -c " type RC " || true
}
# rx_conns: the connections peers made to n1 (debugfs conns).
rx_conns() {
	grep -c '^rx ' "$(ipoib_debugfs softib1)/conns" || true
}
# tx_conns: the connections n1 made (its TCP ACKs go over RC too).
tx_conns() {
	grep -c '^tx ' "$(ipoib_debugfs softib1)/conns" || true
}

V_LID=$(port_field softib1 "Base lid")
N2_LID=$(port_field softib2 "Base lid")
V_GID=$(hw_gid n1 "$IB1")
V_QPN=$(hw_qpn n1 "$IB1")
N2_GID=$(hw_gid n2 "$IB2")
N2_QPN=$(hw_qpn n2 "$IB2")
log "victim n1: LID $V_LID GID $V_GID QPN $V_QPN; n2: LID $N2_LID GID $N2_GID QPN $N2_QPN"
[[ $V_LID =~ ^[0-9]+$ && $N2_LID =~ ^[0-9]+$ ]] || fail "no LIDs ($V_LID, $N2_LID)"

log "n2 streams TCP to n1 over RC"
bg_run n1 80 iperf3 -s -1 -p 5201
wait_for 30 "iperf3 server in n1" ns_tcp_listening n1 5201
bg_run n2 220 iperf3 -c 10.8.0.1 -p 5201 -t 200 -f m
STREAM=$BG_PID
STREAM_LOG=/tmp/bg-$((${#_bg_pids[@]} - 1)).log
# stream_on WHEN: n2's client still runs, and frames still arrive over
# RC into n1 (its cm_rx_packets grows within 20 s).
stream_on() {
	local rx0
	kill -0 "$STREAM" 2> /dev/null || { cat "$STREAM_LOG"; fail "the stream stopped ($1)"; }
	rx0=$(eth_stat n1 "$IB1" cm_rx_packets)
	rx_grows() { (($(eth_stat n1 "$IB1" cm_rx_packets) > rx0)); }
	wait_for 20 "frames over RC into n1 ($1)" rx_grows
}
wait_for 60 "the stream into $IB1" sending n2 "$IB2"
(( $(rx_conns) == 1 )) || { cat "$(ipoib_debugfs softib1)/conns"; fail "n1 holds $(rx_conns) connections from peers, not n2's one"; }

# counters: n1's cm_rejects, cm_accepts and cm_rx_packets, n2's
# cm_connects and cm_stalls, on one line (for read X_rej X_acc X_rx
# X_con X_stall).
counters() {
	echo "$(eth_stat n1 "$IB1" cm_rejects) $(eth_stat n1 "$IB1" cm_accepts)" \
		"$(eth_stat n1 "$IB1" cm_rx_packets) $(eth_stat n2 "$IB2" cm_connects)" \
		"$(eth_stat n2 "$IB2" cm_stalls)"
}

kmsg "40 REQs in n2's name while its connection is in use"
read -r a_rej a_acc a_rx a_con a_stall < <(counters)
check "$INJECT" --dev softib0 --dlid "$V_LID" --victim-gid "$V_GID" \
	--victim-qpn "$V_QPN" --as-gid "$N2_GID" --as-qpn "$N2_QPN" \
	--as-lid "$N2_LID" --count 40 --interval-ms 25
refused_40() { (($(eth_stat n1 "$IB1" cm_rejects) >= a_rej + 40)); }
wait_for 10 "n1 to refuse 40 REQs" refused_40
read -r b_rej b_acc b_rx b_con b_stall < <(counters)
log "cm_rejects +$((b_rej - a_rej)), cm_accepts +$((b_acc - a_acc)); n2: cm_connects +$((b_con - a_con)), cm_stalls +$((b_stall - a_stall))"
((b_rej - a_rej == 40)) || fail "n1 refused $((b_rej - a_rej)) of the 40 REQs in n2's name"
((b_acc == a_acc)) || fail "n1 accepted $((b_acc - a_acc)) REQs in n2's name"
((b_con == a_con && b_stall == a_stall)) ||
	fail "n2's connection was replaced: cm_connects +$((b_con - a_con)), cm_stalls +$((b_stall - a_stall))"
((b_rx > a_rx)) || fail "no frame over RC into n1 while the REQs came"
stream_on "after the REQs in n2's name"
dmesg | grep -q "$IB1: REQ in the name of a peer whose connection is in use: refused" ||
	fail "no line says why the REQs were refused"

kmsg "40 REQs from 40 forged peers, answers to a LID nobody has, cm_rx_max 4"
read -r c_rej c_acc _ c_con c_stall < <(counters)
"$INJECT" --dev softib0 --dlid "$V_LID" --victim-gid "$V_GID" \
	--victim-qpn "$V_QPN" --as-gid fe80::5eed:0:1 --as-qpn 0x5e0000 \
	--as-lid 0x300 --count 40 --distinct > /tmp/flood.out 2>&1 &
flood=$!
# Looks for 6 s while the forged connections wait for their REPs'
# answers (8 s).
max_qps=0 max_tx=0
end=$((SECONDS + 6))
while ((SECONDS < end)); do
	q=$(rc_qps softib1) t=$(tx_conns)
	((q > max_qps)) && max_qps=$q
	((t > max_tx)) && max_tx=$t
	sleep 0.3
done
wait "$flood" || { cat /tmp/flood.out; fail "cm_inject failed"; }
cat /tmp/flood.out
decided() {
	read -r d_rej d_acc _ d_con d_stall < <(counters)
	((d_rej - c_rej + d_acc - c_acc >= 40))
}
wait_for 10 "n1 to decide 40 REQs" decided
read -r d_rej d_acc _ d_con d_stall < <(counters)
log "cm_accepts +$((d_acc - c_acc)), cm_rejects +$((d_rej - c_rej)); RC QPs on softib1 at most $max_qps (n1's own connections $max_tx)"
((d_acc - c_acc + d_rej - c_rej == 40)) ||
	fail "n1 decided $((d_acc - c_acc + d_rej - c_rej)) of 40 REQs"
((d_acc - c_acc >= 1)) || fail "no forged REQ was accepted: the flood never reached the cap"
((d_acc - c_acc <= 3)) || fail "$((d_acc - c_acc)) forged connections accepted beside n2's with cm_rx_max 4"
((max_qps <= 4 + max_tx)) || fail "softib1 held $max_qps RC QPs: above cm_rx_max 4 + $max_tx"
((max_qps >= 1 + d_acc - c_acc)) ||
	fail "softib1 was never seen holding the forged connections' QPs ($max_qps)"
((d_con == c_con && d_stall == c_stall)) ||
	fail "n2's connection was replaced in the flood: cm_connects +$((d_con - c_con)), cm_stalls +$((d_stall - c_stall))"
one_rx() { (($(rx_conns) == 1)); }
wait_for 30 "the forged connections to go" one_rx
grep '^rx ' "$(ipoib_debugfs softib1)/conns"
grep -q "^rx .* qpn $(printf '0x%06x' "$N2_QPN") " "$(ipoib_debugfs softib1)/conns" ||
	fail "n2's connection is not the one left"
fewer_qps() { (($(rc_qps softib1) <= 1 + $(tx_conns))); }
wait_for 30 "the forged connections' QPs to go" fewer_qps
stream_on "after the forged peers"

kmsg "a REQ of partition 0x8001 to the default partition's interface"
read -r e_rej e_acc _ < <(counters)
check "$INJECT" --dev softib0 --dlid "$V_LID" --victim-gid "$V_GID" \
	--victim-qpn "$V_QPN" --as-gid fe80::5eed:1:1 --as-qpn 0x5e1000 \
	--as-lid "$N2_LID" --pkey 0x8001
other_refused() {
	read -r f_rej f_acc _ < <(counters)
	((f_rej == e_rej + 1))
}
wait_for 10 "n1 to refuse the other partition's REQ" other_refused
((f_acc == e_acc)) || fail "n1 accepted a REQ of P_Key 0x8001"

stream_on "at the end"
tail -n 5 "$STREAM_LOG"
read -r _ _ _ g_con g_stall < <(counters)
((g_con == a_con && g_stall == a_stall)) ||
	fail "n2's connection was replaced: cm_connects +$((g_con - a_con)), cm_stalls +$((g_stall - a_stall))"
bg_stop
check sh -c "echo $cap_was > $CAP"
stop_opensm
unload_softib
log "ib-hostile: PASS"
