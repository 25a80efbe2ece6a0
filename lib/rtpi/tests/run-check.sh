#!/bin/sh
# Runs lib/rtpi's host tests and prints one TAP stream (kselftest style).
# Called by `make check` with B (build dir), VALGRIND, STRESS_MS, HG_MS.
B=${B:-build}
VALGRIND=${VALGRIND:-valgrind}
STRESS_MS=${STRESS_MS:-2000}
HG_MS=${HG_MS:-800}
n=0
failed=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

echo "TAP version 13"

ok()   { n=$((n + 1)); echo "ok $n $*"; }
nok()  { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n $*"; }
skip() { n=$((n + 1)); echo "ok $n $1 # SKIP $2"; }

# run LABEL EXPECTED_RC CMD...: renumber the program's "ok - " lines
run() {
	label=$1; want=$2; shift 2
	timeout 150 "$@" >"$out" 2>&1
	rc=$?
	sub_failed=0
	while IFS= read -r line; do
		case $line in
		"ok - "*) ok "[$label] ${line#ok - }" ;;
		"not ok - "*) nok "[$label] ${line#not ok - }"; sub_failed=1 ;;
		"# "*) echo "$line" ;;
		*) echo "# $line" ;;
		esac
	done <"$out"
	if [ "$rc" -ne "$want" ]; then
		nok "[$label] $* exited with status $rc (expected $want)"
	fi
}

export ASAN_OPTIONS=abort_on_error=0:detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export TSAN_OPTIONS=halt_on_error=1:exitcode=66

run api 0 "$B/t_api"
run native 0 "$B/t_conf_native"
run preload 0 env LD_PRELOAD="$PWD/$B/librtpi-preload.so" "$B/t_conf_pthread"
run asan+ubsan/api 0 "$B/san/t_api"
run asan+ubsan/native 0 "$B/san/t_conf_native"
run asan+ubsan/preload-linked 0 "$B/san/t_conf_pthread"
pre="env LD_PRELOAD=$PWD/$B/librtpi-preload.so"
run cancel/native 0 "$B/t_cancel_native"
run cancel/preload 0 $pre "$B/t_cancel_pthread"
run cancel/CANCEL=0 0 "$B/nocancel/t_cancel_native" off
run asan+ubsan/cancel-native 0 "$B/san/t_cancel_native"
run asan+ubsan/cancel-preload-linked 0 "$B/san/t_cancel_pthread"
run destroy/native 0 "$B/t_destroy_native"
run destroy/preload 0 $pre "$B/t_destroy_pthread"
run asan+ubsan/destroy-native 0 "$B/san/t_destroy_native"
run asan+ubsan/destroy-preload-linked 0 "$B/san/t_destroy_pthread"
# 1..16 waiters under TSan: 1..64 would take minutes there
run tsan/destroy-native 0 "$B/tsan/t_destroy_native" 16
run tsan/destroy-preload-linked 0 "$B/tsan/t_destroy_pthread" 16
run c++11 0 "$B/t_cxx11"
run c++17 0 "$B/t_cxx17"
run asan+ubsan/c++17 0 "$B/san/t_cxx17"
# librtpi 1.0's ABI: programs laid out by librtpi 1.0's header
# (tests/abi-librtpi10.h), run on this build's librtpi.so.1
for t in t_abi t_abi_cxx; do
	lib=$(ldd "$B/$t" 2>/dev/null | awk '$1 == "librtpi.so.1" { print $3 }')
	if [ "$lib" -ef "$B/librtpi.so.1" ]; then
		ok "[abi] $t needs librtpi.so.1 and loads this build's ($lib)"
	else
		nok "[abi] $t: librtpi.so.1 resolves to '$lib', not $B/librtpi.so.1"
	fi
done
run abi/librtpi-1.0-layout 0 "$B/t_abi"
run abi/librtpi-1.0-layout-c++ 0 "$B/t_abi_cxx"
run asan+ubsan/abi 0 "$B/san/t_abi"
run asan+ubsan/abi-c++ 0 "$B/san/t_abi_cxx"
for h in t_header t_header_cxx; do
	if "$B/$h" >"$out" 2>&1; then
		ok "[header] $h: a program including only rtpi.h (EXIT_FAILURE, pthread_create, PRIu64, errno values, FUTEX_WAITERS) builds with -Wall -Wextra -Werror and runs"
	else
		nok "[header] $h: failed check $? $(head -1 "$out")"
	fi
done
run tsan/native 0 "$B/tsan/t_stress_native" "$STRESS_MS" 4 8
run tsan/preload-linked 0 "$B/tsan/t_stress_pthread" "$STRESS_MS" 4 8

if command -v "$VALGRIND" >/dev/null 2>&1; then
	run helgrind 0 "$VALGRIND" --tool=helgrind -q --error-exitcode=9 \
		"$B/t_stress_hg" "$HG_MS" 3 4
	# the checker must still see a real race through the annotations
	timeout 150 "$VALGRIND" --tool=helgrind -q --error-exitcode=9 \
		"$B/t_stress_hg" 200 2 2 race >"$out" 2>&1
	rc=$?
	if [ "$rc" -eq 9 ] && grep -q "Possible data race" "$out"; then
		ok "[helgrind] a deliberate unprotected counter is reported (annotations do not hide races)"
	else
		nok "[helgrind] deliberate race not reported (status $rc)"
	fi
else
	nok "[helgrind] $VALGRIND not found (install the deps)"
fi

