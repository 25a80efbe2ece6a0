#!/bin/sh
# Host tests of ftdump (TAP). Every conversion runs the ASan+UBSan build;
# trace-cmd report (Debian's trace-cmd 3.1.6) reads what it wrote.
set -u
cd "$(dirname "$0")/.."
FT=build/san/ftdump
FMT=tests/formats
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export UBSAN_OPTIONS=halt_on_error=1 ASAN_OPTIONS=detect_leaks=1 \
	LSAN_OPTIONS=suppressions=$(pwd)/tests/lsan.supp
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n $1"; }
check() { name=$1; shift; if "$@" >"$T/out" 2>&1; then ok "$name"; else notok "$name"; sed 's/^/# /' "$T/out" | head -20; fi; }

# conv LOG [options]: convert into $T/x.dat, raw records into $T/x.raw
conv() {
	log=$1; shift
	rm -f "$T/x.dat" "$T/x.raw"
	$FT -f $FMT -o "$T/x.dat" "$@" "$log" >"$T/x.sum" 2>"$T/x.err" || return 1
	trace-cmd report -R "$T/x.dat" >"$T/x.raw" 2>"$T/x.rerr" || return 1
	grep -v '^cpus=' "$T/x.raw" > "$T/x.rec"
}

same_as_base() { conv "$1" && cmp -s "$T/base.rec" "$T/x.rec"; }

echo "TAP version 13"


check "--help exits 0 and names --save-formats" sh -c "$FT --help | grep -q -- --save-formats"
check "man page renders" sh -c "MANWIDTH=80 man -l ftdump.1 2>/dev/null | grep -q 'save-formats'"
check "no arguments: usage, exit 2" sh -c "$FT; test \$? -eq 2"

# a BTF standing in for the kernel's: enum hrtimer_mode as 6.12 has it
gcc -c -gbtf -o "$T/hm.o" tests/hrtimer-mode.c

