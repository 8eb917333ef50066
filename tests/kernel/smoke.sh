#!/bin/bash
# Smoke test of a test-kernel cache entry: boots it under qemu (TCG, -M q35) with a throw-away
# busybox initramfs that carries the entry's modules tree, and checks:
#   uname -r == kernel.release; /sys/kernel/debug/kunit exists; busybox modprobe of the
#   built-in virtio_pci/9pnet_virtio/9p succeeds; modprobe rdma_rxe/veth/bridge/bonding;
#   an rxe device on a veth (host's ip + rdma copied in); for the debug flavour KASAN, lockdep,
#   kmemleak (and one explicit kmemleak scan) reported in dmesg.
#
#   tests/kernel/smoke.sh [CACHE_DIR]     (default: tests/kernel/build.sh --cached-only)
#
# Env: SMOKE_MODULE=/path/x.ko also insmods/rmmods that module (e.g. built against build/),
# SMOKE_TIMEOUT (s, default 300), SMOKE_KEEP=1 keeps the work dir, SMOKE_NO_SCAN=1 skips
# the kmemleak scan (20-25 s under TCG).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DIR=${1:-$("$HERE/build.sh" --cached-only)} || { echo "smoke: no cached kernel; run build.sh" >&2; exit 1; }
KREL=$(cat "$DIR/kernel.release")
FLAVOUR=nodebug; grep -q '^CONFIG_KASAN=y' "$DIR/config" && FLAVOUR=debug
W=$(mktemp -d /tmp/ipoib-ng-smoke.XXXXXX)
[ "${SMOKE_KEEP:-0}" = 1 ] || trap 'rm -rf "$W"' EXIT
R=$W/root

mkdir -p "$R"/{bin,sbin,etc,proc,sys,dev,tmp,run,lib/modules,lib64,usr/lib}
cp /bin/busybox "$R/bin/busybox"
cp -a "$DIR/lib/modules/$KREL" "$R/lib/modules/"
rm -f "$R/lib/modules/$KREL/build" "$R/lib/modules/$KREL/source"
# iproute2's ip/rdma (busybox ip cannot create veth pairs) with their shared libraries
for b in /usr/sbin/ip /usr/bin/rdma; do
    [ -x "$b" ] || continue
    cp "$b" "$R/sbin/host-$(basename "$b")"
    for l in $(ldd "$b" | awk '/=>/ { print $3 } /ld-linux/ { print $1 }'); do
        mkdir -p "$R$(dirname "$l")"; cp -L "$l" "$R$l"
    done
done
EXTRA=
if [ -n "${SMOKE_MODULE:-}" ]; then
    cp "$SMOKE_MODULE" "$R/extra.ko"
    EXTRA="r insmod /extra.ko; r rmmod $(basename "$SMOKE_MODULE" .ko)"
fi
cat > "$R/init" <<EOF
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmpfs /tmp
r() { if "\$@" >/tmp/out 2>&1; then echo "SMOKE ok: \$*"; else echo "SMOKE FAIL: \$*"; cat /tmp/out; fi; }
echo "SMOKE uname=\$(uname -r) uptime=\$(cut -d' ' -f1 /proc/uptime)"
r test "\$(uname -r)" = "$KREL"
r test -d /sys/kernel/debug/kunit
for m in virtio_pci 9pnet_virtio 9p crc32_generic; do r modprobe \$m; done
for m in rdma_rxe veth bridge bonding ib_uverbs; do r modprobe \$m; done
if [ -x /sbin/host-ip ] && [ -x /sbin/host-rdma ]; then
    r host-ip link add va type veth peer name vb
    r host-ip link set va up
    r host-ip link set vb up
    r host-rdma link add rxe0 type rxe netdev va
    r test -d /sys/class/infiniband/rxe0
    r test -c /dev/infiniband/uverbs0
    r host-rdma link delete rxe0
fi
r rmmod rdma_rxe
$EXTRA
if [ "$FLAVOUR" = debug ]; then
    r test -e /sys/kernel/debug/kmemleak
    r test -d /sys/kernel/debug/failslab
    r test -d /sys/kernel/debug/fail_page_alloc
    dmesg | grep -q 'KernelAddressSanitizer initialized' && echo "SMOKE ok: dmesg KASAN" || echo "SMOKE FAIL: dmesg KASAN"
    dmesg | grep -q 'Lock dependency validator' && echo "SMOKE ok: dmesg lockdep" || echo "SMOKE FAIL: dmesg lockdep"
    dmesg | grep -q 'kmemleak: Kernel memory leak detector initialized' && echo "SMOKE ok: dmesg kmemleak" || echo "SMOKE FAIL: dmesg kmemleak"
    if [ "${SMOKE_NO_SCAN:-0}" != 1 ]; then
        s=\$(cut -d' ' -f1 /proc/uptime)
        r sh -c 'echo scan > /sys/kernel/debug/kmemleak'
        echo "SMOKE kmemleak scan: \$s -> \$(cut -d' ' -f1 /proc/uptime) s uptime, \$(grep -c '^unreferenced object' /sys/kernel/debug/kmemleak) objects reported"
    fi
fi
if dmesg | grep -E 'BUG:|WARNING:|UBSAN:|KASAN:|possible recursive|circular locking|Call Trace' >/tmp/bad; then
    echo "SMOKE FAIL: kernel complaints in dmesg"; cat /tmp/bad
fi
echo "SMOKE end uptime=\$(cut -d' ' -f1 /proc/uptime)"
poweroff -f
EOF
chmod +x "$R/init"
(cd "$R" && find . | cpio -o -H newc --quiet | gzip -1) > "$W/initramfs.gz"

echo "smoke: booting $DIR ($KREL, $FLAVOUR)" >&2
T0=${EPOCHREALTIME/./}
set +e
timeout "${SMOKE_TIMEOUT:-300}" qemu-system-x86_64 -M q35 -accel tcg -cpu max -m 2G -smp 2 \
    -nographic -no-reboot -kernel "$DIR/bzImage" -initrd "$W/initramfs.gz" \
    -append "console=ttyS0 panic=-1" </dev/null 2>&1 |
    while IFS= read -r line; do
        line=${line%$'\r'}
        t=$(( ${EPOCHREALTIME/./} - T0 ))
        printf '%4d.%02d %s\n' $((t / 1000000)) $((t % 1000000 / 10000)) "$line"
    done > "$W/console.log"
QRC=${PIPESTATUS[0]}
set -e
grep 'SMOKE' "$W/console.log" >&2 || true
T_INIT=$(awk '/SMOKE uname=/ { print $1; exit }' "$W/console.log")
T_END=$(tail -n1 "$W/console.log" | awk '{ print $1 }')
echo "smoke: qemu rc=$QRC; host seconds: userspace /init at ${T_INIT:-?}, qemu exit at $T_END" >&2
cp "$W/console.log" "/tmp/ipoib-ng-smoke-$KREL.log"
echo "smoke: console log: /tmp/ipoib-ng-smoke-$KREL.log" >&2
if [ "$QRC" != 0 ] || ! grep -q 'SMOKE end' "$W/console.log" || grep -q 'SMOKE FAIL' "$W/console.log"; then
    echo "smoke: FAILED" >&2; exit 1
fi
echo "smoke: PASSED" >&2
