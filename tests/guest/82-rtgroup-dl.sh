#!/bin/sh
# rtlab: kernel=rt-debug cpus=4 mem=512 timeout=300
# RT groups on per-CPU deadline servers (kernel/patches 0006-0008): what
# the servers give that 6.12's RT throttling did not.  Checks:
#   1  a group's FIFO 1 hog gets its 10 ms / 100 ms beside a FIFO 99 hog of
#      the root group on the same CPU (servers run before the root's RT
#      tasks; with the old throttling the group got nothing)
#   2  nesting: a 10% child under a 30% parent, hogs on one CPU: the child
#      gets 10%, the parent's own task the 20% the child leaves
#   3  the root-domain bound: top-level groups share each CPU with the fair
#      servers (5% each), so beside 30% + 30% a third group gets 30% but
#      not 31% (EBUSY, nothing changed), although 91% is under
#      sched_rt_runtime_us (95%)
#   4  groups and SCHED_DEADLINE tasks are admitted against each other: with
#      a group at 80% a 50 ms / 100 ms deadline task is refused, at 70% it
#      is admitted, and while it lives the group cannot go back to 80%
#   5  at the end the root domain's reserved bandwidth is what it was at the
#      start (the fair servers'): nothing leaked
# Bandwidth is the CPU time of each task (/proc/.../schedstat) over a 6 s
# window, +-1 percentage point.
. /rtlab/lib.sh
. /rtlab/lib/rtg.sh

L=${RTGLOAD:-/usr/local/libexec/rtlab/rtgload}
CG=/sys/fs/cgroup/cpu
SECS=${RTG_SECS:-6}
TOL=1
cleanup() {
	[ -n "${dlpid:-}" ] && kill "$dlpid" 2>/dev/null
	rtg_cleanup
}
trap cleanup EXIT

rt() { cat "$CG/$1/cpu.rt_runtime_us"; }
# the bandwidth reserved in CPU 0's root domain (debugfs), for the record
bw() { tap_diag "$1: root domain$(grep -m1 'dl_bw->total_bw' /sys/kernel/debug/sched/debug | tr -s ' ')"; }

tap_diag "kernel $(uname -r) ($RTLAB_KERNEL), CPUs $(cat /sys/devices/system/cpu/online)," \
	"sched_rt_runtime_us=$(cat /proc/sys/kernel/sched_rt_runtime_us) sched_rt_period_us=$(cat /proc/sys/kernel/sched_rt_period_us)"
if ! cg_mount || [ ! -f $CG/cpu.rt_runtime_us ] || ! "$L" --help >/dev/null; then
	tap_fail "cgroup v1 cpu controller at $CG and rtgload"
	tap_done
