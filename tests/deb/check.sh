#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian package as a user gets it: install ipoib-ng-dkms_<v>_all.deb
# with apt, check that DKMS built and installed the module for every kernel
# given, boot VMs that load the INSTALLED module (run.sh --module
# installed), then purge the package and check that nothing is left under
# /usr/src, /lib/modules or /var/lib/dkms. The purge runs whatever failed.
#
# usage: tests/deb/check.sh [options] DEB KREL...
#   --vm KREL:SCENARIO[,SCENARIO...]   run these scenarios on the Debian
#                                      kernel KREL (/boot/vmlinuz-KREL), with
#                                      the module DKMS installed for it;
#                                      repeatable
#   --out DIR                          VM results (DIR/KREL/<scenario>/)
#
# KREL: every kernel release the package must have built for (the ones
# whose headers are installed). Prints each stage's time; exits 0 only
# when everything passed and the purge left nothing.

set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
PKG=ipoib-ng-dkms
OUT=$REPO/build/vm
VMS=()

die() { echo "deb-check: $*" >&2; exit 2; }
while [[ $# -gt 0 ]]; do
	case $1 in
	--vm) [[ $# -ge 2 ]] || die "--vm needs KREL:SCENARIOS"; VMS+=("$2"); shift 2 ;;
	--out) [[ $# -ge 2 ]] || die "--out needs a folder"; OUT=$2; shift 2 ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
[[ $# -ge 2 ]] || die "usage: $0 [--vm KREL:SCENARIOS]... DEB KREL..."
DEB=$(readlink -f -- "$1") || die "$1: no such file"
shift
KRELS=("$@")
[[ -f $DEB ]] || die "$DEB: no such file"
[[ $(id -u) -eq 0 ]] || die "must run as root (apt, dkms)"

VER=$(dpkg-deb -f "$DEB" Version)
NAME=$(dpkg-deb -f "$DEB" Package)
[[ $NAME == "$PKG" ]] || die "$DEB is package $NAME, not $PKG"

failed=0
fail() { echo "deb-check: FAIL: $*"; failed=1; }
t0=$(date +%s)
stage() { echo "deb-check: $* ($(($(date +%s) - t0)) s)"; }

# What a package of ours may leave anywhere: nothing, once purged.
leftovers() {
	local k
	ls -d /usr/src/ipoib-ng-* /var/lib/dkms/ipoib-ng 2> /dev/null
	for k in /lib/modules/*; do
		find "$k" -name 'ipoib_ng.ko*' 2> /dev/null
	done
	dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' "$PKG" 2> /dev/null |
		grep -v '^un \|^pn ' | sed 's/^/dpkg: /'
}

purge() {
	# Only the package's own files are removed; dpkg reports what it did.
	DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "$PKG" > "$OUT/apt-purge.log" 2>&1 ||
		{ cat "$OUT/apt-purge.log"; fail "apt-get purge $PKG failed"; }
	local left
	left=$(leftovers)
	if [[ -n $left ]]; then
		fail "the purge left files behind:"
		sed 's/^/  /' <<< "$left"
	else
		stage "purged: nothing left under /usr/src, /lib/modules, /var/lib/dkms"
	fi
}

mkdir -p "$OUT" || die "cannot create $OUT"
# A package or DKMS tree left by an earlier run would hide what this
# install does: start from none.
if [[ -n $(leftovers) ]]; then
	echo "deb-check: an earlier install is present, purging it first:"
	leftovers | sed 's/^/  /'
	DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "$PKG" > /dev/null 2>&1
	dkms remove ipoib-ng --all > /dev/null 2>&1
	rm -rf /usr/src/ipoib-ng-* /var/lib/dkms/ipoib-ng
	[[ -z $(leftovers) ]] || die "cannot clean an earlier install: $(leftovers)"
fi
trap purge EXIT

# On first install, Debian's DKMS postinst builds for the running kernel
# and the newest one, or for every kernel of /lib/modules when the running
# one is not installed (CI); autoinstall_all_kernels (framework.conf) makes
# it every kernel always, which is what this test checks.
echo "deb-check: apt-get install $DEB ($PKG $VER)"
if ! autoinstall_all_kernels=1 DEBIAN_FRONTEND=noninteractive \
	apt-get install -y -q "$DEB" > "$OUT/apt-install.log" 2>&1; then
	cat "$OUT/apt-install.log"
	fail "apt-get install failed"
	exit 1
fi
grep -E '^(Building|Installing|Running|Error|Module build)' "$OUT/apt-install.log" |
	sed 's/^/  /'
stage "installed"

for r in "${KRELS[@]}"; do
	st=$(dkms status -m ipoib-ng -v "$VER" -k "$r" 2> /dev/null)
	ko=$(modinfo -k "$r" -n ipoib_ng 2> /dev/null)
	v=$(modinfo -k "$r" -F version ipoib_ng 2> /dev/null)
	if [[ $st != *installed* ]]; then
		fail "$r: DKMS did not install the module (dkms status: '${st:-nothing}')"
	elif [[ $ko != /lib/modules/$r/updates/dkms/ipoib_ng.ko* ]]; then
		fail "$r: modprobe would load '$ko', not the DKMS build"
	elif [[ $v != "$VER" ]]; then
		fail "$r: the installed module says version '$v', the package $VER"
	else
		echo "deb-check: $r: $ko, version $v"
	fi
done

for spec in "${VMS[@]}"; do
	r=${spec%%:*}
	scenarios=${spec#*:}
	[[ -f /boot/vmlinuz-$r ]] || { fail "no /boot/vmlinuz-$r to boot"; continue; }
	# shellcheck disable=SC2086
	"$REPO/tests/vm/run.sh" --kernel "/boot/vmlinuz-$r" --module installed \
		--out "$OUT/$r" ${VM_TIMEOUT:+--timeout "$VM_TIMEOUT"} ${scenarios//,/ } ||
		fail "$r: VM scenarios ${scenarios//,/ }"
	stage "$r: ${scenarios//,/ } done"
done

trap - EXIT
purge
if [[ $failed -ne 0 ]]; then
	echo "deb-check: FAILED ($(($(date +%s) - t0)) s)"
	exit 1
fi
echo "deb-check: passed ($(($(date +%s) - t0)) s)"
