#!/bin/bash
# Prove the harness: run lab/selftest/harness/ in the guest, where a test WARNs, one
# hangs, one panics the guest and one runs after the panic, and check that
# the harness reports each the way it must.  Prints TAP.
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
echo "1..7"
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
check "two boots were needed (one died)" '[ "$(ls -d "$run"/*/ | wc -l)" = 2 ]'
echo "$all" | sed 's/^/# /'
