#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cni: pods get IPoIB interfaces the way the ipoib-cni plugin (Kubernetes,
# with Multus) gives them, step by step with iproute2: what its ADD does
# through vishvananda/netlink (pkg/ipoib/ipoib.go: CreateIpoibLink) and
# its DEL (RemoveIpoibLink), and what kubelet does when a pod dies
# without a DEL (its network namespace goes).
#
# ADD, for a pod namespace POD and a "master" interface M:
#   - M must be of kind ipoib; the child gets M's P_Key without its
#     full-member bit (the plugin masks it: pkey & 0x7fff; the driver sets
#     the bit again, IBA s10.9.1.2), M's mode, and umcast 1;
#   - made in the host's namespace under a random name "vethXXXXXXXX",
#     then moved into POD, where it gets proxy_arp=1, is set down, renamed
#     to the pod's interface name (net1) and set up; then IPAM (host-local)
#     adds the address.
# DEL: the link is deleted inside POD.
#
#   (a) three pods: pa1 and pa2 from $IB0 (node A), pb1 from $IB1 (node B),
#       each net1 a child with its master's P_Key; every pair pings
#       (pa1-pa2: two children of one port in one partition); the second
#       child of a port and partition has its own debugfs directory (its
#       QPN added), without the kernel's "already present" complaint
#   (b) IPv6: every interface of a port in one partition has the port's
#       GUID, so the IPv6 link-local address the kernel derives from it
#       (RFC 4391 s8) is the same on all of them, and DAD fails on each
#       pod's net1 (as with ib_ipoib). A pod whose namespace generates
#       random interface identifiers (addr_gen_mode 3, set before the ADD)
#       gets a working link-local address: pa2 and pb1 ping each other
#   (c) a P_Key child as master is refused with the reason (ib_ipoib
#       refuses children of children too); nothing is left in the host
#   (d) DEL of pa2's net1, then pb1 dies without DEL (ip netns del): its
#       child goes with the namespace; nothing is left in the host; a new
#       pb1 gets its interface again and talks
#   (e) churn: 12 pods come and go (DEL or namespace deletion, alternately)
#       while pa1 pings pb1; the host ends with the interfaces it started
#       with
#
#      node A (rxe0)                           node B (rxe1)
#  +- pa1 ---------------+                  +- pb1 ---------------+
#  | net1 192.168.2.10   |                  | net1 192.168.2.12   |
#  +- pa2 ---------------+                  +---------------------+
#  | net1 192.168.2.11   |
#  +---------------------+
#  host: $IB0 (master)                      host: $IB1 (master)
#             rxe0 -- va <=== veth ===> vb -- rxe1   (initial namespace)

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

setup_rxe_pair
load_ipoib
IB0=$(wait_ipoib_if rxe0)
IB1=$(wait_ipoib_if rxe1)
log "rxe0 -> $IB0 (node A), rxe1 -> $IB1 (node B)"
for m in "$IB0" "$IB1"; do
	check ip link set dev "$m" up
	wait_for 30 "carrier on $m" has_carrier "" "$m"
done

# ipoib_kinds: the host's interfaces of kind ipoib, sorted.
ipoib_kinds() {
	ip -j -d link show | jq -r '.[] | select(.linkinfo.info_kind == "ipoib") | .ifname' | sort
}
HOST_BEFORE=$(ipoib_kinds)
# host_as_before: the host has the ipoib interfaces it had (a dead pod's
# go with its namespace, asynchronously: cleanup_net).
host_as_before() {
	[[ $(ipoib_kinds) == "$HOST_BEFORE" ]]
}

# cni_add POD MASTER IFNAME ADDR/LEN: the plugin's ADD.
cni_add() {
	local pod=$1 master=$2 ifname=$3 addr=$4 info kind pkey mode tmp
	info=$(ip -j -d link show dev "$master") || fail "no master $master"
	kind=$(jq -r '.[0].linkinfo.info_kind' <<< "$info")
	[[ $kind == ipoib ]] || fail "master $master is of kind '$kind', not ipoib"
	pkey=$(printf '0x%04x' $(($(jq -r '.[0].linkinfo.info_data.key' <<< "$info") & 0x7fff)))
	mode=$(jq -r '.[0].linkinfo.info_data.mode' <<< "$info")
	tmp=veth$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
	check ip link add link "$master" name "$tmp" type ipoib pkey "$pkey" mode "$mode" umcast 1
	check ip link set dev "$tmp" netns "$pod"
	check ip netns exec "$pod" sysctl -q -w "net.ipv4.conf.$tmp.proxy_arp=1"
	check ip -n "$pod" link set dev "$tmp" down
	check ip -n "$pod" link set dev "$tmp" name "$ifname"
	check ip -n "$pod" link set dev "$ifname" up
	check ip -n "$pod" addr add "$addr" dev "$ifname"
	! ip link show dev "$tmp" > /dev/null 2>&1 || fail "$tmp is still in the host"
}

# cni_del POD IFNAME: the plugin's DEL (nothing to do if the link is gone).
cni_del() {
	ip -n "$1" link show dev "$2" > /dev/null 2>&1 || return 0
	check ip -n "$1" link del dev "$2"
}

pod_up() {
	local pod=$1 ifc
	shift
	for ifc in "$@"; do
		wait_for 30 "carrier on $ifc in $pod" has_carrier "$pod" "$ifc"
	done
}

