#!/bin/bash
# Build every out-of-tree test module in kernel/modules/<name>/ against one
# kernel variant's output tree; the .ko files land in
# $BUILD/out/<variant>/rtlab-modules/ for the initramfs.  The sources are
# copied per variant so that the two builds never share objects.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
top=$rtlab_top build=$rtlab_build
variant=${1:?usage: build-modules.sh rt|rt-debug}
out=$build/out/$variant
dest=$out/rtlab-modules
work=$build/modules/$variant
[ -f "$out/Module.symvers" ] || die "kernel $variant not built"
export KBUILD_BUILD_TIMESTAMP='2017-10-21 09:00:00 UTC' KBUILD_BUILD_USER=rtlab KBUILD_BUILD_HOST=rtlab
mkdir -p "$dest" "$work"
rm -f "$dest"/*.ko
for m in "$top"/kernel/modules/*/; do
	name=$(basename "$m")
	[ -f "$m/Makefile" ] || [ -f "$m/Kbuild" ] || continue
	rsync -a --delete --exclude '*.o' --exclude '*.ko' --exclude '.*.cmd' "$m" "$work/$name/"
	make -s -C "$out" ARCH=x86_64 M="$work/$name" modules
	cp "$work/$name"/*.ko "$dest/"
done
echo "build-modules: $variant: $(ls "$dest" | tr '\n' ' ')"
