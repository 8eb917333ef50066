#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fixture for selftest.sh: a kernel WARNING on the console fails the run even
# though the scenario exits 0.
echo "<4>WARNING: CPU: 0 PID: 1 at selftest.c:1 selftest+0x0/0x10" > /dev/kmsg
