#!/bin/sh
# rtlab: kernel=rt-debug cpus=2 mem=512 timeout=400
# How exactly a group's servers keep to their budget with every CPU busy
# (issue 24, the HCBS suite's bandwidth cases, and the hrtick for servers).
# A group of R us / 100 ms with a FIFO 50 task pinned to each CPU and a
# SCHED_OTHER hog beside it, so that no CPU ever idles.  The group's tasks
# are rtgload's "runs" tasks: each cuts its CPU time into runs at the
# throttling gaps, so a run is what its server let it use in one period
# (host stalls under TCG included, as the kernel charges them).  Every
# case runs with the HRTICK_DL scheduler feature off (the budget is checked
# at the tick) and on (the series arms the hrtick for a served task's
# remaining budget, as 6.12 does for a deadline task's runtime).
#
#   A  the suite's cases, R = 10, 50 and 80 ms, the tasks spinning: with
#      HRTICK_DL on the group gets NCPU * R / 100 ms CPUs within 0.01 (the
#      suite's criterion; shares from schedstat over RTG_SECS, default 6 s,
#      a whole number of periods).  With the tick alone too: a server that
#      overran is replenished with its debt deducted, so a task that
#      spins on is charged R per period on average either way.
#   B  the hrtick armed for the budget: R = 10.5 ms (the budget ends
#      between two ticks), and each task sleeps 150 ms whenever it is back
#      from a throttle, so its server stops and every run starts a new
#      period with a full budget (no debt carried over).  Traced
#      (sched_switch, hrtimer_start, hrtimer_expire_entry): a switch to a
#      group task arms the hrtick when the scheduler started the hrtick
#      timer on that CPU just before it; a throttle (a switch away from a
#      group task still runnable) is the hrtick's when the last timer that
#      expired there before it was the hrtick.  HRTICK_DL off: no switch
#      arms it (the control); on: at least 90% of them, and every CPU's
#      median run within R + 150 us.  The series before this change armed
#      none with HRTICK_DL on.  Which timer ends a run, and the overrun,
#      are reported, not asserted: under TCG both the tick and the hrtick
#      expire late (the hrtick 0.2-0.7 ms after its time), the tick often
#      first, and the runs came out R + 0-130 us (median) in both modes,
#      not the up to 1 ms of a regular tick on hardware.
#
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
tap_plan 6
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs none $T

grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs none /sys/kernel/debug
feat0=$(tr ' ' '\n' <"$FEAT" | grep -x -E '(NO_)?HRTICK_DL')
rtg_group rtg-b 100000 10000
trap 'echo "$feat0" >"$FEAT"; rtg_cleanup' EXIT

