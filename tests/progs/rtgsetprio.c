// SPDX-License-Identifier: GPL-2.0
/*
 * rtgsetprio - a priority change on an RT group task that priority
 * inheritance boosts (issue 39, item 2.1; kernel patch 0029).
 *
 * Since 0024 a group task boosted above its own priority is queued on the
 * root's rt_rq, and enqueue_task_rt() chooses the rt_rq at every enqueue.
 * sched_setscheduler() that leaves the task's effective priority as it is
 * requeues it without DEQUEUE_MOVE, yet it may flip the choice: before 0029
 * the task then stayed listed on the old rt_rq and was counted on the new
 * one (BUG_ON in pick_next_rt_entity(), or tasks that never run again).
 *
 * Threads (one process; a PTHREAD_PRIO_INHERIT mutex, a PI futex):
 *   holder  joins the group (TASKS, a v1 group's "tasks" file), pinned to
 *           CPU -c, SCHED_FIFO FROM; takes the lock and spins until told
 *           to let go;
 *   waiter  root group, pinned to CPU -w, SCHED_FIFO 50; blocks on the
 *           lock (boosting the holder to 50 when FROM is lower);
 *   main    SCHED_FIFO 90, not pinned; once the waiter sleeps on the lock,
 *           sched_setscheduler(holder, SCHED_FIFO, TO), where the holder's
 *           effective priority stays 50: with FROM 50 TO 10 the holder
 *           becomes boosted (group to root), with FROM 10 TO 50 it stops
 *           being boosted (root to group).  The holder keeps the lock
 *           SETTLE_MS more, then lets go.
 * Then both run PROGRESS_MS of their own CPU time (the holder in its group,
 * on its budget; the waiter in the root) and main checks that each does
 * so within LIMIT_S seconds.  -r ROUNDS repeats the whole (1).
 *
 * Output: one line per round, then "rounds=N stuck=0|1":
 *   round=I setscheduler=0 holder_ms=H waiter_ms=W
 * where H and W are the wall times the progress runs took (ms).
 * Exit status: 0 every thread made progress, 1 one did not within the
 * bound (the threads are left as they are: kill the process), 2 usage or
 * setup.
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

#define WAIT_PRIO	50
#define MAIN_PRIO	90

static struct {
	const char *tasks;
	int hold_cpu, wait_cpu, from, to, rounds;
	long settle_ms, progress_ms, limit_s;
} cfg = { NULL, 1, 0, 50, 10, 1, 200, 50, 10 };

static pthread_mutex_t lock;
static atomic_int go = -1;		/* main: round I may start */
static atomic_int locked = -1;		/* holder: has the lock in round I */
static atomic_int release = -1;		/* main: holder, let go in round I */
static atomic_int blocking = -1;	/* waiter: about to block in round I */
static atomic_int holder_done = -1, waiter_done = -1;
static atomic_long holder_tid, waiter_tid;
static long long holder_ms, waiter_ms;
static char setup_err[256];
static atomic_int setup_failed;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rtgsetprio -t TASKS [-c CPU] [-w CPU] [-f FROM] [-T TO] [-s SETTLE_MS]\n"
		"                  [-p PROGRESS_MS] [-L LIMIT_S] [-r ROUNDS]\n"
		"  -t TASKS        the RT group's tasks file (cgroup v1), for the holder\n"
		"  -c CPU          the holder's CPU (1)     -w CPU  the waiter's CPU (0)\n"
		"  -f FROM         the holder's SCHED_FIFO priority at first (50)\n"
		"  -T TO           the one sched_setscheduler() gives it under the lock (10)\n"
		"                  (the waiter is SCHED_FIFO %d: FROM or TO must be %d)\n"
		"  -s SETTLE_MS    the holder keeps the lock that long after the change (200)\n"
		"  -p PROGRESS_MS  CPU time each thread runs after the lock (50)\n"
		"  -L LIMIT_S      bound on the wall time of that run (10)\n"
		"  -r ROUNDS       rounds (1)\n", WAIT_PRIO, WAIT_PRIO);
}

static long long thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * RTLAB_NSEC_PER_SEC + ts.tv_nsec;
}

