#!/usr/bin/env bash
# Boot one of Debian's stock kernels under QEMU (TCG: this machine has no nested
# virtualisation) with the host's / as the guest's read-only root, run COMMAND
# there as root, and exit with COMMAND's status.  bookworm-arm64 boots under
# qemu-system-aarch64, its root an arm64 Debian (rootfs.sh) instead of the host's /.
#
# usage: run.sh [OPTIONS] KERNEL [--] [COMMAND [ARG...]]
#   KERNEL         bullseye | bookworm | trixie | sid | bookworm-arm64 (kernels.sh fetches
#                  it when missing, rootfs.sh builds an arm64 root), or a directory holding
#                  vmlinuz and initramfs.cpio.gz (as kernels.sh makes; an arm64 Image boots
#                  with bookworm-arm64's root)
#   COMMAND        run by bash in the caller's directory, with PATH, HOME=/root and
#                  the -e variables only; without COMMAND: an interactive shell
#   --timeout S    kill the guest after S seconds (default 1200)
#   --scratch DIR  the writable share results come back in (default: a new
#                  /tmp/stitch-vm.XXXXXX); it is mounted at the same path in the guest
#   --rw DIR       share DIR writable too, at the same path (repeatable)
#   --ro DIR       share DIR at the same path, read-only under a writable overlay as /
#                  is: a directory under one the guest has as its own tmpfs (/tmp,
#                  /var/tmp, /run, /root, /dev/shm)
#   -e NAME=VALUE  put NAME in COMMAND's environment (repeatable)
#   -q             no summary line on stderr
# Environment: STITCH_VM_CACHE (kernels.sh's cache), STITCH_VM_MEM (4G), STITCH_VM_SMP (2),
#   STITCH_VM_ACCEL (tcg,thread=single),
#   STITCH_VM_APPEND (more kernel parameters).
#
# COMMAND's stdout and stderr stream to the console (this script's stdout, mixed with
# the few kernel messages that get through) and are saved to DIR/stdout and DIR/stderr;
# DIR/status has its exit status, DIR/dmesg the guest's kernel log, DIR/started
# the guest's uptime when COMMAND started.
#
# Exit status: COMMAND's; 124 when the timeout stopped the guest; 125 when the guest
# stopped without reporting a status (kernel panic, init failure, qemu error).
# Kill a stuck interactive guest with Ctrl-A X.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${STITCH_VM_CACHE:-/var/cache/stitch/vm}

usage() { sed -n '7,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-2}"; }
die() { echo "run.sh: $*" >&2; exit 125; }

timeout=1200 scratch='' quiet=0 kernel=''
rw=() ro=() envs=()
while [ $# -gt 0 ]; do
	case $1 in
	--timeout) timeout=${2:?}; shift 2 ;;
	--scratch) scratch=${2:?}; shift 2 ;;
	--rw) [ -d "${2:?}" ] || die "--rw $2: no such directory"; rw+=("$(realpath -- "$2")"); shift 2 ;;
	--ro) [ -d "${2:?}" ] || die "--ro $2: no such directory"; ro+=("$(realpath -- "$2")"); shift 2 ;;
	-e) [[ ${2:-} == [A-Za-z_]*=* ]] || usage >&2; envs+=("$2"); shift 2 ;;
	-q) quiet=1; shift ;;
	-h|--help) usage 0 ;;
	--) shift; break ;;
	-*) usage >&2 ;;
	*) [ -z "$kernel" ] || break; kernel=$1; shift ;;
	esac
done
[ -n "$kernel" ] || usage >&2
[[ $timeout =~ ^[0-9]+$ ]] || die "--timeout wants seconds, not '$timeout'"

case $kernel in
bullseye|bookworm|trixie|sid|bookworm-arm64)
	"$here/kernels.sh" "$kernel" || die "kernels.sh $kernel failed"
	kdir=$cache/$kernel ;;
*)
	kdir=$kernel ;;
esac
[ -e "$kdir/vmlinuz" ] && [ -e "$kdir/initramfs.cpio.gz" ] ||
	die "$kdir: no vmlinuz and initramfs.cpio.gz there"
release=$( (. "$kdir/kernel.env" 2>/dev/null && echo "$release") || basename "$kdir")

# An arm64 Image says "ARM\x64" at 0x38 (Documentation/arch/arm64/booting.rst).
arch=amd64 root=/
if [ "$(od -An -tx1 -j56 -N4 "$kdir/vmlinuz" | tr -d ' ')" = 41524d64 ]; then
	arch=arm64
	"$here/rootfs.sh" bookworm-arm64 || die "rootfs.sh bookworm-arm64 failed"
	# The directory itself: a root built for another package list meanwhile
	# does not change this guest's (rootfs.sh).
	root=$(readlink -f "$cache/rootfs/bookworm-arm64")
	command -v qemu-system-aarch64 >/dev/null ||
		die "qemu-system-aarch64 missing (apt-get install qemu-system-arm)"
else
	command -v qemu-system-x86_64 >/dev/null ||
		die "qemu-system-x86_64 missing (apt-get install qemu-system-x86)"
fi

if [ -n "$scratch" ]; then
	mkdir -p "$scratch"
	rm -f "$scratch"/{cmd,vm.conf,stdout,stderr,status,status.new,started,dmesg}
