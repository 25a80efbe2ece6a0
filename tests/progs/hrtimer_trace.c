// SPDX-License-Identifier: GPL-2.0
/*
 * hrtimer_trace: the trace analysis of the hrtimer sleeper test
 * (tests/guest/30-hrtimer-mode.sh) and of the hrtimer storm benchmark
 * (bench/guest/hrtimer-storm.sh), on the binary ring buffer through
 * libtracefs/libtraceevent instead of awk over ftrace's text.
 *
 *   hrtimer_trace mode  --want hard|soft --label L --ws-json F --ws-rc RC
 *   hrtimer_trace storm --expect softirq|hardirq --label L --ws-json F
 *                       --ws-rc RC --threads N --iters K --cpu C [--summary F]
 *       read the timer events of a wakestorm run (tracing stopped), print
 *       diagnostics and TAP points (kselftest style; the calling shell
 *       renumbers them), exit 1 if a point failed
 *   hrtimer_trace irq --cpu C --iters K --period-ms P [--ws-json F]
 *                     [--durations F]
 *       read a function_graph trace of hrtimer_interrupt and print
 *       "median p99 max expiries_found us_per_s interrupts" (us): the hard
 *       interrupt time spent on each of the K common expiries of a storm
 *   hrtimer_trace timerlat --tail US
 *       read a timerlat trace and print "irq_avg irq_p99 irq_max irq_tail
 *       thr_avg thr_p99 thr_max thr_tail samples" (us)
 *   hrtimer_trace overrun [--cpu C]
 *       events the ring buffer lost (all CPUs, or CPU C)
 *   hrtimer_trace report RESULTS TAILS TIMERLAT TAU KERNEL ACCEL CPU ITERS
 *                        HARD_IRQ_SHOWN CYCLICTEST_SHOWN OUT
 *       write the benchmark's summary JSON from its tables
 *
 * Reading consumes the buffer (trace_pipe_raw), so each command reads the
 * trace of one run once. --instance NAME reads a tracefs instance instead
 * of the top buffer.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <tracefs/tracefs.h>

#include "rtlab/die.h"
#include "rtlab/json.h"
#include "rtlab/tap.h"
#include "rtlab/time.h"

/* enum hrtimer_mode (include/linux/hrtimer.h, 6.12) */
#define HRTIMER_MODE_REL	0x01
#define HRTIMER_MODE_PINNED	0x02
#define HRTIMER_MODE_SOFT	0x04
#define HRTIMER_MODE_HARD	0x08
#define HRTIMER_MODES		16

/* enum trace_flag_type (include/linux/trace_events.h, 6.12): common_flags */
#define TRACE_FLAG_HARDIRQ	0x08
#define TRACE_FLAG_SOFTIRQ	0x10
#define TRACE_FLAG_NMI		0x40
#define TRACE_FLAG_BH_OFF	0x80

/* timerlat's context field (kernel/trace/trace_osnoise.c) */
#define TIMERLAT_CTX_IRQ	0
#define TIMERLAT_CTX_THREAD	1
#define TIMERLAT_SKIP_SEQ	10	/* the first samples include the start */

#define SLEEPER_FUNC		"hrtimer_wakeup"
#define IRQ_FUNC		"hrtimer_interrupt"
#define WAKESTORM_PREFIX	"wakestorm/"
#define MAX_CPUS		64
#define MAX_TASKS		64
#define COMM_LEN		32
#define OURS_SLOTS		(1u << 16)	/* > a storm's live timers */
#define OURS_TOMB		1		/* a deleted slot (no address) */
#define WINDOW_EARLY_NS		(20 * RTLAB_NSEC_PER_USEC)
#define KALLSYMS		"/proc/kallsyms"

/* ---- reading the buffer ---------------------------------------------- */

/* the tracefs instance read (--instance), NULL: the top one */
static struct tracefs_instance *instance;

static void open_instance(const char *name)
{
	if (!name)
		return;
	if (!tracefs_instance_exists(name))
		die("no tracefs instance %s", name);
	instance = tracefs_instance_alloc(NULL, name);
	if (!instance)
		die("cannot open tracefs instance %s", name);
}

static void iterate(struct tep_handle *tep, int (*cb)(struct tep_event *, struct tep_record *, int, void *),
		    void *data)
{
	if (tracefs_iterate_raw_events(tep, instance, NULL, 0, cb, data) < 0)
		die("cannot read the trace buffer");
}

static struct tep_handle *open_trace(void)
{
	struct tep_handle *tep = tracefs_local_events(NULL);
	FILE *f;
	char *buf = NULL;
	size_t len = 0, got;
	char chunk[1 << 16];

	if (!tep)
		die("cannot read the trace event formats from tracefs");
	if (tracefs_load_cmdlines(NULL, tep) < 0)
		die("cannot read saved_cmdlines");
	/* function addresses to names: the sleepers' and the interrupt's */
	f = fopen(KALLSYMS, "r");
	if (!f)
		die("%s: %m", KALLSYMS);
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		char *nb = realloc(buf, len + got + 1);

		if (!nb)
			die("out of memory");
		buf = nb;
		memcpy(buf + len, chunk, got);
		len += got;
	}
	fclose(f);
	if (!buf)
		die("%s: empty", KALLSYMS);
	buf[len] = '\0';
	if (tep_parse_kallsyms(tep, buf) < 0)
		die("%s: cannot parse", KALLSYMS);
	free(buf);
	return tep;
}

