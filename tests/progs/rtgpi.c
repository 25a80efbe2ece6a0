// SPDX-License-Identifier: GPL-2.0
/*
 * rtgpi - how long a root RT task waits for a priority-inheriting lock that
 * an RT group task holds when the group's budget runs out inside the lock
 * (issue 24, design point 7).
 *
 * Two threads share a PTHREAD_PRIO_INHERIT mutex (a PI futex: an rt_mutex
 * in the kernel, as every spinlock_t is on PREEMPT_RT):
 *   holder  joins the group (writes its TID to TASKS, a v1 group's "tasks"
 *           file), is pinned to CPU -c and SCHED_FIFO -p; each round it
 *           takes the lock and runs HOLD_US of its own CPU time before it
 *           lets go;
 *   waiter  stays in the root group, is pinned to CPU -w and SCHED_FIFO -P;
 *           each round, once the holder has the lock and has run LEAD_US of
 *           it, it blocks on the lock (boosting the holder to its priority)
 *           and measures the time until it gets the lock.
 * When the waiter blocks, the holder still needs about HOLD_US - LEAD_US of
 * CPU time (measured each round from the holder's CPU-time clock: "need"):
 * that is the wait if the boosted holder runs as a root task would.  A
 * holder that stays in its throttled server adds the time until the
 * server's next replenishment.  Between rounds both sleep GAP_MS, so that
 * each round starts with the server's budget (give at least one period).
 *
 * With -a AFTER_US the holder runs AFTER_US more of its CPU time after it
 * lets go of the lock, and the wall time that takes is measured ("after"):
 * the holder is no longer boosted then, so in a group it runs on its
 * server's budget again and the next round starts once it is done.
 *
 * Output, one line per round and a summary:
 *   round=I wait_us=W need_us=N
 *   rounds=R need_med_us=N wait_min_us=.. wait_med_us=.. wait_max_us=..
 * Exit status: 0 ran, 2 bad usage or failed setup.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rtlab/die.h"
#include "rtlab/opt.h"
#include "rtlab/time.h"

#define MAX_ROUNDS	1000

static struct {
	const char *tasks;
	int hold_cpu, wait_cpu, hold_prio, wait_prio, rounds;
	long hold_us, lead_us, gap_ms, after_us;
} cfg = { NULL, 1, 0, 10, 90, 5, 2000, 200, 1100, 0 };

static pthread_mutex_t lock;
static atomic_int round_go = -1;	/* main: round I may start */
static atomic_int round_locked = -1;	/* holder: has the lock in round I */
static atomic_int round_done = -1;	/* waiter: got the lock in round I */
static atomic_int round_after = -1;	/* holder: ran AFTER_US in round I */
static long long wait_ns[MAX_ROUNDS], need_ns[MAX_ROUNDS], after_ns[MAX_ROUNDS];
static clockid_t holder_clock;		/* the holder's CPU-time clock */
static _Atomic long long holder_cpu0;	/* its CPU time when it took the lock */
static char setup_err[256];
static atomic_int setup_failed;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rtgpi -t TASKS [-c CPU] [-w CPU] [-p PRIO] [-P PRIO] [-H HOLD_US]\n"
		"             [-l LEAD_US] [-n ROUNDS] [-g GAP_MS] [-a AFTER_US]\n"
		"  -t TASKS    the RT group's tasks file (cgroup v1), for the holder\n"
		"  -c CPU      the holder's CPU (1)       -w CPU   the waiter's CPU (0)\n"
		"  -p PRIO     the holder's SCHED_FIFO priority (10)\n"
		"  -P PRIO     the waiter's SCHED_FIFO priority, root group (90)\n"
		"  -H HOLD_US  CPU time the holder runs with the lock held (2000)\n"
		"  -l LEAD_US  of which it has run when the waiter blocks (200)\n"
		"  -n ROUNDS   rounds (5, at most %d)  -g GAP_MS  sleep between rounds (1100)\n"
		"  -a AFTER_US CPU time the holder runs after it lets go, timed (0)\n",
		MAX_ROUNDS);
}

