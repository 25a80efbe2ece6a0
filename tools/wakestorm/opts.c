// SPDX-License-Identifier: GPL-2.0
/* wakestorm: command-line parsing (no side effects, unit-tested). */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"
#include "rtlab/cpulist.h"

int ws_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * The decimal number s starts with into *x, and what follows it into *rest
 * (a unit suffix, or ""): -1 when s starts with no digit or overflows.
 */
static int parse_leading(const char *s, unsigned long long *x, const char **rest)
{
	char *end;

	if (!s || !isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	*x = strtoull(s, &end, 10);
	if (errno)
		return -1;
	*rest = end;
	return 0;
}

int ws_parse_uint(const char *s, unsigned long long min,
		  unsigned long long max, unsigned long long *v)
{
	unsigned long long x;
	const char *end;

	if (parse_leading(s, &x, &end) || *end || x < min || x > max)
		return -1;
	*v = x;
	return 0;
}

int ws_parse_time(const char *s, uint64_t *ns)
{
	static const struct { const char *sfx; uint64_t mul; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000 }, { "", 1000 },
	};
	unsigned long long x;
	const char *end;
	size_t i;

	if (parse_leading(s, &x, &end))
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].sfx))
			continue;
		if (x > UINT64_MAX / units[i].mul)
			return -1;
		*ns = x * units[i].mul;
		return 0;
	}
	return -1;
}

int ws_parse_size(const char *s, size_t *bytes)
{
	unsigned long long x, mul = 1;
	const char *end;

	if (parse_leading(s, &x, &end))
		return -1;
	if (!strcmp(end, "K") || !strcmp(end, "k"))
		mul = 1024;
	else if (!strcmp(end, "M") || !strcmp(end, "m"))
		mul = 1024 * 1024;
	else if (*end)
		return -1;
	if (x > SIZE_MAX / mul)
		return -1;
	*bytes = (size_t)(x * mul);
	return 0;
}

int ws_parse_cpulist(const char *s, int *out, unsigned int max)
{
	return rtlab_parse_cpulist(s, out, max, WS_MAX_CPUS);
}

const char *ws_policy_name(enum ws_policy p)
{
	switch (p) {
	case WS_POLICY_OTHER:
		return "other";
	case WS_POLICY_FIFO:
		return "fifo";
	case WS_POLICY_RR:
		return "rr";
	case WS_POLICY_DEADLINE:
		return "deadline";
	}
	return "?";
}

void ws_usage(FILE *f)
{
	fputs(
"Usage: wakestorm [OPTION]...\n"
"Start N threads that all sleep with clock_nanosleep(CLOCK_MONOTONIC,\n"
"TIMER_ABSTIME) to the same absolute expiry, once per period, and report\n"
"the wake-ups done and their spread per expiry.\n"
"\n"
"  -n, --threads=N          number of sleeping threads (default 1000)\n"
"  -a, --cpus=LIST          pin thread i to the i-th CPU of LIST, round robin\n"
"                           (e.g. 1 or 0-3,6; default: no pinning)\n"
"  -p, --policy=POLICY      other, fifo, rr or deadline (default other)\n"
"  -P, --priority=PRIO      priority for fifo and rr, 1..99 (default 1)\n"
"      --dl-runtime=TIME    SCHED_DEADLINE runtime (default 100us)\n"
"      --dl-deadline=TIME   SCHED_DEADLINE relative deadline (default: dl-period)\n"
"      --dl-period=TIME     SCHED_DEADLINE period (default: --period)\n"
"  -t, --period=TIME        time between two common expiries (default 10ms)\n"
"  -i, --iterations=K       number of common expiries (default 100)\n"
"  -D, --duration=TIME      run for TIME instead (K = TIME / period)\n"
"      --start-delay=TIME   first expiry this long after all threads are\n"
"                           ready (default 100ms + 100us per thread)\n"
"  -s, --stack-size=SIZE    stack of each thread (default 64K; K, M suffixes)\n"
"  -m, --mlock              lock all memory (mlockall) before starting\n"
"  -j, --json=FILE          also write the results as JSON to FILE (- = stdout)\n"
"  -q, --quiet              no text report\n"
"  -h, --help               show this help and exit\n"
"  -V, --version            show the version and exit\n"
"\n"
"TIME is a number with unit ns, us, ms or s (a bare number is us).\n"
"Exit status: 0 success, 1 run-time failure, 2 bad option or impossible\n"
"setting.\n", f);
}

enum {
	OPT_DL_RUNTIME = 256,
	OPT_DL_DEADLINE,
	OPT_DL_PERIOD,
	OPT_START_DELAY,
};

