/*
 * One test source, two APIs: the native rtpi API (default) or the pthread
 * API with PTHREAD_PRIO_INHERIT mutexes (-DAPI_PTHREAD), which is what the
 * drop-in makes priority-inheriting.
 */
#ifndef RTPI_COMPAT_H
#define RTPI_COMPAT_H
#include <pthread.h>
#include <time.h>

#ifdef API_PTHREAD
typedef pthread_mutex_t M;
typedef pthread_cond_t C;
#define API_NAME "preload"
static inline int m_init(M *m, int pshared)
{
	pthread_mutexattr_t a;
	int e;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	if (pshared)
		pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	e = pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
	return e;
}
static inline int c_init(C *c, int pshared, clockid_t clk)
{
	pthread_condattr_t a;
	int e;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, clk);
	if (pshared)
		pthread_condattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	e = pthread_cond_init(c, &a);
	pthread_condattr_destroy(&a);
	return e;
}
#define LOCK(m)		pthread_mutex_lock(m)
#define UNLOCK(m)	pthread_mutex_unlock(m)
#define WAIT(c, m)	pthread_cond_wait(c, m)
#define TWAIT(c, m, t)	pthread_cond_timedwait(c, m, t)
#define SIGNAL(c, m)	pthread_cond_signal(c)
#define BCAST(c, m)	pthread_cond_broadcast(c)
#define C_DESTROY(c)	pthread_cond_destroy(c)
#define M_DESTROY(m)	pthread_mutex_destroy(m)
#else
#include "rtpi.h"
typedef pi_mutex_t M;
typedef pi_cond_t C;
#define API_NAME "native"
static inline int m_init(M *m, int pshared)
{
	return pi_mutex_init(m, pshared ? RTPI_MUTEX_PSHARED : 0);
}
static inline int c_init(C *c, int pshared, clockid_t clk)
{
	return pi_cond_init(c, (pshared ? RTPI_COND_PSHARED : 0) |
			    (clk == CLOCK_REALTIME ? RTPI_COND_CLOCK_REALTIME : 0));
}
#define LOCK(m)		pi_mutex_lock(m)
#define UNLOCK(m)	pi_mutex_unlock(m)
#define WAIT(c, m)	pi_cond_wait(c, m)
#define TWAIT(c, m, t)	pi_cond_timedwait(c, m, t)
#define SIGNAL(c, m)	pi_cond_signal(c, m)
#define BCAST(c, m)	pi_cond_broadcast(c, m)
#define C_DESTROY(c)	pi_cond_destroy(c)
#define M_DESTROY(m)	pi_mutex_destroy(m)
#endif

static inline struct timespec ts_after(clockid_t clk, long ms)
{
	struct timespec t;

	clock_gettime(clk, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

static inline long ms_since(clockid_t clk, const struct timespec *a)
{
	struct timespec t;

	clock_gettime(clk, &t);
	return (t.tv_sec - a->tv_sec) * 1000 + (t.tv_nsec - a->tv_nsec) / 1000000;
}

static inline void sleep_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&t, &t))
		;
}
#endif
