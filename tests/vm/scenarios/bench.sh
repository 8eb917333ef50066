#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench: the IPoIB datapath against two ceilings, measured in one VM run,
# in rounds (issue 23, "the benchmark first"). Prints a table, writes it to
# bench.txt (and every sample to bench-samples.txt); fails only when a
# tool does.
#
# Three variants, measured in the same round, in ABBA order (round 1 raw,
# stack, IPoIB; round 2 IPoIB, stack, raw; ...), so that a drift of the
# machine over the run weighs on all of them alike:
#   raw      the verbs under IPoIB: ib_send_bw -c UD, 4096-byte messages
#            (an IB MTU's payload: IPoIB's 4-byte header, IP, UDP and data);
#            ib_send_lat -c UD, 128 bytes, busy-polling and with -e
#            (sleeping on CQ events, as the driver's NAPI does); perftest
#            reports half round trips, doubled here
#   stack    the IP stack alone: iperf3 and ping over a plain veth pair
#            between two namespaces, its MTU that of the IPoIB interfaces
#   ipoib    iperf3 and ping over ipoib_ng between n1 and n2
# Held equal: the UDP payload (-l 4064 = 4092 - 28, so that an IPoIB
# datagram fills the 4096-byte IB payload raw sends), the CPUs (every
# receiver on CPU 1, every sender on CPU 0: taskset, iperf3 -A), iperf3's first
# second dropped (-O 1), the duration.
#
# Per round: UDP and TCP goodput both ways (Mbit/s, the receiver's), idle
# round trips (ping every 0.2 s against ib_send_lat -e) and back-to-back
# ones (ping -A against busy-polling ib_send_lat), each p50 and p99.
# "ideal" is what IPoIB would reach if the driver cost nothing beyond the
# verbs below it and the stack above it: 1 / (1 / raw + 1 / stack), per
# round. The table gives, for every figure, min / median / max over the
# rounds, and for every ratio the median of the per-round ratios:
# efficiency = ipoib / ideal (the driver's share), and ipoib / raw.
#
# Under TCG the figures compare paths on the same emulated CPU, nothing
# more: absolute values mean little, and single runs are noise (rounds and
# medians are why). BENCH_ROUNDS (5), BENCH_DURATION (5 s) and
# BENCH_BW_ITERS (5000) tune it.
#
#  +---- n1 ----+      +---- n2 ----+      +---- s1 ----+      +---- s2 ----+
#  | $IB1       | ipoib| $IB2       |      | sa 10.3.0.1| veth | sb 10.3.0.2|
#  | 10.1.0.1   |<---->| 10.1.0.2   |      |  (stack)   |<---->|            |
#  +-----|------+      +-----|------+      +------------+      +------------+
#  +-----|--- initial namespace ---|----------------------------------------+
#  |   rxe0 <-- ib_send_bw/lat --> rxe1                                     |
#  |    va 10.200.0.1 <== veth ==> vb 10.200.0.2 (the tools' TCP channel)  |
#  +------------------------------------------------------------------------+

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

ROUNDS=${BENCH_ROUNDS:-5}
DURATION=${BENCH_DURATION:-5}
BW_ITERS=${BENCH_BW_ITERS:-5000}
LAT_ITERS=${BENCH_LAT_ITERS:-1000}
TX_CPU=0
RX_CPU=1
SAMPLES=$VM_OUT/bench-samples.txt
: > "$SAMPLES"
(($(nproc) >= 2)) || fail "the benchmark pins senders and receivers to 2 CPUs; this VM has $(nproc)"

# sample ROUND VARIANT METRIC VALUE: one figure of one round.
sample() {
	printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >> "$SAMPLES"
	log "round $1: $2 $3 = $4"
}

