#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ib-unload: ipoib_ng and softib unloaded under traffic on InfiniBand
# (Documentation/softib-design.rst, step 9), on ib-ping's three hosts.
# Floods run in a ring while a module goes: n1 -> n2 in connected mode
# (RC), n2 -> IB0 and IB0 -> n1 and n2 in datagram mode (UD), so every
# HCA still receives while it is torn down, whichever goes first.
#
# Asserts, UNLOAD_CYCLES times each:
# - rmmod ipoib_ng under the floods: it unloads, its interfaces go, the
#   kernel log stays clean; loaded again, the hosts ping both ways;
# - rmmod softib under the floods, OpenSM running, ipoib_ng loaded: every
#   HCA unregisters while the others still send to it (a packet must not
#   reach a QP table rdmavt has freed: e22839e), ipoib_ng lets go of every
#   port; softib loaded again and OpenSM restarted, ipoib_ng gives the new
#   ports interfaces by itself, and they ping both ways.
# At the end OpenSM's log holds no error but the send-only refusals
# osm_allow_sendonly explains (none for a group a host is a member of:
# the DAD probes of the reloaded interfaces join FullMember first).

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

UNLOAD_CYCLES=${UNLOAD_CYCLES:-2}
FLOOD_SECS=3

# hosts_up: the interfaces of the (re)loaded modules into n1 and n2,
# addressed, n1 and n2 in connected mode, pinging.
hosts_up() {
	IB0=$(wait_ipoib_if softib0)
	IB1=$(wait_ipoib_if softib1)
	IB2=$(wait_ipoib_if softib2)
	ns_move "$IB0" n0
	ns_move "$IB1" n1
	ns_move "$IB2" n2
	check ip -n n1 link set dev "$IB1" type ipoib mode connected
	check ip -n n2 link set dev "$IB2" type ipoib mode connected
	check ip -n n0 link set dev "$IB0" up
	check ip -n n1 link set dev "$IB1" up
	check ip -n n2 link set dev "$IB2" up
	check ip -n n0 addr add 10.9.0.10/24 dev "$IB0"
	check ip -n n1 addr add 10.9.0.1/24 dev "$IB1"
	check ip -n n1 addr add fd09::1/64 dev "$IB1" nodad
	check ip -n n2 addr add 10.9.0.2/24 dev "$IB2"
	check ip -n n2 addr add fd09::2/64 dev "$IB2" nodad
	wait_for 60 "carrier on $IB1 in n1" has_carrier n1 "$IB1"
	wait_for 60 "carrier on $IB2 in n2" has_carrier n2 "$IB2"
	wait_for 60 "ping n1 -> 10.9.0.2" ping_works n1 10.9.0.2
	check_ping n1 10.9.0.2 -s 4000
	check_ping n2 10.9.0.10
	check_ping n0 10.9.0.1
	check_ping n2 fd09::1
}

# no_ipoib_links: no IPoIB interface is left in any namespace.
no_ipoib_links() {
	local ns left
	for ns in n0 n1 n2 ""; do
		left=$(ip ${ns:+-n "$ns"} -o link show | grep link/infiniband || true)
		[[ -z $left ]] || fail "an IPoIB interface left in ${ns:-the initial namespace}: $left"
	done
}

# floods: the ring, for as long as the module takes to go.
floods() {
	bg_run n1 600 ping -f -q -s 4000 10.9.0.2
	bg_run n2 600 ping -f -q -s 1400 10.9.0.10
	bg_run n0 600 ping -f -q -s 1400 10.9.0.1
	# softib unregisters its HCAs last to first, then pulls the cables:
	# n0 keeps sending to softib2 while softib1 unregisters.
	bg_run n0 600 ping -f -q -s 1400 10.9.0.2
	bg_run n1 600 ping -f -q -6 -s 1000 ff02::1%"$IB1"
	sleep "$FLOOD_SECS"
	sending n1 "$IB1" 1 10000 || fail "no flood out of $IB1"
	sending n2 "$IB2" 1 10000 || fail "no flood out of $IB2"
}

# opensm_gone: OpenSM, whose port went away under it, is stopped. It
# prints "Exiting SM" on SIGTERM and may then wait for ever on threads
# that talk to the port it lost: after 30 s it gets SIGKILL (what its
# threads were waiting in is logged), which the kernel must honour.
opensm_gone() {
	local pid
	# It may have gone by itself meanwhile.
	pkill -TERM -x opensm || true
	wait_for_quiet 30 sh -c "! pgrep -x opensm" && return 0
	for pid in $(pgrep -x opensm || true); do
		log "opensm $pid after SIGTERM: $(tr '\n' ' ' < "/proc/$pid/status" | grep -o 'State:[^V]*')"
		grep -H . /proc/"$pid"/task/*/wchan 2> /dev/null | sed 's/^/  /' || true
	done
	pkill -KILL -x opensm || true
	wait_for 30 "opensm to exit after SIGKILL" sh -c "! pgrep -x opensm"
}

load_softib
ns_create n0 n1 n2
load_ipoib
osm_allow_sendonly ffff
start_opensm
hosts_up

for ((c = 1; c <= UNLOAD_CYCLES; c++)); do
	kmsg "cycle $c: rmmod ipoib_ng under the floods"
	floods
	unload_ipoib
	bg_stop
	no_ipoib_links
	check_dmesg_clean "rmmod ipoib_ng under traffic (cycle $c)"
	load_ipoib
	hosts_up

	# Its log is started again with OpenSM: read it while it has a port.
	osm_log_clean "cycle $c, before rmmod softib"
	kmsg "cycle $c: rmmod softib under the floods, OpenSM running"
	floods
	unload_softib
	bg_stop
	[[ -d /sys/module/$IPOIB_NAME ]] || fail "$IPOIB_NAME went with softib"
	no_ipoib_links
	check_dmesg_clean "rmmod softib under traffic (cycle $c)"
	opensm_gone
	load_softib
	start_opensm
	hosts_up
done

stop_opensm
unload_ipoib
unload_softib
check_dmesg_clean "the final unload"
