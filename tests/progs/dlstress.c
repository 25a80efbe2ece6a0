// SPDX-License-Identifier: GPL-2.0
/*
 * dlstress: SCHED_FLAG_DL_DEMOTION under churn (tests/guest/98-dl-demote-stress.sh,
 * and for 10 minutes tests/stress/98-dl-demote-stress-long.sh).
 *
 * THREADS SCHED_DEADLINE threads (implicit deadline) run random steps for
 * SECS seconds; each step is one of
 *   spin     up to three runtimes of its own CPU time: an overrun, so a
 *            demotion when the flag is set (the CPU-time reads throttle it
 *            from task_sched_runtime() as often as the tick does)
 *   lock     the same while holding a PI mutex that a SCHED_FIFO 50 thread
 *            takes every few ms: a demoted holder is boosted, a throttled
 *            one makes the FIFO thread wait
 *   sleep    up to 5 ms: blocking ends a demotion
 *   setattr  new runtime, period, nice and flags: DEMOTION on or off at
 *            random, RECLAIM and DL_OVERRUN at random
 *   fork     must fail with EAGAIN, demoted or not
 *   yield    sched_yield(): throttled, never demoted
 *   affinity every CPU again (sched_setaffinity() ends a demotion)
 *   getattr  sched_getattr() must say SCHED_DEADLINE
 * The outside of the program (the script) meanwhile takes a CPU offline and
 * back and moves the process between cgroups.  At the end half the threads
 * return to SCHED_OTHER first and half exit as deadline tasks, perhaps
 * demoted.  TAP points:
 *   1  every thread ended within 10 s of the stop (no task left stranded)
 *   2  every fork() failed with EAGAIN
 *   3  every sched_getattr() said SCHED_DEADLINE
 *   4  demotions were seen (a thread's own priority read as a nice level
 *      while it was a deadline task), so the flag was exercised
 *   5  every sched_setattr() succeeded or failed with EBUSY (admission)
 * The PRNG is seeded with SEED (printed) so that a run can be repeated as
 * far as the scheduler allows.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rtlab/die.h>
#include <rtlab/dl.h>
#include <rtlab/tap.h>
#include <rtlab/time.h>

/* this thread's CPU time: reading it runs update_curr() on the thread */
static int64_t thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * RTLAB_NSEC_PER_SEC + ts.tv_nsec;
}

#ifndef SCHED_FLAG_DL_DEMOTION
#define SCHED_FLAG_DL_DEMOTION	0x80
#endif

#define MAX_THREADS	32
#define FIFO_PRIO	50
#define MAIN_PRIO	60
#define JOIN_GRACE_S	10

struct worker {
	pthread_t thr;
	unsigned int idx;
	uint64_t rng;
	unsigned long steps, demoted_seen, forks, fork_bad, getattr_bad;
	unsigned long setattr_ok, setattr_busy, setattr_bad, sigxcpu_armed;
	int last_errno;
	atomic_int done;
};

static struct worker workers[MAX_THREADS];
static unsigned int nthreads = 4;
static unsigned int secs = 30;
static unsigned long seed;
static atomic_int stop;
static atomic_ulong sigxcpu;
static atomic_ulong fifo_locks;
static pthread_mutex_t pi_lock;

static const char usage[] =
	"usage: dlstress [-t SECS] [-n THREADS] [-s SEED]\n"
	"  -t SECS     how long the threads churn (default 30)\n"
	"  -n THREADS  SCHED_DEADLINE threads (default 4, at most 32)\n"
	"  -s SEED     PRNG seed (default: from the clock; printed)\n"
	"Runs as root in a guest with SCHED_FLAG_DL_DEMOTION (rtlab patch 0020).\n";

static uint64_t rnd(struct worker *w)
{
	/* xorshift64* */
	w->rng ^= w->rng >> 12;
	w->rng ^= w->rng << 25;
	w->rng ^= w->rng >> 27;
	return w->rng * 0x2545f4914f6cdd1dULL;
}

static unsigned int rnd_below(struct worker *w, unsigned int n)
{
	return (unsigned int)(rnd(w) % n);
}

static void on_sigxcpu(int sig)
{
	(void)sig;
	atomic_fetch_add(&sigxcpu, 1);
}

/* field 18 of /proc/thread-self/stat: p->prio - 100 */
static int own_prio(void)
{
	char buf[512], *p;
	FILE *f = fopen("/proc/thread-self/stat", "r");
	int i, prio = 1000;

	if (!f)
		return prio;
	if (fgets(buf, sizeof(buf), f)) {
		p = strrchr(buf, ')');
		/* after the comm, field 3 is the state; 18 is 15 fields on */
		for (i = 0; p && i < 16; i++)
			p = strchr(p + 1, ' ');
		if (p)
			prio = atoi(p + 1);
	}
	fclose(f);
	return prio;
}

