#!/bin/sh
# Host functional tests of the rtirqd binary (sanitized build) against user
# threads of a helper process this test starts.  Every run is scoped with
# --pid to that process (or is --check / --dry-run), so no thread of the
# host, kernel threads included, is ever changed.
# Prints "ok - ..." / "not ok - ..." lines for tests/run-check.sh.
cd "$(dirname "$0")/.." || exit 1
RTIRQD=${RTIRQD:-./build/rtirqd-san}
HELPER=./build/threads_helper
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

W=$(mktemp -d /tmp/rtirqd-func.XXXXXX)
chmod 755 "$W"
HPID=
DPID=
cleanup() {
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null
	[ -n "$HPID" ] && kill "$HPID" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
[ -n "$KEEP" ] && trap - EXIT

ok() { echo "ok - $*"; }
nok() { echo "not ok - $*"; }
check() { d=$1; shift; if "$@"; then ok "$d"; else nok "$d"; fi; }

# policy and rt priority of a thread, e.g. "1 11" (SCHED_FIFO 11)
pol() { sed 's/.*) //' "/proc/$HPID/task/$1/stat" | awk '{print $39, $38}'; }
cpus() { sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$HPID/task/$1/status"; }
tid_of() { awk -v n="$1" '$2 == n {print $1}' "$W/helper.out" | tail -n 1; }
# wait_for CMD...: retry for up to 10 s (a loaded CI machine is slow)
wait_for() {
	i=0
	while [ $i -lt 200 ]; do
		"$@" && return 0
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}
has_pol() { [ "$(pol "$1")" = "$2" ]; }
log_has() { grep -q "$2" "$1" 2>/dev/null; }

# ---------------------------------------------------------------- --help
"$RTIRQD" --help >"$W/help" 2>&1
check "--help exits 0 and documents --check" \
	sh -c "[ $? -eq 0 ] && grep -q -- '--check' '$W/help'"

# ---------------------------------------------------------------- --check
"$RTIRQD" --check rtgroups.default >"$W/c1" 2>&1
check "--check accepts the shipped default policy" \
	sh -c "[ $? -eq 0 ] && grep -q 'OK, [0-9]* rules' '$W/c1'"

cat >"$W/bad.rules" <<'EOF'
# every error class, one per line
unknown:q:1:*:\[a\]
range:f:100:*:\[a\]
other:o:7:*:\[a\]
regex:f:1:*:\[a(
mask:f:1:0:\[a\]
badmask:f:1:xyz:\[a\]
absent:f:1:@CPU1000@:\[a\]
#@irq dup:f:1:*:irq=1 irq=2
#@irq conflict:f:1:*:irq=1 irq-affinity=yes
good:f:1:*:\[a\]
EOF
# a mask naming CPU 1000 only: absent on any machine this runs on
cpu1000=1$(printf '%0250d' 0)
sed -i "s/@CPU1000@/$cpu1000/" "$W/bad.rules"
chmod 644 "$W/bad.rules"
"$RTIRQD" --check "$W/bad.rules" >"$W/c2.out" 2>"$W/c2"
rc=$?
check "--check exits 2 on errors" [ "$rc" -eq 2 ]
check "--check reports all 9 errors, none for the good line" \
	sh -c "[ \$(grep -c '^$W/bad.rules:[0-9]*: ' '$W/c2') -eq 9 ] && ! grep -q ':11: ' '$W/c2'"
for spec in "2:sched 'q'" "3:prio '100'" "4:prio '7'" "5:regex" \
	"6:affinity '0'" "7:affinity 'xyz'" "8:affinity '10*\\.\\.\\.': CPU 1000 not present" \
	"9:irq: duplicate option" "10:irq-affinity: 'yes' conflicts"; do
	line=${spec%%:*}
	msg=${spec#*:}
	check "--check: line $line names the field ($msg)" \
		grep -q "^$W/bad.rules:$line: $msg" "$W/c2"
done

mkdir -m 755 "$W/d"
printf 'a:f:1:*:x\n' >"$W/d/10-a.rtgroups"
printf 'b:f:1:*:(\n' >"$W/d/20-b.rtgroups"
chmod 644 "$W/d"/*
"$RTIRQD" --check "$W/d" 2>"$W/c3" >/dev/null
check "--check DIR checks its *.rtgroups files" \
	sh -c "[ $? -eq 2 ] && grep -q '20-b.rtgroups:1: regex' '$W/c3'"

cp "$W/d/10-a.rtgroups" "$W/ww.rules"
chmod 666 "$W/ww.rules"
"$RTIRQD" --check "$W/ww.rules" 2>"$W/c4" >/dev/null
check "--check refuses a world-writable rules file" \
	sh -c "[ $? -eq 2 ] && grep -q 'refusing: writable by others' '$W/c4'"

# ---------------------------------------------------------------- threads
"$HELPER" rt-alpha rt-beta other-x >"$W/helper.out" &
HPID=$!
wait_for grep -q other-x "$W/helper.out"
A=$(tid_of rt-alpha)
B=$(tid_of rt-beta)
X=$(tid_of other-x)
check "helper threads started" sh -c "[ -n '$A' ] && [ -n '$B' ] && [ -n '$X' ]"

cat >"$W/rules" <<'EOF'
# test rules: only names of the helper's threads
rt:f:11:*:^rt-
beta:r:12:1:^rt-beta$
late:f:21:*:^late-
EOF
chmod 644 "$W/rules"
R="-c $W/rules --no-config-dir --pid $HPID"

# shellcheck disable=SC2086
"$RTIRQD" $R --show >"$W/show" 2>&1
check "--show lists the helper's threads with their rule" \
	sh -c "grep -q '^ *$A rt-alpha .* OTHER .* rt ($W/rules:2)' '$W/show' &&
	       grep -q '^ *$B rt-beta .* beta ($W/rules:3)' '$W/show' &&
	       grep -q '^ *$X other-x .* -\$' '$W/show'"
check "--show prints the header" grep -q "PID  *THREAD  *IRQ  *ACTION  *POLICY  *PRIO  *AFFINITY  *RULE" "$W/show"

# shellcheck disable=SC2086
"$RTIRQD" $R --dry-run >"$W/dry" 2>&1
check "--dry-run says what it would set" \
	sh -c "grep -q 'would set pid $A \[rt-alpha\] FIFO 11 (rule .rt.' '$W/dry' &&
	       grep -q 'would set pid $B \[rt-beta\] RR 12, cpus 0 (rule .beta.' '$W/dry'"
check "--dry-run changes nothing" \
	sh -c "[ \"\$(sed 's/.*) //' /proc/$HPID/task/$A/stat | awk '{print \$39}')\" = 0 ]"

# shellcheck disable=SC2086
"$RTIRQD" $R --once >"$W/once" 2>&1
rc=$?
check "--once exits 0" [ "$rc" -eq 0 ]
check "--once: rt-alpha is SCHED_FIFO 11" has_pol "$A" "1 11"
check "--once: rt-beta is SCHED_RR 12 (last matching rule wins)" has_pol "$B" "2 12"
check "--once: rt-beta runs on CPU 0 only" [ "$(cpus "$B")" = 0 ]
check "--once: other-x matched nothing and is untouched" has_pol "$X" "0 0"

# ---------------------------------------------------------------- bad start
printf 'x:f:1:*:(\n' >"$W/broken"
chmod 644 "$W/broken"
# shellcheck disable=SC2086
"$RTIRQD" -c "$W/broken" --no-config-dir --pid "$HPID" --once >"$W/b1" 2>&1
check "invalid rules: exit 2, nothing applied" \
	sh -c "[ $? -eq 2 ] && grep -q 'broken:1: regex' '$W/b1'"
# shellcheck disable=SC2086
"$RTIRQD" -c "$W/ww.rules" --no-config-dir --pid "$HPID" --foreground >"$W/b2" 2>&1
check "the daemon refuses a world-writable rules file" \
	sh -c "[ $? -eq 2 ] && grep -q 'refusing' '$W/b2'"

# ---------------------------------------------------------------- daemon
# daemon_case SOURCE: new threads get their rule; SIGHUP semantics.
n_late=0
n_unnamed=1
late() {
	kill -USR1 "$HPID"
	wait_for grep -q "late-$1\$" "$W/helper.out"
	tid_of "late-$1"
}
daemon_case() {
	src=$1
	shift
	cp "$W/rules" "$W/live"
	chmod 644 "$W/live"
	log="$W/daemon-$src.log"
	# shellcheck disable=SC2086
	"$RTIRQD" -c "$W/live" --no-config-dir --pid "$HPID" --foreground \
		--event-source "$src" "$@" >"$log" 2>&1 &
	DPID=$!
	if ! wait_for log_has "$log" "ready:"; then
		nok "$src: daemon started"
		sed 's/^/# /' "$log"
		kill "$DPID"; DPID=
		return
	fi
	ok "$src: daemon started and logged ready"
	n_late=$((n_late + 1))
	T=$(late $n_late)
	check "$src: new thread late-$n_late gets SCHED_FIFO 21" wait_for has_pol "$T" "1 21"
	eff=$(sed -n 's/^CapEff:[[:space:]]*//p' "/proc/$DPID/status")
	check "$src: after start only CAP_SYS_NICE is left (CapEff $eff)" \
		[ "$eff" = 0000000000800000 ]
	bnd=$(sed -n 's/^CapBnd:[[:space:]]*//p' "/proc/$DPID/status")
	check "$src: bounding set is CAP_SYS_NICE only (CapBnd $bnd)" \
		[ "$bnd" = 0000000000800000 ]
	# a broken reload keeps the old rules
	printf 'late:f:30:*:^late-\nbad:z:1:*:x\n' >"$W/live.new"
	chmod 644 "$W/live.new"
	mv "$W/live.new" "$W/live"
	kill -HUP "$DPID"
	check "$src: bad reload is logged with file:line and kept" \
		wait_for sh -c "grep -q 'live:2: sched .z.' '$log' && grep -q 'reload failed: keeping the previous 3 rules' '$log'"
	n_late=$((n_late + 1))
	T2=$(late $n_late)
	check "$src: after a bad reload a new thread gets the old rule (FIFO 21)" \
		wait_for has_pol "$T2" "1 21"
	# a good reload applies to existing threads and new ones
	printf 'rt:f:11:*:^rt-\nbeta:r:12:1:^rt-beta$\nlate:f:22:*:^late-\nhelper:f:23:*:^threads_helper$\n' >"$W/live.new"
	chmod 644 "$W/live.new"
	mv "$W/live.new" "$W/live"
	kill -HUP "$DPID"
	check "$src: good reload re-applies to existing threads (FIFO 22)" \
		wait_for has_pol "$T" "1 22"
	n_late=$((n_late + 1))
	T3=$(late $n_late)
	check "$src: after the reload a new thread gets the new rule" \
		wait_for has_pol "$T3" "1 22"
	# a thread that keeps the process's name is waited for (it may be
	# renamed any moment, with no event to count on), then set anyway
	kill -USR2 "$HPID"
	wait_for sh -c "[ \$(grep -c ' threads_helper\$' '$W/helper.out') -ge $n_unnamed ]"
	U=$(awk '$2 == "threads_helper" {print $1}' "$W/helper.out" | tail -n 1)
	n_unnamed=$((n_unnamed + 1))
	check "$src: a never-renamed new thread is not set at once" \
		sh -c "sleep 0.2; ! grep -q 'set pid $U ' '$log'"
	check "$src: ... and gets its rule once the wait for a rename is over" \
		sh -c "i=0; while [ \$i -lt 100 ]; do grep -q 'set pid $U \\[threads_helper\\] FIFO 23' '$log' && exit 0; sleep 0.1; i=\$((i + 1)); done; exit 1"
	kill -TERM "$DPID"
	wait "$DPID"
	rc=$?
	DPID=
	check "$src: exits 0 on SIGTERM" [ "$rc" -eq 0 ]
	if grep -q 'ERROR: \(Address\|Leak\)Sanitizer\|runtime error' "$log"; then
		nok "$src: sanitizers clean"
		sed 's/^/# /' "$log" | tail -n 30
	else
		ok "$src: sanitizers clean"
	fi
}
daemon_case netlink
daemon_case rescan --rescan-interval 50

# ---------------------------------------------------------------- irq path
# A fake /proc and /sys (--proc-root, --sys-root) present two of the
# helper's threads as kernel irq threads: irq/5-rtirqd-fa (its full action
# name only in the fake /sys/kernel/irq/5/threads) and irq/6-s-other.
# Only these real tids are in the fake tree, so only they can be changed.
# /proc/irq/N/smp_affinity_list are plain files here.
F=$W/fake
mkdir -p "$F/proc/irq/5" "$F/proc/irq/6/other" "$F/sys/kernel/irq/5" \
	"$F/sys/kernel/irq/6" "$F/sys/kernel/irq/7"
: >"$F/proc/irq/5/smp_affinity_list"
: >"$F/proc/irq/6/smp_affinity_list"
. tests/fake-proc.sh
fake_kthread "$X" irq/5-rtirqd-fa
fake_kthread "$A" irq/6-s-other
echo "$X rtirqd-fake-device primary" >"$F/sys/kernel/irq/5/threads"
echo "1 unrelated primary" >"$F/sys/kernel/irq/6/threads"
printf '%s\n' 'all-irq:f:40:*:^\[irq/' \
	'#@irq dev:f:45:1:action=^rtirqd-fake-device$ irq=5' \
	'#@irq sec:r:44:*:irq=6 thread=secondary' >"$W/irq.rules"
chmod 644 "$W/irq.rules"
FR="-c $W/irq.rules --no-config-dir --proc-root $F/proc --sys-root $F/sys"
chrt -o -p 0 "$X"
chrt -o -p 0 "$A"
taskset -a -p 3 "$HPID" >/dev/null 2>&1
# shellcheck disable=SC2086
"$RTIRQD" $FR --show >"$W/fshow" 2>&1
check "irq path --show: irq and full action name from the kernel map" \
	grep -q "^ *$X irq/5-rtirqd-fa  *5 rtirqd-fake-device .* dev ($W/irq.rules:2)" "$W/fshow"
check "irq path --show: secondary thread, action from /proc/irq/6/" \
	grep -q "^ *$A irq/6-s-other  *6 other .* sec ($W/irq.rules:3)" "$W/fshow"
# shellcheck disable=SC2086
"$RTIRQD" $FR --once >"$W/fonce" 2>&1
check "irq path --once: #@irq action= rule sets FIFO 45" has_pol "$X" "1 45"
check "irq path --once: thread affinity CPU 0" [ "$(cpus "$X")" = 0 ]
check "irq path --once: irq affinity written with the thread's (smp_affinity_list 0)" \
	[ "$(cat "$F/proc/irq/5/smp_affinity_list")" = 0 ]
check "irq path --once: thread=secondary rule sets RR 44" has_pol "$A" "2 44"
check "irq path --once: a rule without a mask leaves the irq affinity alone" \
	[ ! -s "$F/proc/irq/6/smp_affinity_list" ]

# daemon on the fake tree: a new "irq thread" appears; only it is set.
# X and A have run (their stat shows the kernel's default FIFO 50).
fake_kthread "$X" irq/5-rtirqd-fa 50 1
fake_kthread "$A" irq/6-s-other 50 1
chrt -o -p 0 "$X"
chrt -o -p 0 "$A"
n_late=$((n_late + 1))
L=$(late $n_late)
# shellcheck disable=SC2086
"$RTIRQD" $FR --foreground --event-source rescan --rescan-interval 50 >"$W/fd.log" 2>&1 &
DPID=$!
wait_for log_has "$W/fd.log" "ready:"
check "irq path daemon: the start-up pass sets the existing irq threads" has_pol "$X" "1 45"
sleep 1	# well past the 20/200 ms re-checks of the start-up pass
chrt -o -p 0 "$X"
echo "$L late-device primary" >"$F/sys/kernel/irq/7/threads"
# created but not run yet: still SCHED_OTHER, its FIFO 50 default to come
fake_kthread "$L" irq/7-late 0 0
sleep 0.3
check "irq path daemon: a new irq thread that has not run yet is left alone" \
	sh -c "! grep -q 'set pid $L ' '$W/fd.log'"
fake_kthread "$L" irq/7-late 50 1
check "irq path daemon: once it has its default (FIFO 50) it gets its rule (FIFO 40)" \
	wait_for has_pol "$L" "1 40"
sleep 0.3
check "irq path daemon: a known thread is not set again on later scans" \
	has_pol "$X" "0 0"
check "irq path daemon: exactly one 'set' line for the new thread" \
	[ "$(grep -c "set pid $L " "$W/fd.log")" -eq 1 ]
kill -TERM "$DPID"
wait "$DPID"
DPID=
check "irq path daemon: sanitizers clean" sh -c "! grep -q 'Sanitizer\|runtime error' '$W/fd.log'"

# ---------------------------------------------------------------- bench helper
# rtirqd-bench against a stand-in for rtlab_irqsim: a FIFO whose reader
# starts a process named irq/9-<name> on "request" and kills it on "free".
# The new "thread" is SCHED_OTHER 0 from the start, so --expect o:0 checks
# the tool's mechanics (create, find via /proc, measure, hold, free, wait
# for the exit, summary, JSON) without any daemon.
mkfifo "$W/ctl"
(
	# opened read-write: the FIFO never sees EOF, so no write is lost
	# between two opens by rtirqd-bench
	exec 3<>"$W/ctl"
	while read -r cmd name <&3; do
		case $cmd in
		request) "$HELPER" --comm "irq/9-$name" --status "$W/status" 0 9 >/dev/null &
			 echo $! >"$W/sim.pid" ;;
		free) rm -f "$W/status"
		      kill "$(cat "$W/sim.pid")"
		      wait "$(cat "$W/sim.pid")" ;;
		quit) exit 0 ;;
		esac
	done
) &
SIM=$!
NL='
'
./build/rtirqd-bench-san --ctl "$W/ctl" --request "request %s$NL" \
	--free "free %s$NL" --name rtirqd-sim --expect o:0 --cycles 5 \
	--hold-ms 1 --timeout-ms 3000 --label t --json "$W/b.json" >"$W/b.out" 2>&1
rc=$?
sed "s/^/# /" "$W/b.out"
check "rtirqd-bench: 5 cycles measured against a stand-in irq thread" \
	sh -c "[ $rc -eq 0 ] && grep -q '^t  *cycles=5 measured=5 median_us=[0-9.]* .*timeouts=0 notfound=0 overwritten=0 errors=0' '$W/b.out'"
check "rtirqd-bench: JSON summary line" \
	grep -q '^{"label": "t", "cycles": 5, "measured": 5, "median_us": [0-9.]*,' "$W/b.json"
./build/rtirqd-bench-san --ctl "$W/ctl" --request "request %s$NL" \
	--free "free %s$NL" --name rtirqd-sim --expect f:77 --cycles 2 \
	--timeout-ms 300 --label never >"$W/b2.out" 2>&1
rc=$?
sed "s/^/# /" "$W/b2.out"
check "rtirqd-bench: a policy never applied is a timeout and a failure" \
	sh -c "[ $rc -eq 1 ] && grep -q 'measured=0 .*timeouts=2' '$W/b2.out'"
./build/rtirqd-bench-san --ctl "$W/ctl" --request "request %s$NL" \
	--free "free %s$NL" --name rtirqd-sim --expect o:0 --cycles 3 \
	--status "$W/status" --timeout-ms 3000 --label st >"$W/b3.out" 2>&1
rc=$?
check "rtirqd-bench --status: t0 and irq from the status line" \
	sh -c "[ $rc -eq 0 ] && grep -q '^st  *cycles=3 measured=3 .*errors=0' '$W/b3.out'"
echo "quit x" >"$W/ctl"
wait "$SIM" 2>/dev/null

# automatic detection on a kernel without the rtlab irq notification
# shellcheck disable=SC2086
"$RTIRQD" $R --foreground --dry-run >"$W/auto.log" 2>&1 &
DPID=$!
wait_for log_has "$W/auto.log" "ready:"
if [ -e /sys/kernel/irq/generation ]; then
	check "auto: uses the sysfs irq notification" grep -q "irq threads via sysfs" "$W/auto.log"
else
	check "auto: no irq notification here: fallback logged once" \
		[ "$(grep -c 'no irq change notification' "$W/auto.log")" -eq 1 ]
fi
kill -TERM "$DPID"
wait "$DPID"
DPID=

# a forced source the kernel lacks is an error, not a silent fallback
if [ ! -e /sys/kernel/irq/generation ]; then
	# shellcheck disable=SC2086
	"$RTIRQD" $R --foreground --dry-run --event-source sysfs >"$W/forced.log" 2>&1
	check "forced --event-source sysfs without kernel support fails" \
		sh -c "[ $? -eq 1 ] && grep -q 'event source sysfs' '$W/forced.log'"
fi
exit 0
