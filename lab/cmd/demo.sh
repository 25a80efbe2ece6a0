#!/bin/bash
# lab/rtlab demo (make demo): boot the rt kernel in QEMU, run the showcase scenario (cyclictest
# idle and under hackbench load, the kernel's wake-up histogram), print a
# short report and the plot's path.  DURATION (s per scenario, default 10).
# Beside it, in a second, instruction-counted boot, figures that are the
# same on every run of one build, on any host: the e1000/e1000e multicast table
# rewrite under mmio_burst=none and flush (patches 0004-0005), its longest
# run of posted writes counted by the emulated NIC and its cost in
# instructions (bench/guest/mmio-rewrite.sh).
set -uo pipefail
. "$(dirname "$0")/../lib/machine.sh"
top=$lab_top build=$lab_build
BENCH_SUITE=demo "$top/bench/host/run.sh" --env "DURATION=${DURATION:-10}" \
	"$top/bench/guest/cyclictest.sh" "$top/bench/guest/mmio-rewrite.sh" >"$build/demo.log" 2>&1
rc=$?
# each benchmark's boot: the newest machine directory that ran it
bootdir() { dirname "$(dirname "$(ls -d "$build"/run/demo/*/out/"$1" 2>/dev/null | tail -n 1)")"; }
d=$(bootdir cyclictest.sh)/
m=$(bootdir mmio-rewrite.sh)/out/mmio-rewrite.sh
init=$(grep -ho 'rtlab: INIT.*' "$d/console.log" | head -n 1)
echo "rtlab demo"
echo "  kernel:      $(echo "$init" | awk '{print $3}') (Debian linux-source $(make -s -C "$build/linux" kernelversion) + kernel/patches)"
echo "  PREEMPT_RT:  $(echo "$init" | grep -q 'preempt_rt=1' && echo on || echo OFF)"
echo "  clocksource: $(echo "$init" | sed -n 's/.*clocksource=\([^ ]*\).*/\1/p')"
echo "  accel:       ${ACCEL:-tcg} ($(grep -c processor /proc/cpuinfo) host cores)"
echo "  boot:        /init reached at $(echo "$init" | sed -n 's/.*uptime=\([^ ]*\).*/\1/p') s guest uptime; whole run $(cat "$d/wall") s"
echo
cat "$d/out/cyclictest.sh/table.md" 2>/dev/null || { echo "demo: no results; see $build/demo.log"; tail -n 20 "$build/demo.log"; }
grep -h '^# ratios\|^# TCG' "$d/out/cyclictest.sh/tap" 2>/dev/null | sed 's/^# /  /'
echo
[ -f "$d/out/cyclictest.sh/cyclictest.png" ] && echo "plot: $d/out/cyclictest.sh/cyclictest.png"
echo
# fig DRIVER.STRATEGY.FIGURE: one figure of the rewrite benchmark's summary
fig() { jq -r --arg k "$1" '.figures[$k] // empty' "$m/summary.json" 2>/dev/null; }
if [ -n "$(fig e1000e.flush.longest_write_run)" ]; then
	echo "Deterministic (instruction-counted boot: the register counts are exact; the instructions, median of 5 runs"
	echo "of 100 rewrites, repeat to the unit on any host for the same build, and move by about 1% between builds):"
	echo "  multicast table rewrite, per rewrite | longest run of posted writes | register reads | instructions"
	for n in e1000e e1000; do
		for s in none flush; do
			printf '  %-6s mmio_burst=%-5s             | %28s | %14s | %s\n' "$n" "$s" \
				"$(fig $n.$s.longest_write_run)" "$(fig $n.$s.reads)" "$(fig $n.$s.ns)"
		done
	done
	echo "  (flush bounds what a read can wait for on real PCIe to 8 writes; instructions are guest ns at icount shift 0)"
	grep -h '^not ok' "$m/post.out" 2>/dev/null | sed 's/^/  /'
else
	echo "demo: no rewrite figures; see $build/demo.log"; rc=1
fi
echo
if "$build/bin/labcheck" splats "$d/console.log" >/dev/null 2>&1; then
	echo "console: clean (no kernel splat); guest powered off"
else
	echo "console: kernel splats found, see $d/console.log"; rc=1
fi
exit $rc
