#!/bin/sh
# rtlab: kernel=rt cpus=2 mem=512 timeout=900
# SCHED_FLAG_DL_DEMOTION against throttling and GRUB reclaiming for a soft
# real-time workload whose jobs sometimes overrun the budget (the issue's
# "Performance" benchmark).
#
# Method (helper /usr/local/libexec/rtlab/dlsoft, tests/progs/dlsoft.c, see
# its --help): a SCHED_DEADLINE thread of 10 ms / 100 ms (implicit
# deadline) releases one job per period at absolute times, DLSOFT_JOBS
# (default 200) jobs; a job needs 4 ms of CPU time, or 25 ms with
# probability 0.2 (an overrun job; the sequence comes from a PRNG seeded
# with DLSOFT_SEED, default 42: 40 overrun jobs of 200).  A job still
# running at the next release delays that job ("late").  Completion time =
# finish - periodic release, a miss = finish > release + 100 ms.  One
# SCHED_OTHER nice 0 hog spins beside it on the same CPU.  Three runs, one
# boot, the same seed (the same jobs):
#   throttle  no flag: an exhausted budget throttles the task
#   reclaim   SCHED_FLAG_RECLAIM (GRUB)
#   demote    SCHED_FLAG_DL_DEMOTION: the task runs on as SCHED_OTHER
#             (sched_nice 0) until its replenishment
# The deadline task and the hog share one CPU: a deadline task's affinity
# must span its root domain, so the runs happen in a cgroup v2 cpuset
# partition root holding the last CPU alone (its own root domain; the
# other tasks stay on the rest; the rt kernel has CONFIG_CPUSETS for this).
# Without the cpuset controller (a kernel without CONFIG_CPUSETS, or the
# controller bound to a v1 hierarchy) the other CPUs are taken offline instead,
# so that the root domain is CPU 0 alone (method "hotplug": the shell and
# the kernel's other work then share that CPU).  Both are undone at the end.
#
# Figures: per mode, completion median / p99 / max (us) of all jobs and of
# the overrun jobs, misses, late jobs, and the CPU shares over the run
# (first release to last finish, CLOCK_THREAD_CPUTIME_ID over wall time,
# in % of one CPU): the neighbour hog's (nb) and the job thread's.
# Goals (ratios within this run):
#   1  p99 completion of the overrun jobs, throttle / demote >= 2
#   2  neighbour loss L <= F, the demoted task's fair share, where
#        L = nb(throttle) - nb(demote), in points of % of one CPU: what the
#            neighbours got less with demotion than with throttling;
#        F = 100 (1 - Q/P) w(nice) / (w(nice) + H w(0)): the share a
#            SCHED_OTHER task at the demoted task's nice gets beside the H
#            nice-0 neighbours of what the reservation Q/P leaves of the
#            CPU.  With this workload (Q/P = 10%, nice 0, one neighbour):
#            half of the 90% left, F = 45 (dlsoft prints it, fair_share=).
#      The reclaim run's loss is printed beside it, for comparison.
# Under TCG absolute times are emulator time: compare the ratios.
# Output in $RTLAB_OUT: MODE.txt (dlsoft's line), MODE.json, data-MODE.txt
# (one line per job: job overrun completion_us late miss), cdf-MODE.dat and
# cdf-MODE-overrun.dat (completion ms, fraction of jobs <= it) and
# deadline.dat for bench/plot/dl-demote.plot, table.md, metrics.txt
# ("name value"), summary.json.
. /rtlab/lib.sh
. /rtlab/lib/proc.sh

D=${DLSOFT:-/usr/local/libexec/rtlab/dlsoft}
JOBS=${DLSOFT_JOBS:-200}
SEED=${DLSOFT_SEED:-42}
out=${RTLAB_OUT:-/tmp}
metrics=$out/metrics.txt
: >"$metrics"
modes="throttle reclaim demote"
kver=$(uname -r)
SYS=/sys/devices/system/cpu
online0=$(cat $SYS/online)
ncpu=$(grep -c ^processor /proc/cpuinfo)
cpu=$(echo "$online0" | sed 's/.*[-,]//')	# the last online CPU

