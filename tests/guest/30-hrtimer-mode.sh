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

# Stop tracing and save the trace to $1; fails if events were lost.
trace_stop() {
	echo 0 >"$T/tracing_on"
	cat "$T/trace" >"$1"
	lost=0
	for s in "$T"/per_cpu/cpu*/stats; do
		o=$(awk '/^overrun:/ { print $2 }' "$s")
		[ "${o:-0}" = 0 ] || lost=$((lost + o))
	done
	echo 0 >"$T/events/enable"
	[ "$lost" = 0 ] || { tap_diag "trace buffer overran: $lost events lost"; return 1; }
}

# Summarise a trace: the modes that wakestorm/* threads armed their sleeper
# (function hrtimer_wakeup) timers with, and for each of those timers the
# context it expired in (by hrtimer address: a start arms it, the next
# expire_entry of the same address is its expiry).
# Output lines: "start MODE COUNT", "init MODE COUNT", "expired COUNT",
# "ctx h|H|s|. COUNT", "by TASK COUNT".
summarise() {
	awk '
	{
		ci = 0
		for (i = 2; i <= NF; i++)
			if ($i ~ /^\[[0-9]+\]$/) { ci = i; break }
		if (!ci || $1 ~ /^#/)
			next
		task = $1
		for (i = 2; i < ci; i++)
			task = task " " $i
		sub(/-[0-9]+$/, "", task)
		flags = $(ci + 1)
		ev = $(ci + 3)
		delete kv
		for (i = ci + 4; i <= NF; i++) {
			eq = index($i, "=")
			if (eq)
				kv[substr($i, 1, eq - 1)] = substr($i, eq + 1)
		}
		if (ev == "hrtimer_init:" && task ~ /^wakestorm\//)
			init[kv["mode"]]++
		if (kv["function"] != "hrtimer_wakeup")
			next
		if (ev == "hrtimer_start:" && task ~ /^wakestorm\//) {
			start[kv["mode"]]++
			ours[kv["hrtimer"]] = 1
		} else if (ev == "hrtimer_expire_entry:" && (kv["hrtimer"] in ours)) {
			delete ours[kv["hrtimer"]]
			expired++
			ctx[substr(flags, 3, 1)]++
			by[task]++
			cpu[substr($ci, 2, length($ci) - 2) + 0]++
		}
	}
	END {
		for (m in start) print "start", m, start[m]
		for (m in init) print "init", m, init[m]
		print "expired", expired + 0
		for (c in ctx) print "ctx", c, ctx[c]
		for (t in by) print "by", t, by[t]
		for (c in cpu) print "cpu", c, cpu[c]
	}' "$1"
}

# count SUMMARY KIND [KEY]: a number from summarise's output (0 if absent)
count() {
	if [ $# -eq 3 ]; then
		awk -v k="$2" -v m="$3" '$1 == k && $2 == m { s += $3 } END { print s + 0 }' "$1"
	else
		awk -v k="$2" '$1 == k { s += $NF } END { print s + 0 }' "$1"
	fi
}

# starts_with_hard SUMMARY: how many starts had HARD in their mode
hard_starts() { awk '$1 == "start" && $2 ~ /HARD/ { s += $3 } END { print s + 0 }' "$1"; }

# wakeups JSON: wake-ups wakestorm reported (its JSON, without jq)
wakeups() { sed -n 's/^[[:space:]]*"wakeups":[[:space:]]*\([0-9]*\).*/\1/p' "$1"; }

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
	if ! trace_stop "$work/mode-$label.trace"; then
		tap_fail "$label: sleepers armed $want timers (trace incomplete)"
		return
	fi
	summarise "$work/mode-$label.trace" >"$work/mode-$label.sum"
	n=$(wakeups "$work/mode-$label.json")
	starts=$(count "$work/mode-$label.sum" start)
	hard=$(hard_starts "$work/mode-$label.sum")
	tap_diag "$label: wakestorm exit $rc, $n wake-ups; armed: $(awk '$1 == "start" { printf "%s x%s ", $2, $3 }' "$work/mode-$label.sum"); hrtimer_init events from the sleepers: $(count "$work/mode-$label.sum" init)"
	if [ "$rc" != 0 ] || [ -z "$n" ] || [ "$n" -lt 1 ] || [ "$starts" -lt "$n" ]; then
		tap_fail "$label: sleepers armed $want timers (exit $rc, $n wake-ups, $starts traced starts)"
		sed 's/^/# /' "$work/mode-$label.out"
		return
	fi
	if [ "$want" = HARD ]; then
		tap_check "$label: all $starts sleeper timers armed ABS|HARD" [ "$hard" = "$starts" ]
	else
		tap_check "$label: all $starts sleeper timers armed without HARD" [ "$hard" = 0 ]
	fi
}
mode_case "SCHED_OTHER" SOFT -p other
mode_case "SCHED_FIFO 1" HARD -p fifo -P 1
mode_case "SCHED_RR 1" HARD -p rr -P 1
mode_case "SCHED_DEADLINE" HARD -p deadline --dl-runtime 200us
# The policy of the sleeping thread decides, not the one of its process:
# SCHED_OTHER sleepers started by a SCHED_FIFO main thread stay soft.
WRAP="chrt -f 10"
mode_case "SCHED_OTHER under a SCHED_FIFO parent" SOFT -p other
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
	trace_stop "$work/storm-$label.trace"
	complete=$?
	summarise "$work/storm-$label.trace" >"$work/storm-$label.sum"
	n=$(wakeups "$work/storm-$label.json")
	expired=$(count "$work/storm-$label.sum" expired)
	hard=$(( $(count "$work/storm-$label.sum" ctx h) + $(count "$work/storm-$label.sum" ctx H) ))
	soft=$(count "$work/storm-$label.sum" ctx s)
	f=$(echo "storm-$label" | tr ' ' '-')
	cp "$work/storm-$label.json" "$OUT/$f.json" 2>/dev/null
	cp "$work/storm-$label.sum" "$OUT/$f.sum" 2>/dev/null
	tap_diag "$label storm: exit $rc, ${n:-no} wake-ups, $expired traced expiries: $hard in hard irq, $soft in softirq; expired by (top 6): $(awk '$1 == "by" { print $3, $2 }' "$work/storm-$label.sum" | sort -rn | head -n 6 | awk '{ printf "%s x%s ", $2, $1 }')"
	missed=$(sed -n 's/^[[:space:]]*"missed":[[:space:]]*\([0-9]*\).*/\1/p' "$work/storm-$label.json")
	tap_diag "$label storm: per expiry spread median $(sed -n '/"spread_ns"/,/}/s/^[[:space:]]*"median":[[:space:]]*\([0-9]*\).*/\1/p' "$work/storm-$label.json") ns; missed $missed"
	if [ "$rc" = 0 ] && [ "${n:-0}" = $((storm_n * iters)) ]; then
		tap_ok "$label storm: $storm_n threads on CPU $storm_cpu woke $iters times each"
	else
		tap_fail "$label storm: $storm_n threads on CPU $storm_cpu woke $iters times each (exit $rc, ${n:-no} wake-ups)"
		sed 's/^/# /' "$work/storm-$label.out"
	fi
	# A storm only when every thread was asleep at every expiry.
	tap_check "$label storm: all $storm_n threads were asleep at each expiry (a real storm)" [ "${missed:-1}" = 0 ]
	oncpu=$(count "$work/storm-$label.sum" cpu "$storm_cpu")
	if [ "$complete" = 0 ] && [ "${n:-0}" -gt 0 ] && [ "$expired" -ge "$n" ] && [ "$oncpu" = "$expired" ]; then
		tap_ok "$label storm: every wake-up has a traced expiry of its timer, on CPU $storm_cpu"
	else
		tap_fail "$label storm: every wake-up has a traced expiry of its timer, on CPU $storm_cpu ($expired traced, $oncpu on CPU $storm_cpu, ${n:-no} wake-ups, trace complete: $complete)"
		return
	fi
	if [ "$expect" = softirq ]; then
		tap_check "$label storm: no sleeper timer expired in hard interrupt context" [ "$hard" = 0 ]
		tap_check "$label storm: all $expired expired in softirq context" [ "$soft" = "$expired" ]
		# 6.12 runs the hrtimer softirq raised by the hard interrupt in
		# ksoftirqd/N; later kernels have a dedicated ktimers/N thread
		bythread=$(awk -v c="$storm_cpu" '$1 == "by" && ($2 == "ksoftirqd/" c || $2 == "ktimers/" c) { s += $3 } END { print s + 0 }' "$work/storm-$label.sum")
		tap_check "$label storm: expired by CPU $storm_cpu's softirq thread (ksoftirqd/$storm_cpu or ktimers/$storm_cpu): $bythread of $expired" [ "$bythread" = "$expired" ]
	else
		tap_check "$label storm: all $expired expired in hard interrupt context" [ "$hard" = "$expired" ]
	fi
}
storm_case "SCHED_OTHER" softirq -p other
# The contrast that shows the witness works: RT sleepers keep hard expiry,
# which is what every sleeper had before the fix.
storm_case "SCHED_FIFO 1" hardirq -p fifo -P 1

tap_done
