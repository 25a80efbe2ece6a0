#!/bin/bash
# Where the instructions of an RT group's ping-pong go: the two-CPU pipe
# ping-pong of bench/guest/cost.sh (two SCHED_FIFO 50 threads, rtgload
# --pingpong) in the root group and inside an 800 ms / 1 s group, each
# under ftrace's function_graph tracer, in one instruction-counted boot
# (ACCEL=icount: a traced call's duration is its instruction count, 2^shift
# ns each, tracing hooks of nested calls included).
#
#   bench/host/rtgroup-trace.sh [--kernel V] [--secs S]
#
# First the ping-pong untraced, root and group, with the interrupt and
# schedstat counters around it (no overhead: exact counts per round trip).
# Then passes, each run in the root group and then in the group, each with
# function_graph hooked to the listed functions only (set_ftrace_filter):
# a function that is not listed runs untraced, without a hook, so a
# listed call's duration is its own instructions plus the hooks of the
# listed calls inside it (about 700 instructions each, the cost of the
# cheapest traced call), and sums are taken over the outermost (depth 1)
# calls only, so that nothing is counted twice.
# The passes (RTG_TRACE_PASSES, "NAME:FUNC,FUNC,... NAME:..."): the
# scheduler class hooks (none nested in another), the wake-up, the deadline
# server's entry points, their parts, and the leaves those call; each pass
# also traces pick_task_idle(), a call of a few instructions, whose
# duration is the cost of one hook (L): "net" figures subtract L per call.
# (set_graph_function with max_graph_depth is no use here: every untraced
# call inside a traced one still goes through the graph tracer's entry
# hook, and a call to hrtimer_start_range_ns() then measured 29k
# instructions.)
# Per function: calls per round trip, mean instructions per call, and
# instructions per round trip, group and root, and the difference.  The
# round trips are rtgload's count in its window (no warm-up: -w 0); the
# trace also holds the threads' start and exit, so calls per round trip
# are a little above the true ones.
# Output: build/bench/rtgroup-trace.md (and stdout).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
kernel=rt secs=0.1
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--secs) secs=$2; shift 2 ;;
	-h|--help) sed -n '2,34p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "rtgroup-trace: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ -f "$build/out/$kernel/arch/x86/boot/bzImage" ] ||
	{ echo "rtgroup-trace: kernel variant $kernel not built ($build/out/$kernel)" >&2; exit 2; }

readonly CALIBRATE=pick_task_idle
passes=${RTG_TRACE_PASSES:-class:enqueue_task_rt,dequeue_task_rt,put_prev_task_rt,set_next_task_rt,\
pick_task_dl,pick_task_rt,balance_rt,balance_fair,pick_next_task_fair,select_task_rq_rt,task_woken_rt,\
wakeup_preempt_rt,set_next_task_idle,put_prev_task_idle \
wakeup:try_to_wake_up \
server:dl_server_start,dl_server_stop,dl_server_update \
parts:task_contending,task_non_contending,enqueue_dl_entity,__dequeue_dl_entity,update_curr_dl_se \
leaves:hrtimer_start_range_ns,hrtimer_try_to_cancel,cpudl_set,cpudl_clear,cpupri_set,resched_curr}
guest_passes=""
for p in $passes; do guest_passes+="pass ${p%%:*} $CALIBRATE ${p#*:}
"; done

