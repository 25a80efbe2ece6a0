// SPDX-License-Identifier: GPL-2.0
/*
 * rtgload - load generator and meter for RT group scheduling (cgroup v1 cpu
 * controller, cpu.rt_runtime_us / cpu.rt_period_us).
 *
 * Task mode: starts the tasks given with -t, each a thread that
 *   1. pins itself to its CPU (if any),
 *   2. writes its TID to <cg>/tasks (before it becomes RT: an RT task
 *      cannot enter a group whose runtime is 0),
 *   3. sets its policy and priority,
 * then waits until every task is ready, runs for the duration and reports,
 * one line per task, the CPU time it received in the measurement window
 * (first field of /proc/self/task/<tid>/schedstat, read by the main thread
 * at the window's start and end) and its share of the window's wall time;
 * periodic tasks also report jobs, deadline misses and lateness, bursts
 * when they completed.
 *
 * Ping-pong mode (--pingpong): two threads in one cgroup at one RT priority
 * pass a byte back and forth through two pipes; reports round trips, their
 * rate and the median/p99 round-trip time.
 *
 * Output is "key=value" words, one line per task (no zero-padded numbers:
 * busybox awk reads 010 as octal), and with --json FILE the same as JSON.
 * Exit status: 0 ran, 1 a task could not be set up or the run failed,
 * 2 bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "rtlab/die.h"
#include "rtlab/opt.h"
#include "rtlab/time.h"

#define MAX_TASKS	64
#define NSEC		RTLAB_NSEC_PER_SEC

enum kind { K_HOG, K_PERIODIC, K_BURST, K_RUNS };

#define MAX_RUNS	8192

/* the stalls one task logs for the windowed sum (64 KiB each, allocated up front) */
#define STALL_LOG	4096

struct stalls {
	long long n, ns, max_ns;
	long long *at, *len;	/* each logged stall: when it was seen, how long */
	int nlog;		/* logged; n > nlog: the log filled up */
};

struct task {
	/* from the command line */
	char name[32];
	char cg[256];		/* "" = stay in the caller's group */
	int policy;		/* SCHED_FIFO, SCHED_RR, SCHED_OTHER */
	int prio;
	int cpu;		/* -1 = not pinned */
	enum kind kind;
	long long period_ns, work_ns;
	/* run time */
	pthread_t thread;
	pid_t tid;
	int statfd;
	char err[512];
	long long cpu0, cpu1;	/* schedstat at window start and end */
	long long jobs, misses, max_late_ns, max_resp_ns;
	long long done_ns;	/* burst: completion, from the common start; -1 = not done */
	long long thread_cpu_ns; /* CLOCK_THREAD_CPUTIME_ID at the end */
	struct stalls st;	/* periodic, burst: see STALL_NS */
	long long max_wake_ns;	/* periodic: latest start of a job after its release */
	long long gap_ns;	/* runs: time off the CPU that ends a run */
	long long nap_ns;	/* runs: sleep after each run (0: none) */
	long long yield_ns;	/* runs: sched_yield() every that much CPU time (0: never) */
	long long *runs;	/* runs: the CPU time of each whole run in the window */
	int nruns;
};

static struct task tasks[MAX_TASKS];
static int ntasks;
static atomic_bool stop_flag, abort_flag;
/*
 * Start: each thread reports ready and waits for go; only the main thread
 * wakes anybody.  (With pthread barriers the last thread to arrive wakes
 * the others: a low-priority task that woke a higher-priority hog on its
 * own CPU was preempted inside futex_wake() before it woke the main
 * thread, and then starved by that hog for good, which in turn spun until
 * the main thread's stop that never came.)
 */
static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready_cond = PTHREAD_COND_INITIALIZER;
static pthread_cond_t go_cond = PTHREAD_COND_INITIALIZER;
static int nready;
static bool go;

static void ready_then_wait_go(void)
{
	pthread_mutex_lock(&start_lock);
	nready++;
	pthread_cond_signal(&ready_cond);
	while (!go)
		pthread_cond_wait(&go_cond, &start_lock);
	pthread_mutex_unlock(&start_lock);
}

static void wait_ready(int n)
{
	pthread_mutex_lock(&start_lock);
	while (nready < n)
		pthread_cond_wait(&ready_cond, &start_lock);
	pthread_mutex_unlock(&start_lock);
}

static void start_all(void)
{
	pthread_mutex_lock(&start_lock);
	go = true;
	pthread_cond_broadcast(&go_cond);
	pthread_mutex_unlock(&start_lock);
}
/* a burst that is done waits here for the end of the run, so that its
 * schedstat stays readable */
static pthread_mutex_t stop_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t stop_cond = PTHREAD_COND_INITIALIZER;
static long long start_ns;	/* common start (hogs and bursts start at go) */
static long long window_ns;	/* measurement window start = first release */
static long long stall_win_ns = 100000000LL;	/* --stall-window */

static const char *prog = "rtgload";

