// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Core of rtlab's librtpi: PI lock on a futex word and the requeue-PI
 * condition variable.  Shared by the native API (rtpi.c) and the pthread
 * drop-in (preload.c).  Design notes: README.md in this directory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

/* ---------------------------------------------------------------- tid --- */
static _Thread_local uint32_t tid_cache;
static atomic_int atfork_done;

static void tid_reset_child(void)
{
	tid_cache = 0;	/* the child's only thread gets a new TID */
}

uint32_t rtpi_tid(void)
{
	if (__builtin_expect(tid_cache == 0, 0)) {
		if (!atomic_exchange(&atfork_done, 1))
			pthread_atfork(NULL, NULL, tid_reset_child);
		tid_cache = (uint32_t)syscall(SYS_gettid);
	}
	return tid_cache;
}

long rtpi_futex(void *uaddr, int op, uint32_t val, const struct timespec *ts,
		void *uaddr2, uint32_t val3)
{
	int saved = errno;
	long r = syscall(SYS_futex, uaddr, op, val, ts, uaddr2, val3);

	if (r == -1) {
		r = -errno;
		errno = saved;
	}
	return r;
}

/* ----------------------------------------------------------- PI lock --- */
static atomic_int lock_pi_op = FUTEX_LOCK_PI2;

int pil_owned(_Atomic uint32_t *w)
{
	return (atomic_load_explicit(w, memory_order_relaxed) & FUTEX_TID_MASK)
		== rtpi_tid();
}

void pil_acquired(_Atomic uint32_t *w)
{
	/* The kernel made us the owner: order our accesses after the previous
	 * owner's release (and tell ThreadSanitizer so). */
	(void)atomic_load_explicit(w, memory_order_acquire);
}

int pil_lock(_Atomic uint32_t *w, int priv)
{
	uint32_t tid = rtpi_tid(), v = 0;

	if (atomic_compare_exchange_strong_explicit(w, &v, tid,
			memory_order_acquire, memory_order_relaxed))
		return 0;
	if ((v & FUTEX_TID_MASK) == tid)
		return EDEADLK;
	for (;;) {
		int op = atomic_load_explicit(&lock_pi_op, memory_order_relaxed);
		long r = rtpi_futex(w, op | priv, 0, NULL, NULL, 0);

		if (r == 0) {
			pil_acquired(w);
			return 0;
		}
		if (r == -ENOSYS && op == FUTEX_LOCK_PI2) {
			atomic_store(&lock_pi_op, FUTEX_LOCK_PI);	/* < 5.14 */
			continue;
		}
		if (r == -EINTR || r == -EAGAIN)	/* owner exiting: retry */
			continue;
		return (int)-r;
	}
}

int pil_trylock(_Atomic uint32_t *w, int priv)
{
	uint32_t tid = rtpi_tid(), v = 0;

	if (atomic_compare_exchange_strong_explicit(w, &v, tid,
			memory_order_acquire, memory_order_relaxed))
		return 0;
	if ((v & FUTEX_TID_MASK) == 0) {
		/* only the waiters bit left: let the kernel sort it out */
		long r = rtpi_futex(w, FUTEX_TRYLOCK_PI | priv, 0, NULL, NULL, 0);

		if (r == 0) {
			pil_acquired(w);
			return 0;
		}
	}
	return EBUSY;
}

int pil_unlock(_Atomic uint32_t *w, int priv)
{
	uint32_t tid = rtpi_tid(), v = tid;

	if (atomic_compare_exchange_strong_explicit(w, &v, 0,
			memory_order_release, memory_order_relaxed))
		return 0;
	if ((v & FUTEX_TID_MASK) != tid)
		return EPERM;
	/* Waiters: the kernel hands the lock to the top waiter.  The dummy
	 * release RMW publishes our writes to the next owner's acquire. */
	(void)atomic_fetch_or_explicit(w, 0, memory_order_release);
	for (;;) {
		long r = rtpi_futex(w, FUTEX_UNLOCK_PI | priv, 0, NULL, NULL, 0);

		if (r == 0)
			return 0;
		if (r == -EINTR || r == -EAGAIN)
			continue;
		return (int)-r;
	}
}

/* ------------------------------------------------------------ condvar --- */
int timespec_check(const struct timespec *ts)
{
	if (ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000L)
		return EINVAL;
	return 0;
}

static int ts_passed(clockid_t clk, const struct timespec *abstime)
{
	struct timespec now;

	if (abstime->tv_sec < 0)
		return 1;
	clock_gettime(clk, &now);
	return now.tv_sec > abstime->tv_sec ||
	       (now.tv_sec == abstime->tv_sec && now.tv_nsec >= abstime->tv_nsec);
}

/* Each condvar incarnation starts its sequence at a value of its own (never
 * 0, which zeroed memory holds), so that a waiter that registered with a
 * condvar and was preempted before its futex call can never match the
 * sequence of a new condvar built in the same memory after a destroy: its
 * futex call fails with EAGAIN (a spurious wake-up) instead of sleeping on
 * somebody else's condvar. */
