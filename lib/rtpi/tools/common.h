/* Shared helpers for the rtpi guest tools (rtpi-inversion, rtpi-wakeup). */
#ifndef RTPI_TOOLS_COMMON_H
#define RTPI_TOOLS_COMMON_H
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "rtpi.h"
#include "rtlab/opt.h"

/* Which condvar implementation a run uses. */
enum impl {
	IMPL_RTPI,		/* native pi_cond_* + pi_mutex_* */
	IMPL_PRELOAD,		/* pthread API, PI mutex, drop-in interposed */
	IMPL_GLIBC_PI,		/* pthread API, PI mutex, glibc's condvar */
	IMPL_GLIBC_NORMAL,	/* pthread API, normal mutex, glibc's condvar */
};

static const char *const impl_names[] = {
	"rtpi", "preload", "glibc-pi", "glibc-normal",
};

static const char *prog = "rtpi-tool";

__attribute__((noreturn, format(printf, 1, 2)))
static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static inline int parse_impl(const char *s)
{
	for (unsigned i = 0; i < sizeof(impl_names) / sizeof(impl_names[0]); i++)
		if (!strcmp(s, impl_names[i]))
			return (int)i;
	if (!strcmp(s, "glibc"))
		return IMPL_GLIBC_PI;
	return -1;
}

/* ---- command line: both tools take only "-x VALUE" / "--long VALUE" pairs */
struct tool_opt {
	const char *short_name, *long_name;	/* a NULL short_name ends a table */
	int id;
};

/* one option of the command line as typed, and its value */
struct opt_arg {
	const char *name, *val;
};

/*
 * The option at argv[*i] and its value, advancing *i past both: returns its
 * id in opts.  -h/--help prints usage to stdout and exits 0; an unknown
 * option or a missing value is a command-line error (exit 2).
 */
static inline int next_opt(int argc, char **argv, int *i, const struct tool_opt *opts,
			   void (*usage)(FILE *), struct opt_arg *arg)
{
	const char *a = argv[*i];

	if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
		usage(stdout);
		exit(0);
	}
	for (; opts->short_name; opts++)
		if (!strcmp(a, opts->short_name) || !strcmp(a, opts->long_name))
			break;
	if (!opts->short_name)
		die("command line: unknown option '%s' (see --help)", a);
	if (*i + 1 >= argc)
		die("command line: option '%s' needs a value (see --help)", a);
	*i += 1;
	arg->name = a;
	arg->val = argv[*i];
	return opts->id;
}

static inline long parse_long(const char *opt, const char *s, long min, long max)
{
	long v;

	if (!opt_long(s, min, max, &v))
		die("command line: %s: '%s' is not a number in [%ld, %ld]",
		    opt, s, min, max);
	return v;
}

/* ---- one mutex + one condvar, in the chosen implementation */
struct sync {
	enum impl impl;
	pi_mutex_t pm;
	pi_cond_t pc;
	pthread_mutex_t m;
	pthread_cond_t c;
};

static inline void sync_init(struct sync *s, enum impl impl)
{
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;

	s->impl = impl;
	if (impl == IMPL_PRELOAD && !dlsym(RTLD_DEFAULT, "rtpi_preload_version"))
		die("mode preload: librtpi-preload.so is not loaded (set LD_PRELOAD)");
	if (impl != IMPL_PRELOAD && dlsym(RTLD_DEFAULT, "rtpi_preload_version"))
		die("mode %s: librtpi-preload.so is loaded; unset LD_PRELOAD",
		    impl_names[impl]);
	if (impl == IMPL_RTPI) {
		if (pi_mutex_init(&s->pm, 0) || pi_cond_init(&s->pc, 0))
			die("pi_*_init failed");
		return;
	}
	pthread_mutexattr_init(&ma);
	if (impl != IMPL_GLIBC_NORMAL &&
	    pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT))
		die("PTHREAD_PRIO_INHERIT not supported");
	pthread_mutex_init(&s->m, &ma);
	pthread_mutexattr_destroy(&ma);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->c, &ca);
	pthread_condattr_destroy(&ca);
}

static inline void s_lock(struct sync *s)
{
	int e = s->impl == IMPL_RTPI ? pi_mutex_lock(&s->pm) : pthread_mutex_lock(&s->m);

	if (e)
		die("lock: %s", strerror(e));
}

static inline void s_unlock(struct sync *s)
{
	int e = s->impl == IMPL_RTPI ? pi_mutex_unlock(&s->pm) : pthread_mutex_unlock(&s->m);

	if (e)
		die("unlock: %s", strerror(e));
}

static inline void s_wait(struct sync *s)
{
	int e = s->impl == IMPL_RTPI ? pi_cond_wait(&s->pc, &s->pm)
				     : pthread_cond_wait(&s->c, &s->m);

	if (e)
		die("wait: %s", strerror(e));
}

static inline void s_signal(struct sync *s)
{
	int e = s->impl == IMPL_RTPI ? pi_cond_signal(&s->pc, &s->pm)
				     : pthread_cond_signal(&s->c);

	if (e)
		die("signal: %s", strerror(e));
}

static inline void s_broadcast(struct sync *s)
{
	int e = s->impl == IMPL_RTPI ? pi_cond_broadcast(&s->pc, &s->pm)
				     : pthread_cond_broadcast(&s->c);

	if (e)
		die("broadcast: %s", strerror(e));
}

/* ---- results */
static inline int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* n latencies, zeroed; memory locked so that page faults stay out of them */
static inline uint64_t *alloc_latencies(size_t n)
{
	uint64_t *lat = calloc(n, sizeof(*lat));

	if (!lat)
		die("out of memory");
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		fprintf(stderr, "%s: mlockall: %s (continuing)\n", prog, strerror(errno));
	return lat;
}

/* ---- time */
static inline uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static inline void sleep_us(long us)
{
	struct timespec t = { us / 1000000, (us % 1000000) * 1000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &t, &t) == EINTR)
		;
}

/* ---- scheduling: SCHED_FIFO threads pinned to one CPU */
static int g_cpu;

static inline void pin_fifo_self(int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(g_cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity(cpu %d): %s", g_cpu, strerror(errno));
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		die("sched_setscheduler(SCHED_FIFO %d): %s (needs root or CAP_SYS_NICE)",
		    prio, strerror(errno));
}

static inline pthread_t spawn_fifo(void *(*fn)(void *), void *arg, int prio)
{
	pthread_attr_t a;
	struct sched_param sp = { .sched_priority = prio };
	cpu_set_t set;
	pthread_t t;
	int e;

	CPU_ZERO(&set);
	CPU_SET(g_cpu, &set);
	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_FIFO);
	pthread_attr_setschedparam(&a, &sp);
	pthread_attr_setaffinity_np(&a, sizeof(set), &set);
	e = pthread_create(&t, &a, fn, arg);
	if (e)
		die("pthread_create(SCHED_FIFO %d): %s", prio, strerror(e));
	pthread_attr_destroy(&a);
	return t;
}

static inline int default_cpu(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 1 ? (int)n - 1 : 0;
}

#endif
