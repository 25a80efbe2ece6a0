// SPDX-License-Identifier: LGPL-2.1-or-later
/* Conformance tests, run once through the native API and once through the
 * pthread API + drop-in (API_PTHREAD). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compat.h"
#include "tap.h"

static M mtx;
static C cnd;
static int tokens, inwait, consumed, returns;
static atomic_int order[64], norder;

struct waiter_arg {
	int id, prio;
};

/* consume one token; count raw returns from the wait */
static void *consumer(void *p)
{
	struct waiter_arg *a = p;

	LOCK(&mtx);
	inwait++;
	while (tokens == 0) {
		WAIT(&cnd, &mtx);
		returns++;
	}
	tokens--;
	consumed++;
	inwait--;
	if (a)
		order[atomic_fetch_add(&norder, 1)] = a->prio;
	UNLOCK(&mtx);
	return NULL;
}

static int wait_inwait(int n, long ms)
{
	struct timespec t0;
	int v;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		LOCK(&mtx);
		v = inwait;
		UNLOCK(&mtx);
		if (v == n)
			return 1;
		if (ms_since(CLOCK_MONOTONIC, &t0) > ms)
			return 0;
		sleep_ms(1);
	}
}

static int wait_consumed(int n, long ms)
{
	struct timespec t0;
	int v;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		LOCK(&mtx);
		v = consumed;
		UNLOCK(&mtx);
		if (v >= n)
			return v == n;
		if (ms_since(CLOCK_MONOTONIC, &t0) > ms)
			return 0;
		sleep_ms(1);
	}
}

static void reset(clockid_t clk)
{
	m_init(&mtx, 0);
	c_init(&cnd, 0, clk);
	tokens = inwait = consumed = returns = 0;
	atomic_store(&norder, 0);
}

static int join_all(pthread_t *t, int n, long ms)
{
	struct timespec dl;
	int ok = 1;

	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += ms / 1000;
	for (int i = 0; i < n; i++)
		if (pthread_timedjoin_np(t[i], NULL, &dl))
			ok = 0;
	return ok;
}

static void test_signal_one(void)
{
	enum { N = 4 };
	pthread_t t[N];
	int one, ok;

	reset(CLOCK_MONOTONIC);
	for (int i = 0; i < N; i++)
		pthread_create(&t[i], NULL, consumer, NULL);
	ok = wait_inwait(N, 5000);
	sleep_ms(20);
	LOCK(&mtx);
	tokens = 1;
	SIGNAL(&cnd, &mtx);
	UNLOCK(&mtx);
	one = wait_consumed(1, 5000);
	sleep_ms(50);
	LOCK(&mtx);
	check(ok && one && consumed == 1 && inwait == N - 1,
	      "%s: signal wakes one of %d waiters (consumed %d, still waiting %d)",
	      API_NAME, N, consumed, inwait);
	tokens = N - 1;
	BCAST(&cnd, &mtx);
	UNLOCK(&mtx);
	check(join_all(t, N, 5000) && consumed == N,
	      "%s: broadcast wakes the other %d", API_NAME, N - 1);
	diag("%s: %d returns from wait for %d tokens", API_NAME, returns, N);
	check(C_DESTROY(&cnd) == 0 && M_DESTROY(&mtx) == 0,
	      "%s: destroy after use", API_NAME);
}

static void test_broadcast_many(void)
{
	enum { N = 32 };
	pthread_t t[N];
	int ok;

	reset(CLOCK_MONOTONIC);
	for (int i = 0; i < N; i++)
		pthread_create(&t[i], NULL, consumer, NULL);
	ok = wait_inwait(N, 5000);
	LOCK(&mtx);
	tokens = N;
	BCAST(&cnd, &mtx);
	UNLOCK(&mtx);
	check(ok && join_all(t, N, 10000) && consumed == N,
	      "%s: one broadcast wakes all %d waiters", API_NAME, N);
}

/* many waiters, tokens handed out one signal at a time by 2 producers */
static atomic_int produced;
static void *producer(void *p)
{
	int n = *(int *)p;

	for (int i = 0; i < n; i++) {
		LOCK(&mtx);
		tokens++;
		atomic_fetch_add(&produced, 1);
		SIGNAL(&cnd, &mtx);
		UNLOCK(&mtx);
		if (i % 16 == 0)
			sched_yield();
	}
	return NULL;
}

