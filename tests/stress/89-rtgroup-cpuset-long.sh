#!/bin/sh
# rtlab: kernel=rt-debug cpus=4 mem=576 timeout=1200
# make stress: tests/guest/89-rtgroup-cpuset.sh for 10 minutes (make check
# runs it for 30 s): group changes and removals against cpuset partition
# rebuilds and CPU 2 going offline and back, at once; then the root
# domains must reserve exactly what they did before, a deadline task must
# still be admitted, and the console must hold no splat (issue 24's
# "make stress runs the hotplug/cpuset/group-churn race for 10 minutes").
export RTG_RACE_SECS=${RTG_RACE_SECS:-600}
exec /rtlab/tests/89-rtgroup-cpuset.sh
