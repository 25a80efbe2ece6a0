#!/bin/sh
# rtlab: kernel=rt-debug cpus=2 timeout=300
#
# rtaudit (issue 21): a tracefs instance with trace_clock=local tracing
# both CPUs is flagged; the same instance with mono, or local on one CPU,
# is not.
. /rtlab/lib.sh
. /rtlab/lib/rtaudit.sh
T=/sys/kernel/tracing
I=$T/instances/rta-local
tap_plan 4
mkdir "$I" || { tap_fail "cannot create $I"; tap_done; }
echo local >"$I/trace_clock"
rtaudit system >/tmp/rta-sys.txt
l=$(rta_line /tmp/rta-sys.txt warning 'trace_clock\[rta-local\]')
tap_check "trace_clock=local on an instance tracing 2 CPUs is a warning ($l)" [ "${l##*: }" = local ]
grep -A2 'trace_clock\[rta-local\]' /tmp/rta-sys.txt | sed 's/^/# /'
echo 1 >"$I/tracing_cpumask"
rtaudit system >/tmp/rta-sys.txt
l=$(rta_line /tmp/rta-sys.txt info 'trace_clock\[rta-local\]')
tap_check "trace_clock=local on an instance tracing one CPU is only info ($l)" [ "${l##*: }" = local ]
echo 3 >"$I/tracing_cpumask"
echo mono >"$I/trace_clock"
rtaudit system >/tmp/rta-sys.txt
l=$(rta_line /tmp/rta-sys.txt info 'trace_clock\[rta-local\]')
tap_check "trace_clock=mono on the instance is fine ($l)" [ "${l##*: }" = mono ]
rtaudit clock --rounds 500 --trace-ms 200 >/tmp/rta-clock.txt
cp /tmp/rta-clock.txt "$RTLAB_OUT/clock.txt"
sed 's/^/# /' /tmp/rta-clock.txt | grep -E 'trace_clock|recommendation|skew|method'
l=$(rta_line /tmp/rta-clock.txt info recommendation)
tap_check "rtaudit clock: a trace clock recommended from the measured error ($l)" [ -n "$l" ]
rmdir "$I"
tap_done
