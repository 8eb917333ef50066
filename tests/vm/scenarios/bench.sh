#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench: the IPoIB datapath against two ceilings, measured in one VM run,
# in rounds (issue 23, "the benchmark first"). Prints a table, writes it to
# bench.txt (and every sample to bench-samples.txt); fails only when a
# tool does.
#
# Four variants, measured in the same round, in ABBA order (round 1 raw,
# stack, IPoIB, connected; round 2 the other way; ...), so that a drift
# of the machine over the run weighs on all of them alike:
#   raw      the verbs under IPoIB: ib_send_bw -c UD for DURATION + 1 s,
#            4096-byte messages (an IB MTU's payload: IPoIB's 4-byte
#            header, IP, UDP and data) and 96-byte ones (a 64-byte UDP
#            datagram's); ib_send_lat -c UD, 128 bytes, busy-polling and
#            with -e (sleeping on CQ events, as the driver's NAPI does);
#            perftest reports half round trips, doubled here
#   stack    the IP stack alone: iperf3 and ping over a plain veth pair
#            between two namespaces, its MTU that of the IPoIB interfaces
#   ipoib    iperf3 and ping over ipoib_ng between n1 and n2
#   cm       iperf3 TCP over the same interfaces in connected mode (RFC
#            4755, MTU 65520), switched there and back in each round
# Held equal: the UDP payload (-l 4064 = 4092 - 28, so that an IPoIB
# datagram fills the 4096-byte IB payload raw sends; -l 64 against raw's
# 96 bytes), the CPUs (every receiver on CPU 1, every sender on CPU 0:
# taskset, iperf3 -A), the warm-up dropped (iperf3 -O 1; the window
# below), the duration.
#
# Per round: UDP packet rates both ways at 4 KiB (shown as Mbit/s of IB
# payload) and one way at 64 bytes (kpps), all from the receiving
# device's counter over a window the script times (the same ruler for
# raw and IPoIB); busy CPU ns per received packet over that window
# (/proc/stat, raw's kernel time only; under `run.sh --icount`, guest
# instructions per packet) and NET_RX + TASKLET softirqs per packet;
# TCP goodput both ways (iperf3's, at the receiver), in datagram and in
# connected mode; idle round trips (ping every 0.2 s against
# ib_send_lat -e) and back-to-back ones (ping -A against busy-polling
# ib_send_lat), each p50 and p99. "ideal" is what IPoIB would reach if
# the driver cost nothing beyond the verbs below it and the stack above
# it: 1 / (1 / raw + 1 / stack), per round; for CPU per packet, raw +
# stack (their costs add up). The table gives, for every
# figure, min / median / max over the rounds, and for every ratio the
# median of the per-round ratios: efficiency = ipoib / ideal (the
# driver's share), ipoib / raw, connected / datagram; then issue 23's
# goals, each met or not in this run. Last, one UDP run of each size
# under perf (cpu-clock): the share of each module and the top symbols,
# in bench-profile.txt.
#
# Under TCG the figures compare paths on the same emulated CPU, nothing
# more: absolute values mean little, and single runs are noise (rounds and
# medians are why). BENCH_ROUNDS (5) and BENCH_DURATION (6 s; the window
# is 2 s shorter) tune it.
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
# BENCH_ONLY=cpu: the CPU figures only (4 KiB and 64-byte UDP, stack and
# IPoIB; TCP, IPoIB), for vm-bench-cpu; BENCH_ONLY=cm: connected mode's TCP only,
# against BENCH_BEFORE's (variant cm_before); BENCH_ONLY=trace: where an
# idle ping's round trip goes (trace_pings, below), no rounds. BENCH_NS_PER_INSN: under
# -icount shift=N, 2^N: CPU figures are then given in guest instructions.
ONLY=${BENCH_ONLY:-}
NS_PER_INSN=${BENCH_NS_PER_INSN:-1}
DURATION=${BENCH_DURATION:-6}
LAT_ITERS=${BENCH_LAT_ITERS:-1000}
TX_CPU=0
RX_CPU=1
SAMPLES=$VM_OUT/bench-samples.txt
: > "$SAMPLES"
# One vCPU (vm-bench-cpu: QEMU's -icount runs no SMP guest): all on CPU 0.
if (($(nproc) == 1)); then
	RX_CPU=0
	log "one CPU: senders and receivers share it"
fi

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

