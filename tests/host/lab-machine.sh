#!/bin/bash
# Host tests of lab/lib/machine.sh: every test header of the project parses;
# bad headers fail naming the file; cmdline= is checked and reaches the
# kernel command line; the QEMU command line has what the machine asks for;
# the variant list follows kernel/configs (build-only fragments apart).
# Prints TAP.  Nothing boots.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
host_test lab-machine
# lab CODE: bash CODE with machine.sh sourced, the build directory in $tmp
lab() { BUILD=$tmp/build bash -c ". '$top/lab/lib/machine.sh'; $1"; }
hdr() { printf '#!/bin/sh\n# rtlab: %s\n# a comment\necho\n' "$1" >"$tmp/$2"; }

t "every header in tests/, bench/ and lab/selftest/ parses" \
	lab 'for f in '"$top"'/tests/guest/[0-9]* '"$top"'/tests/stress/* '"$top"'/bench/guest/*.sh '"$top"'/lab/selftest/harness/* '"$top"'/lab/selftest/reboot/*; do machine_parse "$f" tests || exit 1; done'
hdr "kernel=rt cpus=4 mem=640 timeout=30 nics=e1000e,e1000 tpm=yes devices=edu qemu_trace=tpm_tis_* cmdline=isolcpus=1,2 cmdline=nohz_full=1" full
t "a full header sets every key" \
	lab "machine_parse $tmp/full tests && [ \"\$M_kernel \$M_cpus \$M_mem \$M_timeout \$M_nics \$M_tpm \$M_devices \$M_qtrace\" = 'rt 4 640 30 e1000e,e1000 yes edu tpm_tis_*' ] && [ \"\$M_cmdline\" = 'isolcpus=1,2 nohz_full=1' ]"
printf '#!/bin/sh\necho no header\n' >"$tmp/none"
t "no header: the role's defaults (tests: rt-debug, 2 CPUs, 512 MB, 120 s)" \
	lab "machine_parse $tmp/none tests && [ \"\$M_kernel \$M_cpus \$M_mem \$M_timeout\" = 'rt-debug 2 512 120' ]"
t "no header, bench role: the rt kernel" lab "machine_parse $tmp/none bench && [ \$M_kernel = rt ]"
for bad in "cpus=two" "tpm=maybe" "chipset=isa" "devices=edu,addr=5" "wat=1" "cmdline=rtlab.mode=shell" "cmdline=a;reboot" "nics"; do
	hdr "$bad" bad
	lab "machine_parse $tmp/bad tests" >"$tmp/bad.err" 2>&1 && echo "accepted: $bad" >>"$tmp/accepted"
	grep -q "^$tmp/bad: " "$tmp/bad.err" || echo "no file name for: $bad" >>"$tmp/accepted"
done
t "bad headers fail naming the file (number, yes/no, chipset, device options, unknown key, harness parameter, shell character, no value)" \
	test ! -s "$tmp/accepted"
t "tests with the same header share a machine key, others do not" \
	lab "machine_parse $tmp/full tests; a=\$(machine_key); machine_parse $tmp/full tests; b=\$(machine_key); machine_parse $tmp/none tests; c=\$(machine_key); [ \"\$a\" = \"\$b\" ] && [ \"\$a\" != \"\$c\" ]"
t "machine_export and machine_import give back the same machine" \
	lab "machine_parse $tmp/full tests; w=\$(machine_export); a=\$(machine_key); machine_reset tests; machine_import \"\$w\"; [ \"\$(machine_key)\" = \"\$a\" ] && [ \"\$M_cmdline\" = 'isolcpus=1,2 nohz_full=1' ]"
hdr "timeout=30 expect=panic" panic
t "expect=panic is parsed; it is none by default" \
	lab "machine_parse $tmp/panic tests && [ \$M_expect = panic ] && machine_parse $tmp/none tests && [ \$M_expect = none ]"
hdr "timeout=30" nopanic
t "expect=panic is not part of the machine key (the test shares its machine's boot)" \
	lab "machine_parse $tmp/panic tests; a=\$(machine_key); machine_parse $tmp/nopanic tests; [ \"\$a\" = \"\$(machine_key)\" ]"
hdr "expect=oops" badexpect
lab "machine_parse $tmp/badexpect tests" >"$tmp/badexpect.err" 2>&1
t "expect= takes panic only" sh -c "[ $? != 0 ] && grep -q 'expect=oops: takes panic' '$tmp/badexpect.err'"
hdr "expect=panic accel=icount" icountpanic
lab "machine_parse $tmp/icountpanic tests" >"$tmp/icountpanic.err" 2>&1
t "expect=panic is refused under icount" sh -c "[ $? != 0 ] && grep -q 'expect=panic: not under accel=icount' '$tmp/icountpanic.err'"
hdr "accel=icount" icount
t "negative control: accel=icount alone parses" lab "machine_parse $tmp/icount tests"
# the QEMU command line, without swtpm and with stand-in kernel and image
mkdir -p "$tmp/build/out/rt/arch/x86/boot" "$tmp/build/initramfs"
: >"$tmp/build/out/rt/arch/x86/boot/bzImage"
: >"$tmp/build/initramfs/rt.cpio"
lab "swtpm_start() { mkdir -p \"\$1/tpm\"; }; machine_parse $tmp/full tests; machine_qemu $tmp/boot file 'rtlab.mode=test'" >"$tmp/q.err" 2>&1
q=$(sed 's/\\//g' "$tmp/boot/qemu.cmd" 2>/dev/null)	# %q quoting off
t "QEMU: the machine's size, kernel and image" \
	sh -c "echo '$q' | grep -q -- '-m 640 -smp 4' && echo '$q' | grep -q -- '-initrd $tmp/build/initramfs/rt.cpio'"