static long long cpu_clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * RTLAB_NSEC_PER_SEC + ts.tv_nsec;
}

static long long thread_cpu_ns(void)
{
	return cpu_clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static void nap_us(long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

/* pin to cpu, then SCHED_FIFO prio; "" or the reason it failed */
static int become_rt(int cpu, int prio, char *err, size_t len)
{
	struct sched_param sp = { .sched_priority = prio };
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		snprintf(err, len, "pin to CPU %d: %s", cpu, strerror(errno));
		return -1;
	}
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		snprintf(err, len, "SCHED_FIFO %d: %s", prio, strerror(errno));
		return -1;
	}
	return 0;
}

static void fail_setup(const char *what)
{
	snprintf(setup_err, sizeof(setup_err), "%s", what);
	atomic_store(&setup_failed, 1);
}

static void *holder(void *arg)
{
	char err[200];
	FILE *f;

	(void)arg;
	/* into the group first: an RT task cannot join a group without runtime */
	f = fopen(cfg.tasks, "w");
	if (!f || fprintf(f, "%ld\n", (long)syscall(SYS_gettid)) < 0 || fclose(f)) {
		snprintf(err, sizeof(err), "%s: %s", cfg.tasks, strerror(errno));
		fail_setup(err);
		return NULL;
	}
	if (become_rt(cfg.hold_cpu, cfg.hold_prio, err, sizeof(err))) {
		fail_setup(err);
		return NULL;
	}
	for (int i = 0; i < cfg.rounds; i++) {
		long long t0;

		while (atomic_load(&round_go) < i)
			nap_us(500);
		pthread_mutex_lock(&lock);
		t0 = thread_cpu_ns();
		atomic_store(&holder_cpu0, t0);
		atomic_store(&round_locked, i);
		while (thread_cpu_ns() - t0 < cfg.hold_us * RTLAB_NSEC_PER_USEC)
			;
		pthread_mutex_unlock(&lock);
		if (cfg.after_us) {
			long long w0 = now_ns();

			t0 = thread_cpu_ns();
			while (thread_cpu_ns() - t0 < cfg.after_us * RTLAB_NSEC_PER_USEC)
				;
			after_ns[i] = now_ns() - w0;
		}
		atomic_store(&round_after, i);
	}
	return NULL;
}

