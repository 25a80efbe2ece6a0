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
# A word PACKAGE/SUITE takes PACKAGE from that suite of the same Debian
# release (e.g. qemu-system-x86/bookworm-backports, lab/README's why): the
# suite is added to apt's sources from the release's own entry (same
# archive, same key) and PACKAGE counts as present only in a version that
# suite built (a "~bpoNN" version for a backports suite).
plain=$(echo "$want" | grep -v /) || true
suited=$(echo "$want" | grep /) || true

# One dpkg-query for all packages (it runs on every make): an unknown
# package prints nothing on stdout, so it counts as missing.
installed() {
	dpkg-query -W -f='${db:Status-Abbrev} ${Package} ${Version}\n' "$@" 2>/dev/null |
		awk '$1 == "ii" { sub(/:.*/, "", $2); print $2, $3 }'
}
mapfile -t have < <(installed $plain $(echo "$suited" | sed 's|/.*||') | awk '{ print $1 }' | sort -u)
mapfile -t missing < <(comm -23 <(echo "$plain") <(printf '%s\n' "${have[@]}"))
# suite_ok PACKAGE SUITE: PACKAGE is installed in a version SUITE built
suite_ok() {
	local v
	v=$(installed "$1" | awk '{ print $2 }')
	case "$2" in
	*-backports) [[ "$v" == *~bpo* ]] ;;
	*) [ -n "$v" ] ;;
	esac
}
missing_suited=()
for w in $suited; do
	suite_ok "${w%%/*}" "${w#*/}" || missing_suited+=("$w")
done
n=$(echo "$want" | wc -w)
[ ${#missing[@]} -eq 0 ] && [ ${#missing_suited[@]} -eq 0 ] && { echo "deps: all $n packages present"; exit 0; }
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages (run as root, or apt-get install them): ${missing[*]} ${missing_suited[*]}" >&2
	exit 1
fi

# add_suite SUITE: an apt source for SUITE made from the entry of its
# release (SUITE less its "-backports"), in deb822 or one-line form
add_suite() {
	local suite=$1 base=${1%-*} f=/etc/apt/sources.list.d/rtlab-$1.sources uri key
	if grep -rqsE "^(Suites:.*[[:space:]]|deb .*[[:space:]])$suite([[:space:]]|$)" \
		/etc/apt/sources.list /etc/apt/sources.list.d/; then
		return 0
	fi
	read -r uri key < <(awk -v b="$base" '
		/^URIs:/ { u = $2 } /^Signed-By:/ { k = $2 }
		/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == b) s = 1 }
		/^$/ { if (s && u) { print u, k; exit } s = 0; k = "" }
		/^deb / && !/^deb-src/ { for (i = 3; i <= NF; i++) if ($i == b && $(i - 1) ~ /^[a-z]+:/) { print $(i - 1); exit } }
		END { if (s && u) print u, k }' \
		$(ls /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null) | head -n 1)
	[ -n "$uri" ] || { echo "deps: no apt source for $base to add $suite from" >&2; return 1; }
	{
		echo "Types: deb"
		echo "URIs: $uri"
		echo "Suites: $suite"
		echo "Components: main"
		[ -z "$key" ] || echo "Signed-By: $key"
	} >"$f"
	echo "deps: added $suite to apt's sources ($f)"
}

export DEBIAN_FRONTEND=noninteractive
for w in "${missing_suited[@]}"; do add_suite "${w#*/}" || exit 1; done
apt-get update -q >/dev/null
if [ ${#missing[@]} -gt 0 ]; then
	echo "deps: installing ${missing[*]}"
	apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
		{ echo "deps: apt-get install failed for: ${missing[*]}" >&2; exit 1; }
fi
for w in "${missing_suited[@]}"; do
	echo "deps: installing ${w%%/*} from ${w#*/}"
	apt-get install -y -q --no-install-recommends -t "${w#*/}" "${w%%/*}" >/dev/null ||
		{ echo "deps: apt-get install -t ${w#*/} ${w%%/*} failed" >&2; exit 1; }
	suite_ok "${w%%/*}" "${w#*/}" || { echo "deps: ${w%%/*} is not ${w#*/}'s version after the install" >&2; exit 1; }
done
