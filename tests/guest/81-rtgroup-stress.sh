#!/bin/sh
# rtlab: kernel=rt-debug cpus=4 mem=512 timeout=420
# RT group scheduling under churn, for RTG_STRESS_SECS (default 75; make
# stress runs tests/stress/81-rtgroup-stress-long.sh: 600).  Meanwhile:
#  - resident load: one rtgload with FIFO hogs, periodic tasks and a
#    SCHED_OTHER hog in four groups (rtg-s1..s4), pinned to CPUs 1-3, for the
#    whole run; its threads are moved between the groups (and the
#    SCHED_OTHER one to the root group and back) all the time
#  - the four groups' runtime and period are changed all the time (writes
#    that do not fit are refused: counted, not failed)
#  - short-lived groups (some nested) are made, get a 1 s rtgload run of a
#    FIFO hog and a periodic task, and are removed
#  - hackbench in a loop, SCHED_OTHER in a group without RT runtime and
#    SCHED_FIFO 5 in a 20 ms / 100 ms group (each a group of its own, so
#    that the test's shell in the root group keeps a fair share)
# Every hog has a lower priority than every periodic task (FIFO 1-49 vs
# 50-98): a hog that shares a group and a CPU with a task of lower priority
# starves it for as long as it runs (that is FIFO within a group), and on
# PREEMPT_RT a task starved while preempted inside an RCU read-side section
# (clock_gettime(CLOCK_THREAD_CPUTIME_ID) is one) stalls RCU for as long:
# seen on both the old throttling and the deadline servers, so it is the
# test's to avoid, not a finding about either.
# Pass: no splat (the harness watches the console), nothing hangs (every
# load ends in time: the resident rtgload reports all its tasks, hackbench
# and the short runs end), every short run and hackbench run succeeds, every
# group can be removed at the end, no server leaked (with every group gone,
# the deadline bandwidth reserved in each CPU's root domain is what it was
# before the stress), and afterwards a 10 ms / 100 ms group still gives its
# pinned FIFO hog 10% +-1 of the CPU over 6 s.
. /rtlab/lib.sh
. /rtlab/lib/rtg.sh

L=${RTGLOAD:-/usr/local/libexec/rtlab/rtgload}
CG=/sys/fs/cgroup/cpu
SECS=${RTG_STRESS_SECS:-75}
out=${RTLAB_OUT:-/tmp}
work=$(mktemp -d /tmp/rtg-stress.XXXXXX)
RANDOM=$$

