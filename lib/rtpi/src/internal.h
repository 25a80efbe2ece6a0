/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internal helpers shared by librtpi and the pthread drop-in. */
#ifndef RTPI_INTERNAL_H
#define RTPI_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

/* --- analysis-tool annotations (compiled in only for the helgrind build) */
#ifdef RTPI_VALGRIND
#include <valgrind/helgrind.h>
#define HG_MUTEX_INIT(m)	VALGRIND_HG_MUTEX_INIT_POST((m), 0)
#define HG_LOCK_PRE(m, try)	VALGRIND_HG_MUTEX_LOCK_PRE((m), (try))
#define HG_LOCK_POST(m)		VALGRIND_HG_MUTEX_LOCK_POST(m)
#define HG_UNLOCK_PRE(m)	VALGRIND_HG_MUTEX_UNLOCK_PRE(m)
#define HG_UNLOCK_POST(m)	VALGRIND_HG_MUTEX_UNLOCK_POST(m)
#define HG_DESTROY(m)		VALGRIND_HG_MUTEX_DESTROY_PRE(m)
#define HG_NOCHECK(p, n)	VALGRIND_HG_DISABLE_CHECKING((p), (n))
#define HG_BEFORE(p)		ANNOTATE_HAPPENS_BEFORE(p)
#define HG_AFTER(p)		ANNOTATE_HAPPENS_AFTER(p)
#else
#define HG_MUTEX_INIT(m)	do { } while (0)
#define HG_LOCK_PRE(m, try)	do { } while (0)
#define HG_LOCK_POST(m)		do { } while (0)
#define HG_UNLOCK_PRE(m)	do { } while (0)
#define HG_UNLOCK_POST(m)	do { } while (0)
#define HG_DESTROY(m)		do { } while (0)
#define HG_NOCHECK(p, n)	do { } while (0)
#define HG_BEFORE(p)		do { } while (0)
#define HG_AFTER(p)		do { } while (0)
#endif

/* --- kernel interface */
uint32_t rtpi_tid(void);
/* raw futex call: returns >= 0 or -errno; errno is preserved */
long rtpi_futex(void *uaddr, int op, uint32_t val, const struct timespec *ts,
		void *uaddr2, uint32_t val3);

/* --- PI lock on a 32-bit futex word (0 = free, else owner TID | flags).
 * priv is FUTEX_PRIVATE_FLAG or 0.  Return 0 or a positive errno. */
int pil_lock(_Atomic uint32_t *w, int priv);
int pil_trylock(_Atomic uint32_t *w, int priv);
int pil_unlock(_Atomic uint32_t *w, int priv);
int pil_owned(_Atomic uint32_t *w);	/* held by the calling thread? */
void pil_acquired(_Atomic uint32_t *w);	/* after a kernel hand-over */

/* --- condition variable core (the first 32 bytes of pi_cond_t and, in the
 * drop-in, of a pthread_cond_t in PI mode).  The words at offsets 4 and 12
 * belong to the container (pi_cond_t: flags and state, where librtpi 1.0
 * has them).  A core whose seq is 0 was never used: it was laid out by a
 * static initializer, which sets only the first 16 bytes (librtpi 1.0's
 * PI_COND_INIT); the first call that takes lock makes the rest valid. */
struct cv_core {
	_Atomic uint32_t seq;		/* futex word waiters sleep on */
	uint32_t owner_word0;		/* the container's */
	_Atomic uint32_t lock;		/* internal PI lock */
	uint32_t owner_word1;		/* the container's */
	uint32_t waiters;		/* upper bound of sleepers (under lock) */
	uint32_t spare;
	_Atomic int64_t mutex_off;	/* (char *)mutex word - (char *)cv;
					 * read lock-free by the C++ notify */
};

/* How the core releases and re-acquires the caller's mutex. */
struct cv_mutex {
	_Atomic uint32_t *word;		/* the PI futex word requeued onto */
	int priv;			/* FUTEX_PRIVATE_FLAG or 0 */
	void *obj;			/* passed to the callbacks */
	int (*unlock)(void *obj);	/* release before sleeping */
	int (*lock)(void *obj);		/* re-acquire (not handed over) */
	void (*handed)(void *obj);	/* owner by kernel hand-over: fix up */
};

void cv_core_init(struct cv_core *cv);
/* clockid CLOCK_MONOTONIC or CLOCK_REALTIME; abstime NULL = no timeout.
 * cancellable: the wait is a pthread cancellation point. */
int cv_wait(struct cv_core *cv, const struct cv_mutex *mx, int priv,
	    clockid_t clockid, const struct timespec *abstime, int cancellable);
/* A woken waiter never touches the condvar again: the waker does its
 * bookkeeping, so the condvar may be destroyed and freed by whoever holds
 * the mutex after a broadcast.
 * mx_word: the mutex word the caller names, or NULL to use the mutex the
 * waiters gave (drop-in). */
int cv_wake(struct cv_core *cv, _Atomic uint32_t *mx_word, int priv, int all);
/* Never waits.  mutex_visible: the waiters' mutex is at mutex_off from cv
 * in this process, so threads still asleep can be found (they get a
 * spurious wake-up): EBUSY.  Else 0. */
int cv_destroy(struct cv_core *cv, int priv, int mutex_visible);
int cv_idle(struct cv_core *cv, int priv);	/* no waiters inside? */
int timespec_check(const struct timespec *ts);	/* 0 or EINVAL */

#endif
