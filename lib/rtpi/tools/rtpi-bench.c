// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rtpi-bench: host micro-benchmark of librtpi's fast paths (not a test:
 * `make bench`).  Links librtpi.so dynamically, so the same binary measures
 * another build with LD_LIBRARY_PATH (the bench target runs two builds in
 * turns, side by side).  Prints its method, then one line of figures:
 *   lock_unlock_ns   uncontended pi_mutex_lock + pi_mutex_unlock
 *   signal_ns        pi_cond_signal with no waiter (mutex held)
 *   pingpong_ns      one hand-over between two threads (mutex + condvar,
 *                    a turn variable; each side waits for its turn)
 * Each figure: minimum and median of REPS timed runs.
 * Usage: rtpi-bench [REPS]
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rtpi.h"

#define FAST_OPS	2000000L	/* per timed run, fast paths */
#define PINGPONG_OPS	20000L		/* hand-overs per timed run */
#define REPS_DEFAULT	7
#define REPS_MAX	31

/* fast paths: the thread's CPU time, so that preemption by other load on a
 * shared machine does not count; the ping-pong sleeps: wall time */
static uint64_t clock_ns(clockid_t clk)
{
	struct timespec t;

	clock_gettime(clk, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* sorts v: v[0] is then the minimum */
static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[n / 2];
}

/* initialized by pi_*_init in main, not statically: the static initializer
 * values changed with issue 41 (librtpi 1.0's ABI), and OLD may be a build
 * from before it */
static pi_mutex_t mtx;
static pi_cond_t cnd;

#define cpu_ns() clock_ns(CLOCK_THREAD_CPUTIME_ID)
#define now_ns() clock_ns(CLOCK_MONOTONIC)

static double run_lock_unlock(void)
{
	uint64_t t0 = cpu_ns();

	for (long i = 0; i < FAST_OPS; i++) {
		pi_mutex_lock(&mtx);
		pi_mutex_unlock(&mtx);
	}
	return (double)(cpu_ns() - t0) / FAST_OPS;
}

static double run_signal(void)
{
	uint64_t t0;

	pi_mutex_lock(&mtx);
	t0 = cpu_ns();
	for (long i = 0; i < FAST_OPS; i++)
		pi_cond_signal(&cnd, &mtx);
	t0 = cpu_ns() - t0;
	pi_mutex_unlock(&mtx);
	return (double)t0 / FAST_OPS;
}

static int turn;	/* under mtx: 0 = main's turn, 1 = the partner's */

static void *partner(void *p)
{
	(void)p;
	pi_mutex_lock(&mtx);
	for (long i = 0; i < PINGPONG_OPS; i++) {
		while (turn != 1)
			pi_cond_wait(&cnd, &mtx);
		turn = 0;
		pi_cond_signal(&cnd, &mtx);
	}
	pi_mutex_unlock(&mtx);
	return NULL;
}

static double run_pingpong(void)
{
	pthread_t t;
	uint64_t t0;

	turn = 0;
	pthread_create(&t, NULL, partner, NULL);
	t0 = now_ns();
	pi_mutex_lock(&mtx);
	for (long i = 0; i < PINGPONG_OPS; i++) {
		turn = 1;
		pi_cond_signal(&cnd, &mtx);
		while (turn != 0)
			pi_cond_wait(&cnd, &mtx);
	}
	pi_mutex_unlock(&mtx);
	t0 = now_ns() - t0;
	pthread_join(t, NULL);
	return (double)t0 / (2.0 * PINGPONG_OPS);
}

static const char *library(void)
{
	Dl_info info;

	if (dladdr((void *)pi_mutex_lock, &info) && info.dli_fname)
		return info.dli_fname;
	return "?";
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : REPS_DEFAULT;
	double a[REPS_MAX], b[REPS_MAX], c[REPS_MAX];

	if (argc > 2 || reps < 1 || reps > REPS_MAX || (argc > 1 && strcmp(argv[1], "--help") == 0)) {
		fprintf(stderr, "usage: rtpi-bench [REPS 1..%d]\n", REPS_MAX);
		return 2;
	}
	if (pi_mutex_init(&mtx, 0) || pi_cond_init(&cnd, 0)) {
		fprintf(stderr, "rtpi-bench: pi_mutex_init/pi_cond_init failed\n");
		return 1;
	}
	printf("# method: thread CPU time around %ld lock+unlock pairs and %ld signals without waiter (mutex held), "
	       "wall time around %ld two-thread hand-overs (mutex+condvar); min and median of %d runs; host, not TCG\n",
	       FAST_OPS, FAST_OPS, PINGPONG_OPS, reps);
	for (int i = 0; i < reps; i++) {
		a[i] = run_lock_unlock();
		b[i] = run_signal();
		c[i] = run_pingpong();
	}
	double ma = median(a, reps), mb = median(b, reps), mc = median(c, reps);

	printf("lib=%s lock_unlock_ns=%.1f/%.1f signal_ns=%.1f/%.1f pingpong_ns=%.0f/%.0f (min/median)\n",
	       library(), a[0], ma, b[0], mb, c[0], mc);
	return 0;
}
