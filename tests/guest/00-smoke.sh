#!/bin/sh
# rtlab: kernel=rt-debug cpus=2 timeout=90
# Smoke test: the booted kernel is the PREEMPT_RT kernel the lab asked for,
# its configuration is what kernel/configs says (the summit's advice: check
# the config after every upgrade), interrupts are threaded, the clock source
# is a trusted one, and cyclictest runs and reports.
. /rtlab/lib.sh

tap_check "kernel is 6.12.y-rtlab ($(uname -r))" sh -c 'uname -r | grep -q "^6\.12\.[0-9]*-rtlab"'
tap_check "uname -v says PREEMPT_RT" sh -c 'uname -v | grep -q PREEMPT_RT'
tap_check "CONFIG_PREEMPT_RT=y in /proc/config.gz" sh -c 'zcat /proc/config.gz | grep -qx CONFIG_PREEMPT_RT=y'

# Every option of the fragments is in the running kernel's config.
missing=0
zcat /proc/config.gz >/tmp/running.config
# an A/B variant of kernel/scripts/build-without.sh (rt-no0005) or a cut
# of the series by build-upto.sh (rt-upto0007) uses its base variant's
# fragment
frag_variant=${RTLAB_KERNEL%%-no[0-9]*}
frag_variant=${frag_variant%%-upto[0-9]*}
for frag in /rtlab/configs/base.config "/rtlab/configs/$frag_variant.config"; do
	[ -f "$frag" ] || { tap_diag "no $frag"; missing=$((missing + 1)); continue; }
	for line in $(sed 's/[[:space:]]*#.*//' "$frag" | grep '^CONFIG_'); do
		case "$line" in
		*=n) grep -q "^${line%=n}=" /tmp/running.config && { tap_diag "set: $line"; missing=$((missing + 1)); } ;;
		*) grep -qxF "$line" /tmp/running.config || { tap_diag "not in running config: $line"; missing=$((missing + 1)); } ;;
		esac
	done
done
if [ "$missing" = 0 ]; then tap_ok "running config has every option of base + $frag_variant"; else tap_fail "running config differs from kernel/configs in $missing options"; fi

cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
tap_diag "clock sources: $(cat /sys/devices/system/clocksource/clocksource0/available_clocksource), current: $cs"
case "$RTLAB_ACCEL:$cs" in
# icount: the test runs 0.77 s of guest time after boot, before the TSC's
# refined calibration (1 s after boot) replaces tsc-early by tsc; there the
# TSC is QEMU's instruction counter itself
kvm:kvm-clock|tcg:tsc|tcg:hpet|icount:tsc|icount:tsc-early) tap_ok "clock source $cs is a trusted one for $RTLAB_ACCEL" ;;
*) tap_fail "clock source $cs under $RTLAB_ACCEL (expected kvm-clock under KVM, tsc or hpet under TCG, tsc(-early) under icount)" ;;
esac

nthreads=$(cat /proc/[0-9]*/comm 2>/dev/null | grep -c '^irq/')
tap_diag "irq threads: $(cat /proc/[0-9]*/comm 2>/dev/null | grep '^irq/' | tr '\n' ' ')"
tap_check "interrupts are threaded ($nthreads irq/ threads)" test "$nthreads" -gt 0
tap_check "ksoftirqd threads exist (softirqs, hrtimer soft expiry on RT)" sh -c 'cat /proc/[0-9]*/comm | grep -q "^ksoftirqd/"'

pid=$(grep -l '^irq/' /proc/[0-9]*/comm 2>/dev/null | head -n 1 | cut -d/ -f3)
if [ -n "$pid" ]; then
	pol=$(chrt -p "$pid" 2>/dev/null | tr '\n' ' ')
	tap_diag "$(cat /proc/$pid/comm): $pol"
	case "$pol" in *SCHED_FIFO*priority:\ 50*) tap_ok "irq thread default is SCHED_FIFO 50" ;; *) tap_fail "irq thread policy: $pol" ;; esac
else
	tap_fail "irq thread default is SCHED_FIFO 50 (no irq thread)"
fi

out=$(cyclictest -m -q -p 99 -t 1 -i 1000 -l 500 2>&1)
echo "$out" | sed 's/^/# /'
max=$(echo "$out" | sed -n 's/.*Max: *\([0-9]*\).*/\1/p' | head -n 1)
if [ -n "$max" ] && echo "$out" | grep -q 'C:    500'; then
	tap_ok "cyclictest ran 500 loops at FIFO 99 (max ${max} us under $RTLAB_ACCEL)"
else
	tap_fail "cyclictest did not complete 500 loops"
fi
tap_done
