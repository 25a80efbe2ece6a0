#!/bin/bash
# Run bench/guest/rtgroup.sh on two kernel variants, alternately, and print every
# figure of both with the ratio B / A (host side; the guests run one at a
# time).
#
#   bench/host/rtgroup-ab.sh [--rounds N] [--env NAME=VALUE]... KERNEL_A KERNEL_B
#
# e.g.  kernel/scripts/build-without.sh 0006 rt     # variant rt-no0006
#       bench/host/rtgroup-ab.sh rt-no0006 rt
# With --rounds N (default 1) the kernels take turns N times (A B A B ...),
# and each figure is the median over the rounds: host load drifts, and
# alternating spreads it over both.  Under TCG only ratios measured this
# way mean anything.  Output: build/bench/rtgroup-ab.md (and stdout).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
rounds=1
envs=()
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds=$2; shift 2 ;;
	--env) envs+=(--env "$2"); shift 2 ;;
	-h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "rtgroup-ab: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# = 2 ] || { echo "usage: bench/host/rtgroup-ab.sh [--rounds N] [--env NAME=VALUE]... KERNEL_A KERNEL_B" >&2; exit 2; }
case "$rounds" in ''|*[!0-9]*|0) echo "rtgroup-ab: --rounds takes a positive number" >&2; exit 2 ;; esac
a=$1 b=$2
for k in "$a" "$b"; do
	[ -f "$build/out/$k/arch/x86/boot/bzImage" ] && [ -f "$build/initramfs/$k.cpio" ] || {
		echo "rtgroup-ab: kernel variant $k not built ($build/out/$k, $build/initramfs/$k.cpio);" \
			"make initramfs, or kernel/scripts/build-without.sh NNNN rt for rt-noNNNN" >&2
		exit 2
	}
done

res=$build/bench/rtgroup-ab
rm -rf "$res"
mkdir -p "$res"
for r in $(seq "$rounds"); do
	for k in "$a" "$b"; do
		suite=rtgroup-ab-$k
		echo "rtgroup-ab: round $r of $rounds, kernel $k" >&2
		KERNEL=$k BENCH_SUITE=$suite "$top/bench/host/run.sh" "${envs[@]}" "$top/bench/guest/rtgroup.sh" >"$res/$k-$r.log" 2>&1 ||
			echo "rtgroup-ab: the bench on $k (round $r) reported failures, see $res/$k-$r.log" >&2
		m=$(ls "$build/run/$suite"/*/out/rtgroup.sh/metrics.txt 2>/dev/null | tail -n 1)
		[ -n "$m" ] || { echo "rtgroup-ab: no metrics from $k (round $r), see $res/$k-$r.log" >&2; exit 1; }
		cp "$m" "$res/$k-$r.metrics"
		cp "$(dirname "$m")/table.md" "$res/$k-$r.table.md" 2>/dev/null
	done
done

# median per metric and kernel, then one row per metric
out=$build/bench/rtgroup-ab.md
{
	echo "# rtgroup A/B, $(date -u '+%Y-%m-%d %H:%M UTC'), ${ACCEL:-tcg}, $rounds round(s)"
	echo
	echo "A = $a, B = $b; each figure the median over the rounds. Higher is better for"
	echo "mean_pct (closer to configured), rate; lower for median_s, median_us, p99_us."
	echo
	echo "| metric | A | B | B / A |"
	echo "|---|---|---|---|"
	for k in "$a" "$b"; do
		for r in $(seq "$rounds"); do sed "s/^/$k /" "$res/$k-$r.metrics"; done
	done | awk -v a="$a" -v b="$b" '
		{ key = $1 SUBSEP $2; n[key]++; v[key, n[key]] = $3; if (!($2 in seen)) { seen[$2] = 1; order[++m] = $2 } }
		function med(k,   i, j, t, c, x) {
			c = n[k]; if (!c) return ""
			for (i = 1; i <= c; i++) x[i] = v[k, i]
			for (i = 2; i <= c; i++) for (j = i; j > 1 && x[j - 1] > x[j]; j--) { t = x[j]; x[j] = x[j - 1]; x[j - 1] = t }
			return c % 2 ? x[(c + 1) / 2] : (x[c / 2] + x[c / 2 + 1]) / 2
		}
		END {
			for (i = 1; i <= m; i++) {
				x = med(a SUBSEP order[i]); y = med(b SUBSEP order[i])
				printf "| %s | %s | %s | %s |\n", order[i], x, y, (x != "" && y != "" && x + 0 != 0) ? sprintf("%.3f", y / x) : "-"
			}
		}'
} >"$out"
cat "$out"
