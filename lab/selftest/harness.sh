#!/bin/bash
# Prove the harness: run lab/selftest/harness/ in the guest, where a test WARNs, one
# hangs, one panics the guest and one runs after the panic, one panics on
# purpose (expect=panic: phase 1 panics, phase 2 checks it in the next boot)
# and one expects a panic that never comes, and check that the harness
# reports each the way it must.  Three boots: 10-30 (30 panics), 40-50 (50's
# phase 1 panics), 50's phase 2 and 60.  Prints TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
run=$build/run/selftest
"$top/lab/rtlab" run --suite selftest --dir selftest "$top"/lab/selftest/harness/* >/dev/null 2>&1
rc=$?
all=$(cat "$run"/*/result.tap 2>/dev/null)
n=0
check() {
	n=$((n + 1))
	if eval "$2"; then echo "ok $n $1"; else echo "not ok $n $1"; fi
}
echo "TAP version 13"
echo "1..13"
check "a run with an injected splat fails (exit $rc)" '[ "$rc" = 1 ]'
check "the WARN is reported against the test that caused it" \
	'echo "$all" | grep -q "^not ok [0-9]* 10-warn-inject: kernel splat while it ran (1): WARNING:"'
check "the splat is printed with its context" \
	'echo "$all" | grep -q "^#   .*rtlab_warn: injected warning"'
check "a hanging test is killed by its time-out and failed" \
	'echo "$all" | grep -q "^not ok [0-9]* 20-hang: killed by its 5 s time-out"'
check "a test that panics the guest is failed with the console tail" \
	'echo "$all" | grep -q "^not ok [0-9]* 30-panic: did not finish" && echo "$all" | grep -q "^#   .*Kernel panic - not syncing: rtlab_warn: injected panic"'
check "the harness boots again and runs the test after the panic" \
	'echo "$all" | grep -q "^ok [0-9]* 40-after: guest alive after the previous test panicked"'
check "an expected panic passes phase 1, after its own points" \
	'echo "$all" | grep -q "^ok [0-9]* 50-panic-expected: phase 1: kept a file for phase 2" &&
	 echo "$all" | grep -q "^ok [0-9]* 50-panic-expected: phase 1: panicked as expected (Kernel panic - not syncing: rtlab_warn: injected panic"'
check "... its panic and ftrace dump are no splat (negative control: 30-panic without expect=panic is one, point 5)" \
	'! echo "$all" | grep -q "^not ok [0-9]* 50-panic-expected"'
check "phase 2 runs first in the next boot, with RTLAB_PHASE=2" \
	'grep -m1 "rtlab: BEGIN" "$(ls -d "$run"/*/ | tail -n 1)/console.log" | grep -q "BEGIN 50-panic-expected timeout=30 phase=2"'
check "phase 2 read phase 1's file, TAP, panic and ftrace dump at RTLAB_PREV (5 points)" \
	'[ "$(echo "$all" | grep -c "^ok [0-9]* 50-panic-expected: phase 2: ")" = 5 ]'
check "an expected panic that does not come fails the test" \
	'echo "$all" | grep -q "^not ok [0-9]* 60-panic-missing: phase 1: expected a panic, but the test ended with rc=0"'
check "... and its phase 2 is not run; no phase at all for 30-panic (no expect=panic)" \
	'! echo "$all" | grep -qE "60-panic-missing: phase 2|30-panic: phase"'
check "three boots were needed (two died)" '[ "$(ls -d "$run"/*/ | wc -l)" = 3 ]'
echo "$all" | sed 's/^/# /'
