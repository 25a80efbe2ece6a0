// SPDX-License-Identifier: GPL-2.0
/*
 * dlfreq: schedutil's frequency requests against the deadline bandwidth
 * (tests/guest/95-dl-cpufreq.sh), with the recording cpufreq driver
 * kernel/modules/rtlab_cpufreq loaded, on a one-CPU guest.
 *
 * Two deadline tasks (threads) that use almost none of their budget (each
 * period: SPIN_US of CPU time, then sched_yield(), which keeps them
 * "active contending" in GRUB's terms): A 50/100 ms without reclaiming,
 * B 35/100 ms with SCHED_FLAG_RECLAIM.  Their PELT utilization stays near
 * zero, so what schedutil sees is the deadline bandwidth rq->dl.running_bw
 * (effective_cpu_util(): min = cpu_bw_dl()).  Phases of PHASE_S seconds:
 *   idle, A admitted, B admitted, B blocked (sleeps), B back, A leaves
 *   (exits), B leaves
 * The expected frequency of each phase is where 6.12's schedutil settles
 * from the frequency in force when the phase began, by its own formula
 * (get_next_freq(), sugov_effective_cpu_perf()): x86 under QEMU is not
 * frequency invariant (arch_scale_freq_invariant() is false; the driver
 * cannot change that), so the reference is policy->cur * 1.25 and each
 * request is
 *     f' = lowest step >= 1.25 * f * U,    U = running_bw (0..1)
 * repeated at every update until it stops moving.  Checked per phase: the
 * last request of the phase equals that fixed point (in the blocked
 * phase running_bw drops when GRUB's inactive timer fires at the 0-lag
 * time, almost at once here as B used little of its budget).  The
 * driver's log is read
 * from /sys/kernel/debug/rtlab_cpufreq/log.
 * Exit 0 all held, 1 a check failed, 2 usage or setup error.
 */
#include <getopt.h>
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

#define DBG		"/sys/kernel/debug/rtlab_cpufreq/"
#define MAX_STEPS	32
#define PERIOD_US	100000
#define A_RUNTIME_US	50000
#define B_RUNTIME_US	35000
#define SPIN_US		300
#define DEF_PHASE_S	2
#define HEADROOM_NUM	5	/* map_util_perf() and the non-invariant reference: x 5/4 */
#define HEADROOM_DEN	4

enum cmd { RUN, BLOCK, QUIT };

struct dltask {
	const char *name;
	uint64_t runtime_us;
	uint64_t flags;
	atomic_int cmd;
	atomic_int up;
	pthread_t thr;
};

static unsigned int steps[MAX_STEPS], nsteps;
static pthread_mutex_t wake_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;

/* command: a task's next command, waking it if it is blocked */
static void command(struct dltask *t, int c)
{
	pthread_mutex_lock(&wake_lock);
	atomic_store(&t->cmd, c);
	pthread_cond_broadcast(&wake);
	pthread_mutex_unlock(&wake_lock);
}

static const char usage[] =
	"usage: dlfreq [-p SECS]\n"
	"  -p SECS  length of each phase (default 2)\n"
	"Needs the rtlab_cpufreq module and the schedutil governor (rate_limit_us 0)\n"
	"on a one-CPU guest.  Prints TAP: per phase, schedutil's last request vs the\n"
	"fixed point of 6.12's non-invariant formula for the deadline bandwidth.\n";

static void spin_us(long us)
{
	struct timespec ts;
	int64_t end;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	end = ts.tv_sec * RTLAB_NSEC_PER_SEC + ts.tv_nsec + us * RTLAB_NSEC_PER_USEC;
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	while (ts.tv_sec * RTLAB_NSEC_PER_SEC + ts.tv_nsec < end);
}

static void *dl_thread(void *arg)
{
	struct dltask *t = arg;
	int err = rtlab_set_deadline(0, t->runtime_us * 1000, PERIOD_US * 1000, t->flags);

	atomic_store(&t->up, err ? -err : 1);
	while (!err && atomic_load(&t->cmd) != QUIT) {
		if (atomic_load(&t->cmd) == BLOCK) {
			/* blocked until told otherwise: inactive after its 0-lag time */
			pthread_mutex_lock(&wake_lock);
			while (atomic_load(&t->cmd) == BLOCK)
				pthread_cond_wait(&wake, &wake_lock);
			pthread_mutex_unlock(&wake_lock);
			continue;
		}
		spin_us(SPIN_US);
		sched_yield();	/* the rest of the budget given up, still contending */
	}
	return NULL;
}

