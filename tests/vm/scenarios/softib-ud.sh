#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# softib-ud: UD data and multicast over the soft-IB fabric managed by
# OpenSM, build plan step 5 of Documentation/softib-design.rst. Packets
# cross the switch by DLID through the LFT and by MLID through the MFT
# that OpenSM programmed; the receiving port checks the P_Key and the
# Q_Key.
#
# Asserts: ibv_ud_pingpong softib1 -> softib2 by LID, 200 round trips, and
# between two QPs of softib1 (the HCA's own loopback); the in-tree
# ib_ipoib on softib1 and softib2, each in a namespace: carrier after its
# broadcast group join through the SA (OpenSM's MCMemberRecords), ARP and
# ND, ping IPv4 and IPv6 both ways; the SA lists both members of the
# IPv4 broadcast group.

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

load_softib
start_opensm
lid1=$(port_field softib1 "Base lid")
lid2=$(port_field softib2 "Base lid")
log "softib1 LID $lid1, softib2 LID $lid2"

# 200 round trips of 2048 bytes by LID (no -g: no GRH), between two HCAs
# and within one.
softib_pingpong ibv_ud_pingpong softib2 softib1 200 409600
softib_pingpong ibv_ud_pingpong softib1 softib1 200 409600

log "the in-tree ib_ipoib on softib1 and softib2"
check modprobe ib_ipoib
wait_for 30 "ib_ipoib's netdev for softib2" ib_ipoib_if softib2
if1=$(ib_ipoib_if softib1)
if2=$(ib_ipoib_if softib2)
log "softib1: $if1, softib2: $if2"
ns_create n1
ns_create n2
check ip link set "$if1" netns n1
check ip link set "$if2" netns n2
check ip -n n1 addr add 10.2.0.1/24 dev "$if1"
check ip -n n2 addr add 10.2.0.2/24 dev "$if2"
check ip -n n1 addr add fd02::1/64 dev "$if1" nodad
check ip -n n2 addr add fd02::2/64 dev "$if2" nodad
check ip -n n1 link set "$if1" up
check ip -n n2 link set "$if2" up
# Carrier only once the broadcast group is joined through the SA.
wait_for 60 "$if1 carrier" has_carrier n1 "$if1"
wait_for 60 "$if2 carrier" has_carrier n2 "$if2"

wait_for 60 "ping 10.2.0.2" ping_works n1 10.2.0.2
check_ping n1 10.2.0.2
check_ping n2 10.2.0.1
wait_for 60 "ping fd02::2" ping_works n1 fd02::2
check_ping n1 fd02::2
check_ping n2 fd02::1
check ip -n n1 neigh show dev "$if1"
ip -n n1 neigh show dev "$if1" | grep -q "10.2.0.2 .*lladdr" ||
	fail "$if1: no ARP entry for 10.2.0.2"

log "the SA saw the joins: both ports are members of the broadcast group"
# ff12:401b:ffff::ffff:ffff, the IPv4 broadcast group of P_Key 0xffff
# (RFC 4391 s4); members' records go to trusted requesters (SM_Key 1).
sa_mcmr ff12:401b:ffff::ffff:ffff
cat /tmp/mcm.out
expect_lines /tmp/mcm.out "PortGid\.+fe80::200:0:0:201\$" \
	"PortGid\.+fe80::200:0:0:301\$"

check ip -n n1 link set "$if1" netns 1
check ip -n n2 link set "$if2" netns 1
check rmmod ib_ipoib
stop_opensm
unload_softib
log "softib-ud: PASS"
