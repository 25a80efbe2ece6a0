// SPDX-License-Identifier: GPL-2.0
/*
 * dlovr: SCHED_FLAG_DL_OVERRUN's SIGXCPU against the overruns that caused
 * it (tests/guest/94-dl-overrun.sh).
 *
 * The process (one thread: the signal is sent to the thread group) makes
 * itself SCHED_DEADLINE runtime Q / period P with SCHED_FLAG_DL_OVERRUN
 * and runs JOBS jobs, each started by the replenishment that follows the
 * sched_yield() ending the one before.  A job is CPU time
 * (CLOCK_THREAD_CPUTIME_ID): Q/2 normally, 3Q/2 for every EVERY-th job (an
 * overrun on purpose: the budget runs out in the middle, the task is
 * throttled and finishes the job after its next replenishment, where the
 * signal comes at the first tick).
 *
 * Whether a job overran is taken from the kernel, not from the plan: the
 * task's absolute deadline (dl.deadline in /proc/self/sched) moves only at
 * a replenishment, and inside a job (no yield, no sleep) that means the
 * runtime was exhausted.  So a normal job that overran because the host
 * descheduled the vCPU under TCG (the guest charges that time to the task)
 * counts as an overrun too, and is reported as unplanned.  Checks:
 *   1  every planned overrun did overrun
 *   2  signals received == overruns (replenishments inside jobs)
 *   3  every overrunning job got exactly its signal(s) while it ran
 *   4  no signal in a job that did not overrun, nor between jobs
 * Exit 0 all held, 1 a check failed, 2 usage or setup error.
 */
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rtlab/die.h>
#include <rtlab/dl.h>
#include <rtlab/tap.h>
#include <rtlab/time.h>

#define DEF_JOBS	1000
#define DEF_RUNTIME_US	5000
#define DEF_PERIOD_US	20000
#define DEF_EVERY	10
#define SCHED_BUF	8192
#define MAX_REPORTED	5	/* offending jobs listed per check */

static volatile sig_atomic_t nsig;

static const char usage[] =
	"usage: dlovr [-j JOBS] [-r RUNTIME_US] [-p PERIOD_US] [-e EVERY] [-n NAME]\n"
	"  -j JOBS  jobs to run (default 1000)\n"
	"  -r US    SCHED_DEADLINE runtime (default 5000)\n"
	"  -p US    period = deadline (default 20000)\n"
	"  -e N     every N-th job overruns on purpose, 3/2 of the runtime; the\n"
	"           others take 1/2 (default 10; 0: none overruns)\n"
	"  -n NAME  name in the output (default dlovr)\n"
	"  -N       negative control: without SCHED_FLAG_DL_OVERRUN (the signal\n"
	"           checks must then fail)\n"
	"Prints TAP (planned overruns happened, signals == overruns, each in its\n"
	"job, none without one) and a summary line 'dlovr name=... jobs=...'.\n"
	"Exit 0 all held, 1 a check failed, 2 usage or setup error.\n";

static void on_sigxcpu(int sig)
{
	(void)sig;
	nsig++;
}

static int64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * RTLAB_NSEC_PER_SEC + ts.tv_nsec;
}

/* deadline: dl.deadline of this task from /proc/self/sched (fd kept open) */
static int64_t deadline(int fd)
{
	char buf[SCHED_BUF];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	char *p;

	if (n <= 0)
		die("/proc/self/sched: read failed");
	buf[n] = '\0';
	p = strstr(buf, "dl.deadline");
	if (!p || !(p = strchr(p, ':')))
		die("/proc/self/sched: no dl.deadline (not SCHED_DEADLINE?)");
	return strtoll(p + 1, NULL, 10);
}

static void spin_cpu(int64_t ns)
{
	int64_t end = cpu_ns() + ns;

	while (cpu_ns() < end)
		;
}

