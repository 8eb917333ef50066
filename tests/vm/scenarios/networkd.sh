#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# networkd: systemd-networkd (Debian 12's systemd) drives ipoib_ng as it
# drives ib_ipoib. In n1, networkd is given the port's interface $IB1 and
# two .netdev files of Kind=ipoib:
#   ibdhcp  [IPoIB] PartitionKey=0x8001 Mode=datagram
#           IgnoreUserspaceMulticastGroups=yes; its .network asks DHCP=ipv4
#   ibcm    [IPoIB] PartitionKey=0xffff Mode=connected
#           IgnoreUserspaceMulticastGroups=no; a static address
# networkd makes both children through netlink with those properties (ip
# -d link shows them), and ibdhcp leases an address over IPoIB (RFC 4390)
# from dnsmasq on n2's child of P_Key 0x8001, then pings the server;
# networkctl shows the interfaces, their lease and their state. The
# port's own .network comes from netplan (renderer networkd,
# infiniband-mode connected, an address): n1 pings n2 over it; its [IPoIB]
# Mode=connected is a section networkd 252 does not know yet (it says so;
# the mode stays datagram); a drop-in of that file names the children,
# which netplan has no keys for.
#
# Set-up without systemd as PID 1 (the VM's init is a busybox shell
# chrooted into the host root): the system D-Bus (dbus-daemon --system,
# which networkctl status needs) and systemd-networkd are started by
# hand; the configuration goes to /run/systemd/network (the root is
# read-only, /run a tmpfs); no udevd runs, and networkd, given a
# read-only /sys as in a container, takes every link as initialized
# instead of waiting for udev; the DHCP client's DUID is given (DUIDType=uuid), so the
# scenario does not depend on the machine's /etc/machine-id.
#
#  +------------ n1 ------------------+        +------------ n2 ----------+
#  | systemd-networkd                 |        | dnsmasq on srv8001       |
#  | $IB1 (rxe0) 10.5.0.1 (netplan)   |        | $IB2 (rxe1) 10.5.0.2     |
#  |  +- ibdhcp P_Key 0x8001  DHCP    | <====> |  +- srv8001 P_Key 0x8001 |
#  |  +- ibcm   P_Key 0xffff  10.9.0.1|        |     10.8.0.1/24          |
#  +----------------------------------+        +--------------------------+

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

NETWORKD=/lib/systemd/systemd-networkd
CONF=/run/systemd/network
for t in "$NETWORKD" networkctl dbus-daemon dnsmasq netplan; do
	command -v "$t" > /dev/null || fail "$t is missing (make deps)"
done

setup_ipoib_netns_bare

# --- the DHCP server: dnsmasq on n2's child of P_Key 0x8001 --------------
check ip -n n2 link set dev "$IB2" up
dhcp_server n2 "$IB2" srv8001 0x8001 10.8.0

system_bus_start

# --- networkd's configuration ----------------------------------------------
# The port's interface from netplan (renderer networkd): an address, and
# connected mode, which networkd 252 cannot apply (below); netplan has no
# P_Key children, so a drop-in of the generated .network names them.
netplan_port networkd "$IB1" 10.5.0.1/24
PORT_NETWORK=$CONF/10-netplan-$IB1.network
[[ -f $PORT_NETWORK ]] || fail "netplan generate wrote no $PORT_NETWORK"
grep -qx 'Mode=connected' "$PORT_NETWORK" || fail "no [IPoIB] Mode=connected in $PORT_NETWORK"
check mkdir -p "$PORT_NETWORK.d"
cat > "$PORT_NETWORK.d/50-children.conf" <<EOF
[Network]
IPoIB=ibdhcp
IPoIB=ibcm
IPv6AcceptRA=no
EOF
cat > "$CONF/20-ibdhcp.netdev" <<EOF
[NetDev]
Name=ibdhcp
Kind=ipoib

[IPoIB]
PartitionKey=0x8001
Mode=datagram
IgnoreUserspaceMulticastGroups=yes
EOF
cat > "$CONF/20-ibcm.netdev" <<EOF
[NetDev]
Name=ibcm
Kind=ipoib

[IPoIB]
PartitionKey=0xffff
Mode=connected
IgnoreUserspaceMulticastGroups=no
EOF
cat > "$CONF/30-ibdhcp.network" <<EOF
[Match]
Name=ibdhcp

[Network]
DHCP=ipv4
LinkLocalAddressing=no
IPv6AcceptRA=no

[DHCPv4]
DUIDType=uuid
DUIDRawData=00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff
EOF
cat > "$CONF/30-ibcm.network" <<EOF
[Match]
Name=ibcm

[Network]
Address=10.9.0.1/24
LinkLocalAddressing=no
IPv6AcceptRA=no
EOF
for f in $(find "$CONF" -type f | sort); do
	log "--- $f"
	cat "$f"
done

# --- networkd in n1 --------------------------------------------------------
# /sys read-only, as in a container: networkd then takes every link as
# initialized instead of waiting for udevd, which does not run here (ip
# netns exec gives it its own mount namespace and a fresh /sys).
ip netns exec n1 env SYSTEMD_LOG_LEVEL=debug SYSTEMD_LOG_TARGET=console \
	sh -c "mount -o remount,ro /sys && exec $NETWORKD" \
	> "$VM_OUT/systemd-networkd.log" 2>&1 &
