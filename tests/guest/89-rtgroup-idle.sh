#!/bin/sh
# rtlab: kernel=rt-debug cpus=2 mem=512 timeout=300
# A throttled RT group's tasks do not count in rq->nr_running (issue 24,
# design point 9; patch 0025): while a group's server waits for its
# replenishment, its CPU is idle for everything else.  Before 0025 the
# group's queued tasks stayed counted: a 10 ms / 100 ms group's FIFO hog
# left CPU 1 0.023 idle in /proc/stat (0.88 beside a SCHED_OTHER task of
# the same duty cycle) and the load average at 0.78 (0.06), measured
# 2026-12-05 with bench/guest/rtgroup-load.sh.
#
# Method: a 10 ms / 100 ms group with one SCHED_FIFO 50 busy loop pinned to
# CPU 1 (rtgload), nothing else busy; over a window of SECS seconds:
#  1 the hog still gets its budget: 0.07-0.14 of CPU 1 (its server is
#    picked again after each replenishment, though the CPU idled)
#  2 CPU 1's idle time in /proc/stat is at least 0.5 of the window: a
#    floor only, since on rt-debug it was 0.54-0.70 before 0025 as well
#    (0.71-0.80 after); on rt the bench rtgroup-load tells them apart
#    (0.023 before, 0.888 after)
#  3 the run-queue count shows no task but the sampler in at least half
#    of the samples while the hog runs: the throttled hog is not counted
#    (it runs a tenth of the time; before 0025 it counted in every
#    sample: 0 of 774).  The count is /proc/loadavg's running tasks
#    (nr_running(), summed over the online CPUs) less the sampling shell
#    on CPU 0, read with shell built-ins only for SECS - 1 seconds: some
#    hundreds to thousands of samples.  Anything else runnable on either
#    CPU makes a sample non-zero, so noise can only fail the point: while
#    the server runs the count was 3 (the hog and two more), and
#    wake-ups around each replenishment add more; 0.63-0.86 of samples
#    were 0 on rt-debug, so the floor is a half, not the nine tenths the
#    duty cycle alone would give.  The same count without the hog is
#    printed first, for comparison.  (The scheduler's debugfs file names
#    the CPU but took 0.2 s a read on CI: 15 samples, too few.)
#  4 CPU 1 goes offline while the hog's server is throttled (the hotplug
#    waits for the group's tasks to leave: they count again once the CPU
#    is inactive) and comes back; the hog is still alive
#  5 no splat in the kernel log
. /rtlab/lib.sh
. /rtlab/lib/rtg.sh

CG=/sys/fs/cgroup/cpu
L=/usr/local/libexec/rtlab/rtgload
SECS=${RTG_SECS:-4}
out=${RTLAB_OUT:-/tmp}
hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
tap_plan 5
dm0=$(dmesg | wc -l)

rtg_group rtgidle 100000 10000

cpu1_idle() { awk '$1 == "cpu1" { print $5 + $6 }' /proc/stat; }
# samples S: for S seconds, as many reads of the running-task count as
# the shell manages; prints "ZERO N": N samples, ZERO of them with no
# task running besides the shell ("none" if /proc/loadavg was
# unreadable).  No fork per sample: read, test and arithmetic are
# built-ins, so the rate is thousands a second.  Uptime in centiseconds:
# its integer part is never 0 here, so no leading zero turns octal.
samples() {
	read -r _u _ </proc/uptime
	_end=$((${_u%.*}${_u#*.} + $1 * 100))
	_n=0 _zero=0
	while read -r _u _ </proc/uptime && [ $((${_u%.*}${_u#*.})) -lt $_end ]; do
		read -r _ _ _ _r _ </proc/loadavg
		[ -n "$_r" ] || { echo none; return; }
		[ "${_r%/*}" -le 1 ] && _zero=$((_zero + 1))
		_n=$((_n + 1))
	done
	echo "$_zero $_n"
}

taskset -p -c 0 $$ >/dev/null
set -- $(samples 1)
tap_diag "without the hog: no task but the sampler in ${1:-?} of ${2:-?} samples"
"$L" -m -d $((SECS + 2)) -w 0 --main-cpu 0 \
	-t "name=g,cg=$CG/rtgidle,policy=fifo,prio=50,cpu=1,kind=hog" >"$out/idle-hog.txt" 2>&1 &
lp=$!
sleep 1
i0=$(cpu1_idle) t0=$(up)
set -- $(samples $((SECS - 1)))
zero=$1 nsamp=${2:-0}
sleep 0.5
i1=$(cpu1_idle) t1=$(up)
wait $lp
rc=$?
sed 's/^/# rtgload: /' "$out/idle-hog.txt"
share=$(awk '$1 == "task" { for (i = 2; i <= NF; i++) if ($i ~ /^share=/) print substr($i, 7) / 100 }' "$out/idle-hog.txt")
idle=$(awk -v a="$i0" -v b="$i1" -v t0="$t0" -v t1="$t1" -v hz="$hz" 'BEGIN { printf "%.3f", (b - a) / ((t1 - t0) * hz) }')
if [ $rc -eq 0 ] && [ -n "$share" ] &&
   awk -v s="$share" 'BEGIN { exit !(s >= 0.07 && s <= 0.14) }'; then
	tap_ok "the group's hog got $share of CPU 1 (budget 0.10)"
else
	tap_fail "the group's hog got '$share' of CPU 1, not 0.07-0.14 (rtgload exit $rc)"
fi
if awk -v i="$idle" 'BEGIN { exit !(i >= 0.5) }'; then
	tap_ok "CPU 1 idle $idle of the window in /proc/stat beside the throttled hog"
else
	tap_fail "CPU 1 idle only $idle of the window in /proc/stat: the throttled hog still counts"
fi
if [ "$zero" = none ] || [ "$nsamp" -lt 100 ]; then
	tap_fail "run-queue count: /proc/loadavg unreadable, or under 100 samples ($nsamp)"
elif [ $((zero * 2)) -ge "$nsamp" ]; then
	tap_ok "no task counted running on CPU 1 in $zero of $nsamp samples beside the throttled hog"
else
	tap_fail "no task counted running on CPU 1 in only $zero of $nsamp samples (under half): the throttled hog counts as running"
fi

# 4: offline CPU 1 under a throttled server
"$L" -m -d 8 -w 0 --main-cpu 0 \
	-t "name=g,cg=$CG/rtgidle,policy=fifo,prio=50,cpu=1,kind=hog" >"$out/idle-hotplug.txt" 2>&1 &
lp=$!
sleep 1.5
on=/sys/devices/system/cpu/cpu1/online
s0=$(up)
if wr $on 0; then
	off=ok
	s1=$(up)
	sleep 0.5
	wr $on 1 || off="online again failed ($werr)"
else
	off="offline failed ($werr)"
	s1=$(up)
fi
if [ "$off" = ok ] && kill -0 $lp 2>/dev/null; then
	tap_ok "CPU 1 offline under a throttled server took $(awk -v a="$s0" -v b="$s1" 'BEGIN { printf "%.2f", b - a }') s, back online, the hog alive"
else
	tap_fail "CPU 1 offline under a throttled server: ${off}; hog alive: $(kill -0 $lp 2>/dev/null && echo yes || echo no)"
fi
wait $lp
no_splats "$dm0" "no splat" "splats in the kernel log"
tap_tcg_caveat "shares"
tap_done
