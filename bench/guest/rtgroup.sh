#!/bin/sh
# rtlab: kernel=rt cpus=4 mem=512 timeout=1500
# RT group scheduling (cgroup v1 cpu.rt_runtime_us / cpu.rt_period_us):
# what a group gets and what group scheduling costs, on the kernel it runs
# on (issue 7/8).  bench/host/rtgroup-ab.sh runs it on two kernels and prints the
# ratios.
#
# Method (helper /usr/local/libexec/rtlab/rtgload, tests/progs/rtgload.c):
#   bandwidth  each configuration is a set of groups (runtime/period) with
#              one SCHED_FIFO hog per group pinned to each CPU used (1, 2
#              or 4 CPUs); every hog's CPU time over RTG_BENCH_SECS (default
#              5, a multiple of every period) from its schedstat, as a share
#              of the window's wall time; mean, min and max over the hogs of
#              a group, error = mean - configured (percentage points)
#   hackbench  Debian rt-tests hackbench (pipes, RTG_HB_ARGS, default
#              "-p -g 4 -f 10 -l 100 -s 100"), RTG_HB_RUNS (3) runs each:
#              SCHED_OTHER in the root group, SCHED_FIFO 10 in the root
#              group (throttled at sched_rt_runtime_us, 950 ms / 1 s), and
#              SCHED_FIFO 10 in a group of 800 ms / 1 s; median time
#   pingpong   two SCHED_FIFO 50 threads pass a byte over two pipes for
#              RTG_PP_SECS (3) s, on one CPU and on two CPUs, in the root
#              group and in a 800 ms / 1 s group: round trips per second,
#              median and p99 round trip.  On one CPU the pair keeps the CPU
#              busy, so the rate includes the group's 80% (or the root's
#              95%) throttling; the median does not.  Groups get 80%, not
#              more, so that they fit beside the fair server's 5% where an
#              implementation counts it against the same 95%.
# Under TCG the absolute figures are emulator time: compare the columns of
# one run (group / root), or the same row between two kernels in one
# session (bench/host/rtgroup-ab.sh).
. /rtlab/lib.sh
. /rtlab/lib/proc.sh
. /rtlab/lib/rtg.sh

L=/usr/local/libexec/rtlab/rtgload
CG=/sys/fs/cgroup/cpu
SECS=${RTG_BENCH_SECS:-5}
HB_ARGS=$(knob_words "${RTG_HB_ARGS:--p -g 4 -f 10 -l 100 -s 100}")
HB_RUNS=${RTG_HB_RUNS:-3}
PP_SECS=${RTG_PP_SECS:-3}
out=${RTLAB_OUT:-/tmp}
kver=$(uname -r)
ncpu=$(grep -c ^processor /proc/cpuinfo)
metrics=$out/metrics.txt	# "name value" lines, for bench/host/rtgroup-ab.sh
: >"$metrics"

cleanup() {
	for g in $CG/rtgb-*; do
		[ -d "$g" ] || continue
		for _ in 1 2 3 4 5; do rmdir "$g" 2>/dev/null && break; sleep 0.5; done
		[ -d "$g" ] && tap_diag "rmdir $g failed ($(wc -l <"$g/tasks") tasks in it)"
	done
	return 0
}
trap cleanup EXIT
if ! cg_mount || [ ! -f $CG/cpu.rt_runtime_us ] || ! "$L" --help >/dev/null; then
	tap_fail "cgroup v1 cpu controller with cpu.rt_runtime_us at $CG, and rtgload"
	tap_done
fi
cleanup
# mkgrp NAME RUNTIME_US PERIOD_US: tries 5 times, 0.5 s apart (an
# implementation may give a removed group's bandwidth back only later)
mkgrp() {
	mkdir "$CG/$1" || return 1
	echo "$3" >"$CG/$1/cpu.rt_period_us" || return 1
	for _ in 1 2 3 4 5; do
		echo "$2" >"$CG/$1/cpu.rt_runtime_us" 2>/dev/null && return 0
		sleep 0.5
	done
	tap_diag "group $1: runtime $2 us per $3 us refused 5 times: $( { echo "$2" >"$CG/$1/cpu.rt_runtime_us"; } 2>&1)"
	return 1
}
metric() { echo "$1 $2" >>"$metrics"; }

