#!/bin/sh
# rtlab: kernel=rt cpus=2 mem=512 timeout=1800 accel=icount
# What the RT group code's paths that run with a runqueue locked and irqs
# off cost per call as the number of task groups grows (issue 24, design
# point 10; kernel patch 0021): with systemd and the v2 cpu controller a
# machine has hundreds to thousands of groups, few of them with an RT
# budget, and before 0021 these paths walked every one of them:
#   rt_group_push_tasks   balance callback after each throttle of a server
#   rt_group_cpu_dying    CPU offline, rq locked
#   rt_group_attach_root  a runqueue joins a root domain (each rebuild)
#   dl_clear_root_domain  each root domain rebuild, under its raw lock
#   rq_offline_rt         a runqueue leaves its root domain (each rebuild,
#   rq_online_rt          each hotplug step): __disable_runtime() and
#                         __enable_runtime(), rq locked (issue 39 item 2.2)
#
# Method, one boot under icount (durations are instruction counts: the same
# on a quiet or loaded host, comparable between kernels): for each N in
# RTG_SCAN_GROUPS (10 100 1000), two cases: N-1 idle v1 groups without a
# budget (the systemd case) and N-1 idle groups with a budget each (10 us
# per 1 s); beside them one group of 10 ms / 100 ms with a SCHED_FIFO 50
# busy loop pinned to CPU 1, which throttles every period.  The function
# graph tracer (depth 1, so a function's time includes what it calls, but
# no tracing of the callees) times each call of these functions over
# RTG_SCAN_SECS (2) s of the busy loop, then two offline/online cycles of
# CPU 1.  Figures: calls and median duration per function and case, and
# the ratio of the median at the largest N to the smallest.
. /rtlab/lib.sh
. /rtlab/lib/proc.sh
. /rtlab/lib/rtg.sh

CG=/sys/fs/cgroup/cpu
T=/sys/kernel/tracing
SECS=${RTG_SCAN_SECS:-2}
NS=$(knob_words "${RTG_SCAN_GROUPS:-10 100 1000}")
FUNCS="rt_group_push_tasks rt_group_cpu_dying rt_group_attach_root dl_clear_root_domain rq_offline_rt rq_online_rt"
out=${RTLAB_OUT:-/tmp}
res=$out/rtgroup-scan.txt
: >"$res"

hog=""
# groups_cleanup: the busy loop and the groups of a case gone
groups_cleanup() {
	[ -z "$hog" ] || kill -9 "$hog" 2>/dev/null
	hog=""
	echo 1 >/sys/devices/system/cpu/cpu1/online 2>/dev/null
	sleep 0.3
	for g in "$CG"/scan-*; do [ -d "$g" ] && rmdir "$g"; done
}
# The tracer is reset only at the end: an empty set_ftrace_filter under
# function_graph traces every function of the kernel.
scan_cleanup() {
	groups_cleanup
	echo nop >$T/current_tracer 2>/dev/null
	echo >$T/set_ftrace_filter 2>/dev/null
}
trap scan_cleanup EXIT

