#!/bin/sh
# lab-bundle.sh BUILD: the lab's own format bundle of the rt kernel
# (lab/rtlab formats, build/out/rt/ftdump-formats) converts, on the host,
# the console log of the raw panic dump of the last guest run
# (tests/guest/91-ftdump-panic-raw.sh) into the same records, byte for
# byte, as the guest's conversion with the bundle it saved itself. TAP.
set -u
b=${1:?usage: lab-bundle.sh BUILD}
here=$(cd "$(dirname "$0")/.." && pwd)
fmt=$b/out/rt/ftdump-formats
echo "TAP version 13"
echo "1..2"
if [ -f "$fmt/.stamp" ]; then echo "ok 1 the lab keeps the rt kernel's bundle ($fmt)"; else echo "not ok 1 no bundle at $fmt (lab/rtlab formats)"; fi
p2=$(ls -d "$b"/run/guest/*/out/91-ftdump-panic-raw.sh 2>/dev/null | while read -r d; do [ -f "$d/dump-raw.dat" ] && echo "$d"; done | tail -n 1)
if [ -z "$p2" ]; then
	echo "not ok 2 no phase 2 of 91-ftdump-panic-raw.sh in $b/run/guest"
	exit 1
fi
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
"$here/ftdump" -q -f "$fmt" -o "$t/host.dat" "$p2.prev/console.log" 2>"$t/err"
"$here/build/dat2raw" --records "$t/host.dat" | sort -k1,1n -k2,2n >"$t/host"
"$here/build/dat2raw" --records "$p2/dump-raw.dat" | sort -k1,1n -k2,2n >"$t/guest"
if [ -s "$t/guest" ] && cmp -s "$t/host" "$t/guest"; then
	echo "ok 2 the panic's raw dump converted on the host with the lab's bundle: $(wc -l <"$t/host") records, byte for byte the guest's"
else
	echo "not ok 2 the panic's raw dump converted on the host with the lab's bundle differs from the guest's ($(wc -l <"$t/host") against $(wc -l <"$t/guest") records)"
	sed 's/^/# /' "$t/err" | head -5
	exit 1
fi
