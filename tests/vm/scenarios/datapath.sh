#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# datapath: what an administrator sees of ipoib_ng interfaces with the usual
# tools. ping.sh's topology; the tools run in n1 and n2 against the peer.
#
#   ip -d link   link/infiniband, 20-byte address (QPN + port GID), the
#                IPv4 broadcast address, "ipoib pkey 0xffff mode datagram"
#   arping       3 requests each way, 3 replies carrying the peer's address
#   ip neigh     20-byte lladdr entries both ways, equal to the peer's address
#   tcpdump      decoded ARP, ICMP and ICMPv6 (ND, echo) with addresses
#   iperf3       TCP and UDP, both directions, 3 s each; TCP's sends go to
#                the adapter in batches (ethtool -S tx_posts)
#   MTU          4092 (the maximum) with DF, fragmentation, 1280 with DF,
#                refused values (above the maximum, below 68); va's and
#                vb's MTU lowered to 1500 while iperf3 runs (review
#                2026-12 M2): the interfaces' follow the IB MTU (1020),
#                TCP goes on
#   ethtool      -i (driver, bus), link (speed of va), -g (ring sizes), -S
#                (counters agree with the kernel's, every drop reason listed)
#   ethtool -c/-C -C refused on rxe (no CQ moderation) with its message;
#                the kernel's NAPI deferral (napi_defer_hard_irqs,
#                gro_flush_timeout) honoured: pings wait for its timer;
#                -G rounds up, refuses < 16, and resizes twice while
#                iperf3 runs: TCP survives, the QPN changes, n2's
#                neighbour follows (no stale entry)
#   ethtool -l/-L  one transmit queue a CPU at most; -L tx 2: two tx
#                queues in sysfs, XPS sends CPU 0's pings on queue 0 and
#                CPU 1's on queue 1 (ethtool -S txN_packets), a broadcast
#                ping from queue 1's QP comes back dropped as ours
#                (drop_loopback), iperf3 -u -P 4 from CPU 1 on queue 1; back
#                to the default, n2's neighbour follows the new QPN
#   down/up      5 cycles, ping after each, the address (QPN) unchanged
#   TX watchdog  a plug qdisc on va stalls rxe0's transmit: the send ring
#                fills, the watchdog fires, the driver restarts the datapath;
#                after the unplug ping works again, with the same address
#
#  +------------ n1 ------------+             +------------ n2 ------------+
#  |  $IB1 (ipoib_ng on rxe0)   |             |  $IB2 (ipoib_ng on rxe1)   |
#  |  10.1.0.1/24  fd00::1/64   |             |  10.1.0.2/24  fd00::2/64   |
#  |  tcpdump, arping, iperf3   |             |  iperf3 -s, arping         |
#  +-------------|--------------+             +--------------|-------------+
#                |         IPoIB over UD (QPN + GID)         |
#  +-------------|------------ initial namespace ------------|-------------+
#  |           rxe0                                         rxe1           |
#  |             |              RoCEv2, UDP 4791              |            |
#  |            va  <============ veth, MTU 9000 ===========>  vb           |
#  +-----------------------------------------------------------------------+

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

# UDP rate well below what TCP reaches under TCG (~50-100 Mbit/s), and the
# loss iperf3 may report at that rate before the datapath is suspect.
UDP_RATE=${UDP_RATE:-20M}
UDP_MAX_LOSS=${UDP_MAX_LOSS:-20}
BCAST='00:ff:ff:ff:ff:12:40:1b:ff:ff:00:00:00:00:00:00:ff:ff:ff:ff'

setup_ipoib_netns_pair

# check_link NS IF RXE: ip -d link show, parsed.
check_link() {
	local ns=$1 ifc=$2 rxe=$3 out addr gid
	out=$(ip -n "$ns" -d link show dev "$ifc")
	echo "$out"
	[[ $out == *" link/infiniband "* ]] || fail "$ifc: not link/infiniband"
	[[ $out =~ link/infiniband\ (([0-9a-f]{2}:){19}[0-9a-f]{2})\ brd\ (([0-9a-f]{2}:){19}[0-9a-f]{2}) ]] ||
		fail "$ifc: no 20-byte address and broadcast address"
	addr=${BASH_REMATCH[1]}
	[[ ${BASH_REMATCH[3]} == "$BCAST" ]] ||
		fail "$ifc: broadcast ${BASH_REMATCH[3]}, expected $BCAST (QPN 0xffffff, ff12:401b:ffff::ffff:ffff)"
	[[ $out == *"ipoib pkey 0xffff mode datagram"* ]] ||
		fail "$ifc: no 'ipoib pkey 0xffff mode datagram' in ip -d link"
	[[ $out =~ \ mtu\ 4092\  ]] || fail "$ifc: MTU is not 4092 (IB MTU 4096 on a veth MTU 9000)"
	[[ $out == *"minmtu 68 maxmtu 4092"* ]] || fail "$ifc: not 'minmtu 68 maxmtu 4092'"
	gid=$(gid_bytes "$(< "/sys/class/infiniband/$rxe/ports/1/gids/0")")
	[[ ${addr:12} == "$gid" ]] || fail "$ifc: address $addr does not end with $rxe's GID 0 $gid"
	[[ ${addr:0:2} == 00 && ${addr:3:8} != 00:00:00 ]] ||
		fail "$ifc: address $addr: flags byte not 0 or QPN 0"
	log "$ifc: QPN 0x${addr:3:2}${addr:6:2}${addr:9:2}, GID 0 of $rxe, broadcast and P_Key as expected"
	[[ $(ns_exec "$ns" cat "/sys/class/net/$ifc/type") == 32 ]] || fail "$ifc: type is not ARPHRD_INFINIBAND (32)"
	[[ $(ns_exec "$ns" cat "/sys/class/net/$ifc/addr_len") == 20 ]] || fail "$ifc: addr_len is not 20"
	[[ $(ns_exec "$ns" cat "/sys/class/net/$ifc/ibdev") == "$rxe" ]] || fail "$ifc: sysfs ibdev is not $rxe"
	[[ $(ns_exec "$ns" cat "/sys/class/net/$ifc/ibport") == 1 ]] || fail "$ifc: sysfs ibport is not 1"
	[[ $(ns_exec "$ns" cat "/sys/class/net/$ifc/pkey") == 0xffff ]] || fail "$ifc: sysfs pkey is not 0xffff"
	[[ $(ns_exec "$ns" cat "/sys/class/net/$ifc/mode") == datagram ]] || fail "$ifc: sysfs mode is not datagram"
}

