# Test kernel (KUnit + KASAN/lockdep/kmemleak) built from Debian's linux-source-6.1.
# Included by the top-level Makefile (CURDIR = repo root). See tests/kernel/README.md.
#
#   make test-kernel                          build or find the cached kernel (cold ~10-15 min,
#                                             warm < 1 s), record its cache dir in
#                                             build/test-kernel.dir
#   make test-kernel TEST_KERNEL_FLAVOUR=nodebug
#
# Variables for other rules. They read build/test-kernel.dir lazily (recursive `=`), so use
# them in recipes of targets that depend on `test-kernel`:
#   TEST_KERNEL_DIR      cache entry, e.g. ~/.cache/ipoib-ng/kernel/debug-<hash>
#   TEST_KERNEL_KDIR     KDIR for out-of-tree modules: make -C $(TEST_KERNEL_KDIR) M=... modules
#   TEST_KERNEL_IMAGE    bzImage for qemu -kernel
#   TEST_KERNEL_RELEASE  uname -r of that kernel, e.g. 6.1.192-ipoib-ng-debug
#   TEST_KERNEL_MODULES  modules tree to bind over /lib/modules/$(TEST_KERNEL_RELEASE) in the VM

TEST_KERNEL_FLAVOUR  ?= debug
TEST_KERNEL_BUILD_SH := $(CURDIR)/tests/kernel/build.sh
TEST_KERNEL_DIR_FILE := $(CURDIR)/build/test-kernel.dir

TEST_KERNEL_DIR      = $(shell cat '$(TEST_KERNEL_DIR_FILE)' 2>/dev/null)
TEST_KERNEL_KDIR     = $(TEST_KERNEL_DIR)/build
TEST_KERNEL_IMAGE    = $(TEST_KERNEL_DIR)/bzImage
TEST_KERNEL_RELEASE  = $(shell cat '$(TEST_KERNEL_DIR)/kernel.release' 2>/dev/null)
TEST_KERNEL_MODULES  = $(TEST_KERNEL_DIR)/lib/modules/$(TEST_KERNEL_RELEASE)

# Phony: build.sh itself decides (by its cache key) whether anything needs building; on a warm
# cache it only hashes the fragments and prints the path. The .dir file is replaced atomically.
.PHONY: test-kernel test-kernel-info
test-kernel:
	@mkdir -p '$(dir $(TEST_KERNEL_DIR_FILE))'
	@'$(TEST_KERNEL_BUILD_SH)' --flavour '$(TEST_KERNEL_FLAVOUR)' --print-dir \
		> '$(TEST_KERNEL_DIR_FILE).tmp' \
		&& mv -f '$(TEST_KERNEL_DIR_FILE).tmp' '$(TEST_KERNEL_DIR_FILE)' \
		|| { rm -f '$(TEST_KERNEL_DIR_FILE).tmp'; exit 1; }
	@echo "test-kernel: $$(cat '$(TEST_KERNEL_DIR_FILE)')"

test-kernel-info: test-kernel
	@echo 'TEST_KERNEL_DIR     = $(TEST_KERNEL_DIR)'
	@echo 'TEST_KERNEL_KDIR    = $(TEST_KERNEL_KDIR)'
	@echo 'TEST_KERNEL_IMAGE   = $(TEST_KERNEL_IMAGE)'
	@echo 'TEST_KERNEL_RELEASE = $(TEST_KERNEL_RELEASE)'
	@echo 'TEST_KERNEL_MODULES = $(TEST_KERNEL_MODULES)'
