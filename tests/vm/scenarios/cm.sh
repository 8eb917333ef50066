#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cm: connected mode (RFC 4755) over soft-RoCE, driven as NetworkManager
# and iproute2 drive ib_ipoib. Topology of ping.sh: $IB1 (rxe0) in n1,
# $IB2 (rxe1) in n2, over a veth of MTU 9000 (an IB MTU of 4096: UD carries
# frames of 4092 bytes at most).
#
#  a) mode by sysfs (n1) and by netlink (n2): `ip -d link` says connected,
#     the MTU is 65520, the address has the C bit (0x80), and the kernel
#     log says so;
#  b) a ping of 60000 bytes goes whole (one IP packet, no fragments: the
#     IP counters prove it) over an RC connection each way: cm_connects,
#     cm_accepts, cm_tx_packets and cm_rx_packets count it;
#  c) iperf3 TCP over the connections, with 64 KB frames, from CPU 1 whose
#     transmit queue (XPS) is tx-1: the frames go on queue 0, whose CQ
#     the RC QPs complete on, and none over UD;
#  d) a peer in datagram mode: n1 sends it datagrams (RFC 4391) of its
#     link MTU; a large ping gets "fragmentation needed" from n1's own
#     driver (ICMP, mtu 4092) and the stack fragments the next ones;
#  e) back to connected, then the interfaces go down and up with the
#     connections open;
#  g) review 2026-12 H1: n2's connections to n1 cut in the middle of a
#     message, 16 times, with n1's SRQ at 16 buffers: n1 destroys each
#     QP only after its drain; where rxe loses the buffer a QP held (on
#     6.12 its receiver never completes the message in progress; on 6.1
#     it does), n1 restarts connected mode once the SRQ runs low with
#     buffers lost; afterwards every buffer is back in the SRQ on 6.1
#     (ethtool -S cm_srq_posted 16, cm_srq_stuck 0), at least a quarter
#     on 6.12 (those lost after the restart stay out), and a TCP stream
#     from n2 goes over RC;
#  h) review 2026-12 M2: va's and vb's MTU lowered to 1500 under a TCP
#     stream over the connections: they are made again for the RoCE path
#     MTU of 1024 (cm_connects), and the stream goes on;
#  f) cm_tx_max 0 (review M3: the cap on connections an interface makes):
#     n1 makes none, counts cm_tx_refused, and its frames go over
#     datagrams: small ones arrive, a large one with DF gets
#     "fragmentation needed" for the UD MTU from n1's driver; the cap raised, n1 connects
#     again. Then the module is unloaded with connections open.

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

setup_ipoib_netns_pair

# ip_stat NS FIELD: a counter of the Ip: line of /proc/net/snmp.
ip_stat() {
	# shellcheck disable=SC2016 # awk's own fields
	ip netns exec "$1" awk -v k="$2" '$1 == "Ip:" { if (!n) { for (i = 2; i <= NF; i++) h[i] = $i; n = 1 } else for (i = 2; i <= NF; i++) if (h[i] == k) print $i }' /proc/net/snmp
}

# mode_of NS IF: the mode `ip -d link` reports ("ipoib pkey P mode M").
mode_of() {
	ip -n "$1" -d link show dev "$2" | grep -o 'ipoib pkey [^ ]* mode [a-z]*' | awk '{ print "mode " $NF }'
}

# told_ud_mtu WHY: an 8000-byte ping from n1 to 10.1.0.2 with DF is
# refused, and ping and n1's route learn UD's MTU, 4092.
told_ud_mtu() {
	local out route
	out=$(ns_exec n1 ping -c 2 -i 0.5 -W 3 -s 8000 -M "do" 10.1.0.2 2>&1) || true
	echo "$out"
	route=$(ip -n n1 route get 10.1.0.2)
	echo "$route"
	grep -q "mtu 4092" <<< "$route" ||
		fail "n1 did not learn MTU 4092 for 10.1.0.2 $1"
	grep -qi "mtu = 4092\|mtu=4092\|message too long" <<< "$out" ||
		fail "ping was not told of MTU 4092 for an 8000-byte ping $1"
}

