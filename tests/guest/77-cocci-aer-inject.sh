#!/bin/sh
# rtlab: kernel=rt-debug cpus=2 mem=512 chipset=q35 devices=pcie-root-port timeout=300
# Issue 18 item 4: the run-time check of a cocci/ finding of a family the
# second pass added (pci_ops callbacks, which the PCI core calls under its
# raw pci_lock with interrupts off).  cocci/results/report-6.12.118.txt has
#   drivers/pci/pcie/aer_inject.c:226 aer_inj_read_config &inject_lock
#       pci_ops .read (raw pci_lock, irqs off)
#   drivers/pci/pcie/aer_inject.c:258 aer_inj_write_config &inject_lock
#       pci_ops .write (raw pci_lock, irqs off)
# Once an error has been injected, aer_inject has put its own pci_ops on the
# bus, and every config access to that bus takes inject_lock, a spinlock_t
# (a sleeping lock on PREEMPT_RT).  Config reads and writes from user space
# (sysfs "config", lspci, setpci: pci_user_read_config_*()) call the
# accessors with the raw pci_lock held and interrupts off on every
# architecture; on arm64 and riscv so does every access from the kernel (x86
# selects PCI_LOCKLESS_CONFIG).  On the rt-debug kernel that is "BUG:
# Invalid wait context" from lockdep and "sleeping function called from
# invalid context".  The lab's patch 0016 makes inject_lock a raw spinlock
# and frees nothing while holding it.
#
# The machine is a q35 with one PCIe root port (QEMU's pcie-root-port has
# the AER capability; AER needs PCI_MSI, which rt-debug has).  The error
# is injected into the root port itself,
# the way the aer-inject tool does it: a struct aer_error_inj written to
# /dev/aer_inject (the module aer_inject, built for rt-debug).  Checks:
#  - the root port has AER and the AER service is bound to it
#  - N correctable errors (Receiver Error) injected one at a time are each
#    reported by the AER driver: the root port's
#    aer_rootport_total_err_cor counts N, its aer_dev_correctable RxErr N
#    (the driver read the simulated status registers through the
#    injector's config accessors)
#  - the root port's whole config space read through sysfs (each dword
#    through the injector's accessors, under the raw pci_lock) gives the
#    device's vendor and device ids
#  - the injector unloads (rmmod: its exit path puts the bus's own ops back
#    and frees what it injected), and config reads after it still give
#    the device
#  - the kernel log stays free of splats throughout
# Without patch 0016 the splat check fails (that is how the finding was
# confirmed, see kernel/patches/0016-*.patch).
. /rtlab/lib.sh
. /rtlab/lib/proc.sh
N=5
PCI=/sys/bus/pci/devices

tap_plan 7

# the root port: the PCI function with the root port's AER counters
rp=
for d in "$PCI"/*; do
	[ -e "$d/aer_rootport_total_err_cor" ] && { rp=${d##*/}; break; }
done
grep -q '^aer_inject ' /proc/modules || insmod /rtlab/modules/aer_inject.ko
if [ -z "$rp" ] || [ ! -c /dev/aer_inject ]; then
	tap_fail "a root port with AER ($rp) and /dev/aer_inject ($(ls -l /dev/aer_inject 2>&1))"
	tap_done
fi
aer_bound() { ls /sys/bus/pci_express/devices 2>/dev/null | grep -q "^$rp:pcie.*02$"; }
if aer_bound || dmesg | grep -q "pcieport $rp: AER: enabled"; then
	tap_ok "root port $rp has AER and the AER service is bound"
else
	dmesg | grep -i "aer\|pcieport" | tail -n 5 | sed 's/^/# /'
	tap_fail "the AER service is not bound to root port $rp"
	tap_done
fi

# aer_error_inj: u8 bus, dev, fn, (pad); u32 uncor_status, cor_status,
# header_log0..3, domain; little-endian.  Receiver Error is cor bit 0.
dom=$((0x${rp%%:*})) rest=${rp#*:}
bus=$((0x${rest%%:*})) rest=${rest#*:}
dev=$((0x${rest%%.*})) fn=${rest#*.}
le32() { printf '\\%03o\\%03o\\%03o\\%03o' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }
# shellcheck disable=SC2059 # the format is the escaped bytes
printf "$(printf '\\%03o\\%03o\\%03o\\000' "$bus" "$dev" "$fn")$(le32 0)$(le32 1)$(le32 0)$(le32 0)$(le32 0)$(le32 0)$(le32 "$dom")" >/tmp/einj
tap_diag "root port $rp: domain $dom bus $bus dev $dev fn $fn, $(wc -c </tmp/einj)-byte record"

cor0=$(cat "$PCI/$rp/aer_rootport_total_err_cor")
rx() { awk '$1 == "RxErr" { print $2 }' "$PCI/$rp/aer_dev_correctable"; }
rx0=$(rx)
base=$(dmesg | wc -l)
i=0 werr=
while [ $i -lt $N ]; do
	# one write of the whole record, as the aer-inject tool does
	werr=$(dd if=/tmp/einj of=/dev/aer_inject bs=32 count=1 2>&1 >/dev/null) || break
	want=$((cor0 + i + 1)) t=0
	while [ "$(cat "$PCI/$rp/aer_rootport_total_err_cor")" -lt $want ] && [ $t -lt 100 ]; do
		sleep 0.1; t=$((t + 1))
	done
	i=$((i + 1))
done
if [ $i -eq $N ]; then
	tap_ok "$N correctable errors injected into $rp through /dev/aer_inject"
else
	tap_fail "injection $((i + 1)) of $N failed: $werr"
fi
cor=$(( $(cat "$PCI/$rp/aer_rootport_total_err_cor") - cor0 ))
tap_check "the AER driver counted $cor of $N injected correctable errors at the root port" [ "$cor" -eq $N ]
rxn=$(( $(rx) - rx0 ))
tap_check "aer_dev_correctable counts $rxn of $N Receiver Errors (read through the injector's accessors)" [ "$rxn" -eq $N ]

# the whole config space, 4 KiB (MCFG), as lspci reads it with four -x: read_cfg
# sets $cfg (bytes) and $ids, and succeeds if they are the device's
want=" $(sed 's/0x//' "$PCI/$rp/vendor") $(sed 's/0x//' "$PCI/$rp/device")"
read_cfg() {
	cfg=$(wc -c <"$PCI/$rp/config")
	ids=$(od -An -tx2 -N4 "$PCI/$rp/config" | tr -s ' ')
	[ "$ids$cfg" = "${want}4096" ]
}
read_cfg; ok=$?
tap_check "config space read through the injector's accessors: $cfg bytes, ids$ids (sysfs:$want)" [ $ok -eq 0 ]

# unloading puts the bus's own ops back and frees the injected errors
rmmod aer_inject && [ ! -e /dev/aer_inject ]; gone=$?
read_cfg; ok=$?
tap_check "aer_inject unloads; config reads after it: $cfg bytes, ids$ids" [ $gone -eq 0 ] && [ $ok -eq 0 ]

no_splats "$base" "no splat in the kernel log while errors were injected and handled (aer_inj_read_config/aer_inj_write_config)" \
	"injecting AER errors splats"
tap_done
