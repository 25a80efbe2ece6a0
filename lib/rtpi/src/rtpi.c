// SPDX-License-Identifier: LGPL-2.1-or-later
/* librtpi API (rtpi.h) on top of the core. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC visibility push(default)
#include "rtpi.h"
#pragma GCC visibility pop
#include "internal.h"

/* librtpi 1.0's ABI: what its headers lay out (programs built against them
 * run on this library) */
_Static_assert(sizeof(pi_mutex_t) == 64 && _Alignof(pi_mutex_t) == 64,
	       "librtpi ABI: pi_mutex_t is 64 bytes, 64-byte aligned");
_Static_assert(sizeof(pi_cond_t) == 128 && _Alignof(pi_cond_t) == 64,
	       "librtpi ABI: pi_cond_t is 128 bytes, 64-byte aligned");
_Static_assert(offsetof(pi_mutex_t, futex) == 0 && offsetof(pi_mutex_t, flags) == 4,
	       "librtpi ABI: pi_mutex_t { u32 futex; u32 flags; }");
_Static_assert(offsetof(pi_cond_t, seq) == 0 && offsetof(pi_cond_t, flags) == 4 &&
	       offsetof(pi_cond_t, lock) == 8 && offsetof(pi_cond_t, state) == 12,
	       "librtpi ABI: pi_cond_t { u32 cond, flags, wake_id, state; }");
_Static_assert(sizeof(struct cv_core) == 32 &&
	       offsetof(pi_cond_t, seq) == offsetof(struct cv_core, seq) &&
	       offsetof(pi_cond_t, flags) == offsetof(struct cv_core, owner_word0) &&
	       offsetof(pi_cond_t, lock) == offsetof(struct cv_core, lock) &&
	       offsetof(pi_cond_t, state) == offsetof(struct cv_core, owner_word1) &&
	       offsetof(pi_cond_t, waiters) == offsetof(struct cv_core, waiters) &&
	       offsetof(pi_cond_t, mutex_off) == offsetof(struct cv_core, mutex_off),
	       "cv_core overlays pi_cond_t; rtpi/condition_variable.hpp reads mutex_off");

/* Misuse detection that librtpi's objects pass: a destroyed mutex has
 * bit 31 of its flags set; a condvar is valid while its state word is
 * RTPI_COND_STATE_READY (never-initialized, zeroed and destroyed ones are
 * not).  Unknown flag bits (which librtpi's init functions refuse) make an
 * object invalid. */
#define MUTEX_DEAD	0x80000000u
#define COND_DEAD	0xdeadbeefu

/* pi_cond_wait/timedwait are cancellation points, as in librtpi's default
 * build; make CANCEL=0 (-DRTPI_NO_CANCELLATION) turns that off like
 * librtpi's --disable-cancellation. */
#ifdef RTPI_NO_CANCELLATION
#define RTPI_CANCELLABLE 0
#else
#define RTPI_CANCELLABLE 1
#endif

#define MWORD(m) ((_Atomic uint32_t *)&(m)->futex)
#define CCORE(c) ((struct cv_core *)(void *)(c))

static int mpriv(const pi_mutex_t *m)
{
	return (m->flags & RTPI_MUTEX_PSHARED) ? 0 : FUTEX_PRIVATE_FLAG;
}

static int cpriv(const pi_cond_t *c)
{
	return (c->flags & RTPI_COND_PSHARED) ? 0 : FUTEX_PRIVATE_FLAG;
}

static int mvalid(const pi_mutex_t *m)
{
	return m && !(m->flags & ~(uint32_t)RTPI_MUTEX_PSHARED);
}

static int cvalid(const pi_cond_t *c)
{
	return c && c->state == RTPI_COND_STATE_READY &&
	       !(c->flags & ~(uint32_t)(RTPI_COND_PSHARED | RTPI_COND_CLOCK_REALTIME));
}

/* ------------------------------------------------------------- mutex --- */
int pi_mutex_init(pi_mutex_t *m, uint32_t flags)
{
	if (!m || (flags & ~(uint32_t)RTPI_MUTEX_PSHARED))
		return EINVAL;
	memset(m, 0, sizeof(*m));
	m->flags = flags;
	HG_NOCHECK(m, sizeof(*m));
	HG_MUTEX_INIT(m);
	return 0;
}

pi_mutex_t *pi_mutex_alloc(void)
{
	pi_mutex_t *m = aligned_alloc(64, sizeof(*m));

	if (m)
		pi_mutex_init(m, 0);
	return m;
}

void pi_mutex_free(pi_mutex_t *m)
{
	free(m);
}

int pi_mutex_destroy(pi_mutex_t *m)
{
	if (!mvalid(m))
		return EINVAL;
	if (atomic_load(MWORD(m)) != 0)
		return EBUSY;
	HG_DESTROY(m);
	m->flags |= MUTEX_DEAD;
	return 0;
}

