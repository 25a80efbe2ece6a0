#!/bin/sh
# Run wakestorm's host tests and print one TAP stream (kselftest style):
# the unit tests (sanitized), then the functional runs.
# usage: tests/check.sh UNIT_BINARY SANITIZED_WAKESTORM PLAIN_WAKESTORM
set -u
unit=$1 san=$2 plain=$3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

ASAN_OPTIONS=detect_leaks=1:halt_on_error=1
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ASAN_OPTIONS UBSAN_OPTIONS

"$unit" >"$tmp/unit.tap" 2>"$tmp/unit.err"
echo "$?" >"$tmp/unit.rc"
"$here/functional.sh" "$san" "$plain" >"$tmp/func.tap" 2>"$tmp/func.err"
echo "$?" >"$tmp/func.rc"

# Renumber both streams into one; a part that died without reporting a
# failure (sanitizer abort, crash) still fails through its exit status.
awk -v tmp="$tmp" '
function part(name, file, rcfile,   line, rc, desc, bad) {
	bad = 0
	while ((getline line < file) > 0) {
		if (line ~ /^(not )?ok [0-9]+ /) {
			desc = line
			sub(/^(not )?ok [0-9]+ /, "", desc)
			n++
			if (line ~ /^not ok/) { bad++; failed++; out[n] = "not ok " n " " name ": " desc }
			else out[n] = "ok " n " " name ": " desc
		} else if (line ~ /^#/) {
			n_diag[n] = n_diag[n] line "\n"
		}
	}
	getline rc < rcfile
	n++
	if (rc != 0 && bad == 0) { failed++; out[n] = "not ok " n " " name ": exited with status " rc }
	else out[n] = "ok " n " " name ": exited with status " rc (bad ? " (failures above)" : "")
	if (rc != 0 && bad == 0) n_diag[n] = n_diag[n] "# see stderr below\n"
}
BEGIN {
	n = 0; failed = 0
	part("unit", tmp "/unit.tap", tmp "/unit.rc")
	part("functional", tmp "/func.tap", tmp "/func.rc")
	print "TAP version 13"
	print "1.." n
	for (i = 1; i <= n; i++) { printf "%s", n_diag[i - 1]; print out[i] }
	printf "%s", n_diag[n]
	exit failed ? 1 : 0
}'
rc=$?
for p in unit func; do
	if [ "$(cat "$tmp/$p.rc")" != 0 ] && [ -s "$tmp/$p.err" ]; then
		echo "# stderr of $p:"
		sed 's/^/# /' "$tmp/$p.err" | tail -n 60
	fi
done
exit $rc
