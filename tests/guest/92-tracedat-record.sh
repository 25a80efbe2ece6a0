#!/bin/sh
# rtlab: kernel=rt cpus=2 mem=512 timeout=300 accel=icount
# Records the trace.dat fixtures of tools/tracedat2ctf with Debian's
# trace-cmd into $RTLAB_OUT (copy them to
# tools/tracedat2ctf/tests/fixtures/guest on the host; `make -C
# tools/tracedat2ctf check` converts every *.dat there and compares
# babeltrace2's view of the CTF with `trace-cmd report`):
# sched/irq/timer/workqueue events with trace_marker writes, the function
# and function_graph tracers, a second instance, lost events from a tiny
# buffer, each trace clock, and file version 7 with zstd compression.
# Each recording must be readable by trace-cmd report (and convert with
# tracedat2ctf where babeltrace2's plugins are installed).
# The files are committed, so each is kept small (tens of KB): a short
# workload, few events, tight function filters.  Each recording is
# stopped by SIGINT after RECORD_SECS at the latest, so the 12 recordings
# stay well inside the header's timeout even under host load (the first
# version, hackbench -l 50, was killed at 300 s with a host load of ~7).
# accel=icount (single-threaded TCG): each recording enables and disables
# tracepoints in the hottest code (sched_switch in __schedule), and live
# code patching under multi-threaded TCG can leave a vCPU running a stale
# int3 (Oops: int3 in the CI run of 2026-12-04 and in 3 local boots;
# docs/HACKING.md, "Live kernel text patching").
. /rtlab/lib.sh

OUT=${RTLAB_OUT:-/tmp}/tracedat
mkdir -p "$OUT"
# trace-cmd is in the image (lab/image/host-binaries): its absence is a
# broken image, not a reason to skip
if ! command -v trace-cmd >/dev/null; then
	tap_fail "trace-cmd is in the image"
	tap_done
	exit 1
fi

# a short workload with user-space trace_marker writes
cat >/tmp/tracedat-load.sh <<'LOAD'
hackbench -g 1 -l 5 >/dev/null 2>&1
for i in 0 1 2 3 4; do
	echo "rtlab marker $i" >/sys/kernel/tracing/trace_marker
done
sleep 0.1
LOAD

# upper bound of one recording (TCG, loaded host): 12 x 15 s < 300 s
RECORD_SECS=15

# record NAME trace-cmd-record-options...: records NAME.dat and checks it
record() {
	name=$1
	shift
	rm -f "$OUT/$name.dat"
	# SIGINT makes trace-cmd stop and still write a complete file
	timeout -s INT "$RECORD_SECS" trace-cmd record -q -o "$OUT/$name.dat" \
		"$@" sh /tmp/tracedat-load.sh >"$OUT/$name.log" 2>&1
	n=$(trace-cmd report -N "$OUT/$name.dat" 2>/dev/null | grep -c ': ')
	if [ "${n:-0}" -gt 0 ]; then
		tap_ok "trace-cmd record $name: $n events ($(wc -c <"$OUT/$name.dat") bytes)"
	else
		tap_fail "trace-cmd record $name: no events"
		tail -5 "$OUT/$name.log" | while read -r l; do tap_diag "$l"; done
		return
	fi
	# converting needs babeltrace2's ctf and utils plugins, which the
	# image does not carry: the host converts the files (make check)
	if command -v tracedat2ctf >/dev/null &&
	   [ -d /usr/lib/x86_64-linux-gnu/babeltrace2/plugins ]; then
		rm -rf "/tmp/ctf-$name"
		tap_check "tracedat2ctf $name.dat" tracedat2ctf "$OUT/$name.dat" "/tmp/ctf-$name"
	fi
}

record events -e sched -e irq -e timer -e workqueue
# the function tracers record every call: a tight filter keeps them small
record function -p function -l hrtimer_start_range_ns -l schedule
# function_graph with -g alone would hook every traceable function
# (~45000 call sites patched live); -l keeps it to schedule and the
# functions it calls.
record function_graph -p function_graph -g schedule --max-graph-depth 2 \
	-l schedule -l rcu_note_context_switch -l 'pick_next_task*' \
	-l 'dequeue_task*' -l 'update_rq_clock*' -l 'finish_task_switch*' \
	-l psi_task_switch -l 'put_prev_task*'
record instance -e sched_switch -e irq -B second -e sched_wakeup -e timer
# 4 KiB per CPU under hackbench: the ring buffer overruns
record lost -b 4 -e sched -e irq -e timer
for clock in local global mono boot x86-tsc counter; do
	# every x86 kernel offers all six
	grep -qw "$clock" /sys/kernel/tracing/trace_clock || {
		tap_fail "clock $clock is offered by the kernel"
		continue
	}
	record "clock-$clock" -C "$clock" -e sched_switch -e sched_wakeup
done
record events-v7-zstd --file-version 7 --compression zstd -e sched -e irq
tap_done
