#!/bin/bash
# Host tests of lab/cmd/run.sh's two-phase tests (expect=panic), with a
# stand-in for QEMU that plays the guest's init on the host: it runs each
# test file as a host script and turns exit status 99 into a kernel panic
# (the boot ends) and 98 into a guest that dies silently.  Covers what the
# guest self-test would need many boots for: several expect=panic tests in
# one machine, a first phase that does not panic, a second phase that
# crashes or panics.  Prints TAP.  Nothing boots.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
host_test lab-run-phases
b=$tmp/build
mkdir -p "$b/bin" "$b/out/rt-debug/arch/x86/boot" "$b/initramfs" "$tmp/fake" "$tmp/t"
: >"$b/out/rt-debug/arch/x86/boot/bzImage"
: >"$b/initramfs/rt-debug.cpio"
gcc -std=c11 -O1 -Wall -Wextra -Werror -D_GNU_SOURCE -I"$top/include" -o "$b/bin/labcheck" \
	"$top/lab/labcheck/labcheck.c" || exit 1

# the stand-in: QEMU's arguments in, a console log and out/ files out
cat >"$tmp/fake/qemu-system-x86_64" <<'FAKE'
#!/bin/bash
prev= append= out= log=
for a; do
	case "$prev" in
	-append) append=$a ;;
	-virtfs) out=${a#*path=} out=${out%%,*} ;;
	-serial) log=${a#file:} ;;
	esac
	prev=$a
done
run= phase1= phase2= n=0
for w in $append; do
	case "$w" in
	rtlab.run=*) run=${w#*=} ;;
	rtlab.phase1=*) phase1=${w#*=} ;;
	rtlab.phase2=*) phase2=${w#*=} ;;
	esac
done
kmsg() { n=$((n + 1)); printf '[%5d.000000] %s\n' "$n" "$*" >>"$log"; }
kmsg "rtlab: INIT 6.12.118-rtlab preempt_rt=1 clocksource=tsc cpus=0-1 accel=tcg out=1 uptime=1.00"
for t in ${run//,/ }; do
	unset RTLAB_PHASE RTLAB_PREV
	case ",$phase1," in *",$t,"*) export RTLAB_PHASE=1 ;; esac
	[ "$t" != "$phase2" ] || export RTLAB_PHASE=2 RTLAB_PREV=$out/$t.prev
	export RTLAB_OUT=$out/$t
	mkdir -p "$RTLAB_OUT"
	kmsg "rtlab: BEGIN $t timeout=5${RTLAB_PHASE:+ phase=$RTLAB_PHASE}"
	"$FAKE_TESTS/$t" >"$RTLAB_OUT/tap.partial" 2>&1
	rc=$?
	case $rc in
	99) kmsg "Kernel panic - not syncing: fake panic"; exit 0 ;;
	97) kmsg "Oops: int3: 0000 [#1] PREEMPT_RT SMP"	# the emulator's stale int3
	    kmsg "RIP: 0010:__schedule+0x3cd/0x5cd"
	    kmsg "Code: 48 89 da $FAKE_BYTE <a0> e2 bf ff"
	    kmsg "Kernel panic - not syncing: Fatal exception in interrupt"; exit 0 ;;
	98) exit 0 ;;
	esac
	mv "$RTLAB_OUT/tap.partial" "$RTLAB_OUT/tap"
	kmsg "rtlab: END $t rc=$rc"
done
kmsg "rtlab: DONE"
FAKE
chmod +x "$tmp/fake/qemu-system-x86_64"