static void *consumer_loop(void *p)
{
	int n = *(int *)p;

	for (int i = 0; i < n; i++)
		consumer(NULL);
	return NULL;
}

static void test_many_waiters(void)
{
	enum { W = 64, PER = 40, P = 2 };
	pthread_t w[W], pr[P];
	int per = PER, perp = W * PER / P;

	reset(CLOCK_MONOTONIC);
	atomic_store(&produced, 0);
	for (int i = 0; i < W; i++)
		pthread_create(&w[i], NULL, consumer_loop, &per);
	for (int i = 0; i < P; i++)
		pthread_create(&pr[i], NULL, producer, &perp);
	int ok = join_all(pr, P, 20000) && join_all(w, W, 20000);

	check(ok && consumed == W * PER && tokens == 0,
	      "%s: %d waiters, %d signals one at a time: every token consumed (%d)",
	      API_NAME, W, W * PER, consumed);
}

static const char *clkname(clockid_t c)
{
	return c == CLOCK_REALTIME ? "CLOCK_REALTIME" : "CLOCK_MONOTONIC";
}

static void test_timeout(clockid_t clk)
{
	struct timespec t0, dl;
	long el;
	int e, held;

	reset(clk);
	LOCK(&mtx);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	dl = ts_after(clk, 100);
	e = TWAIT(&cnd, &mtx, &dl);
	el = ms_since(CLOCK_MONOTONIC, &t0);
	held = UNLOCK(&mtx) == 0;
	check(e == ETIMEDOUT && el >= 99 && el < 2000 && held,
	      "%s: timedwait on %s times out after 100 ms (%d, %ld ms, mutex held %d)",
	      API_NAME, clkname(clk), e, el, held);

	LOCK(&mtx);
	dl.tv_sec = 0;
	dl.tv_nsec = 0;
	e = TWAIT(&cnd, &mtx, &dl);
	held = UNLOCK(&mtx) == 0;
	check(e == ETIMEDOUT && held, "%s: %s deadline in the past: ETIMEDOUT (%d)",
	      API_NAME, clkname(clk), e);

	LOCK(&mtx);
	dl = ts_after(clk, 100);
	dl.tv_nsec = 1000000000L;
	e = TWAIT(&cnd, &mtx, &dl);
	held = UNLOCK(&mtx) == 0;
	check(e == EINVAL && held, "%s: %s tv_nsec = 1e9: EINVAL (%d)",
	      API_NAME, clkname(clk), e);
}

static clockid_t tw_clk;
static int tw_ret;
static long tw_ms;
static void *timed_waiter(void *p)
{
	struct timespec t0, dl;

	(void)p;
	LOCK(&mtx);
	inwait++;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	dl = ts_after(tw_clk, 10000);
	tw_ret = 0;
	while (tokens == 0 && tw_ret == 0)
		tw_ret = TWAIT(&cnd, &mtx, &dl);
	tw_ms = ms_since(CLOCK_MONOTONIC, &t0);
	inwait--;
	UNLOCK(&mtx);
	return NULL;
}

static void test_timed_signalled(clockid_t clk)
{
	pthread_t t;
	int ok;

	reset(clk);
	tw_clk = clk;
	pthread_create(&t, NULL, timed_waiter, NULL);
	ok = wait_inwait(1, 5000);
	sleep_ms(50);
	LOCK(&mtx);
	tokens = 1;
	SIGNAL(&cnd, &mtx);
	UNLOCK(&mtx);
	ok = ok && join_all(&t, 1, 12000);
	check(ok && tw_ret == 0 && tw_ms < 5000,
	      "%s: timedwait on %s (10 s) returns 0 when signalled (%d after %ld ms)",
	      API_NAME, clkname(clk), tw_ret, tw_ms);
}

/* signal without holding the mutex: the kernel takes the free mutex on the
 * waiter's behalf and wakes it owning it */
static void test_signal_unlocked(void)
{
	pthread_t t;
	int ok;

	reset(CLOCK_MONOTONIC);
	pthread_create(&t, NULL, consumer, NULL);
	ok = wait_inwait(1, 5000);
	sleep_ms(20);
	LOCK(&mtx);
	tokens = 1;
	UNLOCK(&mtx);
	ok &= SIGNAL(&cnd, &mtx) == 0;
	ok &= join_all(&t, 1, 5000);
	check(ok && consumed == 1 && LOCK(&mtx) == 0 && UNLOCK(&mtx) == 0,
	      "%s: signal without holding the mutex wakes the waiter, mutex consistent after", API_NAME);
}

