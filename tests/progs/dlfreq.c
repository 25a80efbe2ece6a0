// SPDX-License-Identifier: GPL-2.0
/*
 * dlfreq: schedutil's frequency requests against the deadline bandwidth
 * (tests/guest/95-dl-cpufreq.sh), with the recording cpufreq driver
 * kernel/modules/rtlab_cpufreq loaded, on a one-CPU guest whose fair
 * server has runtime 0 (so that the CPU's running_bw is the test's tasks'
 * alone; the script sets it).
 *
 * What 6.12 computes (kernel/sched/cpufreq_schedutil.c, syscalls.c):
 *   util    = max(cpu_bw_dl, 5/4 * PELT(cfs + rt + dl))   (1024 if an RT
 *             task is runnable), cpu_bw_dl = running_bw * 1024 >> 20,
 *             running_bw = sum of (runtime << 20) / period of the deadline
 *             entities that are active contending
 *   request = ref * util / 1024, ref = cur + cur / 4 (x86 in QEMU is not
 *             frequency invariant: the reference is the current frequency)
 * The driver logs every request with the cur it was computed from, so the
 * util behind each request is read back exactly (the u with
 * ref * u / 1024 == request).  The deadline tasks use almost none of their
 * budget (each period SPIN_US of CPU time, then sched_yield(), which keeps
 * them active contending), so PELT stays far below their bandwidth and
 * cpu_bw_dl is the floor of every request.  The main thread wakes every
 * TICK_MS so that schedutil is asked regularly.
 *
 * Phases of PHASE_S seconds: idle, A 50/100 ms admitted, B 35/100 ms
 * (SCHED_FLAG_RECLAIM) admitted, B blocked, B back, A leaves (exits), B
 * leaves.  Per phase, from its start: a request at exactly the phase's
 * cpu_bw_dl (the change taking effect: add_running_bw() at an admission
 * or wake-up, sub_running_bw() at the 0-lag time of a task that blocked or
 * left - GRUB's inactive-bandwidth tracking - each asks schedutil at once)
 * and, from that one on, none below it.  Tolerance 0: the level is an
 * integer the kernel computes and the request gives it back exactly.
 * Zero-bandwidth phases (idle, B left) have no deadline level to match:
 * util is 5/4 of the PELT of the guest's own fair and RT activity (about
 * 110/1024 under TCG); checked: the lowest is below the smallest deadline
 * level of the run (358), i.e. no reservation holds the frequency up.
 * Exit 0 all held, 1 a check failed, 2 usage or setup error.
 */
#include <getopt.h>
#include <inttypes.h>
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
#define MAX_REQS	16384
#define PERIOD_US	100000
#define A_RUNTIME_US	50000
#define B_RUNTIME_US	35000
#define SPIN_US		300
#define TICK_MS		10
#define DEF_PHASE_S	2
#define BW_SHIFT	20	/* kernel/sched/sched.h */
#define CAP_SCALE	1024	/* SCHED_CAPACITY_SCALE */

enum cmd { RUN, BLOCK, QUIT };

struct dltask {
	const char *name;
	uint64_t runtime_us;
	uint64_t flags;
	atomic_int cmd;
	atomic_int up;
	atomic_int blocked;	/* it took the BLOCK command */
	pthread_t thr;
};

struct req {
	int64_t ns;
	unsigned int cur, khz;
	long util;	/* read back; -1: clamped at the policy minimum */
};

static struct req reqs[MAX_REQS];
static unsigned int nreqs;
static pthread_mutex_t wake_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;

static const char usage[] =
	"usage: dlfreq [-p SECS]\n"
	"  -p SECS  length of each phase (default 2)\n"
	"Needs the rtlab_cpufreq module, the schedutil governor (rate_limit_us 0)\n"
	"and the fair server's runtime 0, on a one-CPU guest.  Prints TAP: per\n"
	"phase, the utilization behind schedutil's requests (read back from each\n"
	"request) against 6.12's cpu_bw_dl of the deadline tasks present, and\n"
	"the moment B's bandwidth leaves against its 0-lag time.\n";

/* to_ratio(): a deadline entity's bandwidth as 6.12 keeps it */
static uint64_t to_ratio(uint64_t period, uint64_t runtime)
{
	return (runtime << BW_SHIFT) / period;
}

