#!/bin/bash
# Build a kernel variant from part of the series, with its own output tree,
# test modules and initramfs:
#   build-variant.sh --upto NNNN BASE     the series cut after patch NNNN
#                                         (to show each patch builds and boots
#                                         on its own): variant BASE-uptoNNNN
#   build-variant.sh --without NNNN BASE  the series with patch NNNN reverted
#                                         (to show what it changes): BASE-noNNNN
#   build-variant.sh --without NNNN,MMMM BASE  without several patches (a
#                                         feature of several patches, for A/B):
#                                         BASE-noNNNN-noMMMM
# BASE (rt, rt-debug) names the config fragment.  The variant then runs as
#   lab/rtlab run --kernel BASE-noNNNN tests/guest/00-smoke.sh
# The patches are reversed in $BUILD/linux for the build only and put back
# afterwards, under the kernel lock so that no other build sees the tree.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
usage="usage: build-variant.sh --upto|--without NNNN BASE"
[ $# = 3 ] || die "$usage"
mode=$1 num=$2 base=$3
[ -f "$rtlab_top/kernel/configs/$base.config" ] || die "no config fragment kernel/configs/$base.config"
[ -f "$rtlab_tree/.rtlab-stamp" ] || die "$rtlab_tree is not prepared (make tree)"
# the patches to reverse, last first
reverse=()
case "$mode" in
--upto)
	cut=$(basename "$(series_patch "$num")")
	variant=$base-upto$num
	for p in $(series); do
		[[ "$p" > "$cut" ]] && reverse=("$rtlab_patches/$p" "${reverse[@]}")
	done
	what="series up to $num, ${#reverse[@]} later patches left out" ;;
--without)
	variant=$base what="series without"
	for n in $(tr ',' '\n' <<<"$num" | sort -u); do
		p=$(series_patch "$n") || exit 1
		reverse=("$p" "${reverse[@]}")
		variant+=-no$n what+=" ${p##*/}"
	done ;;
*) die "$usage" ;;
esac

kernel_lock
undone=()
restore() {
	local i
	for ((i = ${#undone[@]} - 1; i >= 0; i--)); do
		patch -d "$rtlab_tree" -p1 --batch --no-backup-if-mismatch -s <"${undone[$i]}"
	done
}
trap restore EXIT
for p in "${reverse[@]}"; do
	patch -d "$rtlab_tree" -p1 -R --batch --no-backup-if-mismatch -s <"$p"
	undone+=("$p")
done
FRAGMENT=$base "$rtlab_top/kernel/scripts/build-kernel.sh" "$variant"
"$rtlab_top/kernel/scripts/build-modules.sh" "$variant"
"$rtlab_top/lab/rtlab" image --variant "$variant"
echo "build-variant: kernel $variant ($what) ready"
