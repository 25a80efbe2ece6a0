#!/bin/sh
# rtlab: kernel=rt-debug cpus=2 timeout=7200
# make stress: 100,000 request/free cycles of threaded irqs with 10 epoll
# pollers and an open/read/close churn thread attached (make check runs
# 500).  Pass: no missed or extra wake-up, no splat, the module unloads.
. /rtlab/lib.sh
T=/usr/local/libexec/rtlab/irqwatch_test
N=${IRQ_STRESS_CYCLES:-100000}
insmod /rtlab/modules/rtlab_irqsim.ko || { tap_fail "rtlab_irqsim loads"; tap_done; }
tap_check "$N request/free cycles with 10 epoll pollers and churn" $T churn -s proc -e -n 10 -c "$N"
tap_check "$((N / 10)) cycles against /sys/kernel/irq/generation" $T churn -s sysfs -e -n 10 -c "$((N / 10))"
tap_check "rtlab_irqsim unloads" rmmod rtlab_irqsim
tap_done
