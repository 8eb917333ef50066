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

.PHONY: all module clean help deps deps-present setup check quick demo install

all: module

help:
	@echo "make deps           install the Debian packages the project needs (root)"
	@echo "make module         build ipoib_ng.ko against KDIR=$(KDIR)"
	@echo "make module-check   W=1, objtool, sparse C=2, checkpatch, clang-format"
	@echo "make core-test      userspace GoogleTest suite of the C++ core"
	@echo "make vm-check       VM scenarios over soft-RoCE (VM_SCENARIOS=...)"
	@echo "make test-kernel    build or reuse the debug test kernel (KUnit, KASAN, lockdep, kmemleak)"
	@echo "make kunit          the KUnit suites in a VM on the test kernel"
	@echo "make vm-check-debug the VM scenarios on the test kernel, in one VM"
	@echo "make check-debug    kunit + vm-check-debug in one VM (what make check runs)"
	@echo "make check-debug-all kunit + every scenario on the debug kernel (~45 min)"
	@echo "make soak           churn and the InfiniBand soak on the debug kernel, large counts"
	@echo "make soak-ib        the InfiniBand soak alone (softib, OpenSM; SOAK_TIMEOUT)"
	@echo "make demo           IPoIB over soft-RoCE in a VM, narrated"
	@echo "make quick          core-test + module-check (fast iteration)"
	@echo "make check          the tests CI runs (45-minute budget)"
	@echo "make check-all      make check, then the scenarios and kernels it leaves out (hours)"
	@echo "make deb            build/deb/ipoib-ng-dkms_<version>_all.deb (dh-dkms)"
	@echo "make deb-check      install the .deb, VMs on 6.12 and 6.12-rt load it, purge it"
	@echo "make vm-check-612   VM_SCENARIOS on Debian's 6.12 (vm-check-612rt: PREEMPT_RT)"
	@echo "make softib         tests/softib/softib.ko (test-only) for 6.1 and 6.12, W=1"
	@echo "make vm-softib      the softib-* scenarios on 6.1 and 6.12"
	@echo "make vm-softib-ipoib ipoib_ng over softib and OpenSM (ib-*) on 6.1 and 6.12"
	@echo "make ipoibctl       build/userspace/ipoibctl, the command-line tool (libmnl)"
	@echo "make userspace-check  ipoibctl's own tests, the YNL spec validated"
	@echo "make install / dkms-install"

# The one part that needs root: the Debian packages. Every other target
# only checks that they are there (deps-present) and says what is missing.
deps setup:
	@$(CURDIR)/scripts/setup.sh

deps-present:
	@$(CURDIR)/scripts/setup.sh --check

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean || true
	rm -rf $(BUILD)

install: module ipoibctl
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install
	install -D -m 0755 $(IPOIBCTL) $(DESTDIR)/usr/sbin/ipoibctl
	install -D -m 0644 $(CURDIR)/Documentation/ipoibctl.8 \
		$(DESTDIR)/usr/share/man/man8/ipoibctl.8

