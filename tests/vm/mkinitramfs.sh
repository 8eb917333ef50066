#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the test VM's initramfs: busybox-static, tests/vm/init.sh as /init, and
# only the modules needed to mount the host root over 9p (virtio_pci,
# 9pnet_virtio, 9p and their dependencies from modules.dep; built-in ones are
# skipped, compressed ones are decompressed so busybox insmod can load them).
#
# usage: mkinitramfs.sh [--cache DIR] KVER MODULES_DIR
#
# Prints the path of the cpio.gz on stdout. The result is cached in DIR
# (default build/vm) under a name keyed on KVER and a hash of this script,
# init.sh, busybox and the module files, so a rebuild happens only when one
# of them changes.

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CACHE=$REPO/build/vm
BUSYBOX=${BUSYBOX:-/bin/busybox}
WANT=(virtio_pci 9pnet_virtio 9p)

die() { echo "mkinitramfs: $*" >&2; exit 1; }

while [[ $# -gt 0 ]]; do
	case $1 in
	--cache) CACHE=$2; shift 2 ;;
	-h|--help) awk 'NR > 3 && /^#/ { sub(/^# ?/, ""); print; next } NR > 3 { exit }' "$0"; exit 0 ;;
	--) shift; break ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
[[ $# -eq 2 ]] || die "usage: mkinitramfs.sh [--cache DIR] KVER MODULES_DIR"
KVER=$1
MODDIR=$2

[[ -x $BUSYBOX ]] || die "$BUSYBOX missing (apt-get install busybox-static)"
if ldd "$BUSYBOX" >/dev/null 2>&1; then
	die "$BUSYBOX is dynamically linked: install busybox-static"
fi
[[ -f $MODDIR/modules.dep ]] || die "$MODDIR/modules.dep missing (not a modules tree, or run depmod)"

# Prints the line of module $1 in modules.dep-style file $2, or nothing.
# Names compare as modprobe does: basename without .ko*, '-' as '_'.
find_module() {
	awk -v want="$1" '{
		path = $1; sub(/:$/, "", path)
		n = path; sub(/.*\//, "", n); sub(/\.ko.*/, "", n); gsub(/-/, "_", n)
		if (n == want) { print; exit }
	}' "$2"
}

# Load order: modules.dep lists the full dependency closure of a module, the
# deepest last, so loading the list backwards and then the module works.
order=()
add_path() {
	local p
	for p in "${order[@]}"; do [[ $p == "$1" ]] && return; done
	order+=("$1")
}
for m in "${WANT[@]}"; do
	line=$(find_module "$m" "$MODDIR/modules.dep")
	if [[ -z $line ]]; then
		[[ -f $MODDIR/modules.builtin &&
			-n $(find_module "$m" "$MODDIR/modules.builtin") ]] && continue
		die "module $m is neither in $MODDIR/modules.dep nor built in"
	fi
	read -r -a deps <<< "${line#*:}"
	for ((i = ${#deps[@]} - 1; i >= 0; i--)); do
		add_path "${deps[i]}"
	done
	add_path "${line%%:*}"
done

# A modules tree of another kernel would only fail at insmod time in the VM.
for p in "${order[@]}"; do
	magic=$(modinfo -F vermagic "$MODDIR/$p" 2>/dev/null || true)
	[[ -z $magic || ${magic%% *} == "$KVER" ]] ||
		die "$MODDIR/$p is for kernel ${magic%% *}, not $KVER"
done

key=$( {
	sha256sum "$0" "$HERE/init.sh" "$BUSYBOX" | cut -d' ' -f1
	for p in "${order[@]}"; do
		echo "$p"
		sha256sum < "$MODDIR/$p"
	done
} | sha256sum | cut -c1-16)
out=$CACHE/initramfs-$KVER-$key.cpio.gz
if [[ -s $out ]]; then
	echo "$out"
	exit 0
fi

mkdir -p "$CACHE"
stage=$(mktemp -d "$CACHE/.initramfs.XXXXXX")
trap 'rm -rf "$stage" "$stage.cpio.gz"' EXIT
mkdir -p "$stage"/{bin,dev,proc,sys,host,results,mnt/modules,modules}
cp "$BUSYBOX" "$stage/bin/busybox"
ln -s busybox "$stage/bin/sh"
install -m 0755 "$HERE/init.sh" "$stage/init"
for p in "${order[@]}"; do
	name=${p##*/}
	case $name in
	*.ko) cp "$MODDIR/$p" "$stage/modules/$name" ;;
	*.ko.xz) xz -dc "$MODDIR/$p" > "$stage/modules/${name%.xz}" ;;
	*.ko.zst) zstd -qdc "$MODDIR/$p" > "$stage/modules/${name%.zst}" ;;
	*.ko.gz) gzip -dc "$MODDIR/$p" > "$stage/modules/${name%.gz}" ;;
	*) die "unknown module format: $p" ;;
	esac
	echo "${name%.ko*}.ko" >> "$stage/modules/order"
done
touch "$stage/modules/order"
# /dev/console lets the kernel give /init a console before devtmpfs is up.
mknod -m 600 "$stage/dev/console" c 5 1 2>/dev/null || true

(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
	"$BUSYBOX" cpio -o -H newc 2>/dev/null) | gzip -9 > "$stage.cpio.gz"
mv "$stage.cpio.gz" "$out"
# Stale images: old enough that no run still about to boot one needs it.
find "$CACHE" -maxdepth 1 -name "initramfs-$KVER-*.cpio.gz" ! -name "${out##*/}" \
	-mmin +60 -delete
echo "$out"
