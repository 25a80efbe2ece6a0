// SPDX-License-Identifier: GPL-2.0
/*
 * dlgrub: the CPU share SCHED_DEADLINE hogs get, with and without GRUB
 * bandwidth reclaiming (SCHED_FLAG_RECLAIM), against the share 6.12's
 * grub_reclaim() gives them (tests/guest/93-dl-grub.sh).
 *
 * Every task is a thread of this process that makes itself SCHED_DEADLINE
 * (implicit deadline) and spins.  A SCHED_OTHER hog is pinned to every
 * online CPU so that each CPU's fair server is always active: its
 * bandwidth then counts as running, not inactive, in GRUB's terms, and
 * the expected share does not depend on whether a kernel thread happened
 * to run (without the hogs it swings by the fair server's 5%).
 *
 * The expected share, from kernel/sched/deadline.c of 6.12 (grub_reclaim(),
 * __dl_add(), init_dl_rq_bw_ratio()): a reclaiming task of bandwidth u has
 * its runtime depleted at rate u_act / Umax, with
 *   Umax   = sched_rt_runtime_us / sched_rt_period_us      (max_bw, bw_ratio)
 *   extra  = Umax - others - S / n  (rq->dl.extra_bw: every admission takes
 *            its bandwidth / n from every CPU of the root domain; S is the
 *            sum of this program's bandwidths, n the CPUs, others the
 *            per-CPU part of any other reservation still counted there)
 *   Uinact = this_bw - running_bw = 0 on every CPU (all hogs, fair servers
 *            active)
 *   u_act  = max(u, Umax - Uinact - extra)
 * so it runs u * Umax / u_act of the wall time (at most all of it); a
 * task without the flag gets u.  The CPU time is each thread's
 * CLOCK_THREAD_CPUTIME_ID over CLOCK_MONOTONIC, in windows that hold whole
 * periods; the verdict is on the median of the windows, so that a single
 * window spoilt by the host descheduling a vCPU under TCG (the guest
 * charges that time to whatever ran) does not decide it.
 */
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rtlab/die.h>
#include <rtlab/dl.h>
#include <rtlab/tap.h>
#include <rtlab/time.h>

#define MAX_TASKS	8
#define MAX_WINDOWS	9
#define MAX_CPUS	64
#define NAME_LEN	16
#define DEF_WINDOW_S	3.0
#define DEF_WINDOWS	3
#define DEF_WARMUP_S	1.0
#define DEF_TOL		1.0	/* percentage points, the requirement */
#define MAIN_PRIO	50	/* the measuring thread: wakes on time beside the hogs */

struct task {
	char name[NAME_LEN];
	uint64_t runtime_us, period_us;
	int reclaim;
	pthread_t thr;
	clockid_t clk;
	double share[MAX_WINDOWS];
	double expected;
};

static struct task tasks[MAX_TASKS];
static unsigned int ntasks;
static atomic_int stop, ready, failed;
static int no_flag;	/* -N: the negative control */

static const char usage[] =
	"usage: dlgrub [-w SECS] [-n WINDOWS] [-W SECS] [-o PCT] [-t PTS] TASK...\n"
	"  TASK     name=NAME,runtime=US,period=US[,reclaim]: a SCHED_DEADLINE hog\n"
	"           (implicit deadline), with SCHED_FLAG_RECLAIM if 'reclaim'\n"
	"  -w SECS  length of one measuring window (default 3; a multiple of the periods)\n"
	"  -n N     windows; the verdict is on their median (default 3, at most 9)\n"
	"  -W SECS  warm-up before the first window (default 1)\n"
	"  -o PCT   per-CPU bandwidth, in percent, of other reservations that the\n"
	"           kernel still counts in rq->dl.extra_bw (default 0)\n"
	"  -t PTS   tolerance in percentage points (default 1)\n"
	"  -N       negative control: expect reclaiming for 'reclaim' tasks but do not\n"
	"           set SCHED_FLAG_RECLAIM (the check must then fail)\n"
	"A SCHED_OTHER hog is pinned to every online CPU.  Prints TAP: one point per\n"
	"task, measured share (median of the windows) vs the 6.12 formula.\n"
	"Exit 0 all within tolerance, 1 a task outside, 2 usage or setup error.\n";

