#!/bin/sh
# rtlab: kernel=rt-debug cpus=4 mem=512 timeout=300
# RT groups on deadline servers across CPU hotplug (patches 0006-0009).
# A 10 ms / 100 ms group with one unpinned FIFO hog, 4 CPUs:
#   1  CPU 3 goes offline while the hog runs; the hog keeps running and the
#      group now has 3 servers: 30% +-2 of one CPU
#   2  CPU 3 comes back: 40% +-2 again (its server is used again)
#   3  a hog pinned to CPU 2 survives CPU 2 going away (the kernel moves it
#      and widens its affinity) and CPU 2 comes back
#   4  the bandwidth reserved in every root domain is the same after the
#      hotplug cycles as before them, with the group alive, and back to the
#      fair servers' alone once the group is removed (no server leaked or
#      counted twice)
#   5  admission still works after the cycles: 30% + 30% + 31% is refused
#      (EBUSY, the fair servers' 5%), and the group can be changed
# Any splat (lockdep, sleeping in atomic, a WARN in the deadline class)
# fails the test: the harness watches the console.
. /rtlab/lib.sh
. /rtlab/lib/rtg.sh

CG=/sys/fs/cgroup/cpu
SECS=${RTG_SECS:-6}
hogs=""
cpu_on() { echo 1 >/sys/devices/system/cpu/cpu"$1"/online; }
cpu_off() { echo 0 >/sys/devices/system/cpu/cpu"$1"/online; }
cleanup() {
	for p in $hogs; do kill "$p" 2>/dev/null; done
	for c in 1 2 3; do cpu_on $c 2>/dev/null; done
	sleep 0.3
	for g in rtg-h rtg-h1 rtg-h2 rtg-h3; do rmdir $CG/$g 2>/dev/null; done
}
trap cleanup EXIT
# hog [MASK]: a FIFO 50 hog in rtg-h; prints its pid
hog() { fifo_hog $CG/rtg-h/tasks "$@"; }
# share PID TARGET TOL: measure PID's share of one CPU over $SECS s into
# $got, up to 3 windows until it is TARGET +-TOL (under TCG a vCPU the
# host does not run delays the servers' replenishments)
share() {
	for i in 1 2 3; do
		t0=$(up); a=$(ns "$1"); m0=$(mig "$1")
		sleep "$SECS"
		t1=$(up); b=$(ns "$1"); m1=$(mig "$1")
		got=$(awk -v a="$a" -v b="$b" -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%.2f", (b - a) / ((t1 - t0) * 1e7) }')
		tap_diag "window $i: $got% of one CPU, $((m1 - m0)) migrations, CPUs online $(cat /sys/devices/system/cpu/online)"
		near "$got" "$2" "$3" && return 0
	done
	return 1
}

if [ ! -w /sys/devices/system/cpu/cpu3/online ]; then
	tap_fail "CPU hotplug: /sys/devices/system/cpu/cpu3/online writable"
	tap_done
fi
bw0=$(rd_bw)
if ! cg_mount || ! mkdir $CG/rtg-h || ! echo 100000 >$CG/rtg-h/cpu.rt_period_us ||
   ! echo 10000 >$CG/rtg-h/cpu.rt_runtime_us; then
	tap_fail "a 10 ms / 100 ms group in the cgroup v1 cpu controller"
	tap_done
fi
bw1=$(rd_bw)
tap_diag "reserved per CPU (CPU:total_bw): fair servers $bw0, with the group $bw1"

# --- 1, 2: an unpinned hog while CPU 3 goes away and comes back ---------------
h=$(hog) && hogs=$h
sleep 1
# step off|on CPU ONLINE SHARE WHAT: take CPU off or on line, check the
# online mask is ONLINE, then that the hog $h gets SHARE% +-2
step() {
	if cpu_$1 "$2" && [ "$(cat /sys/devices/system/cpu/online)" = "$3" ]; then
		if share "$h" "$4" 2; then
			tap_ok "$5: the hog gets $got% ($4 +-2)"
		else
			tap_fail "$5: the hog got $got% ($4 +-2)"
		fi
	else
		tap_fail "$5: CPU $2 $1line (online: $(cat /sys/devices/system/cpu/online))"
	fi
}
step off 3 0-2 30 "CPU 3 offline under the group's unpinned hog, which runs on in 3 servers"
step on 3 0-3 40 "CPU 3 back online, 4 servers again"
kill "$h"; hogs=""; sleep 0.5

# --- 3: a pinned hog loses its CPU -------------------------------------------
h=$(hog 4) && hogs=$h
sleep 1
c0=$(awk '{ print $39 }' /proc/"$h"/stat)
ok=1
cpu_off 2 || ok=0
sleep 2
c1=$(awk '{ print $39 }' /proc/"$h"/stat)
a1=$(ns "$h"); sleep 2; a2=$(ns "$h")
[ -d /proc/"$h" ] && [ "$c1" != 2 ] && [ "$a2" -gt "$a1" ] || ok=0
cpu_on 2 || ok=0
if [ $ok = 1 ]; then
	tap_ok "a hog pinned to CPU 2 (on CPU $c0) runs on on CPU $c1 while CPU 2 is offline ($(((a2 - a1) / 1000000)) ms in 2 s); CPU 2 back"
else
	tap_fail "a hog pinned to CPU 2 while CPU 2 went offline and back: CPU $c0 -> ${c1:-?}, CPU time ${a1:-?} -> ${a2:-?} ns"
fi
kill "$h"; hogs=""; sleep 0.5

# a few quick cycles of every secondary CPU, with a hog running
h=$(hog) && hogs=$h
n=0
for r in 1 2 3; do
	for c in 1 2 3; do cpu_off $c && cpu_on $c && n=$((n + 1)); done
done
kill "$h"; hogs=""; sleep 0.5
tap_check "9 more offline/online cycles of CPUs 1-3 with the group's hog running: $n of 9" [ $n = 9 ]

# --- 4: the reserved bandwidth ------------------------------------------------
bw2=$(rd_bw)
if [ -n "$bw1" ] && [ "$bw2" = "$bw1" ]; then
	tap_ok "after the hotplug cycles each root domain reserves what it did before with the group ($bw2)"
else
	tap_fail "reserved per CPU with the group: before the cycles '$bw1', after '$bw2'"
fi

# --- 5: admission --------------------------------------------------------------
ok=1
for g in rtg-h1 rtg-h2 rtg-h3; do
	mkdir $CG/$g && echo 100000 >$CG/$g/cpu.rt_period_us || ok=0
done
echo 0 >$CG/rtg-h/cpu.rt_runtime_us || ok=0
echo 30000 >$CG/rtg-h1/cpu.rt_runtime_us && echo 30000 >$CG/rtg-h2/cpu.rt_runtime_us || ok=0
err=$(echo 31000 2>&1 >$CG/rtg-h3/cpu.rt_runtime_us)
rc=$?
echo 30000 >$CG/rtg-h3/cpu.rt_runtime_us || ok=0
tap_diag "31% beside 30% + 30%: rc $rc, '$err'; 30% instead: $(cat $CG/rtg-h3/cpu.rt_runtime_us)"
if [ $ok = 1 ] && [ $rc != 0 ] && echo "$err" | grep -qi busy && [ "$(cat $CG/rtg-h3/cpu.rt_runtime_us)" = 30000 ]; then
	tap_ok "admission after the cycles: 30% + 30% + 31% refused with EBUSY, 30% + 30% + 30% taken"
else
	tap_fail "admission after the cycles: 30% + 30% + 31% (rc $rc: $err), setup ok=$ok"
fi
for g in rtg-h1 rtg-h2 rtg-h3 rtg-h; do rmdir $CG/$g || tap_diag "rmdir $g failed"; done
bw3=$(rd_bw)
if [ -n "$bw0" ] && [ "$bw3" = "$bw0" ]; then
	tap_ok "every group removed: each root domain reserves the fair servers' bandwidth again ($bw3)"
else
	tap_fail "reserved per CPU at the start '$bw0', after every group was removed '$bw3'"
fi
tap_done
