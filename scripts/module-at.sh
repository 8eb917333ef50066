#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# module-at.sh REV DIR: build ipoib_ng.ko as it was at commit REV, in a
# git worktree at DIR (made, or moved to REV), for the kernel the top
# Makefile builds for (KDIR as there). Prints the module's path. The
# benchmark measures a datapath change against the module it replaces
# with it (make vm-bench BENCH_BASE=REV).
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 REV DIR" >&2; exit 2; }
rev=$(git rev-parse --verify "$1^{commit}")
dir=$2
if [[ -e $dir/.git ]]; then
	git -C "$dir" checkout -q --detach "$rev"
else
	rm -rf "$dir"
	git worktree prune
	git worktree add -q --detach "$dir" "$rev"
fi
make -C "$dir" module > "$dir.log" 2>&1 || { tail -n 30 "$dir.log" >&2; exit 1; }
echo "$(cd "$dir" && pwd)/ipoib_ng.ko"
