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
 * throttled and finishes the job after its next replenishment).
 *
 * The overruns are taken from the kernel's own view, not from the plan.
 * 6.12 (update_curr_dl_se()) sets dl_overrun once per throttle for an
 * exhausted runtime and replenishes by whole periods (the deadline moves
 * by k * P, k >= 1, however large the overrun); check_dl_overrun() sends
 * one SIGXCPU, and clears the flag, at the first tick at which the task
 * is current.  dlovr reads its dl.deadline from /proc/self/sched every
 * CHUNK_US of CPU time: inside a job (no yield, no sleep) a move by a
 * multiple of P is one exhaustion, one overrun.  Across the sched_yield()
 * between two jobs the deadline moves by exactly P (the yield's own
 * replenishment); a further multiple of P there is an overrun too.  A move
 * that is not a multiple of P is a new period set at a wake-up (CBS rule)
 * or for a replenishment that lagged, not an overrun: counted, not paired.
 *
 * Signals are paired with overruns in order: a signal settles the overrun
 * owed one; a second overrun while one is owed means two overruns for one
 * flag (the older one's signal lost; the newer one is then owed); a signal
 * with none owed is a signal without an overrun.  Checks:
 *   1  every planned overrun did overrun (-U: and none was unplanned, for
 *      runs where the CPU time a task is charged is its own: ACCEL=icount)
 *   2  signals received == overruns seen
 *   3  every overrun got its own signal, before the next overrun (none
 *      lost, none still owed at the end)
 *   4  no signal without an overrun owed one
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
#define CHUNK_US	250	/* CPU time between two readings of the deadline */
#define SCHED_BUF	8192
#define MAX_REPORTED	5	/* offenders listed per check */

static volatile sig_atomic_t nsig;

static const char usage[] =
	"usage: dlovr [-j JOBS] [-r RUNTIME_US] [-p PERIOD_US] [-e EVERY] [-n NAME] [-U] [-N]\n"
	"  -j JOBS  jobs to run (default 1000)\n"
	"  -r US    SCHED_DEADLINE runtime (default 5000)\n"
	"  -p US    period = deadline (default 20000)\n"
	"  -e N     every N-th job overruns on purpose, 3/2 of the runtime; the\n"
	"           others take 1/2 (default 10; 0: none overruns)\n"
	"  -n NAME  name in the output (default dlovr)\n"
	"  -U       an unplanned overrun fails check 1 (for instruction-counted\n"
	"           runs, where no emulator stall is charged to the task)\n"
	"  -N       negative control: without SCHED_FLAG_DL_OVERRUN (the signal\n"
	"           checks must then fail)\n"
	"Prints TAP (planned overruns happened, signals == overruns, each overrun\n"
	"its own signal, no signal without one) and a summary line\n"
	"'dlovr name=... jobs=... planned=... overruns=... unplanned=... signals=...'.\n"
	"Exit 0 all held, 1 a check failed, 2 usage or setup error.\n";

/* the run's tally, from the kernel's view (deadline moves) and the signals */
struct tally {
	int64_t period_ns;
	int64_t last_dl;	/* the deadline at the last reading */
	long seen_sig;		/* signals accounted for so far */
	long overruns, in_window, other_moves;
	long owed;		/* overruns not yet settled by a signal */
	long lost, stray;	/* overrun while one was owed; signal with none owed */
	char bad[320];
};

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

static void note(struct tally *t, const char *fmt, long a, long b)
{
	size_t len = strlen(t->bad);

	snprintf(t->bad + len, sizeof(t->bad) - len, fmt, a, b);
}

/*
 * observe: read the deadline and the signal count and account for what
 * happened since the last reading: `expected` periods of the move are the
 * yield's own replenishment (1 across a yield, else 0), the rest, if a
 * whole number of periods, one overrun; then the new signals settle owed
 * overruns.  Returns how many overruns this reading saw (0 or 1).
 */
static int observe(struct tally *t, int fd, long expected, long job)
{
	/*
	 * The count before the deadline: a signal is handled only once the task
	 * runs again after the replenishment that moved the deadline, so every
	 * signal counted here has its move in this reading or an earlier one.
	 * (Read the other way round, a throttle inside the read makes a signal
	 * appear one reading before its overrun.)
	 */
	long sig = nsig;
	int64_t dl = deadline(fd);
	int64_t move = dl - t->last_dl - expected * t->period_ns;
	int ovr = 0;

	t->last_dl = dl;
	if (move && move % t->period_ns) {
		t->other_moves++;	/* a new period at a wake-up or for a lag: no overrun */
	} else if (move > 0) {
		ovr = 1;
		t->overruns++;
		t->in_window += expected > 0;
		if (t->owed) {	/* one flag for both: the older overrun's signal is lost */
			if (t->lost < MAX_REPORTED)
				note(t, " job %ld: overrun while %ld owed a signal;", job, t->owed);
			t->lost += t->owed;
			t->owed = 0;
		}
		t->owed++;
	}
	for (; t->seen_sig < sig; t->seen_sig++) {
		if (t->owed)
			t->owed--;
		else if (++t->stray <= MAX_REPORTED)
			note(t, " job %ld: signal %ld without an overrun;", job, t->seen_sig + 1);
	}
	return ovr;
}

/* job: LEN ns of CPU time, the deadline read every CHUNK_US; returns the overruns seen in it */
static long job(struct tally *t, int fd, int64_t len, long k)
{
	int64_t end = cpu_ns() + len;
	long ovr = 0;

	for (int64_t now = cpu_ns(); now < end; now = cpu_ns()) {
		int64_t stop = now + CHUNK_US * RTLAB_NSEC_PER_USEC;

		if (stop > end)
			stop = end;
		while (cpu_ns() < stop)
			;
		ovr += observe(t, fd, 0, k);
	}
	return ovr;
}

int main(int argc, char **argv)
{
	long jobs = DEF_JOBS, every = DEF_EVERY;
	uint64_t q = DEF_RUNTIME_US, p = DEF_PERIOD_US;
	const char *name = "dlovr";
	static const struct option lo[] = { { "help", no_argument, NULL, 'h' }, { 0 } };
	long planned = 0, planned_hit = 0, unplanned;
	struct sigaction sa = { .sa_handler = on_sigxcpu, .sa_flags = SA_RESTART };
	struct tally t = { .period_ns = 0 };
	int opt, fd, err, no_flag = 0, strict = 0;
	char missed[160] = "";

	while ((opt = getopt_long(argc, argv, "j:r:p:e:n:UNh", lo, NULL)) != -1) {
		switch (opt) {
		case 'j': jobs = atol(optarg); break;
		case 'r': q = strtoull(optarg, NULL, 10); break;
		case 'p': p = strtoull(optarg, NULL, 10); break;
		case 'e': every = atol(optarg); break;
		case 'n': name = optarg; break;
		case 'U': strict = 1; break;
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
	t.period_ns = (int64_t)p * RTLAB_NSEC_PER_USEC;
	sched_yield();	/* start at a replenishment */
	t.last_dl = deadline(fd);
	for (long k = 0; k < jobs; k++) {
		int plan = every && k % every == every - 1;
		long ovr;

		if (k)
			observe(&t, fd, 1, k);	/* across the yield that ended job k - 1 */
		ovr = job(&t, fd, (plan ? 3 : 1) * (int64_t)q * RTLAB_NSEC_PER_USEC / 2, k);
		planned += plan;
		planned_hit += plan && ovr;
		if (plan && !ovr && planned - planned_hit <= MAX_REPORTED)
			snprintf(missed + strlen(missed), sizeof(missed) - strlen(missed), " job %ld;", k);
		sched_yield();	/* end of the job: wait for the next period */
	}
	observe(&t, fd, 1, jobs);	/* the last yield, and a signal still coming */
	unplanned = t.overruns - planned_hit;

	tap_result(planned_hit == planned && (!strict || !unplanned),
		   "%s: %ld of %ld planned overruns overran (runtime exhausted: deadline moved within the job), "
		   "%ld unplanned%s%s", name, planned_hit, planned, unplanned,
		   strict ? " (none allowed: -U)" : "", missed);
	tap_result(nsig == t.overruns, "%s: %d SIGXCPU for %ld overruns in %ld jobs (%ld planned, %ld unplanned, "
		   "%ld of them between jobs)", name, (int)nsig, t.overruns, jobs, planned, unplanned, t.in_window);
	tap_result(!t.lost && !t.owed, "%s: each of %ld overruns got its own signal before the next overrun "
		   "(%ld lost, %ld still owed at the end)%s", name, t.overruns, t.lost, t.owed, t.bad);
	tap_result(!t.stray, "%s: no signal without an overrun (%ld)%s", name, t.stray, t.stray ? t.bad : "");
	diag("%s: %ld deadline moves that were not whole periods (new period at a wake-up or for a lag)",
	     name, t.other_moves);
	if (no_flag)
		diag("%s: negative control, SCHED_FLAG_DL_OVERRUN not set", name);
	printf("dlovr name=%s jobs=%ld planned=%ld overruns=%ld unplanned=%ld signals=%d\n",
	       name, jobs, planned, t.overruns, unplanned, (int)nsig);
	return tap_exit();
}
