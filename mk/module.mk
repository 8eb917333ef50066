# Module build hygiene: W=1, objtool, sparse C=2, checkpatch, clang-format.
# Any warning is a failure.

CHECKPATCH ?= $(BUILD)/checkpatch/checkpatch.pl
SHIM_C := $(wildcard $(CURDIR)/driver/*.c)
SHIM_H := $(filter-out %/compat.h,$(wildcard $(CURDIR)/driver/*.h))
KUNIT_SRC := $(wildcard $(CURDIR)/kunit/*.c $(CURDIR)/kunit/*.h)

.PHONY: module-w1 module-sparse checkpatch core-format module-check dkms-check

# W=1 build from scratch; fails on any compiler, objtool or modpost warning.
module-w1:
	@mkdir -p $(BUILD)
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean >/dev/null
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules 2>&1 | tee $(BUILD)/module-w1.log
	@! grep -E "warning:|error:|objtool" $(BUILD)/module-w1.log || \
		{ echo "module-w1: warnings above"; exit 1; }
	@echo "module-w1: clean"

module-sparse:
	@mkdir -p $(BUILD)
	$(MAKE) -C $(KDIR) M=$(CURDIR) C=2 modules 2>&1 | \
		tee $(BUILD)/module-sparse.log
	@! grep -E "^/.*driver/[a-z_]+\.[ch]:[0-9]+:[0-9]+: (warning|error)" \
		$(BUILD)/module-sparse.log || { echo "sparse: findings above"; exit 1; }
	@echo "module-sparse: clean"

$(CHECKPATCH):
	@mkdir -p $(BUILD)/checkpatch
	tar -xJf /usr/src/linux-source-6.1.tar.xz -C $(BUILD)/checkpatch --strip-components=2 \
		linux-source-6.1/scripts/checkpatch.pl linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch
	@touch $@

checkpatch: $(CHECKPATCH)
	$(CHECKPATCH) --no-tree --strict --terse --show-types \
		--ignore SPDX_LICENSE_TAG,FILE_PATH_CHANGES \
		-f $(SHIM_C) $(SHIM_H) $(KUNIT_SRC)
	@# compat.h is the one place version tests are allowed (STYLE.md).
	$(CHECKPATCH) --no-tree --strict --terse --show-types \
		--ignore SPDX_LICENSE_TAG,LINUX_VERSION_CODE,CONSTANT_COMPARISON \
		-f $(CURDIR)/driver/compat.h
	@echo "checkpatch: clean"

core-format:
	clang-format --dry-run --Werror $(wildcard $(CURDIR)/driver/core/*.cpp) \
		$(wildcard $(CURDIR)/driver/core/*.hpp)
	@echo "core-format: clean"

module-check: module-w1 module-sparse checkpatch core-format

# dkms add/build against the installed Debian headers, then remove.
DKMS_VER := 0.1
dkms-check:
	rm -rf /usr/src/ipoib-ng-$(DKMS_VER)
	dkms remove ipoib-ng/$(DKMS_VER) --all >/dev/null 2>&1 || true
	mkdir -p /usr/src/ipoib-ng-$(DKMS_VER)
	cp -r Kbuild Makefile dkms.conf driver scripts /usr/src/ipoib-ng-$(DKMS_VER)/
	rm -f /usr/src/ipoib-ng-$(DKMS_VER)/driver/*.o /usr/src/ipoib-ng-$(DKMS_VER)/driver/core/*.o
	dkms add ipoib-ng/$(DKMS_VER)
	dkms build ipoib-ng/$(DKMS_VER) -k $(notdir $(patsubst %/build,%,$(KDIR)))
	dkms install ipoib-ng/$(DKMS_VER) -k $(notdir $(patsubst %/build,%,$(KDIR))) --force
	dkms status ipoib-ng
	dkms remove ipoib-ng/$(DKMS_VER) --all
	rm -rf /usr/src/ipoib-ng-$(DKMS_VER)
	@echo "dkms-check: ok"
