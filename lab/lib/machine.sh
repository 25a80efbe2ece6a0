# lab/lib/machine.sh: the one description of a lab machine, sourced by every
# lab command (run, shell, demo, reboot, bench).  It holds the facts the
# pipeline needs in one place:
#   - the kernel variants, read from kernel/configs/ (variants)
#     and the default variant of each role (default_kernel)
#   - the test header "# rtlab: key=value ...", parsed once per file with
#     shell builtins (machine_parse)
#   - the QEMU command line (machine_qemu) and the software TPM it may need
#   - the freshness of the guest image (image_refresh)
#
# Header keys (defaults in machine_reset):
#   kernel=V       kernel variant (a name from lab/rtlab variants)
#   cpus=N mem=MB  machine size
#   chipset=C      pc (i440fx, the default) or q35 (PCI Express: a test that
#                  needs a PCIe port or extended config space, with
#                  devices=pcie-root-port for a root port)
#   timeout=S      the test's time-out in the guest
#   nics=M,M       NIC models, one hub port each (none)
#   tpm=yes|no     a software TPM (swtpm) on tpm-tis
#   devices=D,D    extra QEMU devices by name only, one "-device D" each
#   qemu_trace=E,E QEMU trace events/patterns, logged to out/qemu-trace.log
#                  in the boot's directory, read in the guest through 9p at
#                  $RTLAB_QEMU_TRACE
#   cmdline=P      one extra kernel command-line parameter (may repeat,
#                  e.g. cmdline=isolcpus=1 cmdline=nohz_full=1)
#   accel=A        tcg|tcg1|kvm|icount (default ACCEL, else tcg): a benchmark
#                  whose figures are instruction counts says accel=icount;
#                  a test that patches kernel text and needs the 9p share
#                  while it runs says accel=tcg1
#                  and gets it under make bench; ACCEL, when set, still
#                  forces every boot (lab/cmd/run.sh, as KERNEL does)
#   expect=panic   the test panics the guest on purpose, in two phases
#                  (lab/cmd/run.sh): phase 1 (RTLAB_PHASE=1) ends in a
#                  kernel panic, which passes it (labcheck --expect-panic);
#                  the harness then boots again and runs the same test first
#                  with RTLAB_PHASE=2 and RTLAB_PREV=/rtlab/out/<test>.prev
#                  (phase 1's console.log and its out/ directory).  Not part
#                  of the machine key: a panic ends a boot anyway and the
#                  harness goes on in the next one, phase 2 first, so such a
#                  test shares the boot of its machine.  Not under icount,
#                  whose guest mounts the share only after its last test (a
#                  panic would lose phase 1's files and TAP).
# Tests whose machine keys are equal share a boot.

shopt -s extglob	# the header checks use extended patterns

lab_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
lab_build=${BUILD:-$lab_top/build}
lab_configs=$lab_top/kernel/configs

# --- kernel variants -------------------------------------------------------
# A variant is a fragment kernel/configs/<variant>.config beside base.config.
# A fragment whose first line is "# rtlab: build-only" is built (make
# build-only, make check) but never booted nor put in an initramfs.
_config_is_build_only() { local l; read -r l <"$1"; [ "$l" = "# rtlab: build-only" ]; }

# variants [--build-only|--all]: the bootable variants (or the build-only
# ones, or both), one a line, sorted
variants() {
	local f v want=${1:-boot}
	for f in "$lab_configs"/*.config; do
		v=${f##*/} v=${v%.config}
		[ "$v" = base ] && continue
		if _config_is_build_only "$f"; then
			case "$want" in --build-only|--all) echo "$v" ;; esac
		else
			case "$want" in boot|--all) echo "$v" ;; esac
		fi
	done | sort
}

# default_kernel ROLE: the variant a role boots unless told otherwise.
# Tests and self-tests run on the debug kernel (lockdep, KASAN catch what a
# test provokes); benchmarks, the shell and the demo on the plain rt kernel.
_default_kernel() {	# _default_kernel ROLE: into M_kernel, without a fork
	case "$1" in
	tests|selftest|stress) M_kernel=rt-debug ;;
	*) M_kernel=rt ;;
	esac
}
default_kernel() { local M_kernel; _default_kernel "$1"; echo "$M_kernel"; }

