#!/usr/bin/env bash
# Build the root file system of a guest whose architecture is not the host's
# (the host's own / is the amd64 guests' root): Debian packages for that
# architecture, unpacked, with what the integration tests and an arm64 stitch
# need at run time.  tests/vm/run.sh shares it as the guest's / over 9p.
#
# usage: rootfs.sh SUITE...     SUITE: bookworm-arm64
#
# It lands in $STITCH_VM_CACHE/rootfs/SUITE.HASH (default /var/cache/stitch/vm),
# beside the kernels, not in kernels.sh's SUITE/ (which a newer kernel replaces
# whole); HASH is of its stamp (.stitch-rootfs: the package list, mirror and
# this recipe's version), so a changed list builds a root of its own, and
# rootfs/SUITE links to the current one.  Several guests may start at once:
# one builds, the others wait on the lock.
#
# Why not a plain mmdebstrap: every maintainer script and dpkg itself run under
# qemu-user there, ~7 min for these packages (--variant=essential, measured
# 2026-12-02).  --variant=extract only unpacks the packages (the download,
# from the host's apt) in ~20 s, and the few things their scripts would have
# made are made below: /etc/passwd, nsswitch.conf, alternatives, ld.so.cache,
# compiled Python.  The tests run programs, they do not manage packages: dpkg's
# database stays empty.
set -euo pipefail

cache=${STITCH_VM_CACHE:-/var/cache/stitch/vm}
mirror=${STITCH_VM_MIRROR:-http://deb.debian.org/debian}
# Bump when the steps after mmdebstrap change: a cached root is rebuilt.
recipe=4
# The release roots the interpreter tests run their scripts in
# (tests/integration/roots.sh), made for arm64 inside the guest's root at
# /var/cache/stitch/roots: its tests find them where the host's find theirs.
# Each is extracted like the guest's root (~20 s under qemu-user, against
# minutes for mmdebstrap's minbase there), with libc6-dbg: its glibc's struct
# pthread and link_map are read from it (src/interp/detect.c).
interp_releases="bullseye bookworm trixie sid experimental"
. "$(dirname "$0")/../integration/roots.sh"

die() { echo "rootfs.sh: $*" >&2; exit 1; }
log() { echo "rootfs.sh: $*" >&2; }

# Packages: Essential:yes of bookworm (less dpkg, login and
# init-system-helpers: nothing here installs packages, logs in or has an
# init), and mount, mawk (the awk the tests are written for: no {n}
# intervals), then what the integration tests call and stitch links.
#  - interpreters and their embeddable libraries: python3 (3.11), ruby (3.1),
#    perl (5.36), libpython3.11, libperl5.36;
#  - the tests' tools: procps (pgrep, pkill, ps), jq, bpftool, binutils
#    (readelf, nm, objdump), curl, file, netbase (/etc/services);
#  - the agent test's backend: protobuf-compiler (protoc) and python3-protobuf;
#  - xmllint (libxml2-utils): the diff test checks its SVG;
#  - libc6-dbg: the tests name libc's internal frames by its build-id files;
#  - stitch's libraries: libbpf1 libelf1 libdw1 libdebuginfod1 liblzma5
#    zlib1g libcurl4 (OpenSSL's) libstdc++6.
suite_packages() {
	case $1 in
	bookworm-arm64)
		echo base-files,base-passwd,bash,bsdutils,coreutils,dash,debianutils,diffutils,findutils,grep,gzip,hostname,libc-bin,ncurses-base,ncurses-bin,perl-base,sed,sysvinit-utils,tar,util-linux,mount,mawk,python3,ruby,perl,libpython3.11,libperl5.36,procps,jq,bpftool,binutils,curl,file,netbase,libc6-dbg,libbpf1,libelf1,libdw1,libdebuginfod1,liblzma5,zlib1g,libcurl4,libstdc++6,protobuf-compiler,python3-protobuf,libxml2-utils ;;
	*) return 1 ;;
	esac
}

