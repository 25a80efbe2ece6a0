#!/bin/sh
# rtlab: kernel=rt-debug cpus=4 mem=640 timeout=240
# RT group reservations through the cgroup v2 cpu controller (patch 0010):
# cpu.rt.max ("RUNTIME PERIOD" in us, like cpu.max) and the read-only
# cpu.rt.max.effective (what each of the group's per-CPU servers gets: the
# reservation minus what the children reserved).  A boot of its own (mem=640):
# the v1 tests mount the cpu controller on a v1 hierarchy.  Checks:
#   1  a new group reads "0 1000000"; "10000 100000" is taken and read back,
#      and is also the effective value
#   2  a child of 4 ms / 100 ms: the child's effective 4000, the parent's
#      6000 (carved out of it)
#   3  bad writes ("abc", runtime > period, "max", period 0) fail with
#      EINVAL and change nothing
#   4  an RT process cannot enter a group without runtime
#   5  in a 10 ms / 100 ms group, a pinned FIFO hog gets 10% +-1 of its CPU
#      and an unpinned one 40% +-2 of one CPU (the servers of 4 CPUs)
. /rtlab/lib.sh
. /rtlab/lib/proc.sh

R=/sys/fs/cgroup
SECS=${RTG_SECS:-6}
hogs=""
cleanup() {
	for p in $hogs; do kill "$p" 2>/dev/null; done
	sleep 0.3
	for g in $R/rtg2/c $R/rtg2 $R/rtg2z; do rmdir "$g" 2>/dev/null; done
}
trap cleanup EXIT
# hog GROUP [MASK]: a FIFO 50 hog in the v2 group GROUP; prints its pid
hog() { fifo_hog "$1/cgroup.procs" ${2:+"$2"}; }
share() {	# share PID: percent of one CPU over $SECS s
	t0=$(up); a=$(ns $1); sleep "$SECS"; t1=$(up); b=$(ns $1)
	awk -v a=$a -v b=$b -v t0=$t0 -v t1=$t1 'BEGIN { printf "%.2f", (b - a) * 100 / ((t1 - t0) * 1e9) }'
}
# measure PID TARGET TOL: $got = the share of up to 3 windows, the first
# near TARGET +-TOL (under TCG a vCPU the host leaves idle delays the
# servers' replenishments: such a window is measured again)
measure() {
	for i in 1 2 3; do
		got=$(share $1)
		tap_diag "pid $1, window $i: $got% of one CPU"
		near "$got" $2 $3 && return 0
	done
	return 1
}

grep -q " $R cgroup2 " /proc/mounts || mount -t cgroup2 none $R
if ! wr $R/cgroup.subtree_control +cpu || [ ! -d $R ] || ! mkdir $R/rtg2 || [ ! -f $R/rtg2/cpu.rt.max ]; then
	tap_fail "cgroup v2 cpu controller with cpu.rt.max ($werr)"
	tap_done
fi

# --- 1 ---
v0=$(cat $R/rtg2/cpu.rt.max)
if [ "$v0" = "0 1000000" ] && wr $R/rtg2/cpu.rt.max "10000 100000" &&
   [ "$(cat $R/rtg2/cpu.rt.max)" = "10000 100000" ] &&
   [ "$(cat $R/rtg2/cpu.rt.max.effective)" = "10000 100000" ]; then
	tap_ok "cpu.rt.max: new group \"$v0\", \"10000 100000\" taken and read back, effective the same"
else
	tap_fail "cpu.rt.max: new \"$v0\", now \"$(cat $R/rtg2/cpu.rt.max)\" ($werr), effective \"$(cat $R/rtg2/cpu.rt.max.effective)\""
fi

# --- 2 ---
if wr $R/rtg2/cgroup.subtree_control +cpu && mkdir $R/rtg2/c && wr $R/rtg2/c/cpu.rt.max "4000 100000" &&
   [ "$(cat $R/rtg2/c/cpu.rt.max.effective)" = "4000 100000" ] &&
   [ "$(cat $R/rtg2/cpu.rt.max.effective)" = "6000 100000" ]; then
	tap_ok "a 4 ms child: child effective \"4000 100000\", parent's \"6000 100000\""
else
	tap_fail "a 4 ms child ($werr): child effective \"$(cat $R/rtg2/c/cpu.rt.max.effective 2>&1)\", parent's \"$(cat $R/rtg2/cpu.rt.max.effective)\""
fi
rmdir $R/rtg2/c
wr $R/rtg2/cgroup.subtree_control -cpu
if [ "$(cat $R/rtg2/cpu.rt.max.effective)" = "10000 100000" ]; then
	tap_ok "child removed: the parent's effective value is its whole reservation again"
else
	tap_fail "child removed: parent's effective \"$(cat $R/rtg2/cpu.rt.max.effective)\""
fi

# --- 3 ---
bad=""
for v in abc "200000 100000" max "10000 0"; do
	if wr $R/rtg2/cpu.rt.max "$v" || [ "$werr" != EINVAL ]; then bad="$bad [$v: ${werr:-taken}]"; fi
done
if [ -z "$bad" ] && [ "$(cat $R/rtg2/cpu.rt.max)" = "10000 100000" ]; then
	tap_ok "bad writes (abc, runtime > period, max, period 0) refused with EINVAL, value unchanged"
else
	tap_fail "bad writes:$bad, value \"$(cat $R/rtg2/cpu.rt.max)\""
fi

# --- 4 ---
mkdir $R/rtg2z
sh -c 'sleep 30' &
p=$!
chrt -f -p 10 $p
if ! wr $R/rtg2z/cgroup.procs $p; then
	tap_ok "an RT process cannot enter a group without runtime ($werr)"
else
	tap_fail "an RT process entered a group with cpu.rt.max \"$(cat $R/rtg2z/cpu.rt.max)\""
fi
kill $p; rmdir $R/rtg2z

# --- 5 ---
h=$(hog $R/rtg2 2) && hogs=$h
sleep 1
measure $h 10 1
s=$got
kill $h; hogs=""; sleep 0.3
h=$(hog $R/rtg2) && hogs=$h
sleep 1
measure $h 40 2
u=$got
kill $h; hogs=""
if near "$s" 10 1 && near "$u" 40 2; then
	tap_ok "10 ms / 100 ms group: pinned hog $s% (10 +-1), unpinned hog $u% of a CPU (40 +-2)"
else
	tap_fail "10 ms / 100 ms group: pinned hog $s% (10 +-1), unpinned hog $u% (40 +-2)"
fi
tap_done
