#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# privilege: who may change an ipoib_ng interface (issue 16, "Privilege";
# review L4). ping.sh's topology; n2 only completes the pair.
#
#   1. Without CAP_NET_ADMIN, in n1 (a netns of the initial user namespace),
#      as "nobody" (uid 65534) and as "capless root" (uid 0, no capability):
#      every write is refused and changes nothing (mode, umcast, children,
#      ring sizes, coalescing): sysfs mode/umcast/create_child/delete_child,
#      netlink newlink/changelink/dellink, ethtool -G/-C. nobody is refused
#      by the sysfs files' permissions before the driver runs; capless root
#      owns the files, so there it is the driver's own check that refuses.
#      Every read works: sysfs, ip -d link, ethtool -S/-g.
#   2. The root of a user namespace that owns a netns U ("ns-root": uid 0 in
#      its user namespace, uid 65534 outside, every capability inside and
#      none outside), given a P_Key child (2a) and then the port's interface
#      itself (2b, 2c) by the real root: what it may and may not do, each
#      with the kernel or driver rule that decides it, printed at the end.
#      Two rules are the driver's own: ns-root does not choose a P_Key
#      (review L4: a partition is the fabric's to give, so a child is made
#      only with CAP_NET_ADMIN in the initial user namespace), and it does
#      not delete, through its port's delete_child, a child that lives in
#      another netns (here n1; found by this scenario).
#      Part 2 needs CONFIG_USER_NS: the scenario fails without it (the
#      debug test kernel has none today, so make check runs it on
#      Debian's kernel).
#
#  +-------------- n1 (owned by the initial user namespace) ----------------+
#  | $IB1 (rxe0's port)   c1 (0x8001, netlink)   $IB1.8002 (0x8002, sysfs)  |
#  | c1u (0x8006): made here by the real root, then moved into U            |
#  | part 1: nobody and capless root, no capabilities, run in here          |
#  +------------------------------------------------------------------------+
#         | 2a: c1u     2b, 2c: $IB1 itself (back to the initial netns
#         v             when U goes: netns_refund)
#  +------------- U: a netns owned by user namespace UU --------------------+
#  | UU made by uid 65534; ns-root: uid 0 in UU, 65534 outside              |
#  | each command: nsenter --user --net, a sysfs of U's own at /sys         |
#  +------------------------------------------------------------------------+
#  n2: $IB2 (rxe1's port)
#               rxe0 -- va <=== veth ===> vb -- rxe1   (initial namespace)

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

[[ -e /proc/self/ns/user ]] ||
	fail "this kernel has no user namespaces (CONFIG_USER_NS): part 2 cannot run"

SETPRIV=$(command -v setpriv)
UNSHARE=$(command -v unshare)
# No capability at all: the bounding and inheritable sets emptied, so that
# exec grants none, not even to uid 0 (and no ambient ones).
NOBODY=("$SETPRIV" --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all)
CAPLESS=("$SETPRIV" --inh-caps=-all --bounding-set=-all)
EPERM="Operation not permitted"

# sysfs-put FILE VALUE: echo VALUE > FILE, with bash, which names the errno
# of a failed write ("write error: Operation not permitted"; dash says "I/O
# error" whatever it was). A file, so that it runs under setpriv and nsenter.
PUT=/tmp/sysfs-put
printf '#!/bin/bash\necho "$2" > "$1"\n' > "$PUT"
chmod 755 "$PUT"

# rings: "RX TX", the current sizes in ethtool -g's output (stdin).
rings() {
	awk '/^Current/ { s = 1 } s && ($1 == "RX:" || $1 == "TX:") { v = v (v == "" ? "" : " ") $2 }
		END { print v }'
}

setup_ipoib_netns_pair

# -------------------------------------------------------------------------
kmsg "1. without CAP_NET_ADMIN: every write refused, every read allowed"

# run_as nobody|capless NS CMD...: CMD in NS (whose /sys ip netns exec
# mounts) as that identity.
run_as() {
	local who=$1 ns=$2
	shift 2
	case $who in
	nobody) ns_exec "$ns" "${NOBODY[@]}" "$@" ;;
	capless) ns_exec "$ns" "${CAPLESS[@]}" "$@" ;;
	*) fail "run_as: no identity '$who'" ;;
	esac
}

