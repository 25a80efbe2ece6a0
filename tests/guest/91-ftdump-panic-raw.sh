#!/bin/sh
# rtlab: kernel=rt cpus=2 mem=512 timeout=300 accel=tcg1 expect=panic cmdline=ftrace_dump_on_oops=dumped cmdline=ftrace_dump_raw=1
#
# Issue 19: the ftrace dump that a panic prints under ftrace_dump_on_oops,
# with ftrace_dump_raw=1 (patch 0014; the bare word, which 91-ftdump's
# command line has, was the only form taken before): every record as its
# bytes, converted by ftdump in the next boot and compared with the truth
# recorded beside it (tests/guest/lib/ftdump.sh, ftd_panic_test; the machine is
# 91-ftdump.sh's, whose header says why accel=tcg1 and why the time bound
# of the comparison holds).
. /rtlab/lib.sh
. /rtlab/lib/ftdump.sh
ftd_panic_test raw
