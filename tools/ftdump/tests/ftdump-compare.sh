#!/bin/sh
# ftdump-compare TRUTH.dat DUMP.dat: compare a converted dump with the
# ground truth recorded into another tracefs instance at the same time.
# Both are read with "trace-cmd report -R -t" (raw fields, ns times).
# Per CPU the records are paired in order after one time offset (the
# dump's times count from the buffer's reset) is found from the first
# record of the dump; every pair must have the same pid, event and raw
# fields (for records the dump kept as text: the same event name) and
# times within TOL_NS (default 2000: the dump's 1 us resolution, rounded,
# plus the two buffers' separate clock reads). Truth records before the
# dump's first and after its last record of a CPU are not compared (the
# two buffers are switched on and off one after the other).
# Prints the figures; exit 0 when every pair matched.
set -u
truth=$1 dump=$2 tol=${TOL_NS:-2000}
norm() {
	trace-cmd report -R -t "$1" 2>/dev/null | sed -n 's/^ *\(.*\)-\([0-9]*\) *\[\([0-9]*\)\] *\([0-9]*\)\.\([0-9]*\): *\([^:]*\): *\(.*\)$/\3 \4\5 \2 \6 \7/p'
}
{ norm "$truth" | sed 's/^/T /'; norm "$dump" | sed 's/^/D /'; } | awk -v tol="$tol" '
function key(i) { return $4 " " $5 " " rest(6) }
function rest(k,   s, i) { s = ""; for (i = k; i <= NF; i++) s = s (i > k ? " " : "") $i; return s }
$1 == "T" { c = $2; tn[c]++; tt[c, tn[c]] = $3 + 0; k = $4 " " $5 " " rest(6)
	if ($5 == "print" && $6 == "ip=0x0") { split($7, a, ":"); k = $4 " " substr(a[1], 5) " (text)" }
	tk[c, tn[c]] = k; cpus[c] = 1; next }
$1 == "D" { c = $2; dn[c]++; dt[c, dn[c]] = $3 + 0; k = $4 " " $5 " " rest(6)
	# a record kept as text: "print ip=0x0 buf=EVENT: ..." -> compare the name
	if ($5 == "print" && $6 == "ip=0x0") { split($7, a, ":"); k = $4 " " substr(a[1], 5) " (text)"; text++ }
	dk[c, dn[c]] = k; cpus[c] = 1; next }
END {
	# the offset: the first truth record of a CPU equal to the first of the dump
	# one whose next (up to 20) records are equal too
	for (c in cpus) {
		if (!dn[c]) continue
		for (i = 1; i <= tn[c] && !found; i++) {
			if (tk[c, i] != dk[c, 1]) continue
			for (k = 1; k <= 20 && k < dn[c] && i + k <= tn[c]; k++)
				if (tk[c, i + k] != dk[c, 1 + k] && dk[c, 1 + k] !~ / \(text\)$/) break
			if (k > 20 || k >= dn[c] || i + k > tn[c]) { off = tt[c, i] - dt[c, 1]; found = 1 }
		}
		if (found) break
	}
	if (!found) { print "no dump record found in the truth"; exit 1 }
	for (c in cpus) {
		i = 1
		while (i <= tn[c] && tt[c, i] - off < dt[c, 1] - tol) { i++; before++ }
		for (j = 1; j <= dn[c]; j++) {
			if (i > tn[c]) { missing++; continue }
			d = tt[c, i] - off - dt[c, j]; if (d < 0) d = -d
			if (d > maxd) maxd = d
			tkey = tk[c, i]
			if (dk[c, j] ~ / \(text\)$/ && tkey !~ / \(text\)$/) { split(tkey, b, " "); tkey = b[1] " " b[2] " (text)" }
			if (tkey != dk[c, j] || d > tol) {
				bad++
				if (bad <= 5) printf "CPU %s record %d: truth %s [%s]\n        dump  %s [%s]\n", c, j, tt[c, i] - off, tk[c, i], dt[c, j], dk[c, j]
			} else good++
			i++
		}
		after += tn[c] - i + 1; total_d += dn[c]
		printf "CPU %s: truth %d, dump %d\n", c, tn[c], dn[c]
	}
	printf "dump records %d: equal %d (kept as text %d), different %d, not in the truth %d; truth before %d, after %d; max time difference %d ns (tolerance %d)\n", total_d, good, text, bad, missing, before, after, maxd, tol
	exit (bad || missing || !good) ? 1 : 0
}'
