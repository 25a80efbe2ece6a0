#!/bin/sh
# rtlab: kernel=rt-debug cpus=2 mem=512 timeout=120
# A deadline task throttled with migration disabled while its CPU goes
# offline (patch 0027).  On PREEMPT_RT a task holding a spinlock_t runs
# with migration disabled and preemptible, so it can overrun its budget
# there.  The hotplug waits for it (sched_cpu_wait_empty(), rq->nr_pinned)
# with the runqueue already offline; its replenishment timer fires there,
# and 6.12's dl_task_timer() then moves it to another CPU: "WARNING ...
# dl_task_timer" (no active CPU in its pinned mask), "WARNING ...
# set_task_cpu" (is_migration_disabled()), and the pin count left behind
# on the dying CPU keeps the hotplug waiting.  Found as that WARN pair and
# hung tasks in 98-dl-demote-stress (console in
# build/findings/2026-12-06-98-dl-demote-stress-warn-console.log).
#
# kernel/modules/rtlab_dlpin makes the case on demand: a kernel thread,
# SCHED_DEADLINE 2 ms / 20 ms, spins 3 s of wall time with migration
# disabled on CPU 1; CPU 1 goes offline 0.5 s into the spin.  Points:
#   1  the offline completes, once the thread re-enables migration (it
#      must wait for the spin: at least 2 s of the 3)
#   2  the thread ended the pinned part on CPU 1, where it began
#   3  it was throttled and replenished while CPU 1 was inactive (the
#      case happened: its budget went up after a gap, seen from inside)
#   4  CPU 1 comes back online; the module unloads
#   5  every CPU's root domain reserves what it did before the module
#      (the thread's 10% gone with it, none lost or doubled by its
#      replenishments on the offline runqueue and its move off it)
#   6  no WARN or other splat in the kernel log
. /rtlab/lib.sh
. /rtlab/lib/proc.sh

KO=/rtlab/modules/rtlab_dlpin.ko	# kernel/modules/rtlab_dlpin
RES=/sys/kernel/debug/rtlab_dlpin/result
on=/sys/devices/system/cpu/cpu1/online
out=${RTLAB_OUT:-/tmp}
SPIN_MS=3000
# the offline may take the spin and then some; past this it is stuck
LIMIT=15
# the write back is skipped while an offline is stuck: it would wait on it
stuck=0
trap '[ $stuck = 1 ] || echo 1 >$on 2>/dev/null' EXIT
tap_plan 6
dm0=$(dmesg | wc -l)
taskset -p -c 0 $$ >/dev/null

# field NAME: NAME's value in the module's result line
field() { sed -n "s/.*\<$1=\([-0-9]*\).*/\1/p" "$RES"; }

bw0=$(rd_bw)
if ! insmod $KO cpu=1 spin_ms=$SPIN_MS; then
	tap_fail "insmod rtlab_dlpin"
	tap_done
fi
sleep 0.5
t0=$(up)
(echo 0 >$on) 2>"$out/offline.err" &
wp=$!
while ! gone $wp && awk -v t="$(up)" -v s="$t0" -v l=$LIMIT 'BEGIN { exit !(t - s < l) }'; do
	sleep 0.1
done
t1=$(up)
took=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
tap_diag "rtlab_dlpin: $(cat $RES)"
if ! gone $wp; then
	stuck=1
	tap_fail "CPU 1 offline under the pinned, throttled thread still waiting after $LIMIT s"
	sed 's/^/# /' /proc/$wp/stack 2>/dev/null
	tap_done
fi
wait $wp
rc=$?
if [ $rc -eq 0 ] && [ "$(cat $on)" = 0 ] && [ "$(field done)" = 1 ] &&
   atleast "$took" 2; then
	tap_ok "CPU 1 went offline in $took s, once the thread re-enabled migration"
else
	tap_fail "CPU 1 offline: exit $rc ($(cat "$out/offline.err")), online=$(cat $on), thread done=$(field done), after $took s"
fi
cs=$(field cpu_start) ce=$(field cpu_end)
if [ "$cs" = 1 ] && [ "$ce" = 1 ]; then
	tap_ok "the thread stayed on CPU 1 while migration was disabled"
else
	tap_fail "the thread began its pinned part on CPU $cs and ended it on CPU $ce"
fi
ri=$(field repl_inactive)
if [ "${ri:-0}" -ge 1 ]; then
	tap_ok "the thread was throttled and replenished $ri times while CPU 1 was inactive ($(field repl) in all)"
else
	tap_fail "the thread was never replenished while CPU 1 was inactive (repl $(field repl), repl_inactive '$ri'): the case did not happen"
fi
if wr $on 1 && rmmod rtlab_dlpin; then
	tap_ok "CPU 1 back online, rtlab_dlpin unloaded"
else
	tap_fail "CPU 1 online again or rmmod failed: $werr"
fi
# the thread's bandwidth leaves at its exit (or its 0-lag time, if later): wait up to 1 s
n=0
while [ "$(rd_bw)" != "$bw0" ] && [ $n -lt 20 ]; do sleep 0.05; n=$((n + 1)); done
bw1=$(rd_bw)
if [ -n "$bw0" ] && [ "$bw1" = "$bw0" ]; then
	tap_ok "root domains reserve what they did before the module: \"$bw0\""
else
	tap_fail "root domains: \"$bw0\" before the module, \"$bw1\" after it"
fi
no_splats "$dm0" "no splat" "splats in the kernel log"
tap_done
