#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nm: NetworkManager (Debian 12's 1.42) and netplan (0.106) drive ipoib_ng
# as they drive ib_ipoib. In n1, NetworkManager runs with its keyfile
# plugin only:
#   - netplan (renderer NetworkManager) configures the port's interface
#     $IB1: `infiniband-mode: connected` and a static address; `netplan
#     generate` writes the keyfile (type=infiniband, transport-mode), which
#     NetworkManager activates by itself;
#   - nmcli makes a P_Key child (infiniband.parent, infiniband.p-key
#     0x8002, transport-mode datagram, DHCP): NetworkManager creates it
#     through sysfs create_child ($IB1.8002) and leases an address over IPoIB (RFC 4390) from dnsmasq
#     on n2's child of P_Key 0x8002; both ping;
#   - nmcli cannot switch the child to connected mode: on RoCE only the
#     default partition takes it, the driver refuses the sysfs write and
#     NetworkManager logs its EOPNOTSUPP; back in datagram mode the child
#     leases again; the port goes back to datagram mode by nmcli;
#   - `nmcli connection down` deletes the child it made (delete_child).
#
# Set-up without systemd as PID 1: the system D-Bus and NetworkManager are
# started by hand (--no-daemon, a configuration in /run); udevd does not
# run, and NetworkManager, which waits for udev to initialize a link when
# /sys is writable, is given a read-only /sys, as in a container, with
# /sys/devices (where the interfaces' files are) writable again, so that
# it can still write mode and create_child. /var/lib/NetworkManager (its
# state; the root is read-only) is a directory of /run.
#
#  +------------ n1 ---------------------+        +------------ n2 -----------+
#  | NetworkManager                      |        | dnsmasq on srv8002        |
#  | $IB1 10.7.0.1/24 connected (netplan)| <====> | $IB2 10.7.0.2/24          |
#  |  +- $IB1.8002 P_Key 0x8002 DHCP     |        |  +- srv8002 10.6.0.1/24   |
#  +-------------------------------------+        +---------------------------+

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

for t in NetworkManager nmcli netplan dbus-daemon dnsmasq; do
	command -v "$t" > /dev/null || fail "$t is missing (make deps)"
done

setup_ipoib_netns_bare
CHILD=$IB1.8002

# --- n2: a peer and a DHCP server on P_Key 0x8002 ---------------------------
check ip -n n2 link set dev "$IB2" up
check ip -n n2 addr add 10.7.0.2/24 dev "$IB2"
dhcp_server n2 "$IB2" srv8002 0x8002 10.6.0

system_bus_start

# --- netplan: the port's interface -----------------------------------------
netplan_port NetworkManager "$IB1" 10.7.0.1/24
KEYFILE=/run/NetworkManager/system-connections/netplan-$IB1.nmconnection
[[ -f $KEYFILE ]] || fail "netplan generate wrote no $KEYFILE"
cat "$KEYFILE"
grep -qx 'transport-mode=connected' "$KEYFILE" || fail "no transport-mode=connected in $KEYFILE"

# --- NetworkManager in n1 ---------------------------------------------------
NMRUN=/run/nm-scenario
check mkdir -p "$NMRUN/lib" "$NMRUN/conf.d"
cat > "$NMRUN/NetworkManager.conf" <<EOF
[main]
plugins=keyfile
dhcp=internal
no-auto-default=*
auth-polkit=false

[logging]
level=INFO
domains=DEFAULT,PLATFORM:DEBUG,DEVICE:DEBUG,DHCP4:DEBUG
EOF
ip netns exec n1 sh -c "
	mount -o remount,bind,ro /sys &&
	mount --bind /sys/devices /sys/devices &&
	mount -o remount,bind,rw /sys/devices &&
	mount --bind $NMRUN/lib /var/lib/NetworkManager &&
	exec NetworkManager --debug --config=$NMRUN/NetworkManager.conf \
		--config-dir=$NMRUN/conf.d --state-file=$NMRUN/lib/NetworkManager.state" \
	> "$VM_OUT/NetworkManager.log" 2>&1 &
NM_PID=$!
dump_scenario() {
	echo "--- NetworkManager.log (tail) ---"
	tail -n 80 "$VM_OUT/NetworkManager.log"
	echo "--- dnsmasq.log ---"
	cat "$VM_OUT/dnsmasq.log"
}
nmcli_n1() {
	ip netns exec n1 nmcli "$@"
}
wait_for 30 "NetworkManager to answer" nmcli_n1 -t general status

