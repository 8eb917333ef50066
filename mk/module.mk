# Module build hygiene: W=1, objtool, sparse C=2, checkpatch, clang-format.
# Any warning is a failure.

CHECKPATCH ?= $(BUILD)/checkpatch/checkpatch.pl
SHIM_C := $(wildcard $(CURDIR)/driver/*.c)
SHIM_H := $(filter-out %/compat.h %/trace.h,$(wildcard $(CURDIR)/driver/*.h))
KUNIT_SRC := $(wildcard $(CURDIR)/kunit/*.c $(CURDIR)/kunit/*.h $(CURDIR)/kunit/sa/*.c)

.PHONY: module-w1 module-w1-all module-sparse checkpatch core-format \
	module-check dkms-check

# Every supported header tree installed (driver/compat.h: 6.1 to 6.12), as
# the top Makefile finds KDIR: on Debian 12, 6.1 and 6.12 (-amd64 and
# -rt-amd64, scripts/setup.sh installs them). MODULE_KDIRS="..." overrides.
MODULE_KDIRS ?= $(sort $(wildcard $(foreach v,1 2 3 4 5 6 7 8 9 10 11 12, \
		/lib/modules/6.$(v).*/build)))
MODULE_KRELS := $(patsubst /lib/modules/%/build,%,$(filter \
		/lib/modules/%/build,$(MODULE_KDIRS)))
# The one version (Kbuild reads it from dkms.conf too).
MODULE_VERSION := $(shell sed -n \
	's/^PACKAGE_VERSION="\{0,1\}\([^"]*\)"\{0,1\}$$/\1/p' $(CURDIR)/dkms.conf)