static uint32_t seq_fresh(void)
{
	static _Atomic uint32_t incarnation;
	uint32_t v = (atomic_fetch_add(&incarnation, 1) + 1) * 0x9e3779b1u;

	v ^= rtpi_tid() << 20;
	return v ? v : 1;
}

void cv_core_init(struct cv_core *cv)
{
	atomic_store_explicit(&cv->seq, seq_fresh(), memory_order_relaxed);
	atomic_store_explicit(&cv->lock, 0, memory_order_relaxed);
	cv->waiters = 0;
	cv->spare = 0;
	atomic_store_explicit(&cv->mutex_off, 0, memory_order_relaxed);
	HG_NOCHECK(cv, sizeof(*cv));
}

/* Under cv->lock: a core statically initialized (seq 0, the words after
 * the first 16 bytes unknown) gets its sequence and bookkeeping now.  seq
 * never returns to 0 (seq_bump skips it), so this happens once. */
static void cv_first_use(struct cv_core *cv)
{
	if (__builtin_expect(atomic_load_explicit(&cv->seq,
						  memory_order_relaxed) != 0, 1))
		return;
	atomic_store_explicit(&cv->seq, seq_fresh(), memory_order_relaxed);
	cv->waiters = 0;
	cv->spare = 0;
	atomic_store_explicit(&cv->mutex_off, 0, memory_order_relaxed);
}

static _Atomic uint32_t *cv_target(struct cv_core *cv)
{
	return (_Atomic uint32_t *)((char *)cv +
		atomic_load_explicit(&cv->mutex_off, memory_order_relaxed));
}

/* Next sequence value, skipping 0 (see seq_fresh). Under cv->lock. */
static uint32_t seq_bump(struct cv_core *cv)
{
	uint32_t s = atomic_fetch_add_explicit(&cv->seq, 1, memory_order_release) + 1;

	if (s == 0)
		s = atomic_fetch_add_explicit(&cv->seq, 1, memory_order_release) + 1;
	return s;
}

/* Wake one (all = 0) or every sleeper, moving them onto the PI mutex word
 * target, and do the waiters' bookkeeping for them.  Under cv->lock.
 * Returns the number of threads the kernel woke or requeued, or -errno.
 *
 * cv->waiters is an upper bound of the threads that may sleep on seq: a
 * woken waiter never touches the condvar again, so a waiter that leaves by
 * a time-out or a cancellation is not subtracted.  The bound is exact again
 * after every call that finds no sleeper: once seq moved, a registered
 * thread that has not reached the kernel yet gets EAGAIN and leaves. */
static long cv_requeue(struct cv_core *cv, _Atomic uint32_t *target, int priv,
		       int all)
{
	uint32_t s = seq_bump(cv);
	/* nr_wake must be 1; nr_requeue travels in the timeout slot */
	long r = rtpi_futex(&cv->seq, FUTEX_CMP_REQUEUE_PI | priv, 1,
			    (const struct timespec *)(uintptr_t)(all ? INT_MAX : 0),
			    target, s);

	if (r < 0)
		return r;	/* nobody moved: keep the bound */
	if (r == 0 || all || cv->waiters <= (uint32_t)r)
		cv->waiters = 0;
	else
		cv->waiters -= (uint32_t)r;
	return r;
}

struct wait_ctx {
	struct cv_core *cv;
	const struct cv_mutex *mx;
	int priv;
	uint32_t seq;
};

/* Re-own the caller's mutex after the futex wait, in whatever state the
 * kernel left it. */
static int wait_reown(const struct cv_mutex *mx)
{
	if (pil_owned(mx->word)) {
		pil_acquired(mx->word);
		mx->handed(mx->obj);
		return 0;
	}
	return mx->lock(mx->obj);
}

#ifndef RTPI_NO_CANCELLATION
/* Cancellation cleanup: POSIX wants the mutex re-acquired before the
 * caller's handlers run.  Holding it, pass on a wake-up this thread may
 * have taken with it, so that the other waiters do not miss it (a spurious
 * wake-up at most).  The condvar is still valid here: a thread cancelled in
 * the wait must be joined before the condvar is destroyed (rtpi(7)). */
static void wait_cancelled(void *arg)
{
	struct wait_ctx *c = arg;

	wait_reown(c->mx);
	if (atomic_load_explicit(&c->cv->seq, memory_order_relaxed) != c->seq)
		cv_wake(c->cv, NULL, c->priv, 0);
}

/* The futex wait as a cancellation point: asynchronous cancellation is
 * enabled only around the system call (as glibc does for its cancellable
 * system calls); the handler re-owns the mutex (handed over by the kernel
 * or not) before the caller's handlers run. */
