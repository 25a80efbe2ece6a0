// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Binary compatibility with librtpi 1.0: a program whose objects are laid
 * out and initialized as librtpi 1.0's header does (abi-librtpi10.h, not
 * rtlab's rtpi.h) runs on this librtpi.so.1.  Static initializers, objects
 * whose bytes past the initialized words hold garbage, the init functions,
 * process-shared objects across fork, the CLOCK_REALTIME flag.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "abi-librtpi10.h"
#include "tap.h"

static DEFINE_PI_MUTEX(smtx, 0);
static DEFINE_PI_COND(scnd, 0);
static DEFINE_PI_COND(srt, RTPI_COND_CLOCK_REALTIME);
static pi_mutex_t stat_m = PI_MUTEX_INIT(0);
static pi_cond_t stat_c = PI_COND_INIT(0);

static struct timespec after_ms(clockid_t clk, long ms)
{
	struct timespec t;

	clock_gettime(clk, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

static long ms_since(const struct timespec *a)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - a->tv_sec) * 1000 + (t.tv_nsec - a->tv_nsec) / 1000000;
}

static void nap_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&t, &t))
		;
}

/* ---- a wait/signal/broadcast exchange on one pair of objects */
struct pair {
	pi_mutex_t *m;
	pi_cond_t *c;
	int inside, go, done, errs;
};

static void *waiter(void *p)
{
	struct pair *x = p;
	int e = pi_mutex_lock(x->m);

	if (e) {
		__atomic_add_fetch(&x->errs, 1, __ATOMIC_SEQ_CST);
		return NULL;
	}
	x->inside++;
	while (!x->go) {
		e = pi_cond_wait(x->c, x->m);
		if (e) {
			x->errs++;
			break;
		}
	}
	x->done++;
	pi_mutex_unlock(x->m);
	return NULL;
}

/* n waiters; wake them with signals (one each) or one broadcast */
static int exchange(pi_mutex_t *m, pi_cond_t *c, int n, int bcast)
{
	struct pair x = { .m = m, .c = c };
	pthread_t t[8];
	int ok = 1, inside = 0;

	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, waiter, &x);
	for (int i = 0; i < 5000 && inside < n; i++) {
		nap_ms(1);
		pi_mutex_lock(m);
		inside = x.inside;
		pi_mutex_unlock(m);
	}
	nap_ms(20);	/* let the last one reach the kernel */
	pi_mutex_lock(m);
	x.go = 1;
	if (bcast) {
		ok &= pi_cond_broadcast(c, m) == 0;
	} else {
		for (int i = 0; i < n; i++)
			ok &= pi_cond_signal(c, m) == 0;
	}
	ok &= pi_mutex_unlock(m) == 0;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	if (!ok || x.errs || x.done != n)
		diag("exchange: ok %d, errors %d, done %d of %d", ok, x.errs, x.done, n);
	return ok && !x.errs && x.done == n;
}

/* lock/trylock/unlock, a monotonic time-out, signal/broadcast without
 * waiters, then waiters woken by signal and by broadcast */
static int exercise(pi_mutex_t *m, pi_cond_t *c)
{
	struct timespec ts = after_ms(CLOCK_MONOTONIC, 20);
	int ok = 1;

	ok &= pi_mutex_lock(m) == 0;
	ok &= pi_mutex_trylock(m) == EDEADLK;
	ok &= pi_cond_timedwait(c, m, &ts) == ETIMEDOUT;
	ok &= pi_mutex_unlock(m) == 0;
	ok &= pi_mutex_trylock(m) == 0 && pi_mutex_unlock(m) == 0;
	ok &= pi_cond_signal(c, m) == 0 && pi_cond_broadcast(c, m) == 0;
	if (!ok)
		diag("exercise: single-thread calls failed");
	return ok && exchange(m, c, 2, 0) && exchange(m, c, 4, 1);
}

/* watchdog: wakes a wait that should have timed out by itself */
struct dog {
	pi_mutex_t *m;
	pi_cond_t *c;
	int stop;
};

static void *dog_run(void *p)
{
	struct dog *d = p;

	for (int i = 0; i < 300 && !__atomic_load_n(&d->stop, __ATOMIC_SEQ_CST); i++)
		nap_ms(10);
	pi_mutex_lock(d->m);
	pi_cond_broadcast(d->c, d->m);
	pi_mutex_unlock(d->m);
	return NULL;
}

