#!/bin/bash
# make check: build everything, run every host test and every guest test,
# the harness self-tests, a short reboot test and checkpatch, then print one
# tally.  The last line is "N passed, N failed"; the exit status is non-zero
# on any failure.  Each suite's TAP is kept in build/results/.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${BUILD:-$top/build}
results=$build/results
labcheck=$build/bin/labcheck
host_only=0
[ "${1:-}" = --host-only ] && host_only=1
rm -rf "$results"
mkdir -p "$results"

stamp() { date +%s; }
t_start=$(stamp)
phase() { echo "== $* ($(( $(stamp) - t_start )) s)"; }

# boot_walls SUITE: one line per boot of build/run/SUITE: its machine, wall
# time and points (where CI's minutes go)
boot_walls() {
	local d
	[ ! -s "$build/run/$1/emulator-faults" ] || sed 's/^/   /' "$build/run/$1/emulator-faults"
	for d in "$build"/run/"$1"/*/; do
		[ -f "$d/wall" ] || continue
		printf '   boot %-44s %6s s wall, %s points\n' "$(basename "$d")" "$(cat "$d/wall")" \
			"$(grep -cE '^(not )?ok' "$d/result.tap" 2>/dev/null)"
	done
}

# A suite that could not even start still counts, as one failure.
fail_suite() { printf 'not ok 1 %s\n' "$2" >"$results/$1.tap"; }

phase "build"
if [ "$host_only" = 1 ]; then
	make -s tools >"$results/build.log" 2>&1 || { tail -n 30 "$results/build.log"; fail_suite build "build: make tools failed"; }
else
	if ! make -s all >"$results/build.log" 2>&1; then
		tail -n 40 "$results/build.log"
		fail_suite build "build: make all failed (build/results/build.log)"
		"$labcheck" tally "$results"/*.tap 2>/dev/null || echo "0 passed, 1 failed"
		exit 1
	fi
	grep -E '^(prepare-tree|build-kernel|build-modules|mkinitramfs):' "$results/build.log" | sed 's/^/   /'
fi

phase "host tests"
for t in tests/host/*.sh; do
	[ -x "$t" ] || continue
	n=host-$(basename "$t" .sh)
	"$t" >"$results/$n.tap" 2>"$results/$n.err" || true
	sed 's/^/   /' "$results/$n.tap" | grep -E '^   (not ok|ok|1\.\.)' | grep -v '^   ok' || true
done
for c in lib/*/ tools/*/ cocci/; do
	[ -f "$c/Makefile" ] || continue
	n=host-$(basename "$c")
	timeout 900 make -s -C "$c" check >"$results/$n.tap" 2>"$results/$n.err" ||
		{ grep -q '^not ok' "$results/$n.tap" || echo "not ok - make -C $c check failed (build/results/$n.err)" >>"$results/$n.tap"; }
done
"$labcheck" tally "$results"/host-*.tap | sed 's/^/   /'

if [ "$host_only" = 0 ]; then
	phase "guest tests"
	mapfile -t gt < <(find tests/guest -maxdepth 1 -type f -name '*.sh' ! -name lib.sh | sort)
	lab/rtlab run --suite guest "${gt[@]}" >"$results/guest.log" 2>&1
	# one TAP file per boot: each has its own plan line
	n=0
	for r in "$build"/run/guest/*/result.tap; do
		[ -f "$r" ] || continue
		n=$((n + 1))
		cp "$r" "$results/guest-$(basename "$(dirname "$r")").tap"
	done
	[ "$n" -gt 0 ] || fail_suite guest "guest tests: no boot produced results (build/results/guest.log)"
	grep -hE '^not ok' "$results"/guest*.tap | sed 's/^/   /'
	boot_walls guest

	phase "emulator check"
	# live text patching on 2 and 4 vCPUs (lab/selftest/textpoke.sh) on
	# single-threaded TCG, the lab's accelerator for tests that patch
	# kernel text: clean there, the kernel's patching is right; on
	# multi-threaded TCG it is the emulator that fails (docs/results/lab.md)
	ACCEL=tcg1 TOGGLE_SECS=${TOGGLE_SECS:-20} GRAPHS=${GRAPHS:-0} \
		lab/rtlab textpoke "${TEXTPOKE_BOOTS:-1}" >"$results/textpoke.tap" 2>&1
	grep -E '^(not )?ok' "$results/textpoke.tap" | sed 's/^/   /'

	phase "demo"
	# the newcomer's first command (make demo): its boots, its figures and a
	# clean console, so that a broken demo fails CI
	lab/rtlab demo >"$results/demo.log" 2>&1
	rc=$?
	for r in "$build"/run/demo/*/result.tap; do
		[ -f "$r" ] && cp "$r" "$results/demo-$(basename "$(dirname "$r")").tap"
	done
	if [ "$rc" = 0 ]; then
		echo "ok 1 make demo: every figure, no splat ($(sed -n 's/.*two boots, \([0-9]*\) s of wall time.*/\1/p' "$results/demo.log") s)" >"$results/demo.tap"
	else
		{ echo "not ok 1 make demo failed (build/results/demo.log):"; grep -E '^demo:|^console:|benchmark point failed' "$results/demo.log" | sed 's/^/# /'; } >"$results/demo.tap"
	fi
	sed -n '/^What the patches/,/^$/p' "$results/demo.log" | sed 's/^/   /'
	boot_walls demo
	grep -hE '^not ok' "$results"/demo*.tap | sed 's/^/   /'

	phase "format bundles"
	# each kernel's ftdump bundle kept next to its image (issue 19), and
	# the panic dump of the guest run converted on the host with it
	lab/rtlab formats >"$results/formats.tap" 2>&1
	tools/ftdump/tests/lab-bundle.sh "$build" >"$results/formats-host.tap" 2>&1
	grep -hE '^not ok' "$results/formats.tap" "$results/formats-host.tap" | sed 's/^/   /'

	phase "harness self-tests"
	lab/rtlab selftest >"$results/selftest.tap" 2>&1
	grep -E '^not ok' "$results/selftest.tap" | sed 's/^/   /'

	phase "reboot test"
	lab/rtlab reboot "${REBOOTS:-5}" >"$results/reboot.tap" 2>&1
	tail -n 1 "$results/reboot.tap" | sed 's/^/   /'

	# only when kernel/configs/ has build-only variants: a TAP file with no
	# test point counts as a failure in the tally
	if [ -n "$(lab/rtlab variants --build-only)" ]; then
		phase "build-only kernels"
		kernel/scripts/build-only.sh >"$results/build-only.tap" 2>&1
		grep -E '^not ok' "$results/build-only.tap" | sed 's/^/   /'
	fi

	phase "checkpatch"
	kernel/scripts/checkpatch.sh >"$results/checkpatch.tap" 2>&1
	grep -E '^not ok' "$results/checkpatch.tap" | sed 's/^/   /'
fi

phase "done"
# every failure again, next to the tally: a CI log is often cut in the middle
if grep -q '^not ok' "$results"/*.tap 2>/dev/null; then
	echo "== failures"
	grep -H '^not ok' "$results"/*.tap | sed "s|^$results/|   |"
	# and what each failed point printed before it (its diagnostics, the
	# last 30 lines of them), so that a CI log alone explains the failure
	echo "== failures with their diagnostics"
	for f in "$results"/*.tap; do
		awk -v f="${f#"$results"/}" '
			/^#/ { d[n++ % 30] = $0; next }
			/^not ok/ { print "   " f ": " $0
				for (i = (n > 30 ? n - 30 : 0); i < n; i++) print "      " d[i % 30] }
			{ n = 0 }' "$f"
	done
fi
"$labcheck" tally "$results"/*.tap
