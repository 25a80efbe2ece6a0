// SPDX-License-Identifier: GPL-2.0
/*
 * The headers whose enum constants the print fmts of the lab's trace
 * events name without TRACE_DEFINE_ENUM, so that the kernel leaves them
 * unresolved in the format files: hrtimer_start's and hrtimer_init's
 * __print_symbolic() of enum hrtimer_mode; and those of other systems
 * that "ftdump --save-formats" listed as unresolved on the rt kernel
 * (softirq vectors, PM QoS requests, TCP states). Add headers here for
 * more.
 */
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/pm_qos.h>
#include <net/tcp_states.h>
