# SPDX-License-Identifier: GPL-2.0
#
# stitch build.  `make` leaves ./stitch; `make test` runs unit tests (under
# ASan/UBSan) and the integration tests (root, real BPF).  Sources are found
# recursively under src/ (one folder per pipeline stage or command; project
# headers are included by their path from src/, as "unwind/cfi.h").  Every
# user-space source except the main file goes into one static library that the
# binary, the tests and the fuzzers all link, so a new file or folder needs no
# edit here.  A BPF program is src/<folder>/NAME.bpf.c; its skeleton is
# build/NAME.skel.h, so BPF program names are unique across folders.

PREFIX ?= /usr/local
CLANG ?= clang
BPFTOOL ?= bpftool

# The architecture built for: this machine's, or ARCH=arm64 / ARCH=x86 (the
# kernel's names; x86_64, amd64 and aarch64 are taken too).  Natively the
# binary is ./stitch and the build tree build/.  A cross build writes
# build-ARCH/stitch with Debian's cross compiler and the ARCH multiarch -dev
# packages (scripts/install-deps.sh), its BPF programs compiled for ARCH's
# pt_regs against the BTF of Debian's ARCH kernel (scripts/kernel-btf.py):
# the types a running kernel would give, as CO-RE relocates them anyway.
arch_of = $(patsubst x86_64,x86,$(patsubst amd64,x86,$(patsubst aarch64,arm64,$(1))))
HOST_ARCH := $(call arch_of,$(shell uname -m))
ARCH ?= $(HOST_ARCH)
override ARCH := $(call arch_of,$(ARCH))
ifeq ($(filter x86 arm64,$(ARCH)),)
$(error ARCH=$(ARCH): stitch builds for x86 (x86_64) and arm64 (aarch64))
endif
TRIPLET_x86 := x86_64-linux-gnu
TRIPLET_arm64 := aarch64-linux-gnu
TRIPLET := $(TRIPLET_$(ARCH))
ifeq ($(ARCH),$(HOST_ARCH))
CC ?= gcc
BUILD := build
BIN := stitch
KERNEL_BTF ?= /sys/kernel/btf/vmlinux
else
CC := $(TRIPLET)-gcc
LD := $(TRIPLET)-ld
AR := $(TRIPLET)-ar
OBJCOPY := $(TRIPLET)-objcopy
BUILD := build-$(ARCH)
BIN := $(BUILD)/stitch
KERNEL_BTF ?= $(BUILD)/kernel.btf
endif
ifeq ($(origin CC),default)
CC := gcc
endif
OBJCOPY ?= objcopy

OBJ := $(BUILD)/obj
AOBJ := $(BUILD)/asan

WARN := -Wall -Wextra -Werror -Wno-unused-parameter -Wno-missing-field-initializers
CFLAGS ?= -O2 -g
CFLAGS += $(WARN) -std=gnu11 -D_GNU_SOURCE -I$(BUILD) -Isrc -fno-omit-frame-pointer
LDLIBS := -lbpf -ldw -ldebuginfod -lelf -llzma -lz -lpthread -lcurl -lcrypto -lstdc++ -lm
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined

