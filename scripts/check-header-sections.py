#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""check-header-sections.py [HEADER [DRIVER_DIR]]: ipoib_ng.h's sections
match the shim's files.

Every function the shim's header declares (a prototype, or an extern
object) must sit in the section named after the file that defines it: a
line "/* name.c */" opens the section for driver/name.c, and the next
such line (or "#ifdef IPN_KUNIT", whose declarations are the test hooks)
closes it. A declaration outside any section, one in the section of a
file that does not define it, and a section for a file that does not
exist are errors. Prints each error and exits 1, or prints a summary.
"""
import os
import re
import sys

SECTION = re.compile(r'^/\* ([a-z_]+\.c) \*/$')
# The name declared by a prototype or an extern declaration, at file scope.
PROTO = re.compile(r'^(?:const\s+)?(?:struct\s+|enum\s+)?[a-z_0-9]+[\s*]+'
                   r'\**(ipn_[a-z_0-9]+)\(')
EXTERN = re.compile(r'^extern\s+[^(]*?\b(ipn_[a-z_0-9]+)\s*(;|\[)')


def declarations(header):
    """(line number, name, section or None) of each file-scope declaration."""
    section, depth, out, kunit = None, 0, [], False
    with open(header) as f:
        lines = f.read().split('\n')
    for i, line in enumerate(lines, 1):
        m = SECTION.match(line)
        if m and depth == 0:
            section = m.group(1)
            continue
        if line.startswith('#ifdef IPN_KUNIT'):
            kunit = True
        elif kunit and line.startswith('#endif'):
            kunit = False
        if depth == 0 and not kunit and not line.startswith(('static', '#', ' ', '\t', '/', '*')):
            m = PROTO.match(line) or EXTERN.match(line)
            if m:
                out.append((i, m.group(1), section))
        depth += line.count('{') - line.count('}')
    return out


def defined_in(driver_dir, name):
    """The driver/*.c files that define name (not static)."""
    found = []
    pat = re.compile(r'^(?!static\b|extern\b)[a-zA-Z_][^;=\n]*?\b%s\s*(?:__[a-z_]+\s*)*(\(|=|\[|;|$)'
                     % re.escape(name), re.M)
    for fn in sorted(os.listdir(driver_dir)):
        if not fn.endswith('.c'):
            continue
        with open(os.path.join(driver_dir, fn)) as f:
            if pat.search(f.read()):
                found.append(fn)
    return found


def main():
    header = sys.argv[1] if len(sys.argv) > 1 else 'driver/ipoib_ng.h'
    driver_dir = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(header)
    errors = []
    sections = set()
    decls = declarations(header)
    for line, name, section in decls:
        where = defined_in(driver_dir, name)
        if section:
            sections.add(section)
        if not section:
            errors.append('%s:%d: %s is declared outside any section (defined in %s)'
                          % (header, line, name, ', '.join(where) or 'no file'))
        elif section not in where:
            errors.append('%s:%d: %s is in the %s section but defined in %s'
                          % (header, line, name, section, ', '.join(where) or 'no file'))
    for s in sorted(sections):
        if not os.path.exists(os.path.join(driver_dir, s)):
            errors.append('%s: a section for %s, which does not exist' % (header, s))
    for e in errors:
        print(e)
    if errors:
        return 1
    print('header-sections: %d declarations in %d sections, each in its file\'s'
          % (len(decls), len(sections)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