static unsigned long long field(struct tep_event *ev, struct tep_record *rec, const char *name)
{
	unsigned long long v = 0;

	if (tep_get_field_val(NULL, ev, name, rec, &v, 0) < 0)
		die("event %s/%s has no field %s", ev->system, ev->name, name);
	return v;
}

/* func_is: whether addr is the function name (the answer cached per name) */
struct func_cache { const char *name; unsigned long long addr; bool known; };

static bool func_is(struct tep_handle *tep, struct func_cache *fc, unsigned long long addr)
{
	const char *n;

	if (fc->known)
		return addr == fc->addr;
	n = tep_find_function(tep, addr);
	if (!n || strcmp(n, fc->name))
		return false;
	fc->addr = addr;
	fc->known = true;
	return true;
}

static bool is_event(struct tep_event *ev, const char *sys, const char *name)
{
	return !strcmp(ev->system, sys) && !strcmp(ev->name, name);
}

/* overrun: events lost by CPU cpu's buffer (stats file, "overrun: N") */
static unsigned long long cpu_overrun(int cpu)
{
	char path[64], *stats, *p;
	unsigned long long n = 0;

	snprintf(path, sizeof(path), "per_cpu/cpu%d/stats", cpu);
	stats = tracefs_instance_file_read(instance, path, NULL);
	if (!stats)
		return 0;	/* no such CPU */
	p = strstr(stats, "overrun:");
	if (!p || sscanf(p, "overrun: %llu", &n) != 1)
		die("%s: no overrun line", path);
	free(stats);
	return n;
}

static unsigned long long overrun(int only_cpu)
{
	unsigned long long n = 0;
	int cpu;

	if (only_cpu >= 0)
		return cpu_overrun(only_cpu);
	for (cpu = 0; cpu < MAX_CPUS; cpu++)
		n += cpu_overrun(cpu);
	return n;
}

/* ---- wakestorm's JSON report ----------------------------------------- */

struct ws_report { bool ok; double wakeups, missed, start_ns, spread_median; };

static struct ws_report read_ws_json(const char *path)
{
	struct ws_report r = { 0 };
	FILE *f = fopen(path, "r");
	char buf[1 << 16];
	size_t len;
	cJSON *j, *s;

	if (!f)
		return r;	/* wakestorm failed before writing it */
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	j = cJSON_Parse(buf);
	if (!j)
		die("%s:1: not JSON", path);
	r.ok = cJSON_IsNumber(cJSON_GetObjectItem(j, "wakeups"));
	r.wakeups = cJSON_GetNumberValue(cJSON_GetObjectItem(j, "wakeups"));
	r.missed = cJSON_GetNumberValue(cJSON_GetObjectItem(j, "missed"));
	r.start_ns = cJSON_GetNumberValue(cJSON_GetObjectItem(j, "start_ns"));
	s = cJSON_GetObjectItem(j, "spread_ns");
	r.spread_median = cJSON_GetNumberValue(cJSON_GetObjectItem(s, "median"));
	cJSON_Delete(j);
	return r;
}

/* ---- sleeper timers: modes and expiry contexts ----------------------- */

struct count { char name[COMM_LEN]; unsigned long n; };

struct sleepers {
	struct tep_handle *tep;
	struct func_cache wakeup;
	unsigned long start[HRTIMER_MODES], init[HRTIMER_MODES];
	unsigned long expired, hard, soft, other_ctx;
	unsigned long cpu[MAX_CPUS];
	struct count by[MAX_TASKS];
	unsigned int nby;
	uint64_t ours[OURS_SLOTS];	/* started, not yet expired timers */
};

static unsigned int slot_of(uint64_t addr)
{
	return (unsigned int)(((addr >> 4) * 0x9e3779b97f4a7c15ull) >> 48) & (OURS_SLOTS - 1);
}

/* ours_find: the slot holding addr, or where to put it (*found false) */
static unsigned int ours_find(struct sleepers *s, uint64_t addr, bool *found)
{
	unsigned int i = slot_of(addr), free_slot = OURS_SLOTS, probes;

	for (probes = 0; probes < OURS_SLOTS; probes++, i = (i + 1) & (OURS_SLOTS - 1)) {
		if (s->ours[i] == addr) {
			*found = true;
			return i;
		}
		if (s->ours[i] == OURS_TOMB && free_slot == OURS_SLOTS)
			free_slot = i;
		if (!s->ours[i])
			break;
	}
	*found = false;
	if (free_slot == OURS_SLOTS && probes == OURS_SLOTS)
		die("more than %u sleeper timers in flight", OURS_SLOTS);
	return free_slot != OURS_SLOTS ? free_slot : i;
}

static void count_task(struct sleepers *s, const char *comm)
{
	unsigned int i;

	for (i = 0; i < s->nby; i++)
		if (!strcmp(s->by[i].name, comm))
			break;
	if (i == s->nby) {
		if (s->nby == MAX_TASKS)
			die("more than %d tasks expired sleeper timers", MAX_TASKS);
		snprintf(s->by[i].name, COMM_LEN, "%s", comm);
		s->nby++;
	}
	s->by[i].n++;
}

/* the irq-info column of ftrace's text ('h' hard irq, 's' softirq) */
static char irq_context(unsigned long long flags)
{
	bool hard = flags & TRACE_FLAG_HARDIRQ, soft = flags & TRACE_FLAG_SOFTIRQ;

	if (flags & TRACE_FLAG_NMI)
		return hard ? 'Z' : 'z';
	if (hard)
		return soft ? 'H' : 'h';
	if (soft)
		return 's';
	return (flags & TRACE_FLAG_BH_OFF) ? 'b' : '.';
}

