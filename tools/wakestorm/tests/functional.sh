#!/bin/sh
# wakestorm host functional tests: real runs with a small number of threads.
# usage: functional.sh SANITIZED_WAKESTORM PLAIN_WAKESTORM
# Prints "ok N ..." / "not ok N ..." lines; tests/check.sh adds the plan.
set -u
WS=$(readlink -f "$1")
PLAIN=$(readlink -f "$2")
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT INT TERM
n=0
failed=0

ok() { n=$((n + 1)); echo "ok $n $*"; }
nok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n $*"; }
diag() { echo "# $*"; }
# check "description" command...: ok if the command succeeds
check() {
	d=$1
	shift
	if "$@"; then ok "$d"; else nok "$d"; fi
}
# jqtest FILE FILTER: ok if the jq filter is true for FILE
jqtest() { jq -e "$2" "$1" >/dev/null 2>&1; }

# Run a command as an unprivileged user without capabilities and with
# RLIMIT_RTPRIO 0, plus extra prlimit options.
unprivileged() {
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			--inh-caps=-all --bounding-set=-all -- \
			prlimit --rtprio=0 "$@"
	else
		prlimit --rtprio=0 "$@"
	fi
}

# expect_refused "description" 'stderr pattern' command...: exit status 2
# and a message on stderr matching the pattern
expect_refused() {
	d=$1 pat=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" = 2 ] && grep -q -- "$pat" "$tmp/err"; then
		ok "$d"
	else
		nok "$d"
		diag "exit status $rc, stderr: $(head -c 400 "$tmp/err")"
	fi
}

# ---- help, version, man page ----
"$WS" --help >"$tmp/help" 2>&1
help_rc=$?
all_options="threads cpus policy priority dl-runtime dl-deadline dl-period
	period iterations duration start-delay stack-size mlock json quiet help
	version"
help_has_all() {
	for o in $all_options; do
		grep -q -- "--$o" "$tmp/help" || { diag "--help lacks --$o"; return 1; }
	done
}
man_has_all() {
	for o in $all_options; do
		pat="\\-\\-$(echo "$o" | sed 's/-/\\-/g')"
		grep -qF -- "$pat" "$man_page" || { diag "man page lacks --$o"; return 1; }
	done
}
man_page=$(dirname "$0")/../wakestorm.1
check "--help exits 0" [ "$help_rc" = 0 ]
check "--help documents every option" help_has_all
check "--version prints the version" sh -c "'$WS' --version | grep -q '^wakestorm [0-9]'"
check "man page documents every option" man_has_all

# ---- bad options are named, exit status 2 ----
expect_refused "bad --threads named" "-n/--threads 'zero'" "$WS" -n zero
expect_refused "bad --policy named" "-p/--policy 'idle'" "$WS" -p idle
expect_refused "bad --period named" "-t/--period '5parsecs'" "$WS" -t 5parsecs
expect_refused "unknown option named" "--frobnicate: unknown option" "$WS" --frobnicate
expect_refused "--priority without an RT policy named" "-P/--priority: only for" "$WS" -P 3
expect_refused "offline CPU named" "-a/--cpus: CPU 1023 is not online" "$WS" -a 1023
expect_refused "tiny stack named" "-s/--stack-size 1024: below" "$WS" -s 1K

# ---- a small SCHED_OTHER storm ----
threads=8 iters=20
"$WS" -n $threads -a 0 -t 5ms -i $iters -j "$tmp/other.json" >"$tmp/other.txt" 2>"$tmp/err"
rc=$?
check "SCHED_OTHER run of $threads threads exits 0" [ "$rc" = 0 ]
[ "$rc" = 0 ] || diag "$(head -c 600 "$tmp/err")"
check "every thread woke for every expiry ($threads x $iters)" \
	jqtest "$tmp/other.json" ".wakeups == $threads * $iters and .complete_expiries == $iters and .expiries == $iters"
check "no wake-up before its expiry (first lateness min >= 0)" \
	jqtest "$tmp/other.json" '.first_lateness_ns.min >= 0'
check "last wake-up is never earlier than the first" \
	jqtest "$tmp/other.json" '.last_lateness_ns.min >= .first_lateness_ns.min and .spread_ns.min >= 0'
check "spread statistics are ordered (min <= median <= p99 <= max)" \
	jqtest "$tmp/other.json" '[.spread_ns.min, .spread_ns.median, .spread_ns.p99, .spread_ns.max] | . == sort'
check "JSON records the run (policy, CPUs, period)" \
	jqtest "$tmp/other.json" ".policy == \"other\" and .cpus == [0] and .period_ns == 5000000 and .threads == $threads"
check "text report states the wake-ups done" \
	grep -q "^wake-ups: $((threads * iters)) done; $iters of $iters expiries complete" "$tmp/other.txt"

# ---- JSON on stdout only ----
"$WS" -n 2 -i 3 -t 2ms -j - >"$tmp/stdout.json" 2>/dev/null
check "--json - writes only JSON to stdout" jqtest "$tmp/stdout.json" '.wakeups == 6'

