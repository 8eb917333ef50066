# SPDX-License-Identifier: GPL-2.0
#
# softib (tests/softib/, Documentation/softib-design.rst): the test-only
# simulated InfiniBand fabric. Never in ipoib_ng.ko, the top Kbuild, the
# .deb or DKMS; built alone, like `make -C $KDIR M=$PWD/tests/softib`.
#
#   make softib       W=1 builds against Debian's 6.1 and 6.12 headers, each
#                     in its own copy: build/softib/<release>/softib.ko; any
#                     compiler or modpost warning fails
#   make vm-softib    softib, then SOFTIB_SCENARIOS in a VM on each of those
#                     kernels (/boot/vmlinuz-<release>), results in
#                     build/vm-softib/<release>/<scenario>/
#   make vm-softib-ipoib  ipoib_ng over softib and OpenSM, the ib-*.sh
#                     scenarios (SOFTIB_IPOIB_SCENARIOS) on each of those
#                     kernels, results in build/vm/<release>/<scenario>/
#
# SOFTIB_KRELS      the releases (default: the newest 6.1 and 6.12 -amd64
#                   with headers installed)
# SOFTIB_SCENARIOS  default: softib-devices softib-sma softib-wire softib-opensm softib-ud softib-rc
# SOFTIB_TIMEOUT    seconds each scenario may take in the VM (default 600)

SOFTIB_KRELS ?= $(strip \
	$(lastword $(sort $(filter-out %-rt-amd64,$(patsubst /lib/modules/%/build,%, \
		$(wildcard /lib/modules/6.1.*-amd64/build))))) \
	$(lastword $(sort $(filter-out %-rt-amd64,$(patsubst /lib/modules/%/build,%, \
		$(wildcard /lib/modules/6.12.*-amd64/build))))))
SOFTIB_SCENARIOS ?= softib-devices softib-sma softib-wire softib-opensm softib-ud softib-rc
SOFTIB_TIMEOUT ?= 600
SOFTIB_SRC := $(wildcard $(CURDIR)/tests/softib/*.[ch]) $(CURDIR)/tests/softib/Kbuild

.PHONY: softib vm-softib

# softib_build RELEASE KDIR: softib.ko in build/softib/RELEASE/, W=1,
# any compiler or modpost warning fails.
define softib_build
	d=$(BUILD)/softib/$(1); rm -rf $$d; mkdir -p $$d; \
	cp $(SOFTIB_SRC) $$d/; \
	echo "softib: $(1)"; \
	$(MAKE) -C $(2) M=$$d W=1 -j$(J) modules \
		> $$d/build.log 2>&1 || \
		{ cat $$d/build.log; echo "softib: $(1) failed"; exit 1; }; \
	! grep -E "warning:|error:|objtool" $$d/build.log || \
		{ echo "softib: $(1): warnings above"; exit 1; }; \
	echo "softib: $(1) clean: $$d/softib.ko"
endef

softib:
	@test -n "$(SOFTIB_KRELS)" || \
		{ echo "softib: no 6.1 or 6.12 headers installed (make setup)"; exit 1; }
	@set -e; for r in $(SOFTIB_KRELS); do \
		$(call softib_build,$$r,/lib/modules/$$r/build); \
	done

# Every release runs even when one fails; the target fails if any did.
vm-softib: softib
	@rc=0; for r in $(SOFTIB_KRELS); do \
		test -f /boot/vmlinuz-$$r || { echo "vm-softib: no /boot/vmlinuz-$$r"; rc=1; continue; }; \
		$(CURDIR)/tests/vm/run.sh --out $(BUILD)/vm-softib/$$r \
			--kernel /boot/vmlinuz-$$r --timeout $(SOFTIB_TIMEOUT) $(VM_FLAGS) \
			--module $(BUILD)/softib/$$r/softib.ko $(SOFTIB_SCENARIOS) || rc=1; \
	done; exit $$rc

# ipoib_ng over softib with OpenSM (tests/vm/scenarios/ib-*.sh) on each
# of SOFTIB_KRELS: the module of this tree built for that kernel
# (vm-check-krel, build/kmod/<release>/), softib.ko found where `make
# softib` built it; results in build/vm/<release>/<scenario>/.
SOFTIB_IPOIB_SCENARIOS ?= ib-ping ib-pkey ib-rereg ib-interop ib-hostile ib-sacount ib-allmulti ib-faults ib-unload
.PHONY: vm-softib-ipoib
vm-softib-ipoib: softib
	@rc=0; for r in $(SOFTIB_KRELS); do \
		$(MAKE) vm-check-krel VM_KREL=$$r VM_TIMEOUT=$(SOFTIB_TIMEOUT) \
			VM_SCENARIOS="$(SOFTIB_IPOIB_SCENARIOS)" || rc=1; \
	done; exit $$rc

# Step 9 (softib-design.rst): the fabric, OpenSM and ipoib_ng's IB
# backend under the debug test kernel's KASAN, lockdep and kmemleak
# (mk/kernel.mk; its config has rdmavt, umad and ib_ipoib for this), in
# one VM with one final kmemleak scan, results in build/vm-softib-debug/.
#   make softib-debug      softib.ko for the test kernel
#   make vm-softib-debug   SOFTIB_DEBUG_SCENARIOS there
SOFTIB_DEBUG_SCENARIOS ?= softib-opensm softib-ud softib-rc ib-ping ib-pkey ib-interop ib-hostile ib-faults ib-unload
.PHONY: softib-debug vm-softib-debug
softib-debug: test-kernel
	@set -e; $(call softib_build,$(TEST_KERNEL_RELEASE),$(TEST_KERNEL_KDIR))

vm-softib-debug: softib-debug module-debug ipoibctl
	$(VM_RUN_DEBUG) --one-vm debug --out $(BUILD)/vm-softib-debug \
		$(SOFTIB_DEBUG_SCENARIOS)