static void expired_one(struct sleepers *s, struct tep_event *ev, struct tep_record *rec, int cpu)
{
	unsigned long long flags = 0;
	char ctx;

	if (tep_get_common_field_val(NULL, ev, "common_flags", rec, &flags, 0) < 0)
		die("event %s has no common_flags", ev->name);
	ctx = irq_context(flags);
	s->expired++;
	if (ctx == 'h' || ctx == 'H')
		s->hard++;
	else if (ctx == 's')
		s->soft++;
	else
		s->other_ctx++;
	count_task(s, tep_data_comm_from_pid(s->tep, tep_data_pid(s->tep, rec)));
	if (cpu >= 0 && cpu < MAX_CPUS)
		s->cpu[cpu]++;
}

/*
 * A start by a wakestorm thread of a sleeper timer (function hrtimer_wakeup)
 * arms it; the next expire_entry of the same hrtimer address is its expiry.
 */
static int sleeper_event(struct tep_event *ev, struct tep_record *rec, int cpu, void *data)
{
	struct sleepers *s = data;
	const char *comm = tep_data_comm_from_pid(s->tep, tep_data_pid(s->tep, rec));
	bool storm = !strncmp(comm, WAKESTORM_PREFIX, strlen(WAKESTORM_PREFIX));
	unsigned long long addr;
	unsigned int slot;
	bool found;

	if (is_event(ev, "timer", "hrtimer_init")) {
		if (storm)
			s->init[field(ev, rec, "mode") % HRTIMER_MODES]++;
		return 0;
	}
	if (!is_event(ev, "timer", "hrtimer_start") && !is_event(ev, "timer", "hrtimer_expire_entry"))
		return 0;
	if (!func_is(s->tep, &s->wakeup, field(ev, rec, "function")))
		return 0;
	addr = field(ev, rec, "hrtimer");
	slot = ours_find(s, addr, &found);
	if (is_event(ev, "timer", "hrtimer_start")) {
		if (!storm)
			return 0;
		s->start[field(ev, rec, "mode") % HRTIMER_MODES]++;
		s->ours[slot] = addr;
	} else if (found) {
		s->ours[slot] = OURS_TOMB;
		expired_one(s, ev, rec, cpu);
	}
	return 0;
}

static struct sleepers *read_sleepers(void)
{
	struct sleepers *s = calloc(1, sizeof(*s));

	if (!s)
		die("out of memory");
	s->tep = open_trace();
	s->wakeup.name = SLEEPER_FUNC;
	iterate(s->tep, sleeper_event, s);
	return s;
}

static const char *mode_name(unsigned int m)
{
	static char buf[32];

	snprintf(buf, sizeof(buf), "%s%s%s%s", m & HRTIMER_MODE_REL ? "REL" : "ABS",
		 m & HRTIMER_MODE_PINNED ? "|PINNED" : "", m & HRTIMER_MODE_SOFT ? "|SOFT" : "",
		 m & HRTIMER_MODE_HARD ? "|HARD" : "");
	return buf;
}

#define MODES_TEXT_LEN 512

/* modes_text: "MODE xCOUNT ..." of a per-mode count into buf */
static const char *modes_text(char *buf, const unsigned long *count, unsigned long *total,
			      unsigned long *hard)
{
	const size_t size = MODES_TEXT_LEN;
	size_t len = 0;
	unsigned int m;

	buf[0] = '\0';
	*total = *hard = 0;
	for (m = 0; m < HRTIMER_MODES; m++) {
		if (!count[m])
			continue;
		len += snprintf(buf + len, size - len, "%s x%lu ", mode_name(m), count[m]);
		*total += count[m];
		if (m & HRTIMER_MODE_HARD)
			*hard += count[m];
		if (len >= size)
			break;
	}
	return buf;
}

static int by_count_desc(const void *a, const void *b)
{
	const struct count *x = a, *y = b;

	return (y->n > x->n) - (y->n < x->n);
}

/* ---- command line ---------------------------------------------------- */

struct opts {
	const char *cmd, *want, *label, *ws_json, *summary, *durations, *instance;
	int ws_rc, threads, iters, cpu;
	double period_ms, tail_us;
};

static void usage(void)
{
	puts("usage: hrtimer_trace mode --want hard|soft --label L --ws-json F --ws-rc RC\n"
	     "       hrtimer_trace storm --expect softirq|hardirq --label L --ws-json F --ws-rc RC\n"
	     "                           --threads N --iters K --cpu C [--summary F]\n"
	     "       hrtimer_trace irq --cpu C --iters K --period-ms P [--ws-json F] [--durations F]\n"
	     "       hrtimer_trace timerlat --tail US\n"
	     "       hrtimer_trace overrun [--cpu C]\n"
	     "       hrtimer_trace report RESULTS TAILS TIMERLAT TAU KERNEL ACCEL CPU ITERS\n"
	     "                            HARD_IRQ_SHOWN CYCLICTEST_SHOWN OUT.json\n"
	     "Each reading command takes --instance NAME to read a tracefs instance.\n"
	     "Reads the trace buffer (tracefs, binary) of the hrtimer sleeper test or the\n"
	     "hrtimer storm benchmark; see the comment at the top of hrtimer_trace.c.");
}

