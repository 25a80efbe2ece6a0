#!/bin/bash
# lab/rtlab run: run guest tests (or benchmarks) in QEMU and collect TAP on
# the host.
#
#   lab/rtlab run [--suite NAME] [--dir tests|bench|selftest|reboot|stress]
#                 [--kernel V] [--verbose] [--env NAME=VALUE]... FILE...
#
# Each file's header ("# rtlab: key=value ...", keys in lab/lib/machine.sh)
# says the machine it needs; tests that ask for the same machine share a
# boot, in the order given.  When a test hangs or kills the guest, the
# harness reports it failed (with the console tail) and boots again for the
# tests after it.  The TAP of every boot is written to
# build/run/<suite>/<machine>-<n>/result.tap and printed; the exit status is
# 1 if anything failed.
#
# Environment: ACCEL=tcg|tcg1|kvm|icount (default: the header's accel=, else
# tcg; lab/lib/machine.sh),
# BOOT_TIMEOUT (s, default 60),
# KERNEL (force a variant), VERBOSE=1 (console on stdout as well).
set -uo pipefail
. "$(dirname "$0")/../lib/machine.sh"
build=$lab_build
labcheck=$build/bin/labcheck
suite=guest dir=tests verbose=${VERBOSE:-0} force_kernel=${KERNEL:-} envs=""
boot_timeout=${BOOT_TIMEOUT:-60}
# seconds QEMU may run past the boot and the tests' time-outs before it is
# killed (power-off, 9p sync)
readonly SLACK_S=10

while [ $# -gt 0 ]; do
	case "$1" in
	--suite) suite=$2; shift 2 ;;
	--dir) dir=$2; shift 2 ;;
	--kernel) force_kernel=$2; shift 2 ;;
	--verbose) verbose=1; shift ;;
	--env) envs+=" rtlab.env.$2"; shift 2 ;;
	--) shift; break ;;
	-*) echo "run: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "run: no test given" >&2; exit 2; }
[ -x "$labcheck" ] || { echo "run: $labcheck not built (make tools)" >&2; exit 2; }

# Group the tests by machine, keeping the order of first appearance.
declare -A group_tests group_machine timeout_of
order=()
for f in "$@"; do
	[ -f "$f" ] || { echo "run: $f: no such test" >&2; exit 2; }
	machine_parse "$f" "$dir" || exit 2
	[ -z "$force_kernel" ] || M_kernel=$force_kernel
	[ -z "${ACCEL:-}" ] || M_accel=$ACCEL	# forces, like KERNEL, over accel=
	timeout_of[$f]=$M_timeout
	k=$(machine_key)
	[ -n "${group_tests[$k]+x}" ] || { order+=("$k"); group_machine[$k]=$(machine_export); }
	group_tests[$k]="${group_tests[$k]:-} $f"
done
image_refresh || exit 2

rundir=$build/run/$suite
rm -rf "$rundir"
mkdir -p "$rundir"
overall=0

# boot DIR TESTS...: one QEMU run of the given tests on the machine M_*
boot() {
	local d=$1; shift
	local names=() timeouts=() total=0 f console=file
	for f in "$@"; do
		names+=("$(basename "$f")")
		timeouts+=("${timeout_of[$f]}")
		total=$((total + ${timeout_of[$f]}))
	done
	local run=$(IFS=,; echo "${names[*]}") tos=$(IFS=,; echo "${timeouts[*]}")
	[ "$verbose" = 1 ] && console=tee
	machine_qemu "$d" "$console" "rtlab.mode=test rtlab.dir=$dir rtlab.run=$run rtlab.timeouts=$tos$envs" || return 2
	# the time-outs are guest time: under icount the guest's clock runs
	# slower than the host's (machine_wall_limit)
	local limit=$(($(machine_wall_limit $((boot_timeout + total))) + SLACK_S)) t0 t1 rc
	t0=$(date +%s.%N)
	timeout -k 5 "$limit" "${QEMU[@]}" </dev/null >"$d/qemu.log" 2>&1
	rc=$?
	t1=$(date +%s.%N)
	machine_stop "$d"
	echo "$rc" >"$d/qemu.rc"
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }' >"$d/wall"
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		echo "run: QEMU killed after $limit s (guest hung)" >>"$d/qemu.log"
	elif [ "$rc" != 0 ]; then
		echo "run: QEMU exited with $rc:" >&2
		tail -n 5 "$d/qemu.log" >&2
	fi
	return 0
}

# progress DIR: how many of the boot's tests ended or crashed (the next
# boot starts after them)
progress() {
	local name state idx=0 p=0
	while read -r name state; do
		idx=$((idx + 1))
		case "$state" in ended|crashed) p=$idx ;; esac
	done <"$1/status"
	echo "$p"
}

for k in "${order[@]}"; do
	machine_import "${group_machine[$k]}"
	read -ra remaining <<<"${group_tests[$k]}"
	nboot=0
	while [ ${#remaining[@]} -gt 0 ]; do
		nboot=$((nboot + 1))
		d=$rundir/$k-$nboot
		mkdir -p "$d"
		boot "$d" "${remaining[@]}" || { overall=1; break; }
		names=()
		for f in "${remaining[@]}"; do names+=("$(basename "$f")"); done
		"$labcheck" guest --console "$d/console.log" --outdir "$d/out" \
			--status "$d/status" --label "$M_kernel cpus=$M_cpus $M_accel wall=$(cat "$d/wall")s" \
			"${names[@]}" >"$d/result.tap"
		[ $? = 0 ] || overall=1
		cat "$d/result.tap"
		# Continue after the last test that ended or crashed; stop if the
		# boot made no progress at all.
		p=$(progress "$d")
		if [ "$p" = 0 ]; then
			for f in "${remaining[@]}"; do
				echo "not ok - $(basename "$f"): not run: the guest did not reach the test (see $d/console.log)"
			done | tee -a "$d/result.tap"
			overall=1
			break
		fi
		remaining=("${remaining[@]:$p}")
	done
done
exit $overall
