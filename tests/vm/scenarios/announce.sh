#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# announce: when the hardware address of an interface changes, its peers
# learn the new one from the interface itself (a gratuitous ARP and an
# unsolicited neighbour advertisement, NETDEV_NOTIFY_PEERS), not from
# their own neighbour probes, which would take 5 s or more (DELAY, then
# unicast probes to the old address, then a broadcast). The topology of
# ping.sh: IB1 in n1, IB2 in n2. For each change of IB1's address:
#   (a) another GID of the port, chosen while down (fd79::1's, a RoCE GID
#       of an IP address of va), then up;
#   (b) a mode switch (connected: the C bit of RFC 4755 s3.1), and back;
# n2's neighbour entries for 10.1.0.1 and fd00::1 hold the new address
# within 10 s of IB1's carrier-up (n2 sends nothing meanwhile, so only an
# announcement can change them; its own probes would not start before
# its entries went stale), and a capture on IB2 shows the gratuitous ARP
# and the unsolicited NA that carried it.
#   (c) arping -U, from userspace through a packet socket and the
#       driver's header_ops: n2's entry for 10.1.0.1, set to a wrong
#       address by hand, is put right by one gratuitous ARP.
#   (d) the other way round: the peer's Ethernet MAC changes under the
#       same RoCE GID (va, live, announced by an unsolicited NA): n2's
#       path to that GID takes the new MAC within 5 s of the neighbour
#       layer (a revalidation now, path_mac_changes), not at its next
#       revalidation.
# A failover of a bond, the third case, is bond.sh's (c).

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

setup_ipoib_netns_pair
check_ping n1 10.1.0.2
check_ping n2 10.1.0.1
check_ping n1 fd00::2
check_ping n2 fd00::1

neigh_is() {
	[[ $(neigh_lladdr n2 "$IB2" "$1") == "$2" ]]
}

CAP=/tmp/announce.pcap
capture_start() {
	rm -f "$CAP" /tmp/announce-tcpdump.err
	ip netns exec n2 tcpdump -U --immediate-mode -i "$IB2" -w "$CAP" \
		'arp or (icmp6 and ip6[40] == 136)' 2> /tmp/announce-tcpdump.err &
	TCPDUMP=$!
	wait_for 30 "tcpdump to listen" grep -q 'listening on' /tmp/announce-tcpdump.err
}
capture_stop() {
	kill "$TCPDUMP"
	wait "$TCPDUMP" || true
	tcpdump -r "$CAP" -nn -vv 2> /dev/null > /tmp/announce.txt || true
	cp /tmp/announce.txt "$VM_OUT/announce-$1.txt"
	sed 's/^/    /' /tmp/announce.txt
}

# expect_announced WHAT ADDR: once IB1 has its carrier back, n2's entries
# for 10.1.0.1 and fd00::1 hold ADDR within 10 s, and the capture has the
# gratuitous ARP (a request for 10.1.0.1 from 10.1.0.1) and an unsolicited
# NA for fd00::1 (Override set, not Solicited). n2 sends nothing
# meanwhile, and n1 has flushed its neighbours (NETDEV_CHANGEADDR): only
# an announcement can change n2's entries. Then the rest of the series
# (IPC_ANNOUNCE_COUNT, 1 s apart) is let go by, so that it does not
# touch what comes next.
expect_announced() {
	local what=$1 want=$2 ip
	wait_for 30 "carrier on $IB1" has_carrier n1 "$IB1"
	for ip in 10.1.0.1 fd00::1; do
		if ! wait_for_quiet 10 neigh_is "$ip" "$want"; then
			capture_stop "$what"
			fail "$what: n2's entry for $ip is '$(neigh_lladdr n2 "$IB2" "$ip")', not $want, 10 s after the carrier"
		fi
		log "$what: n2's entry for $ip holds $want"
	done
	wait_for 10 "$what: the gratuitous ARP and the NA in the capture" captured
	sleep 3
	capture_stop "$what"
}
captured() {
	local txt
	txt=$(tcpdump -r "$CAP" -nn -vv 2> /dev/null) || return 1
	grep -q 'Request who-has 10.1.0.1 tell 10.1.0.1' <<< "$txt" &&
		grep -q 'neighbor advertisement.*tgt is fd00::1.*Flags \[override\]' <<< "$txt"
}

# n2's entries are REACHABLE now, from the pings: without announcements
# they would keep the old address until their reachable time runs out.
ADDR0=$(link_addr n1 "$IB1")
log "$IB1: $ADDR0"

