#!/bin/sh
# rtlab: kernel=rt cpus=2 mem=512 timeout=300
# The demo's tour (make demo, lab/cmd/demo.sh): one short figure per topic
# that the other benchmarks measure at length, in the boot they share.
#  - irq threads (patch 0001): the policy of a new irq thread the moment
#    request_irq() returned, for IRQ_THREADS threads (rtlab_irqsim): with
#    0001 SCHED_FIFO 50 every time; 6.12 lets the thread set it itself
#    when it first runs, so a reader often sees SCHED_OTHER.
#  - RT groups on deadline servers (0007): a SCHED_FIFO hog in a group of
#    30 ms / 100 ms beside a SCHED_OTHER hog on CPU 1: the hog's share of
#    the CPU (rtgload, 2 s).
#  - the ftrace dump (0014, tools/ftdump): sched and irq events of a short
#    cyclictest + hackbench run dumped to the console by ftrace_dump()
#    (rtlab_ftdump), with this kernel's format bundle saved beside it
#    (formats.tar); the
#    demo converts the console log to trace.dat on the host and shows it in
#    KernelShark.
# Figures in summary.json.  Shares are of TCG time, counts are exact.
. /rtlab/lib.sh
. /rtlab/lib/rtg.sh
out=${RTLAB_OUT:-/tmp}
N=${IRQ_THREADS:-20}
CTL=/sys/kernel/debug/rtlab_irqsim/ctl
STATUS=/sys/kernel/debug/rtlab_irqsim/status
L=/usr/local/libexec/rtlab/rtgload
CG=/sys/fs/cgroup/cpu
T=/sys/kernel/tracing

# 1. irq threads: policy and priority (/proc/PID/stat fields 41 and 40)
#    read right after "request" returns
fifo=0 other=0
if grep -q '^rtlab_irqsim ' /proc/modules || insmod /rtlab/modules/rtlab_irqsim.ko; then
	i=0
	while [ $i -lt "$N" ]; do
		echo "request 5 tp" >"$CTL"
		irq=$(awk '$1 == 5 { print $2 }' "$STATUS")
		pid=$(grep -lx "irq/$irq-tp" /proc/[0-9]*/comm 2>/dev/null | head -n 1 | cut -d/ -f3)
		set -- $(awk '{ print $41, $40 }' "/proc/$pid/stat" 2>/dev/null)
		if [ "${1:-}" = 1 ] && [ "${2:-}" = 50 ]; then fifo=$((fifo + 1)); else other=$((other + 1)); fi
		echo "free 5" >"$CTL"
		i=$((i + 1))
	done
	rmmod rtlab_irqsim
	tap_check "irq threads: SCHED_FIFO 50 right after request_irq() in $fifo of $N" [ "$fifo" = "$N" ]
else
	tap_fail "rtlab_irqsim loads"
fi

tap_diag "irq threads done at $(up) s"
# 2. an RT group's share on CPU 1
share= oshare=
rtg_group demo 100000 30000
if rtg_run group -d 2 -t name=fifo,cg=$CG/demo,policy=fifo,prio=50,cpu=1 -t name=other,cpu=1; then
	share=$(rtg_val fifo share) oshare=$(rtg_val other share)
	tap_check "RT group 30 ms / 100 ms: its FIFO hog got ${share}% of CPU 1 (30 +-3), the SCHED_OTHER hog ${oshare}%" \
		awk -v s="$share" 'BEGIN { exit !(s >= 27 && s <= 33) }'
else
	tap_fail "rtgload ran (rc $rc)"
fi
rtg_cleanup
trap - EXIT

tap_diag "group share done at $(up) s"
# 3. an ftrace dump on the console, and the bundle to convert it
mountpoint -q $T || mount -t tracefs nodev $T
echo 0 >$T/tracing_on
echo 16 >$T/buffer_size_kb
for e in sched/sched_switch sched/sched_wakeup sched/sched_waking irq/irq_handler_entry irq/irq_handler_exit; do
	echo 1 >"$T/events/$e/enable"
done
: >$T/trace
btf=
[ -r /sys/kernel/btf/vmlinux ] || btf="--btf /rtlab/modules/rtlab_enums.ko"
# shellcheck disable=SC2086 # btf is two words or none
# saved to /tmp and sent as one tar file: some 500 small files over 9p
# took 20-130 s under TCG (45-270 ms a file, with the host's load)
rm -rf /tmp/formats
ftdump --save-formats /tmp/formats $btf 2>"$out/save.err" && tar -cf "$out/formats.tar" -C /tmp formats
rc=$?
tap_diag "format bundle saved at $(up) s"
tap_check "ftdump --save-formats: this kernel's format bundle (rc $rc)" [ "$rc" = 0 ]
echo 1 >$T/tracing_on
hackbench -g 2 -l 200 >/dev/null 2>&1 &
cyclictest -q -m -p 90 -i 1000 -l 300 -t 2 -a >/dev/null 2>&1
wait
echo 0 >$T/tracing_on
tap_diag "recording done at $(up) s"
insmod /rtlab/modules/rtlab_ftdump.ko && rmmod rtlab_ftdump
for e in sched/sched_switch sched/sched_wakeup sched/sched_waking irq/irq_handler_entry irq/irq_handler_exit; do
	echo 0 >"$T/events/$e/enable"
done
i=0
until awk '/Dumping ftrace buffer:/ { n = 0 } /-------------------------------/ { n++ } END { exit n < 2 }' "$RTLAB_CONSOLE" || [ $i -ge 100 ]; do
	sleep 0.1; i=$((i + 1))
done
tap_check "ftrace_dump() reached the console" [ $i -lt 100 ]

printf '{"benchmark":"showcase","irq_threads":%d,"irq_fifo50_at_return":%d,"group_share":%s,"other_share":%s,"formats":"formats.tar"}\n' \
	"$N" "$fifo" "${share:-null}" "${oshare:-null}" >"$out/summary.json"
tap_tcg_caveat "CPU shares"
tap_done
