# SPDX-License-Identifier: GPL-2.0
#
# stria: user-facing targets. No kbuild syntax here; the module's build
# rules are in Kbuild and drivers/stria/Kbuild.
#
#   make            build stria.ko (against KDIR) and the tools
#   make deps       install what the build and the tests need (idempotent)
#   make lint       W=1 and sparse (C=2) on 6.1, 6.12 and 7.x, checkpatch, kernel-doc, mypy
#   make layers     which file of the module calls which (circles, long files)
#   make unit       user-space unit tests (C and Python)
#   make vm         the VM suite on Debian's kernel (TESTS=... to filter)
#   make vm-612     the VM tests of the APIs 6.12 changed, on Debian's 6.12 image
#   make vm-7       the API-sensitive VM tests on the newest Debian kernel's
#                   image (7.x, fetched by make deps: scripts/fetch-kernel)
#   make vm-debug   KUnit + the VM suite on the debug kernel
#                   (both: JOBS=N tests at once, default auto; selftests/run -j)
#   make check      deps, lint, unit, vm, vm-612, vm-7; prints "N passed, N failed"
#   make check-long the debug tier, and the tests too long for make check
#                   (KERNELS_LONG) on every kernel; run before resolving the issues that need them
#   make mutants    build stria.ko with each deliberate bug of selftests/mutants/
#                   and run the tests it names: every one must be caught
#                   (MUTANTS="01 07" for some; part of make check-long)
#   make mutants-slice  2 of the mutants, chosen by the commit, each against
#                   the quick test that caught it in the kept run (make check)
#   make demo       boot the VM: tune show, a stria array, tune apply (poll
#                   queues), the quick benchmark with polled rows, tune revert
#                   (KERNEL=stock612: on 6.12; make check runs it too, shorter)
#   make bench      the benchmarks of selftests/bench/ (not part of make check)
#   make stress     the seeded stress test: RAID0, 5 and 6 at once under
#                   mixed fio jobs and a seeded schedule of operator and
#                   fault events (STRESS_SEED=N replays a run, default a
#                   new random one, printed; STRESS_MINUTES=20;
#                   STRESS_SKIP="family ..." leaves families out,
#                   hipri the polled jobs;
#                   KERNEL=stock|stock612|stock7|debug, default stock)
#   make install    module, tools, udev rules, systemd units, initramfs-tools
#                   hook, dracut module (when dracut is there), man pages,
#                   shell completion (PREFIX=/usr by default, DESTDIR
#                   supported); the Python tools in a venv,
#                   PREFIX/lib/stria/venv, linked into PREFIX/bin
#   make uninstall  remove what make install put there (same PREFIX, DESTDIR)

