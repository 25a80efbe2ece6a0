#!/bin/bash
# Install the Debian packages the lab and every component list in their
# "deps" files.  As root, missing ones are installed with apt-get; otherwise
# the missing ones are named and the run fails.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
want=$(for f in "$top/deps" "$top"/lib/*/deps "$top"/tools/*/deps "$top"/cocci/deps; do
	if [ -f "$f" ]; then sed 's/#.*//' "$f"; fi
done | tr -s ' \t' '\n' | grep -v '^$' | sort -u)
missing=()
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
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
