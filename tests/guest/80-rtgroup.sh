#!/bin/sh
# rtlab: kernel=rt-debug cpus=4 mem=512 timeout=900
# RT group scheduling through the cgroup v1 cpu controller
# (cpu.rt_runtime_us / cpu.rt_period_us), issue 7/8: what any implementation
# (6.12's RT throttling, or per-group per-CPU deadline servers) must give.
#
# Helper: /usr/local/libexec/rtlab/rtgload (tests/progs/rtgload.c, see its
# --help).  Every task is a thread that pins itself, writes its TID to the
# group's tasks file, then becomes SCHED_FIFO; the CPU time it received is
# the first field of its /proc/self/task/<tid>/schedstat, read at the start
# and the end of a window of RTG_SECS (default 6) seconds, a multiple of
# every period used here (100 ms), so that the window holds a whole number
# of budgets whatever its phase.  Checks:
#   1  a pinned FIFO hog in a 10 ms / 100 ms group gets 10% +-1 point of its
#      CPU; a SCHED_OTHER hog beside it gets the rest
#   2  one group, hogs pinned to three CPUs: each gets 10% of its CPU (the
#      budget is per CPU)
#   3  groups of 10% and 30% sharing a CPU with a SCHED_OTHER hog: 10, 30
#      (+-1 each) and the rest
#   4  three hogs of FIFO 30/20/10 in one 10% group: the highest gets the
#      whole budget, the others nothing; three bursts of 15 ms complete in
#      priority order
#   5  periodic tasks (100 ms / 5 ms at FIFO 10 and 50 ms / 5 ms at FIFO 20)
#      in a 30 ms / 100 ms group miss no deadline while a FIFO 90 hog in a
#      20 ms / 100 ms group shares their CPU (work is CPU time, not loops;
#      a run that the host disturbed is repeated, see below)
#   6  admission: over-subscription beyond sched_rt_runtime_us /
#      sched_rt_period_us, a child larger than its parent, children above
#      their parent, a parent shrunk below its children, and a period
#      shorter than the runtime are refused (EBUSY or EINVAL) and leave
#      every value as it was; writes that fit are taken
#   7  every group made here is removed again
# Whole run: about 70 s of guest time under TCG.
. /rtlab/lib.sh
. /rtlab/lib/rtg.sh

L=${RTGLOAD:-/usr/local/libexec/rtlab/rtgload}
CG=/sys/fs/cgroup/cpu
SECS=${RTG_SECS:-6}
TOL=1		# percentage points, the issue's requirement
trap rtg_cleanup EXIT	# removes the groups made (tests/guest/lib.sh)

# near X TARGET TOL: |X - TARGET| <= TOL
# atleast X MIN, below X MAX
below() { awk -v x="$1" -v m="$2" 'BEGIN { exit !(x != "" && x < m) }'; }

tap_diag "kernel $(uname -r) ($RTLAB_KERNEL), accel ${RTLAB_ACCEL:-?}, CPUs $(cat /sys/devices/system/cpu/online)," \
	"sched_rt_runtime_us=$(cat /proc/sys/kernel/sched_rt_runtime_us) sched_rt_period_us=$(cat /proc/sys/kernel/sched_rt_period_us)," \
	"RT_RUNTIME_SHARE: $(grep -o '[A-Z_]*RT_RUNTIME_SHARE' /sys/kernel/debug/sched/features 2>/dev/null || echo '?')"
if ! "$L" --help >/dev/null; then
	tap_fail "rtgload helper is installed"
	tap_done
fi
if cg_mount && [ -f $CG/cpu.rt_runtime_us ]; then
	tap_ok "cgroup v1 cpu controller at $CG with cpu.rt_runtime_us (root: $(cat $CG/cpu.rt_runtime_us) / $(cat $CG/cpu.rt_period_us) us)"
else
	tap_fail "cgroup v1 cpu controller with cpu.rt_runtime_us at $CG"
	tap_done
fi
for g in $CG/rtg-*; do [ -d "$g" ] && rmdir "$g" 2>/dev/null; done

