#!/bin/sh
# rtlab: kernel=rt-debug cpus=4 mem=640 timeout=300
# New server parameters give no fresh budget (issue 24, design point 12):
# a delegated cgroup v2 user who rewrites its group's cpu.rt.max again and
# again must not get more than the group's share.  Before, every change
# restarted the servers with a new period and a full run time, so writing
# two values in turn kept a hog's server from ever being throttled.  A
# subtree D (cpu.rt.max 10 ms / 100 ms) delegated to an unprivileged user,
# who makes D/c with 10 ms / 100 ms; a FIFO 50 hog in D/c pinned to CPU 1.
# In 84-rtgroup-v2's boot (mem=640): the v1 tests mount the cpu controller
# on a v1 hierarchy.
#   1  quiet: the hog gets 0.10 of CPU 1 (+-0.03) over 2 s
#   2  the delegatee writes "10000 100000" and "9999 100000" in turn,
#      $RTG_REWRITES (1000) times, from CPU 0: meanwhile the hog gets at
#      most 0.13 of CPU 1 (the writes are counted and their rate shown;
#      with the servers restarted with a full budget at each write, as
#      before, the hog got 0.625 over 2000 writes at 137 per second)
#   3  afterwards the group still has its share: 0.10 +-0.03 over 2 s
. /rtlab/lib.sh
. /rtlab/lib/proc.sh

R=/sys/fs/cgroup
D=$R/rtg-rw
DUSER=rtgrw
DUID=4243
N=${RTG_REWRITES:-1000}
h=""
cleanup() {
	[ -z "$h" ] || kill -9 "$h" 2>/dev/null
	sleep 0.3
	rmdir $D/c $D 2>/dev/null
}
trap cleanup EXIT
tap_plan 3


grep -q " $R cgroup2 " /proc/mounts || mount -t cgroup2 none $R
grep -q "^$DUSER:" /etc/passwd 2>/dev/null || echo "$DUSER:x:$DUID:$DUID::/tmp:/bin/sh" >>/etc/passwd
if ! wr $R/cgroup.subtree_control +cpu || ! mkdir $D || ! wr $D/cpu.rt.max "10000 100000" ||
   ! wr $D/cgroup.subtree_control +cpu ||
   ! chown $DUID:$DUID $D $D/cgroup.procs $D/cgroup.subtree_control $D/cgroup.threads ||
   ! su -s /bin/sh $DUSER -c "mkdir $D/c" || ! wr_as $DUSER $D/c/cpu.rt.max "10000 100000"; then
	tap_fail "setup: $D at 10 ms / 100 ms delegated to uid $DUID, $D/c made by it ($werr)"
	tap_done
fi
h=$(fifo_hog $D/c/cgroup.procs 2)
if [ -z "$h" ]; then
	tap_fail "setup: a FIFO 50 hog in $D/c"
	tap_done
fi
sleep 0.5

# --- 1 ---
t0=$(up); a=$(ns "$h"); sleep 2; t1=$(up); b=$(ns "$h")
s=$(cpu_share "$a" "$b" "$t0" "$t1")
tap_check "quiet: the hog gets $s of CPU 1 (0.10 +-0.03)" near "$s" 0.10 0.03

# --- 2 ---
t0=$(up); a=$(ns "$h")
n=$(taskset 1 su -s /bin/sh $DUSER -c "f=$D/c/cpu.rt.max; n=0
	while [ \$n -lt $N ]; do
		echo '10000 100000' >\$f && echo '9999 100000' >\$f || break
		n=\$((n + 2))
	done; echo \$n")
t1=$(up); b=$(ns "$h")
s=$(cpu_share "$a" "$b" "$t0" "$t1")
rate=$(awk -v n="${n:-0}" -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%.0f", n / (t1 - t0) }')
tap_diag "the delegatee wrote cpu.rt.max ${n:-0} times in $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') s ($rate per s)"
tap_check "${n:-0} rewrites of cpu.rt.max by the delegatee: the hog got $s of CPU 1 meanwhile (at most 0.13)" \
	sh -c "[ '${n:-0}' -ge $N ] && awk -v s='$s' 'BEGIN { exit !(s <= 0.13) }'"

# --- 3 ---
sleep 0.5
t0=$(up); a=$(ns "$h"); sleep 2; t1=$(up); b=$(ns "$h")
s=$(cpu_share "$a" "$b" "$t0" "$t1")
tap_check "afterwards: the hog gets $s of CPU 1 (0.10 +-0.03)" near "$s" 0.10 0.03
tap_done
