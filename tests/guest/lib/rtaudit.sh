# Helpers of the rtaudit tests (90-rtaudit-*); source after /rtlab/lib.sh:
#   . /rtlab/lib/rtaudit.sh
# rta_line FILE SEVERITY SUBJECT: the finding's header line of rtaudit's
# text output ("RANK SEVERITY SUBJECT: VALUE"), empty if absent
rta_line() { grep -E "^ *[0-9]+ $2 +$3(:|\$)" "$1" | head -n 1; }
# rta_cost FILE CLOCKSOURCE: ns per call that "rtaudit clock --switch" measured
rta_cost() { sed -n "s/^ *[0-9]* [a-z]* *clocksource $2: \([0-9.]*\) ns\/call.*/\1/p" "$1"; }
# rta_slow_clock NAME: the boot forced clock source NAME (slower than the
# TSC): rtaudit system must say so, and rtaudit clock --switch must
# measure NAME slower than the TSC in the same run and restore NAME.
rta_slow_clock() {
	cs=/sys/devices/system/clocksource/clocksource0
	cur=$(cat $cs/current_clocksource)
	tap_diag "available: $(cat $cs/available_clocksource), current: $cur"
	tap_check "the boot's clocksource=$1 took effect (current: $cur)" [ "$cur" = "$1" ]
	rtaudit system >/tmp/rta-sys.txt
	rc=$?
	cp /tmp/rta-sys.txt "$RTLAB_OUT/system.txt" 2>/dev/null
	l=$(rta_line /tmp/rta-sys.txt problem clocksource)
	tap_check "rtaudit system: clock source $1 is a problem ($l)" [ "${l##*: }" = "$1" ]
	l=$(rta_line /tmp/rta-sys.txt warning cmdline.clocksource)
	tap_check "rtaudit system: clocksource=$1 on the command line is a warning ($l)" [ "${l##*: }" = "$1" ]
	tap_check "rtaudit system: exit status 2 (problems), got $rc" [ "$rc" = 2 ]
	rtaudit clock --switch --rounds 500 --trace-ms 100 >/tmp/rta-clock.txt
	rc=$?
	cp /tmp/rta-clock.txt "$RTLAB_OUT/clock.txt" 2>/dev/null
	grep -E 'clocksource|^  method' /tmp/rta-clock.txt | sed 's/^/# /'
	tsc=$(rta_cost /tmp/rta-clock.txt tsc)
	slow=$(rta_cost /tmp/rta-clock.txt "$1")
	ratio=$(awk -v a="$slow" -v b="$tsc" 'BEGIN { if (a > 0 && b > 0) printf "%.1f", a / b }')
	tap_diag "TCG emulator time: tsc $tsc ns/call, $1 $slow ns/call in one run; only the ratio means something"
	tap_check "rtaudit clock: $1 measured slower than tsc in one run (ratio $ratio)" \
		awk -v r="$ratio" 'BEGIN { exit !(r != "" && r > 1) }'
	l=$(rta_line /tmp/rta-clock.txt problem "clocksource $1")
	tap_check "rtaudit clock: the current clock source $1 ranked a problem ($l)" [ -n "$l" ]
	now=$(cat $cs/current_clocksource)
	tap_check "rtaudit clock --switch restored $1 (now $now), exit $rc" [ "$now" = "$1" ]
}
