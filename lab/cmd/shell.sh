#!/bin/bash
# lab/rtlab shell: boot the patched kernel on the lab's machine (the same
# QEMU command line as the tests) with the project's tools on PATH.
#
#   lab/rtlab shell              an interactive shell on the console; leave
#                                with "exit" (powers off) or Ctrl-a x
#   lab/rtlab shell -c 'CMD'     run CMD in the guest (sh -c), print its
#                                output, exit with its exit status
#                                (make shell CMD='...')
#
# The machine: T=<guest test> takes that test's header (its kernel, CPUs,
# NICs, TPM, devices, kernel parameters); KERNEL, CPUS, MEM, NICS, TPM=yes,
# DEVICES, CHIPSET=pc|q35, TIMEOUT (s, for -c) set one key each
# (lab/lib/machine.sh).
# ACCEL=tcg|tcg1|kvm|icount (lab/lib/machine.sh), BOOT_TIMEOUT (s, default 60).
set -uo pipefail
. "$(dirname "$0")/../lib/machine.sh"
cmd=${CMD:-}
case "${1:-}" in
-c) cmd=${2:?-c needs a command} ;;
-h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
'') ;;
*) echo "shell: unknown argument $1 (-c CMD runs one command)" >&2; exit 2 ;;
esac
readonly SLACK_S=10	# as lab/cmd/run.sh: power-off and 9p sync

machine_reset shell
if [ -n "${T:-}" ]; then
	t=$(ls "$lab_top/tests/guest/$T" "$lab_top/tests/guest/$T.sh" 2>/dev/null | head -n 1)
	[ -n "$t" ] || { echo "shell: T=$T: no such guest test" >&2; exit 2; }
	machine_parse "$t" shell || exit 2
fi
for kv in accel=ACCEL kernel=KERNEL cpus=CPUS mem=MEM nics=NICS tpm=TPM devices=DEVICES chipset=CHIPSET timeout=TIMEOUT; do
	v=${kv#*=}
	[ -z "${!v:-}" ] || machine_set "environment $v" "${kv%=*}" "${!v}" || exit 2
done
image_refresh || exit 2

d=$lab_build/run/shell
rm -rf "$d"
mkdir -p "$d/out"
if [ -z "$cmd" ]; then
	machine_qemu "$d" interactive "rtlab.mode=shell" || exit 2
	echo "shell: $M_kernel kernel under $M_accel; files written to /rtlab/out appear in $d/out"
	"${QEMU[@]}"
	rc=$?
	machine_stop "$d"
	exit $rc
fi

# One command: the guest runs /rtlab/out/cmd under its time-out and leaves
# the output and exit status beside it.
printf '%s\n' "$cmd" >"$d/out/cmd"
machine_qemu "$d" file "rtlab.mode=cmd rtlab.timeouts=$M_timeout" || exit 2
timeout -k 5 $(( $(machine_wall_limit $(( ${BOOT_TIMEOUT:-60} + M_timeout ))) + SLACK_S )) "${QEMU[@]}" </dev/null >"$d/qemu.log" 2>&1
machine_stop "$d"
cat "$d/out/cmd.out" 2>/dev/null
if [ -f "$d/out/cmd.rc" ]; then
	exit "$(cat "$d/out/cmd.rc")"
fi
echo "shell: the guest did not run the command; console tail ($d/console.log):" >&2
tail -n 20 "$d/console.log" >&2
exit 125