# --- 1: one group, one pinned hog, a SCHED_OTHER hog beside it -------------
if rtg_mkgrp rtg-a 10000 100000; then
	rtg_run bw-single -d "$SECS" -t name=fifo,cg=$CG/rtg-a,policy=fifo,prio=50,cpu=1 -t name=other,cpu=1
	s=$(rtg_val fifo share) o=$(rtg_val other share)
	if [ "$rc" = 0 ] && near "$s" 10 $TOL; then
		tap_ok "10 ms / 100 ms group: pinned FIFO hog got $s% of CPU 1 over $SECS s (10 +-$TOL)"
	else
		tap_fail "10 ms / 100 ms group: pinned FIFO hog got ${s:-?}% of CPU 1 (10 +-$TOL), rtgload rc $rc"
	fi
	# the rest, less what the kernel's own threads take on that CPU
	if atleast "$o" 88 && below "$o" 91; then
		tap_ok "SCHED_OTHER hog on the same CPU got the rest: $o% (88..91)"
	else
		tap_fail "SCHED_OTHER hog on the same CPU got ${o:-?}% (88..91)"
	fi
	rtg_rmgrp rtg-a
else
	tap_fail "make group rtg-a 10000/100000"
fi

# --- 2: the budget is per CPU ------------------------------------------------
if rtg_mkgrp rtg-a 10000 100000; then
	# three busy vCPUs on a 2-core host: a late tick lets a server overrun
	# its budget under TCG; a window that misses is measured again (3 at most)
	for try in 1 2 3; do
		rtg_run bw-percpu -d "$SECS" -t name=c1,cg=$CG/rtg-a,policy=fifo,prio=50,cpu=1 \
			-t name=c2,cg=$CG/rtg-a,policy=fifo,prio=50,cpu=2 -t name=c3,cg=$CG/rtg-a,policy=fifo,prio=50,cpu=3
		ok=$rc
		for t in c1 c2 c3; do near "$(rtg_val $t share)" 10 $TOL || ok=1; done
		[ "$ok" = 0 ] && break
		tap_diag "bw-percpu window $try missed: $(rtg_val c1 share)%, $(rtg_val c2 share)%, $(rtg_val c3 share)%"
	done
	if [ "$ok" = 0 ]; then
		tap_ok "one 10% group, hogs on CPUs 1, 2, 3: $(rtg_val c1 share)%, $(rtg_val c2 share)%, $(rtg_val c3 share)% of each CPU (10 +-$TOL)"
	else
		tap_fail "one 10% group, hogs on CPUs 1, 2, 3: $(rtg_val c1 share)%, $(rtg_val c2 share)%, $(rtg_val c3 share)% (10 +-$TOL each), rc $rc"
	fi
	rtg_rmgrp rtg-a
else
	tap_fail "make group rtg-a 10000/100000"
fi

# --- 3: two groups and a SCHED_OTHER hog share a CPU -------------------------
if rtg_mkgrp rtg-a 10000 100000 && rtg_mkgrp rtg-b 30000 100000; then
	rtg_run bw-shared -d "$SECS" -t name=a,cg=$CG/rtg-a,policy=fifo,prio=50,cpu=2 \
		-t name=b,cg=$CG/rtg-b,policy=fifo,prio=40,cpu=2 -t name=other,cpu=2
	a=$(rtg_val a share) b=$(rtg_val b share) o=$(rtg_val other share)
	if [ "$rc" = 0 ] && near "$a" 10 $TOL && near "$b" 30 $TOL; then
		tap_ok "groups of 10% and 30% on CPU 2: $a% and $b% (+-$TOL each)"
	else
		tap_fail "groups of 10% and 30% on CPU 2: ${a:-?}% and ${b:-?}% (10 and 30, +-$TOL each), rc $rc"
	fi
	if atleast "$o" 58 && below "$o" 61; then
		tap_ok "SCHED_OTHER hog beside them got the rest: $o% (58..61)"
	else
		tap_fail "SCHED_OTHER hog beside them got ${o:-?}% (58..61)"
	fi
	rtg_rmgrp rtg-a rtg-b