kmsg "link: ip -d link show, sysfs"
check_link n1 "$IB1" rxe0
check_link n2 "$IB2" rxe1
ADDR1=$(link_addr n1 "$IB1")
ADDR2=$(link_addr n2 "$IB2")
log "$IB1 $ADDR1"
log "$IB2 $ADDR2"

kmsg "ethtool"
out=$(ns_exec n1 ethtool -i "$IB1")
echo "$out"
[[ $out == *"driver: ipoib_ng"* ]] || fail "ethtool -i: driver is not ipoib_ng"
[[ $out =~ bus-info:\ rxe0 ]] || fail "ethtool -i: bus-info is not the RDMA device rxe0"
out=$(ns_exec n1 ethtool "$IB1")
echo "$out"
[[ $out == *"Link detected: yes"* ]] || fail "ethtool: link not detected"
[[ $out == *"Speed: $(ethtool va | awk '$1 == "Speed:" { print $2 }')"* ]] ||
	fail "ethtool: speed is not va's (the RoCE netdev's)"
out=$(ns_exec n1 ethtool -g "$IB1")
echo "$out"
[[ $(awk '/^Pre-set/ { s = 1 } s && $1 == "RX:" { print $2; exit }' <<< "$out") == 8192 &&
	$(awk '/^Current/ { s = 1 } s && $1 == "RX:" { print $2; exit }' <<< "$out") == 512 &&
	$(awk '/^Current/ { s = 1 } s && $1 == "TX:" { print $2; exit }' <<< "$out") == 256 ]] ||
	fail "ethtool -g: not maximum 8192, RX 512, TX 256 (the module's defaults)"
# Offloads: scatter-gather when the adapter has more than one send SGE
# (rxe has), switchable; no checksum offload in datagram mode.
out=$(ns_exec n1 ethtool -k "$IB1")
grep -E '^(scatter-gather|tx-checksumming|rx-checksumming):' <<< "$out"
grep -q '^scatter-gather: on$' <<< "$out" || fail "ethtool -k: scatter-gather is not on"
grep -q '^tx-checksumming: off' <<< "$out" || fail "ethtool -k: tx-checksumming is not off"
check ns_exec n1 ethtool -K "$IB1" sg off
ns_exec n1 ethtool -k "$IB1" | grep -q '^scatter-gather: off$' || fail "ethtool -K sg off did not stick"
check_ping n1 10.1.0.2 -s 3000
check ns_exec n1 ethtool -K "$IB1" sg on
ns_exec n1 ethtool -k "$IB1" | grep -q '^scatter-gather: on$' || fail "ethtool -K sg on did not stick"
# The counters agree with the kernel's, read before and after.
before=$(if_stat n1 "$IB1" rx_packets)
stats=$(ns_exec n1 ethtool -S "$IB1")
after=$(if_stat n1 "$IB1" rx_packets)
echo "$stats"
rx_eth=$(awk '$1 == "rx_packets:" { print $2 }' <<< "$stats")
((before <= rx_eth && rx_eth <= after)) ||
	fail "ethtool -S rx_packets $rx_eth is not between the kernel's $before and $after"
for c in tx_packets mc_joins path_queries path_evictions drop_loopback drop_queue_full \
	drop_link_down drop_path_table_full; do
	grep -q "^ *$c: [0-9]" <<< "$stats" || fail "ethtool -S: no counter $c"
done
(($(awk '$1 == "mc_joins:" { print $2 }' <<< "$stats") > 0)) || fail "ethtool -S: mc_joins is 0"