# tst NAME HEADER BODY: a test file (POSIX sh on the host)
tst() { printf '#!/bin/sh\n# rtlab: timeout=5%s\n%s\n' "$2" "$3" >"$tmp/t/$1"; chmod +x "$tmp/t/$1"; }
# phase 1 keeps a file and panics; phase 2 reads it and the panic
tst a-panic " expect=panic" 'if [ "$RTLAB_PHASE" = 2 ]; then
	grep -qx kept "$RTLAB_PREV/out/kept" && echo "ok 1 kept file" || { echo "not ok 1 kept file"; exit 1; }
	grep -q "Kernel panic" "$RTLAB_PREV/console.log" && echo "ok 2 panic in the previous console" || { echo "not ok 2 panic"; exit 1; }
	exit 0
fi
[ "$RTLAB_PHASE" = 1 ] && echo "ok 1 phase 1" && echo kept >"$RTLAB_OUT/kept"
exit 99'
tst b-nopanic " expect=panic" 'echo "ok 1 phase ${RTLAB_PHASE:-unset}"; [ "${RTLAB_PHASE:-}" != 2 ] || echo "not ok 2 phase 2 ran"'
tst c-p2crash " expect=panic" 'echo "ok 1 phase $RTLAB_PHASE"; [ "$RTLAB_PHASE" = 2 ] && exit 98; exit 99'
tst d-p2panic " expect=panic" 'echo "ok 1 phase $RTLAB_PHASE"; exit 99'
tst e-plain "" 'echo "ok 1 runs after them, phase ${RTLAB_PHASE:-unset}"'

runit() {	# runit SUITE FILES...: lab/rtlab run with the stand-in
	local s=$1; shift
	PATH=$tmp/fake:$PATH BUILD=$b FAKE_TESTS=$tmp/t BOOT_TIMEOUT=5 \
		"$top/lab/rtlab" run --suite "$s" "$@" >"$tmp/$s.out" 2>"$tmp/$s.err"
	echo $? >"$tmp/$s.rc"
}
runit phases "$tmp"/t/a-panic "$tmp"/t/b-nopanic "$tmp"/t/c-p2crash "$tmp"/t/d-p2panic "$tmp"/t/e-plain
o=$tmp/phases.out r=$b/run/phases
t "the run fails (b, c and d fail) with exit 1" grep -qx 1 "$tmp/phases.rc"
t "six boots: a | a2 b c | c2 | d | d2 | e" sh -c "[ \$(ls -d '$r'/*/ | wc -l) = 6 ]"
t "a: phase 1 passes by panicking" has "$o" '^ok [0-9]+ a-panic: phase 1: panicked as expected \(Kernel panic - not syncing: fake panic\)'
t "a: phase 2 runs first in the next boot and reads RTLAB_PREV" \
	sh -c "grep -m1 BEGIN '$r/rt-debug-c2-m512-tno-2/console.log' | grep -q 'BEGIN a-panic timeout=5 phase=2' && grep -q '^ok [0-9]* a-panic: phase 2: kept file' '$o' && grep -q '^ok [0-9]* a-panic: phase 2: panic in the previous console' '$o'"
t "a: nothing of it fails" hasnt "$o" '^not ok.* a-panic'
t "b: no panic: fails naming rc, in phase 1" has "$o" '^not ok [0-9]+ b-nopanic: phase 1: expected a panic, but the test ended with rc=0'
t "b: its phase 2 never runs" hasnt "$o" 'b-nopanic: phase 2'
t "c: a crash in phase 2 fails it" has "$o" '^not ok [0-9]+ c-p2crash: did not finish'
t "c: phase 1 passed before that" has "$o" '^ok [0-9]+ c-p2crash: phase 1: panicked as expected'
t "d: a panic in phase 2 fails it" has "$o" '^not ok [0-9]+ d-p2panic: kernel splat while it ran \(1\): Kernel panic'
t "d: and does not start a third phase" sh -c "! grep -rq 'd-p2panic timeout=5 phase=2' '$r/rt-debug-c2-m512-tno-6/console.log'"
t "e: the test after them all runs, without a phase" has "$o" '^ok [0-9]+ e-plain: runs after them, phase unset'

