#!/bin/sh
# rtlab: kernel=rt cpus=2 timeout=600
# Notification latency of the rtlab irq interfaces: from request_irq()
# returning (ktime_get_ns() taken in rtlab_irqsim right after it returned)
# to a SCHED_FIFO 80 poller awake in user space (CLOCK_MONOTONIC), through
# poll() on /proc/interrupts and on /sys/kernel/irq/generation.
# The requester runs at SCHED_FIFO 90, above the poller, so the poller
# cannot preempt it between the wake-up (issued inside request_irq(), just
# before it returns) and the timestamp; a poller already running on the
# other CPU can still wake before the timestamp, so small negative values
# are real and kept.
. /rtlab/lib.sh
N=${CYCLES:-1000}
out=${RTLAB_OUT:-/tmp}
T=/usr/local/libexec/rtlab/irqwatch_test
insmod /rtlab/modules/rtlab_irqsim.ko || { tap_fail "rtlab_irqsim loads"; tap_done; }
tap_check "latency via /proc/interrupts, $N cycles" $T latency -s proc -c "$N" -j "$out/proc.json"
tap_check "latency via /sys/kernel/irq/generation, $N cycles" $T latency -s sysfs -c "$N" -j "$out/sysfs.json"
rmmod rtlab_irqsim
{
	echo "| source | samples | median us | p99 us | max us | request_irq() median us |"
	echo "|---|---|---|---|---|---|"
	for s in proc sysfs; do
		[ -f "$out/$s.json" ] || continue
		sed 's/[{}"]//g' "$out/$s.json" | tr ',' '\n' | awk -F: -v s="$s" '
			{ v[$1] = $2 } END { printf "| %s | %s | %s | %s | %s | %s |\n", v["source"], v["samples"], v["median_us"], v["p99_us"], v["max_us"], v["request_irq_median_us"] }'
	done
} >"$out/table.md"
cat "$out/table.md"
printf '{"benchmark":"irq-notify","kernel":"%s","accel":"%s","proc":%s,"sysfs":%s}\n' "$(uname -r)" "${RTLAB_ACCEL:-?}" \
	"$(cat "$out/proc.json" 2>/dev/null || echo null)" "$(cat "$out/sysfs.json" 2>/dev/null || echo null)" >"$out/summary.json"
tap_tcg_caveat times
tap_done
