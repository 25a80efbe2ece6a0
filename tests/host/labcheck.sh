#!/bin/bash
# Host unit tests of the console checker and TAP collector (lab/labcheck).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
host_test labcheck
fx=$top/tests/host/fixtures/labcheck
# The tests run against an ASan+UBSan build of the same source.
if [ -z "${LABCHECK:-}" ]; then
	gcc -std=c11 -g -O1 -Wall -Wextra -Werror -D_GNU_SOURCE -fsanitize=address,undefined \
		-fno-sanitize-recover=all -I"$top/include" -o "$tmp/labcheck" "$top/lab/labcheck/labcheck.c" || exit 1
	lc=$tmp/labcheck
else
	lc=$LABCHECK
fi

"$lc" guest --console "$fx/clean.log" --outdir "$fx/clean" --status "$tmp/st" a b >"$tmp/clean" 2>&1
rc=$?
t "clean boot exits 0" test $rc = 0
t "clean boot: boot point passes with the INIT line" has "$tmp/clean" '^ok 1 boot: guest: INIT 6\.12\.118-rtlab preempt_rt=1'
t "clean boot: test points relayed and renumbered" has "$tmp/clean" '^ok 3 a: second$'
t "clean boot: TODO failure is not a failure" hasnt "$tmp/clean" '^not ok'
t "clean boot: SKIP counted as skip" has "$tmp/clean" '^ok [0-9]+ b: z # SKIP no device'
t "user-space WARNING: is not a kernel splat" hasnt "$tmp/clean" 'splat'
t "clean boot: status says both ended" sh -c "grep -qx 'a ended' '$tmp/st' && grep -qx 'b ended' '$tmp/st'"
t "clean boot: plan line covers all points" has "$tmp/clean" '^1\.\.6$'

"$lc" guest --console "$fx/splat.log" --outdir "$fx/splat" a b >"$tmp/splat" 2>&1
rc=$?
t "splat run exits 1" test $rc = 1
t "WARN attributed to test a" has "$tmp/splat" '^not ok [0-9]+ a: kernel splat while it ran \(1\): WARNING: CPU: 0'
t "one WARN with its call trace counts once" hasnt "$tmp/splat" 'a: kernel splat while it ran \(2\)'
t "splat printed with context up to its end marker" has "$tmp/splat" '^#   .*---\[ end trace'
t "a WARN's message (between cut here and WARNING:) is shown" has "$tmp/splat" '^#   .*rtlab_warn: injected warning'
t "text after the end marker is not part of the splat" hasnt "$tmp/splat" 'something after the splat'
t "sleeping-in-atomic (pr_err level) attributed to test b" has "$tmp/splat" '^not ok [0-9]+ b: kernel splat while it ran \(1\): BUG: sleeping function'

"$lc" guest --console "$fx/crash.log" --outdir "$fx/crash" --status "$tmp/st2" a b c >"$tmp/crash" 2>&1
rc=$?
t "crash run exits 1" test $rc = 1
t "time-out (rc 137) reported" has "$tmp/crash" '^not ok [0-9]+ a: killed by its 60 s time-out'
t "a timed-out test is reported once, not also for its missing points" hasnt "$tmp/crash" 'a: printed no test point'
t "a test the guest died in is failed" has "$tmp/crash" '^not ok [0-9]+ b: did not finish'
t "the panic is the splat of the test it happened in" has "$tmp/crash" '^not ok [0-9]+ b: kernel splat while it ran \(1\): Kernel panic'
t "console tail shown" has "$tmp/crash" '^#   --- console tail ---'
t "status: ended, crashed, notrun" sh -c "printf 'a ended\nb crashed\nc notrun\n' | cmp -s - '$tmp/st2'"

"$lc" guest --console "$fx/noinit.log" --outdir "$tmp" --status "$tmp/st3" a >"$tmp/noinit" 2>&1
t "a kernel that never reaches init fails the boot point" has "$tmp/noinit" '^not ok 1 boot: guest: the kernel never reached /init'
t "... and its test is notrun" grep -qx 'a notrun' "$tmp/st3"

