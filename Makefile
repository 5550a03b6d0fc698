# SPDX-License-Identifier: GPL-2.0-or-later
# zram-recompd — see README.md. `make`, `make check`, `make install`, `make demo`,
# `make fuzz [FUZZ_SECONDS=N]` (libFuzzer targets, clang: tests/fuzz),
# `make check-long [SOAK_SECONDS=N]` (the soak test, tests/daemon/soak.sh).

VERSION := 0.1.0

PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
SYSCONFDIR ?= /etc
BASHCOMPDIR ?= $(shell pkg-config --variable=completionsdir bash-completion 2>/dev/null || echo $(PREFIX)/share/bash-completion/completions)
SYSTEMDUNITDIR ?= $(shell pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null || echo /lib/systemd/system)
DESTDIR ?=

CC ?= cc
PKG_CONFIG ?= pkg-config
PKGS := libsystemd liblz4 libzstd zlib
# Only the tests use liblzo2 (the daemon has its own LZO1X encoder, matching the kernel's):
# a package build needs it only with the tests.
TEST_PKGS := lzo2 cmocka

# SANITIZE=1: ASan+UBSan into build-san. SANITIZE=thread: ThreadSanitizer into build-tsan
# (the daemon-tsan tier runs the daemon from it; gcc and clang both have it).
ifeq ($(SANITIZE),1)
BUILDDIR ?= build-san
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
OPT := -O1 -g
else ifeq ($(SANITIZE),thread)
BUILDDIR ?= build-tsan
SAN_FLAGS := -fsanitize=thread -fno-omit-frame-pointer
OPT := -O1 -g
else
BUILDDIR ?= build
SAN_FLAGS :=
OPT := -O2 -g
endif

# The libFuzzer build (tests/fuzz): its own directory, beside the one in use.
FUZZ_BUILDDIR ?= $(BUILDDIR)-fuzz

# `clean` removes them: never empty, never the source tree.
ifeq ($(filter-out . ./,$(strip $(BUILDDIR))),)
$(error BUILDDIR must name a build directory, not '$(BUILDDIR)')
endif
ifeq ($(filter-out . ./,$(strip $(FUZZ_BUILDDIR))),)
$(error FUZZ_BUILDDIR must name a build directory, not '$(FUZZ_BUILDDIR)')
endif

WARN := -Wall -Wextra -Wformat=2 -Wformat-security -Wshadow -Wpointer-arith \
	-Wcast-qual -Wstrict-prototypes -Wmissing-prototypes -Wsign-compare -Wvla \
	-Wundef -Wwrite-strings -Wno-unused-parameter
# Warnings are errors in make check and CI (WERROR=1), not for packagers whose newer
# compilers may warn about what ours does not.
ifeq ($(WERROR),1)
WARN += -Werror
endif
HARDEN := -fstack-protector-strong -fPIE
# Control-flow protection of the compiler's target (a cross compiler's is not the host's):
# CET on x86, BTI and pointer authentication on arm64 (what dpkg-buildflags' hardening=+branch
# adds since dpkg 1.22); 32-bit ARM has neither.
TARGET := $(shell $(CC) -dumpmachine 2>/dev/null)
ifneq ($(filter x86_64-% i386-% i486-% i586-% i686-%,$(TARGET)),)
HARDEN += -fcf-protection
else ifneq ($(filter aarch64-%,$(TARGET)),)
HARDEN += -mbranch-protection=standard
endif
# Distributions pass their own level (Fedora, Arch, Ubuntu 24.04+: 3): never redefine it.
# Not in the sanitizer builds: their interceptors check what fortify would.
ifeq ($(filter 1 thread,$(SANITIZE)),)
ifeq ($(findstring _FORTIFY_SOURCE,$(CPPFLAGS) $(CFLAGS)),)
HARDEN += -D_FORTIFY_SOURCE=2
endif
endif

# 64-bit off_t and time_t where glibc's default is still 32 bits (armhf, i386): clocks past
# 2038 and files past 2 GiB. Debian builds armhf so since trixie (dpkg-buildflags
# abi=+time64); glibc has _TIME_BITS since 2.34 (Debian 12: 2.36). No-ops on 64-bit targets.
# A packager's own setting (from dpkg-buildflags) is kept.
ifeq ($(findstring _TIME_BITS,$(CPPFLAGS) $(CFLAGS)),)
override CPPFLAGS += -D_FILE_OFFSET_BITS=64 -D_TIME_BITS=64
endif
override CPPFLAGS += -Iinclude -D_GNU_SOURCE -DVERSION='"$(VERSION)"' \
	-DSYSCONFDIR='"$(SYSCONFDIR)"' $(shell $(PKG_CONFIG) --cflags $(PKGS))
