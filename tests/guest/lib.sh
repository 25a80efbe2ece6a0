# TAP for guest tests, benchmarks and stress runs (kselftest conventions).
# Source with
#   . /rtlab/lib.sh
# then tap_plan N (or let tap_done print the plan at the end).  The helpers
# of a topic are in /rtlab/lib/ (tests/guest/lib/), each sourced by the
# scripts that use them, after this file:
#   proc.sh     list knobs, numbers, a task's CPU time and migrations, writes to
#               kernel files with the errno's name, busy-looping FIFO hogs
#   rtg.sh      RT group tests: the v1 cpu controller, groups, rtgload
#   rtaudit.sh  rtaudit's findings and the slow clock source check
#   rtirqd.sh   rtirqd's rules for the benchmarks
_tap_n=0
_tap_failed=0

tap_plan() { echo "TAP version 13"; echo "1..$1"; _tap_planned=1; }
tap_ok()   { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n $*"; }
tap_fail() { _tap_n=$((_tap_n + 1)); _tap_failed=$((_tap_failed + 1)); echo "not ok $_tap_n $*"; }
tap_skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n $1 # SKIP ${2:-}"; }
tap_diag() { echo "# $*"; }
# tap_check "description" command args...: ok if the command succeeds.
tap_check() {
	_d=$1; shift
	if "$@"; then tap_ok "$_d"; else tap_fail "$_d"; fi
}
# tap_sub CMD ARGS...: run a C test program that asserts for itself and
# prints TAP (include/rtlab/tap.h) and number its points on from this
# script's; its "TAP version" and plan lines are dropped, its diagnostics
# and other output pass through as "# ". A program that could not do its
# job (exit 2 and above) or printed no point adds a failed point. Returns
# the program's exit status.
tap_sub() {
	_ts_out=$(mktemp /tmp/tap_sub.XXXXXX)
	"$@" >"$_ts_out" 2>&1
	_ts_rc=$?
	_ts_n0=$_tap_n
	while IFS= read -r _ts_l; do
		case $_ts_l in
		"TAP version "*|1..*) ;;
		"not ok "*) _ts_l=${_ts_l#not ok }; tap_fail "${_ts_l#* }" ;;
		"ok "*) _ts_l=${_ts_l#ok }; tap_ok "${_ts_l#* }" ;;
		"#"*) echo "$_ts_l" ;;
		*) echo "# $_ts_l" ;;
		esac
	done <"$_ts_out"
	rm -f "$_ts_out"
	if [ "$_ts_rc" -ge 2 ] || [ "$_tap_n" = "$_ts_n0" ]; then
		tap_fail "$(basename "$1") ran (exit $_ts_rc)"
	fi
	return "$_ts_rc"
}
# tap_done: print the plan if none was given, exit 1 if anything failed.
tap_done() {
	[ -n "${_tap_planned:-}" ] || echo "1..$_tap_n"
	[ "$_tap_failed" -eq 0 ]
	exit $?
}

# tap_tcg_caveat [WHAT]: the lab's one statement of what a figure measured
# under QEMU TCG means, as a diagnostic (nothing under KVM); WHAT names the
# figures (default "figures").  Every benchmark prints it; make demo and
# the bench report show it from there.
# Under ACCEL=icount the figures are instruction counts instead.
tap_tcg_caveat() {
	case "${RTLAB_ACCEL:-tcg}" in
	tcg|tcg1) tap_diag "TCG: absolute ${1:-figures} are emulator time, not hardware numbers; compare ratios measured within one run." ;;
	icount) tap_diag "icount: ${1:-figures} are guest time, 2^${RTLAB_ICOUNT_SHIFT:-?} ns per guest instruction: instruction counts, the same on a quiet or loaded host and comparable between kernels, not hardware times." ;;
	esac
}

# tap_points NAME FILE: a helper program's TAP output in FILE taken over as
# this test's points ("NAME: ..."), its other lines as diagnostics; sets
# tap_npoints to how many points it had (a loop fed by a here-document
# runs in this shell, so the counts hold)
tap_points() {
	grep -v -E '^(not )?ok |^TAP|^1\.\.' "$2" | sed "s/^# *//; s/^/# $1: /"
	tap_npoints=0
	while read -r _v _l; do
		[ -n "$_v" ] || continue
		tap_npoints=$((tap_npoints + 1))
		if [ "$_v" = ok ]; then tap_ok "$1: ${_l#* }"; else tap_fail "$1: ${_l#* }"; fi
	done <<-EOT
	$(grep -E '^(not )?ok ' "$2" | sed 's/^not ok/not/')
	EOT
}

