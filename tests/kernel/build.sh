#!/bin/bash
# Build (or find in the cache) the ipoib-ng test kernel from Debian's linux-source-6.1.
#
#   tests/kernel/build.sh [--flavour debug|nodebug] [--print-dir] [--cached-only] [--clean-obj]
#
# Prints the cache directory on stdout (the only thing ever printed on stdout). It holds:
#   bzImage  config  Module.symvers  System.map  kernel.release  build-info.txt
#   lib/modules/<kernel.release>/   modules_install tree (modules.dep, modules.builtin, ...)
#   build/                          KDIR for out-of-tree modules: make -C <dir>/build M=... modules
#                                   (needs the unpacked source in $CACHE_ROOT/src, kept there)
#
#   --flavour F    debug (default: KASAN, lockdep, kmemleak, ...) or nodebug
#   --print-dir    no progress messages on a warm cache (stdout is the path in every mode)
#   --cached-only  never build: print the path and exit 0 if cached, exit 1 otherwise
#   --config-only  configure + verify the .config in the build tree, then stop (no cache entry)
#   --clean-obj    delete the full build tree after a successful build (saves ~1-2 GB,
#                  loses incremental rebuilds)
#
# Environment: IPOIB_NG_CACHE (cache root, default ~/.cache/ipoib-ng), JOBS (default nproc),
#              KBUILD_VERBOSE_LOG=1 to stream the make output to stderr instead of only a log.
#
# Cache key = sha256 over (flavour, config fragments, this script) + linux-source-6.1 package
# version + gcc and ld versions. Entries are written to a temporary directory and renamed when
# complete, so an existing <key> directory is always complete. One build at a time (flock).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FLAVOUR=debug
PRINT_DIR=0
CACHED_ONLY=0
CLEAN_OBJ=0
CONFIG_ONLY=0

usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit "${1:-2}"; }

while [ $# -gt 0 ]; do
    case "$1" in
        --flavour|--flavor) FLAVOUR=${2:?}; shift 2 ;;
        --flavour=*|--flavor=*) FLAVOUR=${1#*=}; shift ;;
        --print-dir) PRINT_DIR=1; shift ;;
        --cached-only) CACHED_ONLY=1; shift ;;
        --clean-obj) CLEAN_OBJ=1; shift ;;
        --config-only) CONFIG_ONLY=1; shift ;;
        -h|--help) usage 0 ;;
        *) echo "build.sh: unknown argument: $1" >&2; usage ;;
    esac
done

case "$FLAVOUR" in
    debug) FRAGMENTS=("$HERE/config-base.fragment" "$HERE/config-debug.fragment") ;;
    nodebug) FRAGMENTS=("$HERE/config-base.fragment") ;;
    *) echo "build.sh: unknown flavour '$FLAVOUR' (debug|nodebug)" >&2; exit 2 ;;
esac

log() { if [ "$PRINT_DIR" = 0 ] || [ "${_LOUD:-0}" = 1 ]; then echo "test-kernel: $*" >&2; fi; }
die() { echo "test-kernel: ERROR: $*" >&2; exit 1; }

CACHE_ROOT=${IPOIB_NG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ipoib-ng}
TARBALL=/usr/src/linux-source-6.1.tar.xz
JOBS=${JOBS:-$(nproc)}

PKGVER=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) ||
    die "linux-source-6.1 is not installed (apt-get install linux-source-6.1)"
[ -n "$PKGVER" ] && [ -r "$TARBALL" ] || die "linux-source-6.1 not installed or $TARBALL missing"
command -v gcc >/dev/null || die "gcc not found (apt-get install build-essential)"
GCCVER=$(gcc --version | head -n1)
LDVER=$(ld --version | head -n1)

