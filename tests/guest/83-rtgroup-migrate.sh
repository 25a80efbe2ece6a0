#!/bin/sh
# rtlab: kernel=rt-debug cpus=4 mem=512 timeout=300
# RT group tasks move between their group's per-CPU servers (patch 0009):
# the seed's example, runtime 10 ms every 100 ms on 4 CPUs.  Checks:
#   1  one unpinned CPU-bound FIFO task gets 40% +-2 of one CPU's time
#      (10 ms on each CPU per period)
#   2  two such tasks share those 40% (+-2 in total)
#   3  a task pinned to one CPU gets 10% +-1, and never migrates
#   4  migrations are bounded: at most 2 per CPU per period (a task leaves a
#      server only when it is throttled and enters one only with budget)
# CPU time from /proc/<pid>/schedstat, migrations from /proc/<pid>/sched
# (se.nr_migrations), over 6 s windows timed by /proc/uptime.  Under TCG a
# vCPU the host does not run for a while delays the guest's timers, and the
# servers' replenishments with them: a window that misses is measured again,
# up to 3 times, and every window is printed.
. /rtlab/lib.sh
. /rtlab/lib/rtg.sh

CG=/sys/fs/cgroup/cpu
SECS=${RTG_SECS:-6}
hogs=""

cleanup() {
	for p in $hogs; do kill "$p" 2>/dev/null; done
	sleep 0.3
	rmdir $CG/rtg-m 2>/dev/null
}
trap cleanup EXIT
# hog [MASK]: a FIFO 50 hog in the group; prints its pid
hog() { fifo_hog $CG/rtg-m/tasks "$@"; }
# measure PIDS...: sets $share (per pid, percent of one CPU), $total, $migs
# (per pid), $periods (100 ms periods in the window)
measure() {
	t0=$(up); a=""; m0=""
	for p in "$@"; do a="$a $(ns $p)"; m0="$m0 $(mig $p)"; done
	sleep "$SECS"
	t1=$(up); b=""; m1=""
	for p in "$@"; do b="$b $(ns $p)"; m1="$m1 $(mig $p)"; done
	set -- $(echo "$t0 $t1 |$a |$b |$m0 |$m1" | awk -F'|' '{
		split($1, t, " "); na = split($2, a, " "); split($3, b, " ")
		split($4, m, " "); split($5, n, " ")
		w = (t[2] - t[1]) * 1e9; tot = 0; s = ""; g = ""
		for (i = 1; i <= na; i++) {
			x = (b[i] - a[i]) * 100 / w; tot += x
			s = s sprintf("%.2f,", x); g = g (n[i] - m[i]) ","
		}
		printf "%s %.2f %s %.0f\n", s, tot, g, (t[2] - t[1]) * 10
	}')
	share=${1%,} total=$2 migs=${3%,} periods=$4
}

if ! cg_mount || ! mkdir $CG/rtg-m || ! echo 100000 >$CG/rtg-m/cpu.rt_period_us ||
   ! echo 10000 >$CG/rtg-m/cpu.rt_runtime_us; then
	tap_fail "a 10 ms / 100 ms group in the cgroup v1 cpu controller"
	tap_done
fi
tap_diag "CPUs $(cat /sys/devices/system/cpu/online), group 10 ms / 100 ms"

# try N TARGET TOL PIDS...: measure up to N times until the total is TARGET
# +-TOL
try() {
	n=$1 t=$2 d=$3; shift 3
	for i in $(seq "$n"); do
		measure "$@"
		tap_diag "window $i: $share% of one CPU over $periods periods, $migs migrations"
		near "$total" "$t" "$d" && return 0
	done
	return 1
}

# --- 1 and 4: one unpinned hog ----------------------------------------------
h=$(hog) && hogs=$h
sleep 1
if try 3 40 2 $h; then
	tap_ok "one unpinned FIFO hog in a 10 ms / 100 ms group on 4 CPUs got $total% of a CPU (40 +-2)"
else
	tap_fail "one unpinned FIFO hog got $total% of a CPU (40 +-2)"
fi
if [ "$migs" -gt 0 ] && [ "$migs" -le $((periods * 8)) ]; then
	tap_ok "migrations bounded: $migs in $periods periods ($(awk -v m=$migs -v p=$periods 'BEGIN { printf "%.1f", m / p }') per period, at most 8)"
else
	tap_fail "migrations: $migs in $periods periods (want 1..$((periods * 8)))"
fi
kill $h; hogs=""; sleep 0.5

# --- 2: two unpinned hogs share the group's 4 x 10% --------------------------
h1=$(hog) && h2=$(hog) && hogs="$h1 $h2"
sleep 1
if try 3 40 2 $h1 $h2; then
	tap_ok "two unpinned hogs share it: $share% ($total% in all, 40 +-2)"
else
	tap_fail "two unpinned hogs: $share% ($total% in all, want 40 +-2)"
fi
kill $h1 $h2; hogs=""; sleep 0.5

# --- 3: a pinned hog stays on its CPU's server ---------------------------------
h=$(hog 2) && hogs=$h
sleep 1
if try 3 10 1 $h && [ "$migs" = 0 ]; then
	tap_ok "a hog pinned to CPU 1 gets $total% (10 +-1) and never migrates"
else
	tap_fail "a pinned hog got $total% (10 +-1) with $migs migrations (want 0)"
fi
kill $h; hogs=""
tap_done
