#!/bin/sh
# rtlab: kernel=rt-debug cpus=4 mem=512 timeout=300
# Priority inside a group across its servers (issue 24, bug 6).  A 10 ms /
# 100 ms group, L FIFO 10 pinned to CPU 1, H FIFO 50 allowed on CPUs 0-1;
# H starts on CPU 0 and is then allowed CPU 1 too.
#   1  aligned: H and L start together, so the servers of CPUs 0 and 1 run
#      their budgets at the same time (both are stopped for longer than a
#      period, so that their servers stop, and continued by one kill).  Without an inversion, H gets at least one server's
#      budget (0.10 -0.03), never less than L, and the group uses both
#      budgets (H + L = 0.20 +-0.04).  Two outcomes meet that: H and L in
#      parallel (0.10 each) when H sits on CPU 0, or H 0.20 and L nothing
#      when H sits on CPU 1 beside L at the replenishment (H runs there
#      first, then in CPU 0's budget): like the root group's push/pull, a
#      server does not move a running task away to let a pinned one run.
#   2  offset: H starts half a period after L, so CPU 1's server has its
#      budget while CPU 0's is throttled: H is pushed to CPU 1 and must
#      preempt L there at once (the wake-up preemption check after a push):
#      ideally H 0.20 of a CPU and L nothing (a quiet host gives 0.203 and
#      0.000).  Pass: H at least 0.12 and at least twice L.  The inversion
#      this test was written for gave H 0.098-0.108 and L 0.061-0.102;
#      a clean-clone make check on the loaded 2-core host (4 vCPUs) gave
#      the fixed series H 0.148-0.168 and L 0.053-0.055 in every window,
#      which the old bound (H above 0.15, L below 0.05) failed.
. /rtlab/lib.sh
. /rtlab/lib/rtg.sh

CG=/sys/fs/cgroup/cpu
G=$CG/rtg-p
SECS=${RTG_SECS:-5}
tap_plan 2
rtg_group rtg-p 100000 10000


# run GAP OKCMD: L and H made and stopped for longer than a period (their
# servers stop and their deadlines pass), L continued, GAP s later H (0:
# one kill continues both, and each server starts a new period at once,
# whatever the shell's delay; new parameters would not do: they keep a
# server's deadline, see dl_server_set_params()); then up to 3 windows of
# SECS are measured (under TCG a vCPU the host does not run delays
# replenishments); $hs, $ls, $mg are the last window's shares and H's
# migrations; OKCMD decides a window, and run returns its verdict
run() {
	l=$(fifo_hog $G/tasks 2) && chrt -f -p 10 $l
	kill -STOP $l
	h=$(fifo_hog $G/tasks 1) && taskset -p 3 $h >/dev/null
	kill -STOP $h
	hogs="$l $h"
	sleep 0.3
	if [ "$1" = 0 ]; then
		kill -CONT $l $h
	else
		kill -CONT $l
		sleep "$1"
		kill -CONT $h
	fi
	sleep 0.5
	_ok=1
	for i in 1 2 3; do
		t0=$(up); h0=$(ns $h); l0=$(ns $l); m0=$(mig $h)
		sleep "$SECS"
		t1=$(up); h1=$(ns $h); l1=$(ns $l); m1=$(mig $h)
		hs=$(cpu_share $h0 $h1 $t0 $t1); ls=$(cpu_share $l0 $l1 $t0 $t1); mg=$((m1 - m0))
		tap_diag "gap $1 s, window $i: H $hs, L $ls of one CPU, $mg migrations of H"
		if $2; then _ok=0; break; fi
	done
	kill -9 $l $h; wait $l $h 2>/dev/null
	hogs=""
	sleep 0.3
	return $_ok
}

aligned() {
	atleast "$hs" 0.07 && awk -v h="$hs" -v l="$ls" 'BEGIN { exit !(h >= l - 0.01) }' &&
		near "$(awk -v h="$hs" -v l="$ls" 'BEGIN { print h + l }')" 0.20 0.04
}
run 0 aligned
tap_check "aligned servers: H $hs (at least 0.07, not below L) and L $ls, both budgets used ($mg migrations of H)" aligned

offset() { atleast "$hs" 0.12 && awk -v h="$hs" -v l="$ls" 'BEGIN { exit !(h >= 2 * l) }'; }
# A gap near a whole period makes the offset case the aligned one (H
# stays on CPU 0 beside L: H and L 0.10 each, H hardly migrates; a CI run
# of 2026-12-07 gave H 0.101, L 0.102, 2 migrations), and the shell's gap
# under a loaded host is not what it asked for: three gaps are tried, and
# the case fails only if none of them gives H its push.
for gap in 0.05 0.03 0.07; do
	run $gap offset && break
done
tap_check "offset servers: H $hs (at least 0.12 and twice L) preempts L $ls after its push ($mg migrations of H)" offset
tap_done
