#!/usr/bin/env bash
# Install every Debian package stitch needs to build, test and benchmark.
# Used by the README and by .ci/run, so a fresh machine and CI see the same set.
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: run as root (apt-get needs it): sudo $0" >&2
	exit 1
fi

packages=(
	# build
	# (g++: libstdc++, whose __cxa_demangle names C++ frames; and the unit test's C++ program)
	make gcc g++ clang llvm libbpf-dev bpftool libelf-dev libdw-dev zlib1g-dev liblzma-dev pkg-config
	# debug files by build-id from debuginfod servers (elfutils' client library)
	libdebuginfod-dev
	# stitch agent's pushes over HTTP(S) (libcurl with OpenSSL: the system's CAs)
	libcurl4-openssl-dev
	# stitch agent's tests: a server that decodes pushes with the upstream .proto files
	protobuf-compiler python3-protobuf openssl
	# tests: unit tests, sanitizer runtimes, USDT headers, workloads
	libcmocka-dev libclang-rt-14-dev systemtap-sdt-dev binutils util-linux xz-utils
	# a linker with another layout (lld shares a page between text and rodata)
	lld
	# output checks: well-formed SVG, speedscope JSON, the real pprof (go tool pprof)
	libxml2-utils jq golang-go
	# debug symbols for libc: the tests name libc-internal frames through
	# /usr/lib/debug/.build-id, the path users with -dbg packages take
	libc6-dbg
	# the real debuginfod server the debuginfod tests start on 127.0.0.1
	debuginfod
	# peers for benchmarks (libbpf-tools: offcputime, funclatency; elfutils: eu-stack)
	linux-perf bpftrace libbpf-tools elfutils gdb
	# protoc: the pprof tests decode our output with the real tool
	protobuf-compiler
	# the SVG flame graph test runs in a real (headless) browser
	chromium
	# interpreter frames (issue: interpreters): the stock interpreters, their internal headers
	# (python3.11-dev: internal/; ruby3.1-dev: rb_mjit_min_header) for the offset checks
	python3.11 python3.11-dev ruby3.1 ruby3.1-dev
	# perl 5.36 (Debian perl is threaded): libperl5.36 ships CORE/*.h and config.h, which
	# offsets-perl.c compiles against to check tools/interp-walk/perl536.h
	perl libperl5.36
	# JIT runtimes (tests/integration/jit.sh): node (V8) and the JVM with javac and jcmd;
	# node may come from another source too, at /usr/bin/node
	nodejs openjdk-17-jdk-headless
	# the other Debian releases' interpreters, run in roots built by mmdebstrap
	# (tests/integration/roots.sh)
	mmdebstrap
)

export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y --no-install-recommends "${packages[@]}" >/dev/null 2>&1; then
	apt-get update -qq
	apt-get install -y --no-install-recommends "${packages[@]}"
fi
