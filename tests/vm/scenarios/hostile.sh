#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hostile: a peer that speaks raw verbs, not IPoIB (issue 16). ud_inject
# (tests/vm/hostile/ud_inject.c, built as build/hostile/ud_inject) sends
# crafted UD datagrams from rxe1 straight at IB1's QPN, bypassing any
# driver on the sending side, one kind at a time (HOSTILE_FRAMES in all,
# 100,000 by default):
#
#   kind         share  what IB1 must do with it
#   truncated    10 %   drop, count drop_truncated (0-3 bytes, RFC 4391 s6)
#   bad-type     10 %   drop, count drop_bad_type (EtherType not in Table 1)
#   reserved     10 %   deliver: reserved octets are ignored on receive (s6);
#                       each is an echo request, so n1's ICMP answers it
#   wrong-qkey   15 %   nothing: rxe refuses a Q_Key that is not the QP's,
#                       before any counter of the driver or of rxe0
#   other-pkey   15 %   nothing: the Q_Key of partition 0x8001 (on RoCE the
#                       Q_Key stands for the partition, keys.cpp)
#   echo         20 %   deliver; n1 answers every one (to 10.1.0.2)
#   self-arp     10 %   deliver: ARP requests whose sender is IB1's own QPN
#                       and GID; IB1 answers itself, and drops its own
#                       answers as loopback
#   arp           5 %   deliver: ARP requests from distinct forged senders
#   arp-probe     5 %   deliver: ARP probes (sender IP 0) from more forged
#                       senders; the kernel answers a probe without a
#                       neighbour entry, so every one costs IB1 a path
#
# ud_inject keeps at most HOSTILE_AHEAD frames beyond what rxe0 completed
# (--pace-file), so that no frame finds IB1's receive queue empty. After
# each kind the counters settle, then: every frame that passed the Q_Key
# check and found a receive buffer (rxe0's rdma_recvs) is in IB1's
# rx_packets or rx_dropped (HOSTILE_RX_SLACK more for the peer's own
# traffic), under the drop reason its kind names; at most HOSTILE_MAX_LOST
# of a kind found none (UD has no flow control: the pacing window, which a
# slow kernel's refill may not keep up with, is counted by rxe, not lost
# unseen); the others are nowhere. Afterwards IB1 pings
# 10.1.0.2 and fd00::2 both ways, and the kernel log is clean.
#
# The path table (review M3): the module is loaded with paths_max
# HOSTILE_PATHS_MAX (1024), far below the forged senders, each of which
# IB1 answers and so would cost a path. The table never holds more than
# paths_max entries, and the answers to new senders beyond it are counted
# in drop_path_table_full. Once the flood's paths are idle for the core's
# evict_idle_ms (10 s), N_EVICT more forged senders make the full table give
# paths up (path_evictions) instead of being refused for good.
#
# The group table (review M3), from a local user: "nobody" in n1, with no
# capability, sends one datagram to each of HOSTILE_GROUPS new multicast
# groups through IB1, and each would cost a send-only membership (on
# InfiniBand an SA join). The module is loaded with groups_max
# HOSTILE_GROUPS_MAX (256): the table never holds more, the datagrams
# beyond are counted in drop_group_table_full, and once the memberships
# are idle for evict_idle_ms (10 s) 64 more groups make the table give
# some up (mc_evictions). IB1 still pings: the broadcast group stays.
#
#  +------------ n1 ------------+             +------------ n2 ------------+
#  |  $IB1 (ipoib_ng on rxe0)   |             |  $IB2 (ipoib_ng on rxe1)   |
#  |  10.1.0.1/24  fd00::1/64   |             |  10.1.0.2/24  fd00::2/64   |
#  |  routes 10.3/16 10.4/16    |             |  gets n1's echo replies    |
#  +-------------|--------------+             +--------------|-------------+
#                |  UD to IB1's QPN                          |
#  +-------------|------------ initial namespace ------------|-------------+
#  |           rxe0  <------ ud_inject (own UD QP) ------  rxe1            |
#  |             |              RoCEv2, UDP 4791              |            |
#  |            va  <============ veth, MTU 9000 ===========>  vb           |
#  |   (permanent IPv6 neighbours on va for the forged senders' GIDs)      |
#  +-----------------------------------------------------------------------+

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