# The commands the integration tests and init's command line use: checked in
# the new root, so a package dropped from the list fails here, not in a test.
needed_commands="bash sh env awk sed grep cut sort uniq wc head tail tr seq id od dd
	truncate tee mktemp find xargs diff cmp gzip stat timeout setsid taskset unshare
	flock mount hostname kill pgrep pkill ps sleep python3 python3.11 ruby perl jq
	bpftool readelf nm objdump curl file which protoc xmllint"

# alt LINK NAME PATH: the alternative NAME, as update-alternatives would make it.
alt() {
	ln -sfn "$3" "$root/etc/alternatives/$2"
	ln -sfn "/etc/alternatives/$2" "$root$1"
}

# What the packages' maintainer scripts would have done, as far as the tests
# can tell.
fixup() {
	local root=$1
	# base-passwd's preinst; libc-bin's postinst.
	cp "$root/usr/share/base-passwd/passwd.master" "$root/etc/passwd"
	cp "$root/usr/share/base-passwd/group.master" "$root/etc/group"
	cp "$root/usr/share/libc-bin/nsswitch.conf" "$root/etc/nsswitch.conf"
	# Servers the tests start (debuginfod, pyroscope) listen on localhost.
	printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >"$root/etc/hosts"
	echo stitch-vm >"$root/etc/hostname"
	# mawk's, debianutils' and procps' postinst.
	mkdir -p "$root/etc/alternatives"
	alt /usr/bin/awk awk /usr/bin/mawk
	alt /usr/bin/nawk nawk /usr/bin/mawk
	alt /usr/bin/which which /usr/bin/which.debianutils
	alt /usr/bin/w w /usr/bin/w.procps
	# libc-bin's trigger.  Bookworm's ld.so finds the multiarch directories
	# without a cache too (checked), but what reads the cache (libbpf
	# resolving a library name for a uprobe) finds it as on a real system.
	chroot "$root" /sbin/ldconfig
	# python3.11-minimal's and python3.11's postinst compile the standard
	# library; without it every guest's first python3 compiles what it imports,
	# under TCG.  12 s here under qemu-user on 2 cores.
	[ "${2:-}" = imports ] && return
	chroot "$root" /usr/bin/python3.11 -E -S -m compileall -q -j0 \
		-x '/(test|tests|idlelib|tkinter|turtledemo)/' /usr/lib/python3.11 >/dev/null ||
		die "compileall failed in $root"
}

# compile_imports ROOT: each Python of a release root compiles what the
# tests' scripts import (83 files for 3.14), not its whole library: 18 s
# under qemu-user against 55-70 s a version for compileall, and sid's root
# has three.  The variable some environments set would keep them unwritten.
compile_imports() {
	local root=$1 py

	for py in "$root"/usr/bin/python3.[0-9]*; do
		[[ $py =~ /python3\.[0-9]+$ ]] || continue
		env -u PYTHONDONTWRITEBYTECODE chroot "$root" "${py#"$root"}" -c \
			'import asyncio, os, signal, socket, sys, threading, time' ||
			die "${py##*/} cannot import the tests' modules in $root"
	done
}

# interp_root ROOT ARCH RELEASE: RELEASE's interpreters (roots.sh's package
# list) extracted for ARCH into ROOT/var/cache/stitch/roots/RELEASE, as
# roots.sh names it; its tests' scripts go in its /stitch-tests.
interp_root() {
	local root=$1 arch=$2 rel=$3 dir pkgs opt mirror
	local -a args
	dir=$root/var/cache/stitch/roots/$rel
	# node's and the JVMs' tests are the x86-64 hosts' only (tests/vm/matrix.sh):
	# no nodejs or openjdk here.
	pkgs=$(root_packages "$rel" | sed 's/,nodejs//; s/,openjdk-[0-9]*-jre-headless//g'),base-passwd,libc-bin,libc6-dbg
	args=(--arch="$arch" --variant=extract --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr
		--include="$pkgs")
	while read -r opt; do args+=(--aptopt="$opt"); done < <(root_aptopts "$rel")
	args+=("$(root_suite "$rel")" "$dir")
	while read -r mirror; do args+=("$mirror"); done < <(root_mirrors "$rel")
	mkdir -p "${dir%/*}"
	mmdebstrap "${args[@]}" >"$cache/rootfs/$rel-$arch.log" 2>&1 || {
		tail -n 20 "$cache/rootfs/$rel-$arch.log" >&2
		die "$rel ($arch): mmdebstrap failed (log: $cache/rootfs/$rel-$arch.log)"
	}
	fixup "$dir" imports
	compile_imports "$dir"
	mkdir -p "$dir/stitch-tests"
	echo "$arch $pkgs" >"$dir/.stitch-root"
}

