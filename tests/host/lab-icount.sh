#!/bin/bash
# Host tests of the instruction-counted lab mode (ACCEL=icount,
# lab/lib/machine.sh): the QEMU command line it generates, what it pins for
# determinism, its checks, and the host-side time-outs it scales.  Prints
# TAP.  Nothing boots.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
host_test lab-icount
mkdir -p "$tmp/build/out/rt/arch/x86/boot" "$tmp/build/initramfs"
: >"$tmp/build/out/rt/arch/x86/boot/bzImage"
: >"$tmp/build/initramfs/rt.cpio"
# qemu_cmd NAME CONSOLE [VAR=VALUE...]: the command line machine_qemu writes
# for the bench machine, in $tmp/NAME.cmd (one word a line)
qemu_cmd() {
	local n=$1 c=$2; shift 2
	env "$@" BUILD="$tmp/build" bash -c ". '$top/lab/lib/machine.sh'; machine_reset bench; machine_qemu '$tmp/$n' $c 'rtlab.mode=test'" >"$tmp/$n.err" 2>&1 || return 1
	# the %q-quoted words back into one a line
	bash -c "printf '%s\n' $(cat "$tmp/$n/qemu.cmd")" >"$tmp/$n.cmd"
}
# word FILE A B: word A is directly followed by word B
word() { grep -qxF -- "$2" "$1" && grep -A1 -xF -- "$2" "$1" | grep -qxF -- "$3"; }

t "ACCEL=icount: a command line is written" qemu_cmd ic file ACCEL=icount
t "icount: TCG in one host thread (round-robin vCPUs), no MTTCG" \
	sh -c "grep -qxF -- '-accel' $tmp/ic.cmd && grep -qxF 'tcg,thread=single' $tmp/ic.cmd && ! grep -q 'thread=multi' $tmp/ic.cmd"
t "icount: -icount shift=0,sleep=off,align=off (the default shift)" \
	word "$tmp/ic.cmd" -icount shift=0,sleep=off,align=off
t "icount: the RTC at a fixed date on the virtual clock" \
	word "$tmp/ic.cmd" -rtc base=2026-01-01T00:00:00,clock=vm
t "icount: the guest's random numbers seeded" word "$tmp/ic.cmd" -seed 1
append=$(grep -A1 -xF -- -append "$tmp/ic.cmd" | tail -n 1)
t "icount: no address-space randomisation, the mode and the shift on the kernel command line" \
	sh -c "echo '$append' | grep -q ' nokaslr norandmaps ' && echo '$append' | grep -q 'rtlab.accel=icount' && echo '$append' | grep -q 'rtlab.env.RTLAB_ICOUNT_SHIFT=0'"
t "icount: the serial console goes to a file (a blocking console would be host-timed)" \
	word "$tmp/ic.cmd" -serial "file:$tmp/ic/out/console.log"
shift3() { qemu_cmd ic3 file ACCEL=icount ICOUNT_SHIFT=3 && word "$tmp/ic3.cmd" -icount shift=3,sleep=off,align=off && grep -q 'RTLAB_ICOUNT_SHIFT=3' "$tmp/ic3.cmd"; }
t "ICOUNT_SHIFT=3: shift=3 on both the QEMU and the kernel command line" shift3
interactive() { qemu_cmd ici interactive ACCEL=icount && word "$tmp/ici.cmd" -icount shift=0,sleep=on,align=off; }
t "icount, interactive shell: sleep=on (an idle guest must not spin a host CPU)" interactive
# bad NAME WHY VAR=VALUE...: machine_qemu fails and says WHY
bad() { local n=$1 why=$2; shift 2; ! qemu_cmd "$n" file "$@" && grep -q "$why" "$tmp/$n.err"; }
t "ICOUNT_SHIFT=x and ICOUNT_SHIFT=11 are refused, naming the knob" \
	eval 'bad bx ICOUNT_SHIFT= ACCEL=icount ICOUNT_SHIFT=x && bad b11 ICOUNT_SHIFT= ACCEL=icount ICOUNT_SHIFT=11'
t "ACCEL=qemu is refused, naming the accelerators" bad bq 'tcg, tcg1, kvm or icount' ACCEL=qemu
plain() { qemu_cmd tcg file && grep -qxF tcg,thread=multi "$tmp/tcg.cmd" && ! grep -qE -- '^-(icount|rtc|seed)$|nokaslr' "$tmp/tcg.cmd"; }
t "default (tcg): multi-threaded TCG, no icount, no pinned RTC or seed" plain
limit() { env "$1" bash -c ". '$top/lab/lib/machine.sh'; machine_wall_limit 70"; }
t "host-side time-outs: guest seconds as they are under tcg, x ICOUNT_WALL_FACTOR (25) under icount" \
	eval '[ "$(limit ACCEL=tcg)" = 70 ] && [ "$(limit ACCEL=icount)" = 1750 ]'
t "run and shell take their QEMU limits from machine_wall_limit" \
	eval "grep -q 'machine_wall_limit \\$' '$top/lab/cmd/run.sh' && grep -q 'machine_wall_limit \\$' '$top/lab/cmd/shell.sh'"
# the header key: accel=icount over ACCEL, its own machine, kept by export
printf '#!/bin/sh\n# rtlab: kernel=rt accel=icount\n' >"$tmp/hdr-icount"
printf '#!/bin/sh\n# rtlab: kernel=rt accel=fast\n' >"$tmp/hdr-bad"
printf '#!/bin/sh\n# rtlab: kernel=rt\n' >"$tmp/hdr-plain"
lab() { env "${@:2}" BUILD="$tmp/build" bash -c ". '$top/lab/lib/machine.sh'; $1"; }
t "header accel=icount: the icount command line although ACCEL=tcg" \
	eval 'lab "machine_parse $tmp/hdr-icount bench && machine_qemu $tmp/h file x && grep -q -- \" -icount \" $tmp/h/qemu.cmd && grep -q \"sleep=off\" $tmp/h/qemu.cmd" ACCEL=tcg'
t "header accel=icount: a machine of its own, kept through export/import" \
	eval 'lab "machine_parse $tmp/hdr-icount bench; a=\$(machine_key); w=\$(machine_export); machine_parse $tmp/hdr-plain bench; b=\$(machine_key); machine_import \"\$w\"; [ \"\$a\" != \"\$b\" ] && [ \"\$(machine_key)\" = \"\$a\" ] && [ \$M_accel = icount ]"'
t "header accel=fast is refused naming the file" \
	eval '! lab "machine_parse $tmp/hdr-bad bench" 2>"$tmp/hb.err" && grep -q "^$tmp/hdr-bad: accel=fast: takes tcg, tcg1, kvm or icount" "$tmp/hb.err"'
t "header without accel: ACCEL decides" \
	eval '[ "$(lab "machine_parse $tmp/hdr-plain bench; echo \$M_accel" ACCEL=icount)" = icount ]'
host_done