# measure NAME KIND SECS: rtgload with a group task of KIND and a
# SCHED_OTHER hog on each CPU; $gs the group's CPUs, $meds each CPU's
# median run (us), $hi the longest of them
measure() {
	_a=""
	for _c in $(seq 0 $((NCPU - 1))); do
		_a="$_a -t name=g$_c,cg=$G,policy=fifo,prio=50,cpu=$_c,kind=$2"
		_a="$_a -t name=f$_c,policy=other,cpu=$_c,kind=hog"
	done
	# shellcheck disable=SC2086
	rtg_run "$1" -d "$3" -w 500 $_a || return 1
	_d=$(echo "$res" | awk '$1 == "run" { sub("duration_ns=", "", $2); print $2 }')
	gs=0; meds=""
	for _c in $(seq 0 $((NCPU - 1))); do
		gs=$(awk -v a="$gs" -v b="$(rtg_val g$_c cpu_ns)" -v d="$_d" 'BEGIN { printf "%.3f", a + b / d }')
		meds="$meds $(rtg_val g$_c run_med_us)"
	done
	hi=$(echo $meds | tr ' ' '\n' | sort -n | tail -n 1)
}
# traced NAME KIND SECS: measure, traced; $sw the switches to a group
# task, $armed those that armed the hrtick, $thr the throttles, $byhr
# those the hrtick ended
traced() {
	echo 0 >$T/tracing_on
	echo >$T/trace
	echo 1 >$T/events/sched/sched_switch/enable
	echo 1 >$T/events/timer/hrtimer_expire_entry/enable
	echo 1 >$T/events/timer/hrtimer_start/enable
	echo 1 >$T/tracing_on
	measure "$@"
	_rc=$?
	echo 0 >$T/tracing_on
	echo 0 >$T/events/sched/sched_switch/enable
	echo 0 >$T/events/timer/hrtimer_expire_entry/enable
	echo 0 >$T/events/timer/hrtimer_start/enable
	# a group task is FIFO 50 (prio 49); "R" or "R+": preempted, runnable
	set -- $(awk '
		/hrtimer_start:/ && / function=hrtick / { armed[$2] = 1 }
		/hrtimer_expire_entry:/ { f = $0; sub(/.*function=/, "", f); sub(/ .*/, "", f); last[$2] = f }
		/sched_switch:/ {
			if (/ next_prio=49$/) { sw++; if (armed[$2]) a++ }
			if (/ prev_prio=49 / && / prev_state=R/) { n++; if (last[$2] == "hrtick") h++ }
			armed[$2] = 0
		}
		END { print sw + 0, a + 0, n + 0, h + 0 }' $T/trace)
	sw=$1; armed=$2; thr=$3; byhr=$4
	tap_diag "$sw switches to a group task, $armed of them armed the hrtick; $thr throttles, $byhr of them by the hrtick"
	return $_rc
}
none_armed() { [ "$sw" -gt 0 ] && [ "$armed" = 0 ]; }
most_armed() { [ "$sw" -gt 0 ] && [ $((armed * 10)) -ge $((sw * 9)) ]; }
# mode on|off: HRTICK_DL on or off
mode() { if [ "$1" = on ]; then echo HRTICK_DL >"$FEAT"; else echo NO_HRTICK_DL >"$FEAT"; fi; }

# A: the suite's shares
for r in 10000 50000 80000; do
	want=$(awk -v r=$r -v n="$NCPU" 'BEGIN { printf "%.3f", n * r / 100000 }')
	if ! wr $G/cpu.rt_runtime_us $r; then
		tap_fail "A, runtime $r us: the write failed ($werr)"
		continue
	fi
	mode off
	if measure "tick-$r" runs:5000 "$SECS"; then tick="$gs, median runs$meds us"; else tick="rtgload failed"; fi
	mode on
	if ! measure "hrtick-$r" runs:5000 "$SECS"; then
		tap_fail "A, runtime $r us: rtgload failed ($rc)"
		continue
	fi
	tap_check "A, runtime $r us / 100000 us, $NCPU busy CPUs, HRTICK_DL on: group $gs CPUs ($want +-0.01), median runs$meds us (tick only: $tick)" \
		near "$gs" "$want" 0.01
done

# B: fresh periods, a budget that ends between two ticks
r=10500
if wr $G/cpu.rt_runtime_us $r; then
	mode off
	if traced "tick-nap" runs:5000:150000 $((SECS + 2)); then
		tick="median runs$meds us"
		tap_check "B, runtime $r us, fresh periods, HRTICK_DL off (control): $armed of $sw switches to a group task armed the hrtick; median runs$meds us" \
			none_armed
	else
		tick="rtgload failed"
		tap_fail "B, HRTICK_DL off: rtgload failed ($rc)"
	fi
	mode on
	if traced "hrtick-nap" runs:5000:150000 $((SECS + 2)); then
		tap_check "B, runtime $r us, fresh periods, HRTICK_DL on: $armed of $sw switches to a group task armed the hrtick (at least 90%); $byhr of $thr throttles by it" \
			most_armed
		tap_check "B, runtime $r us, fresh periods, HRTICK_DL on: median runs$meds us, all within $r + 150 (tick only: $tick)" \
			atleast "$((r + 150))" "$hi"
	else
		tap_fail "B, HRTICK_DL on: rtgload failed ($rc)"
		tap_fail "B, HRTICK_DL on: not measured"
	fi
else
	tap_fail "B, runtime $r us: the write failed ($werr)"
	tap_fail "B, runtime $r us: not measured"
	tap_fail "B, runtime $r us: not measured, HRTICK_DL on"
fi
tap_done