static void usage(FILE *f)
{
	fprintf(f,
"usage: rtgload [options] -t TASK [-t TASK]...\n"
"       rtgload --pingpong [options]\n"
"\n"
"Task mode: start the tasks, run for the duration, print one line per task.\n"
"TASK is a comma-separated list of key=value:\n"
"  name=NAME       label in the output (default t1, t2, ...)\n"
"  cg=DIR          cgroup directory to join (TID written to DIR/tasks before\n"
"                  the policy is set); default: stay in the caller's group\n"
"  policy=P        fifo | rr | other (default other)\n"
"  prio=N          1-99 for fifo/rr, 0 for other\n"
"  cpu=N|none      CPU to pin the task to (default none)\n"
"  kind=K          hog                      spin until the end of the run\n"
"                  periodic:PERIOD_US:WORK_US  release every PERIOD_US\n"
"                      (clock_nanosleep TIMER_ABSTIME), spin WORK_US of its\n"
"                      own CPU time (CLOCK_THREAD_CPUTIME_ID) per job; a job\n"
"                      finishing after the next release is a deadline miss\n"
"                  burst:WORK_US            spin WORK_US of CPU time once,\n"
"                      report when it completed (the run waits for it)\n"
"                  runs:GAP_US[:NAP_US[:YIELD_US]]  spin like a hog and measure its\n"
"                      runs: a run ends when the task was off its CPU for\n"
"                      more than GAP_US (e.g. its group throttled); the CPU\n"
"                      time of each run that began and ended in the window;\n"
"                      with NAP_US, sleep that long when back from each gap\n"
"                      (a group's server stops meanwhile: every run then\n"
"                      starts a new server period with a full budget);\n"
"                      with YIELD_US, sched_yield() every YIELD_US of CPU\n"
"                      time (NAP_US 0: no sleep)\n"
"Options:\n"
"  -d, --duration SEC   measurement window (default 5, fractions allowed)\n"
"  -w, --warmup MS      time between the start and the window (default 200);\n"
"                       periodic tasks are first released at the window start\n"
"      --main-cpu N     pin the main (measuring) thread; default: a CPU no\n"
"                       task is pinned to, if there is one\n"
"  -m, --mlock          mlockall() first\n"
"      --stall-window MS  the window of win_stall_ms (default 100, the\n"
"                       default RT period)\n"
"  -j, --json FILE      also write the results as JSON\n"
"  -h, --help\n"
"\n"
"Ping-pong mode: two threads exchange a byte over two pipes.\n"
"      --cg DIR         cgroup of both threads (default: the caller's)\n"
"      --policy P       fifo | rr | other (default fifo)\n"
"      --prio N         default 50\n"
"      --cpus A[,B]     pin ping to A and pong to B (A alone: both on A)\n"
"  -d SEC, -w MS, -m, -j FILE as above (warm-up round trips are not counted)\n"
"\n"
"Output, task mode, one line each (key=value, no zero padding):\n"
"  run duration_ns=... tasks=N main_cpu=N\n"
"  task name=.. tid=.. policy=.. prio=.. cpu=.. kind=.. cpu_ns=.. share=P.PP\n"
"       [jobs=.. misses=.. max_late_us=.. max_resp_us=.. max_wake_us=..]\n"
"       [done_ms=..] [stalls=.. stall_ms=.. max_stall_ms=.. win_stall_ms=..]\n"
"       [runs=.. run_min_us=.. run_med_us=.. run_p90_us=.. run_max_us=..]\n"
"       thread_cpu_ms=..\n"
"  share = cpu_ns / duration_ns in percent (window wall time); lateness =\n"
"  finish - deadline (negative: early); wake = job start - release; a stall\n"
"  is a jump of > 1 ms in the task's CPU time while it spins (time charged\n"
"  to it in which it ran nothing: under TCG the host descheduled the vCPU);\n"
"  win_stall_ms = the most stall time that the periodic and burst tasks of\n"
"  the task's cgroup saw within any --stall-window (what the host took from\n"
"  the group's budget in one period at worst)\n"
"Ping-pong: pingpong rounds=.. duration_ns=.. rate=.. min_us=.. median_us=..\n"
"  p99_us=.. max_us=..\n"
"Exit: 0 ran, 1 a task or the ping-pong failed, 2 bad usage or setup\n"
"  failed (include/rtlab/die.h).\n");
}

static long long thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * NSEC + ts.tv_nsec;
}

static struct timespec ts_of(long long ns)
{
	struct timespec ts = { ns / NSEC, ns % NSEC };

	return ts;
}

