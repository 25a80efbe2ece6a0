#!/bin/sh
# rtlab: kernel=rt-debug cpus=2 mem=512 timeout=300 cmdline=oops=panic
# A policy change on a PI-boosted RT group task (issue 39, item 2.1;
# patch 0029).  Since 0024 a group task that priority inheritance boosts
# above its own priority is queued on the root's rt_rq, and
# enqueue_task_rt() chooses the rt_rq at every enqueue.  A
# sched_setscheduler() that leaves the effective priority as it is
# requeues the task without DEQUEUE_MOVE, yet changes normal_prio, and so
# the choice: before 0029 the task stayed listed on the old rt_rq and was
# counted on the new one (kernel BUG in pick_next_rt_entity(), or a task
# that never runs again).
#
# Helper rtgsetprio (tests/progs/rtgsetprio.c): the holder, pinned to
# CPU 1 in a 50 ms / 100 ms group, takes a PI mutex; a root SCHED_FIFO 50
# waiter on CPU 0 blocks on it; then sched_setscheduler() gives the holder
# a new SCHED_FIFO priority under which it still runs at 50.  Three rounds
# per case; each round the holder keeps the lock 200 ms more, then both
# run 50 ms of CPU time, which each must get within 10 s.
#
# Points:
#  1 lower: holder FIFO 50 (equal to the waiter: not boosted) set to
#    FIFO 10 (now boosted: group to root); both make progress
#  2 raise: holder FIFO 10 (boosted to 50: in the root) set to FIFO 50
#    (no longer boosted: root to group); both make progress
#  3 every helper can be killed (none is left stranded)
#  4 the group is removed afterwards
#  5 no splat in the kernel log during the test
#
# oops=panic: before 0029 each case ends in its first round in "kernel
# BUG at kernel/sched/rt.c" (pick_next_rt_entity(), from pick_task_rt()
# in lower, from the server's rt_server_pick_task() in raise) on CPU 1
# with its runqueue locked; on PREEMPT_RT the serial console is printed by
# a kthread, so without the panic nothing reaches the console and the guest
# just hangs until the harness's time-out.  The panic flushes the report.
# RTG_SETPRIO_CASES (default "lower raise") runs some cases only.
. /rtlab/lib.sh
. /rtlab/lib/proc.sh
. /rtlab/lib/rtg.sh

P=/usr/local/libexec/rtlab/rtgsetprio
CG=/sys/fs/cgroup/cpu
tap_plan 5

if ! cg_mount || [ ! -f $CG/cpu.rt_runtime_us ] || ! "$P" --help >/dev/null; then
	tap_fail "setup: cgroup v1 cpu controller with cpu.rt_runtime_us at $CG, and rtgsetprio"
	tap_done
fi
trap rtg_cleanup EXIT
d0=$(dmesg | wc -l)

# setprio_run NAME ARG...: rtgsetprio -t the group's tasks ARG..., its
# output in $RTLAB_OUT/NAME.txt and as diagnostics; 1 if it failed, or is
# still running after 60 s (then the state of its threads and of the
# scheduler is saved in NAME-stuck.txt and it is killed, not waited for: a
# task that never runs again cannot die); $pids gets its pid
setprio_run() {
	_n=$1; shift
	_f=${RTLAB_OUT:-/tmp}/$_n.txt
	"$P" -t $CG/pi50/tasks "$@" >"$_f" 2>&1 &
	_p=$! _t=0
	pids="$pids $_p"
	while ! gone "$_p" && [ $_t -lt 60 ]; do
		sleep 1
		_t=$((_t + 1))
	done
	if [ $_t -ge 60 ]; then
		rtg_stuck "$_p" >"${RTLAB_OUT:-/tmp}/$_n-stuck.txt" 2>&1
		kill -9 "$_p" 2>/dev/null
		sed "s/^/# $_n: /" "$_f"
		echo "# $_n: still running after $_t s (see $_n-stuck.txt)"
		return 1
	fi
	wait "$_p"
	_rc=$?
	sed "s/^/# $_n: /" "$_f"
	[ $_rc -eq 0 ] && grep -q '^rounds=3 stuck=0$' "$_f"
}
# setprio_point NAME WHAT ARG...: one TAP point for setprio_run NAME ARG...
setprio_point() {
	_n=$1 _w=$2; shift 2
	if setprio_run "$_n" "$@"; then
		tap_ok "$_n: $_w; both threads ran 50 ms of CPU within 10 s in each of 3 rounds"
	else
		tap_fail "$_n: $_w; a thread did not make progress (or the helper failed)"
	fi
}

pids=""
if ! rtg_mkgrp pi50 50000 100000; then
	tap_fail "setup: a 50 ms / 100 ms group ($werr)"
	tap_done
fi
cases=$(knob_words "${RTG_SETPRIO_CASES:-lower raise}")
for c in lower raise; do
	case " $cases " in
	*" $c "*) ;;
	*) tap_skip "$c" "not in RTG_SETPRIO_CASES"; continue ;;
	esac
	case $c in
	lower) setprio_point lower "holder FIFO 50 set to FIFO 10 while a FIFO 50 waiter blocks (group to root)" \
		-f 50 -T 10 -r 3 ;;
	raise) setprio_point raise "holder FIFO 10 boosted to 50, set to FIFO 50 (root to group)" \
		-f 10 -T 50 -r 3 ;;
	esac
done

# every helper gone: none of them is left stranded
# shellcheck disable=SC2086
kill -9 $pids 2>/dev/null
t=0
while [ $t -lt 50 ]; do
	left=""
	for p in $pids; do gone "$p" || left="$left $p"; done
	[ -z "$left" ] && break
	sleep 0.1
	t=$((t + 1))
done
if [ -z "$left" ]; then
	tap_ok "the helpers are gone after SIGKILL"
else
	tap_fail "still there 5 s after SIGKILL:$left"
fi

sleep 0.3
tap_check "the group is removed" rtg_rmgrp pi50
no_splats "$d0" "no splat in the kernel log" "a splat in the kernel log"
tap_done
