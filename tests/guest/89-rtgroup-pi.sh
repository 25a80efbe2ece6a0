#!/bin/sh
# rtlab: kernel=rt-debug cpus=2 mem=512 timeout=600
# Priority inheritance across a throttled RT group server (issue 24, design
# point 7; patch 0024).  A root SCHED_FIFO 90 task blocks on a PI mutex (a
# PI futex: an rt_mutex, as every spinlock_t is on PREEMPT_RT) that the
# SCHED_FIFO 10 task of a group holds, and the group's budget runs out
# inside the lock.  The boosted holder must run outside its server, so the
# waiter waits for the CPU time the holder still needs, not for the
# server's next period; once it lets go, the holder must be back on its
# server's budget.
#
# Helper rtgpi (tests/progs/rtgpi.c): holder pinned to CPU 1, waiter to
# CPU 0, each round the holder runs HOLD of its CPU time under the lock and
# the waiter blocks after about 200 us of it.  Before 0024 (measured
# 2026-12-05, rt kernel, bench/guest/rtgroup-pi.sh): 1 ms / 1 s group,
# median wait 1999 ms for 1.1 ms still needed; 10 ms / 100 ms group,
# HOLD 15 ms, median wait 145 ms (min 68 ms) for 12.5 ms.
#
# Points:
#  1 1 ms / 1 s group, HOLD 2 ms: every wait under 100 ms (a twentieth of
#    the 2 s the throttled server costs; the need is about 1.8 ms)
#  2 back on the budget: after the lock, the 1 ms / 1 s holder runs 3 ms
#    more of CPU time.  Back in its server it has at most 0.8 ms of the
#    round's budget left, so it is throttled until the round's deadline,
#    about 1 s after the round began: the median round takes at least
#    0.9 s (a holder left outside its server takes 3 ms in every round).
#    The median, not the shortest round: the budget is enforced at the
#    tick, and a vCPU the host does not run for a few ms has that time
#    charged to the holder, so one round can get its 3 ms in one period or
#    (stalled inside the first 0.8 ms) in none; CI saw 0.99 s and 1.00 s
#    against an expected 2-3 s (docs/results/rt-groups.md)
#  3 10 ms / 100 ms group, HOLD 15 ms: every wait under 60 ms (the need is
#    about 15 ms; a wait for the next period is at least 85 ms)
#  4 the groups are removed afterwards (their tasks are gone)
# Time-out 600 s: the test takes about 50 s on a quiet host, but a clean-
# clone make check of 2026-12-08 took 235 s (the same points passed): the
# holder polls for the next round every 500 us inside its 1 ms / 1 s group,
# so it spends its budget between rounds, and a host stall charged to it
# there is a debt paid back at 1 ms a second.  A blocking wait in rtgpi is
# the fix, not yet made.
. /rtlab/lib.sh
. /rtlab/lib/rtg.sh

P=/usr/local/libexec/rtlab/rtgpi
CG=/sys/fs/cgroup/cpu
tap_plan 4

if ! cg_mount || [ ! -f $CG/cpu.rt_runtime_us ] || ! "$P" --help >/dev/null; then
	tap_fail "setup: cgroup v1 cpu controller with cpu.rt_runtime_us at $CG, and rtgpi"
	tap_done
fi
trap rtg_cleanup EXIT


if rtg_mkgrp pi1 1000 1000000 &&
   rtgpi_run 1ms-1s -t $CG/pi1/tasks -H 2000 -l 200 -n 5 -g 1100 -a 3000; then
	w=$(rtgpi_val wait_max_us)
	if [ "$w" -lt 100000 ]; then
		tap_ok "1 ms / 1 s group: longest wait $w us (median $(rtgpi_val wait_med_us) us, need $(rtgpi_val need_med_us) us)"
	else
		tap_fail "1 ms / 1 s group: longest wait $w us, not under 100000 (the holder waited for its server)"
	fi
	a=$(rtgpi_val after_med_us)
	if [ "$a" -ge 900000 ]; then
		tap_ok "after the lock the holder runs on its budget: 3 ms of CPU took $a us (median; shortest $(rtgpi_val after_min_us) us)"
	else
		tap_fail "after the lock 3 ms of the holder's CPU took $a us (median): it ran outside its 1 ms / 1 s server"
	fi
else
	tap_fail "rtgpi in a 1 ms / 1 s group ($werr)"
	tap_fail "after the lock: not measured"
fi

if rtg_mkgrp pi10 10000 100000 &&
   rtgpi_run 10ms-100ms -t $CG/pi10/tasks -H 15000 -l 200 -n 7 -g 150; then
	w=$(rtgpi_val wait_max_us)
	if [ "$w" -lt 60000 ]; then
		tap_ok "10 ms / 100 ms group: longest wait $w us (median $(rtgpi_val wait_med_us) us, need $(rtgpi_val need_med_us) us)"
	else
		tap_fail "10 ms / 100 ms group: longest wait $w us, not under 60000"
	fi
else
	tap_fail "rtgpi in a 10 ms / 100 ms group ($werr)"
fi

sleep 0.3
tap_check "the groups are removed" rtg_rmgrp pi1 pi10
tap_tcg_caveat "wait times (the bounds are a twentieth and two thirds of what a throttled server costs)"
tap_done