# The kernel to build against: the running kernel's headers, else the newest
# installed headers by version (sort -V: 6.12 after 6.9; the host here runs
# a kernel without headers).
KVER ?= $(shell uname -r)
KDIR ?= $(firstword $(wildcard /lib/modules/$(KVER)/build) \
		    $(shell ls -d /lib/modules/*/build 2>/dev/null | sort -V | tail -n1))
KRELEASE = $(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
# The kernels make lint builds the module for, W=1 and sparse: Debian's 6.1
# and 6.12 headers and the newest Debian kernel's build tree
# (scripts/kernel-dirs), else KDIR.
LINT_KDIRS ?= $(or $(shell scripts/kernel-dirs),$(KDIR))

PYTHON ?= /usr/bin/python3
# VM tests run at once by make vm, vm-debug and check: a number, or auto
# (selftests/run -j: one per CPU as far as memory allows; SERIAL=1 tests
# always alone). STRIA_JOBS from the environment is the default.
JOBS ?= $(or $(STRIA_JOBS),auto)
BUILD := $(CURDIR)/build
KBUILD_OUT = $(BUILD)/$(KRELEASE)
PROBE_DIR = $(KBUILD_OUT)/probes

PREFIX ?= /usr
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
UDEVDIR ?= /usr/lib/udev/rules.d
SYSTEMDUNITDIR ?= /usr/lib/systemd/system
INITRAMFSDIR ?= /usr/share/initramfs-tools
# the dracut module, installed when dracut is there (or with DRACUT=yes)
DRACUTDIR ?= /usr/lib/dracut
DRACUT ?= $(if $(wildcard $(DRACUTDIR)/modules.d),yes,no)
# programs only stria's own files run: the scrub of stria-scrub.service,
# the static striactl the initramfs-tools hook and the dracut module copy
STRIALIBDIR ?= $(PREFIX)/lib/stria
# the Python tools' own venv (scripts/install-python), its console
# scripts linked into BINDIR
PYVENV ?= $(STRIALIBDIR)/venv
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# Debian's zsh reads packages' completion from vendor-completions, local
# ones from site-functions
ZSHCOMPDIR ?= $(if $(filter /usr,$(PREFIX)),/usr/share/zsh/vendor-completions,$(PREFIX)/share/zsh/site-functions)
DESTDIR ?=

export PYTHON

.PHONY: all module tools probe lint layers unit vm vm-612 vm-7 vm-debug check demo bench deps install install-boot \
	install-python uninstall uninstall-python \
	clean help debug-kernel check-kdir check-after-deps demo-after-deps bench-after-deps \
	check-long check-long-after-deps mutants mutants-slice stress stress-after-deps

all: module tools

help:
	@sed -n 's/^#   //p' Makefile

check-kdir:
	@test -n "$(KDIR)" -a -d "$(KDIR)" || { \
		echo "No kernel build tree found: run 'make deps' or set KDIR=" >&2; exit 1; }

# Under the module build's lock: two makes probing one kernel at once (two
# test runners started together on a fresh tree) would delete each other's
# probe sources midway and record the failures as missing interfaces.
$(PROBE_DIR)/compat_probes.h: scripts/probe-kernel $(wildcard drivers/stria/probes/*.c) | check-kdir
	mkdir -p $(BUILD)
	$(MODULE_LOCK) scripts/probe-kernel $(KDIR) $(PROBE_DIR)

probe: $(PROBE_DIR)/compat_probes.h

# W=1 is the default: the module must build without warnings.
# The objects live in the tree whatever the kernel, so builds for two
# kernels at once (the stock and debug runners, a host test's runner)
# would link one's objects into the other's module: one build at a time.
MODULE_LOCK = flock $(BUILD)/.module-build.lock
# kbuild on every core, unless this make already shares a job server (make -jN)
KBUILD_JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc))
module: probe
	mkdir -p $(BUILD) $(KBUILD_OUT)
	$(MODULE_LOCK) sh -c '$(MAKE) $(KBUILD_JOBS) -C $(KDIR) M=$(CURDIR) STRIA_PROBE_DIR=$(PROBE_DIR) W=1 modules && \
		scripts/install-changed drivers/stria/*.ko $(KBUILD_OUT)'

tools:
	$(MAKE) -C tools/striactl
	$(MAKE) -C selftests/tools
	$(PYTHON) scripts/gen-completion $(BUILD)/completion tools/striactl/striactl

deps:
	scripts/deps

lint:
	@for k in $(LINT_KDIRS); do $(MAKE) -s probe KDIR=$$k || exit 1; done
	scripts/lint $(LINT_KDIRS)

unit: all
	selftests/unit/run

vm: all
	selftests/run --kernel stock -j $(JOBS)

# Which file of the module calls which, from the objects' symbols: the
# arrows, the circles of files that call each other, and the files over
# 1,200 lines, checked against the layer map (scripts/layers,
# drivers/stria/layers.map; Documentation/stria/layers.rst).
layers: module
	scripts/layers --layers drivers/stria/layers.map drivers/stria

debug-kernel:
	selftests/kernel/build-debug-kernel

vm-612: all
	selftests/run --kernel stock612 -j $(JOBS)

vm-7: all
	selftests/run --kernel stock7 -j $(JOBS)

vm-debug:
	selftests/run --kernel debug -j $(JOBS)

# Each tier writes its TAP results under build/results/; the summary adds
# them up and prints the closing "N passed, N failed" line.
#
# With vm-debug among the tiers, the debug kernel (built once, then
# cached), the longest step of a first run, starts at once in the background at the lowest CPU priority: it
# takes the CPU the lint, unit and stock tiers leave idle (VM boots, sleeps,
# I/O waits, SERIAL tests running alone) without slowing them. With JOBS=2
# the stock tier leaves less idle and the build may still run when it ends;
# then it has both cores. vm-debug runs the same script, which waits on the
# build's lock and reports a failed build itself.
#
# make check, demo and bench install packages first (make deps), and KDIR
# depends on what is installed: on a bare machine the kernel headers appear
# only during make deps. So these targets run the rest in a second make,
# which reads this Makefile (and computes KDIR) again after deps.
#
# CHECK_TIERS runs some of the tiers only (make check CHECK_TIERS="lint
# unit": everything but the VM suites, as the fresh-root test does); the
# summary then counts those.
#
# The debug tier (vm-debug) is not in make check's default: on a fresh
# machine it first builds the debug kernel (20 minutes of this 2-core
# machine beside other work, /var/cache/stria/debug-kernel-*/ from .config
# to done), and its tests run several times slower under KASAN than on the
# stock kernels; with it, CI's fresh 2-core machine ran past its 90
# minutes twice. make check-long runs it; CHECK_TIERS="... vm-debug" adds
# it to make check.
CHECK_TIERS ?= lint mutants-slice unit vm vm-612 vm-7

# lint, unit and the mutants' slice each keep about one core busy, and
# none of them boots a test guest beside the VM tiers' SERIAL tests: with
# unit asked for, lint and mutants-slice run in the background beside it,
# their output printed when they end, before the first VM tier starts. The
# module and the tools are built first, so no two of them build the same
# thing at once, and so are the compat probes of every kernel make lint
# builds for: lint and the mutants' slice would otherwise probe the same
# kernel at once, in the same directory (on a clean clone, where no probe
# has run yet, one of them failed).
BESIDE_UNIT = $(if $(filter unit,$(CHECK_TIERS)),$(filter lint mutants-slice,$(CHECK_TIERS)))

check: deps
	$(MAKE) check-after-deps

check-after-deps:
	rm -rf $(BUILD)/results $(BUILD)/work $(BUILD)/tier-times
	mkdir -p $(BUILD)
	$(if $(filter vm-debug,$(CHECK_TIERS)),nice -n 19 selftests/kernel/build-debug-kernel \
		>$(BUILD)/debug-kernel-prebuild.log 2>&1 &)
	$(if $(BESIDE_UNIT),$(MAKE) all || true)
	$(if $(BESIDE_UNIT),for k in $(LINT_KDIRS); do $(MAKE) -s probe KDIR=$$k || true; done)
	bg=; for t in $(CHECK_TIERS) end; do \
		case " $(BESIDE_UNIT) :$$t" in \
		*" $$t "*) $(MAKE) $$t >$(BUILD)/$$t.log 2>&1 & bg="$$bg $$t:$$!"; continue;; \
		esac; \
		case $$t in unit) ;; *) \
			for j in $$bg; do wait $${j#*:}; cat $(BUILD)/$${j%%:*}.log; done; bg=;; \
		esac; \
		[ $$t = end ] && break; \
		s0=$$(date +%s); echo "# $$t: started" >>$(BUILD)/tier-times; \
		$(MAKE) $$t || true; \
		echo "# $$t: $$(( $$(date +%s) - s0 )) s" | tee -a $(BUILD)/tier-times; \
	done
	selftests/summary $(BUILD)/results $(patsubst vm,stock,$(patsubst vm-612,stock612,$(patsubst vm-7,stock7,$(patsubst vm-debug,debug,$(CHECK_TIERS)))))

# DEMO: what make demo runs once the module and the tools are built
# (DEMO=true builds them and stops there: the fresh-root test's first make
# on a bare machine).
DEMO ?= selftests/demo

# What does not fit make check's time on CI (README: which tests are
# where): the tests whose KERNELS_LONG names a tier, on that tier, with
# their own results and closing line.
check-long: deps
	$(MAKE) check-long-after-deps

check-long-after-deps: all
	rm -rf $(BUILD)/results-long
	-selftests/run --kernel stock --long -j $(JOBS) --results $(BUILD)/results-long
	-selftests/run --kernel stock612 --long -j $(JOBS) --results $(BUILD)/results-long
	-selftests/run --kernel stock7 --long -j $(JOBS) --results $(BUILD)/results-long
	-selftests/run --kernel debug -j $(JOBS) --results $(BUILD)/results-long
	-selftests/run --kernel debug --long -j $(JOBS) --results $(BUILD)/results-long
	-$(MAKE) mutants MUTANTS_TAP=$(BUILD)/results-long/mutants.tap
	selftests/summary $(BUILD)/results-long stock-long stock612-long stock7-long debug debug-long mutants

# Mutation testing (selftests/mutants/README): one mutant at a time, in
# a copy of the tree (build/mutants/tree), its tests one at a time
# on the stock kernel. The results file is what scripts/render-mutants
# turns into the table of Documentation/stria/testing.rst.
MUTANTS ?=
MUTANTS_TAP ?=
MUTANTS_TIMEOUT_FACTOR ?=
mutants:
	selftests/mutants/run --kernel stock $(if $(MUTANTS_TAP),--tap $(MUTANTS_TAP)) \
		$(if $(MUTANTS_TIMEOUT_FACTOR),--timeout-factor $(MUTANTS_TIMEOUT_FACTOR)) $(MUTANTS)

# make check's rotating slice: 2 mutants a commit (its hash picks them,
# and the run prints which), each against only the test that caught it in
# the kept run, among those that took at most SLICE_MAX_SECONDS there
# (selftests/lib/striatest/mutants.py); one TAP line each, passing when a
# check caught it.
mutants-slice:
	selftests/mutants/run --kernel stock --slice 2 --results $(BUILD)/mutants/slice.tsv \
		--tap $(BUILD)/results/mutants-slice.tap

demo: deps
	$(MAKE) demo-after-deps

demo-after-deps: all
	$(DEMO)

# Benchmarks measure and record; they are not pass/fail tests of speed and
# are kept out of make check (Documentation/stria/performance.rst).
bench: deps
	$(MAKE) bench-after-deps

bench-after-deps: all
	selftests/run --kernel stock --results $(BUILD)/bench selftests/bench

# The stress test (Documentation/stria/testing.rst, "The stress test"):
# make check runs a 3-minute slice of it with a fixed seed, make
# check-long 20 minutes on the debug kernel; make stress a run of any
# length, seed and kernel. The seed is drawn here so that it is printed
# before the guest boots; the test prints it again with every failure.
STRESS_SEED ?=
STRESS_MINUTES ?= 20
# STRESS_SKIP leaves event families (or hipri, the polled fio jobs) out
STRESS_SKIP ?=
# STRESS_FIRST_ROUND=families: round 1 every family once (make check's
# slice) instead of every family of every array
STRESS_FIRST_ROUND ?= all
KERNEL ?= stock
stress: deps
	$(MAKE) stress-after-deps

stress-after-deps: all
	@seed=$(STRESS_SEED); \
	[ -n "$$seed" ] || seed=$$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); \
	echo "stress: seed $$seed, $(STRESS_MINUTES) minutes on $(KERNEL)$(if $(STRESS_SKIP), without $(STRESS_SKIP)) (replay: make stress STRESS_SEED=$$seed STRESS_MINUTES=$(STRESS_MINUTES) KERNEL=$(KERNEL) STRESS_SKIP=\"$(STRESS_SKIP)\")"; \
	STRIA_TEST_STRESS_SEED=$$seed STRIA_TEST_STRESS_MINUTES=$(STRESS_MINUTES) \
	STRIA_TEST_STRESS_SKIP="$(STRESS_SKIP)" STRIA_TEST_STRESS_KERNELS=$(KERNEL) \
	STRIA_TEST_STRESS_FIRST_ROUND=$(STRESS_FIRST_ROUND) \
		selftests/run --kernel $(KERNEL) -j 1 -v --results $(BUILD)/results-stress \
		selftests/tests/stress/001-slice