# every rtg-s* group, children before parents (nested one level at most)
groups() { for d in $CG/rtg-s*/*/ $CG/rtg-s*/; do [ -d "$d" ] && echo "${d%/}"; done; }
bgpids=""
cleanup() {
	touch "$work/stop"
	for p in $bgpids; do kill "$p" 2>/dev/null; done
	for g in $(groups); do
		for t in $(cat "$g/tasks" 2>/dev/null); do echo "$t" >$CG/tasks 2>/dev/null; done
		rmdir "$g" 2>/dev/null
	done
	rm -rf "$work"
}
trap cleanup EXIT
# No forks in the loop's helpers: a fork is slow under TCG, and the shell
# competes with everything the test starts.
# R MIN MAX: a random number in $r;  P WORD...: a random word in $w
R() { r=$(( $1 + RANDOM % ($2 - $1 + 1) )); }
P() { shift $(( RANDOM % $# )); w=$1; }
# now: whole seconds of uptime in $t
now() { read -r t _ </proc/uptime; t=${t%.*}; }

if ! "$L" --help >/dev/null || ! cg_mount || [ ! -f $CG/cpu.rt_runtime_us ]; then
	tap_fail "rtgload and the cgroup v1 cpu controller at $CG"
	tap_done
fi
tap_ok "cgroup v1 cpu controller at $CG, rtgload installed"
for g in $(groups); do rmdir "$g"; done
bw_before=$(rd_bw)

# --- resident groups and load --------------------------------------------
ok=1
for i in 1 2 3 4; do
	mkdir $CG/rtg-s$i && echo 100000 >$CG/rtg-s$i/cpu.rt_period_us && echo 15000 >$CG/rtg-s$i/cpu.rt_runtime_us || ok=0
done
mkdir $CG/rtg-shbo || ok=0		# fair only: no RT runtime
mkdir $CG/rtg-shb && echo 100000 >$CG/rtg-shb/cpu.rt_period_us && echo 20000 >$CG/rtg-shb/cpu.rt_runtime_us || ok=0
if [ $ok = 0 ]; then
	tap_fail "make the resident groups rtg-s1..s4 (15 ms / 100 ms) and rtg-shb (20 ms / 100 ms)"
	tap_done
fi
"$L" -d "$SECS" -w 0 \
	-t name=h1,cg=$CG/rtg-s1,policy=fifo,prio=20,cpu=1 \
	-t name=h2,cg=$CG/rtg-s2,policy=fifo,prio=30,cpu=1 \
	-t name=h3,cg=$CG/rtg-s3,policy=rr,prio=35,cpu=2 \
	-t name=h4,cg=$CG/rtg-s4,policy=fifo,prio=40,cpu=3 \
	-t name=p1,cg=$CG/rtg-s1,policy=fifo,prio=70,cpu=2,kind=periodic:20000:1000 \
	-t name=p2,cg=$CG/rtg-s3,policy=fifo,prio=60,cpu=3,kind=periodic:50000:2000 \
	-t name=p3,cg=$CG/rtg-s4,policy=rr,prio=50,kind=periodic:10000:500 \
	-t name=o1,cg=$CG/rtg-s2,cpu=1 \
	-t name=o2,cg=$CG/rtg-s3 \
	>"$work/resident.out" 2>&1 &
rpid=$!

# hackbench loops until $work/stop; one line per run in $work/hb-NAME
hb_loop() {
	while [ ! -e "$work/stop" ]; do
		if [ "$1" = fifo ]; then
			sh -c "echo \$\$ >$CG/rtg-shb/tasks && exec chrt -f 5 hackbench -g 2 -f 5 -l 40 -s 64" >/dev/null 2>&1
		else
			sh -c "echo \$\$ >$CG/rtg-shbo/tasks && exec hackbench -p -g 2 -f 5 -l 40 -s 64" >/dev/null 2>&1
		fi
		echo "$?" >>"$work/hb-$1"
	done
}
hb_loop other &
bgpids="$bgpids $!"
hb_loop fifo &
bgpids="$bgpids $!"

# --- churn --------------------------------------------------------------
now
t_end=$((t + SECS))
n_param=0 n_param_ok=0 n_move=0 n_move_ok=0 n_tmp=0 n_tmp_refused=0 n_short=0 i=0
: >"$work/short.rc"
while now && [ "$t" -lt "$t_end" ]; do
	i=$((i + 1))
	# change a resident group's parameters (4 groups, at most 20% each,
	# so most fit; the period goes first or last at random)
	R 1 4; g=$CG/rtg-s$r
	P 50000 100000 200000; per=$w
	R 5 20; pct=$r
	rt=$((per * pct / 100))
	n_param=$((n_param + 1))
	if [ $((RANDOM % 2)) = 0 ]; then
		{ echo $per >$g/cpu.rt_period_us && echo $rt >$g/cpu.rt_runtime_us; } 2>/dev/null && n_param_ok=$((n_param_ok + 1))
	else
		{ echo $rt >$g/cpu.rt_runtime_us && echo $per >$g/cpu.rt_period_us; } 2>/dev/null && n_param_ok=$((n_param_ok + 1))
	fi
	# move two resident threads: RT ones between the four groups, the
	# SCHED_OTHER ones also to the root group
	for _ in 1 2; do
		tids=""
		for d in /proc/$rpid/task/*; do
			[ "${d##*/}" = "$rpid" ] || [ ! -d "$d" ] || tids="$tids ${d##*/}"
		done
		[ -n "$tids" ] || continue
		P $tids; tid=$w
		R 1 4; dst=$CG/rtg-s$r
		# field 41 of stat: the policy (0 = SCHED_OTHER); comm has no blanks
		st=""
		read -r st </proc/$rpid/task/$tid/stat 2>/dev/null
		set -- $st
		[ $# -ge 41 ] && shift 40 && [ "$1" = 0 ] && [ $((RANDOM % 3)) = 0 ] && dst=$CG
		n_move=$((n_move + 1))
		echo "$tid" >"$dst/tasks" 2>/dev/null && n_move_ok=$((n_move_ok + 1))
	done
	# a short-lived group, every other round, nested every fourth
	if [ $((i % 2)) = 0 ]; then
		tg=$CG/rtg-st$i
		R 1 4
		[ $((i % 4)) = 0 ] && tg=$CG/rtg-s$r/st$i
		n_tmp=$((n_tmp + 1))
		if mkdir "$tg" && echo 100000 >"$tg/cpu.rt_period_us" 2>/dev/null &&
		   P 2000 5000 8000 && echo "$w" >"$tg/cpu.rt_runtime_us" 2>/dev/null; then
			R 1 49; p1=$r; R 1 3; c1=$r; R 50 98; p2=$r; R 1 3; c2=$r
			n_short=$((n_short + 1))
			( "$L" -d 1 -w 0 -t name=h,cg=$tg,policy=fifo,prio=$p1,cpu=$c1 \
				-t name=p,cg=$tg,policy=fifo,prio=$p2,cpu=$c2,kind=periodic:10000:300 \
				>"$work/short-$i.out" 2>&1
			  echo "$i $?" >>"$work/short.rc"
			  rmdir "$tg" || echo "$i rmdir" >>"$work/short.rc" ) &
		else
			n_tmp_refused=$((n_tmp_refused + 1))	# parent's budget full: refused
			rmdir "$tg" 2>/dev/null
		fi
	fi
	sleep 0.2
done
tap_diag "$i rounds in $SECS s: parameter changes $n_param_ok of $n_param taken, moves $n_move_ok of $n_move taken," \
	"short-lived groups $n_tmp ($n_tmp_refused refused their budget), short runs $n_short"

# --- everything ends -----------------------------------------------------
touch "$work/stop"
waited=0
while kill -0 $rpid 2>/dev/null && [ $waited -lt 60 ]; do sleep 1; waited=$((waited + 1)); done
if kill -0 $rpid 2>/dev/null; then
	tap_fail "resident rtgload still running 60 s after its end (hang?)"
	for t in /proc/$rpid/task/*; do tap_diag "$(cat $t/comm) $(cut -d' ' -f3 $t/stat) $(cat $t/wchan 2>/dev/null) cgroup $(grep cpu $t/cgroup)"; done
else
	wait $rpid
	rc=$?
	sed 's/^/# resident: /' "$work/resident.out"
	cp "$work/resident.out" "$out/resident.txt"
	n=$(grep -c '^task ' "$work/resident.out")
	if [ "$rc" = 0 ] && [ "$n" = 9 ]; then
		tap_ok "resident load ended in time and reported all 9 tasks"
	else
		tap_fail "resident load: rtgload rc $rc, $n of 9 tasks reported"
	fi
fi
# dump_group DIR: what is in a group, for a hang: its tasks (state, CPU,
# priority, policy, where they sleep, run time and switches) and the
# scheduler's view of its per-CPU run queues (SCHED_DEBUG)
dump_group() {
	gd=$1 rel=${1#$CG}	# (set -- below reuses the positional parameters)
	tap_diag "group $rel: runtime $(cat "$gd/cpu.rt_runtime_us") period $(cat "$gd/cpu.rt_period_us") tasks: $(tr '\n' ' ' <"$gd/tasks")"
	for tid in $(cat "$gd/tasks"); do
		st=""
		read -r st </proc/$tid/stat 2>/dev/null
		set -- $st
		[ $# -ge 41 ] || continue
		tap_diag "  tid $tid ($2): state $3 cpu ${39} rt_priority ${40} policy ${41} wchan $(cat /proc/$tid/wchan 2>/dev/null)" \
			"$(grep -E '^(se.sum_exec_runtime|nr_switches|nr_voluntary_switches)' /proc/$tid/sched 2>/dev/null | tr -s ' ' | tr '\n' ' ')"
	done
	awk -v p="$rel" '/^rt_rq\[/ { on = (substr($0, index($0, ":") + 1) == p) } on && NF' \
		/sys/kernel/debug/sched/debug 2>/dev/null | head -n 60 | sed 's/^/#   /'
	# the rest of the process: rtgload's main thread sets the stop flag
	tid=$(head -n 1 "$gd/tasks")
	tgid=$(sed -n 's/^Tgid:[[:space:]]*//p' /proc/$tid/status 2>/dev/null)
	[ -n "$tgid" ] || return 0
	for d in /proc/$tgid/task/*; do
		grep -qx "${d##*/}" "$gd/tasks" && continue
		st=""
		read -r st <"$d/stat" 2>/dev/null
		set -- $st
		[ $# -ge 41 ] || continue
		tap_diag "  same process, tid ${d##*/} (cgroup $(sed -n 's/^[0-9]*:cpu://p' "$d/cgroup")): state $3 cpu ${39} policy ${41}" \
			"wchan $(cat "$d/wchan" 2>/dev/null) $(grep -E '^(se.sum_exec_runtime|nr_switches)' "$d/sched" 2>/dev/null | tr -s ' ' | tr '\n' ' ')"
		sed 's/^/#     /' "$d/stack" 2>/dev/null | head -n 12
	done
}

# the hackbench loops and the short runs: each short run adds a line to short.rc
running() {
	for p in $bgpids; do kill -0 "$p" 2>/dev/null && return 0; done
	[ "$(wc -l <"$work/short.rc")" -lt "$n_short" ]
}
waited=0
while running && [ $waited -lt 120 ]; do sleep 1; waited=$((waited + 1)); done
if running; then
	tap_fail "hackbench loops or short runs still running 120 s after the end (hang?)"
	for g in $(groups); do
		[ -n "$(cat "$g/tasks")" ] && dump_group "$g"	# (cgroup files have size 0)
	done
else
	tap_ok "every background load ended (waited $waited s)"
fi
bad=$(awk '$2 != 0' "$work/short.rc" | wc -l) nrc=$(wc -l <"$work/short.rc")
if [ "$bad" = 0 ] && [ "$nrc" = "$n_short" ]; then
	tap_ok "all $n_short short runs in short-lived groups succeeded and their groups were removed"
else
	tap_fail "short runs: $n_short started, $nrc reported, $bad of those failed or left their group: $(awk '$2 != 0' "$work/short.rc" | head -n 5 | tr '\n' ' ')"
	for f in $(awk '$2 != 0 { print $1 }' "$work/short.rc" | head -n 3); do sed "s/^/# short $f: /" "$work/short-$f.out" 2>/dev/null; done
fi
hbo=$(wc -l <"$work/hb-other" 2>/dev/null) hbf=$(wc -l <"$work/hb-fifo" 2>/dev/null)
hbbad=$(cat "$work/hb-other" "$work/hb-fifo" 2>/dev/null | grep -vcx 0)
if [ "${hbo:-0}" -gt 0 ] && [ "${hbf:-0}" -gt 0 ] && [ "$hbbad" = 0 ]; then
	tap_ok "hackbench: $hbo runs SCHED_OTHER in a group without RT runtime, $hbf runs SCHED_FIFO 5 in a 20% group, all succeeded"
else
	tap_fail "hackbench: ${hbo:-0} SCHED_OTHER runs, ${hbf:-0} group runs, $hbbad failed"
fi

# --- every group can be removed -------------------------------------------
left=""
for g in $(groups); do
	rmdir "$g" || left="$left ${g#$CG/}($(wc -l <"$g/tasks") tasks)"
done
if [ -z "$left" ]; then
	tap_ok "every group removed after the stress"
else
	tap_fail "groups that could not be removed:$left"
fi
bw_after=$(rd_bw)
if [ -n "$bw_before" ] && [ "$bw_before" = "$bw_after" ]; then
	tap_ok "no server leaked: with every group removed each root domain reserves what it did before (CPU:total_bw $bw_after)"
else
	tap_fail "reserved deadline bandwidth per CPU before the stress '$bw_before', after every group was removed '$bw_after'"
fi

# --- and the scheduler still does what it should -------------------------
if mkdir $CG/rtg-s-after && echo 100000 >$CG/rtg-s-after/cpu.rt_period_us && echo 10000 >$CG/rtg-s-after/cpu.rt_runtime_us; then
	res=$("$L" -d 6 -t name=fifo,cg=$CG/rtg-s-after,policy=fifo,prio=50,cpu=1 2>&1)
	rc=$?
	echo "$res" | sed 's/^/# after: /'
	s=$(echo "$res" | sed -n 's/^task name=fifo .* share=\([0-9.]*\).*/\1/p')
	if [ "$rc" = 0 ] && awk -v x="$s" 'BEGIN { exit !(x != "" && x >= 9 && x <= 11) }'; then
		tap_ok "after the stress a 10 ms / 100 ms group still gives its pinned FIFO hog $s% (10 +-1)"
	else
		tap_fail "after the stress a 10 ms / 100 ms group gave its pinned FIFO hog ${s:-?}% (10 +-1), rc $rc"
	fi
	rmdir $CG/rtg-s-after || tap_fail "rmdir rtg-s-after"
else
	tap_fail "make group rtg-s-after 10000/100000"
fi
tap_done
