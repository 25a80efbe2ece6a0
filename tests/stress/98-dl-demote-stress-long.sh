#!/bin/sh
# rtlab: kernel=rt-debug cpus=4 mem=576 timeout=1200
# make stress: tests/guest/98-dl-demote-stress.sh for 10 minutes (make check
# runs it for 30 s): deadline tasks with demotion toggled at random against
# CPU hotplug and cgroup moves; afterwards the root domains must reserve
# what they did before, a deadline task must be admitted, and the console
# must hold no splat (issue 22 item 5's 10-minute stress).
export DL_STRESS_SECS=${DL_STRESS_SECS:-600}
exec /rtlab/tests/98-dl-demote-stress.sh