# The Python tools go in as pip installs them (tools/python/pyproject.toml,
# console-script entry points), into a venv of their own that sees
# Debian's python3 packages (rich, matplotlib): python3's site directories
# belong to dpkg (PEP 668). No network needed (scripts/install-python).
install: all
	install -d $(DESTDIR)/lib/modules/$(KRELEASE)/updates/dkms
	install -m 644 drivers/stria/stria.ko $(DESTDIR)/lib/modules/$(KRELEASE)/updates/dkms/
	$(MAKE) -C tools/striactl install DESTDIR=$(DESTDIR) SBINDIR=$(SBINDIR) MANDIR=$(MANDIR)
	install -d $(DESTDIR)$(MANDIR)/man8
	$(MAKE) install-boot
	install -m 644 tools/python/man/*.8 $(DESTDIR)$(MANDIR)/man8/
	$(MAKE) install-python
	install -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	for t in striactl stria-tune stria-bench; do \
		install -m 644 $(BUILD)/completion/bash/$$t $(DESTDIR)$(BASHCOMPDIR)/$$t; \
		install -m 644 $(BUILD)/completion/zsh/_$$t $(DESTDIR)$(ZSHCOMPDIR)/_$$t; done
	[ -n "$(DESTDIR)" ] || depmod -a $(KRELEASE)

install-python:
	$(PYTHON) scripts/install-python install $(PYVENV) $(BINDIR) $(DESTDIR)

uninstall-python:
	$(PYTHON) scripts/install-python uninstall $(PYVENV) $(BINDIR) $(DESTDIR)

# What make install wrote, for the same PREFIX (and DESTDIR); directories
# are left alone unless stria's own (STRIALIBDIR).
uninstall: uninstall-python
	rm -f $(DESTDIR)/lib/modules/$(KRELEASE)/updates/dkms/stria.ko
	rm -f $(DESTDIR)$(SBINDIR)/striactl $(DESTDIR)$(MANDIR)/man8/striactl.8 \
		$(DESTDIR)$(MANDIR)/man5/stria.conf.5
	for f in tools/python/man/*.8; do rm -f $(DESTDIR)$(MANDIR)/man8/$${f##*/}; done
	for t in striactl stria-tune stria-bench; do \
		rm -f $(DESTDIR)$(BASHCOMPDIR)/$$t $(DESTDIR)$(ZSHCOMPDIR)/_$$t; done
	for f in udev/*.rules; do rm -f $(DESTDIR)$(UDEVDIR)/$${f##*/}; done
	for f in systemd/*.service systemd/*.timer; do rm -f $(DESTDIR)$(SYSTEMDUNITDIR)/$${f##*/}; done
	rm -f $(DESTDIR)$(STRIALIBDIR)/stria-scrub $(DESTDIR)$(STRIALIBDIR)/striactl.static
	-rmdir $(DESTDIR)$(STRIALIBDIR) 2>/dev/null
	rm -f $(DESTDIR)$(INITRAMFSDIR)/hooks/stria
	for d in local-top local-block local-bottom; do rm -f $(DESTDIR)$(INITRAMFSDIR)/scripts/$$d/stria; done
	for f in dracut/90stria/*; do rm -f $(DESTDIR)$(DRACUTDIR)/modules.d/90stria/$${f##*/}; done
	-rmdir $(DESTDIR)$(DRACUTDIR)/modules.d/90stria 2>/dev/null
	[ -n "$(DESTDIR)" ] || depmod -a $(KRELEASE)