# --- the test header -------------------------------------------------------
machine_reset() {	# machine_reset ROLE: the defaults
	_default_kernel "$1"
	M_cpus=2 M_mem=512 M_timeout=120 M_chipset=pc
	M_nics=none M_tpm=no M_devices=none M_qtrace=none M_cmdline=
	M_accel=${ACCEL:-tcg} M_expect=none
	[ "$1" != shell ] || M_mem=1024	# room for what one tries by hand
}

# _machine_check FILE KEY VALUE PATTERN WHAT: fail unless VALUE matches
_machine_check() {
	# shellcheck disable=SC2254 # PATTERN is a case pattern on purpose
	case "$3" in
	$4) return 0 ;;
	esac
	echo "$1: $2=$3: $5" >&2
	return 1
}

# machine_set WHERE KEY VALUE: one header key into M_*; a bad key or value
# fails with "WHERE: key=value: why"
machine_set() {
	local f=$1 k=$2 v=$3
	case "$k" in
	kernel) _machine_check "$f" "$k" "$v" '[a-z0-9]*([a-z0-9-])' "not a variant name" || return 1; M_kernel=$v ;;
	cpus|mem|timeout)
		_machine_check "$f" "$k" "$v" '[1-9]*([0-9])' "takes a positive number" || return 1
		printf -v "M_$k" '%s' "$v" ;;
	nics) _machine_check "$f" "$k" "$v" '+([a-z0-9,_-])' "takes NIC model names, comma-separated" || return 1; M_nics=$v ;;
	tpm) _machine_check "$f" "$k" "$v" '@(yes|no)' "takes yes or no" || return 1; M_tpm=$v ;;
	chipset) _machine_check "$f" "$k" "$v" '@(pc|q35)' "takes pc or q35" || return 1; M_chipset=$v ;;
	devices) _machine_check "$f" "$k" "$v" '+([a-z0-9,_.-])' "takes device names only (a-z 0-9 _ . -, comma-separated)" || return 1; M_devices=$v ;;
	qemu_trace) _machine_check "$f" "$k" "$v" '+([a-z0-9,_*])' "takes trace event names or patterns (a-z 0-9 _ *, comma-separated)" || return 1; M_qtrace=$v ;;
	cmdline)
		_machine_check "$f" "$k" "$v" '+([A-Za-z0-9_.,:=/-])' "takes one kernel parameter (A-Z a-z 0-9 _ . , : = / -)" || return 1
		_machine_check "$f" "$k" "$v" '!(rtlab.*|console=*|panic=*|init=*|rdinit=*)' "may not override the harness's own parameters" || return 1
		M_cmdline+=${M_cmdline:+ }$v ;;
	accel) _machine_check "$f" "$k" "$v" '@(tcg|tcg1|kvm|icount)' "takes tcg, tcg1, kvm or icount" || return 1; M_accel=$v ;;
	expect) _machine_check "$f" "$k" "$v" panic "takes panic" || return 1; M_expect=$v ;;
	*) echo "$f: unknown header key '$k' (see lab/lib/machine.sh)" >&2; return 1 ;;
	esac
}

# machine_parse FILE ROLE: M_* from FILE's header over ROLE's defaults.
# Only the leading comment block is read, with builtins (no fork per key:
# forks are what a run spends its host time on).
machine_parse() {
	local f=$1 line= hdr= w words
	machine_reset "$2"
	while IFS= read -r line; do
		case "$line" in
		"# rtlab:"*) hdr=${line#"# rtlab:"}; break ;;
		"#"*) ;;
		*) break ;;
		esac
	done <"$f"
	read -ra words <<<"$hdr"
	for w in "${words[@]}"; do
		[ "${w%%=*}" != "$w" ] || { echo "$f: header word '$w' is not key=value" >&2; return 1; }
		machine_set "$f" "${w%%=*}" "${w#*=}" || return 1
	done
	machine_expect_ok "$f"
}

# machine_expect_ok WHERE: expect=panic needs the 9p share while the test
# runs (its TAP and files must survive the panic), which icount defers
machine_expect_ok() {
	[ "$M_expect" = none ] || [ "$M_accel" != icount ] && return 0
	echo "$1: expect=panic: not under accel=icount (the share is mounted only after the last test)" >&2
	return 1
}

