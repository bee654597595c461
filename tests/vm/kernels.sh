#!/usr/bin/env bash
# Fetch Debian's stock amd64 kernels and build a small initramfs for each, so
# that tests/vm/run.sh can boot them under QEMU and run the host's stitch on them.
# bookworm-arm64 is bookworm's arm64 kernel, for an arm64 stitch (its guest's
# root is rootfs.sh's, not the host's /).
#
# usage: kernels.sh [--update] [SUITE...]
#   SUITE: bullseye bookworm trixie sid (default: these four) bookworm-arm64
#
# Everything lands in $STITCH_VM_CACHE (default /var/cache/stitch/vm):
#   apt/SUITE/              that suite's own sources list, package lists, apt cache and an
#                           empty dpkg status: the system's apt state is never read or written
#   SUITE/root/             the kernel packages, unpacked with dpkg-deb -x
#   SUITE/vmlinuz           symlink to the kernel image inside root/
#   SUITE/initramfs.cpio.gz busybox + the virtio/9p modules + tests/vm/init
#   SUITE/kernel.env        release=, version=, packages= (written last: "this entry is complete")
#   SUITE/vmlinux-dbg       bookworm's and trixie's: the kernel's DWARF, from its
#                           linux-image-RELEASE-dbg (855 MB, ~12 s to fetch, ~8 s to
#                           take vmlinux out), for kernel source line probes (issue 43)
#
# A suite whose kernel.env exists is not fetched again (no network at all), so a
# second run costs a few stat()s; --update refreshes the lists and fetches the
# suite's current kernel if the archive has a newer one.  The initramfs is rebuilt
# when tests/vm/init or this script is newer than it.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${STITCH_VM_CACHE:-/var/cache/stitch/vm}
# bullseye (oldoldstable, LTS ended) is still served by deb.debian.org (checked
# 2026-12-01); archive.debian.org, where old suites eventually move, is not
# reachable from this machine, so there is no fallback to it.
mirror=${STITCH_VM_MIRROR:-http://deb.debian.org/debian}
# debian-archive-keyring 2023.3+deb12u2 (bookworm's) holds the keys for all four
# suites: bullseye's Release is signed by its own 11/bullseye keys and by the
# 12/bookworm one, sid's by the 12/bookworm and 13/trixie keys (checked with gpgv).
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
all_suites=(bullseye bookworm trixie sid)
arm_suites=(bookworm-arm64)

# What the guest's init needs to mount the host's root: the PCI transport for
# virtio and 9p over it.  Their dependencies (virtio, virtio_ring,
# virtio_pci_{legacy,modern}_dev, 9pnet, netfs, fscache, ...) come from
# modules.dep, whichever of them are modules on that kernel; built-in ones are skipped.
# overlay: a tmpfs over that read-only root, so that tests may write where they
# do on the host (their changes stay in the guest).  The same on arm64: qemu's
# -virtfs is virtio-9p-pci on -machine virt too (its PCIe host is built into
# bookworm's arm64 kernel, virtio_pci and virtio_mmio are modules).
wanted_modules=(virtio_pci 9pnet_virtio 9p overlay)

# SUITE's Debian architecture and release: bookworm-arm64 is bookworm's arm64.
suite_arch() { case $1 in *-arm64) echo arm64 ;; *) echo amd64 ;; esac; }
suite_dist() { echo "${1%-arm64}"; }

die() { echo "kernels.sh: $*" >&2; exit 1; }
log() { echo "kernels.sh: $*" >&2; }

update=0
suites=()
for arg; do
	case $arg in
	--update) update=1 ;;
	-h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	bullseye|bookworm|trixie|sid|bookworm-arm64) suites+=("$arg") ;;
	*) die "unknown suite or option '$arg' (suites: ${all_suites[*]} ${arm_suites[*]})" ;;
	esac
