#!/bin/bash
# Run the tree's scripts/checkpatch.pl --strict over every patch of the
# series.  Prints TAP, one point a patch; any ERROR, WARNING or CHECK fails it.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cp=$rtlab_tree/scripts/checkpatch.pl
[ -f "$cp" ] || { echo "not ok 1 checkpatch: $cp missing (make tree)"; exit 1; }
mapfile -t patches < <(series)
echo "TAP version 13"
fail=0
if [ ${#patches[@]} -eq 0 ]; then
	echo "1..1"
	echo "ok 1 checkpatch: the series is empty # SKIP no patches yet"
	exit 0
fi
echo "1..${#patches[@]}"
i=0
for p in "${patches[@]}"; do
	i=$((i + 1))
	# UNKNOWN_COMMIT_ID: the tree is Debian's source without git history,
	# so checkpatch cannot look up the ids of Fixes: tags and "commit X"
	# references; it would flag every one
	out=$(cd "$rtlab_tree" && perl "$cp" --strict -q --show-types --ignore UNKNOWN_COMMIT_ID "$rtlab_patches/$p" 2>&1)
	if echo "$out" | grep -qE '^(ERROR|WARNING|CHECK)'; then
		echo "not ok $i checkpatch --strict $p"
		echo "$out" | sed 's/^/# /'
		fail=1
	else
		echo "ok $i checkpatch --strict $p"
	fi
done
exit $fail
