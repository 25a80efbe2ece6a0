#!/bin/sh
# Bounded libFuzzer run of the rules parser (FUZZ_TIME seconds, default 30)
# on a copy of the seed corpus; any crash, leak, UB or timeout fails.
cd "$(dirname "$0")/.." || exit 1
t=${FUZZ_TIME:-30}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/corpus" || exit 1
cp tests/corpus/* rtgroups.default "$work/corpus/" || exit 1
if ./build/fuzz_rules -max_total_time="$t" -timeout=5 -rss_limit_mb=1024 \
	-max_len=4096 -print_final_stats=1 -artifact_prefix="$work/" \
	"$work/corpus" >"$work/log" 2>&1; then
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
	echo "ok - parser fuzzed for ${t}s, ${runs:-?} inputs, no crash, leak or UB"
else
	tail -n 30 "$work/log" | sed 's/^/# /'
	ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* 2>/dev/null | sed 's/^/# artifact /'
	for f in "$work"/crash-* "$work"/leak-* "$work"/timeout-*; do
		[ -f "$f" ] && od -c "$f" | head -20 | sed 's/^/# /'
	done
	echo "not ok - parser fuzzed for ${t}s: failure found"
fi
