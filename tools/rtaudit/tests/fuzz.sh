#!/bin/sh
# Bounded libFuzzer run of the config parser (FUZZ_TIME seconds) on a copy
# of the seed corpus; any crash, leak, UB or timeout fails.
cd "$(dirname "$0")/.." || exit 1
t=${FUZZ_TIME:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/corpus" || exit 1
cp tests/corpus/* "$work/corpus/" || exit 1
if ./build/fuzz_config -max_total_time="$t" -timeout=5 -rss_limit_mb=1024 \
	-max_len=8192 -print_final_stats=1 -artifact_prefix="$work/" \
	"$work/corpus" >"$work/log" 2>&1; then
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
	echo "ok - config parser fuzzed for ${t}s, ${runs:-?} inputs, no crash, leak or UB"
else
	tail -n 30 "$work/log" | sed 's/^/# /'
	for f in "$work"/crash-* "$work"/leak-* "$work"/timeout-*; do
		[ -f "$f" ] && od -c "$f" | head -20 | sed 's/^/# /'
	done
	echo "not ok - config parser fuzzed for ${t}s: failure found"
fi