# ipoibctl, the command line of the "ipoib_ng" generic netlink family
# (userspace/, uapi/linux/ipoib_ng.h, Documentation/ipoibctl.8), built in
# build/ so that the tree DKMS copies stays clean. Needs libmnl-dev.
IPOIBCTL := $(BUILD)/userspace/ipoibctl
IPOIBCTL_SRC := $(wildcard $(CURDIR)/userspace/*.c)
IPOIBCTL_DEPS := $(IPOIBCTL_SRC) $(wildcard $(CURDIR)/userspace/*.h) \
	$(CURDIR)/uapi/linux/ipoib_ng.h

.PHONY: ipoibctl
ipoibctl: $(IPOIBCTL)

$(IPOIBCTL): $(IPOIBCTL_DEPS)
	@echo '#include <libmnl/libmnl.h>' | $(CC) -E -x c - >/dev/null 2>&1 || \
		{ echo "ipoibctl: <libmnl/libmnl.h> not found: install libmnl-dev (make setup)" >&2; \
		exit 1; }
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -g -Wall -Wextra -Werror -I $(CURDIR)/uapi \
		-DIPOIBCTL_VERSION='"$(MODULE_VERSION)"' $(CPPFLAGS) $(CFLAGS) \
		-o $@ $(IPOIBCTL_SRC) $(LDFLAGS) -lmnl

# The tool without the module (exit codes, messages, its printers, its
# netlink layer against the kernel's controller), the spec against the
# 6.12 YNL schema, and the YNL client extracted for the VM scenarios
# (observe), which see the host's root read-only.
.PHONY: userspace-check ynl-prepare
userspace-check: ipoibctl ynl-prepare
	$(CURDIR)/tests/userspace/ipoibctl-cli.sh $(IPOIBCTL)
	$(CURDIR)/scripts/ynl.sh --validate

ynl-prepare:
	$(CURDIR)/scripts/ynl.sh --prepare

# A stage of `make check`, and how long it took (the 45-minute budget).
stage = @t0=$$(date +%s); $(MAKE) $(1) || exit 1; \
	echo "check: $(1) passed in $$(($$(date +%s) - t0)) s"

# Every test. Order: cheapest first, so a broken core fails in minutes.
check: deps-present
	$(call stage,core-check)
	$(call stage,core-bench)
	$(call stage,scale-model)
	$(call stage,module-check)
	$(call stage,userspace-check)
	$(call stage,module)
	$(call stage,check-vm)
	$(call stage,deb-check)
	$(call stage,test-kernel)
	$(call stage,check-debug)
	@echo "check: all passed"

# Which kernel runs what (README.md has the table), within the 45-minute
# budget. Debian's 6.1, the module built from this tree: ping, bond, the
# scenarios whose timing matters at full speed (gidchurn's GID changes,
# hostile's frames), exclusion, which needs the ib_ipoib that only
# Debian's kernels have, privilege (50 s here, 3 minutes on the debug
# kernel, where check-debug-all runs it with KASAN), and teardown (its
# unload and device removal under traffic run in churn on the debug
# kernel too; its namespace cases only here), and ib-interop (ipoib_ng
# and the in-tree ib_ipoib on softib's InfiniBand fabric with OpenSM:
# the wire format against another implementation), ib-hostile (forged
# connected-mode REQs from a third host over softib: review 2026-12 H3;
# the other ib-* scenarios and 6.12 are `make vm-softib-ipoib`), networkd
# (systemd-networkd makes P_Key children and leases an address by DHCP),
# announce (peers learn a new address from gratuitous ARP and NA), cni
# (pods get children as ipoib-cni gives them; dead pods' go) and nm
# (NetworkManager and netplan configure ports and children). In one VM
# (run.sh --one-vm, as check-debug: one boot instead of 15, about 3
# minutes of make check's 45; each scenario leaves the VM as it found it).
# deb-check (mk/deb.mk): the .deb installed with apt, DKMS builds for 6.1,
# 6.12 and 6.12-rt; 6.12 runs datapath, mcast, pkey, cm, observe and
# kselftest (the kernel's own driver selftests) with the installed module,
# 6.12-rt datapath. The debug kernel (check-debug,
# mk/kernel.mk) runs the KUnit suites and churn; check-debug-all runs
# every scenario there, make vm-check every scenario on Debian's 6.1.
CHECK_VM_SCENARIOS ?= ping bond exclusion gidchurn privilege hostile teardown \
	ib-interop ib-hostile networkd announce cni nm
.PHONY: check-vm
check-vm: module
	$(MAKE) softib SOFTIB_KRELS="$(firstword $(SOFTIB_KRELS))"
	$(MAKE) vm-check VM_SCENARIOS="$(CHECK_VM_SCENARIOS)" \
		VM_FLAGS="--one-vm check-vm"

# Every test there is, past make check's budget (some hours): make check,
# then DKMS from the tree (dkms-check; deb-check's package builds the same
# through dh-dkms in make check), every scenario on Debian's 6.1
# (vm-check), ipoib_ng over softib and OpenSM on 6.1 and 6.12
# (vm-softib-ipoib), and every scenario on the debug kernel after the
# KUnit suites (check-debug-all). The soaks are make soak.
.PHONY: check-all
check-all: check
	$(call stage,dkms-check)
	$(call stage,vm-check)
	$(call stage,vm-softib-ipoib)
	$(call stage,check-debug-all)
	@echo "check-all: all passed"

quick: deps-present
	$(MAKE) core-test
	$(MAKE) module-w1

demo: deps-present
	$(MAKE) module
	$(MAKE) vm-demo

include $(wildcard $(CURDIR)/mk/*.mk)