done
[ ${#suites[@]} -gt 0 ] || suites=("${all_suites[@]}")

# apt-get/apt-cache with SUITE's own configuration only.  SourceParts=/dev/null
# keeps /etc/apt/sources.list.d out; APT::Architectures stops foreign
# architectures the host may have added from being fetched.
apt_suite() {
	local tool=$1 suite=$2 dir=$cache/apt/$2 arch
	arch=$(suite_arch "$2")
	shift 2
	"$tool" -q \
		-o Dir::Etc::SourceList="$dir/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$dir/lists" \
		-o Dir::Cache="$dir/cache" \
		-o Dir::State::status="$dir/status" \
		-o APT::Architecture="$arch" -o APT::Architectures="$arch" \
		"$@"
}

apt_setup() {
	local suite=$1 dir=$cache/apt/$1
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
	[ -e "$dir/status" ] || : >"$dir/status"
	echo "deb [signed-by=$keyring] $mirror $(suite_dist "$suite") main" >"$dir/sources.list"
	apt_suite apt-get "$suite" update >/dev/null ||
		die "$suite: apt-get update failed (mirror $mirror)"
}

# The image package behind linux-image-amd64 (-arm64), plus the packages it depends on at
# exactly its own version: from sid on (7.x) linux-image-REL is empty and
# linux-binary-REL holds vmlinuz, linux-modules-REL the modules and linux-base-REL
# config, System.map and modules.builtin.
kernel_packages() {
	local suite=$1 image meta
	meta=linux-image-$(suite_arch "$suite")
	image=$(apt_suite apt-cache "$suite" depends "$meta" |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-/ { print $2; exit }')
	[ -n "$image" ] || die "$suite: $meta depends on no linux-image-* package"
	echo "$image"
	apt_suite apt-cache "$suite" show --no-all-versions "$image" |
		sed -n 's/^Depends: //p' | tr ',' '\n' |
		sed -n 's/^ *\(linux-[a-z]*-[^ ]*\) (= [^)]*).*/\1/p'
}

# Unpack SUITE's kernel into $cache/SUITE/root and write kernel.env.
fetch_suite() {
	local suite=$1 dir=$cache/$1 pkgs version debs deb release vmlinuz f
	apt_setup "$suite"
	mapfile -t pkgs < <(kernel_packages "$suite")
	version=$(apt_suite apt-cache "$suite" show --no-all-versions "${pkgs[0]}" |
		sed -n 's/^Version: //p')
	if [ -e "$dir/kernel.env" ] && grep -qx "version=$version" "$dir/kernel.env"; then
		log "$suite: ${pkgs[0]} $version is already here"
		return
	fi
	log "$suite: fetching ${pkgs[*]} ($version)"
	rm -rf "$dir"
	debs=$dir/debs
	mkdir -p "$debs"
	# apt drops to the _apt user to download; let it write there.
	if id _apt >/dev/null 2>&1; then chown _apt "$debs"; fi
	(cd "$debs" && apt_suite apt-get "$suite" download "${pkgs[@]}" >/dev/null) ||
		die "$suite: apt-get download ${pkgs[*]} failed"
	for deb in "$debs"/*.deb; do
		dpkg-deb -x "$deb" "$dir/root"
	done
	rm -rf "$debs"
	# The initramfs's busybox must be the guest's architecture: the suite's own
	# busybox-static, in busybox/ (the host's is amd64).
	if [ "$(suite_arch "$suite")" != amd64 ]; then
		mkdir -p "$debs"
		if id _apt >/dev/null 2>&1; then chown _apt "$debs"; fi
		(cd "$debs" && apt_suite apt-get "$suite" download busybox-static >/dev/null) ||
			die "$suite: apt-get download busybox-static failed"
		dpkg-deb -x "$debs"/busybox-static_*.deb "$dir/busybox"
		rm -rf "$debs"
	fi

	# bullseye and bookworm ship /lib/modules and /boot/vmlinuz-REL; trixie
	# /usr/lib/modules; sid also moved vmlinuz and config into /usr/lib/modules/REL.
	# depmod -b only looks under BASE/lib/modules.
	[ -e "$dir/root/lib" ] || ln -s usr/lib "$dir/root/lib"
	release=$(basename "$(find "$dir/root/lib/modules/" -mindepth 1 -maxdepth 1 -type d | head -n1)")
	[ -n "$release" ] || die "$suite: no lib/modules/RELEASE in ${pkgs[*]}"
	vmlinuz=
	for f in "boot/vmlinuz-$release" "lib/modules/$release/vmlinuz"; do
		[ -e "$dir/root/$f" ] && vmlinuz=root/$f
	done
	[ -n "$vmlinuz" ] || die "$suite: no vmlinuz in ${pkgs[*]}"
	ln -sfn "$vmlinuz" "$dir/vmlinuz"
	# modules.dep is made by the package's postinst, which we do not run.
	depmod -b "$dir/root" "$release"
	printf "release=%s\nversion=%s\npackages='%s'\n" "$release" "$version" "${pkgs[*]}" >"$dir/kernel.env.new"
	mv "$dir/kernel.env.new" "$dir/kernel.env"
}

# Print the modules (paths relative to lib/modules/REL) that load NAME, in load
# order: dependencies first.  Nothing for a built-in NAME.
declare -A seen
module_order() {
	local moddir=$1 name=$2 path deps dep
	name=${name//-/_}
	if grep -Eq "/${name//_/[-_]}\.ko(\.[a-z]+)?\$" "$moddir/modules.builtin"; then
		return 0
	fi
	path=$(grep -Eo "^[^:]*/${name//_/[-_]}\.ko(\.[a-z]+)?:" "$moddir/modules.dep" | head -n1)
	[ -n "$path" ] || die "module $name is neither built in nor in $moddir"
	path=${path%:}
	[ -z "${seen[$path]:-}" ] || return 0
	seen[$path]=1
	deps=$(grep -F "$path:" "$moddir/modules.dep" | head -n1 | cut -d: -f2)
	for dep in $deps; do
		dep=${dep##*/}
		module_order "$moddir" "${dep%%.ko*}"
	done
	echo "$path"
}

build_initramfs() {
	local suite=$1 dir=$cache/$1 release tmp moddir mod out busybox
	# shellcheck disable=SC1091
	release=$(. "$dir/kernel.env" && echo "$release")
	moddir=$dir/root/lib/modules/$release
	if [ "$(suite_arch "$suite")" = amd64 ]; then
		busybox=$(command -v busybox) || die "busybox missing (apt-get install busybox-static)"
		# A dynamically linked busybox would need the host's libc in the initramfs.
		if ldd "$busybox" >/dev/null 2>&1; then
			die "$busybox is not static (apt-get install busybox-static)"
		fi
	else
		# busybox-static's own, unpacked by fetch_suite.
		busybox=$dir/busybox/bin/busybox
		[ -x "$busybox" ] || die "$suite: no $busybox (kernels.sh --update $suite)"
	fi
	tmp=$(mktemp -d "$dir/initramfs.XXXXXX")
	work=$tmp
	mkdir -p "$tmp"/{bin,dev,proc,sys,newroot,host,layer,scratch,etc,boot,lib/modules/"$release"}
	cp "$busybox" "$tmp/bin/busybox"
	cp "$here/init" "$tmp/init"
	chmod 755 "$tmp/init" "$tmp/bin/busybox"
	# libbpf reads CONFIG_* for __kconfig externs from /boot/config-REL: init puts it
	# in the guest's /boot.
	for f in "$dir"/root/boot/config-* "$moddir/config"; do
		[ -e "$f" ] && cp "$f" "$tmp/boot/config-$release"
	done

	seen=()
	: >"$tmp/etc/modules"
	for mod in "${wanted_modules[@]}"; do
		module_order "$moddir" "$mod"
	done | while read -r mod; do
		# busybox insmod reads plain ELF only: unpack .ko.xz / .ko.zst here.
		mkdir -p "$tmp/lib/modules/$release/$(dirname "$mod")"
		case $mod in
		*.ko.xz) xz -dc "$moddir/$mod" >"$tmp/lib/modules/$release/${mod%.xz}" ;;
		*.ko.zst) zstd -qdc "$moddir/$mod" >"$tmp/lib/modules/$release/${mod%.zst}" ;;
		*.ko.gz) gzip -dc "$moddir/$mod" >"$tmp/lib/modules/$release/${mod%.gz}" ;;
		*) cp "$moddir/$mod" "$tmp/lib/modules/$release/$mod" ;;
		esac
		echo "${mod%.ko*}.ko" >>"$tmp/etc/modules"
	done
	# So that modprobe works in the initramfs too (init itself uses etc/modules).
	cp "$moddir"/modules.builtin* "$moddir"/modules.order "$tmp/lib/modules/$release/"
	depmod -b "$tmp" "$release"

	out=$dir/initramfs.cpio.gz
	(cd "$tmp" && find . -print0 | LC_ALL=C sort -z |
		cpio --quiet -o -0 -H newc -R 0:0 | gzip -6 >"$out.new")
	mv "$out.new" "$out"
	log "$suite: $out (modules: $(xargs -rn1 basename <"$tmp/etc/modules" | paste -sd' '))"
	rm -rf "$tmp"
}

# The initramfs staging directory, removed on any exit.
work=
trap 'rm -rf "${work:-}"' EXIT

# The kernels whose DWARF the tests read (kprobe:FUNC:RELLINE): their
# vmlinux out of linux-image-RELEASE-dbg (the rest of its 5.6 GB, the
# modules' debug files, is not kept), for the version kernel.env names.
dbg_suites=" bookworm trixie "
fetch_debug_vmlinux() {
	local suite=$1 dir=$cache/$1 release version debs
	release=$(. "$dir/kernel.env" && echo "$release")
	version=$(. "$dir/kernel.env" && echo "$version")
	[ -e "$dir/vmlinux-dbg" ] && grep -qx "$version" "$dir/vmlinux-dbg.version" 2>/dev/null &&
		return
	log "$suite: fetching linux-image-$release-dbg ($version) for its vmlinux"
	debs=$dir/dbg-debs
	rm -rf "$debs"
	mkdir -p "$debs"
	if id _apt >/dev/null 2>&1; then chown _apt "$debs"; fi
	[ -e "$cache/apt/$suite/sources.list" ] || apt_setup "$suite"
	# The archive keeps a suite's current kernel only: once it moves on, this
	# kernel's DWARF is gone, and its tests check that stitch says so.
	if ! (cd "$debs" && apt_suite apt-get "$suite" download \
		"linux-image-$release-dbg=$version" >/dev/null); then
		log "$suite: linux-image-$release-dbg $version is not in the archive: no vmlinux-dbg"
		rm -rf "$debs"
		return 0
	fi
	dpkg-deb --fsys-tarfile "$debs"/*.deb 2>/dev/null |
		tar -x -O --occurrence=1 "./usr/lib/debug/boot/vmlinux-$release" >"$dir/vmlinux-dbg.new" ||
		[ -s "$dir/vmlinux-dbg.new" ] || die "$suite: no vmlinux-$release in its -dbg package"
	rm -rf "$debs"
	mv "$dir/vmlinux-dbg.new" "$dir/vmlinux-dbg"
	echo "$version" >"$dir/vmlinux-dbg.version"
}

# Nothing to do for SUITE: its kernel is here and its initramfs up to date.
ready() {
	local dir=$cache/$1 out=$cache/$1/initramfs.cpio.gz
	[ "$update" = 0 ] && [ -e "$dir/kernel.env" ] && [ -e "$out" ] &&
		[ ! "$here/init" -nt "$out" ] && [ ! "$0" -nt "$out" ] && [ ! "$dir/kernel.env" -nt "$out" ]
}

for suite in "${suites[@]}"; do
	if ready "$suite"; then
		[[ $dbg_suites != *" $suite "* ]] || fetch_debug_vmlinux "$suite"
		continue
	fi
	# Tests may start several guests of one suite at once: one fetches and
	# builds, the others wait for it and then find everything ready.
	mkdir -p "$cache"
	exec {lock}>"$cache/.lock-$suite"
	flock "$lock"
	if ! ready "$suite"; then
		dir=$cache/$suite
		if [ "$update" = 1 ] || [ ! -e "$dir/kernel.env" ]; then
			fetch_suite "$suite"
		fi
		build_initramfs "$suite"
	fi
	[[ $dbg_suites != *" $suite "* ]] || fetch_debug_vmlinux "$suite"
	exec {lock}>&-
done
