#!/bin/bash
# cocci/kconfig.sh TREE DIR: write DIR/<arch>-<rt|nort>.syms, the Kconfig
# symbols that `make allyesconfig` sets (=y or =m) for x86_64, arm64 and
# riscv (the architectures that select ARCH_SUPPORTS_RT in 6.12), with
# COMPILE_TEST=n (only code that can run on the architecture) and with
# PREEMPT_RT=y and =n.  reach.py compares the two to tag findings
# kconfig-excludes-rt.  The kernel tree is not written to: make runs with
# O= in a temporary directory.  About 20 s of one core per configuration.
set -euo pipefail
[ $# -eq 2 ] || { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
tree=$(cd "$1" && pwd)
dir=$2
[ -f "$tree/Kconfig" ] || { echo "kconfig.sh: $tree/Kconfig: not a kernel tree" >&2; exit 2; }
mkdir -p "$dir"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rtlab-kconfig.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for v in rt nort; do
	rt=y; [ $v = nort ] && rt=n
	printf 'CONFIG_COMPILE_TEST=n\nCONFIG_EXPERT=y\nCONFIG_PREEMPT_RT=%s\n' $rt >"$tmp/$v.cfg"
done
for a in x86_64:x86 arm64:arm64 riscv:riscv; do
	for v in rt nort; do
		o=$tmp/${a%%:*}-$v
		make -s -C "$tree" O="$o" ARCH="${a#*:}" KCONFIG_ALLCONFIG="$tmp/$v.cfg" allyesconfig >"$o.log" 2>&1 ||
			{ echo "kconfig.sh: allyesconfig ${a%%:*} $v failed:" >&2; tail -n 5 "$o.log" >&2; exit 1; }
		want=y; [ $v = nort ] && want=n
		if [ $want = y ]; then grep -q '^CONFIG_PREEMPT_RT=y' "$o/.config"
		else ! grep -q '^CONFIG_PREEMPT_RT=y' "$o/.config"; fi ||
			{ echo "kconfig.sh: ${a%%:*}: PREEMPT_RT not $want after allyesconfig" >&2; exit 1; }
		sed -n 's/^CONFIG_\([A-Za-z0-9_]*\)=[ym]$/\1/p' "$o/.config" | sort >"$dir/${a%%:*}-$v.syms"
	done
done
