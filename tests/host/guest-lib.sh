#!/bin/bash
# The guest's shell helpers: tests/guest/lib.sh is TAP only, and the
# helpers of a topic live in tests/guest/lib/*.sh, each sourced by the
# scripts that call its functions.  A script that calls a topic helper
# without sourcing its file fails only in the guest, at the line that
# calls it ("not found"), possibly in a rarely taken branch; this finds it
# on the host, for every guest script (tests, benchmarks, stress runs,
# harness self-tests).  Also: no helper defined twice, no script with its
# own copy of a helper, no helper nobody calls.  Prints TAP.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
host_test guest-lib
g=$top/tests/guest

# defs FILE: the names of the functions FILE defines ("name() {")
defs() { sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)() *{.*/\1/p' "$1"; }
# calls FILE NAME: FILE runs NAME as a command (comments left out): at the
# start of a command, after a keyword, or as tap_check's or trap's command
calls() {
	# (grep -q on a pipe would end early: with pipefail, sed's SIGPIPE
	# would then turn a match into a failure)
	grep -qE "(^|[;&|({!]|\\\$\(|\<(then|do|else|if|elif|while|until|trap)|tap_check \"[^\"]*\")[[:space:]]*$2([[:space:]]|;|\)|$)" \
		<(sed 's/^[[:space:]]*#.*//; s/[[:space:]]#[^"'\'']*$//' "$1")
}
# sources FILE: the topic libraries FILE sources, and those they source
sources() {
	local l
	for l in $(sed -n 's|^[[:space:]]*\. /rtlab/lib/\([a-z]*\.sh\).*|\1|p' "$1"); do
		echo "$l"
		[ -f "$g/lib/$l" ] && [ "$g/lib/$l" != "$1" ] && sources "$g/lib/$l"
	done
}

t "lib.sh defines TAP helpers only (tap_*)" \
	sh -c "! sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)() *{.*/\1/p' '$g/lib.sh' | grep -v '^tap_'"

declare -A home
dup=""
for l in "$g"/lib/*.sh; do
	for f in $(defs "$l"); do
		[ -z "${home[$f]:-}" ] || dup+=" $f (${home[$f]}, $(basename "$l"))"
		home[$f]=$(basename "$l")
	done
done
t "every topic helper is defined once:${dup:- yes}" [ -z "$dup" ]

scripts=()
for f in "$g"/*.sh "$top"/tests/stress/* "$top"/bench/guest/*.sh \
	 "$top"/lab/selftest/harness/* "$top"/lab/selftest/reboot/* "$g"/lib/*.sh; do
	[ -f "$f" ] && [ "$f" != "$g/lib.sh" ] && scripts+=("$f")
done
declare -A used
missing="" copies=""
for s in "${scripts[@]}"; do
	src=" $(sources "$s" | tr '\n' ' ') "
	mine=" $(defs "$s" | tr '\n' ' ') "
	for f in "${!home[@]}"; do
		case $mine in *" $f "*)
			[ "$s" = "$g/lib/${home[$f]}" ] || copies+=" ${s#"$top"/}:$f"
			# a helper's callers in its own file count as uses
			calls "$s" "$f" && used[$f]=1
			continue ;;
		esac
		calls "$s" "$f" || continue
		used[$f]=1
		case $src in *" ${home[$f]} "*) ;; *) missing+=" ${s#"$top"/}:$f(${home[$f]})" ;; esac
	done
done
t "every script that calls a topic helper sources its file:${missing:- yes}" [ -z "$missing" ]
t "no script has its own copy of a topic helper:${copies:- yes}" [ -z "$copies" ]
unused=""
for f in "${!home[@]}"; do [ -n "${used[$f]:-}" ] || unused+=" $f"; done
t "every topic helper is called somewhere:${unused:- yes}" [ -z "$unused" ]

# the checker itself: a call it must see, and a sourced file it must follow
printf '. /rtlab/lib.sh\nif atleast "$x" 1; then :; fi\n' >"$tmp/a.sh"
printf '. /rtlab/lib.sh\n. /rtlab/lib/rtg.sh\n# near is in a comment\nx=$(mig 1)\n' >"$tmp/b.sh"
not() { ! "$@"; }
follows() { sources "$1" | grep -qx "$2"; }
t "the checker sees a call after 'if'" calls "$tmp/a.sh" atleast
t "the checker sees a call in \$( )" calls "$tmp/b.sh" mig
t "the checker leaves comments out" not calls "$tmp/b.sh" near
t "the checker follows rtg.sh to proc.sh" follows "$tmp/b.sh" proc.sh
host_done