t "QEMU: the memmap= work-around and the mode's words on the kernel command line" \
	sh -c "echo '$q' | grep -q 'memmap=1M' && echo '$q' | grep -q 'rtlab.mode=test'"
t "QEMU: cmdline= parameters on the kernel command line" \
	sh -c "echo '$q' | grep -q 'isolcpus=1,2 nohz_full=1'"
t "QEMU: two NICs, the edu device, the TPM, the trace events" \
	sh -c "echo '$q' | grep -q 'e1000e,netdev=hp0' && echo '$q' | grep -q 'e1000,netdev=hp1' && echo '$q' | grep -q -- '-device edu' && echo '$q' | grep -q 'tpm-tis,tpmdev=tpm0' && echo '$q' | grep -q -- '-trace events='"
t "QEMU: the i440fx chipset (pc) by default, with pci=noacpi" \
	sh -c "echo '$q' | grep -q -- '-machine pc ' && echo '$q' | grep -q 'pci=noacpi'"
t "QEMU: no gdbstub and KASLR left alone unless QEMU_GDB is set" \
	sh -c "! echo '$q' | grep -q -- '-gdb' && ! echo '$q' | grep -q 'nokaslr'"
hdr "kernel=rt" gdbm
QEMU_GDB=1234 lab "machine_parse $tmp/gdbm tests; machine_qemu $tmp/bootgdb file 'rtlab.mode=test'" >"$tmp/gdb.err" 2>&1
q=$(sed 's/\\//g' "$tmp/bootgdb/qemu.cmd" 2>/dev/null)
t "QEMU: QEMU_GDB=1234 adds the gdbstub on 127.0.0.1:1234 and nokaslr (vmlinux's addresses)" \
	sh -c "echo '$q' | grep -q -- '-gdb tcp:127.0.0.1:1234' && echo '$q' | grep -q 'nokaslr'"
QEMU_GDB=gdb lab "machine_parse $tmp/gdbm tests; machine_qemu $tmp/bootgdb2 file 'rtlab.mode=test'" >"$tmp/gdb2.err" 2>&1
t "QEMU_GDB takes a TCP port only" sh -c "[ $? = 2 ] && grep -q 'QEMU_GDB=gdb: takes a TCP port' '$tmp/gdb2.err'"
hdr "kernel=rt chipset=q35 devices=pcie-root-port" q35
lab "machine_parse $tmp/q35 tests; machine_qemu $tmp/boot35 file 'rtlab.mode=test'" >"$tmp/q35.err" 2>&1
q=$(sed 's/\\//g' "$tmp/boot35/qemu.cmd" 2>/dev/null)
t "QEMU: chipset=q35 boots a q35 with ACPI PCI (MCFG: extended config space), no memmap= work-around" \
	sh -c "echo '$q' | grep -q -- '-machine q35 ' && echo '$q' | grep -q -- '-device pcie-root-port' && ! echo '$q' | grep -q 'pci=noacpi' && ! echo '$q' | grep -q 'memmap='"
t "chipset=q35 is part of the machine key; pc is the default and adds nothing" \
	lab "machine_parse $tmp/q35 tests; a=\$(machine_key); w=\$(machine_export); machine_parse $tmp/none tests; b=\$(machine_key); machine_import \"\$w\"; [ \"\$a\" != \"\$b\" ] && [ \"\$(machine_key)\" = \"\$a\" ] && [ \$M_chipset = q35 ] && case \$b in *pc*) false ;; esac"
# variants from a configs directory with a build-only fragment
mkdir -p "$tmp/configs"
printf 'CONFIG_A=y\n' >"$tmp/configs/base.config"
printf 'CONFIG_B=y\n' >"$tmp/configs/rt.config"
printf '# rtlab: build-only\nCONFIG_C=y\n' >"$tmp/configs/rt-ctf.config"
t "variants: the bootable fragments, base and build-only ones left out" \
	test "$(lab "lab_configs=$tmp/configs; variants" | tr '\n' ' ')" = "rt "
t "variants --build-only: the build-only fragments" \
	test "$(lab "lab_configs=$tmp/configs; variants --build-only" | tr '\n' ' ')" = "rt-ctf "
t "the Makefile's variants are lab/rtlab's" \
	test "$(make -s --no-print-directory -C "$top" -p -n deps 2>/dev/null | sed -n 's/^VARIANTS := //p')" = "$("$top/lab/rtlab" variants | tr '\n' ' ' | sed 's/ $//')"
host_done
