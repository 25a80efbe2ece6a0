#!/bin/sh
# rtlab: kernel=rt cpus=2 mem=512 timeout=400
# cyclictest latency, idle and under load, plus the kernel's own wake-up
# latency histogram (sched_waking -> sched_switch of the measuring threads,
# hist trigger + synthetic event).
#
# Method: cyclictest -m (mlockall) -S (one SCHED_FIFO 99 thread per CPU,
# pinned) -i 1000 us, histogram up to 20 ms; scenario "load" runs hackbench
# (4 groups, pipes) in SCHED_OTHER for the whole measurement.
# DURATION (s, default 30) is per scenario.
#
# Under TCG every figure is emulator time, not hardware latency: only ratios
# between scenarios of one run mean anything.
. /rtlab/lib.sh
D=${DURATION:-30}
H=20000
out=${RTLAB_OUT:-/tmp}
T=/sys/kernel/tracing

# scenario NAME: run cyclictest for $D s, write hist-NAME.dat and stats-NAME
scenario() {
	name=$1
	cyclictest -m -S -p 99 -i 1000 -D "$D" -h "$H" -q >"$out/cyclictest-$name.txt" 2>&1
	# histogram lines: "000123 000004 000000" = latency, count per CPU
	awk -v name="$name" -v datf="$out/hist-$name.dat" -v statf="$out/stats-$name" '
		# cyclictest pads with zeros and busybox awk reads "000100" as octal
		function dec(x) { sub(/^0+/, "", x); return x == "" ? 0 : x + 0 }
		BEGIN { top = 0; n = 0; max = 0; ovf = 0 }
		/^[0-9]+[ \t]/ {
			lat = dec($1); c = 0
			for (i = 2; i <= NF; i++) c += dec($i)
			if (c > 0) { cnt[lat] = c; n += c; sum += lat * c; if (lat > top) top = lat }
			next
		}
		/# Max Latencies:/ { for (i = 4; i <= NF; i++) if (dec($i) > max) max = dec($i) }
		/# Min Latencies:/ { min = 1e9; for (i = 4; i <= NF; i++) if (dec($i) < min) min = dec($i) }
		/# Histogram Overflows:/ { for (i = 4; i <= NF; i++) ovf += dec($i) }
		END {
			if (n == 0) { print "samples=0" > statf; exit 1 }
			target = n * 0.99; acc = 0; p99 = -1
			for (l = 0; l <= top; l++) if (l in cnt) {
				printf "%d %d\n", l, cnt[l] > datf
				acc += cnt[l]; if (p99 < 0 && acc >= target) p99 = l
			}
			printf "samples=%d min=%d avg=%.1f p99=%d max=%d overflows=%d\n",
				n + ovf, min, sum / n, p99, max, ovf > statf
		}' "$out/cyclictest-$name.txt"
}

# The kernel's view: wake-up latency of the FIFO 99 threads, in us.
hist_setup() {
	# waking and switching happen on different CPUs: use a clock that is
	# monotonic across CPUs ("local" is per CPU and can run backwards)
	echo mono >$T/trace_clock || return 1
	echo 'wakeup_lat pid_t pid; u64 lat' >>$T/synthetic_events || return 1
	echo 'hist:keys=pid:ts0=common_timestamp.usecs if prio == 0' >>$T/events/sched/sched_waking/trigger || return 1
	echo 'hist:keys=next_pid:lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_waking).trace(wakeup_lat,next_pid,$lat) if next_prio == 0' >>$T/events/sched/sched_switch/trigger || return 1
	echo 'hist:keys=lat:sort=lat' >>$T/events/synthetic/wakeup_lat/trigger || return 1
}
hist_teardown() {
	echo '!hist:keys=lat:sort=lat' >>$T/events/synthetic/wakeup_lat/trigger
	echo '!hist:keys=next_pid:lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_waking).trace(wakeup_lat,next_pid,$lat) if next_prio == 0' >>$T/events/sched/sched_switch/trigger
	echo '!hist:keys=pid:ts0=common_timestamp.usecs if prio == 0' >>$T/events/sched/sched_waking/trigger
	echo '!wakeup_lat' >>$T/synthetic_events
	echo local >$T/trace_clock
}