# BENCH_BEFORE: another build of ipoib_ng.ko (an earlier commit's),
# measured in the same rounds as the variant "before": the two modules
# take turns, swapped between variants, so that a datapath change is
# compared with what it replaces in one run.
BEFORE=${BENCH_BEFORE:-}
LOADED=
# use_module KO: KO loaded, its ports in n1 and n2 with their addresses.
use_module() {
	[[ $LOADED != "$1" ]] || return 0
	[[ -z $LOADED ]] || unload_ipoib
	VM_MODULE=$1 load_ipoib
	LOADED=$1
	ipoib_attach rxe0 n1 10.1.0.1/24 fd00::1/64
	IB1=$IPOIB_IF
	ipoib_attach rxe1 n2 10.1.0.2/24 fd00::2/64
	IB2=$IPOIB_IF
	IBS=("$IB1" "$IB2")
	wait_for 60 "ping n1 -> 10.1.0.2" ping_works n1 10.1.0.2
}
if [[ -n $BEFORE ]]; then
	[[ -f $BEFORE ]] || fail "BENCH_BEFORE=$BEFORE: no such file"
	log "before: $BEFORE ($(modinfo -F srcversion "$BEFORE")), after: $VM_MODULE ($(modinfo -F srcversion "$VM_MODULE"))"
fi
AFTER=$VM_MODULE
ns_create n1 n2 s1 s2
use_module "$AFTER"
MTU=$(ip netns exec n1 cat "/sys/class/net/$IB1/mtu")
UDP_LEN=$((MTU - 28))
log "IPoIB MTU $MTU: UDP payload $UDP_LEN bytes"

check ip link add sa mtu "$MTU" type veth peer name sb mtu "$MTU"
check ip link set sa netns s1
check ip link set sb netns s2
check ip -n s1 link set sa up
check ip -n s2 link set sb up
check ip -n s1 addr add 10.3.0.1/24 dev sa
check ip -n s2 addr add 10.3.0.2/24 dev sb
wait_for 30 "ping s1 -> 10.3.0.2" ping_works s1 10.3.0.2

# --- the one ruler: counters over a window --------------------------------------
# Packet rates come from the receiving device's own counter (rxe's
# rcvd_pkts for raw, the interface's rx_packets for the stack and IPoIB)
# over a window the script times inside each run, the CPU from
# /proc/stat's busy ticks over the same window: the tools' own clocks
# (perftest calibrates one, badly under TCG) are not used for rates.
# Under `run.sh --icount` the guest's clock counts instructions, and
# busy ns per packet is instructions per packet.
WARM=1.5
WINDOW=$((DURATION - 2))
((WINDOW >= 2)) || fail "BENCH_DURATION must be 4 s or more"
TCK=$(getconf CLK_TCK)

# rx_count VARIANT SIDE: packets received so far by side SIDE (0 or 1).
rx_count() {
	case $1 in
	raw) cat "/sys/class/infiniband/rxe$2/ports/1/hw_counters/rcvd_pkts" ;;
	stack) ip netns exec "s$(($2 + 1))" cat "/sys/class/net/$([[ $2 == 0 ]] && echo sa || echo sb)/statistics/rx_packets" ;;
	*) ip netns exec "n$(($2 + 1))" cat "/sys/class/net/${IBS[$2]}/statistics/rx_packets" ;;
	esac
}

# snap VARIANT SIDE: "time busy_ticks kernel_ticks packets softirqs",
# the clock, /proc/stat and /proc/softirqs read by bash itself, so that
# no fork falls inside the window; kernel ticks leave out user mode (and
# steal); softirqs counts the NET_RX and TASKLET ones run on all CPUs
# (on 6.1, each CQ event is one of each: rxe calls the CQ's handler from a
# tasklet, the handler schedules NAPI).
snap() {
	local t=$EPOCHREALTIME user nice sys irq sirq steal rest name n k=0
	read -r _ user nice sys _ _ irq sirq steal rest < /proc/stat
	while read -r name rest; do
		[[ $name == NET_RX: || $name == TASKLET: ]] || continue
		for n in $rest; do k=$((k + n)); done
	done < /proc/softirqs
	echo "$t $((user + nice + sys + irq + sirq + steal)) $((sys + irq + sirq)) $(rx_count "$1" "$2") $k"
}

