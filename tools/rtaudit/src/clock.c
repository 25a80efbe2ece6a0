/* rtaudit clock: what reading the time costs, whether CLOCK_MONOTONIC is
 * consistent across CPUs, and how far the trace clocks are from it.
 * Every figure is measured here and printed with its method. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rtaudit.h"

#define BATCH 2000            /* clock_gettime calls per timed batch */
#define REPS 15               /* batches; the median is reported */
#define MAX_PAIRS 12          /* CPU pairs in the skew test */
#define SPIN_TIMEOUT_NS 2000000000LL /* a partner that never answers */
#define TRACE_MARKERS 40      /* markers per trace clock */
#define SLOW_RATIO 3.0        /* a clock source this much slower: warn */
#define CS_MAX 16
#define NSEC 1000000000LL

static const char CS_DIR[] = "/sys/devices/system/clocksource/clocksource0";

static int64_t now_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * NSEC + ts.tv_nsec;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* median over REPS batches of BATCH calls, in ns per call */
static double cost_ns(clockid_t id)
{
	double v[REPS];
	struct timespec ts;

	for (int r = 0; r < REPS; r++) {
		int64_t t0 = now_ns(CLOCK_MONOTONIC);

		for (int i = 0; i < BATCH; i++)
			clock_gettime(id, &ts);
		v[r] = (double)(now_ns(CLOCK_MONOTONIC) - t0) / BATCH;
	}
	qsort(v, REPS, sizeof(*v), cmp_dbl);
	return v[REPS / 2];
}

struct ranked {
	const char *name;
	double ns;
};

static int cmp_ranked(const void *a, const void *b)
{
	return cmp_dbl(&((const struct ranked *)a)->ns, &((const struct ranked *)b)->ns);
}

/* "ranking of WHAT, fastest first: a 5.1 ns, b 20.3 ns, ..." */
static void note_ranking(struct report *r, const char *what, struct ranked *rk,
			 size_t n)
{
	char line[1024];
	size_t len;

	qsort(rk, n, sizeof(*rk), cmp_ranked);
	len = (size_t)snprintf(line, sizeof(line), "ranking of %s, fastest first:", what);
	for (size_t i = 0; i < n && len < sizeof(line); i++)
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%s %s %.1f ns",
					i ? "," : "", rk[i].name, rk[i].ns);
	report_note(r, "%s", line);
}

static void measure_clock_ids(struct report *r)
{
	static const struct { clockid_t id; const char *name; } ids[] = {
		{ CLOCK_REALTIME, "CLOCK_REALTIME" },
		{ CLOCK_MONOTONIC, "CLOCK_MONOTONIC" },
		{ CLOCK_MONOTONIC_RAW, "CLOCK_MONOTONIC_RAW" },
		{ CLOCK_BOOTTIME, "CLOCK_BOOTTIME" },
		{ CLOCK_TAI, "CLOCK_TAI" },
		{ CLOCK_REALTIME_COARSE, "CLOCK_REALTIME_COARSE" },
		{ CLOCK_MONOTONIC_COARSE, "CLOCK_MONOTONIC_COARSE" },
		{ CLOCK_PROCESS_CPUTIME_ID, "CLOCK_PROCESS_CPUTIME_ID" },
		{ CLOCK_THREAD_CPUTIME_ID, "CLOCK_THREAD_CPUTIME_ID" },
	};
	enum { NIDS = sizeof(ids) / sizeof(*ids) };
	struct ranked rk[NIDS];
	double mono = cost_ns(CLOCK_MONOTONIC);

	report_note(r, "method: clock_gettime cost = median of %d batches of %d calls, timed with CLOCK_MONOTONIC",
		    REPS, BATCH);
	for (size_t i = 0; i < NIDS; i++) {
		double c = cost_ns(ids[i].id);
		char *v = xasprintf("%.1f ns/call (%.2fx CLOCK_MONOTONIC)", c, c / mono);

		rk[i] = (struct ranked){ ids[i].name, c };
		report_add(r, &(struct finding){
			.sev = SEV_INFO, .weight = 20, .subject = (char *)ids[i].name,
			.new_value = v,
			.why = "cost of one clock_gettime() on the current clock source" });
		free(v);
	}
	note_ranking(r, "clock ids", rk, NIDS);
}