static int int_arg(const char *s, const char *opt)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || end == s || v < -1 || v > 1000000000)
		die_usage("%s: not a number: %s", opt, s);
	return (int)v;
}

static double num_arg(const char *s, const char *opt)
{
	char *end;
	double v = strtod(s, &end);

	if (*end || end == s || v < 0)
		die_usage("%s: not a number: %s", opt, s);
	return v;
}

static struct opts parse_opts(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "want", required_argument, NULL, 'w' }, { "expect", required_argument, NULL, 'w' },
		{ "label", required_argument, NULL, 'l' }, { "ws-json", required_argument, NULL, 'j' },
		{ "ws-rc", required_argument, NULL, 'r' }, { "threads", required_argument, NULL, 'n' },
		{ "iters", required_argument, NULL, 'i' }, { "cpu", required_argument, NULL, 'c' },
		{ "summary", required_argument, NULL, 's' }, { "period-ms", required_argument, NULL, 'p' },
		{ "durations", required_argument, NULL, 'd' }, { "tail", required_argument, NULL, 't' },
		{ "instance", required_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' }, { 0 } };
	struct opts o = { .label = "", .ws_rc = -1, .cpu = -1, .iters = 1 };
	int c;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage();
		exit(0);
	}
	if (argc < 2)
		die_usage("no command");
	o.cmd = argv[1];
	optind = 2;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'w': o.want = optarg; break;
		case 'l': o.label = optarg; break;
		case 'j': o.ws_json = optarg; break;
		case 'r': o.ws_rc = int_arg(optarg, "--ws-rc"); break;
		case 'n': o.threads = int_arg(optarg, "--threads"); break;
		case 'i': o.iters = int_arg(optarg, "--iters"); break;
		case 'c': o.cpu = int_arg(optarg, "--cpu"); break;
		case 's': o.summary = optarg; break;
		case 'p': o.period_ms = num_arg(optarg, "--period-ms"); break;
		case 'd': o.durations = optarg; break;
		case 't': o.tail_us = num_arg(optarg, "--tail"); break;
		case 'I': o.instance = optarg; break;
		case 'h': usage(); exit(0);
		default: die_usage("bad option");
		}
	}
	if (optind != argc)
		die_usage("unexpected argument: %s", argv[optind]);
	if (o.cpu >= MAX_CPUS || o.iters < 1)
		die_usage("--cpu below %d, --iters at least 1", MAX_CPUS);
	return o;
}

/* ---- mode: the mode each policy's sleepers armed --------------------- */

static int run_mode(const struct opts *o)
{
	bool hard_wanted;
	struct ws_report ws;
	struct sleepers *s;
	unsigned long starts, hard, inits, ihard;
	char armed[MODES_TEXT_LEN], inited[MODES_TEXT_LEN];

	if (!o->want || (strcmp(o->want, "hard") && strcmp(o->want, "soft")) || !o->ws_json)
		die_usage("mode needs --want hard|soft and --ws-json");
	hard_wanted = !strcmp(o->want, "hard");
	tap_header(0);
	if (overrun(-1)) {
		tap_result(false, "%s: sleepers armed %s timers (trace incomplete: %llu events lost)",
			   o->label, hard_wanted ? "HARD" : "SOFT", overrun(-1));
		tap_plan_end();
		return tap_exit();
	}
	ws = read_ws_json(o->ws_json);
	s = read_sleepers();
	modes_text(armed, s->start, &starts, &hard);
	modes_text(inited, s->init, &inits, &ihard);
	diag("%s: wakestorm exit %d, %.0f wake-ups; armed: %s; hrtimer_init events from the sleepers: %lu (%s)",
	     o->label, o->ws_rc, ws.wakeups, armed, inits, inited);
	if (o->ws_rc != 0 || !ws.ok || ws.wakeups < 1 || starts < ws.wakeups) {
		tap_result(false, "%s: sleepers armed %s timers (exit %d, %.0f wake-ups, %lu traced starts)",
			   o->label, hard_wanted ? "HARD" : "SOFT", o->ws_rc, ws.wakeups, starts);
	} else if (hard_wanted) {
		tap_result(hard == starts, "%s: all %lu sleeper timers armed ABS|HARD", o->label, starts);
	} else {
		tap_result(hard == 0, "%s: all %lu sleeper timers armed without HARD", o->label, starts);
	}
	tap_plan_end();
	return tap_exit();
}

/* ---- storm: where a storm's sleeper timers expired ------------------- */

static void write_summary(const char *path, const struct sleepers *s)
{
	cJSON *j = cJSON_CreateObject(), *starts, *by, *cpus;
	unsigned int i;
	char key[16], *text;
	FILE *f;

	starts = cJSON_AddObjectToObject(j, "start");
	for (i = 0; i < HRTIMER_MODES; i++)
		if (s->start[i])
			cJSON_AddNumberToObject(starts, mode_name(i), s->start[i]);
	cJSON_AddNumberToObject(j, "expired", s->expired);
	cJSON_AddNumberToObject(j, "hardirq", s->hard);
	cJSON_AddNumberToObject(j, "softirq", s->soft);
	cJSON_AddNumberToObject(j, "other_context", s->other_ctx);
	by = cJSON_AddObjectToObject(j, "expired_by");
	for (i = 0; i < s->nby; i++)
		cJSON_AddNumberToObject(by, s->by[i].name, s->by[i].n);
	cpus = cJSON_AddObjectToObject(j, "expired_on_cpu");
	for (i = 0; i < MAX_CPUS; i++) {
		if (!s->cpu[i])
			continue;
		snprintf(key, sizeof(key), "%u", i);
		cJSON_AddNumberToObject(cpus, key, s->cpu[i]);
	}
	text = cJSON_Print(j);
	f = fopen(path, "w");
	if (!f || !text || fprintf(f, "%s\n", text) < 0 || fclose(f))
		die("%s: cannot write", path);
	free(text);
	cJSON_Delete(j);
}