echo "# kernel $kver, accel ${RTLAB_ACCEL:-?}, $ncpu CPUs, sched_rt_runtime_us=$(cat /proc/sys/kernel/sched_rt_runtime_us)/$(cat /proc/sys/kernel/sched_rt_period_us); bandwidth window $SECS s"

# --- bandwidth ---------------------------------------------------------------
# config NAME "RUNTIME/PERIOD ..." CPULIST
cpus_of() { case $1 in 1) echo 1 ;; 2) echo "1 2" ;; 4) echo "0 1 2 3" ;; esac; }
bw_rows=""
bw_bad=0
bw_n=0
bw() {
	name=$1 specs=$2 n=$3
	args="" gi=0
	for sp in $specs; do
		gi=$((gi + 1))
		mkgrp "rtgb-$gi" "${sp%/*}" "${sp#*/}" || { tap_diag "bandwidth $name: group $sp refused"; cleanup; return 1; }
		for c in $(cpus_of "$n"); do
			args="$args -t name=g$gi-c$c,cg=$CG/rtgb-$gi,policy=fifo,prio=$((50 - gi)),cpu=$c"
		done
	done
	res=$($L -m -d "$SECS" $args 2>&1)
	rc=$?
	echo "$res" >"$out/bw-$name-$n.txt"
	cleanup
	[ $rc = 0 ] || { tap_diag "bandwidth $name on $n CPUs: rtgload failed: $res"; return 1; }
	gi=0
	for sp in $specs; do
		gi=$((gi + 1))
		row=$(echo "$res" | awk -v g="g$gi-" -v r="${sp%/*}" -v p="${sp#*/}" -v n="$n" -v nm="$name" '
			$1 == "task" {
				split($2, a, "="); if (index(a[2], g) != 1) next
				for (i = 2; i <= NF; i++) if ($i ~ /^share=/) { s = substr($i, 7) + 0 }
				sum += s; k++; if (k == 1 || s < mn) mn = s; if (k == 1 || s > mx) mx = s
			}
			END {
				c = 100 * r / p; m = sum / k
				printf "%s %s %d %d %d %.2f %.2f %.2f %.2f %+.2f\n", nm, g, r, p, n, c, m, mn, mx, m - c
			}')
		bw_rows="$bw_rows$row
"
		bw_n=$((bw_n + 1))
		set -- $row
		metric "bw.$name.$n.g$gi.mean_pct" "$7"
		awk -v e="${10}" -v mn="$8" -v mx="$9" -v c="$6" 'BEGIN { exit !(e <= 1 && e >= -1 && mn >= c - 1 && mx <= c + 1) }' ||
			bw_bad=$((bw_bad + 1))
	done
}
bw single-10 "10000/100000" 1
bw single-10 "10000/100000" 2
bw single-10 "10000/100000" 4
bw single-50 "50000/100000" 1
bw single-50 "50000/100000" 2
bw single-50 "50000/100000" 4
bw short-period "5000/10000" 1
bw short-period "5000/10000" 4
bw three-groups "10000/100000 20000/100000 30000/100000" 1
bw three-groups "10000/100000 20000/100000 30000/100000" 4
bw long-period "200000/1000000" 2

# --- hackbench ------------------------------------------------------------------
# hb NAME [GROUP] [chrt args]: median of $HB_RUNS runs, seconds
hb_rows=""
hb() {
	name=$1 grp=$2; shift 2
	times=""
	for r in $(seq "$HB_RUNS"); do
		if [ -n "$grp" ]; then
			o=$(sh -c "echo \$\$ >$CG/$grp/tasks && exec $* hackbench $HB_ARGS" 2>&1)
		else
			o=$(sh -c "exec $* hackbench $HB_ARGS" 2>&1)
		fi
		hrc=$?
		echo "$o" >"$out/hackbench-$name-$r.txt"
		t=$(echo "$o" | sed -n 's/^Time: *\([0-9.]*\).*/\1/p')
		[ "$hrc" = 0 ] && [ -n "$t" ] || { tap_diag "hackbench $name run $r (rc $hrc): $o"; return 1; }
		times="$times $t"
	done
	med=$(echo $times | tr ' ' '\n' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	hb_rows="$hb_rows$name $med$times
"
	metric "hackbench.$name.median_s" "$med"
	echo "# hackbench $name: $times s"
}
hb_ok=0
mkgrp rtgb-hb 800000 1000000 &&
	hb other-root "" "" &&
	hb fifo-root "" chrt -f 10 &&
	hb fifo-group rtgb-hb chrt -f 10 && hb_ok=1
cleanup

# --- ping-pong ----------------------------------------------------------------
pp_rows=""
pp() {	# NAME GROUP CPUS
	if [ -n "$2" ]; then
		o=$($L -m --pingpong --cg "$CG/$2" --policy fifo --prio 50 --cpus "$3" -d "$PP_SECS" -j "$out/pp-$1.json" 2>&1)
	else
		o=$($L -m --pingpong --policy fifo --prio 50 --cpus "$3" -d "$PP_SECS" -j "$out/pp-$1.json" 2>&1)
	fi
	rc=$?
	echo "# pingpong $1: $o"
	[ $rc = 0 ] || return 1
	row=$(echo "$o" | awk -v n="$1" '{ for (i = 1; i <= NF; i++) { j = index($i, "="); if (j) v[substr($i, 1, j - 1)] = substr($i, j + 1) }
		print n, v["rounds"], v["rate"], v["median_us"], v["p99_us"], v["max_us"] }')
	pp_rows="$pp_rows$row
"
	set -- $row
	metric "pingpong.$1.rate" "$3"
	metric "pingpong.$1.median_us" "$4"
	metric "pingpong.$1.p99_us" "$5"
}
pp_ok=0
mkgrp rtgb-pp 800000 1000000 &&
	pp root-1cpu "" 1 && pp group-1cpu rtgb-pp 1 &&
	pp root-2cpu "" 1,2 && pp group-2cpu rtgb-pp 1,2 && pp_ok=1
cleanup

# --- migration ------------------------------------------------------------------
# Unpinned FIFO hogs (busy shells) in one 10 ms / 100 ms group: with tasks
# moving between the group's per-CPU servers (patch 0009) the group can use
# 10 ms per period on each of the CPUs, i.e. ncpu x 10% of one CPU; without,
# 10%.  CPU time from schedstat, migrations from /proc/<pid>/sched.
mig_rows=""
if mkdir $CG/rtgb-mig && echo 100000 >$CG/rtgb-mig/cpu.rt_period_us &&
   echo 10000 >$CG/rtgb-mig/cpu.rt_runtime_us; then
	for n in 1 2; do
		pids=""
		for _ in $(seq $n); do
			sh -c 'while :; do :; done' >/dev/null 2>&1 &
			echo $! >$CG/rtgb-mig/tasks && chrt -f -p 50 $! && pids="$pids $!"
		done
		sleep 1
		snap() { for p in $pids; do echo "$(cut -d' ' -f1 /proc/$p/schedstat) $(awk '/nr_migrations/ { print $3 }' /proc/$p/sched)"; done; }
		t0=$(cut -d' ' -f1 /proc/uptime); a=$(snap)
		sleep "$SECS"
		t1=$(cut -d' ' -f1 /proc/uptime); b=$(snap)
		kill $pids
		row=$(printf '%s\n--\n%s\n' "$a" "$b" | awk -v t0=$t0 -v t1=$t1 -v n=$n '
			$1 == "--" { second = 1; next }
			!second { ns[++i] = $1; mg[i] = $2; next }
			{ ++j; tot += $1 - ns[j]; mig += $2 - mg[j] }
			END { w = t1 - t0; printf "%d %.2f %.1f", n, tot * 100 / (w * 1e9), mig / w }')
		mig_rows="$mig_rows$row
"
		set -- $row
		metric "migration.$n.total_pct" "$2"
		metric "migration.$n.migrations_per_s" "$3"
		sleep 0.5
	done
	rmdir $CG/rtgb-mig
fi

# --- tables ---------------------------------------------------------------------
{
	echo "Bandwidth: configured vs measured share of each CPU (one FIFO hog per group and CPU, $SECS s)"
	echo
	echo "| configuration | group | runtime us | period us | CPUs | configured % | mean % | min % | max % | error (points) |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	printf '%s' "$bw_rows" | awk 'NF { sub(/-$/, "", $2); printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }'
	echo
	echo "hackbench ($HB_ARGS), $HB_RUNS runs each; ratio to other-root in this run"
	echo
	echo "| scheduling | median s | runs s | / other-root |"
	echo "|---|---|---|---|"
	base=$(printf '%s' "$hb_rows" | awk '$1 == "other-root" { print $2 }')
	printf '%s' "$hb_rows" | awk -v b="$base" 'NF { r = ""; for (i = 3; i <= NF; i++) r = r " " $i
		printf "| %s | %s |%s | %.2f |\n", $1, $2, r, (b > 0 ? $2 / b : 0) }'
	echo
	echo "pipe ping-pong, SCHED_FIFO 50, $PP_SECS s each; ratio group / root on the same CPUs in this run"
	echo
	echo "| pair | round trips | per s | median us | p99 us | max us | rate group/root | median group/root |"
	echo "|---|---|---|---|---|---|---|---|"
	printf '%s' "$pp_rows" | awk 'NF { n[NR] = $1; for (i = 2; i <= 6; i++) v[$1, i] = $i; rows[NR] = $0 }
		END {
			for (k = 1; k <= NR; k++) {
				m = n[k]; if (m == "") continue
				o = m; sub(/^group/, "root", o)
				rr = (m ~ /^group/ && v[o, 3] > 0) ? sprintf("%.3f", v[m, 3] / v[o, 3]) : "-"
				mr = (m ~ /^group/ && v[o, 4] > 0) ? sprintf("%.3f", v[m, 4] / v[o, 4]) : "-"
				printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", m, v[m, 2], v[m, 3], v[m, 4], v[m, 5], v[m, 6], rr, mr
			}
		}'
	echo
	echo "Unpinned FIFO hogs in one 10 ms / 100 ms group, $SECS s: the group may run 10 ms per period on each CPU"
	echo
	echo "| hogs | CPUs | reserved, % of one CPU | measured, % of one CPU | migrations/s |"
	echo "|---|---|---|---|---|"
	printf '%s' "$mig_rows" | awk -v c=$ncpu 'NF { printf "| %s | %d | %d | %s | %s |\n", $1, c, c * 10, $2, $3 }'
} >"$out/table.md"
cat "$out/table.md" | sed 's/^/# /'

# --- summary.json -----------------------------------------------------------------
{
	printf '{"benchmark":"rtgroup","kernel":"%s","accel":"%s","cpus":%d,"window_s":%s,"bandwidth":[' "$kver" "${RTLAB_ACCEL:-?}" "$ncpu" "$SECS"
	printf '%s' "$bw_rows" | awk 'NF { sub(/-$/, "", $2); printf "%s{\"config\":\"%s\",\"group\":\"%s\",\"runtime_us\":%s,\"period_us\":%s,\"cpus\":%s,\"configured_pct\":%s,\"mean_pct\":%s,\"min_pct\":%s,\"max_pct\":%s,\"error_points\":%s}", (k++ ? "," : ""), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 + 0 }'
	printf '],"hackbench":{"args":"%s","runs":%d,"results":{' "$HB_ARGS" "$HB_RUNS"
	printf '%s' "$hb_rows" | awk 'NF { r = ""; for (i = 3; i <= NF; i++) r = r (i > 3 ? "," : "") $i
		printf "%s\"%s\":{\"median_s\":%s,\"runs_s\":[%s]}", (k++ ? "," : ""), $1, $2, r }'
	printf '}},"pingpong":{"secs":%s,"results":{' "$PP_SECS"
	printf '%s' "$pp_rows" | awk 'NF { printf "%s\"%s\":{\"rounds\":%s,\"rate\":%s,\"median_us\":%s,\"p99_us\":%s,\"max_us\":%s}", (k++ ? "," : ""), $1, $2, $3, $4, $5, $6 }'
	printf '}}}\n'
} >"$out/summary.json"

if [ "$bw_n" -gt 0 ] && [ "$bw_bad" = 0 ]; then
	tap_ok "bandwidth: $bw_n group/CPU-count rows, every hog within 1 point of its configured share"
else
	tap_fail "bandwidth: $bw_bad of $bw_n rows off by more than 1 point (or none measured)"
fi
tap_check "hackbench: root SCHED_OTHER, root SCHED_FIFO and group SCHED_FIFO measured" test $hb_ok = 1
tap_check "ping-pong: root and group, one and two CPUs measured" test $pp_ok = 1
[ "${RTLAB_ACCEL:-tcg}" = tcg ] && echo "# TCG: absolute times are emulator time; compare ratios within one run, or one row across kernels in one session."
tap_done