static void nap_us(long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

/* wall time (ms) it takes this thread to run ms of its own CPU time */
static long long progress(long ms)
{
	long long w0 = now_ns(), t0 = thread_cpu_ns();

	while (thread_cpu_ns() - t0 < ms * RTLAB_NSEC_PER_MSEC)
		;
	return (now_ns() - w0) / RTLAB_NSEC_PER_MSEC;
}

/* tid 0: this thread */
static int set_fifo(pid_t tid, int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	return sched_setscheduler(tid, SCHED_FIFO, &sp);
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static void fail_setup(const char *what)
{
	snprintf(setup_err, sizeof(setup_err), "%s: %s", what, strerror(errno));
	atomic_store(&setup_failed, 1);
}

static void *holder(void *arg)
{
	FILE *f;

	(void)arg;
	atomic_store(&holder_tid, syscall(SYS_gettid));
	/* into the group first: an RT task cannot join a group without runtime */
	f = fopen(cfg.tasks, "w");
	if (!f || fprintf(f, "%ld\n", atomic_load(&holder_tid)) < 0 || fclose(f)) {
		fail_setup(cfg.tasks);
		return NULL;
	}
	if (pin(cfg.hold_cpu) || set_fifo(0, cfg.from)) {
		fail_setup("holder: pin or SCHED_FIFO");
		return NULL;
	}
	for (int i = 0; i < cfg.rounds; i++) {
		while (atomic_load(&go) < i)
			nap_us(1000);
		/* back to FROM for the next round (the lock is not held) */
		if (i && set_fifo(0, cfg.from)) {
			fail_setup("holder: SCHED_FIFO FROM");
			return NULL;
		}
		pthread_mutex_lock(&lock);
		atomic_store(&locked, i);
		while (atomic_load(&release) < i)
			;
		pthread_mutex_unlock(&lock);
		holder_ms = progress(cfg.progress_ms);
		atomic_store(&holder_done, i);
	}
	return NULL;
}

static void *waiter(void *arg)
{
	(void)arg;
	atomic_store(&waiter_tid, syscall(SYS_gettid));
	if (pin(cfg.wait_cpu) || set_fifo(0, WAIT_PRIO)) {
		fail_setup("waiter: pin or SCHED_FIFO");
		return NULL;
	}
	for (int i = 0; i < cfg.rounds; i++) {
		while (atomic_load(&locked) < i)
			nap_us(100);
		atomic_store(&blocking, i);
		pthread_mutex_lock(&lock);
		pthread_mutex_unlock(&lock);
		waiter_ms = progress(cfg.progress_ms);
		atomic_store(&waiter_done, i);
	}
	return NULL;
}

/* the state letter of thread tid ('S' asleep on the lock), '?' if unknown */
static char thread_state(long tid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/* wait until *flag >= i, at most limit_ms; 0 if it got there */
static int wait_for(atomic_int *flag, int i, long limit_ms)
{
	for (long t = 0; atomic_load(flag) < i; t++) {
		if (atomic_load(&setup_failed))
			die("setup: %s", setup_err);
		if (t >= limit_ms)
			return -1;
		nap_us(1000);
	}
	return 0;
}

static void parse(int argc, char **argv)
{
	static const struct option lo[] = { { "help", no_argument, NULL, 'h' }, { 0 } };
	int c, ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	bool ok;

	while ((c = getopt_long(argc, argv, "t:c:w:f:T:s:p:L:r:h", lo, NULL)) != -1) {
		switch (c) {
		case 't': cfg.tasks = optarg; ok = true; break;
		case 'c': ok = opt_int(optarg, 0, ncpu - 1, &cfg.hold_cpu); break;
		case 'w': ok = opt_int(optarg, 0, ncpu - 1, &cfg.wait_cpu); break;
		case 'f': ok = opt_int(optarg, 1, 89, &cfg.from); break;
		case 'T': ok = opt_int(optarg, 1, 89, &cfg.to); break;
		case 's': ok = opt_long(optarg, 0, 60000, &cfg.settle_ms); break;
		case 'p': ok = opt_long(optarg, 1, 60000, &cfg.progress_ms); break;
		case 'L': ok = opt_long(optarg, 1, 3600, &cfg.limit_s); break;
		case 'r': ok = opt_int(optarg, 1, 100000, &cfg.rounds); break;
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
	if (cfg.hold_cpu == cfg.wait_cpu)
		die_usage("-c and -w name the same CPU");
	if ((cfg.from != WAIT_PRIO && cfg.to != WAIT_PRIO) || cfg.from == cfg.to)
		die_usage("-f %d -T %d: one of them must be %d, the other lower",
			  cfg.from, cfg.to, WAIT_PRIO);
	if (cfg.from > WAIT_PRIO || cfg.to > WAIT_PRIO)
		die_usage("-f and -T: at most %d (the holder must stay at the waiter's priority)",
			  WAIT_PRIO);
}

int main(int argc, char **argv)
{
	pthread_mutexattr_t ma;
	pthread_t th, tw;
	long limit_ms;

	parse(argc, argv);
	limit_ms = cfg.limit_s * 1000;
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		die("mlockall: %s", strerror(errno));
	if (set_fifo(0, MAIN_PRIO))
		die("main: SCHED_FIFO %d: %s", MAIN_PRIO, strerror(errno));
	pthread_mutexattr_init(&ma);
	if (pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT))
		die("PTHREAD_PRIO_INHERIT not supported");
	pthread_mutex_init(&lock, &ma);
	if (pthread_create(&th, NULL, holder, NULL) || pthread_create(&tw, NULL, waiter, NULL))
		die("pthread_create failed");

	for (int i = 0; i < cfg.rounds; i++) {
		int rc, t;

		atomic_store(&go, i);
		if (wait_for(&blocking, i, limit_ms))
			die("round %d: the holder did not take the lock in %ld s", i, cfg.limit_s);
		/* the waiter asleep on the lock: the holder is boosted (or equal) */
		for (t = 0; thread_state(atomic_load(&waiter_tid)) != 'S'; t++) {
			if (t >= limit_ms)
				die("round %d: the waiter did not block in %ld s", i, cfg.limit_s);
			nap_us(1000);
		}
		nap_us(10000);
		rc = set_fifo(atomic_load(&holder_tid), cfg.to);
		if (rc)
			printf("# round %d: sched_setscheduler(holder, SCHED_FIFO, %d): %s\n",
			       i, cfg.to, strerror(errno));
		nap_us(cfg.settle_ms * 1000);
		atomic_store(&release, i);
		if (wait_for(&holder_done, i, limit_ms) || wait_for(&waiter_done, i, limit_ms)) {
			printf("round=%d setscheduler=%d holder_done=%d waiter_done=%d\n", i, rc,
			       atomic_load(&holder_done) >= i, atomic_load(&waiter_done) >= i);
			printf("rounds=%d stuck=1\n", i + 1);
			fflush(stdout);
			return RTLAB_EXIT_FAIL;
		}
		printf("round=%d setscheduler=%d holder_ms=%lld waiter_ms=%lld\n", i, rc,
		       holder_ms, waiter_ms);
		fflush(stdout);
	}
	pthread_join(th, NULL);
	pthread_join(tw, NULL);
	printf("rounds=%d stuck=0\n", cfg.rounds);
	return 0;
}
