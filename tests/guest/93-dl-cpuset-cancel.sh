#!/bin/sh
# rtlab: kernel=rt-debug cpus=2 mem=448 timeout=180
# A refused cgroup move of a SCHED_DEADLINE task leaves the root domains'
# deadline bandwidth as it was (patch 0022).  cgroup v2 with the cpuset and
# cpu controllers; D is a process (tests/progs/dlpair) with a deadline
# thread (10 ms / 100 ms) and a SCHED_FIFO thread: the cpu controller
# refuses the FIFO thread for a group without RT runtime after
# cpuset_can_attach() has counted the deadline one, so each move of D is
# cancelled (cpuset_cancel_attach()).
#   1  20 moves of D from the root to a group sharing its CPUs are refused
#   2  the root domain's total_bw is as before them (6.12 gave back D's
#      bandwidth at each cancel although nothing had been reserved:
#      total_bw fell by 104857 a move, wrapped, and admissions failed)
#   3  a partition on CPU 1 (its own root domain): 10 moves of D into it
#      are refused too
#   4  both root domains' total_bw are as before them (here the move did
#      reserve D's bandwidth in the partition's domain first, and the
#      cancel must give back exactly that)
#   5  a 30 ms / 100 ms deadline task is still admitted
#   6  with D gone and the cgroups removed, the root domain reserves the
#      fair servers only
# Its own boot (mem=448 is no other test's): the test needs the cpu and
# cpuset controllers on cgroup v2, and an earlier test of a shared boot may
# have bound the cpu controller to a v1 hierarchy (tests/guest/lib/rtg.sh).
. /rtlab/lib.sh
. /rtlab/lib/proc.sh

X=${DLPAIR:-/usr/local/libexec/rtlab/dlpair}
R=/sys/fs/cgroup
G=$R/dl-cancel-g
P=$R/dl-cancel-p
d=""
cleanup() {
	[ -n "$d" ] && kill -9 "$d" 2>/dev/null
	sleep 0.2
	[ -d $P ] && echo member >$P/cpuset.cpus.partition 2>/dev/null
	rmdir $G $P 2>/dev/null
}
trap cleanup EXIT
tap_plan 6

grep -q " $R cgroup2 " /proc/mounts || mount -t cgroup2 none $R
if ! wr $R/cgroup.subtree_control "+cpu +cpuset" || ! mkdir $G $P; then
	tap_fail "setup: cgroup v2 with the cpu and cpuset controllers and two cgroups ($werr)"
	tap_done
fi
out=${RTLAB_OUT:-/tmp}
dlpair_start "$X" "$out/dlpair.txt"
ok=$?
d=$pair
if [ $ok != 0 ]; then
	tap_fail "setup: dlpair: $(cat "$out/dlpair.txt")"
	tap_done
fi
sleep 0.2
bw0=$(rd_bw)
tap_diag "root domains with D ($d): $bw0"

# --- 1, 2: a group sharing D's CPUs ---------------------------------------------------
refused=0 why=""
for i in $(seq 20); do
	if wr $G/cgroup.procs "$d"; then
		break
	fi
	refused=$((refused + 1)) why=$werr
done
tap_check "20 moves of the deadline task into a group without RT runtime are refused ($refused refused, $why)" \
	[ $refused = 20 ]
bw1=$(rd_bw)
tap_check "root domains as before the refused moves: \"$bw0\" -> \"$bw1\"" [ "$bw0" = "$bw1" ]

# --- 3, 4: a partition of its own -----------------------------------------------------
refused=0 why=""
if wr $P/cpuset.cpus 1 && wr $P/cpuset.cpus.partition root; then
	sleep 0.2
	bw2=$(rd_bw)
	for i in $(seq 10); do
		if wr $P/cgroup.procs "$d"; then
			break
		fi
		refused=$((refused + 1)) why=$werr
	done
	bw3=$(rd_bw)
	tap_check "10 moves of the deadline task into a partition without RT runtime are refused ($refused refused, $why)" \
		[ $refused = 10 ]
	tap_check "both root domains as before the refused moves: \"$bw2\" -> \"$bw3\"" [ "$bw2" = "$bw3" ]
	wr $P/cpuset.cpus.partition member
else
	tap_fail "a partition root on CPU 1 ($werr)"
	tap_fail "the partition's root domain: not measured"
fi

# --- 5, 6 -----------------------------------------------------------------------------
dl_admit_point
kill -9 "$d" 2>/dev/null
wait "$d" 2>/dev/null
d=""
rmdir $G $P 2>/dev/null
sleep 0.3
fair_servers_only_point "with the deadline task gone"
tap_done
