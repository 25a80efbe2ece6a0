#!/bin/sh
# rtlab: kernel=rt-debug cpus=2 mem=512 timeout=1500
# Issue 17, item 4: when does a new irq thread get its default policy, and
# can a priority that user space sets on it be overwritten by the kernel?
#  - the thread is never woken to run irq_thread() under another policy
#    than its SCHED_FIFO default (sched_wakeup events: the wake-up by
#    __setup_irq() must show an RT prio; without 0001 it shows 120)
#  - a priority set the moment the thread is seen, from the proc
#    connector's fork event and from a /proc comm watcher: a set made once
#    the thread had its default is never overwritten (1000 cycles each); how
#    many sets came earlier, while the thread was being created, and how many
#    of those were lost, is printed
#  - a priority set on the poll() notification or right after request_irq()
#    returned is never overwritten (1000 cycles)
. /rtlab/lib.sh
P=/usr/local/libexec/rtlab
CTL=/sys/kernel/debug/rtlab_irqsim/ctl
STATUS=/sys/kernel/debug/rtlab_irqsim/status
TR=/sys/kernel/tracing
CYCLES=${IRQ_RACE_CYCLES:-1000}
TRACE_CYCLES=50
RT_PRIO_MAX=98		# kernel prio of SCHED_FIFO 1; SCHED_NORMAL is 100-139

if ! grep -q '^rtlab_irqsim ' /proc/modules && ! insmod /rtlab/modules/rtlab_irqsim.ko; then
	tap_fail "rtlab_irqsim loads"
	tap_done
fi
tap_ok "rtlab_irqsim loads"

# The wake-up that starts irq_thread(): traced with the thread's prio.
echo "request 5 tp" >"$CTL"
irq=$(awk '$1 == 5 { print $2 }' "$STATUS")
echo "free 5" >"$CTL"
echo 0 >"$TR/tracing_on"
echo >"$TR/trace"
echo "comm == \"irq/$irq-tp\"" >"$TR/events/sched/sched_wakeup/filter"
echo 1 >"$TR/events/sched/sched_wakeup/enable"
echo 1 >"$TR/tracing_on"
i=0
while [ $i -lt $TRACE_CYCLES ]; do
	echo "request 5 tp" >"$CTL" && echo "fire 5" >"$CTL" && echo "free 5" >"$CTL"
	i=$((i + 1))
done
echo 0 >"$TR/tracing_on"
echo 0 >"$TR/events/sched/sched_wakeup/enable"
echo 0 >"$TR/events/sched/sched_wakeup/filter"
# one line per wake-up: the pid and its prio; the first of each pid is the
# wake-up by __setup_irq() that starts irq_thread()
grep 'sched_wakeup:' "$TR/trace" | sed -n 's/.* pid=\([0-9]*\) prio=\([0-9]*\) .*/\1 \2/p' >/tmp/wakeups
echo >"$TR/trace"
threads=$(awk '!seen[$1]++' /tmp/wakeups | wc -l)
first_normal=$(awk -v m=$RT_PRIO_MAX '!seen[$1]++ && $2 > m' /tmp/wakeups | wc -l)
any_normal=$(awk -v m=$RT_PRIO_MAX '$2 > m' /tmp/wakeups | wc -l)
tap_diag "irq $irq: $TRACE_CYCLES threads created, $threads seen woken ($(wc -l </tmp/wakeups) wake-ups); first wake-up (irq_thread() starts) under a non-RT prio: $first_normal; any wake-up under a non-RT prio: $any_normal"
if [ "$threads" -eq $TRACE_CYCLES ] && [ "$any_normal" -eq 0 ]; then
	tap_ok "every irq thread starts irq_thread() with its SCHED_FIFO default ($TRACE_CYCLES threads)"
else
	tap_fail "every irq thread starts irq_thread() with its SCHED_FIFO default ($threads of $TRACE_CYCLES seen, $first_normal started under SCHED_NORMAL)"
fi

for ch in connector comm; do
	out=$("$P/irqrace_test" -m $ch -c "$CYCLES" -p 77)
	rc=$?
	echo "$out" | sed 's/^RESULT /# RESULT /'
	if [ $rc -eq 0 ]; then
		tap_ok "$ch: a priority set once the thread had its default is never overwritten ($CYCLES cycles)"
	else
		tap_fail "$ch: a priority set once the thread had its default is never overwritten ($CYCLES cycles)"
	fi
done

tap_check "set on the notification or right after request_irq() returned: never overwritten ($CYCLES cycles)" \
	"$P/irqwatch_test" race -s sysfs -c "$CYCLES" -p 77
tap_done
