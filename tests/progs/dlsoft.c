// SPDX-License-Identifier: GPL-2.0
/*
 * dlsoft: a soft real-time periodic workload under SCHED_DEADLINE, whose
 * jobs sometimes need more than the budget, run one of three ways
 * (bench/guest/dl-demote.sh runs all three in one boot):
 *   throttle  no flag: a job that exhausts the runtime waits, throttled,
 *             for the next replenishment
 *   reclaim   SCHED_FLAG_RECLAIM (GRUB): the task reclaims bandwidth the
 *             other reservations leave unused (on an otherwise idle CPU up
 *             to sched_rt_runtime_us / sched_rt_period_us)
 *   demote    SCHED_FLAG_DL_DEMOTION: a task that exhausts its runtime runs
 *             on as SCHED_OTHER at sched_attr.sched_nice (-n) until its
 *             next replenishment, then as SCHED_DEADLINE with a full budget
 *
 * The job thread makes itself SCHED_DEADLINE, runtime -r / period -p
 * (implicit deadline), with the mode's flag, and releases job k at the
 * absolute time start + k * period (clock_nanosleep(TIMER_ABSTIME) on
 * CLOCK_MONOTONIC).  A job is CPU time of the job thread
 * (CLOCK_THREAD_CPUTIME_ID): -e, or -E for an overrun job, which a
 * job is with probability -P, drawn from a PRNG seeded with -s before the
 * run (the same seed gives every mode the same sequence of jobs).  A job
 * not finished at the next release delays that job: it starts as soon as
 * the one before finishes ("late").  Job k's figures are measured from its
 * release, the periodic release time (what the job's arrival was, however
 * late it could start):
 *   completion = finish - release      miss = finish > release + deadline
 *
 * -H SCHED_OTHER neighbour hogs (nice 0) spin beside it for the whole run.
 * They share the job thread's CPU only when the process's affinity is one
 * CPU: the benchmark runs dlsoft in a one-CPU cpuset partition (a deadline
 * task's affinity must span its root domain, so the job thread cannot be
 * pinned on a larger one); dlsoft reports its affinity's size (cpus=) and
 * warns when it is larger.  Over the window from the first release to the
 * last finish, each thread's CLOCK_THREAD_CPUTIME_ID over the wall time:
 *   nb_share   the neighbours' CPU time, summed, in % of one CPU
 *   job_share  the job thread's, in % of one CPU
 * and, for comparison, the demoted task's fair share while demoted: what
 * the reservation leaves of the CPU, (1 - runtime / period), split by CFS
 * weight between it (nice -n) and the neighbours (nice 0):
 *   fair_share = 100 (1 - Q / P) w(n) / (w(n) + H w(0))   (45.00 by default)
 * and demand, the mean CPU time of the planned jobs per period, in % of
 * one CPU (8.20 by default: under the 10% reserved, so that a throttled
 * task catches up between overruns and its completion times show the
 * overruns, not an ever longer queue of late jobs).
 *
 * Output: one line of key=value words on stdout (no zero-padded numbers:
 * busybox awk reads 010 as octal), all times in us:
 *   dlsoft mode=M seed=S jobs=N overruns=N late=N median_us= p99_us=
 *     max_us= misses=N ovr_median_us= ovr_p99_us= ovr_max_us= ovr_misses=N
 *     nb_share= job_share= fair_share= demand= cpus=N wall_s=
 * (ovr_*: the overrun jobs only, 0 when there is none; percentiles by
 * nearest rank on (n - 1), as rtgload), with -J FILE the same as one line
 * of JSON (with the parameters), and with -o FILE one line per job,
 * "job overrun completion_us late miss" (0/1 flags).
 * Exit: 0 ran, 2 bad usage or failed setup (include/rtlab/die.h).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <rtlab/die.h>
#include <rtlab/dl.h>
#include <rtlab/json.h>
#include <rtlab/opt.h>
#include <rtlab/time.h>

/* the patch's flag (value in include/uapi/linux/sched.h there) */
#ifndef SCHED_FLAG_DL_DEMOTION
#define SCHED_FLAG_DL_DEMOTION	0x80
#endif

