# tests/guest/lib/ftdump.sh: the ftdump guest tests' common steps (issue
# 19): 91-ftdump (dumps by ftrace_dump() from a module, text and raw) and
# 91-ftdump-panic-{text,raw} (dumps by a panic under ftrace_dump_on_oops,
# converted in the next boot). The same events are recorded into the top
# buffer and into the instance "truth"; the truth is saved with trace-cmd
# extract, the top buffer dumped on the console, the console log converted
# with ftdump and compared with the truth by ftdump-compare (91-ftdump.sh's
# header says why the comparison's time bound holds).
T=/sys/kernel/tracing
# D: the buffer that is dumped; R: the truth, saved with trace-cmd extract
# $TRUTH_B. 91-ftdump dumps the top buffer and keeps the truth in an
# instance; the panic tests the other way round (ftd_panic_test says why).
D=$T
R=$T/instances/truth
TRUTH_B="-B truth"
OUT=${RTLAB_OUT:-/tmp}
CMP=/usr/local/libexec/rtlab/ftdump-compare
EVENTS="sched/sched_switch sched/sched_wakeup sched/sched_wakeup_new
sched/sched_waking sched/sched_migrate_task sched/sched_process_fork
sched/sched_process_exit irq/irq_handler_entry irq/irq_handler_exit
irq/softirq_entry irq/softirq_exit irq/softirq_raise timer/hrtimer_start
timer/hrtimer_cancel timer/hrtimer_expire_entry timer/hrtimer_expire_exit
timer/timer_start timer/timer_cancel timer/timer_expire_entry
timer/timer_expire_exit workqueue/workqueue_queue_work
workqueue/workqueue_activate_work workqueue/workqueue_execute_start
workqueue/workqueue_execute_end"
FUNCS="do_nanosleep hrtimer_wakeup"
# Per CPU. The truth keeps everything; the top buffer keeps its newest
# records only: the dump must fit the 128 KB printk buffer
# (CONFIG_LOG_BUF_SHIFT=17), because on PREEMPT_RT the console is written
# by a kthread while the dump runs with interrupts off on another CPU.
TRUTH_KB=1024
TOP_KB=16
# the raw round of 91-ftdump: half the records, so that the two rounds'
# dumps fit the printk buffer together with the boot's messages
RAW_KB=8
# a panic's dump: the panic report is on the console before it
PANIC_KB=12
func=

# ftd_setup DIR KB: the same events (and function filter) in one buffer
ftd_setup() {
	echo 0 >"$1/tracing_on"
	echo "$2" >"$1/buffer_size_kb"
	for e in $EVENTS; do
		[ -e "$1/events/$e/enable" ] && echo 1 >"$1/events/$e/enable"
	done
	if [ -n "$func" ]; then
		echo "$FUNCS" >"$1/set_ftrace_filter" && echo function >"$1/current_tracer"
	fi
	: >"$1/trace"
}

# ftd_dump_done [LOG]: the log has the end marker after its last dump start
ftd_dump_done() {
	awk '/Dumping ftrace buffer:/ { n = 0 } /-------------------------------/ { n++ }
		END { exit n < 2 }' "${1:-$RTLAB_CONSOLE}"
}

# ftd_dump_stats [LOG]: "records bytes" of the last dump in LOG (default
# the console; bytes of its lines as the log has them, printk prefix
# included)
ftd_dump_stats() {
	awk '/Dumping ftrace buffer:/ { n = 0; b = 0; on = 1; s = 0 }
		on { b += length($0) + 1 }
		on && / R [0-9]+ [0-9]+ [0-9]+ 0 / { n++ }
		on && /us : / { n++ }
		on && /-------------------------------/ { if (++s == 2) on = 0 }
		END { print n, b }' "${1:-$RTLAB_CONSOLE}"
}