/* waiters with different SCHED_FIFO priorities are woken highest first */
static void test_prio_order(int bcast)
{
	enum { N = 8 };
	static const int prios[N] = { 13, 17, 11, 15, 18, 12, 16, 14 };
	struct waiter_arg a[N];
	pthread_t t[N];
	pthread_attr_t at;
	struct sched_param sp = { .sched_priority = 50 };
	int ok = 1, sorted = 1;
	char buf[128] = "";

	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		printf("ok - %s: priority-ordered %s # SKIP no SCHED_FIFO (%s)\n",
		       API_NAME, bcast ? "broadcast" : "signal", strerror(errno));
		return;
	}
	reset(CLOCK_MONOTONIC);
	pthread_attr_init(&at);
	pthread_attr_setinheritsched(&at, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&at, SCHED_FIFO);
	for (int i = 0; i < N; i++) {
		a[i].id = i;
		a[i].prio = prios[i];
		sp.sched_priority = prios[i];
		pthread_attr_setschedparam(&at, &sp);
		if (pthread_create(&t[i], &at, consumer, &a[i]))
			ok = 0;
		/* make the arrival order differ from the priority order */
		wait_inwait(i + 1, 5000);
	}
	sleep_ms(20);
	if (bcast) {
		LOCK(&mtx);
		tokens = N;
		BCAST(&cnd, &mtx);
		UNLOCK(&mtx);
	} else {
		for (int i = 0; i < N; i++) {
			LOCK(&mtx);
			tokens++;
			SIGNAL(&cnd, &mtx);
			UNLOCK(&mtx);
			ok &= wait_consumed(i + 1, 5000);
		}
	}
	ok &= join_all(t, N, 10000);
	for (int i = 0; i < N; i++) {
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), " %d", order[i]);
		if (i && order[i] > order[i - 1])
			sorted = 0;
	}
	check(ok && atomic_load(&norder) == N && sorted,
	      "%s: %s wakes SCHED_FIFO waiters highest priority first:%s",
	      API_NAME, bcast ? "broadcast" : "signal one at a time", buf);
	sp.sched_priority = 0;
	sched_setscheduler(0, SCHED_OTHER, &sp);
}

/* process-shared objects across fork */
struct shm {
	M m;
	C c;
	int flag, children_in, acks;
};

static int child(struct shm *s, int id)
{
	struct timespec dl = ts_after(CLOCK_MONOTONIC, 10000);
	int e = 0;

	(void)id;
	LOCK(&s->m);
	s->children_in++;
	BCAST(&s->c, &s->m);	/* the parent waits on the same condvar */
	while (s->flag == 0 && e == 0)
		e = TWAIT(&s->c, &s->m, &dl);
	if (e == 0) {
		s->acks++;
		BCAST(&s->c, &s->m);
	}
	UNLOCK(&s->m);
	return e == 0 ? 0 : 1;
}

static void test_pshared(void)
{
	enum { K = 3 };
	struct shm *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pid[K];
	int ok = 1, e = 0, st;
	struct timespec dl;

	memset(s, 0, sizeof(*s));
	ok &= m_init(&s->m, 1) == 0;
	ok &= c_init(&s->c, 1, CLOCK_MONOTONIC) == 0;
	for (int i = 0; i < K; i++) {
		pid[i] = fork();
		if (pid[i] == 0)
			_exit(child(s, i));
	}
	dl = ts_after(CLOCK_MONOTONIC, 10000);
	LOCK(&s->m);
	while (s->children_in < K && e == 0)
		e = TWAIT(&s->c, &s->m, &dl);
	ok &= e == 0;
	sleep_ms(0);
	s->flag = 1;
	BCAST(&s->c, &s->m);
	while (s->acks < K && e == 0)
		e = TWAIT(&s->c, &s->m, &dl);
	ok &= e == 0;
	UNLOCK(&s->m);
	for (int i = 0; i < K; i++) {
		if (waitpid(pid[i], &st, 0) != pid[i] || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 0)
			ok = 0;
	}
	check(ok && s->acks == K,
	      "%s: process-shared mutex+condvar across fork: %d children woken by broadcast, parent woken by their signals",
	      API_NAME, s->acks);
	munmap(s, sizeof(*s));
}