# ll6 POD: net1's IPv6 link-local address and its flags.
ll6() {
	ip -n "$1" -6 -o addr show dev net1 scope link |
		sed -E 's/.* inet6 ([^ ]+) scope link ?([a-z ]*)\\.*/\1 \2/'
}

# --- (a) pods in the masters' partition --------------------------------------
kmsg "(a) three pods, net1 in the masters' partition"
ns_create pa1 pa2 pb1
# (b)'s pods: random interface identifiers for what arrives in them.
for p in pa2 pb1; do
	check ip netns exec "$p" sysctl -q -w net.ipv6.conf.default.addr_gen_mode=3
done
cni_add pa1 "$IB0" net1 192.168.2.10/24
cni_add pa2 "$IB0" net1 192.168.2.11/24
cni_add pb1 "$IB1" net1 192.168.2.12/24
for p in pa1 pa2 pb1; do
	expect_ipoib_props "$p" net1 "0xffff datagram 0001"
	[[ $(ip netns exec "$p" sysctl -n net.ipv4.conf.net1.proxy_arp) == 1 ]] ||
		fail "proxy_arp of net1 in $p is not 1 after the rename"
	pod_up "$p" net1
done
check_ping pa1 192.168.2.12
check_ping pb1 192.168.2.10
check_ping pb1 192.168.2.11
check_ping pa1 192.168.2.11
check_ping pa2 192.168.2.10
# One directory per interface: the port's, then the children's with their QPN.
for p in pa1 pa2; do
	qpn=$(ip -n "$p" -o link show dev net1 | grep -oE 'link/infiniband [0-9a-f:]{11}' | cut -d' ' -f2 | tr -d : | cut -c3-)
	d=$(ipoib_debugfs rxe0)-$qpn
	[[ -f $d/path ]] || fail "no debugfs directory $d for $p's net1 (QPN $qpn)"
done
! dmesg | grep -q "already present" || fail "debugfs complained of a directory already present"
check_dmesg_clean "(a) pods"

# --- (b) IPv6 link-local addresses ----------------------------------------------
kmsg "(b) IPv6 link-local addresses of children in one partition"
wait_for 10 "DAD of pa1's net1 to end" sh -c "ip -n pa1 -6 -o addr show dev net1 scope link | grep -qv tentative || ip -n pa1 -6 -o addr show dev net1 scope link | grep -q dadfailed"
log "pa1 (addr_gen_mode 0): $(ll6 pa1)"
ip -n pa1 -6 -o addr show dev net1 scope link | grep -q dadfailed ||
	fail "pa1's net1 has the port's GUID-derived address, and DAD should have failed: $(ll6 pa1)"
for p in pa2 pb1; do
	wait_for 10 "DAD of $p's net1" sh -c "ip -n $p -6 -o addr show dev net1 scope link | grep -v tentative | grep -q fe80"
	log "$p (addr_gen_mode 3): $(ll6 "$p")"
done
LL_PB1=$(ip -n pb1 -6 -o addr show dev net1 scope link | awk '{ sub(/\/.*/, "", $4); print $4 }')
check_ping pa2 "$LL_PB1%net1"

# --- (c) a P_Key child as master -----------------------------------------------
kmsg "(c) a P_Key child is no master"
check ip link add link "$IB0" name "$IB0.8005" type ipoib pkey 0x8005
HOST_BEFORE=$(ipoib_kinds)
expect_error "the parent is a P_Key child itself" \
	ip link add link "$IB0.8005" name vethbad type ipoib pkey 0x0005 mode datagram umcast 1
check ip link del dev "$IB0.8005"
HOST_BEFORE=$(ipoib_kinds)

# --- (d) DEL, and a pod that dies without one -----------------------------
kmsg "(d) DEL of pa2's net1; pb1 dies without DEL"
cni_del pa2 net1
! ip -n pa2 link show dev net1 > /dev/null 2>&1 || fail "net1 is still in pa2"
check ip netns del pb1
wait_for_quiet 30 host_as_before ||
	fail "the host's ipoib interfaces are '$(ipoib_kinds | xargs)', expected '$(xargs <<< "$HOST_BEFORE")'"
ns_create pb1
cni_add pb1 "$IB1" net1 192.168.2.12/24
pod_up pb1 net1
check_ping pb1 192.168.2.10
check_dmesg_clean "(d) DEL and pod deletion"

# --- (e) churn --------------------------------------------------------------
kmsg "(e) 12 pods come and go while pa1 pings pb1"
# ip netns exec execs ping: $PING is ping's pid, for the SIGINT below.
ip netns exec pa1 ping -q -i 0.2 -W 1 -w 300 192.168.2.12 > /tmp/cni-ping.txt 2>&1 &
PING=$!
for i in $(seq 1 12); do
	ns_create pc
	cni_add pc "$IB1" net1 "192.168.2.$((100 + i))/24"
	if ((i % 2)); then
		cni_del pc net1
	fi
	check ip netns del pc
	_lib_ns=("${_lib_ns[@]/pc/}")
done
wait_for_quiet 30 host_as_before ||
	fail "after the churn the host's ipoib interfaces are '$(ipoib_kinds | xargs)'"
kill -INT "$PING"
wait "$PING" || true
cat /tmp/cni-ping.txt
grep -q ' 0% packet loss' /tmp/cni-ping.txt || fail "pa1 lost pings to pb1 during the churn"
check_ping pa1 192.168.2.12
! dmesg | grep -q "already present" || fail "debugfs complained of a directory already present"
check_dmesg_clean "(e) churn"
log "cni: PASS"
