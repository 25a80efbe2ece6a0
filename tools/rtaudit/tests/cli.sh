#!/bin/sh
# rtaudit's command line: --help, the man page, usage errors (exit 3), and
# a short "clock" run whose figures are real measurements on this host.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

$RTAUDIT --help >"$work/help" 2>&1
rc=$?
if [ "$rc" = 0 ] && grep -q '^Usage: rtaudit' "$work/help" &&
	grep -q 'Exit status: 0 nothing found, 1 warnings, 2 problems, 3 bad input' "$work/help"; then
	pass "--help: usage and exit statuses, exit 0"
else
	fail "--help: exit $rc"
fi
if LC_ALL=C.UTF-8 MANWIDTH=80 man -l rtaudit.8 >"$work/man" 2>"$work/man.err" &&
	[ ! -s "$work/man.err" ] && grep -q 'EXIT STATUS' "$work/man" &&
	grep -q 'rtaudit config' "$work/man"; then
	pass "man page renders without warnings"
else
	sed 's/^/# /' "$work/man.err" | head
	fail "man page"
fi
bad_input "unknown command" 'unknown command "frobnicate"' $RTAUDIT frobnicate
bad_input "no command" 'Usage: rtaudit' $RTAUDIT
bad_input "config without OLD" 'config takes OLD' $RTAUDIT config
bad_input "--rounds out of range" '--rounds 0: expected' $RTAUDIT clock --rounds 0
bad_input "three --tree" 'for OLD and NEW only' $RTAUDIT config --tree a --tree b --tree c x y
bad_input "baseline without save" 'usage: baseline save' $RTAUDIT baseline keep

# clock on this host, with an empty root so no clock source is switched
# and no tracefs instance is made: clock id costs and the CPU skew test
mkdir -p "$work/root"
$RTAUDIT --json clock --root "$work/root" --rounds 300 --trace-ms 10 >"$work/clock.json"
rc=$?
if [ "$rc" -le 2 ] && python3 -c '
import json, re, sys
d = json.load(open(sys.argv[1]))
f = {x["subject"]: x for x in d["findings"]}
m = float(re.match(r"([0-9.]+) ns/call", f["CLOCK_MONOTONIC"]["new"]).group(1))
c = float(re.match(r"([0-9.]+) ns/call", f["CLOCK_MONOTONIC_COARSE"]["new"]).group(1))
assert m > 0 and c > 0, (m, c)
assert any(n.startswith("method: clock_gettime cost") for n in d["notes"])
assert f["trace clock"]["new"] == "not measured"
skew = [x for x in d["findings"] if x["subject"].startswith("skew ")]
import os
if len(os.sched_getaffinity(0)) > 1:
    assert skew, "no skew pair measured"
print("# CLOCK_MONOTONIC %.1f ns/call, COARSE %.1f ns/call, %d CPU pairs" % (m, c, len(skew)))
' "$work/clock.json"; then
	pass "clock: measured clock_gettime costs and skew pairs (exit $rc)"
else
	fail "clock: exit $rc"
fi
exit 0
