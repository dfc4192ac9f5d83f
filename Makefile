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

# Kernel builds compile through ccache (CCACHE= turns it off); the cache
# is the user's (~/.cache/ccache), kept across `make clean`. Depend mode
# takes the headers from the compiler's own -MMD output: a miss costs one
# compile, not a preprocessor run more. Paths under $(BUILD) reach the
# compiler relative to the object directory, and kbuild's
# -fmacro-prefix-map=<tree>/= is left out of the key, so a clone anywhere
# else hits what this one compiled; __FILE__ then reads ../linux/... in
# these kernels' messages.
CCACHE		?= ccache
CCACHE_DEPEND	?= true
CCACHE_BASEDIR	?= $(BUILD)
CCACHE_NOHASHDIR ?= true
CCACHE_IGNOREOPTIONS ?= -fmacro-prefix-map=*

# `make run ARCH=arm64` and `make vmtest ARCH=i386` pick the guest
# (vm/arch.sh; VM_ARCH in the environment does too). An ARCH given on the
# command line is taken off the sub-makes' command lines, and no ARCH
# reaches a recipe's environment: kunit.py, the tools' makes and kbuild
# get the ARCH they are given, not the user's.
ifeq ($(origin ARCH),command line)
VM_ARCH		:= $(ARCH)
endif
VM_ARCH		?= x86_64
VM_TAG		:= $(if $(filter x86_64,$(VM_ARCH)),,-$(VM_ARCH))
MAKEOVERRIDES	:= $(filter-out ARCH=%,$(MAKEOVERRIDES))
unexport ARCH

export ROOT BUILD KSRC OUT JOBS KUNIT_TIMEOUT QEMU_SMP KUNIT_FILTER \
	CCACHE CCACHE_DEPEND CCACHE_BASEDIR CCACHE_NOHASHDIR \
	CCACHE_IGNOREOPTIONS VM_ARCH

# Debian packages the build and the tests need.
DEB_PACKAGES := linux-source-6.12 build-essential bc bison flex libelf-dev \
	libssl-dev sparse qemu-system-x86 busybox-static cpio python3 rsync \
	kmod dwarves clang libclang-rt-14-dev llvm valgrind \
	libtraceevent-dev libtracefs-dev libtracecmd-dev trace-cmd \
	zlib1g-dev golang-go python3-ply python3-git \
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross \
	gcc-i686-linux-gnu libc6-dev-i386-cross qemu-system-arm ccache git gdb chromium graphviz

# Steps of `make test`, in two lanes that run side by side
# (scripts/lanes.sh), each lane's steps in order. Each step appends
# PASS/FAIL lines to $(OUT)/results.txt; a step that crashes is recorded
# as one FAIL and the next step still runs. Steps that share a build
# share a lane: kunit-i386 builds the kernel vmtest-i386 boots. The
# lanes are balanced by the time each step reports in $(OUT)/times.txt:
# on two cores the run is CPU-bound. series-check, which finds the
# x86_64 guest's objects in ccache, ends the first lane, long after
# vmtest-check has built them at the start of the second (were it
# sooner, it would compile them itself). Later issues add their steps
# here.
TEST_LANE_1 := harness-check tools-check kunit-uml kunit-x86_64 \
	vmtest-arm64-check series-check
TEST_LANE_2 := vmtest-check kunit-i386 vmtest-i386-check kunit-arm64 \
	check-gates
TEST_STEPS := $(TEST_LANE_1) $(TEST_LANE_2)
KUNIT_STEPS := kunit-uml kunit-x86_64 kunit-i386 kunit-arm64

# The overlay: what is laid over the kernel tree and ships in the series.
OVERLAY := linux
HARNESS := $(OVERLAY)/tools/testing/stackdepot_lf
STACKMAP_TOOLS := $(OVERLAY)/tools/tracing/stackmap

