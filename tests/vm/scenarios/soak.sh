#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# soak: churn.sh with the security issue's counts (make soak, on the debug
# kernel): 50 mode switches, 50 ring resizes, 50 MTU changes, 200 children,
# 100 module reloads and 50 rdma link delete/add, all under iperf3. About
# two hours under TCG; not part of make check.
export CHURN=${CHURN:-"mode=50 ring=50 mtu=50 child=200 reload=100 rdma=50"}
exec bash "$(dirname "$0")/churn.sh"
