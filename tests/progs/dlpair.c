// SPDX-License-Identifier: GPL-2.0
/*
 * dlpair: one process holding a SCHED_DEADLINE thread and a SCHED_FIFO
 * thread, both asleep, until it is killed (tests/guest/93-dl-cpuset-cancel.sh).
 *
 * Moving such a process between cgroups with the cpuset and cpu controllers
 * counts its deadline thread in cpuset_can_attach(), then has the cpu
 * controller refuse the FIFO thread for a group without RT runtime: the
 * cancel path (cpuset_cancel_attach()) that patch 0022 fixes.  A shell
 * cannot make such a process (chrt sets one task).
 *
 * Usage: dlpair RUNTIME_US PERIOD_US
 * Prints "ready PID" on stdout once both threads have their policy; exits 2
 * if either sched_setattr()/sched_setscheduler() fails.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rtlab/die.h>
#include <rtlab/dl.h>
#include <rtlab/opt.h>

static pthread_barrier_t ready;
static int fifo_err;

static void *fifo_thread(void *arg)
{
	struct sched_param sp = { .sched_priority = 10 };

	(void)arg;
	fifo_err = sched_setscheduler(0, SCHED_FIFO, &sp) ? errno : 0;
	pthread_barrier_wait(&ready);
	for (;;)
		pause();
	return NULL;
}

static unsigned long long arg_us(const char *s, const char *what)
{
	long v;

	if (!opt_long(s, 1, 10000000, &v))
		die_usage("%s: %s is not a number of microseconds in 1..10000000", what, s);
	return (unsigned long long)v;
}

int main(int argc, char **argv)
{
	unsigned long long runtime, period;
	pthread_t t;
	int err;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: dlpair RUNTIME_US PERIOD_US\n"
		       "  a process with a SCHED_DEADLINE thread (RUNTIME_US / PERIOD_US) and a\n"
		       "  SCHED_FIFO 10 thread, both asleep until killed; prints \"ready PID\"\n");
		return 0;
	}
	if (argc != 3)
		die_usage("usage: dlpair RUNTIME_US PERIOD_US");
	runtime = arg_us(argv[1], "RUNTIME_US");
	period = arg_us(argv[2], "PERIOD_US");
	if (runtime > period)
		die_usage("RUNTIME_US %llu is above PERIOD_US %llu", runtime, period);

	if (pthread_barrier_init(&ready, NULL, 2))
		die("pthread_barrier_init failed");
	err = pthread_create(&t, NULL, fifo_thread, NULL);
	if (err)
		die("pthread_create: %s", strerror(err));
	pthread_barrier_wait(&ready);
	if (fifo_err)
		die("SCHED_FIFO 10 for the second thread: %s", strerror(fifo_err));
	err = rtlab_set_deadline(0, runtime * 1000, period * 1000, 0);
	if (err)
		die("SCHED_DEADLINE %llu/%llu us: %s", runtime, period, strerror(err));
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (;;)
		pause();
}