# $(call knob,VAR,SCRIPT): VAR's value as SCRIPT sees it, for `make
# help`: the user's, or else the default in SCRIPT's first
# `${VAR:-default}`. A default is typed once, where it is used, and help
# prints it; scripts/help-check.py holds help, the scripts and README to
# that (a step of `make check`).
knob = $(if $(filter undefined,$(origin $(1))),$(shell sed -n \
	's/.*$${$(1):-\([^}]*\)}.*/\1/p' $(ROOT)/$(2) | head -n 1),$($(1)))
# The kernel's stack_map_redefine, which make run keeps unless REDEFINE=.
KERNEL_REDEFINE = $(shell sed -n 's/^\#define TRACE_STACKMAP_DEFAULT_REDEFINE[[:space:]]*\([0-9]*\)U*$$/\1/p' \
	$(ROOT)/$(OVERLAY)/kernel/trace/trace_stackmap.h)

# Reset the results, run the steps given as $(1), print the summary.
define run-steps
	@scripts/results.sh reset
	@for step in $(1); do \
		$(MAKE) --no-print-directory $$step || \
			scripts/results.sh record FAIL "$$step:crashed"; \
	done
	@$(2) scripts/summary.sh
endef

.PHONY: help deps tree test kunit check run bench clean distclean \
	harness fuzz bench-user tools vmtest vmtest-arm64 vmtest-i386 \
	vm-kernel vm-initrd series \
	$(TEST_STEPS)

