#!/bin/sh
# rtlab: kernel=rt-debug cpus=4 mem=512 timeout=240
# An RT group's runtime set to 0 while it has RT tasks (issue 24, bug 5).
# With sched_rt_runtime_us = -1 (RT bandwidth control off), a
# 50 ms / 100 ms group and two FIFO 50 hogs pinned to CPU 2:
#   1  writing 0 to cpu.rt_runtime_us is refused with EBUSY, as it is with
#      bandwidth control on (the group's tasks run only in its servers;
#      before, the write was taken and the hogs never ran again)
#   2  the hogs still run: together at least 40% of CPU 2 over 2 s
#   3  kill -9 ends both within 1 s
#   4  the root rt_rq fallback: a group with runtime 0 (no servers) whose
#      fair task is made FIFO 10 (allowed with bandwidth control off) runs
#      it in the root rt_rq: over 1 s it takes at least 80% of CPU 2 from
#      a fair hog there, rather than waiting for a server that does not
#      exist; the group then gets 50 ms / 100 ms (taken), and the task,
#      which never blocks, moves into the group's server at once (issue 39
#      item 2.4; before, it stayed in the root and kept about 95% of the
#      CPU): over 1 s it gets 35-65% of CPU 2.  kill -9 ends it within 1 s.
#      The task lives about 2 s in the root: an unthrottled root FIFO hog
#      would starve rcuc on its CPU if it ran for long.
. /rtlab/lib.sh
. /rtlab/lib/rtg.sh

CG=/sys/fs/cgroup/cpu
G=$CG/rtg-z
Z=$CG/rtg-z0
hogs=""
rt0=$(cat /proc/sys/kernel/sched_rt_runtime_us)
cleanup() {
	for p in $hogs; do kill -9 "$p" 2>/dev/null; done
	sleep 0.3
	rmdir $G $Z 2>/dev/null
	echo "$rt0" >/proc/sys/kernel/sched_rt_runtime_us
}
trap cleanup EXIT
tap_plan 4

if ! cg_mount || ! wr /proc/sys/kernel/sched_rt_runtime_us -1 || ! mkdir $G ||
   ! wr $G/cpu.rt_period_us 100000 || ! wr $G/cpu.rt_runtime_us 50000; then
	tap_fail "setup: sched_rt_runtime_us -1 and a 50 ms / 100 ms group ($werr)"
	tap_done
fi
h1=$(fifo_hog $G/tasks 4) && h2=$(fifo_hog $G/tasks 4)
hogs="$h1 $h2"

# --- 1 ---
if wr $G/cpu.rt_runtime_us 0; then
	tap_fail "runtime 0 with two FIFO hogs queued: taken (now $(cat $G/cpu.rt_runtime_us))"
elif [ "$werr" = EBUSY ] && [ "$(cat $G/cpu.rt_runtime_us)" = 50000 ]; then
	tap_ok "runtime 0 with two FIFO hogs queued: refused with EBUSY, runtime still 50000"
else
	tap_fail "runtime 0 with two FIFO hogs queued: refused with $werr, runtime $(cat $G/cpu.rt_runtime_us)"
fi

# --- 2 ---
ok=0
for i in 1 2 3; do
	t0=$(up); a1=$(ns $h1); a2=$(ns $h2); sleep 2; t1=$(up); b1=$(ns $h1); b2=$(ns $h2)
	got=$(awk -v a="$((a1 + a2))" -v b="$((b1 + b2))" -v t0="$t0" -v t1="$t1" \
		'BEGIN { printf "%.2f", (b - a) * 100 / ((t1 - t0) * 1e9) }')
	tap_diag "window $i: the hogs ran $(((b1 - a1) / 1000000)) + $(((b2 - a2) / 1000000)) ms, $got% of CPU 2"
	atleast "$got" 40 && { ok=1; break; }
done
tap_check "the group's hogs still run (at least 40% of CPU 2 together: $got%)" [ $ok = 1 ]

# --- 3 ---
kill -9 $h1 $h2
sleep 1
if gone $h1 && gone $h2; then
	tap_ok "kill -9 ends both hogs within 1 s"
else
	tap_fail "kill -9: the hogs are still there 1 s later (state $(awk '{ print $3 }' /proc/$h1/stat) and $(awk '{ print $3 }' /proc/$h2/stat))"
fi
wait $h1 $h2 2>/dev/null
hogs=""
# G's 50% would leave no room for Z's 50% under the root's 95%
rmdir $G || tap_diag "rmdir $G failed"

# --- 4 ---
t=""
if mkdir $Z && [ "$(cat $Z/cpu.rt_runtime_us)" = 0 ]; then
	sh -c 'while :; do :; done' >/dev/null 2>&1 &
	t=$!
	sh -c 'while :; do :; done' >/dev/null 2>&1 &
	f=$!
	hogs="$t $f"
	taskset -p 4 $t >/dev/null; taskset -p 4 $f >/dev/null
fi
if [ -z "$t" ] || ! wr $Z/tasks $t; then
	tap_fail "fallback setup: a fair task in a group with runtime 0 ($werr)"
elif ! chrt -f -p 10 $t; then
	tap_fail "fallback: chrt -f 10 of a fair task in a group with runtime 0 refused with bandwidth control off"
else
	got=$(cpu_pct $t 1); fair=$(cpu_pct $f 0.2)
	wr $Z/cpu.rt_period_us 100000 && wr $Z/cpu.rt_runtime_us 50000; w=${werr:-taken}
	grp=$(cpu_pct $t 1)
	kill -9 $t
	sleep 1
	gone $t && k=yes || k=no
	tap_diag "fallback: FIFO 10 task of a group without runtime ran $got% of CPU 2 beside a fair hog (which then ran $fair%); 50000 / 100000 written after: $w; then it ran $grp%; gone 1 s after kill -9: $k"
	ok=0
	atleast "$got" 80 && [ "$w" = taken ] && atleast "$grp" 35 &&
		! atleast "$grp" 65 && [ $k = yes ] && ok=1
	tap_check "fallback: a FIFO task of a group without servers runs in the root rt_rq ($got% of CPU 2, at least 80), the group then takes 50 ms / 100 ms ($w) and the task runs in its server ($grp%, 35-65), kill -9 ends it ($k)" [ $ok = 1 ]
fi
for p in $hogs; do kill -9 $p 2>/dev/null; done
wait $hogs 2>/dev/null
hogs=""

tap_done
