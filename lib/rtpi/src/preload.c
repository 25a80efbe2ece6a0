// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * librtpi-preload: makes glibc's pthread_cond_* priority-inheriting when the
 * condvar is used with a PTHREAD_PRIO_INHERIT mutex; forwards every other
 * use unchanged to glibc.  Load with LD_PRELOAD, or link the object into a
 * program (link-time interposition).  Rules and limits: rtpi-preload(7).
 *
 * A pthread_cond_t (48 bytes) is in one of two modes:
 *  - glibc mode: glibc's own layout, all calls forwarded to glibc;
 *  - PI mode: bit 31 of glibc's __wrefs word is set (glibc never gets
 *    there: it counts waiters from bit 3 up) and the first 32 bytes hold
 *    rtpi's requeue-PI condvar core.
 * A condvar switches to PI mode on the first wait with a PI mutex while no
 * glibc waiter is inside, and back to glibc mode on a wait with another
 * mutex while no PI waiter is inside.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "internal.h"

#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
/* ThreadSanitizer tracks pthread mutex owners: tell it about the kernel's
 * hand-over, which happens without a pthread_mutex_lock() call. */
#define TSAN_HANDED(m) do { __tsan_mutex_pre_lock((m), 0); \
			    __tsan_mutex_post_lock((m), 0, 0); } while (0)
#else
#define TSAN_HANDED(m) do { } while (0)
#endif

#define PI_BIT		0x80000000u	/* condvar in PI mode */
#define PI_SHARED_BIT	0x40000000u	/* PI mode with shared futex keys */
#define GLIBC_FLAGS	0x3u		/* glibc: bit 0 pshared, bit 1 monotonic */
#define GLIBC_WREFS_SHIFT 3

/* glibc's mutex kind bits (stable since 2.3; see glibc pthreadP.h) */
#define KIND_TYPE_MASK	0x3
#define KIND_RECURSIVE	0x1
#define KIND_ROBUST	0x10
#define KIND_PI		0x20
#define KIND_PSHARED	0x80

_Static_assert(sizeof(pthread_cond_t) == 48, "glibc pthread_cond_t layout");
_Static_assert(offsetof(pthread_cond_t, __data.__wrefs) == 36, "glibc __wrefs");
_Static_assert(sizeof(struct cv_core) <= 32, "core fits before __g1_orig_size");

#define EXPORT __attribute__((visibility("default")))

/* visible marker: tests and programs can check the drop-in is active */
EXPORT const char rtpi_preload_version[] = "rtpi-preload 1";

typedef int (*wait_fn)(pthread_cond_t *, pthread_mutex_t *);
typedef int (*twait_fn)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
typedef int (*cwait_fn)(pthread_cond_t *, pthread_mutex_t *, clockid_t, const struct timespec *);
typedef int (*wake_fn)(pthread_cond_t *);
typedef int (*init_fn)(pthread_cond_t *, const pthread_condattr_t *);

static struct {
	wait_fn wait;
	twait_fn timedwait;
	cwait_fn clockwait;
	wake_fn signal, broadcast, destroy;
	init_fn init;
} real;
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

static void *sym(const char *name, const char *ver)
{
	void *p = dlvsym(RTLD_NEXT, name, ver);

	return p ? p : dlsym(RTLD_NEXT, name);
}

static void resolve(void)
{
	real.wait = (wait_fn)sym("pthread_cond_wait", "GLIBC_2.3.2");
	real.timedwait = (twait_fn)sym("pthread_cond_timedwait", "GLIBC_2.3.2");
	real.clockwait = (cwait_fn)sym("pthread_cond_clockwait", "GLIBC_2.30");
	real.signal = (wake_fn)sym("pthread_cond_signal", "GLIBC_2.3.2");
	real.broadcast = (wake_fn)sym("pthread_cond_broadcast", "GLIBC_2.3.2");
	real.destroy = (wake_fn)sym("pthread_cond_destroy", "GLIBC_2.3.2");
	real.init = (init_fn)sym("pthread_cond_init", "GLIBC_2.3.2");
}

static void need_real(void)
{
	pthread_once(&real_once, resolve);
}

static _Atomic uint32_t *wrefs(pthread_cond_t *c)
{
	return (_Atomic uint32_t *)&c->__data.__wrefs;
}

static struct cv_core *core(pthread_cond_t *c)
{
	return (struct cv_core *)(void *)c;
}

static void clear_state(pthread_cond_t *c)
{
	/* everything but __wrefs */
	memset((char *)c, 0, offsetof(pthread_cond_t, __data.__wrefs));
	memset((char *)c + offsetof(pthread_cond_t, __data.__wrefs) + 4, 0,
	       sizeof(*c) - offsetof(pthread_cond_t, __data.__wrefs) - 4);
}

static int is_pi_mutex(const pthread_mutex_t *m)
{
	int k = m->__data.__kind;

	return (k & KIND_PI) && !(k & KIND_ROBUST);
}

static int mutex_priv(const pthread_mutex_t *m)
{
	return (m->__data.__kind & KIND_PSHARED) ? 0 : FUTEX_PRIVATE_FLAG;
}

