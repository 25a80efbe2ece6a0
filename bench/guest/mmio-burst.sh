#!/bin/sh
# rtlab: kernel=rt cpus=2 mem=512 timeout=1500 devices=edu
# MMIO write bursts followed by a read (issue 5, seed 002/003), three
# strategies, against QEMU's edu PCI device (kernel/modules/rtlab_mmio).
#
# Method, all on CPU 1 of the guest, one run:
#  1. cost: for each strategy and N in 32, 256, 4096, a series of bursts from
#     a SCHED_OTHER task with nothing else on the CPU: median, p99 and max
#     time of one burst, and the stretch without a preemption point (the
#     module's regions with interrupts and preemption off, see rtlab_mmio.c):
#     per burst the longest region (median and max over the bursts) and the
#     median region of all (log2 bucket);
#  2. effect: cyclictest -m -p 99 -t 1 -a 1 -i 1000 (one SCHED_FIFO 99
#     thread pinned to CPU 1) for DURATION s (default 15) while the same
#     bursts run back to back on CPU 1 (SCHED_OTHER), and the same cyclictest
#     with CPU 1 idle and with a SCHED_OTHER busy loop (no MMIO) on it, in
#     the same boot (idle again at the end, to show the host's drift).
# Strategies: none = N writes then one read back; delay = usleep_range(20,
# 40) after every 32 writes, then the read; flush = a read back after every
# write (tpm_tis_flush style).
#
# Under QEMU TCG an MMIO write traps to the emulator synchronously: there is
# no posted write and no drain at the read, so the stall of real PCIe
# hardware is NOT reproduced.  What is measured is each strategy's cost as
# the emulator runs it and the longest stretch without a preemption point
# (the module runs the accesses between two of the strategy's preemption
# points with preemption disabled, modelling a CPU stalled in a read while
# the writes since the last such point drain).  Absolute figures are
# emulator time: compare ratios within one run only.  The longest regions
# also catch the emulator's own hiccups (host scheduling of the vCPU
# thread, QEMU's big lock taken for every MMIO access): the median region
# is the strategy's own figure.
. /rtlab/lib.sh
D=${DURATION:-15}
H=100000
CPU=1
out=${RTLAB_OUT:-/tmp}
M=/sys/kernel/debug/rtlab_mmio
NS="32 256 4096"
STRATS="none delay flush"

kver=$(uname -r)
echo "# kernel $kver, accel ${RTLAB_ACCEL:-?}, $(grep -c ^processor /proc/cpuinfo) CPUs, clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
echo "# TCG: an MMIO write traps to the emulator synchronously, so the posted-write stall of real PCIe hardware is not reproduced;"
echo "# measured: the strategies' cost and the longest stretch without a preemption point"
tap_tcg_caveat
echo "# bursts and cyclictest -m -p 99 -t 1 -a $CPU -i 1000 -D $D -h $H on CPU $CPU; delay = usleep_range(20, 40) every 32 writes; flush = read back after each write"

if ! insmod /rtlab/modules/rtlab_mmio.ko || [ ! -w $M/ctl ]; then
	tap_fail "rtlab_mmio loads and binds to the edu device"
	tap_done
fi
tap_ok "rtlab_mmio loads and binds to the edu device"

now_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
res() { sed -n "s/^$2 //p" "$1"; }

# burst_pinned CMD: run one ctl command from a SCHED_OTHER task on $CPU
burst_pinned() {
	taskset -c $CPU sh -c "echo $1 >$M/ctl"
}

# cyclictest_stats FILE STATFILE: samples p99 max overflows from a histogram
# (the empty buckets are dropped by grep first: awk over $H lines is slow
# under TCG)
cyclictest_stats() {
	grep -Ev '^[0-9]+[[:space:]]+0+$' "$1" | awk -v statf="$2" '
		function dec(x) { sub(/^0+/, "", x); return x == "" ? 0 : x + 0 }
		/^[0-9]+[ \t]/ { l = dec($1); c = dec($2); if (c) { cnt[l] = c; n += c; if (l > top) top = l }; next }
		/# Max Latencies:/ { max = dec($4) }
		/# Histogram Overflows:/ { ovf = dec($4) }
		END {
			if (n + ovf == 0) { print "samples=0 p99=0 max=0 overflows=0" > statf; exit 1 }
			t = (n + ovf) * 0.99; a = 0; p = -1
			for (l = 0; l <= top; l++) if (l in cnt) { a += cnt[l]; if (a >= t) { p = l; break } }
			if (p < 0) p = max	# in the overflow: p99 is at least the histogram range
			printf "samples=%d p99=%d max=%d overflows=%d\n", n + ovf, p, max, ovf > statf
		}'
}
cget() { sed -n "s/.*$2=\([0-9]*\).*/\1/p" "$out/ct-$1.stats"; }

