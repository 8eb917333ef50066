#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# softib-rc: RC on softib's ideal wire (Documentation/softib-design.rst,
# step 8), with Debian's OpenSM as SM. A message crosses the switch
# whole; the responder answers in the same call chain.
#
# Asserts: ibv_rc_pingpong between two HCAs by LID and within one, 200
# round trips each; RDMA WRITE and READ (perftest's ib_write_bw and
# ib_read_bw, 500 messages of 64 KiB) between two HCAs; a message to a
# port whose link is down ends in retry-exceeded (ibv_rc_pingpong fails
# with a retry-exceeded completion); the in-tree ib_ipoib in connected
# mode: a 60000-byte ping each way with an MTU of 65520, carried by RC
# (the interfaces' counters grow by less than a datagram MTU would take).

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

load_softib
start_opensm
lid1=$(port_field softib1 "Base lid")
lid2=$(port_field softib2 "Base lid")
log "softib1 LID $lid1, softib2 LID $lid2"

# ibv_rc_pingpong counts 4096 bytes each way a round trip.
softib_pingpong ibv_rc_pingpong softib2 softib1 200 $((200 * 4096 * 2))
softib_pingpong ibv_rc_pingpong softib1 softib1 200 $((200 * 4096 * 2))

# perftest TOOL: server on softib1, client on softib2, 500 x 64 KiB.
perftest_rc() {
	local tool=$1 port=$((19515 + RANDOM % 1000)) spid rc=0
	log "\$ $tool -c RC -d softib1 (server); -d softib2 (client)"
	timeout 120 "$tool" -c RC -d softib1 -i 1 -p "$port" -F -s 65536 -n 500 \
		> "/tmp/$tool.server" 2>&1 &
	spid=$!
	wait_for 30 "$tool to listen" tcp_listening "$port"
	timeout 120 "$tool" -c RC -d softib2 -i 1 -p "$port" -F -s 65536 -n 500 \
		localhost > "/tmp/$tool.out" 2>&1 || rc=$?
	((rc == 0)) || { cat "/tmp/$tool.out" "/tmp/$tool.server"; fail "$tool client exited $rc"; }
	wait "$spid" || { cat "/tmp/$tool.server"; fail "$tool server failed"; }
	cat "/tmp/$tool.out"
	# The result line: size, iterations, peak, average (MB/s), msg rate.
	awk '$1 == 65536 && $2 == 500 && $4 > 0 { ok = 1 } END { exit !ok }' \
		"/tmp/$tool.out" || fail "$tool: no result line for 500 x 65536"
}
perftest_rc ib_write_bw
perftest_rc ib_read_bw

log "a link down: the requester retries, then retry-exceeded"
# Whichever side is sending when the link goes gets the error (its peer
# then waits for a message that never comes): ibv_rc_pingpong's timeout
# 14 (67 ms) and retry_cnt 7 give about half a second.
port=$((20515 + RANDOM % 1000))
timeout 120 ibv_rc_pingpong -d softib1 -i 1 -p "$port" -n 1000000 \
	> /tmp/rcp-server.out 2>&1 &
server=$!
wait_for 30 "the pingpong server on port $port" tcp_listening "$port"
timeout 120 ibv_rc_pingpong -d softib2 -i 1 -p "$port" -n 1000000 localhost \
	> /tmp/rcp-client.out 2>&1 &
client=$!
sleep 2
check sh -c 'echo down > /sys/class/infiniband/softib1/ports/1/softib/link'
wait_for 30 "a retry-exceeded completion" \
	grep -q "Failed status transport retry counter exceeded (12)" \
	/tmp/rcp-client.out /tmp/rcp-server.out
cat /tmp/rcp-client.out /tmp/rcp-server.out
kill "$server" "$client" 2> /dev/null || true
wait "$server" "$client" 2> /dev/null || true
check sh -c 'echo up > /sys/class/infiniband/softib1/ports/1/softib/link'
wait_for 60 "softib1 port 1 ACTIVE again" \
	grep -q ACTIVE /sys/class/infiniband/softib1/ports/1/state
softib_pingpong ibv_rc_pingpong softib1 softib2 20 $((20 * 4096 * 2))

log "the in-tree ib_ipoib in connected mode on softib1 and softib2"
check modprobe ib_ipoib
wait_for 30 "ib_ipoib's netdev for softib2" ib_ipoib_if softib2
if1=$(ib_ipoib_if softib1)
if2=$(ib_ipoib_if softib2)
ns_create n1 n2
check ip link set "$if1" netns n1
check ip link set "$if2" netns n2
check ip netns exec n1 sh -c "echo connected > /sys/class/net/$if1/mode"
check ip netns exec n2 sh -c "echo connected > /sys/class/net/$if2/mode"
check ip -n n1 link set "$if1" mtu 65520 up
check ip -n n2 link set "$if2" mtu 65520 up
check ip -n n1 addr add 10.4.0.1/24 dev "$if1"
check ip -n n2 addr add 10.4.0.2/24 dev "$if2"
wait_for 60 "$if1 carrier" has_carrier n1 "$if1"
wait_for 60 "$if2 carrier" has_carrier n2 "$if2"
wait_for 60 "ping 10.4.0.2" ping_works n1 10.4.0.2
tx_before=$(ip netns exec n1 cat "/sys/class/net/$if1/statistics/tx_packets")
check_ping n1 10.4.0.2 -s 60000 -M "do"
check_ping n2 10.4.0.1 -s 60000 -M "do"
tx_after=$(ip netns exec n1 cat "/sys/class/net/$if1/statistics/tx_packets")
# 3 requests and 3 replies of 60028 bytes, unfragmented (-M do): 6
# packets and a few ARP or ND ones; over datagram mode's 2044 they
# could not go at all.
log "$if1 sent $((tx_after - tx_before)) packets for 6 pings of 60000 bytes"
((tx_after - tx_before < 20)) || fail "$if1: the pings were not carried whole"

check ip -n n1 link set "$if1" netns 1
check ip -n n2 link set "$if2" netns 1
check rmmod ib_ipoib
stop_opensm
unload_softib
log "softib-rc: PASS"