# The guest side.  Everything is measured into /tmp and printed at the
# end; the heredoc makes sh read the whole script before it runs, so no 9p
# read (host-timed) happens while it measures.
guest=$(cat <<EOF
cat >/tmp/trace.sh <<'EOS'
T=/sys/kernel/tracing
L=/usr/local/libexec/rtlab/rtgload
CG=/sys/fs/cgroup/cpu
GRP=\$CG/rtgtrace
grep -q " \$CG cgroup .*cpu" /proc/mounts || {
	grep -q ' /sys/fs/cgroup ' /proc/mounts || mount -t tmpfs cgroup_root /sys/fs/cgroup
	mkdir -p \$CG && mount -t cgroup -o cpu none \$CG; }
mkdir -p \$GRP && echo 1000000 >\$GRP/cpu.rt_period_us && echo 800000 >\$GRP/cpu.rt_runtime_us || exit 1
echo 16384 >\$T/buffer_size_kb
# keep the names this kernel can trace
known() { for f in "\$@"; do grep -q "^\$f\\( \\|\$\\)" \$T/available_filter_functions && printf '%s ' "\$f"; done; }
# pass NAME FUNCTION...: "NAME WHERE rounds N" and "NAME WHERE DEPTH:FUNC CALLS SUM_NS" lines
pass() {
	name=\$1; shift
	fns=\$(known \$(echo "\$@" | tr , ' '))
	echo "\$name functions \$fns" >>/tmp/res
	for where in root group; do
		cg=""; [ \$where = group ] && cg="--cg \$GRP"
		echo 0 >\$T/tracing_on; echo nop >\$T/current_tracer
		echo "\$fns" >\$T/set_ftrace_filter
		echo 0 >\$T/max_graph_depth
		echo function_graph >\$T/current_tracer
		echo 1 >\$T/options/funcgraph-tail
		echo 0 >\$T/options/funcgraph-proc
		: >\$T/trace
		echo 1 >\$T/tracing_on
		o=\$(\$L -m --pingpong \$cg --policy fifo --prio 50 --cpus 0,1 -w 0 -d $secs 2>&1)
		echo 0 >\$T/tracing_on
		echo "\$o" | sed -n "s/.*pingpong rounds=\\([0-9]*\\).*/\$name \$where rounds \\1/p" >>/tmp/res
		# " 1)   0.551 us    |    foo();" or " 1)   2.0 us   |  } /* foo */"
		awk -v p="\$name \$where" -F'|' 'NF >= 2 && \$1 ~ /[0-9.]+ us/ {
			d = \$1; sub(/.*[)] *[-+!#*@\$]? */, "", d); sub(/ *us.*/, "", d)
			f = \$2; ind = match(f, /[^ ]/) - 3; sub(/^ */, "", f)
			if (f ~ /^} \\/\\* /) { sub(/^} \\/\\* /, "", f); sub(/ \\*\\/.*/, "", f) }
			else if (f ~ /\\(\\);\$/) sub(/\\(\\);\$/, "", f)
			else next
			k = (ind / 2 + 1) ":" f; n[k]++; s[k] += d * 1000
		} END { for (k in n) printf "%s %s %d %.0f\\n", p, k, n[k], s[k] }' \$T/trace >>/tmp/res
		echo "\$name \$where lost \$(cat \$T/per_cpu/cpu*/stats | awk '/^overrun/ { s += \$2 } END { print s + 0 }')" >>/tmp/res
	done
	echo nop >\$T/current_tracer
	: >\$T/set_ftrace_filter
}
# untraced first: per window the local timer and rescheduling interrupts
# (/proc/interrupts LOC, RES) and the schedstat counts of schedule() calls,
# of switches to idle and of wake-ups (/proc/schedstat fields 3, 4, 5)
echo 1 >/proc/sys/kernel/sched_schedstats
snap() {
	awk '\$1 == "LOC:" || \$1 == "RES:" { printf "%d ", \$2 + \$3 }' /proc/interrupts
	awk '/^cpu[0-9]/ { a += \$4; b += \$5; c += \$6 } END { printf "%d %d %d\\n", a, b, c }' /proc/schedstat
}
for where in root group; do
	cg=""; [ \$where = group ] && cg="--cg \$GRP"
	a=\$(snap)
	o=\$(\$L -m --pingpong \$cg --policy fifo --prio 50 --cpus 0,1 -w 0 -d $secs 2>&1)
	b=\$(snap)
	echo "\$o" | sed -n "s/.*pingpong rounds=\\([0-9]*\\) duration_ns=\\([0-9]*\\).*/untraced \$where \\1 \\2 \$a \$b/p" >>/tmp/res
done
${guest_passes}rmdir \$GRP
cat /tmp/res
EOS
exec sh /tmp/trace.sh
EOF
)