kver=$(uname -r)
echo "# kernel $kver, accel ${RTLAB_ACCEL:-?}, $(grep -c ^processor /proc/cpuinfo) CPUs, clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource), wake-up histogram trace_clock mono"
echo "# cyclictest -m -S -p 99 -i 1000 -D $D -h $H; load: hackbench -g 4 -l 1000000 (SCHED_OTHER)"

scenario idle
tap_check "cyclictest idle: samples collected" grep -qv 'samples=0' "$out/stats-idle"

hist=0
hist_setup 2>/dev/null && hist=1
hackbench -g 4 -l 100000000 >/dev/null 2>&1 &
hb=$!
sleep 1
scenario load
kill $hb 2>/dev/null
wait $hb 2>/dev/null
tap_check "cyclictest under load: samples collected" grep -qv 'samples=0' "$out/stats-load"
if [ "$hist" = 1 ]; then
	cat $T/events/synthetic/wakeup_lat/hist >"$out/wakeup-hist-load.txt"
	hist_teardown 2>/dev/null
	hits=$(sed -n 's/^ *Hits: *//p' "$out/wakeup-hist-load.txt")
	tap_check "kernel wake-up histogram recorded ($hits wake-ups)" test "${hits:-0}" -gt 0
else
	tap_fail "kernel wake-up histogram (hist trigger/synthetic event setup failed)"
fi

# summary
get() { sed -n "s/.* $2=\([0-9.]*\).*/\1/p; s/^$2=\([0-9.]*\).*/\1/p" "$out/stats-$1" | head -n 1; }
{
	echo "| scenario | samples | min us | avg us | p99 us | max us |"
	echo "|---|---|---|---|---|---|"
	for s in idle load; do
		echo "| cyclictest $s | $(get $s samples) | $(get $s min) | $(get $s avg) | $(get $s p99) | $(get $s max) |"
	done
	if [ -s "$out/wakeup-hist-load.txt" ]; then
		# hist lines: "{ lat:         15 } hitcount:          3"
		# a switch in matched against a stale waking can give a wrapped u64:
		# anything over 10 s is not a wake-up latency and is left out
		awk '/lat:/ { l = $3 + 0; h = $6 + 0; if (l > 1e7) next; n += h; sum += l * h; if (l > m) m = l; c[NR] = l; w[NR] = h }
			END { if (n) { t = n * 0.99; a = 0; for (i = 1; i <= NR; i++) if (i in c) { a += w[i]; if (a >= t) { p = c[i]; break } }
			printf "| kernel wake-up (hist trigger) load | %d | - | %.1f | %d | %d |\n", n, sum / n, p, m } }' \
			"$out/wakeup-hist-load.txt"
	fi
} >"$out/table.md"
cat "$out/table.md"
awk -v kver="$kver" -v accel="${RTLAB_ACCEL:-?}" -v d="$D" '
	BEGIN { printf "{\"benchmark\":\"cyclictest\",\"kernel\":\"%s\",\"accel\":\"%s\",\"duration_s\":%d,\"scenarios\":{", kver, accel, d }
	{ if (NR > 1) printf ","; printf "\"%s\":{", FILENAME; sub(/.*stats-/, "", FILENAME)
	  for (i = 1; i <= NF; i++) { split($i, kv, "="); printf "%s\"%s\":%s", (i > 1 ? "," : ""), kv[1], kv[2] } printf "}" }
	END { printf "}}\n" }' "$out/stats-idle" "$out/stats-load" >"$out/summary.json"
sed -i 's/"[^"]*stats-\([a-z]*\)":/"\1":/g' "$out/summary.json"
awk -v a="$(get idle max)" -v b="$(get load max)" -v c="$(get idle p99)" -v d="$(get load p99)" 'BEGIN {
	if (a > 0 && c > 0) printf "# ratios load/idle (same run): max %.2f, p99 %.2f\n", b / a, d / c }'
tap_tcg_caveat latencies
tap_done