/* parse_task: "name=R,runtime=10000,period=100000[,reclaim]" */
static void parse_task(char *spec)
{
	struct task *t;
	char *tok, *save = NULL, orig[256];

	snprintf(orig, sizeof(orig), "%s", spec);	/* strtok_r cuts spec up */
	if (ntasks == MAX_TASKS)
		die_usage("at most %d tasks", MAX_TASKS);
	t = &tasks[ntasks++];
	for (tok = strtok_r(spec, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end = "";

		if (!strncmp(tok, "name=", 5) && strlen(tok + 5) > 0 && strlen(tok + 5) < NAME_LEN)
			strcpy(t->name, tok + 5);
		else if (!strncmp(tok, "runtime=", 8))
			t->runtime_us = strtoull(tok + 8, &end, 10);
		else if (!strncmp(tok, "period=", 7))
			t->period_us = strtoull(tok + 7, &end, 10);
		else if (!strcmp(tok, "reclaim"))
			t->reclaim = 1;
		else
			end = "?";	/* unknown field */
		if (*end)
			die_usage("bad task field '%s' in '%s'", tok, orig);
	}
	if (!t->name[0] || !t->runtime_us || t->period_us < t->runtime_us)
		die_usage("task needs name=, runtime= and period= >= runtime");
}

static double read_num(const char *path)
{
	FILE *f = fopen(path, "r");
	double v;

	if (!f || fscanf(f, "%lf", &v) != 1)
		die("%s: cannot read a number", path);
	fclose(f);
	return v;
}

static void *dl_thread(void *arg)
{
	struct task *t = arg;
	int err = rtlab_set_deadline(0, t->runtime_us * 1000, t->period_us * 1000,
				     t->reclaim && !no_flag ? SCHED_FLAG_RECLAIM : 0);

	if (err) {
		fprintf(stderr, "dlgrub: %s: sched_setattr(SCHED_DEADLINE %lu/%lu us): %s\n",
			t->name, (unsigned long)t->runtime_us, (unsigned long)t->period_us, strerror(err));
		atomic_store(&failed, 1);
	}
	atomic_fetch_add(&ready, 1);
	while (!err && !atomic_load_explicit(&stop, memory_order_relaxed))
		;
	return NULL;
}

static void *hog_thread(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		;
	return NULL;
}

/* start_hogs: one SCHED_OTHER spinner pinned to each online CPU */
static int start_hogs(pthread_t *hogs)
{
	int n = 0;

	for (int cpu = 0; cpu < MAX_CPUS && cpu < sysconf(_SC_NPROCESSORS_CONF); cpu++) {
		pthread_attr_t a;
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		pthread_attr_init(&a);
		pthread_attr_setaffinity_np(&a, sizeof(set), &set);
		if (pthread_create(&hogs[n], &a, hog_thread, NULL) == 0)
			n++;	/* offline CPUs refuse the affinity: skipped */
		pthread_attr_destroy(&a);
	}
	return n;
}

/* expect: each task's share (%) by 6.12's GRUB formula, see the top */
static void expect(double umax, double others, int ncpu)
{
	double sum = 0, extra;

	for (unsigned int i = 0; i < ntasks; i++)
		sum += (double)tasks[i].runtime_us / tasks[i].period_us;
	extra = umax - others - sum / ncpu;
	diag("formula: Umax %.4f, n %d, tasks' bandwidth %.4f, other reservations %.4f per CPU, "
	     "extra_bw %.4f, Uinact 0", umax, ncpu, sum, others, extra);
	for (unsigned int i = 0; i < ntasks; i++) {
		struct task *t = &tasks[i];
		double u = (double)t->runtime_us / t->period_us, u_act;

		if (!t->reclaim) {
			t->expected = 100 * u;
			continue;
		}
		u_act = umax - extra > u ? umax - extra : u;
		t->expected = 100 * fmin(1.0, u * umax / u_act);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double thread_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts))
		;
}