log "a) connected mode by sysfs and by netlink"
check ip netns exec n1 sh -c "echo connected > /sys/class/net/$IB1/mode"
check ip -n n2 link set dev "$IB2" type ipoib mode connected
for side in "n1 $IB1" "n2 $IB2"; do
	# shellcheck disable=SC2086 # "NS IF": split on purpose
	set -- $side
	m=$(ip netns exec "$1" cat "/sys/class/net/$2/mode")
	[[ $m == connected ]] || fail "sysfs mode of $2 is '$m'"
	[[ $(mode_of "$1" "$2") == "mode connected" ]] ||
		fail "ip -d link of $2 says '$(mode_of "$1" "$2")'"
	mtu=$(ip netns exec "$1" cat "/sys/class/net/$2/mtu")
	((mtu == 65520)) || fail "MTU of $2 is $mtu, want 65520"
	a=$(link_addr "$1" "$2")
	[[ ${a:0:2} == 80 ]] || fail "address of $2 ($a) lacks the C bit"
	wait_for 30 "carrier on $2 in $1" has_carrier "$1" "$2"
done
check ip -n n1 -d link show dev "$IB1"
dmesg | grep -q "$IB1: connected mode, MTU 65520" || fail "no log line for $IB1's mode"

log "b) 60000-byte pings go whole over RC connections"
frag1=$(ip_stat n1 FragCreates)
check_ping n1 10.1.0.2 -s 60000 -M "do"
check_ping n2 10.1.0.1 -s 60000 -M "do"
check_ping n1 fd00::2 -6 -s 60000 -M "do"
[[ $(ip_stat n1 FragCreates) == "$frag1" ]] || fail "n1 fragmented IP packets"
for side in "n1 $IB1" "n2 $IB2"; do
	# shellcheck disable=SC2086 # "NS IF": split on purpose
	set -- $side
	c=$(eth_stat "$1" "$2" cm_connects)
	a=$(eth_stat "$1" "$2" cm_accepts)
	t=$(eth_stat "$1" "$2" cm_tx_packets)
	r=$(eth_stat "$1" "$2" cm_rx_packets)
	log "$2: cm_connects $c cm_accepts $a cm_tx_packets $t cm_rx_packets $r"
	((c >= 1 && a >= 1)) || fail "$2 made $c and accepted $a connections"
	((t >= 6 && r >= 6)) || fail "$2 sent $t and received $r frames over RC"
	f=$(eth_stat "$1" "$2" cm_failures)
	((f == 0)) || fail "$2 counts $f failed connections"
done
# debugfs conns: n1 (rxe0) made a connection the core calls connected,
# and accepted n2's.
conns=$(cat "$(ipoib_debugfs rxe0)/conns") || fail "no debugfs conns for rxe0"
echo "$conns"
grep -q "^tx .* state connected " <<< "$conns" || fail "conns shows no connected tx"
grep -q "^rx .* idle_ms [0-9]" <<< "$conns" || fail "conns shows no rx connection"

log "c) iperf3 over the connections, sent from CPU 1, whose queue is tx-1"
# n1's frames to a C-bit peer go on transmit queue 0, whose CQ the RC QPs
# complete on, from whichever CPU (ndo_select_queue); one that went on
# queue 1 would go over UD, where 65000 bytes do not fit.
ns_exec n1 test -d "/sys/class/net/$IB1/queues/tx-1" ||
	fail "$IB1 has one transmit queue: the test VMs have two vCPUs, hence two"