# window_start PATTERN VARIANT SIDE: in the background, once a process
# whose command line matches PATTERN runs, WARM s later and WINDOW s after
# that, snap into /tmp/window. window_end: wait for it and set W_PPS,
# W_CPU (busy ns per packet), W_KCPU (kernel ns per packet) and W_SIRQ
# (softirqs per packet).
window_start() {
	rm -f /tmp/window
	(
		until pgrep -f -- "$1" > /dev/null; do sleep 0.05; done
		sleep "$WARM"
		a=$(snap "$2" "$3")
		sleep "$WINDOW"
		b=$(snap "$2" "$3")
		echo "$a $b" > /tmp/window
	) &
	WINDOW_PID=$!
}
window_end() {
	local out
	wait "$WINDOW_PID" || fail "the measuring window did not complete"
	[[ -s /tmp/window ]] || fail "no measuring window"
	# Two snaps of five numbers each, or the figures would shift.
	out=$(awk -v tck="$TCK" 'NF != 10 { exit 1 } { for (i = 1; i <= 10; i++) if ($i !~ /^[0-9.]+$/) exit 1 }
		{ dt = $6 - $1; dp = $9 - $4; db = $7 - $2; dk = $8 - $3; ds = $10 - $5
		if (dt <= 0 || dp <= 0) { print "0 0 0 0"; exit }
		printf "%.1f %.0f %.0f %.2f\n", dp / dt, db * 1e9 / tck / dp / npi,
			dk * 1e9 / tck / dp / npi, ds / dp }' npi="$NS_PER_INSN" /tmp/window) ||
		fail "the measuring window is not two snaps: $(< /tmp/window)"
	read -r W_PPS W_CPU W_KCPU W_SIRQ <<< "$out"
}
# window_counted WHAT: window_end, and packets were counted over it.
window_counted() {
	window_end
	awk -v p="$W_PPS" 'BEGIN { exit !(p > 0) }' || fail "no packets counted over $1"
}

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

# raw_rate ROUND TX RX SIZE METRIC: ib_send_bw for DURATION + 1 s, SIZE
# bytes a message; the receiver's packet rate over the window (METRIC
# udp_*: as Mbit/s of IB payload, 4096 B a packet; small_*: kpps) and
# the kernel's CPU per packet: perftest busy-polls its CQs in user mode
# (rxe maps them), a spin that would cost nothing with events, while the
# verbs' work (post_send, rxe's requester and responder, the veth pair
# under them) is all kernel time.
raw_rate() {
	local r=$1 snd=$2 rcv=$3 size=$4 metric=$5
	window_start "ib_send_bw -c UD -d rxe$snd" raw "$rcv"
	perftest_pair ib_send_bw "$rcv" "$snd" /tmp/bw.log -s "$size" -D "$((DURATION + 1))"
	window_end
	awk -v p="$W_PPS" 'BEGIN { exit !(p > 0) }' || { cat /tmp/bw.log.server; fail "no packets counted for ib_send_bw"; }
	sample "$r" raw "$metric" "$(rate_figure "$metric" "$W_PPS")"
	sample "$r" raw "cpu_$metric" "$W_KCPU"
	sample "$r" raw "sirq_$metric" "$W_SIRQ"
}

# rate_figure METRIC PPS: udp_* in Mbit/s of 4096-byte IB payloads,
# small_* in kpps.
rate_figure() {
	case $1 in
	udp_*) awk -v p="$2" 'BEGIN { printf "%.1f", p * 4096 * 8 / 1e6 }' ;;
	*) awk -v p="$2" 'BEGIN { printf "%.2f", p / 1000 }' ;;
	esac
}

# raw_lat ROUND: ib_send_lat rxe1 -> rxe0 and back, 128 bytes, busy-polling
# (b2b) and sleeping on events (idle): t_typical (the median) and 99%.
# perftest's latency tests report half of each round trip (one way):
# doubled, to compare with ping's round trips. Under TCG perftest's
# calibration of its cycle counter sometimes fails and it prints "inf":
# such a run is done again, once.
raw_lat() {
	local r=$1 mode opts try p50 p99
	for mode in b2b idle; do
		opts=()
		[[ $mode == idle ]] && opts=(-e)
		for try in 1 2; do
			perftest_pair ib_send_lat 0 1 /tmp/lat.log -s 128 -n "$LAT_ITERS" "${opts[@]}"
			p50='' p99=''
			# (read fails on no line: not an error here, under set -e)
			read -r p50 p99 < <(awk '$1 == 128 && NF >= 8 && $5 ~ /^[0-9.]+$/ && $8 ~ /^[0-9.]+$/ &&
				$5 > 0 { printf "%.1f %.1f\n", $5 * 2, $8 * 2 }' /tmp/lat.log) || true
			[[ -z $p99 ]] || break
			cat /tmp/lat.log
			((try == 1)) || fail "no figure from ib_send_lat"
			log "no figure from ib_send_lat: once more"
		done
		sample "$r" raw "rtt_${mode}_p50" "$p50"
		sample "$r" raw "rtt_${mode}_p99" "$p99"
	done
}

# --- iperf3 and ping over an interface pair ------------------------------------
# ip_pair VARIANT: the namespaces and addresses of side 1 and side 2.
ip_pair() {
	case $1 in
	ipoib | cm | before | cm_before) NS=(n1 n2) ADDR=(10.1.0.1 10.1.0.2) ;;
	stack) NS=(s1 s2) ADDR=(10.3.0.1 10.3.0.2) ;;
	esac
}

