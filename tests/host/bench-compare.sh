#!/bin/bash
# Host tests of make bench's regression guard (bench/host/compare.sh): a row
# more than the tolerance worse is flagged with both figures, one within it
# or better is not, a missing row is flagged, a new one is not; figures of
# another kernel, accel or shift are refused; bad JSON fails naming the
# file.  Also the committed bench/baseline.json is valid.  Prints TAP.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
host_test bench-compare
cmp=$top/bench/host/compare.sh
# js FILE FIGURES [KERNEL ACCEL SHIFT [EXTRA]]: a summary or baseline file
js() { printf '{"kernel":"%s","accel":"%s","icount_shift":%s%s,"figures":{%s}}\n' "${3:-rt}" "${4:-icount}" "${5:-0}" "${6:-}" "$2" >"$tmp/$1"; }
# run NAME: compare base.json with NAME, output in NAME.out, exit status in $rc
run() { "$cmp" "$tmp/base.json" "$tmp/$1" >"$tmp/$1.out" 2>&1; rc=$?; }
js base.json '"hb":1000,"pp":20000,"irq":50000' rt icount 0 ',"tolerance_pct":3,"date":"2026-12-04"'

js same.json '"hb":1000,"pp":20000,"irq":50000'
t "equal figures: exit 0, every row ok" eval 'run same.json; [ $rc = 0 ] && [ "$(grep -c "| ok |" "$tmp/same.json.out")" = 3 ]'
js worse.json '"hb":1031,"pp":20000,"irq":50000'
t "3.1% worse: exit 1, the row flagged WORSE with both figures" \
	eval 'run worse.json; [ $rc = 1 ] && has "$tmp/worse.json.out" "^\| hb \| 1000 \| 1031 \| 3.1 \| WORSE \|" && has "$tmp/worse.json.out" "hb got worse: 1000 -> 1031"'
js within.json '"hb":1029,"pp":20600,"irq":40000'
t "2.9% and exactly 3% worse, 20% better: exit 0" eval 'run within.json; [ $rc = 0 ] && hasnt "$tmp/within.json.out" WORSE'
js missing.json '"hb":1000,"pp":20000'
t "a baseline row the run lacks: exit 1, flagged MISSING" eval 'run missing.json; [ $rc = 1 ] && has "$tmp/missing.json.out" "irq: in the baseline \(50000\), not in this run"'
js new.json '"hb":1000,"pp":20000,"irq":50000,"cyc":7'
t "a new row: shown, not flagged" eval 'run new.json; [ $rc = 0 ] && has "$tmp/new.json.out" "^\| cyc \| - \| 7 \| - \| new \|"'
js tol.json '"hb":1000,"pp":20000,"irq":52000'
js base5.json '"hb":1000,"pp":20000,"irq":50000' rt icount 0 ',"tolerance_pct":5'
t "the baseline's tolerance_pct is used (4% worse: flagged at 3, not at 5)" \
	eval 'run tol.json; [ $rc = 1 ] && "$cmp" "$tmp/base5.json" "$tmp/tol.json" >/dev/null'
js nodefault.json '"hb":1000' rt icount 0
js hb1035.json '"hb":1035' rt icount 0
t "no tolerance_pct in the baseline: 3%" eval '! "$cmp" "$tmp/nodefault.json" "$tmp/hb1035.json" >/dev/null'
js tcg.json '"hb":1000,"pp":20000,"irq":50000' rt tcg 0
js shift3.json '"hb":1000,"pp":20000,"irq":50000' rt icount 3
js debug.json '"hb":1000,"pp":20000,"irq":50000' rt-debug icount 0
# refused NAME ERE: compare exits 2 and says ERE
refused() { run "$1"; [ $rc = 2 ] && has "$tmp/$1.out" "$2"; }
t "another accel, shift or kernel: exit 2, not comparable, naming the key" \
	eval 'refused tcg.json "not comparable: accel" && refused shift3.json "not comparable: icount_shift is 0" && refused debug.json "not comparable: kernel is rt"'
echo '{"kernel":"rt",' >"$tmp/broken.json"
js str.json '"hb":"fast"'
t "broken JSON or a non-number figure: exit 2 naming the file" \
	eval 'refused broken.json "^$tmp/broken.json: not a JSON object" && refused str.json "^$tmp/str.json: figure hb is not a number"'
t "wrong usage: exit 2" eval '"$cmp" "$tmp/base.json" >/dev/null 2>&1; [ $? = 2 ]'
t "the committed bench/baseline.json compares with itself" "$cmp" "$top/bench/baseline.json" "$top/bench/baseline.json"
host_done