xps n1 "$IB1" 1 2
q0=$(eth_stat n1 "$IB1" tx0_packets) || fail "no tx0_packets on $IB1"
q1=$(eth_stat n1 "$IB1" tx1_packets) || fail "no tx1_packets on $IB1"
ct=$(eth_stat n1 "$IB1" cm_tx_packets)
tb=$(eth_stat n1 "$IB1" drop_too_big)
iperf3_run n2 10.1.0.2 n1 "$VM_OUT/cm-iperf3.txt" -t 5 -l 65000 -A 1
mbps=$(iperf3_mbps "$VM_OUT/cm-iperf3.txt" receiver) || fail "no iperf3 summary"
ct=$(($(eth_stat n1 "$IB1" cm_tx_packets) - ct))
# cm_tx_packets counts a frame when it is posted, txN_packets when its
# send completes: the last may still be on its way.
q0_caught_up() { (($(eth_stat n1 "$IB1" tx0_packets) - q0 >= ct)); }
wait_for_quiet 10 q0_caught_up || true # judged below, with the figures
q0=$(($(eth_stat n1 "$IB1" tx0_packets) - q0))
q1=$(($(eth_stat n1 "$IB1" tx1_packets) - q1))
log "connected mode TCP from CPU 1: $mbps Mbit/s; cm_tx_packets +$ct, tx0_packets +$q0, tx1_packets +$q1"
# 300 frames of about 64 kB: 30 Mbit/s for 5 s, below what the slowest
# TCG machine has given (90 Mbit/s).
((ct >= 300)) || fail "only $ct frames over the connection"
mbps_c=$mbps
((q0 >= ct)) || fail "queue 0 counted $q0 sends, the connection $ct"
# What may still go on queue 1: broadcast and multicast (no C bit).
((q1 <= 20)) || fail "$q1 frames went on queue 1"
[[ $(eth_stat n1 "$IB1" drop_too_big) == "$tb" ]] ||
	fail "frames too big for UD: a connected frame went on queue 1"
xps n1 "$IB1" 0 0
check ip netns exec n1 ethtool -S "$IB1"

log "d) a peer in datagram mode"
check ip -n n2 link set dev "$IB2" type ipoib mode datagram
[[ $(mode_of n2 "$IB2") == "mode datagram" ]] || fail "$IB2 not back in datagram mode"
mtu=$(ip netns exec n2 cat "/sys/class/net/$IB2/mtu")
((mtu <= 4092)) || fail "datagram MTU of $IB2 is $mtu"
a=$(link_addr n2 "$IB2")
[[ ${a:0:2} == 00 ]] || fail "address of $IB2 ($a) still has the C bit"
# n1 learns the new address from the announcement, or re-resolves it.
wait_for 20 "n1 sees $IB2 without the C bit" \
	sh -c "ip -n n1 neigh show 10.1.0.2 dev $IB1 | grep -q ' 00:'"
check_ping n1 10.1.0.2 -s 1000
told_ud_mtu "from its driver's ICMP"
tb=$(eth_stat n1 "$IB1" drop_too_big)
((tb >= 1)) || fail "drop_too_big is $tb on $IB1"
# Without DF the stack now fragments to the learnt MTU.
check_ping n1 10.1.0.2 -s 8000

log "e) connected again; down and up; unload with connections open"
check ip netns exec n2 sh -c "echo connected > /sys/class/net/$IB2/mode"
wait_for 20 "n1 sees $IB2 with the C bit" \
	sh -c "ip -n n1 neigh show 10.1.0.2 dev $IB1 | grep -q ' 80:'"
check_ping n1 10.1.0.2 -s 30000
check ip -n n2 link set dev "$IB2" down
check ip -n n2 link set dev "$IB2" up
wait_for 30 "carrier on $IB2 in n2" has_carrier n2 "$IB2"
wait_for 30 "ping after $IB2 came back" ping_works n1 10.1.0.2 -s 30000
check_ping n2 10.1.0.1 -s 30000

log "g) review H1: connections to n1 cut in the middle of a message"
# rx_ring NS IF: the current RX ring size of ethtool -g.
rx_ring() {
	ip netns exec "$1" ethtool -g "$2" | awk '/^Current/ { c = 1 } c && /^RX:/ { print $2; exit }'
}
# cut_drops: packets va's ingress filters dropped (RC SEND_MIDDLE and
# SEND_LAST: the BTH opcode, the first byte after RoCEv2's UDP header).
cut_drops() {
	tc -s filter show dev va ingress | awk '/Sent .* pkt/ { n += $4 } END { print n + 0 }'
}
ring0=$(rx_ring n1 "$IB1")
check ip netns exec n1 ethtool -G "$IB1" rx 16
wait_for 30 "carrier on $IB1 in n1" has_carrier n1 "$IB1"
check tc qdisc add dev va ingress
drains0=$(eth_stat n1 "$IB1" cm_rx_drains)
timeouts0=$(eth_stat n1 "$IB1" cm_drain_timeouts)
restarts0=$(eth_stat n1 "$IB1" cm_srq_restarts)
for i in $(seq 16); do
	wait_for 30 "n2 reaches n1 ($i)" ping_works n2 10.1.0.1 -s 100
	for op in 0x01 0x02; do
		check tc filter add dev va ingress pref 10 protocol ipv6 u32 \
			match ip6 protocol 17 0xff match ip6 dport 4791 0xffff \
			match u8 "$op" 0xff at 48 action drop
	done
	d=$(cut_drops)
	# Three packets at the RoCE MTU of 4096: the first one gets through.
	ns_exec n2 ping -c 1 -W 1 -s 10000 10.1.0.1 > /dev/null 2>&1 || true
	(($(cut_drops) > d)) || fail "cycle $i: the filter dropped nothing"
	check ip -n n2 link set dev "$IB2" down
	check tc filter del dev va ingress pref 10
	check ip -n n2 link set dev "$IB2" up
	wait_for 30 "carrier on $IB2 in n2" has_carrier n2 "$IB2"