"$lc" guest --console "$fx/short.log" --outdir "$fx/short" c d >"$tmp/short" 2>&1
t "a plan not met fails the test" has "$tmp/short" '^not ok [0-9]+ c: planned 2 test points, ran 1'
t "a test that asserts nothing fails" has "$tmp/short" '^not ok [0-9]+ d: printed no test point'

# expect=panic (--expect-panic: phase 1, --after-panic: phase 2)
lcp() { local out=$1 log=$2; shift 2; "$lc" guest --console "$fx/$log" --outdir "$fx/panic" --status "$tmp/$out.st" "$@" >"$tmp/$out" 2>&1; echo $? >"$tmp/$out.rc"; }
lcp pe panic.log --expect-panic p p x
t "expected panic: exits 0" grep -qx 0 "$tmp/pe.rc"
t "expected panic: phase-1 points relayed" has "$tmp/pe" '^ok 2 p: phase 1: wrote the marker file$'
t "expected panic: passes, naming the panic" has "$tmp/pe" '^ok 3 p: phase 1: panicked as expected \(Kernel panic - not syncing: rtlab_warn: injected panic'
t "expected panic: neither the panic nor the ftrace dump after it is a splat" hasnt "$tmp/pe" 'splat|^not ok'
t "expected panic: the plan of both phases is not held against phase 1" hasnt "$tmp/pe" 'planned'
t "expected panic: status panicked, the next test notrun" sh -c "printf 'p panicked\nx notrun\n' | cmp -s - '$tmp/pe.st'"
lcp pn panic.log p
t "negative: the same panic without --expect-panic fails" sh -c "grep -qx 1 '$tmp/pn.rc' && grep -q '^not ok [0-9]* p: did not finish' '$tmp/pn' && grep -qx 'p crashed' '$tmp/pn.st'"
lcp pw warnpanic.log --expect-panic p p
t "a WARNING before the expected panic still fails the test" sh -c "grep -qx 1 '$tmp/pw.rc' && grep -q '^not ok [0-9]* p: phase 1: kernel splat while it ran, before the expected panic (1): WARNING: CPU: 1' '$tmp/pw'"
t "... and only the WARNING counts, not the panic" hasnt "$tmp/pw" '^#   .*Kernel panic'
lcp po oops.log --expect-panic p p
t "an oops that panics (panic_on_oops) is the expected report" sh -c "grep -qx 0 '$tmp/po.rc' && grep -q '^ok [0-9]* p: phase 1: panicked as expected (Kernel panic - not syncing: Fatal exception)' '$tmp/po'"
t "negative: the same oops without --expect-panic is a splat" sh -c "'$lc' guest --console '$fx/oops.log' --outdir '$fx/panic' p | grep -q '^not ok [0-9]* p: kernel splat while it ran ([0-9]*): BUG: kernel NULL pointer dereference'"
lcp pl lockdep-oops.log --expect-panic p p
t "a lockdep report before the fatal oops still fails the test" sh -c "grep -qx 1 '$tmp/pl.rc' && grep -q '^not ok [0-9]* p: phase 1: kernel splat while it ran, before the expected panic (1): WARNING: possible circular locking' '$tmp/pl'"
lcp pp warnon.log --expect-panic p p
t "a WARN that panics (panic_on_warn) is the expected report" sh -c "grep -qx 0 '$tmp/pp.rc' && ! grep -q splat '$tmp/pp'"
lcp pf failpanic.log --expect-panic q q
t "a failing point before the expected panic fails the test" sh -c "grep -qx 1 '$tmp/pf.rc' && grep -q '^not ok 2 q: phase 1: wrote the marker file' '$tmp/pf'"
lcp pc clean.log --expect-panic a a b
t "no panic: the test ended: fails naming rc" sh -c "grep -qx 1 '$tmp/pc.rc' && grep -q '^not ok [0-9]* a: phase 1: expected a panic, but the test ended with rc=0' '$tmp/pc' && grep -qx 'a ended' '$tmp/pc.st'"
t "negative: the same run without --expect-panic passes" sh -c "'$lc' guest --console '$fx/clean.log' --outdir '$fx/clean' a b >/dev/null"
lcp pt crash.log --expect-panic a a
t "no panic: killed by its time-out: fails" has "$tmp/pt" '^not ok [0-9]+ a: phase 1: expected a panic, but the test was killed by its 60 s time-out'
lcp ph hang.log --expect-panic p p
t "no panic: the guest hung: fails with the console tail, status crashed" sh -c "grep -q '^not ok [0-9]* p: phase 1: expected a panic, but the guest hung or died without one' '$tmp/ph' && grep -q 'console tail' '$tmp/ph' && grep -qx 'p crashed' '$tmp/ph.st'"
"$lc" guest --console "$fx/clean.log" --outdir "$fx/clean" --after-panic a a b >"$tmp/p2" 2>&1
t "phase 2: judged normally, points read phase 2" sh -c "[ $? = 0 ] && grep -q '^ok 2 a: phase 2: first$' '$tmp/p2' && grep -q '^ok [0-9]* b: ' '$tmp/p2' && ! grep -q 'b: phase' '$tmp/p2'"
lcp p2p panic.log --after-panic p p
t "phase 2: a panic there fails it" sh -c "grep -qx 1 '$tmp/p2p.rc' && grep -q '^not ok [0-9]* p: did not finish' '$tmp/p2p' && grep -qx 'p crashed' '$tmp/p2p.st'"

