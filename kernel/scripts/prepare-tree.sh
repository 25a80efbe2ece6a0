#!/bin/bash
# Prepare the patched kernel tree in $BUILD/linux from Debian's linux-source
# package: extract it, apply kernel/patches/series in order, stamp the result.
# Re-running with the same tarball and series does nothing; any change to the
# tarball, the series or a patch re-extracts a pristine tree first.
# A patch that does not apply fails the run, naming the patch and the hunk,
# and leaves the previous good tree (if any) untouched.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
build=$rtlab_build patches=$rtlab_patches tree=$rtlab_tree
tarball=${KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
stampfile=$tree/.rtlab-stamp

[ -r "$tarball" ] || die "$tarball not found (apt-get install linux-source-6.12)"

stamp=$(tree_stamp "$tarball")

if [ -f "$stampfile" ] && [ "$(cat "$stampfile")" = "$stamp" ]; then
	echo "prepare-tree: $tree is up to date ($(make -s -C "$tree" kernelversion))"
	exit 0
fi

mkdir -p "$build"
tmp=$build/linux.new
rm -rf "$tmp"
mkdir "$tmp"
trap 'rm -rf "$tmp"' EXIT
echo "prepare-tree: extracting $tarball"
tar -xf "$tarball" -C "$tmp" --strip-components=1
version=$(make -s -C "$tmp" kernelversion)
echo "prepare-tree: kernel $version"

n=0
for p in $(series); do
	n=$((n + 1))
	if ! out=$(patch -d "$tmp" -p1 --batch --forward --no-backup-if-mismatch \
			-r - <"$patches/$p" 2>&1); then
		echo "$out" | sed 's/^/    /' >&2
		die "patch $n ($p) does not apply to $version: see the FAILED hunks above"
	fi
	echo "prepare-tree: applied $p"
done

echo "$stamp" >"$tmp/.rtlab-stamp"
rm -rf "$tree.old"
[ -d "$tree" ] && mv "$tree" "$tree.old"
mv "$tmp" "$tree"
rm -rf "$tree.old"
trap - EXIT
echo "prepare-tree: $tree ready ($version, $n patches)"