# run_cyclictest NAME: cyclictest for $D s in the background, pid in $ct
run_cyclictest() {
	cyclictest -m -p 99 -t 1 -a $CPU -i 1000 -D "$D" -h $H -q >"$out/ct-$1.txt" 2>&1 &
	ct=$!
}
finish_cyclictest() {
	wait "$ct"
	cyclictest_stats "$out/ct-$1.txt" "$out/ct-$1.stats"
	tap_check "cyclictest $1: samples collected ($(cget "$1" samples))" test "$(cget "$1" samples)" -gt 0
}

# 1. cost of one burst, CPU otherwise idle
for n in $NS; do
	case $n in 32) c=${COUNT_32:-300} ;; 256) c=${COUNT_256:-100} ;; *) c=${COUNT_4096:-30} ;; esac
	for s in $STRATS; do
		f=$out/cost-$s-$n.txt
		if burst_pinned "burst $s $n $c" && cat $M/results >"$f" &&
			[ "$(res "$f" status)" = complete ] && [ "$(res "$f" mismatches)" = 0 ]; then
			cat $M/durations >"$out/cost-$s-$n.dur"
			tap_ok "cost $s N=$n: $c bursts, median $(res "$f" median_ns) ns, longest stretch $(res "$f" stretch_max_ns) ns"
		else
			tap_fail "cost $s N=$n: run failed or reads did not match"
		fi
	done
done

# 2. cyclictest: idle, busy loop, then each setting
run_cyclictest idle
finish_cyclictest idle

run_cyclictest busy
taskset -c $CPU sh -c 'while :; do :; done' &
hog=$!
wait "$ct"
kill "$hog"
wait "$hog" 2>/dev/null
ct=
cyclictest_stats "$out/ct-busy.txt" "$out/ct-busy.stats"
tap_check "cyclictest busy: samples collected ($(cget busy samples))" test "$(cget busy samples)" -gt 0

for n in $NS; do
	for s in $STRATS; do
		name=$s-$n
		med=$(res "$out/cost-$name.txt" median_ns)
		# chunks of about 0.5 s, so the loop notices the end of cyclictest
		c=$(awk -v m="${med:-0}" -v n="$n" 'BEGIN { c = m > 0 ? int(5e8 / m) : 1; if (c < 1) c = 1
			if (c * n > 16777216) c = int(16777216 / n); if (c > 100000) c = 100000; print c }')
		: >"$out/load-$name.chunks"
		t_end=$(($(now_ms) + D * 1000))
		run_cyclictest "$name"
		ok=1
		while [ "$(now_ms)" -lt "$t_end" ]; do
			burst_pinned "burst $s $n $c" || { ok=0; break; }
			cat $M/results >/tmp/chunk
			[ "$(res /tmp/chunk mismatches)" = 0 ] || ok=0
			echo "$(res /tmp/chunk done) $(res /tmp/chunk wall_ns) $(res /tmp/chunk stretch_max_ns) $(res /tmp/chunk nivcsw)" >>"$out/load-$name.chunks"
		done
		finish_cyclictest "$name"
		tap_check "bursts $name under cyclictest ran, reads matched" test "$ok" = 1
	done
done

# the idle baseline again: how much the host's load drifted during the run
run_cyclictest idle-end
finish_cyclictest idle-end

