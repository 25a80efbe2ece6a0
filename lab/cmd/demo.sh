#!/bin/bash
# lab/rtlab demo (make demo): what rtlab does, one figure a topic, from two
# boots of the rt kernel in QEMU:
#  - a TCG boot (2 vCPUs) runs bench/guest/showcase.sh (irq thread
#    priority at request_irq(), an RT group's share, an ftrace dump),
#    dl-demote.sh (throttle, GRUB, demotion; DLSOFT_JOBS jobs a mode),
#    rtpi-wakeup.sh (PI condvar against glibc; RTPI_WAKEUPS wake-ups) and
#    cyclictest.sh (idle and under hackbench, DURATION s each): figures in
#    TCG time, of which only ratios within the run mean anything;
#  - an instruction-counted boot runs mmio-rewrite.sh: the e1000/e1000e
#    multicast table rewrite (patches 0004-0005), its longest run of posted
#    writes counted exactly by the emulated NIC and its cost in
#    instructions.
# Then, on the host, the dump on the first boot's console becomes a
# trace.dat (tools/ftdump) and a KernelShark picture.  Prints the report
# (also in build/demo/REPORT.txt); exit 1 if a figure is missing, a
# benchmark failed or the console shows a kernel splat.
set -uo pipefail
. "$(dirname "$0")/../lib/machine.sh"
top=$lab_top build=$lab_build
demo=$build/demo
rm -rf "$demo"
mkdir -p "$demo"
t0=$(date +%s)
BENCH_SUITE=demo "$top/bench/host/run.sh" --env "DURATION=${DURATION:-10}" \
	--env "DLSOFT_JOBS=${DLSOFT_JOBS:-60}" --env "RTPI_WAKEUPS=${RTPI_WAKEUPS:-2000}" \
	"$top/bench/guest/showcase.sh" "$top/bench/guest/dl-demote.sh" "$top/bench/guest/rtpi-wakeup.sh" \
	"$top/bench/guest/cyclictest.sh" "$top/bench/guest/mmio-rewrite.sh" >"$demo/bench.log" 2>&1
