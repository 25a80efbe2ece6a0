// SPDX-License-Identifier: GPL-2.0
/*
 * event_bench: drive rtirqd's irq event path on a fake /proc and /sys and
 * measure one event at a time (bench/event-bench.sh runs it under strace
 * and callgrind).  It includes src/daemon.c so that it can call the
 * handler of the start commit too (for the before figures, built from
 * that commit's src/ with -I): the handler is called as the event loop
 * would after epoll_wait() woke it, and each measured event is bracketed
 * by two marker system calls (faccessat of MARK_BEGIN / MARK_END) that
 * the script counts between.
 *
 * The fake tree: IRQS irqs, each listing one fake thread (pids from
 * FAKE_PID0, which no real task has), and THREADS fake kernel threads in
 * /proc.  The thread that events add and remove is a real, idle thread of
 * this program, so setting its policy (SCHED_OTHER 0) is a real system
 * call that any user may make; no other task is ever changed.
 *
 * Usage: event_bench DIR IRQS THREADS CYCLES [--check]
 */
#include "daemon.c"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#define FAKE_PID0 10000000	/* above any pid_max (4194304 at most) */
#define MARK_BEGIN "/rtirqd-bench-begin"
#define MARK_END "/rtirqd-bench-end"
#define BENCH_ACTION "rtirqd-bench"

static const char *root;
static unsigned long long gen;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	if (!f || fputs(text, f) < 0 || fclose(f))
		die(path);
}

static void mkdir_p(const char *path)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		die(path);
}

/* a fake /proc/PID/stat: kernel thread (PF_KTHREAD), FIFO 50 */
static void fake_stat(pid_t pid, const char *comm)
{
	char path[PATH_MAX], text[512];
	int n;

	snprintf(path, sizeof(path), "%s/proc/%d", root, pid);
	mkdir_p(path);
	n = snprintf(text, sizeof(text), "%d (%s) S 2 0 0 0 -1 2097216", pid,
		     comm);
	for (int f = 10; f <= 39; f++)
		n += snprintf(text + n, sizeof(text) - n, " 0");
	snprintf(text + n, sizeof(text) - n, " 50 1\n");
	snprintf(path, sizeof(path), "%s/proc/%d/stat", root, pid);
	put_file(path, text);
}

static void set_threads(int irq, const char *text)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/sys/kernel/irq/%d/threads", root, irq);
	put_file(path, text);
}

static void bump_generation(void)
{
	char path[PATH_MAX], text[32];

	snprintf(path, sizeof(path), "%s/sys/kernel/irq/generation", root);
	snprintf(text, sizeof(text), "%llu\n", ++gen);
	put_file(path, text);
}

/* A tree made by an earlier run is used as it is (same sizes). */
static bool tree_exists(void)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/kernel/irq/generation", root);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (fscanf(f, "%llu", &gen) != 1)
		gen = 0;
	fclose(f);
	return true;
}

static void make_tree(int irqs, int threads)
{
	char path[PATH_MAX], text[128];

	if (tree_exists())
		return;

	snprintf(path, sizeof(path), "%s/proc", root);
	mkdir_p(path);
	snprintf(path, sizeof(path), "%s/sys", root);
	mkdir_p(path);
	snprintf(path, sizeof(path), "%s/sys/kernel", root);
	mkdir_p(path);
	snprintf(path, sizeof(path), "%s/sys/kernel/irq", root);
	mkdir_p(path);
	for (int i = 0; i < irqs; i++) {
		snprintf(path, sizeof(path), "%s/sys/kernel/irq/%d", root, i);
		mkdir_p(path);
		snprintf(text, sizeof(text), "%d dev%d primary\n",
			 FAKE_PID0 + i, i);
		set_threads(i, text);
	}
	for (int i = 0; i < threads; i++) {
		snprintf(text, sizeof(text), "kworker/fake:%d", i);
		fake_stat(FAKE_PID0 + irqs + i, text);
	}
	bump_generation();
}

static void *idle_thread(void *arg)
{
	pid_t *tid = arg;

	*tid = (pid_t)syscall(SYS_gettid);
	for (;;)
		pause();
	return NULL;
}

static void mark(const char *m)
{
	/* fails (ENOENT) and changes nothing: a line strace can find */
	if (access(m, F_OK) == 0)
		fprintf(stderr, "event_bench: %s exists\n", m);
}

/*
 * The measured event: what the loop does after epoll_wait() returned.
 * Start commit: one wake-up on the generation file.  Now: the irq's own
 * thread list, then the generation file (two wake-ups at most).
 */
__attribute__((noinline)) void bench_measured_event(struct daemon *d, int irq)
{
#ifdef EV_IRQWATCH
	daemon_dispatch(d, EV_IRQWATCH | (uint64_t)irq, NULL);
	daemon_dispatch(d, (uint64_t)d->irqfd, NULL);
#else
	(void)irq;
	handle_irq_event(d);
#endif
}

static int wakeups_per_event(void)
{
#ifdef EV_IRQWATCH
	return 2;
#else
	return 1;
#endif
}

/* the same handler, under two names so that callgrind counts them apart */
__attribute__((noinline)) void bench_new_event(struct daemon *d, int irq)
{
	bench_measured_event(d, irq);
}

__attribute__((noinline)) void bench_free_event(struct daemon *d, int irq)
{
	bench_measured_event(d, irq);
}

static void event(struct daemon *d, int irq, bool is_new)
{
	bump_generation();
	mark(MARK_BEGIN);
	if (is_new)
		bench_new_event(d, irq);
	else
		bench_free_event(d, irq);
	mark(MARK_END);
}