static void measure(int nwin, double win_s)
{
	double c0[MAX_TASKS];

	for (int w = 0; w < nwin; w++) {
		int64_t t0 = now_ns(), t1;

		for (unsigned int i = 0; i < ntasks; i++)
			c0[i] = thread_ns(tasks[i].clk);
		sleep_s(win_s);
		t1 = now_ns();
		for (unsigned int i = 0; i < ntasks; i++)
			tasks[i].share[w] = 100 * (thread_ns(tasks[i].clk) - c0[i]) / (double)(t1 - t0);
	}
}

static int report(int nwin, double tol)
{
	for (unsigned int i = 0; i < ntasks; i++) {
		struct task *t = &tasks[i];
		double sorted[MAX_WINDOWS], med;
		char all[MAX_WINDOWS * 8] = "";

		for (int w = 0; w < nwin; w++) {
			sorted[w] = t->share[w];
			snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%.2f", w ? " " : "", t->share[w]);
		}
		qsort(sorted, nwin, sizeof(double), cmp_double);
		med = sorted[nwin / 2];
		tap_result(fabs(med - t->expected) <= tol,
			   "%s %lu/%lu us%s: %.2f%% of a CPU (median; windows %s), expected %.2f%% +-%.1f",
			   t->name, (unsigned long)t->runtime_us, (unsigned long)t->period_us,
			   t->reclaim ? " RECLAIM" : "", med, all, t->expected, tol);
	}
	return tap_exit();
}

int main(int argc, char **argv)
{
	double win_s = DEF_WINDOW_S, warm_s = DEF_WARMUP_S, others = 0, tol = DEF_TOL;
	int nwin = DEF_WINDOWS, nhogs, opt;
	pthread_t hogs[MAX_CPUS];
	struct sched_param sp = { .sched_priority = MAIN_PRIO };
	static const struct option lo[] = { { "help", no_argument, NULL, 'h' }, { 0 } };

	while ((opt = getopt_long(argc, argv, "w:n:W:o:t:Nh", lo, NULL)) != -1) {
		switch (opt) {
		case 'w': win_s = atof(optarg); break;
		case 'n': nwin = atoi(optarg); break;
		case 'W': warm_s = atof(optarg); break;
		case 'o': others = atof(optarg) / 100; break;
		case 't': tol = atof(optarg); break;
		case 'N': no_flag = 1; break;
		case 'h': fputs(usage, stdout); return 0;
		default: die_usage("unknown option");
		}
	}
	if (win_s <= 0 || warm_s < 0 || nwin < 1 || nwin > MAX_WINDOWS || tol <= 0 || others < 0)
		die_usage("bad -w, -W, -n, -t or -o value");
	for (; optind < argc; optind++)
		parse_task(argv[optind]);
	if (!ntasks)
		die_usage("no task");

	tap_header(ntasks);
	expect(read_num("/proc/sys/kernel/sched_rt_runtime_us") / read_num("/proc/sys/kernel/sched_rt_period_us"),
	       others, (int)sysconf(_SC_NPROCESSORS_ONLN));
	nhogs = start_hogs(hogs);
	for (unsigned int i = 0; i < ntasks; i++)
		if (pthread_create(&tasks[i].thr, NULL, dl_thread, &tasks[i]))
			die("pthread_create failed");
	while (atomic_load(&ready) < (int)ntasks)
		usleep(1000);
	if (atomic_load(&failed)) {
		atomic_store(&stop, 1);
		die("a task could not become SCHED_DEADLINE");
	}
	for (unsigned int i = 0; i < ntasks; i++)
		if (pthread_getcpuclockid(tasks[i].thr, &tasks[i].clk))
			die("pthread_getcpuclockid failed");
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp))
		die("SCHED_FIFO %d for the measuring thread refused", MAIN_PRIO);
	diag("%u tasks, %d SCHED_OTHER hogs, warm-up %.1f s, %d windows of %.1f s (TCG: guest time)",
	     ntasks, nhogs, warm_s, nwin, win_s);
	sleep_s(warm_s);
	measure(nwin, win_s);
	atomic_store(&stop, 1);
	for (unsigned int i = 0; i < ntasks; i++)
		pthread_join(tasks[i].thr, NULL);
	for (int i = 0; i < nhogs; i++)
		pthread_join(hogs[i], NULL);
	return report(nwin, tol);
}
