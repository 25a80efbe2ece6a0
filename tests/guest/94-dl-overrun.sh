#!/bin/sh
# rtlab: kernel=rt-debug cpus=1 mem=512 timeout=600 accel=icount
# SCHED_FLAG_DL_OVERRUN (mainline since 4.16) on 6.12, issue 22 item 3:
# SIGXCPU on every runtime overrun and never without one.  The helper
# (tests/progs/dlovr.c) runs 1000 jobs of a 5 ms / 20 ms deadline task,
# every 10th job 7.5 ms of CPU time (an overrun on purpose), the others
# 2.5 ms.  It takes the overruns from the kernel's view: its deadline,
# read from /proc/self/sched every 250 us of CPU time, moves by whole
# periods at a replenishment after the runtime ran out (one overrun, one
# dl_overrun flag, however many periods), and by exactly one period across
# the sched_yield() ending a job.  Signals are paired with overruns in
# order: each overrun must get its own signal before the next overrun, and
# no signal may come with none owed.  Cases:
#   1  the task alone
#   2  beside two other 5 ms / 20 ms deadline tasks that never overrun on
#      purpose (they must get no signal but for overruns of their own)
#   3  as 2, plus an RT group of 10 ms / 100 ms (cgroup v1 cpu controller,
#      rtlab's per-CPU deadline servers) with a FIFO hog on each CPU, so
#      that a group server is active on whichever CPU the task runs
#   4  negative control: dlovr -N, without the flag, 200 jobs: the signal
#      checks must fail (no signal for 20 overruns)
# Each case: the planned overruns happened, signals == overruns, each its
# own, none without one (dlovr's four points).
# accel=icount: guest time is an instruction count, so a host stall of the
# vCPU is never charged to the task as CPU time.  Under multi-threaded TCG
# a loaded host made most overruns unplanned (252 of 696 alone) and made
# one overrun of many periods out of several; here dlovr -U also fails an
# overrun that was not planned, so signals == the overruns caused on
# purpose.  Under ACCEL=tcg the test drops -U (stalls then make unplanned
# overruns, which must still get their signals); not measured there.
# cpus=1: under icount QEMU runs the vCPUs round-robin on one clock, so
# while CPU 1 runs its slice, CPU 0 stands still between two instructions
# and its task is charged the slice as CPU time.  With two busy vCPUs,
# two CLOCK_THREAD_CPUTIME_ID reads back to back differed by up to 4.1 ms
# (the same in CLOCK_MONOTONIC), so a half-budget job ending in such a
# step overran: CI failed case 2 with 54 unplanned overruns of other1, and
# of two perturbed boots (rtlab.env.PERTURB=111, 333) one had 23 unplanned
# of the measured task, the other 86 and a signal without an overrun.  On
# one vCPU the largest step was 0.59 ms (interrupts charged to the task),
# under the 2.5 ms margin of a half-budget job: 0 unplanned in both boots.
# The three deadline tasks (75%) then share one CPU under EDF.
# Argument: the cases to run, default "alone with-dl control".  Case 3
# (rtgroup) is run by tests/guest/96-dl-overrun-rtgroup.sh in the same
# boot.  Its group has 10 ms / 100 ms: on one CPU the fair server's 5%,
# the three tasks' 75% and a 20 ms group would pass the 95% admission
# limit.  On two vCPUs it was pending with 20 to 45 of 1000 jobs of the
# measured task overrunning unplanned and one overrun in 120-145 without a
# signal of its own: the round-robin charge above.  On one vCPU, with -U
# like the other cases: 100 + 0 overruns, 100 signals.
. /rtlab/lib.sh
. /rtlab/lib/rtg.sh

O=${DLOVR:-/usr/local/libexec/rtlab/dlovr}
cases=${1:-alone with-dl control}
U=""
[ "${RTLAB_ACCEL:-}" = icount ] && U=-U
CG=/sys/fs/cgroup/cpu
GRP=$CG/dlovr-grp
out=${RTLAB_OUT:-/tmp}
bg=""
hogs=""