static int fails;

static void expect(bool ok, const char *what)
{
	printf("%s - %s\n", ok ? "ok" : "not ok", what);
	fails += !ok;
}

int main(int argc, char **argv)
{
	static struct opts o = { .procroot = NULL, .rescan_ms = 2000 };
	struct daemon d;
	struct rlimit rl;
	char rules[PATH_MAX], text[256];
	pthread_t th;
	volatile pid_t tid = 0;
	int irqs, threads, cycles, irq;
	bool check;

	if (argc < 5) {
		fprintf(stderr, "usage: event_bench DIR IRQS THREADS CYCLES [--check]\n");
		return 2;
	}
	root = argv[1];
	irqs = atoi(argv[2]);
	threads = atoi(argv[3]);
	cycles = atoi(argv[4]);
	check = argc > 5 && strcmp(argv[5], "--check") == 0;
	if (irqs < 2 || threads < 0 || cycles < 1)
		return 2;
	/* one open thread list per irq, as the daemon keeps them */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	make_tree(irqs, threads);
	irq = irqs / 2;
	if (pthread_create(&th, NULL, idle_thread, (void *)&tid))
		die("pthread_create");
	while (!tid)
		sched_yield();
	/* the start commit reads the thread's /proc entry: give it one */
	snprintf(text, sizeof(text), "irq/%d-%s", irq, BENCH_ACTION);
	fake_stat(tid, text);

	snprintf(rules, sizeof(rules), "%s/rules", root);
	put_file(rules, "bench:o:0:*:^\\[irq/[0-9]+-" BENCH_ACTION "\\]$\n");
	static char procroot[PATH_MAX], sysroot[PATH_MAX];
	snprintf(procroot, sizeof(procroot), "%s/proc", root);
	snprintf(sysroot, sizeof(sysroot), "%s/sys", root);
	o.procroot = procroot;
	o.sysroot = sysroot;
	o.config = rules;
	log_init(LOG_TO_STDERR, o.verbosity);
	memset(&d, 0, sizeof(d));
	d.o = &o;
	d.irqfd = d.nlfd = d.rescanfd = d.sigfd = -1;
#ifdef EV_IRQWATCH
	d.ep = -1;
#endif
	if (parse_ctx_init(&d.ctx))
		die("present CPUs");
	if (rules_load(&d.rules, rules, false, NULL, &d.ctx, NULL, NULL)) {
		fprintf(stderr, "event_bench: rules: errors (owned by root?)\n");
		return 1;
	}
	d.aopts.procroot = procroot;
	d.timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (open_sysfs_gen(&d))
		die("generation");
	d.irq_src = SRC_SYSFS;
#ifdef EV_IRQWATCH
	d.irqmap = irqwatch_walk(&d, false) == 0;
#else
	d.irqmap = irqwatch_sync(&d, false) == 0;
#endif
	scan(&d, true);
	/*
	 * The start-up pass found the thread in the fake /proc; the events
	 * present it as new.  Its re-checks are no part of the event path.
	 */
	pidset_del(&d.known, tid);
	d.npend = 0;
	printf("# irqs=%d threads=%d cycles=%d wakeups_per_event=%d\n", irqs,
	       threads, cycles, wakeups_per_event());
	fflush(stdout);
	for (int c = 0; c < cycles; c++) {
		unsigned int applied = d.stat_applied;

		/* a new thread on an irq that has a descriptor already */
		snprintf(text, sizeof(text), "%d dev%d primary\n%d %s primary\n",
			 FAKE_PID0 + irq, irq, tid, BENCH_ACTION);
		set_threads(irq, text);
		event(&d, irq, true);
		if (check && c == 0)
			expect(d.stat_applied == applied + 1 &&
			       pidset_has(&d.known, tid),
			       "a new listed thread gets its rule at once");
		/* free_irq(): the thread is gone from the list */
		snprintf(text, sizeof(text), "%d dev%d primary\n",
			 FAKE_PID0 + irq, irq);
		set_threads(irq, text);
		event(&d, irq, false);
		if (check && c == 0)
			expect(!pidset_has(&d.known, tid),
			       "a freed thread is forgotten");
	}
	snprintf(text, sizeof(text), "%s/proc/%d/stat", root, tid);
	unlink(text);
	text[strlen(text) - strlen("/stat")] = 0;
	rmdir(text);
#ifdef EV_IRQWATCH
	if (check) {
		unsigned int walks = d.stat_walks;
		char path[PATH_MAX];

		expect(d.stat_walks == 1,
		       "new threads and frees on known irqs walk no directory");
		/* a new descriptor: only the generation tells */
		snprintf(path, sizeof(path), "%s/sys/kernel/irq/%d", root, irqs);
		mkdir_p(path);
		snprintf(text, sizeof(text), "%d %s primary\n", tid,
			 BENCH_ACTION);
		set_threads(irqs, text);
		bump_generation();
		daemon_dispatch(&d, (uint64_t)d.irqfd, NULL);
		expect(d.stat_walks == walks + 1 && pidset_has(&d.known, tid) &&
		       irqwatch_get(&d, irqs) != NULL,
		       "a new descriptor is found by one walk and its thread set");
		/* the descriptor is freed: its directory goes */
		unlink(strcat(path, "/threads"));
		path[strlen(path) - strlen("/threads")] = 0;
		rmdir(path);
		bump_generation();
		daemon_dispatch(&d, (uint64_t)d.irqfd, NULL);
		expect(irqwatch_get(&d, irqs) == NULL,
		       "a freed descriptor's list is closed");
	}
	daemon_free(&d);
#endif
	return fails ? 1 : 0;
}
