#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""check-boundary.py [DRIVER_DIR]: the shim keeps design.rst's promises.

"The shim never re-decides": it performs the core's results as they
are, and reads no field of a core machine. What a script can see of
that, in driver/*.c (the core's own sources and the tests are exempt):

  - a result edited: an assignment to "actions" of an ipc_result
    ("r.actions &= ...", "r->actions |= ...", "res.actions = ...");
  - a machine's field read: "->st." or ".st." followed by a field name
    (the machines are embedded as "st"; the shim passes "&x->st" to the
    core and asks through accessors and struct ipc_view).

Prints each finding with its file and line and exits 1, or prints a
summary.
"""
import os
import re
import sys

EDIT = re.compile(r'\b\w+(?:\.|->)actions\s*(?:[&|^+-]?=)(?!=)')
FIELD = re.compile(r'(?:->|\.)st\.[a-z_]+')


def main():
    driver = sys.argv[1] if len(sys.argv) > 1 else 'driver'
    findings, files = [], 0
    for fn in sorted(os.listdir(driver)):
        if not fn.endswith('.c'):
            continue
        files += 1
        path = os.path.join(driver, fn)
        with open(path) as f:
            for n, line in enumerate(f, 1):
                code = line.split('/*')[0].split('//')[0]
                if code.lstrip().startswith('*'):
                    continue
                if EDIT.search(code):
                    findings.append('%s:%d: a core result edited: %s'
                                    % (path, n, line.strip()))
                if FIELD.search(code):
                    findings.append('%s:%d: a core machine\'s field read: %s'
                                    % (path, n, line.strip()))
    for f in findings:
        print(f)
    if findings:
        return 1
    print('boundary: %d shim files edit no core result and read no machine field'
          % files)
    return 0


if __name__ == '__main__':
    sys.exit(main())
