# TAP helpers for guest tests (kselftest conventions). Source with
#   . /rtlab/lib.sh
# then tap_plan N (or let tap_done print the plan at the end).
_tap_n=0
_tap_failed=0

tap_plan() { echo "TAP version 13"; echo "1..$1"; _tap_planned=1; }
tap_ok()   { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n $*"; }
tap_fail() { _tap_n=$((_tap_n + 1)); _tap_failed=$((_tap_failed + 1)); echo "not ok $_tap_n $*"; }
tap_skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n $1 # SKIP ${2:-}"; }
tap_diag() { echo "# $*"; }
# tap_check "description" command args...: ok if the command succeeds.
tap_check() {
	_d=$1; shift
	if "$@"; then tap_ok "$_d"; else tap_fail "$_d"; fi
}
# tap_sub CMD ARGS...: run a C test program that asserts for itself and
# prints TAP (include/rtlab/tap.h) and number its points on from this
# script's; its "TAP version" and plan lines are dropped, its diagnostics
# and other output pass through as "# ". A program that could not do its
# job (exit 2 and above) or printed no point adds a failed point. Returns
# the program's exit status.
tap_sub() {
	_ts_out=$(mktemp /tmp/tap_sub.XXXXXX)
	"$@" >"$_ts_out" 2>&1
	_ts_rc=$?
	_ts_n0=$_tap_n
	while IFS= read -r _ts_l; do
		case $_ts_l in
		"TAP version "*|1..*) ;;
		"not ok "*) _ts_l=${_ts_l#not ok }; tap_fail "${_ts_l#* }" ;;
		"ok "*) _ts_l=${_ts_l#ok }; tap_ok "${_ts_l#* }" ;;
		"#"*) echo "$_ts_l" ;;
		*) echo "# $_ts_l" ;;
		esac
	done <"$_ts_out"
	rm -f "$_ts_out"
	if [ "$_ts_rc" -ge 2 ] || [ "$_tap_n" = "$_ts_n0" ]; then
		tap_fail "$(basename "$1") ran (exit $_ts_rc)"
	fi
	return "$_ts_rc"
}
# tap_done: print the plan if none was given, exit 1 if anything failed.
tap_done() {
	[ -n "${_tap_planned:-}" ] || echo "1..$_tap_n"
	[ "$_tap_failed" -eq 0 ]
	exit $?
}

# tap_tcg_caveat [WHAT]: the lab's one statement of what a figure measured
# under QEMU TCG means, as a diagnostic (nothing under KVM); WHAT names the
# figures (default "figures").  Every benchmark prints it; make demo and
# the bench report show it from there.
# Under ACCEL=icount the figures are instruction counts instead.
tap_tcg_caveat() {
	case "${RTLAB_ACCEL:-tcg}" in
	tcg) tap_diag "TCG: absolute ${1:-figures} are emulator time, not hardware numbers; compare ratios measured within one run." ;;
	icount) tap_diag "icount: ${1:-figures} are guest time, 2^${RTLAB_ICOUNT_SHIFT:-?} ns per guest instruction: instruction counts, the same on a quiet or loaded host and comparable between kernels, not hardware times." ;;
	esac
}