static const struct option long_opts[] = {
	{ "threads",	required_argument, NULL, 'n' },
	{ "cpus",	required_argument, NULL, 'a' },
	{ "policy",	required_argument, NULL, 'p' },
	{ "priority",	required_argument, NULL, 'P' },
	{ "dl-runtime",	required_argument, NULL, OPT_DL_RUNTIME },
	{ "dl-deadline", required_argument, NULL, OPT_DL_DEADLINE },
	{ "dl-period",	required_argument, NULL, OPT_DL_PERIOD },
	{ "period",	required_argument, NULL, 't' },
	{ "iterations",	required_argument, NULL, 'i' },
	{ "duration",	required_argument, NULL, 'D' },
	{ "start-delay", required_argument, NULL, OPT_START_DELAY },
	{ "stack-size",	required_argument, NULL, 's' },
	{ "mlock",	no_argument,       NULL, 'm' },
	{ "json",	required_argument, NULL, 'j' },
	{ "quiet",	no_argument,       NULL, 'q' },
	{ "help",	no_argument,       NULL, 'h' },
	{ "version",	no_argument,       NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static const char short_opts[] = ":n:a:p:P:t:i:D:s:mj:qhV";

/* Name of option c as the user typed it, for messages. */
static const char *opt_name(int c, char *buf, size_t len)
{
	const struct option *lo;

	for (lo = long_opts; lo->name; lo++) {
		if (lo->val != c)
			continue;
		if (c < 256)
			snprintf(buf, len, "-%c/--%s", c, lo->name);
		else
			snprintf(buf, len, "--%s", lo->name);
		return buf;
	}
	snprintf(buf, len, "-%c", c);
	return buf;
}

/* what the options named, for the checks across options */
struct parse_seen {
	bool prio, dl, iter;
	uint64_t duration;	/* -D, 0 if not given */
};

static void set_defaults(struct ws_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->threads = WS_DEFAULT_THREADS;
	o->policy = WS_POLICY_OTHER;
	o->priority = 1;
	o->period_ns = WS_DEFAULT_PERIOD_NS;
	o->iterations = WS_DEFAULT_ITERATIONS;
	o->stack_size = WS_DEFAULT_STACK;
	o->dl_runtime_ns = WS_DEFAULT_DL_RUNTIME_NS;
}


/* "<option> '<value>': expected <what>" into err, and -1: a bad value */
static int bad_value(int c, const char *arg, char *err, size_t errlen,
		     const char *what_fmt, ...) __attribute__((format(printf, 5, 6)));
static int bad_value(int c, const char *arg, char *err, size_t errlen,
		     const char *what_fmt, ...)
{
	char name[48], what[160];
	va_list ap;

	va_start(ap, what_fmt);
	vsnprintf(what, sizeof(what), what_fmt, ap);
	va_end(ap);
	return ws_fail(err, errlen, "%s '%s': expected %s",
		       opt_name(c, name, sizeof(name)), arg, what);
}

/* a TIME option above zero into *ns; example is a typical value, for the message */
static int parse_time_opt(int c, const char *arg, const char *example, uint64_t *ns,
			  char *err, size_t errlen)
{
	if (ws_parse_time(arg, ns) || !*ns)
		return bad_value(c, arg, err, errlen, "a time above zero such as %s", example);
	return 0;
}

/* parse_opt: one option with a value or a flag; 0 or ws_fail()'s -1 */
static int parse_opt(int c, const char *arg, struct ws_opts *o,
		     struct parse_seen *seen, char *err, size_t errlen)
{
	unsigned long long v;
	char name[48];
	int n;

	switch (c) {
	case 'n':
		if (ws_parse_uint(arg, 1, WS_MAX_THREADS, &v))
			return bad_value(c, arg, err, errlen,
				"a number of threads between 1 and %u", WS_MAX_THREADS);
		o->threads = (unsigned int)v;
		break;
	case 'a':
		n = ws_parse_cpulist(arg, o->cpus, WS_MAX_CPUS);
		if (n <= 0)
			return bad_value(c, arg, err, errlen,
				"a CPU list such as 1 or 0-3,6 (each CPU once, below %u)", WS_MAX_CPUS);
		o->ncpus = (unsigned int)n;
		break;
	case 'p':
		if (!strcmp(arg, "other"))
			o->policy = WS_POLICY_OTHER;
		else if (!strcmp(arg, "fifo"))
			o->policy = WS_POLICY_FIFO;
		else if (!strcmp(arg, "rr"))
			o->policy = WS_POLICY_RR;
		else if (!strcmp(arg, "deadline"))
			o->policy = WS_POLICY_DEADLINE;
		else
			return bad_value(c, arg, err, errlen,
				"other, fifo, rr or deadline");
		break;
	case 'P':
		if (ws_parse_uint(arg, 1, 99, &v))
			return bad_value(c, arg, err, errlen,
				"a priority between 1 and 99");
		o->priority = (int)v;
		seen->prio = true;
		break;
	case OPT_DL_RUNTIME:
	case OPT_DL_DEADLINE:
	case OPT_DL_PERIOD: {
		uint64_t t;

		if (parse_time_opt(c, arg, "100us", &t, err, errlen))
			return -1;
		if (c == OPT_DL_RUNTIME)
			o->dl_runtime_ns = t;
		else if (c == OPT_DL_DEADLINE)
			o->dl_deadline_ns = t;
		else
			o->dl_period_ns = t;
		seen->dl = true;
		break;
	}
	case 't':
		return parse_time_opt(c, arg, "10ms", &o->period_ns, err, errlen);
	case 'i':
		if (ws_parse_uint(arg, 1, UINT32_MAX, &v))
			return bad_value(c, arg, err, errlen,
				"a number of expiries between 1 and %u", UINT32_MAX);
		o->iterations = v;
		seen->iter = true;
		break;
	case 'D':
		return parse_time_opt(c, arg, "5s", &seen->duration, err, errlen);
	case OPT_START_DELAY:
		return parse_time_opt(c, arg, "200ms", &o->start_delay_ns, err, errlen);
	case 's':
		if (ws_parse_size(arg, &o->stack_size) ||
		    o->stack_size == 0)
			return bad_value(c, arg, err, errlen,
				"a size such as 65536, 64K or 1M");
		break;
	case 'm':
		o->mlock = true;
		break;
	case 'j':
		if (!*arg)
			return ws_fail(err, errlen, "%s: empty file name",
				    opt_name(c, name, sizeof(name)));
		o->json_path = arg;
		break;
	case 'q':
		o->quiet = true;
		break;
	default:
		return ws_fail(err, errlen, "%s: unknown option", opt_name(c, name, sizeof(name)));
	}
	return 0;
}

/* check_opts: the rules across options, and what follows from them */
static int check_opts(struct ws_opts *o, const struct parse_seen *seen,
		      char *err, size_t errlen)
{
	if (seen->prio && o->policy != WS_POLICY_FIFO &&
	    o->policy != WS_POLICY_RR)
		return ws_fail(err, errlen,
			"-P/--priority: only for --policy fifo or rr, not %s",
			ws_policy_name(o->policy));
	if (seen->dl && o->policy != WS_POLICY_DEADLINE)
		return ws_fail(err, errlen,
			"--dl-runtime/--dl-deadline/--dl-period: only for --policy deadline, not %s",
			ws_policy_name(o->policy));
	if (seen->duration && seen->iter)
		return ws_fail(err, errlen,
			"-D/--duration: give either --duration or --iterations, not both");
	if (seen->duration) {
		if (seen->duration < o->period_ns)
			return ws_fail(err, errlen,
				"-D/--duration: shorter than one period (-t/--period)");
		if (seen->duration / o->period_ns > UINT32_MAX)
			return ws_fail(err, errlen,
				"-D/--duration: more than %u periods",
				UINT32_MAX);
		o->iterations = seen->duration / o->period_ns;
	}
	if (o->policy == WS_POLICY_DEADLINE) {
		if (!o->dl_period_ns)
			o->dl_period_ns = o->period_ns;
		if (!o->dl_deadline_ns)
			o->dl_deadline_ns = o->dl_period_ns;
		/* the kernel's own rules (sched_dl_param_ok / __checkparam_dl) */
		if (o->dl_runtime_ns < 1024)
			return ws_fail(err, errlen,
				"--dl-runtime: must be at least 1024ns");
		if (o->dl_runtime_ns > o->dl_deadline_ns)
			return ws_fail(err, errlen,
				"--dl-runtime: longer than the deadline (--dl-deadline)");
		if (o->dl_deadline_ns > o->dl_period_ns)
			return ws_fail(err, errlen,
				"--dl-deadline: longer than the period (--dl-period)");
		if (o->dl_period_ns >> 63 || o->dl_deadline_ns >> 63)
			return ws_fail(err, errlen,
				"--dl-period: too long");
		if (o->ncpus)
			return ws_fail(err, errlen,
				"-a/--cpus: cannot pin SCHED_DEADLINE threads: the kernel requires them to be allowed on every CPU of their root domain");
	}
	return 0;
}

int ws_parse_opts(int argc, char **argv, struct ws_opts *o,
		  char *err, size_t errlen)
{
	struct parse_seen seen = { 0 };
	char name[48];
	int c;

	set_defaults(o);
	optind = 0;		/* full re-initialisation (glibc) */
	opterr = 0;
	while ((c = getopt_long(argc, argv, short_opts, long_opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			o->help = true;
			return 0;
		case 'V':
			o->version = true;
			return 0;
		case ':':
			if (optopt)
				return ws_fail(err, errlen, "%s: missing argument",
					    opt_name(optopt, name, sizeof(name)));
			return ws_fail(err, errlen, "%s: missing argument",
				    argv[optind - 1]);
		case '?':
			if (optopt)
				return ws_fail(err, errlen, "-%c: unknown option",
					    optopt);
			return ws_fail(err, errlen, "%s: unknown option",
				    argv[optind - 1]);
		default:
			if (parse_opt(c, optarg, o, &seen, err, errlen))
				return -1;
			break;
		}
	}
	if (optind < argc)
		return ws_fail(err, errlen, "'%s': unexpected argument (options only)",
			    argv[optind]);
	return check_opts(o, &seen, err, errlen);
}
