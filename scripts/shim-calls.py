#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""shim-calls.py [OBJ_DIR]: how the shim's files call each other.

Reads the ipn_* symbols each driver/*.o defines and uses (nm), and
prints the number of files, the pairs of files that call each other
both ways, the largest set of files in one call cycle, and the largest
source file: the shim redesign's before/after figures. OBJ_DIR holds
the objects (default: driver/, after `make module`).
"""
import glob
import itertools
import os
import subprocess
import sys


def symbols(obj):
    defined, used = set(), set()
    out = subprocess.run(['nm', obj], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in 'TtDdBbRr' and p[2].startswith('ipn_'):
            defined.add(p[2])
        elif len(p) == 2 and p[0] == 'U' and p[1].startswith('ipn_'):
            used.add(p[1])
    return defined, used


def cycles(calls):
    """Strongly connected components (Tarjan), largest first."""
    index, low, stack, on, comps = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in calls[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            comps.append(sorted(comp))

    for v in sorted(calls):
        if v not in index:
            visit(v)
    return sorted(comps, key=len, reverse=True)


def main():
    objdir = sys.argv[1] if len(sys.argv) > 1 else 'driver'
    objs = sorted(glob.glob(os.path.join(objdir, '*.o')))
    if not objs:
        sys.exit(f'{objdir}: no objects (make module first)')
    defs, uses = {}, {}
    for o in objs:
        name = os.path.basename(o)[:-2]
        defs[name], uses[name] = symbols(o)
    owner = {s: f for f, d in defs.items() for s in d}
    calls = {f: {owner[s] for s in uses[f] if owner.get(s, f) != f}
             for f in defs}
    pairs = [(a, b) for a, b in itertools.combinations(sorted(defs), 2)
             if b in calls[a] and a in calls[b]]
    big = cycles(calls)[0]
    srcs = glob.glob('driver/*.c')
    lines = {s: sum(1 for _ in open(s)) for s in srcs}
    largest = max(lines, key=lines.get)
    print(f'files: {len(defs)}')
    print(f'pairs calling each other: {len(pairs)}')
    for a, b in pairs:
        print(f'  {a} <-> {b}')
    print(f'largest call cycle: {len(big)} files: {" ".join(big)}')
    print(f'largest file: {largest}, {lines[largest]} lines')


if __name__ == '__main__':
    main()