static long wait_futex(struct wait_ctx *c, int op, const struct timespec *abstime,
		       int cancellable)
{
	long r;
	int oldtype;

	if (!cancellable)
		return rtpi_futex(&c->cv->seq, op, c->seq, abstime, c->mx->word, 0);
	pthread_cleanup_push(wait_cancelled, c);
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &oldtype);
	r = rtpi_futex(&c->cv->seq, op, c->seq, abstime, c->mx->word, 0);
	pthread_setcanceltype(oldtype, NULL);
	pthread_cleanup_pop(0);
	return r;
}
#else
/* built without cancellation (CANCEL=0): the wait is no cancellation point */
static long wait_futex(struct wait_ctx *c, int op, const struct timespec *abstime,
		       int cancellable)
{
	(void)cancellable;
	return rtpi_futex(&c->cv->seq, op, c->seq, abstime, c->mx->word, 0);
}
#endif

/* Register as a waiter (caller owns the mutex).  0 or EINVAL/errno. */
static int wait_register(struct wait_ctx *c, int64_t off)
{
	struct cv_core *cv = c->cv;
	int e = pil_lock(&cv->lock, c->priv);

	if (e)
		return e;
	cv_first_use(cv);
	if (cv->waiters && c->priv &&
	    atomic_load_explicit(&cv->mutex_off, memory_order_relaxed) != off) {
		/* the count is an upper bound: look whether anybody really
		 * sleeps with the other mutex (they get a spurious wake-up) */
		if (cv_requeue(cv, cv_target(cv), c->priv, 1) > 0) {
			pil_unlock(&cv->lock, c->priv);
			return EINVAL;	/* another mutex is in use */
		}
	}
	atomic_store_explicit(&cv->mutex_off, off, memory_order_relaxed);
	cv->waiters++;
	c->seq = atomic_load_explicit(&cv->seq, memory_order_relaxed);
	pil_unlock(&cv->lock, c->priv);
	return 0;
}

int cv_wait(struct cv_core *cv, const struct cv_mutex *mx, int priv,
	    clockid_t clk, const struct timespec *abstime, int cancellable)
{
	struct wait_ctx c = { .cv = cv, .mx = mx, .priv = priv };
	int op = FUTEX_WAIT_REQUEUE_PI | priv;
	int ret = 0, e;
	long r;

	if (abstime && ts_passed(clk, abstime))
		return ETIMEDOUT;
	if (clk == CLOCK_REALTIME)
		op |= FUTEX_CLOCK_REALTIME;
	e = wait_register(&c, (char *)mx->word - (char *)cv);
	if (e)
		return e;
	e = mx->unlock(mx->obj);
	if (e)
		return e;	/* not the owner after all: stays counted */

	/* From here on the condvar is not touched: after a broadcast, the
	 * thread that gets the mutex first may destroy and free it. */
	r = wait_futex(&c, op, abstime, cancellable);
	if (r == -ETIMEDOUT)
		ret = ETIMEDOUT;
	else if (r < 0 && r != -EAGAIN && r != -EINTR)
		ret = (int)-r;
	e = wait_reown(mx);
	return e ? e : ret;
}

int cv_wake(struct cv_core *cv, _Atomic uint32_t *mx_word, int priv, int all)
{
	_Atomic uint32_t *target;
	long r;
	int e;

	e = pil_lock(&cv->lock, priv);
	if (e)
		return e;
	cv_first_use(cv);
	if (cv->waiters == 0) {	/* nobody can be asleep: no system call */
		pil_unlock(&cv->lock, priv);
		return 0;
	}
	target = cv_target(cv);
	if (mx_word && mx_word != target) {
		if (priv) {	/* same address space: a mismatch is an error */
			pil_unlock(&cv->lock, priv);
			return EINVAL;
		}
		target = mx_word;	/* shared: trust the caller's mapping */
	}
	r = cv_requeue(cv, target, priv, all);
	pil_unlock(&cv->lock, priv);
	return r < 0 ? (int)-r : 0;
}

int cv_idle(struct cv_core *cv, int priv)
{
	int idle;

	pil_lock(&cv->lock, priv);
	cv_first_use(cv);
	idle = cv->waiters == 0;
	if (!idle && priv)	/* an upper bound: look */
		idle = cv_requeue(cv, cv_target(cv), priv, 1) == 0;
	pil_unlock(&cv->lock, priv);
	return idle;
}

int cv_destroy(struct cv_core *cv, int priv, int mutex_visible)
{
	long r = 0;
	int e = pil_lock(&cv->lock, priv);

	if (e)
		return e;
	cv_first_use(cv);
	if (cv->waiters) {
		/* Threads counted may still sleep, or be about to (registered,
		 * not yet in the kernel).  Moving seq sends the latter away
		 * with EAGAIN; sleepers, if the mutex is known here, are moved
		 * onto it (a spurious wake-up) and make the condvar busy. */
		if (mutex_visible)
			r = cv_requeue(cv, cv_target(cv), priv, 1);
		else
			seq_bump(cv);
	}
	pil_unlock(&cv->lock, priv);
	if (r > 0)
		return EBUSY;
	return r < 0 ? (int)-r : 0;
}