CFLAGS ?= $(OPT)
override CFLAGS += -std=gnu11 $(WARN) $(HARDEN) $(SAN_FLAGS) -pthread -MMD -MP
override LDFLAGS += -pie -Wl,-z,relro,-z,now -Wl,--as-needed $(SAN_FLAGS) -pthread
# libcryptsetup: only its header (dmcrypt.c loads the library with dlopen at setup time,
# so the daemon never maps it; -ldl for glibc before 2.34).
override LDLIBS += $(shell $(PKG_CONFIG) --libs $(PKGS)) -lm -ldl

# src/LAYER/*.c, one folder per layer (docs/architecture.md); objects mirror the tree under
# $(BUILDDIR)/obj (build/obj/kernel/zram.o), each with its -MMD dependency file beside it.
SRCS := $(wildcard src/*/*.c)
OBJS := $(SRCS:src/%.c=$(BUILDDIR)/obj/%.o)
LIB_OBJS := $(filter-out $(BUILDDIR)/obj/cli/main.o,$(OBJS))
BIN := $(BUILDDIR)/zram-recompd

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILDDIR)/tests/%)
# Helper programs used by the fake-sysfs and VM tiers (page generator etc.).
TOOL_SRCS := $(wildcard tests/tools/*.c)
TOOL_BINS := $(TOOL_SRCS:tests/tools/%.c=$(BUILDDIR)/tools/%)

# Every target that names no file (a file of that name must never make it look done).
.PHONY: all tools unit-bins check test check-unit check-fakesys check-daemon check-strace \
	check-san check-tsan check-long check-vm check-deps check-deb check-fuzz fuzz fuzz-bins deps \
	demo bench deb install uninstall format clean cross check-cross deb-cross

all: $(BIN)

$(BUILDDIR)/obj/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BIN): $(OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Unit tests: tests/unit/test_X.c linked with every library object (not main.o) and cmocka.
# tests/unit/test_X.ldflags, when it exists, holds extra link flags for test_X only (read
# with cat, so one or more whitespace-separated flags). The ones in use are GNU ld wraps:
# -Wl,--wrap=F makes every call to F from the other objects of the link (src/*/*.o and the
# test itself) go to __wrap_F, which the test defines, and __real_F reach the real F. This
# is how a test puts a fake kernel under one function without changing src/: test_pass
# wraps sysfs_write (chosen errnos, mm_stat moving like a real device), test_blockstate
# wraps read (debugfs block_state's whole-line reads), test_state_crash the file calls of
# a state save (a SIGKILL before each in turn). A call inside the object that
# defines F is not redirected (sysfs.c calling sysfs_write itself), and neither are libc's
# own internal calls. Each such test says so in its header comment.
UNIT_LDFLAGS := $(wildcard tests/unit/test_*.ldflags)
$(UNIT_LDFLAGS:tests/unit/%.ldflags=$(BUILDDIR)/tests/%): $(BUILDDIR)/tests/%: tests/unit/%.ldflags
$(BUILDDIR)/tests/%: tests/unit/%.c $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Itests/unit $(shell $(PKG_CONFIG) --cflags $(TEST_PKGS)) \
		$(LDFLAGS) -o $@ $< $(LIB_OBJS) \
		$(shell cat tests/unit/$*.ldflags 2>/dev/null) \
		$(LDLIBS) $(shell $(PKG_CONFIG) --libs $(TEST_PKGS))

$(BUILDDIR)/tools/%: tests/tools/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(shell $(PKG_CONFIG) --cflags lzo2) $(LDFLAGS) -o $@ $< \
		$(TOOL_OBJS) $(LDLIBS) $(shell $(PKG_CONFIG) --libs lzo2)

# advbench (benchmark of `advise`) drives the library code; other tools stay standalone.
$(BUILDDIR)/tools/advbench: $(LIB_OBJS)
$(BUILDDIR)/tools/advbench: TOOL_OBJS = $(LIB_OBJS)
# bsparse (block_state parser throughput, make bench) too.
$(BUILDDIR)/tools/bsparse: $(LIB_OBJS)
$(BUILDDIR)/tools/bsparse: TOOL_OBJS = $(LIB_OBJS)

tools: $(TOOL_BINS)

# Fuzzing (tests/fuzz/README): one libFuzzer program per parser, tests/fuzz/fuzz_X.c, built
# with clang (FUZZ_CC) under ASan+UBSan into $(FUZZ_BUILDDIR) (build-fuzz), linked with the
# library objects compiled the same way (-fsanitize=fuzzer-no-link: coverage, no main()).
# gcc has no libFuzzer, so only these targets and `make check` need clang; `make` never does.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS := -O1 -g -fno-omit-frame-pointer -std=gnu11 $(WARN) -pthread -MMD -MP \
	-fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(FUZZ_BUILDDIR)/%)
