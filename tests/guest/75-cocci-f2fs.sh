#!/bin/sh
# rtlab: kernel=rt-debug cpus=2 mem=512 timeout=300
# Issue 9: the run-time check of a cocci/ finding in code the lab kernel
# builds.  cocci/results/report-6.12.118.txt reports
#   fs/f2fs/debug.c:378 stat_show &sbi->cprc_info.stat_lock
#       via update_general_status() raw_spin_lock_irqsave(&f2fs_stat_lock)
# i.e. reading /sys/kernel/debug/f2fs/status takes a spinlock_t (a sleeping
# lock on PREEMPT_RT) with the raw f2fs_stat_lock held and interrupts off.
# On 6.12.118 that is lockdep's "BUG: Invalid wait context"; the lab's patch
# 0011 makes f2fs_stat_lock a spinlock_t.
#
# Checks, on an f2fs made on a loop device and mounted:
#  - the status file shows the partition while files are written and
#    checkpoints taken (the counters the sleeping lock guards move)
#  - reading it, 40 times from two CPUs while the writer runs, leaves no
#    "Invalid wait context", "sleeping function called from invalid
#    context" or other splat in the kernel log
#  - the file system unmounts and the loop device goes away
# Without patch 0011 the splat check fails (that is how the finding was
# confirmed, see kernel/patches/0011-*.patch).
. /rtlab/lib.sh
. /rtlab/lib/proc.sh
img=/tmp/f2fs.img
mnt=/tmp/f2fs
st=/sys/kernel/debug/f2fs/status

if ! grep -qw f2fs /proc/filesystems || ! command -v mkfs.f2fs >/dev/null; then
	tap_fail "f2fs in the kernel ($(grep -cw f2fs /proc/filesystems) in /proc/filesystems) and mkfs.f2fs in the guest ($(command -v mkfs.f2fs || echo missing))"
	tap_done
fi
grep -q " /sys/kernel/debug debugfs " /proc/mounts || mount -t debugfs none /sys/kernel/debug


dd if=/dev/zero of=$img bs=1M count=64 2>/dev/null
loop=$(losetup -f)
if ! losetup "$loop" $img || ! mkfs.f2fs -q -f "$loop" >/tmp/mkfs.log 2>&1 ||
	! mkdir -p $mnt || ! mount -t f2fs "$loop" $mnt; then
	sed 's/^/# mkfs: /' /tmp/mkfs.log
	tap_fail "64 MB f2fs on $loop made and mounted"
	losetup -d "$loop" 2>/dev/null
	tap_done
fi
tap_ok "64 MB f2fs on $loop made and mounted"

base=$(dmesg | wc -l)
if grep -q 'partition info' $st; then
	tap_ok "$st shows the mounted partition: $(grep -m1 'partition info' $st | tr -s ' =[]' ' ')"
else
	tap_fail "$st shows the mounted partition"
fi

# writer: files, renames, deletes and syncs (each sync takes a checkpoint)
(
	i=0
	while [ $i -lt 60 ]; do
		dd if=/dev/urandom of=$mnt/f$i bs=16k count=8 2>/dev/null
		[ $((i % 3)) = 0 ] && mv $mnt/f$i $mnt/g$i
		[ $((i % 5)) = 4 ] && rm -f $mnt/f$((i - 1)) $mnt/g$((i - 1))
		sync
		i=$((i + 1))
	done
) &
wpid=$!
cp0=$(sed -n 's/.*CP calls: *\([0-9]*\).*/\1/p' $st | head -n 1)
reads=0 bad=0
for cpu in 0 1; do
	taskset -c $cpu sh -c "n=0; while [ \$n -lt 20 ]; do cat $st >/dev/null || exit 1; n=\$((n + 1)); done" &
	eval "r$cpu=\$!"
done
wait "$r0" || bad=$((bad + 1))
wait "$r1" || bad=$((bad + 1))
wait $wpid
sync
cp1=$(sed -n 's/.*CP calls: *\([0-9]*\).*/\1/p' $st | head -n 1)
reads=$((40 - 20 * bad))
tap_diag "checkpoints (CP calls) $cp0 -> $cp1 while the status was read $reads times"
if [ "$bad" = 0 ] && [ -n "$cp1" ] && [ "${cp1:-0}" -gt "${cp0:-0}" ]; then
	tap_ok "40 reads of $st from CPUs 0 and 1 while 60 writes+syncs took $((cp1 - cp0)) checkpoints"
else
	tap_fail "40 reads of $st from CPUs 0 and 1 while the writer ran (failed readers $bad, CP calls $cp0 -> $cp1)"
fi

no_splats "$base" "no splat in the kernel log after reading $st (f2fs_stat_lock / cprc_info.stat_lock)" \
	"reading $st splats"

umount $mnt && losetup -d "$loop"
tap_check "f2fs unmounted and $loop released" sh -c "! grep -q ' $mnt ' /proc/mounts && ! losetup $loop >/dev/null 2>&1"
rm -f $img
tap_done
