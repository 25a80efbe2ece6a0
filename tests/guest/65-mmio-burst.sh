#!/bin/sh
# rtlab: kernel=rt-debug cpus=2 timeout=900 devices=edu
# Issue 5, "Measuring it": the rtlab_mmio test module drives MMIO write
# bursts against QEMU's edu PCI device with the strategies none, delay and
# flush (kernel/modules/rtlab_mmio).  Checks, on the rt-debug kernel:
#  - the module binds to edu and every strategy runs with N = 32, 256, 4096:
#    all bursts done, every read back matches, durations and stretches > 0,
#    the expected number of reads and preemption points per burst
#  - flush costs more per burst than none (it does N reads instead of 1)
#  - delay and flush bound the longest stretch without a preemption point:
#    at N = 4096 their longest stretch is shorter than none's median one
#  - bad commands are rejected with EINVAL and leave the last results alone
#  - a signal interrupts a run; the module unloads
# Any splat on the console (lockdep, sleeping in atomic, ...) fails the test.
. /rtlab/lib.sh
D=/sys/kernel/debug/rtlab_mmio
R=/tmp/mmio-results
out=${RTLAB_OUT:-/tmp}

if ! insmod /rtlab/modules/rtlab_mmio.ko; then
	tap_fail "rtlab_mmio loads"
	tap_done
fi
tap_ok "rtlab_mmio loads"
if [ ! -w "$D/ctl" ]; then
	tap_fail "rtlab_mmio bound to the edu device ($D/ctl missing; is -device edu there?)"
	rmmod rtlab_mmio
	tap_done
fi
dev=$(basename "$(ls -d /sys/bus/pci/drivers/rtlab_mmio/0000:* 2>/dev/null | head -n 1)")
tap_check "rtlab_mmio bound to the edu device ($dev)" test -n "$dev"

get() { sed -n "s/^$1 //p" "$R"; }

# burst ARGS...: run one command, keep results in $R; 0 if the write worked
burst() {
	echo "burst $*" >"$D/ctl" || return 1
	cat "$D/results" >"$R"
}

# check STRATEGY N COUNT READS REGIONS [OPTIONS]: run and check one setting
check() {
	s=$1 n=$2 c=$3 reads=$4 regions=$5
	shift 5
	label="$s N=$n x$c${*:+ $*}"
	if ! burst "$s" "$n" "$c" "$@"; then
		tap_fail "$label: the command was refused"
		return
	fi
	cp "$R" "$out/results-$s-$n${*:+-$(echo "$*" | tr ' =' '-_')}.txt"
	cat "$D/durations" >/tmp/mmio-dur
	lines=$(wc -l </tmp/mmio-dur)
	zero=$(awk '$2 <= 0 || $3 <= 0 || $3 > $2' /tmp/mmio-dur | wc -l)
	med=$(get median_ns) smed=$(get stretch_median_ns) smax=$(get stretch_max_ns) rp50=$(get region_p50_below_ns)
	tap_diag "$label: median $med ns, max $(get max_ns) ns, stretch median $smed ns, max $smax ns, median region < $rp50 ns, $(get reads_per_burst) reads, $(get regions_per_burst) regions, mismatches $(get mismatches)"
	if [ "$(get status)" = complete ] && [ "$(get done)" = "$c" ] && [ "$lines" = "$c" ] &&
		[ "$zero" = 0 ] && [ "$(get mismatches)" = 0 ] && [ "${med:-0}" -gt 0 ] &&
		[ "$(get writes_per_burst)" = "$n" ] && [ "$(get reads_per_burst)" = "$reads" ] &&
		[ "$(get regions_per_burst)" = "$regions" ] && [ "${smax:-0}" -gt 0 ]; then
		tap_ok "$label: $c bursts, reads match, $reads reads and $regions regions without a preemption point per burst"
	else
		tap_fail "$label: status $(get status), done $(get done), $lines durations ($zero not sane), mismatches $(get mismatches), reads $(get reads_per_burst) (want $reads), regions $(get regions_per_burst) (want $regions)"
	fi
	eval "med_${s}_$n=\$med smed_${s}_$n=\$smed smax_${s}_$n=\$smax rp50_${s}_$n=\$rp50"
}