KUNIT_OBJ := $(patsubst $(CURDIR)/%.cpp,%.o,$(patsubst $(CURDIR)/%.c,%.o, \
	$(wildcard $(CURDIR)/kunit/*.c $(CURDIR)/kunit/*.cpp)))

# $(call module_copy,dir,files): a shell command copying the sources without
# objects to dir, as DKMS and a package get them (no .git).
module_copy = rm -rf "$(1)" && mkdir -p "$(1)" && \
	tar -C '$(CURDIR)' --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
		--exclude='*.mod' --exclude='*.mod.c' --exclude='*.d' \
		-cf - $(2) | tar -C "$(1)" -xf -

# W=1 build from scratch; fails on any compiler, objtool or modpost warning.
module-w1:
	@mkdir -p $(BUILD)
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean >/dev/null
	{ $(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules 2>&1; echo $$? > $(BUILD)/module-w1.rc; } | \
		tee $(BUILD)/module-w1.log
	@[ "$$(cat $(BUILD)/module-w1.rc)" = 0 ] || { echo "module-w1: the build failed"; exit 1; }
	@! grep -E "warning:|error:|objtool" $(BUILD)/module-w1.log || \
		{ echo "module-w1: warnings above"; exit 1; }
	@echo "module-w1: clean"

# W=1 from scratch against every tree of MODULE_KDIRS, each in its own copy
# (build/kmod-w1/<release>/, no .git, as DKMS builds it). Fails on any
# compiler, objtool or modpost warning and on a version other than
# dkms.conf's. Then kunit/ is compiled (not linked) with CONFIG_KUNIT=y
# forced: Debian's kernels have no KUnit, the test kernel is 6.1 only.
module-w1-all:
	@test -n "$(MODULE_KDIRS)" || \
		{ echo "module-w1-all: no 6.1..6.12 headers installed (make setup)"; exit 1; }
	@set -e; for k in $(MODULE_KDIRS); do \
		r=$$(basename $$(dirname $$k)); d=$(BUILD)/kmod-w1/$$r; \
		$(call module_copy,$$d,Kbuild dkms.conf driver kunit scripts uapi); \
		echo "module-w1-all: $$r"; \
		{ $(MAKE) -C $$k M=$$d W=1 -j$(J) modules && \
		  $(MAKE) -C $$k M=$$d W=1 -j$(J) CONFIG_KUNIT=y $(KUNIT_OBJ); } \
			> $$d/build.log 2>&1 || \
			{ cat $$d/build.log; echo "module-w1-all: $$r failed"; exit 1; }; \
		! grep -E "warning:|error:|objtool" $$d/build.log || \
			{ echo "module-w1-all: $$r: warnings above"; exit 1; }; \
		v=$$(modinfo -F version $$d/ipoib_ng.ko); \
		[ "$$v" = "$(MODULE_VERSION)" ] || \
			{ echo "module-w1-all: $$r: version '$$v'"; exit 1; }; \
		echo "module-w1-all: $$r clean, version $$v"; \
	done

module-sparse:
	@mkdir -p $(BUILD)
	{ $(MAKE) -C $(KDIR) M=$(CURDIR) C=2 modules 2>&1; echo $$? > $(BUILD)/module-sparse.rc; } | \
		tee $(BUILD)/module-sparse.log
	@[ "$$(cat $(BUILD)/module-sparse.rc)" = 0 ] || { echo "module-sparse: the build failed"; exit 1; }
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
	@# compat.h is the one place version tests are allowed (Documentation/style.rst).
	$(CHECKPATCH) --no-tree --strict --terse --show-types \
		--ignore SPDX_LICENSE_TAG,LINUX_VERSION_CODE,CONSTANT_COMPARISON \
		-f $(CURDIR)/driver/compat.h
	@# TRACE_EVENT()'s layout, as in the kernel's include/trace/events/.
	$(CHECKPATCH) --no-tree --strict --terse --show-types \
		--ignore SPDX_LICENSE_TAG,OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT \
		-f $(CURDIR)/driver/trace.h
	@echo "checkpatch: clean"

core-format:
	clang-format --dry-run --Werror $(wildcard $(CURDIR)/driver/core/*.cpp) \
		$(wildcard $(CURDIR)/driver/core/*.hpp)
	@echo "core-format: clean"

# ipoib_ng.h's sections match the files that define what they declare.
.PHONY: header-sections
header-sections:
	python3 $(CURDIR)/scripts/check-header-sections.py \
		$(CURDIR)/driver/ipoib_ng.h $(CURDIR)/driver

# The shim edits no core result and reads no machine's field (design.rst).
.PHONY: boundary-check
boundary-check:
	python3 $(CURDIR)/scripts/check-boundary.py $(CURDIR)/driver

module-check: module-w1-all module-sparse checkpatch core-format header-sections \
	boundary-check

# dkms add, then build and install for every kernel of MODULE_KDIRS (the
# module's version checked in each), then remove: nothing is left behind.
DKMS_VER := $(MODULE_VERSION)
DKMS_SRC := /usr/src/ipoib-ng-$(DKMS_VER)
dkms-check:
	@test -n "$(MODULE_KRELS)" || \
		{ echo "dkms-check: no 6.1..6.12 headers installed (make setup)"; exit 1; }
	dkms remove ipoib-ng/$(DKMS_VER) --all >/dev/null 2>&1 || true
	$(call module_copy,$(DKMS_SRC),Kbuild Makefile dkms.conf driver scripts uapi)
	dkms add ipoib-ng/$(DKMS_VER)
	@set -e; for r in $(MODULE_KRELS); do \
		dkms build ipoib-ng/$(DKMS_VER) -k $$r; \
		dkms install ipoib-ng/$(DKMS_VER) -k $$r --force; \
		v=$$(modinfo -k $$r -F version ipoib_ng); \
		[ "$$v" = "$(DKMS_VER)" ] || \
			{ echo "dkms-check: $$r: version '$$v'"; exit 1; }; \
		echo "dkms-check: $$r: ipoib_ng $$v installed"; \
	done
	dkms status ipoib-ng
	dkms remove ipoib-ng/$(DKMS_VER) --all
	rm -rf $(DKMS_SRC)
	@echo "dkms-check: ok ($(MODULE_KRELS))"
