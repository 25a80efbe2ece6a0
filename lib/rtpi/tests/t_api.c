// SPDX-License-Identifier: LGPL-2.1-or-later
/* Native API: defined errors for bad input, initializers, alloc/free. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "compat.h"
#include "tap.h"

static DEFINE_PI_MUTEX(smtx, 0);
static DEFINE_PI_COND(scnd, 0);
static pi_mutex_t m2;
static pi_cond_t c2;
static int go, inwait, done;

static void *holder(void *p)
{
	int *res = p;

	res[0] = pi_mutex_unlock(&m2);		/* locked by main: EPERM */
	res[1] = pi_mutex_trylock(&m2);		/* EBUSY */
	return NULL;
}

static void *waiter(void *p)
{
	pi_cond_t *cv = p;

	pi_mutex_lock(&m2);
	inwait++;
	while (!go)
		pi_cond_wait(cv, &m2);
	done++;
	pi_mutex_unlock(&m2);
	return NULL;
}

static void wait_for(int *v, int n)
{
	for (int i = 0; i < 5000; i++) {
		pi_mutex_lock(&m2);
		int x = *v;

		pi_mutex_unlock(&m2);
		if (x >= n)
			return;
		sleep_ms(1);
	}
}

int main(void)
{
	pi_mutex_t m, other;
	pi_cond_t c, cs;
	struct timespec ts;
	pthread_t t[4];
	int res[2], e;

	printf("# native API: bad input and lifecycle\n");
	/* NULL everywhere */
	check(pi_mutex_init(NULL, 0) == EINVAL && pi_mutex_lock(NULL) == EINVAL &&
	      pi_mutex_trylock(NULL) == EINVAL && pi_mutex_unlock(NULL) == EINVAL &&
	      pi_mutex_destroy(NULL) == EINVAL, "NULL mutex: EINVAL from every mutex call");
	pi_mutex_init(&m, 0);
	pi_cond_init(&c, 0);
	ts = ts_after(CLOCK_MONOTONIC, 10);
	check(pi_cond_init(NULL, 0) == EINVAL && pi_cond_destroy(NULL) == EINVAL &&
	      pi_cond_wait(NULL, &m) == EINVAL && pi_cond_wait(&c, NULL) == EINVAL &&
	      pi_cond_timedwait(NULL, &m, &ts) == EINVAL &&
	      pi_cond_signal(NULL, &m) == EINVAL && pi_cond_signal(&c, NULL) == EINVAL &&
	      pi_cond_broadcast(NULL, &m) == EINVAL && pi_cond_broadcast(&c, NULL) == EINVAL,
	      "NULL condvar or mutex: EINVAL from every condvar call");
	check(pi_mutex_init(&m, 0x80) == EINVAL && pi_cond_init(&c, 0x80) == EINVAL,
	      "unknown flags: EINVAL");
	pi_mutex_free(NULL);
	pi_cond_free(NULL);

	/* zeroed and destroyed objects: librtpi 1.0's PI_MUTEX_INIT(0) is
	 * { 0, 0 }, so a zeroed mutex is an initialized one; a condvar needs
	 * the state word of PI_COND_INIT / pi_cond_init */
	memset(&other, 0, sizeof(other));
	check(pi_mutex_lock(&other) == 0 && pi_mutex_unlock(&other) == 0,
	      "zeroed mutex: valid (librtpi 1.0's PI_MUTEX_INIT(0) is all zero)");
	memset(&c, 0, sizeof(c));
	pi_mutex_lock(&other);
	check(pi_cond_wait(&c, &other) == EINVAL && pi_cond_signal(&c, &other) == EINVAL &&
	      pi_cond_destroy(&c) == EINVAL,
	      "zeroed (never-initialized) condvar: EINVAL");
	pi_mutex_unlock(&other);
	{
		pi_mutex_t bm = PI_MUTEX_INIT(0x80);
		pi_cond_t bc = PI_COND_INIT(0x80);

		check(pi_mutex_lock(&bm) == EINVAL && pi_cond_signal(&bc, &other) == EINVAL,
		      "static initializers with unknown flags: EINVAL");
	}
	pi_mutex_init(&m, 0);
	check(pi_mutex_destroy(&m) == 0, "destroy an unlocked mutex");
	check(pi_mutex_lock(&m) == EINVAL && pi_mutex_unlock(&m) == EINVAL &&
	      pi_mutex_trylock(&m) == EINVAL && pi_mutex_destroy(&m) == EINVAL,
	      "destroyed mutex: EINVAL from lock, unlock, trylock, destroy");
	pi_mutex_init(&m, 0);
	pi_cond_init(&c, 0);
	check(pi_cond_destroy(&c) == 0, "destroy an idle condvar");
	pi_mutex_lock(&m);
	check(pi_cond_wait(&c, &m) == EINVAL && pi_cond_signal(&c, &m) == EINVAL &&
	      pi_cond_broadcast(&c, &m) == EINVAL && pi_cond_destroy(&c) == EINVAL,
	      "destroyed condvar: EINVAL from wait, signal, broadcast, destroy");
	pi_mutex_unlock(&m);

	/* ownership */
	pi_mutex_init(&m2, 0);
	check(pi_mutex_unlock(&m2) == EPERM, "unlock an unlocked mutex: EPERM");
	pi_mutex_lock(&m2);
	pthread_create(&t[0], NULL, holder, res);
	pthread_join(t[0], NULL);
	check(res[0] == EPERM, "unlock a mutex another thread holds: EPERM (%d)", res[0]);
	check(res[1] == EBUSY, "trylock a mutex another thread holds: EBUSY (%d)", res[1]);
	check(pi_mutex_lock(&m2) == EDEADLK, "relock by the owner: EDEADLK");
	check(pi_mutex_trylock(&m2) == EDEADLK, "trylock by the owner: EDEADLK (as librtpi)");
	check(pi_mutex_destroy(&m2) == EBUSY, "destroy a locked mutex: EBUSY");
	check(pi_mutex_unlock(&m2) == 0 && pi_mutex_trylock(&m2) == 0 &&
	      pi_mutex_unlock(&m2) == 0, "unlock, trylock, unlock");

	/* waits: ownership and timeouts */
	pi_cond_init(&c, 0);
	check(pi_cond_wait(&c, &m2) == EPERM, "wait without holding the mutex: EPERM");
	pi_mutex_lock(&m2);
	ts = ts_after(CLOCK_MONOTONIC, 10);
	ts.tv_nsec = -1;
	check(pi_cond_timedwait(&c, &m2, &ts) == EINVAL, "tv_nsec < 0: EINVAL");
	ts.tv_nsec = 1000000000L;
	check(pi_cond_timedwait(&c, &m2, &ts) == EINVAL, "tv_nsec = 1e9: EINVAL");
	ts.tv_sec = -1;
	ts.tv_nsec = 0;
	check(pi_cond_timedwait(&c, &m2, &ts) == EINVAL, "tv_sec < 0: EINVAL (as librtpi)");
	ts.tv_sec = 0;
	check(pi_cond_timedwait(&c, &m2, &ts) == ETIMEDOUT, "deadline at the epoch: ETIMEDOUT");
	check(pi_mutex_unlock(&m2) == 0, "the mutex is still held after those errors");
	check(pi_cond_signal(&c, &m2) == 0 && pi_cond_broadcast(&c, &m2) == 0,
	      "signal and broadcast without waiters (and without the mutex): 0");

	/* pshared mismatch: the kernel needs one key type for both words */
	pi_cond_init(&cs, RTPI_COND_PSHARED);
	pi_mutex_lock(&m2);
	check(pi_cond_wait(&cs, &m2) == EINVAL, "process-shared condvar with a private mutex: EINVAL");
	pi_mutex_unlock(&m2);

	/* destroy with waiters: EBUSY; a second mutex: EINVAL */
	go = inwait = done = 0;
	pthread_create(&t[0], NULL, waiter, &c);
	wait_for(&inwait, 1);
	sleep_ms(20);
	check(pi_cond_destroy(&c) == EBUSY, "destroy a condvar with a blocked waiter: EBUSY");
	sleep_ms(20);	/* the waiter had a spurious wake-up: let it sleep again */
	pi_mutex_init(&other, 0);
	pi_mutex_lock(&other);
	check(pi_cond_wait(&c, &other) == EINVAL, "waiting with a second mutex while waiters use the first: EINVAL");
	sleep_ms(20);	/* again: the check woke the waiter */
	check(pi_cond_signal(&c, &other) == EINVAL, "signalling with a mutex the waiters do not use: EINVAL");
	pi_mutex_unlock(&other);
	pi_mutex_lock(&m2);
	go = 1;
	pi_cond_signal(&c, &m2);
	pi_mutex_unlock(&m2);
	pthread_join(t[0], NULL);
	check(done == 1 && pi_cond_destroy(&c) == 0, "after the waiter left: destroy succeeds");

	/* POSIX's example: broadcast, unlock, destroy at once */
	pi_cond_init(&c2, 0);
	go = inwait = done = 0;
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, waiter, &c2);
	wait_for(&inwait, 4);
	sleep_ms(20);
	pi_mutex_lock(&m2);
	go = 1;
	pi_cond_broadcast(&c2, &m2);
	pi_mutex_unlock(&m2);
	e = pi_cond_destroy(&c2);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	check(e == 0 && done == 4,
	      "destroy right after broadcast+unlock waits for the woken waiters (%d, %d done)", e, done);
	pi_cond_init(&c2, 0);
	go = inwait = done = 0;
	pthread_create(&t[0], NULL, waiter, &c2);
	wait_for(&inwait, 1);
	sleep_ms(20);
	pi_mutex_lock(&m2);
	go = 1;
	pi_cond_signal(&c2, &m2);
	e = pi_cond_destroy(&c2);	/* woken waiter needs the mutex we hold */
	memset(&c2, 0xa5, sizeof(c2));	/* the woken waiter must not look */
	pi_mutex_unlock(&m2);
	pthread_join(t[0], NULL);
	check(e == 0 && done == 1,
	      "destroy holding the mutex a signalled waiter needs: 0, no deadlock, the waiter finishes");

	/* static initializers and alloc */
	pi_mutex_lock(&smtx);
	ts = ts_after(CLOCK_MONOTONIC, 10);
	e = pi_cond_timedwait(&scnd, &smtx, &ts);
	check(e == ETIMEDOUT && pi_mutex_unlock(&smtx) == 0,
	      "DEFINE_PI_MUTEX / DEFINE_PI_COND objects work (monotonic default)");
	pi_mutex_t *am = pi_mutex_alloc();
	pi_cond_t *ac = pi_cond_alloc();

	check(am && ac && ((uintptr_t)am % 64) == 0 && pi_mutex_lock(am) == 0 &&
	      pi_cond_signal(ac, am) == 0 && pi_mutex_unlock(am) == 0 &&
	      pi_cond_destroy(ac) == 0 && pi_mutex_destroy(am) == 0,
	      "pi_mutex_alloc / pi_cond_alloc give aligned, ready objects");
	pi_mutex_free(am);
	pi_cond_free(ac);
	check(sizeof(pi_mutex_t) == 64 && sizeof(pi_cond_t) == 128,
	      "object sizes match librtpi (64 / 128 bytes)");
	return tap_exit();
}
