#!/bin/bash
# Host unit tests of the hrtimer test's and storm benchmark's trace analyser
# (tests/progs/hrtimer_trace) where it needs no live trace buffer: its
# command line, the benchmark's summary JSON from sample tables (keys,
# figures, nulls, ratios), a malformed table ("file:line:" and exit 2);
# and tests/guest/lib.sh's tap_sub, which numbers the program's TAP on.
# Runs an ASan+UBSan build. The trace reading itself is tested in the guest
# (tests/guest/30-hrtimer-mode.sh, bench/guest/hrtimer-storm.sh).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
host_test hrtimer-trace
# shellcheck disable=SC2046
gcc -std=c11 -g -O1 -Wall -Wextra -Werror -D_GNU_SOURCE -fsanitize=address,undefined \
	-fno-sanitize-recover=all -I"$top/include" $(pkg-config --cflags libtracefs) \
	-o "$tmp/ht" "$top/tests/progs/hrtimer_trace.c" \
	$(pkg-config --libs libtracefs libtraceevent) -lcjson || exit 1
ht=$tmp/ht

t "--help: usage, exit 0" sh -c "'$ht' --help | grep -q '^usage: hrtimer_trace mode'"
"$ht" bogus >"$tmp/bogus.out" 2>&1
t "an unknown command: exit 2" test $? = 2
t "an unknown command: says so" has "$tmp/bogus.out" 'unknown command: bogus'
"$ht" irq --cpu 1 --period-ms x >"$tmp/num.out" 2>&1
t "a malformed number: exit 2 and names the option" sh -c "test $? = 2 && grep -q -- '--period-ms: not a number' '$tmp/num.out'"

# results columns of bench/guest/hrtimer-storm.sh (its comment)
cat >"$tmp/results" <<'T'
a 0 other 250 0 0 0 0 0 5 12 80 30 3 28.5 40.1 55.0 8 1200 2000
hog 0 hog 250 0 0 0 0 0 5 20 90 ? 4 27.0 39.0 50.0 8 1100 1900
b 1000 other 250 0 0 0 0 8000 5 14 95 overflow 40 27.5 41.0 60.0 8 1300 2100
c 1000 fifo 250 0 0 0 0 8000 5 25 300 200 3 8300.2 9000.1 9100.3 8 30000 2100
other-100 100 other 200 0 0 0 0 800 5 12 70 30 5 30.0 40.0 50.0 8 1200 1900
fifo-100 100 fifo 200 0 0 0 0 800 5 13 71 31 3 400.0 500.0 520.0 8 3000 1900
other-4000 4000 other 1000 0 0 0 0 32000 5 14 72 32 90 31.0 42.0 52.0 8 1250 9000
fifo-4000 4000 fifo 1000 0 0 0 0 32000 5 15 73 33 3 20000.0 25000.0 26000.0 8 160000 9000
T
printf 'a 1\nhog 5\nb 2\nc 40\nother-100 0\nfifo-100 1\nother-4000 3\nfifo-4000 9\n' >"$tmp/tails"
printf 'a 10.1 20 30 1 15.2 25 35 2 5000\nhog 12.0 22 32 3 null null null null 0\nb 11.1 21 31 1 16.2 26 36 2 5000\nc 13.1 23 33 4 17.2 27 37 5 5000\n' >"$tmp/tl"
"$ht" report "$tmp/results" "$tmp/tails" "$tmp/tl" 4150 6.12-rt tcg 1 8 true false "$tmp/s.json"
t "report: exit 0" test $? = 0
q() { python3 -c "import json, sys; j = json.load(open(sys.argv[1])); print(json.dumps(eval(sys.argv[2])))" "$tmp/s.json" "$1"; }
t "report: top-level keys in the benchmark's order" test "$(q 'list(j)')" = '["benchmark", "kernel", "accel", "cpu", "expiries_per_scenario", "method", "tail_threshold_us", "scenarios", "ratios", "growth_hard_irq_per_expiry_median_us", "timerlat_us", "expected_difference_shown"]'
t "report: a scenario's figures" test "$(q 'j["scenarios"]["c"]')" = '{"threads": 1000, "policy": "fifo", "period_ms": 250, "missed": 0, "wakeups": 8000, "cyclictest_us": {"min": 5, "avg": 25, "p99": 200, "max": 300}, "cyclictest_tail_samples": 40, "hard_irq_per_expiry_us": {"median": 8300.2, "p99": 9000.1, "max": 9100.3, "expiries": 8}, "hard_irq_us_per_s": 30000, "interrupts": 2100, "switches_per_expiry": 3}'
t "report: '?' and 'overflow' become null" test "$(q '[j["scenarios"]["hog"]["cyclictest_us"]["p99"], j["scenarios"]["b"]["cyclictest_us"]["p99"]]')" = '[null, null]'
t "report: ratios to a, two decimals" test "$(q 'j["ratios"]["hard_irq_per_expiry"]')" = '{"b_a": 0.96, "c_a": 291.24}'
t "report: growth by N" test "$(q 'j["growth_hard_irq_per_expiry_median_us"]["fifo"]')" = '{"100": 400, "1000": 8300.2, "4000": 20000}'
t "report: timerlat, a context without samples is null" test "$(q 'j["timerlat_us"]["hog"]["thread"]')" = '{"avg": null, "p99": null, "max": null, "tail_samples": null}'
t "report: what the run showed" test "$(q 'j["expected_difference_shown"]')" = '{"hard_irq_per_expiry": true, "cyclictest": false}'
echo "a 1 2" >"$tmp/bad"
"$ht" report "$tmp/bad" "$tmp/tails" "$tmp/tl" 1 k tcg 1 8 true false "$tmp/x.json" >"$tmp/bad.out" 2>&1
t "report: a short row is an error: exit 2" test $? = 2
t "report: the error names file:line" has "$tmp/bad.out" "$tmp/bad:1: 3 words, want 20"
t "report: nothing written on error" test ! -e "$tmp/x.json"

# tap_sub: the program's points numbered on, its failure counted
cat >"$tmp/sub.sh" <<T
. "$top/tests/guest/lib.sh"
tap_ok first
tap_sub sh -c 'echo "TAP version 13"; echo "ok 1 a"; echo "# d"; echo "not ok 2 b"; echo junk; echo 1..2; exit 1'
echo "rc=\$?"
tap_sub "$ht" bogus
tap_done
T
sh "$tmp/sub.sh" >"$tmp/sub.out" 2>&1
t "tap_sub: the script fails when a sub-point failed" test $? = 1
t "tap_sub: points numbered on from the script's" sh -c "grep -qx 'ok 2 a' '$tmp/sub.out' && grep -qx 'not ok 3 b' '$tmp/sub.out'"
t "tap_sub: diagnostics pass, other output as diagnostics, plan dropped" sh -c "grep -qx '# d' '$tmp/sub.out' && grep -qx '# junk' '$tmp/sub.out' && ! grep -qx '1..2' '$tmp/sub.out'"
t "tap_sub: returns the program's status" has "$tmp/sub.out" '^rc=1$'
t "tap_sub: a program that could not run is a failed point" has "$tmp/sub.out" '^not ok 4 ht ran \(exit 2\)$'
t "tap_sub: the plan counts every point" has "$tmp/sub.out" '^1\.\.4$'
host_done
