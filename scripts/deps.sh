#!/bin/bash
# The package step, first prerequisite of every target that compiles: install
# the Debian packages listed in the top "deps" file (the lab's) and in every
# component's "deps" file.  As root, missing ones are installed with apt-get;
# otherwise the missing ones are named and the run fails.  It needs nothing
# but dpkg and apt, so it works on a machine with no compiler yet.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
want=$(for f in "$top/deps" "$top"/lib/*/deps "$top"/tools/*/deps "$top"/cocci/deps; do
	if [ -f "$f" ]; then sed 's/#.*//' "$f"; fi
done | tr -s ' \t' '\n' | grep -v '^$' | sort -u)
# One dpkg-query for all packages (it runs on every make): an unknown
# package prints nothing on stdout, so it counts as missing.
mapfile -t have < <(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' $want 2>/dev/null |
	awk '$1 == "ii" { print $2 }' | sed 's/:.*//' | sort -u)
mapfile -t missing < <(comm -23 <(echo "$want") <(printf '%s\n' "${have[@]}"))
[ ${#missing[@]} -eq 0 ] && { echo "deps: all $(echo "$want" | wc -w) packages present"; exit 0; }
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages (run as root, or apt-get install them): ${missing[*]}" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
	{ echo "deps: apt-get install failed for: ${missing[*]}" >&2; exit 1; }
