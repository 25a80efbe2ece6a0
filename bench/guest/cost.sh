#!/bin/sh
# rtlab: kernel=rt cpus=2 mem=512 timeout=900 accel=icount
# Kernel cost figures with a fixed amount of work, for instruction-counted
# runs (ACCEL=icount: guest time is instructions x 2^shift ns, the same on a
# quiet and a loaded host).  bench/host/cost.sh boots it repeatedly, on one
# kernel (determinism: the spread of each figure across boots) or on two
# (A/B: each patch's cost as a ratio).
#
# Method, COST_RUNS (5) runs of each figure in this boot, each run kept
# (metric NAME.rK) and their median (NAME):
#   hackbench.{other,fifo}-root, hackbench.fifo-group
#              Debian rt-tests hackbench, COST_HB_ARGS (-p -g 2 -f 10 -l 200
#              -s 100), its "Time:" in ms: SCHED_OTHER and SCHED_FIFO 10 in
#              the root group, SCHED_FIFO 10 in a cgroup v1 RT group of
#              800 ms / 1 s
#   pingpong.{root,group}-{1cpu,2cpu}
#              two SCHED_FIFO 50 threads pass a byte over two pipes
#              (rtgload --pingpong) for COST_PP_SECS (0.1) s of guest time,
#              on CPU 1 or on CPUs 0 and 1: ns per round trip (window /
#              round trips), root group; the 800 ms / 1 s group on two CPUs
#   cyclictest.{avg,max}_ns
#              cyclictest -N, COST_CT_LOOPS (1000) loops of 1 ms, 2 threads
#              at SCHED_FIFO 80, one per CPU: mean of the threads' Avg,
#              largest Max (wake-up latency in guest ns)
#   irq.request_ns, irq.cycle_ns
#              rtlab_irqsim: COST_IRQ_CYCLES (200) times request_irq() then
#              free_irq() of one threaded irq, nobody polling; request_ns is
#              the module's own ktime_get_ns() around request_irq(), cycle_ns
#              from one request's start to the next (request + free + the
#              two debugfs writes)
#   irq.p{N}.request_ns, irq.p{N}.free_ns, irq.p{N}.cycle_ns
#              the same cycle in C (tests/progs/irqwatch_test cost), with N
#              of COST_IRQ_POLLERS (0 1 100) pollers (SCHED_FIFO 80, poll()
#              on /sys/kernel/irq/generation, patches 0002-0003) attached;
#              the requester (FIFO 90) waits, blocked, until every poller
#              was woken and re-read the file after each request and each
#              free: medians over COST_IRQ_CYCLES cycles of request_irq()
#              (module timestamps), of the free (write to debugfs), of
#              the whole cycle (pollers' wake-ups and reads included).  A
#              kernel without the generation file gets the 0 row only.
# Everything is measured into /tmp and printed only at the end: the test's
# output goes to the 9p share, whose replies are host-timed, and under
# icount a wait for them moves the guest's clock by a host-dependent amount.
. /rtlab/lib.sh
. /rtlab/lib/proc.sh

RUNS=${COST_RUNS:-5}
HB_ARGS=$(knob_words "${COST_HB_ARGS:--p -g 2 -f 10 -l 200 -s 100}")
PP_SECS=${COST_PP_SECS:-0.1}
CT_LOOPS=${COST_CT_LOOPS:-1000}
IRQ_CYCLES=${COST_IRQ_CYCLES:-200}
IRQ_POLLERS=$(knob_words "${COST_IRQ_POLLERS:-0 1 100}")
IW=/usr/local/libexec/rtlab/irqwatch_test
GEN=/sys/kernel/irq/generation
L=/usr/local/libexec/rtlab/rtgload
CG=/sys/fs/cgroup/cpu
GRP=$CG/costb
SIM=/sys/kernel/debug/rtlab_irqsim
readonly IRQ_SLOT=3
out=${RTLAB_OUT:-/tmp}
w=/tmp/cost
mkdir -p $w
metrics=$w/metrics.txt	# "name value" lines, for bench/host/cost.sh
log=$w/log		# diagnostics, printed at the end
: >"$metrics"
: >"$log"
fails=""
metric() { echo "$1 $2" >>"$metrics"; }
note() { echo "# $*" >>"$log"; }
failed() { fails="$fails$*
"; }
# median of the numbers on stdin
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) printf "%.10g\n", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
# runs NAME: NAME.r1.. NAME.rN from $w/NAME.runs, and their median as NAME
runs() {
	k=0
	while read -r v; do k=$((k + 1)); metric "$1.r$k" "$v"; done <"$w/$1.runs"
	metric "$1" "$(median <"$w/$1.runs")"
}

