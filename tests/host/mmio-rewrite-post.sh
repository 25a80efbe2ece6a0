#!/bin/bash
# Host unit tests of bench/host/post/mmio-rewrite.sh, the host half of the
# e1000/e1000e rewrite benchmark, on synthetic traces in QEMU 7.2's log
# format (memory_region_ops_read/_write with bus addresses): the counts per
# window and per rewrite, the longest run of writes without a read, that
# other devices' accesses and accesses outside the markers are not counted,
# and that each check fails when its property is broken (a flush run of 9
# writes, a window without its end marker, an access while the link is
# down, delay adding a read).  Prints TAP.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
host_test mmio-rewrite-post
post=$top/bench/host/post/mmio-rewrite.sh
K=2	# rewrites per run

# acc KIND NAME BASE OFFSET VALUE: one access as QEMU 7.2 logs it
acc() {
	printf 'memory_region_ops_%s cpu 1 mr 0x55d92e313a90 addr 0x%x value 0x%x size 4 name '\''%s'\''\n' \
		"$1" $(($3 + $4)) "$5" "$2"
}
EDU=0xfef00000
mark() { acc write edu-mmio $EDU 4 "$1"; acc read edu-mmio $EDU 4 $((~$1 & 0xffffffff)); }
# run WRITES FROM FLUSH NAME BASE: WRITES register writes from offset FROM,
# with a STATUS read before and after every 8 if FLUSH is 1 (or every
# FLUSH writes if it is more)
run() {
	local n=$1 a=$2 f=$3 i
	[ "$f" = 0 ] || acc read "$4" "$5" 8 0x281
	for ((i = 0; i < n; i++)); do
		acc write "$4" "$5" $((a + 4 * i)) 0
		[ "$f" = 0 ] || [ $(((i + 1) % (f == 1 ? 8 : f))) != 0 ] || acc read "$4" "$5" 8 0x281
	done
}
# rewrite STRATEGY NAME BASE [FLUSH]: what one ndo_set_rx_mode does
rewrite() {
	local f=0
	case $1 in flush) f=${4:-1} ;; esac
	acc read "$2" "$3" 0x100 0x4008002
	run 128 0x5200 "$f" "$2" "$3"
	acc read "$2" "$3" 8 0x281
	acc write "$2" "$3" 0x100 0x4048002
	run 28 0x5404 "$f" "$2" "$3"
	acc read "$2" "$3" 8 0x281
	acc write "$2" "$3" 0x100 0x4008002
}
# trace [BREAK]: both drivers, every strategy, one run of K rewrites each;
# BREAK=flush9 flushes e1000e every 9 writes, noend drops an end marker,
# down puts an access in a down window, delayread adds a read to delay
trace() {
	local dd ss r=1 name base s k
	acc write virtio-pci 0xfe000000 0x3000 1	# outside any window
	for dd in 1 2; do
		name=e1000e-mmio base=0xfec20000
		[ $dd = 1 ] || name=e1000-mmio base=0xfeb80000
		for ss in 0 1 2 3; do
			s=$(echo down none delay flush | cut -d' ' -f$((ss + 1)))
			mark $((0x52000000 + dd * 65536 + ss * 256 + r))
			[ "${1:-}" = down ] && [ $ss = 0 ] && acc read $name $base 8 0x281
			for ((k = 0; k < K; k++)); do
				[ $ss = 0 ] && continue
				if [ "${1:-}" = flush9 ] && [ $dd = 1 ]; then rewrite $s $name $base 9
				else rewrite $s $name $base; fi
				[ "${1:-}" = delayread ] && [ $ss = 2 ] && acc read $name $base 8 0x281
				# another device inside the window is not counted
				acc write virtio-pci 0xfe000000 0x3000 1
			done
			[ "${1:-}" = noend ] && [ $dd = 2 ] && [ $ss = 3 ] ||
				mark $((0x45000000 + dd * 65536 + ss * 256 + r))
			echo "${name%-mmio} $s $r $K $((1000 * (ss + 1) * K))" >>"$tmp/$2/rewrite.txt"
		done
	done
}
# case NAME [BREAK]: a directory with rewrite.txt and its trace, post run on it
case_() {
	mkdir -p "$tmp/$1"
	: >"$tmp/$1/rewrite.txt"
	trace "${2:-}" "$1" >"$tmp/$1/trace.log"
	"$post" "$tmp/$1" "$tmp/$1/trace.log" >"$tmp/$1/out" 2>&1
	echo $? >"$tmp/$1/rc"
}

case_ good
t "a well-formed trace: exit 0" test "$(cat "$tmp/good/rc")" = 0
t "every check ok" hasnt "$tmp/good/out" '^not ok'
t "all 8 runs found with their windows" has "$tmp/good/out" '^ok - every guest run has its window in the trace \(8 runs, 0 missing, 0 bad markers\)'
t "none: per rewrite 158 writes, 3 reads (2 of STATUS), 128 MTA and 28 RA writes, longest run 128" \
	has "$tmp/good/table.md" '^\| e1000e none \| 1 \| 2000 \(0%\) \| 158 \(0%\) \| 3 \(0%\) \| 128 \(0%\) \| 28 \(0%\) \| 2 \(0%\) \| 128 \(0%\) \|$'
# flush: a STATUS read before each run and one after every 8 writes,
# 1 + 16 + 1 + 3, besides the 3 reads of none
t "flush: 24 reads per rewrite (23 of STATUS), longest run 8" \
	has "$tmp/good/table.md" '^\| e1000 flush \| 1 \| 4000 \(0%\) \| 158 \(0%\) \| 24 \(0%\) \| 128 \(0%\) \| 28 \(0%\) \| 23 \(0%\) \| 8 \(0%\) \|$'
t "down: nothing counted, the other device in the window left out" \
	has "$tmp/good/table.md" '^\| e1000e down \| 1 \| 1000 \(0%\) \| 0 \(0%\) \| 0 \(0%\) '
t "summary.json has the figures" has "$tmp/good/summary.json" '"e1000e.flush.longest_write_run":8,'

case_ flush9 flush9
t "flush with 9 writes between reads: exit 1" test "$(cat "$tmp/flush9/rc")" = 1
t "flush with 9 writes between reads: reported" has "$tmp/flush9/out" '^not ok - e1000e flush: at most 8 writes without a read \(longest run 9, none 128\)'
t "flush with 9 writes between reads: e1000 still ok" has "$tmp/flush9/out" '^ok - e1000 flush: at most 8'

case_ noend noend
t "a window without its end marker: exit 1" test "$(cat "$tmp/noend/rc")" = 1
t "a window without its end marker: reported" has "$tmp/noend/out" '^not ok - every guest run has its window in the trace \(8 runs, 1 missing, 0 bad markers\)'

case_ down down
t "an access in a down window: reported" has "$tmp/down/out" '^not ok - e1000e down: the NIC sees no access'

case_ delayread delayread
t "delay adding a read: reported" has "$tmp/delayread/out" '^not ok - e1000e delay: no read added'

mkdir -p "$tmp/empty"
"$post" "$tmp/empty" "$tmp/good/trace.log" >"$tmp/empty/out" 2>&1
t "no guest figures: exit 1 with a message" test $? = 1
t "no guest figures: the message names the file" has "$tmp/empty/out" 'rewrite.txt: missing or empty'
host_done