/* a timed wait with deadline `ts`; e and elapsed ms out, bounded by a
 * watchdog of 3 s (a wrong clock would otherwise sleep for decades) */
static int timed(pi_mutex_t *m, pi_cond_t *c, const struct timespec *ts, long *ms)
{
	struct dog d = { .m = m, .c = c };
	struct timespec t0;
	pthread_t t;
	int e;

	pthread_create(&t, NULL, dog_run, &d);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pi_mutex_lock(m);
	e = pi_cond_timedwait(c, m, ts);
	pi_mutex_unlock(m);
	*ms = ms_since(&t0);
	__atomic_store_n(&d.stop, 1, __ATOMIC_SEQ_CST);
	pthread_join(t, NULL);
	return e;
}

/* ---- process-shared objects across fork */
struct shared {
	pi_mutex_t m;
	pi_cond_t c;
	int inside, go, done;
};

static int child(struct shared *s)
{
	int bad = 0;

	if (pi_mutex_lock(&s->m))
		_exit(3);
	s->inside++;
	while (!s->go)
		if (pi_cond_wait(&s->c, &s->m))
			bad = 1;
	s->done++;
	pi_mutex_unlock(&s->m);
	_exit(bad ? 2 : 0);
}

static int pshared_exchange(struct shared *s, int n, int bcast)
{
	pid_t pid[4];
	int ok = 1, inside = 0, st;

	s->inside = s->go = s->done = 0;
	for (int i = 0; i < n; i++) {
		pid[i] = fork();
		if (pid[i] == 0) {
			alarm(20);
			child(s);
		}
	}
	for (int i = 0; i < 5000 && inside < n; i++) {
		nap_ms(1);
		pi_mutex_lock(&s->m);
		inside = s->inside;
		pi_mutex_unlock(&s->m);
	}
	nap_ms(20);
	ok &= pi_mutex_lock(&s->m) == 0;
	s->go = 1;
	if (bcast)
		ok &= pi_cond_broadcast(&s->c, &s->m) == 0;
	else
		for (int i = 0; i < n; i++)
			ok &= pi_cond_signal(&s->c, &s->m) == 0;
	ok &= pi_mutex_unlock(&s->m) == 0;
	for (int i = 0; i < n; i++) {
		if (waitpid(pid[i], &st, 0) != pid[i] || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 0) {
			diag("child %d: status %#x", i, st);
			ok = 0;
		}
	}
	return ok && s->done == n;
}

