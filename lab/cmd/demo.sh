#!/bin/bash
# lab/rtlab demo (make demo): boot the rt kernel in QEMU, run the showcase scenario (cyclictest
# idle and under hackbench load, the kernel's wake-up histogram), print a
# short report and the plot's path.  DURATION (s per scenario, default 10).
set -uo pipefail
. "$(dirname "$0")/../lib/machine.sh"
top=$lab_top build=$lab_build
BENCH_SUITE=demo "$top/bench/host/run.sh" --env "DURATION=${DURATION:-10}" "$top/bench/guest/cyclictest.sh" >"$build/demo.log" 2>&1
rc=$?
d=$(ls -d "$build"/run/demo/*/ | tail -n 1)
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
if "$build/bin/labcheck" splats "$d/console.log" >/dev/null 2>&1; then
	echo "console: clean (no kernel splat); guest powered off"
else
	echo "console: kernel splats found, see $d/console.log"; rc=1
fi
exit $rc