FUZZ_LIB_OBJS := $(filter-out $(FUZZ_BUILDDIR)/obj/cli/main.o,$(SRCS:src/%.c=$(FUZZ_BUILDDIR)/obj/%.o))

$(FUZZ_BUILDDIR)/obj/%.o: src/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

# fuzz_argv.c includes src/cli/main.c itself (its parse_args() is static).
$(FUZZ_BUILDDIR)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_LIB_OBJS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -Itests/fuzz -fsanitize=fuzzer -o $@ $< \
		$(FUZZ_LIB_OBJS) $(LDLIBS)

fuzz-bins: $(FUZZ_BINS)

# Every target FUZZ_SECONDS seconds (default 60) from its seed corpus; fails on any crash,
# leak, UB report or broken invariant (tests/fuzz/run.sh). Installs clang first when missing.
fuzz:
	@tests/deps.sh build fuzz
	@$(MAKE) --no-print-directory fuzz-bins
	@FUZZ_BUILDDIR=$(FUZZ_BUILDDIR) FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh

# demo, check and bench are what a newcomer types first: each installs the packages it
# needs (tests/deps.sh, as root or with sudo) before anything compiles, so the builds run in
# the recipe, after it, not as prerequisites. Plain `make` and `make install` never
# install packages.

# Everything, ending with one "N passed, N failed" line: unit and fake-sysfs tiers, the
# same two cross-built for arm64 and armhf and run under qemu-user (the cross tier),
# the same two under ASan+UBSan, the daemon tier under ThreadSanitizer, the Debian package
# (make deb, lintian, its autopkgtest), the real-kernel VM tier (its systemd VM boots the
# packaged files), then every fuzz target for 10 s.
check:
	@tests/deps.sh build vm test fuzz deb cross
	@$(MAKE) --no-print-directory WERROR=1 all unit-bins tools
	@$(MAKE) --no-print-directory WERROR=1 SANITIZE=1 all unit-bins tools
	@$(MAKE) --no-print-directory WERROR=1 SANITIZE=thread all
	@$(MAKE) --no-print-directory BUILDDIR=build fuzz-bins
	@tests/check.sh all

test: check

check-unit: all $(UNIT_BINS)
	@tests/check.sh unit

check-fakesys: all $(TOOL_BINS)
	@tests/check.sh fakesys

check-daemon: all $(BUILDDIR)/tests/ebusy_shim.so
	@tests/check.sh daemon

check-strace: all
	@tests/check.sh strace

check-san:
	@$(MAKE) --no-print-directory SANITIZE=1 all unit-bins tools
	@tests/check.sh san

# The daemon tier and a short soak under ThreadSanitizer (build-tsan); fails on any report.
check-tsan:
	@$(MAKE) --no-print-directory SANITIZE=thread all
	@tests/check.sh tsan

# Long runs, not part of `make check`: the soak test (16 devices on fake sysfs, hot add/remove,
# SIGHUP, changing attributes) for SOAK_SECONDS (default 600); no crash, RSS and fds flat.
SOAK_SECONDS ?= 600
check-long: all
	@SOAK_SECONDS=$(SOAK_SECONDS) tests/check.sh long

# The systemd VM boots the packaged files: the .deb first (make deb).
check-vm: all $(TOOL_BINS)
	@$(MAKE) --no-print-directory deb
	@tests/check.sh vm

# make deb and what it produced: lintian, contents, conffiles, the autopkgtest (tests/deb).
check-deb:
	@tests/check.sh deb

check-deps:
	@tests/check.sh deps

