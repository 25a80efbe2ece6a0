#!/bin/sh
# rtlab: kernel=rt cpus=2 mem=512 timeout=3600
#
# Reaction latency of rtirqd (issue 4): from request_irq() returning to the
# new irq thread having its rule's policy, over N cycles (default 1000) for
#   event     rtirqd on the kernel's irq notification (/sys/kernel/irq/generation)
#   netlink   rtirqd's fallback: proc connector, no irq notification
#   poll-1s   what rtctld does: rerun everything (rtirqd --once), sleep 1 s
# all in one boot.  Needs rtlab_irqsim (kernel/modules/rtlab_irqsim); its
# control interface is set below (see its README).
. /rtlab/lib.sh
. /rtlab/lib/rtirqd.sh

N=${RTIRQD_BENCH_CYCLES:-1000}
N_POLL=${RTIRQD_BENCH_POLL_CYCLES:-$N}
IRQSIM_KO=${IRQSIM_KO:-/rtlab/modules/rtlab_irqsim.ko}
IRQSIM_CTL=${IRQSIM_CTL:-/sys/kernel/debug/rtlab_irqsim/ctl}
IRQSIM_STATUS=${IRQSIM_STATUS:-/sys/kernel/debug/rtlab_irqsim/status}
IRQSIM_REQ=${IRQSIM_REQ:-request 3 %s}
IRQSIM_FREE=${IRQSIM_FREE:-free 3}
BENCH=/usr/local/libexec/rtlab/rtirqd-bench
OUT=${RTLAB_OUT:-/tmp}
RES=/tmp/rtirqd-bench.jsonl
: >"$RES"

cat <<EOF
# rtirqd reaction latency
# Method: rtirqd-bench writes "$IRQSIM_REQ" to $IRQSIM_CTL; rtlab_irqsim
# calls request_threaded_irq() and records request_ns = ktime_get_ns()
# (CLOCK_MONOTONIC) right after it returned, read back from $IRQSIM_STATUS
# as t0.  The new thread's pid comes from /sys/kernel/irq/<irq>/threads;
# its policy is polled every 20 us until it is SCHED_FIFO 77 (t1, same
# clock), then the irq is freed and the thread's exit awaited.  Latency =
# t1 - t0; the polling period bounds the measurement error (the poller runs
# SCHED_FIFO 1 so that its sleeps expire in hard irq context).  $N cycles
# per path ($N_POLL for poll-1s); rtirqd runs SCHED_FIFO 1 as its systemd
# unit sets it, and so does the 1-second loop.
# accel=${RTLAB_ACCEL:-?} kernel=${RTLAB_KERNEL:-?}.
EOF
tap_tcg_caveat

insmod "$IRQSIM_KO" || { echo "# cannot load $IRQSIM_KO"; exit 1; }
rtirqd_bench_rules

run() {
	label=$1
	cycles=$2
	"$BENCH" --ctl "$IRQSIM_CTL" --request "$IRQSIM_REQ" \
		--free "$IRQSIM_FREE" --status "$IRQSIM_STATUS" \
		--name rtirqd-sim --expect f:77 --fifo 1 \
		--cycles "$cycles" --timeout-ms 5000 --label "$label" \
		--json "$RES"
}

rc=0
run_daemon() {	# label source: a daemon for one path, its log kept
	# (logged to tmpfs: a write to the 9p share would add its round trip)
	rtirqd --foreground --self-priority 1 --event-source "$2" \
		>"/tmp/rtirqd-$1.log" 2>&1 &
	D=$!
	sleep 1
	run "$1" "$N" || rc=1
	kill "$D"
	wait "$D"
	cp "/tmp/rtirqd-$1.log" "$OUT/" 2>/dev/null
	# the daemon's own share: wake-up on the notification to policy set
	grep 'inside rtirqd' "/tmp/rtirqd-$1.log" | sed "s/^/# $1: /"
}
run_daemon event sysfs
run_daemon netlink netlink

( while :; do rtirqd --once -q --self-priority 1; sleep 1; done ) &
D=$!
run poll-1s "$N_POLL" || rc=1
kill "$D"; wait "$D" 2>/dev/null

rmmod rtlab_irqsim 2>/dev/null

# table and summary.json
awk '
function num(k,   v) { v = $0; sub(".*\"" k "\": ", "", v); sub("[,}].*", "", v); return v + 0 }
function str(k,   v) { v = $0; sub(".*\"" k "\": \"", "", v); sub("\".*", "", v); return v }
{
	l = str("label"); lab[NR] = l
	med[l] = num("median_us"); p99[l] = num("p99_us"); mx[l] = num("max_us")
	n[l] = num("measured"); c[l] = num("cycles"); to[l] = num("timeouts")
	line[NR] = $0
}
END {
	printf "%-10s %8s %8s %12s %12s %12s %10s\n", "path", "cycles", "ok", "median_us", "p99_us", "max_us", "vs_event"
	for (i = 1; i <= NR; i++) {
		l = lab[i]
		r = (med["event"] > 0) ? sprintf("%.1fx", med[l] / med["event"]) : "-"
		printf "%-10s %8d %8d %12.1f %12.1f %12.1f %10s\n", l, c[l], n[l], med[l], p99[l], mx[l], r
	}
	printf "{\n  \"benchmark\": \"rtirqd-latency\",\n  \"unit\": \"us\",\n  \"accel\": \"%s\",\n  \"kernel\": \"%s\",\n  \"results\": [\n", ENVIRON["RTLAB_ACCEL"], ENVIRON["RTLAB_KERNEL"] > SUMMARY
	for (i = 1; i <= NR; i++)
		printf "    %s%s\n", line[i], (i < NR ? "," : "") > SUMMARY
	printf "  ]\n}\n" > SUMMARY
}' SUMMARY="$OUT/summary.json" "$RES"
cp "$RES" "$OUT/rtirqd-latency.jsonl" 2>/dev/null
exit $rc
