# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the scenarios in tests/vm/scenarios/, which run inside the test
# VM (chrooted into the host root, as root, with the host's tools). Sourcing
# this file turns on strict mode with an ERR trap that names the failing
# command, and an EXIT trap that kills background jobs and deletes the
# namespaces made by ns_create. Environment from guest.sh: VM_MODULE (path of
# ipoib_ng.ko, may be empty), VM_OUT (the results folder, shared with the
# host), VM_SCENARIO.

set -eEuo pipefail

VM_MODULE=${VM_MODULE:-}
VM_OUT=${VM_OUT:-/tmp}
IPOIB_NAME=ipoib_ng
IPOIB_KIND=ipoib
_lib_ns=()

# Timestamps are seconds since boot, the clock of the kernel's console lines.
log() {
	local up _
	read -r up _ < /proc/uptime
	printf '[%9s] %s\n' "$up" "$*"
}

# What the lead wants to see when a step fails.
dump_state() {
	local ns
	set +e
	trap - ERR
	echo "--- state at failure ---"
	ip -br link
	ip -br addr
	for ns in $(ip netns list | cut -d' ' -f1); do
		echo "--- netns $ns ---"
		ip -n "$ns" -d link
		ip -n "$ns" addr
		ip -n "$ns" neigh
		for dev in $(ip -n "$ns" -o link show type "$IPOIB_KIND" |
				awk -F': ' '{ sub(/@.*/, "", $2); print $2 }'); do
			echo "--- ethtool -S $dev (netns $ns) ---"
			ip netns exec "$ns" ethtool -S "$dev" | grep -v ': 0$'
		done
	done
	rdma link show
	rdma statistic show
	for d in "/sys/kernel/debug/$IPOIB_NAME"/*/; do
		[[ -d $d ]] || continue
		echo "--- $d path ---"
		cat "$d/path"
		echo "--- $d mcg ---"
		cat "$d/mcg"
	done
	lsmod | grep -E "^($IPOIB_NAME|ib_|rdma)" || true
	# A scenario's own state (softib-opensm: the SM's threads).
	if declare -F dump_scenario > /dev/null; then
		dump_scenario
	fi
	echo "--- dmesg tail ---"
	dmesg | tail -n 30
}

# In a subshell ($(...)) only the message: the caller's ERR trap dumps.
fail() {
	log "FAIL: $*"
	((BASH_SUBSHELL > 0)) || dump_state
	exit 1
}

_lib_on_err() {
	local rc=$? cmd=$BASH_COMMAND
	fail "${BASH_SOURCE[1]##*/}:${BASH_LINENO[0]}: '$cmd' exited $rc"
}
trap _lib_on_err ERR

