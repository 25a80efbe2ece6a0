#!/bin/sh
# Runs every host test suite of rtirqd and prints one TAP stream.
# Suites print "ok - ..." / "not ok - ..." lines; they are numbered here.
cd "$(dirname "$0")/.." || exit 1
n=0
failed=0
echo "TAP version 13"
run_suite() {
	name=$1
	shift
	out=$(mktemp)
	"$@" >"$out" 2>"$out.err"
	rc=$?
	while IFS= read -r line; do
		case $line in
		"ok "*|"ok")
			n=$((n + 1)); echo "ok $n $name: ${line#ok - }" ;;
		"not ok"*)
			n=$((n + 1)); failed=$((failed + 1))
			echo "not ok $n $name: ${line#not ok - }" ;;
		*)	echo "# $line" ;;
		esac
	done <"$out"
	if [ "$rc" -ne 0 ]; then
		n=$((n + 1)); failed=$((failed + 1))
		echo "not ok $n $name: suite exited with status $rc"
		sed 's/^/# stderr: /' "$out.err" | tail -n 40
	fi
	rm -f "$out" "$out.err"
}
run_suite unit ./build/test_rules
run_suite functional sh tests/functional.sh
ev_dir=$(mktemp -d /tmp/rtirqd-ev.XXXXXX)
chmod 755 "$ev_dir"
run_suite event-path ./build/event_bench-san "$ev_dir" 20 100 3 --check
rm -rf "$ev_dir"
run_suite compat sh tests/compat.sh
run_suite fuzz sh tests/fuzz.sh
echo "1..$n"
[ "$failed" -eq 0 ]
