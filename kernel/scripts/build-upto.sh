#!/bin/bash
# Build the series cut after one patch, to show that each patch builds and
# boots on its own:  build-upto.sh 0007 rt  ->  variant "rt-upto0007" (the
# series up to and including 0007), with its own output tree, test modules
# and initramfs, usable as
#   vm/run-tests.sh --kernel rt-upto0007 tests/guest/00-smoke.sh
# The later patches are reversed in $BUILD/linux for the build only and put
# back afterwards (under the kernel lock, so no other build sees it).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
num=${1:?usage: build-upto.sh NNNN VARIANT}
base=${2:?usage: build-upto.sh NNNN VARIANT}
ls "$top"/kernel/patches/"$num"-*.patch >/dev/null 2>&1 || { echo "build-upto: no patch $num" >&2; exit 1; }
variant=$base-upto$num
tree=$build/linux
[ -f "$tree/.rtlab-stamp" ] || { echo "build-upto: make tree first" >&2; exit 1; }

# the patches after $num, last first
later=()
for p in $(sed -e 's/#.*//' "$top/kernel/patches/series" | grep -v '^[[:space:]]*$'); do
	[[ "$p" > "$num-" && "${p%%-*}" != "$num" ]] && later=("$top/kernel/patches/$p" "${later[@]}")
done

exec 9>"$build/.kernel.lock"
flock 9
undone=()
restore() {
	local i
	for ((i = ${#undone[@]} - 1; i >= 0; i--)); do
		patch -d "$tree" -p1 --batch --no-backup-if-mismatch -s <"${undone[$i]}"
	done
}
trap restore EXIT
for p in "${later[@]}"; do
	patch -d "$tree" -p1 -R --batch --no-backup-if-mismatch -s <"$p"
	undone+=("$p")
done
FRAGMENT=$base "$top/kernel/scripts/build-kernel.sh" "$variant"
"$top/kernel/scripts/build-modules.sh" "$variant"
"$top/vm/mkinitramfs.sh" --variant "$variant"
echo "build-upto: kernel $variant (series up to $num, ${#later[@]} later patches left out) ready"