else
	tap_fail "make groups rtg-a 10000/100000 and rtg-b 30000/100000"
fi

# --- 4: priority order inside a group ----------------------------------------
if rtg_mkgrp rtg-a 10000 100000; then
	rtg_run prio-hogs -d "$SECS" -t name=hi,cg=$CG/rtg-a,policy=fifo,prio=30,cpu=3 \
		-t name=mid,cg=$CG/rtg-a,policy=fifo,prio=20,cpu=3 -t name=lo,cg=$CG/rtg-a,policy=fifo,prio=10,cpu=3
	h=$(rtg_val hi share) m=$(rtg_val mid share) l=$(rtg_val lo share)
	if [ "$rc" = 0 ] && near "$h" 10 $TOL && below "$m" 0.05 && below "$l" 0.05; then
		tap_ok "FIFO 30/20/10 hogs in one 10% group: $h% / $m% / $l% (the highest takes the whole budget)"
	else
		tap_fail "FIFO 30/20/10 hogs in one 10% group: ${h:-?}% / ${m:-?}% / ${l:-?}% (10 +-$TOL, < 0.05, < 0.05), rc $rc"
	fi
	# bursts of 15 ms CPU time each, started together: at 10 ms per
	# 100 ms they need about 5 periods, and finish in priority order
	rtg_run prio-bursts -d 0.5 -w 0 -t name=lo,cg=$CG/rtg-a,policy=fifo,prio=10,cpu=3,kind=burst:15000 \
		-t name=mid,cg=$CG/rtg-a,policy=fifo,prio=20,cpu=3,kind=burst:15000 \
		-t name=hi,cg=$CG/rtg-a,policy=fifo,prio=30,cpu=3,kind=burst:15000
	h=$(rtg_val hi done_ms) m=$(rtg_val mid done_ms) l=$(rtg_val lo done_ms)
	if [ "$rc" = 0 ] && awk -v h="$h" -v m="$m" -v l="$l" 'BEGIN { exit !(h > 0 && h < m && m < l) }'; then
		tap_ok "15 ms bursts at FIFO 30/20/10 in the 10% group completed in priority order: $h, $m, $l ms"
	else
		tap_fail "15 ms bursts at FIFO 30/20/10: completed at ${h:-?}, ${m:-?}, ${l:-?} ms (expected increasing), rc $rc"
	fi
	rtg_rmgrp rtg-a
else
	tap_fail "make group rtg-a 10000/100000"
fi