static int set_dl(struct worker *w)
{
	struct rtlab_sched_attr a = { .size = sizeof(a), .sched_policy = SCHED_DEADLINE };
	uint64_t period_ms = 20 + 10 * rnd_below(w, 4);	/* 20-50 ms */
	uint64_t runtime_ms = 1 + rnd_below(w, 4);	/* 1-4 ms */
	uint64_t r = rnd(w);

	if (r & 1)
		a.sched_flags |= SCHED_FLAG_DL_DEMOTION;
	if (r & 2)
		a.sched_flags |= SCHED_FLAG_RECLAIM;
	if (r & 4) {
		a.sched_flags |= SCHED_FLAG_DL_OVERRUN;
		w->sigxcpu_armed++;
	}
	a.sched_nice = (int32_t)rnd_below(w, 16) - 5;	/* -5..10 */
	a.sched_runtime = runtime_ms * 1000000;
	a.sched_deadline = a.sched_period = period_ms * 1000000;
	if (syscall(SYS_sched_setattr, 0, &a, 0) == 0) {
		w->setattr_ok++;
		return 0;
	}
	if (errno == EBUSY) {
		w->setattr_busy++;
	} else {
		w->setattr_bad++;
		w->last_errno = errno;
	}
	return -1;
}

static void spin(struct worker *w, uint64_t ns)
{
	int64_t t0 = thread_ns();

	while ((uint64_t)(thread_ns() - t0) < ns && !atomic_load(&stop)) {
		int prio = own_prio();

		/* a nice level (0..39) while the policy is SCHED_DEADLINE */
		if (prio >= 0 && prio < 40)
			w->demoted_seen++;
	}
}

static void step_fork(struct worker *w)
{
	pid_t pid = fork();

	w->forks++;
	if (pid == 0)
		_exit(0);
	if (pid > 0) {
		w->fork_bad++;
		waitpid(pid, NULL, 0);
	} else if (errno != EAGAIN) {
		w->fork_bad++;
		w->last_errno = errno;
	}
}

static void step_getattr(struct worker *w)
{
	struct rtlab_sched_attr a;

	memset(&a, 0, sizeof(a));
	if (syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0) ||
	    a.sched_policy != SCHED_DEADLINE)
		w->getattr_bad++;
}