static int cond_priv(uint32_t w)
{
	return (w & PI_SHARED_BIT) ? 0 : FUTEX_PRIVATE_FLAG;
}

/* Enter PI mode (caller holds the PI mutex m). */
static int to_pi(pthread_cond_t *c, const pthread_mutex_t *m)
{
	uint32_t w = atomic_load(wrefs(c)), want;

	for (;;) {
		if (w & PI_BIT) {
			if (cond_priv(w) != mutex_priv(m))
				return EINVAL;
			return 0;
		}
		if (w >> GLIBC_WREFS_SHIFT)
			return EINVAL;	/* glibc waiters with another mutex */
		clear_state(c);
		cv_core_init(core(c));
		want = (w & GLIBC_FLAGS) | PI_BIT |
			(mutex_priv(m) ? 0 : PI_SHARED_BIT);
		if (atomic_compare_exchange_strong(wrefs(c), &w, want))
			return 0;
	}
}

/* Leave PI mode (no PI waiter inside); 0 or EINVAL. */
static int to_glibc(pthread_cond_t *c)
{
	uint32_t w = atomic_load(wrefs(c));

	if (!(w & PI_BIT))
		return 0;
	if (!cv_idle(core(c), cond_priv(w)))
		return EINVAL;
	clear_state(c);
	if (!atomic_compare_exchange_strong(wrefs(c), &w, w & GLIBC_FLAGS))
		return EINVAL;
	return 0;
}

/* glibc mutex bookkeeping around the kernel's hand-over */
static int gm_unlock(void *o)
{
	return pthread_mutex_unlock(o);
}

static int gm_lock(void *o)
{
	int e;

	do
		e = pthread_mutex_lock(o);
	while (e == EAGAIN || e == EINTR);
	return e;
}

static void gm_handed(void *o)
{
	pthread_mutex_t *m = o;

	/* what glibc's lock does after it got __lock */
	m->__data.__owner = (int)rtpi_tid();
	m->__data.__nusers++;
	if ((m->__data.__kind & KIND_TYPE_MASK) == KIND_RECURSIVE)
		m->__data.__count = 1;
	TSAN_HANDED(m);
}

static int pi_wait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk,
		   const struct timespec *abstime)
{
	struct cv_mutex mx;
	uint32_t w;
	int e;

	if ((uint32_t)(m->__data.__lock & FUTEX_TID_MASK) != rtpi_tid())
		return EPERM;
	if ((m->__data.__kind & KIND_TYPE_MASK) == KIND_RECURSIVE &&
	    m->__data.__count != 1)
		return EINVAL;	/* would stay locked while we sleep */
	e = to_pi(c, m);
	if (e)
		return e;
	w = atomic_load(wrefs(c));
	mx = (struct cv_mutex){ .word = (_Atomic uint32_t *)&m->__data.__lock,
		.priv = mutex_priv(m), .obj = m, .unlock = gm_unlock,
		.lock = gm_lock, .handed = gm_handed };
	return cv_wait(core(c), &mx, cond_priv(w), clk, abstime, 1);
}

static clockid_t cond_clock(pthread_cond_t *c)
{
	return (atomic_load(wrefs(c)) & 2) ? CLOCK_MONOTONIC : CLOCK_REALTIME;
}

EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	need_real();
	if (is_pi_mutex(m))
		return pi_wait(c, m, CLOCK_REALTIME, NULL);
	if (to_glibc(c))
		return EINVAL;
	return real.wait(c, m);
}

EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
			   const struct timespec *abstime)
{
	need_real();
	if (is_pi_mutex(m)) {
		if (timespec_check(abstime))
			return EINVAL;
		return pi_wait(c, m, cond_clock(c), abstime);
	}
	if (to_glibc(c))
		return EINVAL;
	return real.timedwait(c, m, abstime);
}

EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m,
			   clockid_t clk, const struct timespec *abstime)
{
	need_real();
	if (is_pi_mutex(m)) {
		if ((clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC) ||
		    timespec_check(abstime))
			return EINVAL;
		return pi_wait(c, m, clk, abstime);
	}
	if (to_glibc(c))
		return EINVAL;
	if (!real.clockwait)
		return ENOSYS;	/* glibc < 2.30 */
	return real.clockwait(c, m, clk, abstime);
}

static int wake(pthread_cond_t *c, int all)
{
	uint32_t w = atomic_load(wrefs(c));

	need_real();
	if (!(w & PI_BIT))
		return all ? real.broadcast(c) : real.signal(c);
	return cv_wake(core(c), NULL, cond_priv(w), all);
}

EXPORT int pthread_cond_signal(pthread_cond_t *c)
{
	return wake(c, 0);
}

EXPORT int pthread_cond_broadcast(pthread_cond_t *c)
{
	return wake(c, 1);
}

EXPORT int pthread_cond_destroy(pthread_cond_t *c)
{
	uint32_t w = atomic_load(wrefs(c));

	need_real();
	if (w & PI_BIT) {
		int e = cv_destroy(core(c), cond_priv(w), 1);

		if (e)
			return e;
		clear_state(c);
		atomic_store(wrefs(c), w & GLIBC_FLAGS);
	}
	return real.destroy(c);
}

EXPORT int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a)
{
	need_real();
	return real.init(c, a);
}