# Knobs. The VM starts scenarios with an empty environment: set them in a
# wrapper run as tests/vm/run.sh PATH/wrapper.sh, or edit the defaults.
#   HOSTILE_FRAMES         frames in all, shared out as in the table above
#   HOSTILE_PATHS_MAX      paths_max to load the module with (default 1024;
#                          a paths_max= in IPOIB_PARAMS wins)
#   HOSTILE_GROUPS_MAX     groups_max to load the module with (default 256)
#   HOSTILE_GROUPS         new groups the local user sends to (default 2000)
#   HOSTILE_MAX_PATHS      bound on IB1's path table (default: the paths_max
#                          the module was loaded with)
#   HOSTILE_MAX_LOST       frames of a kind that may go missing before the
#                          driver (no receive buffer, a full backlog)
#   HOSTILE_RX_SLACK       frames of a kind that may come from the peer's
#                          own traffic (ARP probes, IPv6) meanwhile
#   HOSTILE_AHEAD          frames ud_inject may send beyond rxe0's receives
#   HOSTILE_QKEY           IB1's Q_Key: IPC_QKEY_DEFAULT (driver/core/
#                          ipoib_core.h), as device.c sets it on RoCE from
#                          ipc_roce_qkey_for_pkey() for the default P_Key
#   HOSTILE_OTHER_PKEY     the partition of the other-pkey frames
#   HOSTILE_PHASE_TIMEOUT  seconds one ud_inject run may take
HOSTILE_FRAMES=${HOSTILE_FRAMES:-100000}
HOSTILE_PATHS_MAX=${HOSTILE_PATHS_MAX:-1024}
HOSTILE_GROUPS_MAX=${HOSTILE_GROUPS_MAX:-256}
HOSTILE_GROUPS=${HOSTILE_GROUPS:-2000}
HOSTILE_QKEY=${HOSTILE_QKEY:-0x0000000b}
HOSTILE_OTHER_PKEY=${HOSTILE_OTHER_PKEY:-0x8001}
HOSTILE_AHEAD=${HOSTILE_AHEAD:-128}
HOSTILE_MAX_LOST=${HOSTILE_MAX_LOST:-$HOSTILE_AHEAD}
HOSTILE_RX_SLACK=${HOSTILE_RX_SLACK:-50}
HOSTILE_PHASE_TIMEOUT=${HOSTILE_PHASE_TIMEOUT:-150}
INJECT=${HOSTILE_INJECT:-${VM_REPO:-$(cd "$(dirname "$0")/../../.." && pwd)}/build/hostile/ud_inject}

N_TRUNC=$((HOSTILE_FRAMES * 10 / 100))
N_BADTYPE=$((HOSTILE_FRAMES * 10 / 100))
N_RESERVED=$((HOSTILE_FRAMES * 10 / 100))
N_WRONGQ=$((HOSTILE_FRAMES * 15 / 100))
N_OTHERP=$((HOSTILE_FRAMES * 15 / 100))
N_SELF=$((HOSTILE_FRAMES * 10 / 100))
N_ARP=$((HOSTILE_FRAMES * 5 / 100))
N_PROBE=$((HOSTILE_FRAMES * 5 / 100))
N_SANITY=10
N_ECHO=$((HOSTILE_FRAMES - N_TRUNC - N_BADTYPE - N_RESERVED - N_WRONGQ - N_OTHERP -
	N_SELF - N_ARP - N_PROBE - N_SANITY))
((N_ECHO >= 0)) || fail "HOSTILE_FRAMES=$HOSTILE_FRAMES is too small (at least 100)"
N_SENDERS=$((N_ARP + N_PROBE))
# Forged senders after the flood, to a full table of idle paths.
N_EVICT=64
# evict_idle_ms of ipc_path_cfg_default() (driver/core/path.cpp), in s.
EVICT_IDLE_S=10

[[ -x $INJECT ]] ||
	fail "$INJECT is missing: build it on the host with 'make hostile' (needs libibverbs-dev, 'make setup'); make vm-check, vm-check-debug and check-debug build it"

[[ " ${IPOIB_PARAMS:-} " == *" paths_max="* ]] ||
	IPOIB_PARAMS="${IPOIB_PARAMS:-} paths_max=$HOSTILE_PATHS_MAX"
