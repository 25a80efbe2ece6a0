#!/bin/sh
# rtlab: kernel=rt-debug cpus=1 mem=512 timeout=600 accel=icount
# SCHED_FLAG_DL_OVERRUN beside other deadline tasks and an RT group server
# on each CPU (issue 22 item 3, case 3 of 94-dl-overrun.sh, which it runs).
# One vCPU and a 10 ms / 100 ms group: see the header of 94-dl-overrun.sh.
exec "$(dirname "$0")/94-dl-overrun.sh" rtgroup
