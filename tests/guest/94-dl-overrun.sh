#!/bin/sh
# rtlab: kernel=rt-debug cpus=2 mem=512 timeout=600
# SCHED_FLAG_DL_OVERRUN (mainline since 4.16) on 6.12, issue 22 item 3:
# SIGXCPU on every runtime overrun and never without one.  The helper
# (tests/progs/dlovr.c) runs 1000 jobs of a 5 ms / 20 ms deadline task,
# every 10th job 7.5 ms of CPU time (an overrun on purpose), the others
# 2.5 ms; it takes the overruns from the kernel (the task's deadline moves
# inside a job only at a replenishment after the runtime ran out) and
# counts signals per job.  Cases:
#   1  the task alone
#   2  beside two other 5 ms / 20 ms deadline tasks that never overrun on
#      purpose (they must get no signal but for overruns of their own)
#   3  as 2, plus an RT group of 20 ms / 100 ms (cgroup v1 cpu controller,
#      rtlab's per-CPU deadline servers) with a FIFO hog on each CPU, so
#      that a group server is active on whichever CPU the task runs
#   4  negative control: dlovr -N, without the flag, 200 jobs: the signal
#      checks must fail (no signal for 20 overruns)
# Each case: the planned overruns happened, signals == overruns, each in
# its own job, none without an overrun (dlovr's four points).  Under TCG a
# host stall can make a job overrun that was not planned; it must then
# get its signal too, and dlovr reports it as unplanned.
. /rtlab/lib.sh

O=${DLOVR:-/usr/local/libexec/rtlab/dlovr}
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

# others N: start N deadline tasks without planned overruns, outliving the
# measured one (1300 jobs of 20 ms against its 1000 + 100 periods)
others() {
	bg=""
	for i in $(seq 1 "$1"); do
		"$O" -j 1300 -e 0 -n other$i >"$out/other$i.txt" 2>&1 &
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

# --- 1: alone -------------------------------------------------------------------
"$O" -n alone >"$out/alone.txt" 2>&1
points alone "$out/alone.txt"

# --- 2: beside two other deadline tasks -------------------------------------------
others 2
"$O" -n with-dl >"$out/with-dl.txt" 2>&1
points with-dl "$out/with-dl.txt"
others_done with-dl

# --- 3: ... and an RT group server on each CPU -------------------------------------
if cg_mount && mkdir $GRP && echo 100000 >$GRP/cpu.rt_period_us && echo 20000 >$GRP/cpu.rt_runtime_us; then
	for m in 1 2; do
		h=$(fifo_hog $GRP/tasks $m) && hogs="$hogs $h"
	done
	if [ "$(wc -w <$GRP/tasks)" = 2 ]; then
		tap_ok "RT group 20 ms / 100 ms with a FIFO hog on CPU 0 and CPU 1 (pids$hogs)"
	else
		tap_fail "RT group with two FIFO hogs: tasks file holds $(cat $GRP/tasks | tr '\n' ' ')"
	fi
	others 2
	"$O" -n with-dl-rtgroup >"$out/with-dl-rtgroup.txt" 2>&1
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
	tap_fail "RT group 20 ms / 100 ms set up under $CG"
fi
# --- 4: the checks fail without the flag --------------------------------------------
"$O" -N -j 200 -n control >"$out/control.txt" 2>&1
rc=$?
sum=$(grep '^dlovr ' "$out/control.txt")
if [ "$rc" = 1 ] && grep -q '^not ok 2 ' "$out/control.txt" && echo "$sum" | grep -q ' signals=0$'; then
	tap_ok "negative control: without SCHED_FLAG_DL_OVERRUN dlovr fails, no signal: $sum"
else
	tap_fail "negative control: dlovr -N rc $rc (1 expected): $sum"
fi
tap_done
