# Helpers for rtaudit's host test suites: each prints "ok - name" or
# "not ok - name" lines (tests/run-check.sh numbers them).
RTAUDIT=${RTAUDIT:-./build/rtaudit-san}
RULES=${RULES:-./rules.ini}
FIX=tests/fixtures
EXP=tests/expected
failed=0

pass() { echo "ok - $*"; }
fail() { echo "not ok - $*"; failed=$((failed + 1)); }

# ranked OUTFILE: the findings' header lines ("RANK SEVERITY SUBJECT: ...")
ranked() { grep -E '^ *[0-9]+ (problem|warning|info|unknown|none|noise) ' "$1"; }

# same NAME EXPECTED ACTUAL: pass if the files are identical, else show the
# diff.  RTAUDIT_UPDATE=1 rewrites EXPECTED first (after a rules.ini change:
# review the diff in git before committing it).
same() {
	[ "${RTAUDIT_UPDATE:-0}" = 1 ] && case $2 in $EXP/*) cp "$3" "$2" ;; esac
	if diff -u "$2" "$3" >"$3.diff"; then
		pass "$1"
	else
		sed 's/^/# /' "$3.diff" | head -n 40
		fail "$1"
	fi
}

# status NAME WANT GOT
status() {
	if [ "$2" = "$3" ]; then pass "$1: exit $3"; else fail "$1: exit $3, expected $2"; fi
}

# bad_input NAME REGEX CMD...: exit 3, one stderr line matching REGEX, no sanitizer report
bad_input() {
	name=$1 re=$2
	shift 2
	"$@" >"$work/bad.out" 2>"$work/bad.err"
	rc=$?
	if [ "$rc" = 3 ] && grep -Eq -e "$re" "$work/bad.err" && ! grep -q Sanitizer "$work/bad.err"; then
		pass "$name: exit 3, $(head -n 1 "$work/bad.err")"
	else
		sed 's/^/# /' "$work/bad.err" | head -n 10
		fail "$name: exit $rc, expected 3 and /$re/"
	fi
}