setup_rxe_pair
# The IPv4 addresses add GIDs; give them before ipoib_ng binds the ports.
check ip addr add 10.200.0.1/24 dev va
check ip addr add 10.200.0.2/24 dev vb
# RoCEv2 address handles to the fe80:: GIDs resolve the peer's MAC through
# IPv6 neighbour discovery on va/vb: wait until their link-local addresses
# are out of DAD, or the verbs tools fail with "Failed to create AH".
ll_ready() {
	ip -6 -o addr show dev "$1" scope link | grep -v tentative | grep -q fe80::
}
wait_for 30 "link-local address on va" ll_ready va
wait_for 30 "link-local address on vb" ll_ready vb

load_ipoib
ns_create n1 n2 s1 s2
ipoib_attach rxe0 n1 10.1.0.1/24 fd00::1/64
IB1=$IPOIB_IF
ipoib_attach rxe1 n2 10.1.0.2/24 fd00::2/64
IB2=$IPOIB_IF
MTU=$(ip netns exec n1 cat "/sys/class/net/$IB1/mtu")
UDP_LEN=$((MTU - 28))
log "IPoIB MTU $MTU: UDP payload $UDP_LEN bytes"
wait_for 60 "ping n1 -> 10.1.0.2" ping_works n1 10.1.0.2

check ip link add sa mtu "$MTU" type veth peer name sb mtu "$MTU"
check ip link set sa netns s1
check ip link set sb netns s2
check ip -n s1 link set sa up
check ip -n s2 link set sb up
check ip -n s1 addr add 10.3.0.1/24 dev sa
check ip -n s2 addr add 10.3.0.2/24 dev sb
wait_for 30 "ping s1 -> 10.3.0.2" ping_works s1 10.3.0.2

# --- raw verbs -----------------------------------------------------------------
# perftest server on rxe<rcv> (CPU RX_CPU), client on rxe<snd> (CPU TX_CPU),
# over the tools' TCP channel to the server's va/vb address.
RAW_ADDR=(10.200.0.1 10.200.0.2)
perftest_pair() {
	local tool=$1 rcv=$2 snd=$3 out=$4 spid rc=0
	shift 4
	timeout 120 taskset -c "$RX_CPU" "$tool" -c UD -d "rxe$rcv" -x 0 -p 18516 -F "$@" \
		> "$out.server" 2>&1 &
	spid=$!
	wait_for 30 "$tool to listen" tcp_listening 18516
	timeout 120 taskset -c "$TX_CPU" "$tool" -c UD -d "rxe$snd" -x 0 -p 18516 -F "$@" \
		"${RAW_ADDR[$rcv]}" > "$out" 2>&1 || rc=$?
	if ((rc != 0)); then
		cat "$out"
		fail "$tool client on rxe$snd exited $rc"
	fi
	wait "$spid" || { rc=$?; cat "$out.server"; fail "$tool server on rxe$rcv exited $rc"; }
}

# raw_udp ROUND TX RX: ib_send_bw, the receiver's MiB/s as Mbit/s. perftest
# turns cycles into time with a clock it calibrates; under TCG that
# sometimes fails and the figure is 0.00: tried again, 3 times at most.
raw_udp() {
	local r=$1 snd=$2 rcv=$3 try mbs
	for try in 1 2 3; do
		perftest_pair ib_send_bw "$rcv" "$snd" /tmp/bw.log -s 4096 -n "$BW_ITERS"
		mbs=$(awk '$1 == 4096 && NF >= 5 { print $4 }' /tmp/bw.log.server)
		[[ -n $mbs ]] || { cat /tmp/bw.log.server; fail "no figure from ib_send_bw"; }
		if awk -v m="$mbs" 'BEGIN { exit !(m > 0) }'; then
			sample "$r" raw "udp_$snd$rcv" "$(awk -v m="$mbs" 'BEGIN { printf "%.1f", m * 8 * 1.048576 }')"
			return 0
		fi
		log "ib_send_bw reported 0 MB/s (its clock calibration?), try $try of 3"
	done
	fail "ib_send_bw gave no figure in 3 tries"
}

