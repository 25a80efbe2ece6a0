#!/bin/bash
# Build a kernel variant with one patch of the series reverted, to show
# what the patch changes:  build-without.sh 0001 rt  ->  variant "rt-no0001"
# with its own output tree, test modules and initramfs, usable as
#   vm/run-tests.sh --kernel rt-no0001 tests/guest/<test>
# The patch is reversed in $BUILD/linux for the build only and put back
# afterwards (under the kernel lock, so no other build sees it).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
num=${1:?usage: build-without.sh NNNN VARIANT}
base=${2:?usage: build-without.sh NNNN VARIANT}
patch=$(ls "$top"/kernel/patches/"$num"-*.patch 2>/dev/null | head -n 1)
[ -n "$patch" ] || { echo "build-without: no patch $num" >&2; exit 1; }
variant=$base-no$num
tree=$build/linux
[ -f "$tree/.rtlab-stamp" ] || { echo "build-without: make tree first" >&2; exit 1; }

exec 9>"$build/.kernel.lock"
flock 9
patch -d "$tree" -p1 -R --batch --no-backup-if-mismatch -s <"$patch"
trap 'patch -d "$tree" -p1 --batch --no-backup-if-mismatch -s <"$patch"' EXIT
FRAGMENT=$base "$top/kernel/scripts/build-kernel.sh" "$variant"
"$top/kernel/scripts/build-modules.sh" "$variant"
"$top/vm/mkinitramfs.sh" --variant "$variant"
echo "build-without: kernel $variant (series without $(basename "$patch")) ready"