# --- 5: periodic tasks within their budget miss nothing ----------------------
PSECS=${RTG_PERIODIC_SECS:-10}
# Under TCG a loaded host can deschedule the vCPU while a periodic task
# spins: the guest charges that time to the task, so to group A's budget,
# and A is then throttled for as many periods as the stalls ate budgets
# (misses that are the host's doing).  rtgload reports such stalls (jumps
# of > 1 ms in the task's own CPU time; on a quiet host there are a few
# dozen of 1-3 ms in 10 s, the emulated timer interrupt) and win_stall_ms,
# the most stall time both of A's tasks saw together within any 100 ms (one
# period of A's budget): several short stalls in one period add up (a CI
# run missed once after 3.9 ms at most each, 97 ms in all).  A run with
# misses AND 5 ms or more of stalls in one period (a third of A's 15 ms
# slack) is repeated, up to 3 runs; if all three are disturbed so, the
# check fails and says that the host stalled the guest (no verdict is no
# pass).  Misses in a run without such stalls fail at once.
if rtg_mkgrp rtg-a 30000 100000 && rtg_mkgrp rtg-b 20000 100000; then
	for attempt in 1 2 3; do
		rtg_run periodic-$attempt -d "$PSECS" -t name=p100,cg=$CG/rtg-a,policy=fifo,prio=10,cpu=1,kind=periodic:100000:5000 \
			-t name=p50,cg=$CG/rtg-a,policy=fifo,prio=20,cpu=1,kind=periodic:50000:5000 \
			-t name=hog90,cg=$CG/rtg-b,policy=fifo,prio=90,cpu=1
		ok=$rc
		for t in p100 p50; do
			j=$(rtg_val $t jobs) mi=$(rtg_val $t misses)
			[ -n "$j" ] && [ "$mi" = 0 ] && [ "$j" -ge $((PSECS * 1000000 / $(rtg_val $t kind | cut -d: -f2) - 1)) ] || ok=1
		done
		stall=$(awk -v a="$(rtg_val p100 stall_ms)" -v b="$(rtg_val p50 stall_ms)" 'BEGIN { print a + b }')
		mstall=$(rtg_val p100 win_stall_ms)
		[ "$ok" = 0 ] && break
		awk -v s="$mstall" 'BEGIN { exit !(s >= 5) }' || break
		tap_diag "periodic run $attempt: misses, and $mstall ms of stalls in one period were charged to group A (host): run again"
	done
	hs=$(rtg_val hog90 share)
	disturbed=0
	[ "$ok" != 0 ] && awk -v s="$mstall" 'BEGIN { exit !(s >= 5) }' && disturbed=1
	if [ "$disturbed" = 1 ]; then
		# all three runs had misses after host stalls: not shown either way
		tap_fail "periodic tasks without misses not shown: every run had misses after >= 5 ms of stalls in one period charged to group A, i.e. the host did not run the vCPU (last run: $stall ms, $mstall ms in one period; p100 misses=$(rtg_val p100 misses), p50 misses=$(rtg_val p50 misses)); run the guest tests on a quiet host"
	elif [ "$ok" = 0 ]; then
		tap_ok "periodic 100/5 ms (FIFO 10) and 50/5 ms (FIFO 20) in a 30% group: $(rtg_val p100 jobs) and $(rtg_val p50 jobs) jobs, 0 misses, worst response $(rtg_val p100 max_resp_us) and $(rtg_val p50 max_resp_us) us, beside a FIFO 90 hog in a 20% group ($hs%; run $attempt, stalls charged to group A: $stall ms, at most $mstall ms in one period)"
	else
		tap_fail "periodic tasks (run $attempt, stalls charged to group A: $stall ms, at most $mstall ms in one period, longest $(rtg_val p100 max_stall_ms)/$(rtg_val p50 max_stall_ms) ms): p100 jobs=$(rtg_val p100 jobs) misses=$(rtg_val p100 misses) max_late_us=$(rtg_val p100 max_late_us), p50 jobs=$(rtg_val p50 jobs) misses=$(rtg_val p50 misses) max_late_us=$(rtg_val p50 max_late_us), rc $rc"
	fi
	if near "$hs" 20 $TOL; then
		tap_ok "the FIFO 90 hog stayed within its 20% group: $hs%"
	else
		tap_fail "the FIFO 90 hog in its 20% group got ${hs:-?}% (20 +-$TOL)"
	fi
	rtg_rmgrp rtg-a rtg-b
else
	tap_fail "make groups rtg-a 30000/100000 and rtg-b 20000/100000"
fi