# --- (a) another GID of the port ------------------------------------------
kmsg "(a) another GID"
route_rxe_as_hosts 192.168.79 fd79 va:1 vb:2
GID79=fd79:0000:0000:0000:0000:0000:0000:0001
wait_for 10 "the GID of fd79::1 on rxe0" gid_index rxe0 "$GID79"
ADDR79="${ADDR0:0:11}:$(gid_bytes "$GID79")"
capture_start
check ip -n n1 link set dev "$IB1" down
check ip -n n1 link set dev "$IB1" address "$ADDR79"
check ip -n n1 link set dev "$IB1" up
check ip -n n1 addr replace fd00::1/64 dev "$IB1" nodad
expect_announced "(a) GID" "$ADDR79"
check_ping n2 10.1.0.1
check_ping n2 fd00::1

# --- (b) connected mode and back ------------------------------------------
kmsg "(b) mode switch"
capture_start
check ip -n n1 link set dev "$IB1" type ipoib mode connected
ADDRCM=$(link_addr n1 "$IB1")
[[ ${ADDRCM:0:2} == 80 ]] || fail "$IB1's address $ADDRCM lacks the C bit"
expect_announced "(b) connected" "$ADDRCM"
check_ping n2 10.1.0.1
capture_start
check ip -n n1 link set dev "$IB1" type ipoib mode datagram
[[ $(link_addr n1 "$IB1") == "$ADDR79" ]] ||
	fail "$IB1 is $(link_addr n1 "$IB1") in datagram mode, expected $ADDR79"
expect_announced "(b) datagram" "$ADDR79"
check_ping n2 10.1.0.1

# --- (c) arping -U from userspace -------------------------------------------
kmsg "(c) arping -U"
BOGUS=00:00:00:42:fe:80:00:00:00:00:00:00:00:00:00:00:00:00:00:42
check ip -n n2 neigh replace 10.1.0.1 dev "$IB2" lladdr "$BOGUS" nud stale
neigh_is 10.1.0.1 "$BOGUS" || fail "n2's entry for 10.1.0.1 was not set by hand"
check ip netns exec n1 arping -U -I "$IB1" -c 1 10.1.0.1
wait_for_quiet 3 neigh_is 10.1.0.1 "$ADDR79" ||
	fail "arping -U did not put n2's entry right: '$(neigh_lladdr n2 "$IB2" 10.1.0.1)'"
log "(c) arping -U: n2's entry for 10.1.0.1 holds $ADDR79 again"
check_ping n2 10.1.0.1

# --- (d) the peer's Ethernet MAC changes under the same GID -----------------
# n2's path to fd79::1 (rxe1's address handle) carries va's MAC, resolved
# through vb's neighbour entry for fd79::1. va takes another MAC, live,
# keeping its addresses, and says so (ndisc_notify: an unsolicited NA).
# vb's entry follows; the driver must revalidate the path at once, not at
# its next revalidation 45 s to 60 s later: rxe sends through the
# neighbour table anyway, but hardware RoCE puts the handle's MAC on the
# wire.
kmsg "(d) the peer's MAC changes under the same GID"
path_dmac() {
	path_line rxe1 "$GID79" | grep -oE 'dmac [0-9a-f:]{17}' | cut -d' ' -f2
}
OLDMAC=$(< /sys/class/net/va/address)
NEWMAC=02:79:00:00:00:01
[[ $(path_dmac) == "$OLDMAC" ]] ||
	fail "n2's path to fd79::1 has dmac '$(path_dmac)', expected va's $OLDMAC"
changes=$(eth_stat n2 "$IB2" path_mac_changes)
check sysctl -qw net.ipv6.conf.va.ndisc_notify=1
check ip link set dev va address "$NEWMAC"
if ! wait_for_quiet 10 sh -c "[ \"\$(ip -6 neigh show fd79::1 dev vb | grep -o 'lladdr [0-9a-f:]*')\" = 'lladdr $NEWMAC' ]"; then
	ip -6 neigh show dev vb
	fail "vb's neighbour entry for fd79::1 did not take va's new MAC"
fi
path_new() {
	[[ $(path_dmac) == "$NEWMAC" ]]
}
wait_for_quiet 5 path_new ||
	fail "n2's path to fd79::1 still has dmac $(path_dmac) 5 s after vb's neighbour took $NEWMAC"
log "(d) n2's path to fd79::1: $(path_line rxe1 "$GID79")"
((changes + 1 == $(eth_stat n2 "$IB2" path_mac_changes))) ||
	fail "path_mac_changes of $IB2 went from $changes to $(eth_stat n2 "$IB2" path_mac_changes), expected +1"
check_ping n2 10.1.0.1

check_dmesg_clean "announcements"
unload_ipoib
