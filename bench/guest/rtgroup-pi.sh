#!/bin/sh
# rtlab: kernel=rt cpus=2 mem=512 timeout=600
# Priority inheritance across a throttled RT group server (issue 24, design
# point 7): a root SCHED_FIFO 90 task blocks on a PI mutex (a PI futex, an
# rt_mutex in the kernel like every spinlock_t on PREEMPT_RT) that a
# SCHED_FIFO 10 task of an RT group holds, and the group's budget runs out
# while the lock is held.  Until patch 0024 the boosted holder stayed in its
# group's server, so the waiter waited for the server's next replenishment;
# with 0024 it runs in the root while boosted, so the waiter waits for what
# the holder still needs, as with a holder in the root group.
#
# Method (helper /usr/local/libexec/rtlab/rtgpi, tests/progs/rtgpi.c): the
# holder is pinned to CPU 1, the waiter to CPU 0; each round the holder
# takes the lock and runs HOLD of its own CPU time under it; the waiter
# blocks once the holder has run about LEAD (200 us) of it.  What the
# holder still needs then ("need") is read from its CPU-time clock each
# round.  Rounds start more than one period apart (full budget).  Cases:
#   root        the holder in the root group (no server): the wait is the
#               need, the reference
#   1ms/1s      the case: a 1 ms / 1 s group, HOLD 2 ms
#   10ms/100ms  HOLD 15 ms
# RTG_PI_ROUNDS rounds each (default 7); wait min/median/max in us and the
# median wait over the median need.  Under TCG absolute times are emulator
# time; the ratio to the root case of the same run is the figure.
. /rtlab/lib.sh
. /rtlab/lib/rtg.sh

P=/usr/local/libexec/rtlab/rtgpi
CG=/sys/fs/cgroup/cpu
ROUNDS=${RTG_PI_ROUNDS:-7}
out=${RTLAB_OUT:-/tmp}
metrics=$out/metrics.txt
: >"$metrics"

if ! cg_mount || [ ! -f $CG/cpu.rt_runtime_us ] || ! "$P" --help >/dev/null; then
	tap_fail "cgroup v1 cpu controller with cpu.rt_runtime_us at $CG, and rtgpi"
	tap_done
fi
trap rtg_cleanup EXIT

# one NAME TASKS HOLD_US GAP_MS: a run of rtgpi, its summary in $sum
one() { rtgpi_run "$1" -t "$2" -c 1 -w 0 -H "$3" -l 200 -n "$ROUNDS" -g "$4"; }
val() { rtgpi_val "$1"; }

printf '# %-12s %8s %10s %10s %10s %12s\n' case need_med wait_min wait_med wait_max med/need
row() {
	_r=$(awk -v m="$(val wait_med_us)" -v n="$(val need_med_us)" 'BEGIN { printf "%.2f", m / (n > 0 ? n : 1) }')
	printf '# %-12s %8s %10s %10s %10s %12s\n' "$1" "$(val need_med_us)" "$(val wait_min_us)" \
		"$(val wait_med_us)" "$(val wait_max_us)" "$_r"
	echo "pi_${2}_wait_med_us $(val wait_med_us)" >>"$metrics"
	echo "pi_${2}_ratio $_r" >>"$metrics"
}

if one root $CG/tasks 2000 100; then
	row root root
	tap_ok "root holder: median wait $(val wait_med_us) us for a need of $(val need_med_us) us"
else
	tap_fail "rtgpi with the holder in the root group"
fi
if rtg_mkgrp rtgpi1 1000 1000000 && one 1ms-1s $CG/rtgpi1/tasks 2000 1100; then
	row 1ms/1s g1
	tap_ok "1 ms / 1 s group: median wait $(val wait_med_us) us for a need of $(val need_med_us) us"
else
	tap_fail "rtgpi in a 1 ms / 1 s group ($werr)"
fi
if rtg_mkgrp rtgpi2 10000 100000 && one 10ms-100ms $CG/rtgpi2/tasks 15000 150; then
	row 10ms/100ms g10
	tap_ok "10 ms / 100 ms group: median wait $(val wait_med_us) us for a need of $(val need_med_us) us"
else
	tap_fail "rtgpi in a 10 ms / 100 ms group ($werr)"
fi
tap_tcg_caveat "wait times (compare med/need with the root row of this run)"
tap_done
