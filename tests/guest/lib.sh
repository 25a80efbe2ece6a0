# TAP helpers for guest tests (kselftest conventions). Source with
#   . /rtlab/lib.sh
# then tap_plan N (or let tap_done print the plan at the end).
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
# tap_done: print the plan if none was given, exit 1 if anything failed.
tap_done() {
	[ -n "${_tap_planned:-}" ] || echo "1..$_tap_n"
	[ "$_tap_failed" -eq 0 ]
	exit $?
}
