#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fixture for selftest.sh: a failing check fails the run with its message.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
check false
log "not reached"
