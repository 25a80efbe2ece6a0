#!/bin/sh
# rtlab: kernel=rt-debug cpus=2 mem=512 timeout=480
# How exactly a group's servers keep to their budget with every CPU busy
# (issue 24, the HCBS suite's bandwidth cases).  A group of R us / 100 ms,
# R = 10, 50 and 80 ms, with a FIFO 50 task pinned to each CPU and a
# SCHED_OTHER hog beside it, so that no CPU ever idles.  The group's tasks
# are rtgload's "runs" tasks, spinning: each cuts its CPU time into runs
# at the throttling gaps, so a run is what its server let it use in one
# period (host stalls under TCG included, as the kernel charges them).
# Each case runs with the HRTICK_DL scheduler feature off (the budget is
# checked at the tick), then on (the series arms the hrtick for a served
# task's remaining budget, as 6.12 does for a deadline task's runtime;
# that it is armed, and for what, is 89-rtgroup-hrtick.sh's).  With
# HRTICK_DL on the group gets NCPU * R / 100 ms CPUs within 0.01 (the
# suite's criterion; shares from schedstat over RTG_SECS, default 6 s, a
# whole number of periods; the median of 3 such windows, each its own
# rtgload run: in a CI run of 2026-12-06 one window gave CPU 0's task
# 81.5 ms per 80 ms period, 1.617 CPUs for 1.6, beside 80.2 ms on CPU 1,
# in the run where rtgload's main thread also stalled 83 ms reading the
# counters; one window alone is at the mercy of such a host event, and
# the criterion is about the servers).  The tick-only shares (one window
# each) and every median run are reported, not asserted: a server that overran is
# replenished with its debt deducted, so a task that spins on is charged
# R per period on average either way, and the runs are timings of the host.
#
# All tick-only cases run first: HRTICK_DL is a static key, and each flip
# patches kernel text live, which multi-threaded TCG can turn into an
# "Oops: int3" (docs/HACKING.md); one flip, with nothing else running.
# 2 vCPUs, one per host core of the lab machine: with 4 vCPUs on 2 cores the
# host's descheduling of vCPUs moved the shares by +-0.03 (0.414-0.426 for
# 0.400), more than what is measured here; the suite's 0.410-0.417 on 4
# vCPUs was that.  Under TCG a vCPU the host does not run delays the
# timers: compare the two modes of one run.
. /rtlab/lib.sh
. /rtlab/lib/rtg.sh

L=${RTGLOAD:-/usr/local/libexec/rtlab/rtgload}
CG=/sys/fs/cgroup/cpu
G=$CG/rtg-b
SECS=${RTG_SECS:-6}
NCPU=$(nproc)
FEAT=/sys/kernel/debug/sched/features
RS="10000 50000 80000"
tap_plan 3

grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs none /sys/kernel/debug
feat0=$(tr ' ' '\n' <"$FEAT" | grep -x -E '(NO_)?HRTICK_DL')
rtg_group rtg-b 100000 10000
trap 'echo "$feat0" >"$FEAT"; rtg_cleanup' EXIT

# case_run MODE R N: the group at R us, rtgload for $SECS N times; $gs
# the median of the N shares, $gss all of them, $meds the median runs of
# the median window; 1 if the runtime write or an rtgload run failed
# ($why says which).  The tick-only cases, reported and not asserted, run
# one window each (CI time); the asserted ones three.
case_run() {
	if ! wr $G/cpu.rt_runtime_us "$2"; then
		why="the write failed ($werr)"
		return 1
	fi
	_all=""
	for _w in $(seq "$3"); do
		rtg_busy "$1-$2-$_w" runs:5000 "$SECS" || { why="rtgload failed ($rc)"; return 1; }
		_all="$_all$gs:$(echo $meds | tr ' ' ',')
"
	done
	set -- $(printf '%s' "$_all" | sort -n | sed -n "$((($3 + 1) / 2))p" | tr ':,' '  ')
	gs=$1; shift; meds=" $*"
	gss=$(printf '%s' "$_all" | cut -d: -f1 | tr '\n' ' ' | sed 's/ $//')
}

echo NO_HRTICK_DL >"$FEAT"
for r in $RS; do
	if case_run tick "$r" 1; then t="$gs ($gss), median runs$meds us"; else t=$why; fi
	eval "tick_$r=\$t"
done
echo HRTICK_DL >"$FEAT"
for r in $RS; do
	eval "t=\$tick_$r"
	if ! case_run hrtick "$r" 3; then
		tap_fail "runtime $r us, HRTICK_DL on: $why"
		continue
	fi
	want=$(awk -v r="$r" -v n="$NCPU" 'BEGIN { printf "%.3f", n * r / 100000 }')
	tap_check "runtime $r us / 100000 us, $NCPU busy CPUs, HRTICK_DL on: group $gs CPUs, median of $gss ($want +-0.01), median runs$meds us (tick only: $t)" \
		near "$gs" "$want" 0.01
done
tap_done