_lib_cleanup() {
	local ns pids
	set +e
	trap - ERR
	mapfile -t pids < <(jobs -p)
	[[ ${#pids[@]} -eq 0 ]] || kill "${pids[@]}" 2> /dev/null
	for ns in "${_lib_ns[@]}"; do
		ip netns del "$ns" 2> /dev/null
	done
}
trap _lib_cleanup EXIT

# check CMD...: log the command, run it, fail with its exit code if it fails.
check() {
	log "\$ $*"
	"$@" || fail "'$*' exited $?"
}

# check_fails CMD...: the command must fail.
check_fails() {
	log "\$ ! $*"
	if "$@"; then
		fail "'$*' succeeded but should have failed"
	fi
}

# expect_error WANT CMD...: CMD fails and its stderr contains WANT (the
# extack message the kernel returned).
expect_error() {
	local want=$1 err
	shift
	log "\$ ! $*"
	if err=$("$@" 2>&1); then
		fail "'$*' succeeded but should have failed"
	fi
	log "  -> $err"
	[[ $err == *"$want"* ]] || fail "'$*': expected an error saying '$want', got '$err'"
}

# wait_for SECONDS WHAT CMD...: poll CMD (quietly) until it succeeds.
wait_for() {
	local secs=$1 what=$2 deadline
	shift 2
	deadline=$((SECONDS + secs))
	until "$@" > /dev/null 2>&1; do
		((SECONDS < deadline)) || fail "timed out after ${secs}s waiting for $what"
		sleep 0.2
	done
}

# wait_for_quiet SECONDS CMD...: like wait_for, but returns 1 on timeout
# (the caller says what went wrong, with what it found).
wait_for_quiet() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@"; do
		((SECONDS < deadline)) || return 1
		sleep 0.2
	done
}

# Network namespaces. rxe keeps its UDP sockets in the initial namespace, so
# only IPoIB interfaces move into these.
ns_create() {
	local ns
	for ns in "$@"; do
		check ip netns add "$ns"
		_lib_ns+=("$ns")
		check ip -n "$ns" link set lo up
	done
}

ns_exec() {
	local ns=$1
	shift
	ip netns exec "$ns" "$@"
}

# ns_move IF NS: move interface IF from the initial namespace into NS.
ns_move() {
	check ip link set dev "$1" netns "$2"
}

# mc_delivers RX_NS RX_IF TX_NS TX_IF GROUP [CMD...]: a socket in RX_NS
# joins GROUP on RX_IF (then CMD runs, if given); TX_NS sends to GROUP
# out of TX_IF until a first datagram arrives, then 20 more, each of
# which must arrive. The first ones may be lost while the SM programs
# the switch's MFT after the member's join (OpenSM answers the join
# first) or wait for the sender's send-only join: not what is counted.
MC_TOOL=$(dirname "${BASH_SOURCE[0]}")/mc_tool.py

# mc_member NS IF GROUP PORT FILE: a socket in NS ("": the initial one)
# holds GROUP on IF and writes what it gets on PORT to FILE; returns once
# it is a member, its pid in MC_MEMBER_PID (kill it to leave the group).
mc_member() {
	local ns=$1 ifname=$2 group=$3 port=$4 file=$5 rx=()
	rm -f "$file" "$file.ready"
	# A command prefix, not a function: a function in the background is
	# a subshell, and killing it would leave python3 and its membership
	# behind.
	[[ -z $ns ]] || rx=(ip netns exec "$ns")
	"${rx[@]}" python3 "$MC_TOOL" recv "$ifname" "$group" "$port" "$file" &
	MC_MEMBER_PID=$!
	wait_for 10 "the member socket of $group on $ifname" test -e "$file.ready"
}

mc_delivers() {
	local rns=$1 rif=$2 tns=$3 tif=$4 group=$5 pid tx=()
	shift 5
	mc_member "$rns" "$rif" "$group" 5001 /tmp/mc-r
	pid=$MC_MEMBER_PID
	[[ -z $tns ]] || tx=(ip netns exec "$tns")
	(($# == 0)) || "$@"
	_mc_first() {
		check "${tx[@]}" python3 "$MC_TOOL" send "$tif" "$group" 5001 w 1
		grep -q "^w " /tmp/mc-r
	}
	wait_for 30 "a first datagram of $group on $rif" _mc_first
	check "${tx[@]}" python3 "$MC_TOOL" send "$tif" "$group" 5001 r1 20
	_mc_got() { [[ $(grep -c "^r1 " /tmp/mc-r) == 20 ]]; }
	wait_for 10 "20 datagrams of $group on $rif" _mc_got
	kill "$pid"
	wait "$pid" || true
	log "$rif got all 20 datagrams $tif sent to $group"
}

# sysfs_write NS FILE VALUE, sysfs_read NS FILE: a sysfs file as NS sees
# it (ip netns exec mounts the namespace's own /sys).
sysfs_write() {
	# shellcheck disable=SC2016 # expanded by the inner shell
	ns_exec "$1" sh -c 'echo "$2" > "$1"' _ "$2" "$3"
}

sysfs_read() {
	ns_exec "$1" cat "$2"
}

tcp_listening() {
	ss -Hltn "sport = :$1" | grep -q .
}

rxe_active() {
	grep -q ACTIVE "/sys/class/infiniband/$1/ports/1/state"
}

rxe_wait_active() {
	local dev
	for dev in "$@"; do
		wait_for 30 "$dev port 1 ACTIVE" rxe_active "$dev"
	done
}

_rxe_modules() {
	# Without crc32_generic, Debian's 6.1 fails "failed to init crc32 algorithm".
	check modprobe crc32_generic
	check modprobe rdma_rxe
	check modprobe veth
}

# setup_rxe_pair: rxe0 and rxe1 on the two ends of a veth pair, one VM.
#
#   rxe0 -- va <== veth, MTU 9000 ==> vb -- rxe1     (initial namespace)
setup_rxe_pair() {
	_rxe_modules
	check ip link add va mtu 9000 type veth peer name vb mtu 9000
	check ip link set va up
	check ip link set vb up
	check rdma link add rxe0 type rxe netdev va
	check rdma link add rxe1 type rxe netdev vb
	rxe_wait_active rxe0 rxe1
	log "rxe0 (va) and rxe1 (vb) ACTIVE, active_mtu $(ibv_devinfo -d rxe0 | awk '/active_mtu/ {print $2}')"
}

# setup_rxe_bridge N: rxe0..rxe<N-1>, each on a veth v<i>a whose peer v<i>b is
# a port of bridge br0; for tests with more than two members (multicast).
# Snooping is off so br0 floods multicast to every port, querier or not.
#
#   rxe<i> -- v<i>a <== veth ==> v<i>b --+
#                                        br0   (all MTU 9000, initial namespace)
setup_rxe_bridge() {
	local n=$1 i devs=()
	_rxe_modules
	check modprobe bridge
	check ip link add br0 mtu 9000 type bridge mcast_snooping 0
	check ip link set br0 up
	for ((i = 0; i < n; i++)); do
		check ip link add "v${i}a" mtu 9000 type veth peer name "v${i}b" mtu 9000
		check ip link set "v${i}b" master br0
		check ip link set "v${i}b" up
		check ip link set "v${i}a" up
		check rdma link add "rxe$i" type rxe netdev "v${i}a"
		devs+=("rxe$i")
	done
	rxe_wait_active "${devs[@]}"
	log "${devs[*]} ACTIVE on bridge br0"
}

# load_ipoib [PARAM=VALUE...]: load the dependencies named in the module's
# modinfo, then insmod $VM_MODULE (passed to run.sh as --module).
load_ipoib() {
	local dep
	[[ -n $VM_MODULE ]] || fail "no module to test: run tests/vm/run.sh with --module PATH/ipoib_ng.ko"
	[[ -f $VM_MODULE ]] || fail "$VM_MODULE: no such file"
	for dep in $(modinfo -F depends "$VM_MODULE" | tr ',' ' '); do
		check modprobe "$dep"
	done
	check insmod "$VM_MODULE" "$@"
}

unload_ipoib() {
	check rmmod "$IPOIB_NAME"
	wait_for 30 "$IPOIB_NAME to unload" test ! -d "/sys/module/$IPOIB_NAME"
}

# ipoib_if_for DEV [PORT]: the ipoib_ng interface (initial namespace) bound to
# IB device DEV, port PORT (default 1). The driver exposes the binding as
# /sys/class/net/<if>/ibdev ("rxe0") and ibport ("1"). Without those files,
# fall back to creation order: the k-th InfiniBand interface by ifindex
# belongs to the k-th IB device by index.
ipoib_if_for() {
	local dev=$1 port=${2:-1} d k=0 idx=
	for d in /sys/class/net/*; do
		[[ -r $d/ibdev ]] || continue
		if [[ $(< "$d/ibdev") == "$dev" && $(< "$d/ibport") == "$port" ]]; then
			echo "${d##*/}"
			return 0
		fi
	done
	compgen -G '/sys/class/net/*/ibdev' > /dev/null && return 1
	while read -r d; do
		[[ $d == "$dev" ]] && idx=$k
		k=$((k + 1))
	done < <(rdma dev show | awk '{ sub(/:$/, "", $2); print $2 }')
	[[ -n $idx ]] || return 1
	for d in /sys/class/net/*; do
		if [[ $(< "$d/type") == 32 ]]; then
			echo "$(< "$d/ifindex") ${d##*/}"
		fi
	done | sort -n | awk -v k="$idx" 'NR == k + 1 { print $2; found = 1 } END { exit !found }'
}

# ib_ipoib_if DEV: the port interface the in-tree ib_ipoib made for DEV
# port 1 (initial namespace): ethtool names ib_ipoib as its driver, and
# its hardware address ends with the port GUID (RFC 4391 s9.1.1: flags
# and QPN, then the port GID). Not a P_Key child (<parent>.<P_Key>).
ib_ipoib_if() {
	local guid d
	guid=$(ibstat -p "$1" | head -n1)
	guid=${guid#0x}
	guid=$(sed 's/../&:/g; s/:$//' <<< "$guid")
	[[ -n $guid ]] || return 1
	for d in /sys/class/net/*; do
		[[ ${d##*/} != *.* && $(< "$d/type") == 32 &&
			$(< "$d/address") == *"$guid" ]] || continue
		ethtool -i "${d##*/}" 2> /dev/null | grep -qx "driver: ib_ipoib" ||
			continue
		echo "${d##*/}"
		return 0
	done
	return 1
}