# --- helpers of the RT group tests (80-89) -------------------------------
# cg_mount: the cgroup v1 cpu controller at $CG (/sys/fs/cgroup/cpu)
cg_mount() {
	grep -q " $CG cgroup .*cpu" /proc/mounts && return 0
	grep -q ' /sys/fs/cgroup ' /proc/mounts || mount -t tmpfs cgroup_root /sys/fs/cgroup || return 1
	mkdir -p "$CG" && mount -t cgroup -o cpu none "$CG"
}
# near X T D: X is a number within T +-D;  atleast X M: X >= M
near() { awk -v x="$1" -v t="$2" -v d="$3" 'BEGIN { exit !(x != "" && x >= t - d && x <= t + d) }'; }
atleast() { awk -v x="$1" -v m="$2" 'BEGIN { exit !(x != "" && x >= m) }'; }
# ns PID: CPU time so far (ns);  mig PID: migrations so far;  up: uptime (s)
ns() { cut -d' ' -f1 "/proc/$1/schedstat"; }
mig() { awk '/nr_migrations/ { print $3 }' "/proc/$1/sched"; }
up() { cut -d' ' -f1 /proc/uptime; }
# rd_bw: the deadline bandwidth reserved in each CPU's root domain
# ("CPU:total_bw ..."), empty if the scheduler's debugfs file is missing
rd_bw() {
	awk '/^dl_rq\[/ { c = $1; gsub(/[^0-9]/, "", c) }
	     /dl_bw->total_bw/ { printf "%s:%s ", c, $NF }' /sys/kernel/debug/sched/debug 2>/dev/null
}
# fifo_hog FILE [MASK]: start a busy-looping shell, pin it to the CPU mask
# MASK if given, write its pid to FILE (a group's tasks or cgroup.procs)
# and make it SCHED_FIFO 50; prints the pid
fifo_hog() {
	sh -c 'while :; do :; done' >/dev/null 2>&1 &
	_p=$!
	[ -n "${2:-}" ] && taskset -p "$2" "$_p" >/dev/null
	echo "$_p" >"$1" && chrt -f -p 50 "$_p" && echo "$_p"
}
# wr FILE VALUE: write VALUE to FILE; on failure $werr is the errno's name
# (EINVAL, EBUSY, EPERM, EACCES, ERANGE) or the shell's message
wr() {
	werr=$( (echo "$2" >"$1") 2>&1 ) && { werr=""; return 0; }
	_wr_errno
	return 1
}
# wr_as USER FILE VALUE: wr as USER (an unprivileged or a delegated writer)
wr_as() {
	werr=$(su -s /bin/sh "$1" -c "echo '$3' >'$2'" 2>&1) && { werr=""; return 0; }
	_wr_errno
	return 1
}
# _wr_errno: $werr, the shell's message of a failed write, as the errno's name
_wr_errno() {
	case "$werr" in
	*"Invalid argument"*) werr=EINVAL ;;
	*"Device or resource busy"*) werr=EBUSY ;;
	*"Operation not permitted"*) werr=EPERM ;;
	*"Permission denied"*) werr=EACCES ;;
	*"out of range"*) werr=ERANGE ;;
	esac
}
# cpu_pct PID SECS: PID's CPU time over SECS s, in percent of one CPU
# (from schedstat: what the task ran, whatever the host did meanwhile)
cpu_pct() {
	_t0=$(up); _a=$(ns "$1"); sleep "$2"; _t1=$(up); _b=$(ns "$1")
	awk -v a="$_a" -v b="$_b" -v t0="$_t0" -v t1="$_t1" \
		'BEGIN { printf "%.2f", (b - a) * 100 / ((t1 - t0) * 1e9) }'
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
# gone PID: PID has exited (no such process, or a zombie)
gone() { [ ! -e "/proc/$1/stat" ] || [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = Z ]; }

# --- helpers of the rtaudit tests (90-rtaudit-*) --------------------------
# rta_line FILE SEVERITY SUBJECT: the finding's header line of rtaudit's
# text output ("RANK SEVERITY SUBJECT: VALUE"), empty if absent
rta_line() { grep -E "^ *[0-9]+ $2 +$3(:|\$)" "$1" | head -n 1; }
# rta_cost FILE CLOCKSOURCE: ns per call that "rtaudit clock --switch" measured
rta_cost() { sed -n "s/^ *[0-9]* [a-z]* *clocksource $2: \([0-9.]*\) ns\/call.*/\1/p" "$1"; }
# rta_slow_clock NAME: the boot forced clock source NAME (slower than the
# TSC): rtaudit system must say so, and rtaudit clock --switch must
# measure NAME slower than the TSC in the same run and restore NAME.
rta_slow_clock() {
	cs=/sys/devices/system/clocksource/clocksource0
	cur=$(cat $cs/current_clocksource)
	tap_diag "available: $(cat $cs/available_clocksource), current: $cur"
	tap_check "the boot's clocksource=$1 took effect (current: $cur)" [ "$cur" = "$1" ]
	rtaudit system >/tmp/rta-sys.txt
	rc=$?
	cp /tmp/rta-sys.txt "$RTLAB_OUT/system.txt" 2>/dev/null
	l=$(rta_line /tmp/rta-sys.txt problem clocksource)
	tap_check "rtaudit system: clock source $1 is a problem ($l)" [ "${l##*: }" = "$1" ]
	l=$(rta_line /tmp/rta-sys.txt warning cmdline.clocksource)
	tap_check "rtaudit system: clocksource=$1 on the command line is a warning ($l)" [ "${l##*: }" = "$1" ]
	tap_check "rtaudit system: exit status 2 (problems), got $rc" [ "$rc" = 2 ]
	rtaudit clock --switch --rounds 500 --trace-ms 100 >/tmp/rta-clock.txt
	rc=$?
	cp /tmp/rta-clock.txt "$RTLAB_OUT/clock.txt" 2>/dev/null
	grep -E 'clocksource|^  method' /tmp/rta-clock.txt | sed 's/^/# /'
	tsc=$(rta_cost /tmp/rta-clock.txt tsc)
	slow=$(rta_cost /tmp/rta-clock.txt "$1")
	ratio=$(awk -v a="$slow" -v b="$tsc" 'BEGIN { if (a > 0 && b > 0) printf "%.1f", a / b }')
	tap_diag "TCG emulator time: tsc $tsc ns/call, $1 $slow ns/call in one run; only the ratio means something"
	tap_check "rtaudit clock: $1 measured slower than tsc in one run (ratio $ratio)" \
		awk -v r="$ratio" 'BEGIN { exit !(r != "" && r > 1) }'
	l=$(rta_line /tmp/rta-clock.txt problem "clocksource $1")
	tap_check "rtaudit clock: the current clock source $1 ranked a problem ($l)" [ -n "$l" ]
	now=$(cat $cs/current_clocksource)
	tap_check "rtaudit clock --switch restored $1 (now $now), exit $rc" [ "$now" = "$1" ]
}

# --- helpers of the SCHED_DEADLINE tests (93-95) --------------------------
# tap_points NAME FILE: a helper program's TAP output in FILE taken over as
# this test's points ("NAME: ..."), its other lines as diagnostics; sets
# tap_npoints to how many points it had (a loop fed by a here-document
# runs in this shell, so the counts hold)
tap_points() {
	grep -v -E '^(not )?ok |^TAP|^1\.\.' "$2" | sed "s/^# *//; s/^/# $1: /"
	tap_npoints=0
	while read -r _v _l; do
		[ -n "$_v" ] || continue
		tap_npoints=$((tap_npoints + 1))
		if [ "$_v" = ok ]; then tap_ok "$1: ${_l#* }"; else tap_fail "$1: ${_l#* }"; fi
	done <<-EOT
	$(grep -E '^(not )?ok ' "$2" | sed 's/^not ok/not/')
	EOT
}

# rtirqd's rules for the benchmarks: irq threads FIFO 50, the simulator's
# "rtirqd-sim" action FIFO 77 (bench/guest/rtirqd-latency.sh, rtirqd-breakdown.sh)
rtirqd_bench_rules() {
	mkdir -p /etc/rtgroups.d
	printf '%s\n' 'irqthreads:f:50:*:^\[irq/[0-9]+-' '#@irq sim:f:77:*:action=^rtirqd-sim$' >/etc/rtgroups
	chmod 644 /etc/rtgroups
	chmod 755 /etc/rtgroups.d
}
