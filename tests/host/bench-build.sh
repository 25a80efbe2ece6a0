#!/bin/bash
# Every benchmark builds (nothing is run): a benchmark that CI never builds
# rots unseen (issue 42: `make -C tools/rtirqd bench` compiled without the
# shared headers for days).  Seconds, not minutes.  Prints TAP.
#  - each component with a `bench` target (lib/*, tools/*, tests/progs,
#    cocci) has a `bench-build` target, and it succeeds: the benchmark's
#    programs compiled the way `make bench` compiles them, its scripts
#    checked with sh -n;
#  - every C source of a benchmark (*bench*.c, */bench/*.c) is named by
#    its component's Makefile (no orphan nobody compiles);
#  - the guest benchmarks (bench/guest/*.sh) parse (sh -n), and every
#    program, library, module and guest library they name by path, or
#    through the guest library they source, is built: the components
#    installed into a scratch root as lab/image/stage-tools.sh installs them
#    into the image, /rtlab/lib* from tests/guest, /rtlab/modules/X.ko from
#    kernel/modules/X;
#  - the host drivers (bench/host/**/*.sh) parse.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
host_test bench-build
cd "$top" || exit 1
# as lab/image/stage-tools.sh: keep make's flags, drop a caller's variables
export MAKEFLAGS
MAKEFLAGS=$(printenv MAKEFLAGS | sed 's/ -- .*//')
unset MAKEOVERRIDES

# paths the guest benchmarks may name that no build makes: made on request
# only (RTPI_BASE=<ref> make bench: lib/rtpi's install-base)
optional_paths=(/usr/local/lib/rtpi-base)

comps=()
for m in lib/*/Makefile tools/*/Makefile tests/progs/Makefile cocci/Makefile; do
	[ -f "$m" ] && comps+=("${m%/Makefile}")
done

# --- component benchmarks -------------------------------------------------
has_rule() { grep -qE "^$2:" "$1/Makefile"; }
bench_build() {
	has_rule "$1" bench-build || { echo "$1/Makefile has a bench target but no bench-build"; return 1; }
	make -s -C "$1" bench-build
}
for c in "${comps[@]}"; do
	has_rule "$c" bench || continue
	t "$c: make bench-build (the benchmark compiled, not run)" bench_build "$c"
done

# every benchmark C source is compiled by some rule of its component
orphans() {
	local f c d rel bad=0
	while read -r f; do
		c=
		for d in "${comps[@]}"; do
			case $f in "$d"/*) c=$d ;; esac
		done
		[ -n "$c" ] || continue
		rel=${f#"$c"/}
		grep -qF -- "$rel" "$c/Makefile" || { echo "$f: not in $c/Makefile"; bad=1; }
	done < <(git ls-files -- '*bench*.c' '*/bench/*.c' | sort -u)
	return $bad
}
t "every benchmark C source (*bench*.c, */bench/*.c) is built by its Makefile" orphans

# --- guest benchmarks -----------------------------------------------------
stage=$tmp/stage
install_all() {	# all of them: one that fails leaves only its own programs out
	local c bad=0
	for c in "${comps[@]}"; do
		grep -qE '^install:' "$c/Makefile" || continue
		make -s -C "$c" install DESTDIR="$stage" PREFIX=/usr/local >/dev/null ||
			{ echo "make -C $c install failed"; bad=1; }
	done
	return $bad
}
t "every component installs into a scratch root (the image's programs)" install_all

# guest_paths SCRIPT: the absolute paths SCRIPT names, and those of the
# guest libraries it sources
guest_paths() {
	local f
	{
		grep -v '^[[:space:]]*#' "$1"
		for f in $(grep -oE '^[[:space:]]*\. /rtlab/lib/[A-Za-z0-9_.-]+' "$1" | sed 's/.*\/rtlab\/lib\//tests\/guest\/lib\//'); do
			[ -f "$f" ] && grep -v '^[[:space:]]*#' "$f"
		done
	} | grep -oE '/(usr/local|rtlab)/[A-Za-z0-9_./-]*[A-Za-z0-9_]' | sort -u
}
# built PATH: PATH exists in the guest image as built from this tree
built() {
	local p=$1 o
	for o in "${optional_paths[@]}"; do [ "$p" = "$o" ] && return 0; done
	case $p in
	/usr/local/*) [ -e "$stage$p" ] ;;
	/rtlab/lib.sh) [ -f tests/guest/lib.sh ] ;;
	/rtlab/lib/*) [ -f "tests/guest/lib/${p#/rtlab/lib/}" ] ;;
	/rtlab/modules/*.ko) p=${p#/rtlab/modules/}; [ -f "kernel/modules/${p%.ko}/Makefile" ] ;;
	/rtlab/bench/*) [ -f "bench/guest/${p#/rtlab/bench/}" ] ;;
	/rtlab/tests/*) [ -f "tests/guest/${p#/rtlab/tests/}" ] ;;
	/rtlab/out*|/rtlab/configs*) return 0 ;;	# made at boot, by mkinitramfs
	*) return 1 ;;
	esac
}
guest_bench() {
	local p bad=0 n=0
	sh -n "$1" || return 1
	for p in $(guest_paths "$1"); do
		n=$((n + 1))
		built "$p" || { echo "$1 names $p: not built"; bad=1; }
	done
	echo "$n paths"
	return $bad
}
for s in bench/guest/*.sh; do
	t "$s: sh -n, and every program and module it names is built" guest_bench "$s"
done

# --- host drivers ---------------------------------------------------------
host_syntax() {
	local f sh bad=0
	while read -r f; do
		sh=sh
		head -n 1 "$f" | grep -q bash && sh=bash
		$sh -n "$f" || { echo "$f: $sh -n failed"; bad=1; }
	done < <(find bench/host -name '*.sh' | sort)
	return $bad
}
t "bench/host/**/*.sh parse (bash -n or sh -n by their first line)" host_syntax
host_done