# arp_capture NS IF FILE: tcpdump of IF's ARP frames into FILE, in the
# background (its pid in CAP_PID); returns once it listens.
arp_capture() {
	ip netns exec "$1" timeout 60 tcpdump -p -l -nn -i "$2" arp > "$3" 2> "$3.err" &
	CAP_PID=$!
	wait_for 30 "tcpdump on $2 in $1 to listen" grep -q 'listening on' "$3.err"
}

# check_arping NS IF ADDR PEER_NS PEER_IF PEER_HWADDR: 3 probes, each
# answered with the peer's address. A capture at each end, below arping,
# checks the wire: every ARP request for ADDR that left NS reached the
# peer once and was answered once, every answer reached NS once. ARP
# cannot tell which request a reply answers, and arping counts every
# reply from ADDR to this host: the kernel's own neighbour probes (a
# request without a target address, which NS's kernel may send to ADDR
# while arping runs) are answered too, and arping then counts one reply
# more than it sent probes (seen on 6.12-rt). So arping's count is
# between 3 and the replies the capture saw arrive.
check_arping() {
	local ns=$1 ifc=$2 addr=$3 pns=$4 pifc=$5 peer=$6 out rc=0 n a
	local here=/tmp/arp-$ns.txt there=/tmp/arp-$pns.txt pid_here pid_there
	local req_here req_there probes_there rep_there rep_here

	arp_capture "$ns" "$ifc" "$here"
	pid_here=$CAP_PID
	arp_capture "$pns" "$pifc" "$there"
	pid_there=$CAP_PID
	log "\$ ip netns exec $ns arping -I $ifc -c 3 $addr"
	out=$(ns_exec "$ns" timeout 30 arping -I "$ifc" -c 3 "$addr" 2>&1) || rc=$?
	echo "$out"
	sleep 1
	kill -TERM "$pid_here" "$pid_there" 2> /dev/null || true
	wait "$pid_here" "$pid_there" || true
	log "capture in $ns:"
	cat "$here"
	log "capture in $pns:"
	cat "$there"
	a=${addr//./\\.}
	req_here=$(grep -Ec "Request who-has $a .*, length" "$here" || true)
	req_there=$(grep -Ec "Request who-has $a .*, length" "$there" || true)
	# arping's requests carry a target address, the kernel's do not.
	probes_there=$(grep -Ec "Request who-has $a \(" "$there" || true)
	rep_there=$(grep -Ec "Reply $a is-at $peer" "$there" || true)
	rep_here=$(grep -Ec "Reply $a is-at $peer" "$here" || true)
	log "the wire: $req_here requests from $ns ($probes_there arping's), $req_there reached $pns," \
		"$rep_there replies, $rep_here reached $ns"
	[[ $out == *"Sent 3 probes"* ]] || fail "arping $addr from $ns: not 3 probes sent"
	((probes_there == 3)) || fail "arping $addr from $ns: $probes_there of its 3 requests reached $pns"
	((req_there == req_here)) || fail "arping $addr from $ns: $req_here requests sent, $req_there reached $pns"
	((rep_there == req_there)) || fail "arping $addr from $ns: $pns sent $rep_there replies to $req_there requests"
	((rep_here == rep_there)) || fail "arping $addr from $ns: $rep_here replies reached $ns, $rep_there were sent"
	n=$(grep -ci "reply from $addr \[${peer}\]" <<< "$out" || true)
	[[ $out =~ Received\ ([0-9]+)\ response ]] || fail "arping $addr from $ns: no count of replies"
	((n == BASH_REMATCH[1])) ||
		fail "arping $addr from $ns: $n of ${BASH_REMATCH[1]} replies carry the peer's address $peer"
	((n >= 3 && n <= rep_here)) ||
		fail "arping $addr from $ns: $n replies to 3 probes, $rep_here on the wire"
	if ((n > 3)); then
		log "arping $addr from $ns: counted $n replies, $((n - 3)) of them to the kernel's own probes"
	elif ((rc != 0)); then
		fail "arping $addr from $ns exited $rc"
	fi
}

kmsg "arping"
check_arping n1 "$IB1" 10.1.0.2 n2 "$IB2" "$ADDR2"
check_arping n2 "$IB2" 10.1.0.1 n1 "$IB1" "$ADDR1"

# check_neigh_is NS IF ADDR HWADDR: the neighbour entry holds HWADDR.
check_neigh_is() {
	check_neigh "$1" "$2" "$3"
	[[ $(ip -n "$1" neigh show "$3" dev "$2") == *"lladdr $4 "* ]] ||
		fail "$1: neighbour $3 is not at the peer's address $4"
}

kmsg "neighbours"
check_ping n1 fd00::2
check_ping n2 fd00::1
check_neigh_is n1 "$IB1" 10.1.0.2 "$ADDR2"
check_neigh_is n2 "$IB2" 10.1.0.1 "$ADDR1"
check_neigh_is n1 "$IB1" fd00::2 "$ADDR2"
check_neigh_is n2 "$IB2" fd00::1 "$ADDR1"

kmsg "tcpdump on $IB1 while resolving and pinging"
check ip -n n1 neigh flush dev "$IB1"
check ip -n n2 neigh flush dev "$IB2"
cap=$VM_OUT/tcpdump-$IB1.txt
# ip netns exec execs timeout, which passes SIGTERM on to tcpdump.
ip netns exec n1 timeout 90 tcpdump -l -i "$IB1" -nn -e -c 60 'arp or icmp or icmp6' \
	> "$cap" 2> /tmp/tcpdump.err &
tdpid=$!
wait_for 30 "tcpdump to listen" grep -q 'listening on' /tmp/tcpdump.err
check_ping n1 10.1.0.2
check_ping n1 fd00::2
sleep 1
kill -TERM "$tdpid" 2> /dev/null || true
wait "$tdpid" || true
cat /tmp/tcpdump.err
log "capture ($cap):"
cat "$cap"
# expect_line WHAT ERE: a line of the capture matches.
expect_line() {
	grep -Eq -- "$2" "$cap" || fail "tcpdump: no $1 (/$2/) in the capture"
	log "tcpdump: $1: $(grep -Ec -- "$2" "$cap") line(s)"
}
grep -q 'link-type LINUX_SLL' /tmp/tcpdump.err || fail "tcpdump: not a cooked (LINUX_SLL) capture"
expect_line "ARP request" 'ethertype ARP .*Request who-has 10\.1\.0\.2 .*tell 10\.1\.0\.1'
expect_line "ARP reply with the peer's address" "ethertype ARP .*Reply 10\.1\.0\.2 is-at $ADDR2"
expect_line "ICMP echo request" 'ethertype IPv4 .*10\.1\.0\.1 > 10\.1\.0\.2: ICMP echo request'
expect_line "ICMP echo reply" 'ethertype IPv4 .*10\.1\.0\.2 > 10\.1\.0\.1: ICMP echo reply'
expect_line "ICMP6 neighbor solicitation" 'ethertype IPv6 .* > ff02::1:ff00:2: ICMP6, neighbor solicitation, who has fd00::2'
expect_line "ICMP6 neighbor advertisement" 'ethertype IPv6 .*fd00::2 > [0-9a-f:]+: ICMP6, neighbor advertisement, tgt is fd00::2'
expect_line "ICMP6 echo request" 'ethertype IPv6 .*fd00::1 > fd00::2: ICMP6, echo request'
expect_line "ICMP6 echo reply" 'ethertype IPv6 .*fd00::2 > fd00::1: ICMP6, echo reply'
expect_line "outgoing packets" ' Out ethertype '
expect_line "incoming packets" ' In ethertype '

kmsg "iperf3"
figures=()
# iperf3_check NAME LOG udp|tcp: nonzero goodput, bounded UDP loss.
iperf3_check() {
	local name=$1 out=$2 mbps loss
	mbps=$(iperf3_mbps "$out" receiver) || fail "$name: no receiver bitrate in the iperf3 output"
	awk -v v="$mbps" 'BEGIN { exit !(v > 0) }' || fail "$name: receiver goodput $mbps Mbit/s"
	if [[ $3 == udp ]]; then
		loss=$(iperf3_udp_loss "$out") || fail "$name: no UDP loss figure in the iperf3 output"
		awk -v v="$loss" -v m="$UDP_MAX_LOSS" 'BEGIN { exit !(v <= m) }' ||
			fail "$name: UDP loss $loss% above $UDP_MAX_LOSS%"
		figures+=("$name: $mbps Mbit/s received, loss $loss% (sent at $UDP_RATE)")
	else
		figures+=("$name: $mbps Mbit/s received")
	fi
	log "${figures[-1]}"
}
# TCP's GSO trains reach the driver with netdev_xmit_more(): they go to
# the adapter in batches (issue 23), counted in tx_posts; one post per
# packet would mean no batching.
pk0=$(eth_stat n1 "$IB1" tx_packets) || fail "no tx_packets in ethtool -S"
po0=$(eth_stat n1 "$IB1" tx_posts) || fail "no tx_posts in ethtool -S"
iperf3_run n2 10.1.0.2 n1 /tmp/tcp-12.log -t 3
iperf3_check "TCP n1 -> n2" /tmp/tcp-12.log tcp
pk=$(($(eth_stat n1 "$IB1" tx_packets) - pk0))
po=$(($(eth_stat n1 "$IB1" tx_posts) - po0))
log "TCP n1 -> n2: $pk sends in $po posts"
((po > 0 && po * 2 <= pk)) || fail "TCP n1 -> n2: $pk sends in $po posts: not batched"
iperf3_run n2 10.1.0.2 n1 /tmp/tcp-21.log -t 3 -R
iperf3_check "TCP n2 -> n1" /tmp/tcp-21.log tcp
iperf3_run n2 10.1.0.2 n1 /tmp/udp-12.log -t 3 -u -b "$UDP_RATE"
iperf3_check "UDP n1 -> n2" /tmp/udp-12.log udp
iperf3_run n2 10.1.0.2 n1 /tmp/udp-21.log -t 3 -u -b "$UDP_RATE" -R
iperf3_check "UDP n2 -> n1" /tmp/udp-21.log udp
iperf3_run n1 fd00::1 n2 /tmp/tcp6-21.log -t 3
iperf3_check "TCP/IPv6 n2 -> n1" /tmp/tcp6-21.log tcp
printf 'iperf3: %s\n' "${figures[@]}" | tee "$VM_OUT/iperf3.txt"

# mtu_is NS IF N
mtu_is() {
	[[ $(ns_exec "$1" cat "/sys/class/net/$2/mtu") == "$3" ]] ||
		fail "$2 in $1: MTU $(ns_exec "$1" cat "/sys/class/net/$2/mtu"), expected $3"
}

# check_ping_too_big NS ADDR SIZE MTU: ping -M do -s SIZE fails locally.
check_ping_too_big() {
	local out rc=0
	log "\$ ! ip netns exec $1 ping -c 2 -W 2 -M do -s $3 $2"
	out=$(ns_exec "$1" timeout 30 ping -c 2 -i 0.3 -W 2 -M "do" -s "$3" "$2" 2>&1) || rc=$?
	echo "$out"
	((rc != 0 && rc != 124)) || fail "ping -M do -s $3 from $1 exited $rc, expected a failure"
	[[ $out == *"message too long, mtu=$4"* ]] ||
		fail "ping -M do -s $3 from $1 did not fail locally with 'message too long, mtu=$4'"
}

kmsg "MTU"
check ip -n n1 link set dev "$IB1" mtu 4092
check ip -n n2 link set dev "$IB2" mtu 4092
check_ping n1 10.1.0.2 -s 4000 -M "do"
check_ping n2 10.1.0.1 -s 4000 -M "do"
check_ping n1 fd00::2 -s 4000 -M "do"
check_ping n1 10.1.0.2 -s 4064 -M "do"
check_ping_too_big n1 10.1.0.2 4065 4092
# Larger than the MTU without DF: IPv4 and IPv6 fragments.
check_ping n1 10.1.0.2 -s 9000
check_ping n2 fd00::1 -s 9000
check_fails ip -n n1 link set dev "$IB1" mtu 4093
check_fails ip -n n1 link set dev "$IB1" mtu 5000
check_fails ip -n n1 link set dev "$IB1" mtu 67
mtu_is n1 "$IB1" 4092
check ip -n n1 link set dev "$IB1" mtu 1280
mtu_is n1 "$IB1" 1280
check_ping n1 10.1.0.2 -s 1200
check_ping n1 10.1.0.2 -s 1252 -M "do"
check_ping_too_big n1 10.1.0.2 1300 1280
check_ping n1 fd00::2 -s 1232 -M "do"
check_ping n1 10.1.0.2 -s 3000
check ip -n n1 link set dev "$IB1" mtu 4092
check_ping n1 10.1.0.2 -s 4000 -M "do"

kmsg "va's and vb's MTU lowered under traffic (review 2026-12 M2)"
# rxe0's and rxe1's IB MTU follow va's and vb's (1500: 1024); a UD send
# longer than that would complete unsent. The interfaces' MTUs follow at
# once, and TCP from n1 to n2 goes on.
bg_run n2 60 iperf3 -s -1 -p 5210
wait_for 30 "iperf3 server in n2" ns_tcp_listening n2 5210
bg_run n1 60 iperf3 -c 10.1.0.2 -p 5210 -t 8 -f m
client=$BG_PID
client_log=/tmp/bg-$((${#_bg_pids[@]} - 1)).log
wait_for 30 "iperf3 traffic out of $IB1" sending n1 "$IB1"
check ip link set dev va mtu 1500
check ip link set dev vb mtu 1500
for side in "n1 $IB1 va" "n2 $IB2 vb"; do
	# shellcheck disable=SC2086 # "NS IF ETH": split on purpose
	set -- $side
	mtu_is "$1" "$2" 1020
	ns_exec "$1" ip -d link show dev "$2" | grep -q "maxmtu 1020" ||
		fail "$2's maxmtu did not follow $3's MTU: $(ns_exec "$1" ip -d link show dev "$2")"
	dmesg | grep -q "$2: $3's MTU is 1500: IB MTU 1024" || fail "no log line for $3's MTU"
done
check_ping_too_big n1 10.1.0.2 3000 1020
check_ping n1 10.1.0.2 -s 900 -M "do"
check_ping n2 10.1.0.1 -s 900 -M "do"
wait "$client" || fail "iperf3 from n1 did not survive the MTU change (exit $?): $(tail -n 3 "$client_log")"
grep -q "receiver" "$client_log" || fail "iperf3 from n1 gave no summary"
bg_stop
check ip link set dev va mtu 9000
check ip link set dev vb mtu 9000
for side in "n1 $IB1" "n2 $IB2"; do
	# shellcheck disable=SC2086 # "NS IF": split on purpose
	set -- $side
	ns_exec "$1" ip -d link show dev "$2" | grep -q "maxmtu 4092" ||
		fail "$2's maxmtu did not come back with the Ethernet MTU"
	check ip -n "$1" link set dev "$2" mtu 4092
done
check_ping n1 10.1.0.2 -s 4000 -M "do"

kmsg "down/up cycles"
for i in 1 2 3 4 5; do
	if ((i % 2)); then ns=n1 ifc=$IB1 addr=$ADDR1 peer=10.1.0.2; else ns=n2 ifc=$IB2 addr=$ADDR2 peer=10.1.0.1; fi
	log "cycle $i: $ifc in $ns"
	check ip -n "$ns" link set dev "$ifc" down
	! has_carrier "$ns" "$ifc" || fail "$ifc still has a carrier while down"
	check ip -n "$ns" link set dev "$ifc" up
	wait_for 30 "carrier on $ifc in $ns" has_carrier "$ns" "$ifc"
	check_ping "$ns" "$peer"
	[[ $(link_addr "$ns" "$ifc") == "$addr" ]] ||
		fail "$ifc: address changed across down/up: $(link_addr "$ns" "$ifc"), was $addr"
done
# IPv6 after the cycles: link-local comes back by itself; fd00:: is re-added
# (addresses are flushed on down unless keep_addr_on_down).
wait_for 30 "link-local address on $IB1 in n1" ll_addr6 n1 "$IB1"
wait_for 30 "link-local address on $IB2 in n2" ll_addr6 n2 "$IB2"
check_ping n1 "$(ll_addr6 n2 "$IB2")%$IB1" -6
check ip -n n1 addr replace fd00::1/64 dev "$IB1" nodad
check ip -n n2 addr replace fd00::2/64 dev "$IB2" nodad
check_ping n1 fd00::2
check_ping n2 fd00::1

kmsg "TX watchdog: rxe0's transmit stalled by a plug qdisc on va"
# rxe completes a UD send once its datagram is queued on va, but stops
# taking sends while 64 of its datagrams wait there: a plugged qdisc stops
# the send completions as a hung adapter would.
# tx_timeouts: the kernel's count of transmit timeouts of $IB1's queues,
# summed (the flood goes to whichever queue its CPU or hash picks).
tx_timeouts() {
	ns_exec n1 sh -c "cat /sys/class/net/$IB1/queues/tx-*/tx_timeout" |
		awk '{ n += $1 } END { print n + 0 }'
}
tx_timed_out_since() {
	(($(tx_timeouts) > $1))
}
check modprobe sch_plug
t0=$(tx_timeouts)
check tc qdisc add dev va root plug
udp_blast n1 10.1.0.2 120 &
flood=$!
wait_for 90 "a transmit timeout on $IB1" tx_timed_out_since "$t0"
wait_for 30 "the datapath restart" \
	bash -c "dmesg | grep -q '$IB1: restarting the datapath after a transmit timeout'"
kill "$flood" 2> /dev/null || true
wait "$flood" 2> /dev/null || true
check tc qdisc del dev va root
wait_for 30 "carrier on $IB1 in n1" has_carrier n1 "$IB1"
check_ping n1 10.1.0.2
check_ping n2 10.1.0.1
[[ $(link_addr n1 "$IB1") == "$ADDR1" ]] ||
	fail "$IB1: address changed across the restart: $(link_addr n1 "$IB1"), was $ADDR1"
dmesg | grep -E "$IB1: (transmit timeout|restarting)|NETDEV WATCHDOG" || true

kmsg "ethtool -c/-C/-G, -G while iperf3 runs"
out=$(ns_exec n1 ethtool -c "$IB1")
echo "$out"
[[ $(awk '$1 == "rx-usecs:" { print $2 }' <<< "$out") == 0 ]] || fail "ethtool -c: rx-usecs is not 0"
# rxe has no CQ moderation (no modify_cq): refused, saying why.
err=$(ns_exec n1 ethtool -C "$IB1" rx-usecs 10 2>&1) && fail "ethtool -C succeeded on rxe"
log "ethtool -C: $err"
[[ $err == *"no completion moderation"* ]] || fail "ethtool -C: no extack message: $err"

# The kernel's interrupt deferral (napi_defer_hard_irqs, gro_flush_timeout):
# a NAPI poll that did work re-arms its CQ only when napi_complete_done()
# says so, otherwise the kernel polls again from a timer. With a 2 s
# timeout on n1, the first of 6 pings 0.2 s apart is answered on its
# event and the 5 after it wait for the timer (1.0 to 1.8 s), none lost;
# set back, round trips are short again. A driver that re-arms after
# every poll (the in-tree one) answers each at once. (The UD receive
# poll; TX and connected mode's SRQ polls follow the same rule.)
# napi_defer NS IF N TIMEOUT_NS
napi_defer() {
	check ns_exec "$1" sh -c "echo $3 > /sys/class/net/$2/napi_defer_hard_irqs && echo $4 > /sys/class/net/$2/gro_flush_timeout"
}
# six_pings NS ADDR FILE: pings 0.2 s apart until 6 replies came (-w 5:
# ping waits for them, not two round trips), their output in FILE; the
# first 6 must all be answered. (While replies wait, ping sends more.)
six_pings() {
	if ! ns_exec "$1" ping -c 6 -i 0.2 -w 5 "$2" > "$3" 2>&1; then
		cat "$3"
		fail "ping $2 from $1 failed"
	fi
	cat "$3"
	[[ $(ping_times "$3" | awk '$1 >= 1 && $1 <= 6 { n++ } END { print n + 0 }') == 6 ]] ||
		fail "ping $2 from $1: pings 1 to 6 were not all answered"
}
napi_defer n1 "$IB1" 1 2000000000
six_pings n2 10.1.0.1 /tmp/defer-pings.txt
slow=$(ping_times /tmp/defer-pings.txt | awk '$1 > 1 && $1 <= 6 && $2 >= 500 { n++ } END { print n + 0 }')
log "napi_defer_hard_irqs 1, gro_flush_timeout 2 s on $IB1: $slow of pings 2-6 waited 0.5 s or more"
((slow == 5)) ||
	fail "with interrupt deferral on $IB1, $slow of pings 2-6 waited for the kernel's timer, not 5: the CQ was re-armed"
napi_defer n1 "$IB1" 0 0
# The last deferred poll's timer is still set: let it fire first.
sleep 2.5
six_pings n2 10.1.0.1 /tmp/defer-pings.txt
read -r rtt _ < <(ping_times /tmp/defer-pings.txt | awk '$1 <= 6' | rtt_p50_p99)
log "deferral off: median round trip $rtt us"
((rtt < 50000)) || fail "deferral off, the median round trip is still $rtt us"

err=$(ns_exec n1 ethtool -G "$IB1" rx 8 2>&1) && fail "ethtool -G rx 8 succeeded"
[[ $err == *"at least 16"* ]] || fail "ethtool -G rx 8: no extack message: $err"
# ring_sizes NS IF: "RX TX" of ethtool -g's current settings.
ring_sizes() {
	ns_exec "$1" ethtool -g "$2" |
		awk '/^Current/ { s = 1 } s && ($1 == "RX:" || $1 == "TX:") { printf "%s ", $2 }'
}
check ns_exec n1 ethtool -G "$IB1" rx 100 tx 1000
[[ $(ring_sizes n1 "$IB1") == "128 1024 " ]] || fail "ethtool -G rx 100 tx 1000: now $(ring_sizes n1 "$IB1"), not rounded up to 128 1024"
wait_for 30 "carrier on $IB1 in n1" has_carrier n1 "$IB1"
check_ping n1 10.1.0.2
# TCP from n2 to n1 while n1's rings (and QP, and QPN) change twice.
ns_exec n1 timeout 120 iperf3 -s -1 -p 5210 > /tmp/g.server 2>&1 &
spid=$!
wait_for 30 "the iperf3 server in n1" ns_tcp_listening n1 5210
ns_exec n2 timeout 120 iperf3 -c 10.1.0.1 -p 5210 -t 12 -f m > /tmp/g.client 2>&1 &
cpid=$!
sleep 3
check ns_exec n1 ethtool -G "$IB1" rx 1024 tx 512
sleep 3
check ns_exec n1 ethtool -G "$IB1" rx 512 tx 256
rc=0
wait "$cpid" || rc=$?
cat /tmp/g.client
((rc == 0)) || fail "iperf3 across ethtool -G exited $rc"
wait "$spid" || true
[[ $(ring_sizes n1 "$IB1") == "512 256 " ]] || fail "ethtool -g after -G: $(ring_sizes n1 "$IB1")"
new=$(link_addr n1 "$IB1")
log "$IB1: $ADDR1 before the resizes, $new after"
[[ ${new:12} == "${ADDR1:12}" ]] || fail "$IB1: the GID changed"
[[ $new != "$ADDR1" ]] || fail "$IB1: the QPN did not change with the QP"
# The peer learnt the new QPN (gratuitous ARP, unsolicited NA), no stale entry.
wait_for 10 "n2's neighbour entry for 10.1.0.1 to carry $new" \
	bash -c "ip -n n2 neigh show 10.1.0.1 dev $IB2 | grep -q 'lladdr $new'"
check_ping n2 10.1.0.1
check_ping n2 fd00::1

kmsg "transmit queues: ethtool -l/-L, XPS, our broadcast from a second QP"
# txq_counts NS IF: "MAX CURRENT" of ethtool -l's TX line.
txq_counts() {
	ns_exec "$1" ethtool -l "$2" |
		awk '/^Pre-set/ { s = "max" } /^Current/ { s = "cur" }
			$1 == "TX:" { v[s] = $2 } END { print v["max"], v["cur"] }'
}
check ns_exec n1 ethtool -l "$IB1"
read -r qmax qcur <<< "$(txq_counts n1 "$IB1")"
ncpu=$(nproc)
((qmax == (ncpu < 16 ? ncpu : 16))) || fail "ethtool -l: TX maximum $qmax, not one a CPU ($ncpu)"
((qmax >= 2)) || fail "$ncpu CPU(s): no second transmit queue to test"
((qcur >= 1 && qcur <= qmax)) || fail "ethtool -l: $qcur transmit queues in use"
check_fails ns_exec n1 ethtool -L "$IB1" tx $((qmax + 1))
check_fails ns_exec n1 ethtool -L "$IB1" rx 2
check ns_exec n1 ethtool -L "$IB1" tx 2
[[ $(txq_counts n1 "$IB1") == "$qmax 2" ]] || fail "ethtool -l after -L tx 2: $(txq_counts n1 "$IB1")"
[[ $(ns_exec n1 ls "/sys/class/net/$IB1/queues" | grep -c '^tx-') == 2 ]] ||
	fail "$IB1 has not 2 tx queues in sysfs"
wait_for 30 "carrier on $IB1 in n1" has_carrier n1 "$IB1"
check_ping n1 10.1.0.2
# XPS: what CPU 0 sends goes to queue 0, CPU 1's to queue 1.
xps n1 "$IB1" 1 2
for q in 0 1; do
	before=$(eth_stat n1 "$IB1" "tx${q}_packets") || fail "ethtool -S: no tx${q}_packets"
	check ns_exec n1 taskset -c "$q" ping -c 5 -i 0.2 -W 2 10.1.0.2
	after=$(eth_stat n1 "$IB1" "tx${q}_packets")
	log "CPU $q's pings: tx${q}_packets $before -> $after"
	((after - before >= 5)) || fail "CPU $q's 5 pings did not go on queue $q ($before -> $after)"
done
# Our multicast comes back to queue 0's QP (rxe loops it back), from
# queue 1's QPN: dropped as ours (drop_loopback), as queue 0's are.
for ns in n1 n2; do
	ns_exec "$ns" sysctl -qw net.ipv4.icmp_echo_ignore_broadcasts=0
done
loop=$(eth_stat n1 "$IB1" drop_loopback)
out=$(ns_exec n1 taskset -c 1 ping -b -c 3 -i 0.3 -W 2 10.1.0.255 2>&1) || true
echo "$out"
[[ $out == *"from 10.1.0.2"* ]] || fail "n2 did not answer the broadcast ping sent on queue 1"
loopback_reached() {
	(($(eth_stat n1 "$IB1" drop_loopback) >= $1))
}
wait_for 10 "n1's broadcast from queue 1 to come back and be dropped as its own" \
	loopback_reached $((loop + 3))
for ns in n1 n2; do
	ns_exec "$ns" sysctl -qw net.ipv4.icmp_echo_ignore_broadcasts=1
done
# Four UDP streams from CPU 1: queue 1 carries them. (Not TCP: its
# ACK-clocked sends run in the softirq that received the ACKs, on
# whichever CPU rxe delivered them, and XPS then moves the flow there;
# on 6.12-rt most of four TCP streams went on queue 0.)
before=$(eth_stat n1 "$IB1" tx1_packets)
b0=$(eth_stat n1 "$IB1" tx0_packets)
ns_exec n2 timeout 60 iperf3 -s -1 -p 5211 > /tmp/l.server 2>&1 &
spid=$!
wait_for 30 "the iperf3 server in n2" ns_tcp_listening n2 5211
check ns_exec n1 timeout 60 taskset -c 1 iperf3 -c 10.1.0.2 -p 5211 -u -b 0 -l 1400 -P 4 -t 3 -f m
wait "$spid" || fail "iperf3 server in n2 exited $?"
after=$(eth_stat n1 "$IB1" tx1_packets)
b0=$(($(eth_stat n1 "$IB1" tx0_packets) - b0))
log "iperf3 -u -P 4 from CPU 1: tx1_packets +$((after - before)), tx0_packets +$b0"
((after - before >= 1000)) || fail "iperf3 -u -P 4 from CPU 1: only $((after - before)) sends on queue 1"
((b0 <= (after - before) / 10)) || fail "iperf3 -u -P 4 from CPU 1: $b0 sends on queue 0"
check ns_exec n1 ethtool -S "$IB1"
check ns_exec n1 ethtool -L "$IB1" tx "$qcur"
[[ $(txq_counts n1 "$IB1") == "$qmax $qcur" ]] || fail "ethtool -l after -L tx $qcur: $(txq_counts n1 "$IB1")"
if ((qcur == 1)); then
	ns_exec n1 ethtool -S "$IB1" | grep -q '^ *tx1_packets:' &&
		fail "ethtool -S: tx1_packets with one queue"
fi
wait_for 30 "carrier on $IB1 in n1" has_carrier n1 "$IB1"
new=$(link_addr n1 "$IB1")
wait_for 10 "n2's neighbour entry for 10.1.0.1 to carry $new" \
	bash -c "ip -n n2 neigh show 10.1.0.1 dev $IB2 | grep -q 'lladdr $new'"
check_ping n1 10.1.0.2
check_ping n2 10.1.0.1

kmsg "counters"
for pair in "n1 $IB1" "n2 $IB2"; do
	read -r ns ifc <<< "$pair"
	check ip -n "$ns" -s link show dev "$ifc"
	for c in rx_packets tx_packets rx_bytes tx_bytes; do
		(($(if_stat "$ns" "$ifc" $c) > 0)) || fail "$ifc: $c is 0"
	done
done
check_dmesg_clean "the datapath checks"

kmsg "unload with the interfaces in n1 and n2"
unload_ipoib
check_fails ip -n n1 link show dev "$IB1"
check_fails ip -n n2 link show dev "$IB2"

log "datapath: PASS"