/* --- per clock source -------------------------------------------------------- */
static char saved_cs[64];
static char cs_path[4096];

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	rc = write(fd, s, strlen(s)) == (ssize_t)strlen(s) ? 0 : -1;
	close(fd);
	return rc;
}

static int write_cs(const char *name)
{
	return write_file(cs_path, name);
}

/* the switch must never outlive rtaudit */
static void restore_cs(void)
{
	if (saved_cs[0])
		write_cs(saved_cs);
}

static void restore_on_signal(int sig)
{
	restore_cs();
	signal(sig, SIG_DFL);
	raise(sig);
}

static int read_word_list(const char *path, char *buf, size_t len, char *err,
			  size_t errlen)
{
	char *t;
	int rc = read_text(path, &t, 4096, err, errlen);

	if (rc)
		return rc;
	snprintf(buf, len, "%s", t);
	free(t);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static int measure_clocksources(struct report *r, const struct clock_opts *o,
				char *err, size_t errlen)
{
	char avail[1024], cur[64], *p, *save = NULL, *names[CS_MAX];
	double cost[CS_MAX], best = 0;
	int n = 0, ibest = -1, rc;
	char *path = xasprintf("%s%s/available_clocksource", o->root, CS_DIR);

	snprintf(cs_path, sizeof(cs_path), "%s%s/current_clocksource", o->root, CS_DIR);
	rc = read_word_list(path, avail, sizeof(avail), err, errlen);
	free(path);
	if (rc == 0)
		rc = read_word_list(cs_path, cur, sizeof(cur), err, errlen);
	if (rc < 0)
		return -1;
	if (rc) {
		report_note(r, "no clock source information in sysfs");
		return 0;
	}
	if (!o->do_switch) {
		double c = cost_ns(CLOCK_MONOTONIC);
		char *v = xasprintf("%.1f ns/call", c);

		report_note(r, "clock sources: only the current one (%s) measured; --switch (root) measures each of: %s",
			    cur, avail);
		report_add(r, &(struct finding){ .sev = SEV_INFO, .weight = 60,
			.subject = (char *)"clocksource current", .new_value = v,
			.why = "CLOCK_MONOTONIC on the current clock source", .evidence = cs_path });
		free(v);
		return 0;
	}
	snprintf(saved_cs, sizeof(saved_cs), "%s", cur);
	atexit(restore_cs);
	signal(SIGINT, restore_on_signal);
	signal(SIGTERM, restore_on_signal);
	for (p = strtok_r(avail, " ", &save); p && n < CS_MAX; p = strtok_r(NULL, " ", &save)) {
		if (write_cs(p)) {
			snprintf(err, errlen, "%s: cannot switch to %s: %s (--switch needs root)",
				 cs_path, p, strerror(errno));
			restore_cs();
			return -1;
		}
		names[n] = p;
		cost[n] = cost_ns(CLOCK_MONOTONIC);
		if (ibest < 0 || cost[n] < best) {
			best = cost[n];
			ibest = n;
		}
		n++;
	}
	restore_cs();
	report_note(r, "clock sources: each of %d switched to in turn, CLOCK_MONOTONIC cost measured, %s restored",
		    n, cur);
	{
		struct ranked rk[CS_MAX];

		for (int i = 0; i < n; i++)
			rk[i] = (struct ranked){ names[i], cost[i] };
		note_ranking(r, "clock sources", rk, (size_t)n);
	}
	if (strcmp(names[ibest], cur)) {
		char *v = xasprintf("clocksource=%s", names[ibest]);
		char *why = xasprintf("%s reads the time fastest here; the current %s is slower",
				      names[ibest], cur);

		report_add(r, &(struct finding){ .sev = SEV_WARNING, .weight = 95,
			.subject = (char *)"recommendation", .new_value = v, .why = why,
			.fix = "echo it > current_clocksource; find why the kernel did not choose it (rtaudit system)",
			.evidence = cs_path });
		free(v);
		free(why);
	}
	for (int i = 0; i < n; i++) {
		char *subj = xasprintf("clocksource %s", names[i]);
		char *v = xasprintf("%.1f ns/call (%.1fx %s)", cost[i], cost[i] / best,
				    names[ibest]);
		bool slow = cost[i] > SLOW_RATIO * best;
		bool is_cur = !strcmp(names[i], cur);

		report_add(r, &(struct finding){
			.sev = slow && is_cur ? SEV_PROBLEM : SEV_INFO,
			.weight = 60 + (is_cur ? 1 : 0), .subject = subj, .new_value = v,
			.why = is_cur ? (slow ? "the current clock source is much slower than the best one available" :
					 "the current clock source") : "measured after switching to it",
			.fix = slow && is_cur ? "echo the fastest clock source > current_clocksource (and find why it was not chosen)" : NULL,
			.evidence = cs_path });
		free(subj);
		free(v);
	}
	return 0;
}

/* --- cross-CPU skew ---------------------------------------------------------- */
struct pair {
	int cpu_a, cpu_b, rounds;
	_Atomic uint64_t seq;
	_Atomic int64_t ts;
	int64_t min_ab, min_ba; /* smallest b-after-a and a-after-b deltas */
	int backwards;
	bool timeout;
};

static bool pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

static bool wait_seq(struct pair *p, uint64_t want)
{
	int64_t start = now_ns(CLOCK_MONOTONIC);
	unsigned spins = 0;

	while (atomic_load_explicit(&p->seq, memory_order_acquire) != want) {
		if (++spins % 4096 == 0) {
			if (p->timeout)
				return false;
			if (now_ns(CLOCK_MONOTONIC) - start > SPIN_TIMEOUT_NS) {
				p->timeout = true;
				return false;
			}
			sched_yield();
		}
	}
	return true;
}

static void *side_b(void *arg)
{
	struct pair *p = arg;

	pin(p->cpu_b);
	for (int k = 0; k < p->rounds; k++) {
		int64_t t1, t2;

		if (!wait_seq(p, 2 * (uint64_t)k + 1))
			break;
		t1 = atomic_load_explicit(&p->ts, memory_order_relaxed);
		t2 = now_ns(CLOCK_MONOTONIC);
		if (t2 - t1 < p->min_ab)
			p->min_ab = t2 - t1;
		if (t2 < t1)
			p->backwards++;
		atomic_store_explicit(&p->ts, t2, memory_order_relaxed);
		atomic_store_explicit(&p->seq, 2 * (uint64_t)k + 2, memory_order_release);
	}
	return NULL;
}

/* A stamps, B must read a later time; B stamps, A must read a later
 * time.  The smallest deltas bound the offset between the CPUs' clocks:
 * -min_ba <= offset(B - A) <= min_ab; a negative delta is time going
 * backwards between CPUs. */
static void run_pair(struct pair *p)
{
	pthread_t tb;

	p->min_ab = p->min_ba = INT64_MAX;
	if (pthread_create(&tb, NULL, side_b, p)) {
		p->timeout = true;
		return;
	}
	pin(p->cpu_a);
	for (int k = 0; k < p->rounds; k++) {
		int64_t t2, t3;

		atomic_store_explicit(&p->ts, now_ns(CLOCK_MONOTONIC), memory_order_relaxed);
		atomic_store_explicit(&p->seq, 2 * (uint64_t)k + 1, memory_order_release);
		if (!wait_seq(p, 2 * (uint64_t)k + 2))
			break;
		t2 = atomic_load_explicit(&p->ts, memory_order_relaxed);
		t3 = now_ns(CLOCK_MONOTONIC);
		if (t3 - t2 < p->min_ba)
			p->min_ba = t3 - t2;
		if (t3 < t2)
			p->backwards++;
	}
	pthread_join(tb, NULL);
}

static void measure_skew(struct report *r, const struct clock_opts *o)
{
	cpu_set_t orig;
	int cpus[CPU_SETSIZE], n = 0, pairs = 0;

	if (sched_getaffinity(0, sizeof(orig), &orig))
		return;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &orig))
			cpus[n++] = c;
	if (n < 2) {
		report_note(r, "skew: one CPU only, no cross-CPU test");
		return;
	}
	report_note(r, "method: skew = %d timestamp exchanges per CPU pair (CLOCK_MONOTONIC, spinning threads); the smallest one-way deltas bound the offset",
		    o->rounds);
	for (int i = 0; i < n && pairs < MAX_PAIRS; i++)
		for (int j = i + 1; j < n && pairs < MAX_PAIRS; j++, pairs++) {
			struct pair *p = calloc(1, sizeof(*p));
			char *subj, *v;

			if (!p)
				return;
			p->cpu_a = cpus[i];
			p->cpu_b = cpus[j];
			p->rounds = o->rounds;
			run_pair(p);
			subj = xasprintf("skew cpu%d-cpu%d", p->cpu_a, p->cpu_b);
			if (p->timeout) {
				v = xstrdup("no answer");
				report_add(r, &(struct finding){ .sev = SEV_INFO, .weight = 30,
					.subject = subj, .new_value = v,
					.why = "a partner thread did not answer within 2 s (CPU busy or offline): pair not measured" });
			} else {
				v = xasprintf("offset within [-%lld, +%lld] ns, %d backwards",
					      (long long)p->min_ba, (long long)p->min_ab, p->backwards);
				report_add(r, &(struct finding){
					.sev = p->backwards ? SEV_PROBLEM : SEV_INFO, .weight = 70,
					.subject = subj, .new_value = v,
					.why = p->backwards ? "CLOCK_MONOTONIC went backwards between these CPUs: their clocks are not synchronized" :
						"CLOCK_MONOTONIC was consistent between these CPUs in every exchange",
					.fix = p->backwards ? "check the TSC (rtaudit system) and the clock source" : NULL });
			}
			free(subj);
			free(v);
			free(p);
		}
	sched_setaffinity(0, sizeof(orig), &orig);
}