static void sleep_until(long long t)
{
	struct timespec ts = ts_of(t);

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/*
 * A jump of more than this in the thread's CPU time between two reads a few
 * microseconds of work apart: time charged to the task in which it did not
 * run its own code (under TCG, the vCPU thread descheduled by a loaded host;
 * or a long interrupt).  Counted as a stall.
 */
#define STALL_NS	1000000LL

static void stall_add(struct stalls *st, long long d)
{
	if (d <= STALL_NS)
		return;
	if (st->at && st->nlog < STALL_LOG) {
		st->at[st->nlog] = now_ns();
		st->len[st->nlog++] = d;
	}
	st->n++;
	st->ns += d;
	if (d > st->max_ns)
		st->max_ns = d;
}

static void stall_log_alloc(struct stalls *st)
{
	st->at = calloc(STALL_LOG, sizeof(*st->at));
	st->len = calloc(STALL_LOG, sizeof(*st->len));
	if (!st->at || !st->len)
		die("out of memory");
}

struct stall_ev {
	long long at, len;
};

static int cmp_ev(const void *a, const void *b)
{
	const struct stall_ev *x = a, *y = b;

	return (x->at > y->at) - (x->at < y->at);
}

/*
 * The largest sum of stalls seen by the tasks of t's cgroup (t included)
 * that ended within any win_ns of each other: what the host took from the
 * group's budget in one period at worst.  A group's tasks share its
 * budget, so one stall each in two of them adds up.  If a log filled up,
 * the sum of all their stalls is returned (an upper bound).
 */
static long long group_win_stall(const struct task *t, long long win_ns)
{
	struct stall_ev *ev;
	long long sum = 0, best = 0, all = 0;
	int n = 0, lo = 0, full = 0;

	for (int i = 0; i < ntasks; i++)
		if (!strcmp(tasks[i].cg, t->cg))
			n += tasks[i].st.nlog;
	ev = calloc(n ? n : 1, sizeof(*ev));
	if (!ev)
		die("out of memory");
	n = 0;
	for (int i = 0; i < ntasks; i++) {
		const struct stalls *st = &tasks[i].st;

		if (strcmp(tasks[i].cg, t->cg))
			continue;
		all += st->ns;
		full |= st->n > st->nlog;
		for (int k = 0; k < st->nlog; k++)
			ev[n++] = (struct stall_ev){ st->at[k], st->len[k] };
	}
	qsort(ev, n, sizeof(*ev), cmp_ev);
	for (int hi = 0; hi < n; hi++) {
		sum += ev[hi].len;
		while (ev[hi].at - ev[lo].at >= win_ns)
			sum -= ev[lo++].len;
		if (sum > best)
			best = sum;
	}
	free(ev);
	return full ? all : best;
}

/* Spin until this thread has used ns of CPU time; count the stalls seen. */
static void spin_cpu(long long ns, struct stalls *st)
{
	long long prev = thread_cpu_ns(), end = prev + ns, c;
	volatile unsigned int x = 0;

	while ((c = thread_cpu_ns()) < end) {
		stall_add(st, c - prev);
		prev = c;
		for (int i = 0; i < 100; i++)
			x++;
	}
	stall_add(st, c - prev);
}

/* --- parsing -------------------------------------------------------------- */

static long long parse_ll(const char *s, const char *what, int n, long long min, long long max)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		die_usage("task %d: %s '%s' is not a number in %lld..%lld", n, what, s, min, max);
	return v;
}

static int parse_policy(const char *s)
{
	if (!strcmp(s, "fifo"))
		return SCHED_FIFO;
	if (!strcmp(s, "rr"))
		return SCHED_RR;
	if (!strcmp(s, "other"))
		return SCHED_OTHER;
	return -1;
}

static const char *policy_name(int p)
{
	return p == SCHED_FIFO ? "fifo" : p == SCHED_RR ? "rr" : "other";
}

static void parse_kind(struct task *t, const char *s, int n)
{
	char buf[128], *p, *q;

	if (!strcmp(s, "hog")) {
		t->kind = K_HOG;
		return;
	}
	if (strlen(s) >= sizeof(buf))
		die_usage("task %d: kind '%s' too long", n, s);
	strcpy(buf, s);
	p = strchr(buf, ':');
	if (p)
		*p++ = '\0';
	if (!strcmp(buf, "periodic") && p) {
		q = strchr(p, ':');
		if (!q)
			die_usage("task %d: kind periodic:PERIOD_US:WORK_US, got '%s'", n, s);
		*q++ = '\0';
		t->kind = K_PERIODIC;
		t->period_ns = parse_ll(p, "period", n, 100, 10000000) * 1000;
		t->work_ns = parse_ll(q, "work", n, 1, 10000000) * 1000;
		if (t->work_ns >= t->period_ns)
			die_usage("task %d: work %s us must be shorter than the period %s us", n, q, p);
		stall_log_alloc(&t->st);
		return;
	}
	if (!strcmp(buf, "burst") && p) {
		t->kind = K_BURST;
		t->work_ns = parse_ll(p, "work", n, 1, 100000000) * 1000;
		stall_log_alloc(&t->st);
		return;
	}
	if (!strcmp(buf, "runs") && p) {
		char *y = NULL;

		t->kind = K_RUNS;
		q = strchr(p, ':');
		if (q) {
			*q++ = '\0';
			y = strchr(q, ':');
			if (y)
				*y++ = '\0';
		}
		t->gap_ns = parse_ll(p, "gap", n, 100, 10000000) * 1000;
		t->nap_ns = q ? parse_ll(q, "nap", n, y ? 0 : 1, 10000000) * 1000 : 0;
		t->yield_ns = y ? parse_ll(y, "yield", n, 10, 10000000) * 1000 : 0;
		t->runs = calloc(MAX_RUNS, sizeof(*t->runs));
		if (!t->runs)
			die("out of memory");
		return;
	}
	die_usage("task %d: unknown kind '%s' (hog, periodic:PERIOD_US:WORK_US, burst:WORK_US, runs:GAP_US[:NAP_US[:YIELD_US]])",
		  n, s);
}