/* storm_ctx: the points on where the expiries ran, given they all were traced */
static void storm_ctx(const struct opts *o, struct sleepers *s, bool soft_wanted)
{
	char ksoftirqd[COMM_LEN], ktimers[COMM_LEN];
	unsigned long bythread = 0, byidle = 0;
	unsigned int i;

	if (!soft_wanted) {
		tap_result(s->hard == s->expired, "%s storm: all %lu expired in hard interrupt context",
			   o->label, s->expired);
		return;
	}
	tap_result(s->hard == 0, "%s storm: no sleeper timer expired in hard interrupt context", o->label);
	tap_result(s->soft == s->expired, "%s storm: all %lu expired in softirq context", o->label, s->expired);
	/*
	 * 6.12 runs the hrtimer softirq raised by the hard interrupt in
	 * ksoftirqd/N (later kernels: a dedicated ktimers/N thread), or in
	 * whichever task re-enables bottom halves while it is pending:
	 * PREEMPT_RT's local_bh_enable() runs pending softirqs itself (the
	 * storm's own threads did so for a whole batch in a CI run of
	 * 2026-12-06).  What RT never does is run them on an interrupt's
	 * exit, which would show as the idle task or any task interrupted.
	 * So: every expiry in a task, none in the idle task; the softirq
	 * threads' part is reported.
	 */
	snprintf(ksoftirqd, sizeof(ksoftirqd), "ksoftirqd/%d", o->cpu);
	snprintf(ktimers, sizeof(ktimers), "ktimers/%d", o->cpu);
	for (i = 0; i < s->nby; i++) {
		if (!strcmp(s->by[i].name, ksoftirqd) || !strcmp(s->by[i].name, ktimers))
			bythread += s->by[i].n;
		else if (!strcmp(s->by[i].name, "<idle>") || !strncmp(s->by[i].name, "swapper/", 8))
			byidle += s->by[i].n;
	}
	tap_result(s->expired > 0 && byidle == 0,
		   "%s storm: expired in a task, none in the idle task: %lu of %lu by CPU %d's softirq thread (%s or %s), the rest at a task's local_bh_enable()",
		   o->label, bythread, s->expired, o->cpu, ksoftirqd, ktimers);
}

static int run_storm(const struct opts *o)
{
	bool soft_wanted, complete;
	unsigned long long lost = overrun(-1);
	struct ws_report ws;
	struct sleepers *s;
	char top[256];
	size_t len = 0;
	unsigned int i;
	double want;

	if (!o->want || (strcmp(o->want, "softirq") && strcmp(o->want, "hardirq")) ||
	    !o->ws_json || o->threads < 1 || o->cpu < 0)
		die_usage("storm needs --expect softirq|hardirq, --ws-json, --threads, --cpu");
	soft_wanted = !strcmp(o->want, "softirq");
	complete = lost == 0;
	ws = read_ws_json(o->ws_json);
	s = read_sleepers();
	if (o->summary)
		write_summary(o->summary, s);
	qsort(s->by, s->nby, sizeof(s->by[0]), by_count_desc);
	top[0] = '\0';
	for (i = 0; i < s->nby && i < 6; i++)
		len += snprintf(top + len, sizeof(top) - len, "%s x%lu ", s->by[i].name, s->by[i].n);
	want = (double)o->threads * o->iters;

	tap_header(0);
	if (!complete)
		diag("trace buffer overran: %llu events lost", lost);
	diag("%s storm: exit %d, %.0f wake-ups, %lu traced expiries: %lu in hard irq, %lu in softirq; expired by (top 6): %s",
	     o->label, o->ws_rc, ws.wakeups, s->expired, s->hard, s->soft, top);
	diag("%s storm: per expiry spread median %.0f ns; missed %.0f", o->label, ws.spread_median, ws.missed);
	tap_result(o->ws_rc == 0 && ws.ok && ws.wakeups == want,
		   "%s storm: %d threads on CPU %d woke %d times each (exit %d, %.0f wake-ups)",
		   o->label, o->threads, o->cpu, o->iters, o->ws_rc, ws.wakeups);
	/* a storm only when every thread was asleep at every expiry */
	tap_result(ws.ok && ws.missed == 0,
		   "%s storm: all %d threads were asleep at each expiry (a real storm)", o->label, o->threads);
	if (!tap_result(complete && ws.wakeups > 0 && s->expired >= ws.wakeups && s->cpu[o->cpu] == s->expired,
			"%s storm: every wake-up has a traced expiry of its timer, on CPU %d (%lu traced, %lu on CPU %d, %.0f wake-ups, trace complete: %s)",
			o->label, o->cpu, s->expired, s->cpu[o->cpu], o->cpu, ws.wakeups, complete ? "yes" : "no")) {
		tap_plan_end();
		return tap_exit();
	}
	storm_ctx(o, s, soft_wanted);
	tap_plan_end();
	return tap_exit();
}

/* ---- irq: hard interrupt time per storm expiry (function_graph) ------ */

