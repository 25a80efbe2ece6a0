/* SPDX-License-Identifier: GPL-2.0 */
/* wakestorm: will the requested storm fit?  Checked before any thread exists. */
#ifndef WAKESTORM_LIMITS_H
#define WAKESTORM_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opts.h"

#define WS_UNLIMITED UINT64_MAX

/* Estimated resident memory of one sleeping thread besides its stack:
 * kernel stack (16 KiB on x86_64), task_struct and friends, and the user
 * stack pages a thread really touches when not locked. */
#define WS_THREAD_OVERHEAD	(32u * 1024u)

/* The facts the checks depend on; read by ws_env_read(), faked in tests. */
struct ws_env {
	uint64_t threads_max;		/* /proc/sys/kernel/threads-max */
	uint64_t nr_threads;		/* threads in the system now */
	uint64_t pid_max;		/* /proc/sys/kernel/pid_max */
	uint64_t max_map_count;		/* /proc/sys/vm/max_map_count */
	uint64_t map_count;		/* our mappings now */
	uint64_t rlimit_nproc;		/* RLIMIT_NPROC (soft) */
	uint64_t user_threads;		/* threads of our real uid now */
	bool nproc_exempt;		/* uid 0, CAP_SYS_RESOURCE or CAP_SYS_ADMIN */
	uint64_t rlimit_as;		/* RLIMIT_AS (soft) */
	uint64_t vm_size;		/* our address space now, bytes */
	uint64_t rlimit_memlock;	/* RLIMIT_MEMLOCK (soft) */
	bool cap_ipc_lock;
	bool cap_sys_nice;
	uint64_t rlimit_rtprio;		/* RLIMIT_RTPRIO (soft) */
	uint64_t mem_available;		/* MemAvailable, bytes */
	uint64_t cg_pids_max;		/* cgroup pids.max (WS_UNLIMITED: none) */
	uint64_t cg_pids_current;
	uint64_t cg_mem_max;		/* cgroup memory limit (WS_UNLIMITED: none) */
	uint64_t cg_mem_current;
	size_t page_size;
	size_t stack_min;		/* PTHREAD_STACK_MIN at run time */
	/* online CPUs, as a bitmap over WS_MAX_CPUS */
	uint64_t online[WS_MAX_CPUS / 64];
	/* CPUs we may run on (sched_getaffinity) */
	uint64_t allowed[WS_MAX_CPUS / 64];
	/* SCHED_DEADLINE admission (global): sched_rt_runtime_us/period_us */
	int64_t rt_runtime_us;		/* -1: unlimited */
	uint64_t rt_period_us;
	uint64_t dl_period_min_us;
	uint64_t dl_period_max_us;
	unsigned int nr_online;
};

/* Fill *env from /proc, /sys and getrlimit. Unknown values are WS_UNLIMITED. */
void ws_env_read(struct ws_env *env);

/*
 * Decide whether o can run in env. Returns 0 or -1 with a message that names
 * the option and the limit in err.
 */
int ws_check_limits(const struct ws_opts *o, const struct ws_env *env,
		    char *err, size_t errlen);

/* Bytes of memory one thread is expected to need (estimate, see above). */
uint64_t ws_thread_mem(const struct ws_opts *o, const struct ws_env *env);

static inline bool ws_cpu_in(const uint64_t *map, int cpu)
{
	return cpu >= 0 && (unsigned int)cpu < WS_MAX_CPUS &&
	       (map[cpu / 64] >> (cpu % 64)) & 1;
}

#endif