help:
	@echo 'stackdepot_lf: lock-free stack dedup library for Linux 6.12'
	@echo
	@echo 'Main targets:'
	@echo '  run           - boot the kernel in QEMU, trace a workload with'
	@echo '                  stackmap off and on, print what dedup bought;'
	@echo '                  artifacts in out/run/, out/run-ARCH/ for'
	@echo '                  another ARCH (knobs below)'
	@echo '  test          - everything below: check, harness, tools, kunit,'
	@echo '                  vmtest on x86_64, arm64 and i386, series-check;'
	@echo '                  prints one line "N passed, N failed" and'
	@echo '                  fails on any failure (results in out/results.txt)'
	@echo
	@echo 'Other targets:'
	@echo '  deps          - install the Debian packages that are missing'
	@echo '  tree          - unpack linux-source-6.12 into KSRC, apply'
	@echo '                  patches/, overlay the project (every target'
	@echo '                  does this first)'
	@echo '  kunit         - KUnit suite on UML+KASAN, on x86_64 QEMU'
	@echo '                  (TCG, -smp QEMU_SMP) with KCSAN and lockdep,'
	@echo '                  on 32-bit i386 QEMU with lockdep, and on arm64'
	@echo '                  QEMU (virt, -cpu max) with KCSAN and lockdep'
	@echo '  kunit-uml     - only the UML run'
	@echo '  kunit-x86_64  - only the x86_64 QEMU run'
	@echo '  kunit-i386    - only the 32-bit i386 QEMU run (lockdep)'
	@echo '  kunit-arm64   - only the arm64 QEMU run (KCSAN, lockdep)'
	@echo '  check         - static gates on the project files: checkpatch'
	@echo '                  --strict, kernel-doc, W=1 build, sparse (C=2);'
	@echo '                  that this help shows each knob'"'"'s default'
	@echo '  harness       - userspace harness: the KUnit suite under ASan/UBSan'
	@echo '                  and TSan, stress under both, bounded libFuzzer run'
	@echo '  fuzz          - the harness fuzzer, longer'
	@echo '  mutate        - the harness against each single-bug mutant of'
	@echo '                  the library (scripts/mutate/mutants/):'
	@echo '                  kill rate and survivors, also in out/mutate.txt;'
	@echo '                  takes minutes, not part of test'
	@echo '  bench         - every benchmark side by side: stackdepot_lf vs'
	@echo '                  stack_depot_save() in UML, the userspace harness'
	@echo '                  for 1..N threads, stack tracing cost with'
	@echo '                  stackmap off/on in QEMU, and where one stack'
	@echo '                  event'"'"'s instructions go; tables + out/bench/*.json'
	@echo '  bench-user    - only the userspace benchmark (ns/op, callgrind)'
	@echo '  tools         - build the stackmap CLI and the trace-cmd plugin'
	@echo '  vmtest        - boot the kernel in QEMU (x86_64 unless ARCH=) and'
	@echo '                  run the ftrace selftests (stackmap-*.tc and stack'
	@echo '                  tests)'
	@echo '  vmtest-arm64  - the same on arm64 (QEMU virt, -cpu max)'
	@echo '  vmtest-i386   - the same on a 32-bit i386 kernel'
	@echo '  series        - write the patch series against 6.12 to'
	@echo '                  out/series/ (git format-patch, cover letter)'
	@echo '  series-check  - git am the series patch by patch, build after'
	@echo '                  each, run its KUnit suites, compare the result'
	@echo '                  with the overlay tree, build with the option off'
	@echo '  clean         - remove out/ and the kernel build dirs'
	@echo '  distclean     - remove out/ and build/ (re-unpacks the tree)'
	@echo
	@echo 'Knobs (make VAR=value), each with the value in effect:'
	@printf '  %-22s %s\n' 'JOBS=$(JOBS)' 'parallel kernel build jobs'
	@printf '  %-22s %s\n' 'KUNIT_TIMEOUT=$(KUNIT_TIMEOUT)' 'seconds per kunit.py run'
	@printf '  %-22s %s\n' 'QEMU_SMP=$(QEMU_SMP)' 'CPUs of the QEMU guests'
	@printf '  %-22s %s\n' 'KUNIT_FILTER=$(KUNIT_FILTER)' 'kunit.py filter, e.g. "stackdepot_lf.*reset*"'
	@printf '  %s\n' 'KSRC=$(KSRC)'
	@printf '  %s\n' 'BUILD=$(BUILD)'
	@printf '  %s\n' 'OUT=$(OUT)'
	@printf '  %s\n' 'TARBALL=$(call knob,TARBALL,scripts/common.sh)'
	@printf '  %-22s %s\n' '' 'the linux-source-6.12 tarball unpacked into KSRC'
	@printf '  %-22s %s\n' 'ARCH=$(VM_ARCH)' 'guest of make run, vmtest, vm-kernel and'
	@printf '  %-22s %s\n' '' 'vm-initrd: x86_64, arm64 or i386'
	@printf '  %-22s %s\n' 'CCACHE=$(CCACHE)' 'compiler launcher of the kernel builds'
	@printf '  %-22s %s\n' '' '(CCACHE= builds without it); ccache'"'"'s own settings:'
	@printf '  %s\n' 'CCACHE_DEPEND=$(CCACHE_DEPEND)'
	@printf '  %s\n' 'CCACHE_NOHASHDIR=$(CCACHE_NOHASHDIR)'
	@printf '  %s\n' 'CCACHE_BASEDIR=$(CCACHE_BASEDIR)'
	@printf '  %s\n' 'CCACHE_IGNOREOPTIONS=$(CCACHE_IGNOREOPTIONS)'
	@printf '  %-22s %s\n' 'VM_STALL=$(call knob,VM_STALL,vm/run-qemu.sh)' 'seconds without guest output before a'
	@printf '  %-22s %s\n' '' 'guest is taken for hung and killed'
	@printf '  %-22s %s\n' 'VM_TIMEOUT=$(call knob,VM_TIMEOUT,vm/run-qemu.sh)' 'seconds before a vmtest guest is killed'
	@printf '  %-22s %s\n' '' '(make run'"'"'s first boot: 4 x DURATION + 300;'
	@printf '  %-22s %s\n' '' 'make bench: its own)'
	@echo 'make run:'
	@printf '  %-22s %s\n' 'BUFFER_KB=$(call knob,BUFFER_KB,vm/run.sh)' 'KiB per CPU of the ring buffer (16-65536)'
	@printf '  %s\n' 'EVENTS=$(call knob,EVENTS,vm/run.sh)'
	@printf '  %-22s %s\n' '' 'events traced: system:event,...'
	@printf '  %-22s %s\n' 'WORKLOAD=$(call knob,WORKLOAD,vm/run.sh)' 'shell command run in the guest'
	@printf '  %-22s %s\n' '' '(empty: vm/guest/workload.sh)'
	@printf '  %-22s %s\n' 'DURATION=$(call knob,DURATION,vm/run.sh)' 'seconds, caps the workload (1-600)'
	@printf '  %-22s %s\n' 'REDEFINE=$(call knob,REDEFINE,vm/run.sh)' 'stack_map_redefine of the stackmap session,'
	@printf '  %-22s %s\n' '' 'percent (empty: the kernel'"'"'s, $(KERNEL_REDEFINE))'
	@printf '  %-22s %s\n' 'PEAK_KB=$(call knob,PEAK_KB,vm/run.sh)' 'KiB per CPU of the memory peak'"'"'s boots'
	@printf '  %-22s %s\n' '' '(64-65536)'
	@printf '  %-22s %s\n' 'PEAK_PIPES=$(call knob,PEAK_PIPES,vm/run.sh)' 'pipes holding a page each at the peak'
	@printf '  %-22s %s\n' '' '(1-100000)'
	@echo 'make series, series-check:'
	@printf '  %-22s %s\n' 'SIGNOFF=$(SIGNOFF)' '"Name <addr>": adds a Signed-off-by'
	@printf '  %-22s %s\n' 'SERIES_AUTHOR=$(SERIES_AUTHOR)' '"Name <addr>" (empty: git config'"'"'s)'
	@printf '  %-22s %s\n' 'SERIES_PREFIX=$(call knob,SERIES_PREFIX,scripts/series.sh)' 'subject prefix'
	@printf '  %-22s %s\n' 'VM_TIMEOUT=$(call knob,VM_TIMEOUT,scripts/series-check.sh)' 'seconds before series-check'"'"'s KUnit'
	@printf '  %-22s %s\n' '' 'boot is killed'
	@echo 'make mutate (and JOBS: mutants at once):'
	@printf '  %-22s %s\n' 'MUTANTS="$(call knob,MUTANTS,scripts/mutate/mutate.sh)"' 'globs of the mutants to run'
	@printf '  %-22s %s\n' 'STRESS_MSEC=$(call knob,STRESS_MSEC,scripts/mutate/mutate.sh)' 'stress time of each mutant'"'"'s check'
	@printf '  %-22s %s\n' 'FUZZ_SECONDS=$(call knob,FUZZ_SECONDS,scripts/mutate/mutate.sh)' 'fuzz time of each mutant'"'"'s check'
	@printf '  %-22s %s\n' 'MUTATE_TIMEOUT=$(call knob,MUTATE_TIMEOUT,scripts/mutate/mutate.sh)' 'seconds per mutant'"'"'s check'
	@printf '  %-22s %s\n' 'MUTATE_REV=$(MUTATE_REV)' 'revision to test (empty: the work tree)'
	@printf '  %-22s %s\n' 'MUTATE_KEEP=$(MUTATE_KEEP)' 'non-empty: keep each mutant'"'"'s tree'
	@printf '  %-22s %s\n' 'SEED=$(SEED)' 'seed of the stress and fuzz runs'
	@echo 'make bench:'
	@printf '  %-22s %s\n' 'BENCH_ROUNDS=$(call knob,BENCH_ROUNDS,scripts/bench.sh)' 'rounds of the kernel benchmark'
	@printf '  %-22s %s\n' 'BENCH_REPS=$(call knob,BENCH_REPS,scripts/bench.sh)' 'repetitions of the harness and VM runs'
	@printf '  %-22s %s\n' 'BENCH_THREADS=$(BENCH_THREADS)' 'harness threads (empty: 1..CPUs)'
	@printf '  %s\n' 'BENCH_PARTS="$(call knob,BENCH_PARTS,scripts/bench.sh)"'
	@printf '  %-22s %s\n' 'BENCH_PROFILE_N=$(call knob,BENCH_PROFILE_N,scripts/bench.sh)' 'samples of each workload and mode'