#ifdef API_PTHREAD
/* drop-in specific: active, mode switching, glibc path, cancellation */
static int pi_mode(pthread_cond_t *c)
{
	return (c->__data.__wrefs & 0x80000000u) != 0;
}

static void unlock_mtx(void *p)
{
	pthread_mutex_unlock(p);
}

static void *cancel_waiter(void *p)
{
	(void)p;
	pthread_mutex_lock(&mtx);
	pthread_cleanup_push(unlock_mtx, &mtx);
	inwait++;
	for (;;)
		pthread_cond_wait(&cnd, &mtx);
	pthread_cleanup_pop(1);
	return NULL;
}

static int handler_owned;
static void cancel_handler(void *p)
{
	(void)p;
	handler_owned = pthread_mutex_unlock(&mtx) == 0;
}

static void *cancel_waiter2(void *p)
{
	(void)p;
	pthread_mutex_lock(&mtx);
	pthread_cleanup_push(cancel_handler, NULL);
	inwait++;
	for (;;)
		pthread_cond_wait(&cnd, &mtx);
	pthread_cleanup_pop(0);
	return NULL;
}

static pthread_mutex_t rmtx;
static int rgo;
static void *rec_waiter(void *p)
{
	(void)p;
	pthread_mutex_lock(&rmtx);
	inwait++;
	while (!rgo)
		pthread_cond_wait(&cnd, &rmtx);
	inwait--;
	/* the kernel handed the mutex over: glibc's count must say 1 */
	int again = pthread_mutex_lock(&rmtx) == 0 && pthread_mutex_unlock(&rmtx) == 0;

	pthread_mutex_unlock(&rmtx);
	return again ? (void *)1 : NULL;
}

static void test_recursive(void)
{
	pthread_mutexattr_t a;
	struct timespec dl;
	pthread_t t;
	void *res = NULL;
	int e1, e2, ok;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&rmtx, &a);
	c_init(&cnd, 0, CLOCK_MONOTONIC);
	pthread_mutex_lock(&rmtx);
	pthread_mutex_lock(&rmtx);
	dl = ts_after(CLOCK_MONOTONIC, 20);
	e1 = pthread_cond_timedwait(&cnd, &rmtx, &dl);
	pthread_mutex_unlock(&rmtx);
	dl = ts_after(CLOCK_MONOTONIC, 20);
	e2 = pthread_cond_timedwait(&cnd, &rmtx, &dl);
	ok = pthread_mutex_unlock(&rmtx) == 0 && pthread_mutex_trylock(&rmtx) == 0 &&
	     pthread_mutex_unlock(&rmtx) == 0;
	check(e1 == EINVAL && e2 == ETIMEDOUT && ok,
	      "preload: recursive PI mutex: locked twice EINVAL, once waits (%d, %d)", e1, e2);
	inwait = 0;
	rgo = 0;
	pthread_create(&t, NULL, rec_waiter, NULL);
	while (1) {
		pthread_mutex_lock(&rmtx);
		int in = inwait;

		pthread_mutex_unlock(&rmtx);
		if (in)
			break;
		sleep_ms(1);
	}
	sleep_ms(20);
	pthread_mutex_lock(&rmtx);
	rgo = 1;
	pthread_cond_signal(&cnd);
	pthread_mutex_unlock(&rmtx);
	pthread_join(t, &res);
	check(res == (void *)1 && pthread_mutex_destroy(&rmtx) == 0,
	      "preload: recursive PI mutex handed over by the kernel keeps glibc's count and owner right");
}

