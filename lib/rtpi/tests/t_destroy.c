// SPDX-License-Identifier: LGPL-2.1-or-later
/* Destroying a condvar right after a broadcast (issue 16): holding the
 * mutex, with 1..64 woken waiters still to get it, then freeing the memory
 * and building a new condvar in it at once; and the process-shared variant
 * across fork.  Native API and pthread API + drop-in (API_PTHREAD).  Run
 * under ASan and TSan too: a woken waiter that still touched the condvar
 * would be a use after free or a race with the reuse.
 * Usage: t_destroy [MAX_WAITERS] */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compat.h"
#include "tap.h"

#define MAX_WAITERS	64
#define CHILDREN	4	/* process-shared rounds: waiting processes */
#define PSHARED_ROUNDS	20
#define DEADLINE_S	20	/* alarm: a destroy that waits forever fails */

static M mtx;
static C *cv;		/* the condvar under test, malloc'd per round */
static int go, inwait, done;

static C *cv_new(void)
{
	C *c = aligned_alloc(64, sizeof(C) < 64 ? 64 : (sizeof(C) + 63) / 64 * 64);

	if (!c || c_init(c, 0, CLOCK_MONOTONIC))
		abort();
	return c;
}

/* waits on the condvar it finds in cv (read under the mutex) */
static void *waiter(void *p)
{
	(void)p;
	LOCK(&mtx);
	inwait++;
	C *mine = cv;

	while (!go)
		WAIT(mine, &mtx);
	done++;
	UNLOCK(&mtx);
	return NULL;
}

static int wait_inwait(int n)
{
	for (int i = 0; i < 5000; i++) {
		LOCK(&mtx);
		int v = inwait;

		UNLOCK(&mtx);
		if (v == n)
			return 1;
		sleep_ms(1);
	}
	return 0;
}

/* n waiters; broadcast and destroy holding the mutex (relock: unlock and
 * lock again between the two, the other common form); free and reuse. */
static int round_n(int n, int relock)
{
	pthread_t t[MAX_WAITERS];
	int e, ok, again;

	go = inwait = done = 0;
	cv = cv_new();
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, waiter, NULL);
	ok = wait_inwait(n);
	LOCK(&mtx);
	go = 1;
	BCAST(cv, &mtx);
	if (relock) {
		UNLOCK(&mtx);
		LOCK(&mtx);
	}
	e = C_DESTROY(cv);
	memset(cv, 0xa5, sizeof(*cv));	/* poison, then reuse at once */
	free(cv);
	cv = cv_new();
	UNLOCK(&mtx);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	/* the new condvar in (most likely) the same memory works */
	go = inwait = 0;
	pthread_create(&t[0], NULL, waiter, NULL);
	again = wait_inwait(1);
	LOCK(&mtx);
	go = 1;
	SIGNAL(cv, &mtx);
	UNLOCK(&mtx);
	pthread_join(t[0], NULL);
	ok = ok && again && e == 0 && done == n + 1 && C_DESTROY(cv) == 0;
	if (!ok)
		diag("%d waiters: destroy %d, %d of %d done", n, e, done, n + 1);
	free(cv);
	return ok;
}

static void test_threads(int max)
{
	for (int relock = 0; relock < 2; relock++) {
		int good = 0;

		for (int n = 1; n <= max; n++)
			good += round_n(n, relock);
		check(good == max,
		      "%s: broadcast%s, destroy under the mutex with 1..%d woken waiters: 0 each time, memory freed and reused at once (%d/%d)",
		      API_NAME, relock ? ", unlock, lock" : "", max, good, max);
	}
}

/* ---- process-shared: the objects live in a shared mapping */
struct shared {
	M m;
	C c;
	int go, inwait, done;
};

static void child(struct shared *s)
{
	LOCK(&s->m);
	s->inwait++;
	while (!s->go)
		WAIT(&s->c, &s->m);
	s->done++;
	UNLOCK(&s->m);
	_exit(0);
}

static int pshared_round(struct shared *s)
{
	pid_t pid[CHILDREN];
	int ok = 1, st, seen = 0, e;

	memset(s, 0, sizeof(*s));
	m_init(&s->m, 1);
	c_init(&s->c, 1, CLOCK_MONOTONIC);
	for (int i = 0; i < CHILDREN; i++) {
		pid[i] = fork();
		if (pid[i] == 0)
			child(s);
	}
	for (int i = 0; i < 5000 && seen < CHILDREN; i++) {
		LOCK(&s->m);
		seen = s->inwait;
		UNLOCK(&s->m);
		sleep_ms(1);
	}
	LOCK(&s->m);
	s->go = 1;
	BCAST(&s->c, &s->m);
	e = C_DESTROY(&s->c);
	/* reuse the condvar's memory while the woken children need the mutex */
	memset(&s->c, 0xa5, sizeof(s->c));
	c_init(&s->c, 1, CLOCK_MONOTONIC);
	UNLOCK(&s->m);
	for (int i = 0; i < CHILDREN; i++)
		ok &= waitpid(pid[i], &st, 0) == pid[i] && WIFEXITED(st) && WEXITSTATUS(st) == 0;
	ok = ok && seen == CHILDREN && e == 0 && s->done == CHILDREN &&
	     C_DESTROY(&s->c) == 0 && M_DESTROY(&s->m) == 0;
	if (!ok)
		diag("process-shared: destroy %d, %d of %d done", e, s->done, CHILDREN);
	return ok;
}

static void test_pshared(void)
{
	struct shared *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int good = 0;

	if (s == MAP_FAILED) {
		check(0, "%s: mmap: %s", API_NAME, strerror(errno));
		return;
	}
	for (int i = 0; i < PSHARED_ROUNDS; i++)
		good += pshared_round(s);
	check(good == PSHARED_ROUNDS,
	      "%s: process-shared across fork: broadcast + destroy holding the mutex, %d waiting processes: 0 at once, memory reused (%d/%d rounds)",
	      API_NAME, CHILDREN, good, PSHARED_ROUNDS);
	munmap(s, sizeof(*s));
}

int main(int argc, char **argv)
{
	int max = argc > 1 ? atoi(argv[1]) : MAX_WAITERS;

	if (max < 1 || max > MAX_WAITERS)
		max = MAX_WAITERS;
	alarm(DEADLINE_S);	/* a destroy that waits forever kills us */
	printf("# destroy after broadcast through the %s API\n", API_NAME);
	m_init(&mtx, 0);
	test_threads(max);
	test_pshared();
	return tap_exit();
}