static void *waiter(void *arg)
{
	char err[200];

	(void)arg;
	if (become_rt(cfg.wait_cpu, cfg.wait_prio, err, sizeof(err))) {
		fail_setup(err);
		return NULL;
	}
	for (int i = 0; i < cfg.rounds; i++) {
		long long t0;

		while (atomic_load(&round_locked) < i)
			nap_us(50);
		/* the holder's CPU time, not ours: it runs on its own CPU */
		nap_us(cfg.lead_us);
		need_ns[i] = cfg.hold_us * RTLAB_NSEC_PER_USEC -
			     (cpu_clock_ns(holder_clock) - atomic_load(&holder_cpu0));
		if (need_ns[i] < 0)
			need_ns[i] = 0;	/* done already, or about to unlock */
		t0 = now_ns();
		pthread_mutex_lock(&lock);
		wait_ns[i] = now_ns() - t0;
		pthread_mutex_unlock(&lock);
		atomic_store(&round_done, i);
	}
	return NULL;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

static void parse(int argc, char **argv)
{
	static const struct option lo[] = { { "help", no_argument, NULL, 'h' }, { 0 } };
	int c, ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	bool ok;

	while ((c = getopt_long(argc, argv, "t:c:w:p:P:H:l:n:g:a:h", lo, NULL)) != -1) {
		switch (c) {
		case 't': cfg.tasks = optarg; ok = true; break;
		case 'c': ok = opt_int(optarg, 0, ncpu - 1, &cfg.hold_cpu); break;
		case 'w': ok = opt_int(optarg, 0, ncpu - 1, &cfg.wait_cpu); break;
		case 'p': ok = opt_int(optarg, 1, 99, &cfg.hold_prio); break;
		case 'P': ok = opt_int(optarg, 1, 99, &cfg.wait_prio); break;
		case 'H': ok = opt_long(optarg, 1, 10000000, &cfg.hold_us); break;
		case 'l': ok = opt_long(optarg, 0, 10000000, &cfg.lead_us); break;
		case 'n': ok = opt_int(optarg, 1, MAX_ROUNDS, &cfg.rounds); break;
		case 'g': ok = opt_long(optarg, 0, 600000, &cfg.gap_ms); break;
		case 'a': ok = opt_long(optarg, 0, 10000000, &cfg.after_us); break;
		case 'h': opt_usage_exit(usage, 0);
		default: opt_usage_exit(usage, 2);
		}
		if (!ok)
			die_usage("-%c %s: out of range or not a number", c, optarg);
	}
	if (optind != argc)
		die_usage("unexpected argument '%s'", argv[optind]);
	if (!cfg.tasks)
		die_usage("-t TASKS is required");
	if (cfg.lead_us >= cfg.hold_us)
		die_usage("-l %ld: the waiter must block while the lock is held (below -H %ld)",
			  cfg.lead_us, cfg.hold_us);
	if (cfg.hold_cpu == cfg.wait_cpu)
		die_usage("-c and -w name the same CPU: the waiter would wait for its own CPU");
}

int main(int argc, char **argv)
{
	pthread_mutexattr_t ma;
	pthread_t th, tw;
	long long sorted[MAX_ROUNDS], needs[MAX_ROUNDS], afters[MAX_ROUNDS];
	int n;

	parse(argc, argv);
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		die("mlockall: %s", strerror(errno));
	pthread_mutexattr_init(&ma);
	if (pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT))
		die("PTHREAD_PRIO_INHERIT not supported");
	pthread_mutex_init(&lock, &ma);
	if (pthread_create(&th, NULL, holder, NULL))
		die("pthread_create failed");
	if (pthread_getcpuclockid(th, &holder_clock))
		die("pthread_getcpuclockid failed");
	if (pthread_create(&tw, NULL, waiter, NULL))
		die("pthread_create failed");
	for (int i = 0; i < cfg.rounds && !atomic_load(&setup_failed); i++) {
		atomic_store(&round_go, i);
		while ((atomic_load(&round_done) < i || atomic_load(&round_after) < i) &&
		       !atomic_load(&setup_failed))
			nap_us(1000);
		nap_us(cfg.gap_ms * 1000);
	}
	if (atomic_load(&setup_failed)) {
		/* the other thread may wait for a round that never comes */
		die("setup: %s", setup_err);
	}
	pthread_join(th, NULL);
	pthread_join(tw, NULL);

	n = cfg.rounds;
	for (int i = 0; i < n; i++) {
		printf("round=%d wait_us=%lld need_us=%lld", i, wait_ns[i] / 1000,
		       need_ns[i] / 1000);
		if (cfg.after_us)
			printf(" after_us=%lld", after_ns[i] / 1000);
		putchar('\n');
		sorted[i] = wait_ns[i];
		needs[i] = need_ns[i];
		afters[i] = after_ns[i];
	}
	qsort(sorted, n, sizeof(sorted[0]), cmp_ll);
	qsort(needs, n, sizeof(needs[0]), cmp_ll);
	qsort(afters, n, sizeof(afters[0]), cmp_ll);
	printf("rounds=%d need_med_us=%lld wait_min_us=%lld wait_med_us=%lld wait_max_us=%lld",
	       n, needs[n / 2] / 1000, sorted[0] / 1000, sorted[n / 2] / 1000,
	       sorted[n - 1] / 1000);
	if (cfg.after_us)
		printf(" after_min_us=%lld after_med_us=%lld", afters[0] / 1000,
		       afters[n / 2] / 1000);
	putchar('\n');
	return 0;
}
