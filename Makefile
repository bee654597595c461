# SPDX-License-Identifier: GPL-2.0
#
# stitch build.  `make` leaves ./stitch; `make test` runs unit tests (under
# ASan/UBSan) and the integration tests (root, real BPF).  Every user-space
# source in src/ except the main file goes into one static library that the
# binary, the tests and the fuzzers all link, so a new file needs no edit here.

PREFIX ?= /usr/local
CC ?= gcc
CLANG ?= clang
BPFTOOL ?= bpftool

BUILD := build
OBJ := $(BUILD)/obj
AOBJ := $(BUILD)/asan

WARN := -Wall -Wextra -Werror -Wno-unused-parameter -Wno-missing-field-initializers
CFLAGS ?= -O2 -g
CFLAGS += $(WARN) -std=gnu11 -D_GNU_SOURCE -I$(BUILD) -Isrc -fno-omit-frame-pointer
LDLIBS := -lbpf -ldw -lelf -llzma -lz -lpthread
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined

BPF_SRCS := $(wildcard src/*.bpf.c)
SKELS := $(patsubst src/%.bpf.c,$(BUILD)/%.skel.h,$(BPF_SRCS))
MAIN_SRC := src/stitch.c
LIB_SRCS := $(filter-out $(BPF_SRCS) $(MAIN_SRC),$(wildcard src/*.c))
LIB_OBJS := $(patsubst src/%.c,$(OBJ)/%.o,$(LIB_SRCS))
ALIB_OBJS := $(patsubst src/%.c,$(AOBJ)/%.o,$(LIB_SRCS))
HDRS := $(wildcard src/*.h)

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
UNIT_HELPERS := $(filter-out $(UNIT_SRCS),$(wildcard tests/unit/*.c))
FUZZ_SRCS := $(wildcard fuzz/fuzz_*.c)
FUZZ_BINS := $(patsubst fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRCS))

ARCH_DEF := -D__TARGET_ARCH_x86

.PHONY: all clean install test unit integration fuzz fuzz-smoke bench asan deps golden browser
.SECONDARY:
SHELL := /bin/bash
all: stitch

deps:
	./scripts/install-deps.sh

$(BUILD)/vmlinux.h:
	@mkdir -p $(BUILD)
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

$(BUILD)/%.bpf.o: src/%.bpf.c $(HDRS) $(BUILD)/vmlinux.h
	$(CLANG) -g -O2 -Wall -Werror -target bpf $(ARCH_DEF) -I$(BUILD) -Isrc -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

$(OBJ)/%.o: src/%.c $(HDRS) $(SKELS)
	@mkdir -p $(OBJ)
	$(CC) $(CFLAGS) -c $< -o $@

$(AOBJ)/%.o: src/%.c $(HDRS) $(SKELS)
	@mkdir -p $(AOBJ)
	$(CC) $(CFLAGS) $(SANFLAGS) -c $< -o $@

$(BUILD)/libstitch.a: $(LIB_OBJS)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libstitch-asan.a: $(ALIB_OBJS)
	rm -f $@ && ar rcs $@ $^

stitch: $(MAIN_SRC) $(BUILD)/libstitch.a $(HDRS) $(SKELS)
	$(CC) $(CFLAGS) $(MAIN_SRC) $(BUILD)/libstitch.a $(LDLIBS) -o $@

# The same binary under ASan/UBSan: the integration tests can run it too.
$(BUILD)/stitch-asan: $(MAIN_SRC) $(BUILD)/libstitch-asan.a $(HDRS) $(SKELS)
	$(CC) $(CFLAGS) $(SANFLAGS) $(MAIN_SRC) $(BUILD)/libstitch-asan.a $(LDLIBS) -o $@
asan: $(BUILD)/stitch-asan

$(BUILD)/tests/%: tests/unit/%.c $(UNIT_HELPERS) $(BUILD)/libstitch-asan.a $(HDRS)
	@mkdir -p $(BUILD)/tests
	$(CC) $(CFLAGS) $(SANFLAGS) -Itests/unit $< $(UNIT_HELPERS) $(BUILD)/libstitch-asan.a \
		-lcmocka $(LDLIBS) -o $@

unit: $(UNIT_BINS)
	@./tests/unit/run.sh $(UNIT_BINS)

# Every output format of a fixed profile against the expected files.
golden: stitch
	@./tests/golden/run.sh

# The integration suite runs twice: the release binary, then the ASan/UBSan one.
integration: stitch $(BUILD)/stitch-asan
	@./tests/integration/run.sh
	@STITCH=$(BUILD)/stitch-asan ./tests/integration/run.sh

# Replay each fuzz corpus, then fuzz briefly: keeps the targets building and honest.
FUZZ_SECONDS ?= 20
fuzz-smoke: $(FUZZ_BINS)
	@for f in $(FUZZ_BINS); do \
		name=$$(basename $$f | sed 's/^fuzz_//'); \
		mkdir -p $(BUILD)/fuzz/corpus-$$name; \
		echo "fuzz: $$name for $(FUZZ_SECONDS)s"; \
		$$f -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 -print_final_stats=1 \
			$(BUILD)/fuzz/corpus-$$name fuzz/corpus/$$name 2>&1 | \
			grep -E 'stat::number_of_executed_units|ERROR|SUMMARY' ; \
		test $${PIPESTATUS[0]} -eq 0 || exit 1; \
	done

test: unit integration fuzz-smoke browser golden

# The SVG flame graph in headless Chromium: zoom, search, escaping.
browser: stitch
	@./tests/browser/flamegraph_test.sh

# libFuzzer targets over the parsers of untrusted input (ELF, CFI, ...).
$(BUILD)/fuzz/%: fuzz/%.c $(LIB_SRCS) $(HDRS) $(SKELS)
	@mkdir -p $(BUILD)/fuzz
	$(CLANG) -g -O1 $(WARN) -std=gnu11 -D_GNU_SOURCE -I$(BUILD) -Isrc \
		-fsanitize=fuzzer,address,undefined $< $(LIB_SRCS) $(LDLIBS) -o $@
fuzz: $(FUZZ_BINS)

bench: stitch
	./bench/run.sh

install: stitch
	install -D -m 0755 stitch $(DESTDIR)$(PREFIX)/bin/stitch

clean:
	rm -rf $(BUILD) stitch
