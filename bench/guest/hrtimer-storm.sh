#!/bin/sh
# rtlab: kernel=rt cpus=2 mem=1024 timeout=1500
#
# Benchmark for seed 001 (issue 6): what a storm of hrtimer sleepers costs an
# RT thread on the same CPU, with the fix (SCHED_OTHER sleepers expire in
# the timer softirq) and without it (SCHED_FIFO sleepers expire in the hard
# interrupt, as every sleeper did before the fix).
#
# Scenarios, all on CPU $cpu, in one boot of one kernel:
#   a  cyclictest SCHED_FIFO 99 alone
#   b  a + wakestorm: N SCHED_OTHER sleepers (soft expiry: the fix)
#   c  a + wakestorm: N SCHED_FIFO 1 sleepers (hard expiry: before the fix)
#   hog  a + a SCHED_OTHER busy loop on the CPU, no timers (load control)
# with N = 1000 for the a/b/c comparison and N = 100, 1000, 4000 for growth;
# then a, hog, b and c again under the timerlat tracer instead of cyclictest.
#
# Figures:
#   cyclictest latency (avg, max). Under QEMU TCG its maximum is mostly
#   emulator noise: compare ratios within this run only.
#   cyclictest's tail: samples at or above a threshold derived from this run
#   (half the median hard-irq time of scenario c), per storm expiry.
#   Hard timer interrupt time per storm expiry: function_graph traces
#   hrtimer_interrupt on CPU $cpu only (set_ftrace_filter, tracing_cpumask),
#   with trace_clock "mono" (= CLOCK_MONOTONIC, the clock wakestorm's expiries
#   are on). For every common expiry T of the storm, the first
#   hrtimer_interrupt that starts in [T - 20 us, T + period/2] is the one that
#   expires the storm's timers (their soft expiry is T, the hard one T plus
#   the timer slack); its duration is the hard interrupt time spent on that
#   expiry. In scenario a the same windows are laid at the same period from
#   the start of the trace. Also: total hrtimer_interrupt time per second,
#   and context switches (schedstat timeslices) on CPU $cpu per expiry.
#   timerlat (1 ms period on CPU $cpu): the latency of an RT wake-up split
#   into its interrupt part and its thread part, to tell where a tail
#   comes from.
. /rtlab/lib.sh

T=/sys/kernel/tracing
OUT=${RTLAB_OUT:-/tmp}
cpu=1
iters=8		# storm expiries per scenario
work=$(mktemp -d /tmp/hrtimer-storm.XXXXXX)
saved_bufsize=$(cat "$T/buffer_size_kb" 2>/dev/null)

