#!/bin/sh
# rtlab: kernel=rt-debug cpus=2 mem=448 timeout=120
# A SCHED_DEADLINE task that leaves the class while throttled runs again
# when it comes back, and within its new budget (patches 0038, 0039;
# schedfuzz finding 4, docs/results/schedfuzz.md).  X is a busy-looping
# shell.  Each case: X becomes a 200 us / 1 s deadline task, which
# throttles it within a tick; it is set to SCHED_OTHER while throttled
# and pinned to CPU 1; after WAIT it is unpinned and, still running on
# CPU 1, set back to a 1 ms / 10 ms deadline task from this shell on
# CPU 0.  In the next second it must run at least 20 ms (a fifth of its
# tenth of a CPU, TCG) and at most 300 ms (its budget with a tick's
# overrun a period is 190 ms), and then die on SIGKILL within 2 s.
#   1  WAIT 1.5 s: its replenishment timer fired while it was out of the
#      class.  6.12's dl_task_timer() returned on a task of another class
#      and left it marked throttled; back in the class, enqueue_task_dl()
#      left a throttled task to that timer, which had already run: X got
#      0 ns of CPU time in the next second, in state R (0038)
#   2  ... and it died on SIGKILL (it could not: it never ran again)
#   3  WAIT 0.1 s: back before the timer fires.  6.12 did not queue X
#      (throttled) but left it running as the current task, uncharged,
#      until the old timer fired up to 0.9 s later, then charged it all
#      at once: 586 ms of CPU time in that second (0039)
#   4  ... and died on SIGKILL (it could not for the 5.9 s the charge
#      throttled it)
# The busy loop, not a task that sleeps and wakes, so that the 200 us task
# is not throttled with the CPU's softirq work in hand (docs/results/
# schedfuzz.md: a second problem, not this test's).
. /rtlab/lib.sh
. /rtlab/lib/proc.sh

x=""
cleanup() { [ -n "$x" ] && kill -9 "$x" 2>/dev/null; }
trap cleanup EXIT
tap_plan 4

# leave_and_return WAIT NAME: the sequence above; two TAP points
leave_and_return() {
	sh -c 'while :; do :; done' >/dev/null 2>&1 &
	x=$!
	taskset -p 3 "$x" >/dev/null
	sleep 0.1
	if ! chrt -d -T 200000 -D 1000000000 -P 1000000000 -p 0 "$x"; then
		tap_fail "$2: X ($x) made a 200 us / 1 s deadline task"
		tap_fail "$2: SIGKILL: not tried"
		return
	fi
	sleep 0.05
	chrt -o -p 0 "$x"
	taskset -p 2 "$x" >/dev/null
	sleep "$1"
	taskset -p 3 "$x" >/dev/null
	back=$(chrt -d -T 1000000 -D 10000000 -P 10000000 -p 0 "$x" 2>&1) ||
		tap_diag "$2: back to SCHED_DEADLINE failed: $back"
	a=$(ns "$x")
	sleep 1
	b=$(ns "$x")
	st=$(awk '{ print $3 }' "/proc/$x/stat")
	tap_check "$2: back in the class, X ran $(((b - a) / 1000)) us of CPU time in 1 s (state $st; 20000 to 300000)" \
		near $((b - a)) 160000000 140000000
	kill -9 "$x"
	t=0
	while ! gone "$x" && [ $t -lt 20 ]; do
		sleep 0.1
		t=$((t + 1))
	done
	if gone "$x"; then
		wait "$x" 2>/dev/null
		tap_ok "$2: X died on SIGKILL"
	else
		tap_fail "$2: X did not die in 2 s after SIGKILL (state $(awk '{ print $3 }' "/proc/$x/stat"))"
	fi
	x=""
}

taskset -p 1 $$ >/dev/null	# this shell and its children on CPU 0
leave_and_return 1.5 "timer fired while out of the class"
leave_and_return 0.1 "back before the timer"
tap_done