# Cross builds (tests/cross/README): Debian's cross compilers (installed when missing: deps.sh
# cross) and a sysroot of the target's packages fetched into the cache (nothing installed),
# into build-arm64/ and build-armhf/. `make cross [ARCH=arm64|armhf]` builds (both without
# ARCH); `make check-cross [ARCH=...]` builds, runs their unit and fakesys tiers under
# qemu-user (also fetched into the cache) and builds their packages, as `make check` does.
CROSS_ARCHES ?= arm64 armhf
ifeq ($(origin ARCH),command line)
CROSS_ARCHES := $(ARCH)
endif

cross:
	@tests/deps.sh cross
	@set -e; for a in $(CROSS_ARCHES); do tests/cross/build.sh $$a; done

check-cross:
	@tests/deps.sh build test deb cross
	@CROSS_ARCHES="$(CROSS_ARCHES)" tests/check.sh cross

# The Debian package of each of CROSS_ARCHES, cross-built (dpkg-buildpackage -a ARCH, nocheck
# profile) against the sysroot and checked with lintian: build-ARCH/deb/*.deb
# (tests/cross/deb.sh). Like `make deb`, never installs packages.
deb-cross:
	@set -e; for a in $(CROSS_ARCHES); do tests/cross/deb.sh $$a; done

check-fuzz: fuzz-bins
	@FUZZ_BUILDDIR=$(FUZZ_BUILDDIR) tests/check.sh fuzz

unit-bins: $(UNIT_BINS) $(BUILDDIR)/tests/ebusy_shim.so

# The daemon tier's stand-in for another tool that sets a device up meanwhile (LD_PRELOAD).
$(BUILDDIR)/tests/ebusy_shim.so: tests/daemon/ebusy_shim.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -shared -o $@ $< -ldl

deps:
	@tests/deps.sh

# `make demo KERNEL=6.12`: the VM tier's older kernel instead of the newest (7.3).
demo:
	@tests/deps.sh build vm
	@$(MAKE) --no-print-directory all tools
	@tests/vm/demo.sh $(KERNEL)

# Memory, CPU and latency of recompression policies on the real kernel (tests/bench/README);
# reports targets met or missed, asserts nothing.
bench:
	@tests/deps.sh build vm
	@$(MAKE) --no-print-directory all tools
	@tests/bench/run.sh

# What `make install` installs besides the program. Named one by one, never globbed: each is
# a prerequisite, so a missing one stops make ("No rule to make target ...") before anything
# is installed, instead of being skipped. tests/deps/run.sh checks the installed tree.
MANPAGES := docs/zram-recompd.8 docs/zram-recompd.conf.5
# Units and drop-ins, installed under $(SYSTEMDUNITDIR) at their path below systemd/, with
# @SBINDIR@ and @SYSCONFDIR@ replaced. The drop-ins make zram-generator's setup service and
# zram-tools' zramswap.service run `zram-recompd --once --device zramN` before they set
# disksize (README, With zram-generator; With zram-tools).
UNITS := systemd/zram-recompd.service systemd/zram-recompd-backing.service systemd/zram-recompd-once.service \
	systemd/zram-recompd-once.timer systemd/systemd-zram-setup@.service.d/zram-recompd.conf \
	systemd/zramswap.service.d/zram-recompd.conf systemd/zram-recompd-dict@.service \
	systemd/zram-recompd-dict-save@.service
CONFIG := etc/zram-recompd.conf
COMPLETION := etc/completion/zram-recompd

