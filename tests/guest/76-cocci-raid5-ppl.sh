#!/bin/sh
# rtlab: kernel=rt-debug cpus=2 mem=512 timeout=600
# Issue 18 item 4: the run-time check of a second cocci/ finding, in x86
# code QEMU can drive.  cocci/results/report-6.12.118.txt reports
#   drivers/md/raid5-ppl.c:558 ppl_io_unit_finished &log->io_list_lock
#       local_irq_save() region from line 556
#   drivers/md/raid5-ppl.c:564 ppl_io_unit_finished &ppl_conf->no_mem_stripes_lock
#       local_irq_save() region from line 556
# i.e. when a write of the partial parity log (PPL) of an md RAID 5 array
# completes, two spinlock_t locks (sleeping locks on PREEMPT_RT) are taken
# with interrupts disabled by hand: "sleeping function called from invalid
# context" on PREEMPT_RT with DEBUG_ATOMIC_SLEEP.  The lab's patch 0013
# takes each lock with spin_lock_irqsave() instead.
#
# Checks, on a RAID 5 of three 32 MB loop devices with
# --consistency-policy=ppl (mdadm):
#  - the array runs with the PPL policy
#  - 8 MiB of random data written through it with O_DIRECT (every stripe
#    write logs its partial parity first) read back identical
#  - the kernel log stays free of splats meanwhile
#  - the array stops and the loop devices go away
# Without patch 0013 the splat check fails (that is how the finding was
# confirmed, see kernel/patches/0013-*.patch).
. /rtlab/lib.sh
. /rtlab/lib/proc.sh
MD=/dev/md0
N=3
LOOPS=

if ! grep -q raid5 /proc/mdstat 2>/dev/null || ! command -v mdadm >/dev/null; then
	tap_fail "md RAID 5 in the kernel ($(head -n 1 /proc/mdstat 2>/dev/null || echo 'no /proc/mdstat')) and mdadm in the guest ($(command -v mdadm || echo missing))"
	tap_done
fi

cleanup() {
	mdadm --stop $MD >/dev/null 2>&1
	for l in $LOOPS; do losetup -d "$l" 2>/dev/null; done
	rm -f /tmp/ppl[0-9].img
}
trap cleanup EXIT

i=0
while [ $i -lt $N ]; do
	dd if=/dev/zero of=/tmp/ppl$i.img bs=1M count=32 2>/dev/null
	l=$(losetup -f) && losetup "$l" /tmp/ppl$i.img || { tap_fail "loop device $i"; tap_done; }
	LOOPS="$LOOPS $l"
	i=$((i + 1))
done

base=$(dmesg | wc -l)
# shellcheck disable=SC2086 # the loop devices, one word each
if mdadm --create $MD --run --quiet --level=5 --raid-devices=$N \
	--consistency-policy=ppl --assume-clean $LOOPS >/tmp/mdadm.log 2>&1 &&
	[ "$(cat /sys/block/md0/md/consistency_policy 2>/dev/null)" = ppl ]; then
	tap_ok "RAID 5 of$LOOPS runs with consistency policy ppl"
else
	sed 's/^/# mdadm: /' /tmp/mdadm.log
	tap_fail "RAID 5 of$LOOPS with consistency policy ppl (policy: $(cat /sys/block/md0/md/consistency_policy 2>/dev/null || echo none))"
	tap_done
fi

dd if=/dev/urandom of=/tmp/data bs=64k count=128 2>/dev/null
dd if=/tmp/data of=$MD bs=64k count=128 oflag=direct 2>/dev/null
dd if=$MD of=/tmp/back bs=64k count=128 iflag=direct 2>/dev/null
tap_check "8 MiB written through the array with O_DIRECT read back identical" cmp -s /tmp/data /tmp/back
rm -f /tmp/data /tmp/back

no_splats "$base" "no splat in the kernel log while the PPL was written (ppl_io_unit_finished)" \
	"writing through the PPL splats"

mdadm --stop $MD >/dev/null 2>&1
for l in $LOOPS; do losetup -d "$l" 2>/dev/null; done
tap_check "array stopped and loop devices released" sh -c "! grep -q '^md0 ' /proc/mdstat && ! losetup -a | grep -q ppl"
LOOPS=
tap_done