cleanup() {
	echo 0 >"$T/tracing_on" 2>/dev/null
	echo nop >"$T/current_tracer" 2>/dev/null
	echo >"$T/set_ftrace_filter" 2>/dev/null
	echo local >"$T/trace_clock" 2>/dev/null
	[ -n "${saved_cpumask:-}" ] && echo "$saved_cpumask" >"$T/tracing_cpumask" 2>/dev/null
	[ -n "$saved_bufsize" ] && echo "$saved_bufsize" >"$T/buffer_size_kb" 2>/dev/null
	echo 0 >"$T/options/funcgraph-abstime" 2>/dev/null
	[ -n "${saved_osnoise_cpus:-}" ] && echo "$saved_osnoise_cpus" >"$T/osnoise/cpus" 2>/dev/null
	echo >"$T/trace" 2>/dev/null
	echo 1 >"$T/tracing_on" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

[ -d "$T/events" ] || mount -t tracefs nodev "$T" 2>/dev/null
saved_cpumask=$(cat "$T/tracing_cpumask" 2>/dev/null)
saved_osnoise_cpus=$(cat "$T/osnoise/cpus" 2>/dev/null)

die() {
	tap_fail "$*"
	tap_done
}

# storm period: long enough for one storm to be over before the next one
# under TCG (about 100 us per wake-up measured): 250 us per thread, >= 200 ms
period_ms() {
	p=$(($1 / 4))
	[ "$p" -lt 200 ] && p=200
	echo "$p"
}

trace_setup() {
	echo 0 >"$T/tracing_on"
	echo nop >"$T/current_tracer"
	echo 0 >"$T/events/enable"
	grep -qx hrtimer_interrupt "$T/available_filter_functions" || return 1
	echo hrtimer_interrupt >"$T/set_ftrace_filter" || return 1
	printf '%x\n' $((1 << cpu)) >"$T/tracing_cpumask" || return 1
	echo mono >"$T/trace_clock" || return 1
	echo 8192 >"$T/buffer_size_kb"
	echo function_graph >"$T/current_tracer" || return 1
	echo 1 >"$T/options/funcgraph-abstime"
	echo 1 >"$T/options/funcgraph-irqs"
	echo 1 >"$T/options/funcgraph-duration"
	echo 0 >"$T/tracing_on"
}

# The trace analysis (tests/progs/hrtimer_trace.c), on the binary buffer:
# hrtimer_interrupt's time per storm expiry from function_graph, timerlat's
# latencies, the buffer's lost events.
HT=/usr/local/libexec/rtlab/hrtimer_trace

# load NAME N POLICY PERIOD_MS DELAY_MS SECS: the load of a scenario on CPU
# $cpu: a storm of N wakestorm sleepers, the CPU hog control, or nothing.
load() {
	if [ "$3" = hog ]; then
		# load control: the same CPU kept busy by a SCHED_OTHER loop, no timers
		taskset -c $cpu sh -c 'while :; do :; done' &
		hpid=$!
		sleep $(($6 - 2))
		kill $hpid
		wait $hpid 2>/dev/null
		return 0
	elif [ "$2" != 0 ]; then
		wakestorm -q -n "$2" -a $cpu -p "$3" ${prio:+-P $prio} \
			-t "${4}ms" -i $iters --start-delay "${5}ms" \
			-j "$work/$1.json" >"$work/$1.ws" 2>&1
		return
	fi
	sleep $(($6 - 2))	# no load: as long as the others
	return 0
}

# scenario_times N: "period_ms delay_ms secs" of a scenario with N sleepers
scenario_times() {
	p=$(period_ms "$1")
	[ "$1" = 0 ] && p=$(period_ms 1000)
	delay_ms=$((200 + $1 / 5))	# thread start-up, see wakestorm --start-delay
	echo "$p $delay_ms $(( (delay_ms + p * iters) / 1000 + 3 ))"
}

# run_timerlat NAME N POLICY: the timerlat tracer on CPU $cpu instead of
# cyclictest: it splits a wake-up's latency into the timer interrupt's
# (irq: from the timer's expiry to its handler) and the thread's (to the
# timerlat thread running). Prints "irq_avg irq_p99 irq_max irq_tail
# thr_avg thr_p99 thr_max thr_tail samples" in us (tail: >= $tau us).
run_timerlat() {
	name=$1 n=$2 pol=$3
	set -- $(scenario_times "$n")
	p=$1 delay_ms=$2 secs=$3
	echo 0 >"$T/tracing_on"
	echo nop >"$T/current_tracer"
	echo >"$T/set_ftrace_filter"
	echo $cpu >"$T/osnoise/cpus" || return 1
	echo 1000 >"$T/osnoise/timerlat_period_us" || return 1
	echo >"$T/trace"
	echo timerlat >"$T/current_tracer" || return 1
	echo 1 >"$T/tracing_on"
	sleep 1
	load "tl-$name" "$n" "$pol" "$p" "$delay_ms" "$secs"
	echo 0 >"$T/tracing_on"
	"$HT" timerlat --tail "$tau" || echo "null null null null null null null null 0"
	echo nop >"$T/current_tracer"
}

# run_scenario NAME N POLICY: cyclictest, plus a storm unless N is 0
run_scenario() {
	name=$1 n=$2 pol=$3
	set -- $(scenario_times "$n")
	p=$1 delay_ms=$2 secs=$3
	echo >"$T/trace"
	sched0=$(awk -v c="cpu$cpu" '$1 == c { print $10 }' /proc/schedstat)
	echo 1 >"$T/tracing_on"
	cyclictest -m -q -p 99 -t 1 -a $cpu -i 1000 -h 60000 -D "${secs}s" \
		>"$work/$name.cyc" 2>"$work/$name.cycerr" &
	cpid=$!
	sleep 1
	load "$name" "$n" "$pol" "$p" "$delay_ms" "$secs"
	wrc=$?
	wait $cpid
	crc=$?
	echo 0 >"$T/tracing_on"
	sched1=$(awk -v c="cpu$cpu" '$1 == c { print $10 }' /proc/schedstat)
	cp "$work/$name.cyc" "$OUT/$name.cyclictest" 2>/dev/null
	overrun=$("$HT" overrun --cpu $cpu)
	# the hard irq time per expiry: "median p99 max expiries_found
	# us_per_s interrupts", see run_irq in hrtimer_trace.c
	"$HT" irq --cpu $cpu --iters $iters --period-ms "$p" \
		$([ "$n" != 0 ] && echo --ws-json "$work/$name.json") \
		--durations "$work/$name.dur" >"$work/$name.pe" ||
		echo "null null null 0 null 0" >"$work/$name.pe"	# none found
	cp "$work/$name.dur" "$OUT/$name.dur" 2>/dev/null
	[ -f "$work/$name.json" ] && cp "$work/$name.json" "$OUT/$name.wakestorm.json"
	echo "$wrc $crc ${overrun:-?} $p $(( ${sched1:-0} - ${sched0:-0} )) $secs"
}

# cyclic FILE FIELD: Min/Avg/Max of cyclictest's histogram summary (us)
cyclic() { sed -n "s/^# $2 Latencies: *0*\([0-9][0-9]*\).*/\1/p" "$1" | tail -n 1; }

# tail_count FILE US: cyclictest samples with latency >= US (histogram
# buckets of 1 us, plus the overflows beyond the histogram)
tail_count() {
	awk -v t="$2" '
	/^[0-9]+[ \t]+[0-9]+$/ { if ($1 + 0 >= t) n += $2 }
	/^# Histogram Overflows:/ { n += $4 }
	END { print n + 0 }' "$1"
}

# percentile FILE P: latency (us) below which P% of cyclictest's samples are
percentile() {
	awk -v p="$2" '
	/^[0-9]+[ \t]+[0-9]+$/ { b[$1 + 0] += $2; tot += $2; if ($1 + 0 > mx) mx = $1 + 0 }
	/^# Histogram Overflows:/ { over = $4 + 0 }
	END {
		tot += over; need = p / 100 * tot; c = 0
		for (i = 0; i <= mx; i++) { c += b[i]; if (c >= need) { print i; exit } }
		print "overflow"
	}' "$1"
}

# json FILE KEY: a top-level number of wakestorm's JSON
json() { sed -n "s/^[[:space:]]*\"$2\":[[:space:]]*\([0-9.e+-]*\).*/\1/p" "$1" | head -n 1; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0) printf "%.2f", b / a; else print "null" }'; }

