#!/bin/bash
# Build the guest's initramfs in two parts that the kernel unpacks in turn:
#   $BUILD/initramfs/common.cpio   busybox, Debian's rt-tests and friends,
#                                     rtla, the project's binaries, init,
#                                     guest tests and benchmarks
#   $BUILD/initramfs/<variant>.cpio  common + that variant's test modules
# Shared libraries are copied with their loader; ldd does not list
# libgcc_s.so.1, which glibc dlopens at thread exit, so it is added by hand.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
out=$build/initramfs
root=$out/root
die() { echo "mkinitramfs: $*" >&2; exit 1; }

# variant_archive V: $out/V.cpio = common.cpio + the test modules built for
# kernel variant V (kernel/scripts/build-modules.sh), if any
variant_archive() {
	local v=$1 m=$build/out/$1/rtlab-modules tmpd
	if [ -d "$m" ] && [ -n "$(ls -A "$m" 2>/dev/null)" ]; then
		tmpd=$(mktemp -d)
		chmod 0755 "$tmpd"	# its "." entry becomes the guest's / (mktemp makes it 0700)
		mkdir -p "$tmpd/rtlab/modules"
		cp "$m"/*.ko "$tmpd/rtlab/modules/"
		(cd "$tmpd" && find . -print0 | sort -z | cpio --null -o -H newc --quiet -R 0:0) >"$tmpd/mods.cpio"
		cat "$out/common.cpio" "$tmpd/mods.cpio" >"$out/$v.cpio"
		rm -rf "$tmpd"
	else
		cp "$out/common.cpio" "$out/$v.cpio"
	fi
}

# --variant V: only (re)make V.cpio from the existing common.cpio
if [ "${1:-}" = --variant ]; then
	[ -f "$out/common.cpio" ] || die "no $out/common.cpio (make initramfs)"
	variant_archive "${2:?--variant needs a kernel variant}"
	exit 0
fi

# Debian programs the guest tests use; the first group is required.
required=(/bin/busybox /usr/bin/cyclictest /usr/bin/hackbench /usr/bin/pi_stress)
optional=(/usr/bin/oslat /usr/bin/signaltest /usr/bin/cyclicdeadline
	/usr/bin/deadline_test /usr/bin/pip_stress /usr/bin/rt-migrate-test
	/usr/bin/stress-ng /usr/bin/rt-app /usr/bin/tpm2 /usr/bin/chrt
	/usr/bin/taskset /usr/bin/gzip /usr/bin/ping /usr/sbin/mkfs.f2fs
	/usr/bin/trace-cmd)

for f in "${required[@]}"; do
	[ -x "$f" ] || die "$f is missing (make deps)"
done

rm -rf "$root.new"
mkdir -p "$root.new"
trap 'rm -rf "$root.new"' EXIT
r=$root.new
mkdir -p "$r"/{bin,sbin,usr/bin,usr/sbin,usr/local/bin,usr/local/lib,etc,proc,sys,dev,tmp,run,root}
mkdir -p "$r"/rtlab/{tests,bench,modules,out} "$r"/lib64 "$r"/var/tmp

# busybox applets as links
cp /bin/busybox "$r/bin/busybox"
for a in $(/bin/busybox --list); do
	[ -e "$r/bin/$a" ] || ln -s busybox "$r/bin/$a"
done

copy_with_libs() {
	local f=$1 dest=$2
	install -D -m 0755 "$f" "$r$dest"
	ldd "$f" 2>/dev/null | grep -oE '/[^ ]+\.so[^ ]*' | while read -r lib; do
		[ -e "$r$lib" ] || install -D -m 0755 "$(readlink -f "$lib")" "$r$lib"
	done || true
}

for f in "${required[@]:1}" "${optional[@]}"; do
	[ -x "$f" ] || continue
	# Debian's own programs win over busybox applets of the same name.
	rm -f "$r$f"
	copy_with_libs "$f" "$f"
done
rtla=$build/linux/tools/tracing/rtla/rtla
[ -x "$rtla" ] && copy_with_libs "$rtla" /usr/bin/rtla

# The project's binaries and libraries
stage=$out/stage
if [ -d "$stage" ]; then
	cp -a "$stage"/. "$r"/
	find "$stage" -type f -perm -u+x | while read -r f; do
		file -b "$f" 2>/dev/null | grep -q ELF || continue
		ldd "$f" 2>/dev/null | grep -oE '/[^ ]+\.so[^ ]*' | while read -r lib; do
			case "$lib" in "$stage"*) continue ;; esac
			[ -e "$r$lib" ] || [ ! -e "$lib" ] || install -D -m 0755 "$(readlink -f "$lib")" "$r$lib"
		done || true
	done
fi

# glibc's loader and the library it dlopens for pthread_exit/cancel
libgcc=$(gcc -print-file-name=libgcc_s.so.1)
[ -e /lib/x86_64-linux-gnu/libgcc_s.so.1 ] && libgcc=/lib/x86_64-linux-gnu/libgcc_s.so.1
install -D -m 0755 "$(readlink -f "$libgcc")" "$r/lib/x86_64-linux-gnu/libgcc_s.so.1"
install -D -m 0755 "$(readlink -f /lib64/ld-linux-x86-64.so.2)" "$r/lib64/ld-linux-x86-64.so.2"
mkdir -p "$r/etc/ld.so.conf.d"
printf '/usr/local/lib\n/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu\n' >"$r/etc/ld.so.conf"
ldconfig -r "$r" 2>/dev/null || true

# Minimal /etc
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$r/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$r/etc/group"
printf '127.0.0.1 localhost\n' >"$r/etc/hosts"

# init, test library, guest tests and benchmarks
install -m 0755 "$top/vm/init" "$r/init"
install -m 0644 "$top/tests/guest/lib.sh" "$r/rtlab/lib.sh"
for t in "$top"/tests/guest/*; do
	[ -f "$t" ] && [ -x "$t" ] && install -m 0755 "$t" "$r/rtlab/tests/"
done
mkdir -p "$r/rtlab/configs" "$r/rtlab/selftest" "$r/rtlab/reboot" "$r/rtlab/stress"
for t in "$top"/tests/stress/*; do
	[ -f "$t" ] && [ -x "$t" ] && install -m 0755 "$t" "$r/rtlab/stress/"
done
install -m 0755 "$top"/vm/reboot/* "$r/rtlab/reboot/"
cp "$top"/kernel/configs/*.config "$r/rtlab/configs/"
for t in "$top"/vm/selftest/*; do
	[ -f "$t" ] && install -m 0755 "$t" "$r/rtlab/selftest/"
done
if [ -d "$top/bench" ]; then
	for t in "$top"/bench/*.sh; do
		[ -f "$t" ] && install -m 0755 "$t" "$r/rtlab/bench/"
	done
fi

mkdir -p "$out"
# Uncompressed: unpacking a gzip'd archive costs seconds of boot under TCG.
(cd "$r" && find . -print0 | sort -z | cpio --null -o -H newc --quiet -R 0:0) >"$out/common.cpio.new"
mv "$out/common.cpio.new" "$out/common.cpio"
rm -rf "$root"
mv "$r" "$root"
trap - EXIT

for v in rt rt-debug; do
	variant_archive "$v"
done
echo "mkinitramfs: $out/{rt,rt-debug}.cpio ($(du -h "$out/common.cpio" | cut -f1) common)"