# machine_key: one word naming the machine of M_* (tests with equal keys
# share a boot); also the name of the boot's directory
machine_key() {
	local k=$M_kernel-c$M_cpus-m$M_mem
	[ "$M_nics" = none ] || k+=$M_nics
	k+=-t$M_tpm
	[ "$M_devices" = none ] || k+=-$M_devices
	[ "$M_qtrace" = none ] || k+=-qtrace
	[ -z "$M_cmdline" ] || k+=-k$(cksum <<<"$M_cmdline" | cut -d' ' -f1)
	[ "$M_accel" = tcg ] || k+=-$M_accel
	[ "$M_chipset" = pc ] || k+=-$M_chipset
	k=${k//,/+}
	echo "${k//\*/x}"
}

# machine_export / machine_import WORD: M_* packed into one word and back
# (the runner keeps a list of machines in the order the tests name them)
machine_export() { printf '%s|' "$M_kernel" "$M_cpus" "$M_mem" "$M_nics" "$M_tpm" "$M_devices" "$M_qtrace" "${M_cmdline// /;}" "$M_accel" "$M_chipset"; }
machine_import() {
	IFS='|' read -r M_kernel M_cpus M_mem M_nics M_tpm M_devices M_qtrace M_cmdline M_accel M_chipset <<<"$1"
	M_cmdline=${M_cmdline//;/ }
}

# --- the software TPM ------------------------------------------------------
swtpm_start() {	# swtpm_start DIR: a TPM 2.0 on DIR/tpm/sock
	local d=$1
	command -v swtpm >/dev/null || { echo "lab: swtpm missing (make deps)" >&2; return 1; }
	mkdir -p "$d/tpm"
	swtpm socket --tpm2 --tpmstate dir="$d/tpm" --ctrl type=unixio,path="$d/tpm/sock" \
		--flags startup-clear --daemon --pid file="$d/tpm/pid" --log file="$d/tpm/log" || return 1
	for _ in $(seq 50); do [ -S "$d/tpm/sock" ] && return 0; sleep 0.1; done
	echo "lab: swtpm did not start" >&2
	return 1
}

swtpm_stop() {
	local d=$1
	[ -f "$d/tpm/pid" ] && kill "$(cat "$d/tpm/pid")" 2>/dev/null
	rm -f "$d/tpm/pid"
}

# --- the QEMU command line -------------------------------------------------
# ACCEL: tcg (default; multi-threaded TCG, guest time follows the host's
# clock, so every figure moves with the host's load), tcg1 (TCG with one
# host thread for all vCPUs, round-robin, guest time still the host's
# clock: live patching of kernel text, text_poke_bp()'s int3 and its
# removal, is cross-modifying code, which multi-threaded TCG does not keep
# coherent between vCPUs: "Oops: int3" at a patched site, in 2 of 9 boots
# of tests/guest/91-ftdump.sh and once in a clean-clone make check, against
# 0 in 25 single-threaded (icount) boots), kvm, or icount:
# instruction-counted TCG for benchmarks.  Under icount QEMU runs all vCPUs
# round-robin in one host thread and its virtual clock advances exactly
# 2^ICOUNT_SHIFT ns per guest instruction (sleep=off: idle time is skipped,
# not waited for; align=off: never slowed down to the host's clock), so
# time measured in the guest is an instruction count, the same on a quiet
# and a loaded host.
# Hazard: the count is of all vCPUs together.  While one vCPU runs its
# slice (up to the next timer event) the others stand still between two
# instructions, yet their clock moves on: with two busy vCPUs a task is
# charged the other vCPU's slices as its own CPU time, in steps of up to
# 4.1 ms between two back-to-back clock reads (tests/guest/94-dl-overrun.sh,
# which therefore runs on one vCPU).  Figures stay deterministic, but a
# per-task CPU time is that task's instructions only when one vCPU is busy.
# ICOUNT_SHIFT=0: one guest nanosecond is one instruction, so figures read
# as instruction counts, and a 1 G instruction/s guest is within a small
# factor of real hardware, so work relative to timer events (the 1 kHz
# tick, hrtimer periods, RT group periods and throttling) stays realistic.
# Its cost: the host executes ~90-200 M guest instructions per second, so
# guest time ran 5x (host load 4) to 11x (load 8.6) slower than wall time
# while the guest was busy (idle time costs nothing); the host-side limits
# scale by ICOUNT_WALL_FACTOR (machine_wall_limit).  Larger shifts make the
# guest clock faster but the CPU slower against its timers; figures of
# different shifts do not compare.
# The rest of what the guest could see differently between two boots is
# pinned: the RTC (a fixed date, driven by the virtual clock), the guest's
# random numbers (-seed: RDRAND and friends), address-space randomisation
# (nokaslr norandmaps).  What stays host-timed: the 9p share's replies
# (so the guest mounts it only after the tests: lab/image/init) and a
# console that blocks (stdio, VERBOSE=1).
# An interactive shell gets sleep=on: with sleep=off an idle guest races
# through its timer events and keeps a host CPU busy while it waits for keys.
readonly ICOUNT_SHIFT_DEFAULT=0
readonly ICOUNT_WALL_FACTOR=25	# host s per guest s: 11 seen at a host load of 8.6, x2
readonly ICOUNT_RTC_BASE=2026-01-01T00:00:00
readonly ICOUNT_SEED=1

# machine_wall_limit SECONDS: the host-side time-out for SECONDS of guest
# time (the test headers' time-outs and BOOT_TIMEOUT are guest time) on the
# machine M_* (its accel, by default ACCEL)
machine_wall_limit() {
	if [ "${M_accel:-${ACCEL:-tcg}}" = icount ]; then
		echo $(($1 * ICOUNT_WALL_FACTOR))
	else
		echo "$1"
	fi
}

# machine_qemu DIR CONSOLE APPEND: QEMU=(...) for the machine M_*, booting
# M_kernel with the lab's kernel command line plus APPEND (the rtlab.*
# words of the mode), DIR/out shared over 9p as the guest's /rtlab/out.
# CONSOLE: "file" (DIR/console.log), "tee" (that and stdout) or
# "interactive" (stdio with QEMU's Ctrl-a monitor, logged to DIR/console.log).
# The log is written into DIR/out, so the guest reads its own console as it
# grows at $RTLAB_CONSOLE (a test that checks what reached the console, e.g.
# an ftrace dump); DIR/console.log is a symlink to it.
# Starts swtpm when the machine has a TPM: call machine_stop DIR after QEMU.
machine_qemu() {
	local d=$1 console=$2 extra=$3 accel=${M_accel:-${ACCEL:-tcg}} i=0 nic dev
	local bz=$lab_build/out/$M_kernel/arch/x86/boot/bzImage
	local initrd=$lab_build/initramfs/$M_kernel.cpio
	[ -f "$bz" ] || { echo "lab: $bz missing (make kernel)" >&2; return 2; }
	[ -f "$initrd" ] || { echo "lab: $initrd missing (make initramfs)" >&2; return 2; }
	mkdir -p "$d/out"
	local log=$d/out/console.log
	ln -sfn out/console.log "$d/console.log"
	# pci=noacpi: IRQ routing from the BIOS table; evaluating the i440fx
	# _PRT method in AML takes tens of seconds under TCG and, on a loaded
	# host, hits ACPI's loop time-out, leaving virtio without an IRQ.
	# With it the BIOS's BARs conflict with the PNP0A03 window and are
	# reassigned from the whole address space: a 1 MB BAR (edu) landed on
	# the local APIC at 0xfee00000.  memmap= reserves that megabyte.
	# q35 keeps ACPI for PCI: its MCFG table is how the kernel finds the
	# extended (PCIe) config space, which a q35 test is there for.
	local append="console=ttyS0,115200 panic=-1 softlockup_panic=0"
	[ "$M_chipset" = q35 ] || append+=" pci=noacpi memmap=1M\$0xfee00000"
	local shift=${ICOUNT_SHIFT:-$ICOUNT_SHIFT_DEFAULT} sleep=off
	case "$accel" in
	tcg|tcg1|kvm) ;;
	icount)
		[[ "$shift" == [0-9]?([0-9]) ]] && [ "$shift" -le 10 ] ||
			{ echo "lab: ICOUNT_SHIFT=$shift: takes 0 to 10" >&2; return 2; }
		[ "$console" != interactive ] || sleep=on ;;
	*) echo "lab: ACCEL=$accel: takes tcg, tcg1, kvm or icount" >&2; return 2 ;;
	esac
	append+=" rtlab.kernel=$M_kernel rtlab.accel=$accel $extra"
	[ "$accel" = kvm ] || append+=" tsc=reliable"
	[ "$accel" != icount ] || append+=" nokaslr norandmaps rtlab.env.RTLAB_ICOUNT_SHIFT=$shift"
	append+=" rtlab.env.RTLAB_CONSOLE=/rtlab/out/console.log"
	[ "$M_qtrace" = none ] || append+=" rtlab.env.RTLAB_QEMU_TRACE=/rtlab/out/qemu-trace.log"
	[ -z "$M_cmdline" ] || append+=" $M_cmdline"
	# QEMU_GDB=PORT: QEMU's gdbstub on 127.0.0.1:PORT, to read the vCPUs of
	# a guest that hangs without a word on its console (gdb vmlinux, then
	# "target remote :PORT", "info threads", "info symbol $pc"); nokaslr so
	# that vmlinux's addresses are the running kernel's.
	if [ -n "${QEMU_GDB:-}" ]; then
		[[ "$QEMU_GDB" == [1-9]+([0-9]) ]] || { echo "lab: QEMU_GDB=$QEMU_GDB: takes a TCP port" >&2; return 2; }
		append+=" nokaslr"
	fi
	QEMU=("$(qemu_system)" -machine "${M_chipset:-pc}" -m "$M_mem" -smp "$M_cpus" -no-reboot
		-display none -kernel "$bz" -initrd "$initrd" -append "$append"
		-virtfs "local,path=$d/out,mount_tag=rtlabout,security_model=none,id=rtlabout"
		-nic none)
	[ -z "${QEMU_GDB:-}" ] || QEMU+=(-gdb "tcp:127.0.0.1:$QEMU_GDB")
	case "$accel" in
	kvm) QEMU+=(-accel kvm -cpu host) ;;
	tcg) QEMU+=(-accel tcg,thread=multi -cpu max) ;;
	tcg1) QEMU+=(-accel tcg,thread=single -cpu max) ;;
	icount) QEMU+=(-accel tcg,thread=single -cpu max -icount "shift=$shift,sleep=$sleep,align=off"
		-rtc "base=$ICOUNT_RTC_BASE,clock=vm" -seed "$ICOUNT_SEED") ;;
	esac
	if [ "$M_nics" != none ]; then
		for nic in ${M_nics//,/ }; do
			QEMU+=(-netdev "hubport,id=hp$i,hubid=0" -device "$nic,netdev=hp$i,mac=52:54:00:12:34:$((10 + i))")
			i=$((i + 1))
		done
	fi
	if [ "$M_devices" != none ]; then
		for dev in ${M_devices//,/ }; do
			QEMU+=(-device "$dev")
		done
	fi
	if [ "$M_tpm" = yes ]; then
		swtpm_start "$d" || return 2
		QEMU+=(-chardev "socket,id=chrtpm,path=$d/tpm/sock" -tpmdev emulator,id=tpm0,chardev=chrtpm
			-device tpm-tis,tpmdev=tpm0)
	fi
	if [ "$M_qtrace" != none ]; then
		tr ',' '\n' <<<"$M_qtrace" >"$d/trace-events"
		QEMU+=(-trace "events=$d/trace-events,file=$d/out/qemu-trace.log")
	fi
	case "$console" in
	file) QEMU+=(-monitor none -serial "file:$log") ;;
	tee) QEMU+=(-monitor none -chardev "stdio,id=con,logfile=$log,signal=off" -serial chardev:con) ;;
	interactive) QEMU+=(-chardev "stdio,id=con,mux=on,logfile=$log,signal=off"
		-serial chardev:con -mon chardev=con) ;;
	*) echo "lab: unknown console '$console'" >&2; return 2 ;;
	esac
	printf '%q ' "${QEMU[@]}" >"$d/qemu.cmd"
}

