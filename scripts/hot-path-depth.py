#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""hot-path-depth.py [KO]: how deep the datapath's calls go.

Reads the module's direct calls (objdump -dr: each call's relocation
names its target) and prints, for each datapath entry point (transmit,
the NAPI polls, the completion handlers), the longest chain of calls
into functions of the module itself (the shim's ipn_* and the core's
ipc_*), and the number of distinct module functions it can reach. Calls
out of the module (the kernel's) end a chain. A cycle is cut where it
closes. The figures compare before and after a change to the shim: the
redesign must not make the hot paths deeper. KO defaults to ipoib_ng.ko
(after `make module`).
"""
import re
import subprocess
import sys

ENTRIES = ['ipn_start_xmit', 'ipn_rx_poll', 'ipn_tx_poll', 'ipn_cm_rx_poll',
           'ipn_rx_comp', 'ipn_tx_comp']
FUNC = re.compile(r'^[0-9a-f]+ <([^>]+)>:$')
TARGET = re.compile(r'\t(?:call|jmp)\s+[0-9a-f]+ <([\w.]+)(\+0x[0-9a-f]+)?>')
CALL = re.compile(r'\bR_X86_64_(?:PLT32|PC32)\s+([A-Za-z_][\w.]*?)(?:[-+]0x[0-9a-f]+)?$')


def call_graph(ko):
    out = subprocess.run(['objdump', '-dr', '--no-show-raw-insn', ko],
                         capture_output=True, text=True, check=True).stdout
    graph, cur, pending = {}, None, None

    def add(tgt):
        if tgt and tgt.startswith(('ipn_', 'ipc_', '__ipn_')) and tgt != cur:
            graph[cur].add(tgt)

    for line in out.splitlines():
        m = FUNC.match(line)
        if m:
            cur, pending = m.group(1), None
            graph.setdefault(cur, set())
            continue
        if cur is None:
            continue
        m = CALL.search(line)
        if m and pending is not None:
            add(m.group(1))  # the relocation names the target
            pending = None
            continue
        if pending:
            add(pending)  # resolved within the object
        pending = None
        c = TARGET.search(line)
        if c:
            pending = c.group(1) if not c.group(2) else ''
    return graph


def depth(graph, fn, stack, memo):
    if fn in memo:
        return memo[fn]
    stack.add(fn)
    best = 0
    for t in graph.get(fn, ()):
        if t in stack or t not in graph:
            continue
        best = max(best, 1 + depth(graph, t, stack, memo))
    stack.discard(fn)
    memo[fn] = best
    return best


def reach(graph, fn):
    seen, todo = set(), [fn]
    while todo:
        f = todo.pop()
        for t in graph.get(f, ()):
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return len(seen)


def main():
    ko = sys.argv[1] if len(sys.argv) > 1 else 'ipoib_ng.ko'
    graph = call_graph(ko)
    for e in ENTRIES:
        if e not in graph:
            print('%-16s not in %s' % (e, ko))
            continue
        print('%-16s depth %2d, reaches %3d module functions'
              % (e, depth(graph, e, set(), {}), reach(graph, e)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