# wait_ipoib_if DEV [PORT]: wait for the interface and print its name.
wait_ipoib_if() {
	wait_for 30 "an $IPOIB_NAME interface on $1 port ${2:-1}" ipoib_if_for "$@"
	ipoib_if_for "$@"
}

# has_carrier NS IF ("" for the initial namespace)
has_carrier() {
	ip ${1:+-n "$1"} -o link show dev "$2" | grep -q LOWER_UP
}

# ll_addr6 NS IF: the interface's IPv6 link-local address once DAD is done.
ll_addr6() {
	ip -n "$1" -6 -o addr show dev "$2" scope link |
		awk '!/tentative/ { sub(/\/.*/, "", $4); print $4; found = 1 } END { exit !found }'
}

# IPoIB hardware address: 4 bytes of flags/QPN + 16 bytes of GID.
IPOIB_LLADDR_RE='lladdr ([0-9a-f]{2}:){19}[0-9a-f]{2}( |$)'

# neigh_lladdr NS IF IP: the link-layer address of IF's entry for IP in NS.
neigh_lladdr() {
	ip -n "$1" neigh show "$3" dev "$2" |
		awk '{ for (i = 1; i < NF; i++) if ($i == "lladdr") print $(i + 1) }'
}

# check_neigh NS IF ADDR: NS has a neighbour entry for ADDR on IF with a
# 20-byte IPoIB link-layer address.
check_neigh() {
	local line
	line=$(ip -n "$1" neigh show "$3" dev "$2")
	log "neighbour in $1: ${line:-(none)}"
	[[ $line =~ $IPOIB_LLADDR_RE ]] ||
		fail "no neighbour entry with a 20-byte lladdr for $3 on $2 in $1"
}

# check_ping NS ADDR [ping options]: 3 echo requests, every one answered.
check_ping() {
	local ns=$1 addr=$2 out
	shift 2
	log "\$ ip netns exec $ns ping -c 3 -i 0.3 -W 5 $* $addr"
	if ! out=$(ns_exec "$ns" ping -c 3 -i 0.3 -W 5 "$@" "$addr" 2>&1); then
		echo "$out"
		fail "ping $addr from $ns failed"
	fi
	echo "$out"
	grep -q ' 0% packet loss' <<< "$out" || fail "ping $addr from $ns lost packets"
}

# ping_times FILE: "icmp_seq ms" for each reply in ping's output FILE.
ping_times() {
	awk '{ s = ""; t = ""
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^icmp_seq=/) s = substr($i, 10)
			if ($i ~ /^time=/) t = substr($i, 6)
		}
		if (t != "") print s, t }' "$1"
}

# rtt_p50_p99: of ping_times' lines, p50 and p99 in us (nothing when
# there are none).
rtt_p50_p99() {
	sort -k2,2n | awk '{ v[NR] = $2 } END { if (NR) printf "%.0f %.0f\n",
		v[int((NR + 1) / 2)] * 1000, v[int(NR * 0.99 + 0.999)] * 1000 }'
}

# setup_ipoib_netns_bare: IB1 and IB2, the interfaces of rxe0 and rxe1,
# moved into n1 and n2, down, without addresses. Module parameters, if
# any, come from IPOIB_PARAMS ("name=value ...").
setup_ipoib_netns_bare() {
	local params
	read -r -a params <<< "${IPOIB_PARAMS:-}"
	setup_rxe_pair
	load_ipoib "${params[@]}"
	IB1=$(wait_ipoib_if rxe0)
	IB2=$(wait_ipoib_if rxe1)
	[[ $IB1 != "$IB2" ]] || fail "rxe0 and rxe1 map to the same interface $IB1"
	log "rxe0 -> $IB1, rxe1 -> $IB2"
	ns_create n1 n2
	ns_move "$IB1" n1
	ns_move "$IB2" n2
}

# setup_ipoib_netns_pair: the topology of ping.sh and demo.sh:
# setup_ipoib_netns_bare, then both up, with 10.1.0.1/24 fd00::1/64 and
# 10.1.0.2/24 fd00::2/64.
setup_ipoib_netns_pair() {
	setup_ipoib_netns_bare
	check ip -n n1 link set dev "$IB1" up
	check ip -n n2 link set dev "$IB2" up
	wait_for 30 "carrier on $IB1 in n1" has_carrier n1 "$IB1"
	wait_for 30 "carrier on $IB2 in n2" has_carrier n2 "$IB2"
	check ip -n n1 addr add 10.1.0.1/24 dev "$IB1"
	check ip -n n2 addr add 10.1.0.2/24 dev "$IB2"
	check ip -n n1 addr add fd00::1/64 dev "$IB1" nodad
	check ip -n n2 addr add fd00::2/64 dev "$IB2" nodad
}