# --- the sample dump: every kind of record the fixture formats have
conv tests/sample.log && cp "$T/x.rec" "$T/base.rec" && cp "$T/x.sum" "$T/base.sum" && cp "$T/x.dat" "$T/base.dat" && cp "$T/x.err" "$T/x.err.base"
check "sample converts, trace-cmd report reads it" test -s "$T/base.rec"
check "12 records on 2 CPUs, 42 lost" sh -c "grep -q '12 records, 11 rebuilt, 1 kept as text, 42 lost' $T/base.sum && grep -q '^cpus=2' $T/x.raw"
check "sched_switch fields equal the text (prev_state D|T+ = 262)" grep -q 'prev_comm=hackbench prev_pid=231 prev_prio=120 prev_state=262 next_comm=swapper/0 next_pid=0 next_prio=120' "$T/base.rec"
check "lost events are in the file" sh -c "trace-cmd report $T/x.dat 2>/dev/null | grep -q 'CPU:1 \[42 EVENTS DROPPED\]'"
check "function line rebuilt from kallsyms" grep -q 'function: *ip=do_idle parent_ip=cpuidle_enter' "$T/base.rec"
check "trace_marker text is a print record" grep -q 'print: *ip=tracing_mark_write buf=hello marker' "$T/base.rec"
check "irq_handler_exit: conditional string inverted (ret=handled -> 1)" grep -q 'irq_handler_exit: *irq=24 ret=1' "$T/base.rec"
# libtraceevent 1.7.1 parses timer_start's "flags & (A | B | C | D)" as
# "(flags & A) | B | C | D": ftdump folds the constant group first
check "timer_start rebuilt: flags D|I, cpu 1, idx 70 (0x11a80001)" sh -c "grep -q 'timer_start: *timer=0xffff888003a1c000 function=process_timeout expires=4294670000 bucket_expiry=4294670000 now=0xfffb75b6 flags=296222721' $T/base.rec && trace-cmd report $T/base.dat 2>/dev/null | grep -q 'cpu=1 idx=70 flags=D|I\$'"
# hrtimer_start's __print_symbolic names HRTIMER_MODE_* (6.12 has no
# TRACE_DEFINE_ENUM for them): the bundle's "enums" resolves them
check "hrtimer_start with enum names rebuilt (mode=ABS -> 0)" grep -q 'hrtimer_start: *hrtimer=0xa1b2c3d4 function=hrtimer_wakeup expires=12345000 softexpires=12345000 mode=0' "$T/base.rec"
# (-N: without trace-cmd's hrtimer plugin, which prints no mode)
check "the trace.dat has the fixed formats: trace-cmd report -N prints mode=ABS" sh -c "trace-cmd report -N $T/base.dat 2>/dev/null | grep -q 'softexpires=12345000 mode=ABS\$'"
sed 's/mode=ABS$/mode=REL|PINNED|HARD/' tests/sample.log > "$T/hard.log"
if conv "$T/hard.log" && grep -q 'softexpires=12345000 mode=11' "$T/x.rec"; then ok "mode=REL|PINNED|HARD -> 11 (the longest symbol that fits)"; else notok "mode=REL|PINNED|HARD -> 11"; fi
mkdir -p "$T/noenums" && cp -r $FMT/events $FMT/kallsyms "$T/noenums/"
check "bundle without enums: hrtimer_start kept as text, named" sh -c "$FT -f $T/noenums -o $T/ne.dat tests/sample.log 2>$T/ne.err >/dev/null && grep -q 'sample.log:12: hrtimer_start: text does not fit' $T/ne.err && trace-cmd report $T/ne.dat 2>/dev/null | grep -q 'print: .*0x0: hrtimer_start: hrtimer='"
check "--btf FILE when converting: the same records as the bundle's enums" sh -c "$FT -q -f $T/noenums --btf $T/hm.o -o $T/nb.dat tests/sample.log 2>/dev/null && trace-cmd report -R $T/nb.dat 2>/dev/null | grep -v '^cpus=' | cmp -s - $T/base.rec"
printf 'HRTIMER_MODE_ABS 0\nnot a line\n' > "$T/noenums/enums"
check "bad enums file: file:line error, exit 1, no output" sh -c "$FT -f $T/noenums -o $T/be.dat tests/sample.log 2>&1 | grep -q 'noenums/enums:2: not \"NAME VALUE\"'; test \$? -eq 0 && test ! -e $T/be.dat"
check "--btf of a file without BTF: named, exit 1" sh -c "$FT -f $FMT --btf tests/sample.log -o $T/bb.dat tests/sample.log 2>&1 | grep -q 'sample.log: no BTF there'; test ! -e $T/bb.dat"
# a print fmt ending in a space ("function=%ps "), kept or cut by the console
awk '{ print } /irq_handler_entry/ { sub(/121us : irq_handler_entry: .*/, "122us : workqueue_activate_work: work struct ffff888003a1c000 function=process_timeout "); print }' tests/sample.log > "$T/wq.log"
if conv "$T/wq.log" && grep -q 'workqueue_activate_work: *work=0xffff888003a1c000 function=process_timeout' "$T/x.rec" &&
   sed 's/ $//' "$T/wq.log" > "$T/wq2.log" && conv "$T/wq2.log" && grep -q 'workqueue_activate_work: *work=0xffff888003a1c000' "$T/x.rec"; then
	ok "a print fmt's trailing space, with and without it on the console"
else
	notok "a print fmt's trailing space"; sed 's/^/# /' "$T/x.err"
fi
check "print fmt fixes (unit tests)" build/san/test_fmtfix
check "__data_loc string, symbolic and %p fields rebuilt" sh -c "grep -q 'irq=24 name=virtio0-input.0' $T/base.rec && grep -q 'vec=7' $T/base.rec && grep -q 'hrtimer=0xa1b2c3d4 function=hrtimer_wakeup' $T/base.rec"
check "full comm from sched_switch in the pid table" sh -c "trace-cmd report $T/x.dat 2>/dev/null | grep -q 'kworker/0:1-12'"
check "unknown event: error names line and event, kept as text" sh -c "grep -q 'sample.log:17: mystery_event: is not an event' $T/x.err.base && grep -q 'buf=mystery_event: a=1 b=2' $T/base.rec"