# raw_lat ROUND: ib_send_lat rxe1 -> rxe0 and back, 128 bytes, busy-polling
# (b2b) and sleeping on events (idle): t_typical (the median) and 99%.
# perftest's latency tests report half of each round trip (one way):
# doubled, to compare with ping's round trips.
raw_lat() {
	local r=$1 mode opts
	for mode in b2b idle; do
		opts=()
		[[ $mode == idle ]] && opts=(-e)
		perftest_pair ib_send_lat 0 1 /tmp/lat.log -s 128 -n "$LAT_ITERS" "${opts[@]}"
		read -r p50 p99 < <(awk '$1 == 128 && NF >= 8 { printf "%.1f %.1f\n", $5 * 2, $8 * 2 }' /tmp/lat.log)
		[[ -n ${p99:-} ]] || { cat /tmp/lat.log; fail "no figure from ib_send_lat"; }
		sample "$r" raw "rtt_${mode}_p50" "$p50"
		sample "$r" raw "rtt_${mode}_p99" "$p99"
	done
}

# --- iperf3 and ping over an interface pair ------------------------------------
# ip_pair VARIANT: the namespaces and addresses of side 1 and side 2.
ip_pair() {
	case $1 in
	ipoib) NS=(n1 n2) ADDR=(10.1.0.1 10.1.0.2) ;;
	stack) NS=(s1 s2) ADDR=(10.3.0.1 10.3.0.2) ;;
	esac
}

# iperf ROUND VARIANT PROTO TX RX: goodput from side TX to side RX; the
# client pins itself to TX_CPU and the server to RX_CPU (iperf3 -A).
iperf() {
	local r=$1 v=$2 proto=$3 snd=$4 rcv=$5 opts=() mbps
	ip_pair "$v"
	[[ $proto == udp ]] && opts=(-u -b 0 -l "$UDP_LEN")
	iperf3_run "${NS[$((rcv - 1))]}" "${ADDR[$((rcv - 1))]}" "${NS[$((snd - 1))]}" \
		/tmp/iperf.log -t "$DURATION" -O 1 -A "$TX_CPU,$RX_CPU" "${opts[@]}"
	mbps=$(iperf3_mbps /tmp/iperf.log receiver) || fail "no iperf3 figure"
	sample "$r" "$v" "${proto}_$((snd - 1))$((rcv - 1))" "$mbps"
}

# pings ROUND VARIANT: round trips from side 2 to side 1, per packet:
# idle (25 every 0.2 s) and back to back (ping -A, 500), p50 and p99 in us.
pings() {
	local r=$1 v=$2 mode opts
	ip_pair "$v"
	for mode in idle b2b; do
		if [[ $mode == idle ]]; then opts=(-c 25 -i 0.2); else opts=(-A -c 500); fi
		ip netns exec "${NS[1]}" taskset -c "$TX_CPU" timeout 120 \
			ping -W 5 "${opts[@]}" "${ADDR[0]}" > /tmp/ping.log 2>&1 ||
			{ cat /tmp/ping.log; fail "ping over $v failed"; }
		read -r p50 p99 < <(grep -o 'time=[0-9.]*' /tmp/ping.log | cut -d= -f2 | sort -n |
			awk '{ v[NR] = $1 } END { if (NR) printf "%.0f %.0f\n",
				v[int((NR + 1) / 2)] * 1000, v[int(NR * 0.99 + 0.999)] * 1000 }')
		[[ -n ${p99:-} ]] || { cat /tmp/ping.log; fail "no round trips from ping over $v"; }
		sample "$r" "$v" "rtt_${mode}_p50" "$p50"
		sample "$r" "$v" "rtt_${mode}_p99" "$p99"
	done
}

# variant ROUND VARIANT: every figure of one variant in one round.
variant() {
	local r=$1 v=$2
	kmsg "round $r: $v"
	case $v in
	raw)
		raw_udp "$r" 0 1
		raw_udp "$r" 1 0
		raw_lat "$r"
		;;
	*)
		iperf "$r" "$v" udp 1 2
		iperf "$r" "$v" udp 2 1
		iperf "$r" "$v" tcp 1 2
		iperf "$r" "$v" tcp 2 1
		pings "$r" "$v"
		;;
	esac
}