# --- 6: admission ------------------------------------------------------------
# try G FILE VALUE: write, $werr = the error text; 0 if the write was taken
# (busybox's echo reports "write error: <strerror>", its printf nothing)
try() {
	werr=$( { echo "$3" >"$CG/$1/$2"; } 2>&1)
}
# rd G...: "runtime/period" of each group
rd() {
	for g in "$@"; do printf '%s/%s ' "$(cat "$CG/$g/cpu.rt_runtime_us")" "$(cat "$CG/$g/cpu.rt_period_us")"; done
}
# refused "what" G FILE VALUE GROUPS...: the write must fail with EBUSY or
# EINVAL and leave the values of GROUPS as they were
refused() {
	what=$1 g=$2 f=$3 v=$4; shift 4
	before=$(rd "$@")
	if try "$g" "$f" "$v"; then
		tap_fail "$what: write of $v to $g/$f was taken (now $(rd "$@"))"
		return
	fi
	after=$(rd "$@")
	case "$werr" in
	*"Device or resource busy"*) e=EBUSY ;;
	*"Invalid argument"*) e=EINVAL ;;
	*) e="other error: $werr" ;;
	esac
	if [ "$before" = "$after" ] && { [ "$e" = EBUSY ] || [ "$e" = EINVAL ]; }; then
		tap_ok "$what: refused ($e), values unchanged: $after"
	else
		tap_fail "$what: $e; before $before after $after"
	fi
}
g_rt=$(cat /proc/sys/kernel/sched_rt_runtime_us) g_per=$(cat /proc/sys/kernel/sched_rt_period_us)
if rtg_mkgrp rtg-x 300000 1000000 && rtg_mkgrp rtg-y 300000 1000000 && mkdir $CG/rtg-z; then
	rtg_made="rtg-z $rtg_made"
	try rtg-z cpu.rt_period_us 1000000
	tap_ok "admission: groups of 30% and 30% taken: $(rd rtg-x rtg-y)"
	# over-subscription: the sum of the root's children beyond the global
	# limit ($g_rt / $g_per)
	refused "over-subscription, 30% + 30% + 40% > $g_rt/$g_per" rtg-z cpu.rt_runtime_us 400000 rtg-x rtg-y rtg-z
	refused "over-subscription, 30% group grown to 70% beside another 30%" rtg-y cpu.rt_runtime_us 700000 rtg-x rtg-y
	refused "over-subscription, one group above the global limit (96%)" rtg-z cpu.rt_runtime_us 960000 rtg-x rtg-y rtg-z
	# 85%: below the global 95% even if an implementation also counts the
	# fair server's 5% (50 ms / 1 s) against it
	if try rtg-z cpu.rt_runtime_us 250000; then
		tap_ok "30% + 30% + 25% taken: $(rd rtg-x rtg-y rtg-z)"
	else
		tap_fail "30% + 30% + 25% refused: $werr"
	fi
	# hierarchy
	mkdir $CG/rtg-x/c1 && rtg_made="rtg-x/c1 $rtg_made"
	mkdir $CG/rtg-x/c2 && rtg_made="rtg-x/c2 $rtg_made"
	try rtg-x/c1 cpu.rt_period_us 1000000
	refused "child larger than its parent (40% under 30%)" rtg-x/c1 cpu.rt_runtime_us 400000 rtg-x rtg-x/c1
	if try rtg-x/c1 cpu.rt_runtime_us 200000; then
		tap_ok "child of 20% under a 30% parent taken: $(rd rtg-x rtg-x/c1)"
	else
		tap_fail "child of 20% under a 30% parent refused: $werr"
	fi
	try rtg-x/c2 cpu.rt_period_us 1000000
	refused "children above their parent (20% + 20% under 30%)" rtg-x/c2 cpu.rt_runtime_us 200000 rtg-x rtg-x/c1 rtg-x/c2
	refused "parent shrunk below its child (10% over a 20% child)" rtg-x cpu.rt_runtime_us 100000 rtg-x rtg-x/c1
	# runtime and period
	refused "period shorter than the runtime (30 ms runtime, 20 ms period)" rtg-y cpu.rt_period_us 20000 rtg-y
	refused "runtime longer than the period (1.2 s in 1 s)" rtg-z cpu.rt_runtime_us 1200000 rtg-z
	refused "period 0" rtg-y cpu.rt_period_us 0 rtg-y
	tap_diag "admission, final values: x $(rd rtg-x) c1 $(rd rtg-x/c1) c2 $(rd rtg-x/c2) y $(rd rtg-y) z $(rd rtg-z)"
	rtg_rmgrp rtg-x/c1 rtg-x/c2 rtg-x rtg-y rtg-z
else
	tap_fail "admission: groups of 30% and 30% ($(rd rtg-x rtg-y 2>/dev/null))"
fi

# --- 7: nothing left behind -------------------------------------------------
rtg_cleanup
left=$(ls -d $CG/rtg-* 2>/dev/null)
if [ -z "$left" ]; then
	tap_ok "every group made by the test is removed"
else
	tap_fail "groups left: $left"
fi
tap_done
