#!/bin/sh
# rtlab: kernel=rt-debug cpus=2 mem=512 timeout=900 tpm=yes qemu_trace=tpm_tis_mmio_read,tpm_tis_mmio_write
# Issue 5, seed 003: tpm_tis on PREEMPT_RT follows every MMIO write to the
# TPM with a read of TPM_ACCESS(0) (tpm_tis_flush(), mainline since 6.4; a
# static inline, so no kprobe on it).  Proven from both sides while real
# TPM 2.0 commands go to QEMU's tpm-tis device (backed by swtpm, started by
# the harness) and cyclictest runs SCHED_FIFO 99 on every CPU:
#  - tpm_tis_test: TPM_ROUNDS rounds of SelfTest, GetRandom, PCR_Read,
#    PCR_Extend (checked against SHA-256 computed in the program) and
#    GetCapability through /dev/tpm0; every answer checked strictly
#  - guest side: the test module rtlab_tpmflush (kprobes on iowrite8/32 and
#    ioread8/16/32, by caller): every write made by tpm_tcg_write_bytes is
#    followed by its ioread8 of the TPM's base (TPM_ACCESS(0)) before any
#    other TPM access
#  - host side: QEMU's trace of the device (qemu_trace= in the header, file
#    $RTLAB_QEMU_TRACE on the 9p share): every write the device sees is
#    followed by a 1-byte read of offset 0x000 before the next access
#    and the commands rebuilt from that trace between the program's two
#    marker commands are exactly those it sent
#  - the contrast in the same trace: SeaBIOS's commands before the kernel
#    write the FIFO in runs without reads, the kernel's never
. /rtlab/lib.sh
P=/usr/local/libexec/rtlab/tpm_tis_test Q=/usr/local/libexec/rtlab/tpm_qtrace
ROUNDS=${TPM_ROUNDS:-500}
O=$RTLAB_OUT

# value PREFIX KEY FILE: the value of "KEY=value" on the first line of FILE
# that starts with PREFIX (the checkers' summary lines)
value() {
	awk -v p="$1" -v k="$2" '$1 == p { for (i = 2; i <= NF; i++) { n = index($i, "=");
		if (substr($i, 1, n - 1) == k) { print substr($i, n + 1); exit } } }' "$3"
}

drv=$(readlink /sys/class/tpm/tpm0/device/driver 2>/dev/null)
if [ -c /dev/tpm0 ] && [ "${drv##*/}" = tpm_tis ] &&
	[ "$(cat /sys/class/tpm/tpm0/tpm_version_major 2>/dev/null)" = 2 ]; then
	tap_ok "/dev/tpm0 is a TPM 2.0 driven by tpm_tis"
else
	tap_fail "/dev/tpm0 is a TPM 2.0 driven by tpm_tis (driver: ${drv:-none})"
	tap_done
fi
case "$(cat /proc/version)" in
*PREEMPT_RT*) tap_ok "kernel is PREEMPT_RT ($(uname -r))" ;;
*) tap_fail "kernel is PREEMPT_RT: $(cat /proc/version)" ;;
esac

# --- guest side: kprobes on the MMIO accessors, by caller -----------------
# (tpm_tis_flush is inlined and lib/iomap.c has no ftrace hooks, so kprobe
# events cannot reach ioread8/iowrite8 here: CONFIG_KPROBE_EVENTS_ON_NOTRACE
# is off; the module registers the kprobes itself)
F=/sys/kernel/debug/rtlab_tpmflush
if insmod /rtlab/modules/rtlab_tpmflush.ko && [ -w $F/ctl ]; then
	tap_ok "rtlab_tpmflush loads: kprobes on iowrite8/32 and ioread8/16/32, by caller"
	kmod=1
else
	tap_fail "rtlab_tpmflush loads"
	kmod=0
fi

