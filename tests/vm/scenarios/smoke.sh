#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# smoke: the harness end to end, without ipoib_ng. Two soft-RoCE devices on
# the ends of a veth pair exchange UD datagrams with raw verbs; the tools
# swap their QP numbers and GIDs over TCP on 10.200.0.0/24.
#
#  +--------------------------- initial namespace ---------------------------+
#  |                                                                         |
#  |   ibv_ud_pingpong -s          TCP 18515/18516         ibv_ud_pingpong    |
#  |   ib_send_bw -c UD  <- - - - - - - - - - - - - - - - - ib_send_bw -c UD   |
#  |        |                                                      |         |
#  |      rxe0 (GID 0: fe80::)        UD over RoCEv2             rxe1        |
#  |        |                                                      |         |
#  |   va 10.200.0.1/24  <=========== veth, MTU 9000 ===========>  vb 10.200.0.2/24
#  |                                                                         |
#  +-------------------------------------------------------------------------+

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

setup_rxe_pair
check ip addr add 10.200.0.1/24 dev va
check ip addr add 10.200.0.2/24 dev vb
check rdma link show
ibv_devinfo -d rxe0 | grep -E 'hca_id|transport|state|active_mtu|link_layer'

log "ibv_ud_pingpong: 200 round trips of 2048 bytes, rxe1 -> rxe0"
timeout 120 ibv_ud_pingpong -d rxe0 -g 0 -n 200 > /tmp/ud-server.log 2>&1 &
server=$!
wait_for 30 "ibv_ud_pingpong to listen" tcp_listening 18515
check ibv_ud_pingpong -d rxe1 -g 0 -n 200 10.200.0.1 > /tmp/ud-client.log 2>&1
cat /tmp/ud-client.log
wait "$server" || { rc=$?; cat /tmp/ud-server.log; fail "ibv_ud_pingpong server exited $rc"; }
sed 's/^/server: /' /tmp/ud-server.log
grep -q '200 iters in' /tmp/ud-client.log || fail "client did not complete 200 iterations"
grep -q '200 iters in' /tmp/ud-server.log || fail "server did not complete 200 iterations"

# The raw-verbs ceiling the IPoIB benchmark compares against.
log "ib_send_bw -c UD: 4096-byte messages, rxe1 -> rxe0"
timeout 120 ib_send_bw -c UD -d rxe0 -x 0 -s 4096 -n 2000 -p 18516 -F > /tmp/bw-server.log 2>&1 &
server=$!
wait_for 30 "ib_send_bw to listen" tcp_listening 18516
check timeout 120 ib_send_bw -c UD -d rxe1 -x 0 -s 4096 -n 2000 -p 18516 -F \
	10.200.0.1 > /tmp/bw-client.log 2>&1
cat /tmp/bw-client.log
wait "$server" || { rc=$?; cat /tmp/bw-server.log; fail "ib_send_bw server exited $rc"; }
bw=$(awk '$1 == 4096 && NF >= 5 { print $4 }' /tmp/bw-server.log)
[[ -n $bw ]] || { cat /tmp/bw-server.log; fail "no bandwidth figure from ib_send_bw"; }
log "UD send bandwidth (receiver side): $bw MB/s"
echo "$bw" > "$VM_OUT/ud-send-bw-MBps"

log "smoke: PASS"
