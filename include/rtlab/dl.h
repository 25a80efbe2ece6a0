/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SCHED_DEADLINE for rtlab's C programs: glibc has no sched_setattr()
 * wrapper, and <linux/sched/types.h> cannot be included beside <sched.h>
 * (both define struct sched_param), so the VER0 layout of struct
 * sched_attr (include/uapi/linux/sched/types.h) is declared here.  The
 * policy and flag values come from <linux/sched.h>.
 *   rtlab_set_deadline(tid, runtime_ns, period_ns, flags): 0 or an errno
 *   rtlab_set_deadline_nice(..., nice): the same with sched_attr.sched_nice
 */
#ifndef RTLAB_DL_H
#define RTLAB_DL_H

#include <errno.h>
#include <linux/sched.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

struct rtlab_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
};

/*
 * implicit deadline (deadline = period), as the tests use; nice is
 * sched_attr.sched_nice, which SCHED_FLAG_DL_DEMOTION (rtlab patch 0020)
 * runs a demoted task at
 */
static inline int rtlab_set_deadline_nice(pid_t tid, uint64_t runtime_ns, uint64_t period_ns,
					  uint64_t flags, int nice)
{
	struct rtlab_sched_attr a = {
		.size = sizeof(a),
		.sched_policy = SCHED_DEADLINE,
		.sched_flags = flags,
		.sched_nice = nice,
		.sched_runtime = runtime_ns,
		.sched_deadline = period_ns,
		.sched_period = period_ns,
	};

	return syscall(SYS_sched_setattr, tid, &a, 0) ? errno : 0;
}

static inline int rtlab_set_deadline(pid_t tid, uint64_t runtime_ns, uint64_t period_ns, uint64_t flags)
{
	return rtlab_set_deadline_nice(tid, runtime_ns, period_ns, flags, 0);
}

#endif
