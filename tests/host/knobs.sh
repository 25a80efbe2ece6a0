#!/bin/bash
# Every knob is in docs/HACKING.md, "Knobs": a name the code reads with a
# default -- a shell default expansion (NAME:-x or NAME-x inside the
# braces), C getenv("NAME"), a Makefile "NAME ?= x" -- in lab/, tests/,
# bench/, scripts/, kernel/scripts/, tools/, lib/, cocci/ or the top
# Makefile (tracked files) is a row of one of that section's tables, or is
# named in its "Not knobs" paragraph (set by the harness, by the system or
# by a script for itself).  Upper-case names only: lower-case ones are a
# script's locals.  Also: every name of "Not knobs" is still read with a
# default (no stale exceptions).  Prints TAP.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
host_test knobs
doc=$top/docs/HACKING.md
dirs=(lab tests bench scripts kernel/scripts tools lib cocci Makefile)

# the files to scan: tracked ones (build output is not code)
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	git -C "$top" ls-files -z -- "${dirs[@]}" >"$tmp/files"
else
	(cd "$top" && find "${dirs[@]}" -type f ! -path '*/build/*' -print0) >"$tmp/files"
fi

# reads: "NAME FILE:LINE" for each read with a default
(
	cd "$top" || exit 1
	xargs -0 grep -IHnoE '\$\{[A-Z_][A-Z0-9_]*:?-' <"$tmp/files" |
		sed -E 's/^([^:]*:[0-9]+):\$\{([A-Z0-9_]+).*/\2 \1/'
	xargs -0 grep -IHnoE 'getenv\("[A-Z_][A-Z0-9_]*"\)' <"$tmp/files" |
		grep -E '^[^:]*\.[ch]:' | sed -E 's/^([^:]*:[0-9]+):getenv\("([^"]+)"\)/\2 \1/'
	tr '\0' '\n' <"$tmp/files" | grep -E '(^|/)(Makefile|[^/]*\.mk)$' | tr '\n' '\0' |
		xargs -0 -r grep -IHnE '^[A-Z_][A-Z0-9_]*[[:space:]]*\?=' |
		sed -E 's/^([^:]*:[0-9]+):([A-Z0-9_]+).*/\2 \1/'
) | sort -u -k1,1 -k2,2V >"$tmp/reads"
cut -d' ' -f1 "$tmp/reads" | sort -u >"$tmp/read-names"

# the section: from "## Knobs" to the next "## " heading
sed -n '/^## Knobs/,/^## [^K]/p' "$doc" >"$tmp/section"
# table rows: the names in backquotes of the first cell
grep -E '^\| `' "$tmp/section" | cut -d'|' -f2 | grep -oE '`[A-Z_][A-Z0-9_]*`' | tr -d '`' |
	sort -u >"$tmp/table"
# "Not knobs ...": the paragraph up to its blank line
sed -n '/^Not knobs/,/^$/p' "$tmp/section" | grep -oE '`[A-Z_][A-Z0-9_]*`' | tr -d '`' |
	sort -u >"$tmp/notknobs"

t "the Knobs section has its tables ($(wc -l <"$tmp/table") names) and a Not knobs paragraph ($(wc -l <"$tmp/notknobs"))" \
	test -s "$tmp/table" -a -s "$tmp/notknobs"
t "the code reads names with a default ($(wc -l <"$tmp/read-names") names)" test -s "$tmp/read-names"

# missing: read with a default, in neither list; shown with where it is read
sort -u "$tmp/table" "$tmp/notknobs" >"$tmp/known"
comm -23 "$tmp/read-names" "$tmp/known" >"$tmp/missing"
missing_where() {
	local k
	while read -r k; do
		echo "$k: not in docs/HACKING.md \"Knobs\", read at $(awk -v k="$k" '$1 == k { print $2 }' "$tmp/reads" |
			head -n 3 | tr '\n' ' ')"
	done <"$tmp/missing"
	[ ! -s "$tmp/missing" ]
}
t "every knob read with a default has a row in docs/HACKING.md \"Knobs\"$(
	[ -s "$tmp/missing" ] && echo " (missing: $(tr '\n' ' ' <"$tmp/missing" | sed 's/ $//'))")" missing_where

# no name both a knob and not one, and no stale exception
both=$(comm -12 "$tmp/table" "$tmp/notknobs" | tr '\n' ' ')
t "no name is both in a table and in Not knobs${both:+ ($both)}" test -z "$both"
stale=$(comm -23 "$tmp/notknobs" "$tmp/read-names" | tr '\n' ' ')
t "every name of Not knobs is still read with a default${stale:+ (not any more: $stale)}" test -z "$stale"
host_done
