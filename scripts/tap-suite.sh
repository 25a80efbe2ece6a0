# Sourced (POSIX sh) by a component's check script that gathers suites
# printing unnumbered "ok - ..." / "not ok - ..." lines into the one
# kselftest-style TAP stream `make check` wants (docs/HACKING.md):
#   tap_suites_begin          the TAP header
#   tap_suite LABEL CMD...    runs CMD; each of its points becomes
#                             "ok N LABEL: ...", any other line a "# "
#                             diagnostic; a non-zero exit is one more failed
#                             point, shown with the tail of CMD's stderr
#   tap_suites_end            the plan; returns 0 when no point failed
#   tap_fuzz WHAT SECONDS MAX_LEN FUZZER SEED...
#                             a bounded libFuzzer run of FUZZER on a copy of
#                             the seed files: one point naming WHAT; any
#                             crash, leak, UB or time-out fails it (a suite
#                             of its own: tap_suite fuzz tap_fuzz ...)

_tap_n=0
_tap_failed=0

tap_suites_begin() {
	echo "TAP version 13"
}

tap_suite() {
	_tap_label=$1
	shift
	_tap_out=$(mktemp)
	"$@" >"$_tap_out" 2>"$_tap_out.err"
	_tap_rc=$?
	while IFS= read -r _tap_line; do
		case $_tap_line in
		"ok "*|"ok")
			_tap_n=$((_tap_n + 1))
			echo "ok $_tap_n $_tap_label: ${_tap_line#ok - }" ;;
		"not ok"*)
			_tap_n=$((_tap_n + 1)); _tap_failed=$((_tap_failed + 1))
			echo "not ok $_tap_n $_tap_label: ${_tap_line#not ok - }" ;;
		*)	echo "# $_tap_line" ;;
		esac
	done <"$_tap_out"
	if [ "$_tap_rc" -ne 0 ]; then
		_tap_n=$((_tap_n + 1)); _tap_failed=$((_tap_failed + 1))
		echo "not ok $_tap_n $_tap_label: the suite exited with status $_tap_rc"
		tail -n 40 "$_tap_out.err" | sed 's/^/# stderr: /'
	fi
	rm -f "$_tap_out" "$_tap_out.err"
}

tap_suites_end() {
	echo "1..$_tap_n"
	[ "$_tap_failed" -eq 0 ]
}

tap_fuzz() {
	_fz_what=$1 _fz_secs=$2 _fz_len=$3 _fz_bin=$4
	shift 4
	_fz_work=$(mktemp -d)
	mkdir "$_fz_work/corpus" && cp "$@" "$_fz_work/corpus/" || {
		rm -rf "$_fz_work"
		return 1
	}
	if "$_fz_bin" -max_total_time="$_fz_secs" -timeout=5 -rss_limit_mb=1024 \
		-max_len="$_fz_len" -print_final_stats=1 -artifact_prefix="$_fz_work/" \
		"$_fz_work/corpus" >"$_fz_work/log" 2>&1; then
		_fz_runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$_fz_work/log")
		echo "ok - $_fz_what fuzzed for ${_fz_secs}s, ${_fz_runs:-?} inputs, no crash, leak or UB"
	else
		tail -n 30 "$_fz_work/log" | sed 's/^/# /'
		for _fz_f in "$_fz_work"/crash-* "$_fz_work"/leak-* "$_fz_work"/timeout-*; do
			[ -f "$_fz_f" ] || continue
			echo "# artifact $_fz_f"
			od -c "$_fz_f" | head -20 | sed 's/^/# /'
		done
		echo "not ok - $_fz_what fuzzed for ${_fz_secs}s: failure found"
	fi
	rm -rf "$_fz_work"
}
