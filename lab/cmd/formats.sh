#!/bin/bash
# lab/rtlab formats [VARIANT...]: keep the ftdump format bundle of each
# bootable kernel variant next to its kernel image (issue 19), in
# build/out/<variant>/ftdump-formats, so that a console log from that
# kernel converts without the machine it ran on:
#   ftdump -f build/out/rt/ftdump-formats -o trace.dat console.log
# The formats come from the running kernel's tracefs, so each variant is
# booted once (lab/rtlab shell -c) to run "ftdump --save-formats" there,
# with the enum constants from the BTF that rtlab_enums.ko of the same
# kbuild carries where the kernel has none. A bundle newer than its
# bzImage is kept. Prints TAP, one point per variant; exit 1 if one failed.
set -uo pipefail
. "$(dirname "$0")/../lib/machine.sh"
[ $# -gt 0 ] || mapfile -t vs < <(variants)
[ $# -eq 0 ] || vs=("$@")
echo "TAP version 13"
echo "1..${#vs[@]}"
n=0 rc=0
for v in "${vs[@]}"; do
	n=$((n + 1))
	bz=$lab_build/out/$v/arch/x86/boot/bzImage
	dst=$lab_build/out/$v/ftdump-formats
	if [ ! -f "$bz" ]; then
		echo "not ok $n $v: no kernel image $bz (make kernel)"
		rc=1
		continue
	fi
	if [ -f "$dst/.stamp" ] && [ "$dst/.stamp" -nt "$bz" ]; then
		echo "ok $n $v: $dst, $(ls -d "$dst"/events/*/*/ | wc -l) event formats (newer than the kernel, kept)"
		continue
	fi
	KERNEL=$v TIMEOUT=120 "$lab_top/lab/rtlab" shell -c \
		'b=; [ -r /sys/kernel/btf/vmlinux ] || b="--btf /rtlab/modules/rtlab_enums.ko"; ftdump --save-formats /tmp/formats $b && tar -cf /rtlab/out/formats.tar -C /tmp formats' \
		>"$lab_build/out/$v/ftdump-formats.log" 2>&1
	# one tar file over 9p, not some 500 small files (20-130 s under TCG)
	got=$lab_build/run/shell/out/formats
	rm -rf "$got"
	[ ! -f "$got.tar" ] || tar -xf "$got.tar" -C "$(dirname "$got")"
	if [ -d "$got/events" ] && [ -s "$got/enums" ]; then
		rm -rf "$dst"
		mv "$got" "$dst"
		touch "$dst/.stamp"
		echo "ok $n $v: $dst, $(ls -d "$dst"/events/*/*/ | wc -l) event formats, $(grep -vc '^#' "$dst/enums") enum constants"
	else
		echo "not ok $n $v: ftdump --save-formats in the guest failed ($lab_build/out/$v/ftdump-formats.log)"
		sed 's/^/# /' "$lab_build/out/$v/ftdump-formats.log" | tail -n 10
		rc=1
	fi
done
exit $rc
