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
tap_tcg_caveat() {
	[ "${RTLAB_ACCEL:-tcg}" = tcg ] || return 0
	tap_diag "TCG: absolute ${1:-figures} are emulator time, not hardware numbers; compare ratios measured within one run."
}

# --- helpers of the RT group tests (80-85) -------------------------------
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

# rtirqd's rules for the benchmarks: irq threads FIFO 50, the simulator's
# "rtirqd-sim" action FIFO 77 (bench/guest/rtirqd-latency.sh, rtirqd-breakdown.sh)
rtirqd_bench_rules() {
	mkdir -p /etc/rtgroups.d
	printf '%s\n' 'irqthreads:f:50:*:^\[irq/[0-9]+-' '#@irq sim:f:77:*:action=^rtirqd-sim$' >/etc/rtgroups
	chmod 644 /etc/rtgroups
	chmod 755 /etc/rtgroups.d
}
