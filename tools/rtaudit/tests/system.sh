#!/bin/sh
# rtaudit system on a fake /proc + /sys tree (--root): a machine set up
# badly in every way the audit knows, the exact ranked findings; one set
# up well; the running config against a saved baseline; bad input.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
FAKE_RTIRQD_LOG=$work/rtirqd.log
export FAKE_RTIRQD_LOG

# put ROOT RELPATH CONTENT...
put() {
	mkdir -p "$(dirname "$1$2")"
	f=$1$2
	shift 2
	printf '%s\n' "$@" >"$f"
}

# A 4-CPU machine with slow clocks, isolation mistakes and the usual
# power and memory defaults.
bad=$work/bad
cs=/sys/devices/system/clocksource/clocksource0
put $bad /sys/devices/system/cpu/online 0-3
put $bad $cs/current_clocksource hpet
put $bad $cs/available_clocksource "hpet acpi_pm "
put $bad /proc/cpuinfo "processor	: 0" "flags		: fpu tsc msr constant_tsc rep_good" ""
put $bad /dev/kmsg "6,1,100,-;clocksource: Switched to clocksource tsc-early" \
	"6,2,200,-;tsc: Marking TSC unstable due to boot parameter" \
	"6,3,300,-;clocksource: Switched to clocksource hpet"
put $bad /proc/cmdline "console=ttyS0 isolcpus=domain,managed_irq,1-3 nohz_full=0-2 irqaffinity=0-3 rcu_nocbs=1-7 tsc=unstable clocksource=hpet"
put $bad /sys/kernel/tracing/trace_clock "[local] global counter uptime perf mono mono_raw boot x86-tsc"
put $bad /sys/kernel/tracing/tracing_cpumask f
put $bad /sys/kernel/tracing/instances/lat/trace_clock "local [global] counter"
put $bad /sys/kernel/tracing/instances/one/trace_clock "[local] global"
put $bad /sys/kernel/tracing/instances/one/tracing_cpumask 2
put $bad /proc/sys/kernel/sched_rt_runtime_us 950000
put $bad /proc/sys/kernel/sched_rt_period_us 1000000
put $bad /proc/sys/kernel/timer_migration 1
for c in 0 1 2 3; do put $bad /sys/devices/system/cpu/cpu$c/cpufreq/scaling_governor schedutil; done
i=0
for st in "POLL 0" "C1 2" "C6 133"; do
	set -- $st
	put $bad /sys/devices/system/cpu/cpu0/cpuidle/state$i/name "$1"
	put $bad /sys/devices/system/cpu/cpu0/cpuidle/state$i/latency "$2"
	put $bad /sys/devices/system/cpu/cpu0/cpuidle/state$i/disable 0
	i=$((i + 1))
done
put $bad /sys/devices/system/cpu/smt/active 1
put $bad /sys/kernel/mm/transparent_hugepage/enabled "[always] madvise never"
put $bad /sys/kernel/mm/transparent_hugepage/defrag "always defer defer+madvise [madvise] never"
put $bad /proc/swaps "Filename	Type	Size	Used	Priority" "/dev/sda2	partition	999420	0	-2"
put $bad /proc/irq/9/smp_affinity_list 0
put $bad /proc/irq/10/smp_affinity_list 0-3
put $bad /proc/irq/11/smp_affinity_list 2
gzip -c $FIX/lab-rt-debug.config >$bad/proc/config.gz

$RTAUDIT --rules "$RULES" system --root $bad --rtirqd tests/fake-rtirqd \
	--baseline $FIX/lab-rt.config >"$work/bad.txt"
status "system on a badly set up machine" 2 $?
ranked "$work/bad.txt" | grep -v ' config CONFIG_' >"$work/bad.ranked"
same "system: exact ranked findings of the bad machine" $EXP/system-bad.ranked "$work/bad.ranked"
if grep -q -- "--show --proc-root $bad/proc --sys-root $bad/sys" "$FAKE_RTIRQD_LOG" &&
	grep -q -- "--check" "$FAKE_RTIRQD_LOG"; then
	pass "system asks rtirqd --check and --show, with the root prefix"
else
	fail "system did not run rtirqd as expected: $(cat "$FAKE_RTIRQD_LOG")"
fi
# the running config (proc/config.gz: rt-debug) against the baseline (rt)
ranked "$work/bad.txt" | grep ' config CONFIG_' |
	sed -E 's/^ *[0-9]+ +//; s/ config / /' | awk '{ $1 = $1; print }' >"$work/base.got"
sed -E 's/^ *[0-9]+ +//' $EXP/rt-to-rt-debug.ranked | awk '{ $1 = $1; print }' >"$work/base.want"
same "system: running config against the baseline = rtaudit config rt -> rt-debug" "$work/base.want" "$work/base.got"
first=$(ranked "$work/bad.txt" | grep ' config CONFIG_' | head -n 1)
case $first in
*"problem config CONFIG_LOCKDEP:"*) pass "system: lockdep is the first config finding" ;;
*) fail "system: first config finding is $first" ;;
esac

