# SPDX-License-Identifier: GPL-2.0-only
#
# stackdepot_lf: build and test driver.
#
# The repository is an overlay: Debian's linux-source-6.12 tarball is
# unpacked once into $(KSRC), patches/*.patch are applied, and the
# project's kernel-side files are laid over it on every invocation
# (scripts/tree.sh). Every build and test runs in that tree; nothing of it
# is committed. Run `make help` for the targets and knobs.

SHELL := /bin/bash
.DEFAULT_GOAL := help

ROOT		:= $(CURDIR)
BUILD		?= $(ROOT)/build
KSRC		?= $(BUILD)/linux
OUT		?= $(ROOT)/out
JOBS		?= 2
KUNIT_TIMEOUT	?= 900
QEMU_SMP	?= 2
KUNIT_FILTER	?=

export ROOT BUILD KSRC OUT JOBS KUNIT_TIMEOUT QEMU_SMP KUNIT_FILTER

# Debian packages the build and the tests need.
DEB_PACKAGES := linux-source-6.12 build-essential bc bison flex libelf-dev \
	libssl-dev sparse qemu-system-x86 busybox-static cpio python3 rsync \
	kmod dwarves liburcu-dev clang libclang-rt-14-dev llvm valgrind \
	libtraceevent-dev trace-cmd

# Steps of `make test`, in order. Each appends PASS/FAIL lines to
# $(OUT)/results.txt; a step that crashes is recorded as one FAIL and the
# next step still runs. Later issues add their steps here.
TEST_STEPS := kunit-uml kunit-x86_64 check-gates
KUNIT_STEPS := kunit-uml kunit-x86_64

# Reset the results, run the steps given as $(1), print the summary.
define run-steps
	@scripts/results.sh reset
	@for step in $(1); do \
		$(MAKE) --no-print-directory $$step || \
			scripts/results.sh record FAIL "$$step:crashed"; \
	done
	@scripts/summary.sh
endef

.PHONY: help deps tree test kunit check run clean distclean \
	$(TEST_STEPS)

help:
	@echo 'stackdepot_lf: lock-free stack dedup library for Linux 6.12'
	@echo
	@echo 'Main targets:'
	@echo '  run           - the ftrace stackmap demo (not yet available;'
	@echo '                  lands with the ftrace adapter)'
	@echo '  test          - everything below: deps, kunit, check; prints'
	@echo '                  one line "N passed, N failed" and fails on any'
	@echo '                  failure (results in out/results.txt)'
	@echo
	@echo 'Other targets:'
	@echo '  deps          - install the Debian packages that are missing'
	@echo '  tree          - unpack linux-source-6.12 into KSRC, apply'
	@echo '                  patches/, overlay the project (every target'
	@echo '                  does this first)'
	@echo '  kunit         - KUnit suite on UML+KASAN and on x86_64 QEMU'
	@echo '                  (TCG, -smp QEMU_SMP) with KCSAN and lockdep'
	@echo '  kunit-uml     - only the UML run'
	@echo '  kunit-x86_64  - only the x86_64 QEMU run'
	@echo '  check         - static gates on the project files: checkpatch'
	@echo '                  --strict, kernel-doc, W=1 build, sparse (C=2)'
	@echo '  clean         - remove out/ and the kernel build dirs'
	@echo '  distclean     - remove out/ and build/ (re-unpacks the tree)'
	@echo
	@echo 'Knobs (make VAR=value):'
	@echo '  JOBS=$(JOBS)           parallel kernel build jobs'
	@echo '  KUNIT_TIMEOUT=$(KUNIT_TIMEOUT)  seconds per kunit.py run'
	@echo '  QEMU_SMP=$(QEMU_SMP)       CPUs of the x86_64 QEMU guest'
	@echo '  KUNIT_FILTER=glob     kunit.py filter, e.g. "stackdepot_lf.*reset*"'
	@echo '  KSRC=$(KSRC)'
	@echo '  BUILD=$(BUILD)  OUT=$(OUT)'

deps:
	@scripts/deps.sh $(DEB_PACKAGES)

# Phony on purpose: the overlay must be refreshed on every invocation;
# scripts/tree.sh only unpacks again when patches/ changed.
tree: deps
	@scripts/tree.sh $(KSRC)

test: deps tree
	$(call run-steps,$(TEST_STEPS))

kunit: deps tree
	$(call run-steps,$(KUNIT_STEPS))

check: deps tree
	$(call run-steps,check-gates)

kunit-uml kunit-x86_64: deps tree
	@scripts/kunit-run.sh $(@:kunit-%=%)

check-gates: deps tree
	@scripts/check.sh

run: deps
	@echo 'make run: not yet available; lands with the ftrace adapter.' >&2
	@exit 1

clean:
	rm -rf $(OUT) $(BUILD)/kunit-* $(BUILD)/check-*

distclean:
	rm -rf $(OUT) $(BUILD)
