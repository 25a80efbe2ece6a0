#!/bin/sh
# Host tests of every rtctl difference of issue 17, in both readings:
# rtirqd's (default: differences warned about at load, bad lines refuse
# the set) and --compat=rtctl (rtctl's exactly).  Read-only: --show and
# --check on a fake /proc of kernel threads whose pids no task has, so no
# thread is ever changed.
# Prints "ok - ..." / "not ok - ..." lines for tests/run-check.sh.
cd "$(dirname "$0")/.." || exit 1
RTIRQD=${RTIRQD:-./build/rtirqd-san}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
W=$(mktemp -d /tmp/rtirqd-compat.XXXXXX)
chmod 755 "$W"
trap 'rm -rf "$W"' EXIT

ok() { echo "ok - $*"; }
nok() { echo "not ok - $*"; }
check() { d=$1; shift; if "$@"; then ok "$d"; else nok "$d"; fi; }

# fake kernel threads (pids above any pid_max)
F=$W/fake
mkdir -p "$F/proc" "$F/sys/kernel/irq"
. tests/fake-proc.sh
PME=10000001 ETH=10000002 SOFT=10000003 RCU=10000004 KW=10000005
fake_kthread $PME "irq/24-PCIe PME" 50 1
fake_kthread $ETH "irq/30-eth0"
fake_kthread $SOFT "ksoftirqd/0"
fake_kthread $RCU "rcu_preempt"
fake_kthread $KW "kworker/0:1"
DASH=10000007
fake_kthread $DASH "irq-work"

rules() {	# name, lines on stdin
	cat >"$W/$1"
	chmod 644 "$W/$1"
}
# show MODE FILE: --show output (stdout+stderr) in $W/out, status in $rc
show() {
	m=$1 f=$2
	shift 2
	if [ "$m" = rtctl ]; then set -- --compat=rtctl "$@"; fi
	# shellcheck disable=SC2086
	"$RTIRQD" --proc-root "$F/proc" --sys-root "$F/sys" -c "$W/$f" \
		--no-config-dir --show "$@" >"$W/out" 2>&1
	rc=$?
}
# rule_of PID: the rule name --show printed for PID ("-": none)
rule_of() {
	awk -v p="$1" '$1 == p { print $NF == "-" ? "-" : $(NF - 1) }' "$W/out"
}
is_rule() { [ "$(rule_of "$1")" = "$2" ]; }
warned() { grep -q "^$W/$1:$2: warning: rtctl would $3" "$W/out"; }

