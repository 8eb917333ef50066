#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fixture for selftest.sh: a scenario exiting 3 fails the run; the job it
# leaves behind must not keep guest.sh waiting.
sleep 1000 &
exit 3
