#!/bin/bash
# lab/rtlab textpoke [BOOTS]: the emulator check (issue 38).  BOOTS boots
# (default 3) each of lab/selftest/textpoke/2cpu and 4cpu: tracepoints and
# function_graph switched on and off thousands of times under hackbench,
# which patches kernel text live on every vCPU.  An emulator whose
# multi-threaded TCG runs stale code after such a patch ends the boot in
# "Oops: int3"; the lab's QEMU must pass this on its default accelerator.
# Never booted again on a fault (EMULATOR_RETRIES=0): the faults are what
# it counts.  TAP, one point a boot with its wall time, and a summary naming the QEMU;
# exit 1 unless every boot was clean.  TOGGLES, TOGGLE_SECS, GRAPHS and GRAPH_SECS reach the
# guest (body.sh); TEXTPOKE_MACHINES="2cpu" boots only those machines;
# QEMU_SYSTEM picks another QEMU binary and ACCEL another accelerator
# (to compare).
set -uo pipefail
. "$(dirname "$0")/../lib/machine.sh"
top=$lab_top build=$lab_build
n=${1:-3}
case "$n" in ''|*[!0-9]*|0) echo "textpoke: BOOTS must be a positive number" >&2; exit 2 ;; esac
envs=()
for v in TOGGLES TOGGLE_SECS GRAPHS GRAPH_SECS; do
	[ -z "${!v:-}" ] || envs+=(--env "$v=${!v}")
done
qv=$(qemu_version)
read -ra ms <<<"${TEXTPOKE_MACHINES:-2cpu 4cpu}"
nm=${#ms[@]}
echo "TAP version 13"
echo "1..$((nm * n + 1))"
echo "# $qv, accel ${ACCEL:-tcg}"
i=0 clean=0 oops=0 toggles=0 graphs=0 t0=$(date +%s)
for b in $(seq "$n"); do
	for m in "${ms[@]}"; do
		i=$((i + 1))
		d=$build/run/textpoke/$b-$m
		EMULATOR_RETRIES=0 "$top/lab/rtlab" run --suite "textpoke/$b-$m" --dir textpoke "${envs[@]}" \
			"$top/lab/selftest/textpoke/$m" >/dev/null 2>&1
		rc=$?
		con=$(ls "$d"/*/console.log 2>/dev/null | head -n 1)
		up=$(grep -o 'rtlab: DONE.*' "$con" 2>/dev/null | head -n 1)
		wall=$(cat "$d"/*/wall 2>/dev/null | head -n 1)
		tog=$(grep -ho 'disabled [0-9]* times' "$d"/*/result.tap 2>/dev/null | head -n 1 | cut -d' ' -f2)
		gr=$(grep -ho 'stopped [0-9]* times' "$d"/*/result.tap 2>/dev/null | head -n 1 | cut -d' ' -f2)
		toggles=$((toggles + ${tog:-0})) graphs=$((graphs + ${gr:-0}))
		wall="${wall:-?} s; ${tog:-?} toggles, ${gr:-?} graphs"
		if [ "$rc" = 0 ] && [ -n "$up" ]; then
			clean=$((clean + 1))
			echo "ok $i boot $b $m clean (wall $wall)"
		else
			grep -q 'Oops: int3' "$con" 2>/dev/null && oops=$((oops + 1))
			echo "not ok $i boot $b $m: $(grep -m 1 -oE 'Oops: [^[]*|BUG: .*|WARNING: .*|Kernel panic.*' "$con" 2>/dev/null || echo "see $d") (wall $wall)"
			grep -h '^not ok' "$d"/*/result.tap 2>/dev/null | sed 's/^/# /'
		fi
	done
done
t1=$(date +%s)
s="$clean of $((nm * n)) boots clean, $oops with Oops: int3 ($toggles event toggles, $graphs function_graph runs), in $((t1 - t0)) s ($qv, accel ${ACCEL:-tcg})"
if [ "$clean" = $((nm * n)) ]; then echo "ok $((i + 1)) textpoke: $s"; else echo "not ok $((i + 1)) textpoke: $s"; fi
[ "$clean" = $((nm * n)) ]
