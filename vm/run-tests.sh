#!/bin/bash
# Run guest tests (or benchmarks) in QEMU and collect TAP on the host.
#
#   vm/run-tests.sh [--suite NAME] [--dir tests|bench|selftest] [--kernel V]
#                   [--verbose] [--env NAME=VALUE]... TESTFILE...
#
# Each test file may carry a header line
#   # rtlab: kernel=rt-debug cpus=2 mem=512 timeout=120 nics=e1000e,e1000 tpm=no
# and optionally devices=edu,pci-testdev (extra QEMU devices given by name
# only, no options: one "-device NAME" each; default none) and
# qemu_trace=EVENT[,EVENT...] (QEMU trace events, patterns as in
# "qemu-system-x86_64 -trace help", enabled for the whole boot and logged
# to out/qemu-trace.log in the boot's directory, which the guest reads
# through the 9p share at $RTLAB_QEMU_TRACE; default none).
# Tests that ask for the same machine share a boot, in the order given.
# When a test hangs or kills the guest, the harness reports it failed (with
# the console tail) and boots again for the tests after it.  The TAP of
# every boot is written to build/run/<suite>/<machine>-<n>/result.tap and
# printed; the exit status is 1 if anything failed.
#
# Environment: ACCEL=tcg|kvm (default tcg), BOOT_TIMEOUT (s, default 60),
# KERNEL (force a variant), VERBOSE=1 (console on stdout as well).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
labcheck=$build/bin/labcheck
suite=guest dir=tests verbose=${VERBOSE:-0} force_kernel=${KERNEL:-} envs=""
accel=${ACCEL:-tcg}
boot_timeout=${BOOT_TIMEOUT:-60}

while [ $# -gt 0 ]; do
	case "$1" in
	--suite) suite=$2; shift 2 ;;
	--dir) dir=$2; shift 2 ;;
	--kernel) force_kernel=$2; shift 2 ;;
	--verbose) verbose=1; shift ;;
	--env) envs+=" rtlab.env.$2"; shift 2 ;;
	--) shift; break ;;
	-*) echo "run-tests: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "run-tests: no test given" >&2; exit 2; }
[ -x "$labcheck" ] || { echo "run-tests: $labcheck not built (make tools)" >&2; exit 2; }

# header VALUE lookup: hdr FILE KEY DEFAULT
hdr() {
	local v
	v=$(grep -m1 '^# rtlab:' "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p")
	echo "${v:-$3}"
}

machine_of() {
	local f=$1 k
	k=${force_kernel:-$(hdr "$f" kernel "$([ "$dir" = bench ] && echo rt || echo rt-debug)")}
	echo "$k c$(hdr "$f" cpus 2) m$(hdr "$f" mem 512) n$(hdr "$f" nics none) t$(hdr "$f" tpm no) d$(hdr "$f" devices none) q$(hdr "$f" qemu_trace none)"
}

# Group the tests by machine, keeping the order of first appearance.
declare -A group_tests
order=()
for f in "$@"; do
	[ -f "$f" ] || { echo "run-tests: $f: no such test" >&2; exit 2; }
	case "$(hdr "$f" devices none)" in
	*[!a-z0-9,_.-]*) echo "run-tests: $f: devices= takes device names only (a-z 0-9 _ . -, comma-separated)" >&2; exit 2 ;;
	esac
	case "$(hdr "$f" qemu_trace none)" in
	*[!a-z0-9,_*]*) echo "run-tests: $f: qemu_trace= takes trace event names or patterns (a-z 0-9 _ *, comma-separated)" >&2; exit 2 ;;
	esac
	m=$(machine_of "$f")
	[ -n "${group_tests[$m]+x}" ] || order+=("$m")
	group_tests[$m]="${group_tests[$m]:-} $f"
done

rundir=$build/run/$suite
rm -rf "$rundir"
mkdir -p "$rundir"
overall=0

start_swtpm() {
	local d=$1
	command -v swtpm >/dev/null || { echo "run-tests: swtpm missing (make deps)" >&2; return 1; }
	mkdir -p "$d/tpm"
	swtpm socket --tpm2 --tpmstate dir="$d/tpm" --ctrl type=unixio,path="$d/tpm/sock" \
		--flags startup-clear --daemon --pid file="$d/tpm/pid" --log file="$d/tpm/log" || return 1
	for _ in $(seq 50); do [ -S "$d/tpm/sock" ] && return 0; sleep 0.1; done
	echo "run-tests: swtpm did not start" >&2
	return 1
}

stop_swtpm() {
	local d=$1
	[ -f "$d/tpm/pid" ] && kill "$(cat "$d/tpm/pid")" 2>/dev/null
	rm -f "$d/tpm/pid"
}