tap_diag "hrtimer storm benchmark on $(uname -r), accel ${RTLAB_ACCEL:-?}, CPU $cpu"
command -v cyclictest >/dev/null || die "cyclictest is installed"
command -v wakestorm >/dev/null || die "wakestorm is installed"
trace_setup || die "function_graph on hrtimer_interrupt with trace_clock mono can be set up"
tap_ok "function_graph on hrtimer_interrupt (CPU $cpu, trace_clock mono) set up"

results=$work/results
: >"$results"
prio=
for sc in "a 0 other" "hog 0 hog" "b 1000 other" "c 1000 fifo" \
	  "other-100 100 other" "fifo-100 100 fifo" \
	  "other-4000 4000 other" "fifo-4000 4000 fifo"; do
	set -- $sc
	name=$1 n=$2 pol=$3
	if [ "$pol" = fifo ]; then prio=1; else prio=; fi
	set -- $(run_scenario "$name" "$n" "$pol")
	wrc=$1 crc=$2 overrun=$3 p=$4 switches=$5
	if [ "$n" != 0 ]; then
		missed=$(json "$work/$name.json" missed)
		wakeups=$(json "$work/$name.json" wakeups)
	else
		missed=0 wakeups=0
	fi
	pe=$(cat "$work/$name.pe")
	cmin=$(cyclic "$work/$name.cyc" Min)
	cavg=$(cyclic "$work/$name.cyc" Avg)
	cmax=$(cyclic "$work/$name.cyc" Max)
	cp99=$(percentile "$work/$name.cyc" 99)
	# context switches on the CPU per period (storm expiry)
	secs_run=$6
	spe=$(awk -v s="$switches" -v t="$secs_run" -v p="$p" 'BEGIN { printf "%.0f", s / (t * 1000 / p) }')
	echo "$name $n $pol $p $wrc $crc $overrun ${missed:-?} ${wakeups:-?} ${cmin:-?} ${cavg:-?} ${cmax:-?} ${cp99:-?} $spe $pe" >>"$results"
	ok=yes
	[ "$wrc" = 0 ] && [ "$crc" = 0 ] && [ "$overrun" = 0 ] && [ -n "$cmax" ] || ok=no
	[ "$n" = 0 ] || [ "$wakeups" = $((n * iters)) ] || ok=no
	found=$(echo "$pe" | awk '{ print $4 }')
	[ "$found" = "$iters" ] || ok=no
	if [ $ok = yes ]; then
		tap_ok "scenario $name ($n $pol sleepers, period ${p} ms): ran, trace complete, $found expiries found in the trace"
	else
		tap_fail "scenario $name ($n $pol sleepers): wakestorm exit $wrc, cyclictest exit $crc, trace overrun $overrun, wake-ups $wakeups of $((n * iters)), expiries found in the trace $found of $iters"
		sed 's/^/# /' "$work/$name.ws" "$work/$name.cycerr" 2>/dev/null | tail -n 20
	fi
