// SPDX-License-Identifier: GPL-2.0
/*
 * The headers whose enum constants the print fmts of the lab's trace
 * events name without TRACE_DEFINE_ENUM, so that the kernel leaves them
 * unresolved in the format files: hrtimer_start's and hrtimer_init's
 * __print_symbolic() of enum hrtimer_mode. "ftdump --save-formats" lists
 * the names it could not resolve; add their headers here.
 */
#include <linux/hrtimer.h>