# Where the installed files name striactl and stria's helpers: as installed.
INSTALL_PATHS = sed -e 's|/usr/sbin/striactl|$(SBINDIR)/striactl|g' \
	-e 's|/usr/lib/stria/|$(STRIALIBDIR)/|g'

# What starts arrays at boot and looks after them (part of install): the
# udev rules, the systemd units, the initramfs-tools hook and scripts that
# assemble arrays before the root file system is mounted, with the static
# striactl they carry (and dracut's module, when dracut is there), and the
# scrub the monthly timer runs. Run update-initramfs -u (dracut -f)
# afterwards when the root file system is on stria.
install-boot:
	$(MAKE) -C tools/striactl static
	install -d $(DESTDIR)$(UDEVDIR) $(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(STRIALIBDIR) \
		$(DESTDIR)$(INITRAMFSDIR)/hooks
	for f in udev/*.rules; do $(INSTALL_PATHS) "$$f" >$(DESTDIR)$(UDEVDIR)/$${f##*/}; done
	for f in systemd/*.service systemd/*.timer; do \
		$(INSTALL_PATHS) "$$f" >$(DESTDIR)$(SYSTEMDUNITDIR)/$${f##*/}; done
	$(INSTALL_PATHS) systemd/stria-scrub >$(DESTDIR)$(STRIALIBDIR)/stria-scrub
	chmod 755 $(DESTDIR)$(STRIALIBDIR)/stria-scrub
	install -m 755 tools/striactl/striactl.static $(DESTDIR)$(STRIALIBDIR)/striactl.static
	$(INSTALL_PATHS) initramfs/hooks/stria >$(DESTDIR)$(INITRAMFSDIR)/hooks/stria
	chmod 755 $(DESTDIR)$(INITRAMFSDIR)/hooks/stria
	for d in local-top local-block local-bottom; do \
		install -d $(DESTDIR)$(INITRAMFSDIR)/scripts/$$d && \
		$(INSTALL_PATHS) initramfs/scripts/$$d/stria >$(DESTDIR)$(INITRAMFSDIR)/scripts/$$d/stria && \
		chmod 755 $(DESTDIR)$(INITRAMFSDIR)/scripts/$$d/stria; done
	if [ "$(DRACUT)" = yes ]; then \
		install -d $(DESTDIR)$(DRACUTDIR)/modules.d/90stria && \
		for f in dracut/90stria/*; do \
			$(INSTALL_PATHS) "$$f" >$(DESTDIR)$(DRACUTDIR)/modules.d/90stria/$${f##*/} && \
			chmod 755 $(DESTDIR)$(DRACUTDIR)/modules.d/90stria/$${f##*/} || exit 1; done; fi

clean:
	-[ -n "$(KDIR)" ] && $(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C tools/striactl clean
	$(MAKE) -C selftests/tools clean
	rm -rf $(BUILD)