# iperf ROUND VARIANT KIND TX RX: KIND udp (MTU-sized datagrams), small
# (64-byte datagrams) or tcp, from side TX to side RX; the client pins
# itself to TX_CPU and the server to RX_CPU (iperf3 -A). UDP: the
# receiving interface's packet rate and busy ns per packet over the
# window; TCP: iperf3's goodput at the receiver, and over IPoIB the busy
# ns per data packet received (ACKs included in the cost; not for the
# veth pair, whose packets are 64 KiB GSO ones).
iperf() {
	local r=$1 v=$2 kind=$3 snd=$4 rcv=$5 opts=() mbps metric
	ip_pair "$v"
	metric=${kind}_$((snd - 1))$((rcv - 1))
	case $kind in
	udp) opts=(-u -b 0 -l "$UDP_LEN") ;;
	small) opts=(-u -b 0 -l 64) ;;
	esac
	[[ $kind == tcp && $v == stack ]] ||
		window_start "iperf3 -c ${ADDR[$((rcv - 1))]}" "$v" "$((rcv - 1))"
	iperf3_run "${NS[$((rcv - 1))]}" "${ADDR[$((rcv - 1))]}" "${NS[$((snd - 1))]}" \
		/tmp/iperf.log -t "$((DURATION + 1))" -O 1 -A "$TX_CPU,$RX_CPU" "${opts[@]}"
	if [[ $kind == tcp ]]; then
		mbps=$(iperf3_mbps /tmp/iperf.log receiver) || fail "no iperf3 figure"
		sample "$r" "$v" "$metric" "$mbps"
		[[ $v != stack ]] || return 0
		window_counted "$v"
		sample "$r" "$v" "cpu_$metric" "$W_CPU"
		return
	fi
	window_counted "$v"
	sample "$r" "$v" "$metric" "$(rate_figure "$metric" "$W_PPS")"
	sample "$r" "$v" "cpu_$metric" "$W_CPU"
	sample "$r" "$v" "sirq_$metric" "$W_SIRQ"
}

# pings ROUND VARIANT: round trips from side 2 to side 1, per packet:
# idle (25 every 0.2 s) and back to back (ping -A, 500), p50 and p99 in us.
pings() {
	local r=$1 v=$2 mode opts p50 p99
	ip_pair "$v"
	for mode in idle b2b; do
		if [[ $mode == idle ]]; then opts=(-c 25 -i 0.2); else opts=(-A -c 500); fi
		ip netns exec "${NS[1]}" taskset -c "$TX_CPU" timeout 120 \
			ping -W 5 "${opts[@]}" "${ADDR[0]}" > /tmp/ping.log 2>&1 ||
			{ cat /tmp/ping.log; fail "ping over $v failed"; }
		p50='' p99=''
		read -r p50 p99 < <(ping_times /tmp/ping.log | rtt_p50_p99) || true
		[[ -n ${p99:-} ]] || { cat /tmp/ping.log; fail "no round trips from ping over $v"; }
		sample "$r" "$v" "rtt_${mode}_p50" "$p50"
		sample "$r" "$v" "rtt_${mode}_p99" "$p99"
	done
}

# set_mode MODE: both IPoIB interfaces in datagram or connected mode
# (RFC 4755: the MTU goes to 65520 and back to the IB MTU's).
set_mode() {
	local i
	for i in 0 1; do
		check ip -n "n$((i + 1))" link set dev "${IBS[$i]}" type ipoib mode "$1"
		[[ $1 == connected ]] || check ip -n "n$((i + 1))" link set dev "${IBS[$i]}" mtu "$MTU"
	done
	wait_for 60 "ping n2 -> 10.1.0.1 in $1 mode" ping_works n2 10.1.0.1
}

