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
	# stitch agent's pushes over HTTP(S) (libcurl with OpenSSL: the system's CAs);
	# libcrypto's SHA-256 checks a cached unwind table against its binary
	libcurl4-openssl-dev libssl-dev
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
	# peers for benchmarks (libbpf-tools: offcputime, funclatency; elfutils: eu-stack;
	# bpfcc-tools: memleak, which compiles against kernel headers: Debian's, where
	# the running kernel has none (bench/alloc_cost.sh))
	linux-perf bpftrace libbpf-tools elfutils gdb bpfcc-tools linux-headers-$(dpkg --print-architecture)
	# protoc: the pprof tests decode our output with the real tool
	protobuf-compiler
	# the allocators -e alloc traces besides glibc's, preloaded by its tests
	libjemalloc2 libtcmalloc-minimal4
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
	# Debian's stock kernels (5.10, 6.1, 6.12, 7.x) booted under QEMU (tests/vm/):
	# TCG emulation, qboot (qemu-system-data), a static busybox for the initramfs,
	# depmod (kmod), the archive keys apt checks the other suites with
	qemu-system-x86 qemu-system-data busybox-static cpio kmod zstd debian-archive-keyring
	# arm64 (issue 38): Debian's cross compiler (make ARCH=arm64), QEMU for its
	# kernel (qemu-system-arm: qemu-system-aarch64) and for its programs here
	# (qemu-user-static with binfmt-support: the arm64 unit tests, mmdebstrap's
	# arm64 root, which arch-test checks).  The cross linker looks for
	# -lstdc++ in gcc-cross's directory: libstdc++-12-dev-arm64-cross, not
	# libstdc++-12-dev:arm64 (its libstdc++.so is where only a native gcc looks).
	gcc-aarch64-linux-gnu libstdc++-12-dev-arm64-cross qemu-system-arm qemu-user-static binfmt-support arch-test
)

# The arm64 build's libraries and headers, beside the amd64 ones (multiarch):
# what stitch links, the workloads' USDT header and libperl, and the runtime
# libraries its unit tests run with under qemu-user.
arm64_packages=(
	libbpf-dev:arm64 libelf-dev:arm64 libdw-dev:arm64 zlib1g-dev:arm64 liblzma-dev:arm64
	libdebuginfod-dev:arm64 libcurl4-openssl-dev:arm64 libssl-dev:arm64 libstdc++6:arm64 libcmocka-dev:arm64
	libasan8:arm64 libubsan1:arm64 systemtap-sdt-dev:arm64 libperl5.36:arm64
)

export DEBIAN_FRONTEND=noninteractive
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	dpkg --add-architecture arm64
	apt-get update -qq
fi
if ! apt-get install -y --no-install-recommends "${packages[@]}" "${arm64_packages[@]}" \
	>/dev/null 2>&1; then
	apt-get update -qq
	apt-get install -y --no-install-recommends "${packages[@]}" "${arm64_packages[@]}"
fi
# make ARCH=arm64 takes arm64's kernel BTF from Debian's kernel package
# (scripts/kernel-btf.py), found in apt's lists: with every package
# installed above, lists an apt-get update for other sources removed stay
# missing unless read again.
apt-cache show linux-image-arm64:arm64 >/dev/null 2>&1 || apt-get update -qq

# arm64 programs run here through binfmt_misc: in a container or without
# systemd it may be unmounted and qemu-user-static's entries not registered.
if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
	mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null || true
fi
update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
