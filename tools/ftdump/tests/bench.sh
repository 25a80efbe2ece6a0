#!/bin/sh
# Host benchmark: convert a generated console log of N dumped records
# (tests/gen-log.c: the kernel's record layout and the fixture's event
# formats) and report records/s and peak RSS from /usr/bin/time -v; then
# the same records as a raw dump (ftrace_dump_raw, printed from the
# converted file by tests/dat2raw, as the patched kernel prints them).
set -eu
cd "$(dirname "$0")/.."
N=${N:-1000000}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
./build/gen-log "$N" 4 > "$T/console.log"
echo "method: tests/gen-log $N records on 4 CPUs ($(wc -c < "$T/console.log") bytes," \
     "printk prefixes), ftdump -q -f tests/formats, wall time and peak RSS by /usr/bin/time -v"
# run LABEL LOG: one conversion, one table row
run() {
	/usr/bin/time -v ./ftdump -q -f tests/formats -o "$T/$1.dat" "$2" 2> "$T/time"
	secs=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$T/time" | awk -F: '{ print $(NF-1) * 60 + $NF }')
	cpu=$(sed -n 's/.*\(User\|System\) time (seconds): //p' "$T/time" | awk '{ s += $1 } END { print s }')
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$T/time")
	events=$(trace-cmd report "$T/$1.dat" 2>/dev/null | grep -c ': ' || true)
	awk -v l="$1" -v n="$N" -v e="$events" -v b="$(wc -c < "$2")" -v s="$secs" -v c="$cpu" -v r="$rss" 'BEGIN {
		printf "| %s | %d | %d | %d | %.2f | %.0f | %.2f | %.0f | %d |\n", l, n, e, b, s, (s > 0 ? n / s : 0), c, (c > 0 ? n / c : 0), r }'
}
echo "host load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
echo "| dump | records | in trace.dat (trace-cmd report) | log bytes | wall s | records/s (wall) | CPU s (user+sys) | records/s (CPU) | peak RSS (KiB) |"
echo "|---|---|---|---|---|---|---|---|---|"
run text "$T/console.log"
./build/dat2raw "$T/text.dat" > "$T/raw.log"
run raw "$T/raw.log"
