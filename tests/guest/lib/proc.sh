# Guest helpers on list knobs, numbers, tasks and kernel files, for tests and
# benchmarks; source after /rtlab/lib.sh:  . /rtlab/lib/proc.sh
# near X T D: X is a number within T +-D;  atleast X M: X >= M
near() { awk -v x="$1" -v t="$2" -v d="$3" 'BEGIN { exit !(x != "" && x >= t - d && x <= t + d) }'; }
atleast() { awk -v x="$1" -v m="$2" 'BEGIN { exit !(x != "" && x >= m) }'; }
# knob_words VALUE: a list-valued knob's words, commas standing for blanks:
# a value given with lab/rtlab run --env is one word of the kernel command
# line, so it cannot hold a blank (run refuses one)
knob_words() { echo "$1" | tr , ' '; }

# ns PID: CPU time so far (ns);  mig PID: migrations so far;  up: uptime (s)
ns() { cut -d' ' -f1 "/proc/$1/schedstat"; }
mig() { awk '/nr_migrations/ { print $3 }' "/proc/$1/sched"; }
up() { cut -d' ' -f1 /proc/uptime; }
# gone PID: PID has exited (no such process, or a zombie)
gone() { [ ! -e "/proc/$1/stat" ] || [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = Z ]; }
# cpu_pct PID SECS: PID's CPU time over SECS s, in percent of one CPU
# (from schedstat: what the task ran, whatever the host did meanwhile)
cpu_pct() {
	_t0=$(up); _a=$(ns "$1"); sleep "$2"; _t1=$(up); _b=$(ns "$1")
	awk -v a="$_a" -v b="$_b" -v t0="$_t0" -v t1="$_t1" \
		'BEGIN { printf "%.2f", (b - a) * 100 / ((t1 - t0) * 1e9) }'
}
# cpu_share A B T0 T1: CPU time A..B (ns, from ns) over uptime T0..T1 (s,
# from up), in CPUs with three decimals
cpu_share() { awk -v a="$1" -v b="$2" -v t0="$3" -v t1="$4" 'BEGIN { printf "%.3f", (b - a) / ((t1 - t0) * 1e9) }'; }
# rd_bw: the deadline bandwidth reserved in each CPU's root domain
# ("CPU:total_bw ..."), empty if the scheduler's debugfs file is missing
rd_bw() {
	awk '/^dl_rq\[/ { c = $1; gsub(/[^0-9]/, "", c) }
	     /dl_bw->total_bw/ { printf "%s:%s ", c, $NF }' /sys/kernel/debug/sched/debug 2>/dev/null
}
# fair_servers_bw: the bandwidth the CPUs' fair servers reserve, summed, in
# the kernel's BW_SHIFT (20) units (what a root domain's total_bw holds
# with no other deadline entity)
fair_servers_bw() {
	_fs=0
	for _c in /sys/kernel/debug/sched/fair_server/cpu*; do
		_fs=$((_fs + ($(cat "$_c/runtime") << 20) / $(cat "$_c/period")))
	done
	echo "$_fs"
}
# fair_servers_only_point [WHEN]: one TAP point, the first root domain
# reserves the fair servers' bandwidth and nothing else (total_bw =
# fair_servers_bw), WHEN said after "fair servers"
fair_servers_only_point() {
	_fsbw=$(fair_servers_bw)
	_tot=$(rd_bw | tr ' ' '\n' | awk -F: 'NF == 2 { print $2; exit }')
	if [ -n "$_tot" ] && [ "$_tot" = "$_fsbw" ]; then
		tap_ok "root domain reserves only the fair servers${1:+ $1}: total_bw $_tot (BW_SHIFT 20)"
	else
		tap_fail "root domain total_bw ${_tot:-?} differs from the fair servers' $_fsbw (something else is reserved)"
	fi
}
# dldemote_book0 WHEN: fair_servers_only_point WHEN, then every CPU's
# deadline book as dldemote ($X) reads it, printed and saved in
# $out/book0 for "$X -c $out/book0 book"; the test ends if it cannot be read
dldemote_book0() {
	fair_servers_only_point "$1"
	if "$X" -s "$out/book0" book >"$out/book0.txt" 2>&1; then
		cat "$out/book0.txt"
	else
		sed 's/^/# /' "$out/book0.txt"
		tap_fail "the baseline book could not be read"
		tap_done
	fi
}
# cg2_root: $R the cgroup v2 root; if there is none, one mounted at
# /sys/fs/cgroup (below it, at unified/, when a v1 layout is there: a tmpfs
# with v1 hierarchies, lib/rtg.sh) and $mounted set to it for the
# test's cleanup to unmount.  cg2_cpuset: the cpuset controller on for
# $R's children, $cpuset_on set when this turned it on (to turn it off
# again: "-cpuset").  Each returns 1 if it could not.
cg2_root() {
	R=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	[ -z "$R" ] || return 0
	R=/sys/fs/cgroup
	grep -q " $R " /proc/mounts && R=$R/unified
	mkdir -p "$R" && mount -t cgroup2 none "$R" && mounted=$R
}
cg2_cpuset() {
	case " $(cat "$R/cgroup.subtree_control" 2>/dev/null) " in
	*" cpuset "*) ;;
	*) wr "$R/cgroup.subtree_control" +cpuset && cpuset_on=1 ;;
	esac
}
# cg2_cell NAME CPU: cg2_root, cg2_cpuset, then $P = $R/NAME, a cpuset
# cgroup holding CPU; 1 if it could not ($werr says why when the write
# failed).  cg2_cell_cleanup, for the test's EXIT trap: CPU $last online
# again, $P a member again and removed, the cpuset controller off if
# cg2_cpuset turned it on, $R unmounted if cg2_root mounted it.
cg2_cell() {
	cg2_root
	cg2_cpuset
	P=$R/$1
	mkdir "$P" && wr "$P/cpuset.cpus" "$2"
}
cg2_cell_cleanup() {
	echo 1 >"/sys/devices/system/cpu/cpu$last/online" 2>/dev/null
	if [ -n "$P" ] && [ -d "$P" ]; then
		echo member >"$P/cpuset.cpus.partition" 2>/dev/null
		rmdir "$P" 2>/dev/null
	fi
	[ -z "$cpuset_on" ] || echo -cpuset >"$R/cgroup.subtree_control" 2>/dev/null
	[ -z "$mounted" ] || umount "$mounted"
}
# dl_admit_point: one TAP point, a 30 ms / 100 ms SCHED_DEADLINE task is
# still admitted (after a test that could have leaked root domain bandwidth)
dl_admit_point() {
	if chrt -d -T 30000000 -D 100000000 -P 100000000 0 true; then
		tap_ok "a 30 ms / 100 ms SCHED_DEADLINE task is admitted"
	else
		tap_fail "a 30 ms / 100 ms SCHED_DEADLINE task is refused"
	fi
}
# dlpair_start PROG FILE: start PROG (tests/progs/dlpair: one process with
# a 10 ms / 100 ms deadline thread and a FIFO thread) with its output in
# FILE, $pair its pid; 0 once it printed "ready" (5 s at most), 1 if it
# did not (FILE says why)
dlpair_start() {
	"$1" 10000 100000 >"$2" 2>&1 &
	pair=$!
	_t=0
	while ! grep -q ready "$2" && [ $_t -lt 50 ] && ! gone "$pair"; do
		sleep 0.1
		_t=$((_t + 1))
	done
	grep -q ready "$2"
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
# splats N: what the kernel logged after line N of dmesg that looks like a
# splat (the harness checks the whole console after the test; this lets a
# test say which of its own steps made one)
splats() {
	dmesg | tail -n +"$(($1 + 1))" |
		grep -E 'Invalid wait context|sleeping function called from invalid context|BUG:|WARNING:|possible recursive locking|circular locking'
}
# no_splats N OK FAIL: one TAP point: ok OK when nothing after line N of
# dmesg looks like a splat, else those lines (20 at most) as diagnostics
# and not ok "FAIL: <the first one>"
no_splats() {
	_s=$(splats "$1")
	if [ -z "$_s" ]; then
		tap_ok "$2"
	else
		echo "$_s" | head -n 20 | sed 's/^/# /'
		tap_fail "$3: $(echo "$_s" | head -n 1)"
	fi
}
