/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rtlab's one clock reading for C programs: CLOCK_MONOTONIC in nanoseconds,
 * signed so that differences of two readings need no cast.
 */
#ifndef RTLAB_TIME_H
#define RTLAB_TIME_H

#include <stdint.h>
#include <time.h>

#define RTLAB_NSEC_PER_SEC	1000000000LL
#define RTLAB_NSEC_PER_MSEC	1000000LL
#define RTLAB_NSEC_PER_USEC	1000LL

static inline int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * RTLAB_NSEC_PER_SEC + ts.tv_nsec;
}

#endif