# an emulator fault (lab/cmd/run.sh): the first boot's only splat is an
# int3 trap where memory holds the patched byte; the boot is run again
# once, and the fault is printed and counted, not hidden
tst f-emu "" 'n=$(cat "$FAKE_STATE/f" 2>/dev/null || echo 0); echo $((n + 1)) >"$FAKE_STATE/f"
echo "ok 1 before the fault"; [ "$n" -ge "${FAKE_FAULTS:-1}" ] || exit 97; echo "ok 2 after it"'
mkdir -p "$tmp/state"
FAKE_STATE=$tmp/state FAKE_BYTE=e8 runit emu "$tmp"/t/f-emu "$tmp"/t/e-plain
t "emulator fault: the boot runs again and passes (exit 0)" sh -c "grep -qx 0 '$tmp/emu.rc' && grep -q '^ok [0-9]* f-emu: after it' '$tmp/emu.out'"
t "emulator fault: printed and counted in the suite's emulator-faults" \
	sh -c "grep -q '^# emulator fault: boot .*memory holds 0xe8' '$tmp/emu.out' && [ \$(wc -l <'$b/run/emu/emulator-faults') = 1 ]"
t "emulator fault: the faulted boot kept aside, its TAP out of the results" \
	sh -c "ls -d '$b'/run/emu/*.emulator-fault >/dev/null && [ \$(ls '$b'/run/emu/*/result.tap | wc -l) = 1 ]"
rm -f "$tmp/state/f"
FAKE_STATE=$tmp/state FAKE_BYTE=e8 FAKE_FAULTS=5 runit emu2 "$tmp"/t/f-emu
t "emulator fault twice: the second fails as a splat (exit 1)" \
	sh -c "grep -qx 1 '$tmp/emu2.rc' && grep -q '^not ok [0-9]* f-emu: .*Oops: int3' '$tmp/emu2.out'"
rm -f "$tmp/state/f"
FAKE_STATE=$tmp/state FAKE_BYTE=cc runit emu3 "$tmp"/t/f-emu
t "an int3 still in memory (0xcc) is the kernel's: no second boot (exit 1)" \
	sh -c "grep -qx 1 '$tmp/emu3.rc' && ! grep -q 'emulator fault' '$tmp/emu3.out' && [ \$(ls -d '$b'/run/emu3/*/ | wc -l) = 1 ]"

# --env values are one word of the kernel command line: a blank or a quote
# is refused before anything boots, not cut short in the guest
runit envblank --env 'SEEDS=1 2' "$tmp"/t/e-plain
t "--env with a blank in its value: exit 2, said why, nothing booted" \
	sh -c "grep -qx 2 '$tmp/envblank.rc' && grep -q \"cannot hold blanks\" '$tmp/envblank.err' && [ ! -d '$b/run/envblank' ]"
runit envbad --env '1X=y' "$tmp"/t/e-plain
t "--env with a bad name: exit 2" sh -c "grep -qx 2 '$tmp/envbad.rc' && grep -q 'NAME must be' '$tmp/envbad.err'"
runit envok --env 'SEEDS=1,2' "$tmp"/t/e-plain
t "--env NAME=a,b boots and passes" sh -c "grep -qx 0 '$tmp/envok.rc' && grep -q '^ok [0-9]* e-plain' '$tmp/envok.out'"

# negative control: a-panic without expect=panic is a test that crashed
tst a-panic "" "$(sed -n '3,$p' "$tmp/t/a-panic")"
runit plain "$tmp"/t/a-panic "$tmp"/t/e-plain
t "negative: without expect=panic the panic fails the test, no phase 2" \
	sh -c "grep -q '^not ok [0-9]* a-panic: did not finish' '$tmp/plain.out' && ! grep -qE ': phase [12]:|phase=' '$tmp/plain.out' $b/run/plain/*/console.log && grep -q '^ok [0-9]* e-plain' '$tmp/plain.out'"
host_done
