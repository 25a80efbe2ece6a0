#!/bin/sh
# rtlab: kernel=rt-debug cpus=4 mem=512 timeout=1800
# make stress: the scheduler fuzzer (issue 39 item 1).  tests/progs/schedfuzz
# draws seeded random operations (policies incl. SCHED_DEADLINE with
# RECLAIM, DL_OVERRUN and DL_DEMOTION, nice, affinity, yield; PI mutex
# chains, timed, robust; lib/rtpi condvars; fork, exec, thread exit,
# SIGSTOP/SIGCONT/SIGKILL; cgroup groups, moves of threads and processes,
# RT runtimes and periods with edge values, cpusets; CPU hotplug; the RT
# sysctl) and checks at quiescent points that every thread makes progress
# and that the deadline book adds up, and at the end that everything can
# be killed, reaped and removed and the book is back where it was.
#
# Two runs of 10 minutes with fresh random seeds (printed, and in the log
# names): cgroup v1 (cpu, cpuset) with CPU hotplug, then cgroup v2 (cpu,
# cpuset partitions).  A red run is replayed with  schedfuzz -r LOG  (the
# logs are in $RTLAB_OUT: schedfuzz-MODE-SEED.log).
#
# Not in make check: the fuzzer still finds open bugs in every mode, so a
# bounded run there is red in about half the boots (issue 39's notes,
# docs/results/schedfuzz.md): a root domain whose total_bw is one tiny
# deadline task short of its CPUs' this_bw (v1 seeds 1 and 8, with and
# without hotplug; v2 seed 2 without the cpuset operation, in the rt-debug
# 4-CPU boot after tests 80-89), a WARNING in the cpuset partition code
# (v2 partition writes), once a worker that got no CPU time and whose
# process did not die (v1 with hotplug).
#   SCHEDFUZZ_SECS     seconds per run (default 600)
#   SCHEDFUZZ_MODES    the runs, in order (default "v1 v2"; "v2,v1" from
#                      lab/rtlab run --env, whose values cannot hold blanks)
#   SCHEDFUZZ_SEEDS    one seed per run (default "random random"; a number
#                      repeats a seed's operations, timing aside; commas
#                      or blanks between them)
#   SCHEDFUZZ_HOTPLUG  yes: CPU hotplug in a v1 run (default yes)
#   SCHEDFUZZ_ARGS     more schedfuzz options (e.g. "-x cpuset", or
#                      "-x,cpuset" through --env)
. /rtlab/lib.sh
. /rtlab/lib/proc.sh

F=/usr/local/libexec/rtlab/schedfuzz
out=${RTLAB_OUT:-/tmp}
secs=${SCHEDFUZZ_SECS:-600}
seeds=$(knob_words "${SCHEDFUZZ_SEEDS:-random random}")
modes=$(knob_words "${SCHEDFUZZ_MODES:-v1 v2}")
args=$(knob_words "${SCHEDFUZZ_ARGS:-}")
mount | grep -q ' /sys/kernel/debug ' || mount -t debugfs none /sys/kernel/debug
d0=$(dmesg | wc -l)

i=0
for m in $modes; do
	i=$((i + 1))
	seed=$(echo "$seeds" | awk -v i=$i '{ print $i }')
	case $seed in
	""|random) seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ') ;;
	esac
	hp=""
	[ "$m" = v1 ] && [ "${SCHEDFUZZ_HOTPLUG:-yes}" = yes ] && hp=-H
	# shellcheck disable=SC2086
	tap_sub "$F" -s "$seed" -t "$secs" -c "$m" $hp -l "$out/schedfuzz-$m-$seed.log" -o "$out" \
		$args
done
no_splats "$d0" "no splat in the kernel log during the fuzzing" "a splat in the kernel log during the fuzzing"
tap_done
