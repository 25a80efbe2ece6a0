#!/bin/sh
# rtlab: kernel=rt-debug cpus=2 mem=512 timeout=900
# SCHED_FLAG_DL_DEMOTION (issue 22 items 4-5): a SCHED_DEADLINE task with
# the flag that runs out of runtime while it runs goes on in the fair
# class at its sched_nice until its replenishment, instead of being
# throttled; policy, parameters and bandwidth reservation unchanged.  The
# helper, tests/progs/dldemote.c, runs one scenario per call and asserts
# for itself (its header has the method and the reasons); here the stage:
# a cgroup v2 cpuset partition root holding the last CPU alone, its own
# root domain, so that a deadline task (whose affinity must span its root
# domain) and SCHED_OTHER hogs share exactly one CPU, while dldemote's
# measuring thread runs SCHED_FIFO on CPU 0 outside it.  Shares are CPU
# time over whole 100 ms periods, median of 3 windows of 2 s (TCG noise:
# one window spoilt by a host stall does not decide; dldemote's default
# of 5 cost this boot 25 s of CI time); D is deadline
# 10/100 ms, H SCHED_OTHER nice 0.  Points:
#   1  before anything, the root domain reserves the fair servers only
#      (total_bw = their sum), and the book of every CPU (dl_bw->total_bw,
#      running_bw, this_bw, a hog per CPU keeping the fair servers active)
#      is saved as the baseline
#   2  the partition is made (root, CPU N alone)
#   share    D (DEMOTION) and H: D - 10 = H within 2 points (D's 10% and
#            half the rest; the issue's criterion), D seen demoted (stat
#            priority 20), sched_getattr() SCHED_DEADLINE in every sample
#   share at the extremes: nice -20 and 19 while demoted (D's demoted part
#            within 1 point of its weight's share of what D and H got; at
#            nice 0 that is D - 10 = H within 2)
#   control  D without the flag (negative control: the same measurement
#            tells throttling apart): D 10% +-1, H 90% +-2, never demoted
#   reserve  D, E (deadline 30/100 ms, no flag) and H: E keeps 30% +-1,
#            D - 10 = H within 2
#   fork     fork() from demoted D and from a deadline task: EAGAIN
#   setattr  sched_setaffinity() and sched_setattr() (20 ms) on demoted D
#            return 0 and end the demotion (still out of runtime, D is
#            demoted again at its next schedule); then
#            D - 20 = H within 2 (the new runtime applies)
#   pi       a SCHED_FIFO 50 waiter on a PI mutex a demoted D holds (its
#            budget runs out inside the 30 ms of CPU it holds it for)
#            waits under 60 ms (boosted, D finishes); without the flag
#            (the reference) over 60 ms (D waits for its replenishment)
#   exit     D exits while demoted, 5 rounds (thread, process); the
#            partition CPU's book after as before
#   renice   setpriority() on demoted D, nice 19 and 0 in turn, 40 times:
#            each read that finds D demoted shows the new nice's prio and
#            fair weight (patch 0032; before, the old ones until D's next
#            demotion)
#   move     D moved 20 times, when demoted, between two cpu cgroups (v2
#            cpu under the partition if the controller is free, else the
#            v1 cpu hierarchy an earlier test of the boot mounted, else
#            two cpuset children of the partition): it survives and runs
#   3  the partition and the cgroups removed
#   book     every CPU's book as in 1 (total_bw; running_bw and this_bw,
#            which fail saying so if the kernel does not print them)
#   3b share with runtime 1024 ns, the least (D - 0.001 = H within 2), in
#      the partition made again, after the book (see there why); then wake:
#      such a D, demoted, sleeps 1 ms (10 times) or has its affinity or its
#      attributes set (10 times each), and runs again within 50 ms of each
#      (in the deadline class it would wait minutes for its replenishment,
#      holding whatever locks it took while demoted)
#   (hotplug: tests/guest/97-dl-demote-hotplug.sh, a test of its own)
#   4  no splat (BUG, WARNING, lockdep, invalid wait context, sleeping in
#      atomic) in the kernel log since the start
# Environment: DLDEMOTE (the helper), DLDEMOTE_OPTS (the share scenarios'
# options, default "-n 3"; e.g. "-n 5" for dldemote's own default, or
# "-n 1 -w 1000" for a quick run).
. /rtlab/lib.sh
. /rtlab/lib/proc.sh

