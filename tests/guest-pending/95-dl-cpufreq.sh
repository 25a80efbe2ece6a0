#!/bin/sh
# rtlab: kernel=rt-debug cpus=1 mem=512 timeout=300
# Frequency scaling with deadline bandwidth (GRUB-PA in 6.12's schedutil),
# issue 22 item 2, with the recording cpufreq driver
# kernel/modules/rtlab_cpufreq (8 steps of 250 MHz up to 2 GHz, every
# request logged) and tests/progs/dlfreq.c: deadline tasks that use almost
# none of their budget are admitted, block, come back and leave, and the
# frequency schedutil settles on in each phase is compared with 6.12's
# formula for the deadline bandwidth (see dlfreq.c; x86 in QEMU is not
# frequency invariant, so schedutil maps utilization relative to the
# current frequency).  One CPU, so that the tasks' bandwidth is that CPU's.
# Checks:
#   1  the driver registers and schedutil governs policy0, rate limit 0
#   2  per phase (idle, A 50/100 admitted, B 35/100 RECLAIM admitted, B
#      blocked, B back, A left, B left): last request == expected
#   3  negative control: under the performance governor the same run
#      fails (requests do not follow the bandwidth)
#   4  the module unloads
. /rtlab/lib.sh

F=${DLFREQ:-/usr/local/libexec/rtlab/dlfreq}
KO=/rtlab/modules/rtlab_cpufreq.ko	# kernel/modules/rtlab_cpufreq
P=/sys/devices/system/cpu/cpufreq/policy0
out=${RTLAB_OUT:-/tmp}

tap_diag "kernel $(uname -r) ($RTLAB_KERNEL), accel ${RTLAB_ACCEL:-?}, CPUs $(cat /sys/devices/system/cpu/online)"
if ! insmod $KO; then
	tap_fail "insmod rtlab_cpufreq"
	tap_done
fi
echo schedutil >$P/scaling_governor 2>/dev/null
rl=$P/schedutil/rate_limit_us
[ -f $rl ] || rl=/sys/devices/system/cpu/cpufreq/schedutil/rate_limit_us
echo 0 >$rl 2>/dev/null
drv=$(cat $P/scaling_driver 2>/dev/null) gov=$(cat $P/scaling_governor 2>/dev/null)
if [ "$drv" = rtlab_cpufreq ] && [ "$gov" = schedutil ] && [ "$(cat $rl 2>/dev/null)" = 0 ]; then
	tap_ok "policy0: driver $drv, governor $gov, rate_limit_us 0, steps $(tr '\n' ' ' </sys/kernel/debug/rtlab_cpufreq/steps)"
else
	tap_fail "policy0: driver ${drv:-?}, governor ${gov:-?}, rate_limit_us $(cat $rl 2>/dev/null)"
fi

"$F" >"$out/dlfreq.txt" 2>&1
rc=$?
tap_points dlfreq "$out/dlfreq.txt"
[ "$tap_npoints" -gt 0 ] || tap_fail "dlfreq gave no result, rc $rc"
cp /sys/kernel/debug/rtlab_cpufreq/log "$out/dlfreq-requests.txt"

echo performance >$P/scaling_governor
"$F" -p 0.5 >"$out/dlfreq-control.txt" 2>&1
rc=$?
if [ "$rc" = 1 ]; then
	tap_ok "negative control: under the performance governor dlfreq fails ($(grep -c '^not ok' "$out/dlfreq-control.txt") phases off)"
else
	tap_fail "negative control: under the performance governor dlfreq rc $rc (1 expected)"
fi
if rmmod rtlab_cpufreq; then
	tap_ok "rtlab_cpufreq unloaded"
else
	tap_fail "rmmod rtlab_cpufreq"
fi
tap_done
