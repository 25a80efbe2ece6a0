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

void cv_core_init(struct cv_core *cv)
{
	atomic_store_explicit(&cv->seq, 0, memory_order_relaxed);
	atomic_store_explicit(&cv->lock, 0, memory_order_relaxed);
	cv->waiters = 0;
	cv->woken = 0;
	cv->mutex_off = 0;
	atomic_store_explicit(&cv->gone, 0, memory_order_relaxed);
	cv->destroying = 0;
	HG_NOCHECK(cv, sizeof(*cv));
}

static _Atomic uint32_t *cv_target(struct cv_core *cv)
{
	return (_Atomic uint32_t *)((char *)cv + cv->mutex_off);
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

/* Deregister; called with the user mutex held.  Returns 1 if the condvar's
 * sequence moved while we waited (we may have been signalled). */
static int wait_leave(struct wait_ctx *c)
{
	struct cv_core *cv = c->cv;
	int moved;

	pil_lock(&cv->lock, c->priv);
	moved = atomic_load_explicit(&cv->seq, memory_order_relaxed) != c->seq;
	cv->waiters--;
	if (cv->woken)
		cv->woken--;
	if (cv->woken > cv->waiters)
		cv->woken = cv->waiters;
	if (cv->waiters == 0 && cv->destroying) {
		atomic_store(&cv->gone, 1);
		rtpi_futex(&cv->gone, FUTEX_WAKE | c->priv, INT_MAX, NULL, NULL, 0);
	}
	pil_unlock(&cv->lock, c->priv);
	return moved;
}

static void wait_cancelled(void *arg)
{
	struct wait_ctx *c = arg;

	wait_reown(c->mx);
	/* POSIX: a cancelled waiter must not swallow a signal meant for the
	 * others: pass a possibly consumed one on (a spurious wake-up at most). */
	if (wait_leave(c))
		cv_wake(c->cv, NULL, c->priv, 0);
}

/* The futex wait as a cancellation point: asynchronous cancellation is
 * enabled only around the system call; the handler re-owns the mutex
 * (handed over by the kernel or not) before the caller's handlers run. */
static long wait_cancellable(struct wait_ctx *c, int op,
			     const struct timespec *abstime)
{
	long r;
	int oldtype;

	pthread_cleanup_push(wait_cancelled, c);
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &oldtype);
	r = rtpi_futex(&c->cv->seq, op, c->seq, abstime, c->mx->word, 0);
	pthread_setcanceltype(oldtype, NULL);
	pthread_cleanup_pop(0);
	return r;
}

int cv_wait(struct cv_core *cv, const struct cv_mutex *mx, int priv,
	    clockid_t clk, const struct timespec *abstime, int cancellable)
{
	struct wait_ctx c = { .cv = cv, .mx = mx, .priv = priv };
	int64_t off = (char *)mx->word - (char *)cv;
	int op = FUTEX_WAIT_REQUEUE_PI | priv;
	int ret = 0, e;
	long r;

	if (abstime && ts_passed(clk, abstime))
		return ETIMEDOUT;
	if (clk == CLOCK_REALTIME)
		op |= FUTEX_CLOCK_REALTIME;

	e = pil_lock(&cv->lock, priv);
	if (e)
		return e;
	/* (process-shared: each process may map the objects elsewhere) */
	if (cv->waiters && cv->mutex_off != off && priv) {
		pil_unlock(&cv->lock, priv);
		return EINVAL;	/* another mutex is in use with this condvar */
	}
	cv->mutex_off = off;
	cv->waiters++;
	c.seq = atomic_load_explicit(&cv->seq, memory_order_relaxed);
	pil_unlock(&cv->lock, priv);

	e = mx->unlock(mx->obj);
	if (e) {
		wait_leave(&c);
		return e;
	}

	if (cancellable)
		r = wait_cancellable(&c, op, abstime);
	else
		r = rtpi_futex(&cv->seq, op, c.seq, abstime, mx->word, 0);

	if (r == -ETIMEDOUT)
		ret = ETIMEDOUT;
	else if (r < 0 && r != -EAGAIN && r != -EINTR)
		ret = (int)-r;
	e = wait_reown(mx);
	if (e && !ret)
		ret = e;
	/* Time-out, but the condvar moved meanwhile: report the wake-up, so
	 * that a signal that picked us is never lost. */
	if (wait_leave(&c) && ret == ETIMEDOUT)
		ret = 0;
	return ret;
}

int cv_wake(struct cv_core *cv, _Atomic uint32_t *mx_word, int priv, int all)
{
	_Atomic uint32_t *target;
	uint32_t s;
	long r;
	int e;

	e = pil_lock(&cv->lock, priv);
	if (e)
		return e;
	if (cv->waiters == cv->woken) {	/* nobody blocked */
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
	s = atomic_fetch_add_explicit(&cv->seq, 1, memory_order_release) + 1;
	/* nr_wake must be 1; nr_requeue travels in the timeout slot */
	r = rtpi_futex(&cv->seq, FUTEX_CMP_REQUEUE_PI | priv, 1,
		       (const struct timespec *)(uintptr_t)(all ? INT_MAX : 0),
		       target, s);
	if (all)
		cv->woken = cv->waiters;
	else if (cv->woken < cv->waiters)
		cv->woken++;
	pil_unlock(&cv->lock, priv);
	return r < 0 ? (int)-r : 0;
}

int cv_idle(struct cv_core *cv, int priv)
{
	int idle;

	pil_lock(&cv->lock, priv);
	idle = cv->waiters == 0;
	pil_unlock(&cv->lock, priv);
	return idle;
}

int cv_destroy(struct cv_core *cv, int priv, int mutex_visible)
{
	int e = pil_lock(&cv->lock, priv);

	if (e)
		return e;
	if (cv->waiters == 0) {
		pil_unlock(&cv->lock, priv);
		return 0;
	}
	/* Waiters nobody has woken: the condvar is in use. Waiters already
	 * woken only need the mutex back: wait for them, unless we hold it. */
	if (cv->woken < cv->waiters ||
	    (mutex_visible && pil_owned(cv_target(cv)))) {
		pil_unlock(&cv->lock, priv);
		return EBUSY;
	}
	cv->destroying = 1;
	atomic_store(&cv->gone, 0);
	pil_unlock(&cv->lock, priv);
	while (atomic_load(&cv->gone) == 0)
		rtpi_futex(&cv->gone, FUTEX_WAIT | priv, 0, NULL, NULL, 0);
	/* the last waiter wakes us while it still holds the internal lock */
	pil_lock(&cv->lock, priv);
	cv->destroying = 0;
	pil_unlock(&cv->lock, priv);
	return 0;
}
