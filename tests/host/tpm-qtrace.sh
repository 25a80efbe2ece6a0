#!/bin/bash
# Host unit tests of the QEMU tpm-tis trace checker (tests/progs/tpm_qtrace)
# on synthetic traces in QEMU 7.2's log format: a flushed run passes,
# one missing flush read, a missing marker or a command count that differs
# from what was sent fails, firmware writes before the markers are only
# reported.  Runs an ASan+UBSan build of the program.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
host_test tpm-qtrace
gcc -std=c11 -g -O1 -Wall -Wextra -Werror -D_GNU_SOURCE -fsanitize=address,undefined \
	-fno-sanitize-recover=all -I"$top/include" -o "$tmp/tt" "$top/tests/progs/tpm_qtrace.c" "$top/tests/progs/tpm_cc.c" || exit 1

w() { printf 'tpm_tis_mmio_write write.%d(0x%08x) = 0x%08x\n' "$1" "$2" "$3"; }
r() { printf 'tpm_tis_mmio_read  read.%d(0x%08x) = 0x%08x\n' "$1" "$2" "$3"; }
# cmd MODE BYTE...: one command as tpm_tis sends it; MODE flush (each write
# followed by a read of TPM_ACCESS(0)), burst (no flush, like SeaBIOS) or
# drop=K (flushed, but not the K-th FIFO byte)
cmd() {
	local mode=$1 k=0 b; shift
	fl() { [ "$mode" = burst ] || r 1 0 0xa1; }
	w 1 0x18 0x40; fl
	r 4 0x18 0x04000a90
	for b in "$@"; do
		k=$((k + 1))
		w 1 0x24 "0x$b"
		[ "$mode" = "drop=$k" ] || fl
	done
	w 1 0x18 0x20; fl
	r 1 0x18 0x90
	r 0 0x24 0x80	# QEMU 7.2 logs FIFO reads as "read.0"
	w 1 0x00 0x20; fl	# relinquish the locality
}
marker() { cmd "$1" 80 01 00 00 00 16 00 00 01 7a 00 00 00 06 52 54 4c "$2" 00 00 00 01; }
getrandom() { cmd "$1" 80 01 00 00 00 0c 00 00 01 7b 00 20; }
printf 'cc=0x0000017a name=GetCapability n=2\ncc=0x0000017b name=GetRandom n=2\n' >"$tmp/sent"

{ getrandom burst; getrandom burst; marker flush 41; getrandom flush; getrandom flush; marker flush 5a; } >"$tmp/good"
"$tmp/tt" -e "$tmp/sent" "$tmp/good" >"$tmp/good.out" 2>&1
t "all writes flushed between the markers: exit 0" test $? = 0
t "counts the writes and their flush reads" has "$tmp/good.out" '^window writes=78 flush_reads=78 unflushed=0 .*max_writes_in_a_row=1 commands=4 '
t "the commands in the window are those sent" has "$tmp/good.out" 'window holds exactly the 4 commands sent'
t "unflushed firmware commands before the markers are reported" \
	has "$tmp/good.out" '^before writes=31 flush_reads=1 unflushed=30 .*max_writes_in_a_row=13 commands=2 commands_all_flushed=0 commands_unflushed=2'

{ marker flush 41; getrandom flush; getrandom drop=7; marker flush 5a; } >"$tmp/drop"
"$tmp/tt" -e "$tmp/sent" "$tmp/drop" >"$tmp/drop.out" 2>&1
t "one FIFO write without its flush read: exit 1" test $? = 1
t "it is named with its trace line" has "$tmp/drop.out" 'FAIL: 1 of 78 writes in the window not followed by a read of TPM_ACCESS\(0\) \(first at trace line 102\)'

{ marker flush 41; getrandom flush; marker flush 5a; } >"$tmp/short"
"$tmp/tt" -e "$tmp/sent" "$tmp/short" >"$tmp/short.out" 2>&1
t "a command sent but missing from the trace: exit 1" test $? = 1
t "it is named" has "$tmp/short.out" 'FAIL: GetRandom \(0x0000017b\): 1 in the window, 2 sent'

{ marker flush 41; getrandom flush; getrandom flush; } >"$tmp/noend"
"$tmp/tt" -e "$tmp/sent" "$tmp/noend" >"$tmp/noend.out" 2>&1
t "no end marker: exit 1" test $? = 1

{ marker flush 41; getrandom flush; getrandom flush; marker flush 5a; } | sed '6s/write\.1/write.x/' >"$tmp/bad"
"$tmp/tt" "$tmp/bad" >"$tmp/bad.out" 2>&1
t "an unparsable access line: exit 2" test $? = 2
t "it names the line" has "$tmp/bad.out" '/bad:6: cannot parse the access'
host_done
