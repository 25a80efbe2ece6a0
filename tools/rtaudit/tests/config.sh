#!/bin/sh
# rtaudit config on saved configs: the exact ranked findings of the lab's
# rt -> rt-debug, the lab's rt -> Debian's stock 6.12 config, a synthetic
# upgrade with renamed and vanished options (with and without Kconfig
# trees), /proc/config.gz input, JSON, and bad input.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
work=$(mktemp -d)
trap 'chmod -R u+rwx "$work"; rm -rf "$work"' EXIT

# 1. the lab's two variants: debugging options, lockdep first
$RTAUDIT --rules "$RULES" config $FIX/lab-rt.config $FIX/lab-rt-debug.config >"$work/rtdbg.txt"
status "config rt -> rt-debug" 2 $?
ranked "$work/rtdbg.txt" >"$work/rtdbg.ranked"
same "config rt -> rt-debug: exact ranked findings" $EXP/rt-to-rt-debug.ranked "$work/rtdbg.ranked"

# 2. the lab's rt -> Debian's stock 6.12 amd64 config (linux-headers .config):
# every finding the rules know, in order, and the tallies (the thousands
# of "impact unknown" options are counted, and listed in the output)
$RTAUDIT --rules "$RULES" config $FIX/lab-rt.config $FIX/debian-6.12.118-amd64.config >"$work/deb.txt"
status "config rt -> debian" 2 $?
{ sed -n 2p "$work/deb.txt"; ranked "$work/deb.txt" | grep -v ' unknown '; } >"$work/deb.ranked"
same "config rt -> debian: exact ranked known findings and tallies" $EXP/rt-to-debian.ranked "$work/deb.ranked"
n=$(ranked "$work/deb.txt" | grep -c ' unknown .*: ')
w=$(grep -c 'why: changed, impact unknown' "$work/deb.txt")
if [ "$n" -gt 0 ] && [ "$n" = "$w" ]; then
	pass "config rt -> debian: $n options of unknown impact listed, each said so"
else
	fail "config rt -> debian: unknown options $n, \"impact unknown\" lines $w"
fi
last=$(ranked "$work/deb.txt" | tail -n 1)
case $last in
*" noise "*) pass "config rt -> debian: noise ranked last ($last)" ;;
*) fail "config rt -> debian: last finding is not noise: $last" ;;
esac

# 3. synthetic upgrade: options renamed (rules' [renames]) and one that
# vanished from Kconfig (--tree)
$RTAUDIT --rules "$RULES" config $FIX/upgrade-old.config $FIX/upgrade-new.config >"$work/up.txt"
status "config upgrade (no trees)" 1 $?
ranked "$work/up.txt" >"$work/up.ranked"
same "config upgrade: renamed options found from the rules" $EXP/upgrade.ranked "$work/up.ranked"
$RTAUDIT --rules "$RULES" config --tree $FIX/tree-old --tree $FIX/tree-new \
	$FIX/upgrade-old.config $FIX/upgrade-new.config >"$work/upt.txt"
status "config upgrade --tree" 1 $?
ranked "$work/upt.txt" >"$work/upt.ranked"
same "config upgrade --tree: renamed, vanished and new options" $EXP/upgrade-tree.ranked "$work/upt.ranked"

# 4. /proc/config.gz form gives the same findings
gzip -c $FIX/lab-rt-debug.config >"$work/config.gz"
$RTAUDIT --rules "$RULES" config $FIX/lab-rt.config "$work/config.gz" >"$work/gz.txt"
ranked "$work/gz.txt" >"$work/gz.ranked"
same "config from a gzip file (as /proc/config.gz)" $EXP/rt-to-rt-debug.ranked "$work/gz.ranked"

# 5. JSON: valid, same order as the text with --all (every option listed),
# exit status inside
$RTAUDIT --json --rules "$RULES" config $FIX/lab-rt.config $FIX/lab-rt-debug.config >"$work/j.json"
$RTAUDIT --all --rules "$RULES" config $FIX/lab-rt.config $FIX/lab-rt-debug.config >"$work/rtdbg-all.txt"
ranked "$work/rtdbg-all.txt" >"$work/rtdbg-all.ranked"
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = [l.split()[2].rstrip(":") for l in open(sys.argv[2])]
assert [f["subject"] for f in d["findings"]] == r, "order differs"
assert d["exit_status"] == 2 and d["findings"][0]["severity"] == "problem"
assert all(f.get("why") for f in d["findings"])
' "$work/j.json" "$work/rtdbg-all.ranked"; then
	pass "config --json: valid, same ranking as the text --all, exit_status 2"
else
	fail "config --json"
fi

# 6. same config twice: nothing changed, exit 0
$RTAUDIT --rules "$RULES" config $FIX/lab-rt.config $FIX/lab-rt.config >"$work/same.txt"
rc=$?
if [ "$rc" = 0 ] && sed -n 2p "$work/same.txt" | grep -q '^0 findings'; then
	pass "config X X: 0 findings, exit 0"
else
	fail "config X X: exit $rc, $(sed -n 2p "$work/same.txt")"
fi