struct irq_trace {
	struct tep_handle *tep;
	struct func_cache entry_fn, exit_fn;
	unsigned long long open_ts[MAX_CPUS];	/* entry timestamp, 0: none */
	uint64_t *start, *dur;			/* ns */
	size_t n, cap;
};

/* a leaf call of hrtimer_interrupt: its entry's time, its duration */
static int irq_event(struct tep_event *ev, struct tep_record *rec, int cpu, void *data)
{
	struct irq_trace *t = data;
	unsigned long long func;

	if (cpu < 0 || cpu >= MAX_CPUS)
		return 0;
	if (is_event(ev, "ftrace", "funcgraph_entry")) {
		func = field(ev, rec, "func");
		t->open_ts[cpu] = func_is(t->tep, &t->entry_fn, func) ? rec->ts : 0;
		return 0;
	}
	if (!is_event(ev, "ftrace", "funcgraph_exit") || !t->open_ts[cpu])
		return 0;
	if (!func_is(t->tep, &t->exit_fn, field(ev, rec, "func")))
		return 0;
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 4096;
		t->start = realloc(t->start, t->cap * sizeof(*t->start));
		t->dur = realloc(t->dur, t->cap * sizeof(*t->dur));
		if (!t->start || !t->dur)
			die("out of memory");
	}
	t->start[t->n] = t->open_ts[cpu];
	t->dur[t->n] = field(ev, rec, "rettime") - field(ev, rec, "calltime");
	t->n++;
	t->open_ts[cpu] = 0;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* nearest rank: the smallest value at or above p percent of n sorted values */
static double rank(const double *v, size_t n, double p)
{
	size_t need = (size_t)(n * p / 100.0 + 0.999);

	return v[need ? need - 1 : 0];
}

static void write_durations(const char *path, const struct irq_trace *t)
{
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f)
		die("%s: %m", path);
	for (i = 0; i < t->n; i++)
		fprintf(f, "%.6f %.3f\n", (double)t->start[i] / RTLAB_NSEC_PER_SEC,
			(double)t->dur[i] / RTLAB_NSEC_PER_USEC);
	if (fclose(f))
		die("%s: cannot write", path);
}

/*
 * For each of the K common expiries T = t0 + j * period the first
 * hrtimer_interrupt starting in [T - 20 us, T + period / 2] is the one that
 * expired the storm's timers (soft expiry T, hard T plus the slack); -1 if
 * none. t0 is the storm's first expiry, or one period after the first traced
 * interrupt for a run without a storm.
 */
static int run_irq(const struct opts *o)
{
	struct irq_trace t = { 0 };
	struct ws_report ws = { 0 };
	double *v, total = 0, span, per_s;
	uint64_t t0, period = (uint64_t)(o->period_ms * RTLAB_NSEC_PER_MSEC);
	size_t i;
	int j, found = 0, k = o->iters;

	if (o->cpu < 0 || period == 0)
		die_usage("irq needs --cpu and --period-ms");
	if (o->ws_json)
		ws = read_ws_json(o->ws_json);
	t.tep = open_trace();
	t.entry_fn.name = t.exit_fn.name = IRQ_FUNC;
	iterate(t.tep, irq_event, &t);
	if (o->durations)
		write_durations(o->durations, &t);
	v = calloc((size_t)k, sizeof(*v));
	if (!v)
		die("out of memory");
	t0 = ws.ok && ws.start_ns > 0 ? (uint64_t)ws.start_ns : (t.n ? t.start[0] + period : 0);
	for (j = 0; j < k; j++) {
		uint64_t at = t0 + (uint64_t)j * period;

		v[j] = -1;
		for (i = 0; i < t.n; i++)
			if (t.start[i] + WINDOW_EARLY_NS >= at && t.start[i] <= at + period / 2) {
				v[j] = (double)t.dur[i] / RTLAB_NSEC_PER_USEC;
				found++;
				break;
			}
	}
	for (i = 0; i < t.n; i++)
		total += (double)t.dur[i] / RTLAB_NSEC_PER_USEC;
	span = t.n ? (double)(t.start[t.n - 1] - t.start[0]) / RTLAB_NSEC_PER_SEC : 0;
	per_s = span > 0 ? total / span : 0;
	qsort(v, (size_t)k, sizeof(*v), cmp_double);
	printf("%.1f %.1f %.1f %d %.0f %zu\n", v[(k + 1) / 2 - 1], rank(v, (size_t)k, 99), v[k - 1],
	       found, per_s, t.n);
	free(v);
	return 0;
}

/* ---- timerlat: a wake-up's latency split into irq and thread --------- */

struct lat { double *us; size_t n, cap; double sum; };
struct timerlat { struct lat ctx[2]; };

static int timerlat_event(struct tep_event *ev, struct tep_record *rec, int cpu, void *data)
{
	struct timerlat *t = data;
	unsigned long long c;
	struct lat *l;

	(void)cpu;
	if (!is_event(ev, "ftrace", "timerlat") || field(ev, rec, "seqnum") <= TIMERLAT_SKIP_SEQ)
		return 0;
	c = field(ev, rec, "context");
	if (c != TIMERLAT_CTX_IRQ && c != TIMERLAT_CTX_THREAD)
		return 0;
	l = &t->ctx[c];
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 4096;
		l->us = realloc(l->us, l->cap * sizeof(*l->us));
		if (!l->us)
			die("out of memory");
	}
	/* whole microseconds, as the histogram buckets of 1 us */
	l->us[l->n] = (double)(field(ev, rec, "timer_latency") / RTLAB_NSEC_PER_USEC);
	l->sum += l->us[l->n++];
	return 0;
}