# --- input forms: the same records from each
sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' tests/sample.log > "$T/nots.log"
check "no printk timestamps" same_as_base "$T/nots.log"
sed -E 's/^(\[ *[0-9]+\.[0-9]+\]) /\1 [    T1] /' tests/sample.log > "$T/caller.log"
check "printk caller ids" same_as_base "$T/caller.log"
sed -E 's/^/<4>/' tests/sample.log > "$T/raw.log"
check "dmesg -r / kmsg levels" same_as_base "$T/raw.log"
sed -E 's/^/Dec  4 00:01:02 target kernel: /' tests/sample.log > "$T/syslog.log"
check "syslog / journal prefix" same_as_base "$T/syslog.log"
sed -E 's/$/\r/' tests/sample.log > "$T/serial.log"
check "serial log with CR LF" same_as_base "$T/serial.log"
awk 'NR==7 { print "[   12.345681] random: crng init done" } { print }' tests/sample.log > "$T/inter.log"
if same_as_base "$T/inter.log" && grep -q 'not understood inside the dump: 1 (lines 7)' "$T/x.sum"; then ok "interleaved message: records unchanged, line 7 reported"; else notok "interleaved message: records unchanged, line 7 reported"; fi
awk 'NR==5 { print substr($0, 1, 90); print substr($0, 91); next } { print }' tests/sample.log > "$T/wrap.log"
if same_as_base "$T/wrap.log" && grep -q 'wrapped lines joined: 1' "$T/x.sum"; then ok "wrapped line joined"; else notok "wrapped line joined"; fi

check "log on stdin ('-') converts the same" sh -c "$FT -q -f $FMT -o $T/in.dat - < tests/sample.log 2>/dev/null && trace-cmd report -R $T/in.dat 2>/dev/null | grep -v '^cpus=' | cmp -s - $T/base.rec"
check "unwritable output: exit 1, no file left" sh -c "$FT -q -f $FMT -o $T/nodir/x.dat tests/sample.log 2>/dev/null; test \$? -eq 1 && test ! -e $T/nodir"

# --- truncated and several dumps
head -c "$(grep -b 'prev_state=D|T+' tests/sample.log | cut -d: -f1)" tests/sample.log > "$T/trunc.log"
printf '[   12.345688] hackbench-231       0d..2.    150us : sched_switch: prev_comm=hackb' >> "$T/trunc.log"
if conv "$T/trunc.log" && grep -q '11 records, 10 rebuilt, 1 kept as text' "$T/x.sum" && grep -q 'truncated: the dump.s end marker is missing' "$T/x.sum" && grep -q 'buf=sched_switch: prev_comm=hackb' "$T/x.rec"; then ok "truncated dump: complete records kept, the cut one as text, loss reported"; else notok "truncated dump"; cat "$T/x.sum" | sed 's/^/# /'; fi
{ sed 's/hello marker/first dump/' tests/sample.log; cat tests/sample.log; } > "$T/two.log"
if conv "$T/two.log" && cmp -s "$T/base.rec" "$T/x.rec" && conv "$T/two.log" --dump 1 && grep -q 'buf=first dump' "$T/x.rec" && $FT --list "$T/two.log" | grep -c '^dump' | grep -qx 2; then ok "two dumps: the last by default, --dump 1, --list"; else notok "two dumps"; fi
grep -v ' 0d\.\.\| 0\.\.' tests/sample.log | grep -v '<idle>-0         0' > "$T/orig.log"
if conv "$T/orig.log" && grep -q '^cpus=2' "$T/x.raw" && ! grep -q '\[000\]' "$T/x.rec" && grep -q '\[001\]' "$T/x.rec"; then ok "orig_cpu dump (one CPU's records)"; else notok "orig_cpu dump"; fi