deps:
	@scripts/deps.sh $(DEB_PACKAGES)

# Phony on purpose: the overlay must be refreshed on every invocation;
# scripts/tree.sh only unpacks again when patches/ changed.
tree: deps
	@scripts/tree.sh $(KSRC)

# A whole run keeps its results in out/test-summary/ for the series' cover
# letter. The tools are built before the lanes start: tools-check and
# vmtest-check's prerequisite would otherwise build them at once, in one
# folder.
test: deps tree tools
	@scripts/results.sh reset
	@MAKE="$(MAKE)" scripts/lanes.sh "$(TEST_LANE_1)" "$(TEST_LANE_2)"
	@SUMMARY_SAVE=$(OUT)/test-summary scripts/summary.sh

kunit: deps tree
	$(call run-steps,$(KUNIT_STEPS))

check: deps tree
	$(call run-steps,check-gates)

kunit-uml kunit-x86_64 kunit-i386 kunit-arm64: deps tree
	@scripts/kunit-run.sh $(@:kunit-%=%)

check-gates: deps tree
	@scripts/check.sh

run: deps tree
	@vm/run.sh

harness: deps
	$(call run-steps,harness-check)

harness-check: deps
	@scripts/step.sh harness $(MAKE) --no-print-directory -C $(HARNESS) \
		check KTAP=$(ROOT)/scripts/ktap.py
	@if scripts/mutate/check.sh > $(OUT)/mutants-apply.log 2>&1; then \
		scripts/results.sh record PASS harness:mutants-apply; \
	else \
		cat $(OUT)/mutants-apply.log; \
		scripts/results.sh record FAIL harness:mutants-apply; \
	fi

