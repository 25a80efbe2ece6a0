#!/bin/sh
# rtlab: kernel=rt cpus=2 mem=512 timeout=600
# What a throttled RT group's tasks do to the load figures (issue 24, design
# point 9): until patch 0025 a group's queued tasks stayed in
# rq->nr_running while its server was throttled, so the CPU was idle but
# not idle_cpu(), and the load average counted the tasks as runnable; with
# 0025 they count only while the server runs, and the two rows agree.
#
# Method (helper /usr/local/libexec/rtlab/rtgload, tests/progs/rtgload.c): a
# 10 ms / 100 ms group with one SCHED_FIFO 50 busy loop pinned to CPU 1, for
# RTG_LOAD_SECS (default 90) seconds, nothing else busy.  Then, as the
# reference, the same CPU demand without a group: a SCHED_OTHER task pinned
# to CPU 1 that runs 10 ms of CPU time every 100 ms.  For each: the task's
# share of CPU 1 (schedstat, through rtgload), CPU 1's idle time and the
# sum of all its /proc/stat fields over the window, as shares of the
# window's wall time (what top and mpstat compute from), and the 1-minute
# load average at the end (/proc/loadavg; after 90 s it holds 1 - e^-1.5 =
# 78% of a constant load).
# Under TCG figures are emulator time; the comparison of the two rows of one
# run is the figure.
. /rtlab/lib.sh
. /rtlab/lib/rtg.sh

CG=/sys/fs/cgroup/cpu
SECS=${RTG_LOAD_SECS:-90}
out=${RTLAB_OUT:-/tmp}
metrics=$out/metrics.txt
: >"$metrics"

if ! cg_mount || [ ! -f $CG/cpu.rt_runtime_us ]; then
	tap_fail "cgroup v1 cpu controller with cpu.rt_runtime_us at $CG"
	tap_done
fi
trap rtg_cleanup EXIT

L=/usr/local/libexec/rtlab/rtgload
# cpu1_idle: CPU 1's idle+iowait jiffies so far;  total1: all its jiffies
cpu1_idle() { awk '$1 == "cpu1" { print $5 + $6 }' /proc/stat; }
total1() { awk '$1 == "cpu1" { s = 0; for (i = 2; i <= 9; i++) s += $i; print s }' /proc/stat; }

# measure NAME KEY TASK: rtgload runs TASK for the window (and 1 s more);
# over the window, CPU 1's idle and all its accounted time in /proc/stat
# (USER_HZ jiffies) as shares of the window's wall time, and the 1-minute
# load average at its end; the task's share from rtgload: a row, metrics
hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
measure() {
	"$L" -m -d $((SECS + 1)) -w 0 --main-cpu 0 -t "$3" >"$out/load-$2.txt" 2>&1 &
	_p=$!
	sleep 0.5
	_i0=$(cpu1_idle) _j0=$(total1) _t0=$(up)
	sleep "$SECS"
	_i1=$(cpu1_idle) _j1=$(total1) _t1=$(up)
	_load=$(cut -d' ' -f1 /proc/loadavg)
	wait $_p || { sed 's/^/# /' "$out/load-$2.txt"; return 1; }
	_idle=$(awk -v a="$_i0" -v b="$_i1" -v t0="$_t0" -v t1="$_t1" -v hz="$hz" 'BEGIN { printf "%.3f", (b - a) / ((t1 - t0) * hz) }')
	_acct=$(awk -v a="$_j0" -v b="$_j1" -v t0="$_t0" -v t1="$_t1" -v hz="$hz" 'BEGIN { printf "%.3f", (b - a) / ((t1 - t0) * hz) }')
	_share=$(awk '$1 == "task" { for (i = 2; i <= NF; i++) if ($i ~ /^share=/) print substr($i, 7) / 100 }' "$out/load-$2.txt")
	printf '# %-28s %10s %10s %10s %10s\n' "$1" "$_share" "$_idle" "$_acct" "$_load"
	printf 'load_%s_share %s\nload_%s_idle %s\nload_%s_accounted %s\nload_%s_loadavg %s\n' \
		"$2" "$_share" "$2" "$_idle" "$2" "$_acct" "$2" "$_load" >>"$metrics"
}

printf '# %-28s %10s %10s %10s %10s\n' case task_cpu stat_idle stat_all loadavg1
if rtg_mkgrp rtgload 10000 100000 &&
	measure "group 10ms/100ms, FIFO hog" group "name=g,cg=$CG/rtgload,policy=fifo,prio=50,cpu=1,kind=hog"; then
	tap_ok "group hog: $_share of CPU 1; /proc/stat: idle $_idle, all fields $_acct of the window; loadavg $_load"
else
	tap_fail "a 10 ms / 100 ms group with a FIFO hog ($werr)"
	tap_done
fi
sleep 60	# the load average decays from the group case
if measure "SCHED_OTHER 10ms per 100ms" other "name=o,policy=other,cpu=1,kind=periodic:100000:10000"; then
	tap_ok "reference: $_share of CPU 1; /proc/stat: idle $_idle, all fields $_acct of the window; loadavg $_load"
else
	tap_fail "the SCHED_OTHER reference task"
fi
tap_tcg_caveat "idle shares and load averages (compare the two rows)"
tap_done
