# SPDX-License-Identifier: GPL-2.0
# Debian release roots for the interpreter tests (sourced by run.sh): each
# release's stock interpreters, run in their own mount namespace and root as
# a container runs them, traced from the host.
#
# A root is built once by mmdebstrap (~1 minute, ~200 MB each) and cached in
# $STITCH_ROOTS (default /var/cache/stitch/roots), keyed by its package
# list: a changed list builds it again.  A root that cannot be built fails
# the tests that need it, loudly; none is skipped.

STITCH_ROOTS=${STITCH_ROOTS:-/var/cache/stitch/roots}

# The packages of each release's root: its interpreters, and their shared
# libraries for the embedding tests (Debian's python3.X and perl link the
# interpreter in; libpython3.X / libperl5.X carry it as a library).  sid
# also has an older CPython's latest patch release (3.13.18 beside trixie's
# 3.13.5) and the next one; experimental is sid with experimental's
# versions preferred (Ruby 3.4, Perl 5.44).  bookworm's, trixie's and sid's
# also have their node (18, 20, 24: Debian's /usr/bin/node runs V8 from
# libnode.so, which carries its v8dbg_* symbols; tests/integration/jit.sh),
# and bullseye's and trixie's their JVMs (OpenJDK 11; 21 and 25: the host's
# is 17), named from their own vmStructs (test_jit_java_releases).
root_packages() {
	case "$1" in
	bullseye) echo python3,ruby,perl,libpython3.9,libperl5.32,procps,openjdk-11-jre-headless ;;
	bookworm) echo python3,ruby,perl,libpython3.11,libperl5.36,procps,nodejs ;;
	trixie)
		echo python3,ruby,perl,libpython3.13,libperl5.40,procps,nodejs,openjdk-21-jre-headless,openjdk-25-jre-headless
		;;
	sid) echo python3,python3.13,python3.15,ruby,perl,libpython3.14,libperl5.42,procps,nodejs ;;
	experimental) echo python3,ruby3.4,perl,libperl5.44,procps ;;
	# The development roots: each release's interpreters with their own
	# headers and a compiler, where tools/interp-walk checks stitch's
	# offset tables against offsetof() in that very build.
	bullseye-dev | trixie-dev)
		echo python3,python3-dev,ruby,ruby-dev,perl,libperl-dev,gcc,libc6-dev,procps ;;
	sid-dev)
		echo python3,python3-dev,python3.15-dev,ruby,ruby-dev,perl,libperl-dev,gcc,libc6-dev,procps ;;
	# Perl 5.44's CORE headers (its check is compiled on the host: experimental's
	# gcc and libc6-dev would not install beside 5.44 in 2026-11).
	experimental-dev) echo perl,libperl-dev,procps ;;
	*) return 1 ;;
	esac
}

# Where a root lives: the lean ones by release, the development ones under
# dev/ ($STITCH_DEV_ROOTS/RELEASE, as tools/interp-walk names them).
root_dir() {
	case "$1" in
	*-dev) echo "$STITCH_ROOTS/dev/${1%-dev}" ;;
	*) echo "$STITCH_ROOTS/$1" ;;
	esac
}

# mmdebstrap's suite and mirrors for a root.  Only each release's main
# archive: bullseye's security suite is gone from the mirror, and sid's
# Release file may have expired on a snapshot mirror.
root_suite() {
	case "${1%-dev}" in
	experimental) echo sid ;;
	*) echo "${1%-dev}" ;;
	esac
}
root_mirrors() {
	echo "deb http://deb.debian.org/debian $(root_suite "$1") main"
	[ "${1%-dev}" != experimental ] || echo "deb http://deb.debian.org/debian experimental main"
}
root_aptopts() {
	echo 'Acquire::Check-Valid-Until "false"'
	[ "${1%-dev}" != experimental ] || echo 'APT::Default-Release "experimental"'
}

# root_build RELEASE: build the root unless a complete one with this package
# list is cached.  Several test runs may ask at once: one builds, the others
# wait on the lock.
root_build() {
	local rel=$1 pkgs dir stamp
	pkgs=$(root_packages "$rel") || die "no root is defined for release '$rel'"
	dir=$(root_dir "$rel")
	# An arm64 guest's roots are made with its own root, on the host
	# (tests/vm/rootfs.sh): there is no mmdebstrap or network here.
	if [ "$(uname -m)" = aarch64 ]; then
		[ -e "$dir/.stitch-root" ] ||
			die "roots: no arm64 $rel root in $dir (tests/vm/rootfs.sh makes them)"
		return 0
	fi
	stamp="$pkgs $(root_mirrors "$rel" | tr '\n' ' ')"
	mkdir -p "$STITCH_ROOTS" "$(dirname "$dir")" || die "cannot create $STITCH_ROOTS"
	(
		flock 9
		if [ "$(cat "$dir/.stitch-root" 2>/dev/null)" = "$stamp" ]; then
			exit 0
		fi
		command -v mmdebstrap >/dev/null ||
			die "mmdebstrap is missing: scripts/install-deps.sh installs it"
		rm -rf "$dir" "$dir.new"
		echo "roots: building $rel ($pkgs) in $dir" >&2
		local -a args=(--variant=minbase --include="$pkgs")
		local opt mirror
		while read -r opt; do args+=(--aptopt="$opt"); done < <(root_aptopts "$rel")
		args+=("$(root_suite "$rel")" "$dir.new")
		while read -r mirror; do args+=("$mirror"); done < <(root_mirrors "$rel")
		if ! mmdebstrap "${args[@]}" >"$STITCH_ROOTS/$rel.log" 2>&1; then
			tail -n 20 "$STITCH_ROOTS/$rel.log" >&2
			die "roots: mmdebstrap $rel failed (log: $STITCH_ROOTS/$rel.log)"
		fi
		mkdir -p "$dir.new/stitch-tests"
		echo "$stamp" >"$dir.new/.stitch-root"
		mv "$dir.new" "$dir"
	) 9>"$STITCH_ROOTS/.$rel.lock" || die "roots: no $rel root"
}

# root_of RELEASE: the release's root directory, built if needed.
root_of() {
	root_build "$1" || exit 1
	root_dir "$1"
}

# root_put RELEASE FILE...: copy files into the root's /stitch-tests/.
root_put() {
	local dir
	dir=$(root_of "$1") || exit 1
	shift
	cp -f "$@" "$dir/stitch-tests/" || die "roots: cannot copy $* into $dir"
}

# in_root_cmd RELEASE: the command prefix that runs a program in the
# release's root, in a mount namespace of its own.
in_root_cmd() {
	local dir
	dir=$(root_of "$1") || exit 1
	echo "unshare --mount --root=$dir"
}

# in_root RELEASE CMD ARGS...: run CMD in the release's root.
in_root() {
	local dir
	dir=$(root_of "$1") || exit 1
	shift
	unshare --mount --root="$dir" "$@"
}
