# SPDX-License-Identifier: GPL-2.0
#
# The Debian package and the kernels other than the default 6.1.
#
#   make deb            build/deb/ipoib-ng-dkms_<version>_all.deb, built by
#                       dpkg-buildpackage from debian/ (dh-dkms) in a clean copy
#   make deb-check      install it with apt, DKMS builds for every kernel with
#                       headers, the VMs of DEB_VM load the installed module,
#                       then purge it: nothing may be left (tests/deb/check.sh)
#   make vm-check-612   VM_SCENARIOS on Debian's 6.12 kernel, the module built
#                       from this tree against its headers (build/kmod/<rel>)
#   make vm-check-612rt the same on 6.12 PREEMPT_RT
#   make vm-check-krel VM_KREL=<release>   the same on any installed kernel

DEB_VERSION = $(MODULE_VERSION)
DEB_DIR := $(BUILD)/deb
DEB_FILE = $(DEB_DIR)/ipoib-ng-dkms_$(DEB_VERSION)_all.deb

# The newest installed Debian 6.12 kernels, plain and PREEMPT_RT.
KREL_612 = $(lastword $(sort $(filter-out %-rt-amd64,$(filter 6.12.%-amd64, \
	$(MODULE_KRELS)))))
KREL_612RT = $(lastword $(sort $(filter 6.12.%-rt-amd64,$(MODULE_KRELS))))

# What make check runs with the installed package (issue 17): a
# representative set on 6.12 (observe does ping's setup and pings, so
# ping runs on 6.1 only; kselftest, the kernel's own driver selftests of
# 6.12), and datapath on PREEMPT_RT, where spinlocks sleep and a lock
# taken in the wrong context shows first.
DEB_VM_612 ?= datapath mcast pkey cm observe kselftest
DEB_VM_612RT ?= datapath
DEB_VM = $(KREL_612):$(subst $(eval) ,$(comma),$(strip $(DEB_VM_612))) \
	$(KREL_612RT):$(subst $(eval) ,$(comma),$(strip $(DEB_VM_612RT)))
comma := ,

.PHONY: deb deb-check vm-check-612 vm-check-612rt vm-check-krel

deb:
	@$(call module_copy,$(DEB_DIR)/ipoib-ng-$(DEB_VERSION),Kbuild Makefile \
		dkms.conf driver uapi scripts debian README.md Documentation)
	@rm -f $(DEB_DIR)/*.deb $(DEB_DIR)/*.changes $(DEB_DIR)/*.buildinfo
	cd $(DEB_DIR)/ipoib-ng-$(DEB_VERSION) && dpkg-buildpackage -us -uc -b \
		> $(DEB_DIR)/build.log 2>&1 || \
		{ cat $(DEB_DIR)/build.log; echo "deb: dpkg-buildpackage failed"; exit 1; }
	@dpkg-deb -c $(DEB_FILE) | awk '{ print "  " $$NF }'
	@echo "deb: $(DEB_FILE)"

deb-check: deb ipoibctl ynl-prepare
	@test -n "$(KREL_612)" -a -n "$(KREL_612RT)" || \
		{ echo "deb-check: no 6.12 and 6.12-rt headers (make setup)"; exit 1; }
	$(CURDIR)/tests/deb/check.sh --out $(BUILD)/vm-deb \
		$(foreach v,$(DEB_VM),--vm $(v)) $(DEB_FILE) $(MODULE_KRELS)

# The module of this tree for kernel VM_KREL, built in its own copy.
VM_KREL ?=
vm-check-krel: ipoibctl ynl-prepare
	@test -n "$(VM_KREL)" -a -d /lib/modules/$(VM_KREL)/build || \
		{ echo "vm-check-krel: VM_KREL=$(VM_KREL): no headers installed"; exit 1; }
	@$(call module_copy,$(BUILD)/kmod/$(VM_KREL),Kbuild dkms.conf driver scripts uapi)
	$(MAKE) -C /lib/modules/$(VM_KREL)/build M=$(BUILD)/kmod/$(VM_KREL) -j$(J) \
		modules > $(BUILD)/kmod/$(VM_KREL)/build.log 2>&1 || \
		{ cat $(BUILD)/kmod/$(VM_KREL)/build.log; exit 1; }
	$(CURDIR)/tests/vm/run.sh --out $(BUILD)/vm/$(VM_KREL) \
		--kernel /boot/vmlinuz-$(VM_KREL) --timeout $(VM_TIMEOUT) $(VM_FLAGS) \
		--module $(BUILD)/kmod/$(VM_KREL)/ipoib_ng.ko $(VM_SCENARIOS)

vm-check-612:
	$(MAKE) vm-check-krel VM_KREL=$(KREL_612)

vm-check-612rt:
	$(MAKE) vm-check-krel VM_KREL=$(KREL_612RT)