static void test_dropin(void)
{
	pthread_mutex_t plain = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t sc = PTHREAD_COND_INITIALIZER;
	struct timespec dl;
	pthread_t t;
	void *res;
	int e, ok;

	check(dlsym(RTLD_DEFAULT, "rtpi_preload_version") != NULL,
	      "preload: the drop-in is interposed (rtpi_preload_version found)");

	/* a non-PI mutex leaves the condvar to glibc */
	pthread_mutex_lock(&plain);
	dl = ts_after(CLOCK_REALTIME, 20);
	e = pthread_cond_timedwait(&sc, &plain, &dl);
	check(e == ETIMEDOUT && !pi_mode(&sc),
	      "preload: with a normal mutex the condvar stays glibc's (%d)", e);
	pthread_mutex_unlock(&plain);

	reset(CLOCK_REALTIME);
	pthread_mutex_lock(&mtx);
	dl = ts_after(CLOCK_REALTIME, 20);
	e = pthread_cond_timedwait(&sc, &mtx, &dl);
	check(e == ETIMEDOUT && pi_mode(&sc),
	      "preload: a PTHREAD_COND_INITIALIZER condvar with a PI mutex switches to PI mode (%d)", e);
	pthread_mutex_unlock(&mtx);
	pthread_mutex_lock(&plain);
	dl = ts_after(CLOCK_REALTIME, 20);
	e = pthread_cond_timedwait(&sc, &plain, &dl);
	check(e == ETIMEDOUT && !pi_mode(&sc),
	      "preload: ...and back to glibc with a normal mutex when idle (%d)", e);
	pthread_mutex_unlock(&plain);

	/* glibc's clockwait through the PI path */
	pthread_mutex_lock(&mtx);
	dl = ts_after(CLOCK_MONOTONIC, 50);
	e = pthread_cond_clockwait(&cnd, &mtx, CLOCK_MONOTONIC, &dl);
	ok = e == ETIMEDOUT;
	dl = ts_after(CLOCK_REALTIME, 50);
	e = pthread_cond_clockwait(&cnd, &mtx, CLOCK_REALTIME, &dl);
	ok &= e == ETIMEDOUT;
	e = pthread_cond_clockwait(&cnd, &mtx, CLOCK_PROCESS_CPUTIME_ID, &dl);
	ok &= e == EINVAL;
	pthread_mutex_unlock(&mtx);
	check(ok, "preload: pthread_cond_clockwait on both clocks times out; other clocks EINVAL");

	/* unlocking a mutex we do not own */
	e = pthread_cond_wait(&cnd, &mtx);
	check(e == EPERM, "preload: waiting without owning the PI mutex: EPERM (%d)", e);

	/* cancellation: handlers run with the mutex re-acquired */
	reset(CLOCK_REALTIME);
	pthread_create(&t, NULL, cancel_waiter2, NULL);
	wait_inwait(1, 5000);
	sleep_ms(20);
	pthread_cancel(t);
	e = pthread_join(t, &res);
	check(e == 0 && res == PTHREAD_CANCELED && handler_owned,
	      "preload: cancelled PI wait runs cleanup handlers owning the mutex");
	ok = pthread_mutex_trylock(&mtx) == 0 && pthread_mutex_unlock(&mtx) == 0;
	check(ok && pthread_cond_destroy(&cnd) == 0 && pthread_mutex_destroy(&mtx) == 0,
	      "preload: after cancellation mutex and condvar are free and can be destroyed");

	/* cancellation while the signal is pending must not lose it */
	reset(CLOCK_REALTIME);
	pthread_create(&t, NULL, cancel_waiter, NULL);
	wait_inwait(1, 5000);
	pthread_t t2;
	pthread_create(&t2, NULL, consumer, NULL);
	wait_inwait(2, 5000);
	sleep_ms(20);
	pthread_mutex_lock(&mtx);
	tokens = 1;
	pthread_cond_signal(&cnd);
	pthread_cancel(t);
	pthread_mutex_unlock(&mtx);
	ok = pthread_join(t, &res) == 0 && join_all(&t2, 1, 5000);
	check(ok && consumed == 1,
	      "preload: a waiter cancelled around a signal does not swallow it");
}
#endif

int main(void)
{
	printf("# conformance through the %s API\n", API_NAME);
	test_signal_one();
	test_broadcast_many();
	test_many_waiters();
	test_timeout(CLOCK_MONOTONIC);
	test_timeout(CLOCK_REALTIME);
	test_timed_signalled(CLOCK_MONOTONIC);
	test_timed_signalled(CLOCK_REALTIME);
	test_signal_unlocked();
	test_prio_order(0);
	test_prio_order(1);
	test_pshared();
#ifdef API_PTHREAD
	test_dropin();
	test_recursive();
#endif
	return tap_exit();
}