# --- lossless dumps (ftrace_dump_raw, kernel patch 0014). build/dat2raw
# prints a trace.dat as that kernel prints its ring buffer; --records lists
# each record's CPU, timestamp and bytes. The sample gets a 150-byte
# marker, a record of three lines.
records() { ./build/dat2raw --records "$1" | sort -k1,1n -k2,2n; }
sed 's/hello marker/hello marker, long enough that its record takes three lines of the raw dump: 0123456789abcdefghijklmnopqrstuvwxyz0123456789/' tests/sample.log > "$T/long.log"
conv "$T/long.log" && cp "$T/x.dat" "$T/long.dat" && cp "$T/x.rec" "$T/long.rec"
records "$T/long.dat" > "$T/long.bytes"
./build/dat2raw "$T/long.dat" > "$T/raw.log"
if grep -q ' R 1 130000 [0-9]* 128 ' "$T/raw.log" && conv "$T/raw.log" && records "$T/x.dat" | cmp -s - "$T/long.bytes" && cmp -s "$T/long.rec" "$T/x.rec" && grep -q '12 records, 12 rebuilt, 0 kept as text, 42 lost' "$T/x.sum" && grep -q '12 records copied byte for byte, 0 dropped' "$T/x.sum"; then ok "raw dump: every record byte for byte with its ns timestamp, one of 3 lines"; else notok "raw dump: every record byte for byte"; sed 's/^/# /' "$T/x.sum" "$T/x.err"; fi
# negative controls: a changed byte and a changed timestamp are seen
sed '4s/ 0 3c01/ 0 3d01/' "$T/raw.log" > "$T/raw-b.log"
sed '4s/ R 0 100000 / R 0 100001 /' "$T/raw.log" > "$T/raw-t.log"
if conv "$T/raw-b.log" && ! records "$T/x.dat" | cmp -s - "$T/long.bytes" && conv "$T/raw-t.log" && ! records "$T/x.dat" | cmp -s - "$T/long.bytes"; then ok "raw dump: the byte comparison sees one byte and one ns changed"; else notok "raw dump: the byte comparison sees one byte and one ns changed"; fi
# the comm of the first line is the pid table's
check "raw dump: comms from the records' first lines" sh -c "trace-cmd report $T/x.dat 2>/dev/null | grep -q 'kworker/0:1-12 '"
# the marker's middle line lost: the record is dropped, counted as lost, named
awk '/ R 1 130000 [0-9]* 64 / { next } { print }' "$T/raw.log" > "$T/raw-m.log"
if conv "$T/raw-m.log" && grep -q '11 records copied byte for byte, 1 dropped' "$T/x.sum" && grep -q '43 lost' "$T/x.sum" && grep -q 'raw-m.log:[0-9]*: raw record of [0-9]* bytes on CPU 1 has 64: a line of it is missing' "$T/x.err" && grep -q 'bytes 128.. of a record' "$T/x.err"; then ok "raw dump: a record missing a line is dropped, counted as lost and named"; else notok "raw dump: a record missing a line"; sed 's/^/# /' "$T/x.sum" "$T/x.err"; fi
# a line cut short (a full console buffer, a truncated log)
awk '/ R 1 130000 [0-9]* 64 / { print substr($0, 1, length($0) - 10); next } { print }' "$T/raw.log" > "$T/raw-c.log"
if conv "$T/raw-c.log" && grep -q '1 dropped' "$T/x.sum" && grep -q 'a line of it was cut' "$T/x.err"; then ok "raw dump: a cut line drops its record, named"; else notok "raw dump: a cut line"; sed 's/^/# /' "$T/x.sum" "$T/x.err"; fi
# wrapped at 80 columns by the console, the rest on a line of its own
awk '/ R 0 100000 / { print substr($0, 1, 80); print substr($0, 81); next } { print }' "$T/raw.log" > "$T/raw-w.log"
if conv "$T/raw-w.log" && records "$T/x.dat" | cmp -s - "$T/long.bytes" && grep -q 'wrapped lines joined: 1' "$T/x.sum"; then ok "raw dump: a wrapped line joined"; else notok "raw dump: a wrapped line joined"; fi
# a type the formats do not have: named, kept byte for byte
sed '4s/ 0 3c01/ 0 ff7f/' "$T/raw.log" > "$T/raw-u.log"
if conv "$T/raw-u.log" && grep -q 'raw-u.log:4: raw record: type 32767 is not an event of the formats; kept byte for byte (64 bytes)' "$T/x.err" && grep -q '12 records copied' "$T/x.sum"; then ok "raw dump: an unknown event type is named with its line"; else notok "raw dump: an unknown event type"; sed 's/^/# /' "$T/x.err"; fi
# the log ends inside the last record
head -n -2 "$T/raw.log" > "$T/raw-e.log"
if conv "$T/raw-e.log" && grep -q 'truncated: the dump.s end marker is missing' "$T/x.sum" && grep -q 'records copied byte for byte' "$T/x.sum"; then ok "raw dump: a truncated log keeps the complete records"; else notok "raw dump: a truncated log"; sed 's/^/# /' "$T/x.sum" "$T/x.err"; fi

