# SPDX-License-Identifier: GPL-2.0
#
# ipoib-ng top-level Makefile. `make help` lists the targets.

KVER_DEFAULT := $(shell uname -r)
# The host may run a kernel without headers (CI does): fall back to the
# newest Debian 6.1 headers installed.
KDIR ?= $(firstword $(wildcard /lib/modules/$(KVER_DEFAULT)/build) \
		$(lastword $(sort $(wildcard /lib/modules/6.1.*-amd64/build))))

BUILD := $(CURDIR)/build
J ?= 2

.PHONY: all module clean help setup check quick demo install

all: module

help:
	@echo "make setup          install the Debian packages the project needs"
	@echo "make module         build ipoib_ng.ko against KDIR=$(KDIR)"
	@echo "make module-check   W=1, objtool, sparse C=2, checkpatch, clang-format"
	@echo "make core-test      userspace GoogleTest suite of the C++ core"
	@echo "make vm-check       VM scenarios over soft-RoCE (VM_SCENARIOS=...)"
	@echo "make test-kernel    build or reuse the debug test kernel (KUnit, KASAN, lockdep, kmemleak)"
	@echo "make kunit          the KUnit suites in a VM on the test kernel"
	@echo "make vm-check-debug the VM scenarios on the test kernel, in one VM"
	@echo "make check-debug    kunit + vm-check-debug in one VM (what make check runs)"
	@echo "make check-debug-all kunit + every scenario on the debug kernel (~40 min)"
	@echo "make demo           IPoIB over soft-RoCE in a VM, narrated"
	@echo "make quick          core-test + module-check (fast iteration)"
	@echo "make check          every test (what CI runs)"
	@echo "make install / dkms-install"

setup:
	@$(CURDIR)/scripts/setup.sh

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean || true
	rm -rf $(BUILD)

install: module
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install

# A stage of `make check`, and how long it took (the 45-minute budget).
stage = @t0=$$(date +%s); $(MAKE) $(1) || exit 1; \
	echo "check: $(1) passed in $$(($$(date +%s) - t0)) s"

# Every test. Order: cheapest first, so a broken core fails in minutes.
check: setup
	$(call stage,core-check)
	$(call stage,core-bench)
	$(call stage,scale-model)
	$(call stage,module-check)
	$(call stage,dkms-check)
	$(call stage,module)
	$(call stage,check-vm)
	$(call stage,test-kernel)
	$(call stage,check-debug)
	@echo "check: all passed"

# On Debian's kernel, what users run: the first milestone (ping), the
# datapath, the scenarios whose timing matters at full speed (multicast
# delivery, bonding failover, gidchurn's GID changes, hostile's frames),
# pkey, exclusion, which needs the ib_ipoib that only Debian's kernel has,
# and privilege, which needs its user namespaces. The debug kernel
# (check-debug, mk/kernel.mk) runs the KUnit suites and datapath, teardown
# and cm; check-debug-all runs every scenario there. make vm-check runs
# them all on Debian's kernel.
CHECK_VM_SCENARIOS ?= ping datapath mcast bond pkey exclusion gidchurn privilege \
	hostile
.PHONY: check-vm
check-vm: module
	$(MAKE) vm-check VM_SCENARIOS="$(CHECK_VM_SCENARIOS)"

quick: setup
	$(MAKE) core-test
	$(MAKE) module-w1

demo: setup
	$(MAKE) module
	$(MAKE) vm-demo

include $(wildcard $(CURDIR)/mk/*.mk)