static void print_lat(struct lat *l, double tail_us)
{
	size_t i, tail = 0;

	if (!l->n) {
		printf("null null null null");
		return;
	}
	qsort(l->us, l->n, sizeof(*l->us), cmp_double);
	for (i = 0; i < l->n; i++)
		tail += l->us[i] >= tail_us;
	printf("%.1f %.0f %.0f %zu", l->sum / l->n, rank(l->us, l->n, 99), l->us[l->n - 1], tail);
}

static int run_timerlat(const struct opts *o)
{
	struct timerlat t = { 0 };
	struct tep_handle *tep = open_trace();

	iterate(tep, timerlat_event, &t);
	print_lat(&t.ctx[TIMERLAT_CTX_IRQ], o->tail_us);
	putchar(' ');
	print_lat(&t.ctx[TIMERLAT_CTX_THREAD], o->tail_us);
	printf(" %zu\n", t.ctx[TIMERLAT_CTX_THREAD].n);
	return 0;
}

/* ---- report: the benchmark's summary.json ----------------------------- */

#define REPORT_COLS		20	/* hrtimer-storm.sh's results columns */
#define TIMERLAT_COLS		10
#define REPORT_ROWS		16
#define REPORT_LINE		1024
#define BENCH_METHOD \
	"cyclictest -p99 -i1000 -a%d -h; wakestorm storms pinned to CPU %d; hard irq time per storm expiry = duration of the first hrtimer_interrupt (function_graph, trace_clock mono) starting at or after each common expiry (window T-20us..T+period/2); cyclictest tail = samples >= half of scenario c median hard irq time; under TCG compare ratios only"

struct table { char cell[REPORT_ROWS][TIMERLAT_COLS > REPORT_COLS ? TIMERLAT_COLS : REPORT_COLS][COMM_LEN]; int rows; };

/* read_table: whitespace-separated rows of exactly cols words */
static void read_table(const char *path, int cols, struct table *t)
{
	FILE *f = fopen(path, "r");
	char line[REPORT_LINE];
	int lineno = 0;

	if (!f)
		die("%s: %m", path);
	t->rows = 0;
	while (fgets(line, sizeof(line), f)) {
		char *save = NULL, *w = strtok_r(line, " \t\n", &save);
		int c = 0;

		lineno++;
		if (!w)
			continue;
		if (t->rows == REPORT_ROWS)
			die("%s:%d: more than %d rows", path, lineno, REPORT_ROWS);
		for (; w; w = strtok_r(NULL, " \t\n", &save), c++)
			if (c < cols)
				snprintf(t->cell[t->rows][c], COMM_LEN, "%s", w);
		if (c != cols)
			die("%s:%d: %d words, want %d", path, lineno, c, cols);
		t->rows++;
	}
	fclose(f);
}

/* cell: a table's word (column 1 = name) of row name, NULL if absent */
static const char *cell(const struct table *t, const char *name, int col)
{
	int r;

	for (r = 0; r < t->rows; r++)
		if (!strcmp(t->cell[r][0], name))
			return t->cell[r][col - 1];
	return NULL;
}

/* a figure, or null where the script had none ("?", "null", "overflow") */
static cJSON *figure(const char *w)
{
	char *end;
	double v;

	if (!w)
		return cJSON_CreateNull();
	v = strtod(w, &end);
	return (end == w || *end) ? cJSON_CreateNull() : cJSON_CreateNumber(v);
}

static void add_figures(cJSON *o, const struct table *t, const char *row, const char *const *keys, const int *cols)
{
	for (; *keys; keys++, cols++)
		cJSON_AddItemToObject(o, *keys, figure(cell(t, row, *cols)));
}

/* ratio of scenario b (or c) to a in a results column, two decimals */
static cJSON *ratio_to_a(const struct table *t, const char *b, int col)
{
	const char *x = cell(t, "a", col), *y = cell(t, b, col);
	double a = x ? strtod(x, NULL) : 0;

	if (!y || a <= 0)
		return cJSON_CreateNull();
	return cJSON_CreateNumber(rtlab_json_round(strtod(y, NULL) / a, 2));
}

static void add_ratios(cJSON *o, const char *key, const struct table *t, int col)
{
	cJSON *r = cJSON_AddObjectToObject(o, key);

	cJSON_AddItemToObject(r, "b_a", ratio_to_a(t, "b", col));
	cJSON_AddItemToObject(r, "c_a", ratio_to_a(t, "c", col));
}

static void add_scenarios(cJSON *j, const struct table *res, const struct table *tails)
{
	static const char *const cyc_keys[] = { "min", "avg", "p99", "max", NULL };
	static const int cyc_cols[] = { 10, 11, 13, 12 };
	static const char *const irq_keys[] = { "median", "p99", "max", "expiries", NULL };
	static const int irq_cols[] = { 15, 16, 17, 18 };
	cJSON *all = cJSON_AddObjectToObject(j, "scenarios");
	int r;

	for (r = 0; r < res->rows; r++) {
		const char *name = res->cell[r][0];
		cJSON *o = cJSON_AddObjectToObject(all, name);

		cJSON_AddItemToObject(o, "threads", figure(cell(res, name, 2)));
		cJSON_AddStringToObject(o, "policy", cell(res, name, 3));
		cJSON_AddItemToObject(o, "period_ms", figure(cell(res, name, 4)));
		cJSON_AddItemToObject(o, "missed", figure(cell(res, name, 8)));
		cJSON_AddItemToObject(o, "wakeups", figure(cell(res, name, 9)));
		add_figures(cJSON_AddObjectToObject(o, "cyclictest_us"), res, name, cyc_keys, cyc_cols);
		cJSON_AddItemToObject(o, "cyclictest_tail_samples", figure(cell(tails, name, 2)));
		add_figures(cJSON_AddObjectToObject(o, "hard_irq_per_expiry_us"), res, name, irq_keys, irq_cols);
		cJSON_AddItemToObject(o, "hard_irq_us_per_s", figure(cell(res, name, 19)));
		cJSON_AddItemToObject(o, "interrupts", figure(cell(res, name, 20)));
		cJSON_AddItemToObject(o, "switches_per_expiry", figure(cell(res, name, 14)));
	}
}