fi
for g in $CG/rtg-*/* $CG/rtg-*; do [ -d "$g" ] && rmdir "$g" 2>/dev/null; done

bw "before 1"
bw0=$(grep -m1 'dl_bw->total_bw' /sys/kernel/debug/sched/debug | awk '{ print $NF }')
# --- 1: a group's server runs before the root group's RT tasks ------------
if rtg_mkgrp rtg-a 10000 100000; then
	rtg_run over-root -d "$SECS" -t name=grp,cg=$CG/rtg-a,policy=fifo,prio=1,cpu=1 \
		-t name=root,policy=fifo,prio=99,cpu=1
	s=$(rtg_val grp share) r=$(rtg_val root share)
	if [ "$rc" = 0 ] && near "$s" 10 $TOL && atleast "$r" 80; then
		tap_ok "FIFO 1 hog in a 10% group got $s% of CPU 1 beside a root FIFO 99 hog ($r%)"
	else
		tap_fail "FIFO 1 hog in a 10% group beside a root FIFO 99 hog: ${s:-?}% (10 +-$TOL), root ${r:-?}% (>= 80), rc $rc"
	fi
else
	tap_fail "make a 10 ms / 100 ms group"
fi
rmdir $CG/rtg-a && rtg_made=""

bw "before 2"
# --- 2: a child's bandwidth is carved out of its parent's -----------------
if rtg_mkgrp rtg-p 30000 100000 && rtg_mkgrp rtg-p/c 10000 100000; then
	rtg_run nested -d "$SECS" -t name=parent,cg=$CG/rtg-p,policy=fifo,prio=50,cpu=2 \
		-t name=child,cg=$CG/rtg-p/c,policy=fifo,prio=50,cpu=2 -t name=other,cpu=2
	p=$(rtg_val parent share) c=$(rtg_val child share)
	if [ "$rc" = 0 ] && near "$p" 20 $TOL && near "$c" 10 $TOL; then
		tap_ok "30% parent with a 10% child on CPU 2: parent's own hog $p%, child's $c%"
	else
		tap_fail "30% parent with a 10% child: parent ${p:-?}% (20 +-$TOL), child ${c:-?}% (10 +-$TOL), rc $rc"
	fi
else
	tap_fail "make a 30% parent with a 10% child"
fi
rmdir $CG/rtg-p/c $CG/rtg-p && rtg_made=""

bw "before 3"
# --- 3: top-level groups are bounded per CPU next to the fair servers -----
if rtg_mkgrp rtg-x 300000 1000000 && rtg_mkgrp rtg-y 300000 1000000 && rtg_mkgrp rtg-z 0 1000000; then
	if ! wr $CG/rtg-z/cpu.rt_runtime_us 310000 && [ "$werr" = EBUSY ] &&
	   [ "$(rt rtg-x) $(rt rtg-y) $(rt rtg-z)" = "300000 300000 0" ]; then
		tap_ok "30% + 30% + 31%: the third refused with EBUSY (fair servers hold 5% of each CPU), nothing changed"
	else
		tap_fail "30% + 30% + 31%: ${werr:-taken}, values $(rt rtg-x) $(rt rtg-y) $(rt rtg-z) (want EBUSY, 300000 300000 0)"
	fi
	if wr $CG/rtg-z/cpu.rt_runtime_us 300000; then
		tap_ok "30% + 30% + 30% taken (90%)"
	else
		tap_fail "30% + 30% + 30% refused: $werr"
	fi
else
	tap_fail "make groups of 30% and 30%"
fi
rmdir $CG/rtg-z $CG/rtg-y $CG/rtg-x && rtg_made=""

bw "before 4"
# --- 4: groups and SCHED_DEADLINE tasks share the admission ---------------
# dl NS: a 50 ms / 100 ms deadline task sleeping NS seconds (chrt fails if
# sched_setattr() refuses it)
dl() { chrt -d -T 50000000 -D 100000000 -P 100000000 0 sleep "$1"; }
if rtg_mkgrp rtg-a 800000 1000000; then
	if dl 0 2>/dev/null; then
		tap_fail "with an 80% group, a 50% deadline task was admitted (4 x 80% + 50% + fair servers > 4 x 95%)"
	else
		tap_ok "with an 80% group, a 50 ms / 100 ms deadline task is refused"
	fi
	if wr $CG/rtg-a/cpu.rt_runtime_us 700000 && dl 0; then
		tap_ok "group lowered to 70%: the deadline task is admitted"
	else
		tap_fail "group lowered to 70% (${werr:-ok}): deadline task still refused"
	fi
	# not "dl 30 &": $! would be a subshell, and killing it leaves chrt's sleep
	chrt -d -T 50000000 -D 100000000 -P 100000000 0 sleep 30 &
	dlpid=$!
	sleep 1
	if ! wr $CG/rtg-a/cpu.rt_runtime_us 800000 && [ "$werr" = EBUSY ] && [ "$(rt rtg-a)" = 700000 ]; then
		tap_ok "while the deadline task lives, the group cannot go back to 80% (EBUSY, still 700000)"
	else
		tap_fail "group back to 80% beside a 50% deadline task: ${werr:-taken}, runtime $(rt rtg-a)"
	fi
	kill $dlpid 2>/dev/null
	wait $dlpid 2>/dev/null
	dlpid=""
	# the deadline task's bandwidth is given back after its 0-lag time
	sleep 1
	if wr $CG/rtg-a/cpu.rt_runtime_us 800000; then
		tap_ok "after the deadline task exits, the group can have 80% again"
	else
		tap_fail "after the deadline task exits, 80% still refused: $werr"
	fi
else
	tap_fail "make an 80% group"
fi
rmdir $CG/rtg-a && rtg_made=""

bw "at the end"
bw1=$(grep -m1 'dl_bw->total_bw' /sys/kernel/debug/sched/debug | awk '{ print $NF }')
if [ -n "$bw0" ] && [ "$bw0" = "$bw1" ]; then
	tap_ok "every group's and deadline task's bandwidth was given back: root domain total $bw1, as at the start"
else
	tap_fail "root domain bandwidth ${bw1:-?} at the end, ${bw0:-?} at the start"
fi
tap_done