# --- bad input: clear errors, never a crash
head -c 200000 /dev/urandom > "$T/garbage.log"
check "garbage log: 'no ftrace dump', exit 1" sh -c "$FT -f $FMT -o $T/g.dat $T/garbage.log 2>&1 | grep -q 'no ftrace dump'; test \$? -eq 0 && test ! -e $T/g.dat"
{ sed -n 1,4p tests/sample.log; head -c 100000 /dev/urandom | tr -d '\000'; echo; sed -n '5,$p' tests/sample.log; } > "$T/garbage2.log"
check "garbage inside a dump: records still converted" sh -c "$FT -q -e 0 -f $FMT -o $T/g2.dat $T/garbage2.log && trace-cmd report $T/g2.dat 2>/dev/null | grep -q 'sched_wakeup'"
check "--strict: exit 3 with a text-only record" sh -c "$FT -q -s -f $FMT -o $T/s.dat tests/sample.log 2>/dev/null; test \$? -eq 3"
check "formats directory without formats: exit 1, named" sh -c "$FT -f $T -o $T/f.dat tests/sample.log 2>&1 | grep -q \"$T: no event formats\"; test ! -e $T/f.dat"

# --- malformed logs that once gave a wrong trace.dat without a word
# (issue 41 item 4): each is named with LOG:LINE on stderr
# a record on CPU 999 among CPUs 0-1 (a garbled CPU column)
sed 's/^\(\[   12.345685\] cyclicte-240       \)1/\1999/' tests/sample.log > "$T/cpu999.log"
if conv "$T/cpu999.log" && grep -q '^cpus=2' "$T/x.raw" && grep -q 'cpu999.log:11: a line for CPU 999, far above the dump.s other CPUs (up to 1)' "$T/x.err" && grep -q 'records on an implausible CPU, dropped: 1' "$T/x.sum"; then ok "a record on CPU 999 among CPUs 0-1: named, dropped, 2 CPUs"; else notok "a record on CPU 999"; sed 's/^/# /' "$T/x.err"; grep '^cpus' "$T/x.raw"; fi
if conv "$T/cpu999.log" --cpus 1000 && grep -q '^cpus=1000' "$T/x.raw" && ! grep -q 'CPU 999' "$T/x.err"; then ok "--cpus 1000 keeps CPU 999"; else notok "--cpus 1000 keeps CPU 999"; fi
if conv tests/sample.log --cpus 1 && grep -q '^cpus=1' "$T/x.raw" && grep -q 'sample.log:8: a line for CPU 1, but the machine had 1 CPUs (--cpus); dropped' "$T/x.err"; then ok "--cpus 1: CPU 1's lines named and dropped"; else notok "--cpus 1"; sed 's/^/# /' "$T/x.err"; fi
check "--cpus 0 or 1025: usage, exit 2" sh -c "$FT --cpus 0 -f $FMT tests/sample.log; test \$? -eq 2 && $FT --cpus 1025 -f $FMT tests/sample.log; test \$? -eq 2"
# every line printed twice (two consoles), and only the records (netconsole)
awk '{ print; print }' tests/sample.log > "$T/twice.log"
if same_as_base "$T/twice.log" && grep -q 'twice.log:8: the same line as line 7 (a console that printed it twice?); dropped' "$T/x.err" && grep -q 'lines printed twice by the console, dropped: 15' "$T/x.sum" && $FT --list "$T/twice.log" | grep -c '^dump' | grep -qx 1; then ok "a console that printed every line twice: the same records, one dump, named"; else notok "a console that printed every line twice"; sed 's/^/# /' "$T/x.err"; fi
awk '{ print } / [0-9]*us : / { print }' tests/sample.log > "$T/twice2.log"
if same_as_base "$T/twice2.log" && grep -q 'lines printed twice by the console, dropped: 12' "$T/x.sum"; then ok "record lines printed twice: the same records"; else notok "record lines printed twice"; fi
# without printk times, only the record right before counts (a function
# may repeat within a microsecond): a repeat two records later is kept
sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' tests/sample.log | awk '{ print } /140us : do_idle/ { d = $0 } /141us : irq_handler_exit/ { print d }' > "$T/rep.log"
if conv "$T/rep.log" && grep -q '13 records' "$T/x.sum" && ! grep -q 'same line' "$T/x.err"; then ok "no printk time: a record equal to one two lines before is kept"; else notok "no printk time: a repeat kept"; fi
# time going back on a CPU (0: 100 us, then 99 us)
sed 's/    105us : sched_switch/     99us : sched_switch/' tests/sample.log > "$T/back.log"
if conv "$T/back.log" && grep -q 'back.log:6: time goes back on CPU 0, from 100 us to 99 us; written at 100 us' "$T/x.err" && grep -q 'records whose time went back on their CPU, written at the time before them: 1' "$T/x.sum"; then ok "time going back on a CPU: named, written at the time before"; else notok "time going back"; sed 's/^/# /' "$T/x.err"; fi
sed '4s/ R 0 100000 / R 0 99999 /; 5s/ R 0 105000 / R 0 99000 /' "$T/raw.log" > "$T/raw-back.log"
if conv "$T/raw-back.log" && grep -q 'raw-back.log:[0-9]*: time goes back on CPU 0, from [0-9]* ns to [0-9]* ns' "$T/x.err"; then ok "raw dump: time going back named in ns"; else notok "raw dump: time going back"; sed 's/^/# /' "$T/x.err"; sed -n 1,6p "$T/raw.log" | cut -c1-60 | sed 's/^/# /'; fi
# the last dump empty: the one before it, named; asked for: exit 1
{ cat tests/sample.log; printf '[   20.000000] Dumping ftrace buffer:\n[   20.000000] ---------------------------------\n[   20.000001]    (ftrace buffer empty)\n[   20.000001] ---------------------------------\n'; } > "$T/empty.log"
if same_as_base "$T/empty.log" && grep -q 'empty.log:19: the last dump (2) has no records; converting dump 1 (line 3)' "$T/x.err"; then ok "the last dump empty: the last one with records converted, named"; else notok "the last dump empty"; sed 's/^/# /' "$T/x.err"; fi
check "--dump of an empty dump: named, exit 1, no file" sh -c "$FT -f $FMT -o $T/e.dat --dump 2 $T/empty.log 2>&1 | grep -q 'empty.log:19: dump 2 has no records; no trace.dat written' && ! $FT -q -f $FMT -o $T/e.dat --dump 2 $T/empty.log 2>/dev/null && test ! -e $T/e.dat"
tail -n 4 "$T/empty.log" > "$T/empty1.log"
check "a log whose only dump is empty: named, exit 1, no file" sh -c "$FT -f $FMT -o $T/e1.dat $T/empty1.log 2>&1 | grep -q 'empty1.log:1: dump 1 has no records'; test ! -e $T/e1.dat && ! $FT -q -f $FMT -o $T/e1.dat $T/empty1.log 2>/dev/null"
# absurd timestamps: 21 digits, and one that is 2^64 ns or more
sed -e 's/    130us : tracing_mark_write/ 123456789012345678901us : tracing_mark_write/' -e 's/    140us : do_idle/ 18446744073709552us : do_idle/' tests/sample.log > "$T/absurd.log"
if conv "$T/absurd.log" && grep -q 'absurd.log:11: timestamp out of range' "$T/x.err" && grep -q 'absurd.log:13: timestamp out of range' "$T/x.err" && grep -q 'records with a timestamp out of range, dropped: 2' "$T/x.sum" && grep -q '10 records' "$T/x.sum"; then ok "absurd timestamps: named with their lines, the records dropped"; else notok "absurd timestamps"; sed 's/^/# /' "$T/x.err"; fi
sed '4s/ R 0 100000 / R 0 99999999999999999999 /' "$T/raw.log" > "$T/raw-absurd.log"
if conv "$T/raw-absurd.log" && grep -q 'raw-absurd.log:4: timestamp out of range (2^64 ns or more)' "$T/x.err"; then ok "raw dump: a timestamp of 2^64 ns or more named"; else notok "raw dump: absurd timestamp"; sed 's/^/# /' "$T/x.err"; fi

