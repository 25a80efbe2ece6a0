// SPDX-License-Identifier: GPL-2.0
/*
 * wakestorm: N threads sleep with clock_nanosleep(CLOCK_MONOTONIC,
 * TIMER_ABSTIME) to the same absolute expiry every period: the hrtimer
 * wake-up storm of the 2017 RT summit report.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "limits.h"
#include "opts.h"
#include "report.h"
#include "stats.h"
#include "rtlab/dl.h"
#include "rtlab/opt.h"
#include "rtlab/time.h"

struct worker {
	pthread_t thread;
	unsigned int idx;
	int err;		/* errno of the policy change, 0 if fine */
	int sleep_err;		/* error of clock_nanosleep, 0 if fine */
};

static const struct ws_opts *opts;
static struct ws_env env;
static _Atomic int64_t *rec_first, *rec_last;
static _Atomic uint32_t *rec_woken, *rec_missed;
/* Start gate: workers report ready, then wait until the main thread opens it. */
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_ready = PTHREAD_COND_INITIALIZER;
static pthread_cond_t gate_open = PTHREAD_COND_INITIALIZER;
static unsigned int nr_ready;
static bool opened;
static _Atomic int64_t base_ns;
static atomic_bool abort_run, stop_run;
static atomic_uint done;

/* Give the calling thread the requested policy; returns 0 or an errno. */
static int set_policy(void)
{
	struct rtlab_sched_attr a;
	struct sched_param sp;

	switch (opts->policy) {
	case WS_POLICY_OTHER:
		/* explicit, so that a chrt'ed parent does not leak RT policy */
		sp.sched_priority = 0;
		return sched_setscheduler(0, SCHED_OTHER, &sp) ? errno : 0;
	case WS_POLICY_FIFO:
	case WS_POLICY_RR:
		sp.sched_priority = opts->priority;
		return sched_setscheduler(0, opts->policy == WS_POLICY_FIFO ?
					  SCHED_FIFO : SCHED_RR, &sp) ? errno : 0;
	case WS_POLICY_DEADLINE:
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.sched_policy = SCHED_DEADLINE;
		a.sched_runtime = opts->dl_runtime_ns;
		a.sched_deadline = opts->dl_deadline_ns;
		a.sched_period = opts->dl_period_ns;
		return syscall(SYS_sched_setattr, 0, &a, 0) ? errno : 0;
	}
	return EINVAL;
}

static void atomic_min64(_Atomic int64_t *p, int64_t v)
{
	int64_t cur = atomic_load_explicit(p, memory_order_relaxed);

	while (v < cur && !atomic_compare_exchange_weak(p, &cur, v))
		;
}

static void atomic_max64(_Atomic int64_t *p, int64_t v)
{
	int64_t cur = atomic_load_explicit(p, memory_order_relaxed);

	while (v > cur && !atomic_compare_exchange_weak(p, &cur, v))
		;
}

static void name_thread(unsigned int idx)
{
	char name[32];

	snprintf(name, sizeof(name), "wakestorm/%u", idx);
	name[15] = '\0';	/* TASK_COMM_LEN */
	pthread_setname_np(pthread_self(), name);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint64_t k;
	int64_t base;

	name_thread(w->idx);
	w->err = set_policy();
	pthread_mutex_lock(&gate_lock);
	nr_ready++;
	pthread_cond_signal(&gate_ready);
	while (!opened)
		pthread_cond_wait(&gate_open, &gate_lock);
	pthread_mutex_unlock(&gate_lock);
	if (atomic_load(&abort_run))
		goto out;
	base = atomic_load(&base_ns);
	for (k = 0; k < opts->iterations && !atomic_load(&stop_run); k++) {
		int64_t target = base + (int64_t)(k * opts->period_ns), t;
		struct timespec ts = {
			.tv_sec = target / 1000000000,
			.tv_nsec = target % 1000000000,
		};
		int r;

		if (now_ns() >= target)
			atomic_fetch_add_explicit(&rec_missed[k], 1,
						  memory_order_relaxed);
		while ((r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
					    &ts, NULL)) == EINTR)
			;
		if (r) {
			w->sleep_err = r;
			break;
		}
		t = now_ns();
		atomic_min64(&rec_first[k], t);
		atomic_max64(&rec_last[k], t);
		atomic_fetch_add_explicit(&rec_woken[k], 1,
					  memory_order_relaxed);
	}
out:
	atomic_fetch_add(&done, 1);
	return NULL;
}

static bool has_cap_sys_nice(void)
{
	return env.cap_sys_nice;
}

