#!/bin/bash
# make bench: run the benchmarks in the guest (rt kernel), make their plots
# on the host and write one report, build/bench/REPORT.md, with the date,
# the machine and every benchmark's table (a benchmark with a host half,
# bench/host/post/NAME.sh, gets its checks there too), and the regression guard: the
# instruction-counted figures of cost.sh against bench/baseline.json
# (bench/host/compare.sh), exit 1 when one got more than 3% worse.
#   bench/host/run.sh [--env NAME=VALUE]... [BENCHMARK.sh...]
# Without a benchmark, all of them: bench/guest/*.sh, and the host
# benchmarks below (HOST_BENCH=0 leaves those out; HOST_BENCH=1 runs them
# with named guest benchmarks too).
set -uo pipefail
. "$(dirname "$0")/../../lab/lib/machine.sh"
top=$lab_top build=$lab_build
envs=()
while [ "${1:-}" = --env ]; do envs+=(--env "$2"); shift 2; done
host_bench=${HOST_BENCH:-$([ $# -gt 0 ] && echo 0 || echo 1)}
[ $# -gt 0 ] || set -- "$top"/bench/guest/*.sh

# Host benchmarks: "name|command|markdown file the command writes".
# rtirqd's event path (issue 17) against the commit before the rework.
host_benches=(
	"rtirqd-event-path|make -s -C $top/tools/rtirqd bench BEFORE=b525989|$top/tools/rtirqd/build/bench/event-bench.md"
)
suite=${BENCH_SUITE:-bench}
"$top/lab/rtlab" run --suite "$suite" --dir bench --kernel "${KERNEL:-$(default_kernel bench)}" "${envs[@]}" "$@" \
	>"$build/bench-$suite.tap" 2>&1
rc=$?
grep -E '^(not ok|#   )' "$build/bench-$suite.tap" | head -n 40
report=$build/bench/REPORT.md
[ "$suite" = bench ] || report=$build/bench/REPORT-$suite.md
mkdir -p "$build/bench"
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
{
	echo "# rtlab benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo
	echo "Host: $cpu, $(nproc) cores; guest: QEMU ${ACCEL:-tcg}, kernel $(make -s -C "$build/linux" kernelversion 2>/dev/null)-rtlab (${KERNEL:-$(default_kernel bench)})."
	# the TCG caveat: each benchmark's section below carries it (tap_tcg_caveat)
} >"$report"
if [ "$host_bench" = 1 ]; then
	for hb in "${host_benches[@]}"; do
		IFS='|' read -r name cmd md <<<"$hb"
		echo "bench: host benchmark $name: $cmd" >&2
		if ! $cmd >"$build/bench/$name.log" 2>&1; then
			echo "bench: host benchmark $name failed: $(tail -n 3 "$build/bench/$name.log")" >&2
			rc=1
			continue
		fi
		{
			echo
			echo "## $name (host)"
			echo
			cat "$md"
		} >>"$report"
	done
fi
for b in "$@"; do
	name=$(basename "$b" .sh)
	d=$(ls -d "$build/run/$suite"/*/out/"$name.sh" 2>/dev/null | tail -n 1)
	[ -n "$d" ] || { echo "bench: $name produced no output" >&2; rc=1; continue; }
	echo "${ACCEL:-tcg}, $(date -u +%F)" >"$d/label"
	# a benchmark whose figures need the host (QEMU's trace of the boot,
	# which an icount guest cannot read) has its second half in
	# bench/host/post/NAME.sh OUTDIR: it writes $d/table.md, prints its
	# checks, and fails like the guest half
	post=$top/bench/host/post/$name.sh
	if [ -x "$post" ] && ! "$post" "$d" >"$d/post.out" 2>&1; then
		echo "bench: $name, host half: $(grep -E '^not ok|^mmio|: ' "$d/post.out" | head -n 5)" >&2
		rc=1
	fi
	if [ -f "$top/bench/plot/$name.plot" ]; then
		(cd "$d" && gnuplot "$top/bench/plot/$name.plot") 2>"$d/plot.err" ||
			{ echo "bench: plot for $name failed: $(head -n 3 "$d/plot.err")" >&2; rc=1; }
	fi
	{
		echo
		echo "## $name"
		echo
		sed -n 's/^# \(.*\)$/\1/p' "$d/tap" | grep -v '^TAP\|^SKIP' | sed 's/$/  /'
		echo
		[ -f "$d/table.md" ] && cat "$d/table.md"
		[ -f "$d/post.out" ] && echo && grep -E '^(not )?ok ' "$d/post.out" | sed 's/$/  /'
		for p in "$d"/*.png; do [ -f "$p" ] && echo && echo "Plot: $p"; done
	} >>"$report"
done
# The regression guard: the instruction-counted figures of cost.sh against
# the ones committed for the previous release (BENCH_BASELINE).
baseline=${BENCH_BASELINE:-$top/bench/baseline.json}
for b in "$@"; do
	[ "$(basename "$b")" = cost.sh ] || continue
	s=$(ls "$build/run/$suite"/*/out/cost.sh/summary.json 2>/dev/null | tail -n 1)
	[ -n "$s" ] || break	# "produced no output" was said above
	{
		echo
		echo "## regression guard"
		echo
		"$top/bench/host/compare.sh" "$baseline" "$s" 2>&1
	} >>"$report" || rc=1
done
cat "$report"
exit $rc
