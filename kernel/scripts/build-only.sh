#!/bin/bash
# Build the build-only kernel variants: each kernel/configs/<v>.config whose
# first line is "# rtlab: build-only" (for example rt-nogroup, without
# CONFIG_RT_GROUP_SCHED, and rt-up, without CONFIG_SMP).  They show that the
# series builds in configurations the lab never boots; nothing boots them
# and no initramfs holds them.  Prints TAP, one test point per variant;
# exits non-zero if one failed.  Run under the kernel lock (make check does).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
variants=()
for f in "$top"/kernel/configs/*.config; do
	head -n 1 "$f" | grep -qx '# rtlab: build-only' && variants+=("$(basename "$f" .config)")
done
echo "TAP version 13"
echo "1..${#variants[@]}"
n=0 failed=0
for v in "${variants[@]}"; do
	n=$((n + 1))
	log=$build/out/$v.build.log
	mkdir -p "$build/out"
	if "$top/kernel/scripts/build-kernel.sh" "$v" >"$log" 2>&1; then
		echo "ok $n build-only kernel $v"
	else
		failed=$((failed + 1))
		echo "not ok $n build-only kernel $v ($log)"
		grep -E 'error:|Error [0-9]|did not stick' "$log" | head -n 10 | sed 's/^/# /'
	fi
done
[ "$failed" = 0 ]
