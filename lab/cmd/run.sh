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
# A test with expect=panic in its header panics the guest on purpose: its
# first phase passes when it panics (labcheck --expect-panic); the next boot
# then runs the same test first, as its second phase (RTLAB_PHASE=2), with
# phase 1's console log and out directory copied to its out directory as
# <test>.prev/console.log and <test>.prev/out/ (RTLAB_PREV in the guest).
# A first phase that does not panic fails, and its second phase is not run.
#
# A boot whose first kernel splat is an int3 trap at an address that no
# longer holds an int3 (labcheck stale-int3: multi-threaded TCG ran a stale
# translation of code the kernel had patched; docs/results/lab.md) is
# booted again with the same tests, EMULATOR_RETRIES times at most (default
# 1); the faulted boot's files stay in <dir>.emulator-fault, its TAP out of
# the results, and the retry is printed ("# emulator fault: ...") and
# counted in build/run/<suite>/emulator-faults.  A second such fault in
# the same place fails as any splat does.
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

# env_ok NAME=VALUE: the value travels as one word of the kernel command
# line, which the guest's init splits at blanks and does not unquote: a
# blank or a quote would cut it short, or give the test a different value
# than asked for, without a word said
env_ok() {
	case "$1" in
	*[[:space:]\"\']*) echo "run: --env '$1': a value cannot hold blanks or quotes (it is one word of the kernel command line); join words with commas where the test says so" >&2; return 1 ;;
	*=*) ;;
	*) echo "run: --env '$1': expected NAME=VALUE" >&2; return 1 ;;
	esac
	case "${1%%=*}" in
	""|[0-9]*|*[!A-Za-z0-9_]*) echo "run: --env '$1': NAME must be letters, digits and _, not starting with a digit" >&2; return 1 ;;
	esac
}

while [ $# -gt 0 ]; do
	case "$1" in
	--suite) suite=$2; shift 2 ;;
	--dir) dir=$2; shift 2 ;;
	--kernel) force_kernel=$2; shift 2 ;;
	--verbose) verbose=1; shift ;;
	--env) env_ok "${2-}" || exit 2; envs+=" rtlab.env.$2"; shift 2 ;;
	--) shift; break ;;
	-*) echo "run: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "run: no test given" >&2; exit 2; }
[ -x "$labcheck" ] || { echo "run: $labcheck not built (make tools)" >&2; exit 2; }

# Group the tests by machine, keeping the order of first appearance.
declare -A group_tests group_machine timeout_of expect_of
order=()
for f in "$@"; do
	[ -f "$f" ] || { echo "run: $f: no such test" >&2; exit 2; }
	machine_parse "$f" "$dir" || exit 2
	[ -z "$force_kernel" ] || M_kernel=$force_kernel
	[ -z "${ACCEL:-}" ] || M_accel=$ACCEL	# forces, like KERNEL, over accel=
	machine_expect_ok "$f" || exit 2
	timeout_of[$f]=$M_timeout
	expect_of[$f]=$M_expect
	k=$(machine_key)
	[ -n "${group_tests[$k]+x}" ] || { order+=("$k"); group_machine[$k]=$(machine_export); }
	group_tests[$k]="${group_tests[$k]:-} $f"
done
image_refresh || exit 2

rundir=$build/run/$suite
rm -rf "$rundir"
mkdir -p "$rundir"
overall=0

