# SPDX-License-Identifier: GPL-2.0
#
# VM tests over soft-RoCE (tests/vm/, see tests/vm/README). Included by the
# top-level Makefile, which defines the `module` target.
#
#   make vm-smoke       the harness end to end, no module: raw UD verbs rxe1 -> rxe0
#   make vm-check       the scenarios in VM_SCENARIOS against ./ipoib_ng.ko
#   make vm-demo        IPoIB over soft-RoCE in a VM, narrated
#   make vm-bench       IPoIB against raw UD verbs (figures; not in vm-check)
#   make vm-bench-cpu   the same under qemu -icount: CPU per packet in guest
#                       instructions, against BENCH_BASE's module (7312acf)
#   make vm-bench-trace an idle ping's round trip, step by step (ftrace)
#   make vm-selftest    the harness fails when it should (fixtures in tests/vm/selftest/)
#
# VM_KERNEL    bzImage to boot (default: the newest /boot/vmlinuz-6.1.*)
# VM_MODULES   its modules tree, when not /lib/modules/<its version> (a debug kernel)
# VM_SCENARIOS names in tests/vm/scenarios/ (default: ping datapath teardown mcast pkey bond cm
#              gidchurn exclusion privilege hostile)
# VM_TIMEOUT   seconds each scenario may take inside the VM
# VM_FLAGS     more tests/vm/run.sh options (--verbose, --append kmemleak=on, ...)
#
# Results: build/vm/<scenario>/ (console.log, <scenario>.log, dmesg.txt).

VM_KERNEL ?=
VM_MODULES ?=
VM_SCENARIOS ?= ping datapath teardown mcast pkey bond cm gidchurn exclusion privilege \
	hostile observe
VM_TIMEOUT ?= 300
VM_FLAGS ?=
# BENCH_BASE: a commit whose module the bench measures beside this one
# (variant "before", swapped in every round); empty: none. BENCH_ROUNDS,
# BENCH_DURATION: see tests/vm/scenarios/bench.sh.
BENCH_BASE ?=
BENCH_CPU_BASE ?= 7312acf

VM_RUN = $(CURDIR)/tests/vm/run.sh --out $(CURDIR)/build/vm \
	$(if $(VM_KERNEL),--kernel $(VM_KERNEL)) \
	$(if $(VM_MODULES),--modules $(VM_MODULES)) \
	--timeout $(VM_TIMEOUT) $(VM_FLAGS)

.PHONY: vm-smoke vm-check vm-demo vm-bench vm-bench-cpu vm-bench-trace vm-selftest

vm-smoke:
	$(VM_RUN) smoke

vm-check: module ipoibctl ynl-prepare
	$(VM_RUN) --module $(CURDIR)/ipoib_ng.ko $(VM_SCENARIOS)

vm-demo: module
	$(VM_RUN) --log --module $(CURDIR)/ipoib_ng.ko demo

# Prints the "bench:" summary (also in build/vm/bench/bench.txt).
vm-bench: module
	$(if $(BENCH_BASE),before=$$($(CURDIR)/scripts/module-at.sh $(BENCH_BASE) \
		$(CURDIR)/build/bench-base) && export BENCH_BEFORE=$$before && ) \
	$(VM_RUN) --timeout 3600 --module $(CURDIR)/ipoib_ng.ko bench && \
		cat $(CURDIR)/build/vm/bench/bench.txt

# Where an idle ping's round trip goes (BENCH_ONLY=trace): round trips by
# the interval between pings, and a function-traced timeline per step.
# Two vCPUs, as vm-bench; about 4 minutes.
vm-bench-trace: module
	BENCH_ONLY=trace $(VM_RUN) --timeout 1800 --module $(CURDIR)/ipoib_ng.ko bench && \
		cat $(CURDIR)/build/vm/bench/bench-trace.txt

# Under -icount the guest's clock counts instructions, so host load does
# not move the figures: shift 2, 4 ns each (a 250 MHz CPU: four times
# fewer instructions per guest second than shift 0, as many per packet).
# QEMU 7.2's -icount does not boot an SMP guest (the boot CPU waits for
# the second, which its round-robin never runs), so one vCPU. The CPU
# figures only (BENCH_ONLY=cpu), 3 rounds, about 7 minutes.
vm-bench-cpu: module
	before=$$($(CURDIR)/scripts/module-at.sh $(BENCH_CPU_BASE) \
		$(CURDIR)/build/bench-base) && \
	BENCH_BEFORE=$$before BENCH_ROUNDS=$${BENCH_ROUNDS:-3} \
	BENCH_ONLY=cpu BENCH_NS_PER_INSN=4 \
	$(CURDIR)/tests/vm/run.sh --out $(CURDIR)/build/vm-icount --icount 2 --smp 1 \
		--timeout 5400 --module $(CURDIR)/ipoib_ng.ko $(VM_FLAGS) bench && \
		cat $(CURDIR)/build/vm-icount/bench/bench.txt

# The harness itself: run.sh must fail on a failing scenario, a kernel
# warning, a timeout, a VM that does not boot (about 2 minutes).
vm-selftest:
	$(CURDIR)/tests/vm/selftest.sh \
		$(if $(VM_KERNEL),--kernel $(VM_KERNEL)) \
		$(if $(VM_MODULES),--modules $(VM_MODULES))
