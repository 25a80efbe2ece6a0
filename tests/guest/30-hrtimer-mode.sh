#!/bin/sh
# rtlab: kernel=rt-debug cpus=2 mem=512 timeout=600
#
# Seed 001 (issue 6): on PREEMPT_RT, an hrtimer sleeper (clock_nanosleep)
# expires in hard interrupt context only if the sleeping task has a real-time
# policy (SCHED_FIFO, SCHED_RR, SCHED_DEADLINE); any other sleeper's timer
# expires in the timer softirq, so that a storm of ordinary sleepers is never
# woken from the hard interrupt (6.12: __hrtimer_init_sleeper(),
# rt_or_dl_task_policy(current)).
#
# Witnesses, from ftrace (tracefs):
#  - timer:hrtimer_start shows the mode the sleeper armed: "ABS|HARD" for
#    RT/DL sleepers, without HARD for the others (6.12 prints "ABS": the
#    soft base is chosen by __hrtimer_init() when HARD is absent).
#    timer:hrtimer_init is no witness in 6.12: hrtimer_init_sleeper_on_stack()
#    does not emit it with CONFIG_DEBUG_OBJECTS_TIMERS, and without that
#    option it is emitted before the HARD bit is added.
#  - timer:hrtimer_expire_entry of the same hrtimer shows where it expired:
#    the hardirq/softirq column of the irq-info flags ('h' hard interrupt,
#    's' softirq) and the task that ran it.
. /rtlab/lib.sh

T=/sys/kernel/tracing
OUT=${RTLAB_OUT:-/tmp}
work=$(mktemp -d /tmp/hrtimer-mode.XXXXXX)
storm_n=1000	# the seed's storm size
storm_cpu=1

[ -d "$T/events" ] || mount -t tracefs nodev "$T" 2>/dev/null

saved_bufsize=$(cat "$T/buffer_size_kb" 2>/dev/null)
saved_cmdlines=$(cat "$T/saved_cmdlines_size" 2>/dev/null)

cleanup() {
	echo 0 >"$T/tracing_on" 2>/dev/null
	echo 0 >"$T/events/enable" 2>/dev/null
	echo >"$T/trace" 2>/dev/null
	[ -n "$saved_bufsize" ] && echo "$saved_bufsize" >"$T/buffer_size_kb" 2>/dev/null
	[ -n "$saved_cmdlines" ] && echo "$saved_cmdlines" >"$T/saved_cmdlines_size" 2>/dev/null
	echo 1 >"$T/options/hash-ptr" 2>/dev/null
	echo 1 >"$T/tracing_on" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

# Start a clean trace of the timer events this test reads.
trace_start() {
	echo 0 >"$T/tracing_on"
	echo nop >"$T/current_tracer"
	echo 0 >"$T/events/enable"
	echo 16384 >"$T/buffer_size_kb"		# per CPU
	echo 8192 >"$T/saved_cmdlines_size"	# names of a thousand sleepers
	echo 1 >"$T/options/irq-info"
	echo 0 >"$T/options/record-tgid"
	# real addresses: right after boot the hash key may not be ready yet
	# and every %p prints "(____ptrval____)"
	echo 0 >"$T/options/hash-ptr"
	echo >"$T/trace"
	for e in hrtimer_init hrtimer_start hrtimer_expire_entry; do
		echo 1 >"$T/events/timer/$e/enable" || return 1
	done
	echo 1 >"$T/tracing_on"
}

# Stop tracing; hrtimer_trace reads the buffer (and checks it lost nothing).
trace_stop() {
	echo 0 >"$T/tracing_on"
}

# The trace analysis (tests/progs/hrtimer_trace.c): the modes wakestorm/*
# threads armed their sleeper (function hrtimer_wakeup) timers with, and
# for each of those timers the context it expired in (by hrtimer address:
# a start arms it, the next expire_entry of the same address is its
# expiry), read from the binary buffer; it asserts and prints TAP.
HT=/usr/local/libexec/rtlab/hrtimer_trace

# run_ws NAME ARGS...: run wakestorm (under $WRAP if set), JSON to $work
run_ws() {
	name=$1
	shift
	${WRAP:-} wakestorm -q -j "$work/$name.json" "$@" >"$work/$name.out" 2>&1
}

# ---- the machine ----
case "$(uname -v)" in
*PREEMPT_RT*) tap_ok "kernel is PREEMPT_RT ($(uname -r))" ;;
*) tap_fail "kernel is PREEMPT_RT (uname -v: $(uname -v))" ;;
esac
fmt=$T/events/timer/hrtimer_start/format
if [ -r "$fmt" ] && grep -q 'field:enum hrtimer_mode mode' "$fmt" &&
   grep -q '"ABS|HARD"' "$fmt"; then
	tap_ok "timer:hrtimer_start records the mode and decodes ABS|HARD"
else
	tap_fail "timer:hrtimer_start records the mode and decodes ABS|HARD"
fi

# ---- 1. the mode each policy arms (4 threads, 5 expiries each) ----
mode_case() {
	label=$1 want=$2
	shift 2
	trace_start || { tap_fail "$label: tracing set up"; return; }
	run_ws "mode-$label" -n 4 -t 10ms -i 5 "$@"
	rc=$?
	trace_stop
	tap_sub "$HT" mode --want "$want" --label "$label" --ws-rc "$rc" \
		--ws-json "$work/mode-$label.json" ||
		sed 's/^/# /' "$work/mode-$label.out"
	echo 0 >"$T/events/enable"
}
mode_case "SCHED_OTHER" soft -p other
mode_case "SCHED_FIFO 1" hard -p fifo -P 1
mode_case "SCHED_RR 1" hard -p rr -P 1
mode_case "SCHED_DEADLINE" hard -p deadline --dl-runtime 200us
# The policy of the sleeping thread decides, not the one of its process:
# SCHED_OTHER sleepers started by a SCHED_FIFO main thread stay soft.
WRAP="chrt -f 10"
mode_case "SCHED_OTHER under a SCHED_FIFO parent" soft -p other
WRAP=
# ---- 2. storms: where do a thousand sleeper timers on one CPU expire? ----
# storm_case LABEL EXPECT ARGS...: EXPECT is softirq or hardirq
storm_case() {
	label=$1 expect=$2
	shift 2
	iters=3
	trace_start || { tap_fail "$label storm: tracing set up"; return; }
	# generous times, so that every thread is asleep at every expiry even
	# on a debug kernel under TCG (a late thread's timer expires alone)
	run_ws "storm-$label" -n $storm_n -a $storm_cpu -t 4s -i $iters \
		--start-delay 3s "$@"
	rc=$?
	trace_stop
	f=$(echo "storm-$label" | tr ' ' '-')
	cp "$work/storm-$label.json" "$OUT/$f.json" 2>/dev/null
	tap_sub "$HT" storm --expect "$expect" --label "$label" --ws-rc "$rc" \
		--ws-json "$work/storm-$label.json" --threads $storm_n \
		--iters $iters --cpu $storm_cpu --summary "$OUT/$f.sum.json" ||
		sed 's/^/# /' "$work/storm-$label.out"
	echo 0 >"$T/events/enable"
}
storm_case "SCHED_OTHER" softirq -p other
# The contrast that shows the witness works: RT sleepers keep hard expiry,
# which is what every sleeper had before the fix.
storm_case "SCHED_FIFO 1" hardirq -p fifo -P 1

tap_done
