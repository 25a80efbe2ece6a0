# Helpers of the RT group tests (80-89) and of the benchmarks and tests
# that need an RT group; source after /rtlab/lib.sh:  . /rtlab/lib/rtg.sh
# (it sources proc.sh: the groups are written with wr).
# shellcheck source=proc.sh
. /rtlab/lib/proc.sh

# cg_mount: the cgroup v1 cpu controller at $CG (/sys/fs/cgroup/cpu)
cg_mount() {
	grep -q " $CG cgroup .*cpu" /proc/mounts && return 0
	grep -q ' /sys/fs/cgroup ' /proc/mounts || mount -t tmpfs cgroup_root /sys/fs/cgroup || return 1
	mkdir -p "$CG" && mount -t cgroup -o cpu none "$CG"
}
# The v1 groups of a test, below $CG: rtg_mkgrp G RUNTIME PERIOD makes
# $CG/G with PERIOD, then RUNTIME (us; period first: a fresh group has
# runtime 0, so any period fits; $werr says why a write failed) and notes G
# in $rtg_made (newest first, so children go before their parents);
# rtg_rmgrp G... removes groups made so; rtg_cleanup kills the pids in
# $hogs and removes what is left in $rtg_made.
rtg_made=""
hogs=""
rtg_mkgrp() {
	mkdir "$CG/$1" || return 1
	rtg_made="$1 $rtg_made"
	wr "$CG/$1/cpu.rt_period_us" "$3" && wr "$CG/$1/cpu.rt_runtime_us" "$2"
}
rtg_rmgrp() {
	for _g in "$@"; do
		rmdir "$CG/$_g" || { tap_diag "rmdir $_g failed"; return 1; }
		rtg_made=$(echo " $rtg_made " | sed "s| $_g | |")
	done
}
rtg_cleanup() {
	for _p in $hogs; do kill -9 "$_p" 2>/dev/null; done
	[ -z "$hogs" ] || sleep 0.3	# a killed hog leaves its group late
	for _g in $rtg_made; do rmdir "$CG/$_g" 2>/dev/null; done
}
# rtg_group G PERIOD RUNTIME: the v1 cpu controller mounted at $CG and the
# group $CG/G made with PERIOD / RUNTIME (us); rtg_cleanup on exit.  A
# failure fails the test and ends it.
rtg_group() {
	trap rtg_cleanup EXIT
	if ! cg_mount || ! rtg_mkgrp "$1" "$3" "$2"; then
		tap_fail "setup: a $3 us / $2 us group ($werr)"
		tap_done
	fi
}
# rtg_run NAME ARG...: runs rtgload -m ARG... ($L): its output in $res, in
# $RTLAB_OUT/NAME.txt and as diagnostics; its exit status in $rc
rtg_run() {
	_n=$1; shift
	res=$("$L" -m "$@" 2>&1)
	rc=$?
	echo "$res" >"${RTLAB_OUT:-/tmp}/$_n.txt"
	echo "$res" | sed "s/^/# $_n: /"
	return $rc
}
# rtg_val TASK KEY: the field KEY of task TASK's line in $res
rtg_val() {
	echo "$res" | awk -v n="$1" -v k="$2" '$1 == "task" {
		nm = ""; v = ""
		for (i = 2; i <= NF; i++) {
			j = index($i, "=")
			if (substr($i, 1, j - 1) == "name") nm = substr($i, j + 1)
			if (substr($i, 1, j - 1) == k) v = substr($i, j + 1)
		}
		if (nm == n) print v
	}'
}
# rtgpi_run NAME ARG...: tests/progs/rtgpi with ARG..., its output in
# $RTLAB_OUT/pi-NAME.txt and as diagnostics, its summary line in $sum;
# 1 if it failed or printed no summary.  rtgpi_val KEY: KEY's value there.
# A run still going after RTGPI_LIMIT s (default 200; a run takes 5-60 s)
# is stuck: the state of its threads and of the scheduler is saved in
# $RTLAB_OUT/pi-NAME-stuck.txt (a CI run of 2026-12-06 hung in the 1 ms /
# 1 s case until the test's time-out, with nothing to show why), it is
# killed, not waited for (a task that never runs again cannot die), and
# the run failed.
rtgpi_run() {
	_n=$1; shift
	_f=${RTLAB_OUT:-/tmp}/pi-$_n.txt
	_sf=${RTLAB_OUT:-/tmp}/pi-$_n-stuck.txt
	/usr/local/libexec/rtlab/rtgpi "$@" >"$_f" 2>&1 &
	_p=$! _t=0
	while [ -d /proc/$_p ] && ! grep -q '^State:.Z' /proc/$_p/status 2>/dev/null &&
	      [ $_t -lt "${RTGPI_LIMIT:-200}" ]; do
		sleep 1
		_t=$((_t + 1))
	done
	if [ $_t -ge "${RTGPI_LIMIT:-200}" ]; then
		rtg_stuck "$_p" >"$_sf" 2>&1
		kill -9 "$_p" 2>/dev/null
		sed "s/^/# $_n: /" "$_f"
		echo "# $_n: still running after $_t s; its threads (see pi-$_n-stuck.txt):"
		grep '^task ' "$_sf" | sed "s/^/# $_n: /"
		sum=""
		return 1
	fi
	wait "$_p"
	_rc=$?
	sed "s/^/# $_n: /" "$_f"
	sum=$(grep '^rounds=' "$_f")
	[ $_rc -eq 0 ] && [ -n "$sum" ]
}
# rtg_stuck PID: what a stuck process's threads are doing (one "task" line
# each: tid, comm, state, prio, nice, CPU, policy, CPU time, switches,
# wchan), then the scheduler's debug view of every CPU (rt_rq, dl_rq,
# servers)
rtg_stuck() {
	for _d in /proc/$1/task/*; do
		_s=$(cut -d' ' -f3,18,19,39,41 "$_d/stat" 2>/dev/null)
		echo "task $(basename "$_d") $(cat "$_d/comm" 2>/dev/null) state,prio,nice,cpu,policy=$_s" \
			"exec_ns=$(cut -d' ' -f1 "$_d/schedstat" 2>/dev/null)" \
			"switches=$(awk '/^nr_switches/ { print $3 }' "$_d/sched" 2>/dev/null)" \
			"wchan=$(cat "$_d/wchan" 2>/dev/null)"
	done
	for _d in /proc/$1/task/*; do echo "== $_d/sched"; cat "$_d/sched"; echo "== $_d/stack"; cat "$_d/stack"; done
	grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs none /sys/kernel/debug
	echo "== /sys/kernel/debug/sched/debug"
	cat /sys/kernel/debug/sched/debug
	for _g in "$CG"/*/cpu.rt_runtime_us; do echo "== $_g $(cat "$_g")"; done
}
rtgpi_val() { echo "$sum" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
# rtg_busy NAME KIND SECS: rtgload ($L) for SECS with, on each CPU, a
# FIFO 50 task of KIND in the group $G and a SCHED_OTHER hog beside it, so
# that no CPU ever idles; $gs the group's CPUs (its tasks' CPU time over
# the run's), $meds each CPU's median run (us; KIND "runs" tasks), and
# rtg_run's $res and $rc
rtg_busy() {
	_a=""
	for _c in $(seq 0 $(($(nproc) - 1))); do
		_a="$_a -t name=g$_c,cg=$G,policy=fifo,prio=50,cpu=$_c,kind=$2"
		_a="$_a -t name=f$_c,policy=other,cpu=$_c,kind=hog"
	done
	# shellcheck disable=SC2086
	rtg_run "$1" -d "$3" -w 500 $_a || return 1
	_d=$(echo "$res" | awk '$1 == "run" { sub("duration_ns=", "", $2); print $2 }')
	gs=0; meds=""
	for _c in $(seq 0 $(($(nproc) - 1))); do
		gs=$(awk -v a="$gs" -v b="$(rtg_val g$_c cpu_ns)" -v d="$_d" 'BEGIN { printf "%.3f", a + b / d }')
		meds="$meds $(rtg_val g$_c run_med_us)"
	done
}