res=$build/bench/rtgroup-trace
mkdir -p "$res"
echo "rtgroup-trace: one boot of $kernel under ACCEL=icount" >&2
ACCEL=icount KERNEL=$kernel TIMEOUT=${TIMEOUT:-900} "$top/lab/rtlab" shell -c "$guest" >"$res/raw" 2>&1 ||
	{ echo "rtgroup-trace: the guest failed, see $res/raw" >&2; exit 1; }

out=$build/bench/rtgroup-trace.md
{
	echo "# rtgroup-trace, $(date -u '+%Y-%m-%d %H:%M UTC'), kernel $kernel, ACCEL=icount shift=${ICOUNT_SHIFT:-0}, ping-pong $secs s per run"
	echo
	echo "Instruction time (guest ns = 2^shift instructions), function_graph durations; net = minus one hook (L) per traced call, so a depth-1 net still holds the hooks of the traced calls nested in it."
	awk -v cal="$CALIBRATE" '
	$1 == "untraced" { u[$2] = $0; next }
	$2 == "functions" { order[++np] = $1; next }
	$3 == "rounds" { r[$1, $2] = $4; next }
	$3 == "lost" { if ($4 > 0) lost = lost " " $1 "/" $2 ":" $4; next }
	NF == 5 { k = $1 SUBSEP $3; if (!(k in seen)) { seen[k] = 1; o[++nk] = k }; n[$1, $2, $3] = $4; s[$1, $2, $3] = $5 }
	function per(x, w, pn) { return r[pn, w] ? x / r[pn, w] : 0 }
	END {
		print ""
		print "Untraced, the same ping-pong (counters read outside the window): per round trip"
		print ""
		print "| | round trips | instructions | local timer irqs (LOC) | resched IPIs (RES) | schedule() | switches to idle | wake-ups |"
		print "|---|---|---|---|---|---|---|---|"
		for (w = 1; w <= 2; w++) {
			wn = w == 1 ? "root" : "group"; if (!(wn in u)) continue
			split(u[wn], x, " ")	# untraced W rounds dur LOC RES sc gi tw LOC RES sc gi tw
			printf "| %s | %d | %.0f | %.3f | %.3f | %.2f | %.2f | %.2f |\n", wn, x[3], x[4] / x[3],
				(x[10] - x[5]) / x[3], (x[11] - x[6]) / x[3], (x[12] - x[7]) / x[3], (x[13] - x[8]) / x[3], (x[14] - x[9]) / x[3]
		}
		if (lost != "") { print ""; print "Events lost (ring buffer overrun):" lost }
		for (p = 1; p <= np; p++) {
			pn = order[p]
			# L: the hook cost, the mean duration of the calibration call in this pass
			L = 0; c = "1:" cal
			if (n[pn, "root", c] + n[pn, "group", c]) L = (s[pn, "root", c] + s[pn, "group", c]) / (n[pn, "root", c] + n[pn, "group", c])
			print ""
			printf "Pass %s: %d round trips in the root group, %d in the group; L = %.0f instructions per traced call (%s)\n", pn, r[pn, "root"], r[pn, "group"], L, cal
			print ""
			print "| depth:function | root calls/rt | root instr/call | group calls/rt | group instr/call | root net instr/rt | group net instr/rt | group - root, net instr/rt |"
			print "|---|---|---|---|---|---|---|---|"
			tr = tg = 0
			for (i = 1; i <= nk; i++) {
				split(o[i], kk, SUBSEP); if (kk[1] != pn || kk[2] == c) continue; f = kk[2]
				nr = n[pn, "root", f] + 0; sr = s[pn, "root", f] + 0; ng = n[pn, "group", f] + 0; sg = s[pn, "group", f] + 0
				netr = per(sr - nr * L, "root", pn); netg = per(sg - ng * L, "group", pn)
				if (f ~ /^1:/) { tr += netr; tg += netg }
				printf "| %s | %.2f | %.0f | %.2f | %.0f | %.0f | %.0f | %+.0f |\n", f,
					per(nr, "root", pn), nr ? sr / nr : 0, per(ng, "group", pn), ng ? sg / ng : 0, netr, netg, netg - netr
			}
			printf "| (depth 1, sum) | | | | | %.0f | %.0f | %+.0f |\n", tr, tg, tg - tr
		}
	}' "$res/raw"
} >"$out"
cat "$out"
