// SPDX-License-Identifier: LGPL-2.1-or-later
/* Condvar waits as cancellation points (issue 16), through the native API
 * and through the pthread API + drop-in (API_PTHREAD).  Every join has a
 * deadline: a wait that is no cancellation point fails here, it does not
 * hang.  Usage: t_cancel [ROUNDS] | t_cancel off (library built with
 * CANCEL=0: the wait must not be a cancellation point) */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "tap.h"

#define JOIN_MS		5000	/* a cancelled waiter must be gone by then */
#define MANY		16	/* waiters cancelled at once */
#define ROUNDS		1000	/* cancel racing signal/broadcast */

static M mtx;
static C cnd;
static int tokens, inwait, consumed;
static atomic_int handler_owned, handler_runs;

/* cleanup handler: the mutex must be ours again (POSIX); give it back */
static void on_cancel(void *p)
{
	(void)p;
	atomic_fetch_add(&handler_runs, 1);
	if (UNLOCK(&mtx) == 0)
		atomic_fetch_add(&handler_owned, 1);
}

/* waits for a token forever (arg != NULL: with a time-out far away) */
static void *waiter(void *timed)
{
	LOCK(&mtx);
	pthread_cleanup_push(on_cancel, NULL);
	inwait++;
	while (tokens == 0) {
		if (timed) {
			struct timespec ts = ts_after(CLOCK_MONOTONIC, 60000);

			TWAIT(&cnd, &mtx, &ts);
		} else {
			WAIT(&cnd, &mtx);
		}
	}
	tokens--;
	consumed++;
	inwait--;
	pthread_cleanup_pop(0);
	UNLOCK(&mtx);
	return NULL;
}

static void reset(void)
{
	m_init(&mtx, 0);
	c_init(&cnd, 0, CLOCK_MONOTONIC);
	tokens = inwait = consumed = 0;
	atomic_store(&handler_owned, 0);
	atomic_store(&handler_runs, 0);
}

static int get(int *v)
{
	int x;

	LOCK(&mtx);
	x = *v;
	UNLOCK(&mtx);
	return x;
}

static int wait_value(int *v, int n)
{
	for (int i = 0; i < JOIN_MS; i++) {
		if (get(v) == n)
			return 1;
		sleep_ms(1);
	}
	return 0;
}

/* join with a deadline; res gets the exit value */
static int join(pthread_t t, void **res)
{
	struct timespec ts = ts_after(CLOCK_REALTIME, JOIN_MS);

	return pthread_timedjoin_np(t, res, &ts) == 0;
}

/* the mutex and condvar are consistent afterwards: a fresh waiter is woken
 * by one signal, and both can be destroyed */
static int still_usable(void)
{
	pthread_t t;
	int ok;

	pthread_create(&t, NULL, waiter, NULL);
	ok = wait_value(&inwait, 1);
	sleep_ms(2);
	LOCK(&mtx);
	tokens = 1;
	SIGNAL(&cnd, &mtx);
	UNLOCK(&mtx);
	ok = join(t, NULL) && ok && consumed == 1;
	return ok && C_DESTROY(&cnd) == 0 && M_DESTROY(&mtx) == 0;
}

static void test_one(int timed)
{
	const char *what = timed ? "timedwait" : "wait";
	pthread_t t;
	void *res = NULL;
	int ok;

	reset();
	pthread_create(&t, NULL, waiter, timed ? &t : NULL);
	ok = wait_value(&inwait, 1);
	sleep_ms(20);	/* asleep in the kernel */
	pthread_cancel(t);
	ok = join(t, &res) && ok;
	check(ok && res == PTHREAD_CANCELED && handler_owned == 1,
	      "%s: cond_%s is a cancellation point; the cleanup handler owns the mutex",
	      API_NAME, what);
	inwait = 0;
	check(still_usable(), "%s: after a cancelled %s the mutex is free and the condvar works",
	      API_NAME, what);
}

