#!/bin/bash
# Reboot test (the summit's advice: reboot tests unearth what nothing else
# does): boot the rt kernel N times, each boot running lab/selftest/reboot/smoke, and
# count the boots that reached the end cleanly (init reached, smoke test
# passed, no splat, guest powered off by itself).  Prints TAP, one point a
# boot, and a summary; exit 1 unless every boot was clean.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
n=${1:-50}
case "$n" in ''|*[!0-9]*) echo "reboot-test: N must be a number" >&2; exit 2 ;; esac
clean=0
echo "TAP version 13"
echo "1..$((n + 1))"
t0=$(date +%s)
for i in $(seq "$n"); do
	if "$top/lab/rtlab" run --suite "reboot/$i" --dir reboot "$top/lab/selftest/reboot/smoke" >/dev/null 2>&1 &&
	   grep -q 'rtlab: DONE' "$build"/run/reboot/"$i"/*/console.log; then
		clean=$((clean + 1))
		echo "ok $i boot $i clean ($(cat "$build"/run/reboot/"$i"/*/wall) s)"
	else
		echo "not ok $i boot $i: see $(ls -d "$build"/run/reboot/"$i"/*/ | head -n 1)"
		grep -h '^not ok' "$build"/run/reboot/"$i"/*/result.tap | sed 's/^/# /'
	fi
done
t1=$(date +%s)
if [ "$clean" = "$n" ]; then
	echo "ok $((n + 1)) reboot test: $clean of $n boots clean in $((t1 - t0)) s"
else
	echo "not ok $((n + 1)) reboot test: $clean of $n boots clean in $((t1 - t0)) s"
fi
[ "$clean" = "$n" ]
