#!/bin/bash
# make shell: boot the patched kernel with an interactive shell on the
# console, the project's tools on PATH.  KERNEL=rt|rt-debug (default rt),
# CPUS, MEM, NICS (e.g. e1000e,e1000e), TPM=yes, ACCEL=tcg|kvm.
# Leave with "exit" (powers off) or Ctrl-a x.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
kernel=${KERNEL:-rt} accel=${ACCEL:-tcg}
d=$build/run/shell
mkdir -p "$d/out"
q=(qemu-system-x86_64 -machine pc -m "${MEM:-1024}" -smp "${CPUS:-2}" -no-reboot -nographic
	-kernel "$build/out/$kernel/arch/x86/boot/bzImage" -initrd "$build/initramfs/$kernel.cpio"
	-append "console=ttyS0,115200 pci=noacpi rtlab.mode=shell rtlab.kernel=$kernel rtlab.accel=$accel"
	-virtfs "local,path=$d/out,mount_tag=rtlabout,security_model=none,id=rtlabout" -nic none)
if [ "$accel" = kvm ]; then q+=(-accel kvm -cpu host); else q+=(-accel tcg,thread=multi -cpu max); fi
i=0
for nic in $(echo "${NICS:-}" | tr ',' ' '); do
	q+=(-netdev "hubport,id=hp$i,hubid=0" -device "$nic,netdev=hp$i,mac=52:54:00:12:34:$((10 + i))")
	i=$((i + 1))
done
echo "shell: $kernel kernel under $accel; files written to /rtlab/out appear in $d/out"
exec "${q[@]}"