int main(int argc, char **argv)
{
	long jobs = DEF_JOBS, every = DEF_EVERY;
	uint64_t q = DEF_RUNTIME_US, p = DEF_PERIOD_US;
	const char *name = "dlovr";
	static const struct option lo[] = { { "help", no_argument, NULL, 'h' }, { 0 } };
	long planned = 0, missed_plan = 0, overruns = 0, unplanned = 0, ovr_jobs = 0;
	long wrong_in_ovr = 0, sig_in_plain = 0, sig_between = 0;
	char bad[256] = "";
	struct sigaction sa = { .sa_handler = on_sigxcpu, .sa_flags = SA_RESTART };
	int opt, fd, err, no_flag = 0;

	while ((opt = getopt_long(argc, argv, "j:r:p:e:n:Nh", lo, NULL)) != -1) {
		switch (opt) {
		case 'j': jobs = atol(optarg); break;
		case 'r': q = strtoull(optarg, NULL, 10); break;
		case 'p': p = strtoull(optarg, NULL, 10); break;
		case 'e': every = atol(optarg); break;
		case 'n': name = optarg; break;
		case 'N': no_flag = 1; break;
		case 'h': fputs(usage, stdout); return 0;
		default: die_usage("unknown option");
		}
	}
	if (optind != argc || jobs < 1 || every < 0 || !q || p < 2 * q)
		die_usage("bad arguments (runtime at most half the period: an overrun job is 3/2 of it)");
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGXCPU, &sa, NULL))
		die("sigaction: %s", strerror(errno));
	err = rtlab_set_deadline(0, q * 1000, p * 1000, no_flag ? 0 : SCHED_FLAG_DL_OVERRUN);
	if (err)
		die("sched_setattr(SCHED_DEADLINE %" PRIu64 "/%" PRIu64 " us, DL_OVERRUN): %s", q, p, strerror(err));
	fd = open("/proc/self/sched", O_RDONLY);
	if (fd < 0)
		die("/proc/self/sched: %s", strerror(errno));

	tap_header(4);
	sched_yield();	/* start at a replenishment */
	for (long k = 0; k < jobs; k++) {
		int plan = every && k % every == every - 1;
		sig_atomic_t s_start, s_end;
		int64_t d0, d1;
		long n_ovr;

		s_start = nsig;
		d0 = deadline(fd);
		spin_cpu((plan ? 3 : 1) * (int64_t)q * RTLAB_NSEC_PER_USEC / 2);
		d1 = deadline(fd);
		s_end = nsig;
		n_ovr = (d1 - d0) / ((int64_t)p * RTLAB_NSEC_PER_USEC);

		planned += plan;
		missed_plan += plan && !n_ovr;
		overruns += n_ovr;
		ovr_jobs += n_ovr > 0;
		unplanned += !plan && n_ovr;
		if (n_ovr && s_end - s_start != n_ovr) {
			wrong_in_ovr++;
			if (wrong_in_ovr <= MAX_REPORTED)
				snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad), " job %ld: %d signals for %ld overruns;",
					 k, (int)(s_end - s_start), n_ovr);
		}
		if (!n_ovr && s_end != s_start)
			sig_in_plain += s_end - s_start;
		sched_yield();	/* end of the job: wait for the next period */
		sig_between += nsig != s_end;
		if (nsig != s_end && sig_between <= MAX_REPORTED)
			snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad), " after job %ld (%s);", k,
				 n_ovr ? "overran" : "no overrun");
	}
	tap_result(!missed_plan, "%s: %ld of %ld planned overruns overran (runtime exhausted: deadline moved within the job)",
		   name, planned - missed_plan, planned);
	tap_result(nsig == overruns, "%s: %d SIGXCPU for %ld overruns in %ld jobs (%ld planned, %ld unplanned: host stalls under TCG)",
		   name, (int)nsig, overruns, jobs, planned, unplanned);
	tap_result(!wrong_in_ovr, "%s: each of %ld overrunning jobs got its signal while it ran (%ld did not)%s",
		   name, ovr_jobs, wrong_in_ovr, wrong_in_ovr ? bad : "");
	tap_result(!sig_in_plain && !sig_between, "%s: no signal without an overrun (%ld in jobs that did not overrun, %ld between jobs)%s",
		   name, sig_in_plain, sig_between, sig_between ? bad : "");
	if (no_flag)
		diag("%s: negative control, SCHED_FLAG_DL_OVERRUN not set", name);
	printf("dlovr name=%s jobs=%ld planned=%ld overruns=%ld unplanned=%ld signals=%d\n",
	       name, jobs, planned, overruns, unplanned, (int)nsig);
	return tap_exit();
}