/* cpu_bw_dl(): running_bw on the capacity scale */
static long cpu_bw_dl(uint64_t running_bw)
{
	return (long)((running_bw * CAP_SCALE) >> BW_SHIFT);
}

/* command: a task's next command, waking it if it is blocked */
static void command(struct dltask *t, int c)
{
	pthread_mutex_lock(&wake_lock);
	atomic_store(&t->cmd, c);
	pthread_cond_broadcast(&wake);
	pthread_mutex_unlock(&wake_lock);
}

static int64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * RTLAB_NSEC_PER_SEC + ts.tv_nsec;
}

static void spin_us(long us)
{
	int64_t end = cpu_ns() + us * RTLAB_NSEC_PER_USEC;

	while (cpu_ns() < end)
		;
}

static void *dl_thread(void *arg)
{
	struct dltask *t = arg;
	int err = rtlab_set_deadline(0, t->runtime_us * 1000, PERIOD_US * 1000, t->flags);

	atomic_store(&t->up, err ? -err : 1);
	while (!err && atomic_load(&t->cmd) != QUIT) {
		if (atomic_load(&t->cmd) == BLOCK) {
			/* blocked: inactive from its 0-lag time, here at once (budget unused) */
			atomic_store(&t->blocked, 1);
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

/* readback: the util u with ref * u / 1024 == khz, ref = cur + cur / 4; -1 if none (clamped) */
static long readback(unsigned int cur, unsigned int khz)
{
	uint64_t ref = cur + (cur >> 2);
	uint64_t u = ((uint64_t)khz * CAP_SCALE + ref - 1) / ref;

	return ref * u / CAP_SCALE == khz ? (long)u : -1;
}

static void read_log(void)
{
	FILE *f = fopen(DBG "log", "r");
	char line[128];
	unsigned int ln = 0;

	if (!f)
		die(DBG "log: cannot open");
	while (fgets(line, sizeof(line), f)) {
		long long ns;
		unsigned int cpu, cur, req, khz;

		ln++;
		if (line[0] == '#')
			die(DBG "log:%u: %s", ln, line);	/* lost records: the run is void */
		if (sscanf(line, "%lld %u %u %u %u", &ns, &cpu, &cur, &req, &khz) != 5)
			die(DBG "log:%u: bad line '%s'", ln, line);
		if (nreqs == MAX_REQS)
			die(DBG "log: more than %d requests", MAX_REQS);
		reqs[nreqs++] = (struct req){ ns, cur, req, readback(cur, req) };
	}
	fclose(f);
}

/* phase_sleep: until `end`, waking every TICK_MS so that schedutil is asked */
static void phase_sleep(int64_t end)
{
	for (int64_t now = now_ns(); now < end; now = now_ns()) {
		int64_t left = end - now;

		usleep((useconds_t)((left < TICK_MS * RTLAB_NSEC_PER_MSEC ? left : TICK_MS * RTLAB_NSEC_PER_MSEC) /
				    RTLAB_NSEC_PER_USEC));
	}
}

struct phase {
	const char *name;
	long bw;		/* cpu_bw_dl expected once the change took effect */
	int64_t from, to;	/* the requests judged */
};

/* util0: a request's util, 0 for one clamped at the policy minimum */
static long util0(const struct req *r)
{
	return r->util < 0 ? 0 : r->util;
}

/*
 * judge: the phase's requests against its cpu_bw_dl: one at exactly that
 * level (the change taking effect: add_running_bw() or the inactive
 * timer's sub_running_bw() asks schedutil at once), none below it from
 * then on.  A zero-bandwidth phase: the lowest (or, with no request, the
 * one in force) below `ceil`, the smallest deadline level of the run.
 */
static void judge(int p, const struct phase *ph, long ceil)
{
	unsigned int n = 0, above = 0, below = 0, at = 0;
	int first = -1, last = -1;

	for (unsigned int i = 0; i < nreqs && reqs[i].ns < ph->to; i++) {
		long u = util0(&reqs[i]);

		last = i;
		if (reqs[i].ns < ph->from)
			continue;
		if (ph->bw ? first < 0 && u == ph->bw : first < 0 || u < util0(&reqs[first]))
			first = i;
		if (first < 0 || !ph->bw)
			continue;
		n++;
		at += u == ph->bw;
		above += u > ph->bw;
		below += u < ph->bw;
	}
	if (!ph->bw) {
		const struct req *r = first >= 0 ? &reqs[first] : last >= 0 ? &reqs[last] : NULL;

		tap_result(r && util0(r) < ceil, "phase %d, %s: cpu_bw_dl 0: lowest util behind a request %ld%s, "
			   "below the smallest deadline level %ld (5/4 PELT of the guest's own activity; %s, "
			   "request %u kHz at cur %u kHz)", p, ph->name, r ? util0(r) : -1,
			   r && r->util < 0 ? " (clamped at the policy minimum)" : "", ceil,
			   first >= 0 ? "in the phase" : "the one in force, none in the phase",
			   r ? r->khz : 0, r ? r->cur : 0);
		return;
	}
	if (first < 0) {
		tap_result(false, "phase %d, %s: no request at cpu_bw_dl %ld/1024", p, ph->name, ph->bw);
		return;
	}
	{
		const struct req *r = &reqs[first];
		uint64_t ref = r->cur + (r->cur >> 2);

		tap_result(!below, "phase %d, %s: cpu_bw_dl %ld/1024: request %u kHz at cur %u kHz, expected %" PRIu64
			   " kHz (5/4 cur x %ld/1024), %.1f ms into the phase; from then on %u requests: %u at, "
			   "%u above (RT runnable or PELT), %u below", p, ph->name, ph->bw, r->khz, r->cur,
			   ref * (uint64_t)ph->bw / CAP_SCALE, ph->bw, (r->ns - ph->from) / 1e6, n, at, above, below);
	}
}

int main(int argc, char **argv)
{
	static const struct option lo[] = { { "help", no_argument, NULL, 'h' }, { 0 } };
	struct dltask a = { .name = "A", .runtime_us = A_RUNTIME_US };
	struct dltask b = { .name = "B", .runtime_us = B_RUNTIME_US, .flags = SCHED_FLAG_RECLAIM };
	const uint64_t bw_a = to_ratio(PERIOD_US, A_RUNTIME_US), bw_b = to_ratio(PERIOD_US, B_RUNTIME_US);
	struct phase ph[] = {
		{ .name = "idle", .bw = 0 },
		{ .name = "A 50/100 admitted", .bw = cpu_bw_dl(bw_a) },
		{ .name = "B 35/100 RECLAIM admitted", .bw = cpu_bw_dl(bw_a + bw_b) },
		{ .name = "B blocked", .bw = cpu_bw_dl(bw_a) },
		{ .name = "B back", .bw = cpu_bw_dl(bw_a + bw_b) },
		{ .name = "A left", .bw = cpu_bw_dl(bw_b) },
		{ .name = "B left", .bw = 0 },
	};
	enum { NPHASE = sizeof(ph) / sizeof(ph[0]) };
	double phase_s = DEF_PHASE_S;
	long ceil = CAP_SCALE;
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
	clr = fopen(DBG "log", "w");
	if (!clr || fputs("clear\n", clr) < 0 || fclose(clr))
		die(DBG "log: cannot clear (rtlab_cpufreq loaded?)");

	tap_header(NPHASE);
	/* a phase unjudged first: the start of this program and the governor's settle out of PELT */
	phase_sleep(now_ns() + (int64_t)(phase_s * RTLAB_NSEC_PER_SEC));
	for (int p = 0; p < NPHASE; p++) {
		int64_t t0 = now_ns();

		ph[p].from = t0;
		switch (p) {
		case 1: start(&a); break;
		case 2: start(&b); break;
		case 3:
			command(&b, BLOCK);
			while (!atomic_load(&b.blocked))
				usleep(1000);
			break;
		case 4: command(&b, RUN); break;
		case 5: stop(&a); break;
		case 6: stop(&b); break;
		}
		phase_sleep(t0 + (int64_t)(phase_s * RTLAB_NSEC_PER_SEC));
		ph[p].to = now_ns();
	}
	read_log();
	diag("%u requests logged; util read back as the u with (cur + cur/4) * u / 1024 == request", nreqs);
	for (int p = 0; p < NPHASE; p++)
		if (ph[p].bw && ph[p].bw < ceil)
			ceil = ph[p].bw;
	for (int p = 0; p < NPHASE; p++)
		judge(p, &ph[p], ceil);
	return tap_exit();
}
