#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the test VM (busybox sh, PID 1), packed by mkinitramfs.sh.
#
# Mounts the host root read-only at /host (9p tag hostroot) and the run's
# output folder writable (9p tag results) at its host path inside /host, so
# every host path means the same inside the chroot. Reads vm.conf from the
# results share (written by run.sh), then chroots into /host and runs
# tests/vm/guest.sh with the host's bash. Always ends with poweroff -f; a
# watchdog powers off after VM_TIMEOUT + VM_GRACE seconds and leaves a
# "watchdog" file behind. Every line printed here starts with "| " so run.sh
# can tell it from kernel messages.

PATH=/bin
export PATH
/bin/busybox --install -s /bin
mount -t devtmpfs devtmpfs /dev 2>/dev/null
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys
# What udev would add to /dev; bash's <(...) needs /dev/fd.
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
ip link set lo up

say() { echo "| init: $*"; }

halt_now() {
	sync
	poweroff -f
	sleep 5
	echo o > /proc/sysrq-trigger
	sleep 3600
}

results_ok=
# Reaching here means the VM booted but the harness broke: leave a reason.
die() {
	say "FATAL: $*"
	if [ -n "$results_ok" ]; then
		echo "init: $*" > /results/init-error
		echo 125 > /results/exitcode
	fi
	halt_now
}

read -r up _ < /proc/uptime
say "userspace at ${up}s, kernel $(uname -r)"

while read -r m; do
	insmod "/modules/$m" || die "insmod $m failed"
done < /modules/order

# 9p over virtio: 512000 is the largest msize 9pnet_virtio accepts.
mount_9p() {
	tag=$1 dir=$2 opts=$3 i=0
	while ! mount -t 9p -o "trans=virtio,version=9p2000.L,msize=512000,$opts" \
			"$tag" "$dir" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 20 ] || return 1
		sleep 0.5
	done
}
mount_9p results /results "" || die "cannot mount the results share"
results_ok=1
echo "$up" > /results/boot-time
mount_9p hostroot /host "ro,cache=loose" || die "cannot mount the host root"
[ -r /results/vm.conf ] || die "no vm.conf in the results share"
# shellcheck disable=SC1091
. /results/vm.conf

# A sequence of scenarios in this one VM (run.sh --one-vm) has a budget each.
budget=$((${VM_COUNT:-1} * VM_TIMEOUT + VM_GRACE))
(
	sleep "$budget"
	say "watchdog: no result after ${budget}s; blocked tasks, then power off"
	echo w > /proc/sysrq-trigger
	sleep 2
	echo "$budget" > /results/watchdog
	halt_now
) &

# A repository cloned under /tmp or /run (CI may do that) would vanish
# under the fresh tmpfs: keep it visible at the same path.
keep_repo=
case $VM_REPO in
/tmp/*|/run/*)
	mkdir -p /mnt/repo
	mount -o bind "/host$VM_REPO" /mnt/repo || die "cannot see $VM_REPO"
	keep_repo=1 ;;
esac
mount -t tmpfs -o mode=1777 tmpfs /host/tmp || die "tmpfs /tmp"
mount -t tmpfs -o mode=755 tmpfs /host/run || die "tmpfs /run"
if [ -n "$keep_repo" ]; then
	mkdir -p "/host$VM_REPO"
	mount -o bind /mnt/repo "/host$VM_REPO" || die "cannot bind $VM_REPO"
fi
mount -o bind /proc /host/proc || die "bind /proc"
mount -o bind /sys /host/sys || die "bind /sys"
mount -o bind /dev /host/dev || die "bind /dev"
mkdir -p /dev/pts /dev/shm
mount -t devpts -o newinstance,ptmxmode=0666 devpts /host/dev/pts
mount -t tmpfs -o mode=1777 tmpfs /host/dev/shm
if [ -d /sys/kernel/debug ]; then
	mount -t debugfs debugfs /host/sys/kernel/debug
fi

# A kernel whose modules are not in the host's /lib/modules (a debug build):
# show its modules tree at /lib/modules/$(uname -r) inside the chroot.
if [ -n "$VM_MODULES_DIR" ]; then
	mount -o bind "/host$VM_MODULES_DIR" /mnt/modules ||
		die "cannot see $VM_MODULES_DIR"
	mount -t tmpfs -o mode=755 tmpfs "/host$VM_HOST_LIBMODULES" ||
		die "cannot mount over $VM_HOST_LIBMODULES"
	mkdir "/host$VM_HOST_LIBMODULES/$(uname -r)"
	mount -o bind /mnt/modules "/host$VM_HOST_LIBMODULES/$(uname -r)" ||
		die "cannot bind the modules tree"
fi

# The kernel's own module requests (request_module) run /sbin/modprobe in
# this root, not in the chroot: hand them to the host's modprobe.
mkdir -p /sbin
printf '#!/bin/sh\nexec /bin/chroot /host /sbin/modprobe "$@"\n' > /sbin/modprobe
chmod 755 /sbin/modprobe

# The output folder may live on the tmpfs just mounted (/tmp, /run).
mkdir -p "/host$VM_OUT" 2>/dev/null
mount -o bind /results "/host$VM_OUT" || die "cannot bind the results at $VM_OUT"

say "running $VM_SCENARIO (budget ${VM_TIMEOUT}s${VM_COUNT:+ each of $VM_COUNT})"
chroot /host /usr/bin/env -i \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/tmp TERM=dumb LANG=C.UTF-8 \
	/bin/bash "$VM_REPO/tests/vm/guest.sh" "$VM_OUT/vm.conf"
rc=$?
[ -e /results/exitcode ] || {
	say "guest.sh left no exit code (rc $rc)"
	echo "guest.sh exited $rc without an exit code" > /results/init-error
	[ "$rc" -ne 0 ] || rc=125
	echo "$rc" > /results/exitcode
}
halt_now
