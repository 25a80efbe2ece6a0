#!/bin/sh
# rtlab: kernel=rt cpus=4 mem=512 timeout=240
# CPU offline with a large RT group (issue 24, bug 3).  A top-level group
# of 700000 / 1000000 on 4 CPUs reserves 4 x 70% next to the fair servers'
# 4 x 5%; a CPU going offline takes its own servers (its group server and
# fair server) with it, so only what stays must fit on the remaining CPUs:
#   1  CPU 3 goes offline (before: EBUSY, "Device or resource busy")
#   2  CPU 2 goes offline too (2 x 75% on 2 CPUs), and both come back
#   3  every root domain reserves afterwards what it did before
#   4  a deadline task still counts: with a 30 ms / 100 ms SCHED_DEADLINE
#      task beside the group (4 x 75% + 30% of 380%), CPUs 3 and 2 may go
#      offline (2 x 75% + 30% on 2 CPUs, 190%), a third may not
#      (75% + 30% > 95%): EBUSY
. /rtlab/lib.sh

CG=/sys/fs/cgroup/cpu
G=$CG/rtg-off
dl=""
cpu_on() { echo 1 >/sys/devices/system/cpu/cpu"$1"/online; }
cleanup() {
	[ -n "$dl" ] && kill -9 $dl 2>/dev/null
	for c in 1 2 3; do cpu_on $c 2>/dev/null; done
	sleep 0.3
	rmdir $G 2>/dev/null
}
trap cleanup EXIT
tap_plan 4

bw0=$(rd_bw)
if ! cg_mount || ! mkdir $G || ! wr $G/cpu.rt_period_us 1000000 || ! wr $G/cpu.rt_runtime_us 700000; then
	tap_fail "setup: a 700000 / 1000000 group ($werr)"
	tap_done
fi
bw1=$(rd_bw)
tap_diag "reserved per CPU (CPU:total_bw): fair servers $bw0, with the group $bw1"

# --- 1 ---
if wr /sys/devices/system/cpu/cpu3/online 0; then
	tap_ok "CPU 3 offline with a 70% group (online: $(cat /sys/devices/system/cpu/online))"
else
	tap_fail "CPU 3 offline with a 70% group: $werr"
fi
# --- 2 ---
if wr /sys/devices/system/cpu/cpu2/online 0 && wr /sys/devices/system/cpu/cpu2/online 1 &&
   wr /sys/devices/system/cpu/cpu3/online 1; then
	tap_ok "CPU 2 offline too, then both back (online: $(cat /sys/devices/system/cpu/online))"
else
	tap_fail "CPU 2 offline and CPUs 2, 3 back: $werr (online: $(cat /sys/devices/system/cpu/online))"
	cpu_on 2 2>/dev/null; cpu_on 3 2>/dev/null
fi
# --- 3 ---
sleep 0.2
bw2=$(rd_bw)
tap_check "root domains reserve what they did before the hotplug: \"$bw1\" -> \"$bw2\"" [ "$bw1" = "$bw2" ]

# --- 4 ---
sleep 1000 &
dl=$!
if ! chrt -d --sched-runtime 30000000 --sched-deadline 100000000 --sched-period 100000000 -p 0 $dl; then
	tap_fail "a 30 ms / 100 ms SCHED_DEADLINE task beside the group"
else
	r3=ok r2=ok r1=ok
	wr /sys/devices/system/cpu/cpu3/online 0 || r3=$werr
	wr /sys/devices/system/cpu/cpu2/online 0 || r2=$werr
	wr /sys/devices/system/cpu/cpu1/online 0 && r1=taken || r1=$werr
	cpu_on 1 2>/dev/null; cpu_on 2 2>/dev/null; cpu_on 3 2>/dev/null
	tap_check "with a 30% deadline task: CPU 3 offline $r3, CPU 2 $r2, CPU 1 refused with EBUSY ($r1)" \
		[ "$r3 $r2 $r1" = "ok ok EBUSY" ]
fi
tap_done
