#!/bin/sh
# rtlab: kernel=rt-debug cpus=4 mem=576 timeout=420
# RT group reservations against sched-domain rebuilds (issue 24, bug 2),
# through cgroup v2 (cpu and cpuset controllers; needs CONFIG_CPUSETS,
# which the rt-debug kernel has).  For RTG_RACE_SECS (default 30) of guest
# time, at once:
#   loop A  group A changes cpu.rt.max (10% / 20% of 100 ms); group C is
#           made, given 10%, takes A's FIFO hog, gives it back, is removed
#   loop B  a cpuset partition (CPU 3, then CPUs 2-3) is made a root
#           partition and a member again, its cpuset.cpus changes
#   loop C  CPU 2 goes offline and comes back
# Checks:
#   1  every loop kept going (no hang) and the hog survived
#   2  with A and the partition gone, every CPU's root domain reserves what
#      it did before (the fair servers' bandwidth; before the fix a rebuild
#      between a reservation and the servers' new bandwidth lost or doubled
#      a group's share)
#   3  a SCHED_DEADLINE task (30 ms / 100 ms) is still admitted
# A splat on the console fails the test (the lab's checker).
# It found one: CPU 2 going offline warned "Dying CPU not properly
# vacated!" (6 times in 77 offlines in 60 s) while a group server, left
# throttled when the group's last task moved away, was queued empty by its
# replenishment timer after sched_cpu_wait_empty(); fixed in 0007
# (rt_server_replenished() stops it): 0 in 80 and 84 offlines.
. /rtlab/lib.sh
. /rtlab/lib/proc.sh

R=/sys/fs/cgroup
A=$R/rtg-race-a
C=$R/rtg-race-c
P=$R/rtg-race-p
SECS=${RTG_RACE_SECS:-30}
hog=""
pids=""
cleanup() {
	for p in $pids $hog; do kill -9 "$p" 2>/dev/null; done
	echo 1 >/sys/devices/system/cpu/cpu2/online 2>/dev/null
	sleep 0.3
	for g in $C $A $P; do rmdir "$g" 2>/dev/null; done
}
trap cleanup EXIT
tap_plan 3

grep -q " $R cgroup2 " /proc/mounts || mount -t cgroup2 none $R
bw0=$(rd_bw)
if [ -z "$bw0" ] || ! wr $R/cgroup.subtree_control "+cpu +cpuset" || ! mkdir $A $P ||
   ! wr $A/cpu.rt.max "10000 100000" || ! wr $P/cpuset.cpus 3; then
	tap_fail "setup: cgroup v2 cpu + cpuset, a 10 ms / 100 ms group ($werr; bw \"$bw0\")"
	tap_done
fi
hog=$(fifo_hog $A/cgroup.procs) || { tap_fail "setup: a FIFO hog in group A"; tap_done; }
end=$(awk -v u="$(up)" -v s="$SECS" 'BEGIN { print u + s }')
running() { awk -v u="$(up)" -v e="$end" 'BEGIN { exit !(u < e) }'; }
out=/tmp/rtg-race
mkdir -p $out

# Each loop counts its rounds and its refused writes (EBUSY is a valid
# answer while a partition or a hotplug holds CPUs; what must not happen is
# a hang, a splat or bandwidth left over).
loop_a() {
	n=0 e=0
	while running; do
		wr $A/cpu.rt.max "20000 100000" || e=$((e + 1))
		if mkdir $C 2>/dev/null; then
			wr $C/cpu.rt.max "10000 100000" || e=$((e + 1))
			wr $C/cgroup.procs "$hog" || e=$((e + 1))
			wr $A/cgroup.procs "$hog" || e=$((e + 1))
			rmdir $C || e=$((e + 1))
		fi
		wr $A/cpu.rt.max "10000 100000" || e=$((e + 1))
		n=$((n + 1))
	done
	echo "$n $e" >$out/a
}
loop_b() {
	n=0 e=0
	while running; do
		wr $P/cpuset.cpus.partition root || e=$((e + 1))
		wr $P/cpuset.cpus 2-3 || e=$((e + 1))
		wr $P/cpuset.cpus.partition member || e=$((e + 1))
		wr $P/cpuset.cpus 3 || e=$((e + 1))
		n=$((n + 1))
	done
	wr $P/cpuset.cpus.partition member
	echo "$n $e" >$out/b
}
loop_c() {
	n=0 e=0
	while running; do
		wr /sys/devices/system/cpu/cpu2/online 0 || e=$((e + 1))
		sleep 0.1
		wr /sys/devices/system/cpu/cpu2/online 1 || e=$((e + 1))
		n=$((n + 1))
	done
	echo "$n $e" >$out/c
}
rm -f $out/a $out/b $out/c
loop_a & pids="$pids $!"
loop_b & pids="$pids $!"
loop_c & pids="$pids $!"

# --- 1 ---
# The loops end by themselves after SECS; wait up to 3 x SECS more
t=0
while [ ! -s $out/a ] || [ ! -s $out/b ] || [ ! -s $out/c ]; do
	sleep 1
	t=$((t + 1))
	[ $t -gt $((SECS * 4)) ] && break
done
pids=""
la=$(cat $out/a 2>/dev/null) lb=$(cat $out/b 2>/dev/null) lc=$(cat $out/c 2>/dev/null)
tap_diag "rounds and refused writes: loop A \"$la\", loop B \"$lb\", loop C \"$lc\""
ok=0
[ "${la%% *}" -gt 0 ] 2>/dev/null && [ "${lb%% *}" -gt 0 ] 2>/dev/null &&
	[ "${lc%% *}" -gt 0 ] 2>/dev/null && ! gone $hog && ok=1
tap_check "the three loops ran and ended (A \"$la\", B \"$lb\", C \"$lc\"), the hog is alive" [ $ok = 1 ]

# --- 2 ---
kill -9 $hog; wait $hog 2>/dev/null
hog=""
echo 1 >/sys/devices/system/cpu/cpu2/online 2>/dev/null
sleep 0.3
rmdir $C 2>/dev/null
wr $P/cpuset.cpus.partition member
rmdir $A $P
sleep 0.3
bw1=$(rd_bw)
tap_check "root domains reserve what they did before: \"$bw0\" -> \"$bw1\"" [ "$bw0" = "$bw1" ]

# --- 3 ---
dl_admit_point
tap_done