static void parse_task(const char *spec)
{
	struct task *t;
	char *s, *tok, *save = NULL;
	int n = ntasks + 1;
	bool have_prio = false;

	if (ntasks == MAX_TASKS)
		die_usage("at most %d tasks", MAX_TASKS);
	t = &tasks[ntasks++];
	snprintf(t->name, sizeof(t->name), "t%d", n);
	t->policy = SCHED_OTHER;
	t->cpu = -1;
	t->kind = K_HOG;
	t->statfd = -1;
	t->done_ns = -1;
	s = strdup(spec);
	if (!s)
		die("out of memory");
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *v = strchr(tok, '=');

		if (!v)
			die_usage("task %d: '%s' is not key=value", n, tok);
		*v++ = '\0';
		if (!strcmp(tok, "name")) {
			if (!*v || strlen(v) >= sizeof(t->name) || strpbrk(v, " \t="))
				die_usage("task %d: name '%s': 1-%zu characters, no blanks or '='", n, v,
					  sizeof(t->name) - 1);
			strcpy(t->name, v);
		} else if (!strcmp(tok, "cg")) {
			if (strlen(v) >= sizeof(t->cg) - 8)
				die_usage("task %d: cgroup path too long", n);
			strcpy(t->cg, v);
		} else if (!strcmp(tok, "policy")) {
			t->policy = parse_policy(v);
			if (t->policy < 0)
				die_usage("task %d: unknown policy '%s' (fifo, rr, other)", n, v);
		} else if (!strcmp(tok, "prio")) {
			t->prio = (int)parse_ll(v, "prio", n, 0, 99);
			have_prio = true;
		} else if (!strcmp(tok, "cpu")) {
			t->cpu = strcmp(v, "none") ? (int)parse_ll(v, "cpu", n, 0, CPU_SETSIZE - 1) : -1;
		} else if (!strcmp(tok, "kind")) {
			parse_kind(t, v, n);
		} else {
			die_usage("task %d: unknown key '%s' (name, cg, policy, prio, cpu, kind)", n, tok);
		}
	}
	free(s);
	if (t->policy == SCHED_OTHER && t->prio)
		die_usage("task %d: policy other takes prio 0", n);
	if (t->policy != SCHED_OTHER && (!have_prio || t->prio < 1))
		die_usage("task %d: policy %s needs prio=1..99", n, policy_name(t->policy));
	for (int i = 0; i < ntasks - 1; i++)
		if (!strcmp(tasks[i].name, t->name))
			die_usage("task %d: name '%s' used twice", n, t->name);
}

/* --- task setup shared by both modes --------------------------------------- */

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/*
 * Pin, join the cgroup, set the policy: in that order (an RT task cannot
 * join a group with no RT runtime).  Returns 0 or fills err.
 */
static int setup_self(int cpu, const char *cg, int policy, int prio, char *err, size_t errlen)
{
	struct sched_param sp = { .sched_priority = prio };
	pid_t tid = gettid_();

	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			snprintf(err, errlen, "pin to CPU %d: %s", cpu, strerror(errno));
			return -1;
		}
	}
	if (cg && *cg) {
		char path[300], buf[32];
		int fd, len;

		snprintf(path, sizeof(path), "%s/tasks", cg);
		fd = open(path, O_WRONLY);
		if (fd < 0) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			return -1;
		}
		len = snprintf(buf, sizeof(buf), "%d\n", (int)tid);
		if (write(fd, buf, (size_t)len) != len) {
			snprintf(err, errlen, "write TID %d to %s: %s", (int)tid, path, strerror(errno));
			close(fd);
			return -1;
		}
		close(fd);
	}
	if (sched_setscheduler(0, policy, &sp)) {
		snprintf(err, errlen, "set %s %d%s%s: %s", policy_name(policy), prio,
			 cg && *cg ? " in " : "", cg && *cg ? cg : "", strerror(errno));
		return -1;
	}
	return 0;
}

static long long read_schedstat(int fd)
{
	char buf[128];
	ssize_t n;

	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtoll(buf, NULL, 10);
}

/* --- task mode -------------------------------------------------------------- */

/*
 * Spin like a hog and cut what it ran into runs.  Between two reads a few
 * microseconds apart, wall time that did not become this thread's CPU time
 * is time off the CPU; more than gap_ns of it ends a run.  A run's length
 * is CPU time, so it is what the kernel charged the task (and a group
 * server's budget), host stalls under TCG included; a budget enforced late
 * shows as runs longer than the budget.  A run ends at the first read
 * after its gap, so that it holds the kernel's work of switching the task
 * out (charged to it: with a debug kernel under TCG, hundreds of
 * microseconds) and the next run starts there; the few microseconds of
 * switching it back in fall in the run that ends.  Only runs that began
 * after the window's start and ended before the stop count.  With nap_ns
 * the task sleeps when it is back from a gap, and its next run starts at
 * the wake-up.  With yield_ns it calls sched_yield() every yield_ns of its
 * CPU time: alone at its priority on its CPU, it is picked again, which
 * goes through __schedule() without a switch.
 */
