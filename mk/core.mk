# SPDX-License-Identifier: GPL-2.0
#
# The freestanding C++ core (driver/core) in userspace: tests, coverage,
# fuzzing, benchmarks, the rejoin scale model and the freestanding checker.
# Included by the top-level Makefile ($(CURDIR) is the repo root).
#
#   make core-test               GoogleTest + simulations under ASan/UBSan
#   make core-coverage           the same with gcov; fails below CORE_COV_MIN %
#   make core-fuzz               each libFuzzer target for FUZZ_SECONDS
#   make core-bench              per-packet paths, ns/op (not pass/fail)
#   make scale-model             10,000-node client-reregister model
#   make core-freestanding-test  scripts/check-freestanding.sh on good/bad objects
#   make core-check              test + coverage + fuzz + freestanding

CORE_TESTS := $(CURDIR)/tests/core
CORE_OUT := $(CURDIR)/build
CORE_JOBS ?= 2
CORE_COV_MIN ?= 95
FUZZ_SECONDS ?= 10
CORE_FUZZ_TARGETS := fuzz_rx fuzz_addr fuzz_sa

# configure-and-build DIR FLAVOUR COMPILER
define core_build
	cmake -S $(CORE_TESTS) -B $(1) -DCORE_FLAVOUR=$(2) \
		-DCMAKE_CXX_COMPILER=$(3) -DCMAKE_BUILD_TYPE= >/dev/null
	cmake --build $(1) -j$(CORE_JOBS)
endef

.PHONY: core-test core-coverage core-fuzz core-bench scale-model \
	core-freestanding-test core-check

core-test:
	$(call core_build,$(CORE_OUT)/core,test,g++)
	cd $(CORE_OUT)/core && ctest --output-on-failure -j$(CORE_JOBS)

core-coverage:
	$(call core_build,$(CORE_OUT)/core-cov,coverage,g++)
	find $(CORE_OUT)/core-cov -name '*.gcda' -delete
	cd $(CORE_OUT)/core-cov && ./core_tests --gtest_brief=1
	lcov --quiet --capture --directory $(CORE_OUT)/core-cov \
		--include '$(CURDIR)/driver/core/*' \
		--output-file $(CORE_OUT)/core-cov/core.info \
		2>$(CORE_OUT)/core-cov/lcov.log || \
		{ cat $(CORE_OUT)/core-cov/lcov.log >&2; exit 1; }
	lcov --list $(CORE_OUT)/core-cov/core.info
	@rate=$$(lcov --summary $(CORE_OUT)/core-cov/core.info 2>&1 | \
		sed -n 's/^ *lines\.*: *\([0-9.]*\)%.*/\1/p'); \
	echo "driver/core line coverage: $$rate% (minimum $(CORE_COV_MIN)%)"; \
	awk -v r="$$rate" -v m=$(CORE_COV_MIN) 'BEGIN { exit !(r != "" && r + 0 >= m) }' || \
		{ echo "core-coverage: below $(CORE_COV_MIN)%" >&2; exit 1; }

# New inputs go to build/; the committed seed corpora are only read.
core-fuzz:
	$(call core_build,$(CORE_OUT)/core-fuzz,fuzz,clang++)
	@set -e; for t in $(CORE_FUZZ_TARGETS); do \
		mkdir -p $(CORE_OUT)/core-fuzz/corpus/$$t; \
		echo "== $$t ($(FUZZ_SECONDS) s)"; \
		$(CORE_OUT)/core-fuzz/$$t -max_total_time=$(FUZZ_SECONDS) \
			-print_final_stats=1 \
			-artifact_prefix=$(CORE_OUT)/core-fuzz/$$t- \
			$(CORE_OUT)/core-fuzz/corpus/$$t \
			$(CORE_TESTS)/fuzz/corpus/$$t \
			2>$(CORE_OUT)/core-fuzz/$$t.log || \
			{ tail -40 $(CORE_OUT)/core-fuzz/$$t.log >&2; \
			  echo "core-fuzz: $$t failed" >&2; exit 1; }; \
		grep -E '^stat::number_of_executed_units|^Done' \
			$(CORE_OUT)/core-fuzz/$$t.log; \
	done

core-bench:
	$(call core_build,$(CORE_OUT)/core-perf,perf,g++)
	$(CORE_OUT)/core-perf/core_bench --benchmark_min_time=0.1

scale-model:
	$(call core_build,$(CORE_OUT)/core-perf,perf,g++)
	$(CORE_OUT)/core-perf/scale_model

core-freestanding-test:
	$(CORE_TESTS)/freestanding/run.sh $(CORE_OUT)/core-freestanding

core-check: core-test core-coverage core-fuzz core-freestanding-test