[[ " ${IPOIB_PARAMS:-} " == *" groups_max="* ]] ||
	IPOIB_PARAMS="${IPOIB_PARAMS:-} groups_max=$HOSTILE_GROUPS_MAX"
setup_ipoib_netns_pair
PATHS_MAX=$(< "/sys/module/$IPOIB_NAME/parameters/paths_max")
HOSTILE_MAX_PATHS=${HOSTILE_MAX_PATHS:-$PATHS_MAX}
log "$IPOIB_NAME loaded with paths_max $PATHS_MAX; $N_SENDERS forged senders to come"
check_ping n1 10.1.0.2
check_ping n2 10.1.0.1
check ip -n n1 route add 10.3.0.0/16 dev "$IB1"
check ip -n n1 route add 10.4.0.0/16 dev "$IB1"
ADDR1=$(link_addr n1 "$IB1")
log "$IB1: QPN 0x${ADDR1:3:2}${ADDR1:6:2}${ADDR1:9:2}, address $ADDR1"

# rxe0's counters: rcvd_pkts counts what passed its header and key checks,
# rdma_recvs what completed into a receive buffer (rxe_recv.c, rxe_resp.c).
RXE0_STATS=/sys/class/infiniband/rxe0/ports/1/hw_counters
INJECT_ARGS=(-d rxe1 --dest "$ADDR1" --qkey "$HOSTILE_QKEY" --pkey "$HOSTILE_OTHER_PKEY")
if [[ -r $RXE0_STATS/rdma_recvs ]]; then
	INJECT_ARGS+=(--pace-file "$RXE0_STATS/rdma_recvs" --ahead "$HOSTILE_AHEAD")
else
	log "no $RXE0_STATS: ud_inject unpaced"
fi

# rxe_counters DEV: "name value" lines of its port 1.
rxe_counters() {
	local d=/sys/class/infiniband/$1/ports/1/hw_counters f
	if [[ -d $d ]]; then
		for f in "$d"/*; do
			[[ ${f##*/} == lifespan ]] || echo "${f##*/} $(< "$f")"
		done
	else
		rdma statistic show link "$1/1" | awk '{ for (i = 3; i < NF; i += 2) print $i, $(i + 1) }'
	fi
}

