#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# soak-ib: ib-soak.sh with make soak's counts (the debug kernel, softib
# and OpenSM): 20 OpenSM restarts, 20 P_Key changes and 50 flaps of a
# connected-mode peer, all under two TCP streams. Not part of make check.
export IB_SOAK=${IB_SOAK:-"osm=20 pkey=20 flap=50"}
exec bash "$(dirname "$0")/ib-soak.sh"