for ((r = 1; r <= ROUNDS; r++)); do
	if ((r % 2)); then order=(raw stack ipoib); else order=(ipoib stack raw); fi
	for v in "${order[@]}"; do
		variant "$r" "$v"
	done
done
check_dmesg_clean "the benchmark"

# --- the table -----------------------------------------------------------------
TABLE=$VM_OUT/bench.txt
awk -F'\t' -v rounds="$ROUNDS" '
function med(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function stats(key,   i, n, a, lo, hi) {
	n = 0; lo = ""; hi = ""
	for (i = 1; i <= rounds; i++) if ((i SUBSEP key) in s) {
		a[++n] = s[i, key]
		if (lo == "" || a[n] < lo) lo = a[n]
		if (hi == "" || a[n] > hi) hi = a[n]
	}
	if (!n) return "-"
	return sprintf("%10.1f %10.1f %10.1f", lo, med(a, n), hi)
}
# ratio_med NUM_KEY DEN_KIND METRIC: the median over rounds of NUM / DEN,
# DEN "raw", "stack" or "ideal" (1 / (1 / raw + 1 / stack) of that round).
function ratio_med(metric, rawm, den,   i, n, a, x, y) {
	n = 0
	for (i = 1; i <= rounds; i++) {
		if (!((i SUBSEP "ipoib" SUBSEP metric) in s)) continue
		x = s[i, "ipoib" SUBSEP metric]
		if (den == "raw") y = s[i, "raw" SUBSEP rawm]
		else if (den == "stack") y = s[i, "stack" SUBSEP metric]
		else y = 1 / (1 / s[i, "raw" SUBSEP rawm] + 1 / s[i, "stack" SUBSEP metric])
		if (y > 0) a[++n] = x / y
	}
	return n ? sprintf("%.2f", med(a, n)) : "-"
}
{ s[$1, $2 SUBSEP $3] = $4; seen[$2 SUBSEP $3] = 1 }
END {
	printf "%-22s %-6s %10s %10s %10s\n", "figure", "what", "min", "median", "max"
	split("udp_01 udp_10 tcp_01 tcp_10 rtt_idle_p50 rtt_idle_p99 rtt_b2b_p50 rtt_b2b_p99", m, " ")
	for (k = 1; k in m; k++) for (vi = 1; vi <= 3; vi++) {
		v = (vi == 1) ? "raw" : (vi == 2) ? "stack" : "ipoib"
		key = v SUBSEP m[k]
		if (key in seen) printf "%-22s %-6s %s\n", m[k], v, stats(key)
	}
	print ""
	printf "%-22s %s\n", "ratio (median of rounds)", "ipoib/ideal  ipoib/raw  ipoib/stack"
	split("udp_01 udp_10", u, " ")
	for (k = 1; k in u; k++)
		printf "%-22s %11s %10s %12s\n", u[k], ratio_med(u[k], u[k], "ideal"), ratio_med(u[k], u[k], "raw"), ratio_med(u[k], u[k], "stack")
	# TCP: the raw ceiling is UD at the same IB payload.
	printf "%-22s %11s %10s %12s\n", "tcp_01", ratio_med("tcp_01", "udp_01", "ideal"), ratio_med("tcp_01", "udp_01", "raw"), ratio_med("tcp_01", "udp_01", "stack")
	printf "%-22s %11s %10s %12s\n", "tcp_10", ratio_med("tcp_10", "udp_10", "ideal"), ratio_med("tcp_10", "udp_10", "raw"), ratio_med("tcp_10", "udp_10", "stack")
	# Round trips: IPoIB against raw of the same completion mode.
	split("rtt_idle_p50 rtt_b2b_p50", l, " ")
	for (k = 1; k in l; k++)
		printf "%-22s %11s %10s %12s\n", l[k], "-", ratio_med(l[k], l[k], "raw"), ratio_med(l[k], l[k], "stack")
}' "$SAMPLES" > "$TABLE" || fail "the table could not be made"
unload_ipoib
echo "--- bench: $ROUNDS rounds of $DURATION s, Mbit/s and us (udp_01: side 1 -> side 2) ---"
cat "$TABLE"