static void measure_runs(struct task *t)
{
	long long wp = now_ns(), cp = thread_cpu_ns(), rs = cp, yc = cp;
	bool in_window = false;

	while (!atomic_load_explicit(&stop_flag, memory_order_relaxed)) {
		long long w = now_ns(), c = thread_cpu_ns();

		if (t->yield_ns && c - yc >= t->yield_ns) {
			sched_yield();
			yc = c;
		}

		if ((w - wp) - (c - cp) > t->gap_ns) {
			if (in_window && t->nruns < MAX_RUNS)
				t->runs[t->nruns++] = c - rs;
			if (t->nap_ns) {
				struct timespec ts = ts_of(t->nap_ns);

				nanosleep(&ts, NULL);
				w = now_ns();
				c = thread_cpu_ns();
			}
			rs = c;
			in_window = w >= window_ns;
		}
		wp = w;
		cp = c;
	}
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* the index of percentile p (0..100) in n > 0 sorted samples (both modes) */
static size_t pct_index(size_t n, double p)
{
	return (size_t)(p / 100.0 * (double)(n - 1) + 0.5);
}

/* percentile p of the n sorted runs, in us */
static double run_pct(const struct task *t, double p)
{
	return t->nruns ? (double)t->runs[pct_index(t->nruns, p)] / 1e3 : 0;
}

static void *task_main(void *arg)
{
	struct task *t = arg;
	int bad;

	t->tid = gettid_();
	bad = setup_self(t->cpu, t->cg, t->policy, t->prio, t->err, sizeof(t->err));
	if (bad && !t->err[0])
		snprintf(t->err, sizeof(t->err), "setup failed");
	ready_then_wait_go();
	if (bad || atomic_load(&abort_flag))
		return NULL;

	switch (t->kind) {
	case K_HOG:
		while (!atomic_load_explicit(&stop_flag, memory_order_relaxed))
			;
		break;
	case K_RUNS:
		measure_runs(t);
		break;
	case K_BURST:
		spin_cpu(t->work_ns, &t->st);
		t->done_ns = now_ns() - start_ns;
		t->thread_cpu_ns = thread_cpu_ns();
		pthread_mutex_lock(&stop_lock);
		while (!atomic_load(&stop_flag))
			pthread_cond_wait(&stop_cond, &stop_lock);
		pthread_mutex_unlock(&stop_lock);
		return NULL;
	case K_PERIODIC: {
		long long next = window_ns;

		t->max_late_ns = LLONG_MIN;
		t->max_resp_ns = 0;
		while (!atomic_load(&stop_flag)) {
			long long fin, late;

			sleep_until(next);
			if (atomic_load(&stop_flag))
				break;
			fin = now_ns() - next;
			if (fin > t->max_wake_ns)
				t->max_wake_ns = fin;
			spin_cpu(t->work_ns, &t->st);
			fin = now_ns();
			late = fin - (next + t->period_ns);
			t->jobs++;
			if (late > 0)
				t->misses++;
			if (late > t->max_late_ns)
				t->max_late_ns = late;
			if (fin - next > t->max_resp_ns)
				t->max_resp_ns = fin - next;
			next += t->period_ns;
		}
		break;
	}
	}
	t->thread_cpu_ns = thread_cpu_ns();
	return NULL;
}

/* a CPU that the main thread may use and no task is pinned to, or -1 */
static int free_cpu(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (int i = 0; i < ntasks; i++)
		if (tasks[i].cpu >= 0)
			CPU_CLR(tasks[i].cpu, &set);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			return c;
	return -1;
}

static const char *kind_str(const struct task *t, char *buf, size_t len)
{
	switch (t->kind) {
	case K_HOG:
		snprintf(buf, len, "hog");
		break;
	case K_PERIODIC:
		snprintf(buf, len, "periodic:%lld:%lld", t->period_ns / 1000, t->work_ns / 1000);
		break;
	case K_BURST:
		snprintf(buf, len, "burst:%lld", t->work_ns / 1000);
		break;
	case K_RUNS:
		if (t->yield_ns)
			snprintf(buf, len, "runs:%lld:%lld:%lld", t->gap_ns / 1000, t->nap_ns / 1000,
				 t->yield_ns / 1000);
		else if (t->nap_ns)
			snprintf(buf, len, "runs:%lld:%lld", t->gap_ns / 1000, t->nap_ns / 1000);
		else
			snprintf(buf, len, "runs:%lld", t->gap_ns / 1000);
		break;
	}
	return buf;
}

static int write_json(const char *file, cJSON *root)
{
	char *s = cJSON_Print(root);
	FILE *f;
	int ret = 0;

	if (!s)
		return -1;
	f = fopen(file, "w");
	if (!f || fprintf(f, "%s\n", s) < 0)
		ret = -1;
	if (f && fclose(f))
		ret = -1;
	if (ret)
		fprintf(stderr, "%s: %s: %s\n", prog, file, strerror(errno));
	free(s);
	return ret;
}

static int run_tasks(double duration, int warmup_ms, int main_cpu, const char *json)
{
	long long t0a, t0b, t1a, t1b, t0, t1, dur;
	char path[64], kb[64];
	int failed = 0, started = 0;
	cJSON *root = NULL, *arr = NULL;

	for (int i = 0; i < ntasks; i++) {
		int e = pthread_create(&tasks[i].thread, NULL, task_main, &tasks[i]);

		if (e) {
			/* the threads already started wait for go: cannot
			 * undo them cleanly, so leave */
			die("task %s: pthread_create: %s", tasks[i].name, strerror(e));
		}
		started++;
	}
	/* pinned after the threads were made: they inherit its affinity, and
	 * a task that is not pinned must keep the whole mask */
	if (main_cpu == -2)
		main_cpu = free_cpu();
	if (main_cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(main_cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			die("pin the main thread to CPU %d: %s", main_cpu, strerror(errno));
	}
	wait_ready(ntasks);
	for (int i = 0; i < ntasks; i++) {
		struct task *t = &tasks[i];

		if (t->err[0]) {
			fprintf(stderr, "%s: task %s: %s\n", prog, t->name, t->err);
			failed = 1;
			continue;
		}
		snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", (int)t->tid);
		t->statfd = open(path, O_RDONLY);
		if (t->statfd < 0) {
			fprintf(stderr, "%s: task %s: %s: %s\n", prog, t->name, path, strerror(errno));
			failed = 1;
		}
	}
	if (failed)
		atomic_store(&abort_flag, true);
	start_ns = now_ns();
	window_ns = start_ns + (long long)warmup_ms * 1000000LL;
	start_all();
	if (failed) {
		for (int i = 0; i < started; i++)
			pthread_join(tasks[i].thread, NULL);
		return 1;
	}

	sleep_until(window_ns);
	t0a = now_ns();
	for (int i = 0; i < ntasks; i++)
		tasks[i].cpu0 = read_schedstat(tasks[i].statfd);
	t0b = now_ns();
	sleep_until(window_ns + (long long)(duration * 1e9));
	t1a = now_ns();
	for (int i = 0; i < ntasks; i++)
		tasks[i].cpu1 = read_schedstat(tasks[i].statfd);
	t1b = now_ns();
	pthread_mutex_lock(&stop_lock);
	atomic_store(&stop_flag, true);
	pthread_cond_broadcast(&stop_cond);
	pthread_mutex_unlock(&stop_lock);
	for (int i = 0; i < ntasks; i++)
		pthread_join(tasks[i].thread, NULL);

	t0 = (t0a + t0b) / 2;
	t1 = (t1a + t1b) / 2;
	dur = t1 - t0;
	printf("run duration_ns=%lld tasks=%d main_cpu=%d read_us=%lld\n", dur, ntasks, main_cpu,
	       (t1b - t1a) / 1000);
	if (json) {
		root = cJSON_CreateObject();
		cJSON_AddNumberToObject(root, "duration_ns", (double)dur);
		cJSON_AddNumberToObject(root, "main_cpu", main_cpu);
		arr = cJSON_AddArrayToObject(root, "tasks");
	}
	for (int i = 0; i < ntasks; i++) {
		struct task *t = &tasks[i];
		long long cpu = t->cpu1 - t->cpu0;
		double share = dur > 0 ? 100.0 * (double)cpu / (double)dur : 0;

		if (t->cpu0 < 0 || t->cpu1 < 0) {
			fprintf(stderr, "%s: task %s: could not read its schedstat\n", prog, t->name);
			failed = 1;
		}
		printf("task name=%s tid=%d policy=%s prio=%d cpu=%d kind=%s cg=%s cpu_ns=%lld share=%.2f",
		       t->name, (int)t->tid, policy_name(t->policy), t->prio, t->cpu,
		       kind_str(t, kb, sizeof(kb)), t->cg[0] ? t->cg : "-", cpu, share);
		if (t->kind == K_PERIODIC)
			printf(" jobs=%lld misses=%lld max_late_us=%.1f max_resp_us=%.1f max_wake_us=%.1f", t->jobs,
			       t->misses, t->jobs ? (double)t->max_late_ns / 1e3 : 0.0,
			       (double)t->max_resp_ns / 1e3, (double)t->max_wake_ns / 1e3);
		if (t->kind == K_BURST)
			printf(" done_ms=%.3f", t->done_ns >= 0 ? (double)t->done_ns / 1e6 : -1.0);
		if (t->kind == K_BURST || t->kind == K_PERIODIC)
			printf(" stalls=%lld stall_ms=%.3f max_stall_ms=%.3f win_stall_ms=%.3f", t->st.n,
			       (double)t->st.ns / 1e6, (double)t->st.max_ns / 1e6,
			       (double)group_win_stall(t, stall_win_ns) / 1e6);
		if (t->kind == K_RUNS) {
			qsort(t->runs, t->nruns, sizeof(*t->runs), cmp_ll);
			printf(" runs=%d run_min_us=%.1f run_med_us=%.1f run_p90_us=%.1f run_max_us=%.1f",
			       t->nruns, run_pct(t, 0), run_pct(t, 50), run_pct(t, 90), run_pct(t, 100));
		}
		printf(" thread_cpu_ms=%.3f\n", (double)t->thread_cpu_ns / 1e6);
		if (root) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "name", t->name);
			cJSON_AddNumberToObject(o, "tid", t->tid);
			cJSON_AddStringToObject(o, "policy", policy_name(t->policy));
			cJSON_AddNumberToObject(o, "prio", t->prio);
			cJSON_AddNumberToObject(o, "cpu", t->cpu);
			cJSON_AddStringToObject(o, "kind", kb);
			cJSON_AddStringToObject(o, "cgroup", t->cg);
			cJSON_AddNumberToObject(o, "cpu_ns", (double)cpu);
			cJSON_AddNumberToObject(o, "share_pct", share);
			if (t->kind == K_PERIODIC) {
				cJSON_AddNumberToObject(o, "jobs", (double)t->jobs);
				cJSON_AddNumberToObject(o, "misses", (double)t->misses);
				cJSON_AddNumberToObject(o, "max_late_us",
							t->jobs ? (double)t->max_late_ns / 1e3 : 0);
				cJSON_AddNumberToObject(o, "max_resp_us", (double)t->max_resp_ns / 1e3);
				cJSON_AddNumberToObject(o, "max_wake_us", (double)t->max_wake_ns / 1e3);
			}
			if (t->kind == K_BURST)
				cJSON_AddNumberToObject(o, "done_ms", t->done_ns >= 0 ? (double)t->done_ns / 1e6 : -1);
			if (t->kind == K_RUNS) {
				cJSON *r = cJSON_AddArrayToObject(o, "runs_us");

				for (int k = 0; k < t->nruns; k++)
					cJSON_AddItemToArray(r, cJSON_CreateNumber((double)t->runs[k] / 1e3));
			}
			if (t->kind == K_BURST || t->kind == K_PERIODIC) {
				cJSON_AddNumberToObject(o, "stalls", (double)t->st.n);
				cJSON_AddNumberToObject(o, "stall_ms", (double)t->st.ns / 1e6);
				cJSON_AddNumberToObject(o, "max_stall_ms", (double)t->st.max_ns / 1e6);
				cJSON_AddNumberToObject(o, "win_stall_ms",
							(double)group_win_stall(t, stall_win_ns) / 1e6);
			}
			cJSON_AddItemToArray(arr, o);
		}
	}
	fflush(stdout);
	if (root) {
		if (write_json(json, root))
			failed = 1;
		cJSON_Delete(root);
	}
	return failed;
}