/* Explain why the kernel refused the policy (errno e). */
static void explain_policy_error(int e, unsigned int idx, unsigned int admitted)
{
	const char *pol = ws_policy_name(opts->policy);

	fprintf(stderr, "wakestorm: -p/--policy %s: thread %u: %s: ", pol, idx,
		strerror(e));
	if (e == EPERM && (opts->policy == WS_POLICY_FIFO ||
			   opts->policy == WS_POLICY_RR)) {
		if (!has_cap_sys_nice())
			fprintf(stderr,
				"not permitted: needs capability CAP_SYS_NICE (or RLIMIT_RTPRIO >= %d; ulimit -r)\n",
				opts->priority);
		else
			fputs("refused although CAP_SYS_NICE is held: with CONFIG_RT_GROUP_SCHED the cgroup needs cpu.rt_runtime_us > 0\n",
			      stderr);
	} else if (e == EPERM && opts->policy == WS_POLICY_DEADLINE) {
		if (!has_cap_sys_nice())
			fputs("not permitted: SCHED_DEADLINE needs capability CAP_SYS_NICE\n",
			      stderr);
		else
			fputs("refused although CAP_SYS_NICE is held: the threads' allowed CPUs must span their whole root domain (taskset/cpuset), the root domain needs SCHED_DEADLINE bandwidth (kernel.sched_rt_runtime_us), and with CONFIG_RT_GROUP_SCHED the task must be in the root cgroup\n",
			      stderr);
	} else if (e == EBUSY && opts->policy == WS_POLICY_DEADLINE) {
		fprintf(stderr,
			"SCHED_DEADLINE admission control refused it after %u threads were admitted: %u x %.3f/%.3f ms does not fit the free deadline bandwidth (kernel.sched_rt_runtime_us, other SCHED_DEADLINE tasks)\n",
			admitted, opts->threads, opts->dl_runtime_ns / 1e6,
			opts->dl_period_ns / 1e6);
	} else if (e == EINVAL && opts->policy == WS_POLICY_DEADLINE) {
		fputs("the kernel rejected --dl-runtime/--dl-deadline/--dl-period (see kernel.sched_deadline_period_min_us and _max_us)\n",
		      stderr);
	} else {
		fputs("could not set the scheduling policy\n", stderr);
	}
}

static int init_attr(pthread_attr_t *attr, unsigned int idx)
{
	int e;

	e = pthread_attr_init(attr);
	if (!e)
		e = pthread_attr_setstacksize(attr, opts->stack_size);
	if (!e && opts->ncpus) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(opts->cpus[idx % opts->ncpus], &set);
		e = pthread_attr_setaffinity_np(attr, sizeof(set), &set);
	}
	return e;
}

static void *probe_main(void *arg)
{
	int *err = arg;

	*err = set_policy();
	return NULL;
}

/* Try the policy in one short-lived thread before starting thousands. */
static int probe_policy(void)
{
	pthread_attr_t attr;
	pthread_t t;
	int err = 0, e;

	e = init_attr(&attr, 0);
	if (!e)
		e = pthread_create(&t, &attr, probe_main, &err);
	pthread_attr_destroy(&attr);
	if (e) {
		fprintf(stderr, "wakestorm: cannot create a thread: %s\n",
			strerror(e));
		return -1;
	}
	pthread_join(t, NULL);
	if (err) {
		explain_policy_error(err, 0, 0);
		return -1;
	}
	return 0;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		fprintf(stderr, "wakestorm: out of memory (%zu x %zu bytes)\n",
			n, size);
		exit(1);
	}
	return p;
}

static int write_json(const struct ws_run *run)
{
	char *doc = ws_report_json(run);
	FILE *f;
	int ret = 0;

	if (!doc) {
		fputs("wakestorm: out of memory building JSON\n", stderr);
		return -1;
	}
	if (!strcmp(opts->json_path, "-")) {
		f = stdout;
	} else {
		f = fopen(opts->json_path, "we");
		if (!f) {
			fprintf(stderr, "wakestorm: -j/--json %s: %s\n",
				opts->json_path, strerror(errno));
			free(doc);
			return -1;
		}
	}
	fprintf(f, "%s\n", doc);
	if (f != stdout && fclose(f)) {
		fprintf(stderr, "wakestorm: -j/--json %s: %s\n",
			opts->json_path, strerror(errno));
		ret = -1;
	}
	free(doc);
	return ret;
}