static void step_affinity(struct worker *w)
{
	cpu_set_t all;
	long n = sysconf(_SC_NPROCESSORS_CONF), i;

	CPU_ZERO(&all);
	for (i = 0; i < n && i < CPU_SETSIZE; i++)
		CPU_SET(i, &all);
	/* EBUSY/EINVAL while a CPU is offline or in another partition are fine */
	if (sched_setaffinity(0, sizeof(all), &all) && errno != EBUSY && errno != EINVAL) {
		w->setattr_bad++;
		w->last_errno = errno;
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct timespec ts;

	while (set_dl(w) && !atomic_load(&stop))
		usleep(1000);

	while (!atomic_load(&stop)) {
		uint64_t runtime_ns = 4000000;

		w->steps++;
		switch (rnd_below(w, 16)) {
		case 0 ... 4:
			spin(w, rnd_below(w, 3 * runtime_ns));
			break;
		case 5 ... 7:
			pthread_mutex_lock(&pi_lock);
			spin(w, rnd_below(w, 3 * runtime_ns));
			pthread_mutex_unlock(&pi_lock);
			break;
		case 8 ... 9:
			ts.tv_sec = 0;
			ts.tv_nsec = rnd_below(w, 5000000);
			nanosleep(&ts, NULL);
			break;
		case 10 ... 11:
			set_dl(w);
			break;
		case 12:
			step_fork(w);
			break;
		case 13:
			sched_yield();
			break;
		case 14:
			step_affinity(w);
			break;
		default:
			step_getattr(w);
			break;
		}
	}

	if (w->idx & 1) {
		struct sched_param sp = { .sched_priority = 0 };

		if (sched_setscheduler(0, SCHED_OTHER, &sp)) {
			w->setattr_bad++;
			w->last_errno = errno;
		}
	}
	atomic_store(&w->done, 1);
	return NULL;
}

static void *fifo_main(void *arg)
{
	struct timespec ts = { 0, 3000000 };

	(void)arg;
	while (!atomic_load(&stop)) {
		pthread_mutex_lock(&pi_lock);
		atomic_fetch_add(&fifo_locks, 1);
		pthread_mutex_unlock(&pi_lock);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void parse(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char *end;
	int c;

	seed = (unsigned long)now_ns();
	while ((c = getopt_long(argc, argv, "t:n:s:h", opts, NULL)) != -1) {
		errno = 0;
		switch (c) {
		case 't':
			secs = (unsigned int)strtoul(optarg, &end, 10);
			if (errno || *end || !secs || secs > 86400)
				die_usage("-t: a number of seconds, 1 to 86400");
			break;
		case 'n':
			nthreads = (unsigned int)strtoul(optarg, &end, 10);
			if (errno || *end || !nthreads || nthreads > MAX_THREADS)
				die_usage("-n: 1 to 32 threads");
			break;
		case 's':
			seed = strtoul(optarg, &end, 0);
			if (errno || *end)
				die_usage("-s: a number");
			break;
		case 'h':
			fputs(usage, stdout);
			exit(0);
		default:
			die_usage("unknown option");
		}
	}
	if (optind != argc)
		die_usage("no arguments after the options");
}

int main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = MAIN_PRIO }, other = { .sched_priority = 0 };
	pthread_mutexattr_t ma;
	pthread_attr_t fa;
	pthread_t fifo;
	struct timespec end;
	unsigned long steps = 0, demoted = 0, forks = 0, fork_bad = 0, get_bad = 0;
	unsigned long set_ok = 0, set_busy = 0, set_bad = 0, armed = 0;
	unsigned int i, stranded = 0;
	int err, last_errno = 0;

	parse(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	tap_header(5);
	diag("dlstress: %u deadline threads for %u s, seed %lu", nthreads, secs, seed);

	if (signal(SIGXCPU, on_sigxcpu) == SIG_ERR)
		die("signal(SIGXCPU): %s", strerror(errno));
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		die("sched_setscheduler(SCHED_FIFO %d): %s", MAIN_PRIO, strerror(errno));
	pthread_mutexattr_init(&ma);
	err = pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	if (err || (err = pthread_mutex_init(&pi_lock, &ma)))
		die("a PTHREAD_PRIO_INHERIT mutex: %s", strerror(err));

	/* the threads inherit nothing: each sets its own policy */
	pthread_attr_init(&fa);
	pthread_attr_setinheritsched(&fa, PTHREAD_EXPLICIT_SCHED);
	sp.sched_priority = FIFO_PRIO;
	pthread_attr_setschedpolicy(&fa, SCHED_FIFO);
	pthread_attr_setschedparam(&fa, &sp);
	err = pthread_create(&fifo, &fa, fifo_main, NULL);
	if (err)
		die("the SCHED_FIFO %d locker: %s", FIFO_PRIO, strerror(err));

	for (i = 0; i < nthreads; i++) {
		pthread_attr_t wa;

		workers[i].idx = i;
		workers[i].rng = seed * 2654435761u + i + 1;
		pthread_attr_init(&wa);
		pthread_attr_setinheritsched(&wa, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&wa, SCHED_OTHER);
		/* without it glibc takes this thread's FIFO priority: EINVAL */
		pthread_attr_setschedparam(&wa, &other);
		err = pthread_create(&workers[i].thr, &wa, worker_main, &workers[i]);
		pthread_attr_destroy(&wa);
		if (err)
			die("deadline thread %u: %s", i, strerror(err));
	}

	/*
	 * SIGXCPU goes to the process: to this thread too, which a plain
	 * sleep() would leave early (every run then ended after its first
	 * overrun signal, seconds in)
	 */
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += secs;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &end, NULL) == EINTR)
		;
	atomic_store(&stop, 1);

	for (i = 0; i < nthreads; i++) {
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += JOIN_GRACE_S;
		if (pthread_timedjoin_np(workers[i].thr, NULL, &until)) {
			stranded++;
			continue;
		}
		steps += workers[i].steps;
		demoted += workers[i].demoted_seen;
		forks += workers[i].forks;
		fork_bad += workers[i].fork_bad;
		get_bad += workers[i].getattr_bad;
		set_ok += workers[i].setattr_ok;
		set_busy += workers[i].setattr_busy;
		set_bad += workers[i].setattr_bad;
		armed += workers[i].sigxcpu_armed;
		if (workers[i].last_errno)
			last_errno = workers[i].last_errno;
	}
	diag("steps %lu, demoted samples %lu, forks %lu, setattr ok %lu busy %lu,"
		 " SIGXCPU %lu (DL_OVERRUN set %lu times), FIFO locks %lu",
		 steps, demoted, forks, set_ok, set_busy, atomic_load(&sigxcpu), armed,
		 atomic_load(&fifo_locks));

	tap_result(!stranded, "every deadline thread ended within %d s of the stop (%u stranded)",
		  JOIN_GRACE_S, stranded);
	if (stranded) {
		/* the threads cannot be reclaimed: report and leave */
		_exit(1);
	}
	pthread_join(fifo, NULL);
	tap_result(forks && !fork_bad, "fork() from a deadline thread failed with EAGAIN %lu of %lu times",
		  forks - fork_bad, forks);
	tap_result(!get_bad, "sched_getattr() said SCHED_DEADLINE every time (%lu other)", get_bad);
	tap_result(demoted > 0, "demotions seen: %lu samples of a nice-level priority", demoted);
	tap_result(!set_bad, "sched_setattr()/setaffinity() succeeded or failed with EBUSY (%lu other%s%s)",
		  set_bad, last_errno ? ", last " : "", last_errno ? strerror(last_errno) : "");
	return tap_exit();
}
