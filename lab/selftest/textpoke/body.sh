# lab/selftest/textpoke/body.sh: sourced by the 2cpu and 4cpu scripts
# beside it (their headers name the machine).  The emulator check of issue
# 38: live patching of kernel text while every vCPU is busy.  Enabling or
# disabling a tracepoint rewrites its static-key jump in place
# (text_poke_bp(): an int3 first, then the new bytes, with IPIs between);
# an emulator that does not keep the vCPUs' translated code coherent with
# such writes lets a vCPU run an int3 that was already replaced, and the
# kernel reports "Oops: int3" at the patched site.  QEMU 7.2's
# multi-threaded TCG did that within seconds (docs/results/lab.md).
#
# TOGGLES (default 1500) enables and disables of sched_switch and
# sched_wakeup each, or as many as TOGGLE_SECS (default 30) allow (the rate
# falls with the host's load: 118 in 60 s on a loaded 2-core host),
# hackbench running on every CPU meanwhile, then GRAPHS (default 20)
# function_graph recordings of 0.1 s each, or as many as GRAPH_SECS
# (default 30) allow (every traced call site of the kernel patched on and
# off: tens of thousands of sites, seconds each under TCG).  A point per phase;
# the harness fails the boot on any splat (labcheck).
. /rtlab/lib.sh
T=/sys/kernel/tracing
N=${TOGGLES:-1500}
S=${TOGGLE_SECS:-30}
GS=${GRAPH_SECS:-30}
G=${GRAPHS:-20}
grep -q " $T tracefs" /proc/mounts || mount -t tracefs nodev $T

# load: hackbench for as long as the toggling runs, restarted if it ends
hackbench_loop() { while :; do hackbench -g "$(nproc)" -l 2000 >/dev/null 2>&1; done; }
hackbench_loop &
load=$!
sleep 0.5

t0=$(date +%s)
i=0
while [ $i -lt "$N" ] && [ $(($(date +%s) - t0)) -lt "$S" ]; do
	echo 1 >$T/events/sched/sched_switch/enable
	echo 1 >$T/events/sched/sched_wakeup/enable
	echo 0 >$T/events/sched/sched_switch/enable
	echo 0 >$T/events/sched/sched_wakeup/enable
	i=$((i + 1))
done
t1=$(date +%s)
tap_ok "sched_switch and sched_wakeup enabled and disabled $i times each under hackbench ($((t1 - t0)) s)"

# the same under function_graph: every traced function's call site is
# patched to the tracer and back (GRAPHS=0: not at all; one round takes
# a minute or more under TCG with hackbench beside it)
if [ "$G" = 0 ]; then
	kill $load 2>/dev/null
	pkill hackbench 2>/dev/null
	wait 2>/dev/null
	tap_check "every CPU still online" sh -c "[ \"\$(cat /sys/devices/system/cpu/online)\" = 0-$(($(nproc) - 1)) ]"
	tap_done
fi
i=0
t0=$(date +%s)
while [ $i -lt "$G" ] && [ $(($(date +%s) - t0)) -lt "$GS" ]; do
	echo function_graph >$T/current_tracer
	sleep 0.1
	echo nop >$T/current_tracer
	i=$((i + 1))
done
tap_check "function_graph started and stopped $i times under hackbench ($(($(date +%s) - t0)) s)" [ $i -gt 0 ]
kill $load 2>/dev/null
pkill hackbench 2>/dev/null
wait 2>/dev/null

# the patching was real: a recording has calls in it (read while the
# tracer runs: a change of tracer empties the buffer)
echo function_graph >$T/current_tracer
sleep 0.2
tap_check "function_graph records calls" sh -c "head -n 200 $T/trace | grep -q '[|]'"
echo nop >$T/current_tracer
tap_check "every CPU still online" sh -c "[ \"\$(cat /sys/devices/system/cpu/online)\" = 0-$(($(nproc) - 1)) ]"
tap_done