int pi_mutex_lock(pi_mutex_t *m)
{
	int e;

	if (!mvalid(m))
		return EINVAL;
	HG_LOCK_PRE(m, 0);
	e = pil_lock(MWORD(m), mpriv(m));
	if (!e)
		HG_LOCK_POST(m);
	return e;
}

int pi_mutex_trylock(pi_mutex_t *m)
{
	int e;

	if (!mvalid(m))
		return EINVAL;
	if (pil_owned(MWORD(m)))
		return EDEADLK;	/* as librtpi: what FUTEX_TRYLOCK_PI says */
	HG_LOCK_PRE(m, 1);
	e = pil_trylock(MWORD(m), mpriv(m));
	if (!e)
		HG_LOCK_POST(m);
	return e;
}

int pi_mutex_unlock(pi_mutex_t *m)
{
	int e;

	if (!mvalid(m))
		return EINVAL;
	if (!pil_owned(MWORD(m)))
		return EPERM;
	HG_UNLOCK_PRE(m);
	e = pil_unlock(MWORD(m), mpriv(m));
	HG_UNLOCK_POST(m);
	return e;
}

/* ----------------------------------------------------------- condvar --- */
int pi_cond_init(pi_cond_t *c, uint32_t flags)
{
	if (!c || (flags & ~(uint32_t)(RTPI_COND_PSHARED | RTPI_COND_CLOCK_REALTIME)))
		return EINVAL;
	memset(c, 0, sizeof(*c));
	cv_core_init(CCORE(c));
	c->flags = flags;
	c->state = RTPI_COND_STATE_READY;
	HG_NOCHECK(c, sizeof(*c));
	return 0;
}

pi_cond_t *pi_cond_alloc(void)
{
	pi_cond_t *c = aligned_alloc(64, sizeof(*c));

	if (c)
		pi_cond_init(c, 0);
	return c;
}

void pi_cond_free(pi_cond_t *c)
{
	free(c);
}

int pi_cond_destroy(pi_cond_t *c)
{
	int e;

	if (!cvalid(c))
		return EINVAL;
	/* a process-shared mutex may sit elsewhere in this process's map;
	 * never waits, so it is legal right after a broadcast holding the
	 * mutex (woken waiters do not touch the condvar again) */
	e = cv_destroy(CCORE(c), cpriv(c), cpriv(c) != 0);
	if (!e)
		c->state = COND_DEAD;
	return e;
}

/* releasing / re-acquiring the user's mutex from inside the wait */
static int m_unlock(void *o)
{
	pi_mutex_t *m = o;
	int e;

	HG_UNLOCK_PRE(m);
	e = pil_unlock(MWORD(m), mpriv(m));
	HG_UNLOCK_POST(m);
	return e;
}

static int m_lock(void *o)
{
	pi_mutex_t *m = o;
	int e;

	HG_LOCK_PRE(m, 0);
	e = pil_lock(MWORD(m), mpriv(m));
	HG_LOCK_POST(m);
	return e;
}

static void m_handed(void *o)
{
	pi_mutex_t *m = o;

	(void)m;
	HG_LOCK_PRE(m, 0);
	HG_LOCK_POST(m);
}

int pi_cond_timedwait(pi_cond_t *c, pi_mutex_t *m, const struct timespec *abstime)
{
	struct cv_mutex mx;
	int e;

	if (!cvalid(c) || !mvalid(m))
		return EINVAL;
	/* as librtpi: a negative tv_sec is invalid, not a past time */
	if (abstime && (timespec_check(abstime) || abstime->tv_sec < 0))
		return EINVAL;
	/* futex requeue needs both words in the same kind of key */
	if (mpriv(m) != cpriv(c))
		return EINVAL;
	if (!pil_owned(MWORD(m)))
		return EPERM;
	mx = (struct cv_mutex){ .word = MWORD(m), .priv = mpriv(m), .obj = m,
		.unlock = m_unlock, .lock = m_lock, .handed = m_handed };
	e = cv_wait(CCORE(c), &mx, cpriv(c),
		    (c->flags & RTPI_COND_CLOCK_REALTIME) ? CLOCK_REALTIME
							   : CLOCK_MONOTONIC,
		    abstime, RTPI_CANCELLABLE);
	HG_AFTER(c);
	return e;
}

int pi_cond_wait(pi_cond_t *c, pi_mutex_t *m)
{
	return pi_cond_timedwait(c, m, NULL);
}

static int wake(pi_cond_t *c, pi_mutex_t *m, int all)
{
	if (!cvalid(c) || !mvalid(m))
		return EINVAL;
	if (mpriv(m) != cpriv(c))
		return EINVAL;
	HG_BEFORE(c);
	return cv_wake(CCORE(c), MWORD(m), cpriv(c), all);
}

int pi_cond_signal(pi_cond_t *c, pi_mutex_t *m)
{
	return wake(c, m, 0);
}

int pi_cond_broadcast(pi_cond_t *c, pi_mutex_t *m)
{
	return wake(c, m, 1);
}