#define MAX_JOBS	1000000
#define MAX_HOGS	64
#define MAX_US		10000000L	/* 10 s: runtime, period, job lengths */
#define LEAD_PERIODS	2		/* from the job thread's start to the first release */
#define NICE_0_WEIGHT	1024
#define MAX_SEED	((1L << 53) - 1)	/* exact in JSON's numbers */
#define DEF_SEED	42		/* 40 overrun jobs of the default 200: p = 0.2 exactly */

enum mode { THROTTLE, RECLAIM, DEMOTE };
static const char *const mode_names[] = { "throttle", "reclaim", "demote", NULL };
static const uint64_t mode_flags[] = { 0, SCHED_FLAG_RECLAIM, SCHED_FLAG_DL_DEMOTION };

static struct {
	enum mode mode;
	long runtime_us, period_us, exec_us, ovr_exec_us;
	double ovr_prob;
	long jobs;
	int hogs, nice;
	long seed;
	const char *data, *json;
} cfg = { THROTTLE, 10000, 100000, 4000, 25000, 0.2, 200, 1, 0, DEF_SEED, NULL, NULL };

struct job {
	int64_t release, finish;	/* CLOCK_MONOTONIC, ns */
	bool overrun, late;
};

static struct job *jobs;
static pthread_t hog_thr[MAX_HOGS];
static clockid_t hog_clk[MAX_HOGS];
static atomic_int stop, hog_err;

/* the window, as the job thread measured it */
static struct {
	int64_t t0, t1;			/* first release, last finish */
	int64_t job0, job1;		/* the job thread's CPU time then */
	int64_t hog0[MAX_HOGS], hog1[MAX_HOGS];
	int err;			/* sched_setattr()'s errno */
} win;

/* kernel/sched/core.c: sched_prio_to_weight[], nice -20 .. 19 */
static const int nice_weight[40] = {
	88761, 71755, 56483, 46273, 36291,
	29154, 23254, 18705, 14949, 11916,
	9548, 7620, 6100, 4904, 3906,
	3121, 2501, 1991, 1586, 1277,
	1024, 820, 655, 526, 423,
	335, 272, 215, 172, 137,
	110, 87, 70, 56, 45,
	36, 29, 23, 18, 15,
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: dlsoft [-m MODE] [-r RUNTIME_US] [-p PERIOD_US] [-e EXEC_US] [-E EXEC_US]\n"
		"              [-P PROB] [-j JOBS] [-H HOGS] [-n NICE] [-s SEED] [-o FILE] [-J FILE]\n"
		"  -m, --mode MODE          throttle (no flag), reclaim (SCHED_FLAG_RECLAIM) or\n"
		"                           demote (SCHED_FLAG_DL_DEMOTION, 0x%x) (throttle)\n"
		"  -r, --runtime US         SCHED_DEADLINE runtime (10000)\n"
		"  -p, --period US          period = deadline (100000)\n"
		"  -e, --exec US            CPU time of a job (4000)\n"
		"  -E, --overrun-exec US    CPU time of an overrun job (25000)\n"
		"  -P, --overrun-prob P     probability of an overrun job, 0..1 (0.2)\n"
		"  -j, --jobs N             jobs, one released per period (200, at most %d)\n"
		"  -H, --hogs N             SCHED_OTHER nice 0 neighbour hogs (1, at most %d)\n"
		"  -n, --nice N             sched_attr.sched_nice: the demoted task's nice (0)\n"
		"  -s, --seed N             seed of the job sequence's PRNG, 0..2^53-1 (42)\n"
		"  -o, --data FILE          one line per job: job overrun completion_us late miss\n"
		"  -J, --json FILE          the summary as one line of JSON\n"
		"  -h, --help               this text\n"
		"Prints 'dlsoft mode=.. seed=.. jobs=.. overruns=.. late=.. median_us=.. p99_us=..\n"
		"max_us=.. misses=.. ovr_median_us=.. ovr_p99_us=.. ovr_max_us=.. ovr_misses=..\n"
		"nb_share=.. job_share=.. fair_share=.. demand=.. cpus=.. wall_s=..' (completion\n"
		"= finish - periodic release; shares in %% of one CPU).  Run it with an affinity of\n"
		"one CPU (a one-CPU cpuset partition) so that the hogs share the job's CPU.\n"
		"Exit: 0 ran, 2 bad usage or failed setup.\n",
		SCHED_FLAG_DL_DEMOTION, MAX_JOBS, MAX_HOGS);
}

