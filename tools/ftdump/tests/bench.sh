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
cpu=$(sed -n 's/.*\(User\|System\) time (seconds): //p' "$T/time" | awk '{ s += $1 } END { print s }')
rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$T/time")
events=$(trace-cmd report "$T/trace.dat" 2>/dev/null | grep -c ': ' || true)
echo "records in trace.dat (trace-cmd report): $events"
echo "host load average while it ran: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
awk -v n="$N" -v s="$secs" -v c="$cpu" -v r="$rss" 'BEGIN {
	printf "| records | wall s | records/s (wall) | CPU s (user+sys) | records/s (CPU) | peak RSS (KiB) |\n"
	printf "|---|---|---|---|---|---|\n"
	printf "| %d | %.2f | %.0f | %.2f | %.0f | %d |\n", n, s, (s > 0 ? n / s : 0), c, (c > 0 ? n / c : 0), r }'
