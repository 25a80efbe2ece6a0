#!/bin/sh
# rtlab: kernel=rt cpus=2 mem=512 timeout=600 accel=tcg1 cmdline=ftrace_dump_raw
#
# Single-threaded TCG (accel=tcg1): enabling some 25 events in two buffers
# and the function tracer patches kernel text, and multi-threaded TCG ran
# a stale int3 ("Oops: int3" in enqueue_timer, a clean-clone make check of
# 2026-12-05); icount would be single-threaded too, but its guest cannot
# read $RTLAB_CONSOLE during the run.
#
# Issue 19: an ftrace dump on the console, converted by ftdump, against the
# ground truth. The same events (sched, irq, softirq, timer, hrtimer,
# workqueue; the function tracer on a few functions when the kernel has it)
# are recorded into the top buffer and into the instance "truth" while
# hackbench, cyclictest and wakestorm run. The instance is saved with
# trace-cmd extract; the top buffer is dumped with sysrq-z, or where the
# kernel lacks CONFIG_MAGIC_SYSRQ (the lab's) with the same ftrace_dump()
# from the module rtlab_ftdump. The console
# log, which the harness writes to the host and shares at $RTLAB_CONSOLE,
# is converted with the format bundle saved from this kernel (its enum
# constants from BTF: the lab's kernels have none, so from the BTF that
# the test module rtlab_enums.ko carries, made by gcc -gbtf in the same
# kbuild), and ftdump-compare pairs every dumped record with its twin in
# the truth: same CPU, pid, event and fields.
#
# Two rounds: the dump as text, then (patch 0014) with ftrace_dump_raw,
# each record printed as its bytes. The raw round is compared with
# ftdump-compare --exact: every field byte for byte, times at 1 ns. Its
# cost against the text is printed per record: console bytes, and the
# time ftrace_dump() ran (rtlab_ftdump times it; TCG time, so the ratio
# is what holds, not the microseconds).
#
# The command line has the bare word "ftrace_dump_raw" (the panic test
# 91-ftdump-panic-raw has "ftrace_dump_raw=1"): the first point is that
# it turned the sysctl on; the rounds then set it themselves.
#
# Time tolerance: every event is written twice by one tracepoint call,
# into the top buffer and then into the instance, with preemption off but
# interrupts on. Between the two writes the CPU can take an interrupt
# (whose records then land in both buffers between the two writes, so
# the buffers differ in order) or, under TCG, be stopped by the host; no
# fixed bound holds for that. What holds is that the second write comes
# before the CPU's next event: a twin's time may not pass the dump time
# of the next dumped record whose twin follows it in the truth, plus the
# dump's resolution of 1 us (it rounds to us). Function tracer records are
# written the other way round (ftrace calls the instance's callback
# first): their twin may not pass their own dump time, nor precede the
# previous record's (ftdump-compare's header). A stamp equal to the
# previous record's bounds nothing: the ring buffer gives an event whose
# reservation was interrupted its predecessor's stamp (a zero delta; CI
# of 2026-12-06 had one 11 us early). Records the dump
# has and the truth lacks, records of the truth inside the dump that the
# dump lacks, and twins later than that bound are each named and fail.
. /rtlab/lib.sh
. /rtlab/lib/ftdump.sh

# round MODE KB: one recording, dumped as MODE (text, or raw with
# ftrace_dump_raw) from a top buffer of KB per CPU, converted and compared
# with the truth; seven test points
round() {
	ftd_mode "$1"
	ftd_record "$2"
	t0=$(date +%s)
	if [ -w /proc/sysrq-trigger ]; then
		how="sysrq-z"
		echo z >/proc/sysrq-trigger
	else
		# the lab's kernels have no CONFIG_MAGIC_SYSRQ: the same ftrace_dump()
		how="ftrace_dump(DUMP_ALL) from rtlab_ftdump.ko (no CONFIG_MAGIC_SYSRQ)"
		rmmod rtlab_ftdump 2>/dev/null
		insmod /rtlab/modules/rtlab_ftdump.ko
	fi
	tap_diag "$1 dump by $how"
	i=0
	while ! ftd_dump_done && [ $i -lt 300 ]; do sleep 1; i=$((i + 1)); done
	tap_diag "the dump reached the console in about $(( $(date +%s) - t0 )) s"
	tap_check "$1: the dump is complete on the console" ftd_dump_done
	# shellcheck disable=SC2046
	set -- "$1" $(ftd_dump_stats)
	took=$(dmesg | sed -n 's/.*rtlab_ftdump: ftrace_dump() took \([0-9]*\) us/\1/p' | tail -1)
	tap_diag "$1 dump: $2 records, $3 bytes on the console, ftrace_dump() ran ${took:-?} us"
	echo "$1 $2 $3 ${took:-0}" >>"$OUT/dump-cost.txt"
	# the truth after the dump: the dump must find the top buffer whole
	ftd_extract "$1"
	cp "$RTLAB_CONSOLE" "$OUT/console-$1.log"
	ftd_check "$1" "$OUT/console-$1.log" "$OUT/formats" "$OUT/truth-$1.dat"
}

tap_plan 18
read -r raw0 </proc/sys/kernel/ftrace_dump_raw
tap_check "\"ftrace_dump_raw\" alone on the command line sets /proc/sys/kernel/ftrace_dump_raw to 1 (${raw0:-unreadable})" \
	[ "$raw0" = 1 ]
if [ -z "${RTLAB_CONSOLE:-}" ] || [ ! -r "$RTLAB_CONSOLE" ]; then
	tap_fail "the harness shares the console log (RTLAB_CONSOLE=${RTLAB_CONSOLE:-unset})"
	exit 1
fi
rm -f "$OUT/dump-cost.txt"
ftd_prepare
round text $TOP_KB
tap_check "the kernel has /proc/sys/kernel/ftrace_dump_raw (patch 0014)" [ -w /proc/sys/kernel/ftrace_dump_raw ]
round raw $RAW_KB
# the cost of the raw format, per record: console bytes and dump time
awk '{ r[$1] = $2; b[$1] = $3; t[$1] = $4 }
	END { if (r["text"] && r["raw"]) {
		bt = b["text"] / r["text"]; br = b["raw"] / r["raw"]
		printf "# dump cost per record: text %.0f bytes, raw %.0f bytes (%.2fx); ", bt, br, br / bt
		if (t["text"] && t["raw"]) {
			ut = t["text"] / r["text"]; ur = t["raw"] / r["raw"]
			printf "ftrace_dump() %.1f us text, %.1f us raw (%.2fx, TCG time)", ut, ur, ur / ut
		}
		printf "\n# at 115200 baud (10 bits a byte) a raw record takes %.1f ms of serial line, text %.1f ms\n", br * 10 / 115.2, bt * 10 / 115.2
	} }' "$OUT/dump-cost.txt"
tap_done
