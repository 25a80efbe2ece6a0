#!/bin/sh
# rtlab: kernel=rt-debug cpus=4 mem=512 timeout=300
# Extreme values on the RT group files of cgroup v1 (issue 24, review item
# 4; cgroup v2's cpu.rt.max: tests/guest/87-rtgroup-bounds.sh), next to a
# 10 ms / 100 ms group G with no tasks:
#   1  G's cpu.rt_runtime_us: 0 and 2 are taken and read back; 1 (below
#      1024 ns), 100000 (the period: above sched_rt_runtime_us' 95%), S64
#      max, -1, S64 min and "abc" are EINVAL, 2^64 is ERANGE; a refused
#      write changes nothing
#   2  G's cpu.rt_period_us (runtime 50 us): 100 and 4194304 are taken;
#      0, 1, 99, 4194305, U64 max, -1 EINVAL, 2^64 ERANGE
#   3  the root's cpu.rt_runtime_us and cpu.rt_period_us: 0, 1 (less than
#      G's 10%), -1, U64 max refused (EINVAL), 2^64 ERANGE, nothing changed
#   4  an unprivileged writer (nobody) gets EACCES on all of them and on
#      sched_rt_runtime_us; the sysctl refuses 2^64, -2 and "abc" (EINVAL)
#   5  no CPU is wedged: on every CPU a FIFO hog in G gets its share
#      (at least 5% of 10%) and a fair task runs
. /rtlab/lib.sh
. /rtlab/lib/rtg.sh

CG=/sys/fs/cgroup/cpu
G=$CG/rtg-x
S64MAX=9223372036854775807
S64MIN=-9223372036854775808
U64MAX=18446744073709551615
TWO64=18446744073709551616
tap_plan 5
rtg_group rtg-x 100000 10000

# expect FILE VALUE RESULT [READBACK]: writing VALUE to FILE gives RESULT
# (ok or an errno name); ok reads back READBACK (default VALUE), an error
# leaves the file as it was.  $bad collects what differed.
expect() {
	_before=$(cat "$1")
	if wr "$1" "$2"; then _got=ok; else _got=$werr; fi
	_now=$(cat "$1")
	if [ "$_got" != "$3" ]; then
		bad="$bad [$(basename "$1") \"$2\": $_got, not $3; reads $_now]"
	elif [ "$3" = ok ] && [ "$_now" != "${4:-$2}" ]; then
		bad="$bad [$(basename "$1") \"$2\" reads back $_now]"
	elif [ "$3" != ok ] && [ "$_now" != "$_before" ]; then
		bad="$bad [$(basename "$1") \"$2\" refused but changed $_before -> $_now]"
	fi
}

# --- 1 ---
bad=""
R=$G/cpu.rt_runtime_us
expect $R 0 ok; wr $R 10000
expect $R 2 ok; wr $R 10000
for v in 1 100000 $S64MAX -1 $S64MIN abc; do expect $R "$v" EINVAL; done
expect $R $TWO64 ERANGE
tap_check "group cpu.rt_runtime_us extremes${bad:+:$bad}" [ -z "$bad" ]

# --- 2 ---
bad=""
P=$G/cpu.rt_period_us
wr $R 50
expect $P 100 ok
expect $P 4194304 ok
for v in 0 1 99 4194305 $U64MAX -1; do expect $P "$v" EINVAL; done
expect $P $TWO64 ERANGE
wr $P 100000; wr $R 10000
tap_check "group cpu.rt_period_us extremes (runtime 50 us)${bad:+:$bad}" [ -z "$bad" ]

# --- 3 ---
bad=""
for v in 0 1 -1 $S64MAX; do expect $CG/cpu.rt_runtime_us "$v" EINVAL; done
expect $CG/cpu.rt_runtime_us $TWO64 ERANGE
for v in 0 1 $U64MAX; do expect $CG/cpu.rt_period_us "$v" EINVAL; done
expect $CG/cpu.rt_period_us $TWO64 ERANGE
tap_check "root cpu.rt_runtime_us / cpu.rt_period_us extremes${bad:+:$bad}" [ -z "$bad" ]

# --- 4 ---
bad=""
SYS=/proc/sys/kernel/sched_rt_runtime_us
for f in $R $P $CG/cpu.rt_runtime_us $CG/cpu.rt_period_us $SYS; do
	for v in 0 1 $TWO64 -1; do
		b=$(cat $f)
		if wr_as nobody $f "$v" || [ "$werr" != EACCES ] || [ "$(cat $f)" != "$b" ]; then
			bad="$bad [nobody: $(basename $f) \"$v\": ${werr:-taken}, reads $(cat $f)]"
		fi
	done
done
for v in $TWO64 -2 abc; do expect $SYS "$v" EINVAL; done
tap_check "unprivileged writes refused with EACCES, sysctl extremes refused${bad:+:$bad}" [ -z "$bad" ]

# --- 5 ---
bad=""
for c in 0 1 2 3; do
	h=$(fifo_hog $G/tasks $((1 << c))) || { bad="$bad [CPU $c: no hog]"; continue; }
	hogs=$h
	sleep 0.2
	got=$(cpu_pct $h 1)
	f=$(taskset -c $c sh -c 'i=0; while [ $i -lt 2000 ]; do i=$((i + 1)); done; echo done')
	kill -9 $h; wait $h 2>/dev/null
	hogs=""
	tap_diag "CPU $c: the group's hog ran $got% (10% reserved), a fair loop: $f"
	atleast "$got" 5 || bad="$bad [CPU $c: hog $got%]"
	[ "$f" = done ] || bad="$bad [CPU $c: fair loop did not finish]"
done
tap_check "no CPU wedged: the group's hog gets its share and a fair task runs on every CPU${bad:+:$bad}" [ -z "$bad" ]

tap_done
