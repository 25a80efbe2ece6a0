#!/bin/sh
# Host benchmark: convert a generated console log of N dumped records
# (tests/gen-log.c: the kernel's record layout and the fixture's event
# formats) and report records/s and peak RSS from /usr/bin/time -v.
set -eu
cd "$(dirname "$0")/.."
N=${N:-1000000}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
./build/gen-log "$N" 4 > "$T/console.log"
echo "method: tests/gen-log $N records on 4 CPUs ($(wc -c < "$T/console.log") bytes," \
     "printk prefixes), ftdump -q -f tests/formats, wall time and peak RSS by /usr/bin/time -v"
/usr/bin/time -v ./ftdump -q -f tests/formats -o "$T/trace.dat" "$T/console.log" 2> "$T/time"
secs=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$T/time" | awk -F: '{ print $(NF-1) * 60 + $NF }')
rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$T/time")
events=$(trace-cmd report "$T/trace.dat" 2>/dev/null | grep -c ': ' || true)
echo "records in trace.dat (trace-cmd report): $events"
awk -v n="$N" -v s="$secs" -v r="$rss" 'BEGIN {
	printf "| records | seconds | records/s | peak RSS (KiB) |\n|---|---|---|---|\n"
	printf "| %d | %.2f | %.0f | %d |\n", n, s, (s > 0 ? n / s : 0), r }'
