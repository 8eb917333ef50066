#!/bin/bash
# Query the generic netlink family "ipoib_ng" with the kernel's own YNL
# client (tools/net/ynl/cli.py of Linux 6.12) and our spec,
# Documentation/netlink/specs/ipoib_ng.yaml. See Documentation/netlink.rst.
#
# Usage:
#   scripts/ynl.sh [cli.py options]   run cli.py --spec <our spec> <options>
#   scripts/ynl.sh --prepare          only extract the client (see below)
#   scripts/ynl.sh --validate         load the spec, validated against the
#                                     6.12 schema, without netlink (no
#                                     module needed); prints its operations
#   scripts/ynl.sh --gen-uapi         print the uAPI header that 6.12's
#                                     ynl-gen-c.py generates from the spec
#                                     (to compare with uapi/linux/ipoib_ng.h)
#
# The options of 6.12's cli.py (argparse; names of operations and
# attributes are the spec's: if-get, path-get, group-get, conn-get,
# path-flush; ifindex, gid, ...):
#   --do OP            a do request (if-get, path-flush)
#   --dump OP          a dump request (if-get, path-get, group-get, conn-get)
#   --multi OP JSON    several do requests in one message (repeatable)
#   --json JSON        the request's attributes, e.g. '{"ifindex": 5}'
#   --subscribe GROUP  join a multicast group ("events"); after the request,
#                      or after --sleep, print the notifications received
#   --sleep SECONDS    sleep before the request (to collect notifications)
#   --output-json      print JSON (one line; binary as hex, flags as lists)
#                      instead of the default Python pprint of dicts/lists
#   --process-unknown / --no-process-unknown
#                      decode attributes the spec does not know as
#                      UnknownAttr(N) instead of failing (newer driver)
#   --list-ops, --list-msgs   list the spec's operations / messages
#   --schema FILE, --no-schema   the JSON schema to validate the spec with
#                      (default here: the 6.12 schema of its protocol)
#   --replace, --excl, --create, --append   NLM_F_* flags of a do
#   --dbg-small-recv [SIZE]  debug: small recv() buffer, print what comes
# Replies: a do prints one dict (None if the reply is empty); a dump prints
# a list of dicts. Enums print as names ("datagram"), flags as sets of
# names ({'full'}; JSON: lists), GIDs as IPv6 strings, P_Key/QPN/Q_Key/
# MLID as hex strings ("0xffff"), a MAC as aa:bb:..
# Errors: a netlink error prints "Netlink error: <strerror>" and exits 1;
# without the module loaded: "ynl: Family 'ipoib_ng' not supported by the
# kernel: the generic netlink family is not registered, is the ipoib_ng
# module loaded?" on stderr, exit 2.
#
# Examples:
#   scripts/ynl.sh --dump if-get --output-json
#   scripts/ynl.sh --do if-get --json '{"ifindex": 5}'
#   scripts/ynl.sh --dump path-get --json '{"ifindex": 5}' --output-json
#   scripts/ynl.sh --do path-flush --json '{"ifindex": 5}'   (CAP_NET_ADMIN)
#   scripts/ynl.sh --subscribe events --sleep 10 --output-json
#
# The client comes from /usr/src/linux-source-6.12.tar.xz (Debian package
# linux-source-6.12; it needs python3-yaml and python3-jsonschema, both in
# scripts/setup.sh): tools/net/ynl, the schemas
# Documentation/netlink/*.yaml, the kernel's specs and MAINTAINERS
# (ynl-gen-c.py looks for it) are extracted once into $YNL_DIR (default:
# build/ynl in the repo) and reused while the tarball is the same. The
# kernel's driver selftests (tools/testing/selftests/drivers/net, run by
# the kselftest scenario, which finds the client and the specs at their
# places in this tree) come with them. From a read-only checkout, set
# YNL_DIR to a writable directory, or run --prepare beforehand where the
# checkout is writable (the extracted tree is then only read).
# Environment: YNL_DIR (the cache), YNL_TARBALL (the source tarball),
# YNL_PYTHON (the interpreter, default /usr/bin/python3: the one of the
# Debian packages), YNL_SPEC (another spec, default ours).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
spec=${YNL_SPEC:-$repo/Documentation/netlink/specs/ipoib_ng.yaml}
tarball=${YNL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
cache=${YNL_DIR:-$repo/build/ynl}
python=${YNL_PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=python3
tree=$cache/linux
stamp=$cache/.complete

die() { echo "ynl: $*" >&2; exit 1; }

# What identifies the tarball the cache came from, and what was taken
# from it (layout 2: the driver selftests too).
tarball_id() {
	local id
	id=$(stat -c '%n %s %Y' "$tarball" 2>/dev/null) || return 1
	echo "layout 2 $id"
}

cache_ok() {
	[ -f "$stamp" ] && [ -f "$tree/tools/net/ynl/cli.py" ] &&
		[ "$(cat "$stamp")" = "$(tarball_id 2>/dev/null || cat "$stamp")" ]
}

prepare() {
	# Present and complete: nothing to do, nothing written (a cache
	# prepared elsewhere is used even without the tarball).
	cache_ok && return 0
	[ -f "$tarball" ] ||
		die "$tarball missing: apt-get install linux-source-6.12 (make deps)"
	if ! mkdir -p "$cache" 2>/dev/null || [ ! -w "$cache" ]; then
		die "cannot write the cache $cache: set YNL_DIR to a writable directory"
	fi
	(
		flock 9
		cache_ok && exit 0
		top=$(basename "$tarball" .tar.xz)
		tmp=$(mktemp -d "$cache/.extract.XXXXXX")
		trap 'rm -rf "$tmp"' EXIT
		echo "ynl: extracting tools/net/ynl from $tarball into $cache" >&2
		tar -xJf "$tarball" -C "$tmp" --strip-components=1 \
			"$top/tools/net/ynl" "$top/MAINTAINERS" \
			"$top/Documentation/netlink/genetlink.yaml" \
			"$top/Documentation/netlink/genetlink-c.yaml" \
			"$top/Documentation/netlink/genetlink-legacy.yaml" \
			"$top/Documentation/netlink/netlink-raw.yaml" \
			"$top/Documentation/netlink/specs" \
			"$top/tools/testing/selftests/net/lib/py" \
			"$top/tools/testing/selftests/drivers/net"
		[ -f "$tmp/tools/net/ynl/cli.py" ] || die "no tools/net/ynl/cli.py in $tarball"
		chmod 755 "$tmp" # mktemp's 0700: let other users run it too
		rm -rf "$tree" "$stamp"
		mv "$tmp" "$tree"
		trap - EXIT
		tarball_id >"$stamp"
	) 9>"$cache/.lock"
}

# The schema cli.py validates the spec with: by default it would look
# next to the spec's folder (Documentation/netlink/<protocol>.yaml), which
# this repository does not have; use the 6.12 one.
schema() {
	local proto
	proto=$(sed -n 's/^protocol: *\([a-z-]*\).*/\1/p' "$spec")
	echo "$tree/Documentation/netlink/${proto:-genetlink}.yaml"
}

[ -f "$spec" ] || die "no spec $spec"

case "${1:-}" in
--prepare)
	prepare
	exit 0
	;;
--validate)
	prepare
	exec "$python" - "$tree/tools/net/ynl" "$spec" "$(schema)" <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