for n in 32 256 4096; do
	c=20
	[ "$n" = 4096 ] && c=5
	check none "$n" "$c" 1 1
	check delay "$n" "$c" 1 $((n / 32 + 1))
	check flush "$n" "$c" "$n" "$n"
done
for n in 32 256 4096; do
	eval "a=\$med_none_$n b=\$med_flush_$n"
	tap_check "N=$n: flush costs more per burst than none (median $b ns vs $a ns)" test "${b:-0}" -gt "${a:-0}"
done
# the typical stretch without a preemption point (median region, log2
# bucket): the longest ones also catch the emulator's own hiccups
for s in delay flush; do
	eval "a=\$rp50_${s}_4096"
	tap_check "N=4096: $s's median stretch without a preemption point (< $a ns) is shorter than none's (< $rp50_none_4096 ns)" \
		test "${a:-0}" -gt 0 -a "${a:-0}" -lt "${rp50_none_4096:-0}"
done

# the options
check delay 256 10 1 5 every=64 pause_us=5 wait=spin
[ "$(get wait)" = spin ] && [ "$(get every)" = 64 ] && [ "$(get pause_us)" = 5 ] ||
	tap_diag "options not reported back: wait $(get wait) every $(get every) pause_us $(get pause_us)"
check flush 256 10 32 32 batch=8
check flush 100 10 1 1 batch=100
check none 256 10 1 1 ctx=preemptoff
tap_check "ctx=preemptoff reported back" test "$(get ctx)" = preemptoff

# bad input: EINVAL, no crash, the last results stay
cp "$R" /tmp/mmio-before
bad=0 nbad=0
while IFS= read -r cmd; do
	nbad=$((nbad + 1))
	err=$( { echo -ne "$cmd" >"$D/ctl"; } 2>&1)
	case "$err" in
	*"Invalid argument"*) ;;
	*) tap_diag "not rejected with EINVAL: '$cmd' (${err:-accepted})"; bad=$((bad + 1)) ;;
	esac
done <<'EOF'
\n
burst
burst none
burst none 32
burst none 32 1 trailing
burst none 32 1 ctx=irqon
burst none 32 1 ctx=irqoff ctx=irqoff
burst delay 32 1 ctx=irqoff every=4 pause_us=5 wait=spin batch=1
burst bogus 32 1
burst NONE 32 1
burst none 0 1
burst none 32 0
burst none 65537 1
burst none 32 100001
burst none 4096 4097
burst none -1 1
burst none 32x 1
burst none 0x20 1
burst none 32 1 every=4
burst flush 32 1 every=4
burst delay 32 1 batch=2
burst delay 32 1 every=0
burst delay 32 1 every=65537
burst delay 32 1 pause_us=0
burst delay 32 1 pause_us=10001
burst delay 32 1 wait=nap
burst delay 32 1 every=4 every=4
burst delay 32 1 every
burst delay 32 1 =4
burst flush 32 1 batch=
burst flush 32 1 batch=0
burst none 1 1 a=1 b=2 c=3 d=4 e=5
burst none 32 1\0 junk
reset
EOF
long=$(printf '%0200d' 0)
err=$( { echo "burst none 32 $long" >"$D/ctl"; } 2>&1)
nbad=$((nbad + 1))
case "$err" in *"Invalid argument"*) ;; *) tap_diag "200-byte command not rejected"; bad=$((bad + 1)) ;; esac
cat "$D/results" >/tmp/mmio-after
tap_check "$nbad bad commands rejected with EINVAL ($bad not)" test "$bad" = 0
tap_check "results unchanged by rejected commands" cmp -s /tmp/mmio-before /tmp/mmio-after

# a signal interrupts a long run
sh -c "echo burst delay 4096 1000 >$D/ctl" 2>/dev/null &
pid=$!
sleep 2
kill -TERM "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
cat "$D/results" >"$R"
tap_diag "interrupted run: status $(get status), done $(get done) of $(get count)"
tap_check "a signal interrupts a run (status interrupted, $(get done) of 1000 bursts kept)" \
	test "$(get status)" = interrupted -a "$(get done)" -lt 1000
lines=$(wc -l <"$D/durations")
tap_check "durations lists the $(get done) bursts done" test "$lines" = "$(get done)"

tap_check "rtlab_mmio unloads" rmmod rtlab_mmio
tap_check "the debugfs directory is gone" test ! -e "$D"
tap_done