NETWORKD_PID=$!
dump_scenario() {
	echo "--- systemd-networkd.log (tail) ---"
	tail -n 60 "$VM_OUT/systemd-networkd.log"
	echo "--- dnsmasq.log ---"
	cat "$VM_OUT/dnsmasq.log"
}

wait_for 30 "networkd to make ibdhcp and ibcm" \
	sh -c 'ip -n n1 link show dev ibdhcp && ip -n n1 link show dev ibcm'
check ip -n n1 -d link show dev ibdhcp
check ip -n n1 -d link show dev ibcm
expect_link() {
	local ifc=$1 want=$2 got
	got=$(ip -n n1 -d link show dev "$ifc" | grep -o 'ipoib pkey .* umcast [0-9]*')
	[[ $got == "$want" ]] || fail "$ifc: '$got', expected '$want'"
	log "$ifc: $got"
}
expect_link ibdhcp "ipoib pkey 0x8001 mode datagram umcast 0001"
expect_link ibcm "ipoib pkey 0xffff mode connected umcast 0000"
# netplan 0.106 writes infiniband-mode as a .network [IPoIB] section,
# which networkd learnt after Debian 12's 252: it says so and leaves the
# mode alone (the admin guide gives the work-around).
grep -q "10-netplan-$IB1.network:[0-9]*: Unknown section 'IPoIB'. Ignoring." \
	"$VM_OUT/systemd-networkd.log" ||
	fail "networkd did not say it ignores netplan's [IPoIB] section"
expect_link "$IB1" "ipoib pkey 0xffff mode datagram umcast 0000"
wait_for 30 "netplan's address on $IB1" sh -c "ip -n n1 -4 -o addr show dev $IB1 | grep -q 'inet 10.5.0.1/24'"
check ip -n n2 addr add 10.5.0.2/24 dev "$IB2"
check_ping n1 10.5.0.2
[[ $(ip netns exec n1 cat /sys/class/net/ibdhcp/pkey) == 0x8001 ]] ||
	fail "sysfs pkey of ibdhcp is not 0x8001"
[[ $(ip netns exec n1 cat /sys/class/net/ibcm/mode) == connected ]] ||
	fail "sysfs mode of ibcm is not connected"

leased() {
	ip -n n1 -4 -o addr show dev ibdhcp |
		grep -qE 'inet 10\.8\.0\.(1[0-4][0-9]|150)/24 .*dynamic'
}
wait_for 60 "a DHCP lease on ibdhcp" leased
LEASE=$(ip -n n1 -4 -o addr show dev ibdhcp | awk '{ sub(/\/.*/, "", $4); print $4 }')
log "ibdhcp leased $LEASE"
check ip -n n1 -4 addr show dev ibdhcp
check_ping n1 10.8.0.1
check_ping n2 "$LEASE"
grep -q "DHCPACK(srv8001) $LEASE" "$VM_OUT/dnsmasq.log" ||
	fail "dnsmasq did not log the DHCPACK of $LEASE"
check ip -n n1 -4 addr show dev ibcm
ip -n n1 -4 -o addr show dev ibcm | grep -q 'inet 10.9.0.1/24' ||
	fail "ibcm has no 10.9.0.1/24"

# --- networkctl --------------------------------------------------------------
configured() {
	ip netns exec n1 networkctl list --no-legend --no-pager |
		awk -v i="$1" '$2 == i { print $4, $5 }' | grep -q "$2"
}
wait_for 30 "networkctl: ibdhcp routable, configured" configured ibdhcp "routable configured"
wait_for 30 "networkctl: ibcm configured" configured ibcm "configured"
check ip netns exec n1 networkctl list --no-pager
out=$(ip netns exec n1 networkctl status ibdhcp --no-pager 2>&1) ||
	{ echo "$out"; fail "networkctl status ibdhcp failed"; }
echo "$out"
for want in "Type: infiniband" "State: routable (configured)" \
	"Network File: $CONF/30-ibdhcp.network" "Address: $LEASE (DHCP4"; do
	grep -qF "$want" <<< "$out" || fail "networkctl status ibdhcp lacks '$want'"
done
out=$(ip netns exec n1 networkctl status "$IB1" --no-pager 2>&1) ||
	{ echo "$out"; fail "networkctl status $IB1 failed"; }
echo "$out"
grep -qF "Network File: $PORT_NETWORK" <<< "$out" ||
	fail "networkctl status $IB1 does not name netplan's $PORT_NETWORK"

check_dmesg_clean "networkd"
kill "$NETWORKD_PID" "$DNSMASQ"
wait "$NETWORKD_PID" || true
wait "$DNSMASQ" || true
# What a next scenario in the same VM must not find.
system_bus_stop
rm -rf "$CONF" /run/systemd/netif /run/netplan /run/NetworkManager \
	/run/udev/rules.d/90-netplan.rules
unload_ipoib