set -- $NS
tap_plan $(($# * 2))
missing=""
for f in $FUNCS; do
	grep -q "^$f\$" $T/available_filter_functions || missing="$missing $f"
done
if ! cg_mount || [ ! -f $CG/cpu.rt_runtime_us ] || [ -n "$missing" ] ||
	! grep -qw function_graph $T/available_tracers; then
	tap_fail "setup: the v1 cpu controller at $CG, the function_graph tracer, traceable functions (missing:${missing:- none})"
	tap_done
fi
echo 0 >$T/tracing_on
echo nop >$T/current_tracer
echo "$FUNCS" >$T/set_ftrace_filter
echo 1 >$T/max_graph_depth
echo nofuncgraph-overhead >$T/trace_options
echo 2048 >$T/buffer_size_kb
echo function_graph >$T/current_tracer
nfilt=$(grep -c . $T/set_ftrace_filter)
nfuncs=$(echo $FUNCS | wc -w)
if [ "$nfilt" != "$nfuncs" ]; then
	tap_fail "setup: set_ftrace_filter holds $nfilt functions, not the $nfuncs timed"
	tap_done
fi

# mkgroups N BUDGET: N idle groups scan-1..scan-N, with 10 us / 1 s each
# if BUDGET is 1; made before the active one, so every walk meets them
mkgroups() {
	_i=1
	while [ $_i -le "$1" ]; do
		mkdir "$CG/scan-$_i" || return 1
		if [ "$2" = 1 ]; then
			echo 1000000 >"$CG/scan-$_i/cpu.rt_period_us" &&
				echo 10 >"$CG/scan-$_i/cpu.rt_runtime_us" || return 1
		fi
		_i=$((_i + 1))
	done
}

# measure N BUDGET: one case; a line per function in $res:
# N budget function calls median
measure() {
	_n=$1 _b=$2
	groups_cleanup
	if ! mkgroups $((_n - 1)) "$_b" || ! mkdir "$CG/scan-act" ||
		! echo 100000 >"$CG/scan-act/cpu.rt_period_us" ||
		! echo 10000 >"$CG/scan-act/cpu.rt_runtime_us"; then
		return 1
	fi
	sh -c 'while :; do :; done' &
	hog=$!
	echo "$hog" >"$CG/scan-act/tasks" && taskset -p 2 "$hog" >/dev/null &&
		chrt -f -p 50 "$hog" || return 1
	echo >$T/trace
	echo 1 >$T/tracing_on
	sleep "$SECS"
	kill -9 "$hog"
	hog=""
	sleep 0.2	# a killed task leaves its group late
	for _c in 1 2; do
		echo 0 >/sys/devices/system/cpu/cpu1/online || return 1
		sleep 0.1
		echo 1 >/sys/devices/system/cpu/cpu1/online || return 1
		sleep 0.1
	done
	echo 0 >$T/tracing_on
	# " 1)   3.456 us    |  rt_group_push_tasks();"
	awk -v n="$_n" -v b="$_b" -v funcs="$FUNCS" '
		{
			for (i = 1; i < NF; i++)
				if ($(i + 1) == "us" && $i ~ /^[0-9.]+$/) break
			if (i >= NF) next
			f = $NF; sub(/\(\);$/, "", f)
			d[f, ++c[f]] = $i * 1000
		}
		END {
			nf = split(funcs, fs, " ")
			for (k = 1; k <= nf; k++) {
				f = fs[k]; m = c[f] + 0
				for (i = 1; i <= m; i++) v[i] = d[f, i]
				for (i = 2; i <= m; i++) {	# insertion sort
					x = v[i]
					for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]
					v[j + 1] = x
				}
				med = m ? (m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2) : 0
				printf "%d %d %s %d %.0f\n", n, b, f, m, med
			}
		}' $T/trace >>"$res"
}

for n in "$@"; do
	for b in 0 1; do
		kind="without a budget"
		[ $b = 1 ] && kind="with 10 us / 1 s each"
		if measure "$n" "$b"; then
			fig=$(awk -v n="$n" -v b="$b" '$1 == n && $2 == b { printf "%s%s %d calls, median %d", s, $3, $4, $5; s = "; " }' "$res")
			calls=$(awk -v n="$n" -v b="$b" '$1 == n && $2 == b && $3 == "rt_group_push_tasks" { print $4 }' "$res")
			tap_check "$n groups ($((n - 1)) idle $kind): $fig" [ "${calls:-0}" -gt 0 ]
		else
			tap_fail "$n groups ($((n - 1)) idle $kind): setup or hotplug failed"
		fi
	done
done

tap_diag "median duration per call in ns of guest time (instructions under icount), by number of groups:"
awk -v funcs="$FUNCS" -v ns="$NS" '
	{ med[$1, $2, $3] = $5 }
	END {
		nn = split(ns, n, " "); nf = split(funcs, fs, " ")
		for (b = 0; b <= 1; b++) {
			printf "#   idle groups %s\n", b ? "with a budget" : "without a budget"
			for (k = 1; k <= nf; k++) {
				line = sprintf("#     %-22s", fs[k])
				for (i = 1; i <= nn; i++)
					line = line sprintf(" %6d:%-8d", n[i], med[n[i], b, fs[k]])
				lo = med[n[1], b, fs[k]]; hi = med[n[nn], b, fs[k]]
				line = line sprintf(" %d/%d groups: x%.2f", n[nn], n[1], lo ? hi / lo : 0)
				print line
			}
		}
	}' "$res"
tap_tcg_caveat "per-call durations"
tap_done