# --- the one-CPU root domain, and its teardown ---------------------------------
method="" why="" CGR="" P="" cgm="" added="" offlined=""
# partition: a cpuset partition root of CPU $cpu at $P (cgroup v2, mounted
# at $cgm if it was not mounted anywhere)
partition() {
	CGR=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	if [ -z "$CGR" ]; then
		mkdir -p /tmp/dl-demote-cg2 || { why="mkdir /tmp/dl-demote-cg2"; return 1; }
		if ! mount -t cgroup2 none /tmp/dl-demote-cg2; then
			rmdir /tmp/dl-demote-cg2
			why="cannot mount cgroup v2"
			return 1
		fi
		cgm=/tmp/dl-demote-cg2 CGR=$cgm
	fi
	if ! grep -qw cpuset "$CGR/cgroup.controllers"; then
		why="no cpuset controller in cgroup v2 (CONFIG_CPUSETS, or bound to a v1 hierarchy)"
		return 1
	fi
	if ! grep -qw cpuset "$CGR/cgroup.subtree_control"; then
		wr "$CGR/cgroup.subtree_control" +cpuset || { why="+cpuset: $werr"; return 1; }
		added=1
	fi
	P=$CGR/dl-demote
	mkdir "$P" || { why="mkdir $P"; P=""; return 1; }
	wr "$P/cpuset.cpus" "$cpu" || { why="cpuset.cpus $cpu: $werr"; return 1; }
	wr "$P/cpuset.cpus.partition" root || { why="cpuset.cpus.partition root: $werr"; return 1; }
	_st=$(cat "$P/cpuset.cpus.partition") _eff=$(cat "$P/cpuset.cpus.effective")
	[ "$_st" = root ] && [ "$_eff" = "$cpu" ] ||
		{ why="partition \"$_st\", effective CPUs \"$_eff\""; return 1; }
}
# hotplug: every CPU but 0 offline (x86 keeps CPU 0), noted in $offlined
hotplug() {
	for _f in $SYS/cpu[0-9]*/online; do
		_c=${_f%/online}
		_c=${_c##*/cpu}
		[ "$_c" != 0 ] && [ "$(cat "$_f")" = 1 ] || continue
		wr "$_f" 0 || { why="$why; CPU $_c offline: $werr"; return 1; }
		offlined="$offlined $_c"
	done
	cpu=0
	[ "$(cat $SYS/online)" = 0 ] || { why="$why; CPUs online: $(cat $SYS/online)"; return 1; }
}
# teardown: the partition removed (its CPU back in the root's domain), the
# controller and mount as they were, the CPUs online again; idempotent
teardown() {
	if [ -n "$P" ] && [ -d "$P" ]; then
		for _p in $(cat "$P/cgroup.procs" 2>/dev/null); do kill -9 "$_p" 2>/dev/null; done
		wr "$P/cpuset.cpus.partition" member
		for _i in 1 2 3 4 5; do rmdir "$P" 2>/dev/null && break; sleep 0.2; done
	fi
	[ -z "$added" ] || wr "$CGR/cgroup.subtree_control" -cpuset
	[ -z "$cgm" ] || { umount "$cgm" && rmdir "$cgm"; }
	for _c in $offlined; do wr $SYS/cpu"$_c"/online 1; done
	P="" added="" cgm="" offlined=""
}
trap teardown EXIT

if ! "$D" --help >/dev/null; then
	tap_fail "dlsoft helper is installed ($D)"
	tap_done
fi
if partition; then
	method=partition
	where="a cgroup v2 cpuset partition root of CPU $cpu ($P)"
else
	tap_diag "no cpuset partition: $why; taking the other CPUs offline instead"
	teardown
	if hotplug; then
		method=hotplug
		where="CPU $cpu alone online (the other CPUs offline: no cpuset partition)"
	else
		tap_fail "a root domain of one CPU: $why"
		tap_done
	fi
fi
tap_diag "kernel $kver, accel ${RTLAB_ACCEL:-?}, $ncpu CPUs; method: $method," \
	"$where; sched_rt_runtime_us $(cat /proc/sys/kernel/sched_rt_runtime_us) / sched_rt_period_us" \
	"$(cat /proc/sys/kernel/sched_rt_period_us)"
tap_diag "sample: $JOBS jobs per mode, seed $SEED (the same jobs in every mode), reservation 10 ms / 100 ms," \
	"jobs 4 ms of CPU or 25 ms with p = 0.2 (mean 8.2% of the CPU against 10% reserved), one SCHED_OTHER nice 0 neighbour on the same CPU"

# --- the runs -------------------------------------------------------------------
# run MODE: dlsoft in the one-CPU domain; its line in $out/MODE.txt
run() {
	_m=$1
	if [ $method = partition ]; then
		set -- sh -c 'echo $$ >"$1" || exit 2; shift; exec "$@"' sh "$P/cgroup.procs" "$D"
	else
		set -- "$D"
	fi
	"$@" -m "$_m" -j "$JOBS" -s "$SEED" -o "$out/data-$_m.txt" -J "$out/$_m.json" >"$out/$_m.txt" 2>&1
}
# val MODE KEY: the field KEY of dlsoft's line of MODE
val() { sed -n 's/^dlsoft //p' "$out/$1.txt" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p"; }
ran=""
for m in $modes; do
	rm -f "$out/data-$m.txt" "$out/$m.json" "$out/cdf-$m.dat" "$out/cdf-$m-overrun.dat"
	run $m
	rc=$?
	sed "s/^/# $m: /" "$out/$m.txt"
	if [ $rc = 0 ] && [ "$(val $m cpus)" = 1 ] && [ "$(wc -l <"$out/data-$m.txt")" -eq "$JOBS" ]; then
		tap_ok "$m: $JOBS jobs ($(val $m overruns) overrun), job thread and neighbour on one CPU"
		ran="$ran $m"
	else
		tap_fail "$m: dlsoft failed (rc $rc, cpus=$(val $m cpus)): $(tail -n 1 "$out/$m.txt")"
		continue
	fi
	# CDFs for the plot: completion (ms) and the fraction of jobs <= it
	for sel in all overrun; do
		f=$out/cdf-$m.dat
		[ $sel = all ] || f=$out/cdf-$m-overrun.dat
		awk -v s=$sel 's == "all" || $2 == 1 { print $3 }' "$out/data-$m.txt" | sort -n |
			awk -v n="$(val $m "$([ $sel = all ] && echo jobs || echo overruns)")" \
				'{ printf "%.3f %.6f\n", $1 / 1000, NR / n }' >"$f"
	done
	for k in overruns late median_us p99_us max_us misses ovr_median_us ovr_p99_us ovr_max_us ovr_misses \
		nb_share job_share fair_share demand wall_s; do
		echo "$m.$k $(val $m $k)" >>"$metrics"
	done
	sleep 1	# the task's bandwidth released before the next admission
done
# the deadline (= period, ms) for the plot's line
for m in $ran; do
	sed -n 's/.*"period_us":\([0-9]*\).*/\1/p' "$out/$m.json" | awk '{ print $1 / 1000 }' >"$out/deadline.dat"
	break
done

# --- table, ratios, summary -----------------------------------------------------
{
	echo "| mode | jobs | overrun jobs | late | median us | p99 us | max us | overrun median us | overrun p99 us | overrun max us | misses | overrun misses | neighbour % CPU | job % CPU |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for m in $ran; do
		echo "| $m | $(val $m jobs) | $(val $m overruns) | $(val $m late) | $(val $m median_us) | $(val $m p99_us) |" \
			"$(val $m max_us) | $(val $m ovr_median_us) | $(val $m ovr_p99_us) | $(val $m ovr_max_us) |" \
			"$(val $m misses) | $(val $m ovr_misses) | $(val $m nb_share) | $(val $m job_share) |"
	done
} >"$out/table.md"
cat "$out/table.md"

# same_jobs: every mode that ran had the same overrun jobs (same seed)
same=$(for m in $ran; do awk '$2 == 1 { printf "%s,", $1 }' "$out/data-$m.txt"; echo; done | sort -u | wc -l)
[ "$same" -le 1 ] || tap_diag "the modes' overrun jobs differ ($same sequences): not the same workload"

# goal 1: p99 completion of the overrun jobs, throttle / demote
t=$(val throttle ovr_p99_us) d=$(val demote ovr_p99_us)
ratio=$(awk -v t="$t" -v d="$d" 'BEGIN { if (t > 0 && d > 0) printf "%.2f", t / d }')
tap_diag "p99 completion of the overrun jobs: throttle ${t:-?} us, reclaim $(val reclaim ovr_p99_us) us," \
	"demote ${d:-?} us; throttle / demote = ${ratio:-?} (goal >= 2)"
tap_check "goal: overrun jobs' p99 completion throttle / demote = ${ratio:-?} >= 2 (same run)" \
	atleast "$ratio" 2
[ -z "$ratio" ] || echo "ratio.ovr_p99_throttle_demote $ratio" >>"$metrics"

# goal 2: the neighbour's loss with demotion within the demoted task's fair share
nt=$(val throttle nb_share) nd=$(val demote nb_share) nr=$(val reclaim nb_share) F=$(val demote fair_share)
loss=$(awk -v a="$nt" -v b="$nd" 'BEGIN { if (a != "" && b != "") printf "%.2f", a - b }')
lossr=$(awk -v a="$nt" -v b="$nr" 'BEGIN { if (a != "" && b != "") printf "%.2f", a - b }')
gain=$(awk -v a="$(val demote job_share)" -v b="$(val throttle job_share)" 'BEGIN { if (a != "" && b != "") printf "%.2f", a - b }')
tap_diag "neighbour: ${nt:-?}% of a CPU beside the throttled task, ${nd:-?}% beside the demoted one, ${nr:-?}%" \
	"beside the reclaiming one: loss ${loss:-?} points with demotion (${lossr:-?} with reclaiming); the job" \
	"thread got ${gain:-?} points more demoted than throttled; the demoted task's fair share ${F:-?}%" \
	"(half of the CPU the 10% reservation leaves, beside one nice 0 neighbour)"
tap_check "goal: neighbour loss with demotion ${loss:-?} points <= the demoted task's fair share ${F:-?}%" \
	awk -v l="$loss" -v f="$F" 'BEGIN { exit !(l != "" && f != "" && l <= f) }'
[ -z "$loss" ] || echo "nb_loss.demote $loss" >>"$metrics"
[ -z "$lossr" ] || echo "nb_loss.reclaim $lossr" >>"$metrics"

{
	printf '{"benchmark":"dl-demote","kernel":"%s","accel":"%s","method":"%s","cpu":%d,"jobs":%d,"seed":%d,"modes":{' \
		"$kver" "${RTLAB_ACCEL:-?}" "$method" "$cpu" "$JOBS" "$SEED"
	sep=
	for m in $ran; do
		printf '%s"%s":%s' "$sep" "$m" "$(tr -d '\n' <"$out/$m.json")"
		sep=,
	done
	printf '},"ratio_ovr_p99_throttle_demote":%s,"nb_loss_demote":%s,"nb_loss_reclaim":%s,"fair_share":%s,"data":{' \
		"${ratio:-null}" "${loss:-null}" "${lossr:-null}" "${F:-null}"
	sep=
	for m in $ran; do
		printf '%s"%s":"data-%s.txt"' "$sep" "$m" "$m"
		sep=,
	done
	printf '}}\n'
} >"$out/summary.json"

teardown
if [ $method = partition ]; then
	tap_check "teardown: the partition removed, CPU $cpu back with the others ($(cat $SYS/online) online)" \
		[ ! -d "$CGR/dl-demote" ]
else
	tap_check "teardown: the CPUs online again ($(cat $SYS/online), $online0 before)" [ "$(cat $SYS/online)" = "$online0" ]
fi
tap_tcg_caveat "completion times and CPU shares"
tap_done
