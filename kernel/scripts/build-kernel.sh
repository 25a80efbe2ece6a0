#!/bin/bash
# Build one kernel variant (rt or rt-debug) out of tree in $BUILD/out/<variant>.
#
# The .config is tinyconfig (x86_64) + configs/base.config + configs/<variant>.config.
# It is regenerated each run in a scratch directory and only copied over the
# real one when it differs, so an unchanged config keeps the build (and the
# ccache) warm.  Every option the fragments ask for is checked after the merge:
# Kconfig drops an option whose dependencies are missing without a word, and
# that must be an error here.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
top=$rtlab_top build=$rtlab_build tree=$rtlab_tree
variant=${1:?usage: build-kernel.sh rt|rt-debug}
out=$build/out/$variant
# FRAGMENT: build another variant's config into this variant's directory
frags=("$top/kernel/configs/base.config" "$top/kernel/configs/${FRAGMENT:-$variant}.config")

[ -f "${frags[1]}" ] || die "no config fragment for variant '$variant'"
[ -f "$tree/.rtlab-stamp" ] || die "$tree is not prepared (make tree)"

# Reproducible builds so that ccache hits across output directories.
export KBUILD_BUILD_TIMESTAMP='2017-10-21 09:00:00 UTC'
export KBUILD_BUILD_USER=rtlab KBUILD_BUILD_HOST=rtlab
export CCACHE_DIR=${CCACHE_DIR:-${RTLAB_CCACHE_DIR:-$HOME/.cache/rtlab-ccache}}
export CCACHE_BASEDIR=$build CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=time_macros
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
cc="gcc"
command -v ccache >/dev/null && cc="ccache gcc"
jobs=${JOBS:-$(nproc)}
kmake=(make -s -C "$tree" ARCH=x86_64 "CC=$cc" "HOSTCC=$cc")

cfg=$build/out/$variant.cfg
rm -rf "$cfg"
mkdir -p "$cfg" "$out"
"${kmake[@]}" O="$cfg" tinyconfig >/dev/null
# merge_config.sh leaves temporary files in the current directory
(cd "$cfg" && "$tree/scripts/kconfig/merge_config.sh" -m -O "$cfg" "$cfg/.config" "${frags[@]}") >"$cfg/merge.log" 2>&1 ||
	{ cat "$cfg/merge.log" >&2; die "merge_config failed"; }
"${kmake[@]}" O="$cfg" olddefconfig >/dev/null

# Every requested option must have stuck.
bad=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=n)
		opt=${line%%=*}
		if grep -q "^$opt=" "$cfg/.config"; then
			echo "build-kernel: $opt was requested off but is $(grep "^$opt=" "$cfg/.config")" >&2
			bad=1
		fi ;;
	CONFIG_*=*)
		if ! grep -qxF "$line" "$cfg/.config"; then
			opt=${line%%=*}
			have=$(grep -E "^$opt=|^# $opt is not set" "$cfg/.config" || echo "absent")
			echo "build-kernel: $line did not stick (have: $have); check its dependencies" >&2
			bad=1
		fi ;;
	esac
done < <(cat "${frags[@]}" | sed 's/[[:space:]]*#.*//' | grep '^CONFIG_' |
	# a later fragment overrides an earlier one (rt-nogroup.config turns
	# base.config's RT_GROUP_SCHED off): check each option's last value
	awk -F= '!($1 in v) { order[++n] = $1 } { v[$1] = $0 } END { for (i = 1; i <= n; i++) print v[order[i]] }')
[ "$bad" = 0 ] || die "config for '$variant' is not what kernel/configs asks for"

if ! cmp -s "$cfg/.config" "$out/.config"; then
	cp "$cfg/.config" "$out/.config"
	echo "build-kernel: $variant: new .config"
fi
rm -rf "$cfg"

echo "build-kernel: building $variant ($(make -s -C "$tree" kernelversion)) with -j$jobs"
"${kmake[@]}" O="$out" olddefconfig >/dev/null
"${kmake[@]}" O="$out" -j"$jobs" bzImage modules
"${kmake[@]}" O="$out" -j"$jobs" modules_install INSTALL_MOD_PATH="$out/modroot" >/dev/null 2>&1 || true
echo "build-kernel: $out/arch/x86/boot/bzImage"