# install into a scratch root; build a librtpi program with pkg-config
D=$(mktemp -d)
if make -s install DESTDIR="$D" PREFIX=/usr/local >"$out" 2>&1; then
	flags=$(PKG_CONFIG_PATH=$D/usr/local/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$D pkg-config --cflags --libs rtpi)
	if ${CC:-cc} -std=c11 -Wall -Wextra -Werror -o "$D/ex" tests/t_pkgconfig.c $flags -pthread &&
	   [ "$(LD_LIBRARY_PATH=$D/usr/local/lib "$D/ex")" = 110 ] &&
	   ${CC:-cc} -std=c11 -Wall -Wextra -Werror -static-libgcc -o "$D/ex-static" tests/t_pkgconfig.c \
		-I"$D/usr/local/include" "$D/usr/local/lib/librtpi.a" -pthread &&
	   [ "$("$D/ex-static")" = 110 ] &&
	   ${CXX:-g++} -x c++ -std=c++11 -Wall -Wextra -Werror -o "$D/ex-cxx" tests/t_pkgconfig.c \
		-x none $flags -pthread &&
	   [ "$(LD_LIBRARY_PATH=$D/usr/local/lib "$D/ex-cxx")" = 110 ]; then
		ok "[install] librtpi program built with pkg-config ($flags): C shared, C static and C++11, runs"
	else
		nok "[install] building against the installed library failed"
	fi
	for f in include/rtpi.h include/rtpi/mutex.hpp include/rtpi/condition_variable.hpp lib/librtpi.so.1 lib/librtpi-preload.so lib/pkgconfig/rtpi.pc \
		share/man/man3/pi_cond_wait.3 share/man/man7/rtpi-preload.7 libexec/rtlab/rtpi-inversion \
		libexec/rtlab/rtpi-wakeup; do
		[ -e "$D/usr/local/$f" ] || { nok "[install] missing $f"; continue; }
	done
	bad=0
	for m in "$D"/usr/local/share/man/man*/*; do
		[ -s "$m" ] && ! grep -q '^\.so ' "$m" || continue
		LC_ALL=C MANWIDTH=80 man --warnings -l "$m" 2>&1 >/dev/null | grep -q . && { bad=1; echo "# man warnings: $m"; }
	done
	[ $bad = 0 ] && ok "[install] files in place; man pages format without warnings" || nok "[install] man page warnings"
else
	nok "[install] make install failed: $(tail -n 3 "$out")"
fi
rm -rf "$D"

# the inversion helper on the host (the guest test is the real target)
inv="$B/rtpi-inversion"
if "$inv" --bogus >"$out" 2>&1; then
	nok "[inversion] bad option accepted"
else
	grep -q "^rtpi-inversion: command line: unknown option '--bogus'" "$out" &&
		ok "[inversion] bad option: error message and non-zero status" ||
		nok "[inversion] bad option: unexpected message: $(head -1 "$out")"
fi
if ! chrt -f 1 true 2>/dev/null; then
	skip "[inversion] host rounds" "no SCHED_FIFO on this host"
else
	for m in rtpi preload; do
		pre=
		[ $m = preload ] && pre="LD_PRELOAD=$PWD/$B/librtpi-preload.so"
		res=$(env $pre timeout 100 "$inv" -m $m -s groups -n 100 -t 200 2>&1)
		rc=$?
		echo "# $res"
		[ $rc -eq 0 ] && ok "[inversion] $m: 100 host rounds of the group inversion complete" ||
			nok "[inversion] $m: $res (status $rc)"
	done
	res=$(timeout 60 "$inv" -m glibc -s groups -n 3 -t 100 2>&1)
	rc=$?
	echo "# glibc baseline on this host (expected to starve): $res"
	[ $rc -eq 1 ] && ok "[inversion] glibc baseline starves H in the group scenario, as explained in tests/guest/50-rtpi-inversion.sh" ||
		nok "[inversion] glibc baseline: status $rc: $res"
fi

# the wake-up benchmark runs on the librtpi.so.1 that LD_LIBRARY_PATH names
# (bench/guest/rtpi-wakeup.sh's rtpi-base mode compares two builds that way):
# linked dynamically, with a RUNPATH (searched after LD_LIBRARY_PATH), no
# RPATH (searched before it); on the host, the library of a copy directory
wk="$B/rtpi-wakeup"
dyn=$(readelf -d "$wk" 2>&1)
if echo "$dyn" | grep -q 'NEEDED.*\[librtpi\.so\.1\]' && echo "$dyn" | grep -q '(RUNPATH)' &&
   ! echo "$dyn" | grep -q '(RPATH)'; then
	ok "[wakeup] rtpi-wakeup needs librtpi.so.1, RUNPATH and no RPATH"
else
	nok "[wakeup] rtpi-wakeup's dynamic section: $(echo "$dyn" | grep -E 'NEEDED|PATH' | tr -s ' ' | tr '\n' ';')"
fi
if ! chrt -f 1 true 2>/dev/null; then
	skip "[wakeup] runs on the library LD_LIBRARY_PATH names" "no SCHED_FIFO on this host"
else
	wd=$(mktemp -d)
	cp "$B/librtpi.so.1.0.0" "$wd/" && ln -s librtpi.so.1.0.0 "$wd/librtpi.so.1"
	res=$(LD_LIBRARY_PATH=$wd timeout 30 "$wk" -m rtpi -n 50 -H 50 -g 100 2>&1)
	echo "# $res"
	case $res in
	*" librtpi=$wd/librtpi.so.1") ok "[wakeup] 50 host wake-ups on the librtpi.so.1 of LD_LIBRARY_PATH" ;;
	*) nok "[wakeup] LD_LIBRARY_PATH=$wd: not run on its librtpi.so.1" ;;
	esac
	rm -rf "$wd"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