from lib import SpecFamily
# SpecFamily validates against the JSON schema and resolves every
# reference (attribute sets, enums, nests); YnlFamily would also open a
# netlink socket and look the family up.
f = SpecFamily(sys.argv[2], sys.argv[3])
print(f"ynl: spec {sys.argv[2]} valid ({f.proto}, family {f.name})")
for name, op in f.msgs.items():
    print(f"  {op.value:2} {name:12} [{', '.join(sorted(op.modes))}]")
EOF
	;;
--gen-uapi)
	prepare
	# ynl-gen-c.py takes the schema from ../<protocol>.yaml of the spec,
	# needs a MAINTAINERS above the spec (the kernel root) and refuses a
	# spec whose license is not the kernel's: generate from a copy.
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp/Documentation/netlink/specs"
	: >"$tmp/MAINTAINERS"
	cp "$tree"/Documentation/netlink/*.yaml "$tmp/Documentation/netlink/"
	sed '1s/BSD-2-Clause/BSD-3-Clause/' "$spec" \
		>"$tmp/Documentation/netlink/specs/$(basename "$spec")"
	"$python" "$tree/tools/net/ynl/ynl-gen-c.py" --mode uapi --header \
		--spec "$tmp/Documentation/netlink/specs/$(basename "$spec")" \
		-o "$tmp/out.h" >&2
	cat "$tmp/out.h"
	exit 0
	;;
esac

prepare
schema_args=(--schema "$(schema)")
for a in "$@"; do
	case $a in --schema | --schema=* | --no-schema) schema_args=() ;; esac
done

# Run cli.py as its main, but turn "family not in the kernel" (a bare
# Exception with a traceback in 6.12) into one clear line.
exec "$python" - "$tree/tools/net/ynl" --spec "$spec" "${schema_args[@]}" "$@" <<'EOF'
import runpy, sys
ynl = sys.argv.pop(1)
sys.path.insert(0, ynl)
sys.argv[0] = ynl + "/cli.py"
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
except Exception as e:
    if "not supported by the kernel" in str(e):
        print(f"ynl: {e}: the generic netlink family is not registered, "
              "is the ipoib_ng module loaded?", file=sys.stderr)
        sys.exit(2)
    raise
EOF