/* --- trace clocks against CLOCK_MONOTONIC ------------------------------------ */
/* one trace clock: markers carrying CLOCK_MONOTONIC, written from each CPU
 * in turn; error = spread of (trace timestamp - monotonic) */
static int trace_clock_error(const char *inst, const char *clock, int ms,
			     double *spread_us, double *offset_us)
{
	char *p_clock = xasprintf("%s/trace_clock", inst);
	char *p_marker = xasprintf("%s/trace_marker", inst);
	char *p_trace = xasprintf("%s/trace", inst), *t = NULL, err[ERRLEN];
	double lo = 1e300, hi = -1e300;
	cpu_set_t orig;
	int cpus[CPU_SETSIZE], ncpu = 0, seen = 0, fd;
	struct timespec gap = { 0, (long)ms * 1000000L / TRACE_MARKERS };

	sched_getaffinity(0, sizeof(orig), &orig);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &orig))
			cpus[ncpu++] = c;
	if (write_file(p_clock, clock) || write_file(p_trace, ""))
		goto out;
	fd = open(p_marker, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		goto out;
	for (int i = 0; i < TRACE_MARKERS; i++) {
		cpu_set_t one;
		char m[64];
		int len;

		CPU_ZERO(&one);
		CPU_SET(cpus[i % ncpu], &one);
		sched_setaffinity(0, sizeof(one), &one);
		len = snprintf(m, sizeof(m), "rtaudit %lld\n",
			       (long long)now_ns(CLOCK_MONOTONIC));
		if (write(fd, m, (size_t)len) != len)
			break;
		nanosleep(&gap, NULL);
	}
	close(fd);
	sched_setaffinity(0, sizeof(orig), &orig);
	if (read_text(p_trace, &t, 1u << 20, err, sizeof(err)))
		goto out;
	for (char *l = strstr(t, ": rtaudit "); l; l = strstr(l + 1, ": rtaudit ")) {
		char *b = l;
		long long mono;
		double ts;

		/* "...  12345.678901: tracing_mark_write: rtaudit N" */
		while (b > t && b[-1] != '\n')
			b--;
		char *stamp = strstr(b, ": tracing_mark_write");

		if (!stamp || stamp > l)
			continue;
		while (stamp > b && stamp[-1] != ' ')
			stamp--;
		if (sscanf(stamp, "%lf", &ts) != 1 || sscanf(l + 10, "%lld", &mono) != 1)
			continue;
		double d = ts * 1e6 - (double)mono / 1e3;

		if (d < lo)
			lo = d;
		if (d > hi)
			hi = d;
		seen++;
	}
out:
	free(t);
	free(p_clock);
	free(p_marker);
	free(p_trace);
	if (seen < 2)
		return -1;
	*spread_us = hi - lo;
	*offset_us = lo;
	return 0;
}

