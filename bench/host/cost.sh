#!/bin/bash
# Boot bench/guest/cost.sh (instruction-counted: its header says
# accel=icount) again and again, and print each figure's spread across the
# boots, or, given two kernels, each figure of both and the ratio B / A.
#
#   bench/host/cost.sh [--boots N] [--env NAME=VALUE]... KERNEL_A [KERNEL_B]
#
# One kernel: determinism.  N boots (default 3), each with the host's load
# average (1 min, before and after) and the boot's wall time; per figure the
# median of the boots' medians, the spread of the runs within one boot, and
# the spread across boots of the same run (worst run index): with
# instruction counting that last one should be 0.
# Two kernels: A/B.  The kernels boot alternately, N times each; per figure
# the median of all runs of each kernel (>= 5: COST_RUNS per boot), their
# spread (max - min) / median, and B / A.  All figures are lower-is-better
# guest times.  Spreads are in percent.
# Output: build/bench/cost-<A>[-<B>].md (and stdout), with two kernels also
# build/bench/cost-<A>-<B>.json (the rows, for bench/ab.json); the raw
# metrics of every boot in build/bench/cost-<A>[-<B>]/.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
boots=3
envs=()
while [ $# -gt 0 ]; do
	case "$1" in
	--boots) boots=$2; shift 2 ;;
	--env) envs+=(--env "$2"); shift 2 ;;
	-h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "cost: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
case $# in 1|2) ;; *) echo "usage: bench/host/cost.sh [--boots N] [--env NAME=VALUE]... KERNEL_A [KERNEL_B]" >&2; exit 2 ;; esac
[ "$1" != "${2:-}" ] || { echo "cost: KERNEL_A and KERNEL_B are the same; one kernel's spread: bench/host/cost.sh $1" >&2; exit 2; }
case "$boots" in ''|*[!0-9]*|0) echo "cost: --boots takes a positive number" >&2; exit 2 ;; esac
for k in "$@"; do
	[ -f "$build/out/$k/arch/x86/boot/bzImage" ] && [ -f "$build/initramfs/$k.cpio" ] || {
		echo "cost: kernel variant $k not built ($build/out/$k, $build/initramfs/$k.cpio):" \
			"make initramfs, or kernel/scripts/build-variant.sh --upto|--without NNNN rt" >&2
		exit 2
	}
done

name=cost-$(IFS=-; echo "$*")
res=$build/bench/$name
rm -rf "$res"
mkdir -p "$res"
load1() { cut -d' ' -f1 /proc/loadavg; }
for i in $(seq "$boots"); do
	for k in "$@"; do
		suite=$name-$k-$i
		l0=$(load1)
		echo "cost: boot $i of $boots, kernel $k, host load $l0" >&2
		"$top/lab/rtlab" run --suite "$suite" --dir bench --kernel "$k" "${envs[@]}" \
			"$top/bench/guest/cost.sh" >"$res/$k-$i.tap" 2>&1 ||
			echo "cost: the run on $k (boot $i) reported failures, see $res/$k-$i.tap" >&2
		m=$(ls "$build/run/$suite"/*/out/cost.sh/metrics.txt 2>/dev/null | tail -n 1)
		[ -n "$m" ] || { echo "cost: no metrics from $k (boot $i), see $res/$k-$i.tap" >&2; exit 1; }
		cp "$m" "$res/$k-$i.metrics"
		echo "$k $i $l0 $(load1) $(cat "$(dirname "$(dirname "$(dirname "$m")")")/wall")" >>"$res/boots"
	done
done

out=$build/bench/$name.md
{
	echo "# cost, $(date -u '+%Y-%m-%d %H:%M UTC'), ACCEL=icount shift=${ICOUNT_SHIFT:-0}, $boots boot(s) per kernel"
	echo
	echo "Guest times under icount: instruction counts (2^shift ns each), not host time."
	echo "Units: hackbench ms, pingpong ns per round trip, cyclictest ns, irq ns."
	echo
	echo "| kernel | boot | host load before | after | wall s |"
	echo "|---|---|---|---|---|"
	awk '{ printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5 }' "$res/boots"
	echo
	for k in "$@"; do
		for i in $(seq "$boots"); do sed "s/^/$k $i /" "$res/$k-$i.metrics"; done
	done | "$top/bench/host/cost-table.awk" -v a="$1" -v b="${2:-}"
} >"$out"
cat "$out"
# The A/B rows as JSON too (bench/ab.json collects them), with the method.
[ $# = 2 ] || exit 0
for k in "$@"; do
	for i in $(seq "$boots"); do sed "s/^/$k $i /" "$res/$k-$i.metrics"; done
done | "$top/bench/host/cost-table.awk" -v a="$1" -v b="$2" -v fmt=json |
	jq -s --arg a "$1" --arg b "$2" --arg date "$(date -u '+%Y-%m-%d %H:%M UTC')" \
		--argjson shift "${ICOUNT_SHIFT:-0}" --argjson boots "$boots" --rawfile loads "$res/boots" \
		'{date: $date, method: "bench/host/cost.sh --boots \($boots) \($a) \($b), ACCEL=icount shift \($shift): guest ns = 2^shift instructions; per figure the median of all runs of each kernel, spread (max - min) / median",
		  a: $a, b: $b, icount_shift: $shift,
		  boots: ($loads | split("\n") | map(select(length > 0) | split(" ") | {kernel: .[0], boot: (.[1] | tonumber), load_before: (.[2] | tonumber), load_after: (.[3] | tonumber), wall_s: (.[4] | tonumber)})),
		  rows: .}' >"$build/bench/$name.json"
echo "cost: A/B rows as JSON in $build/bench/$name.json" >&2