# variant ROUND VARIANT: every figure of one variant in one round.
variant() {
	local r=$1 v=$2
	kmsg "round $r: $v"
	case $v in
	raw)
		raw_rate "$r" 0 1 4096 udp_01
		raw_rate "$r" 1 0 4096 udp_10
		raw_rate "$r" 0 1 96 small_01
		raw_lat "$r"
		;;
	cm | cm_before)
		if [[ $v == cm ]]; then use_module "$AFTER"; else use_module "$BEFORE"; fi
		set_mode connected
		iperf "$r" "$v" tcp 1 2
		iperf "$r" "$v" tcp 2 1
		set_mode datagram
		;;
	*)
		if [[ $v == before ]]; then use_module "$BEFORE"; else use_module "$AFTER"; fi
		if [[ $ONLY == cpu ]]; then
			iperf "$r" "$v" udp 1 2
			iperf "$r" "$v" small 1 2
			# CPU per TCP data packet: IPoIB only (see iperf).
			[[ $v == stack ]] || iperf "$r" "$v" tcp 1 2
			return
		fi
		iperf "$r" "$v" udp 1 2
		iperf "$r" "$v" udp 2 1
		iperf "$r" "$v" small 1 2
		iperf "$r" "$v" tcp 1 2
		iperf "$r" "$v" tcp 2 1
		pings "$r" "$v"
		;;
	esac
}

# --- an idle ping, traced ------------------------------------------------------
# trace_pings: issue 23's "idle-ping latency explained". Round trips over
# IPoIB and over the veth pair by the interval between pings (0.2 s, as
# the bench's idle figure; 0.02 s; 0.002 s; back to back), p50 and p99:
# what the wait between pings costs. Then 12 pings 0.2 s apart under the
# function tracer, limited to the functions a round trip passes through
# (the driver's, rxe's, the stack's steps, softirq and idle entry): for
# each function and each of its calls in a round trip, the median time
# from the ping's first transmit, over the pings (a per-step timeline),
# and one ping's whole trace. Into bench-trace.txt.
TRACE_FUNCS="ipn_start_xmit ipn_tx_flush ipn_tx_comp ipn_tx_poll ipn_rx_comp
ipn_rx_poll napi_gro_receive rxe_post_send rxe_requester rxe_responder
rxe_completer rxe_rcv rxe_cq_post veth_xmit netif_rx __netif_receive_skb
net_rx_action icmp_rcv ping_rcv raw_rcv ip_output __napi_schedule
try_to_wake_up default_idle_call do_idle"
trace_pings() {
	local out=$VM_OUT/bench-trace.txt t=/sys/kernel/tracing v i p50 p99 f opts
	: > "$out"
	mountpoint -q "$t" || check mount -t tracefs nodev "$t"
	{
		echo "=== round trips from side 2 by the interval between pings (us, 25 each) ==="
		printf '%-8s %-10s %8s %8s\n' variant interval p50 p99
	} >> "$out"
	for v in ipoib stack; do
		ip_pair "$v"
		for i in 0.2 0.02 0.002 A; do
			if [[ $i == A ]]; then opts=(-A); else opts=(-i "$i"); fi
			ip netns exec "${NS[1]}" taskset -c "$TX_CPU" timeout 60 \
				ping -W 5 -c 25 "${opts[@]}" "${ADDR[0]}" > /tmp/ping.log 2>&1 ||
				{ cat /tmp/ping.log; fail "ping over $v failed"; }
			read -r p50 p99 < <(ping_times /tmp/ping.log | rtt_p50_p99)
			printf '%-8s %-10s %8s %8s\n' "$v" "$i" "$p50" "$p99" >> "$out"
		done
	done
	echo 0 > "$t/tracing_on"
	echo nop > "$t/current_tracer"
	: > "$t/set_ftrace_filter"
	for f in $TRACE_FUNCS; do
		echo "$f" >> "$t/set_ftrace_filter" 2> /dev/null || log "not traceable: $f"
	done
	echo function > "$t/current_tracer"
	: > "$t/trace"
	echo 1 > "$t/tracing_on"
	ip_pair ipoib
	ip netns exec "${NS[1]}" taskset -c "$TX_CPU" ping -W 5 -c 12 -i 0.2 "${ADDR[0]}" \
		> /tmp/ping.log 2>&1 || { cat /tmp/ping.log; fail "traced ping failed"; }
	echo 0 > "$t/tracing_on"
	cp "$t/trace" /tmp/ping-trace.txt
	echo nop > "$t/current_tracer"
	: > "$t/set_ftrace_filter"
	{
		echo "=== the traced pings (ping's own figures, tracing on) ==="
		grep 'time=' /tmp/ping.log
		echo "=== per step: median us from the ping's first ipn_start_xmit (FUNC#n: its n-th call in the round trip), over the pings ==="
		# A round trip starts at an ipn_start_xmit after 50 ms without one.
		awk '!/^#/ && NF >= 5 {
			ts = ""; for (k = 1; k <= NF; k++) if ($k ~ /^[0-9]+\.[0-9]+:$/) { ts = $k; f = $(k + 1); break }
			if (ts == "") next
			sub(/:$/, "", ts); t = ts * 1e6
			if (f == "ipn_start_xmit" && t - last > 50000) { p++; t0[p] = t; delete seen; last = t }
			if (!p) next
			if (f == "ipn_start_xmit") last = t
			key = f "#" (++seen[f]); d = t - t0[p]
			if (!(key in first)) { first[key] = d; order[++nk] = key }
			n[key]++; v[key, n[key]] = d
		} END {
			for (j = 1; j <= nk; j++) {
				key = order[j]; m = n[key]
				for (a = 2; a <= m; a++) for (b = a; b > 1 && v[key, b - 1] > v[key, b]; b--) { x = v[key, b]; v[key, b] = v[key, b - 1]; v[key, b - 1] = x }
				med[key] = v[key, int((m + 1) / 2)]
			}
			for (j = 1; j <= nk; j++) printf "%10.1f  %-28s (%d of %d pings)\n", med[order[j]], order[j], n[order[j]], p
		}' /tmp/ping-trace.txt | sort -n
		echo "=== one round trip, whole (the 6th ping) ==="
		awk '!/^#/ && NF >= 5 {
			ts = ""; for (k = 1; k <= NF; k++) if ($k ~ /^[0-9]+\.[0-9]+:$/) { ts = $k; f = $(k + 1); break }
			if (ts == "") next
			sub(/:$/, "", ts); t = ts * 1e6
			if (f == "ipn_start_xmit" && t - last > 50000) { p++; t0 = t }
			if (f == "ipn_start_xmit") last = t
			if (p == 6) printf "%10.1f  %s\n", t - t0, $0
		}' /tmp/ping-trace.txt
	} >> "$out"
}

