// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Bounded stress: producers and consumers on a bounded queue with two
 * condvars (not-empty, not-full), mixing signal, broadcast, wait and short
 * timed waits, for a fixed time.  Checks: every item produced is consumed
 * exactly once (sums), nothing is left waiting after the producers stop
 * (no lost wake-up: the drain relies only on the producers' own signals),
 * and every thread finishes (no deadlock).  Built for ThreadSanitizer and
 * run under helgrind.
 * usage: t_stress [milliseconds] [producers consumers [race]]
 * "race" adds a deliberate unprotected counter: the checker must see it
 * (proves the annotations do not blind helgrind).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "tap.h"

#define QSIZE 8

static M mtx;
static C notempty, notfull;
static uint64_t q[QSIZE];
static int qhead, qlen, stop_producing, stop_consuming;
static uint64_t sum_in, sum_out, n_in, n_out;
static int timeouts, race;
static long racy;

static void *producer(void *p)
{
	unsigned seed = (unsigned)(uintptr_t)p;
	uint64_t v = (uint64_t)(uintptr_t)p << 32;

	for (;;) {
		LOCK(&mtx);
		while (qlen == QSIZE && !stop_producing)
			WAIT(&notfull, &mtx);
		if (stop_producing) {
			UNLOCK(&mtx);
			return NULL;
		}
		q[(qhead + qlen) % QSIZE] = ++v;
		qlen++;
		sum_in += v;
		n_in++;
		if (rand_r(&seed) % 8 == 0)
			BCAST(&notempty, &mtx);
		else
			SIGNAL(&notempty, &mtx);
		UNLOCK(&mtx);
		if (race)
			racy++;	/* deliberately unprotected */
		if (rand_r(&seed) % 8 == 0) {	/* let the consumers run dry */
			struct timespec t = { 0, 1000L * (rand_r(&seed) % 200) };

			nanosleep(&t, NULL);
		}
	}
}

static void *consumer(void *p)
{
	unsigned seed = (unsigned)(uintptr_t)p;

	for (;;) {
		LOCK(&mtx);
		while (qlen == 0 && !stop_consuming) {
			if (rand_r(&seed) % 2 == 0) {
				/* short random time-outs race with the signals */
				struct timespec dl;

				clock_gettime(CLOCK_MONOTONIC, &dl);
				dl.tv_nsec += 1000L * (rand_r(&seed) % 300);
				if (dl.tv_nsec >= 1000000000L) {
					dl.tv_sec++;
					dl.tv_nsec -= 1000000000L;
				}
#ifndef API_PTHREAD
				int e = TWAIT(&notempty, &mtx, &dl);
#else
				int e = pthread_cond_clockwait(&notempty, &mtx,
							       CLOCK_MONOTONIC, &dl);
#endif
				if (e == ETIMEDOUT)
					timeouts++;
			} else {
				WAIT(&notempty, &mtx);
			}
		}
		if (qlen == 0) {
			UNLOCK(&mtx);
			return NULL;
		}
		sum_out += q[qhead];
		n_out++;
		qhead = (qhead + 1) % QSIZE;
		qlen--;
		SIGNAL(&notfull, &mtx);
		UNLOCK(&mtx);
	}
}

static int join_by(pthread_t t, const struct timespec *dl)
{
	return pthread_timedjoin_np(t, NULL, dl) == 0;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 2000;
	int np = argc > 3 ? atoi(argv[2]) : 3, nc = argc > 3 ? atoi(argv[3]) : 5;
	pthread_t tp[16], tc[16];
	struct timespec dl;
	int ok = 1, drained = 0;

	race = argc > 4 && strcmp(argv[4], "race") == 0;
	if (np > 16 || nc > 16)
		return 2;
	m_init(&mtx, 0);
	c_init(&notempty, 0, CLOCK_MONOTONIC);
	c_init(&notfull, 0, CLOCK_MONOTONIC);
	for (int i = 0; i < nc; i++)
		pthread_create(&tc[i], NULL, consumer, (void *)(uintptr_t)(100 + i));
	for (int i = 0; i < np; i++)
		pthread_create(&tp[i], NULL, producer, (void *)(uintptr_t)(1 + i));
	sleep_ms(ms);

	LOCK(&mtx);
	stop_producing = 1;
	BCAST(&notfull, &mtx);
	UNLOCK(&mtx);
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 20;
	for (int i = 0; i < np; i++)
		ok &= join_by(tp[i], &dl);
	/* drain with no extra wake-ups: the items' own signals must suffice */
	for (int i = 0; i < 10000 && !drained; i++) {
		LOCK(&mtx);
		drained = qlen == 0;
		UNLOCK(&mtx);
		if (!drained)
			sleep_ms(1);
	}
	LOCK(&mtx);
	stop_consuming = 1;
	BCAST(&notempty, &mtx);
	UNLOCK(&mtx);
	for (int i = 0; i < nc; i++)
		ok &= join_by(tc[i], &dl);
	if (!ok) {
		check(0, "stress(%s): threads did not finish: deadlock", API_NAME);
		fflush(stdout);
		_exit(1);
	}
	check(drained, "stress(%s): queue drained by the consumers without a final broadcast (no lost wake-up)", API_NAME);
	/* read under the mutex: a consumer whose time-out expired as the
	 * final broadcast came counts it after our last lock, and helgrind
	 * does not see pthread_timedjoin_np as a synchronisation */
	LOCK(&mtx);
	int nto = timeouts;

	UNLOCK(&mtx);
	check(n_in == n_out && sum_in == sum_out && n_in > 0,
	      "stress(%s): %d producers, %d consumers, %ld ms: %llu items, each consumed once (%d timed waits expired)",
	      API_NAME, np, nc, ms, (unsigned long long)n_in, nto);
	check(C_DESTROY(&notempty) == 0 && C_DESTROY(&notfull) == 0 && M_DESTROY(&mtx) == 0,
	      "stress(%s): objects idle and destroyed at the end", API_NAME);
	return tap_exit();
}
