#!/bin/sh
# rtlab: kernel=rt-debug cpus=2 mem=512 accel=tcg1 timeout=300
# The hrtick armed for a group server's budget (issue 24; patch 0015).  A
# group of R = 10.5 ms / 100 ms (the budget ends between two ticks) with a
# FIFO 50 rtgload "runs" task pinned to each CPU and a SCHED_OTHER hog
# beside it.  Each task sleeps 150 ms whenever it is back from a throttle,
# so its server stops and every run starts a new period with a full budget
# (no debt carried over).  Traced (sched_switch, hrtimer_start,
# hrtimer_expire_entry; trace clock "mono", the hrtick's clock):
#   - a switch to one of the group's tasks (by tid, once it is FIFO 50)
#     armed the hrtick when the scheduler started the hrtick timer on that
#     CPU just before it, for the time from that event to the timer's
#     expiry;
#   - a throttle (a switch away from a group task still runnable) is the
#     hrtick's when the last timer that expired on that CPU before it was
#     the hrtick.
# With HRTICK_DL off no switch arms it (the control).  On, every switch
# does, none for more than R (what is left of the server's budget, never
# more than the budget) and the longest within 50 us of R (the first run
# of a fresh period: the whole budget).  The series before 0015 armed none
# with HRTICK_DL on.  Which timer ends a run and how long the runs are
# are reported, not asserted (they are timings): under TCG both the tick
# and the hrtick expire late (the hrtick 0.2-0.7 ms after its time), the
# tick often first, and the runs came out R + 0-150 us (median) in both
# modes, not the up to 1 ms of a regular tick on hardware.
#
# Third case (patch 0034): the same with HRTICK_DL on, each task calling
# sched_yield() every 1 ms of CPU time.  Alone at FIFO 50 on its CPU it is
# picked again: __schedule() cancels the hrtick (hrtick_clear()) and, with
# no switch, no set_next_task() arms it.  A return probe on sched_yield()
# (kprobe event) reads whether the hrtick is armed on that CPU (the last
# hrtick hrtimer_start not yet cancelled or expired): it must be at every
# return of a group task whose server has budget left.  The series
# before 0034 left it cancelled until the next switch.
#
# accel=tcg1: enabling the events and flipping HRTICK_DL (a static key)
# patch kernel text live, and under multi-threaded TCG one such patch in
# this test ended in "Oops: int3" in __schedule (docs/HACKING.md); what is
# asserted here is not a timing, so one host thread for both vCPUs costs
# nothing.  The events are enabled once and HRTICK_DL flipped once.
. /rtlab/lib.sh
. /rtlab/lib/rtg.sh

L=${RTGLOAD:-/usr/local/libexec/rtlab/rtgload}
CG=/sys/fs/cgroup/cpu
G=$CG/rtg-b
SECS=$((${RTG_SECS:-6} + 2))
NCPU=$(nproc)
FEAT=/sys/kernel/debug/sched/features
T=/sys/kernel/tracing
EVENTS="sched/sched_switch timer/hrtimer_start timer/hrtimer_expire_entry timer/hrtimer_cancel"
r=10500
tap_plan 4

grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs none /sys/kernel/debug
[ -d $T/events ] || mount -t tracefs none $T
feat0=$(tr ' ' '\n' <"$FEAT" | grep -x -E '(NO_)?HRTICK_DL')
clk0=$(sed 's/.*\[\(.*\)\].*/\1/' $T/trace_clock)
rtg_group rtg-b 100000 $r
events() { for _e in $EVENTS; do echo "$1" >"$T/events/$_e/enable"; done; }
yprobe() { [ -e $T/events/kprobes/rtlab_yield/enable ] && echo "$1" >$T/events/kprobes/rtlab_yield/enable; }
trap 'echo 0 >$T/tracing_on; events 0; yprobe 0; echo "-:rtlab_yield" >>$T/kprobe_events; echo "$clk0" >$T/trace_clock; echo "$feat0" >"$FEAT"; rtg_cleanup' EXIT
echo 0 >$T/tracing_on
echo mono >$T/trace_clock
events 1
echo "r:rtlab_yield __x64_sys_sched_yield" >>$T/kprobe_events && yprobe 1 || tap_diag "no kprobe event on sched_yield()"

