#!/bin/bash
# For patch authors: a git tree in $BUILD/kdev holding the pristine Debian
# source as its first commit and the series applied on top with "git am", so
# that patches are edited as commits and exported with
#   git -C build/kdev format-patch -o kernel/patches <base>..
# The lab itself never builds from this tree (it builds $BUILD/linux from
# the series), so what is tested is always what is committed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
kdev=$rtlab_build/kdev
tarball=${KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
if [ ! -d "$kdev/.git" ]; then
	mkdir -p "$kdev"
	tar -xf "$tarball" -C "$kdev" --strip-components=1
	git -C "$kdev" init -q
	git -C "$kdev" add -f -A .  # Debian's .gitignore ignores the whole top level
	git -C "$kdev" -c user.name=rtlab -c user.email=rtlab@localhost commit -q -m "Debian linux-source $(make -s -C "$kdev" kernelversion)"
	git -C "$kdev" tag pristine
fi
git -C "$kdev" checkout -q -B series pristine
for p in $(series); do
	git -C "$kdev" am -q "$rtlab_patches/$p"
done
echo "dev-tree: $kdev on branch series ($(git -C "$kdev" rev-list --count pristine..) patches over 'pristine')"
