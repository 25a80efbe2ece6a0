#!/bin/sh
# rtlab: kernel=rt-debug cpus=2 mem=448 timeout=240
# GRUB's extra_bw after rebuilds of the root domains (issue 39 item 2.5,
# patch 0031).  extra_bw, each CPU's share of its root domain's reserved
# bandwidth that GRUB may not reclaim, is kept by increments (bw / cpus per
# add or release).  A rebuild computes total_bw again and adds every live
# deadline task back, and in 6.12 that took each task's share off extra_bw
# once more per rebuild: GRUB reclaimed less after every cpuset change.
# A SCHED_DEADLINE sleeper (10 ms / 100 ms) stays alive through a hotplug
# cycle of the last CPU, then two cpuset partitions made and unmade on it.
# Before each, a write to sched_rt_runtime_us sets every CPU's extra_bw
# again (to max_bw, then its rebuild of the root domains), so that each
# boot starts the same: after boot it depends on the order in which CPUs
# and fair servers came up (812649 and 969933 on two CPUs).
# Points:
#   1  after the hotplug cycle, every CPU's extra_bw = max_bw - total_bw /
#      CPUs (as /sys/kernel/debug/sched/debug shows them since patch 0031;
#      1 unit of slack for rounding)
#   2  the same after the partitions
#   3  with the sleeper gone, the same, and total_bw back to the fair
#      servers'
#   4  a lone 10 / 100 ms reclaiming task gets the share GRUB's formula
#      gives with the fair servers' 5% per CPU counted (dlgrub -o 5,
#      within 1 percentage point, median of 5 windows of 3 s): 95%; the
#      series without 0031 gave it 14.7% (with more rebuilds, or without
#      the second write, extra_bw wraps below 0 and GRUB reclaims
#      everything: 95% by accident)
#   5  no splat
. /rtlab/lib.sh
. /rtlab/lib/proc.sh

G=${DLGRUB:-/usr/local/libexec/rtlab/dlgrub}
out=${RTLAB_OUT:-/tmp}
base=$(dmesg | wc -l)
online=$(cat /sys/devices/system/cpu/online)
last=${online##*[-,]}
ncpu=$((last + 1))
R="" P="" mounted="" cpuset_on="" sleeper=""
cleanup() {
	[ -z "$sleeper" ] || kill "$sleeper" 2>/dev/null
	cg2_cell_cleanup
}
trap cleanup EXIT
tap_plan 5

tap_diag "kernel $(uname -r) ($RTLAB_KERNEL), accel ${RTLAB_ACCEL:-?}, CPUs $online"
tap_tcg_caveat "CPU shares"
if [ "$last" = 0 ] || ! "$G" --help >/dev/null; then
	tap_fail "setup: two CPUs and the dlgrub helper"
	tap_done
fi
if ! cg2_cell dl-extra "$last"; then
	tap_fail "setup: a cpuset cgroup on CPU $last under ${R:-?} ($werr)"
	tap_done
fi

# extra_check: $book the deadline book of every CPU ("cpu:extra_bw/max_bw/
# total_bw"), $bad empty if every CPU's extra_bw is max_bw - total_bw /
# ncpu (+-1), else what differs
extra_check() {
	book=$(awk '/^dl_rq\[/ { c = $1; gsub(/[^0-9]/, "", c) }
		    /\.extra_bw/ { e[c] = $NF } /\.max_bw/ { m[c] = $NF }
		    /dl_bw->total_bw/ { t[c] = $NF }
		    END { for (c in t) printf "%s:%s/%s/%s ", c, e[c], m[c], t[c] }' \
		/sys/kernel/debug/sched/debug)
	bad=$(echo "$book" | tr ' ' '\n' | awk -F'[:/]' -v n="$ncpu" '
		NF == 4 { if ($2 == "") { printf "no extra_bw for CPU %s; ", $1; next }
			  want = $3 - int($4 / n); d = $2 - want
			  if (d > 1 || d < -1) printf "CPU %s extra_bw %s, %s due; ", $1, $2, want }')
	[ -n "$book" ] || bad="no deadline book in /sys/kernel/debug/sched/debug"
}
# extra_check_more: extra_check, what it finds added to $bad
extra_check_more() { _b=$bad; extra_check; bad=$_b$bad; }

chrt -d -T 10000000 -D 100000000 -P 100000000 0 sleep 120 &
sleeper=$!
sleep 0.2
# the same start in every boot (see the top)
rt=/proc/sys/kernel/sched_rt_runtime_us
wr $rt "$(cat $rt)"
extra_check
tap_diag "before the rebuilds (cpu:extra_bw/max_bw/total_bw): $book"
cpu=/sys/devices/system/cpu/cpu$last/online
bad=""
wr "$cpu" 0 && wr "$cpu" 1 || bad="the hotplug cycle failed ($werr); "
extra_check_more
tap_check "sleeper alive, after a hotplug cycle of CPU $last: extra_bw = max_bw - total_bw / $ncpu on every CPU ($book)${bad:+: $bad}" \
	[ -z "$bad" ]

# the same start again, for point 4 (see the top)
wr $rt "$(cat $rt)"
bad=""
for i in 1 2; do
	wr $P/cpuset.cpus.partition root && [ "$(cat $P/cpuset.cpus.partition)" = root ] &&
		wr $P/cpuset.cpus.partition member || bad="a partition was refused ($werr); "
done
extra_check_more
tap_check "sleeper alive, after two partitions made and unmade on CPU $last: extra_bw = max_bw - total_bw / $ncpu on every CPU ($book)${bad:+: $bad}" \
	[ -z "$bad" ]

kill "$sleeper"
wait "$sleeper" 2>/dev/null
sleeper=""
sleep 0.3
extra_check
fs=$(fair_servers_bw)
tot=$(rd_bw | tr ' ' '\n' | awk -F: 'NF == 2 { print $2; exit }')
[ "$tot" = "$fs" ] || bad="${bad}total_bw is not the fair servers'"
tap_check "sleeper gone: extra_bw = max_bw - total_bw / $ncpu on every CPU, total_bw $tot = the fair servers' $fs ($book)${bad:+: $bad}" \
	[ -z "$bad" ]

"$G" -n 3 -o 5 name=R,runtime=10000,period=100000,reclaim >"$out/dlgrub.txt" 2>&1
rc=$?
tap_points reclaim "$out/dlgrub.txt"
[ "$tap_npoints" -gt 0 ] || tap_fail "reclaim: dlgrub gave no result, rc $rc"

rmdir $P && P=""
no_splats "$base" "no splat in the kernel log (BUG, WARNING, lockdep, invalid wait context, sleeping in atomic)" \
	"a splat in the kernel log"
tap_done