static bool opt_prob(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0 && v <= 1))
		return false;
	*out = v;
	return true;
}

static void parse(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "runtime", required_argument, NULL, 'r' },
		{ "period", required_argument, NULL, 'p' },
		{ "exec", required_argument, NULL, 'e' },
		{ "overrun-exec", required_argument, NULL, 'E' },
		{ "overrun-prob", required_argument, NULL, 'P' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "hogs", required_argument, NULL, 'H' },
		{ "nice", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 's' },
		{ "data", required_argument, NULL, 'o' },
		{ "json", required_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c, m;
	bool ok;

	while ((c = getopt_long(argc, argv, "m:r:p:e:E:P:j:H:n:s:o:J:h", lo, NULL)) != -1) {
		switch (c) {
		case 'm':
			m = opt_choice(mode_names, optarg);
			ok = m >= 0;
			if (ok)
				cfg.mode = (enum mode)m;
			break;
		case 'r': ok = opt_long(optarg, 1, MAX_US, &cfg.runtime_us); break;
		case 'p': ok = opt_long(optarg, 1, MAX_US, &cfg.period_us); break;
		case 'e': ok = opt_long(optarg, 1, MAX_US, &cfg.exec_us); break;
		case 'E': ok = opt_long(optarg, 1, MAX_US, &cfg.ovr_exec_us); break;
		case 'P': ok = opt_prob(optarg, &cfg.ovr_prob); break;
		case 'j': ok = opt_long(optarg, 1, MAX_JOBS, &cfg.jobs); break;
		case 'H': ok = opt_int(optarg, 0, MAX_HOGS, &cfg.hogs); break;
		case 'n': ok = opt_int(optarg, -20, 19, &cfg.nice); break;
		case 's': ok = opt_long(optarg, 0, MAX_SEED, &cfg.seed); break;
		case 'o': cfg.data = optarg; ok = true; break;
		case 'J': cfg.json = optarg; ok = true; break;
		case 'h': opt_usage_exit(usage, 0);
		default: opt_usage_exit(usage, RTLAB_EXIT_ERROR);
		}
		if (!ok) {
			fprintf(stderr, "%s: -%c %s: not a valid value\n", program_invocation_short_name, c, optarg);
			opt_usage_exit(usage, RTLAB_EXIT_ERROR);
		}
	}
	if (optind != argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", program_invocation_short_name, argv[optind]);
		opt_usage_exit(usage, RTLAB_EXIT_ERROR);
	}
	if (cfg.runtime_us > cfg.period_us)
		die_usage("-r %ld: the runtime must fit in the period (-p %ld)", cfg.runtime_us, cfg.period_us);
}

static int64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	if (clock_gettime(clk, &ts))
		die("clock_gettime(%d): %s", (int)clk, strerror(errno));
	return (int64_t)ts.tv_sec * RTLAB_NSEC_PER_SEC + ts.tv_nsec;
}

/* splitmix64: a small seeded PRNG, the same sequence on every machine */
static uint64_t prng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* plan: which jobs overrun; returns how many */
static long plan(void)
{
	uint64_t s = (uint64_t)cfg.seed;
	long n = 0;

	for (long k = 0; k < cfg.jobs; k++) {
		double u = (double)(prng_next(&s) >> 11) * 0x1.0p-53;	/* [0, 1) */

		jobs[k].overrun = u < cfg.ovr_prob;
		n += jobs[k].overrun;
	}
	return n;
}

