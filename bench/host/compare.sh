#!/bin/bash
# The regression guard of make bench: compare the figures of one run of
# bench/guest/cost.sh (its summary.json) with the ones committed for the
# previous release of the series (bench/baseline.json).
#
#   bench/host/compare.sh BASELINE.json SUMMARY.json
#
# Both files: {"kernel": V, "accel": "icount", "icount_shift": N (null
# when accel is not icount),
# "figures": {NAME: NUMBER, ...}}; the baseline adds "tolerance_pct" (3 if
# absent), its date and method.  Every figure is a lower-is-better guest
# time.  Prints one row per figure with both numbers and the change; a row
# more than tolerance_pct worse, or a baseline figure the run lacks, is
# flagged.  Figures only compare when kernel, accel and shift are equal
# (TCG wall times are noise, and a different shift scales every time).
# Exit: 0 nothing worse, 1 a row flagged, 2 bad input or not comparable.
set -uo pipefail
[ "${1:-}" = -h ] || [ "${1:-}" = --help ] && { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0; }
[ $# = 2 ] || { echo "usage: bench/host/compare.sh BASELINE.json SUMMARY.json" >&2; exit 2; }
base=$1 cur=$2
readonly DEFAULT_TOLERANCE_PCT=3

# check FILE: a JSON object with kernel, accel, icount_shift and numeric figures
check() {
	local err
	[ -r "$1" ] || { echo "$1: cannot read" >&2; return 1; }
	err=$(jq -e 'type == "object"' "$1" 2>&1 >/dev/null) ||
		{ echo "$1: not a JSON object: ${err:-no JSON object}" >&2; return 1; }
	err=$(jq -r '[ (if (.kernel | type) != "string" then "kernel is not a string" else empty end),
		(if (.accel | type) != "string" then "accel is not a string" else empty end),
		(if (.icount_shift | type) != "number" and .icount_shift != null then "icount_shift is not a number or null" else empty end),
		(if (.figures | type) != "object" then "figures is not an object"
		 else (.figures | to_entries[] | select(.value | type != "number") | "figure \(.key) is not a number") end),
		(if has("tolerance_pct") and (.tolerance_pct | type) != "number" then "tolerance_pct is not a number" else empty end)
		] | .[]' "$1")
	[ -z "$err" ] || { echo "$err" | sed "s|^|$1: |" >&2; return 1; }
}
check "$base" || exit 2
check "$cur" || exit 2
for key in kernel accel icount_shift; do
	b=$(jq -r ".$key" "$base") c=$(jq -r ".$key" "$cur")
	[ "$b" = "$c" ] || { echo "compare: not comparable: $key is $b in $base, $c in $cur" >&2; exit 2; }
done
[ "$(jq -r .accel "$cur")" = icount ] ||
	{ echo "compare: not comparable: accel $(jq -r .accel "$cur"): only instruction-counted figures are stable" >&2; exit 2; }

# one TSV row per figure: name, baseline, now, change %, verdict
rows=$(jq -rn --slurpfile b "$base" --slurpfile c "$cur" --argjson dflt "$DEFAULT_TOLERANCE_PCT" '
	($b[0].tolerance_pct // $dflt) as $tol | $b[0].figures as $bf | $c[0].figures as $cf
	| ($bf | keys_unsorted[] as $k
		| if ($cf | has($k)) | not then [$k, $bf[$k], "-", "-", "MISSING"]
		  else ($cf[$k]) as $now
		  | (if $bf[$k] == 0 then (if $now == 0 then 0 else 100 end) else 100 * ($now - $bf[$k]) / $bf[$k] end) as $chg
		  | [$k, $bf[$k], $now, ($chg * 100 | round / 100), (if $chg > $tol then "WORSE" else "ok" end)] end),
	  (($cf | keys_unsorted[]) as $k | select(($bf | has($k)) | not) | [$k, "-", $cf[$k], "-", "new"])
	| @tsv')
tol=$(jq -r ".tolerance_pct // $DEFAULT_TOLERANCE_PCT" "$base")
echo "Regression guard: $cur against $base ($(jq -r '.date // "undated"' "$base")), flagged when more than $tol% worse"
echo
echo "| figure | baseline | now | change % | |"
echo "|---|---|---|---|---|"
awk -F'\t' '{ printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5 }' <<<"$rows"
bad=$(awk -F'\t' '$5 == "WORSE" || $5 == "MISSING"' <<<"$rows")
if [ -n "$bad" ]; then
	echo
	awk -F'\t' '$5 == "WORSE" { printf "compare: %s got worse: %s -> %s (%+.2f%%, more than %s%%)\n", $1, $2, $3, $4, tol }
		$5 == "MISSING" { printf "compare: %s: in the baseline (%s), not in this run\n", $1, $2 }' tol="$tol" <<<"$bad"
	exit 1
fi
exit 0
