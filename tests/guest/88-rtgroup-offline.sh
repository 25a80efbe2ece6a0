#!/bin/sh
# rtlab: kernel=rt-debug cpus=4 mem=512 timeout=240
# CPU offline with a large RT group (issue 24, bug 3).  A top-level group
# of 700000 / 1000000 on 4 CPUs reserves 4 x 70% next to the fair servers'
# 4 x 5%; a CPU going offline takes its own servers (its group server and
# fair server) with it, so only what stays must fit on the remaining CPUs:
#   1  CPU 3 goes offline (before: EBUSY, "Device or resource busy")
#   2  CPU 2 goes offline too (2 x 75% on 2 CPUs), and both come back
#   3  every root domain reserves afterwards what it did before
. /rtlab/lib.sh
. /rtlab/lib/rtg.sh

CG=/sys/fs/cgroup/cpu
G=$CG/rtg-off
cpu_on() { echo 1 >/sys/devices/system/cpu/cpu"$1"/online; }
cleanup() {
	for c in 1 2 3; do cpu_on $c 2>/dev/null; done
	sleep 0.3
	rmdir $G 2>/dev/null
}
trap cleanup EXIT
tap_plan 3

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

tap_done
