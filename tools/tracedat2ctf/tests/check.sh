#!/bin/sh
# TAP tests of tracedat2ctf (run by `make check` with the sanitized builds in
# build/).  Each fixture goes through tracedat2ctf (ASan+UBSan) and through
# the babeltrace2 command line with the plugin (ASan+UBSan preloaded); the
# CTF read back by babeltrace2, and by babeltrace 1.x, must say what
# `trace-cmd report` says, event by event.
set -u
B=build
FIX=tests/fixtures
T=$(mktemp -d /tmp/tracedat2ctf-check.XXXXXX)
trap 'rm -rf "$T"' EXIT
# babeltrace 1.x (Debian's babeltrace), an independent CTF 1.8 reader
have_bt1=$(command -v babeltrace >/dev/null 2>&1 && echo 1)
# the babeltrace2 CLI runs the ASan plugin with the runtime preloaded; the
# CLI's own allocations are not ours to leak-check
ASAN_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0
export ASAN_OPTIONS=fast_unwind_on_malloc=0
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n $1"; sed 's/^/# /' "$T/why" 2>/dev/null | head -20; }
check() { if [ "$1" = 0 ]; then ok "$2"; else not_ok "$2"; fi; }
bt2() { LD_PRELOAD="$ASAN_PRELOAD" ASAN_OPTIONS=detect_leaks=0 babeltrace2 "$@"; }