# ftd_prepare: the format bundle of this kernel into $OUT/formats (two test
# points), the function tracer if the kernel has it, the dump's options
ftd_prepare() {
	rm -rf "$OUT/formats"
	btf=
	[ -r /sys/kernel/btf/vmlinux ] || btf="--btf /rtlab/modules/rtlab_enums.ko"
	# shellcheck disable=SC2086
	ftdump --save-formats "$OUT/formats" $btf 2>"$OUT/save.err"
	rc=$?
	sed 's/^/# /' "$OUT/save.err"
	tap_check "ftdump --save-formats${btf:+ $btf}: the bundle of this kernel" [ "$rc" -eq 0 ]
	tap_check "the bundle resolves hrtimer_start's enum names (HRTIMER_MODE_ABS_HARD 8)" \
		grep -qx 'HRTIMER_MODE_ABS_HARD 8' "$OUT/formats/enums"
	func=
	grep -qw function "$T/available_tracers" && func=1
	mkdir -p "$D" "$R"
	echo 0 >"$D/options/hash-ptr"	# the dump prints raw pointers, as the truth has them
	# function records: "func+off/size <-parent+off/size", the exact addresses
	echo 1 >"$D/options/sym-offset"
	tap_diag "function tracer: ${func:+on for $FUNCS}${func:-not in this kernel}"
}

# ftd_mode MODE: the dump's format, text or raw (patch 0014's sysctl)
ftd_mode() {
	[ -w /proc/sys/kernel/ftrace_dump_raw ] || return 0
	if [ "$1" = raw ]; then echo 1; else echo 0; fi >/proc/sys/kernel/ftrace_dump_raw
}

# ftd_record KB: record the workload into the dumped buffer (KB per CPU)
# and the truth. The dumped buffer's events are enabled first: a
# tracepoint calls its probes in the order they were registered, so each
# event is written into the dumped buffer first, then into the truth, the
# order ftdump-compare's time bound assumes (the function tracer calls the
# callback registered last first: its records the other way round, as
# ftdump-compare knows)
ftd_record() {
	ftd_setup "$D" "$1"
	ftd_setup "$R" $TRUTH_KB
	echo 1 >"$R/tracing_on"
	echo 1 >"$D/tracing_on"
	hackbench -g 2 -f 5 -l 20 >/dev/null 2>&1
	cyclictest -q -m -t 2 -p 80 -i 1000 -l 200 >/dev/null 2>&1
	wakestorm -q -n 20 -t 2ms -i 20 >/dev/null 2>&1
	echo 0 >"$D/tracing_on"
	echo 0 >"$R/tracing_on"
}

# ftd_extract MODE: the truth into $OUT/truth-MODE.dat (one test point).
# -k: without it, extract then disables every event and tracer, some fifty
# live patches of kernel text, and multi-threaded TCG is not safe for those
# (docs/HACKING.md): it oopsed on an int3 in that teardown in 2 of 9 boots.
# The tracing state stays as it is.
ftd_extract() {
	rm -f "$OUT/truth-$1.dat"
	# shellcheck disable=SC2086
	trace-cmd extract -k $TRUTH_B -o "$OUT/truth-$1.dat" >"$OUT/extract-$1.log" 2>&1
	n=$(trace-cmd report "$OUT/truth-$1.dat" 2>/dev/null | grep -c ': ')
	if [ "${n:-0}" -ge 1000 ]; then tap_ok "$1: trace-cmd extract: the truth has $n records"; else tap_fail "$1: trace-cmd extract: the truth has ${n:-0} records (want >= 1000)"; fi
}