fuzz: deps
	@$(MAKE) --no-print-directory -C $(HARNESS) fuzz

# Not a step of `make test`: it runs the harness once per mutant, for
# minutes.
.PHONY: mutate
mutate: deps
	@scripts/mutate/mutate.sh

bench: deps tree
	@scripts/bench.sh

bench-user: deps
	@$(MAKE) --no-print-directory -C scripts/bench bench O=$(BUILD)/bench-user

tools: deps
	@$(MAKE) --no-print-directory -C $(STACKMAP_TOOLS) all

tools-check: deps
	@scripts/step.sh tools $(MAKE) --no-print-directory -C $(STACKMAP_TOOLS) \
		check

series: deps tree
	@scripts/series.sh

series-check: deps tree
	@scripts/step.sh series scripts/series-check.sh

vm-kernel: deps tree
	@vm/build-kernel.sh

vm-initrd: deps tree
	@vm/mkinitramfs.sh $(BUILD)/vm-initramfs$(VM_TAG).cpio.gz

vmtest: deps tree
	$(call run-steps,vmtest$(VM_TAG)-check)

vmtest-arm64 vmtest-i386: deps tree
	$(call run-steps,$@-check)

# The kernel build is part of the step, so that its time is counted and a
# build failure is recorded as the step's failure.
vmtest-check vmtest-arm64-check vmtest-i386-check: deps tree tools
	@VM_ARCH=$(or $(patsubst vmtest-%-check,%,$(filter-out vmtest-check,$@)),x86_64) \
		scripts/step.sh $(@:-check=) bash -c 'vm/build-kernel.sh && \
		vm/mkinitramfs.sh "$$(. vm/arch.sh && echo "$$vm_initrd")" && \
		vm/vmtest.sh'

clean:
	rm -rf $(OUT) $(BUILD)/kunit-* $(BUILD)/check-* $(BUILD)/vm \
		$(BUILD)/vm-bench $(BUILD)/vm-arm64 $(BUILD)/vm-i386 \
		$(BUILD)/bench-uml $(BUILD)/vm-initramfs*.cpio.gz* \
		$(BUILD)/series $(BUILD)/series-am
	@$(MAKE) --no-print-directory -C $(HARNESS) clean
	@$(MAKE) --no-print-directory -C scripts/bench clean O=$(BUILD)/bench-user
	@$(MAKE) --no-print-directory -C $(STACKMAP_TOOLS) clean

distclean:
	rm -rf $(OUT) $(BUILD)