# ipoib_props NS IF: "<pkey> <mode> <umcast>" from ip -j -d link ("" for
# the initial namespace).
ipoib_props() {
	ip ${1:+-n "$1"} -j -d link show dev "$2" |
		jq -r '.[0].linkinfo.info_data | "\(.key) \(.mode) \(.umcast)"'
}

# expect_ipoib_props NS IF WANT: ipoib_props must print WANT.
expect_ipoib_props() {
	local got
	got=$(ipoib_props "$1" "$2")
	log "$2 in ${1:-the initial netns}: $got"
	[[ $got == "$3" ]] || fail "$2 in ${1:-the initial netns}: ip -d link says '$got', expected '$3'"
}

# dhcp_server NS PARENT CHILD PKEY NET: a P_Key child CHILD of PARENT in
# NS, up, with NET.1/24, and dnsmasq serving NET.100-150 on it (its log
# in $VM_OUT/dnsmasq.log, its pid in DNSMASQ).
dhcp_server() {
	local ns=$1 parent=$2 child=$3 pkey=$4 net=$5
	check ip -n "$ns" link add link "$parent" name "$child" type ipoib pkey "$pkey"
	check ip -n "$ns" link set dev "$child" up
	check ip -n "$ns" addr add "$net.1/24" dev "$child"
	wait_for 30 "carrier on $child in $ns" has_carrier "$ns" "$child"
	ip netns exec "$ns" dnsmasq --keep-in-foreground --conf-file=/dev/null \
		--port=0 --interface="$child" --bind-interfaces \
		--dhcp-range="$net.100,$net.150,255.255.255.0,10m" \
		--dhcp-leasefile="/tmp/dnsmasq-$child.leases" \
		--pid-file="/tmp/dnsmasq-$child.pid" \
		--log-dhcp --log-facility=- > "$VM_OUT/dnsmasq.log" 2>&1 &
	DNSMASQ=$!
}

# netplan_port RENDERER IF ADDR/LEN: /run/netplan/50-ipoib.yaml gives IF
# connected mode (infiniband-mode) and ADDR, for RENDERER (networkd or
# NetworkManager); then netplan generate.
netplan_port() {
	check mkdir -p /run/netplan
	cat > /run/netplan/50-ipoib.yaml <<-EOF
	network:
	  version: 2
	  renderer: $1
	  ethernets:
	    $2:
	      infiniband-mode: connected
	      addresses: [$3]
	      link-local: []
	EOF
	check chmod 600 /run/netplan/50-ipoib.yaml
	cat /run/netplan/50-ipoib.yaml
	check netplan generate
}

# system_bus_start / system_bus_stop: a system D-Bus for the network
# managers (networkctl, nmcli), started by hand (no systemd as PID 1 in
# the VM); sets SYSTEM_BUS_PID. dbus-daemon needs a machine id: the root
# is read-only, so one is bound over /etc/machine-id if it is empty.
system_bus_start() {
	_bus_machine_id=
	if [[ ! -s /etc/machine-id ]]; then
		check sh -c 'cat /proc/sys/kernel/random/uuid | tr -d - > /run/machine-id'
		check mount --bind /run/machine-id /etc/machine-id
		_bus_machine_id=1
	fi
	check mkdir -p /run/dbus
	SYSTEM_BUS_PID=$(dbus-daemon --system --fork --nopidfile --print-pid) ||
		fail "dbus-daemon did not start"
	wait_for 10 "the system bus" test -S /run/dbus/system_bus_socket
}

# What a next scenario in the same VM must not find.
system_bus_stop() {
	kill "$SYSTEM_BUS_PID" 2> /dev/null
	rm -rf /run/dbus
	if [[ -n ${_bus_machine_id:-} ]]; then
		check umount /etc/machine-id
	fi
}

