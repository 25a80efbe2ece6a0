#!/bin/bash
# Build the guest's initramfs in layers that the kernel unpacks in turn:
#   $BUILD/initramfs/common.cpio     busybox, the host programs named in
#                                    lab/image/host-binaries, rtla, the
#                                    project's binaries and libraries
#   $BUILD/initramfs/guest.cpio      init, the guest test library, guest
#                                    tests, stress runs, benchmarks,
#                                    self-tests, config fragments
#   $BUILD/initramfs/<variant>.cpio  common + guest + that variant's test
#                                    modules (kernel/scripts/build-modules.sh)
#   mkinitramfs.sh                  all layers
#   mkinitramfs.sh --guest          guest.cpio and the variant archives only
#                                   (lab/rtlab does this when a guest file
#                                   is newer than the image)
#   mkinitramfs.sh --variant V      V.cpio only (kernel/scripts/build-variant.sh)
#   mkinitramfs.sh --guest-sources  the files guest.cpio is made from
# Shared libraries are copied with their loader; ldd does not list
# libgcc_s.so.1, which glibc dlopens at thread exit, so it is added by hand.
set -euo pipefail

. "$(dirname "$0")/../lib/machine.sh"
top=$lab_top build=$lab_build
out=$build/initramfs
root=$out/root
die() { echo "mkinitramfs: $*" >&2; exit 1; }

# Guest-side sources.
guest_sources=(lab/image/init tests/guest tests/stress bench/guest
	lab/selftest/harness lab/selftest/reboot lab/selftest/textpoke kernel/configs)

# pack DIR OUT: DIR as an uncompressed newc archive (unpacking a gzip'd
# archive costs seconds of boot under TCG); "." becomes the guest's /
pack() { (cd "$1" && find . -print0 | sort -z | cpio --null -o -H newc --quiet -R 0:0) >"$2"; }

# variant_archive V: $out/V.cpio = common + guest + the test modules built
# for kernel variant V, if any
variant_archive() {
	local v=$1 m=$build/out/$1/rtlab-modules tmpd
	cat "$out/common.cpio" "$out/guest.cpio" >"$out/$v.cpio.new"
	if [ -d "$m" ] && [ -n "$(ls -A "$m" 2>/dev/null)" ]; then
		tmpd=$(mktemp -d)
		chmod 0755 "$tmpd"	# its "." entry becomes the guest's / (mktemp makes it 0700)
		mkdir -p "$tmpd/rtlab/modules"
		cp "$m"/*.ko "$tmpd/rtlab/modules/"
		pack "$tmpd" "$tmpd/mods.cpio"
		cat "$tmpd/mods.cpio" >>"$out/$v.cpio.new"
		rm -rf "$tmpd"
	fi
	mv "$out/$v.cpio.new" "$out/$v.cpio"
}

# all_variant_archives: the archives of the bootable variants that are
# built (make demo builds only its own) and every other one already made
# (build-variant.sh's cuts of the series)
all_variant_archives() {
	local v made=()
	for v in $(variants) $(cd "$out" && ls -- *.cpio 2>/dev/null | sed 's/\.cpio$//'); do
		case " common guest ${made[*]} " in *" $v "*) continue ;; esac
		[ -f "$build/out/$v/arch/x86/boot/bzImage" ] || continue
		variant_archive "$v"
		made+=("$v")
	done
	echo "mkinitramfs: $out/{$(IFS=,; echo "${made[*]}")}.cpio ($(du -h "$out/common.cpio" | cut -f1) common)"
}

# install_exec SRC... DEST: every executable regular file of SRC into DEST
install_exec() {
	local dest=${*: -1} f
	mkdir -p "$dest"
	for f in "${@:1:$#-1}"; do
		[ -f "$f" ] && [ -x "$f" ] && install -m 0755 "$f" "$dest/"
	done
	return 0
}

# guest_layer: guest.cpio, the files that change with every test edited
guest_layer() {
	local g v
	g=$(mktemp -d)
	chmod 0755 "$g"
	install -D -m 0755 "$top/lab/image/init" "$g/init"
	install -D -m 0644 "$top/tests/guest/lib.sh" "$g/rtlab/lib.sh"
	install -D -m 0644 -t "$g/rtlab/lib" "$top"/tests/guest/lib/*.sh
	install_exec "$top"/tests/guest/* "$g/rtlab/tests"
	install_exec "$top"/tests/stress/* "$g/rtlab/stress"
	install_exec "$top"/lab/selftest/reboot/* "$g/rtlab/reboot"
	install_exec "$top"/lab/selftest/harness/* "$g/rtlab/selftest"
	install_exec "$top"/lab/selftest/textpoke/* "$g/rtlab/textpoke"
	install -m 0644 "$top/lab/selftest/textpoke/body.sh" "$g/rtlab/textpoke/"
	install_exec "$top"/bench/guest/*.sh "$g/rtlab/bench"
	# base and the bootable variants' fragments (00-smoke compares them)
	mkdir -p "$g/rtlab/configs"
	for v in base $(variants); do cp "$top/kernel/configs/$v.config" "$g/rtlab/configs/"; done
	pack "$g" "$out/guest.cpio.new"
	mv "$out/guest.cpio.new" "$out/guest.cpio"
	rm -rf "$g"
}

case "${1:-}" in
--guest-sources) printf "$top/%s\n" "${guest_sources[@]}"; exit 0 ;;
--variant)
	[ -f "$out/common.cpio" ] && [ -f "$out/guest.cpio" ] || die "no $out/common.cpio (make initramfs)"
	variant_archive "${2:?--variant needs a kernel variant}"
	exit 0 ;;
--guest)
	[ -f "$out/common.cpio" ] || die "no $out/common.cpio (make initramfs)"
	guest_layer
	all_variant_archives
	exit 0 ;;
'') ;;
*) die "unknown option $1" ;;
esac

# The host programs (lab/image/host-binaries): PATH [required]
required=() optional=()
while read -r path flag; do
	case "$path" in ''|'#'*) continue ;; esac
	if [ "${flag:-}" = required ]; then required+=("$path"); else optional+=("$path"); fi
done <"$top/lab/image/host-binaries"
for f in "${required[@]}"; do
	[ -x "$f" ] || die "$f is missing (make deps)"
done
[ "${required[0]}" = /bin/busybox ] || die "lab/image/host-binaries must name /bin/busybox first"

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

mkdir -p "$out"
pack "$r" "$out/common.cpio.new"
mv "$out/common.cpio.new" "$out/common.cpio"
rm -rf "$root"
mv "$r" "$root"
trap - EXIT
guest_layer
all_variant_archives
