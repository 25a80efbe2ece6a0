#!/bin/bash
# Build the build-only kernel variants: each kernel/configs/<v>.config whose
# first line is "# rtlab: build-only" (lab/rtlab variants --build-only; for
# example rt-nogroup, without CONFIG_RT_GROUP_SCHED, and rt-up, without
# CONFIG_SMP).  They show that the series builds in configurations the lab
# never boots; nothing boots them and no initramfs holds them.  Prints TAP,
# one test point per variant; exits non-zero if one failed.  Takes the
# kernel lock (kernel/scripts/lib.sh).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
mapfile -t variants < <("$rtlab_top/lab/rtlab" variants --build-only)
kernel_lock
echo "TAP version 13"
echo "1..${#variants[@]}"
n=0 failed=0
for v in "${variants[@]}"; do
	n=$((n + 1))
	log=$rtlab_build/out/$v.build.log
	mkdir -p "$rtlab_build/out"
	if "$rtlab_top/kernel/scripts/build-kernel.sh" "$v" >"$log" 2>&1; then
		echo "ok $n build-only kernel $v"
	else
		failed=$((failed + 1))
		echo "not ok $n build-only kernel $v ($log)"
		grep -E 'error:|Error [0-9]|did not stick' "$log" | head -n 10 | sed 's/^/# /'
	fi
done
[ "$failed" = 0 ]
