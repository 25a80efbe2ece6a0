#!/bin/sh
# rtlab: kernel=rt-debug cpus=2 mem=576 timeout=300
# Bounds on an RT group's server parameters (issue 24, bug 4), through the
# cgroup v2 cpu controller (a boot of its own: mem=576), as root and as an
# unprivileged user to whom a subtree is delegated:
#   1  the bounds every deadline task gets (__checkparam_dl()): runtime
#      1 us (< 1024 ns), period 99 us (< sched_deadline_period_min_us),
#      period 4194305 us (> sched_deadline_period_max_us), periods of
#      2^62, 2^63 and about 2^64 ns are refused with EINVAL and change
#      nothing; runtime 2 us, period 100 us and period 4194304 us are taken;
#      malformed values are refused the same way (review item 4): "max",
#      a negative runtime or period, 2^64 as runtime or period, 2^64 +
#      100000 as period (sscanf()'s %llu wrapped it to 100000), and text
#      after the period
#   2  the same writes by the delegatee in its own subtree: EINVAL too
# Where a bad value is taken (the series before the fix), what it does is
# mapped: a FIFO 50 hog in the group and a fair hog share CPU 1 for 2 s, and
# their shares are printed.
. /rtlab/lib.sh
. /rtlab/lib/proc.sh

R=/sys/fs/cgroup
G=$R/rtg-b
D=$R/rtg-deleg
DUSER=rtdeleg
DUID=4242
hogs=""
cleanup() {
	for p in $hogs; do kill -9 "$p" 2>/dev/null; done
	sleep 0.3
	for g in $D/c $D $G; do rmdir "$g" 2>/dev/null; done
}
trap cleanup EXIT
tap_plan 2

# the values: "RUNTIME PERIOD" in us, as cpu.rt.max takes them
BAD="1 100000|50 99|100000 4194305|110000 4611686018427387|110000 9223372036854775|110000 9223372036854776|110000 18446744073709551|max|max 100000|-1 100000|50000 -1|18446744073709551616 100000|50000 18446744073709551616|50000 18446744073709651616|50000 100000 7"
GOOD="2 100000|50 100|100000 4194304|10000 100000"

# map VALUE: what a taken bad value does to a pinned FIFO hog of the group
# and a fair hog on CPU 1
map() {
	rt=$(fifo_hog $G/cgroup.procs 2) || return
	sh -c 'while :; do :; done' >/dev/null 2>&1 &
	fair=$!
	taskset -p 2 $fair >/dev/null
	hogs="$rt $fair"
	sleep 0.2
	t0=$(up); a=$(ns $rt); f0=$(ns $fair); sleep 2; t1=$(up); b=$(ns $rt); f1=$(ns $fair)
	tap_diag "mapped \"$1\": over $(awk -v t0=$t0 -v t1=$t1 'BEGIN { printf "%.2f", t1 - t0 }') s the group's FIFO hog ran $(((b - a) / 1000000)) ms, the fair hog $(((f1 - f0) / 1000000)) ms on CPU 1"
	kill -9 $rt $fair; wait $rt $fair 2>/dev/null
	hogs=""
}

# try DIR WRITER [MAP]: with WRITER (wr, or uwr as the delegatee), every bad value refused with EINVAL and nothing
# changed, every good one taken; $bad lists what went wrong
try() {
	bad=""
	IFS='|'
	for v in $BAD; do
		IFS=' '
		before=$(cat "$1/cpu.rt.max")
		if $2 "$1/cpu.rt.max" "$v"; then
			bad="$bad [\"$v\" taken: $(cat "$1/cpu.rt.max")]"
			[ -n "$3" ] && map "$v"
			$2 "$1/cpu.rt.max" "0 1000000"
		elif [ "$werr" != EINVAL ] || [ "$(cat "$1/cpu.rt.max")" != "$before" ]; then
			bad="$bad [\"$v\": $werr, now $(cat "$1/cpu.rt.max")]"
		fi
		IFS='|'
	done
	for v in $GOOD; do
		IFS=' '
		if ! $2 "$1/cpu.rt.max" "$v" || [ "$(cat "$1/cpu.rt.max")" != "$v" ]; then
			bad="$bad [\"$v\" not taken: ${werr:-reads $(cat "$1/cpu.rt.max")}]"
		fi
		$2 "$1/cpu.rt.max" "0 1000000"
		IFS='|'
	done
	IFS=' '
}

grep -q " $R cgroup2 " /proc/mounts || mount -t cgroup2 none $R
if ! wr $R/cgroup.subtree_control +cpu || ! mkdir $G || [ ! -f $G/cpu.rt.max ]; then
	tap_fail "setup: a group with cpu.rt.max in cgroup v2 ($werr)"
	tap_done
fi

# --- 1 ---
try $G wr map
tap_check "root: out-of-bounds server parameters refused with EINVAL, bounds taken${bad:+:$bad}" [ -z "$bad" ]

# --- 2 ---
# Delegation (Documentation/admin-guide/cgroup-v2.rst): the delegatee owns
# the subtree's directory, cgroup.procs and cgroup.subtree_control; the
# delegator sets the subtree's own limit.
grep -q "^$DUSER:" /etc/passwd 2>/dev/null || echo "$DUSER:x:$DUID:$DUID::/tmp:/bin/sh" >>/etc/passwd
# uwr FILE VALUE: wr as the delegatee
uwr() { wr_as "$DUSER" "$@"; }
if mkdir $D && wr $D/cpu.rt.max "50000 100000" && wr $D/cgroup.subtree_control +cpu &&
   chown $DUID:$DUID $D $D/cgroup.procs $D/cgroup.subtree_control $D/cgroup.threads &&
   su -s /bin/sh "$DUSER" -c "mkdir $D/c" && [ "$(stat -c %u $D/c/cpu.rt.max)" = $DUID ]; then
	try $D/c uwr
	tap_check "delegatee (uid $DUID) in its subtree: out-of-bounds parameters refused with EINVAL, bounds taken${bad:+:$bad}" [ -z "$bad" ]
else
	tap_fail "delegation setup: $D/c owned by uid $DUID ($werr, $(ls -ln $D 2>&1 | head -3))"
fi
tap_done
