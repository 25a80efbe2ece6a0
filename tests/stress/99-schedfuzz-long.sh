#!/bin/sh
# rtlab: kernel=rt-debug cpus=4 mem=512 timeout=1800
# make stress: the scheduler fuzzer (tests/guest/99-schedfuzz.sh, which
# make check runs for 30 s in cgroup v2 mode with seed 2, no cpuset
# operation) for 10 minutes
# in v1 mode with CPU hotplug and 10 in v2 mode, every operation, fresh
# random seeds (these still find open bugs, issue 39), printed in the TAP and kept in
# the logs in $RTLAB_OUT (schedfuzz-MODE-SEED.log): a red run is replayed
# with  schedfuzz -r LOG  (issue 39 item 1).
export SCHEDFUZZ_SECS=${SCHEDFUZZ_SECS:-600}
export SCHEDFUZZ_MODES=${SCHEDFUZZ_MODES:-v1 v2}
export SCHEDFUZZ_SEEDS=${SCHEDFUZZ_SEEDS:-random random}
export SCHEDFUZZ_HOTPLUG=${SCHEDFUZZ_HOTPLUG:-yes}
export SCHEDFUZZ_ARGS=${SCHEDFUZZ_ARGS-}
exec /rtlab/tests/99-schedfuzz.sh