# --- cyclictest, SCHED_FIFO 99, one thread on each CPU ----------------------
cyclictest -m -S -p 99 -i 1000 -d 0 -q >"$O/cyclictest.txt" 2>&1 &
ct=$!
sleep 2
ncpu=$(grep -c '^processor' /proc/cpuinfo)
# /proc/PID/task/TID/stat: field 39 processor, 40 rt_priority, 41 policy
# (1 = FIFO); with "pid (comm) " cut off they are fields 37, 38, 39
fifo=$(for s in /proc/$ct/task/*/stat; do cat "$s"; done 2>/dev/null |
	sed 's/.*) //' | awk '$38 == 99 && $39 == 1 { print $37 }' | sort -u | wc -l)
tap_check "cyclictest runs a SCHED_FIFO 99 thread on each of the $ncpu CPUs ($fifo)" \
	test "$fifo" = "$ncpu"

# --- the TPM commands ------------------------------------------------------
[ "$kmod" = 1 ] && echo start >$F/ctl
t0=$(cut -d' ' -f1 /proc/uptime)
$P -m -n "$ROUNDS" -c "$O/sent.txt" >"$O/cmds.txt" 2>&1
rc=$?
t1=$(cut -d' ' -f1 /proc/uptime)
[ "$kmod" = 1 ] && echo stop >$F/ctl
grep '^# FAIL' "$O/cmds.txt" | head -n 20
s=$(grep '^rounds=' "$O/cmds.txt")
tap_diag "$s; $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f s", b - a }')"
tap_check "$ROUNDS rounds of TPM2 SelfTest, GetRandom, PCR_Read, PCR_Extend, GetCapability: every answer right" \
	test "$rc" = 0

kill -INT "$ct"
wait "$ct"
ctrc=$?
# "T: 0 (  123) P:99 I:1000 C:  12345 Min: ... Max: ..."
ctn=$(grep -c '^T: *[0-9]* .*C: *[1-9]' "$O/cyclictest.txt")
sed -n 's/^\(T:.*\)/\1/p' "$O/cyclictest.txt" | while read -r l; do tap_diag "cyclictest $l"; done
tap_diag "cyclictest under TCG: emulator time, no latency claim"
tap_check "cyclictest ran on every CPU throughout and exited cleanly (rc $ctrc, $ctn threads)" \
	test "$ctrc" = 0 -a "$ctn" = "$ncpu"

# --- guest side: what rtlab_tpmflush counted -------------------------------
if [ "$kmod" = 1 ]; then
	cat $F/stats >"$O/tpmflush.txt"
	rmmod rtlab_tpmflush
	st=$(cat "$O/tpmflush.txt")
	kv() { echo "$st" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
	w=$(kv writes) f=$(kv flush_reads) u=$(kv unflushed) e=$(kv flush_elsewhere)
	x=$(kv reads_without_write) p=$(kv pending) r=$(kv tpm_reads)
	b=$(echo "$s" | tr ' ' '\n' | sed -n 's/^bytes=//p')
	tap_diag "guest: $w writes by tpm_tcg_write_bytes ($(kv writes8) 8-bit, $(kv writes32) 32-bit), $f flush reads, $u unflushed, $e flush reads elsewhere, $x without a write; $r other TPM reads; the program sent $b command bytes"
	tap_check "guest: every write of tpm_tcg_write_bytes is followed by its ioread8 of TPM_ACCESS(0)" \
		test -n "$w" -a "${w:-0}" -ge "${b:-1}" -a "$w" = "$f" -a "$u" = 0 -a "$e" = 0 -a "$x" = 0 -a "$p" = 0
else
	tap_fail "guest: rtlab_tpmflush counts (module not loaded)"
fi

# --- host side: QEMU's trace of the device ---------------------------------
# (copied to tmpfs first: parsing it straight from the 9p share under TCG
# takes minutes)
if [ -n "${RTLAB_QEMU_TRACE:-}" ] && cp "$RTLAB_QEMU_TRACE" /tmp/qemu-trace.log; then
	t0=$(cut -d' ' -f1 /proc/uptime)
	$Q -e "$O/sent.txt" /tmp/qemu-trace.log >"$O/qtrace.txt" 2>&1
	qrc=$?
	t1=$(cut -d' ' -f1 /proc/uptime)
	rm -f /tmp/qemu-trace.log
	tap_diag "$(head -n 1 "$O/qtrace.txt") checked in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f s", b - a }')"
	grep '^# ' "$O/qtrace.txt"
	w=$(value window writes "$O/qtrace.txt") f=$(value window flush_reads "$O/qtrace.txt")
	u=$(value window unflushed "$O/qtrace.txt") n=$(value window commands "$O/qtrace.txt")
	r=$(value window reads "$O/qtrace.txt")
	tap_diag "QEMU tpm-tis: $n commands, $w writes, $f followed by a 1-byte read of 0x000, $u not; $r reads in all"
	tap_check "device: every write is followed by a read of TPM_ACCESS(0) before the next access" \
		test "$qrc" = 0 -a -n "$w" -a "$w" = "$f" -a "${w:-0}" -gt 0
	bw=$(value before writes "$O/qtrace.txt") bu=$(value before unflushed "$O/qtrace.txt")
	bc=$(value before commands "$O/qtrace.txt") bcu=$(value before commands_unflushed "$O/qtrace.txt")
	bm=$(value before max_writes_in_a_row "$O/qtrace.txt")
	lu=$(value before last_unflushed_command "$O/qtrace.txt") ff=$(value before first_flushed_command "$O/qtrace.txt")
	tap_diag "before the markers: $bc commands, $bcu with unflushed writes; $bw writes, $bu unflushed, up to $bm in a row"
	if [ "${ff:-0}" -gt 0 ]; then
		tap_diag "commands 1-$lu have unflushed writes (SeaBIOS), every one from $ff on is flushed (the kernel)"
	else
		tap_diag "none of the $bc commands before the markers is flushed"
	fi
	tap_check "contrast: the firmware's (SeaBIOS) writes before the kernel are not flushed, the kernel's all are" \
		test "${bu:-0}" -gt 0 -a "${bcu:-0}" -gt 0 -a "${lu:-0}" -lt "${ff:-0}" -a "$lu" = "$bcu"
else
	tap_fail "device: QEMU trace ${RTLAB_QEMU_TRACE:-(RTLAB_QEMU_TRACE unset)} not readable"
	rm -f /tmp/qemu-trace.log
fi
tap_done
