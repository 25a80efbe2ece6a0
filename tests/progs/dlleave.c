// SPDX-License-Identifier: GPL-2.0
/*
 * dlleave: a SCHED_DEADLINE thread leaves the policy (or exits) with its
 * 0-lag time ahead, and a command of the caller's (a CPU hotplug cycle, a
 * cpuset partition change: a rebuild of the root domains) runs inside that
 * window (tests/guest/93-dl-rebuild.sh, kernel patch 0026).
 *
 * Why a window: a task that leaves SCHED_DEADLINE, or exits, keeps its
 * bandwidth reserved in its root domain until its 0-lag time, when its
 * inactive timer gives it back.  A rebuild in between computes the root
 * domain's total_bw again without the task (it has left the policy, or its
 * cpuset), and 6.12's timer then takes the bandwidth off a second time.
 *
 * The thread L sets itself deadline RUNTIME / PERIOD (implicit deadline),
 * runs USED of its runtime, then:
 *   leave   blocks; the main thread sets it SCHED_OTHER, runs the command
 *   exit    exits; the main thread runs the command once L is gone
 *   rejoin  as leave, then after the command the main thread sets L back
 *           to SCHED_DEADLINE (same parameters, inside the window) before
 *           L exits
 * The 0-lag time is deadline - remaining runtime * PERIOD / RUNTIME, with
 * the deadline PERIOD after L's sched_setattr() (its first activation).
 * dlleave then waits until L's deadline plus 200 ms has passed, so that
 * every timer of L's has fired when it returns, and prints what it did.
 *
 * Exit status: 0 when the command ended at least 100 ms before L's 0-lag
 * time (the window was exercised); 1 when it ended later (the run proves
 * nothing, say so); 2 on a usage or system error, or a command that
 * failed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <rtlab/die.h>
#include <rtlab/dl.h>
#include <rtlab/opt.h>

enum mode { LEAVE, EXIT, REJOIN };

static struct {
	uint64_t runtime_ns, period_ns, used_ns;
	enum mode mode;
} cfg = {
	.runtime_ns = 100000000ULL, .period_ns = 2000000000ULL, .used_ns = 60000000ULL,
};

/* what L reports to the main thread (written before its byte on to_main) */
static struct {
	pid_t tid;
	int err;		/* errno of L's sched_setattr(), 0 if admitted */
	int64_t t0_ns;		/* CLOCK_MONOTONIC right after it */
	int64_t wall_ns;	/* wall time L took to run USED of CPU */
} l_state;

static int to_main[2], to_l[2];

