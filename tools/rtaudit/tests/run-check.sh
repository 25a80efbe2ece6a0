#!/bin/sh
# All host tests of rtaudit as one TAP stream: each suite prints
# "ok - ..." / "not ok - ..." lines, numbered here; a suite that exits
# non-zero (a crash) is a failure of its own.
cd "$(dirname "$0")/.." || exit 1
n=0
bad=0
echo "TAP version 13"
suite() {
	label=$1
	shift
	tmp=$(mktemp)
	"$@" >"$tmp" 2>"$tmp.err"
	rc=$?
	while IFS= read -r l; do
		case $l in
		"ok - "*) n=$((n + 1)); echo "ok $n $label: ${l#ok - }" ;;
		"not ok - "*) n=$((n + 1)); bad=$((bad + 1)); echo "not ok $n $label: ${l#not ok - }" ;;
		*) echo "# $l" ;;
		esac
	done <"$tmp"
	if [ "$rc" != 0 ]; then
		n=$((n + 1)); bad=$((bad + 1))
		echo "not ok $n $label: the suite exited with $rc"
		tail -n 20 "$tmp.err" | sed 's/^/# stderr: /'
	fi
	rm -f "$tmp" "$tmp.err"
}
suite config sh tests/config.sh
suite system sh tests/system.sh
suite cli sh tests/cli.sh
suite fuzz sh tests/fuzz.sh
echo "1..$n"
[ "$bad" = 0 ]