static void *hog(void *arg)
{
	(void)arg;
	/* nice 0 whatever dlsoft was started with (Linux: per thread) */
	if (setpriority(PRIO_PROCESS, (id_t)gettid(), 0))
		atomic_store(&hog_err, errno);
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		;
	return NULL;
}

static int set_deadline(void)
{
	struct rtlab_sched_attr a = {
		.size = sizeof(a),
		.sched_policy = SCHED_DEADLINE,
		.sched_flags = mode_flags[cfg.mode],
		.sched_nice = cfg.nice,
		.sched_runtime = (uint64_t)cfg.runtime_us * RTLAB_NSEC_PER_USEC,
		.sched_deadline = (uint64_t)cfg.period_us * RTLAB_NSEC_PER_USEC,
		.sched_period = (uint64_t)cfg.period_us * RTLAB_NSEC_PER_USEC,
	};

	return syscall(SYS_sched_setattr, 0, &a, 0) ? errno : 0;
}

static void sleep_until(int64_t t)
{
	struct timespec ts = { t / RTLAB_NSEC_PER_SEC, t % RTLAB_NSEC_PER_SEC };
	int err;

	while ((err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL)) == EINTR)
		;
	if (err)
		die("clock_nanosleep: %s", strerror(err));
}

/* spin: ns of this thread's CPU time */
static void spin(int64_t ns)
{
	int64_t end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + ns;

	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		;
}

static void read_hogs(int64_t *v)
{
	for (int i = 0; i < cfg.hogs; i++)
		v[i] = clock_ns(hog_clk[i]);
}

static void *job_thread(void *arg)
{
	int64_t period = cfg.period_us * RTLAB_NSEC_PER_USEC, start;

	(void)arg;
	win.err = set_deadline();
	if (win.err)
		return NULL;
	start = now_ns() + LEAD_PERIODS * period;
	for (long k = 0; k < cfg.jobs; k++) {
		struct job *j = &jobs[k];

		j->release = start + k * period;
		if (now_ns() < j->release)
			sleep_until(j->release);
		else
			j->late = k > 0;	/* the one before ran past this release */
		if (!k) {
			win.t0 = now_ns();
			win.job0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
			read_hogs(win.hog0);
		}
		spin((j->overrun ? cfg.ovr_exec_us : cfg.exec_us) * RTLAB_NSEC_PER_USEC);
		j->finish = now_ns();
	}
	win.t1 = jobs[cfg.jobs - 1].finish;
	win.job1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	read_hogs(win.hog1);
	return NULL;
}

struct stats {
	long n, misses;
	int64_t med, p99, max;	/* completion, ns */
};

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* the index of percentile p (0..100) in n > 0 sorted samples (as rtgload) */
static size_t pct_index(size_t n, double p)
{
	return (size_t)(p / 100.0 * (double)(n - 1) + 0.5);
}

/* stats of all jobs, or of the overrun ones only; tmp holds cfg.jobs */
static void stats(bool overrun_only, int64_t *tmp, struct stats *s)
{
	int64_t deadline = cfg.period_us * RTLAB_NSEC_PER_USEC;

	memset(s, 0, sizeof(*s));
	for (long k = 0; k < cfg.jobs; k++) {
		int64_t c = jobs[k].finish - jobs[k].release;

		if (overrun_only && !jobs[k].overrun)
			continue;
		tmp[s->n++] = c;
		s->misses += c > deadline;
	}
	if (!s->n)
		return;
	qsort(tmp, (size_t)s->n, sizeof(*tmp), cmp_i64);
	s->med = tmp[pct_index((size_t)s->n, 50)];
	s->p99 = tmp[pct_index((size_t)s->n, 99)];
	s->max = tmp[s->n - 1];
}

