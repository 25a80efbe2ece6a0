#!/bin/sh
# rtlab: kernel=rt-debug cpus=2 mem=448 timeout=240
# A rebuild of the root domains inside the 0-lag window of a task that left
# SCHED_DEADLINE or exited leaves their deadline bandwidth as it was (patch
# 0026).  Such a task keeps its bandwidth reserved until its 0-lag time; a
# rebuild in between computes total_bw again without it, and 6.12's inactive
# timer then took it off a second time (total_bw one task short, admission
# control accepting more than the CPUs run, until the next rebuild).
# tests/progs/dlleave makes the window: a thread L, deadline 100/2000 ms,
# runs 60 ms of its runtime (0-lag time 1.2 s after its start; not closer to
# the budget: under TCG the kernel charges more than the thread's CPU clock
# shows, and a throttled L would still be exiting during the rebuild), then
#   leave   is set SCHED_OTHER while asleep
#   exit    exits
#   rejoin  is set SCHED_OTHER, then SCHED_DEADLINE again after the rebuild
#           (6.12 gave back the old reservation a second time there)
# and the rebuild runs before the 0-lag time: a CPU hotplug cycle of the
# last CPU, or a cpuset partition made and unmade on it (cgroup v2).
# Points: for each rebuild and each way of leaving, every root domain's
# total_bw back to its fair servers' (dlleave waits until L's timers fired; it
# fails the point if the rebuild ended less than 100 ms before the 0-lag
# time, after a second try); a 30/100 ms task admitted after them; the
# fair servers alone reserved with dlleave gone; no splat.
. /rtlab/lib.sh
. /rtlab/lib/proc.sh

X=${DLLEAVE:-/usr/local/libexec/rtlab/dlleave}
out=${RTLAB_OUT:-/tmp}
base=$(dmesg | wc -l)
online=$(cat /sys/devices/system/cpu/online)
last=${online##*[-,]}
R="" P="" mounted="" cpuset_on=""
trap cg2_cell_cleanup EXIT
tap_plan 9

tap_diag "kernel $(uname -r) ($RTLAB_KERNEL), accel ${RTLAB_ACCEL:-?}, CPUs $online"
if [ "$last" = 0 ] || ! "$X" --help >/dev/null; then
	tap_fail "setup: two CPUs and the dlleave helper"
	tap_done
fi

# cgroup v2 with the cpuset controller, a member cgroup on the last CPU
if ! cg2_cell dl-rebuild "$last"; then
	tap_fail "setup: a cpuset cgroup on CPU $last under ${R:-?} ($werr)"
	tap_done
fi

cpu=/sys/devices/system/cpu/cpu$last/online
hotplug="echo 0 >$cpu && echo 1 >$cpu"
partition="echo root >$P/cpuset.cpus.partition && test \"\$(cat $P/cpuset.cpus.partition)\" = root && echo member >$P/cpuset.cpus.partition"

# what every CPU's root domain reserves with no deadline task: its CPUs'
# fair servers (one root domain of all CPUs; a rebuild recomputes it)
fs=$(fair_servers_bw) want=""
for c in $(seq 0 "$last"); do want="$want$c:$fs "; done
# leave_point WHAT CMD MODE: one point, MODE of dlleave around CMD: with L
# and its timers gone, every root domain reserves the fair servers only
# (not "as before": a loss in an earlier point would hide a later one, as
# the rebuild recomputes total_bw before the late subtraction)
leave_point() {
	bw0=$(rd_bw) try=1
	"$X" -u 60000 -x "$2" "$3" >"$out/dlleave.txt" 2>&1
	rc=$?
	if [ $rc = 1 ]; then	# the rebuild was too slow (a host stall): once more
		sed 's/^/# /' "$out/dlleave.txt"
		bw0=$(rd_bw) try=2
		"$X" -u 60000 -x "$2" "$3" >"$out/dlleave.txt" 2>&1
		rc=$?
	fi
	bw1=$(rd_bw)
	sed 's/^/# /' "$out/dlleave.txt"
	if [ $rc != 0 ]; then
		tap_fail "$3 around $1: dlleave did not exercise the window (status $rc, try $try)"
	else
		tap_check "$3 around $1 inside L's 0-lag window: root domains \"$bw0\" -> \"$bw1\", the fair servers' \"$want\" due" \
			[ "$bw1" = "$want" ]
	fi
}
for mode in leave exit rejoin; do
	leave_point "a CPU $last hotplug cycle" "$hotplug" $mode
done
for mode in leave exit rejoin; do
	leave_point "a partition made and unmade on CPU $last" "$partition" $mode
done

dl_admit_point
rmdir $P && P=""
sleep 0.3
fair_servers_only_point "after the rebuilds, dlleave gone"
no_splats "$base" "no splat in the kernel log (BUG, WARNING, lockdep, invalid wait context, sleeping in atomic)" \
	"a splat in the kernel log"
tap_done