done
check tc qdisc del dev va ingress
# Every connection drained, but those a restart destroyed with the SRQ
# (the one draining and the one that came next, at most).
drained() {
	local d r
	d=$(($(eth_stat n1 "$IB1" cm_rx_drains) - drains0))
	r=$(($(eth_stat n1 "$IB1" cm_srq_restarts) - restarts0))
	((d + 2 * r >= 16))
}
wait_for_quiet 20 drained ||
	fail "n1 drained $(($(eth_stat n1 "$IB1" cm_rx_drains) - drains0)) of 16 connections"
to=$(($(eth_stat n1 "$IB1" cm_drain_timeouts) - timeouts0))
((to == 0)) || fail "n1 gave up on $to drains"
# Where the buffers were lost, the SRQ ran low at the 13th: a restart.
sleep 3
restarts=$(($(eth_stat n1 "$IB1" cm_srq_restarts) - restarts0))
log "$IB1: cm_rx_drains +$(($(eth_stat n1 "$IB1" cm_rx_drains) - drains0)), cm_srq_restarts +$restarts on $(uname -r)"
case $(uname -r) in
6.1.*) ((restarts == 0)) || fail "rxe of 6.1 flushes the message in progress, yet $restarts restarts" ;;
*) ((restarts >= 1)) || fail "16 buffers lost and no restart" ;;
esac
if ((restarts >= 1)); then
	dmesg | grep -q "$IB1: connected mode: the shared receive queue starved" ||
		fail "no log line for the restart"
fi
wait_for 30 "n2 reaches n1 after the cuts" ping_works n2 10.1.0.1 -s 100
# The buffers: every one posted; none taken before the newest one given
# back still out (cm_srq_stuck; nothing is in the middle of a message
# now) where rxe gives them back (6.1); where it loses them (6.12), those
# lost after the restart stay out until the next one, but at least a
# quarter are in the SRQ: below that its limit event restarts.
size=$(eth_stat n1 "$IB1" cm_srq_size)
posted=$(eth_stat n1 "$IB1" cm_srq_posted)
stuck=$(eth_stat n1 "$IB1" cm_srq_stuck)
log "$IB1: cm_srq_size $size, cm_srq_posted $posted, cm_srq_stuck $stuck after the cuts"
((size == 16 && posted == 16)) || fail "the SRQ holds $posted of $size buffers, the RX ring 16"
case $(uname -r) in
6.1.*) ((stuck == 0)) || fail "$stuck of the SRQ's buffers never came back" ;;
*) ((posted - stuck >= size / 4)) ||
	fail "$((posted - stuck)) buffers in the SRQ, below its limit of $((size / 4))" ;;
esac
r=$(eth_stat n1 "$IB1" cm_rx_packets)
iperf3_run n1 10.1.0.1 n2 "$VM_OUT/cm-cut-iperf3.txt" -t 5 -l 65000
r=$(($(eth_stat n1 "$IB1" cm_rx_packets) - r))
mbps=$(iperf3_mbps "$VM_OUT/cm-cut-iperf3.txt" receiver) || fail "no iperf3 summary"
log "$IB1: TCP from n2 after the cuts: $mbps Mbit/s (c: $mbps_c), cm_rx_packets +$r"
((r >= 300)) || fail "only $r frames came over RC after the cuts"
check ip netns exec n1 ethtool -G "$IB1" rx "$ring0"
wait_for 30 "carrier on $IB1 in n1" has_carrier n1 "$IB1"