BPF_SRCS := $(shell find src -name '*.bpf.c' | sort)
SKELS := $(addprefix $(BUILD)/,$(notdir $(BPF_SRCS:.bpf.c=.skel.h)))
MAIN_SRC := src/main.c
LIB_SRCS := $(filter-out $(BPF_SRCS) $(MAIN_SRC),$(shell find src -name '*.c' | sort))
LIB_OBJS := $(patsubst src/%.c,$(OBJ)/%.o,$(LIB_SRCS))
ALIB_OBJS := $(patsubst src/%.c,$(AOBJ)/%.o,$(LIB_SRCS))
# languages.def: the table of interpreters, read by the preprocessor (src/interp/languages.def).
# The preprocessor cannot #include from a macro: each interpreter's headers
# named by its line there are listed in headers made here (interp_layouts.h:
# every src/interp/NAME/NAME_layout.h, for interp.h; interp_walkers.bpf.h:
# every walker src/interp/NAME/NAME.bpf.h, for walk_thread.bpf.h;
# interp_roots.bpf.h: every latency root's kernel side
# src/interp/NAME/NAME_root.bpf.h, of the languages that have one, for
# latency.bpf.c).
INTERP_DEF := src/interp/languages.def
INTERP_ROOT_HDRS := $(wildcard src/interp/*/*_root.bpf.h)
INTERP_GEN := $(BUILD)/interp_layouts.h $(BUILD)/interp_walkers.bpf.h $(BUILD)/interp_roots.bpf.h
# The target's system call numbers by name (record/syscall_nr.c), from its own headers.
SYSCALL_GEN := $(BUILD)/syscall_numbers.h
HDRS := $(shell find src -name '*.h' -o -name '*.def' | sort) $(INTERP_GEN) $(SYSCALL_GEN)
vpath %.bpf.c $(sort $(dir $(BPF_SRCS)))

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
UNIT_HELPERS := $(filter-out $(UNIT_SRCS),$(wildcard tests/unit/*.c))
FUZZ_SRCS := $(wildcard fuzz/fuzz_*.c)
FUZZ_BINS := $(patsubst fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRCS))

ARCH_DEF := -D__TARGET_ARCH_$(ARCH)
# libbpf's usdt.bpf.h includes <linux/errno.h>, whose <asm/errno.h> lives in
# the multiarch directory that clang -target bpf does not search.
BPF_INC := -I$(BUILD) -Isrc -I/usr/include/$(TRIPLET)

.PHONY: all clean install test test-build kernels arm64 unit-arm64 agent-encode-check check-docs check-layers bpf-headers bpf-stack unit integration roots fuzz fuzz-smoke bench asan deps golden browser interp-walk
.SECONDARY:
SHELL := /bin/bash
all: $(BIN) $(BUILD)/lib/libstitch-stall.so $(BUILD)/lib/libstitch-stall.a $(BUILD)/lib/pkgconfig/stitch-stall.pc

deps:
	./scripts/install-deps.sh

$(BUILD)/vmlinux.h: | $(KERNEL_BTF)
	@mkdir -p $(BUILD)
	$(BPFTOOL) btf dump file $(KERNEL_BTF) format c > $@.tmp && mv $@.tmp $@

$(BUILD)/kernel.btf:
	@mkdir -p $(BUILD)
	./scripts/kernel-btf.py --debian $(ARCH) $@

# NAME of every INTERP_LANG(ID, NAME, ...) line, as #include "interp/NAME/NAME$(1)".
interp_includes = { echo '/* Made by the Makefile from $(INTERP_DEF): do not edit. */'; \
	sed -n 's|^INTERP_LANG( *[A-Z0-9_]*, *\([a-z0-9_]*\).*|\#include "interp/\1/\1$(1)"|p' \
		$(INTERP_DEF); }

# { "read", 0 }, ... for every __NR_ the compiler's <asm/unistd.h> defines.
$(BUILD)/syscall_numbers.h:
	@mkdir -p $(BUILD)
	{ echo '/* Made by the Makefile from <asm/unistd.h>: do not edit. */'; \
	  echo '#include <asm/unistd.h>' | $(CC) -dM -E - | \
	  sed -n 's/^#define __NR_\([a-z0-9_]*\) .*/{ "\1", __NR_\1 },/p' | LC_ALL=C sort; \
	} >$@.tmp && mv $@.tmp $@

$(BUILD)/interp_layouts.h: $(INTERP_DEF)
	@mkdir -p $(BUILD)
	$(call interp_includes,_layout.h) >$@.tmp && mv $@.tmp $@

$(BUILD)/interp_walkers.bpf.h: $(INTERP_DEF)
	@mkdir -p $(BUILD)
	$(call interp_includes,.bpf.h) >$@.tmp && mv $@.tmp $@

# ID,NAME,member of every INTERP_LANG line whose language has a root (NAME_root.bpf.h).
interp_roots = sed -n \
	's|^INTERP_LANG( *\([A-Z0-9_]*\), *\([a-z0-9_]*\), *\([a-z0-9_]*\),.*|\1,\2,\3|p' \
	$(INTERP_DEF) | while IFS=, read -r id name member; do \
		if [ -f src/interp/$$name/$${name}_root.bpf.h ]; then \
			echo "$$id,$$name,$$member"; \
		fi; \
	done

# Their headers, and INTERP_ROOTS(X): X(ID, NAME, member) for each.
$(BUILD)/interp_roots.bpf.h: $(INTERP_DEF) $(INTERP_ROOT_HDRS)
	@mkdir -p $(BUILD)
	@roots=$$($(interp_roots)); \
	{ echo '/* Made by the Makefile from $(INTERP_DEF): do not edit. */'; \
	  for r in $$roots; do n=$$(echo "$$r" | cut -d, -f2); \
		echo "#include \"interp/$$n/$${n}_root.bpf.h\""; done; \
	  printf '#define INTERP_ROOTS(X)'; \
	  for r in $$roots; do printf ' X(%s)' "$$(echo "$$r" | sed 's/,/, /g')"; done; echo; \
	} >$@.tmp && mv $@.tmp $@

$(BUILD)/%.bpf.o: %.bpf.c $(HDRS) $(BUILD)/vmlinux.h
	$(CLANG) -g -O2 -Wall -Werror -target bpf $(ARCH_DEF) $(BPF_INC) -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

$(OBJ)/%.o: src/%.c $(HDRS) $(SKELS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(AOBJ)/%.o: src/%.c $(HDRS) $(SKELS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -c $< -o $@

$(BUILD)/libstitch.a: $(LIB_OBJS)
	rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/libstitch-asan.a: $(ALIB_OBJS)
	rm -f $@ && $(AR) rcs $@ $^

$(BIN): $(MAIN_SRC) $(BUILD)/libstitch.a $(HDRS) $(SKELS)
	$(CC) $(CFLAGS) $(MAIN_SRC) $(BUILD)/libstitch.a $(LDLIBS) -o $@

# The same binary under ASan/UBSan: the integration tests can run it too.
$(BUILD)/stitch-asan: $(MAIN_SRC) $(BUILD)/libstitch-asan.a $(HDRS) $(SKELS)
	$(CC) $(CFLAGS) $(SANFLAGS) $(MAIN_SRC) $(BUILD)/libstitch-asan.a $(LDLIBS) -o $@
asan: $(BUILD)/stitch-asan

# Unit tests run under ASan/UBSan.  A cross build's (run under qemu-user,
# make unit-arm64) go without: the same tests have them on x86-64, and a
# second instrumented library is ~2 minutes of CI.
ifeq ($(ARCH),$(HOST_ARCH))
UNIT_LIB := $(BUILD)/libstitch-asan.a
UNIT_SAN := $(SANFLAGS)
else
UNIT_LIB := $(BUILD)/libstitch.a
UNIT_SAN :=
endif

$(BUILD)/tests/%: tests/unit/%.c $(UNIT_HELPERS) $(UNIT_LIB) $(HDRS) $(SKELS)
	@mkdir -p $(BUILD)/tests
	$(CC) $(CFLAGS) $(UNIT_SAN) -Itests/unit -DUNIT_CC='"$(CC)"' $< $(UNIT_HELPERS) $(UNIT_LIB) \
		-lcmocka $(LDLIBS) -o $@

# The agent's encoders from a shell, for tests/agent/encode_check.sh (not part of stitch).
$(BUILD)/tests/push_encode: tests/agent/push_encode.c $(BUILD)/libstitch-asan.a $(HDRS) $(SKELS)
	@mkdir -p $(BUILD)/tests
	$(CC) $(CFLAGS) $(SANFLAGS) $< $(BUILD)/libstitch-asan.a $(LDLIBS) -o $@

agent-encode-check: $(BUILD)/tests/push_encode
	@./tests/agent/encode_check.sh

unit: $(UNIT_BINS)
	@./tests/unit/run.sh $(UNIT_BINS)

# Every output format of a fixed profile against the expected files.
golden: $(BIN)
	@./tests/golden/run.sh

# The integration suite runs twice: the release binary, then the ASan/UBSan one.
integration: $(BIN) $(BUILD)/stitch-asan $(BUILD)/stall/stall_loop roots
	@./tests/integration/run.sh
	@STITCH=$(BUILD)/stitch-asan STITCH_TEST_SET=asan ./tests/integration/run.sh

# The integration tests of every command, event kind and language on Debian's
# stock kernels (5.10, 6.1, 6.12, the newest), booted under QEMU (docs/kernels.md),
# and from an x86-64 machine on Debian 12's arm64 kernel with the arm64 build.
kernels: $(BIN) $(BUILD)/stall/stall_loop $(if $(filter x86,$(HOST_ARCH)),arm64)
	@./tests/vm/matrix.sh

# arm64 from this x86-64 machine (docs/arm64.md): the cross build, and the
# unwinding unit tests built for arm64, run here under qemu-user (binfmt_misc):
# gcc's arm64 CFI, both unwinders' arm64 steps, real FP-less arm64 stacks.
ARM64_UNIT := $(addprefix build-arm64/tests/,test_cfi test_unwind test_kunwind)
# Built in parallel even under a serial make test: ~2 of its minutes.
arm64:
	$(MAKE) -j$(shell nproc) ARCH=arm64 all build-arm64/stall/stall_loop build-arm64/stall/plugin.so \
		$(ARM64_UNIT)
unit-arm64: arm64
	@./tests/unit/run.sh $(ARM64_UNIT)

# Debian release roots (bullseye, bookworm, trixie, sid) the interpreter tests run
# in as containers: built once by mmdebstrap, cached in $STITCH_ROOTS.  On
# x86-64 the arm64 guest's root too, with those releases' roots for arm64
# inside it (tests/vm/rootfs.sh), alongside: the kernel matrix finds it made.
roots:
	@$(if $(filter x86,$(HOST_ARCH)),./tests/vm/rootfs.sh bookworm-arm64 & arm=$$!;) \
	./tests/integration/build-roots.sh; rc=$$?; \
	$(if $(filter x86,$(HOST_ARCH)),wait $$arm || rc=1;) exit $$rc

# Replay each fuzz corpus, then fuzz briefly (5 s a target,
# fourteen: 70 s; make fuzz-smoke FUZZ_SECONDS=600 for longer): keeps the targets
# building and honest.
FUZZ_SECONDS ?= 5
fuzz-smoke: $(FUZZ_BINS)
	@for f in $(FUZZ_BINS); do \
		name=$$(basename $$f | sed 's/^fuzz_//'); \
		mkdir -p $(BUILD)/fuzz/corpus-$$name; \
		echo "fuzz: $$name for $(FUZZ_SECONDS)s"; \
		$$f -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 -print_final_stats=1 \
			-artifact_prefix=$(BUILD)/fuzz/$$name- \
			$(BUILD)/fuzz/corpus-$$name fuzz/corpus/$$name >$(BUILD)/fuzz/$$name.log 2>&1; \
		rc=$$?; grep -E 'stat::number_of_executed_units' $(BUILD)/fuzz/$$name.log; \
		if [ $$rc -ne 0 ]; then \
			grep -v -E '^#[0-9]|Uses: [0-9]' $(BUILD)/fuzz/$$name.log | tail -60; \
			for a in $(BUILD)/fuzz/$$name-*; do \
				[ -f "$$a" ] && echo "fuzz: input $$a:" && od -c "$$a" | head -20; \
			done; \
			exit 1; \
		fi; \
	done

# make test: the checks of the sources, everything built (in parallel, even
# under a serial make test: the ASan library and the fuzz targets took 150 s
# of CI's time one file at a time), the host's suites that time what they
# trace (integration, its sanitizer pass, the stall library's) alone on the
# machine, then the kernel matrix's guests, the first beside the host's
# other suites (tests/all.sh).
HOST_ALONE := integration stall-test
HOST_BESIDE := unit $(if $(filter x86,$(HOST_ARCH)),unit-arm64) fuzz-smoke browser golden interp-walk \
	agent-encode-check
test: check-docs check-layers bpf-headers bpf-stack test-build $(if $(filter x86,$(HOST_ARCH)),arm64) roots
	@./tests/all.sh "$(MAKE) --no-print-directory $(HOST_ALONE)" \
		"$(MAKE) --no-print-directory $(HOST_BESIDE)"

test-build:
	@$(MAKE) -s --no-print-directory -j$(shell nproc) all $(BUILD)/stitch-asan $(UNIT_BINS) $(FUZZ_BINS) $(STALL_LIBS) \
		$(BUILD)/stall/stall_loop $(BUILD)/stall/plugin.so $(BUILD)/tests/push_encode

# Every path README.md and docs/ name exists.
check-docs:
	@./scripts/check-docs.sh

# Every BPF header compiles on its own: it includes what it uses.
BPF_HDRS := $(shell find src -name '*.bpf.h' | sort)
bpf-headers: $(BUILD)/vmlinux.h $(INTERP_GEN)
	@for h in $(BPF_HDRS); do \
		$(CLANG) -g -O2 -Wall -Werror -Wno-unused-function -target bpf $(ARCH_DEF) \
			$(BPF_INC) -fsyntax-only -x c $$h || exit 1; \
	done; echo "bpf-headers: $(words $(BPF_HDRS)) headers compile on their own"

# Every BPF program's deepest chain of calls fits the 512 bytes of stack the
# verifier allows where the kernel gives no private stacks (before 6.13).
BPF_OBJS := $(addprefix $(BUILD)/,$(notdir $(BPF_SRCS:.bpf.c=.bpf.o)))
bpf-stack: $(BPF_OBJS)
	@./scripts/bpf-stack.py $(BPF_OBJS) >$(BUILD)/bpf-stack.txt || { cat $(BUILD)/bpf-stack.txt; exit 1; }
	@sort -rn $(BUILD)/bpf-stack.txt | head -1 | \
		awk '{ print "bpf-stack: every program within 512 bytes (deepest: " $$1 ", " $$2 ")" }'

# No include or call cycles between files.
check-layers: $(LIB_OBJS)
	@./scripts/check-layers.sh $(LIB_OBJS)

# Out-of-process interpreter walkers (the oracle for the BPF walkers): offsets checked against
# the interpreters' own headers, then every thread of real Python/Ruby workloads walked.
interp-walk: roots
	./tools/interp-walk/run-checks.sh

# The SVG flame graph in headless Chromium: zoom, search, escaping.
browser: $(BIN)
	@./tests/browser/flamegraph_test.sh

# libFuzzer targets over the parsers of untrusted input (ELF, CFI, pprof, ...).
# The sources are compiled once, instrumented, into one library every target
# links (was: all of them again for each target, most of make test's fuzz time).
FOBJ := $(BUILD)/fuzzobj
FLIB_OBJS := $(patsubst src/%.c,$(FOBJ)/%.o,$(LIB_SRCS))
FUZZ_CFLAGS := -g -O1 $(WARN) -std=gnu11 -D_GNU_SOURCE -I$(BUILD) -Isrc

$(FOBJ)/%.o: src/%.c $(HDRS) $(SKELS)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined -c $< -o $@

$(BUILD)/libstitch-fuzz.a: $(FLIB_OBJS)
	rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/fuzz/%: fuzz/%.c $(BUILD)/libstitch-fuzz.a $(HDRS)
	@mkdir -p $(BUILD)/fuzz
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined $< $(BUILD)/libstitch-fuzz.a \
		$(LDLIBS) -o $@
fuzz: $(FUZZ_BINS)

bench: $(BIN)
	./bench/run.sh

install: $(BIN) install-stall
	install -D -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/stitch

clean:
	rm -rf $(BUILD) $(BIN)

# ---- libstitch-stall ----
# The stall detector library for event loops (lib/stall, issue 6).  It carries
# its own copies of the CFI builder and unwinder objects, built -fPIC with
# hidden visibility: only stitch_stall_* is exported, and the .a has the
# internal names made local (ld -r + objcopy), so it can be linked next to
# anything, libstitch.a included.  Needs only libelf.
STALL_DIR := lib/stall
STALL_OBJDIR := $(BUILD)/stall
STALL_SRCS := $(wildcard $(STALL_DIR)/*.c) src/unwind/cfi.c src/unwind/unwind.c src/unwind/uret.c \
	src/unwind/sigreturn.c src/unwind/arm64_leaf.c src/unwind/table_edit.c src/util/elf_util.c
STALL_OBJS := $(patsubst %.c,$(STALL_OBJDIR)/%.o,$(STALL_SRCS))
STALL_HDRS := $(wildcard $(STALL_DIR)/*.h $(STALL_DIR)/stitch/*.h) src/unwind/cfi.h src/unwind/unwind.h \
	src/unwind/unwind_table.h src/unwind/uret.h src/unwind/sigreturn.h src/unwind/arm64_leaf.h \
	src/unwind/table_edit.h src/util/elf_util.h
STALL_CFLAGS := -O2 -g $(WARN) -std=gnu11 -D_GNU_SOURCE -fPIC -fvisibility=hidden \
	-DSTITCH_STALL_BUILD -Isrc -I$(STALL_DIR)
STALL_VERSION := 0.1.0
STALL_LIBS := $(BUILD)/lib/libstitch-stall.so $(BUILD)/lib/libstitch-stall.a \
	$(BUILD)/lib/pkgconfig/stitch-stall.pc

.PHONY: stall stall-test stall-bench install-stall
stall: $(STALL_LIBS)

$(STALL_OBJDIR)/%.o: %.c $(STALL_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(STALL_CFLAGS) -c $< -o $@

$(BUILD)/lib/libstitch-stall.so: $(STALL_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libstitch-stall.so -Wl,--no-undefined -Wl,-z,defs \
		$(STALL_OBJS) -lelf -lpthread -o $@

$(BUILD)/lib/libstitch-stall.a: $(STALL_OBJS)
	@mkdir -p $(dir $@)
	$(LD) -r $(STALL_OBJS) -o $(STALL_OBJDIR)/stitch-stall.o
	$(OBJCOPY) --localize-hidden $(STALL_OBJDIR)/stitch-stall.o
	rm -f $@ && $(AR) rcs $@ $(STALL_OBJDIR)/stitch-stall.o

# $(1): the prefix written into the file.
stall_pc = sed -e 's|@PREFIX@|$(1)|' -e 's|@VERSION@|$(STALL_VERSION)|' $(STALL_DIR)/stitch-stall.pc.in

$(BUILD)/lib/pkgconfig/stitch-stall.pc: $(STALL_DIR)/stitch-stall.pc.in
	@mkdir -p $(dir $@)
	$(call stall_pc,$(PREFIX)) > $@

install-stall: $(STALL_LIBS)
	install -D -m 0644 $(STALL_DIR)/stitch/stall.h $(DESTDIR)$(PREFIX)/include/stitch/stall.h
	install -D -m 0755 $(BUILD)/lib/libstitch-stall.so $(DESTDIR)$(PREFIX)/lib/libstitch-stall.so
	install -D -m 0644 $(BUILD)/lib/libstitch-stall.a $(DESTDIR)$(PREFIX)/lib/libstitch-stall.a
	@mkdir -p $(DESTDIR)$(PREFIX)/lib/pkgconfig
	$(call stall_pc,$(PREFIX)) > $(DESTDIR)$(PREFIX)/lib/pkgconfig/stitch-stall.pc

# The test event loop is built like the programs it must handle: -O2, no frame pointers.
$(BUILD)/stall/stall_loop: tests/stall/stall_loop.c tests/workloads/cpu_spin.h tests/workloads/task_clock.h $(BUILD)/lib/libstitch-stall.so
	$(CC) -O2 -fomit-frame-pointer -g $(WARN) -std=gnu11 -D_GNU_SOURCE -I$(STALL_DIR) $< \
		-L$(BUILD)/lib -lstitch-stall -Wl,-rpath,$(abspath $(BUILD)/lib) -lpthread -o $@

# A library it dlopens after the detector started (test_dlopen_after_start).
$(BUILD)/stall/plugin.so: tests/stall/plugin.c
	$(CC) -O2 -fomit-frame-pointer -g -shared -fPIC $(WARN) -o $@ $<

stall-test: $(STALL_LIBS) $(BUILD)/stall/stall_loop $(BUILD)/stall/plugin.so
	@./tests/stall/run.sh

$(BUILD)/stall/stall_bench: bench/stall_bench.c $(BUILD)/lib/libstitch-stall.so $(BUILD)/lib/libstitch-stall.a
	$(CC) -O2 -g $(WARN) -std=gnu11 -D_GNU_SOURCE -I$(STALL_DIR) $< \
		-L$(BUILD)/lib -lstitch-stall -Wl,-rpath,$(abspath $(BUILD)/lib) -lpthread -o $@
	$(CC) -O2 -g $(WARN) -std=gnu11 -D_GNU_SOURCE -I$(STALL_DIR) $< \
		$(BUILD)/lib/libstitch-stall.a -lelf -lpthread -o $@-static

stall-bench: $(BUILD)/stall/stall_bench
	$(BUILD)/stall/stall_bench
	$(BUILD)/stall/stall_bench-static
# ---- end libstitch-stall ----