cg_ok=0
{ grep -q " $CG cgroup .*cpu" /proc/mounts || {
	grep -q ' /sys/fs/cgroup ' /proc/mounts || mount -t tmpfs cgroup_root /sys/fs/cgroup
	mkdir -p $CG && mount -t cgroup -o cpu none $CG; }; } 2>>"$log" &&
	{ [ -d $GRP ] || mkdir $GRP; } && echo 1000000 >$GRP/cpu.rt_period_us &&
	echo 800000 >$GRP/cpu.rt_runtime_us && cg_ok=1
[ $cg_ok = 1 ] || note "no cgroup v1 RT group at $GRP: the group rows are left out"

# --- hackbench -------------------------------------------------------------
# hb NAME IN_GROUP [chrt args]
hb() {
	name=hackbench.$1 grp=$2; shift 2
	: >"$w/$name.runs"
	for r in $(seq "$RUNS"); do
		if [ "$grp" = 1 ]; then
			o=$(sh -c "echo \$\$ >$GRP/tasks && exec $* hackbench $HB_ARGS" 2>&1)
		else
			o=$(sh -c "exec $* hackbench $HB_ARGS" 2>&1)
		fi
		t=$(echo "$o" | sed -n 's/^Time: *\([0-9.]*\).*/\1/p')
		[ -n "$t" ] || { failed "$name run $r: $o"; return 1; }
		awk -v t="$t" 'BEGIN { printf "%.0f\n", t * 1000 }' >>"$w/$name.runs"
	done
	runs "$name"
}
hb other-root 0
hb fifo-root 0 chrt -f 10
[ $cg_ok = 1 ] && hb fifo-group 1 chrt -f 10

# --- ping-pong -------------------------------------------------------------
# pp NAME IN_GROUP CPUS
pp() {
	name=pingpong.$1 cg=""
	[ "$2" = 1 ] && cg="--cg $GRP"
	: >"$w/$name.runs"
	for r in $(seq "$RUNS"); do
		# shellcheck disable=SC2086 # $cg is empty or two words
		o=$($L -m --pingpong $cg --policy fifo --prio 50 --cpus "$3" -d "$PP_SECS" 2>&1) ||
			{ failed "$name run $r: $o"; return 1; }
		echo "$o" | awk '{ for (i = 1; i <= NF; i++) { j = index($i, "="); if (j) v[substr($i, 1, j - 1)] = substr($i, j + 1) }
			if (v["rounds"] > 0) printf "%.1f\n", v["duration_ns"] / v["rounds"] }' >>"$w/$name.runs"
	done
	runs "$name"
}
pp root-1cpu 0 1
pp root-2cpu 0 0,1
# In the group only on two CPUs: on one, the pair keeps the CPU busy and a
# short window can fall entirely in the group's throttled 200 ms.
[ $cg_ok = 1 ] && pp group-2cpu 1 0,1
rmdir $GRP 2>/dev/null

# --- cyclictest ------------------------------------------------------------
: >"$w/ct.avg.runs"
: >"$w/ct.max.runs"
for r in $(seq "$RUNS"); do
	o=$(cyclictest -m -q -N -p 80 -t 2 -a -i 1000 -l "$CT_LOOPS" 2>&1)
	# "Avg:" and "Max:" may be glued to a wide number ("Max:9516741")
	echo "$o" | awk '/^T:/ { sub(/.*Avg: */, "A "); split($0, f, / *Max: *| +/); s += f[2]; n++; if (f[3] + 0 > m) m = f[3] + 0 }
		END { if (n) { printf "%.0f\n", s / n >> "'"$w/ct.avg.runs"'"; print m >> "'"$w/ct.max.runs"'" } }' ||
		{ failed "cyclictest run $r: $o"; break; }
done
[ -s "$w/ct.avg.runs" ] && mv "$w/ct.avg.runs" "$w/cyclictest.avg_ns.runs" && mv "$w/ct.max.runs" "$w/cyclictest.max_ns.runs" &&
	runs cyclictest.avg_ns && runs cyclictest.max_ns

# --- irq request/free --------------------------------------------------------
irq() {
	insmod /rtlab/modules/rtlab_irqsim.ko 2>>"$log" || { failed "insmod rtlab_irqsim"; return 1; }
	: >"$w/irq.raw"
	for r in $(seq "$RUNS"); do
		i=0
		while [ $i -lt "$IRQ_CYCLES" ]; do
			echo "request $IRQ_SLOT cost" >$SIM/ctl || { failed "request_irq, cycle $i"; return 1; }
			# "<slot> <irq> <name> <request_ns> <fired> <handled> <start_ns>"
			read -r _ _ _ rq _ _ st <$SIM/status
			echo "$r $st $rq" >>"$w/irq.raw"
			echo "free $IRQ_SLOT" >$SIM/ctl || { failed "free_irq, cycle $i"; return 1; }
			i=$((i + 1))
		done
	done
	rmmod rtlab_irqsim
	# per run: the median of request_ns - start_ns, and of start(k+1) - start(k)
	for r in $(seq "$RUNS"); do
		awk -v r="$r" '$1 == r { print $3 - $2 }' "$w/irq.raw" | median >>"$w/irq.request_ns.runs"
		awk -v r="$r" '$1 == r { if (p) print $2 - p; p = $2 }' "$w/irq.raw" | median >>"$w/irq.cycle_ns.runs"
	done
	runs irq.request_ns
	runs irq.cycle_ns
}
irq