# panic_words PHASE2 TESTS...: the words that tell the guest's init
# (rtlab.*) or labcheck (--*) which tests expect a panic: PHASE2 (a name, or
# empty) runs its second phase, every other expect=panic test its first
panic_words() {
	local what=$1 phase2=$2 f n p1=(); shift 2
	for f in "$@"; do
		n=$(basename "$f")
		[ "${expect_of[$f]}" = panic ] && [ "$n" != "$phase2" ] && p1+=("$n")
	done
	if [ "$what" = init ]; then
		[ ${#p1[@]} = 0 ] || echo " rtlab.phase1=$(IFS=,; echo "${p1[*]}")"
		[ -z "$phase2" ] || echo " rtlab.phase2=$phase2"
	else
		for n in "${p1[@]}"; do printf '%s\n' --expect-panic "$n"; done
		[ -z "$phase2" ] || printf '%s\n' --after-panic "$phase2"
	fi
}

# keep_phase1 PREV DIR TEST: what the second phase of TEST reads of its
# first (boot directory PREV) at RTLAB_PREV: the console log and the files
# phase 1 wrote, copied into the out directory of boot DIR before it starts
keep_phase1() {
	local prev=$2/out/$3.prev
	mkdir -p "$prev/out"
	cp -L "$1/console.log" "$prev/console.log"
	[ ! -d "$1/out/$3" ] || cp -a "$1/out/$3/." "$prev/out/"
}

# boot DIR PHASE2 TESTS...: one QEMU run of the given tests on the machine
# M_*; PHASE2 (a test's name, or empty) runs its second phase first
boot() {
	local d=$1 phase2=$2; shift 2
	local names=() timeouts=() total=0 f console=file
	for f in "$@"; do
		names+=("$(basename "$f")")
		timeouts+=("${timeout_of[$f]}")
		total=$((total + ${timeout_of[$f]}))
	done
	local run=$(IFS=,; echo "${names[*]}") tos=$(IFS=,; echo "${timeouts[*]}")
	local phases=$(panic_words init "$phase2" "$@")
	[ "$verbose" = 1 ] && console=tee
	machine_qemu "$d" "$console" "rtlab.mode=test rtlab.dir=$dir rtlab.run=$run rtlab.timeouts=$tos${phases//$'\n'/}$envs" || return 2
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

# progress DIR: how many of the boot's tests ended, crashed or panicked
# (the next boot starts after them)
progress() {
	local name state idx=0 p=0
	while read -r name state; do
		idx=$((idx + 1))
		case "$state" in ended|crashed|panicked) p=$idx ;; esac
	done <"$1/status"
	echo "$p"
}

# panicked DIR: the test whose first phase panicked as expected, if any
panicked() { awk '$2 == "panicked" { print $1 }' "$1/status"; }

retries_max=${EMULATOR_RETRIES:-1}
[[ "$retries_max" == +([0-9]) ]] || { echo "run: EMULATOR_RETRIES=$retries_max: takes a number" >&2; exit 2; }
for k in "${order[@]}"; do
	machine_import "${group_machine[$k]}"
	read -ra remaining <<<"${group_tests[$k]}"
	nboot=0 phase2= prev= retries=0
	while [ ${#remaining[@]} -gt 0 ]; do
		nboot=$((nboot + 1))
		d=$rundir/$k-$nboot
		mkdir -p "$d"
		[ -z "$phase2" ] || keep_phase1 "$prev" "$d" "$phase2"
		boot "$d" "$phase2" "${remaining[@]}" || { overall=1; break; }
		names=()
		for f in "${remaining[@]}"; do names+=("$(basename "$f")"); done
		mapfile -t panicopts < <(panic_words labcheck "$phase2" "${remaining[@]}")
		"$labcheck" guest --console "$d/console.log" --outdir "$d/out" \
			--status "$d/status" --label "$M_kernel cpus=$M_cpus $M_accel wall=$(cat "$d/wall")s" \
			"${panicopts[@]}" "${names[@]}" >"$d/result.tap"
		brc=$?
		# the emulator's stale int3, not the kernel's: the same tests again
		if [ "$brc" != 0 ] && [ "$retries" -lt "$retries_max" ] &&
		   why=$("$labcheck" stale-int3 "$d/console.log"); then
			retries=$((retries + 1))
			mv "$d/result.tap" "$d/result.tap.emulator-fault"
			mv "$d" "$d.emulator-fault"
			echo "# emulator fault: boot $k-$nboot ($M_accel, $(qemu_version)): $why; booting again" |
				tee -a "$rundir/emulator-faults"
			continue
		fi
		[ "$brc" = 0 ] || overall=1
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
		# a first phase that panicked as expected runs again, as the
		# first test of the next boot, in its second phase
		phase2=$(panicked "$d") prev=$d
		[ -z "$phase2" ] || p=$((p - 1))
		remaining=("${remaining[@]:$p}")
	done
done
exit $overall