done
cp "$results" "$OUT/results.txt"

# results columns: 1 name 2 N 3 policy 4 period_ms 5 wrc 6 crc 7 overrun
# 8 missed 9 wakeups 10 cyc_min 11 cyc_avg 12 cyc_max 13 cyc_p99
# 14 switches_per_expiry 15 irq_med 16 irq_p99 17 irq_max 18 expiries_found
# 19 irq_us_per_s 20 interrupts
col() { awk -v n="$1" -v c="$2" '$1 == n { print $c }' "$results"; }

# cyclictest tail: samples >= half of scenario c's hard irq time per expiry
tau=$(awk -v c="$(col c 15)" 'BEGIN { printf "%d", c / 2 }')
for s in a hog b c other-100 fifo-100 other-4000 fifo-4000; do
	echo "$s $(tail_count "$work/$s.cyc" "$tau")"
done >"$work/tails"
tailn() { awk -v n="$1" '$1 == n { print $2 }' "$work/tails"; }

# Phase 2: the same loads under the timerlat tracer, to split an RT
# wake-up's latency into its interrupt and its thread parts.
: >"$work/tl"
for sc in "a 0 other" "hog 0 hog" "b 1000 other" "c 1000 fifo"; do
	set -- $sc
	if [ "$3" = fifo ]; then prio=1; else prio=; fi
	r=$(run_timerlat "$1" "$2" "$3")
	set -- $r
	if [ $# = 9 ] && [ "$9" -gt 0 ]; then
		tap_ok "timerlat scenario $(echo $sc | cut -d' ' -f1): $9 samples"
	else
		tap_fail "timerlat scenario $(echo $sc | cut -d' ' -f1): no samples ($r)"
	fi
	echo "$(echo $sc | cut -d' ' -f1) $r" >>"$work/tl"
done
cp "$work/tl" "$OUT/timerlat.txt"
tl() { awk -v n="$1" -v c="$2" '$1 == n { print $c }' "$work/tl"; }

echo "#"
echo "# Method: cyclictest -p99 -i1000 on CPU $cpu; storms of wakestorm sleepers"
echo "# pinned to CPU $cpu, $iters common expiries per scenario."
echo "# irq_*: duration of the hrtimer_interrupt that expired the storm's timers"
echo "#   (the first one at or after each expiry; function_graph, trace_clock mono)."
echo "# tail: cyclictest samples >= $tau us (half of c's median irq time)."
echo "# sw/exp: context switches on CPU $cpu per period (schedstat)."
tap_tcg_caveat
echo "#"
printf '# %-11s %5s %-5s %5s | %6s %6s %6s %5s | %9s %9s %9s | %9s %7s\n' \
	scenario N pol per_ms cycavg cycp99 cycmax tail irq_med irq_p99 irq_max irq_us/s sw/exp
while read -r name n pol p wrc crc ovr missed wk cmin cavg cmax cp99 spe med p99 mx k tp nint; do
	printf '# %-11s %5s %-5s %5s | %6s %6s %6s %5s | %9s %9s %9s | %9s %7s\n' \
		"$name" "$n" "$pol" "$p" "$cavg" "$cp99" "$cmax" "$(tailn "$name")" "$med" "$p99" "$mx" "$tp" "$spe"
done <"$results"

a_med=$(col a 15) b_med=$(col b 15) c_med=$(col c 15)
a_tp=$(col a 19) b_tp=$(col b 19) c_tp=$(col c 19)
a_avg=$(col a 11) b_avg=$(col b 11) c_avg=$(col c 11)
a_max=$(col a 12) b_max=$(col b 12) c_max=$(col c 12)
r_irq_b=$(ratio "$a_med" "$b_med") r_irq_c=$(ratio "$a_med" "$c_med")
r_tp_b=$(ratio "$a_tp" "$b_tp") r_tp_c=$(ratio "$a_tp" "$c_tp")
r_avg_b=$(ratio "$a_avg" "$b_avg") r_avg_c=$(ratio "$a_avg" "$c_avg")
r_max_b=$(ratio "$a_max" "$b_max") r_max_c=$(ratio "$a_max" "$c_max")
ta=$(tailn a) tb=$(tailn b) tc=$(tailn c) th=$(tailn hog)
echo "#"
echo "# ratios to a (N=1000):                 b/a      c/a"
echo "#   hard irq time per storm expiry     $r_irq_b    $r_irq_c"
echo "#   hard irq time per second           $r_tp_b    $r_tp_c"
echo "#   cyclictest avg                     $r_avg_b    $r_avg_c"
echo "#   cyclictest max (TCG noise)         $r_max_b    $r_max_c"
echo "#   cyclictest tail (>= $tau us)       samples: a $ta, hog $th, b $tb, c $tc"

echo "# timerlat on CPU $cpu (us; tail: samples >= $tau us):"
echo "#   scenario  irq: avg    p99    max  tail | thread: avg    p99    max  tail | samples"
while read -r name ia ip im it ta2 tp2 tm tt ns; do
	printf '#   %-8s %9s %6s %6s %5s | %11s %6s %6s %5s | %7s\n' "$name" "$ia" "$ip" "$im" "$it" "$ta2" "$tp2" "$tm" "$tt" "$ns"
done <"$work/tl"

o100=$(col other-100 15) o1000=$b_med o4000=$(col other-4000 15)
f100=$(col fifo-100 15) f1000=$c_med f4000=$(col fifo-4000 15)
echo "# hard irq time per storm expiry (median us)  N=100    N=1000   N=4000"
echo "#   SCHED_OTHER sleepers (soft expiry)        $o100    $o1000    $o4000"
echo "#   SCHED_FIFO 1 sleepers (hard expiry)       $f100    $f1000    $f4000"
{
	echo "# N other_median_us fifo_median_us other_p99_us fifo_p99_us baseline_median_us"
	for n in 100 1000 4000; do
		if [ $n = 1000 ]; then o=b f=c; else o=other-$n f=fifo-$n; fi
		echo "$n $(col $o 15) $(col $f 15) $(col $o 16) $(col $f 16) $a_med"
	done
} >"$OUT/growth.dat"
{
	echo "# scenario cyc_avg_us cyc_p99_us cyc_max_us irq_median_us tail_samples"
	for s in a hog b c; do echo "$s $(col $s 11) $(col $s 13) $(col $s 12) $(col $s 15) $(tailn $s)"; done
} >"$OUT/scenarios.dat"

# The benchmark's claims, checked against thresholds taken from this run:
# the noise of a figure is the spread (p99 - median) of the baseline a.
a_noise=$(awk -v m="$a_med" -v p="$(col a 16)" 'BEGIN { print p - m }')
above() { awk -v x="$1" -v y="$2" -v s="$3" 'BEGIN { exit !(x > y + s) }'; }
expected=true
if above "$c_med" "$b_med" "$a_noise"; then
	tap_ok "hard expiry (c) spends more hard irq time per expiry than soft expiry (b): $c_med vs $b_med us"
else
	tap_fail "hard expiry (c) spends more hard irq time per expiry than soft expiry (b): $c_med vs $b_med us (baseline noise $a_noise us)"
	expected=false
fi
if above "$f4000" "$f1000" "$a_noise" && above "$f1000" "$f100" "$a_noise"; then
	tap_ok "hard irq time per expiry grows with N for SCHED_FIFO sleepers: $f100 -> $f1000 -> $f4000 us"
else
	tap_fail "hard irq time per expiry grows with N for SCHED_FIFO sleepers: $f100 -> $f1000 -> $f4000 us"
	expected=false
fi
if above "$o4000" "$a_med" "$a_noise"; then
	tap_fail "soft expiry (SCHED_OTHER, N=4000) stays within the baseline's hard irq time: $o4000 vs $a_med +- $a_noise us"
	expected=false
else
	tap_ok "soft expiry (SCHED_OTHER, N=4000) stays within the baseline's hard irq time: $o4000 vs $a_med +- $a_noise us"
fi
# cyclictest and timerlat: whether they show the expected difference is
# reported, not asserted: under TCG they follow the host's load (see below).
base_tail=$ta
[ "$th" -gt "$base_tail" ] && base_tail=$th
if [ "$tc" -ge $((base_tail + iters)) ] && [ "$tb" -lt $((base_tail + iters)) ]; then
	cyc_shown=true
	echo "# cyclictest shows the expected difference: c adds >= 1 tail sample per storm expiry over max(a, hog), b does not."
else
	cyc_shown=false
	echo "# cyclictest does NOT show the expected difference: tail >= $tau us: a $ta, hog $th, b $tb, c $tc"
	echo "#   (expected: c >= max(a, hog) + $iters, b < max(a, hog) + $iters)."
fi
tl_ia=$(tl a 5) tl_ih=$(tl hog 5) tl_ib=$(tl b 5) tl_ic=$(tl c 5)
tl_ta=$(tl a 9) tl_th=$(tl hog 9) tl_tb=$(tl b 9) tl_tc=$(tl c 9)
echo "# Why: the load control (a SCHED_OTHER loop, no timers) moves cyclictest's"
echo "#   tail from $ta to $th and its average from $a_avg to $(col hog 11) us. timerlat splits"
echo "#   the latency; samples >= $tau us in irq context (the timer interrupt"
echo "#   itself is late, before any thread is involved): a $tl_ia, hog $tl_ih, b $tl_ib, c $tl_ic;"
echo "#   in thread context: a $tl_ta, hog $tl_th, b $tl_tb, c $tl_tc."
if [ "${RTLAB_ACCEL:-}" = icount ]; then
	# instruction-counted: no host timing, so no late interrupt from the host
	echo "#   Under icount the guest's clock is its instruction count: no timer"
	echo "#   interrupt is late because of the host. Per storm expiry b keeps the"
	echo "#   CPU busier (context switches per expiry: b $(col b 14), c $(col c 14); the softirq"
	echo "#   thread and the sleepers alternate) while c's cost is one hard interrupt"
	echo "#   of $c_med us. The thread-context tails above are not hardware latencies"
	echo "#   either: the two vCPUs take turns on one host thread, and a wake-up can"
	echo "#   wait for the other vCPU's turn."
	echo "#   The hard irq time per expiry, the delay every RT wake-up falling into"
	echo "#   that interrupt suffers, does, in instructions. A latency claim needs"
	echo "#   KVM or hardware."
else
	echo "#   Late timer interrupts on a vCPU that only runs a user-space loop are"
	echo "#   the emulator's doing (QEMU TCG on a shared host): under TCG the tails"
	echo "#   follow how busy the vCPU is. Per storm expiry b keeps the CPU busier"
	echo "#   (context switches per expiry: b $(col b 14), c $(col c 14); the softirq thread and the"
	echo "#   sleepers alternate) while c's cost is one hard interrupt of $c_med us."
	echo "#   So cyclictest/timerlat under TCG cannot show the fix; the hard irq time"
	echo "#   per expiry, the delay every RT wake-up falling into that interrupt"
	echo "#   suffers, can. A latency claim needs KVM or hardware."
fi
[ $expected = true ] || echo "# The hard irq figures do NOT show the expected difference: see the table above."

{
	echo "| scenario | N | policy | period ms | cyclictest avg us | p99 us | max us | tail >= $tau us | hard irq per expiry, median us | p99 us | ctx switches per expiry |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
	while read -r name n pol p wrc crc ovr missed wk cmin cavg cmax cp99 spe med p99 mx k tp nint; do
		echo "| $name | $n | $pol | $p | $cavg | $cp99 | $cmax | $(tailn "$name") | $med | $p99 | $spe |"
	done <"$results"
	echo
	echo "Ratios to a: hard irq per expiry b/a $r_irq_b, c/a $r_irq_c; cyclictest avg b/a $r_avg_b, c/a $r_avg_c; cyclictest max b/a $r_max_b, c/a $r_max_c (TCG noise)."
} >"$OUT/table.md"

# the summary JSON (cJSON) from the tables above
"$HT" report "$results" "$work/tails" "$work/tl" "$tau" "$(uname -r)" \
	"${RTLAB_ACCEL:-unknown}" $cpu $iters $expected $cyc_shown "$OUT/summary.json" ||
	tap_fail "summary.json written"
tap_done