# traced NAME [YIELD_US [SECS]]: rtg_busy NAME (runs with that yield, for
# SECS, default $SECS), traced; $sw the switches to a group task,
# $armed those that armed the hrtick, $dmax / $dover the longest time it
# was armed for (ns) and how many were armed for more than $r us, $thr
# the throttles, $byhr those the hrtick ended; the first three switches
# that did not arm it as diagnostics
traced() {
	echo >$T/trace
	echo 1 >$T/tracing_on
	rtg_busy "$1" "runs:5000:150000${2:+:$2}" "${3:-$SECS}"
	_rc=$?
	echo 0 >$T/tracing_on
	_tids=""
	for _c in $(seq 0 $((NCPU - 1))); do _tids="$_tids $(rtg_val g$_c tid)"; done
	_u=${RTLAB_OUT:-/tmp}/$1-unarmed.txt
	# a group task: one of $_tids as FIFO 50 (prio 49; before rtgload
	# made it so, it ran as SCHED_OTHER, prio 120); the fields are found
	# by pattern, not by number: a comm with a blank in it shifts them
	set -- $(awk -v tids="$_tids" -v r="$r" -v u="$_u" '
		BEGIN { k = split(tids, t, " "); for (i = 1; i <= k; i++) g[t[i]] = 1 }
		function cpu() { match($0, /\[[0-9]+\]/); return substr($0, RSTART, RLENGTH) }
		function now() { match($0, /[0-9]+\.[0-9]+: /); return substr($0, RSTART, RLENGTH - 2) }
		function val(k,  v) { v = $0; if (!sub(".* " k "=", "", v)) return ""; sub(/ .*/, "", v); return v }
		/ hrtimer_start:/ && / function=hrtick / {
			# busybox awk reads "000100" as octal
			split(now(), ts, "."); sub(/^0+/, "", ts[2])
			armed[cpu()] = val("expires") - (ts[1] * 1000000000 + ts[2] * 1000)
		}
		/ hrtimer_start:/ && / function=hrtick / { hr[cpu()] = val("hrtimer") }
		/ hrtimer_cancel:/ { if (hr[cpu()] == val("hrtimer")) hr[cpu()] = "" }
		/ hrtimer_expire_entry:/ && / function=hrtick / { hr[cpu()] = "" }
		/ rtlab_yield:/ {
			# the task: the pid after the last "-" before the CPU
			p = $0; sub(/ +\[[0-9]+\].*/, "", p); sub(/.*-/, "", p)
			if (p in g) { y++; if (hr[cpu()] != "") ya++ }
		}
		/ hrtimer_expire_entry:/ { last[cpu()] = val("function") }
		/ sched_switch:/ {
			c = cpu()
			if ((val("next_pid") in g) && val("next_prio") == 49) {
				sw++
				if (c in armed) {
					a++; d = armed[c]
					if (d > dmax) dmax = d
					if (d > r * 1000) over++
				} else if (nu++ < 3) print > u
			}
			if ((val("prev_pid") in g) && val("prev_state") ~ /^R/) { n++; if (last[c] == "hrtick") h++ }
			delete armed[c]
		}
		END { print sw + 0, a + 0, dmax + 0, over + 0, n + 0, h + 0, y + 0, ya + 0 }' $T/trace)
	sw=$1; armed=$2; dmax=$3; dover=$4; thr=$5; byhr=$6; yields=$7; yarmed=$8
	tap_diag "$sw switches to a group task, $armed of them armed the hrtick (for $dmax ns at most, $dover for more than $r us); $thr throttles, $byhr of them by the hrtick; $yields returns from sched_yield(), $yarmed with the hrtick armed"
	[ ! -s "$_u" ] || sed 's/^/# not armed: /' "$_u"
	return $_rc
}
none_armed() { [ "$sw" -gt 0 ] && [ "$armed" = 0 ]; }
all_armed() { [ "$sw" -gt 0 ] && [ "$armed" = "$sw" ]; }
# yields_armed: at least 20 returns from sched_yield(), all with the hrtick armed
yields_armed() { [ "$yields" -ge 20 ] && [ "$yarmed" = "$yields" ]; }
# for_budget: no arm for more than the budget, the longest within 50 us of it
for_budget() { [ "$dover" = 0 ] && [ "$dmax" -ge $((r * 1000 - 50000)) ]; }

echo NO_HRTICK_DL >"$FEAT"
if traced tick-nap; then
	tick="median runs$meds us"
	tap_check "runtime $r us, fresh periods, HRTICK_DL off (control): $armed of $sw switches to a group task armed the hrtick; median runs$meds us" \
		none_armed
else
	tick="rtgload failed"
	tap_fail "HRTICK_DL off: rtgload failed ($rc)"
fi
echo HRTICK_DL >"$FEAT"
if traced hrtick-nap; then
	tap_check "runtime $r us, fresh periods, HRTICK_DL on: $armed of $sw switches to a group task armed the hrtick (all); $byhr of $thr throttles by it" \
		all_armed
	tap_check "runtime $r us, fresh periods, HRTICK_DL on: armed for $dmax ns at most, $dover of $armed for more than the budget; median runs$meds us (tick only: $tick)" \
		for_budget
else
	tap_fail "HRTICK_DL on: rtgload failed ($rc)"
	tap_fail "HRTICK_DL on: not measured"
fi
# 3 s: about 150 returns (419 in 8 s in a CI run), 20 needed
if traced hrtick-yield 1000 3; then
	tap_check "runtime $r us, fresh periods, HRTICK_DL on, sched_yield() every 1 ms: $yarmed of $yields returns from sched_yield() of a group task found the hrtick armed (all, at least 20)" \
		yields_armed
else
	tap_fail "HRTICK_DL on, yields: rtgload failed ($rc)"
fi
tap_done