# boot DIR KERNEL CPUS MEM NICS TPM DEVICES QEMU_TRACE TESTS...: one QEMU run of the given tests
boot() {
	local d=$1 kernel=$2 cpus=$3 mem=$4 nics=$5 tpm=$6 devices=$7 qtrace=$8; shift 8
	local names=() timeouts=() total=0 f t
	for f in "$@"; do
		names+=("$(basename "$f")")
		t=$(hdr "$f" timeout 120)
		timeouts+=("$t")
		total=$((total + t))
	done
	local bz=$build/out/$kernel/arch/x86/boot/bzImage
	local initrd=$build/initramfs/$kernel.cpio
	[ -f "$bz" ] || { echo "run-tests: $bz missing (make kernel)" >&2; return 2; }
	[ -f "$initrd" ] || { echo "run-tests: $initrd missing (make initramfs)" >&2; return 2; }
	mkdir -p "$d/out"
	# The guest reads its own console log through the share (one file,
	# two names; QEMU truncates it in place): tests/guest/91-ftdump.sh
	: >"$d/console.log" && ln -f "$d/console.log" "$d/out/console.log"
	local run=$(IFS=,; echo "${names[*]}") tos=$(IFS=,; echo "${timeouts[*]}")
	# pci=noacpi: IRQ routing from the BIOS table; evaluating the i440fx
	# _PRT method in AML takes tens of seconds under TCG and, on a loaded
	# host, hits ACPI's loop time-out, leaving virtio without an IRQ.
	# With it the BIOS's BARs conflict with the PNP0A03 window and are
	# reassigned from the whole address space: a 1 MB BAR (edu) landed on
	# the local APIC at 0xfee00000.  memmap= reserves that megabyte.
	local append="console=ttyS0,115200 panic=-1 softlockup_panic=0 pci=noacpi memmap=1M\$0xfee00000 rtlab.mode=test"
	append+=" rtlab.dir=$dir rtlab.run=$run rtlab.timeouts=$tos rtlab.kernel=$kernel rtlab.accel=$accel$envs"
	[ "$accel" = kvm ] || append+=" tsc=reliable"
	[ "$qtrace" = none ] || append+=" rtlab.env.RTLAB_QEMU_TRACE=/rtlab/out/qemu-trace.log"
	append+=" rtlab.env.RTLAB_CONSOLE=/rtlab/out/console.log"
	local q=(qemu-system-x86_64 -machine pc -m "$mem" -smp "$cpus" -no-reboot
		-display none -monitor none -kernel "$bz" -initrd "$initrd" -append "$append"
		-virtfs "local,path=$d/out,mount_tag=rtlabout,security_model=none,id=rtlabout"
		-nic none)
	if [ "$accel" = kvm ]; then
		q+=(-accel kvm -cpu host)
	else
		q+=(-accel tcg,thread=multi -cpu max)
	fi
	local i=0 nic dev
	if [ "$nics" != none ]; then
		for nic in ${nics//,/ }; do
			q+=(-netdev "hubport,id=hp$i,hubid=0" -device "$nic,netdev=hp$i,mac=52:54:00:12:34:$((10 + i))")
			i=$((i + 1))
		done
	fi
	if [ "$devices" != none ]; then
		for dev in ${devices//,/ }; do
			q+=(-device "$dev")
		done
	fi
	if [ "$tpm" = yes ]; then
		start_swtpm "$d" || return 2
		q+=(-chardev "socket,id=chrtpm,path=$d/tpm/sock" -tpmdev emulator,id=tpm0,chardev=chrtpm
			-device tpm-tis,tpmdev=tpm0)
	fi
	if [ "$qtrace" != none ]; then
		tr ',' '\n' <<<"$qtrace" >"$d/trace-events"
		q+=(-trace "events=$d/trace-events,file=$d/out/qemu-trace.log")
	fi
	if [ "$verbose" = 1 ]; then
		q+=(-chardev "stdio,id=con,logfile=$d/console.log,signal=off" -serial chardev:con)
	else
		q+=(-serial "file:$d/console.log")
	fi
	printf '%q ' "${q[@]}" >"$d/qemu.cmd"
	local limit=$((boot_timeout + total + 10)) t0 t1 rc
	t0=$(date +%s.%N)
	timeout -k 5 "$limit" "${q[@]}" </dev/null >"$d/qemu.log" 2>&1
	rc=$?
	t1=$(date +%s.%N)
	[ "$tpm" = yes ] && stop_swtpm "$d"
	echo "$rc" >"$d/qemu.rc"
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }' >"$d/wall"
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		echo "run-tests: QEMU killed after $limit s (guest hung)" >>"$d/qemu.log"
	elif [ "$rc" != 0 ]; then
		echo "run-tests: QEMU exited with $rc:" >&2
		tail -n 5 "$d/qemu.log" >&2
	fi
	return 0
}

for m in "${order[@]}"; do
	read -r kernel c mm n tp dv qt <<<"$m"
	cpus=${c#c} mem=${mm#m} nics=${n#n} tpm=${tp#t} devices=${dv#d} qtrace=${qt#q}
	read -ra remaining <<<"${group_tests[$m]}"
	mname=$kernel-c$cpus-m$mem${nics/#none/}-t$tpm
	[ "$devices" = none ] || mname+=-$devices
	[ "$qtrace" = none ] || mname+=-qtrace
	mname=${mname//,/+}
	nboot=0
	while [ ${#remaining[@]} -gt 0 ]; do
		nboot=$((nboot + 1))
		d=$rundir/$mname-$nboot
		mkdir -p "$d"
		boot "$d" "$kernel" "$cpus" "$mem" "$nics" "$tpm" "$devices" "$qtrace" "${remaining[@]}" || { overall=1; break; }
		names=()
		for f in "${remaining[@]}"; do names+=("$(basename "$f")"); done
		"$labcheck" guest --console "$d/console.log" --outdir "$d/out" \
			--status "$d/status" --label "$kernel cpus=$cpus ${accel} wall=$(cat "$d/wall")s" \
			"${names[@]}" >"$d/result.tap"
		[ $? = 0 ] || overall=1
		cat "$d/result.tap"
		# Continue after the last test that ended or crashed; stop if the
		# boot made no progress at all.
		next=()
		progress=0
		idx=0
		while read -r name state; do
			case "$state" in
			ended|crashed) progress=$((idx + 1)) ;;
			esac
			idx=$((idx + 1))
		done <"$d/status"
		if [ "$progress" = 0 ]; then
			{
				for f in "${remaining[@]}"; do
					echo "not ok - $(basename "$f"): not run: the guest did not reach the test (see $d/console.log)"
				done
			} | tee -a "$d/result.tap"
			overall=1
			break
		fi
		remaining=("${remaining[@]:$progress}")
	done
done
exit $overall