# ---- thread names and policies while running ----
# watch FILE POLICY PRIO: run 3 threads for about 1 s; check the names and the
# scheduling policy (field 41) and RT priority (field 40) of /proc/PID/stat.
watch_policy() {
	pol=$1 want_policy=$2 want_prio=$3
	shift 3
	${WRAP:-} "$WS" -n 3 -t 10ms -i 100 -q "$@" &
	pid=$!
	tries=0
	while [ "$(ls "/proc/$pid/task" 2>/dev/null | wc -l)" -lt 4 ] && [ $tries -lt 50 ]; do
		sleep 0.05
		tries=$((tries + 1))
	done
	sleep 0.2
	names= policies=
	for t in /proc/$pid/task/*; do
		[ "$t" = "/proc/$pid/task/$pid" ] && continue
		names="$names $(cat "$t/comm" 2>/dev/null)"
		policies="$policies $(sed 's/^.*) //' "$t/stat" 2>/dev/null | awk '{ print $39 ":" $38 }')"
	done
	wait $pid
	rc=$?
	names=$(echo $names | tr ' ' '\n' | sort | tr '\n' ' ')
	check "$pol run exits 0" [ "$rc" = 0 ]
	check "$pol threads are named wakestorm/0..2" [ "$names" = "wakestorm/0 wakestorm/1 wakestorm/2 " ]
	bad=$(echo $policies | tr ' ' '\n' | grep -v -x "$want_policy:$want_prio" | head -n 1)
	check "$pol threads run with policy $want_policy priority $want_prio" \
		[ -n "$policies" ] && [ -z "$bad" ]
	[ -z "$bad" ] || diag "got policy:priority$policies"
}
watch_policy other 0 0 -p other
# the parent's RT policy must not leak into SCHED_OTHER sleepers
if chrt -f 1 true 2>/dev/null; then
	have_rt=yes
else
	have_rt=no
fi
if [ $have_rt = yes ]; then
	watch_policy "fifo 3" 1 3 -p fifo -P 3
	watch_policy "rr 4" 2 4 -p rr -P 4
	WRAP="chrt -f 2"
	watch_policy "other under a SCHED_FIFO parent" 0 0 -p other
	WRAP=
else
	# this host refuses RT policies even to us: the refusal must be explained
	expect_refused "fifo refused with the reason" "CAP_SYS_NICE\|cpu.rt_runtime_us" "$WS" -n 2 -i 2 -p fifo
fi
# SCHED_DEADLINE works where the kernel admits it (root, no cpuset limits)
"$WS" -n 2 -t 10ms -i 5 -p deadline --dl-runtime 100us -j "$tmp/dl.json" >/dev/null 2>"$tmp/err"
rc=$?
if [ "$rc" = 0 ]; then
	check "deadline run: every thread woke for every expiry" jqtest "$tmp/dl.json" '.wakeups == 10 and .policy == "deadline"'
	watch_policy deadline 6 0 -p deadline --dl-runtime 100us
else
	check "deadline refused with exit 2 and a reason" \
		sh -c "[ $rc = 2 ] && grep -q 'SCHED_DEADLINE\|CAP_SYS_NICE\|root domain\|admission' '$tmp/err'"
fi

# ---- impossible settings ----
# the unprivileged user may not reach the build tree: run a copy
cp "$WS" "$tmp/ws-unpriv"
chmod 755 "$tmp/ws-unpriv"
expect_refused "fifo as an unprivileged user names CAP_SYS_NICE" \
	"CAP_SYS_NICE" unprivileged "$tmp/ws-unpriv" -n 2 -i 2 -p fifo -P 10
expect_refused "deadline as an unprivileged user names CAP_SYS_NICE" \
	"CAP_SYS_NICE" unprivileged "$tmp/ws-unpriv" -n 2 -i 2 -p deadline
expect_refused "threads above RLIMIT_NPROC named" "RLIMIT_NPROC" \
	unprivileged --nproc=50 "$tmp/ws-unpriv" -n 100 -i 1
expect_refused "mlock above RLIMIT_MEMLOCK names CAP_IPC_LOCK" "CAP_IPC_LOCK" \
	unprivileged --memlock=65536 "$tmp/ws-unpriv" -n 100 -i 1 -m
# ASan reserves terabytes of address space: RLIMIT_AS needs the plain binary
expect_refused "stacks above RLIMIT_AS named" "RLIMIT_AS" \
	prlimit --as=400000000 "$PLAIN" -n 1000 -s 1M -i 1
expect_refused "threads above kernel.threads-max named" "kernel.threads-max\|kernel.pid_max" \
	"$WS" -n 1000000 -i 1
expect_refused "deadline bandwidth above admission control named" "admission control" \
	"$WS" -n 100 -p deadline --dl-runtime 9ms -t 10ms -i 1

# ---- interruption ----
"$WS" -n 4 -t 10ms -i 100000 -j "$tmp/int.json" >/dev/null 2>&1 &
pid=$!
sleep 1
kill -INT $pid
wait $pid
rc=$?
check "SIGINT stops the run cleanly (exit 0, interrupted, partial)" \
	sh -c "[ $rc = 0 ] && jq -e '.interrupted == true and .wakeups > 0 and .wakeups < 400000' '$tmp/int.json' >/dev/null"

# ---- the default storm: 1000 threads, plain binary ----
"$PLAIN" -a 0 -t 20ms -i 5 -j "$tmp/default.json" >/dev/null 2>"$tmp/err"
rc=$?
check "default 1000-thread storm on CPU 0 exits 0" [ "$rc" = 0 ]
check "default storm: 1000 x 5 wake-ups" jqtest "$tmp/default.json" '.threads == 1000 and .wakeups == 5000'
diag "default storm on this host: $(jq -c '{missed, spread_us_median: (.spread_ns.median/1000), spread_us_max: (.spread_ns.max/1000)}' "$tmp/default.json" 2>/dev/null)"

[ $failed = 0 ]