# synthetic files (make fixtures) and real recordings from the guest
# (tests/fixtures/guest/README)
fixtures=$(ls $FIX/*.dat $FIX/guest/*.dat)
nfix=$(echo "$fixtures" | wc -l)
# files the fuzzer found crashing libtracecmd or leaking in libtraceevent
regress=$(ls tests/regress/*.dat)
nreg=$(echo "$regress" | wc -l)
echo "TAP version 13"
echo "1..$((nfix * 3 + 3 + 3 + 7 + nreg + 6 + 1))"

# 1. every fixture: tracedat2ctf IN OUT, then babeltrace2 OUT vs report
for f in $fixtures; do
	name=$(basename "$f" .dat)
	rm -rf "$T/out"
	trace-cmd report -N -R -t "$f" >"$T/report" 2>/dev/null
	if $B/tracedat2ctf-asan "$f" "$T/out" >/dev/null 2>"$T/why" &&
	   babeltrace2 --clock-seconds --no-delta "$T/out" >"$T/bt" 2>"$T/bterr" &&
	   $B/cmpreport "$T/report" "$T/bt" "$T/bterr" >"$T/why"; then
		ok "round trip $name: $(tail -1 "$T/why")"
	else
		not_ok "round trip $name"
	fi
	# the same CTF read by babeltrace 1.x
	if [ -z "$have_bt1" ]; then
		n=$((n + 1)); echo "ok $n babeltrace 1.x reads $name # SKIP babeltrace not installed"
	elif [ -e "$T/out/metadata" ] &&
	     babeltrace --clock-seconds --no-delta "$T/out" >"$T/bt1" 2>"$T/bt1err" &&
	     $B/cmpreport --bt1 "$T/report" "$T/bt1" "$T/bt1err" >"$T/why"; then
		ok "babeltrace 1.x reads $name: $(tail -1 "$T/why")"
	else
		cat "$T/bt1err" >>"$T/why" 2>/dev/null
		not_ok "babeltrace 1.x reads $name"
	fi
done

# 2. every fixture read directly by the plugin (auto-discovery)
for f in $fixtures; do
	name=$(basename "$f" .dat)
	trace-cmd report -N -R -t "$f" >"$T/report" 2>/dev/null
	if bt2 --plugin-path=$B/asan-plugin --clock-seconds --no-delta "$f" \
		>"$T/bt" 2>"$T/bterr" &&
	   $B/cmpreport "$T/report" "$T/bt" "$T/bterr" >"$T/why"; then
		ok "babeltrace2 $name.dat (plugin found by support-info): $(tail -1 "$T/why")"
	else
		cp "$T/bterr" "$T/why"
		not_ok "babeltrace2 $name.dat (plugin found by support-info)"
	fi
done

# 3. the documented babeltrace2 convert command writes the same CTF
for f in $FIX/events-v7-zstd.dat $FIX/lost-v6.dat $FIX/instance-v7-zstd.dat; do
	rm -rf "$T/cli"
	trace-cmd report -N -R -t "$f" >"$T/report" 2>/dev/null
	bt2 --plugin-path=$B/asan-plugin convert \
		--component=source.tracedat.ftrace --params="inputs=[\"$f\"]" \
		--component=sink.ctf.fs --params="path=\"$T/cli\"" >/dev/null 2>"$T/why"
	babeltrace2 --clock-seconds --no-delta "$T/cli" >"$T/bt" 2>"$T/bterr"
	$B/cmpreport "$T/report" "$T/bt" "$T/bterr" >"$T/why" && {
		[ -z "$have_bt1" ] || {
			babeltrace --clock-seconds --no-delta "$T/cli" >"$T/bt1" 2>"$T/bt1err" &&
			$B/cmpreport --bt1 "$T/report" "$T/bt1" "$T/bt1err" >"$T/why"
		}
	}
	check $? "babeltrace2 convert ... sink.ctf.fs: $(basename "$f") (read by babeltrace2${have_bt1:+ and babeltrace 1.x})"
done

# 4. the checker itself notices a wrong value
rm -rf "$T/out"
$B/tracedat2ctf-asan $FIX/events-v6.dat "$T/out" >/dev/null
trace-cmd report -N -R -t $FIX/events-v6.dat >"$T/report" 2>/dev/null
babeltrace2 --clock-seconds --no-delta "$T/out" 2>"$T/bterr" |
	sed '0,/prev_prio = /s/prev_prio = \([0-9]*\)/prev_prio = 1\1/' >"$T/bt"
if $B/cmpreport "$T/report" "$T/bt" "$T/bterr" >"$T/why"; then
	not_ok "cmpreport rejects a changed field value"
else
	ok "cmpreport rejects a changed field value"
fi
# ... and a wrong symbol of a code address (real recording, %ps fields)
rm -rf "$T/out"
$B/tracedat2ctf-asan $FIX/guest/function-1500.dat "$T/out" >/dev/null
trace-cmd report -N -R -t $FIX/guest/function-1500.dat >"$T/report" 2>/dev/null
babeltrace2 --clock-seconds --no-delta "$T/out" 2>"$T/bterr" |
	sed '0,/parent_ip_sym = "/s/parent_ip_sym = "/parent_ip_sym = "x/' >"$T/bt"
if $B/cmpreport "$T/report" "$T/bt" "$T/bterr" >"$T/why"; then
	not_ok "cmpreport rejects a changed symbol"
else
	ok "cmpreport rejects a changed symbol: $(head -1 "$T/why")"
fi
# ... and in babeltrace 1.x's text, a changed string that spans two lines
# (the print event's newline) and a missing event
rm -rf "$T/out"
$B/tracedat2ctf-asan $FIX/events-v6.dat "$T/out" >/dev/null
trace-cmd report -N -R -t $FIX/events-v6.dat >"$T/report" 2>/dev/null
if [ -z "$have_bt1" ]; then
	n=$((n + 1)); echo "ok $n cmpreport --bt1 rejects changes # SKIP babeltrace not installed"
else
	babeltrace --clock-seconds --no-delta "$T/out" >"$T/bt1" 2>"$T/bt1err"
	sed '0,/buf = "marker/s/buf = "marker/buf = "Marker/' "$T/bt1" >"$T/bt1-str"
	awk '/^\[ *[0-9]+\.[0-9]+\] / { rec++ } rec != 2' "$T/bt1" >"$T/bt1-drop"
	$B/cmpreport --bt1 "$T/report" "$T/bt1" "$T/bt1err" >/dev/null; same=$?
	$B/cmpreport --bt1 "$T/report" "$T/bt1-str" "$T/bt1err" >"$T/why"; str=$?
	$B/cmpreport --bt1 "$T/report" "$T/bt1-drop" "$T/bt1err" >>"$T/why"; drop=$?
	check $([ $same = 0 ] && [ $str = 1 ] && [ $drop = 1 ]; echo $?) \
		"cmpreport --bt1 passes babeltrace 1.x's text, rejects a changed multi-line string and a missing event"
fi

# 5. bad input: a message naming the file, exit 2, no sanitizer report,
#    no output directory left
head -c 3000 $FIX/events-v6.dat >"$T/trunc-headers.dat"
head -c 20000 $FIX/events-v6.dat >"$T/trunc-data.dat"
printf 'not a trace\n' >"$T/magic.dat"
{ printf '\027\010Dtracing9\000'; tail -c +13 $FIX/events-v6.dat; } >"$T/version.dat"
# overwrite the start of the first data page of cpu 0 after its header
cp $FIX/events-v6.dat "$T/page.dat"
size=$(stat -c %s $FIX/events-v6.dat)
printf '\377\377\377\377\007\000\000\000%.0s' $(seq 1 40) |
	dd of="$T/page.dat" bs=1 seek=$((size - 3 * 4096 + 16)) conv=notrunc 2>/dev/null
: >"$T/empty.dat"
# the second instance's data offset (BUFFER option: u64 offset, "second")
# pointed past the end of the file
cp $FIX/instance-v6.dat "$T/instance.dat"
off=$(grep -obUaP 'second\x00' $FIX/instance-v6.dat | head -1 | cut -d: -f1)
printf '\377\377\377\377\377\377\000\000' |
	dd of="$T/instance.dat" bs=1 seek=$((off - 8)) conv=notrunc 2>/dev/null
for b in trunc-headers trunc-data magic version page empty instance; do
	rm -rf "$T/out"
	$B/tracedat2ctf-asan "$T/$b.dat" "$T/out" >/dev/null 2>"$T/why"
	rc=$?
	if [ $rc = 2 ] && grep -q "^tracedat2ctf: $T/$b.dat" "$T/why" &&
	   ! grep -q Sanitizer "$T/why" && [ ! -e "$T/out" ]; then
		ok "bad input $b: exit 2, $(head -1 "$T/why" | sed "s|$T/||")"
	else
		echo "exit $rc" >>"$T/why"
		not_ok "bad input $b"
	fi
done

for f in $regress; do
	rm -rf "$T/out"
	$B/tracedat2ctf-asan "$f" "$T/out" >/dev/null 2>"$T/why"
	rc=$?
	# converts (0) or is refused cleanly (2); never a sanitizer report
	if { [ $rc = 0 ] || { [ $rc = 2 ] && grep -q "^tracedat2ctf: $f" "$T/why" &&
	     [ ! -e "$T/out" ]; }; } && ! grep -q Sanitizer "$T/why"; then
		ok "fuzzer regression $(basename "$f"): exit $rc $(head -1 "$T/why")"
	else
		echo "exit $rc" >>"$T/why"
		not_ok "fuzzer regression $(basename "$f")"
	fi
done

# 6. --lttng names, clock names, usage
rm -rf "$T/out"
$B/tracedat2ctf-asan --lttng $FIX/events-v6.dat "$T/out" >/dev/null 2>"$T/why"
babeltrace2 "$T/out" >"$T/bt" 2>>"$T/why"
grep -q 'sched_switch: .*prev_tid = .*next_tid = ' "$T/bt" &&
	grep -q 'timer_hrtimer_start: ' "$T/bt" && grep -q 'procname = ' "$T/bt" &&
	grep -q 'syscall_entry_unknown: ' "$T/bt" && grep -q 'domain = "kernel"' "$T/out/metadata"
check $? "--lttng: sched_switch prev_tid/next_tid, timer_hrtimer_start, syscall_entry_unknown, procname, env domain=kernel"
bad=""
for c in local global mono boot x86-tsc counter; do
	rm -rf "$T/out"
	$B/tracedat2ctf-asan $FIX/clock-$c-v6.dat "$T/out" >/dev/null 2>&1
	id=$(echo $c | tr - _)
	grep -q "name = $id;" "$T/out/metadata" && grep -q "trace_clock = \"$c\"" "$T/out/metadata" || bad="$bad $c"
done
echo "clocks not named:$bad" >"$T/why"
check $([ -z "$bad" ]; echo $?) "clock class named after each trace clock (local global mono boot x86-tsc counter)"
$B/tracedat2ctf-asan a b c >/dev/null 2>&1
check $([ $? = 2 ]; echo $?) "usage error exits 2"
$B/tracedat2ctf-asan --help | grep -q '^usage: tracedat2ctf'
check $? "--help prints usage"
# one clock declaration for a file with buffer instances: CTF 1.x readers
# refuse more (sink.ctf.fs writes one per stream class)
rm -rf "$T/out"
$B/tracedat2ctf-asan $FIX/instance-v6.dat "$T/out" >/dev/null 2>"$T/why"
nclk=$(grep -c '^clock {' "$T/out/metadata")
nstr=$(ls "$T/out" | grep -c cpu)
echo "$nclk clock declarations, $nstr stream files" >>"$T/why"
check $([ "$nclk" = 1 ] && [ "$nstr" -gt 2 ] && ls "$T/out" | grep -q '^second-cpu'; echo $?) \
	"buffer instances: one clock declaration in the metadata, instance streams named NAME-cpuN"
mkdir -p "$T/full" && touch "$T/full/x"
$B/tracedat2ctf-asan $FIX/events-v6.dat "$T/full" >/dev/null 2>&1
check $([ $? = 2 ] && [ -e "$T/full/x" ]; echo $?) "a non-empty OUTDIR is refused and left alone"

# 7. bounded fuzzing of the trace.dat reading path (libFuzzer)
if [ -x $B/fuzz-tracedat ]; then
	mkdir -p "$T/corpus"
	cp $FIX/events-v6.dat $FIX/events-v7-zstd.dat $FIX/clock-mono-v6.dat "$T/corpus"
	$B/fuzz-tracedat -max_total_time=${FUZZ_SECONDS:-10} -max_len=65536 \
		-artifact_prefix="$T/" "$T/corpus" >"$T/fuzzlog" 2>&1
	rc=$?
	tail -5 "$T/fuzzlog" >"$T/why"
	check $rc "libFuzzer ${FUZZ_SECONDS:-10}s on the source component: $(grep -o 'Done [0-9]* runs' "$T/fuzzlog")"
else
	n=$((n + 1)); echo "ok $n libFuzzer # SKIP clang with libFuzzer not installed"
fi
echo "# tracedat2ctf check: $failed failed of $n"
[ $failed = 0 ]