static int64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_until(int64_t t_ns)
{
	struct timespec ts = { .tv_sec = t_ns / 1000000000LL, .tv_nsec = t_ns % 1000000000LL };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void *l_thread(void *arg)
{
	int64_t c0;
	char c = 0;

	(void)arg;
	l_state.tid = (pid_t)syscall(SYS_gettid);
	l_state.err = rtlab_set_deadline(0, cfg.runtime_ns, cfg.period_ns, 0);
	l_state.t0_ns = now_ns(CLOCK_MONOTONIC);
	if (!l_state.err) {
		c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		while (now_ns(CLOCK_THREAD_CPUTIME_ID) - c0 < (int64_t)cfg.used_ns)
			;
		l_state.wall_ns = now_ns(CLOCK_MONOTONIC) - l_state.t0_ns;
	}
	if (write(to_main[1], &c, 1) != 1)
		return NULL;
	/* leave, rejoin: blocked here while the main thread works */
	if (!l_state.err && cfg.mode != EXIT && read(to_l[0], &c, 1) != 1)
		return NULL;
	return NULL;
}

static int set_other(pid_t tid)
{
	struct rtlab_sched_attr a = { .size = sizeof(a), .sched_policy = SCHED_OTHER };

	return syscall(SYS_sched_setattr, tid, &a, 0) ? errno : 0;
}

static uint64_t arg_us(const char *s, const char *what)
{
	long v;

	if (!opt_long(s, 1, 10000000, &v))
		die_usage("%s: %s is not a number of microseconds in 1..10000000", what, s);
	return (uint64_t)v * 1000;
}

static void usage(void)
{
	printf("usage: dlleave [-r RUNTIME_US] [-p PERIOD_US] [-u USED_US] -x CMD leave|exit|rejoin\n"
	       "  a SCHED_DEADLINE thread (RUNTIME_US / PERIOD_US, default 100000 / 2000000)\n"
	       "  runs USED_US (default 60000) of its runtime, then leaves the policy\n"
	       "  (leave), exits (exit), or leaves and is set back to it after CMD\n"
	       "  (rejoin); CMD (through sh -c) runs before the thread's 0-lag time.\n"
	       "  Exit status 0: CMD ended >= 100 ms before it; 1: later; 2: error.\n");
}

int main(int argc, char **argv)
{
	const char *cmd = NULL;
	int64_t zerolag, c0, c1;
	pthread_t t;
	char c = 0;
	int opt, err, st;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage();
		return 0;
	}
	while ((opt = getopt(argc, argv, "r:p:u:x:")) != -1) {
		switch (opt) {
		case 'r': cfg.runtime_ns = arg_us(optarg, "-r"); break;
		case 'p': cfg.period_ns = arg_us(optarg, "-p"); break;
		case 'u': cfg.used_ns = arg_us(optarg, "-u"); break;
		case 'x': cmd = optarg; break;
		default: die_usage("usage: dlleave [-r US] [-p US] [-u US] -x CMD leave|exit|rejoin");
		}
	}
	if (!cmd || optind != argc - 1)
		die_usage("usage: dlleave [-r US] [-p US] [-u US] -x CMD leave|exit|rejoin");
	if (!strcmp(argv[optind], "leave"))
		cfg.mode = LEAVE;
	else if (!strcmp(argv[optind], "exit"))
		cfg.mode = EXIT;
	else if (!strcmp(argv[optind], "rejoin"))
		cfg.mode = REJOIN;
	else
		die_usage("%s: not a mode (leave, exit, rejoin)", argv[optind]);
	if (cfg.runtime_ns > cfg.period_ns || cfg.used_ns >= cfg.runtime_ns)
		die_usage("need USED_US < RUNTIME_US <= PERIOD_US");

	if (pipe(to_main) || pipe(to_l))
		die("pipe: %s", strerror(errno));
	err = pthread_create(&t, NULL, l_thread, NULL);
	if (err)
		die("pthread_create: %s", strerror(err));
	if (read(to_main[0], &c, 1) != 1)
		die("read from L: %s", strerror(errno));
	if (l_state.err)
		die("sched_setattr(SCHED_DEADLINE %llu/%llu ns) for L: %s",
		    (unsigned long long)cfg.runtime_ns, (unsigned long long)cfg.period_ns,
		    strerror(l_state.err));
	zerolag = l_state.t0_ns + (int64_t)cfg.period_ns -
		  (int64_t)((cfg.runtime_ns - cfg.used_ns) * (cfg.period_ns / 1000) /
			    (cfg.runtime_ns / 1000));

	if (cfg.mode == EXIT) {
		pthread_join(t, NULL);
		usleep(50000);	/* past do_task_dead(), not only the tid clear */
	} else {
		usleep(20000);	/* L asleep in read() */
		err = set_other(l_state.tid);
		if (err)
			die("sched_setattr(SCHED_OTHER) for L: %s", strerror(err));
	}

	c0 = now_ns(CLOCK_MONOTONIC);
	st = system(cmd);
	c1 = now_ns(CLOCK_MONOTONIC);
	if (st != 0)
		die("the command failed (status %d): %s", st, cmd);

	if (cfg.mode == REJOIN) {
		err = rtlab_set_deadline(l_state.tid, cfg.runtime_ns, cfg.period_ns, 0);
		if (err)
			die("sched_setattr(SCHED_DEADLINE) again for L: %s", strerror(err));
	}
	if (cfg.mode != EXIT) {
		if (write(to_l[1], &c, 1) != 1)
			die("write to L: %s", strerror(errno));
		pthread_join(t, NULL);
	}
	sleep_until(l_state.t0_ns + (int64_t)cfg.period_ns + 200000000LL);

	printf("dlleave %s: L (tid %d) deadline %llu/%llu us ran %llu us of CPU in %.1f ms; "
	       "0-lag at +%.1f ms; the command ran +%.1f..+%.1f ms%s\n",
	       argv[optind], l_state.tid, (unsigned long long)cfg.runtime_ns / 1000,
	       (unsigned long long)cfg.period_ns / 1000, (unsigned long long)cfg.used_ns / 1000,
	       l_state.wall_ns / 1e6, (zerolag - l_state.t0_ns) / 1e6,
	       (c0 - l_state.t0_ns) / 1e6, (c1 - l_state.t0_ns) / 1e6,
	       cfg.mode == REJOIN ? ", then L was set SCHED_DEADLINE again" : "");
	if (c1 > zerolag - 100000000LL) {
		printf("dlleave %s: the command ended less than 100 ms before L's 0-lag time: "
		       "the window was not exercised\n", argv[optind]);
		return 1;
	}
	return 0;
}
