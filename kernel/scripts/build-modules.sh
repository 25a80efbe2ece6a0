#!/bin/bash
# Build every out-of-tree test module in kernel/modules/<name>/ against one
# kernel variant's output tree; the .ko files, with the variant's in-tree
# modules, land in
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
# and the kernel's own modules of the variant (options =m in its fragment,
# e.g. rt-debug's aer_inject), which build-kernel.sh installed in modroot
if [ -d "$out/modroot/lib/modules" ]; then
	find "$out/modroot/lib/modules" -name '*.ko' -exec cp {} "$dest/" \;
fi
echo "build-modules: $variant: $(ls "$dest" | tr '\n' ' ')"
