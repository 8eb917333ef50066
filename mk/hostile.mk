# SPDX-License-Identifier: GPL-2.0
#
# The hostile peers: ud_inject (tests/vm/scenarios/hostile.sh), a
# libibverbs program that sends crafted UD datagrams at an interface's QPN
# (issue 16); cm_inject (ib-hostile.sh), a libibumad program that sends CM
# REQs in other peers' names (review 2026-12 H3).
# Included by the top-level Makefile ($(CURDIR) is the repo root).
#
#   make hostile     build/hostile/ud_inject and cm_inject (libibverbs-dev
#                    and libibumad-dev: make deps)
#
# The VM targets depend on it: the VM sees the host root, so the scenario
# runs build/hostile/ud_inject from the repository.

HOSTILE_OUT := $(CURDIR)/build/hostile
HOSTILE_SRC := $(CURDIR)/tests/vm/hostile/ud_inject.c
HOSTILE_CM_SRC := $(CURDIR)/tests/vm/hostile/cm_inject.c
HOSTILE_CC ?= cc

.PHONY: hostile
hostile: $(HOSTILE_OUT)/ud_inject $(HOSTILE_OUT)/cm_inject

$(HOSTILE_OUT)/ud_inject: $(HOSTILE_SRC)
	@echo '#include <infiniband/verbs.h>' | $(HOSTILE_CC) -E -x c - > /dev/null 2>&1 || \
		{ echo "hostile: <infiniband/verbs.h> not found: install libibverbs-dev (make setup)" >&2; \
		exit 1; }
	@mkdir -p $(@D)
	$(HOSTILE_CC) -O2 -Wall -Werror -o $@ $< -libverbs

$(HOSTILE_OUT)/cm_inject: $(HOSTILE_CM_SRC)
	@echo '#include <infiniband/umad.h>' | $(HOSTILE_CC) -E -x c - > /dev/null 2>&1 || \
		{ echo "hostile: <infiniband/umad.h> not found: install libibumad-dev (make deps)" >&2; \
		exit 1; }
	@mkdir -p $(@D)
	$(HOSTILE_CC) -O2 -Wall -Werror -o $@ $< -libumad

vm-check vm-check-debug check-debug check-debug-all vm-check-krel vm-softib-debug: hostile