/* --- ping-pong mode --------------------------------------------------------- */

struct pp_side {
	int rfd, wfd, cpu;
	pthread_t thread;
	char err[512];
	bool ping;
};

static struct {
	const char *cg;
	int policy, prio;
	long long end_ns, warm_ns;
	uint32_t *samples;	/* round trips, ns */
	size_t n, cap;
	long long counted_ns;	/* time spanned by the counted round trips */
} pp;

static void *pp_main(void *arg)
{
	struct pp_side *s = arg;
	bool bad;
	char c = 'x';

	bad = setup_self(s->cpu, pp.cg, pp.policy, pp.prio, s->err, sizeof(s->err)) != 0;
	ready_then_wait_go();
	if (bad || atomic_load(&abort_flag)) {
		close(s->wfd);
		return NULL;
	}
	if (!s->ping) {
		while (read(s->rfd, &c, 1) == 1)
			if (write(s->wfd, &c, 1) != 1)
				break;
		close(s->wfd);
		return NULL;
	}
	long long first = 0, t = now_ns();

	for (;;) {
		long long a = t, b;

		if (write(s->wfd, &c, 1) != 1 || read(s->rfd, &c, 1) != 1) {
			snprintf(s->err, sizeof(s->err), "pipe: %s", strerror(errno));
			break;
		}
		b = now_ns();
		t = b;
		if (b >= pp.end_ns)
			break;
		if (a < pp.warm_ns)
			continue;
		if (!first)
			first = a;
		if (pp.n == pp.cap)
			break;
		pp.samples[pp.n++] = (uint32_t)((b - a) > UINT32_MAX ? UINT32_MAX : (b - a));
		pp.counted_ns = b - first;
	}
	close(s->wfd);
	return NULL;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static double pct(double p)
{
	return pp.n ? pp.samples[pct_index(pp.n, p)] / 1e3 : 0;
}

static int run_pingpong(double duration, int warmup_ms, int cpu_a, int cpu_b, const char *json)
{
	int p1[2], p2[2], failed = 0;
	struct pp_side ping = { .ping = true, .cpu = cpu_a }, pong = { .cpu = cpu_b };
	double rate;

	pp.cap = (size_t)(duration * 2e6) + 1000;	/* 2M round trips/s is far beyond reach */
	if (pp.cap > 50000000)
		pp.cap = 50000000;
	pp.samples = malloc(pp.cap * sizeof(*pp.samples));
	if (!pp.samples)
		die("out of memory for %zu samples", pp.cap);
	if (pipe(p1) || pipe(p2))
		die("pipe: %s", strerror(errno));
	ping.wfd = p1[1];
	pong.rfd = p1[0];
	pong.wfd = p2[1];
	ping.rfd = p2[0];
	if (pthread_create(&pong.thread, NULL, pp_main, &pong) ||
	    pthread_create(&ping.thread, NULL, pp_main, &ping))
		die("pthread_create failed");
	wait_ready(2);
	if (ping.err[0] || pong.err[0]) {
		if (ping.err[0])
			fprintf(stderr, "%s: ping: %s\n", prog, ping.err);
		if (pong.err[0])
			fprintf(stderr, "%s: pong: %s\n", prog, pong.err);
		atomic_store(&abort_flag, true);
		failed = 1;
	}
	pp.warm_ns = now_ns() + (long long)warmup_ms * 1000000LL;
	pp.end_ns = pp.warm_ns + (long long)(duration * 1e9);
	start_all();
	pthread_join(ping.thread, NULL);
	pthread_join(pong.thread, NULL);
	if (failed)
		return 1;
	if (ping.err[0]) {
		fprintf(stderr, "%s: ping: %s\n", prog, ping.err);
		return 1;
	}
	if (!pp.n) {
		fprintf(stderr, "%s: no round trip completed in the window\n", prog);
		return 1;
	}
	qsort(pp.samples, pp.n, sizeof(*pp.samples), cmp_u32);
	rate = pp.counted_ns > 0 ? (double)pp.n * 1e9 / (double)pp.counted_ns : 0;
	printf("pingpong rounds=%zu duration_ns=%lld rate=%.1f min_us=%.2f median_us=%.2f p99_us=%.2f max_us=%.2f"
	       " policy=%s prio=%d cpus=%d,%d cg=%s\n",
	       pp.n, pp.counted_ns, rate, pct(0), pct(50), pct(99), pct(100), policy_name(pp.policy), pp.prio,
	       cpu_a, cpu_b, pp.cg && *pp.cg ? pp.cg : "-");
	fflush(stdout);
	if (json) {
		cJSON *root = cJSON_CreateObject();

		cJSON_AddNumberToObject(root, "rounds", (double)pp.n);
		cJSON_AddNumberToObject(root, "duration_ns", (double)pp.counted_ns);
		cJSON_AddNumberToObject(root, "rate", rate);
		cJSON_AddNumberToObject(root, "min_us", pct(0));
		cJSON_AddNumberToObject(root, "median_us", pct(50));
		cJSON_AddNumberToObject(root, "p99_us", pct(99));
		cJSON_AddNumberToObject(root, "max_us", pct(100));
		cJSON_AddStringToObject(root, "policy", policy_name(pp.policy));
		cJSON_AddNumberToObject(root, "prio", pp.prio);
		cJSON_AddStringToObject(root, "cgroup", pp.cg ? pp.cg : "");
		failed = write_json(json, root) ? 1 : 0;
		cJSON_Delete(root);
	}
	free(pp.samples);
	return failed;
}

/* --- main -------------------------------------------------------------------- */

static int parse_cpu_opt(const char *s, const char *opt)
{
	int v;

	if (!strcmp(s, "none"))
		return -1;
	if (!opt_int(s, 0, CPU_SETSIZE - 1, &v))
		die_usage("%s: '%s' is not a CPU number or none", opt, s);
	return v;
}

int main(int argc, char **argv)
{
	enum { O_MAIN_CPU = 256, O_PINGPONG, O_CG, O_POLICY, O_PRIO, O_CPUS, O_STALL_WIN };
	static const struct option opts[] = {
		{ "task", required_argument, NULL, 't' },
		{ "duration", required_argument, NULL, 'd' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "json", required_argument, NULL, 'j' },
		{ "mlock", no_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ "main-cpu", required_argument, NULL, O_MAIN_CPU },
		{ "pingpong", no_argument, NULL, O_PINGPONG },
		{ "cg", required_argument, NULL, O_CG },
		{ "policy", required_argument, NULL, O_POLICY },
		{ "prio", required_argument, NULL, O_PRIO },
		{ "cpus", required_argument, NULL, O_CPUS },
		{ "stall-window", required_argument, NULL, O_STALL_WIN },
		{ NULL, 0, NULL, 0 }
	};
	double duration = 5;
	int warmup_ms = 200, main_cpu = -2, opt, cpu_a = -1, cpu_b = -1;
	bool pingpong = false, mlock = false, pp_opts = false;
	const char *json = NULL;
	char *end;

	pp.policy = SCHED_FIFO;
	pp.prio = 50;
	while ((opt = getopt_long(argc, argv, "t:d:w:j:mh", opts, NULL)) != -1) {
		switch (opt) {
		case 't':
			parse_task(optarg);
			break;
		case 'd':
			duration = strtod(optarg, &end);
			if (end == optarg || *end || !(duration > 0 && duration <= 86400))
				die_usage("--duration: '%s' is not a number of seconds in (0, 86400]", optarg);
			break;
		case 'w':
			if (!opt_int(optarg, 0, 60000, &warmup_ms))
				die_usage("--warmup: '%s' is not a number of ms in 0..60000", optarg);
			break;
		case 'j':
			json = optarg;
			break;
		case 'm':
			mlock = true;
			break;
		case 'h':
			opt_usage_exit(usage, 0);
		case O_MAIN_CPU:
			main_cpu = parse_cpu_opt(optarg, "--main-cpu");
			break;
		case O_STALL_WIN: {
			int ms;

			if (!opt_int(optarg, 1, 60000, &ms))
				die_usage("--stall-window: '%s' is not a number of ms in 1..60000", optarg);
			stall_win_ns = ms * 1000000LL;
			break;
		}
		case O_PINGPONG:
			pingpong = true;
			break;
		case O_CG:
			pp.cg = optarg;
			pp_opts = true;
			break;
		case O_POLICY:
			pp.policy = parse_policy(optarg);
			if (pp.policy < 0)
				die_usage("--policy: unknown policy '%s' (fifo, rr, other)", optarg);
			pp_opts = true;
			break;
		case O_PRIO:
			if (!opt_int(optarg, 0, 99, &pp.prio))
				die_usage("--prio: '%s' is not a priority 0..99", optarg);
			pp_opts = true;
			break;
		case O_CPUS: {
			char *comma = strchr(optarg, ',');

			if (comma) {
				*comma = '\0';
				cpu_b = parse_cpu_opt(comma + 1, "--cpus");
			}
			cpu_a = parse_cpu_opt(optarg, "--cpus");
			if (!comma)
				cpu_b = cpu_a;
			pp_opts = true;
			break;
		}
		default:
			opt_usage_exit(usage, 2);
		}
	}
	if (optind < argc)
		die_usage("unexpected argument '%s'", argv[optind]);
	if (mlock && mlockall(MCL_CURRENT | MCL_FUTURE))
		die("mlockall: %s", strerror(errno));
	if (pingpong) {
		if (ntasks)
			die_usage("--pingpong takes no -t tasks");
		if (pp.policy == SCHED_OTHER)
			pp.prio = 0;
		else if (pp.prio < 1)
			die_usage("--prio: policy %s needs 1..99", policy_name(pp.policy));
		return run_pingpong(duration, warmup_ms, cpu_a, cpu_b, json);
	}
	if (pp_opts)
		die_usage("--cg, --policy, --prio and --cpus belong to --pingpong");
	if (!ntasks)
		die_usage("no task given (-t)");
	return run_tasks(duration, warmup_ms, main_cpu, json);
}
