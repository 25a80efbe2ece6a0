#!/bin/bash
# Prepare the patched kernel tree in $BUILD/linux from Debian's linux-source
# package: extract it, apply kernel/patches/series in order, stamp the result.
# Re-running with the same tarball and series does nothing; any change to the
# tarball, the series or a patch re-extracts a pristine tree first.
# A patch that does not apply fails the run, naming the patch and the hunk,
# and leaves the previous good tree (if any) untouched.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
tarball=${KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
patches=$top/kernel/patches
tree=$build/linux
stampfile=$tree/.rtlab-stamp

die() { echo "prepare-tree: $*" >&2; exit 1; }

[ -r "$tarball" ] || die "$tarball not found (apt-get install linux-source-6.12)"

series() {
	[ -f "$patches/series" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$patches/series" | grep -v '^$' || true
}

# The stamp names the tarball (size, mtime) and hashes the series and patches.
stamp=$( {
	stat -c '%n %s %Y' "$tarball"
	[ -f "$patches/series" ] && cat "$patches/series"
	series | while read -r p; do
		[ -f "$patches/$p" ] || die "series names $p, which is not in kernel/patches"
		sha256sum "$patches/$p"
	done
} | sha256sum | cut -d' ' -f1)

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
