#!/bin/sh
# rtlab: kernel=rt-debug cpus=1 mem=512 timeout=300
# Frequency scaling with deadline bandwidth (GRUB-PA in 6.12's schedutil),
# issue 22 item 2, with the recording cpufreq driver
# kernel/modules/rtlab_cpufreq (grants 8 steps of 250 MHz up to 2 GHz,
# logs every request with the frequency it was computed from) and
# tests/progs/dlfreq.c: deadline tasks that use almost none of their
# budget are admitted, block, come back and leave.  x86 in QEMU is not
# frequency invariant, so 6.12's schedutil asks (cur + cur/4) * util / 1024
# and the module, having no frequency table, sees that raw request: dlfreq
# reads util back from each request and compares it with cpu_bw_dl
# (running_bw * 1024 >> 20) of the tasks present.  One CPU, so that the
# tasks' bandwidth is that CPU's; the fair server's runtime is set to 0
# for the run (its 5% would come and go in running_bw with every fair
# task) and restored after.
# Checks:
#   1  the driver registers, switches fast (the module unhooks x86's TSC
#      transition notifier, which QEMU's TCG CPUs without invtsc have),
#      schedutil governs policy0, rate limit 0
#   2  per phase (idle, A 50/100 admitted, B 35/100 RECLAIM admitted, B
#      blocked, B back, A left, B left): a request at exactly cpu_bw_dl
#      (tolerance 0) and none below it after; B blocked: running_bw loses
#      B's share (GRUB's inactive-bandwidth tracking) and the request falls
#      to exactly A's level; zero phases: below the smallest deadline level
#   3  negative control: under the performance governor the same run
#      fails (requests do not follow the bandwidth)
#   4  the module unloads and the fair server gets its runtime back
. /rtlab/lib.sh

F=${DLFREQ:-/usr/local/libexec/rtlab/dlfreq}
KO=/rtlab/modules/rtlab_cpufreq.ko	# kernel/modules/rtlab_cpufreq
P=/sys/devices/system/cpu/cpufreq/policy0
out=${RTLAB_OUT:-/tmp}
FS=/sys/kernel/debug/sched/fair_server/cpu0/runtime
fs_runtime=$(cat $FS)

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
fast=$(cat /sys/kernel/debug/rtlab_cpufreq/fast_switch)
if [ "$drv" = rtlab_cpufreq ] && [ "$gov" = schedutil ] && [ "$(cat $rl 2>/dev/null)" = 0 ] && [ "$fast" = 1 ]; then
	tap_ok "policy0: driver $drv, fast switching, governor $gov, rate_limit_us 0, steps $(tr '\n' ' ' </sys/kernel/debug/rtlab_cpufreq/steps)"
else
	tap_fail "policy0: driver ${drv:-?}, fast switching ${fast:-?}, governor ${gov:-?}, rate_limit_us $(cat $rl 2>/dev/null)"
	dmesg | grep -i -A3 'fast frequency\|rtlab_cpufreq' | sed 's/^/# /'
fi
echo 0 >$FS

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
echo "$fs_runtime" >$FS
if rmmod rtlab_cpufreq && [ "$(cat $FS)" = "$fs_runtime" ]; then
	tap_ok "rtlab_cpufreq unloaded, fair server runtime $fs_runtime ns again"
else
	tap_fail "rmmod rtlab_cpufreq, fair server runtime $(cat $FS) ($fs_runtime before)"
fi
tap_done
