#!/bin/sh
# rtlab: kernel=rt-debug cpus=4 mem=512 timeout=1200
# make stress: tests/guest/81-rtgroup-stress.sh for 10 minutes (make check
# runs it for 75 s): groups made and removed, their runtime and period
# changed, tasks moved between them, hackbench and hogs, then every group
# must be removable and a 10 ms / 100 ms group must still give 10%.
export RTG_STRESS_SECS=${RTG_STRESS_SECS:-600}
exec /rtlab/tests/81-rtgroup-stress.sh
