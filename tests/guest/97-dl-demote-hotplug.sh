#!/bin/sh
# rtlab: kernel=rt-debug cpus=2 mem=512 timeout=300
# SCHED_FLAG_DL_DEMOTION (patch 0020, issue 22 item 5) across CPU hotplug,
# the scenario of tests/guest/97-dl-demote.sh kept out of make check: D
# (deadline 10/100 ms, DEMOTION, unpinned) beside a SCHED_OTHER hog per CPU
# in the root cpuset; the last CPU goes offline and online 5 times, each
# once D is demoted.  Points (tests/progs/dldemote.c asserts them):
#   1  before, the root domain reserves the fair servers only
#   hotplug  D survives and runs; after the cycles, with D alive, the root
#            domain's total_bw is the one before plus D's: every rebuild
#            counted D
#   book     every CPU's total_bw, running_bw and this_bw as before D
#   no splat in the kernel log
# History: pending from 2026-12-05 to 2026-12-06.  In the clean-clone make
# check of 2026-12-05 (17:55) the rebuilds left D out (total_bw 104856 ->
# 104856 with D alive; -1 after its exit), once in five runs, after 97's
# other scenarios in the same boot.  Two 6.12 paths lose bandwidth that
# way and are fixed in the series: a cpuset's deadline task count left one
# short by PI boosts around an exit or a move (0023; a rebuild then skips
# the cpuset), and a rebuild in a leaving task's 0-lag window (0026,
# tests/guest/93-dl-rebuild.sh).  Which one it was is not shown; the test
# went back to make check after the runs listed in docs/results/deadline.md.
. /rtlab/lib.sh
. /rtlab/lib/proc.sh

X=${DLDEMOTE:-/usr/local/libexec/rtlab/dldemote}
out=${RTLAB_OUT:-/tmp}
base=$(dmesg | wc -l)
online=$(cat /sys/devices/system/cpu/online)
last=${online##*[-,]}
trap 'echo 1 >"/sys/devices/system/cpu/cpu$last/online" 2>/dev/null' EXIT

tap_diag "kernel $(uname -r) ($RTLAB_KERNEL), accel ${RTLAB_ACCEL:-?}, CPUs $online"
if ! "$X" --help >/dev/null; then
	tap_fail "dldemote helper is installed"
	tap_done
fi
dldemote_book0 "before the scenario"
tap_sub "$X" hotplug
tap_sub "$X" -c "$out/book0" book
no_splats "$base" "no splat in the kernel log during the scenario (BUG, WARNING, lockdep, invalid wait context, sleeping in atomic)" \
	"a splat in the kernel log during the scenario"
tap_done
