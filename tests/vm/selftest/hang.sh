#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fixture for selftest.sh: a scenario that outlives its budget, ignoring
# SIGTERM, fails the run (timeout, or the VM watchdog when VM_GRACE=0).
trap '' TERM
sleep 1000