static void add_growth(cJSON *j, const struct table *res)
{
	static const char *const other[] = { "other-100", "b", "other-4000" };
	static const char *const fifo[] = { "fifo-100", "c", "fifo-4000" };
	static const char *const n[] = { "100", "1000", "4000" };
	cJSON *g = cJSON_AddObjectToObject(j, "growth_hard_irq_per_expiry_median_us");
	cJSON *o = cJSON_AddObjectToObject(g, "other"), *f = cJSON_AddObjectToObject(g, "fifo");
	unsigned int i;

	for (i = 0; i < 3; i++) {
		cJSON_AddItemToObject(o, n[i], figure(cell(res, other[i], 15)));
		cJSON_AddItemToObject(f, n[i], figure(cell(res, fifo[i], 15)));
	}
}

static void add_timerlat(cJSON *j, const struct table *tl)
{
	static const char *const keys[] = { "avg", "p99", "max", "tail_samples", NULL };
	static const int irq_cols[] = { 2, 3, 4, 5 }, thr_cols[] = { 6, 7, 8, 9 };
	cJSON *all = cJSON_AddObjectToObject(j, "timerlat_us");
	int r;

	for (r = 0; r < tl->rows; r++) {
		const char *name = tl->cell[r][0];
		cJSON *o = cJSON_AddObjectToObject(all, name);

		add_figures(cJSON_AddObjectToObject(o, "irq"), tl, name, keys, irq_cols);
		add_figures(cJSON_AddObjectToObject(o, "thread"), tl, name, keys, thr_cols);
		cJSON_AddItemToObject(o, "samples", figure(cell(tl, name, 10)));
	}
}

/*
 * hrtimer_trace report RESULTS TAILS TIMERLAT TAU KERNEL ACCEL CPU ITERS
 *                      HARD_IRQ_SHOWN CYCLICTEST_SHOWN OUT.json
 * The files are hrtimer-storm.sh's tables (its "results columns" comment).
 */
static int run_report(int argc, char **argv)
{
	static struct table res, tails, tl;
	char method[sizeof(BENCH_METHOD) + 16];
	cJSON *j, *shown;
	int cpu;

	if (argc != 13)
		die_usage("report needs 11 arguments");
	read_table(argv[2], REPORT_COLS, &res);
	read_table(argv[3], 2, &tails);
	read_table(argv[4], TIMERLAT_COLS, &tl);
	cpu = int_arg(argv[8], "CPU");
	j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "benchmark", "hrtimer-storm");
	cJSON_AddStringToObject(j, "kernel", argv[6]);
	cJSON_AddStringToObject(j, "accel", argv[7]);
	cJSON_AddNumberToObject(j, "cpu", cpu);
	cJSON_AddNumberToObject(j, "expiries_per_scenario", int_arg(argv[9], "ITERS"));
	snprintf(method, sizeof(method), BENCH_METHOD, cpu, cpu);
	cJSON_AddStringToObject(j, "method", method);
	cJSON_AddItemToObject(j, "tail_threshold_us", figure(argv[5]));
	add_scenarios(j, &res, &tails);
	shown = cJSON_AddObjectToObject(j, "ratios");
	add_ratios(shown, "hard_irq_per_expiry", &res, 15);
	add_ratios(shown, "hard_irq_per_second", &res, 19);
	add_ratios(shown, "cyclictest_avg", &res, 11);
	add_ratios(shown, "cyclictest_max", &res, 12);
	add_growth(j, &res);
	add_timerlat(j, &tl);
	shown = cJSON_AddObjectToObject(j, "expected_difference_shown");
	cJSON_AddBoolToObject(shown, "hard_irq_per_expiry", !strcmp(argv[10], "true"));
	cJSON_AddBoolToObject(shown, "cyclictest", !strcmp(argv[11], "true"));
	if (rtlab_json_write(argv[12], j))
		die("%s: cannot write: %m", argv[12]);
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;

	if (argc > 1 && !strcmp(argv[1], "report"))
		return run_report(argc, argv);
	o = parse_opts(argc, argv);
	open_instance(o.instance);

	if (!strcmp(o.cmd, "mode"))
		return run_mode(&o);
	if (!strcmp(o.cmd, "storm"))
		return run_storm(&o);
	if (!strcmp(o.cmd, "irq"))
		return run_irq(&o);
	if (!strcmp(o.cmd, "timerlat"))
		return run_timerlat(&o);
	if (!strcmp(o.cmd, "overrun")) {
		printf("%llu\n", overrun(o.cpu));
		return 0;
	}
	die_usage("unknown command: %s", o.cmd);
}