# Can this machine run the suite's programs (binfmt_misc + qemu-user-static)?
check_binfmt() {
	local arch=$1
	command -v arch-test >/dev/null || die "arch-test missing (apt-get install arch-test)"
	arch-test "$arch" >/dev/null 2>&1 && return 0
	# In a container or without systemd, binfmt_misc may not be mounted and
	# the qemu-user-static entries not registered.
	if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
		mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null || true
	fi
	if command -v update-binfmts >/dev/null; then
		update-binfmts --enable >/dev/null 2>&1 || true
	fi
	arch-test "$arch" >/dev/null 2>&1 ||
		die "cannot run $arch programs here (apt-get install qemu-user-static binfmt-support arch-test)"
}

# Wait for every background job; fail if one did.
wait_all() {
	local pid rc=0
	for pid in $(jobs -p); do wait "$pid" || rc=1; done
	return $rc
}

build() {
	local suite=$1 arch=${1##*-} pkgs dir stamp start link rel
	pkgs=$(suite_packages "$suite") || die "no root is defined for '$suite'"
	stamp="$pkgs $mirror recipe=$recipe releases=$interp_releases"
	# Each package list its own directory, SUITE the link to the current
	# one: a guest booted on a root keeps it while another list is built
	# (rebuilt in place, a running guest lost its libraries under it).
	link=$cache/rootfs/$suite
	dir=$link.$(echo "$stamp" | md5sum | cut -c1-12)
	if [ "$(cat "$dir/.stitch-rootfs" 2>/dev/null)" = "$stamp" ] &&
	   [ "$(readlink "$link")" = "${dir##*/}" ]; then
		return 0
	fi
	mkdir -p "$cache/rootfs"
	exec {lock}>"$cache/rootfs/.lock-$suite"
	flock "$lock"
	if [ "$(cat "$dir/.stitch-rootfs" 2>/dev/null)" != "$stamp" ]; then
		command -v mmdebstrap >/dev/null || die "mmdebstrap missing (apt-get install mmdebstrap)"
		check_binfmt "$arch"
		log "$suite: building in $dir"
		start=$(date +%s)
		rm -rf "$dir" "$dir.new"
		# merged-usr: the hook bookworm's debootstrap would use (its
		# usrmerge/usr-is-merged packages do it by maintainer scripts).
		mmdebstrap --arch="$arch" --variant=extract \
			--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
			--include="$pkgs" "${suite%-*}" "$dir.new" "$mirror" \
			>"$cache/rootfs/$suite.log" 2>&1 || {
			tail -n 20 "$cache/rootfs/$suite.log" >&2
			die "$suite: mmdebstrap failed (log: $cache/rootfs/$suite.log)"
		}
		fixup "$dir.new"
		for rel in $interp_releases; do
			interp_root "$dir.new" "$arch" "$rel" &
		done
		wait_all || die "$suite: a release root could not be built"
		# shellcheck disable=SC2016,SC2086
		chroot "$dir.new" /bin/bash -c 'for c; do command -v "$c" >/dev/null ||
			{ echo "rootfs.sh: no $c in the root" >&2; exit 1; }; done' - $needed_commands ||
			die "$suite: a command the tests need is missing"
		echo "$stamp" >"$dir.new/.stitch-rootfs"
		mv "$dir.new" "$dir"
		log "$suite: $dir ready in $(($(date +%s) - start)) s, $(du -sh "$dir" | cut -f1)"
	fi
	# (A root of the older recipe is a directory there, not a link.)
	[ -L "$link" ] || rm -rf "$link"
	ln -sfn "${dir##*/}" "$link.tmp" && mv -T "$link.tmp" "$link"
	exec {lock}>&-
}

[ $# -gt 0 ] || { sed -n '7p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
for suite; do
	build "$suite"
done
