// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper: a process whose threads the functional test gives rules to.
 * Starts one thread per name given on the command line (named with
 * pthread_setname_np), prints "ready <pid>" and each thread's "tid name",
 * then on every SIGUSR1 starts one more thread named "late-<n>" and prints
 * its tid; on SIGUSR2 one that keeps the process's name.  Exits on SIGTERM.  "--comm NAME" first names the main thread
 * (used to stand in for an irq thread when testing rtirqd-bench), and
 * "--status FILE SLOT IRQ" then writes an rtlab_irqsim-style status line
 * "<slot> <irq> <name> <CLOCK_MONOTONIC ns> 0 0 0" to FILE.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int started;

static void *run(void *arg)
{
	const char *name = arg;

	if (*name)	/* "" keeps the process's name */
		pthread_setname_np(pthread_self(), name);
	char cur[16];

	pthread_getname_np(pthread_self(), cur, sizeof(cur));
	pthread_mutex_lock(&mu);
	printf("%ld %s\n", (long)syscall(SYS_gettid), cur);
	fflush(stdout);
	started++;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (;;)
		pause();
	return NULL;
}

static void start(const char *name)
{
	pthread_t t;
	int want;

	pthread_mutex_lock(&mu);
	want = started + 1;
	pthread_mutex_unlock(&mu);
	if (pthread_create(&t, NULL, run, (void *)name)) {
		perror("pthread_create");
		exit(1);
	}
	pthread_mutex_lock(&mu);
	while (started < want)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
}

int main(int argc, char **argv)
{
	sigset_t ss;
	int late = 0, sig;

	sigemptyset(&ss);
	sigaddset(&ss, SIGUSR1);
	sigaddset(&ss, SIGUSR2);
	sigaddset(&ss, SIGTERM);
	sigprocmask(SIG_BLOCK, &ss, NULL);	/* threads inherit the mask */
	if (argc > 2 && strcmp(argv[1], "--comm") == 0) {
		const char *comm = argv[2];

		prctl(PR_SET_NAME, comm);	/* cut at 15 like the kernel */
		argv += 2;
		argc -= 2;
		if (argc > 3 && strcmp(argv[1], "--status") == 0) {
			struct timespec ts;
			FILE *f = fopen(argv[2], "w");
			const char *dash = strchr(comm, '-');

			clock_gettime(CLOCK_MONOTONIC, &ts);
			if (f) {
				fprintf(f, "%s %s %s %llu 0 0 0\n", argv[3],
					argv[4], dash ? dash + 1 : comm,
					ts.tv_sec * 1000000000ull + ts.tv_nsec);
				fclose(f);
			}
			argv += 4;
			argc -= 4;
		}
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (int i = 1; i < argc; i++)
		start(argv[i]);
	for (;;) {
		if (sigwait(&ss, &sig))
			return 1;
		if (sig == SIGTERM)
			return 0;
		if (sig == SIGUSR2) {
			start("");	/* a thread that is never renamed */
			continue;
		}
		{
			char *name = malloc(16);

			snprintf(name, 16, "late-%d", ++late);
			start(name);
		}
	}
}