# route_rxe_as_hosts NET4 NET6 DEV:HOST...: addresses NET4.HOST/24 and
# NET6::HOST/64 on each DEV (netdevs of rxe devices), so that rxe makes GIDs
# beyond link-local of them and rdma_resolve_ip resolves them over the
# veths as between hosts. The DEVs share the initial namespace, where each
# one's addresses are local to the others and a route lookup would loop
# them back: rules by output interface, ahead of the local table, send what
# an rxe device resolves and transmits out of its own DEV; received
# datagrams still find the local table; accept_local lets IPv4 in from a
# source that is local. The routes name their source address: IPv6 source
# selection would pick the destination itself, local here.
route_rxe_as_hosts() {
	local net4=$1 net6=$2 arg dev host table
	shift 2
	if [[ -n $(ip rule show pref 0) ]]; then
		check ip rule add pref 1000 lookup local
		check ip rule del pref 0
		check ip -6 rule add pref 1000 lookup local
		check ip -6 rule del pref 0
	fi
	for arg in "$@"; do
		dev=${arg%%:*} host=${arg#*:}
		table=$((1000 + $(< "/sys/class/net/$dev/ifindex")))
		check ip addr add "$net6::$host/64" dev "$dev" nodad
		check ip addr add "$net4.$host/24" dev "$dev"
		if [[ -z $(ip rule show pref 100 oif "$dev") ]]; then
			check ip rule add pref 100 oif "$dev" lookup "$table"
			check ip -6 rule add pref 100 oif "$dev" lookup "$table"
		fi
		check ip route add "$net4.0/24" dev "$dev" table "$table" src "$net4.$host"
		check ip -6 route add "$net6::/64" dev "$dev" table "$table" src "$net6::$host"
		check sysctl -qw "net.ipv4.conf.$dev.accept_local=1"
	done
	check sysctl -qw net.ipv4.conf.all.accept_local=1
}

# route_rxe_pair_as_hosts: after setup_rxe_pair, fd99::1/64 192.168.99.1/24
# on va and fd99::2/64 192.168.99.2/24 on vb, routed as two hosts.
route_rxe_pair_as_hosts() {
	route_rxe_as_hosts 192.168.99 fd99 va:1 vb:2
}

# gid_index DEV GID: the index of GID (sysfs form, "fd99:0000:...:0002") in
# port 1's GID table of DEV.
gid_index() {
	local f
	for f in "/sys/class/infiniband/$1/ports/1/gids/"*; do
		if [[ $(< "$f") == "$2" ]]; then
			echo "${f##*/}"
			return 0
		fi
	done 2> /dev/null
	return 1
}

# gid_bytes GID: a GID in sysfs form as colon-separated bytes.
gid_bytes() {
	sed 's/://g; s/../&:/g; s/:$//' <<< "$1"
}

# ipoib_debugfs DEV [PORT [PKEY]]: the driver's debugfs folder of that
# interface (path, mcg).
ipoib_debugfs() {
	echo "/sys/kernel/debug/$IPOIB_NAME/$1-${2:-1}-${3:-ffff}"
}

# path_line DEV GID: the line of the debugfs path table for GID.
path_line() {
	grep "^$2 " "$(ipoib_debugfs "$1")/path"
}

# kmemleak_scan: scan twice, print the report; fails if it is not empty.
# guest.sh does this after every scenario; call it to check a step sooner.
kmemleak_scan() {
	local f=/sys/kernel/debug/kmemleak report
	[[ -w $f ]] || return 0
	echo scan > "$f"
	sleep 5
	echo scan > "$f"
	report=$(< "$f")
	[[ -z $report ]] && return 0
	echo "$report"
	fail "kmemleak reports suspected leaks"
}

# ---------------------------------------------------------------------------
# Helpers for datapath.sh, teardown.sh and bench.sh.

# kmsg MSG: log MSG and write it to the kernel log too, so that console.log
# and dmesg.txt show which step the kernel lines around it belong to.
kmsg() {
	log "$*"
	echo "scenario ${VM_SCENARIO:-?}: $*" > /dev/kmsg 2> /dev/null || true
}

# The kernel lines run.sh fails a scenario on (its BAD), for checks in the
# middle of a scenario that name the step that caused them.
# shellcheck source=kernel-bad.sh
. "$(dirname "${BASH_SOURCE[0]}")/kernel-bad.sh"
KERNEL_BAD_RE+='|unregister_netdevice: waiting for'

# check_dmesg_clean WHAT: fail if the kernel log holds a warning, naming WHAT.
check_dmesg_clean() {
	local lines
	lines=$(dmesg | kernel_bad_lines "$KERNEL_BAD_RE" || true)
	if [[ -n $lines ]]; then
		echo "$lines"
		fail "kernel warnings after $1"
	fi
	log "dmesg clean after $1"
}

# link_addr NS IF: the interface's hardware address (20 bytes for IPoIB).
link_addr() {
	ip -n "$1" -o link show dev "$2" |
		awk '{ for (i = 1; i < NF; i++) if ($i ~ /^link\//) { print $(i + 1); found = 1 } }
		     END { exit !found }'
}

# ns_tcp_listening NS PORT: something listens on TCP PORT in NS.
ns_tcp_listening() {
	ip netns exec "$1" ss -Hltn "sport = :$2" | grep -q .
}

# if_stat NS IF rx_bytes|tx_bytes|rx_packets|...: one counter of IF in NS.
if_stat() {
	ip netns exec "$1" cat "/sys/class/net/$2/statistics/$3"
}

# xps NS IF MASK0 MASK1: XPS of IF's transmit queues 0 and 1 (CPU masks
# in hex; 0 0: none, the stack hashes flows to queues again).
xps() {
	ns_exec "$1" sh -c "echo $3 > /sys/class/net/$2/queues/tx-0/xps_cpus &&
		echo $4 > /sys/class/net/$2/queues/tx-1/xps_cpus" ||
		fail "cannot set XPS $3 $4 on $2 in $1"
}

# eth_stat NS IF NAME: one of the driver's counters (ethtool -S).
eth_stat() {
	ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2; f = 1 } END { exit !f }'
}

# iperf3_run SRV_NS SRV_ADDR CLI_NS LOG [iperf3 client options]: a one-off
# iperf3 server in SRV_NS, the client in CLI_NS (-f m, output in LOG), both
# bounded in time. Port from IPERF3_PORT (default 5201).
iperf3_run() {
	local sns=$1 addr=$2 cns=$3 out=$4 port=${IPERF3_PORT:-5201} spid rc=0
	shift 4
	ns_exec "$sns" timeout 120 iperf3 -s -1 -p "$port" > "$out.server" 2>&1 &
	spid=$!
	wait_for 30 "the iperf3 server in $sns" ns_tcp_listening "$sns" "$port"
	log "\$ ip netns exec $cns iperf3 -c $addr -p $port -f m $*"
	ns_exec "$cns" timeout 120 iperf3 -c "$addr" -p "$port" -f m "$@" > "$out" 2>&1 || rc=$?
	cat "$out"
	if ((rc != 0)); then
		sed 's/^/server: /' "$out.server"
		fail "iperf3 client in $cns to $addr exited $rc"
	fi
	wait "$spid" || { rc=$?; sed 's/^/server: /' "$out.server"; fail "iperf3 server in $sns exited $rc"; }
}

# iperf3_mbps LOG sender|receiver: the summary bitrate in Mbits/sec.
iperf3_mbps() {
	awk -v side="$2" '$NF == side { for (i = 1; i < NF; i++) if ($i == "Mbits/sec") { v = $(i - 1) } }
		END { if (v == "") exit 1; print v }' "$1"
}

# iperf3_tcp_moves SRV_NS SRV_ADDR CLI_NS LOG WHAT [iperf3 client
# options]: iperf3_run, and the receiver's TCP figure must be above zero
# (WHAT names the direction in the failure).
iperf3_tcp_moves() {
	local what=$5 mbps
	iperf3_run "$1" "$2" "$3" "$4" "${@:6}"
	mbps=$(iperf3_mbps "$4" receiver) || fail "$what: no TCP figure"
	awk -v m="$mbps" 'BEGIN { exit !(m > 0) }' || fail "$what: $mbps Mbit/s"
}