static double us(int64_t ns)
{
	return (double)ns / RTLAB_NSEC_PER_USEC;
}

static void write_data(void)
{
	int64_t deadline = cfg.period_us * RTLAB_NSEC_PER_USEC;
	FILE *f = fopen(cfg.data, "w");
	int ok = f != NULL;

	for (long k = 0; ok && k < cfg.jobs; k++) {
		int64_t c = jobs[k].finish - jobs[k].release;

		ok = fprintf(f, "%ld %d %.0f %d %d\n", k, jobs[k].overrun, us(c), jobs[k].late, c > deadline) > 0;
	}
	if (f && fclose(f))
		ok = 0;
	if (!ok)
		die("%s: %s", cfg.data, strerror(errno));
}

static void json_stats(cJSON *o, const char *prefix, const struct stats *s)
{
	char key[32];

	snprintf(key, sizeof(key), "%smedian_us", prefix);
	cJSON_AddNumberToObject(o, key, rtlab_json_round(us(s->med), 0));
	snprintf(key, sizeof(key), "%sp99_us", prefix);
	cJSON_AddNumberToObject(o, key, rtlab_json_round(us(s->p99), 0));
	snprintf(key, sizeof(key), "%smax_us", prefix);
	cJSON_AddNumberToObject(o, key, rtlab_json_round(us(s->max), 0));
	snprintf(key, sizeof(key), "%smisses", prefix);
	cJSON_AddNumberToObject(o, key, (double)s->misses);
}

