#!/bin/sh
# Host benchmark of rtirqd's irq event path: system calls (strace) and
# user-space instructions (callgrind) per event, for a new irq thread and
# for a free, on fake trees of 20/200/2000 irqs and 100/1000/10000 kernel
# threads.  --before COMMIT measures that commit's src/ the same way
# (bench/event_bench.c built against it).  Prints a markdown table; also
# written to build/bench/event-bench.md.  --build-only compiles what the
# run would (into build/bench/) and stops: make bench-build, which the host
# test tests/host/bench-build.sh runs in make check.
# Usage: sh bench/event-bench.sh [--before COMMIT] [--cycles N] [--build-only]
set -eu
cd "$(dirname "$0")/.."
CC=${CC:-cc}
CYCLES=20
BEFORE=
BUILD_ONLY=0
while [ $# -gt 0 ]; do
	case $1 in
	--before) BEFORE=$2; shift 2 ;;
	--cycles) CYCLES=$2; shift 2 ;;
	--build-only) BUILD_ONLY=1; shift ;;
	*) echo "usage: $0 [--before COMMIT] [--cycles N] [--build-only]" >&2; exit 1 ;;
	esac
done
[ "$BUILD_ONLY" = 1 ] || for t in strace valgrind; do
	command -v $t >/dev/null || { echo "event-bench: needs $t (tools/rtirqd/deps)" >&2; exit 1; }
done
OUT=build/bench
mkdir -p "$OUT"
W=$(mktemp -d /tmp/rtirqd-evb.XXXXXX)
chmod 755 "$W"
trap 'rm -rf "$W"' EXIT
FLAGS="-std=c11 -Wall -Wextra -D_GNU_SOURCE -O2 -g"

# name srcdir includedir [extra flags]: the shared C helpers (include/rtlab)
# are on the include path, as in the Makefile; the current code also with
# the Makefile's -Werror
build() {
	$CC $FLAGS ${4:-} -I"$2" -I"$3" -o "$W/$1" bench/event_bench.c \
		"$2/rules.c" "$2/task.c" "$2/apply.c" "$2/log.c" -lpthread
}
build now src ../../include -Werror
variants=now
if [ -n "$BEFORE" ]; then
	# that commit's src/ and, when it had them, its shared headers
	top=$(git rev-parse --show-toplevel)
	mkdir "$W/before-src"
	paths=tools/rtirqd/src
	git -C "$top" cat-file -e "$BEFORE:include" 2>/dev/null && paths="$paths include"
	git -C "$top" archive "$BEFORE" $paths | tar -x -C "$W/before-src"
	build before "$W/before-src/tools/rtirqd/src" "$W/before-src/include"
	variants="before now"
fi
if [ "$BUILD_ONLY" = 1 ]; then
	for v in $variants; do cp "$W/$v" "$OUT/event-bench-$v"; done
	echo "event-bench: built $(for v in $variants; do printf '%s ' "$OUT/event-bench-$v"; done)"
	exit 0
fi

# per_event FILE: strace lines between the markers, per event (new, free)
strace_counts() {	# FILE WAKEUPS
	awk -v w="$2" '/rtirqd-bench-begin/ { on = 1; n = 0; next }
	     /rtirqd-bench-end/ { on = 0; c[k % 2] += n; k++; next }
	     on && /^[a-z_0-9]+\(/ { n++ }
	     END { printf "%.1f %.1f\n", c[0] / (k / 2) + w, c[1] / (k / 2) + w }' "$1"
}

run_one() {	# variant irqs threads -> "sys_new sys_free ir_new ir_free"
	v=$1 irqs=$2 threads=$3
	# one tree per size, made by the first run (the driver restores it)
	[ -d "$W/tree-$irqs" ] || mkdir -m 755 "$W/tree-$irqs"
	strace -o "$W/st" "$W/$v" "$W/tree-$irqs" "$irqs" "$threads" "$CYCLES" \
		>"$W/out" 2>/dev/null
	wake=$(sed -n 's/.*wakeups_per_event=\([0-9]*\).*/\1/p' "$W/out")
	set -- $(strace_counts "$W/st" "$wake")
	sys_new=$1 sys_free=$2
	# instructions of each kind of event, one callgrind run each
	for kind in new free; do
		valgrind --tool=callgrind --callgrind-out-file="$W/cg" \
			--toggle-collect=bench_${kind}_event \
			"$W/$v" "$W/tree-$irqs" "$irqs" "$threads" \
			"$CYCLES" >/dev/null 2>&1
		eval "ir_$kind=\$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' \"\$W/cg\")"
	done
	echo "$sys_new $sys_free $((ir_new / CYCLES)) $((ir_free / CYCLES))"
}

{
echo "Method: bench/event_bench.c builds a fake /proc and /sys (IRQS irqs, each"
echo "listing one thread; THREADS fake kernel threads in /proc), starts the"
echo "daemon state as rtirqd does (sysfs source, thread lists), then per cycle"
echo "adds a real idle thread of the benchmark to one irq's thread list (new"
echo "thread) and removes it (free), calling the handler as the event loop"
echo "would after epoll_wait().  syscalls: strace lines between two marker"
echo "calls around each event, plus the epoll_wait() wake-ups the loop needs"
echo "(start commit: 1, the generation file; now: 2, the irq's list and the"
echo "generation file; 1 when both arrive together).  instructions:"
echo "callgrind (--toggle-collect on the handler of one kind of event),"
echo "user-space instructions, total over $CYCLES cycles / $CYCLES.  Host"
echo "figures (no TCG); the kernel's side of each system call is not counted."
echo
echo "| code | irqs | kernel threads | syscalls / new thread | syscalls / free | instructions / new thread | instructions / free |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for v in $variants; do
	for size in "20 100" "200 1000" "2000 10000"; do
		set -- $size
		set -- $1 $2 $(run_one "$v" "$1" "$2")
		label=$v
		[ "$v" = before ] && label="before ($BEFORE)"
		echo "| $label | $1 | $2 | $3 | $4 | $5 | $6 |"
	done
done
} | tee "$OUT/event-bench.md"