# --- the format bundle from a tracefs layout
mkdir -p "$T/tracefs" && cp -r $FMT/events "$T/tracefs/" && cp $FMT/kallsyms "$T/tracefs/k"
grep -v '^#' $FMT/enums > "$T/fx.enums"
# as in the kernel: every system has an "enable" file but ftrace (which
# libtracefs therefore does not list; the bundle must still carry it)
for d in "$T"/tracefs/events/*/; do [ "$(basename "$d")" = ftrace ] || : > "$d/enable"; done
if $FT --save-formats "$T/bundle" --tracefs "$T/tracefs" --kallsyms "$T/tracefs/k" --btf "$T/hm.o" 2>"$T/save.err" &&
   $FT -q -f "$T/bundle" -o "$T/b.dat" tests/sample.log 2>/dev/null &&
   trace-cmd report -R "$T/b.dat" 2>/dev/null | grep -v '^cpus=' | cmp -s - "$T/base.rec"; then
	ok "--save-formats bundle converts the same"
else
	notok "--save-formats bundle converts the same"; sed 's/^/# /' "$T/save.err"
fi
check "--save-formats --btf: the enums of the print fmts, as in the fixture" sh -c "grep -v '^#' $T/bundle/enums | cmp -s - $T/fx.enums && grep -q '12 constant names of the print fmts resolved' $T/save.err"
check "--save-formats --btf without BTF: exit 1, no bundle left" sh -c "! $FT --save-formats $T/bundle2 --tracefs $T/tracefs --kallsyms $T/tracefs/k --btf tests/sample.log 2>/dev/null && test ! -e $T/bundle2 && test ! -e $T/bundle2.tmp"

# --- the truth comparison of the guest test (tests/ftdump-compare.c):
# the "truth" is a converted log too; each case changes the dump or the truth
CMP=build/san/ftdump-compare
# cmp_case NAME RC GREP TRUTH-LOG DUMP-LOG: exit status RC and GREP in its output
cmp_case() {
	$FT -q -f $FMT -o "$T/ct.dat" "$4" 2>/dev/null && $FT -q -f $FMT -o "$T/cd.dat" "$5" 2>/dev/null &&
		$CMP "$T/ct.dat" "$T/cd.dat" > "$T/cmp.out" 2>&1
	rc=$?
	if [ "$rc" -eq "$2" ] && grep -q -- "$3" "$T/cmp.out"; then ok "compare: $1"; else notok "compare: $1 (exit $rc)"; sed 's/^/# /' "$T/cmp.out"; fi
}
cmp_case "a conversion equals itself" 0 'paired 12 (kept as text 1), no twin 0' tests/sample.log tests/sample.log
# as when an interrupt comes between the two writes of sched_wakeup: in the
# truth it follows the interrupt's records and is 15 us later
awk '/sched_wakeup/ { w = $0; sub(/110us/, "125us", w); next } { print } /irq_handler_entry/ { print w }' tests/sample.log > "$T/reorder.log"
cmp_case "reordered by an interrupt, 15 us late: paired" 0 '1 pairs >= 1000 ns apart, most 15000 ns' "$T/reorder.log" tests/sample.log
sed 's/prev_prio=120 prev_state=S/prev_prio=99 prev_state=S/' tests/sample.log > "$T/diff.log"
cmp_case "a changed field: no twin, and its truth not in the dump" 1 'no twin in the truth: 231 sched_switch .*prev_prio=99' tests/sample.log "$T/diff.log"
check "compare: ... the truth record named too" grep -q 'not in the dump: 231 sched_switch .*prev_prio=120 prev_state=1 ' "$T/cmp.out"
grep -v 'irq_handler_entry' tests/sample.log > "$T/miss.log"
cmp_case "a missing record is named" 1 'truth 121000 ns: not in the dump: 0 irq_handler_entry irq=24' tests/sample.log "$T/miss.log"
awk '{ print } /irq_handler_entry/ { sub(/121us/, "122us"); sub(/irq=24/, "irq=25"); print }' tests/sample.log > "$T/extra.log"
cmp_case "an extra record has no twin" 1 'no twin in the truth: 0 irq_handler_entry irq=25' tests/sample.log "$T/extra.log"
sed -e 's/  120us : softirq_entry/  112us : softirq_entry/' -e 's/  121us : irq_handler_entry/  113us : irq_handler_entry/' tests/sample.log > "$T/early.log"
cmp_case "dump times 8 us early: a twin after the next record" 1 'twin at 120000 ns, out of its bounds 0..114000 ns' tests/sample.log "$T/early.log"
# a zero delta: the ring buffer gave softirq_entry, its reservation
# interrupted, sched_wakeup's stamp (110 us, 10 us early), and sched_wakeup's
# twin came 2 us after its own stamp; the next record with a stamp of its
# own (irq_handler_entry, 121 us) bounds it, not softirq_entry
sed 's/  110us : sched_wakeup/  112us : sched_wakeup/' tests/sample.log > "$T/zd-t.log"
sed 's/  120us : softirq_entry/  110us : softirq_entry/' tests/sample.log > "$T/zd-d.log"
cmp_case "a stamp equal to its predecessor's (a zero delta) bounds nothing" 0 'pairs out of their time bounds 0' "$T/zd-t.log" "$T/zd-d.log"
# an interrupt between the two writes of a function record (the truth's
# first, then the top buffer's) where the top buffer's kept writes begin:
# the interrupt's record is in the truth after the function record's twin
# and lost from the dump, written before the dump's first record
awk '/  100us : sched_switch/ && !d { print "[   12.345680]   <idle>-0         0d..1.     96us : do_idle <-cpuidle_enter"
	print "[   12.345680]   <idle>-0         0d.h1.     97us : irq_handler_entry: irq=30 name=timer"; d = 1 } { print }' tests/sample.log > "$T/fedge-t.log"
awk '/  100us : sched_switch/ && !d { print "[   12.345680]   <idle>-0         0d..1.     99us : do_idle <-cpuidle_enter"; d = 1 } { print }' tests/sample.log > "$T/fedge-d.log"
cmp_case "an interrupted function record at the dump's start: its interrupt excused" 0 'truth 97000 ns: written before the dump.s first record: 0 irq_handler_entry irq=30' "$T/fedge-t.log" "$T/fedge-d.log"
# the same interrupt record after the dump's first record: a real loss
awk '/  140us : do_idle/ { print; print "[   12.345687]   <idle>-0         0d.h1.    141us : irq_handler_entry: irq=30 name=timer"; next } { print }' tests/sample.log > "$T/fmid-t.log"
cmp_case "... but not one written after the dump's first record" 1 'truth 141000 ns: not in the dump: 0 irq_handler_entry irq=30' "$T/fmid-t.log" tests/sample.log
# --exact (ftrace_dump_raw dumps): 1 ns, every field byte for byte. A
# byte after the NUL of prev_comm: the text cannot show it, --exact does
$FT -q -f $FMT -o "$T/cr.dat" "$T/raw.log" 2>/dev/null
sed '4s/737761707065722f300000/737761707065722f300001/' "$T/raw.log" > "$T/raw-p.log"
$FT -q -f $FMT -o "$T/cp.dat" "$T/raw-p.log" 2>/dev/null
check "compare --exact: a raw conversion equals its source" sh -c "$CMP --exact $T/long.dat $T/cr.dat > $T/cmp.out 2>&1 && grep -q 'exact: 1 ns resolution' $T/cmp.out && grep -q 'pairs >= 1 ns apart, most 0 ns' $T/cmp.out"
check "compare --exact: a byte the text does not show is found (and without --exact, not)" sh -c "$CMP $T/long.dat $T/cp.dat >/dev/null 2>&1 && ! $CMP --exact $T/long.dat $T/cp.dat > $T/cmp.out 2>&1 && grep -q 'no twin in the truth: 0 sched_switch' $T/cmp.out"
check "compare: not trace.dat files: exit 2" sh -c "$CMP tests/sample.log tests/sample.log >/dev/null 2>&1; test \$? -eq 2"

# --- the real viewer: KernelShark 2.2 under Xvfb, screenshot kept
./build/gen-log 3000 4 > "$T/ks.log"
./ftdump -q -f $FMT -o "$T/ks.dat" "$T/ks.log"
./tests/kernelshark-shot.sh "$T/ks.dat" build/kernelshark.png > "$T/ks.out" 2>&1
case $? in
0) ok "KernelShark opens a converted dump (screenshot build/kernelshark.png)" ;;
77) n=$((n + 1)); echo "ok $n KernelShark # SKIP $(head -1 "$T/ks.out")" ;;
*) notok "KernelShark opens a converted dump"; sed 's/^/# /' "$T/ks.out" ;;
esac

# --- the line parser under libFuzzer, bounded
check "libFuzzer: 200000 runs of the line parser" sh -c "mkdir -p $T/corpus && ./build/fuzz_line -runs=200000 -max_len=2048 -seed=1 $T/corpus tests/corpus >$T/fuzz.log 2>&1 || { tail -20 $T/fuzz.log; exit 1; }"
check "parser unit tests" build/san/test_line

echo "1..$n"
echo "# $n tests, $fail failed"
[ "$fail" -eq 0 ]
