#!/bin/sh
# rtlab: kernel=rt-debug cpus=4 mem=512 timeout=300
# The root domains' deadline bandwidth stays exact across sched-domain
# rebuilds with nested groups of different periods (issue 24, item 11).
# Admission reserves a top-level group's run time / period on each CPU;
# a rebuild (CPU hotplug here, cpusets alike) recomputes each root
# domain's total_bw from scratch.  The series first recomputed it as the
# sum of the group servers' own ratios, each rounded down: a 10 ms /
# 100 ms group with a 3 ms / 70 ms child has servers of 59918 (the 5.71 ms
# it keeps) and 44938, 104856 per CPU against the 104857 reserved, so
# every rebuild followed by the group's release leaked 1 per CPU.  Now a
# rebuild counts what admission reserved.  Points, each the exact value of
# dl_bw->total_bw in every CPU's root domain (/sys/kernel/debug/sched/debug):
#   1  making the groups reserves 4 x 104857 more
#   2  CPU 3 offline and back online (two rebuilds) leaves that unchanged
#   3  removing both groups gives back exactly what was reserved
#   4  a 30 ms / 100 ms SCHED_DEADLINE task is still admitted
. /rtlab/lib.sh
. /rtlab/lib/rtg.sh

CG=/sys/fs/cgroup/cpu
tap_plan 4
grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs none /sys/kernel/debug
trap rtg_cleanup EXIT
cg_mount || { tap_fail "setup: the cgroup v1 cpu controller"; tap_done; }
rd0=$(rd_bw)
tap_diag "root domains with the fair servers only: $rd0"
if ! rtg_mkgrp rtg-s 10000 100000 || ! rtg_mkgrp rtg-s/c 3000 70000; then
	tap_fail "setup: a 10000 us / 100000 us group with a 3000 us / 70000 us child ($werr)"
	tap_done
fi

# per CPU, the root domain's total_bw now minus at $rd0 (one number if
# every CPU has the same difference, else the list)
delta() {
	for _e in $(rd_bw); do echo "$_e"; done |
		awk -F: -v base="$rd0" 'BEGIN { n = split(base, b, " "); for (i = 1; i <= n; i++) { split(b[i], kv, ":"); v[kv[1]] = kv[2] } }
			{ d = $2 - v[$1]; s = s " " $1 ":" d; if (NR == 1) f = d; else if (d != f) m = 1 }
			END { if (m) print s; else print f }'
}
want=$((4 * 104857))
d1=$(delta)
tap_check "a 10 ms / 100 ms group with a 3 ms / 70 ms child reserves $d1 (4 x 104857 = $want)" [ "$d1" = "$want" ]

if wr /sys/devices/system/cpu/cpu3/online 0 && wr /sys/devices/system/cpu/cpu3/online 1; then
	d2=$(delta)
	tap_check "CPU 3 offline and online (two rebuilds): still $d2 reserved ($want)" [ "$d2" = "$want" ]
else
	tap_fail "CPU 3 offline and online: $werr"
fi

rtg_rmgrp rtg-s/c rtg-s
d3=$(delta)
tap_check "both groups removed: $d3 left of what they reserved (0)" [ "$d3" = 0 ]

if chrt -d --sched-runtime 30000000 --sched-deadline 100000000 --sched-period 100000000 0 true; then
	tap_ok "a 30 ms / 100 ms SCHED_DEADLINE task is admitted"
else
	tap_fail "a 30 ms / 100 ms SCHED_DEADLINE task is refused"
fi
tap_done