int main(int argc, char **argv)
{
	static struct ws_opts o;
	struct ws_expiry_rec *recs;
	struct worker *workers;
	struct ws_run run;
	char err[512];
	unsigned int i, created = 0, admitted = 0;
	sigset_t sigs;
	int64_t delay, *scratch;
	uint64_t k;
	int status = 0, e;

	if (ws_parse_opts(argc, argv, &o, err, sizeof(err))) {
		fprintf(stderr, "wakestorm: %s\nTry 'wakestorm --help'.\n", err);
		return 2;
	}
	if (o.help)
		opt_usage_exit(ws_usage, 0);
	if (o.version) {
		printf("wakestorm %s\n", WS_VERSION);
		return 0;
	}
	opts = &o;
	ws_env_read(&env);
	if (ws_check_limits(&o, &env, err, sizeof(err))) {
		fprintf(stderr, "wakestorm: %s\n", err);
		return 2;
	}
	if (o.mlock && mlockall(MCL_CURRENT | MCL_FUTURE)) {
		fprintf(stderr, "wakestorm: -m/--mlock: mlockall: %s%s\n",
			strerror(errno), errno == EPERM || errno == ENOMEM ?
			" (needs capability CAP_IPC_LOCK or a higher RLIMIT_MEMLOCK)" : "");
		return 2;
	}

	/* Signals go to the main thread only, never interrupt a sleeper. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);

	if (probe_policy())
		return 2;

	rec_first = xcalloc(o.iterations, sizeof(*rec_first));
	rec_last = xcalloc(o.iterations, sizeof(*rec_last));
	rec_woken = xcalloc(o.iterations, sizeof(*rec_woken));
	rec_missed = xcalloc(o.iterations, sizeof(*rec_missed));
	for (k = 0; k < o.iterations; k++) {
		atomic_init(&rec_first[k], INT64_MAX);
		atomic_init(&rec_last[k], INT64_MIN);
	}
	workers = xcalloc(o.threads, sizeof(*workers));

	for (i = 0; i < o.threads; i++) {
		pthread_attr_t attr;

		workers[i].idx = i;
		e = init_attr(&attr, i);
		if (!e)
			e = pthread_create(&workers[i].thread, &attr,
					   worker_main, &workers[i]);
		pthread_attr_destroy(&attr);
		if (e) {
			fprintf(stderr,
				"wakestorm: -n/--threads %u: creating thread %u failed: %s%s\n",
				o.threads, i, strerror(e),
				e == EAGAIN ? " (a thread or memory limit was hit: ulimit -u, kernel.threads-max, cgroup pids.max, memory)" : "");
			status = 2;
			break;
		}
		created++;
	}
	pthread_mutex_lock(&gate_lock);
	while (nr_ready < created)
		pthread_cond_wait(&gate_ready, &gate_lock);
	pthread_mutex_unlock(&gate_lock);
	for (i = 0; i < created; i++) {
		if (!workers[i].err) {
			admitted++;
			continue;
		}
		if (!status)
			explain_policy_error(workers[i].err, i, admitted);
		status = 2;
	}
	if (status)
		atomic_store(&abort_run, true);
	delay = o.start_delay_ns ? (int64_t)o.start_delay_ns :
		100000000 + 100000 * (int64_t)o.threads;
	atomic_store(&base_ns, now_ns() + delay);
	pthread_mutex_lock(&gate_lock);
	opened = true;
	pthread_cond_broadcast(&gate_open);
	pthread_mutex_unlock(&gate_lock);

	/* Wait for the workers; the first signal stops them at the next expiry. */
	run.interrupted = false;
	while (atomic_load(&done) < created) {
		struct timespec to = { 0, 100000000 };

		if (sigtimedwait(&sigs, NULL, &to) > 0) {
			if (run.interrupted)
				exit(130);	/* second signal: give up */
			atomic_store(&stop_run, true);
			run.interrupted = true;
		}
	}
	for (i = 0; i < created; i++) {
		pthread_join(workers[i].thread, NULL);
		if (workers[i].sleep_err && !status) {
			fprintf(stderr, "wakestorm: thread %u: clock_nanosleep: %s\n",
				i, strerror(workers[i].sleep_err));
			status = 1;
		}
	}
	if (atomic_load(&abort_run))
		return status;

	recs = xcalloc(o.iterations, sizeof(*recs));
	scratch = xcalloc(o.iterations, sizeof(*scratch));
	for (k = 0; k < o.iterations; k++) {
		recs[k].target = atomic_load(&base_ns) +
				 (int64_t)(k * o.period_ns);
		recs[k].first = atomic_load(&rec_first[k]);
		recs[k].last = atomic_load(&rec_last[k]);
		recs[k].woken = atomic_load(&rec_woken[k]);
		recs[k].missed = atomic_load(&rec_missed[k]);
	}
	run.opts = &o;
	run.start_ns = atomic_load(&base_ns);
	ws_compute(recs, o.iterations, o.threads, scratch, &run.result);
	if (!o.quiet && !(o.json_path && !strcmp(o.json_path, "-")))
		ws_report_text(stdout, &run);
	if (o.json_path && write_json(&run))
		status = 1;
	free(recs);
	free(scratch);
	free(workers);
	return status;
}
