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
# Two passes, each run in the root group and then in the group:
#   1. max_graph_depth 1 on the scheduler class hooks and the wake-up
#      (RTG_TRACE_OUTER): only the outermost of these on the stack is
#      traced, so no time is counted twice and no tracing hook runs inside
#      a traced call;
#   2. max_graph_depth 3 on the deadline server calls (RTG_TRACE_SERVER):
#      what they call.
# Per function: calls per round trip, mean instructions per call, and
# instructions per round trip, group and root, and the difference.  The
# round trips are rtgload's count in its measuring window; the trace also
# holds its set-up and teardown, so calls per round trip are a little
# above the true ones (a few hundred calls against thousands).
# Output: build/bench/rtgroup-trace.md (and stdout).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
kernel=rt secs=0.1
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--secs) secs=$2; shift 2 ;;
	-h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "rtgroup-trace: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ -f "$build/out/$kernel/arch/x86/boot/bzImage" ] ||
	{ echo "rtgroup-trace: kernel variant $kernel not built ($build/out/$kernel)" >&2; exit 2; }

outer=${RTG_TRACE_OUTER:-try_to_wake_up enqueue_task_rt dequeue_task_rt \
update_curr_rt pick_task_rt put_prev_task_rt set_next_task_rt select_task_rq_rt wakeup_preempt_rt \
task_woken_rt balance_rt pick_task_dl pick_next_task_dl put_prev_task_dl set_next_task_dl balance_dl \
pick_task_fair pick_next_task_fair balance_fair pick_task_idle put_prev_task_idle set_next_task_idle \
dl_server_start dl_server_stop dl_server_update}
server=${RTG_TRACE_SERVER:-dl_server_start dl_server_stop dl_server_update}

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
# pass NAME DEPTH FUNCTION...: "NAME WHERE rounds N" and "NAME WHERE DEPTH:FUNC CALLS SUM_NS" lines
pass() {
	name=\$1 depth=\$2; shift 2
	fns=\$(known "\$@")
	echo "\$name functions \$fns" >>/tmp/res
	for where in root group; do
		cg=""; [ \$where = group ] && cg="--cg \$GRP"
		echo 0 >\$T/tracing_on; echo nop >\$T/current_tracer
		echo "\$fns" >\$T/set_graph_function
		echo "\$depth" >\$T/max_graph_depth
		echo function_graph >\$T/current_tracer
		echo 1 >\$T/options/funcgraph-tail
		echo 0 >\$T/options/funcgraph-proc
		: >\$T/trace
		echo 1 >\$T/tracing_on
		o=\$(\$L -m --pingpong \$cg --policy fifo --prio 50 --cpus 0,1 -d $secs 2>&1)
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
}
pass outer 1 $outer
pass server 3 $server
rmdir \$GRP
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
	echo "Instruction time (guest ns = 2^shift instructions), function_graph durations."
	awk '
	$2 == "functions" { next }
	$3 == "rounds" { r[$1, $2] = $4; next }
	$3 == "lost" { if ($4 > 0) lost = lost " " $1 "/" $2 ":" $4; next }
	NF == 5 { k = $1 SUBSEP $3; if (!(k in seen)) { seen[k] = 1; o[++nk] = k }; n[$1, $2, $3] = $4; s[$1, $2, $3] = $5 }
	END {
		print ""
		print "Round trips: root " r["outer", "root"] " / " r["server", "root"] ", group " r["outer", "group"] " / " r["server", "group"] " (pass 1 / pass 2)."
		if (lost != "") print "Events lost (ring buffer overrun):" lost
		for (pass = 1; pass <= 2; pass++) {
			pn = pass == 1 ? "outer" : "server"
			print ""
			print "Pass " pass " (" pn "): DEPTH:FUNCTION, calls per round trip, instructions per call, per round trip"
			print ""
			print "| function | root calls/rt | root instr/call | root instr/rt | group calls/rt | group instr/call | group instr/rt | group - root instr/rt |"
			print "|---|---|---|---|---|---|---|---|"
			tr = tg = 0
			for (i = 1; i <= nk; i++) {
				split(o[i], kk, SUBSEP); if (kk[1] != pn) continue; f = kk[2]
				nr = n[pn, "root", f] + 0; sr = s[pn, "root", f] + 0; ng = n[pn, "group", f] + 0; sg = s[pn, "group", f] + 0
				rr = r[pn, "root"] ? sr / r[pn, "root"] : 0; rg = r[pn, "group"] ? sg / r[pn, "group"] : 0
				if (f ~ /^1:/) { tr += rr; tg += rg }
				printf "| %s | %.2f | %.0f | %.0f | %.2f | %.0f | %.0f | %+.0f |\n", f,
					r[pn, "root"] ? nr / r[pn, "root"] : 0, nr ? sr / nr : 0, rr,
					r[pn, "group"] ? ng / r[pn, "group"] : 0, ng ? sg / ng : 0, rg, rg - rr
			}
			printf "| (depth 1, sum) | | | %.0f | | | %.0f | %+.0f |\n", tr, tg, tg - tr
		}
	}' "$res/raw"
} >"$out"
cat "$out"