# ftd_check MODE LOG FORMATS TRUTH: convert the last dump of LOG with the
# bundle FORMATS and compare it with TRUTH (five test points)
ftd_check() {
	mode=$1
	ftdump -f "$3" -o "$OUT/dump-$mode.dat" -e 50 "$2" >"$OUT/summary-$mode.txt" 2>"$OUT/errors-$mode.txt"
	rc=$?
	sed 's/^/# /' "$OUT/summary-$mode.txt"
	head -20 "$OUT/errors-$mode.txt" | sed 's/^/# /'
	tap_check "$mode: ftdump converts the console log" [ "$rc" -eq 0 ]
	# the top buffer overwrote its oldest records ("[LOST N EVENTS]" lines):
	# that is the ring buffer's loss, not the console's
	tap_check "$mode: no printk messages dropped on the console" sh -c "! grep -q '[*][*] [0-9]* printk messages dropped' '$2'"
	tap_check "$mode: every line inside the dump understood" grep -q 'lines not understood inside the dump: 0$' "$OUT/summary-$mode.txt"
	if [ "$mode" = raw ]; then
		tap_check "raw: every record copied byte for byte, none kept as text, none dropped" \
			sh -c "grep -q ' 0 kept as text' '$OUT/summary-$mode.txt' && grep -q 'records copied byte for byte, 0 dropped' '$OUT/summary-$mode.txt'"
		exact=--exact
	else
		# the events whose text the kernel prints in full are all rebuilt
		bad=$(awk '$1 ~ /^(sched_switch|sched_wakeup|sched_waking|irq_handler_entry|irq_handler_exit|softirq_entry|softirq_exit|softirq_raise|hrtimer_start|hrtimer_expire_entry|hrtimer_cancel|timer_start|function)$/ && $3 != 0 { print $1 }' "$OUT/summary-$mode.txt")
		tap_check "text: sched, irq, softirq, hrtimer, timer_start, function records all rebuilt (text-only: ${bad:-none})" [ -z "$bad" ]
		exact=
	fi
	# shellcheck disable=SC2086
	$CMP $TRUTH_B $exact "$4" "$OUT/dump-$mode.dat" >"$OUT/compare-$mode.txt" 2>&1
	rc=$?
	sed 's/^/# /' "$OUT/compare-$mode.txt"
	tap_check "$mode: every dumped record has its twin in the truth, none of the truth missing (pid, event, fields${exact:+ byte for byte}, time bound${exact:+ at 1 ns}, per CPU)" [ "$rc" -eq 0 ]
}

# ftd_panic_test MODE: the dump a panic prints under ftrace_dump_on_oops,
# as text or raw, in two boots (header key expect=panic, docs/HACKING.md).
# The dumped buffer is the instance "dumped" (ftrace_dump_on_oops=dumped on
# the command line) and the truth the top buffer: trace-cmd 3.1.6's
# "extract -B NAME" also reads and so empties the top buffer, while a plain
# extract leaves the instances whole, and the top buffer must be saved
# before the panic while the dumped one stays whole for it. Phase 1 saves
# the format bundle, records, saves the truth and panics the guest with
# rtlab_warn; panic()'s notifier dumps the instance, and the console is
# flushed before QEMU exits. Phase 2 converts the dump in the console the
# host kept ($RTLAB_PREV/console.log) with the bundle and compares it with
# the truth, both kept in $RTLAB_PREV/out.
ftd_panic_test() {
	mode=$1
	D=$T/instances/dumped R=$T TRUTH_B=
	if [ "${RTLAB_PHASE:-}" = 2 ]; then
		tap_plan 7
		prev=$RTLAB_PREV/console.log
		# grep -q only: phase 1's kernel lines on this console would be
		# taken for splats of phase 2
		tap_check "$mode: phase 1's console has the panic, then the dump of the instance" \
			sh -c "sed -n '/Kernel panic - not syncing: rtlab_warn: injected panic/,\$p' '$prev' | grep -q 'Dumping ftrace instance dumped buffer:'"
		tap_check "$mode: the dump is complete in it" ftd_dump_done "$prev"
		ftd_check "$mode" "$prev" "$RTLAB_PREV/out/formats" "$RTLAB_PREV/out/truth-$mode.dat"
		tap_done
		return
	fi
	ftd_prepare
	ftd_record $PANIC_KB
	ftd_extract "$mode"
	n=$(grep -c ': ' "$D/trace")
	if [ "${n:-0}" -ge 200 ]; then tap_ok "$mode: the instance dumped holds $n records for the dump"; else tap_fail "$mode: the instance dumped holds ${n:-0} records (want >= 200)"; fi
	read -r oops </proc/sys/kernel/ftrace_dump_on_oops
	read -r raw </proc/sys/kernel/ftrace_dump_raw
	tap_check "$mode: ftrace_dump_on_oops=$oops, ftrace_dump_raw=$raw from the command line" \
		test "$oops" = dumped -a "$raw" = "$([ "$mode" = raw ] && echo 1 || echo 0)"
	rmmod rtlab_warn 2>/dev/null
	insmod /rtlab/modules/rtlab_warn.ko what=panic
	tap_fail "the guest did not panic"
	tap_done
}
