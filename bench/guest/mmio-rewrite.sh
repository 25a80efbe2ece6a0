#!/bin/sh
# rtlab: kernel=rt cpus=2 mem=512 timeout=1800 accel=icount nics=e1000e,e1000 devices=edu qemu_trace=memory_region_ops_read,memory_region_ops_write
# e1000/e1000e multicast table rewrites under mmio_burst=none|delay|flush
# (kernel patches 0004-0005, issue 23 item 2): per rewrite, the guest time
# (instructions: ACCEL=icount, shift 0) and the register accesses the
# emulated NIC saw, counted exactly from QEMU's trace.
#
# Method, one boot, one e1000e (82574L) and one e1000 (82540EM) NIC, each up:
# for each driver and each strategy, MMIO_RUNS (5) runs of MMIO_REWRITES
# (100) multicast list changes (tests/progs/netlab rewrite: SIOCADDMULTI and
# SIOCDELMULTI of one address in turn, each a call of ndo_set_rx_mode, which
# rewrites the whole multicast table and the receive address registers),
# from a SCHED_FIFO 50 task on CPU 1; and the same with the interface down
# ("down": the driver is not called, the ioctl's own cost).  Each run is
# bracketed by two markers (tests/progs/qmark: a write to QEMU's edu device)
# so that bench/host/post/mmio-rewrite.sh, after the boot, counts in QEMU's
# trace (memory_region_ops_read/_write) the NIC's reads and writes between
# them, and the longest run of writes without a read: the number of posted
# writes a read could have to wait for on real PCIe.
# Guest figures: "<driver> <strategy> <run> <rewrites> <ns>" lines in
# rewrite.txt, markers 0x52DDSSRR (start) and 0x45DDSSRR (end), DD the
# driver (1 e1000e, 2 e1000), SS the strategy (0 down, 1 none, 2 delay,
# 3 flush), RR the run.  Under icount the guest cannot read the trace during
# the run (docs/HACKING.md), hence the host step.
# Under TCG an MMIO write traps synchronously: no posted-write stall here.
# What this measures is each strategy's own cost in instructions and in
# device accesses, which is the same on hardware, not the stall it avoids.
. /rtlab/lib.sh
RUNS=${MMIO_RUNS:-5}
K=${MMIO_REWRITES:-100}
NETLAB=/usr/local/libexec/rtlab/netlab
QMARK=/usr/local/libexec/rtlab/qmark
out=${RTLAB_OUT:-/tmp}
w=/tmp/mmio
mkdir -p $w
res=$w/rewrite.txt
log=$w/log
: >"$res"
: >"$log"
fails=""
failed() { fails="$fails$*
"; }

nic_of() {
	for d in /sys/class/net/*; do
		[ "$(basename "$(readlink "$d/device/driver" 2>/dev/null)")" = "$1" ] && { basename "$d"; return; }
	done
}

# phase DRIVER DD IFACE STRATEGY SS: RUNS marked runs of K rewrites
phase() {
	for r in $(seq "$RUNS"); do
		code=$(printf '%02x%02x%02x' "$2" "$5" "$r")
		$QMARK "0x52$code" 2>>"$log" || { failed "qmark before $1 $4 run $r"; return 1; }
		o=$(chrt -f 50 taskset -c 1 $NETLAB rewrite "$3" "$K" 2>&1) ||
			{ failed "$1 $4 run $r: $o"; return 1; }
		$QMARK "0x45$code" 2>>"$log" || { failed "qmark after $1 $4 run $r"; return 1; }
		echo "$1 $4 $r $o" | awk '{ print $1, $2, $3, $5, $7 }' >>"$res"
	done
}

dd=0
for drv in e1000e e1000; do
	dd=$((dd + 1))
	ifc=$(nic_of $drv)
	if [ -z "$ifc" ]; then
		failed "no $drv interface"
		continue
	fi
	p=/sys/module/$drv/parameters/mmio_burst
	if [ ! -w "$p" ]; then
		failed "no writable $p (a kernel without 0004-0005)"
		continue
	fi
	def=$(cat "$p")
	ip link set "$ifc" down
	phase $drv $dd "$ifc" down 0
	ip link set "$ifc" up || { failed "ip link set $ifc up"; continue; }
	ss=0
	for s in none delay flush; do
		ss=$((ss + 1))
		echo $s >"$p" || { failed "echo $s >$p"; continue; }
		phase $drv $dd "$ifc" $s $ss
	done
	echo "$def" >"$p"
	echo "# $drv: $ifc, default mmio_burst $def" >>"$log"
done

# --- report ----------------------------------------------------------------
cp "$res" "$log" "$out/" 2>/dev/null
echo "# kernel $(uname -r), accel ${RTLAB_ACCEL:-?} shift ${RTLAB_ICOUNT_SHIFT:--}, $RUNS runs of $K rewrites per driver and strategy"
cat "$log"
echo "# guest ns per rewrite, median of the runs (runs); the register accesses are counted on the host from QEMU's trace"
awk '{ k = $1 " " $2; if (!(k in n)) o[++m] = k; v[k, ++n[k]] = $5 / $4 }
	END { for (i = 1; i <= m; i++) { k = o[i]; c = n[k]
		for (a = 1; a <= c; a++) for (b = a + 1; b <= c; b++) if (v[k, b] < v[k, a]) { t = v[k, a]; v[k, a] = v[k, b]; v[k, b] = t }
		med = c % 2 ? v[k, (c + 1) / 2] : (v[k, c / 2] + v[k, c / 2 + 1]) / 2
		s = ""; for (a = 1; a <= c; a++) s = s " " sprintf("%.0f", v[k, a])
		printf "# %s: %.0f ns (%s )\n", k, med, s } }' "$res"
tap_tcg_caveat "times per rewrite"
for drv in e1000e e1000; do
	for s in down none delay flush; do
		tap_check "$drv $s: $RUNS runs of $K rewrites" test "$(awk -v d=$drv -v s=$s '$1 == d && $2 == s' "$res" | wc -l)" -eq "$RUNS"
	done
done
[ -z "$fails" ] || printf '%s' "$fails" | sed 's/^/# failed: /'
tap_check "nothing failed" test -z "$fails"
tap_done
