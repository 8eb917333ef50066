#!/bin/bash
echo hello from $(uname -r); cat /proc/cmdline; ls /sys/bus/pci/devices | wc -l; mount | head -30; exit ${EXITCODE:-0}