if [[ $ONLY == trace ]]; then
	use_module "$AFTER"
	trace_pings
	check_dmesg_clean "the traced pings"
	unload_ipoib
	cat "$VM_OUT/bench-trace.txt"
	exit 0
fi

VARIANTS=(raw stack ipoib cm)
[[ $ONLY != cpu ]] || VARIANTS=(stack ipoib)
if [[ $ONLY == cm ]]; then
	[[ -n $BEFORE ]] || fail "BENCH_ONLY=cm compares with BENCH_BEFORE: none given"
	VARIANTS=(cm cm_before)
elif [[ -n $BEFORE ]]; then
	VARIANTS+=(before)
fi
for ((r = 1; r <= ROUNDS; r++)); do
	order=()
	for v in "${VARIANTS[@]}"; do
		if ((r % 2)); then order+=("$v"); else order=("$v" "${order[@]}"); fi
	done
	for v in "${order[@]}"; do
		variant "$r" "$v"
	done
done

use_module "$AFTER"
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
	if (key ~ /sirq_/) return sprintf("%10.2f %10.2f %10.2f", lo, med(a, n), hi)
	return sprintf("%10.1f %10.1f %10.1f", lo, med(a, n), hi)
}
# den(ROUND, KIND, METRIC, RAWM): the denominator of one round: "raw" (raw
# RAWM), "stack", "ideal" (1 / (1 / raw + 1 / stack); raw + stack for a
# cpu_* figure) or "ipoib".
function den(i, kind, metric, rawm,   x, y) {
	if (kind == "raw") return s[i, "raw" SUBSEP rawm]
	if (kind == "stack") return s[i, "stack" SUBSEP metric]
	if (kind == "ipoib" || kind == "before" || kind == "cm_before") return s[i, kind SUBSEP metric]
	x = s[i, "raw" SUBSEP rawm]; y = s[i, "stack" SUBSEP metric]
	if (metric ~ /^cpu_/) return (x > 0 && y > 0) ? x + y : 0
	return (x > 0 && y > 0) ? 1 / (1 / x + 1 / y) : 0
}
# ratio(NUMV, METRIC, KIND, RAWM): the median over rounds of NUMV METRIC
# over den(); R_VAL keeps it as a number ("" when there is none).
function ratio(numv, metric, kind, rawm,   i, n, a, x, y) {
	n = 0
	for (i = 1; i <= rounds; i++) {
		if (!((i SUBSEP numv SUBSEP metric) in s)) continue
		x = s[i, numv SUBSEP metric]; y = den(i, kind, metric, rawm)
		if (y > 0) a[++n] = x / y
	}
	R_VAL = n ? med(a, n) : ""
	return n ? sprintf("%.2f", R_VAL) : "-"
}
function row(metric, rawm) {
	printf "%-22s %11s %10s %12s %13s\n", metric, ratio("ipoib", metric, "ideal", rawm),
		ratio("ipoib", metric, "raw", rawm), ratio("ipoib", metric, "stack", rawm),
		ratio("ipoib", metric, "before", "")
}
# goal(TEXT, VALUE, OP, BOUND)
function goal(text, v, op, bound,   ok) {
	if (v == "") { printf "%-48s %8s  %s\n", text, "-", "not measured"; return }
	ok = (op == ">=") ? (v >= bound) : (v <= bound)
	printf "%-48s %8.2f  %s\n", text, v, ok ? "met" : "NOT met"
}
{ s[$1, $2 SUBSEP $3] = $4; seen[$2 SUBSEP $3] = 1 }
END {
	printf "%-22s %-6s %10s %10s %10s\n", "figure", "what", "min", "median", "max"
	split("udp_01 udp_10 small_01 tcp_01 tcp_10 cpu_udp_01 cpu_udp_10 cpu_small_01 cpu_tcp_01 cpu_tcp_10 sirq_udp_01 sirq_udp_10 sirq_small_01 rtt_idle_p50 rtt_idle_p99 rtt_b2b_p50 rtt_b2b_p99", m, " ")
	split("raw stack ipoib cm before cm_before", vs, " ")
	for (k = 1; k in m; k++) for (vi = 1; vi in vs; vi++) {
		key = vs[vi] SUBSEP m[k]
		if (key in seen) printf "%-22s %-6s %s\n", m[k], vs[vi], stats(key)
	}
	print ""
	printf "%-22s %s\n", "ratio (median of rounds)", "ipoib/ideal  ipoib/raw  ipoib/stack ipoib/before"
	row("udp_01", "udp_01"); row("udp_10", "udp_10"); row("small_01", "small_01")
	# TCP: the raw ceiling is UD at the same IB payload.
	row("tcp_01", "udp_01"); row("tcp_10", "udp_10")
	# Round trips: IPoIB against raw of the same completion mode.
	split("rtt_idle_p50 rtt_b2b_p50", l, " ")
	for (k = 1; k in l; k++)
		printf "%-22s %11s %10s %12s %13s\n", l[k], "-", ratio("ipoib", l[k], "raw", l[k]),
			ratio("ipoib", l[k], "stack", l[k]), ratio("ipoib", l[k], "before", "")
	# CPU: against raw + stack, raw and the stack. TCP per data packet,
	# against none of them (the veth pair sends 64 KiB GSO packets).
	split("cpu_udp_01 cpu_udp_10 cpu_small_01 cpu_tcp_01 cpu_tcp_10", c, " ")
	for (k = 1; k in c; k++)
		printf "%-22s %11s %10s %12s %13s\n", c[k],
			c[k] ~ /tcp/ ? "-" : ratio("ipoib", c[k], "ideal", c[k]),
			c[k] ~ /tcp/ ? "-" : ratio("ipoib", c[k], "raw", c[k]),
			c[k] ~ /tcp/ ? "-" : ratio("ipoib", c[k], "stack", c[k]),
			ratio("ipoib", c[k], "before", "")
	printf "%-22s %11s %10s %12s\n", "cm tcp_01 / datagram", "-", "-", ratio("cm", "tcp_01", "ipoib", "")
	printf "%-22s %11s %10s %12s\n", "cm tcp_10 / datagram", "-", "-", ratio("cm", "tcp_10", "ipoib", "")
	printf "%-22s %11s %10s %12s %13s\n", "cm tcp_01", "-", "-", "-", ratio("cm", "tcp_01", "cm_before", "")
	printf "%-22s %11s %10s %12s %13s\n", "cm tcp_10", "-", "-", "-", ratio("cm", "tcp_10", "cm_before", "")
	print ""
	print "goals (issue 23), each from this run"
	split("udp_01 udp_10 tcp_01 tcp_10", g, " ")
	split("udp_01 udp_10 udp_01 udp_10", gr, " ")
	for (k = 1; k in g; k++) { ratio("ipoib", g[k], "ideal", gr[k]); goal("efficiency " g[k] " (ipoib/ideal) >= 0.90", R_VAL, ">=", 0.9) }
	ratio("ipoib", "small_01", "ideal", "small_01"); goal("64-byte rate (ipoib/ideal) >= 0.80", R_VAL, ">=", 0.8)
	ratio("ipoib", "rtt_idle_p50", "raw", "rtt_idle_p50"); goal("idle RTT p50 (ipoib/raw, events) <= 1.5", R_VAL, "<=", 1.5)
	ratio("ipoib", "rtt_b2b_p50", "raw", "rtt_b2b_p50"); goal("b2b RTT p50 (ipoib/raw, busy) <= 1.5", R_VAL, "<=", 1.5)
	ratio("cm", "tcp_01", "ipoib", ""); goal("connected TCP 01 / datagram TCP >= 1.5", R_VAL, ">=", 1.5)
	ratio("cm", "tcp_10", "ipoib", ""); goal("connected TCP 10 / datagram TCP >= 1.5", R_VAL, ">=", 1.5)
	# Against 7312acf when BENCH_BEFORE is its build (vm-bench-cpu).
	ratio("ipoib", "cpu_udp_01", "before", ""); goal("CPU per 4 KiB UDP packet / before <= 0.70", R_VAL, "<=", 0.7)
	ratio("ipoib", "cpu_small_01", "before", ""); goal("CPU per 64-byte UDP packet / before <= 0.70", R_VAL, "<=", 0.7)
}' "$SAMPLES" > "$TABLE" || fail "the table could not be made"
# --- where the CPU goes ------------------------------------------------------------
# One more UDP run of each size over IPoIB under `perf record -a -e
# cpu-clock` (a timer: TCG has no PMU), by module, by command and by
# symbol; idle time is in it (swapper, *_safe_halt).
PROFILE=$VM_OUT/bench-profile.txt
: > "$PROFILE"
if [[ $ONLY == cm ]]; then
	echo "BENCH_ONLY=cm: no profile" > "$PROFILE"