# iperf3_udp_loss LOG: the receiver's UDP loss in percent ("416/4436 (9.4%)").
iperf3_udp_loss() {
	awk '$NF == "receiver" { for (i = 1; i <= NF; i++) if ($i ~ /^\([0-9.e+-]+%\)$/) { v = $i } }
		END { if (v == "") exit 1; gsub(/[()%]/, "", v); print v }' "$1"
}

# udp_blast NS ADDR SECONDS: send small UDP datagrams (port 9, discard) to
# ADDR from NS as fast as the socket takes them, for SECONDS. The send
# buffer is forced large, so that it is the interface that stalls first,
# not the socket; a full buffer is waited out, not an error. Run in the
# background, $! is the sender itself (exec), so that kill stops it.
udp_blast() {
	exec ip netns exec "$1" python3 - "$2" "$3" << 'PY'
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 32, 64 << 20)  # SO_SNDBUFFORCE
s.setblocking(False)
end = time.monotonic() + float(sys.argv[2])
while time.monotonic() < end:
    try:
        s.sendto(b"x" * 64, (sys.argv[1], 9))
    except OSError:
        time.sleep(0.01)
PY
}

# ping_fails_cleanly NS ADDR [ping options]: no echo reply comes back, and
# ping says so in bounded time (exit 1), rather than hanging or erroring.
ping_fails_cleanly() {
	local ns=$1 addr=$2 out rc=0
	shift 2
	log "\$ ! ip netns exec $ns ping -c 3 -i 0.3 -W 2 $* $addr"
	out=$(ns_exec "$ns" timeout 30 ping -c 3 -i 0.3 -W 2 "$@" "$addr" 2>&1) || rc=$?
	echo "$out"
	case $rc in
	0) fail "ping $addr from $ns got replies, expected none" ;;
	1) log "no reply from $addr, as expected" ;;
	124) fail "ping $addr from $ns hung (killed after 30 s)" ;;
	*) fail "ping $addr from $ns exited $rc, expected 1 (no reply)" ;;
	esac
}

# ipoib_attach DEV NS ADDR4/LEN ADDR6/LEN: wait for the interface of DEV
# (port 1) in the initial namespace, move it into NS, bring it up, wait for
# the carrier and add the addresses. Sets IPOIB_IF to its name.
ipoib_attach() {
	local dev=$1 ns=$2 a4=$3 a6=$4
	IPOIB_IF=$(wait_ipoib_if "$dev")
	log "$dev -> $IPOIB_IF, into $ns"
	ns_move "$IPOIB_IF" "$ns"
	check ip -n "$ns" link set dev "$IPOIB_IF" up
	wait_for 30 "carrier on $IPOIB_IF in $ns" has_carrier "$ns" "$IPOIB_IF"
	check ip -n "$ns" addr add "$a4" dev "$IPOIB_IF"
	check ip -n "$ns" addr add "$a6" dev "$IPOIB_IF" nodad
}

# ping_works NS ADDR [ping options]: one echo answered (for wait_for).
ping_works() {
	local ns=$1 addr=$2
	shift 2
	ns_exec "$ns" ping -c 1 -W 2 "$@" "$addr" > /dev/null 2>&1
}

# ---------------------------------------------------------------------------
# Traffic in the background, for scenarios that change or tear down the
# interfaces of setup_ipoib_netns_pair while it flows (teardown, churn).

_bg_pids=()
# bg_run NS SECONDS CMD...: run CMD in NS in the background for at most
# SECONDS (ip netns exec execs timeout, which passes a SIGTERM on), its
# output in /tmp/bg-<n>.log. Sets BG_PID.
bg_run() {
	local ns=$1 secs=$2
	shift 2
	ip netns exec "$ns" timeout "$secs" "$@" > "/tmp/bg-${#_bg_pids[@]}.log" 2>&1 &
	BG_PID=$!
	_bg_pids+=("$BG_PID")
}