int main(int argc, char **argv)
{
	struct stats all, ovr;
	int64_t *tmp, hog_ns = 0;
	double wall, nb_share, job_share, fair, demand, w;
	long overruns, late = 0;
	cpu_set_t set;
	pthread_t jt;
	int err, cpus;

	parse(argc, argv);
	jobs = malloc(sizeof(*jobs) * (size_t)cfg.jobs);
	tmp = malloc(sizeof(*tmp) * (size_t)cfg.jobs);
	if (!jobs || !tmp)
		die("out of memory for %ld jobs", cfg.jobs);
	memset(jobs, 0, sizeof(*jobs) * (size_t)cfg.jobs);	/* touched before the run */
	memset(tmp, 0, sizeof(*tmp) * (size_t)cfg.jobs);
	overruns = plan();

	if (sched_getaffinity(0, sizeof(set), &set))
		die("sched_getaffinity: %s", strerror(errno));
	cpus = CPU_COUNT(&set);
	if (cpus > 1 && cfg.hogs)
		fprintf(stderr, "%s: warning: the affinity spans %d CPUs: the neighbours need not share "
			"the job thread's CPU\n", program_invocation_short_name, cpus);

	for (int i = 0; i < cfg.hogs; i++) {
		err = pthread_create(&hog_thr[i], NULL, hog, NULL);
		if (err)
			die("pthread_create (hog %d): %s", i, strerror(err));
		err = pthread_getcpuclockid(hog_thr[i], &hog_clk[i]);
		if (err)
			die("pthread_getcpuclockid (hog %d): %s", i, strerror(err));
	}
	err = pthread_create(&jt, NULL, job_thread, NULL);
	if (err)
		die("pthread_create (job thread): %s", strerror(err));
	err = pthread_join(jt, NULL);
	if (err)
		die("pthread_join (job thread): %s", strerror(err));
	atomic_store(&stop, 1);
	for (int i = 0; i < cfg.hogs; i++)
		pthread_join(hog_thr[i], NULL);
	if (win.err)
		die("sched_setattr(SCHED_DEADLINE %ld/%ld us, flags 0x%" PRIx64 " (%s), nice %d): %s%s",
		    cfg.runtime_us, cfg.period_us, mode_flags[cfg.mode], mode_names[cfg.mode], cfg.nice,
		    strerror(win.err), win.err == EINVAL && cfg.mode == DEMOTE ?
		    " (a kernel without SCHED_FLAG_DL_DEMOTION refuses the flag)" : "");
	if (atomic_load(&hog_err))
		die("setpriority (hog, nice 0): %s", strerror(atomic_load(&hog_err)));

	stats(false, tmp, &all);
	stats(true, tmp, &ovr);
	for (long k = 0; k < cfg.jobs; k++)
		late += jobs[k].late;
	for (int i = 0; i < cfg.hogs; i++)
		hog_ns += win.hog1[i] - win.hog0[i];
	wall = (double)(win.t1 - win.t0);
	nb_share = wall > 0 ? 100.0 * (double)hog_ns / wall : 0;
	job_share = wall > 0 ? 100.0 * (double)(win.job1 - win.job0) / wall : 0;
	w = nice_weight[cfg.nice + 20];
	fair = 100.0 * (1.0 - (double)cfg.runtime_us / cfg.period_us) *
	       w / (w + cfg.hogs * NICE_0_WEIGHT);
	demand = 100.0 * ((double)overruns * cfg.ovr_exec_us +
			  (double)(cfg.jobs - overruns) * cfg.exec_us) /
		 ((double)cfg.jobs * cfg.period_us);

	printf("dlsoft mode=%s seed=%ld jobs=%ld overruns=%ld late=%ld median_us=%.0f p99_us=%.0f "
	       "max_us=%.0f misses=%ld ovr_median_us=%.0f ovr_p99_us=%.0f ovr_max_us=%.0f ovr_misses=%ld "
	       "nb_share=%.2f job_share=%.2f fair_share=%.2f demand=%.2f cpus=%d wall_s=%.3f\n",
	       mode_names[cfg.mode], cfg.seed, cfg.jobs, overruns, late, us(all.med), us(all.p99),
	       us(all.max), all.misses, us(ovr.med), us(ovr.p99), us(ovr.max), ovr.misses,
	       nb_share, job_share, fair, demand, cpus, wall / RTLAB_NSEC_PER_SEC);
	if (fflush(stdout))
		die("stdout: %s", strerror(errno));
	if (cfg.data)
		write_data();
	if (cfg.json) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "mode", mode_names[cfg.mode]);
		cJSON_AddNumberToObject(o, "seed", (double)cfg.seed);
		cJSON_AddNumberToObject(o, "runtime_us", (double)cfg.runtime_us);
		cJSON_AddNumberToObject(o, "period_us", (double)cfg.period_us);
		cJSON_AddNumberToObject(o, "exec_us", (double)cfg.exec_us);
		cJSON_AddNumberToObject(o, "overrun_exec_us", (double)cfg.ovr_exec_us);
		cJSON_AddNumberToObject(o, "overrun_prob", cfg.ovr_prob);
		cJSON_AddNumberToObject(o, "hogs", cfg.hogs);
		cJSON_AddNumberToObject(o, "nice", cfg.nice);
		cJSON_AddNumberToObject(o, "jobs", (double)cfg.jobs);
		cJSON_AddNumberToObject(o, "overruns", (double)overruns);
		cJSON_AddNumberToObject(o, "late", (double)late);
		json_stats(o, "", &all);
		json_stats(o, "ovr_", &ovr);
		cJSON_AddNumberToObject(o, "nb_share", rtlab_json_round(nb_share, 2));
		cJSON_AddNumberToObject(o, "job_share", rtlab_json_round(job_share, 2));
		cJSON_AddNumberToObject(o, "fair_share", rtlab_json_round(fair, 2));
		cJSON_AddNumberToObject(o, "demand", rtlab_json_round(demand, 2));
		cJSON_AddNumberToObject(o, "cpus", cpus);
		cJSON_AddNumberToObject(o, "wall_s", rtlab_json_round(wall / RTLAB_NSEC_PER_SEC, 3));
		if (rtlab_json_write(cfg.json, o))
			die("%s: %s", cfg.json, strerror(errno));
	}
	free(jobs);
	free(tmp);
	return 0;
}