# table and summary
ip99=$(cget idle p99) imax=$(cget idle max)
{
	echo "Under QEMU TCG an MMIO write traps to the emulator synchronously: the posted-write stall of real PCIe hardware is **not** reproduced."
	echo "Measured: each strategy's cost and the stretch without a preemption point (rtlab_mmio's regions with interrupts and preemption off), and a"
	echo "SCHED_FIFO 99 cyclictest on the bursts' CPU (ct). Emulator time: compare ratios within this run only. Cost columns: bursts alone on CPU 1;"
	echo "median region: log2 bucket bound over all regions; stretch: longest region per burst (median and max over the bursts; the max also"
	echo "catches the emulator's own hiccups). cyclictest ran $D s per row; the bursts ran back to back from its start, in chunks, the last"
	echo "chunk may end after it (time in bursts)."
	echo
	echo "| strategy | N | burst median us | burst p99 us | burst max us | median region us | stretch median us | stretch max us | ct samples | ct p99 us | ct max us | ct p99 / idle | ct max / idle | stretch max during ct us | bursts during ct | time in bursts s |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for b in idle busy idle-end; do
		awk -v b="$b" -v s="$(cget $b samples)" -v p="$(cget $b p99)" -v m="$(cget $b max)" -v ip="$ip99" -v im="$imax" 'BEGIN {
			printf "| %s | - | - | - | - | - | - | - | %d | %d | %d | %.2f | %.2f | - | - | - |\n", (b == "idle" ? "(CPU 1 idle, start)" : b == "busy" ? "(busy loop, no MMIO)" : "(CPU 1 idle, end)"), s, p, m, p / ip, m / im }'
	done
	for n in $NS; do
		for s in $STRATS; do
			f=$out/cost-$s-$n.txt
			awk -v s="$s" -v n="$n" -v med="$(res "$f" median_ns)" -v p99="$(res "$f" p99_ns)" -v max="$(res "$f" max_ns)" \
				-v st="$(res "$f" stretch_max_ns)" -v sm="$(res "$f" stretch_median_ns)" -v rp="$(res "$f" region_p50_below_ns)" \
				-v cs="$(cget "$s-$n" samples)" -v cp="$(cget "$s-$n" p99)" \
				-v cm="$(cget "$s-$n" max)" -v ip="$ip99" -v im="$imax" -v d="$D" '
				{ bursts += $1; wall += $2; if ($3 > smax) smax = $3 }
				END { printf "| %s | %d | %.1f | %.1f | %.1f | < %.3g | %.1f | %.1f | %d | %d | %d | %.2f | %.2f | %.1f | %d | %.1f |\n",
					s, n, med / 1000, p99 / 1000, max / 1000, rp / 1000, sm / 1000, st / 1000, cs, cp, cm, cp / ip, cm / im, smax / 1000, bursts, wall / 1e9 }' \
				"$out/load-$s-$n.chunks"
		done
	done
} >"$out/table.md"
cat "$out/table.md"

{
	printf '{"benchmark":"mmio-burst","kernel":"%s","accel":"%s","duration_s":%d,"cpu":%d,' "$kver" "${RTLAB_ACCEL:-?}" "$D" "$CPU"
	printf '"note":"TCG: MMIO writes trap synchronously, the posted-write stall is not reproduced; compare ratios within one run",'
	printf '"delay":{"every":32,"pause_us":20,"wait":"usleep_range(20,40)"},"flush":{"batch":1},'
	printf '"baseline":{'
	for b in idle busy idle-end; do
		[ "$b" = idle ] || printf ','
		printf '"%s":{"samples":%d,"p99_us":%d,"max_us":%d,"overflows":%d}' "$b" "$(cget $b samples)" "$(cget $b p99)" "$(cget $b max)" "$(cget $b overflows)"
	done
	printf '},"settings":['
	first=1
	for n in $NS; do
		for s in $STRATS; do
			f=$out/cost-$s-$n.txt
			[ "$first" = 1 ] || printf ','
			first=0
			printf '{"strategy":"%s","n":%d,"burst":{"count":%d,"median_ns":%d,"p99_ns":%d,"max_ns":%d,"stretch_median_ns":%d,"stretch_max_ns":%d,"region_p50_below_ns":%d,"reads":%d,"regions":%d},' \
				"$s" "$n" "$(res "$f" done)" "$(res "$f" median_ns)" "$(res "$f" p99_ns)" "$(res "$f" max_ns)" \
				"$(res "$f" stretch_median_ns)" "$(res "$f" stretch_max_ns)" "$(res "$f" region_p50_below_ns)" "$(res "$f" reads_per_burst)" "$(res "$f" regions_per_burst)"
			awk -v cs="$(cget "$s-$n" samples)" -v cp="$(cget "$s-$n" p99)" -v cm="$(cget "$s-$n" max)" -v co="$(cget "$s-$n" overflows)" '
				{ bursts += $1; wall += $2; if ($3 > smax) smax = $3; nivcsw += $4 }
				END { printf "\"cyclictest\":{\"samples\":%d,\"p99_us\":%d,\"max_us\":%d,\"overflows\":%d,\"bursts\":%.0f,\"burst_wall_ns\":%.0f,\"stretch_max_ns\":%.0f,\"burst_task_preempted\":%.0f}}",
					cs, cp, cm, co, bursts, wall, smax, nivcsw }' "$out/load-$s-$n.chunks"
		done
	done
	printf ']}\n'
} >"$out/summary.json"

awk -v a="$(cget none-4096 max)" -v b="$(cget delay-4096 max)" -v c="$(cget flush-4096 max)" -v i="$imax" 'BEGIN {
	if (i > 0) printf "# cyclictest max / idle max at N=4096 (same run): none %.2f, delay %.2f, flush %.2f\n", a / i, b / i, c / i }'
tap_check "rtlab_mmio unloads" rmmod rtlab_mmio
tap_done