rc=$?
t1=$(date +%s)
# each benchmark's output directory (the newest boot that ran it) and boot
outof() { ls -d "$build"/run/demo/*/out/"$1.sh" 2>/dev/null | tail -n 1; }
s=$(outof showcase) dl=$(outof dl-demote) pi=$(outof rtpi-wakeup) ct=$(outof cyclictest) m=$(outof mmio-rewrite)
boot=$(dirname "$(dirname "${s:-$ct}")")
jfig() { jq -r "$2 // empty" "$1/summary.json" 2>/dev/null; }
metric() { awk -v k="$2" '$1 == k { print $2 }' "$1/metrics.txt" 2>/dev/null; }
ms() { awk -v u="$1" 'BEGIN { if (u != "") printf "%.1f", u / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.1fx", a / b; else printf "?" }'; }
missing=()
need() { [ -n "$2" ] || missing+=("$1"); }

# the dump on the TCG boot's console, converted with the bundle the guest saved
ks=
if [ -n "$s" ] && [ -f "$s/formats.tar" ] && tar -xf "$s/formats.tar" -C "$s"; then
	if "$top/tools/ftdump/ftdump" -f "$s/formats" -o "$demo/showcase.dat" "$boot/console.log" >"$demo/ftdump.log" 2>&1; then
		"$top/tools/ftdump/tests/kernelshark-shot.sh" "$demo/showcase.dat" "$demo/kernelshark.png" >"$demo/kernelshark.log" 2>&1 &&
			ks=$demo/kernelshark.png
	fi
fi
records=$(sed -n 's/.*(line [0-9]*): \([0-9]*\) records.*/\1/p' "$demo/ftdump.log" 2>/dev/null | tail -n 1)

init=$(grep -ho 'rtlab: INIT.*' "$boot/console.log" 2>/dev/null | head -n 1)
splat=0
report() {
echo "rtlab demo"
echo "  kernel:      $(echo "$init" | awk '{print $3}') (Debian linux-source $(make -s -C "$build/linux" kernelversion) + kernel/patches)"
echo "  PREEMPT_RT:  $(echo "$init" | grep -q 'preempt_rt=1' && echo on || echo OFF)"
echo "  emulator:    $(qemu_version), ${ACCEL:-tcg} ($(nproc) host cores); two boots, $((t1 - t0)) s of wall time"
echo
echo "What the patches and tools do, one figure each (time base in brackets):"
n=$(jfig "$s" .irq_threads) f=$(jfig "$s" .irq_fifo50_at_return)
need "irq threads" "$f"
printf '  %-24s %s\n' "irq threads (0001)" "a new irq thread is SCHED_FIFO 50 when request_irq() returns: ${f:-?} of ${n:-?}  [exact count]"
g=$(jfig "$s" .group_share) o=$(jfig "$s" .other_share)
need "RT group share" "$g"
printf '  %-24s %s\n' "RT groups (0007)" "a 30 ms / 100 ms group's FIFO hog got ${g:-?}% of its CPU, the SCHED_OTHER hog beside it ${o:-?}%  [TCG time]"
tt=$(metric "$dl" throttle.ovr_p99_us) tr=$(metric "$dl" reclaim.ovr_p99_us) td=$(metric "$dl" demote.ovr_p99_us)
need "deadline overruns" "$td"
printf '  %-24s %s\n' "deadline overruns (0020)" "p99 completion of overrunning jobs: throttled $(ms "$tt") ms, GRUB $(ms "$tr") ms, demoted $(ms "$td") ms ($(ratio "$tt" "$td") sooner)  [TCG time]"
pr=$(jfig "$pi" .modes.rtpi.median_us) pg=$(jfig "$pi" '.modes["glibc-normal"].median_us')
need "PI condvar" "$pr"
printf '  %-24s %s\n' "PI condvars (lib/rtpi)" "median wake-up of the top waiter beside a hog: rtpi ${pr:-?} us, glibc ${pg:-?} us ($(ratio "$pg" "$pr") sooner)  [TCG time]"
wn=$(jfig "$m" '.figures["e1000e.none.longest_write_run"]') wf=$(jfig "$m" '.figures["e1000e.flush.longest_write_run"]')
need "e1000 write runs" "$wf"
printf '  %-24s %s\n' "e1000e bursts (0004-5)" "longest run of posted MMIO writes per multicast rewrite: ${wn:-?} unbounded, ${wf:-?} with mmio_burst=flush  [exact count]"
printf '  %-24s %s\n' "ftrace dump (tools/ftdump)" "the console dump became a trace.dat of ${records:-?} records: ${ks:-no picture (see $demo/ftdump.log, kernelshark.log)}"
need "ftdump picture" "$ks"
echo
echo "Latency (cyclictest, 1 ms period, SCHED_FIFO 99; TCG: compare the two rows, not hardware numbers):"
cat "$ct/table.md" 2>/dev/null || missing+=(cyclictest)
grep -h '^# ratios' "$ct/tap" 2>/dev/null | sed 's/^# /  /'
[ -f "$ct/cyclictest.png" ] && echo "  plot: $ct/cyclictest.png"
echo
if [ -n "$(jfig "$m" '.figures["e1000e.flush.ns"]')" ]; then
	echo "The e1000/e1000e rewrite in detail (instruction-counted boot: register counts exact; instructions, median"
	echo "of 5 runs of 100 rewrites; docs/results/lab.md says how much they move between boots):"
	echo "  per rewrite                  | longest run of posted writes | register reads | instructions"
	for nic in e1000e e1000; do
		for st in none flush; do
			printf '  %-6s mmio_burst=%-5s       | %28s | %14s | %s\n' "$nic" "$st" \
				"$(jfig "$m" ".figures[\"$nic.$st.longest_write_run\"]")" "$(jfig "$m" ".figures[\"$nic.$st.reads\"]")" \
				"$(jfig "$m" ".figures[\"$nic.$st.ns\"]")"
		done
	done
	echo
fi
grep -hE '^not ok' "$build"/run/demo/*/result.tap 2>/dev/null | sed 's/^/  benchmark point failed: /'
splat=0
for c in "$build"/run/demo/*[0-9]/console.log; do
	"$build/bin/labcheck" splats "$c" >/dev/null 2>&1 || { echo "console: kernel splat in $c"; splat=1; }
done
[ "$splat" = 1 ] || echo "consoles: clean (no kernel splat) in both boots; guests powered off"
[ ! -s "$build/run/demo/emulator-faults" ] ||
	sed 's/^# /note: /; s/$/ (lab\/cmd\/run.sh: the emulator'"'"'s stale int3, not the kernel'"'"'s; docs\/results\/lab.md)/' "$build/run/demo/emulator-faults"
[ ${#missing[@]} = 0 ] || echo "demo: missing figures: ${missing[*]} (see $demo/bench.log)"
}
report >"$demo/REPORT.txt"
cat "$demo/REPORT.txt"
[ "$rc" = 0 ] && [ "$splat" = 0 ] && [ ${#missing[@]} = 0 ]