# dev_state IF: NetworkManager's state of IF ("100 (connected)", ...).
dev_state() {
	nmcli_n1 -g GENERAL.STATE device show "$1"
}
connected() {
	[[ $(dev_state "$1") == "100 (connected)" ]]
}

# --- the port's interface, from netplan's keyfile ------------------------------
kmsg "netplan's profile for $IB1"
wait_for 60 "NetworkManager to activate netplan-$IB1" connected "$IB1"
check nmcli_n1 device status
expect_ipoib_props n1 "$IB1" "0xffff connected 0000"
[[ $(ip netns exec n1 cat "/sys/class/net/$IB1/mode") == connected ]] ||
	fail "sysfs mode of $IB1 is not connected"
ip -n n1 -4 -o addr show dev "$IB1" | grep -q 'inet 10.7.0.1/24' ||
	fail "$IB1 has no 10.7.0.1/24"
check_ping n1 10.7.0.2
check_ping n2 10.7.0.1

# --- a P_Key child made by NetworkManager ----------------------------------------
kmsg "nmcli: a P_Key child with DHCP"
check nmcli_n1 connection add type infiniband con-name p8002 ifname "$CHILD" \
	infiniband.parent "$IB1" infiniband.p-key 0x8002 \
	infiniband.transport-mode datagram \
	ipv4.method auto ipv6.method disabled save no
check nmcli_n1 connection up p8002
wait_for 60 "NetworkManager to connect $CHILD" connected "$CHILD"
expect_ipoib_props n1 "$CHILD" "0x8002 datagram 0000"
LEASE=$(nmcli_n1 -g IP4.ADDRESS device show "$CHILD" | sed 's#/.*##')
log "$CHILD leased $LEASE"
[[ $LEASE =~ ^10\.6\.0\.(1[0-4][0-9]|150)$ ]] || fail "$CHILD has no lease from 10.6.0.100-150: '$LEASE'"
check_ping n1 10.6.0.1
check_ping n2 "$LEASE"
grep -q "DHCPACK(srv8002) $LEASE" "$VM_OUT/dnsmasq.log" ||
	fail "dnsmasq did not log the DHCPACK of $LEASE"

# On RoCE only the default partition takes connected mode (RC has no
# Q_Key to keep partitions apart; admin-guide "Partitions on RoCE"): the
# driver refuses the child's switch, and NetworkManager says so.
kmsg "nmcli: connected mode refused on the RoCE child, datagram again"
check nmcli_n1 connection modify --temporary p8002 infiniband.transport-mode connected
check_fails nmcli_n1 connection up p8002
grep -q "failed to set 'mode' to 'connected': (95) Operation not supported" \
	"$VM_OUT/NetworkManager.log" || fail "NetworkManager did not log the driver's EOPNOTSUPP"
check nmcli_n1 connection modify --temporary p8002 infiniband.transport-mode datagram
check nmcli_n1 connection up p8002
wait_for 60 "NetworkManager to connect $CHILD again" connected "$CHILD"
expect_ipoib_props n1 "$CHILD" "0x8002 datagram 0000"
wait_for 60 "a lease on $CHILD again" sh -c "ip -n n1 -4 -o addr show dev $CHILD | grep -q 'inet 10.6.0.'"
check_ping n1 10.6.0.1

kmsg "nmcli: the port back to datagram mode"
check nmcli_n1 connection modify --temporary "netplan-$IB1" infiniband.transport-mode datagram
check nmcli_n1 connection up "netplan-$IB1"
wait_for 60 "NetworkManager to connect $IB1 again" connected "$IB1"
expect_ipoib_props n1 "$IB1" "0xffff datagram 0000"
check_ping n1 10.7.0.2

kmsg "nmcli: down deletes the child"
check nmcli_n1 connection down p8002
wait_for 30 "$CHILD to go" sh -c "! ip -n n1 link show dev $CHILD"
check nmcli_n1 device status

check_dmesg_clean "NetworkManager and netplan"
kill "$NM_PID" "$DNSMASQ"
wait "$NM_PID" 2> /dev/null || true
wait "$DNSMASQ" 2> /dev/null || true
system_bus_stop
# What a next scenario in the same VM must not find.
rm -rf "$NMRUN" /run/netplan /run/NetworkManager \
	/run/systemd/network/*netplan* /run/udev/rules.d/90-netplan.rules
log "nm: PASS"