# ---- 1. the name is matched up to its first blank
rules blank <<'EOF2'
full:f:50:*:^\[irq/24-PCIe PME\]$
cut:f:51:*:^\[irq/24-PCIe$
EOF2
show default blank
check "blank, default: '[irq/24-PCIe PME]' matched in full" is_rule $PME full
check "blank, default: a regex with a blank is warned about" warned blank 1 "match thread names only up to their first blank"
show rtctl blank
check "blank, rtctl: matched as '[irq/24-PCIe' (no closing bracket)" is_rule $PME cut

# ---- 2. priority '*'
rules star <<'EOF2'
all:f:10:*:^\[
keep:*:*:*:^\[ksoftirqd
EOF2
show default star
check "prio *, default: a 'leave alone' rule that wins" is_rule $SOFT keep
check "prio *, default: warned (rtctl would ignore the line)" warned star 2 "ignore this line (priority '\*')"
show rtctl star
check "prio *, rtctl: the line is ignored" is_rule $SOFT all

# ---- 3. bad lines: rtctl applies the good ones
rules bad <<'EOF2'
good:f:10:*:^\[kworker
broken:f:1:*:[a(
EOF2
show default bad
check "bad line, default: the set is refused (exit 2, file:line)" \
	sh -c "[ $rc -eq 2 ] && grep -q '^$W/bad:2: regex' '$W/out'"
show rtctl bad
check "bad line, rtctl: the good line applies" is_rule $KW good
check "bad line, rtctl: the bad one is skipped with a warning" \
	sh -c "[ $rc -eq 0 ] && grep -q '^$W/bad:2: warning: line skipped, as rtctl would: regex' '$W/out'"
"$RTIRQD" --compat=rtctl --check "$W/bad" >/dev/null 2>&1
check "bad line, rtctl: --check still fails on a skipped line" [ $? -eq 2 ]

cpu1000=1$(printf '%0250d' 0)
printf 'mask:f:12:%s:^\\[kworker\n' "$cpu1000" | rules absent
show default absent
check "absent CPUs, default: refused" sh -c "[ $rc -eq 2 ] && grep -q 'not present' '$W/out'"
show rtctl absent
check "absent CPUs, rtctl: the policy applies (taskset fails, chrt does not)" is_rule $KW mask

printf 'empty:f:7:*:\n' | rules empty
show default empty
check "empty regex, default: refused" sh -c "[ $rc -eq 2 ] && grep -q 'empty regex' '$W/out'"
show rtctl empty
check "empty regex, rtctl: matches every thread" \
	sh -c "[ \"\$(awk 'NR > 1 && \$NF != \"-\"' '$W/out' | wc -l)\" -eq 6 ]"

# ---- 4. awk EREs: '\[irq[\-_/].*\]' means '[irq-', '[irq_' or '[irq/'
rules awk <<'EOF2'
hard:f:50:*:\[irq[\-_/].*\]
EOF2
# rtctl on NI Linux RT runs busybox awk, which hands the string to
# regcomp() as it is: observed, busybox awk 1.35 matched [irq/30-eth0]
# and not [irq-work] with this line (mawk and gawk match both).
for m in default rtctl; do
	show $m awk
	check "awk ERE, $m: '[\\-_/]' matches '/' ([irq/30-eth0])" is_rule $ETH hard
done
show default awk
check "awk ERE, default: ... and '-' ([irq-work]; POSIX reads '\\-_' as a range without '-')" is_rule $DASH hard
check "awk ERE, default: warned (busybox awk reads it as POSIX does)" warned awk 1 "read this regex as POSIX regcomp"
show rtctl awk
check "busybox ERE, rtctl: '[\\-_/]' is the range '\\'-'_' plus '/', no '-' ([irq-work] unmatched)" is_rule $DASH -
printf 'dash:f:50:*:^\\[k[\\-x]\n' | rules awkdash
fake_kthread 10000006 "k-thread"
show default awkdash
check "awk ERE: '[\\-x]' holds a literal '-'" is_rule 10000006 dash
rm -r "$F/proc/10000006"

# ---- 5. indented lines and group names outside [A-Za-z0-9_-]
rules indent <<'EOF2'
 ind:f:10:*:^\[rcu
EOF2
show default indent
check "indented, default: applied" is_rule $RCU ind
check "indented, default: warned" warned indent 1 "ignore this indented line"
show rtctl indent
check "indented, rtctl: ignored" is_rule $RCU -
rules gname <<'EOF2'
rcu.x:f:10:*:^\[rcu
EOF2
show default gname
check "group name with '.', default: applied" is_rule $RCU rcu.x
check "group name with '.', default: warned" warned gname 1 "ignore this line (group name 'rcu.x'"
show rtctl gname
check "group name with '.', rtctl: ignored" is_rule $RCU -

# ---- 6. DOS line ends
printf 'rcu:f:10:*:^\\[rcu_preempt\\]$\r\n' | rules dos
show default dos
check "DOS CR, default: dropped, the '\$' rule matches" is_rule $RCU rcu
check "DOS CR, default: warned" warned dos 1 "keep the DOS line ends"
show rtctl dos
check "DOS CR, rtctl: kept, the '\$' rule never matches" is_rule $RCU -

# ---- 7. -c (rtctl --file) and the drop-in directory
mkdir -m 755 "$W/etc" "$W/etc/rtgroups.d"
printf 'base:f:5:*:^\\[\n' >"$W/etc/rtgroups"
printf 'drop:f:6:*:^\\[kworker\n' >"$W/etc/rtgroups.d/10-drop.rtgroups"
printf 'other:f:7:*:^\\[\n' >"$W/etc/other"
chmod 644 "$W/etc/rtgroups" "$W/etc/rtgroups.d/10-drop.rtgroups" "$W/etc/other"
fshow() {
	"$RTIRQD" --proc-root "$F/proc" --sys-root "$F/sys" \
		--config-base "$W/etc/rtgroups" --show "$@" >"$W/out" 2>&1
}
fshow -c "$W/etc/other"
check "-c, default: the drop-in directory is read too" is_rule $KW drop
check "-c, default: warned (rtctl --file would not read it)" \
	grep -q "warning: rtctl --file would not read $W/etc/rtgroups.d" "$W/out"
fshow -c "$W/etc/other" --compat=rtctl
check "-c, rtctl: no drop-in directory" is_rule $KW other

# ---- 8. /etc/rtgroups-$(uname -r) first
printf 'kernel:f:8:*:^\\[\n' >"$W/etc/rtgroups-$(uname -r)"
chmod 644 "$W/etc/rtgroups-$(uname -r)"
for m in default rtctl; do
	if [ $m = rtctl ]; then fshow --compat=rtctl; else fshow; fi
	check "rtgroups-\$(uname -r), $m: read instead of rtgroups" is_rule $RCU kernel
	check "rtgroups-\$(uname -r), $m: drop-ins still read" is_rule $KW drop
done

# ---- 9. issue 41 item 2: rtctl's reading of fields, masks and priorities.
# Each expectation was observed by running rtctl's reset awk program
# (NI's meta-nilrt rtctl 1.13 with its two patches) under busybox awk 1.35
# on the same rules and a "pid [comm]" list of these threads, then the
# chrt (util-linux) and taskset (busybox) commands it printed on a
# sleeping process of our own.
MIG=10000008 WD=10000009
fake_kthread $MIG "migration/0"
fake_kthread $WD "watchdog/0"
# NI's shipped line: awk printed "chrt -p -f 2" for [rcu_preempt] only
rules four <<'EOF2'
rcu_preempt:f:2:\[rcu_preempt\]$
EOF2
for m in default rtctl; do
	show $m four
	check "four fields, $m: name:sched:prio:regex, [rcu_preempt] at FIFO 2" is_rule $RCU rcu_preempt
	check "four fields, $m: no other thread matched (migration, kworker, irq)" \
		sh -c "[ \"\$(awk 'NR > 1 && \$NF != \"-\"' '$W/out' | wc -l)\" -eq 1 ]"
done
show default four
check "four fields, default: no warning" sh -c "! grep -q warning '$W/out'"
# the regex is the rest of the line: [kworker/0:1] matched
rules colon <<'EOF2'
all:f:1:*:^\[
col:f:20:*:^\[kworker/0:1\]$
EOF2
for m in default rtctl; do
	show $m colon
	check "colon in the regex, $m: kept, [kworker/0:1] matched" is_rule $KW col
done
show default colon
check "colon in the regex, default: no warning" sh -c "! grep -q warning '$W/out'"
# the last match wins whatever its priority; chrt then failed
# ("chrt -p -f 0", "-f 100", "-o 5": exit 1, the policy unchanged)
rules prio <<'EOF2'
all:f:10:*:^\[
zero:f:0:*:^\[ksoftirqd
big:f:100:*:^\[migration
oth:o:5:*:^\[watchdog
EOF2
show rtctl prio
check "prio 0 with f, rtctl: the rule still wins (chrt fails)" is_rule $SOFT zero
check "prio 100 with f, rtctl: the rule still wins" is_rule $MIG big
check "prio 5 with o, rtctl: the rule still wins" is_rule $WD oth
check "bad prio, rtctl: the policy is left as it is" \
	sh -c "awk '\$1 == $SOFT || \$1 == $MIG || \$1 == $WD' '$W/out' | grep -c OTHER | grep -qx 3"
check "bad prio, rtctl: warned with file:line" \
	sh -c "[ \$(grep -c '^$W/prio:[234]: warning: prio .*chrt would fail' '$W/out') -eq 3 ]"
"$RTIRQD" --compat=rtctl --check "$W/prio" >/dev/null 2>&1
check "bad prio, rtctl: --check passes (not a skipped line)" [ $? -eq 0 ]
show default prio
check "bad prio, default: refused (exit 2)" sh -c "[ $rc -eq 2 ] && grep -q '^$W/prio:2: prio' '$W/out'"
# busybox taskset: "bad affinity '1,00000001'", mask unchanged
printf 'comma:f:7:1,00000001:^\\[rcu\n' | rules comma
show rtctl comma
check "comma mask, rtctl: the rule applies" is_rule $RCU comma
check "comma mask, rtctl: warned, affinity left (taskset refuses it)" \
	grep -q "^$W/comma:1: warning: affinity '1,00000001': busybox taskset refuses" "$W/out"
printf 'comma:f:7:00000000,00000001:^\\[rcu\n' | rules comma2
show default comma2
check "comma mask, default: accepted, warned" warned comma2 1 "leave the affinity as it is: busybox taskset refuses a mask with commas"
# "taskset -p  1  PID": the shell dropped the blanks, mask set
printf 'blank:f:8: 1 :^\\[rcu\n' | rules blankmask
for m in default rtctl; do
	show $m blankmask
	check "blanks around the mask, $m: taken (no error, no warning)" \
		sh -c "[ $rc -eq 0 ] && ! grep -q 'warning\|affinity' '$W/out'"
	check "blanks around the mask, $m: the rule applies" is_rule $RCU blank
done
# a regex that is no ERE is read as a BRE by busybox awk: '\[a(' is the
# literal "[a(" (observed: no thread matched, the earlier rule applied)
rules bre <<'EOF2'
all:f:1:*:^\[
lit:f:2:*:\[a(
EOF2
fake_kthread 10000010 "a(b"
show rtctl bre
check "BRE fallback, rtctl: '\\[a(' matches [a(b] literally" is_rule 10000010 lit
check "BRE fallback, rtctl: other threads keep the earlier rule" is_rule $KW all
check "BRE fallback, rtctl: warned, not skipped" \
	sh -c "[ $rc -eq 0 ] && grep -q '^$W/bre:2: warning: regex .*basic regex' '$W/out'"
rm -r "$F/proc/10000010"
# busybox awk: "awk: bad regex '[abc'" and exit 1, part-way
printf 'all:f:1:*:^\\[\nbad:f:2:*:[abc\n' | rules abort
show rtctl abort
check "regex neither ERE nor BRE, rtctl: skipped, said that awk would exit there" \
	grep -q "^$W/abort:2: warning: line skipped, as rtctl would: .*busybox awk would exit" "$W/out"
rm -r "$F/proc/$MIG" "$F/proc/$WD"

# ---- the shipped corpus: rtctl's own file reads the same but for '*'
"$RTIRQD" --check tests/corpus/rtctl.rtgroups >"$W/out" 2>&1
check "corpus rtctl.rtgroups, default: accepted, the '*' lines warned" \
	sh -c "[ $? -eq 0 ] && [ \$(grep -c 'warning: rtctl would ignore this line (priority' '$W/out') -eq 2 ]"
if grep -q 'Sanitizer\|runtime error' "$W"/out 2>/dev/null; then nok "sanitizers clean"; else ok "sanitizers clean"; fi
exit 0