static void measure_trace_clocks(struct report *r, const struct clock_opts *o)
{
	static const char *const clocks[] = { "mono", "global", "local", "mono_raw", "boot" };
	char *inst = xasprintf("%s/sys/kernel/tracing/instances/rtaudit-%d", o->root,
			       (int)getpid());
	double best = 0;
	int ibest = -1;

	if (mkdir(inst, 0755)) {
		report_add(r, &(struct finding){ .sev = SEV_INFO, .weight = 10,
			.subject = (char *)"trace clock", .new_value = (char *)"not measured",
			.why = "cannot create a tracefs instance (needs root and tracefs at /sys/kernel/tracing)",
			.evidence = inst });
		free(inst);
		return;
	}
	report_note(r, "method: trace clock error = spread of (marker timestamp - CLOCK_MONOTONIC written in it), %d markers over %d ms rotating over the CPUs; trace timestamps have 1 us resolution",
		    TRACE_MARKERS, o->trace_ms);
	for (size_t i = 0; i < sizeof(clocks) / sizeof(*clocks); i++) {
		double spread, offset;
		char *subj = xasprintf("trace_clock %s", clocks[i]), *v;

		if (trace_clock_error(inst, clocks[i], o->trace_ms / (int)(sizeof(clocks) / sizeof(*clocks)),
				      &spread, &offset)) {
			free(subj);
			continue;
		}
		v = xasprintf("error %.1f us over the run (offset %.1f us to CLOCK_MONOTONIC)",
			      spread, offset);
		report_add(r, &(struct finding){ .sev = SEV_INFO, .weight = 40,
			.subject = subj, .new_value = v,
			.why = !strcmp(clocks[i], "local") ? "per-CPU clock: not comparable across CPUs by design" :
			       "trace clock compared with CLOCK_MONOTONIC" });
		if (strcmp(clocks[i], "local") && (ibest < 0 || spread < best)) {
			best = spread;
			ibest = (int)i;
		}
		free(subj);
		free(v);
	}
	rmdir(inst);
	if (ibest >= 0) {
		char *v = xasprintf("trace_clock=%s", clocks[ibest]);

		report_add(r, &(struct finding){ .sev = SEV_INFO, .weight = 90,
			.subject = (char *)"recommendation", .new_value = v,
			.why = "the cross-CPU trace clock closest to CLOCK_MONOTONIC in this run: timestamps of different CPUs and of user space line up",
			.fix = "echo it > /sys/kernel/tracing/trace_clock (and each instance's)" });
		free(v);
	}
	free(inst);
}

int clock_measure(struct report *r, const struct clock_opts *o, char *err,
		  size_t errlen)
{
	if (measure_clocksources(r, o, err, errlen))
		return -1;
	measure_clock_ids(r);
	measure_skew(r, o);
	measure_trace_clocks(r, o);
	return 0;
}