# Fixes for bugs of the 6.1 source that the debug kernel reports under our tests
# (patches/*.patch, -p1, each explains itself); part of the key and of the source stamp.
shopt -s nullglob
PATCHES=("$HERE"/patches/*.patch)
shopt -u nullglob
PATCH_ID=$(cat /dev/null "${PATCHES[@]}" | sha256sum | cut -c1-16)

HASH=$( {
    echo "flavour=$FLAVOUR"
    for f in "${FRAGMENTS[@]}"; do echo "== $(basename "$f")"; cat "$f"; done
    for f in "${PATCHES[@]}"; do echo "== $(basename "$f")"; cat "$f"; done
    echo "== build.sh"; cat "${BASH_SOURCE[0]}"
    echo "pkg=$PKGVER"; echo "gcc=$GCCVER"; echo "ld=$LDVER"
} | sha256sum | cut -c1-16)
KEY="$FLAVOUR-$HASH"
OUT="$CACHE_ROOT/kernel/$KEY"
SRC_TOP="$CACHE_ROOT/src/$PKGVER"
SRC="$SRC_TOP/linux-source-6.1"
OBJ="$CACHE_ROOT/obj/$PKGVER-$FLAVOUR"

# Unpack the pristine source (needed by the build and, afterwards, by KDIR). ~10 s.
# The source is "pristine + our patches"; .ipoib-ng-patches names the set applied.
# Unpacking keeps the tarball's mtimes, so after a new patch set only the patched
# files are newer than the objects of the kept build tree: make rebuilds just those.
src_ok() {
    [ -f "$SRC/Makefile" ] && [ "$(cat "$SRC/.ipoib-ng-patches" 2>/dev/null)" = "$PATCH_ID" ]
}
ensure_src() {
    src_ok && return 0
    log "unpacking $TARBALL ($PKGVER) into $SRC_TOP, ${#PATCHES[@]} patch(es)"
    mkdir -p "$CACHE_ROOT/src"
    local tmp="$CACHE_ROOT/src/.tmp-$PKGVER-$$" p
    rm -rf "$tmp"; mkdir -p "$tmp"
    tar -C "$tmp" -xJf "$TARBALL"
    [ -f "$tmp/linux-source-6.1/Makefile" ] || die "unexpected tarball layout"
    for p in "${PATCHES[@]}"; do
        patch -d "$tmp/linux-source-6.1" -p1 --no-backup-if-mismatch -s < "$p" ||
            die "patch $(basename "$p") does not apply"
    done
    echo "$PATCH_ID" > "$tmp/linux-source-6.1/.ipoib-ng-patches"
    rm -rf "$SRC_TOP"
    mv -T "$tmp" "$SRC_TOP"
}

cache_ok() { [ -f "$OUT/bzImage" ] && [ -f "$OUT/build/Makefile" ]; }

# Warm path: no lock, no make (KDIR also needs the unpacked source).
if cache_ok && src_ok && [ "$CONFIG_ONLY" = 0 ]; then
    log "cached: $OUT ($(cat "$OUT/kernel.release"))"
    echo "$OUT"
    exit 0
fi
[ "$CACHED_ONLY" = 1 ] && exit 1
_LOUD=1   # a (long) build always reports progress on stderr

# ---------------------------------------------------------------------------------------------
mkdir -p "$CACHE_ROOT/kernel"
exec 9>"$CACHE_ROOT/kernel/.lock"
if ! flock -n 9; then
    log "another test-kernel build holds $CACHE_ROOT/kernel/.lock; waiting"
    flock 9
fi
if cache_ok && [ "$CONFIG_ONLY" = 0 ]; then   # built by whoever held the lock, or source gone
    ensure_src; log "cached: $OUT ($(cat "$OUT/kernel.release"))"; echo "$OUT"; exit 0
fi

for t in bc bison flex make perl depmod; do
    command -v "$t" >/dev/null || PATH="$PATH:/sbin:/usr/sbin" command -v "$t" >/dev/null ||
        die "missing tool '$t' (apt-get install build-essential bc bison flex kmod)"
done
export PATH="$PATH:/sbin:/usr/sbin"   # depmod for modules_install
[ -f /usr/include/libelf.h ] || die "libelf-dev missing (objtool needs it)"
[ -f /usr/include/openssl/opensslv.h ] || die "libssl-dev missing"

ensure_src
[ -e "$SRC/.config" ] && die "$SRC has a .config (not pristine); delete $SRC_TOP to re-unpack"
mkdir -p "$OBJ"
LOG="$OBJ/build.log"
: > "$LOG"

kmake() {
    if [ "${KBUILD_VERBOSE_LOG:-0}" = 1 ]; then
        make -C "$SRC" "$@" 2>&1 | tee -a "$LOG" >&2
        return "${PIPESTATUS[0]}"
    fi
    if ! make -C "$SRC" "$@" >>"$LOG" 2>&1; then
        echo "test-kernel: 'make $*' failed; last lines of $LOG:" >&2
        tail -n 60 "$LOG" >&2
        return 1
    fi
}

# Effective fragment: later lines win (debug overrides base). Output: "SYM<TAB>VALUE", VALUE
# being y, m, n, a number, or a quoted string.
effective_fragment() {
    awk '
        /^[[:space:]]*$/ { next }
        {
            if ($0 ~ /^# CONFIG_[A-Za-z0-9_]+ is not set[[:space:]]*$/) { sym = $2; val = "n" }
            else if ($0 ~ /^#/) next
            else if ($0 ~ /^CONFIG_[A-Za-z0-9_]+=/) { i = index($0, "="); sym = substr($0, 1, i - 1); val = substr($0, i + 1) }
            else { printf "%s:%d: cannot parse: %s\n", FILENAME, FNR, $0 > "/dev/stderr"; bad = 1; next }
            if (!(sym in v)) order[n++] = sym
            v[sym] = val
        }
        END { for (i = 0; i < n; i++) printf "%s\t%s\n", substr(order[i], 8), v[order[i]]; exit bad }
    ' "${FRAGMENTS[@]}"
}
EFFECTIVE=$(effective_fragment) || die "bad config fragment"

apply_fragment() {
    local args=() sym val
    while IFS=$'\t' read -r sym val; do
        case "$val" in
            y) args+=(--enable "$sym") ;;
            m) args+=(--module "$sym") ;;
            n) args+=(--disable "$sym") ;;
            \"*\") val=${val#\"}; args+=(--set-str "$sym" "${val%\"}") ;;
            *) args+=(--set-val "$sym" "$val") ;;
        esac
    done <<<"$EFFECTIVE"
    "$SRC/scripts/config" --file "$CFGDIR/.config" "${args[@]}"
}

verify_config() {
    local sym want got bad=()
    while IFS=$'\t' read -r sym want; do
        got=$(grep -m1 "^CONFIG_$sym=" "$CFGDIR/.config" | cut -d= -f2-) || true
        if [ -z "$got" ]; then
            if grep -q "^# CONFIG_$sym is not set" "$CFGDIR/.config"; then got=n; else got="n (absent)"; fi
        fi
        case "$want" in
            n) case "$got" in n*) ;; *) bad+=("CONFIG_$sym: want n, got $got") ;; esac ;;
            *) [ "$got" = "$want" ] || bad+=("CONFIG_$sym: want $want, got $got") ;;
        esac
    done <<<"$EFFECTIVE"
    if [ ${#bad[@]} -gt 0 ]; then
        echo "test-kernel: ERROR: ${#bad[@]} option(s) from the fragment did not land in $CFGDIR/.config" >&2
        echo "test-kernel: (dependencies unmet, or a choice/select overrides them):" >&2
        printf '  %s\n' "${bad[@]}" >&2
        return 1
    fi
}

T0=$(date +%s)
log "configuring $FLAVOUR kernel in $OBJ (tinyconfig + $(basename -a "${FRAGMENTS[@]}" | tr '\n' ' '))"
# The config is made in a small scratch O= dir and copied over the kept build tree's .config
# only when it differs, so an unchanged config there rebuilds nothing.
CFGDIR="$OBJ.config"
mkdir -p "$CFGDIR"
kmake O="$CFGDIR" tinyconfig
# Twice: an option whose dependency is only enabled by the first pass sticks on the second.
for pass in 1 2; do
    apply_fragment
    kmake O="$CFGDIR" olddefconfig
done
verify_config || die "config verification failed (see above); fix the fragment"
log "config verified: $(wc -l <<<"$EFFECTIVE") options"
[ "$CONFIG_ONLY" = 1 ] && { log "--config-only: $CFGDIR/.config"; exit 0; }
if cmp -s "$CFGDIR/.config" "$OBJ/.config"; then
    log "config unchanged in the kept build tree $OBJ: incremental build"
else
    cp "$CFGDIR/.config" "$OBJ/.config"
fi

log "building bzImage + modules with -j$JOBS (debug: ~9-15 min; log: $LOG)"
T1=$(date +%s)
kmake O="$OBJ" -j"$JOBS" bzImage modules
T2=$(date +%s)
times > "$OBJ/.times"; CPU=$(tail -n1 "$OBJ/.times")   # children's user and system CPU time (make and compilers)
log "kernel built in $((T2 - T1)) s wall (CPU of children so far: $CPU)"

KREL=$(cat "$OBJ/include/config/kernel.release")
TMP="$CACHE_ROOT/kernel/.tmp-$KEY-$$"
rm -rf "$TMP"; mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT
cp "$OBJ/arch/x86/boot/bzImage" "$TMP/bzImage"
cp "$OBJ/.config" "$TMP/config"
cp "$OBJ/Module.symvers" "$OBJ/System.map" "$TMP/"
echo "$KREL" > "$TMP/kernel.release"

log "modules_install"
kmake O="$OBJ" INSTALL_MOD_PATH="$TMP" modules_install
MODDIR="$TMP/lib/modules/$KREL"
[ -f "$MODDIR/modules.dep" ] && [ -f "$MODDIR/modules.builtin" ] || die "modules_install incomplete"
# modules_install points build/source at the big O= tree; point them at what the cache keeps.
rm -f "$MODDIR/build" "$MODDIR/source"
ln -s ../../../build "$MODDIR/build"
ln -s "$SRC" "$MODDIR/source"

# KDIR: a fresh O= folder with .config + Module.symvers + modules_prepare (~10 s). It builds
# the same module objects as the full tree; it refers to the unpacked source in $SRC.
log "modules_prepare for the KDIR"
mkdir -p "$TMP/build"
cp -p "$OBJ/.config" "$TMP/build/.config"
cp -p "$OBJ/Module.symvers" "$OBJ/System.map" "$TMP/build/"
kmake O="$TMP/build" modules_prepare
[ -x "$TMP/build/scripts/mod/modpost" ] || die "modules_prepare did not build modpost"
[ "$(cat "$TMP/build/include/config/kernel.release")" = "$KREL" ] || die "KDIR kernel.release mismatch"

T3=$(date +%s)
{
    echo "key=$KEY"
    echo "flavour=$FLAVOUR"
    echo "kernel_release=$KREL"
    echo "linux_source_version=$PKGVER"
    echo "gcc=$GCCVER"
    echo "ld=$LDVER"
    echo "source=$SRC"
    echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), -j$JOBS"
    echo "seconds_config=$((T1 - T0)) seconds_make=$((T2 - T1)) seconds_total=$((T3 - T0))"
    echo "children_cpu_user_sys=$CPU"
} > "$TMP/build-info.txt"

rm -rf "$OUT"   # cannot exist (cache_ok was false) unless a half-removed entry
mv -T "$TMP" "$OUT"
trap - EXIT
ln -sfn "$KEY" "$CACHE_ROOT/kernel/.latest-$FLAVOUR.tmp$$"
mv -T "$CACHE_ROOT/kernel/.latest-$FLAVOUR.tmp$$" "$CACHE_ROOT/kernel/latest-$FLAVOUR"

if [ "$CLEAN_OBJ" = 1 ]; then
    log "removing $OBJ"; rm -rf "$OBJ"
fi
log "done in $((T3 - T0)) s: $OUT ($KREL)"
echo "$OUT"