"$lc" splats "$fx/splat.log" >"$tmp/sp" 2>"$tmp/sp.err"
rc=$?
t "splats: exit 1 and counts 2" sh -c "[ $rc = 1 ] && grep -q '2 kernel splats' '$tmp/sp.err'"
"$lc" splats "$fx/clean.log" >/dev/null 2>&1
t "splats: clean log exits 0" test $? = 0

# stale-int3: the emulator's signature (an int3 trap where memory holds the
# patched byte), told apart from an int3 that is still in memory and from
# an int3 oops that follows another splat
"$lc" stale-int3 "$fx/stale-int3.log" >"$tmp/si"
t "stale-int3: an int3 trap where memory holds 0xe8 is the emulator's (exit 0, names RIP and byte)" \
	sh -c "[ $? = 0 ] && grep -q 'RIP: 0010:__schedule+0x3cd/0x5cd, memory holds 0xe8' '$tmp/si'"
"$lc" stale-int3 "$fx/held-int3.log" >/dev/null
t "stale-int3: an int3 still in memory (0xcc) is the kernel's (exit 1)" test $? = 1
"$lc" stale-int3 "$fx/after-bug-int3.log" >/dev/null
t "stale-int3: an int3 oops after another splat is not taken for the emulator's (exit 1)" test $? = 1
"$lc" stale-int3 "$fx/clean.log" >/dev/null
t "stale-int3: a clean log (exit 1)" test $? = 1

printf 'ok 1 a\nnot ok 2 b\nok 3 c # SKIP x\n' >"$tmp/t1"
printf '1..2\nok 1 a\nok 2 b\n' >"$tmp/t2"
"$lc" tally "$tmp/t1" "$tmp/t2" >"$tmp/tally"
rc=$?
t "tally: exit 1 on a failure" test $rc = 1
t "tally: last line counts passed, failed, skipped" sh -c "tail -n 1 '$tmp/tally' | grep -qx '3 passed, 1 failed, 1 skipped'"
printf '1..3\nok 1 a\n' >"$tmp/t3"
"$lc" tally "$tmp/t3" >"$tmp/tally3"
t "tally: a plan not met is a failure" sh -c "tail -n 1 '$tmp/tally3' | grep -qx '1 passed, 1 failed'"
: >"$tmp/t4"
"$lc" tally "$tmp/t4" >"$tmp/tally4"
t "tally: a file without test points is a failure" sh -c "tail -n 1 '$tmp/tally4' | grep -qx '0 passed, 1 failed'"
t "tally: missing file is a failure, not a crash" sh -c "'$lc' tally '$tmp/nonexistent'; [ \$? = 1 ]"
t "unknown command exits 2" sh -c "'$lc' frobnicate; [ \$? = 2 ]"
t "--help exits 0" "$lc" --help
host_done
