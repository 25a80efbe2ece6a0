#!/bin/bash
# Host tests of the A/B table of bench/host/cost.sh (bench/host/cost-table.awk):
# medians over every run of each kernel, spreads (max - min) / median,
# B / A, a figure one kernel lacks; its JSON rows say the same as its
# Markdown rows.  Also the committed bench/ab.json: every row's ratio is
# its b / a, and every pair names its date, method and kernels.  Prints TAP.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
host_test bench-ab
awkt=$top/bench/host/cost-table.awk
ab=$top/bench/ab.json
# "KERNEL BOOT FIGURE VALUE" lines: A has runs 100 102 98 (median 100,
# spread 4%), B 110 112 (median 111, spread 1.8%); only B has "poll"
cat >"$tmp/in" <<'EOF'
A 1 irq.r1 100
A 1 irq.r2 102
A 1 irq 101
A 2 irq.r1 98
A 2 irq 98
B 1 irq.r1 110
B 1 irq.r2 112
B 1 irq 111
B 1 poll.r1 500
B 1 poll 500
EOF
"$awkt" -v a=A -v b=B "$tmp/in" >"$tmp/md"
"$awkt" -v a=A -v b=B -v fmt=json "$tmp/in" >"$tmp/json"
t "Markdown: medians of all runs, spreads, B / A" has "$tmp/md" '^\| irq \| 100 \(n=3\) \| 4\.00 \| 111 \(n=2\) \| 1\.80 \| 1\.110 \|$'
t "Markdown: a figure of one kernel only has no ratio" has "$tmp/md" '^\| poll \|  \(n=0\) \| 0\.00 \| 500 \(n=1\) \| 0\.00 \| - \|$'
t "JSON: one object per figure, the same numbers" \
	jq -se 'length == 2 and .[0] == {figure: "irq", a: 100, a_runs: 3, a_spread_pct: 4, b: 111, b_runs: 2, b_spread_pct: 1.8, ratio: 1.11}' "$tmp/json"
t "JSON: the missing side and the ratio are null" \
	jq -se '.[1] | .figure == "poll" and .a == null and .a_runs == 0 and .ratio == null and .b == 500' "$tmp/json"
t "bench/ab.json: every pair has date, method, a, b and rows" \
	jq -e '.pairs | length > 0 and all(.[]; (.date | type) == "string" and (.method | type) == "string" and (.a | type) == "string" and (.b | type) == "string" and (.rows | length) > 0)' "$ab"
t "bench/ab.json: every ratio is b / a (to 0.1%), every median a number or null" \
	jq -e '[.pairs[].rows[] | select(.a != null and .b != null) | (.b / .a) as $r | ((.ratio - $r) | fabs) < 0.001 * $r] | all' "$ab"
host_done
