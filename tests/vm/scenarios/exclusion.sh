#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# exclusion: ib_ipoib and ipoib_ng exclude each other (both register the
# "ipoib" link kind). Needs a kernel that ships ib_ipoib (Debian's does;
# the debug test kernel does not): without it the scenario FAILS rather
# than skipping, so `make check` runs it on Debian's kernel only.
#   (a) insmod ipoib_ng fails while ib_ipoib is loaded, with one clear
#       message ("link kind is taken")
#   (b) the reverse: ib_ipoib does not load while ipoib_ng is
#   (c) after both, ipoib_ng loads and carries traffic as before
#   (d) side by side, as the admin guide's "Beside ib_ipoib" says: with
#       link_kind=0 ports=roce ipoib_ng loads after ib_ipoib (and
#       ib_ipoib after it), serves the RoCE ports ib_ipoib leaves, and
#       carries traffic; ports=roce names them, link_kind=0 leaves the
#       kind to ib_ipoib

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

modinfo ib_ipoib > /dev/null 2>&1 ||
	fail "no ib_ipoib in /lib/modules/$(uname -r): this scenario needs it"

setup_ipoib_netns_pair
check_ping n1 10.1.0.2

kmsg "(a) $IPOIB_NAME must not load while ib_ipoib is"
unload_ipoib
ip -n n1 link show dev "$IB1" > /dev/null 2>&1 && fail "$IB1 still in n1 after rmmod"
check modprobe ib_ipoib
log "interfaces with ib_ipoib loaded (it skips RoCE ports):"
ip -br link
n=$(dmesg | wc -l)
check_fails insmod "$VM_MODULE"
[[ ! -d /sys/module/$IPOIB_NAME ]] || fail "$IPOIB_NAME is loaded despite ib_ipoib"
msg=$(dmesg | tail -n +$((n + 1)) | grep "$IPOIB_NAME" || true)
echo "$msg"
grep -q 'link kind is taken' <<< "$msg" ||
	fail "no 'link kind is taken' message from $IPOIB_NAME in dmesg"
(($(grep -c . <<< "$msg") <= 2)) || fail "more than two lines of complaint from $IPOIB_NAME"
check rmmod ib_ipoib
wait_for 30 "ib_ipoib to unload" test ! -d /sys/module/ib_ipoib

kmsg "(b) ib_ipoib must not load while $IPOIB_NAME is"
load_ipoib
ipoib_attach rxe0 n1 10.1.0.1/24 fd00::1/64
IB1=$IPOIB_IF
ipoib_attach rxe1 n2 10.1.0.2/24 fd00::2/64
IB2=$IPOIB_IF
# Its init fails with -EEXIST, which modprobe takes for "already loaded"
# and exits 0: look at /sys/module, not at the exit code.
log "\$ modprobe ib_ipoib"
modprobe ib_ipoib || log "modprobe ib_ipoib exited $?"
[[ ! -d /sys/module/ib_ipoib ]] || fail "ib_ipoib is loaded despite $IPOIB_NAME"
check_fails insmod "$(modinfo -n ib_ipoib)"

kmsg "(c) $IPOIB_NAME carries traffic as before"
wait_for 60 "ping n1 -> 10.1.0.2" ping_works n1 10.1.0.2
check_ping n1 10.1.0.2
check_ping n2 10.1.0.1
check_ping n1 fd00::2

kmsg "(d) beside ib_ipoib: link_kind=0 ports=roce"
unload_ipoib
check modprobe ib_ipoib
load_ipoib link_kind=0 ports=roce
ipoib_attach rxe0 n1 10.1.0.1/24 fd00::1/64
ipoib_attach rxe1 n2 10.1.0.2/24 fd00::2/64
wait_for 60 "ping n1 -> 10.1.0.2 beside ib_ipoib" ping_works n1 10.1.0.2
check_ping n1 10.1.0.2
check_ping n2 fd00::1
# ib_ipoib may go and come back: the link kind is still its own to take.
check rmmod ib_ipoib
wait_for 30 "ib_ipoib to unload" test ! -d /sys/module/ib_ipoib
check modprobe ib_ipoib
[[ -d /sys/module/ib_ipoib ]] || fail "ib_ipoib did not load beside $IPOIB_NAME link_kind=0"
check_ping n1 10.1.0.2
check rmmod ib_ipoib
check_dmesg_clean "exclusion"
log "exclusion: PASS"