int main(void)
{
	struct timespec ts;
	long ms;
	int e;

	printf("# librtpi 1.0 ABI: objects laid out by librtpi 1.0's header, run on this library\n");
	check(sizeof(pi_mutex_t) == 64 && _Alignof(pi_mutex_t) == 64 &&
	      sizeof(pi_cond_t) == 128 && _Alignof(pi_cond_t) == 64 &&
	      offsetof(pi_mutex_t, flags) == 4 && offsetof(pi_cond_t, state) == 12,
	      "sizes 64 / 128, alignment 64, flags at 4, condvar state at 12");

	/* static initializers, as compiled into an existing binary */
	check(exercise(&smtx, &scnd),
	      "DEFINE_PI_MUTEX / DEFINE_PI_COND (flags 0): lock, trylock, unlock, timedwait, "
	      "signal, broadcast, 2 waiters by signal, 4 by broadcast");
	check(exercise(&stat_m, &stat_c), "PI_MUTEX_INIT(0) / PI_COND_INIT(0) objects: the same");
	ts = after_ms(CLOCK_REALTIME, 100);
	e = timed(&smtx, &srt, &ts, &ms);
	check(e == ETIMEDOUT && ms >= 90 && ms < 2000,
	      "PI_COND_INIT(RTPI_COND_CLOCK_REALTIME): a CLOCK_REALTIME deadline 100 ms ahead "
	      "times out after %ld ms (%d)", ms, e);
	ts = after_ms(CLOCK_MONOTONIC, 100);
	e = timed(&smtx, &srt, &ts, &ms);
	check(e == ETIMEDOUT && ms < 50,
	      "the same condvar reads a CLOCK_MONOTONIC time as a long-past realtime: "
	      "ETIMEDOUT at once (%ld ms, %d)", ms, e);
	ts = after_ms(CLOCK_MONOTONIC, 100);
	e = timed(&smtx, &scnd, &ts, &ms);
	check(e == ETIMEDOUT && ms >= 90 && ms < 2000,
	      "PI_COND_INIT(0) measures CLOCK_MONOTONIC: 100 ms deadline times out after "
	      "%ld ms (%d)", ms, e);

	/* automatic objects: only the initializer's words are set, every
	 * other byte is garbage (C leaves a union's other bytes unspecified) */
	{
		pi_mutex_t m;
		pi_cond_t c;

		memset(&m, 0xa5, sizeof(m));
		memset(&c, 0xa5, sizeof(c));
		m.futex = 0;
		m.flags = 0;
		c.cond = 0;
		c.flags = 0;
		c.wake_id = 0;
		c.state = ABI10_COND_READY;
		check(pi_cond_signal(&c, &m) == 0 && pi_cond_broadcast(&c, &m) == 0,
		      "initializer words set, other bytes 0xa5: signal and broadcast as the "
		      "first calls return 0");
		memset(&c, 0xa5, sizeof(c));
		c.cond = 0;
		c.flags = 0;
		c.wake_id = 0;
		c.state = ABI10_COND_READY;
		check(pi_cond_destroy(&c) == 0, "... destroy as the first call returns 0");
		memset(&c, 0xa5, sizeof(c));
		c.cond = 0;
		c.flags = 0;
		c.wake_id = 0;
		c.state = ABI10_COND_READY;
		check(exercise(&m, &c), "... a fresh one: the same exchange as above");
		check(pi_cond_destroy(&c) == 0 && pi_mutex_destroy(&m) == 0,
		      "... and destroy returns 0");

		memset(&m, 0x5a, sizeof(m));
		memset(&c, 0x5a, sizeof(c));
		check(pi_mutex_init(&m, 0) == 0 && pi_cond_init(&c, 0) == 0 &&
		      m.futex == 0 && m.flags == 0 && c.flags == 0 &&
		      c.state == ABI10_COND_READY,
		      "pi_mutex_init / pi_cond_init over garbage: 0; futex 0, flags and state "
		      "where librtpi 1.0 keeps them");
		check(exercise(&m, &c), "... and those objects work");
		check(pi_cond_destroy(&c) == 0 && pi_mutex_destroy(&m) == 0 &&
		      pi_mutex_init(&m, 0) == 0 && pi_cond_init(&c, RTPI_COND_CLOCK_REALTIME) == 0 &&
		      c.flags == RTPI_COND_CLOCK_REALTIME,
		      "destroy, then init again (CLOCK_REALTIME flag stored at offset 4)");
		ts = after_ms(CLOCK_REALTIME, 100);
		e = timed(&m, &c, &ts, &ms);
		check(e == ETIMEDOUT && ms >= 90 && ms < 2000,
		      "pi_cond_init(RTPI_COND_CLOCK_REALTIME): realtime deadline, %ld ms (%d)", ms, e);
		pi_cond_destroy(&c);
		pi_mutex_destroy(&m);
	}

	/* process-shared, laid out by the initializers in shared memory */
	{
		struct shared *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
					MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		static const pi_mutex_t pm = PI_MUTEX_INIT(RTPI_MUTEX_PSHARED);
		static const pi_cond_t pc = PI_COND_INIT(RTPI_COND_PSHARED);

		if (s == MAP_FAILED) {
			check(0, "mmap: %s", strerror(errno));
			return tap_exit();
		}
		memset(s, 0xa5, sizeof(*s));
		memcpy(&s->m, &pm, 8);		/* the words librtpi's initializer sets */
		memcpy(&s->c, &pc, 16);
		check(pshared_exchange(s, 1, 0),
		      "PI_MUTEX_INIT(RTPI_MUTEX_PSHARED) / PI_COND_INIT(RTPI_COND_PSHARED) in "
		      "shared memory: a forked child waits, the parent signals");
		check(pshared_exchange(s, 3, 1), "... 3 children woken by one broadcast");
		s->m = pm;
		s->c = pc;
		check(pshared_exchange(s, 2, 0), "... fresh static objects (whole copy), 2 children by signals");
		munmap(s, sizeof(*s));
	}
	return tap_exit();
}