X=${DLDEMOTE:-/usr/local/libexec/rtlab/dldemote}
OPTS=$(knob_words "${DLDEMOTE_OPTS:--n 3}")
out=${RTLAB_OUT:-/tmp}
base=$(dmesg | wc -l)
online=$(cat /sys/devices/system/cpu/online)
last=${online##*[-,]}
R="" P="" mounted="" cpuset_on="" cpu_on="" p_ctl="" v1grp=""

# rm_dirs DIR...: remove cgroups, again after a moment if an exiting task
# still held one; fails if one is left
rm_dirs() {
	for _d in "$@"; do
		[ -d "$_d" ] || continue
		rmdir "$_d" 2>/dev/null || { sleep 0.3; rmdir "$_d"; } || return 1
	done
}
# teardown: the cgroups and the partition gone, the controllers as found
teardown() {
	rm_dirs $v1grp "$P/a" "$P/b" || return 1
	v1grp=""
	[ -z "$p_ctl" ] || wr "$P/cgroup.subtree_control" "-$p_ctl" || return 1
	p_ctl=""
	if [ -n "$P" ] && [ -d "$P" ]; then
		wr "$P/cpuset.cpus.partition" member && rm_dirs "$P" || return 1
	fi
	P=""
	[ -z "$cpu_on" ] || wr "$R/cgroup.subtree_control" -cpu || return 1
	cpu_on=""
	[ -z "$cpuset_on" ] || wr "$R/cgroup.subtree_control" -cpuset || return 1
	cpuset_on=""
}
cleanup() {
	echo 1 >"/sys/devices/system/cpu/cpu$last/online" 2>/dev/null
	teardown 2>/dev/null
	[ -z "$mounted" ] || umount "$mounted"
}
trap cleanup EXIT

tap_diag "kernel $(uname -r) ($RTLAB_KERNEL), accel ${RTLAB_ACCEL:-?}, CPUs $online"
tap_tcg_caveat "CPU shares and lock waits"
if ! "$X" --help >/dev/null; then
	tap_fail "dldemote helper is installed"
	tap_done
fi

# --- 1: the baseline -------------------------------------------------------------
dldemote_book0 "before the scenarios"

# --- 2: the partition ----------------------------------------------------------------
cg2_root
# partition: $R/dldemote a partition root on the last CPU alone, in $P
partition() {
	cg2_cpuset
	P=$R/dldemote
	[ "$last" != 0 ] && grep -qw cpuset $R/cgroup.subtree_control && mkdir $P &&
		wr $P/cpuset.cpus "$last" && wr $P/cpuset.cpus.partition root &&
		[ "$(cat $P/cpuset.cpus.partition)" = root ] && [ "$(cat $P/cpuset.cpus.effective)" = "$last" ]
}
if partition; then
	tap_ok "cpuset partition root $P on CPU $last alone (its own root domain); the rest on CPUs $(cat $R/cpuset.cpus.effective)"
else
	tap_fail "cpuset partition root on CPU $last under ${R:-?} ($werr; partition \"$(cat $P/cpuset.cpus.partition 2>&1)\")"
	tap_done
fi

# --- the scenarios in the partition -------------------------------------------------------
# shellcheck disable=SC2086
for sc in share control reserve; do
	tap_sub "$X" $OPTS -g $P $sc
done
# the extremes of D's nice while demoted, -20 and 19 (D's demoted part by
# weight: 98.9% and 1.4% of what D and H share); the least runtime is at 3b
# shellcheck disable=SC2086
for x in "-e -20" "-e 19"; do
	tap_sub "$X" $OPTS $x -g $P share
done
# shellcheck disable=SC2086
tap_sub "$X" -g $P fork
# shellcheck disable=SC2086
tap_sub "$X" $OPTS -g $P setattr
tap_sub "$X" -g $P pi
tap_sub "$X" -g $P exit
tap_sub "$X" -e 19 -g $P renice

# move: two cpu cgroups if there is a cpu controller to be had
v1=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpu(,|$)/ { print $2; exit }' /proc/mounts)
if grep -qw cpu $R/cgroup.controllers; then
	kind="cgroup v2 cpu, two children of the partition"
	if ! grep -qw cpu $R/cgroup.subtree_control; then
		wr $R/cgroup.subtree_control +cpu && cpu_on=1
	fi
	wr $P/cgroup.subtree_control +cpu && p_ctl=cpu
	set -- -g $P/a -m $P/b:$P/a
	mkdir $P/a $P/b
elif [ -n "$v1" ]; then
	kind="cgroup v1 cpu at $v1 (the cpu controller is bound there), D in the partition"
	v1grp="$v1/dldemote-a $v1/dldemote-b"
	set -- -g $P -m $v1/dldemote-a:$v1/dldemote-b
	mkdir $v1grp
else
	kind="cpuset, two children of the partition (no cpu controller)"
	wr $P/cgroup.subtree_control +cpuset && p_ctl=cpuset
	set -- -g $P/a -m $P/b:$P/a
	mkdir $P/a $P/b
fi
tap_diag "move: $kind"
tap_sub "$X" "$@" move

# --- 3: the partition gone -------------------------------------------------------------
if teardown; then
	tap_ok "partition and cgroups removed, the controllers of $R as found"
else
	tap_fail "teardown of the partition or the cgroups ($werr)"
fi
tap_sub "$X" -c "$out/book0" book

# --- 3b: the least runtime, after the book ----------------------------------------------------
# D with 1024 ns, the least runtime SCHED_DEADLINE takes, shares like a fair
# task (demoted nearly all the time).  It comes after the book: D overruns
# that runtime by up to a tick (HZ 1000) before each demotion, about 1000
# times over, and 6.12's CBS pays the debt back one runtime per period
# (replenish_dl_entity()), so D's deadline runs minutes ahead, and after D
# is killed its bandwidth stays on the partition CPU's dl_rq (running_bw,
# this_bw) until that 0-lag time (a task without the flag would stay
# throttled as long).  The book after it shows what stays.
if partition; then
	# shellcheck disable=SC2086
	tap_sub "$X" $OPTS -R 1024 -g $P share
	# the same D sleeps, or has its affinity or attributes set, while
	# demoted: it runs on demoted, not throttled for minutes
	tap_sub "$X" -r 10 -g $P wake
	"$X" book 2>&1 | sed 's/^/# after the 1024 ns D: /'
	teardown || tap_fail "teardown of the second partition ($werr)"
else
	tap_fail "the partition again for the 1024 ns runtime ($werr)"
fi

# --- 4: no splat ------------------------------------------------------------------------
ld=$(dmesg | tail -n +"$((base + 1))" | grep -i -E 'lockdep|inconsistent lock state')
if [ -n "$ld" ]; then
	echo "$ld" | head -n 20 | sed 's/^/# /'
	tap_fail "a lockdep report in the kernel log during the scenarios: $(echo "$ld" | head -n 1)"
else
	no_splats "$base" "no splat in the kernel log during the scenarios (BUG, WARNING, lockdep, invalid wait context, sleeping in atomic)" \
		"a splat in the kernel log during the scenarios"
fi
tap_done