# bg_stop: stop every job of bg_run, log the last line each printed.
bg_stop() {
	local i
	((${#_bg_pids[@]} > 0)) || return 0
	kill "${_bg_pids[@]}" 2> /dev/null || true
	for i in "${!_bg_pids[@]}"; do
		wait "${_bg_pids[$i]}" 2> /dev/null || true
		log "background job $i: $(tail -n 1 "/tmp/bg-$i.log" 2> /dev/null)"
		rm -f "/tmp/bg-$i.log"
	done
	_bg_pids=()
}

# iperf3_both [SECONDS [client options]]: TCP n1 -> n2 and n2 -> n1 for
# SECONDS (default 200), in the background. IPERF3_CLIENTS: their pids.
iperf3_both() {
	local secs=${1:-200}
	shift $(($# > 0 ? 1 : 0))
	bg_run n2 $((secs + 100)) iperf3 -s -p 5201
	bg_run n1 $((secs + 100)) iperf3 -s -p 5202
	wait_for 30 "iperf3 server in n2" ns_tcp_listening n2 5201
	wait_for 30 "iperf3 server in n1" ns_tcp_listening n1 5202
	bg_run n1 $((secs + 100)) iperf3 -c 10.1.0.2 -p 5201 -t "$secs" "$@"
	IPERF3_CLIENTS=("$BG_PID")
	bg_run n2 $((secs + 100)) iperf3 -c 10.1.0.1 -p 5202 -t "$secs" "$@"
	IPERF3_CLIENTS+=("$BG_PID")
}

# iperf3_alive: both clients of iperf3_both still run (their TCP
# connections survived what happened meanwhile).
iperf3_alive() {
	local pid
	for pid in "${IPERF3_CLIENTS[@]}"; do
		kill -0 "$pid" 2> /dev/null || return 1
	done
}

# sending NS IF [SECONDS BYTES]: IF sent more than BYTES (100 kB) within
# SECONDS (1).
sending() {
	local a b
	a=$(if_stat "$1" "$2" tx_bytes)
	sleep "${3:-1}"
	b=$(if_stat "$1" "$2" tx_bytes)
	((b - a > ${4:-100000}))
}

# if_gone NS IF
if_gone() {
	! ip -n "$1" link show dev "$2" > /dev/null 2>&1
}

# wait_traffic: IB1 and IB2 both carry traffic (iperf3_both).
wait_traffic() {
	wait_for 60 "iperf3 traffic out of $IB1" sending n1 "$IB1"
	wait_for 60 "iperf3 traffic out of $IB2" sending n2 "$IB2"
	log "traffic both ways: $IB1 tx $(if_stat n1 "$IB1" tx_bytes) B, $IB2 tx $(if_stat n2 "$IB2" tx_bytes) B"
}

# reattach: the interfaces of rxe0 and rxe1 into n1 and n2, configured as
# setup_ipoib_netns_pair does; sets IB1 and IB2.
reattach() {
	ipoib_attach rxe0 n1 10.1.0.1/24 fd00::1/64
	IB1=$IPOIB_IF
	ipoib_attach rxe1 n2 10.1.0.2/24 fd00::2/64
	IB2=$IPOIB_IF
}

# ping_all: IPv4 and IPv6 both ways between n1 and n2.
ping_all() {
	wait_for 60 "ping n1 -> 10.1.0.2" ping_works n1 10.1.0.2
	check_ping n1 10.1.0.2
	check_ping n2 10.1.0.1
	wait_for 60 "ping n1 -> fd00::2" ping_works n1 fd00::2
	check_ping n1 fd00::2
	check_ping n2 fd00::1
}

# ---------------------------------------------------------------------------
# softib (tests/softib/, Documentation/softib-design.rst): the scenarios
# softib-*.sh run with --module PATH/softib.ko, so VM_MODULE is softib.

SOFTIB_HCAS=3

# load_softib: the modules softib and the tools need, then softib with
# SOFTIB_HCAS HCAs (a scenario may set more before); returns when the
# last HCA's port is there.
# The softib-*.sh scenarios get softib.ko as --module; the ib-*.sh ones,
# which test ipoib_ng over it, get ipoib_ng.ko and find softib.ko where
# `make softib` built it for the VM's kernel.
load_softib() {
	local ko=$VM_MODULE
	[[ $ko == */softib.ko ]] || ko=$VM_REPO/build/softib/$(uname -r)/softib.ko
	[[ -f $ko ]] || fail "$ko: no such file (make softib)"
	check modprobe -a rdmavt ib_umad ib_uverbs
	check insmod "$ko" hcas="$SOFTIB_HCAS"
	wait_for 30 "softib$((SOFTIB_HCAS - 1))" \
		test -e /sys/class/infiniband/softib$((SOFTIB_HCAS - 1))/ports/1/state
}

unload_softib() {
	check rmmod softib
	wait_for 30 "softib to unload" test ! -d /sys/module/softib
}

# start_opensm: Debian's OpenSM as SM and SA on port 1 of OSM_DEV
# (softib0 unless the scenario says), with
# /tmp/partitions.conf (written here with the IPoIB default partition if
# the scenario wrote none), log in $OSM_LOG (the results folder, kept on
# the host); returns at its first SUBNET UP with every HCA port ACTIVE.
# The VM's root is read-only: OpenSM's cache (guid2lid) and dumps go to
# /tmp. -d2 flushes every log line (force_log_flush): without it
# "SUBNET UP" waits in stdio's buffer and a finished sweep looks hung.
OSM_LOG=$VM_OUT/opensm.log
start_opensm() {
	local dev=${OSM_DEV:-softib0} guid i
	guid=$(ibstat -p "$dev" | head -n1)
	[[ $guid == 0x* ]] || fail "$dev: no port GUID ($guid)"
	[[ -f /tmp/partitions.conf ]] ||
		echo "Default=0x7fff, ipoib : ALL=full ;" > /tmp/partitions.conf
	export OSM_CACHE_DIR=/tmp/opensm-cache OSM_TMP_DIR=/tmp/opensm-tmp
	mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"
	rm -f "$OSM_LOG"
	check opensm -B -d2 -g "$guid" -t 1000 -s 10 \
		-P /tmp/partitions.conf -f "$OSM_LOG"
	# The first sweep takes about a second here; two minutes is a failure.
	wait_for 120 "OpenSM's SUBNET UP" grep -q "SUBNET UP" "$OSM_LOG"
	for ((i = 0; i < SOFTIB_HCAS; i++)); do
		wait_for 30 "softib$i port 1 ACTIVE" \
			grep -q ACTIVE /sys/class/infiniband/softib$i/ports/1/state
	done
}

# partitions with_p1|without_p1: the /tmp/partitions.conf OpenSM reads
# at start and on its next sweep: the default partition for every port,
# and with_p1 P1=0x8001 for softib1's and softib2's ports (full members),
# not softib0's.
partitions() {
	local g1 g2
	g1=$(ibstat -p softib1 | head -n1)
	g2=$(ibstat -p softib2 | head -n1)
	echo "Default=0x7fff, ipoib : ALL=full ;" > /tmp/partitions.conf
	[[ $1 == with_p1 ]] &&
		echo "P1=0x8001, ipoib : $g1=full, $g2=full ;" >> /tmp/partitions.conf
	cat /tmp/partitions.conf
}

# stop_opensm: OpenSM exits; its log must hold no error (no MAD timed
# out, no attribute refused, no trap from an unknown LID) but the lines
# the extended regex OSM_ERR_OK matches, which the scenario explains.
OSM_ERR_OK=
stop_opensm() {
	osm_log_clean
	check pkill -TERM -x opensm
	wait_for 30 "opensm to exit" sh -c "! pgrep -x opensm"
}

# osm_log_clean [WHEN]: OpenSM's log so far holds no error but what
# OSM_ERR_OK allows (start_opensm starts a new log).
osm_log_clean() {
	# With none allowed, ^$ drops nothing: an ERR line is never empty.
	if grep -E "ERR [0-9A-F]{4}" "$OSM_LOG" | grep -vE "${OSM_ERR_OK:-^\$}"; then
		fail "errors in OpenSM's log${1:+ ($1)}"
	fi
}

# port_field DEV FIELD: a field of ibstat's port 1, e.g. "Base lid".
port_field() {
	ibstat "$1" 1 | sed -n "s/^[[:space:]]*$2: //p"
}

# osm_allow_sendonly PKEYS: OSM_ERR_OK for the joins OpenSM refuses to
# ipoib_ng's send-only traffic on the P_Keys PKEYS (an extended regex of
# 4-digit hex, "ffff" or "ffff|8001"). RFC 4391 s10: a sender joins a
# group SendOnlyNonMember, and a group nobody created cannot be joined so
# (the packet is dropped); OpenSM logs each refusal as ERR 1B10. Here:
# the IGMPv3 and MLDv2 reports to 224.0.0.22 and ff02::16, the router
# solicitations to ff02::2. (ib_ipoib joins SendOnlyFullMember instead,
# IBA 1.3, and creates those groups.)
osm_allow_sendonly() {
	OSM_ERR_OK="ERR 1B10: Failed to create multicast group because Join State != FullMember \| SendOnlyFullMember - required for create, MGID: ff12:[46]01b:($1)::(16|2) "
}

# softib_pingpong TOOL SERVER CLIENT N BYTES: a libibverbs pingpong
# example (ibv_ud_pingpong, ibv_rc_pingpong) between two softib HCAs by
# LID, over its TCP channel on localhost, N round trips; the client must
# report BYTES bytes and N iterations.
softib_pingpong() {
	local tool=$1 srv=$2 cli=$3 n=$4 bytes=$5 port=$((18515 + RANDOM % 1000))
	log "\$ $tool -d $srv (server); -d $cli (client), $n iterations"
	timeout 120 "$tool" -d "$srv" -i 1 -p "$port" -n "$n" \
		> "/tmp/$tool-server.out" 2>&1 &
	local server=$!
	wait_for 30 "the pingpong server on port $port" tcp_listening "$port"
	timeout 120 "$tool" -d "$cli" -i 1 -p "$port" -n "$n" localhost \
		> "/tmp/$tool-client.out" 2>&1 ||
		{ cat "/tmp/$tool-client.out" "/tmp/$tool-server.out"; fail "$tool $cli -> $srv failed"; }
	wait "$server" ||
		{ cat "/tmp/$tool-client.out" "/tmp/$tool-server.out"; fail "$tool server on $srv failed"; }
	cat "/tmp/$tool-client.out"
	expect_lines "/tmp/$tool-client.out" "$bytes bytes in .* seconds" "$n iters in"
}

# softib_hosts: ipoib_ng loaded over softib, three hosts, each interface
# up: IB0 (softib0, the SM's port) in the initial namespace, IB1
# (softib1) in n1, IB2 (softib2) in n2.
softib_hosts() {
	load_ipoib
	IB0=$(wait_ipoib_if softib0)
	IB1=$(wait_ipoib_if softib1)
	IB2=$(wait_ipoib_if softib2)
	log "softib0 -> $IB0, softib1 -> $IB1, softib2 -> $IB2"
	ns_create n1 n2
	ns_move "$IB1" n1
	ns_move "$IB2" n2
	check ip link set dev "$IB0" up
	check ip -n n1 link set dev "$IB1" up
	check ip -n n2 link set dev "$IB2" up
}

# softib_addrs N: the hosts of softib_hosts get 10.N.0.10, .1 and .2/24
# and fd0N::10, ::1 and ::2/64 (IB0, IB1, IB2).
softib_addrs() {
	check ip addr add "10.$1.0.10/24" dev "$IB0"
	check ip addr add "fd0$1::10/64" dev "$IB0" nodad
	check ip -n n1 addr add "10.$1.0.1/24" dev "$IB1"
	check ip -n n1 addr add "fd0$1::1/64" dev "$IB1" nodad
	check ip -n n2 addr add "10.$1.0.2/24" dev "$IB2"
	check ip -n n2 addr add "fd0$1::2/64" dev "$IB2" nodad
}

# sa_mcmr MGID: the SA's MCMemberRecords of group MGID, as softib0 asks
# with the SM_Key (members' records go to trusted requesters only), in
# /tmp/mcm.out.
sa_mcmr() {
	timeout 60 saquery -C softib0 -P 1 -t 1000 --smkey 1 --mgid "$1" MCMR \
		> /tmp/mcm.out 2>&1 ||
		{ cat /tmp/mcm.out; fail "saquery MCMemberRecord of $1 failed"; }
}

# sa_member MGID GID: the SA lists port GID as a member of group MGID
# (a predicate for wait_for; sa_mcmr for the records themselves).
sa_member() {
	saquery -C softib0 -P 1 -t 1000 --smkey 1 --mgid "$1" MCMR 2> /dev/null |
		grep -q "PortGid\.*$2\$"
}

# smp DEV OP...: smpquery -D from DEV's port 1 (hop 0, or the directed
# route given), output in /tmp/smp.out; fails after SMP_TIMEOUT seconds.
SMP_TIMEOUT=60
smp() {
	local dev=$1
	shift
	log "\$ smpquery -C $dev -P 1 -D $*"
	timeout "$SMP_TIMEOUT" smpquery -C "$dev" -P 1 -t 1000 -D "$@" > /tmp/smp.out 2>&1 ||
		{ cat /tmp/smp.out; fail "smpquery $* on $dev failed"; }
	cat /tmp/smp.out
}

# expect_lines FILE REGEX...: each extended regex matches a line of FILE.
expect_lines() {
	local f=$1 re
	shift
	for re in "$@"; do
		grep -qE -- "$re" "$f" || { cat "$f"; fail "$f: no line matches '$re'"; }
	done
}