static void test_many(void)
{
	pthread_t t[MANY];
	int ok, joined = 0;

	reset();
	for (int i = 0; i < MANY; i++)
		pthread_create(&t[i], NULL, waiter, (i & 1) ? &t[i] : NULL);
	ok = wait_value(&inwait, MANY);
	sleep_ms(20);
	for (int i = 0; i < MANY; i++)
		pthread_cancel(t[i]);
	for (int i = 0; i < MANY; i++)
		joined += join(t[i], NULL);
	check(ok && joined == MANY && handler_owned == MANY,
	      "%s: %d waiters (wait and timedwait) cancelled at once: all gone, each handler owned the mutex (%d/%d)",
	      API_NAME, MANY, (int)handler_owned, joined);
	inwait = 0;
	check(still_usable(), "%s: ...and the condvar works afterwards", API_NAME);
}

/* One round: waiters a (cancelled) and b; main hands out one token with a
 * signal or a broadcast and cancels a at the same time.  Either a acts on
 * the cancellation (its handler owns the mutex) and b gets the token, or a
 * takes the token and exits normally; nobody hangs, nothing is lost. */
static int race_round(int bcast, int timed)
{
	pthread_t a, b;
	void *res = NULL;
	int ok, a_cancelled;

	reset();
	pthread_create(&a, NULL, waiter, timed ? &a : NULL);
	pthread_create(&b, NULL, waiter, NULL);
	ok = wait_value(&inwait, 2);
	LOCK(&mtx);
	tokens = 1;
	if (bcast)
		BCAST(&cnd, &mtx);
	else
		SIGNAL(&cnd, &mtx);
	pthread_cancel(a);
	UNLOCK(&mtx);
	if (!join(a, &res))
		return 0;
	a_cancelled = res == PTHREAD_CANCELED;
	if (a_cancelled && handler_owned != 1)
		return 0;
	if (!a_cancelled) {	/* a has the token: release b */
		LOCK(&mtx);
		tokens = 1;
		SIGNAL(&cnd, &mtx);
		UNLOCK(&mtx);
	}
	ok = join(b, NULL) && ok;
	return ok && consumed == 1 + !a_cancelled && tokens == 0 &&
	       C_DESTROY(&cnd) == 0 && M_DESTROY(&mtx) == 0;
}

static void test_race(int rounds)
{
	int good = 0;

	for (int i = 0; i < rounds; i++) {
		if (!race_round(i & 1, (i >> 1) & 1)) {
			diag("round %d (%s) failed", i, (i & 1) ? "broadcast" : "signal");
			break;
		}
		good++;
	}
	check(good == rounds,
	      "%s: %d/%d rounds of cancel racing signal/broadcast: no hang, no lost wake-up, handlers own the mutex",
	      API_NAME, good, rounds);
}

/* CANCEL=0 build: a cancelled waiter sleeps on until it is signalled */
static void test_off(void)
{
	pthread_t t;
	void *res = NULL;
	struct timespec ts;
	int ok, still;

	reset();
	pthread_create(&t, NULL, waiter, NULL);
	ok = wait_value(&inwait, 1);
	sleep_ms(20);
	pthread_cancel(t);
	ts = ts_after(CLOCK_REALTIME, 100);
	still = pthread_timedjoin_np(t, &res, &ts) == ETIMEDOUT;
	LOCK(&mtx);
	tokens = 1;
	SIGNAL(&cnd, &mtx);
	UNLOCK(&mtx);
	ok = join(t, &res) && ok;
	check(ok && still && res != PTHREAD_CANCELED && consumed == 1 && handler_runs == 0,
	      "%s, built with CANCEL=0: cond_wait is no cancellation point (the waiter sleeps on, returns normally when signalled)",
	      API_NAME);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : ROUNDS;

	if (argc > 1 && strcmp(argv[1], "off") == 0) {
		test_off();
		return tap_exit();
	}

	printf("# cancellation through the %s API\n", API_NAME);
	test_one(0);
	test_one(1);
	test_many();
	test_race(rounds);
	return tap_exit();
}