static void start(struct dltask *t)
{
	if (pthread_create(&t->thr, NULL, dl_thread, t))
		die("pthread_create failed");
	while (!atomic_load(&t->up))
		usleep(1000);
	if (atomic_load(&t->up) < 0)
		die("%s: sched_setattr(SCHED_DEADLINE): %s", t->name, strerror(-atomic_load(&t->up)));
}

static void stop(struct dltask *t)
{
	command(t, QUIT);
	pthread_join(t->thr, NULL);
}

static void read_steps(void)
{
	FILE *f = fopen(DBG "steps", "r");

	if (!f)
		die(DBG "steps: not there (rtlab_cpufreq loaded?)");
	while (nsteps < MAX_STEPS && fscanf(f, "%u", &steps[nsteps]) == 1)
		nsteps++;
	fclose(f);
	if (!nsteps)
		die(DBG "steps: empty");
}

/* resolve: the lowest step at or above khz (CPUFREQ_RELATION_L), else the top */
static unsigned int resolve(double khz)
{
	for (unsigned int i = 0; i < nsteps; i++)
		if (steps[i] >= khz)
			return steps[i];
	return steps[nsteps - 1];
}

/* settle: 6.12's non-invariant schedutil iterated from f for bandwidth u */
static unsigned int settle(unsigned int f, double u)
{
	for (unsigned int i = 0; i < 4 * MAX_STEPS; i++) {
		unsigned int next = resolve((double)f * HEADROOM_NUM / HEADROOM_DEN * u);

		if (next == f)
			break;
		f = next;
	}
	return f;
}

struct req {
	int64_t ns;
	unsigned int khz;
};

/* log_at: the last granted frequency at or before t (0 if none), and how many requests in (from, t] */
static unsigned int log_at(int64_t from, int64_t t, unsigned int *count)
{
	FILE *f = fopen(DBG "log", "r");
	char line[128];
	unsigned int last = 0;

	if (!f)
		die(DBG "log: cannot open");
	*count = 0;
	while (fgets(line, sizeof(line), f)) {
		long long ns;
		unsigned int cpu, req, khz;

		if (line[0] == '#')
			die(DBG "log: %s", line);	/* lost records: the run is void */
		if (sscanf(line, "%lld %u %u %u", &ns, &cpu, &req, &khz) != 4)
			die(DBG "log: bad line '%s'", line);
		if (ns > t)
			break;
		last = khz;
		if (ns > from)
			(*count)++;
	}
	fclose(f);
	return last;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = { { "help", no_argument, NULL, 'h' }, { 0 } };
	struct dltask a = { .name = "A", .runtime_us = A_RUNTIME_US };
	struct dltask b = { .name = "B", .runtime_us = B_RUNTIME_US, .flags = SCHED_FLAG_RECLAIM };
	static const char *const names[] = { "idle", "A 50/100 admitted", "B 35/100 RECLAIM admitted",
					     "B blocked", "B back", "A left", "B left" };
	static const double bw[] = { 0, 0.50, 0.85, 0.50, 0.85, 0.35, 0 };
	enum { NPHASE = sizeof(bw) / sizeof(bw[0]) };
	int64_t t[NPHASE + 1];
	double phase_s = DEF_PHASE_S;
	int opt;
	FILE *clr;

	while ((opt = getopt_long(argc, argv, "p:h", lo, NULL)) != -1) {
		switch (opt) {
		case 'p': phase_s = atof(optarg); break;
		case 'h': fputs(usage, stdout); return 0;
		default: die_usage("unknown option");
		}
	}
	if (optind != argc || phase_s <= 0)
		die_usage("bad arguments");
	read_steps();
	clr = fopen(DBG "log", "w");
	if (!clr || fputs("clear\n", clr) < 0 || fclose(clr))
		die(DBG "log: cannot clear");

	tap_header(NPHASE);
	for (int p = 0; p < NPHASE; p++) {
		t[p] = now_ns();
		switch (p) {
		case 1: start(&a); break;
		case 2: start(&b); break;
		case 3: command(&b, BLOCK); break;
		case 4: command(&b, RUN); break;
		case 5: stop(&a); break;
		case 6: stop(&b); break;
		}
		usleep((useconds_t)(phase_s * 1e6));
	}
	t[NPHASE] = now_ns();

	for (int p = 0; p < NPHASE; p++) {
		unsigned int n, f0, got, want;

		f0 = log_at(0, t[p], &n);
		if (!f0)
			f0 = steps[nsteps - 1];	/* no request yet: the driver starts at the top */
		got = log_at(t[p], t[p + 1], &n);
		want = settle(f0, bw[p]);
		tap_result(got == want, "phase %d, %s: DL bandwidth %.2f, from %u kHz: last request %u kHz, "
			   "expected %u kHz (%u requests in the phase)", p, names[p], bw[p], f0, got, want, n);
	}
	return tap_exit();
}