# A well set up machine: only info, exit 0
good=$work/good
put $good /sys/devices/system/cpu/online 0-1
put $good $cs/current_clocksource tsc
put $good $cs/available_clocksource "tsc hpet acpi_pm "
put $good /proc/cpuinfo "processor	: 0" "flags		: fpu tsc constant_tsc nonstop_tsc tsc_reliable" ""
put $good /dev/kmsg "6,1,100,-;clocksource: Switched to clocksource tsc"
put $good /proc/cmdline "console=ttyS0 isolcpus=1 nohz_full=1 rcu_nocbs=1 irqaffinity=0 skew_tick=1"
put $good /sys/kernel/realtime 1
put $good /sys/kernel/tracing/trace_clock "local global counter uptime perf [mono] mono_raw boot"
put $good /proc/sys/kernel/sched_rt_runtime_us -1
put $good /proc/sys/kernel/sched_rt_period_us 1000000
put $good /proc/sys/kernel/timer_migration 0
for c in 0 1; do put $good /sys/devices/system/cpu/cpu$c/cpufreq/scaling_governor performance; done
put $good /sys/devices/system/cpu/smt/active 0
put $good /sys/kernel/mm/transparent_hugepage/enabled "always [madvise] never"
put $good /proc/swaps "Filename	Type	Size	Used	Priority"
put $good /proc/irq/9/smp_affinity_list 0
cp $FIX/lab-rt.config $good/proc/config.plain
gzip -c $FIX/lab-rt.config >$good/proc/config.gz
$RTAUDIT --json --rules "$RULES" system --root $good --rtirqd /nonexistent/rtirqd \
	--baseline $FIX/lab-rt.config >"$work/good.json"
status "system on a well set up machine" 0 $?
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = {f["severity"] for f in d["findings"]}
assert s == {"info"}, s
subj = {f["subject"] for f in d["findings"]}
for want in ("clocksource", "tsc.nonstop_tsc", "trace_clock[top]", "rt-throttling",
             "timer_migration", "cpufreq", "smt", "thp", "swap", "irq-threads",
             "config.baseline", "kernel-log"):
    assert want in subj, want
assert all(f.get("evidence") for f in d["findings"])
' "$work/good.json"; then
	pass "system --json on a good machine: only info findings, each with evidence"
else
	fail "system --json on a good machine"
fi

# baseline save from the fake root, then compare: same config, nothing found
$RTAUDIT baseline save --root $good --baseline "$work/state/baseline.config" >"$work/save.txt"
status "baseline save" 0 $?
$RTAUDIT --rules "$RULES" config "$work/state/baseline.config" $FIX/lab-rt.config >"$work/saved.txt"
if sed -n 2p "$work/saved.txt" | grep -q '^0 findings'; then
	pass "baseline save: the saved file is the running config (0 changes)"
else
	fail "baseline save: $(sed -n 2p "$work/saved.txt")"
fi

# Mainline PREEMPT_RT (6.12 on) has no /sys/kernel/realtime: the version
# string says PREEMPT_RT, and threadirqs is then not asked for (the lab's
# guest showed the false warning)
for v in "#1 SMP PREEMPT_RT Sat Oct 21 09:00:00 UTC 2017" "#1 SMP PREEMPT_DYNAMIC Sat Oct 21 09:00:00 UTC 2017"; do
	cp -r $good $work/m && rm $work/m/sys/kernel/realtime
	put $work/m /proc/sys/kernel/version "$v"
	$RTAUDIT --rules "$RULES" system --root $work/m --rtirqd /nonexistent/rtirqd \
		--baseline $FIX/lab-rt.config >"$work/m.txt"
	case "$v:$(grep -c 'cmdline.threadirqs: absent' "$work/m.txt")" in
	*PREEMPT_RT*:0 | *PREEMPT_DYNAMIC*:1) pass "system: RT detected from the version string ($v)" ;;
	*) fail "system: $v: $(grep 'cmdline.threadirqs' "$work/m.txt")" ;;
	esac
	rm -rf $work/m
done

# bad input: an unreadable /sys file, garbage in /proc/sys
cp -r $good $work/u
rm $work/u$cs/current_clocksource
mkdir $work/u$cs/current_clocksource
bad_input "system: unreadable sysfs file" \
	"^rtaudit: $work/u$cs/current_clocksource: cannot read: Is a directory" \
	$RTAUDIT --rules "$RULES" system --root $work/u --rtirqd /nonexistent
cp -r $good $work/g
put $work/g /proc/sys/kernel/sched_rt_runtime_us "lots"
bad_input "system: garbage in a sysctl" \
	"^rtaudit: $work/g/proc/sys/kernel/sched_rt_runtime_us:1: expected a number" \
	$RTAUDIT --rules "$RULES" system --root $work/g --rtirqd /nonexistent
cp -r $good $work/t
put $work/t /sys/kernel/tracing/trace_clock "local global"
bad_input "system: trace_clock without a selection" \
	"^rtaudit: $work/t/sys/kernel/tracing/trace_clock:1: no \\[selected\\]" \
	$RTAUDIT --rules "$RULES" system --root $work/t --rtirqd /nonexistent
cp -r $good $work/c
head -c 3000 $FIX/lab-rt.config >$work/c/proc/config.plain
gzip -c $work/c/proc/config.plain >$work/c/proc/config.gz
bad_input "system: truncated running config" "^rtaudit: $work/c/proc/config.gz:[0-9]+: truncated" \
	$RTAUDIT --rules "$RULES" system --root $work/c --rtirqd /nonexistent --baseline $FIX/lab-rt.config
exit 0