# --- irq request/free with pollers attached ---------------------------------
# irqp N: RUNS runs of irqwatch_test cost with N pollers
irqp() {
	for f in request_ns free_ns cycle_ns; do : >"$w/irq.p$1.$f.runs"; done
	for r in $(seq "$RUNS"); do
		o=$($IW cost -s sysfs -n "$1" -c "$IRQ_CYCLES" 2>&1) || { failed "irqwatch_test cost -n $1, run $r: $o"; return 1; }
		for f in request_ns free_ns cycle_ns; do
			echo "$o" | tr ' ' '\n' | sed -n "s/^$f=//p" >>"$w/irq.p$1.$f.runs"
		done
	done
	for f in request_ns free_ns cycle_ns; do runs "irq.p$1.$f"; done
}
irqp_rows=""
if insmod /rtlab/modules/rtlab_irqsim.ko 2>>"$log"; then
	for n in $IRQ_POLLERS; do
		if [ "$n" -gt 0 ] && [ ! -e $GEN ]; then
			note "no $GEN (a kernel without 0002-0003): no row with $n pollers"
			continue
		fi
		irqp "$n" && irqp_rows="$irqp_rows $n"
	done
	rmmod rtlab_irqsim
else
	failed "insmod rtlab_irqsim (pollers)"
fi

# --- report ----------------------------------------------------------------
cp "$metrics" "$log" "$out/" 2>/dev/null
echo "# kernel $(uname -r), accel ${RTLAB_ACCEL:-?} shift ${RTLAB_ICOUNT_SHIFT:--}, $(grep -c ^processor /proc/cpuinfo) CPUs, $RUNS runs each"
echo "# hackbench $HB_ARGS; ping-pong $PP_SECS s; cyclictest $CT_LOOPS loops; irq $IRQ_CYCLES cycles, with$irqp_rows pollers"
cat "$log"
{
	echo "| figure | median | runs |"
	echo "|---|---|---|"
	awk '{ n = $1; if (n ~ /\.r[0-9]+$/) { sub(/\.r[0-9]+$/, "", n); r[n] = r[n] " " $2 } else { m[n] = $2; o[++k] = n } }
		END { for (i = 1; i <= k; i++) printf "| %s | %s |%s |\n", o[i], m[o[i]], r[o[i]] }' "$metrics"
	echo
	echo "Units: hackbench ms, pingpong ns per round trip, cyclictest ns, irq ns."
} >"$out/table.md"
sed 's/^/# /' "$out/table.md"
awk -v k="${RTLAB_KERNEL:-?}" -v a="${RTLAB_ACCEL:-?}" -v s="${RTLAB_ICOUNT_SHIFT:-null}" -v r="$RUNS" \
	'BEGIN { printf "{\"benchmark\":\"cost\",\"kernel\":\"%s\",\"accel\":\"%s\",\"icount_shift\":%s,\"runs\":%d,\"figures\":{", k, a, s, r } $1 !~ /\.r[0-9]+$/ { printf "%s\"%s\":%s", (n++ ? "," : ""), $1, $2 } END { print "}}" }' "$metrics" >"$out/summary.json"
tap_tcg_caveat "times (hackbench ms, ping-pong and irq ns)"
tap_check "hackbench root SCHED_OTHER and SCHED_FIFO: $RUNS runs each" grep -q '^hackbench.fifo-root ' "$metrics"
tap_check "ping-pong on one and two CPUs: $RUNS runs each" grep -q '^pingpong.root-2cpu ' "$metrics"
tap_check "cyclictest $CT_LOOPS loops: $RUNS runs" grep -q '^cyclictest.max_ns ' "$metrics"
tap_check "request_irq()+free_irq() with no poller: $RUNS x $IRQ_CYCLES cycles" grep -q '^irq.cycle_ns ' "$metrics"
for n in $IRQ_POLLERS; do
	[ "$n" -eq 0 ] || [ -e $GEN ] || continue
	tap_check "request_irq()+free_irq() with $n pollers: $RUNS x $IRQ_CYCLES cycles" grep -q "^irq.p$n.cycle_ns " "$metrics"
done
[ -z "$fails" ] || printf '%s' "$fails" | sed 's/^/# failed: /'
tap_check "nothing failed" test -z "$fails"
tap_done