# qemu_system: the QEMU binary (QEMU_SYSTEM, default qemu-system-x86_64:
# the one make deps installs, from bookworm-backports; lab/README.md's "The
# emulator" says why); qemu_version: "QEMU x.y.z" of it
qemu_system() { echo "${QEMU_SYSTEM:-qemu-system-x86_64}"; }
qemu_version() { "$(qemu_system)" --version 2>/dev/null | sed -n '1s/.*version \([^ ]*\).*/QEMU \1/p'; }

machine_stop() { [ "$M_tpm" != yes ] || swtpm_stop "$1"; }

# --- the guest image -------------------------------------------------------
# image_refresh: rebuild the guest-files layer of the initramfs (tests,
# benchmarks, init, lib.sh) when one of them is newer than the image, so
# that an edited guest test runs without "make initramfs".
image_refresh() {
	local layer=$lab_build/initramfs/guest.cpio newer
	[ -f "$lab_build/initramfs/common.cpio" ] || return 0	# no image yet: machine_qemu says so
	if [ -f "$layer" ]; then
		newer=$(find $("$lab_top/lab/image/mkinitramfs.sh" --guest-sources) -newer "$layer" -print -quit 2>/dev/null)
		[ -n "$newer" ] || return 0
	fi
	flock "$lab_build/.stage.lock" "$lab_top/lab/image/mkinitramfs.sh" --guest >&2
}