cleanup() {
	for p in $bg $hogs; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -d $GRP ] && rmdir $GRP
}
trap cleanup EXIT

tap_diag "kernel $(uname -r) ($RTLAB_KERNEL), accel ${RTLAB_ACCEL:-?}, CPUs $(cat /sys/devices/system/cpu/online)"
if ! "$O" --help >/dev/null; then
	tap_fail "dlovr helper is installed"
	tap_done
fi

# points NAME FILE: dlovr's four points as ours
points() {
	tap_points "$1" "$2"
	[ "$tap_npoints" = 4 ] || tap_fail "$1: dlovr gave $tap_npoints of its 4 points"
}

# others N [FLAGS]: start N deadline tasks without planned overruns,
# outliving the measured one (1300 jobs of 20 ms against its 1000 + 100
# periods); FLAGS default $U
others() {
	bg="" f=${2-$U}
	for i in $(seq 1 "$1"); do
		"$O" $f -j 1300 -e 0 -n other$i >"$out/other$i.txt" 2>&1 &
		bg="$bg $!"
	done
	sleep 0.5
}
# others_done CASE: wait for the other tasks and take their points
others_done() {
	i=0
	for p in $bg; do
		i=$((i + 1))
		wait "$p"
		points "$1/other$i" "$out/other$i.txt"
	done
	bg=""
}

# case_on NAME: NAME is among the cases to run
case_on() { case " $cases " in *" $1 "*) return 0 ;; esac; return 1; }

# --- 1: alone -------------------------------------------------------------------
if case_on alone; then
	"$O" $U -n alone >"$out/alone.txt" 2>&1
	points alone "$out/alone.txt"
fi

# --- 2: beside two other deadline tasks -------------------------------------------
if case_on with-dl; then
	others 2
	"$O" $U -n with-dl >"$out/with-dl.txt" 2>&1
	points with-dl "$out/with-dl.txt"
	others_done with-dl
fi

# --- 3: ... and an RT group server on each CPU -------------------------------------
if ! case_on rtgroup; then
	:
elif cg_mount && mkdir $GRP && echo 100000 >$GRP/cpu.rt_period_us && echo 10000 >$GRP/cpu.rt_runtime_us; then
	ncpu=$(nproc)
	for c in $(seq 0 $((ncpu - 1))); do
		h=$(fifo_hog $GRP/tasks $((1 << c))) && hogs="$hogs $h"
	done
	if [ "$(wc -w <$GRP/tasks)" = "$ncpu" ]; then
		tap_ok "RT group 10 ms / 100 ms with a FIFO hog on each of $ncpu CPUs (pids$hogs)"
	else
		tap_fail "RT group with a FIFO hog per CPU ($ncpu): tasks file holds $(cat $GRP/tasks | tr '\n' ' ')"
	fi
	others 2
	"$O" $U -n with-dl-rtgroup >"$out/with-dl-rtgroup.txt" 2>&1
	points with-dl-rtgroup "$out/with-dl-rtgroup.txt"
	others_done with-dl-rtgroup
	for p in $hogs; do kill "$p"; done
	wait 2>/dev/null
	hogs=""
	sleep 0.2
	if rmdir $GRP; then
		tap_ok "RT group removed"
	else
		tap_fail "RT group could not be removed"
	fi
else
	tap_fail "RT group 10 ms / 100 ms set up under $CG"
fi
# --- 4: the checks fail without the flag --------------------------------------------
if case_on control; then
	"$O" -N -j 200 -n control >"$out/control.txt" 2>&1
	rc=$?
	sum=$(grep '^dlovr ' "$out/control.txt")
	if [ "$rc" = 1 ] && grep -q '^not ok 2 ' "$out/control.txt" && echo "$sum" | grep -q ' signals=0$'; then
		tap_ok "negative control: without SCHED_FLAG_DL_OVERRUN dlovr fails, no signal: $sum"
	else
		tap_fail "negative control: dlovr -N rc $rc (1 expected): $sum"
	fi
fi
tap_done
