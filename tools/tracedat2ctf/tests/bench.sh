#!/bin/sh
# make bench: conversion rate and peak memory of trace.dat -> sink.ctf.fs.
# Input: synthetic trace.dat files of 250,000 and 1,000,000 events (2 CPUs,
# the 15 event kinds of tests/formats, pseudo-random values) written by
# build/gen-tracedat.  Each conversion runs under /usr/bin/time -v; the
# figures are wall-clock time on this (shared) host and the peak RSS.
# PEER_PLUGIN_DIR=DIR adds the same runs through another babeltrace2
# plugin's source.ftrace.tracedat (siemens/bt2-ftrace-to-ctf), if built.
set -eu
T=$(mktemp -d /tmp/tracedat2ctf-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT
echo "method: synthetic trace.dat (gen-tracedat -p 2), converted to CTF by sink.ctf.fs;"
echo "        wall and CPU (user+sys) time, peak RSS from /usr/bin/time -v; peak"
echo "        anonymous RSS sampled from /proc/PID/status every 20 ms (RSS also"
echo "        counts the input file pages that libtracecmd keeps mmap()ed);"
echo "        host CPU, not an emulator; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-42s %8s %7s %7s %10s %10s %9s %9s\n' converter events wall_s cpu_s ev/s_wall ev/s_cpu RSS_KiB anon_KiB
# peak RssAnon of process $1 until it exits
anon_peak() {
	peak=0
	while [ -e /proc/$1/status ]; do
		a=$(sed -n 's/^RssAnon:[[:space:]]*\([0-9]*\).*/\1/p' /proc/$1/status 2>/dev/null || true)
		if [ -n "$a" ] && [ "$a" -gt "$peak" ]; then peak=$a; fi
		sleep 0.02
	done
	echo $peak
}
run() {	# label events command...
	label=$1; ev=$2; shift 2
	rm -rf "$T/out"
	/usr/bin/time -v "$@" >/dev/null 2>"$T/time" &
	tpid=$!
	sleep 0.05
	cpid=$(pgrep -P $tpid | head -1)
	anon=$(anon_peak "${cpid:-$tpid}")
	wait $tpid
	wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$T/time" |
		awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
	cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { print s }' "$T/time")
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$T/time")
	got=$(babeltrace2 "$T/out" 2>/dev/null | wc -l)
	[ "$got" = "$ev" ] || { echo "$label: CTF holds $got events, not $ev" >&2; exit 1; }
	printf '%-42s %8d %7.2f %7.2f %10.0f %10.0f %9d %9d\n' "$label" "$ev" "$wall" "$cpu" \
		"$(echo "$ev $wall" | awk '{ print $1 / $2 }')" \
		"$(echo "$ev $cpu" | awk '{ print $1 / $2 }')" "$rss" "$anon"
}
for ev in 250000 1000000; do
	build/gen-tracedat -s 9 -n $ev -p 2 tests/formats "$T/in-$ev.dat"
	run "tracedat2ctf IN OUT" $ev ./tracedat2ctf "$T/in-$ev.dat" "$T/out"
	run "babeltrace2 convert source.tracedat.ftrace" $ev babeltrace2 --plugin-path=. \
		convert --component=source.tracedat.ftrace --params="inputs=[\"$T/in-$ev.dat\"]" \
		--component=sink.ctf.fs --params="path=\"$T/out\",assume-single-trace=true"
	if [ -n "${PEER_PLUGIN_DIR:-}" ]; then
		run "peer: source.ftrace.tracedat (siemens)" $ev babeltrace2 \
			--plugin-path="$PEER_PLUGIN_DIR" convert \
			--component=source.ftrace.tracedat --params="inputs=[\"$T/in-$ev.dat\"]" \
			--component=sink.ctf.fs --params="path=\"$T/out\",assume-single-trace=true"
	fi
done
