# Sourced by every host test (tests/host/*.sh): the project's top
# directory, a scratch directory removed at exit, and TAP.
#   host_test NAME    TAP header; every point is named "NAME: ..."
#   t DESC CMD...     one point: ok if CMD succeeds; on failure its output
#                     is shown as diagnostics
#   has FILE ERE, hasnt FILE ERE   FILE has (not) a line matching ERE
#   host_done         the plan (after the points) and the exit status
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
_host_name= _host_n=0 _host_failed=0

host_test() { _host_name=$1; echo "TAP version 13"; }

t() {
	local d=$1; shift
	_host_n=$((_host_n + 1))
	if "$@" >"$tmp/.t.out" 2>&1; then
		echo "ok $_host_n $_host_name: $d"
	else
		echo "not ok $_host_n $_host_name: $d"
		sed 's/^/# /' "$tmp/.t.out"
		_host_failed=1
	fi
}

has() { grep -qE -- "$2" "$1"; }
hasnt() { ! grep -qE -- "$2" "$1"; }

host_done() { echo "1..$_host_n"; exit $_host_failed; }