# 7. bad input: file:line errors, exit 3, no crash
head -c 4096 "$RTAUDIT" >"$work/binary"
bad_input "binary file" "^rtaudit: $work/binary:1: binary data" \
	$RTAUDIT --rules "$RULES" config "$work/binary" $FIX/lab-rt.config
head -c 30000 $FIX/lab-rt.config >"$work/truncated.config"
tl=$(wc -l <"$work/truncated.config")
bad_input "truncated config" "^rtaudit: $work/truncated.config:$((tl + 1)): truncated" \
	$RTAUDIT --rules "$RULES" config $FIX/lab-rt.config "$work/truncated.config"
head -c 2000 "$work/config.gz" >"$work/cut.gz"
bad_input "truncated gzip" "^rtaudit: $work/cut.gz: truncated or corrupt gzip" \
	$RTAUDIT --rules "$RULES" config $FIX/lab-rt.config "$work/cut.gz"
mkdir "$work/adir"
bad_input "unreadable config (a directory)" "^rtaudit: $work/adir: cannot read: Is a directory" \
	$RTAUDIT --rules "$RULES" config $FIX/lab-rt.config "$work/adir"
bad_input "missing config" "^rtaudit: $work/none: cannot open: No such file" \
	$RTAUDIT --rules "$RULES" config $FIX/lab-rt.config "$work/none"
printf 'CONFIG_A=y\nCONFIG_B=maybe\n' >"$work/badval.config"
bad_input "bad value" "^rtaudit: $work/badval.config:2: bad value" \
	$RTAUDIT --rules "$RULES" config "$work/badval.config" $FIX/lab-rt.config
printf 'CONFIG_A=y\r\nCONFIG_B=y\r\n' >"$work/dos.config"
bad_input "DOS line ends" "^rtaudit: $work/dos.config:1: carriage return" \
	$RTAUDIT --rules "$RULES" config "$work/dos.config" $FIX/lab-rt.config
printf 'CONFIG_A=y\nthis is not a config\n' >"$work/text.config"
bad_input "text that is not a config" "^rtaudit: $work/text.config:2: not a kernel config line" \
	$RTAUDIT --rules "$RULES" config "$work/text.config" $FIX/lab-rt.config
printf '[LOCKDEP]\nseverity = awful\n' >"$work/bad.ini"
bad_input "rules file: bad severity" "^rtaudit: $work/bad.ini:2: \\[LOCKDEP\\] severity must be" \
	$RTAUDIT --rules "$work/bad.ini" config $FIX/lab-rt.config $FIX/lab-rt.config
printf '[LOCKDEP]\nseverity = problem\nbad = y\n' >"$work/short.ini"
bad_input "rules file: entry without why" "^rtaudit: $work/short.ini: \\[LOCKDEP\\]: no why= given" \
	$RTAUDIT --rules "$work/short.ini" config $FIX/lab-rt.config $FIX/lab-rt.config
{ printf '[LOCKDEP]\nwhy = '; head -c 300 /dev/zero | tr '\0' x; echo; } >"$work/long.ini"
bad_input "rules file: a line longer than libinih reads" "^rtaudit: $work/long.ini:2: line longer than" \
	$RTAUDIT --rules "$work/long.ini" config $FIX/lab-rt.config $FIX/lab-rt.config
bad_input "--tree that is no kernel tree" "^rtaudit: $work/adir: no Kconfig file" \
	$RTAUDIT --rules "$RULES" config --tree "$work/adir" $FIX/lab-rt.config $FIX/lab-rt.config

# 8. every family the issue names has an entry in rules.ini
missing=""
for o in PREEMPT_RT PREEMPT_DYNAMIC HZ NO_HZ_IDLE NO_HZ_FULL RCU_NOCB_CPU RCU_BOOST \
	RCU_LAZY LOCKDEP PROVE_LOCKING DEBUG_PREEMPT DEBUG_ATOMIC_SLEEP KASAN KCSAN KFENCE \
	DEBUG_OBJECTS_TIMERS SLUB_DEBUG_ON DEBUG_PAGEALLOC PAGE_POISONING IRQSOFF_TRACER \
	PREEMPT_TRACER SCHED_TRACER CPU_FREQ_DEFAULT_GOV_SCHEDUTIL CPU_IDLE INTEL_IDLE \
	ACPI_PROCESSOR_IDLE TRANSPARENT_HUGEPAGE_ALWAYS TRANSPARENT_HUGEPAGE_MADVISE \
	NUMA_BALANCING COMPACTION KSM SWAP SCHED_AUTOGROUP RT_GROUP_SCHED CGROUP_SCHED \
	SCHED_CORE HIGH_RES_TIMERS HPET_TIMER X86_PM_TIMER MITIGATION_PAGE_TABLE_ISOLATION \
	MITIGATION_RETPOLINE LOCALVERSION; do
	printf 'CONFIG_%s=y\n' "$o" >"$work/one.config"
	printf '# CONFIG_%s is not set\n' "$o" >"$work/none.config"
	$RTAUDIT --rules "$RULES" config "$work/none.config" "$work/one.config" >"$work/one.txt"
	grep -q 'why: changed, impact unknown' "$work/one.txt" && missing="$missing $o"
done
if [ -z "$missing" ]; then pass "rules.ini rates every option family of the issue"; else fail "no rule for:$missing"; fi
exit 0