install: $(MANPAGES) $(UNITS) $(CONFIG) $(COMPLETION) $(BIN)
	install -D -m 0755 $(BIN) $(DESTDIR)$(SBINDIR)/zram-recompd
	install -D -m 0644 docs/zram-recompd.8 $(DESTDIR)$(MANDIR)/man8/zram-recompd.8
	install -D -m 0644 docs/zram-recompd.conf.5 $(DESTDIR)$(MANDIR)/man5/zram-recompd.conf.5
	install -D -m 0644 $(COMPLETION) $(DESTDIR)$(BASHCOMPDIR)/zram-recompd
	# never overwrite an admin's configuration
	[ -e $(DESTDIR)$(SYSCONFDIR)/zram-recompd.conf ] || \
		install -D -m 0644 $(CONFIG) $(DESTDIR)$(SYSCONFDIR)/zram-recompd.conf
	install -d -m 0755 $(DESTDIR)$(SYSCONFDIR)/zram-recompd.conf.d
	set -e; for u in $(UNITS); do \
		d=$(DESTDIR)$(SYSTEMDUNITDIR)/$${u#systemd/}; \
		install -d -m 0755 "$${d%/*}"; \
		sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' "$$u" >"$$d.tmp"; \
		chmod 0644 "$$d.tmp"; \
		mv "$$d.tmp" "$$d"; \
	done

# The configuration in $(SYSCONFDIR) stays: it may hold the admin's changes.
uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/zram-recompd $(DESTDIR)$(MANDIR)/man8/zram-recompd.8 \
		$(DESTDIR)$(MANDIR)/man5/zram-recompd.conf.5 $(DESTDIR)$(BASHCOMPDIR)/zram-recompd
	for u in $(UNITS); do rm -f "$(DESTDIR)$(SYSTEMDUNITDIR)/$${u#systemd/}"; done
	rmdir "$(DESTDIR)$(SYSTEMDUNITDIR)/systemd-zram-setup@.service.d" \
		"$(DESTDIR)$(SYSTEMDUNITDIR)/zramswap.service.d" 2>/dev/null || true

# The Debian package (etc/debian/README.source). The packaging lives in etc/debian/, not in a
# top-level debian/ (the distribution's own would clash with it): the files git tracks are
# copied to $(DEB_DIR)/zram-recompd-$(VERSION)/ with etc/debian/ as debian/, the binary
# packages built there (dpkg-buildpackage -b), then the source package (-S: so that lintian
# checks the source's fields too), and lintian must find no error or warning in either that
# debian/*lintian-overrides does not justify. Result: $(DEB_DIR)/zram-recompd_$(VERSION)_ARCH.deb.
# Like `make`, it never installs packages: tests/deps.sh (groups build test deb) does.
# The package builds in a clean environment, as on a build daemon: make exports its command
# line's variables (BUILDDIR=..., WERROR=1, CFLAGS=...) and MAKEFLAGS to every recipe, and
# none of them may reach debian/rules. Only PATH, HOME and the two DEB_BUILD_* variables a
# packager sets are passed; DEB_BUILD_OPTIONS defaults to parallel=2.
DEB_DIR := $(BUILDDIR)/deb
DEB_SRC := $(DEB_DIR)/zram-recompd-$(VERSION)
DEB_ENV = PATH="$$PATH" HOME="$$HOME" DEB_BUILD_OPTIONS="$${DEB_BUILD_OPTIONS-parallel=2}" \
	DEB_BUILD_PROFILES="$${DEB_BUILD_PROFILES-}"

deb:
	@for t in dpkg-buildpackage dpkg-parsechangelog dh lintian git; do \
		command -v $$t >/dev/null 2>&1 || { echo "make deb: $$t not found (packages" \
			"dpkg-dev debhelper lintian git; the build and test groups of deps.sh)" >&2; \
			exit 1; }; \
	done
	@v=$$(dpkg-parsechangelog -l etc/debian/changelog -S Version) && [ "$$v" = "$(VERSION)" ] || \
		{ echo "etc/debian/changelog: version '$$v' is not the program's $(VERSION) (Makefile VERSION)" >&2; \
		exit 1; }
	rm -rf -- $(DEB_DIR)
	mkdir -p $(DEB_SRC)
	git ls-files -z | tar --null -T - -cf - | tar -C $(DEB_SRC) -xf -
	cp -R etc/debian $(DEB_SRC)/debian
	cd $(DEB_SRC) && env -i $(DEB_ENV) dpkg-buildpackage -us -uc -b
	cd $(DEB_SRC) && env -i $(DEB_ENV) dpkg-buildpackage -us -uc -S
	lintian --fail-on error,warning --display-info \
		$(DEB_DIR)/zram-recompd_$(VERSION)_$$(dpkg --print-architecture).changes \
		$(DEB_DIR)/zram-recompd_$(VERSION)_source.changes

format:
	clang-format -i src/*/*.c src/*/*.h include/*.h tests/unit/*.c tests/unit/*.h \
		tests/tools/*.c tests/fuzz/*.c tests/fuzz/*.h

# The build directory in use (BUILDDIR, default build), the sanitizer builds' build-san and
# build-tsan, the fuzz build's (FUZZ_BUILDDIR, default build-fuzz) and the cross builds'.
clean:
	rm -rf -- $(sort $(BUILDDIR) build-san build-tsan build-fuzz $(FUZZ_BUILDDIR) \
		build-arm64 build-armhf)

-include $(OBJS:.o=.d) $(FUZZ_LIB_OBJS:.o=.d) $(FUZZ_BINS:=.d)