log "h) review M2: the Ethernet MTU lowered under connected mode"
bg_run n2 60 iperf3 -s -1 -p 5211
wait_for 30 "iperf3 server in n2" ns_tcp_listening n2 5211
bg_run n1 60 iperf3 -c 10.1.0.2 -p 5211 -t 8 -l 65000 -f m
client=$BG_PID
client_log=/tmp/bg-$((${#_bg_pids[@]} - 1)).log
wait_for 30 "iperf3 traffic out of $IB1" sending n1 "$IB1"
c=$(eth_stat n1 "$IB1" cm_connects)
check ip link set dev va mtu 1500
check ip link set dev vb mtu 1500
t=$(eth_stat n1 "$IB1" cm_tx_packets)
wait "$client" || fail "iperf3 over RC did not survive the MTU change (exit $?): $(tail -n 3 "$client_log")"
grep -q "receiver" "$client_log" || fail "iperf3 over RC gave no summary"
bg_stop
c=$(($(eth_stat n1 "$IB1" cm_connects) - c))
t=$(($(eth_stat n1 "$IB1" cm_tx_packets) - t))
log "$IB1 after va's MTU: cm_connects +$c, cm_tx_packets +$t"
((c >= 1)) || fail "n1 kept its connections made for the larger MTU"
((t >= 100)) || fail "only $t frames over RC after the MTU change"
mtu=$(ip netns exec n1 cat "/sys/class/net/$IB1/mtu")
((mtu == 65520)) || fail "MTU of $IB1 is $mtu in connected mode, want 65520"
# Frames sent over UD while the connection was made again taught the
# route UD's MTU (the driver's ICMP, as in d): forgotten, a large
# ping goes over the new connection.
check ip -n n1 route flush cache
t=$(eth_stat n1 "$IB1" cm_tx_packets)
check_ping n1 10.1.0.2 -s 30000 -M "do"
(($(eth_stat n1 "$IB1" cm_tx_packets) > t)) || fail "the 30000-byte ping did not go over RC"
check ip link set dev va mtu 9000
check ip link set dev vb mtu 9000

log "f) cm_tx_max 0: n1's frames go over datagrams"
cap=/sys/module/ipoib_ng/parameters/cm_tx_max
check sh -c "echo 0 > $cap"
check ip -n n1 link set dev "$IB1" down
check ip -n n1 link set dev "$IB1" up
wait_for 30 "carrier on $IB1 in n1" has_carrier n1 "$IB1"
c=$(eth_stat n1 "$IB1" cm_connects)
t=$(eth_stat n1 "$IB1" cm_tx_packets)
ref=$(eth_stat n1 "$IB1" cm_tx_refused)
tb=$(eth_stat n1 "$IB1" drop_too_big)
# (Its IPv6 address went with the down: IPv4 from here.)
wait_for 30 "ping after $IB1 came back" ping_works n1 10.1.0.2 -s 1000
# Forget the MTU d) learnt for 10.1.0.2.
check ip -n n1 route flush cache
route=$(ip -n n1 route get 10.1.0.2)
! grep -q "mtu 4092" <<< "$route" || fail "the learnt MTU stayed: $route"
told_ud_mtu "with no connection"
[[ $(eth_stat n1 "$IB1" cm_connects) == "$c" ]] ||
	fail "n1 connected with cm_tx_max 0"
[[ $(eth_stat n1 "$IB1" cm_tx_packets) == "$t" ]] ||
	fail "n1 sent over RC with cm_tx_max 0"
ref2=$(eth_stat n1 "$IB1" cm_tx_refused)
((ref2 > ref)) || fail "cm_tx_refused stayed at $ref2"
(($(eth_stat n1 "$IB1" drop_too_big) > tb)) ||
	fail "no drop_too_big for the 8000-byte ping"
dmesg | grep -q "$IB1: connected mode: 0 connections.*cm_tx_refused" ||
	fail "no log line for the refused connection"
check sh -c "echo 1024 > $cap"
check_ping n1 10.1.0.2 -s 1000
(($(eth_stat n1 "$IB1" cm_connects) > c)) ||
	fail "n1 made no connection once the cap was raised"
log "$IB1: cm_tx_refused $ref -> $ref2, connected again"
check ip netns exec n1 ethtool -S "$IB1"
unload_ipoib
check_dmesg_clean "connected mode"
log "cm: PASS"
