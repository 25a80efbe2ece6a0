#!/bin/sh
# make bench: conversion rate and peak memory of trace.dat -> CTF.
# Input: synthetic trace.dat files of 250,000 and 1,000,000 events (2 CPUs,
# the 15 event kinds of tests/formats, pseudo-random values) written by
# build/gen-tracedat.  Rates are per CPU-second (user+sys of the whole
# process from /usr/bin/time), not per wall-clock second: this host is
# shared, and wall time measures the other jobs as much as ours.
#
# For 1,000,000 events each converter runs RUNS times; the line gives the
# median CPU time and the slowest..fastest rate.  The same source into
# sink.utils.dummy (which drops every message) is the source's own rate
# (with the muxer and babeltrace2's start-up); what the sink.ctf.fs run
# costs beyond it is the sink's share.
#
# PEER_PLUGIN_DIR=DIR adds the same runs through the babeltrace2 plugin of
# siemens/bt2-ftrace-to-ctf (source.ftrace.tracedat), if DIR holds its
# babeltrace-plugin-ftrace.so.  Nothing is fetched or built here.
set -eu
RUNS=${RUNS:-5}
EVENTS=${EVENTS:-"250000 1000000"}
MANY=1000000
PEER_SO=babeltrace-plugin-ftrace.so
T=$(mktemp -d /tmp/tracedat2ctf-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT

echo "method: synthetic trace.dat (gen-tracedat -s 9 -p 2); CPU time (user+sys) and"
echo "        peak RSS from /usr/bin/time; peak anonymous RSS sampled from"
echo "        /proc/PID/status every 20 ms on the first run (RSS also counts the"
echo "        input pages libtracecmd keeps mmap()ed); $MANY events: median of"
echo "        $RUNS runs, rate range slowest..fastest; host CPU, not an emulator;"
echo "        load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
peer=""
if [ -n "${PEER_PLUGIN_DIR:-}" ] && [ -f "$PEER_PLUGIN_DIR/$PEER_SO" ]; then
	peer=$PEER_PLUGIN_DIR
	echo "peer:   siemens/bt2-ftrace-to-ctf plugin from $peer"
else
	echo "peer:   siemens/bt2-ftrace-to-ctf not present (PEER_PLUGIN_DIR=DIR with"
	echo "        $PEER_SO adds it); only this plugin is measured"
fi
printf '%-34s %8s %7s %17s %9s %9s %6s\n' converter events cpu_s "ev/cpu-s (range)" RSS_KiB anon_KiB CTF_B/ev

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

# one run of command...: appends "cpu_s rss_kib" to $T/runs; with $1 = first
# also samples anonymous RSS into $T/anon
one_run() {
	first=$1; shift
	rm -rf "$T/out"
	/usr/bin/time -f '%U %S %M' -o "$T/time" "$@" >/dev/null 2>"$T/err" &
	tpid=$!
	if [ "$first" = first ]; then
		sleep 0.05
		cpid=$(pgrep -P $tpid | head -1 || true)
		anon_peak "${cpid:-$tpid}" >"$T/anon"
	fi
	wait $tpid || { cat "$T/err" >&2; exit 1; }
	awk '{ print $1 + $2, $3 }' "$T/time" >>"$T/runs"
}

# run key label events ctf|dummy command...: prints a line, keeps the
# median CPU time in $T/median-KEY
run() {
	key=$1; label=$2; ev=$3; sink=$4; shift 4
	n=1
	[ "$ev" = "$MANY" ] && n=$RUNS
	: >"$T/runs"
	one_run first "$@"
	bpe=-
	if [ "$sink" = ctf ]; then
		bpe=$(du -sb "$T/out" | awk -v ev="$ev" '{ printf "%.1f", $1 / ev }')
		got=$(babeltrace2 "$T/out" 2>/dev/null | wc -l)
		[ "$got" = "$ev" ] || { echo "$label: CTF holds $got events, not $ev" >&2; exit 1; }
	fi
	i=1
	while [ $i -lt $n ]; do one_run next "$@"; i=$((i + 1)); done
	sort -n "$T/runs" | awk -v l="$label" -v ev="$ev" -v anon="$(cat "$T/anon")" -v bpe="$bpe" \
		-v mfile="$T/median-$key" '
		{ c[NR] = $1; if ($2 > rss) rss = $2 }
		END {
			m = c[int((NR + 1) / 2)]
			if (m <= 0 || c[1] <= 0) { print l ": CPU time too small to measure" > "/dev/stderr"; exit 1 }
			print m > mfile
			range = NR > 1 ? sprintf("%.2f..%.2fM", ev / c[NR] / 1e6, ev / c[1] / 1e6) : ""
			printf "%-34s %8d %7.2f %7.2fM %9s %9d %9d %6s\n", l, ev, m, ev / m / 1e6, range, rss, anon, bpe
		}'
}

# sink.ctf.fs's share: the CPU time the ctf.fs run spends beyond the
# same source into sink.utils.dummy
share() {	# label ctf-key dummy-key
	awk -v l="$1" -v c="$(cat "$T/median-$2")" -v d="$(cat "$T/median-$3")" \
		'BEGIN { printf "%s: sink.ctf.fs %.0f%% of the CPU time (%.2f of %.2f s), source+muxer %.2f s\n", l, 100 * (c - d) / c, c - d, c, d }'
}

for ev in $EVENTS; do
	in=$T/in-$ev.dat
	out=$T/out
	build/gen-tracedat -s 9 -n $ev -p 2 tests/formats "$in"
	run ours-cmd "tracedat2ctf IN OUT" $ev ctf ./tracedat2ctf "$in" "$out"
	run ours-ctf "bt2 source.tracedat.ftrace ctf.fs" $ev ctf \
		babeltrace2 --plugin-path=. convert \
		--component=source.tracedat.ftrace --params="inputs=[\"$in\"]" \
		--component=sink.ctf.fs --params="path=\"$out\",assume-single-trace=true"
	run ours-dummy "bt2 source.tracedat.ftrace dummy" $ev dummy \
		babeltrace2 --plugin-path=. convert \
		--component=source.tracedat.ftrace --params="inputs=[\"$in\"]" \
		--component=sink.utils.dummy
	[ -n "$peer" ] || continue
	run peer-ctf "peer source.ftrace.tracedat ctf.fs" $ev ctf \
		babeltrace2 --plugin-path="$peer" convert \
		--component=source.ftrace.tracedat --params="inputs=[\"$in\"]" \
		--component=sink.ctf.fs --params="path=\"$out\",assume-single-trace=true"
	run peer-dummy "peer source.ftrace.tracedat dummy" $ev dummy \
		babeltrace2 --plugin-path="$peer" convert \
		--component=source.ftrace.tracedat --params="inputs=[\"$in\"]" \
		--component=sink.utils.dummy
done
echo "at $ev events (medians):"
share "  this plugin" ours-ctf ours-dummy
[ -z "$peer" ] || share "  peer plugin" peer-ctf peer-dummy
# what each writes per event decides most of the sink's work
[ -z "$peer" ] || echo "  (CTF_B/ev: this plugin writes comm and every common field per event, the peer neither)"