# n1_state: what any of the writes below would change, on one line.
n1_state() {
	local links eth
	links=$(ip -n n1 -j -d link show type "$IPOIB_KIND" |
		jq -r 'map("\(.ifname) \(.linkinfo.info_data.mode) umcast \(.linkinfo.info_data.umcast)") | join(", ")')
	eth=$(ns_exec n1 sh -c 'ethtool -g "$1"; ethtool -c "$1"' _ "$IB1" |
		awk '/^Current/ { s = 1 } s && ($1 == "RX:" || $1 == "TX:") { r = r " " $2 }
			$1 == "rx-usecs:" { u = $2 } END { print "rings" r ", rx-usecs " u }')
	echo "$links; $IB1 $eth"
}

# refused WANT CMD...: CMD fails saying WANT, and n1 is as it was.
refused() {
	local now
	expect_error "$@"
	now=$(n1_state)
	[[ $now == "$STATE0" ]] || fail "refused, yet n1 changed: was '$STATE0', now '$now'"
}

check ip -n n1 link add link "$IB1" name c1 type ipoib pkey 0x8001
check ns_exec n1 "$PUT" "/sys/class/net/$IB1/create_child" 0x8002
STATE0=$(n1_state)
log "n1: $STATE0"
RINGS0=$(ns_exec n1 ethtool -g "$IB1" | rings)

for who in nobody capless; do
	case $who in
	nobody) uid=65534 ;;
	capless) uid=0 ;;
	esac
	ids=$(run_as "$who" n1 awk '$1 == "Uid:" { u = $2 } $1 == "CapEff:" { e = $2 } $1 == "CapBnd:" { b = $2 }
		END { print u, e, b }' /proc/self/status)
	log "$who: uid, effective and bounding capabilities: $ids"
	[[ $ids == "$uid 0000000000000000 0000000000000000" ]] ||
		fail "$who: setpriv left '$ids', expected uid $uid and no capability"

	if [[ $who == nobody ]]; then
		# open(2) for writing: the files belong to the root of n1's owner
		# (uid 0), mode 0644 (0200 for *_child); DAC refuses first.
		sys_err="Permission denied"
	else
		# open(2) passes: uid 0 owns the files. The write reaches the
		# driver, whose ipn_sysfs_capable() (ns_capable(n1's owner,
		# CAP_NET_ADMIN)) refuses it.
		sys_err=$EPERM
	fi
	kmsg "1. $who: sysfs"
	refused "$sys_err" run_as "$who" n1 "$PUT" "/sys/class/net/$IB1/mode" connected	# allowed on the port to root
	refused "$sys_err" run_as "$who" n1 "$PUT" "/sys/class/net/$IB1/umcast" 1
	refused "$sys_err" run_as "$who" n1 "$PUT" "/sys/class/net/$IB1/create_child" 0x8005
	refused "$sys_err" run_as "$who" n1 "$PUT" "/sys/class/net/$IB1/delete_child" 0x8002
	refused "$sys_err" run_as "$who" n1 "$PUT" /sys/class/net/c1/umcast 1

	# rtnetlink_rcv_msg(): every message but a GET needs
	# netlink_net_capable(CAP_NET_ADMIN); the driver is not reached.
	kmsg "1. $who: netlink"
	refused "$EPERM" run_as "$who" n1 ip link add link "$IB1" name x type ipoib pkey 0x8005
	refused "$EPERM" run_as "$who" n1 ip link set c1 type ipoib mode connected
	refused "$EPERM" run_as "$who" n1 ip link set "$IB1" type ipoib umcast 1
	refused "$EPERM" run_as "$who" n1 ip link del c1

	# ethtool netlink: RINGS_SET and COALESCE_SET are GENL_UNS_ADMIN_PERM
	# (the ioctl: __dev_ethtool()'s ns_capable() for every set).
	kmsg "1. $who: ethtool"
	refused "$EPERM" run_as "$who" n1 ethtool -G "$IB1" rx 128
	refused "$EPERM" run_as "$who" n1 ethtool -C "$IB1" rx-usecs 10

	# Reads need nothing: sysfs files are 0444/0644, RTM_GETLINK is a GET,
	# ETHTOOL_GSTATS/GSTRINGS/GSSET_INFO are in __dev_ethtool()'s list for
	# anyone, and RINGS_GET has no permission flag.
	kmsg "1. $who: reads"
	out=$(run_as "$who" n1 cat "/sys/class/net/$IB1/mode" "/sys/class/net/$IB1/umcast" \
		"/sys/class/net/$IB1/pkey" /sys/class/net/c1/pkey | tr '\n' ' ')
	log "$who reads sysfs: $out"
	[[ $out == "datagram 0 0xffff 0x8001 " ]] || fail "$who: sysfs reads '$out'"
	out=$(run_as "$who" n1 ip -d link show dev c1)
	[[ $out == *"ipoib pkey 0x8001 mode datagram"* ]] || fail "$who: ip -d link show c1: $out"
	out=$(run_as "$who" n1 ethtool -S "$IB1")
	grep -q '^ *rx_packets: [0-9]' <<< "$out" || fail "$who: ethtool -S: $out"
	grep -q '^ *drop_[a-z_]*: [0-9]' <<< "$out" || fail "$who: ethtool -S has no drop counter"
	out=$(run_as "$who" n1 ethtool -g "$IB1" | rings)
	[[ $out == "$RINGS0" ]] || fail "$who: ethtool -g says '$out', root sees '$RINGS0'"
	log "$who: every write refused, n1 unchanged; every read allowed"
done
check_dmesg_clean "part 1"

# -------------------------------------------------------------------------
# The rules part 2 names, as printed in its summary.
R_DAC="sysfs DAC: a netdev's files belong to the root of its netns's owner (net_get_ownership, netdev_change_owner on a move)"
R_SYSFS="driver ipn_sysfs_capable(): ns_capable(owner of the device's netns, CAP_NET_ADMIN)"
R_RTNL="rtnetlink_rcv_msg(): netlink_net_capable(CAP_NET_ADMIN) over the netns's owner"
R_MOVE="rtnl_link_get_net_capable(): CAP_NET_ADMIN over the destination netns's owner"
R_ETHNL="ethtool netlink: GENL_UNS_ADMIN_PERM (CAP_NET_ADMIN over the netns's owner)"
R_READ="reads: RTM_GETLINK, ETHTOOL_GSTATS and RINGS_GET need no capability"
R_ROCE_CM="past the privilege check: ipn_dev_set_mode(), connected mode on RoCE is for the default partition only (review H2)"
R_CQ="past the privilege check: ipn_set_coalesce(), rxe has no CQ moderation"
R_ISOL="netns isolation: the parent is looked up in the caller's netns (iproute2, then ipn_nl_newlink())"
R_ATTR="driver: a child's sysfs group has no create_child/delete_child"
R_PORTDEL="rtnetlink allows it; driver ipn_nl_dellink() keeps a port's interface (it goes with its RDMA port)"
R_PKEY="driver ipn_may_choose_pkey(): a P_Key child needs capable(CAP_NET_ADMIN) (review L4)"
R_XNS="driver delete_child_store(): the child's netns is checked too"
R_VF_CHILD="driver ipn_vf_check(): a P_Key child has no VF ops, the VFs are the adapter's (review 2026-12 H2)"
R_VF_CAP="driver ipn_vf_check(): setting a VF needs capable(CAP_NET_ADMIN) (review 2026-12 H2)"
SUMMARY=()

# u_root CMD...: CMD as ns-root, in U, with a sysfs of U at /sys (mounted
# in a mount namespace of UU's own, as a container runtime does).
u_root() {
	nsenter --target "$UNS_PID" --user --net -- \
		"$UNSHARE" --mount -- bash -c 'mount -t sysfs sysfs /sys && exec "$@"' _ "$@"
}

# u_host CMD...: CMD as the real root, in U, with U's sysfs at /sys.
u_host() {
	nsenter --target "$UNS_PID" --net -- \
		"$UNSHARE" --mount -- bash -c 'mount -t sysfs sysfs /sys && exec "$@"' _ "$@"
}

# u_net CMD...: CMD as the real root in U's netns (netlink, ethtool).
u_net() {
	nsenter --target "$UNS_PID" --net -- "$@"
}

# may RULE CMD...: ns-root runs CMD, and it succeeds.
may() {
	local rule=$1
	shift
	log "\$ [ns-root] $*"
	u_root "$@" || fail "ns-root was refused '$*', which $rule allows"
	SUMMARY+=("allowed: $* -- $rule")
}

# may_not WANT RULE CMD...: ns-root runs CMD, and it fails saying WANT.
may_not() {
	local want=$1 rule=$2
	shift 2
	expect_error "$want" u_root "$@"
	SUMMARY+=("refused: $* -- $rule")
}

# vf_refused WANT RULE LINE DEV: ns-root's `ip link set DEV vf 0 state
# disable` fails saying WANT, and the driver's log line says LINE. rxe has
# no VFs, so every refusal would read "not supported": the line tells
# which rule refused (review 2026-12 H2, before the device is asked).
vf_refused() {
	local want=$1 rule=$2 line=$3 dev=$4 mark
	mark="vf_refused $dev $RANDOM"
	echo "$mark" > /dev/kmsg
	may_not "$want" "$rule" ip link set "$dev" vf 0 state disable
	dmesg | sed -n "/$mark/,\$p" | grep -qF "$line" ||
		fail "ip link set $dev vf 0: no driver line '$line' ($(dmesg | tail -n 3))"
}

# u_start: the container's init, as a runtime run by an unprivileged user
# makes it: uid 65534 creates user namespace UU (uid 0 inside mapped to
# 65534) and U, owned by UU, and sleeps there; UNS_PID is that process.
#
# The scenario runs chrooted (init.sh: chroot /host), and the kernel gives
# no user namespace to a chrooted process (create_user_ns():
# current_chrooted()). So the holder starts from pid 1's root, in a mount
# namespace of its own where the host root is moved onto / (what
# switch_root does), with the initramfs's busybox; from there on it is the
# host's setpriv and unshare, not chrooted. Joining UU later from the chroot
# is allowed (userns_install() has no such check).
HOST_ROOT=/host
u_start() {
	local i inner outer count
	[[ /proc/1/root$HOST_ROOT -ef / ]] || fail "/proc/1/root$HOST_ROOT is not this root: see init.sh"
	chroot /proc/1/root /bin/busybox unshare -m /bin/busybox sh -c \
		'/bin/busybox mount --make-rprivate / && cd "$1" && /bin/busybox mount --move . / &&
		 shift && exec /bin/busybox chroot . "$@"' _ "$HOST_ROOT" \
		"${NOBODY[@]}" "$UNSHARE" --user --map-root-user --net -- sleep 600 > /tmp/holder.log 2>&1 &
	UNS_PID=$!
	for ((i = 0; ; i++)); do
		[[ $(cat "/proc/$UNS_PID/comm" 2> /dev/null) == sleep ]] && break
		if ! kill -0 "$UNS_PID" 2> /dev/null || ((i == 150)); then
			cat /tmp/holder.log
			fail "no user namespace: its holder did not get to sleep"
		fi
		sleep 0.2
	done
	read -r inner outer count < "/proc/$UNS_PID/uid_map"
	[[ "$inner $outer $count" == "0 65534 1" ]] || fail "UU maps '$inner $outer $count', not '0 65534 1'"
	[[ $(readlink "/proc/$UNS_PID/ns/net") != $(readlink /proc/self/ns/net) ]] || fail "U is not a netns of its own"
	log "U: holder $UNS_PID, $(readlink "/proc/$UNS_PID/ns/user") owns $(readlink "/proc/$UNS_PID/ns/net"), uid 0 there is 65534"
	log "ns-root: $(u_root awk '$1 == "Uid:" || $1 == "CapEff:" { printf "%s %s ", $1, $2 }' /proc/self/status)"
}

u_start

# ---------------------------------------------------------------------
kmsg "2a. a P_Key child given to ns-root"
check ip -n n1 link add link "$IB1" name c1u type ipoib pkey 0x8006
check ip -n n1 link set dev c1u netns "$UNS_PID"	# the real root: CAP_NET_ADMIN over UU's parent
out=$(u_root stat -c %u:%g /sys/class/net/c1u/umcast)
log "c1u's sysfs files belong to $out in UU"
[[ $out == 0:0 ]] || fail "c1u's sysfs files belong to $out in UU, not to ns-root ($R_DAC)"
out=$(u_root ip -d link show dev c1u)
[[ $out == *"ipoib pkey 0x8006 mode datagram"* ]] || fail "ns-root: ip -d link show c1u: $out"
out=$(u_root ethtool -S c1u)
grep -q '^ *rx_packets: [0-9]' <<< "$out" || fail "ns-root: ethtool -S c1u: $out"
SUMMARY+=("allowed: ip -d link show dev c1u, ethtool -S c1u -- $R_READ")
may "$R_DAC; $R_SYSFS" "$PUT" /sys/class/net/c1u/umcast 1
[[ $(u_root cat /sys/class/net/c1u/umcast) == 1 ]] || fail "umcast of c1u is not 1"
may "$R_DAC; $R_SYSFS" "$PUT" /sys/class/net/c1u/umcast 0
may_not "Operation not supported" "$R_ROCE_CM" "$PUT" /sys/class/net/c1u/mode connected
may "$R_RTNL" ip link set c1u type ipoib umcast 1
out=$(u_net ip -j -d link show dev c1u | jq -r '.[0].linkinfo.info_data.umcast')
[[ $out == 0001 ]] || fail "c1u: umcast is '$out' after umcast 1 by netlink"
may "$R_RTNL" ip link set c1u type ipoib umcast 0
may_not "connected mode on RoCE is for the default partition only" "$R_ROCE_CM" \
	ip link set c1u type ipoib mode connected
[[ $(u_root cat /sys/class/net/c1u/mode) == datagram ]] || fail "c1u left datagram mode"
rings0=$(u_net ethtool -g c1u | rings)
may "$R_ETHNL" ethtool -G c1u rx 128
out=$(u_net ethtool -g c1u | rings)
[[ $out == "128 ${rings0#* }" ]] || fail "c1u: rings '$out' after ethtool -G rx 128 (were '$rings0')"
may "$R_ETHNL" ethtool -G c1u rx "${rings0%% *}"
may_not "no completion moderation" "$R_CQ" ethtool -C c1u rx-usecs 10
may_not "$EPERM" "$R_MOVE" ip link set dev c1u netns 1	# pid 1's: the initial netns
vf_refused "Operation not supported" "$R_VF_CHILD" "a P_Key child: set VFs through" c1u
may_not "Cannot find device" "$R_ISOL" ip link add link "$IB1" name x type ipoib pkey 0x8005
u_root test ! -e /sys/class/net/c1u/create_child || fail "c1u has a create_child file"
SUMMARY+=("refused: create_child on c1u (no such file) -- $R_ATTR")
may "$R_RTNL; ipn_nl_dellink() deletes a child" ip link del c1u
check_fails u_net ip link show dev c1u
check_fails ip -n n1 link show dev c1u

# ---------------------------------------------------------------------
kmsg "2b. the port's interface given to ns-root (review L4)"
check ip -n n1 link set dev "$IB1" netns "$UNS_PID"
out=$(u_root stat -c %u:%g "/sys/class/net/$IB1/create_child")
[[ $out == 0:0 ]] || fail "$IB1's sysfs files belong to $out in UU, not to ns-root ($R_DAC)"
may "$R_DAC; $R_SYSFS" "$PUT" "/sys/class/net/$IB1/mode" connected	# L4: opens the CM surface
[[ $(u_root cat "/sys/class/net/$IB1/mode") == connected ]] || fail "$IB1 is not in connected mode"
may "$R_RTNL" ip link set "$IB1" type ipoib mode datagram
[[ $(u_root cat "/sys/class/net/$IB1/mode") == datagram ]] || fail "$IB1 is not back in datagram mode"
may "$R_PORTDEL" ip link del "$IB1"
check u_net ip link show dev "$IB1"
may_not "$EPERM" "$R_MOVE" ip link set dev "$IB1" netns 1
vf_refused "$EPERM" "$R_VF_CAP" "setting VFs needs CAP_NET_ADMIN in the initial" "$IB1"

# $IB1.8002 was made through create_child while $IB1 was in n1, so it
# lives in n1, where ns-root has no right; U is ns-root's.
check ip -n n1 link show dev "$IB1.8002"
may_not "$EPERM" "$R_XNS" "$PUT" "/sys/class/net/$IB1/delete_child" 0x8002
check ip -n n1 link show dev "$IB1.8002"

# ---------------------------------------------------------------------
kmsg "2c. P_Key children of the port in U"
# The real root chooses any P_Key, in any netns (capable(CAP_NET_ADMIN)
# in the initial user namespace passes every check): the control that
# both ways work in U.
check u_host "$PUT" "/sys/class/net/$IB1/create_child" 0x8009
[[ $(u_host cat "/sys/class/net/$IB1.8009/pkey") == 0x8009 ]] || fail "$IB1.8009 is not of P_Key 0x8009"
check u_host "$PUT" "/sys/class/net/$IB1/delete_child" 0x8009
check u_net ip link add link "$IB1" name r9 type ipoib pkey 0x8009
check u_net ip link del r9

# Review L4: ns-root does not choose a partition, by sysfs or netlink.
may_not "$EPERM" "$R_PKEY" "$PUT" "/sys/class/net/$IB1/create_child" 0x8007
check_fails u_net ip link show dev "$IB1.8007"
may_not "needs CAP_NET_ADMIN in the initial user namespace" "$R_PKEY" ip link add link "$IB1" name u8 type ipoib pkey 0x8008
check_fails u_net ip link show dev u8

# ---------------------------------------------------------------------
kmsg "2. U goes: the port's interface comes back to the initial netns"
kill "$UNS_PID"
wait "$UNS_PID" 2> /dev/null || true
# default_device_exit_net(): ipn_link_ops.netns_refund.
wait_for 60 "$IB1 in the initial netns" ip link show dev "$IB1"
check_dmesg_clean "part 2"

log "what ns-root was allowed and refused, and the rule that decides:"
for line in "${SUMMARY[@]}"; do
	log "  $line"
done

unload_ipoib
check_dmesg_clean "rmmod after the namespaces"

log "privilege: all checks passed"
