#!/bin/sh
# Writes tests/fixtures/*.dat: synthetic trace.dat files from
# build/gen-tracedat (format files in tests/formats, pseudo-random events
# with fixed seeds), version 7 and zstd ones by `trace-cmd convert`.
# Recorded ones from the lab guest: tests/guest/92-tracedat-record.sh.
set -e
G=build/gen-tracedat
F=tests/formats
D=tests/fixtures
mkdir -p $D
$G -s 1 -n 400 $F $D/events-v6.dat
$G -s 2 -n 3000 -p 1 -l $F $D/lost-v6.dat
$G -s 3 -n 400 -c global -i second $F $D/instance-v6.dat
# code addresses with kallsyms symbols: %ps names, %pS name+0xoffset
$G -s 5 -n 400 -k tests/kallsyms $F $D/symbols-v6.dat
for c in local global mono boot x86-tsc counter; do
	$G -s 4 -n 40 -c $c $F $D/clock-$c-v6.dat
done
conv() { trace-cmd convert -i "$1" -o "$2" --file-version 7 --compression "$3" >/dev/null 2>&1; }
conv $D/events-v6.dat $D/events-v7.dat none
conv $D/events-v6.dat $D/events-v7-zstd.dat zstd
conv $D/instance-v6.dat $D/instance-v7-zstd.dat zstd
conv $D/lost-v6.dat $D/lost-v7-zstd.dat zstd