# snap: C[...] = IB1's counters (ethtool -S), n1's ICMP MIB (icmp_*), rxe0's
# counters (rxe0_*) and drops on the way there (net_*), in one pass.
declare -A C B S
snap() {
	local k v d sum=0
	C=()
	while read -r k v; do
		C[$k]=$v
	done < <(ns_exec n1 sh -c 'ethtool -S "$1" && cat /proc/net/snmp' _ "$IB1" | awk '
		/^Icmp:/ { if (!h) { for (i = 2; i <= NF; i++) name[i] = $i; h = 1 }
			   else for (i = 2; i <= NF; i++) print "icmp_" name[i], $i
			   next }
		NF == 2 && $1 ~ /:$/ { sub(/:$/, "", $1); print $1, $2 }')
	[[ -n ${C[rx_packets]:-} && -n ${C[icmp_InEchos]:-} ]] ||
		fail "no counters from ethtool -S $IB1 or /proc/net/snmp in n1"
	while read -r k v; do
		C[rxe0_$k]=$v
	done < <(rxe_counters rxe0)
	while read -r _ d _; do
		sum=$((sum + 16#$d))
	done < /proc/net/softnet_stat
	C[net_softnet_dropped]=$sum
	C[net_va_rx_dropped]=$(< /sys/class/net/va/statistics/rx_dropped)
	C[net_vb_tx_dropped]=$(< /sys/class/net/vb/statistics/tx_dropped)
}

# delta NAME: C[NAME] - B[NAME] (after - before this kind).
delta() {
	echo $((${C[$1]:-0} - ${B[$1]:-0}))
}

# settle: snapshots 0.5 s apart until IB1's and rxe0's receive counters
# stop moving (at most 60 s).
settle() {
	local prev='' cur i
	for ((i = 0; i < 120; i++)); do
		snap
		cur="${C[rx_packets]} ${C[rx_dropped]} ${C[drop_loopback]} ${C[rxe0_rcvd_pkts]:-} ${C[rxe0_rdma_recvs]:-}"
		[[ $cur == "$prev" ]] && return 0
		prev=$cur
		sleep 0.5
	done
	fail "$IB1's receive counters still move 60 s after ud_inject finished"
}

# Where frames can go missing before IB1 sees them, for a failure message.
loss_report() {
	local r=$(($(delta rxe0_rcvd_pkts) - $(delta rxe0_rdma_recvs)))
	log "before the driver: rxe0 rcvd_pkts +$(delta rxe0_rcvd_pkts), rdma_recvs +$(delta rxe0_rdma_recvs) ($r found no receive buffer: raise recv_queue_size in IPOIB_PARAMS or lower HOSTILE_AHEAD); softnet dropped +$(delta net_softnet_dropped), va rx_dropped +$(delta net_va_rx_dropped), vb tx_dropped +$(delta net_vb_tx_dropped)"
}

# expect WHAT VALUE MIN MAX
expect() {
	if (($2 < $3 || $2 > $4)); then
		loss_report
		fail "$1: $2, expected $3..$4"
	fi
}

TOTAL=0
INJECT_MS=0
declare -A SENT

# mark: B = the counters now (snap), what delta counts from.
mark() {
	local k
	snap
	B=()
	for k in "${!C[@]}"; do
		B[$k]=${C[$k]}
	done
}

# inject KIND N [ud_inject options]: send N frames of KIND at IB1 and wait
# for the counters to settle. B holds them before, C after.
inject() {
	local kind=$1 n=$2 out rc=0 t0 sent
	shift 2
	mark
	t0=$(date +%s%3N)
	out=$(timeout "$HOSTILE_PHASE_TIMEOUT" "$INJECT" "${INJECT_ARGS[@]}" "--$kind" "$n" "$@" 2>&1) || rc=$?
	INJECT_MS=$((INJECT_MS + $(date +%s%3N) - t0))
	echo "$out"
	((rc == 0)) || fail "ud_inject --$kind $n exited $rc"
	sent=$(awk -v k="$kind" '$2 == "sent" && $3 == k { print $4 }' <<< "$out")
	[[ $sent == "$n" ]] || fail "ud_inject sent ${sent:-no} $kind frames of $n"
	TOTAL=$((TOTAL + n))
	SENT[$kind]=$((${SENT[$kind]:-0} + n))
	settle
	log "$kind: $n sent; $IB1 rx_packets +$(delta rx_packets) rx_dropped +$(delta rx_dropped) drop_truncated +$(delta drop_truncated) drop_bad_type +$(delta drop_bad_type) drop_loopback +$(delta drop_loopback); n1 ICMP InEchos +$(delta icmp_InEchos) OutEchoReps +$(delta icmp_OutEchoReps); rxe0 rcvd_pkts +$(delta rxe0_rcvd_pkts) rdma_recvs +$(delta rxe0_rdma_recvs)"
}

# accepted KIND N: every frame of a kind that passed the Q_Key check was
# delivered or dropped with a reason, exactly once.
accepted() {
	local recvs
	recvs=$(delta rxe0_rdma_recvs)
	expect "$1: frames rxe0's QP took (the others found no receive buffer)" \
		"$recvs" $(($2 - HOSTILE_MAX_LOST)) $(($2 + HOSTILE_RX_SLACK))
	expect "$1: rx_packets + rx_dropped of $IB1, against the $recvs the QP took" \
		$(($(delta rx_packets) + $(delta rx_dropped))) \
		"$recvs" $((recvs + HOSTILE_RX_SLACK))
	LOST=$((LOST + $2 - recvs))
}
LOST=0

# echoed N: n1's ICMP took N echo requests and answered each, or counted
# the answer it could not make in OutErrors: its per-CPU socket's send
# buffer (about 130 kB) full of replies still in the qdisc and the send
# ring, which on the debug kernel drains slower than the flood comes.
echoed() {
	local errs
	errs=$(delta icmp_OutErrors)
	log "n1 ICMP: InEchos +$(delta icmp_InEchos) OutEchoReps +$(delta icmp_OutEchoReps) OutErrors +$errs"
	expect "echo requests n1's ICMP received" "$(delta icmp_InEchos)" \
		$(($1 - HOSTILE_MAX_LOST)) "$1"
	expect "echo replies n1 sent, and those ICMP could not send" \
		$(($(delta icmp_OutEchoReps) + errs)) \
		"$(delta icmp_InEchos)" "$(delta icmp_InEchos)"
}

# refused KIND: rxe0 turned the kind away; nothing reached IB1 or n1.
refused() {
	expect "$1: echo requests n1's ICMP received" "$(delta icmp_InEchos)" 0 0
	expect "$1: rx_packets + rx_dropped of $IB1" \
		$(($(delta rx_packets) + $(delta rx_dropped))) 0 "$HOSTILE_RX_SLACK"
	expect "$1: rxe0 rcvd_pkts" "$(delta rxe0_rcvd_pkts)" 0 "$HOSTILE_RX_SLACK"
}

snap
for k in "${!C[@]}"; do
	S[$k]=${C[$k]}
done
check ip -n n1 -s link show dev "$IB1"
ns_exec n1 ethtool -S "$IB1" | grep -E 'rx_|drop_|path_'
paths0=$(grep -c . "$(ipoib_debugfs rxe0)/path" || true)
log "$IB1 before: rx_packets ${C[rx_packets]}, rx_dropped ${C[rx_dropped]}, $paths0 paths"

kmsg "sanity: $N_SANITY echo requests from ud_inject reach n1"
inject echo "$N_SANITY"
(($(delta icmp_InEchos) == N_SANITY)) ||
	fail "n1 received $(delta icmp_InEchos) of $N_SANITY echo requests from ud_inject: is $IB1's Q_Key $HOSTILE_QKEY?"

kmsg "malformed: $N_TRUNC truncated, $N_BADTYPE of unknown types, $N_RESERVED with reserved bits"
inject truncated "$N_TRUNC"
accepted truncated "$N_TRUNC"
expect "drop_truncated" "$(delta drop_truncated)" $((N_TRUNC - HOSTILE_MAX_LOST)) "$N_TRUNC"
inject bad-type "$N_BADTYPE"
accepted bad-type "$N_BADTYPE"
expect "drop_bad_type" "$(delta drop_bad_type)" $((N_BADTYPE - HOSTILE_MAX_LOST)) "$N_BADTYPE"
expect "echo requests n1's ICMP received" "$(delta icmp_InEchos)" 0 0
inject reserved "$N_RESERVED"
accepted reserved "$N_RESERVED"
echoed "$N_RESERVED"

kmsg "other Q_Keys: $N_WRONGQ wrong, $N_OTHERP of partition $HOSTILE_OTHER_PKEY"
inject wrong-qkey "$N_WRONGQ"
refused wrong-qkey
inject other-pkey "$N_OTHERP"
refused other-pkey

kmsg "valid: $N_ECHO echo requests"
inject echo "$N_ECHO"
accepted echo "$N_ECHO"
echoed "$N_ECHO"

kmsg "ARP: $N_SELF from $IB1's own address, $N_ARP requests and $N_PROBE probes from $N_SENDERS forged senders"
inject self-arp "$N_SELF"
# The stack answers each of these to IB1's own address, so every frame
# comes back as a second one (UD has no flow control: the ring overflows
# in rxe, which ud_inject's pacing on rdma_recvs cannot prevent). What
# the QP received is what counts: each was delivered, dropped with a
# reason, or dropped as IB1's own (the loopback rule).
got=$(($(delta rx_packets) + $(delta rx_dropped) + $(delta drop_loopback)))
expect "self-arp: what rxe0's QP received, accounted for by $IB1" "$got" \
	"$(delta rxe0_rdma_recvs)" $(($(delta rxe0_rdma_recvs) + HOSTILE_RX_SLACK))
((got >= N_SELF / 2)) || fail "self-arp: only $got of $N_SELF frames reached $IB1"
log "self-arp: $IB1 answered itself; its answers dropped as loopback: +$(delta drop_loopback); $(($(delta rxe0_rcvd_pkts) - $(delta rxe0_rdma_recvs))) found no receive buffer in rxe"
# rxe sends through the kernel's IPv6 neighbours of va, where a RoCE HCA
# takes the MAC from the address handle: without these entries each of
# IB1's answers to a forged sender waits 3 s in an unresolved entry, and
# at 64 such packets rxe stops IB1's QP (RXE_INFLIGHT_SKBS_PER_QP_HIGH), an
# artifact of soft-RoCE. The GIDs and MACs are ud_inject's (forged_addr).
awk -v n="$((N_SENDERS + N_EVICT))" 'BEGIN {
	for (s = 0; s < n; s++) {
		h = int(s / 65536) % 256; l = s % 65536
		printf "neigh replace fe80::1b:ff:fe%02x:%x dev va lladdr 02:1b:00:%02x:%02x:%02x nud permanent\n",
			h, l, h, int(l / 256), l % 256
	}
}' | ip -batch - || fail "cannot add the forged senders' neighbours on va"
inject arp "$N_ARP" --sender-base 0
accepted arp "$N_ARP"
inject arp-probe "$N_PROBE" --sender-base "$N_ARP"
accepted arp-probe "$N_PROBE"
FLOOD_END=$SECONDS

for k in "${!C[@]}"; do
	B[$k]=${S[$k]:-0}
done
refused_n=$((${SENT[wrong-qkey]} + ${SENT[other-pkey]}))
log "in all: $TOTAL frames in $((INJECT_MS / 1000)) s ($((TOTAL * 1000 / (INJECT_MS + 1))) frames/s);" \
	"$IB1 delivered $(delta rx_packets), dropped $(delta rx_dropped)" \
	"(truncated $(delta drop_truncated), bad_type $(delta drop_bad_type));" \
	"rxe0 refused $refused_n for their Q_Key and found no receive buffer for $LOST;" \
	"unaccounted $((TOTAL - refused_n - $(delta rx_packets) - $(delta rx_dropped)))" \
	"(negative: the peer's own traffic)"
check ip -n n1 -s link show dev "$IB1"
ns_exec n1 ethtool -S "$IB1" | grep -v ': 0$'
log "n1's neighbours: $(ip -n n1 neigh show dev "$IB1" | grep -c . || true)," \
	"multicast groups: $(grep -c . "$(ipoib_debugfs rxe0)/mcg" || true)"
paths=$(grep -c . "$(ipoib_debugfs rxe0)/path" || true)
log "rxe0's path table after the flood: $paths entries ($paths0 before, $N_SENDERS forged senders, paths_max $PATHS_MAX);" \
	"$(delta drop_path_table_full) answers to new destinations dropped at the cap, $(delta path_evictions) paths given up"
((paths <= HOSTILE_MAX_PATHS)) || fail "path table grew to $paths entries, bound $HOSTILE_MAX_PATHS"
if ((N_SENDERS > 2 * PATHS_MAX)); then
	(($(delta drop_path_table_full) > 0)) ||
		fail "$N_SENDERS forged senders, paths_max $PATHS_MAX, and no drop_path_table_full"
fi

kmsg "afterwards: $IB1 still reaches its peer, its tables are bounded"
# The kernel's ARP table is shared by every namespace and may still be
# full of fresh forged entries: give n1 a moment to resolve 10.1.0.2. A
# full path table makes room for IB2's GID once the flood's paths have
# been idle for evict_idle_ms.
t0=$SECONDS
wait_for $((30 + EVICT_IDLE_S)) "$IB1 to reach 10.1.0.2" ping_works n1 10.1.0.2
log "first echo answered after $((SECONDS - t0)) s"
check_ping n1 10.1.0.2
check_ping n2 10.1.0.1
check_ping n1 fd00::2
check_ping n2 fd00::1

if ((N_SENDERS > 2 * PATHS_MAX)); then
	kmsg "a full table gives way: $N_EVICT more forged senders once the flood's paths are idle"
	paths=$(grep -c . "$(ipoib_debugfs rxe0)/path" || true)
	((paths >= PATHS_MAX)) || fail "$N_SENDERS forged senders left $paths paths, not the $PATHS_MAX of a full table"
	left=$((FLOOD_END + EVICT_IDLE_S + 1 - SECONDS))
	((left <= 0)) || sleep "$left"
	inject arp "$N_EVICT" --sender-base "$N_SENDERS"
	accepted arp "$N_EVICT"
	log "$N_EVICT senders: path_evictions +$(delta path_evictions), drop_path_table_full +$(delta drop_path_table_full)"
	(($(delta path_evictions) >= 1)) ||
		fail "$N_EVICT new senders to a full table of idle paths: no path_evictions"
	(($(delta drop_path_table_full) >= $(delta path_evictions))) ||
		fail "a path was given up without dropping the packet that asked"
	# IB2's path, idle as well, may have given way: the first echo
	# request makes room again.
	wait_for $((30 + EVICT_IDLE_S)) "$IB1 to reach 10.1.0.2 again" ping_works n1 10.1.0.2
	check_ping n1 10.1.0.2
fi
kmsg "a local user sends to $HOSTILE_GROUPS new multicast groups"
GROUPS_MAX=$(< "/sys/module/$IPOIB_NAME/parameters/groups_max")
# mc_flood FIRST N: as nobody, without capabilities, one datagram from
# IB1's address to each of the groups 239.200.0.0 + FIRST .. + N - 1.
# Prints the datagrams sent and refused.
mc_flood() {
	ip netns exec n1 "$(command -v setpriv)" --reuid 65534 --regid 65534 \
		--clear-groups --inh-caps=-all --bounding-set=-all python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF,
             socket.inet_aton("10.1.0.1"))
ok = err = 0
for i in range(int(sys.argv[1]), int(sys.argv[1]) + int(sys.argv[2])):
    try:
        s.sendto(b"x", ("239.200.%d.%d" % (i >> 8 & 255, i & 255), 9))
        ok += 1
    except OSError:
        err += 1
print(ok, err)
' "$1" "$2"
}
mc_groups() {
	grep -c . "$(ipoib_debugfs rxe0)/mcg" || true
}
mark
groups0=$(mc_groups)
out=$(mc_flood 0 "$HOSTILE_GROUPS") || fail "the local user's sender failed: $out"
read -r sent refused <<< "$out"
((sent == HOSTILE_GROUPS)) || fail "the local user sent $sent of $HOSTILE_GROUPS datagrams ($refused refused)"
GROUPS_END=$SECONDS
sleep 1
snap
groups=$(mc_groups)
log "$HOSTILE_GROUPS datagrams to new groups from nobody: $groups groups ($groups0 before, groups_max $GROUPS_MAX)," \
	"$(delta drop_group_table_full) dropped at the cap, $(delta mc_evictions) given up"
((groups <= GROUPS_MAX)) || fail "group table grew to $groups entries, groups_max $GROUPS_MAX"
((groups >= GROUPS_MAX - 1)) || fail "only $groups groups after $HOSTILE_GROUPS new ones, groups_max $GROUPS_MAX"
(($(delta drop_group_table_full) >= HOSTILE_GROUPS - GROUPS_MAX)) ||
	fail "$(delta drop_group_table_full) datagrams dropped at the cap, at least $((HOSTILE_GROUPS - GROUPS_MAX)) expected"
check_ping n1 10.1.0.2
left=$((GROUPS_END + EVICT_IDLE_S + 1 - SECONDS))
((left <= 0)) || sleep "$left"
mark
out=$(mc_flood "$HOSTILE_GROUPS" 64) || fail "the local user's sender failed: $out"
sleep 1
snap
groups=$(mc_groups)
log "64 more groups once idle: mc_evictions +$(delta mc_evictions), drop_group_table_full +$(delta drop_group_table_full), $groups groups"
(($(delta mc_evictions) >= 1)) || fail "64 new groups to a full table of idle ones: no mc_evictions"
((groups <= GROUPS_MAX)) || fail "group table grew to $groups entries, groups_max $GROUPS_MAX"
check_ping n1 10.1.0.2
check_ping n2 10.1.0.1

paths=$(grep -c . "$(ipoib_debugfs rxe0)/path" || true)
log "rxe0's path table: $paths entries ($paths0 before, $N_SENDERS + $N_EVICT forged senders, bound $HOSTILE_MAX_PATHS)"
((paths <= HOSTILE_MAX_PATHS)) || fail "path table grew to $paths entries, bound $HOSTILE_MAX_PATHS"
check_dmesg_clean "the hostile peer"
unload_ipoib
check_dmesg_clean "rmmod with $paths paths"
log "hostile: PASS"
