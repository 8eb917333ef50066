#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fixture for selftest.sh: the lib.sh helpers work, and userspace output that
# looks like a kernel warning does not fail the run.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
check true
wait_for 5 "a file" test -d /proc/self
ns_create t1
check ns_exec t1 ip -br link
echo "WARNING: printed by userspace; Call Trace: too"
check_fails false
check diff <(echo same) <(echo same)
sleep 30 &
log "pass"