else
	scratch=$(mktemp -d /tmp/stitch-vm.XXXXXX)
fi
scratch=$(realpath -e "$scratch")

# What init reads (busybox sh): single-quoted, as POSIX sh wants.
shq() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
rwconf=
for i in "${!rw[@]}"; do rwconf+="rw$i ${rw[$i]}"$'\n'; done
for i in "${!ro[@]}"; do rwconf+="ro$i ${ro[$i]}"$'\n'; done
{
	echo "scratch=$(shq "$scratch")"
	echo "rw=$(shq "$rwconf")"
	echo "shell=$([ $# -eq 0 ] && echo 1 || echo 0)"
} >"$scratch/vm.conf"

# What bash runs in the guest.  The cwd may be missing there: under /tmp,
# /run or /root the guest has empty tmpfs.
{
	echo "# made by tests/vm/run.sh"
	printf 'cd -- %q 2>/dev/null || { echo "vm: no %q in the guest, running in /" >&2; cd /; }\n' "$PWD" "$PWD"
	echo "export TERM=${TERM:-dumb}"
	for e in "${envs[@]}"; do printf 'export %q\n' "$e"; done
	if [ $# -eq 0 ]; then
		echo "exec /bin/bash -i"
	else
		printf 'exec'
		printf ' %q' "$@"
		echo
	fi
} >"$scratch/cmd"

# qemu separates -virtfs sub-options with commas: double those in paths.
virtfs() { printf 'local,path=%s,mount_tag=%s,security_model=%s,multidevs=remap%s' \
	"${1//,/,,}" "$2" none "${3:+,$3}"; }
# One host thread for all of the guest's CPUs (thread=single): with one per
# CPU, sid's 7.2 died of "Oops: int3" in trace_syscall_exit, one CPU running
# the int3 that another had just patched out of the code (a static branch
# flipped as tracepoints were attached).  One thread also leaves the other
# host CPU to a second guest (tests/vm/matrix.sh runs two at a time).
if [ "$arch" = amd64 ]; then
	qemu=(qemu-system-x86_64 -accel "${STITCH_VM_ACCEL:-tcg,thread=single}" -cpu max)
	console=ttyS0
else
	# -cpu max with the implementation-defined PAC algorithm: the same features
	# (pointer authentication included) as with the architected one, which
	# QEMU emulates slowly (boot to a shell 5-8 s against ~20 s).
	# shellcheck disable=SC2054
	qemu=(qemu-system-aarch64 -machine virt -accel "${STITCH_VM_ACCEL:-tcg,thread=single}"
		-cpu max,pauth-impdef=on)
	console=ttyAMA0
fi
qemu+=(-smp "${STITCH_VM_SMP:-2}" -m "${STITCH_VM_MEM:-4G}" -nographic -no-reboot -nic none)
# qboot (qemu-system-data) boots -kernel as fast as SeaBIOS, and silently:
# SeaBIOS, under -nographic, writes its banner to the serial console with a
# terminal reset (ESC c) and a screen clear.  x86 only: -machine virt loads
# -kernel itself.
qboot=/usr/share/qemu/qboot.rom
[ "$arch" != amd64 ] || [ ! -e "$qboot" ] || qemu+=(-bios "$qboot")
qemu+=(
	-kernel "$kdir/vmlinuz" -initrd "$kdir/initramfs.cpio.gz"
	# quiet: only errors reach the console, COMMAND's output stays readable (all of
	# the kernel log is saved to dmesg); panic=-1 reboots at once, which
	# -no-reboot turns into qemu exiting.
	-append "console=$console quiet loglevel=3 panic=-1 ${STITCH_VM_APPEND:-}"
	-virtfs "$(virtfs "$root" host readonly=on)"
	-virtfs "$(virtfs "$scratch" scratch)")
for i in "${!rw[@]}"; do qemu+=(-virtfs "$(virtfs "${rw[$i]}" "rw$i")"); done
for i in "${!ro[@]}"; do qemu+=(-virtfs "$(virtfs "${ro[$i]}" "ro$i" readonly=on)"); done

start=$(date +%s.%N)
rc=0
if [ $# -eq 0 ]; then
	# --foreground: qemu stays in the terminal's foreground process group and
	# can read it.
	timeout --foreground -k 10 "$timeout" "${qemu[@]}" || rc=$?
else
	# Nothing to type: keep qemu off the caller's stdin and the terminal cooked.
	timeout -k 10 "$timeout" "${qemu[@]}" </dev/null || rc=$?
fi
wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { print e - s }')

if [ -e "$scratch/status" ]; then
	status=$(cat "$scratch/status")
	what="status $status"
elif [ "$rc" = 124 ]; then
	status=124
	what="TIMEOUT after ${timeout}s, no status"
else
	status=125
	what="NO STATUS: the guest stopped (qemu exit $rc; kernel panic or init failure?)"
fi
if [ "$quiet" = 0 ] || [ ! -e "$scratch/status" ]; then
	printf 'vm: %s %s: command started %ss after kernel start, %.1fs in all, %s; results in %s\n' \
		"$kernel" "$release" "$(cat "$scratch/started" 2>/dev/null || echo ?)" "$wall" \
		"$what" "$scratch" >&2
fi
exit "$status"