elif command -v perf > /dev/null; then
	# perf's workload is a sleep that outlasts the run: perf execs it
	# only once it records (its start-up is slow under TCG), so the run
	# starts when the sleep is there.
	nap=$((DURATION + 6)).5
	for kind in udp small; do
		if [[ $kind == udp ]]; then opts=(-u -b 0 -l "$UDP_LEN"); else opts=(-u -b 0 -l 64); fi
		perf record -q -a -e cpu-clock -F 499 -o "/tmp/perf-$kind.data" -- sleep "$nap" \
			> "/tmp/perf-$kind.log" 2>&1 &
		ppid=$!
		wait_for 120 "perf record to start" pgrep -f "^sleep $nap\$"
		iperf3_run n2 10.1.0.2 n1 /tmp/iperf.log -t "$((DURATION + 1))" -O 1 \
			-A "$TX_CPU,$RX_CPU" "${opts[@]}"
		wait "$ppid" || { cat "/tmp/perf-$kind.log"; fail "perf record failed"; }
		{
			# perf files module symbols under [kernel.kallsyms] (the
			# module is not under /lib/modules): /proc/kallsyms names
			# each symbol's module.
			echo "=== $kind over IPoIB (n1 -> n2): share of the samples by kernel module ==="
			perf report -i "/tmp/perf-$kind.data" --sort sym --stdio 2> /dev/null |
				awk 'FNR == NR { if (NF >= 4) mod[$3] = $4; next }
				     $1 ~ /%$/ && $2 == "[k]" { p = $1; sub(/%/, "", p)
					m = ($3 in mod) ? mod[$3] : "[kernel]"
					if ($3 == "native_safe_halt" || $3 == "default_idle") m = "(idle)"
					share[m] += p }
				     END { for (m in share) printf "%8.2f%%  %s\n", share[m], m }' \
					/proc/kallsyms - | sort -rn
			echo "=== $kind over IPoIB, by command ==="
			perf report -i "/tmp/perf-$kind.data" --sort comm --stdio 2> /dev/null |
				awk '!/^#/ && NF && n++ < 12'
			echo "=== $kind over IPoIB, top symbols ==="
			perf report -i "/tmp/perf-$kind.data" --sort sym --stdio 2> /dev/null |
				awk '!/^#/ && NF && n++ < 40'
		} >> "$PROFILE"
	done
else
	echo "perf is not installed: no profile" > "$PROFILE"
fi
unload_ipoib
echo "--- bench: $ROUNDS rounds, windows of $WINDOW s; Mbit/s, kpps, ns, us (udp_01: side 1 -> side 2) ---"
[[ $NS_PER_INSN == 1 ]] || echo "--- (-icount: cpu_* in guest instructions per packet, $NS_PER_INSN ns each) ---"
cat "$TABLE"
echo "--- where the CPU goes (perf, cpu-clock) ---"
cat "$PROFILE"
