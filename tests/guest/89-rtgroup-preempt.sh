#!/bin/sh
# rtlab: kernel=rt cpus=4 mem=512 timeout=240
# Priority inside a group after a push (issue 24, bug 6).  A 10 ms / 100 ms
# group, L FIFO 10 pinned to CPU 1, H FIFO 50 allowed on CPUs 0-1.  H uses
# the group's server on CPU 0, throttles there and is pushed to CPU 1, where
# it must preempt L at once (the push is a wake-up for CPU 1): H gets the
# budgets of both CPUs, about 20% of a CPU, and L what H leaves of CPU 1's
# budget, nearly nothing.  Before, H waited behind L on CPU 1: 10% each.
#   1  H gets 20% +-3 of one CPU
#   2  L gets at most 3%
. /rtlab/lib.sh

CG=/sys/fs/cgroup/cpu
G=$CG/rtg-p
SECS=${RTG_SECS:-5}
hogs=""
cleanup() {
	for p in $hogs; do kill -9 "$p" 2>/dev/null; done
	sleep 0.3
	rmdir $G 2>/dev/null
}
trap cleanup EXIT
tap_plan 2

if ! cg_mount || ! mkdir $G || ! wr $G/cpu.rt_period_us 100000 || ! wr $G/cpu.rt_runtime_us 10000; then
	tap_fail "setup: a 10 ms / 100 ms group ($werr)"
	tap_done
fi
l=$(fifo_hog $G/tasks 2) && chrt -f -p 10 $l
h=$(fifo_hog $G/tasks 3)
hogs="$l $h"
# up to 3 windows: under TCG a vCPU the host does not run delays the
# servers' replenishments; a window is measured again when it misses
for i in 1 2 3; do
	t0=$(up); h0=$(ns $h); l0=$(ns $l); m0=$(mig $h)
	sleep "$SECS"
	t1=$(up); h1=$(ns $h); l1=$(ns $l); m1=$(mig $h)
	hs=$(awk -v a=$h0 -v b=$h1 -v t0=$t0 -v t1=$t1 'BEGIN { printf "%.3f", (b - a) / ((t1 - t0) * 1e9) }')
	ls=$(awk -v a=$l0 -v b=$l1 -v t0=$t0 -v t1=$t1 'BEGIN { printf "%.3f", (b - a) / ((t1 - t0) * 1e9) }')
	tap_diag "window $i: H $hs, L $ls of one CPU, $((m1 - m0)) migrations of H"
	near "$hs" 0.20 0.03 && awk -v x=$ls 'BEGIN { exit !(x <= 0.03) }' && break
done
tap_check "H (FIFO 50, CPUs 0-1) gets 0.20 +-0.03 of one CPU: $hs" near "$hs" 0.20 0.03
tap_check "L (FIFO 10, CPU 1) gets at most 0.03 while H can use CPU 1: $ls" awk -v x=$ls 'BEGIN { exit !(x <= 0.03) }'
tap_done
