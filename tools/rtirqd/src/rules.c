// SPDX-License-Identifier: GPL-2.0
/*
 * rtirqd rules: rtctl's /etc/rtgroups format, tuned's group.* lines and the
 * "#@irq" extension.  See rtgroups.5 for the grammar.
 */
#include "rtirqd.h"
#include "rtlab/cpulist.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_IRQ 1048575u
#define MAX_REGEX_LEN 1024
#define MAX_REPEAT 255
#define MAX_FILE_SIZE (1 << 20)

/* ------------------------------------------------------------ cpusets */

int cpumask_parse_hex(const char *s, cpu_set_t *out, char *why, size_t whylen)
{
	size_t len, ndigits = 0;
	const char *p;
	unsigned int bit = 0;

	CPU_ZERO(out);
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	len = strlen(s);
	for (p = s; *p; p++) {
		if (isxdigit((unsigned char)*p)) {
			ndigits++;
		} else if (*p != ',') {
			snprintf(why, whylen, "'%c' is not a hex digit", *p);
			return -1;
		}
	}
	if (ndigits == 0) {
		snprintf(why, whylen, "no hex digits");
		return -1;
	}
	for (p = s + len; p > s; ) {
		int v;

		p--;
		if (*p == ',')
			continue;
		v = isdigit((unsigned char)*p) ? *p - '0' :
			tolower((unsigned char)*p) - 'a' + 10;
		for (int b = 0; b < 4; b++, bit++) {
			if (!(v & (1 << b)))
				continue;
			if (bit >= CPU_SETSIZE) {
				snprintf(why, whylen, "names CPUs beyond %d",
					 CPU_SETSIZE - 1);
				return -1;
			}
			CPU_SET(bit, out);
		}
	}
	if (CPU_COUNT(out) == 0) {
		snprintf(why, whylen, "empty mask (no CPU)");
		return -1;
	}
	return 0;
}

int cpulist_parse(const char *s, cpu_set_t *out)
{
	CPU_ZERO(out);
	while (*s && *s != '\n') {
		unsigned long lo, hi;

		if (rtlab_parse_range(&s, &lo, &hi) || hi < lo || hi >= CPU_SETSIZE)
			return -1;
		for (unsigned long c = lo; c <= hi; c++)
			CPU_SET(c, out);
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -1;
	}
	return 0;
}

char *cpulist_format(const cpu_set_t *set, char *buf, size_t len)
{
	size_t off = 0;
	int c = 0;

	buf[0] = 0;
	while (c < CPU_SETSIZE) {
		int lo, hi;
		int n;

		if (!CPU_ISSET(c, set)) {
			c++;
			continue;
		}
		lo = c;
		while (c + 1 < CPU_SETSIZE && CPU_ISSET(c + 1, set))
			c++;
		hi = c++;
		if (lo == hi)
			n = snprintf(buf + off, len - off, "%s%d",
				     off ? "," : "", lo);
		else
			n = snprintf(buf + off, len - off, "%s%d-%d",
				     off ? "," : "", lo, hi);
		if (n < 0 || (size_t)n >= len - off)
			break;
		off += n;
	}
	return buf;
}

int parse_ctx_init(struct parse_ctx *ctx)
{
	char buf[4096];
	FILE *f = fopen("/sys/devices/system/cpu/present", "re");
	int ok = -1;

	if (f) {
		if (fgets(buf, sizeof(buf), f) &&
		    cpulist_parse(buf, &ctx->present) == 0)
			ok = 0;
		fclose(f);
	}
	if (ok && sched_getaffinity(0, sizeof(ctx->present), &ctx->present))
		return -1;
	ctx->nr_present = CPU_COUNT(&ctx->present);
	return 0;
}

/* ------------------------------------------------------------ rule sets */

void ruleset_init(struct ruleset *rs)
{
	memset(rs, 0, sizeof(*rs));
}

static void rule_free(struct rule *r)
{
	free(r->name);
	if (r->has_regex)
		regfree(&r->regex);
	if (r->has_action)
		regfree(&r->action);
	free(r->irqs);
}

void ruleset_free(struct ruleset *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		rule_free(&rs->v[i]);
	free(rs->v);
	for (size_t i = 0; i < rs->nfiles; i++)
		free(rs->files[i]);
	free(rs->files);
	ruleset_init(rs);
}

static int cmp_rule(const void *a, const void *b)
{
	const struct rule *x = a, *y = b;

	if (x->file_index != y->file_index)
		return x->file_index < y->file_index ? -1 : 1;
	if (x->order_prio != y->order_prio)
		return x->order_prio < y->order_prio ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

void ruleset_finish(struct ruleset *rs)
{
	if (rs->n > 1)
		qsort(rs->v, rs->n, sizeof(rs->v[0]), cmp_rule);
}

/* ------------------------------------------------------------ parsing */

struct pstate {
	const char *file;
	int line;
	int errors;
	int line_errs;		/* errors of any line so far (both modes) */
	int skipped;		/* --compat=rtctl: lines left out */
	bool cr_warned;
	parse_err_fn err;
	void *arg;
	const struct parse_ctx *ctx;
};

static void perr(struct pstate *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void perr(struct pstate *ps, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ps->line_errs++;
	if (ps->ctx->rtctl && ps->line > 0) {
		/* rtctl skips a bad line and applies the others */
		char w[600];

		snprintf(w, sizeof(w), "warning: line skipped, as rtctl would: %s",
			 msg);
		if (ps->err)
			ps->err(ps->arg, ps->file, ps->line, w);
		return;
	}
	ps->errors++;
	if (ps->err)
		ps->err(ps->arg, ps->file, ps->line, msg);
}

/* Default mode: a line rtctl would read differently ("rtctl would ..."). */
static void pwarn(struct pstate *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void pwarn(struct pstate *ps, const char *fmt, ...)
{
	char msg[512], w[600];
	va_list ap;

	if (ps->ctx->rtctl || !ps->err)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(w, sizeof(w), "warning: rtctl would %s", msg);
	ps->err(ps->arg, ps->file, ps->line, w);
}

/* --compat=rtctl: a note on what rtctl's commands would do with a line. */
static void cwarn(struct pstate *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void cwarn(struct pstate *ps, const char *fmt, ...)
{
	char msg[512], w[600];
	va_list ap;

	if (!ps->ctx->rtctl || !ps->err)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(w, sizeof(w), "warning: %s", msg);
	ps->err(ps->arg, ps->file, ps->line, w);
}

/* Blanks (shell IFS: space, tab) off both ends of s, in place. */
static char *trim_blanks(char *s)
{
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = 0;
	return s;
}

/* Quote a field for a message: printable, bounded. */
static const char *q(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	for (; *s && o + 5 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (isprint(c)) {
			buf[o++] = c;
		} else {
			snprintf(buf + o, len - o, "\\x%02x", c);
			o += 4;
		}
	}
	if (*s && o + 4 <= len) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = 0;
	return buf;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static int parse_sched(struct pstate *ps, const char *s, struct rule *r)
{
	char qb[64];

	if (strlen(s) == 1 && strchr("fbro*", s[0])) {
		r->sched = s[0];
		return 0;
	}
	if (!*s)
		perr(ps, "sched: empty; expected f, r, o, b or *");
	else
		perr(ps, "sched '%s': unknown policy letter; expected f (FIFO), r (RR), o (OTHER), b (BATCH) or * (leave)",
		     q(s, qb, sizeof(qb)));
	return -1;
}

static int parse_prio(struct pstate *ps, const char *s, struct rule *r)
{
	char qb[64];
	long v;

	if (strcmp(s, "*") == 0) {
		r->prio = PRIO_LEAVE;
	} else if (all_digits(s) && strlen(s) <= 4) {
		r->prio = (int)strtol(s, NULL, 10);
	} else {
		perr(ps, "prio '%s': not a number (0-99 or *)",
		     q(s, qb, sizeof(qb)));
		return -1;
	}
	v = r->prio;
	switch (r->sched) {
	case 'f':
	case 'r':
		if (v == PRIO_LEAVE || v < 1 || v > 99) {
			perr(ps, "prio '%s': out of range for policy '%c' (%s needs 1-99)",
			     q(s, qb, sizeof(qb)), r->sched,
			     r->sched == 'f' ? "SCHED_FIFO" : "SCHED_RR");
			return -1;
		}
		break;
	case 'o':
	case 'b':
		if (v != PRIO_LEAVE && v != 0) {
			perr(ps, "prio '%s': out of range for policy '%c' (%s takes 0 or *)",
			     q(s, qb, sizeof(qb)), r->sched,
			     r->sched == 'o' ? "SCHED_OTHER" : "SCHED_BATCH");
			return -1;
		}
		r->prio = 0;
		break;
	case '*':
		if (v != PRIO_LEAVE && v > 99) {
			perr(ps, "prio '%s': out of range (0-99 or *)",
			     q(s, qb, sizeof(qb)));
			return -1;
		}
		/* rtctl: unused when sched is '*' */
		r->prio = PRIO_LEAVE;
		break;
	default:
		break;	/* sched already reported */
	}
	return 0;
}

static int check_present(struct pstate *ps, const char *field, const char *s,
			 const cpu_set_t *set)
{
	cpu_set_t missing;
	char qb[64], lb[256], pb[256];

	CPU_ZERO(&missing);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, set) && !CPU_ISSET(c, &ps->ctx->present))
			CPU_SET(c, &missing);
	if (CPU_COUNT(&missing) == 0)
		return 0;
	perr(ps, "%s '%s': CPU%s %s not present (present: %s)", field,
	     q(s, qb, sizeof(qb)), CPU_COUNT(&missing) == 1 ? "" : "s",
	     cpulist_format(&missing, lb, sizeof(lb)),
	     cpulist_format(&ps->ctx->present, pb, sizeof(pb)));
	return -1;
}

static int parse_affinity(struct pstate *ps, const char *s, struct rule *r)
{
	char why[128], qb[64];

	if (strcmp(s, "*") == 0) {
		r->has_affinity = false;
		return 0;
	}
	if (!*s) {
		perr(ps, "affinity: empty; expected a hex CPU mask or *");
		return -1;
	}
	if (cpumask_parse_hex(s, &r->affinity, why, sizeof(why))) {
		perr(ps, "affinity '%s': invalid CPU mask: %s",
		     q(s, qb, sizeof(qb)), why);
		return -1;
	}
	r->has_affinity = true;
	return check_present(ps, "affinity", s, &r->affinity);
}

/*
 * glibc's regcomp() expands "x+" into "xx*" and "x{n,m}" into m copies of
 * x, so nested repetitions grow exponentially ("((a+)+)+...", "a++++").
 * Estimate the size of the expanded tree and refuse what no thread name
 * needs.  Returns 0, or -1 (too big) with why set.
 */
#define MAX_REGEX_NODES 2000
#define MAX_REGEX_DEPTH 32

static long sat_add(long a, long b)
{
	return a + b > MAX_REGEX_NODES ? MAX_REGEX_NODES + 1 : a + b;
}

static long sat_mul(long a, long b)
{
	if (a && b > (MAX_REGEX_NODES + 1) / a)
		return MAX_REGEX_NODES + 1;
	return a * b > MAX_REGEX_NODES ? MAX_REGEX_NODES + 1 : a * b;
}

static int check_regex_size(const char *s, const char **why)
{
	long sum[MAX_REGEX_DEPTH + 1] = { 0 }, last[MAX_REGEX_DEPTH + 1] = { 0 };
	int d = 0;

	for (const char *p = s; *p; p++) {
		long mult = 0;

		switch (*p) {
		case '\\':
			if (p[1])
				p++;
			break;
		case '[':
			/* bracket expression: one node */
			p++;
			if (*p == '^')
				p++;
			if (*p == ']')
				p++;
			while (*p && *p != ']') {
				if (*p == '[' && (p[1] == ':' || p[1] == '.' ||
						  p[1] == '=')) {
					const char *e = strchr(p + 2, p[1]);

					p = e && e[1] == ']' ? e + 1 : p + 1;
				}
				p++;
			}
			if (!*p)
				p--;
			break;
		case '(':
			if (d == MAX_REGEX_DEPTH) {
				*why = "groups nested too deep";
				return -1;
			}
			d++;
			sum[d] = last[d] = 0;
			continue;
		case ')':
			if (!d)
				break;
			d--;
			last[d] = sum[d + 1] ? sum[d + 1] : 1;
			sum[d] = sat_add(sum[d], last[d]);
			continue;
		case '|':
			last[d] = 0;
			continue;
		case '*':
		case '?':
			continue;
		case '+':
			mult = 2;
			break;
		case '{': {
			long n = 0, m = 0;
			const char *e = p + 1;

			while (isdigit((unsigned char)*e) && n <= MAX_REPEAT)
				n = n * 10 + (*e++ - '0');
			m = n;
			if (*e == ',') {
				e++;
				m = 0;
				while (isdigit((unsigned char)*e) &&
				       m <= MAX_REPEAT)
					m = m * 10 + (*e++ - '0');
			}
			if (n > MAX_REPEAT || m > MAX_REPEAT) {
				*why = "repetition count above 255";
				return -1;
			}
			mult = (m > n ? m : n) + 1;
			break;
		}
		default:
			break;
		}
		if (mult) {
			sum[d] = sat_add(sum[d], sat_mul(last[d], mult - 1));
			last[d] = sat_mul(last[d], mult);
		} else {
			sum[d] = sat_add(sum[d], 1);
			last[d] = 1;
		}
		if (sum[d] > MAX_REGEX_NODES) {
			*why = "too complex (nested repetitions expand beyond 2000 nodes)";
			return -1;
		}
	}
	return 0;
}

/* awk's escape sequences that stand for one character */
static int awk_escape_char(char c)
{
	switch (c) {
	case 'a': return '\a';
	case 'b': return '\b';
	case 'f': return '\f';
	case 'n': return '\n';
	case 'r': return '\r';
	case 't': return '\t';
	case 'v': return '\v';
	default: return c;	/* \\ \] \- \^ \/ \" ...: the character */
	}
}

/*
 * One bracket expression from awk's reading to POSIX's.  In awk (gawk,
 * mawk) a backslash inside brackets escapes the next character, so
 * "[\-_/]" is '-', '_' or '/'; POSIX regcomp() reads it as the range
 * '\'-'_' plus '/'.  Escaped characters become literal members, with ']'
 * put first, '-' last and '^' not first, as POSIX wants them.  *pp points
 * at '['; on return past the closing ']'.  -1: no closing ']'.
 */
static int awk_bracket(const char **pp, char *out, size_t len, size_t *o)
{
	const char *p = *pp + 1;
	char body[MAX_REGEX_LEN * 2 + 8];
	size_t b = 0;
	bool neg = false, rb = false, dash = false, caret = false;

	if (*p == '^') {
		neg = true;
		p++;
	}
	if (*p == ']') {	/* a ']' first is a member */
		rb = true;
		p++;
	}
	while (*p && *p != ']') {
		if (b + 8 >= sizeof(body))
			return -1;
		if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
			const char *e = strchr(p + 2, p[1]);

			if (!e || e[1] != ']')
				return -1;
			memcpy(body + b, p, (size_t)(e + 2 - p));
			b += (size_t)(e + 2 - p);
			p = e + 2;
			continue;
		}
		if (*p == '\\' && p[1]) {
			int c = awk_escape_char(p[1]);

			p += 2;
			if (c == ']')
				rb = true;
			else if (c == '-')
				dash = true;
			else if (c == '^')
				caret = true;
			else
				body[b++] = (char)c;
			continue;
		}
		body[b++] = *p++;
	}
	if (*p != ']')
		return -1;
	*pp = p + 1;
	if (!neg && !rb && !dash && b == 0 && caret) {
		/* "[\^]" alone: a literal caret */
		if (*o + 3 > len)
			return -1;
		out[(*o)++] = '\\';
		out[(*o)++] = '^';
		return 0;
	}
	if (*o + b + 8 > len)
		return -1;
	out[(*o)++] = '[';
	if (neg)
		out[(*o)++] = '^';
	if (rb)
		out[(*o)++] = ']';
	memcpy(out + *o, body, b);
	*o += b;
	if (caret)
		out[(*o)++] = '^';
	if (dash)
		out[(*o)++] = '-';
	out[(*o)++] = ']';
	return 0;
}

/*
 * rtctl's regexes are awk EREs: translate awk's backslash escapes (inside
 * brackets, and \/ \" \t ... outside) into what regcomp() reads the same
 * way.  Everything else is passed as it is.  -1: malformed bracket.
 */
static int awk_to_posix(const char *in, char *out, size_t len)
{
	size_t o = 0;

	for (const char *p = in; *p; ) {
		if (o + 4 >= len)
			return -1;
		if (*p == '[') {
			if (awk_bracket(&p, out, len, &o))
				return -1;
			continue;
		}
		if (*p == '\\' && p[1]) {
			int c = awk_escape_char(p[1]);

			if (c != p[1] || p[1] == '/' || p[1] == '"') {
				/* one plain character (escaped if special) */
				if (strchr(".[]()*+?{}|^$\\", c))
					out[o++] = '\\';
				out[o++] = (char)c;
			} else {
				out[o++] = p[0];
				out[o++] = p[1];
			}
			p += 2;
			continue;
		}
		out[o++] = *p++;
	}
	out[o] = 0;
	return 0;
}

static int compile_regex(struct pstate *ps, const char *field, const char *s,
			 regex_t *re)
{
	char qb[64], eb[256], posix[MAX_REGEX_LEN * 2 + 16];
	const char *why = NULL;
	int rc;

	if (!*s && ps->ctx->rtctl) {
		/* awk: an empty regex matches every string */
		s = "";
	} else if (!*s) {
		perr(ps, "%s: empty regex (would match every thread; rtctl would apply it to every thread)",
		     field);
		return -1;
	}
	if (strlen(s) > MAX_REGEX_LEN) {
		perr(ps, "%s: regex longer than %d characters", field,
		     MAX_REGEX_LEN);
		return -1;
	}
	if (check_regex_size(s, &why)) {
		perr(ps, "%s '%s': invalid regex: %s", field,
		     q(s, qb, sizeof(qb)), why);
		return -1;
	}
	if (awk_to_posix(s, posix, sizeof(posix))) {
		perr(ps, "%s '%s': invalid regex: unmatched [", field,
		     q(s, qb, sizeof(qb)));
		return -1;
	}
	rc = regcomp(re, *posix ? posix : "^", REG_EXTENDED | REG_NOSUB);
	if (rc) {
		regerror(rc, re, eb, sizeof(eb));
		perr(ps, "%s '%s': invalid regex: %s", field,
		     q(s, qb, sizeof(qb)), eb);
		return -1;
	}
	return 0;
}

/* Split at the first n-1 colons into n fields (the last takes the rest). */
static int split_colons(char *s, char **f, int n)
{
	int i = 0;

	f[i++] = s;
	while (i < n) {
		char *c = strchr(s, ':');

		if (!c)
			break;
		*c = 0;
		s = c + 1;
		f[i++] = s;
	}
	return i;
}

static int count_colons(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == ':';
	return n;
}

static int parse_irq_list(struct pstate *ps, const char *v, struct rule *r)
{
	const char *s = v;
	char qb[64];

	while (*s) {
		unsigned long lo, hi;
		struct irq_range *n;

		if (rtlab_parse_range(&s, &lo, &hi))
			goto bad;
		if (lo > MAX_IRQ || hi > MAX_IRQ) {
			perr(ps, "irq '%s': irq number above %u",
			     q(v, qb, sizeof(qb)), MAX_IRQ);
			return -1;
		}
		if (hi < lo) {
			perr(ps, "irq '%s': range %lu-%lu is reversed",
			     q(v, qb, sizeof(qb)), lo, hi);
			return -1;
		}
		n = realloc(r->irqs, (r->nirqs + 1) * sizeof(*n));
		if (!n) {
			perr(ps, "out of memory");
			return -1;
		}
		r->irqs = n;
		r->irqs[r->nirqs].lo = lo;
		r->irqs[r->nirqs].hi = hi;
		r->nirqs++;
		if (*s == ',') {
			s++;
			if (!*s)
				goto bad;
		} else if (*s) {
			goto bad;
		}
	}
	if (r->nirqs)
		return 0;
bad:
	perr(ps, "irq '%s': expected a list of irq numbers and ranges (16,24-31)",
	     q(v, qb, sizeof(qb)));
	return -1;
}

enum { OPT_IRQ, OPT_ACTION, OPT_COMM, OPT_THREAD, OPT_IRQAFF, OPT_N };
static const char *const opt_names[OPT_N] = {
	"irq", "action", "comm", "thread", "irq-affinity"
};

/* #@irq match spec: whitespace-separated key=value options. */
static int parse_irq_spec(struct pstate *ps, char *spec, struct rule *r)
{
	bool seen[OPT_N] = { false };
	int errs = ps->errors;
	char *save = NULL, *tok;
	char qb[64];
	int irqaff = -1;

	r->thread = THREAD_ANY;
	for (tok = strtok_r(spec, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		char *eq = strchr(tok, '=');
		const char *val;
		int k;

		if (!eq) {
			perr(ps, "match '%s': expected key=value (irq=, action=, comm=, thread=, irq-affinity=)",
			     q(tok, qb, sizeof(qb)));
			continue;
		}
		*eq = 0;
		val = eq + 1;
		for (k = 0; k < OPT_N; k++)
			if (strcmp(tok, opt_names[k]) == 0)
				break;
		if (k == OPT_N) {
			perr(ps, "match: unknown option '%s' (irq, action, comm, thread, irq-affinity)",
			     q(tok, qb, sizeof(qb)));
			continue;
		}
		if (seen[k]) {
			perr(ps, "%s: duplicate option", opt_names[k]);
			continue;
		}
		seen[k] = true;
		if (!*val) {
			perr(ps, "%s: empty value", opt_names[k]);
			continue;
		}
		switch (k) {
		case OPT_IRQ:
			parse_irq_list(ps, val, r);
			break;
		case OPT_ACTION:
			if (compile_regex(ps, "action", val, &r->action) == 0)
				r->has_action = true;
			break;
		case OPT_COMM:
			if (compile_regex(ps, "comm", val, &r->regex) == 0)
				r->has_regex = true;
			break;
		case OPT_THREAD:
			if (strcmp(val, "primary") == 0)
				r->thread = THREAD_PRIMARY;
			else if (strcmp(val, "secondary") == 0)
				r->thread = THREAD_SECONDARY;
			else if (strcmp(val, "any") == 0)
				r->thread = THREAD_ANY;
			else
				perr(ps, "thread '%s': expected primary, secondary or any",
				     q(val, qb, sizeof(qb)));
			break;
		case OPT_IRQAFF:
			if (strcmp(val, "yes") == 0)
				irqaff = 1;
			else if (strcmp(val, "no") == 0)
				irqaff = 0;
			else
				perr(ps, "irq-affinity '%s': expected yes or no",
				     q(val, qb, sizeof(qb)));
			break;
		}
	}
	if (ps->errors == errs && !seen[OPT_IRQ] && !seen[OPT_ACTION] &&
	    !seen[OPT_COMM])
		perr(ps, "match: no irq=, action= or comm= given (an #@irq rule needs at least one)");
	if (irqaff == 1 && !r->has_affinity && ps->errors == errs)
		perr(ps, "irq-affinity: 'yes' conflicts with affinity '*' (no CPUs to set)");
	r->irq_affinity = irqaff == -1 ? r->has_affinity : irqaff == 1;
	return ps->errors == errs ? 0 : -1;
}

static int add_rule(struct ruleset *rs, struct pstate *ps, struct rule *r)
{
	if (rs->n == rs->cap) {
		size_t nc = rs->cap ? rs->cap * 2 : 16;
		struct rule *v = realloc(rs->v, nc * sizeof(*v));

		if (!v) {
			perr(ps, "out of memory");
			return -1;
		}
		rs->v = v;
		rs->cap = nc;
	}
	rs->v[rs->n++] = *r;
	return 0;
}

static bool rtctl_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-';
}

/*
 * Does rtctl take this line?  Its awk program reads only lines matching
 * ^[a-zA-Z_0-9-]+:[*orbf]:[0-9]+:.+$ and ignores every other one, silently.
 */
static bool rtctl_takes(const char *p)
{
	const char *s = p;

	while (rtctl_name_char(*p))
		p++;
	if (p == s || *p++ != ':')
		return false;
	if (!*p || !strchr("*orbf", *p) || p[1] != ':')
		return false;
	p += 2;
	s = p;
	while (isdigit((unsigned char)*p))
		p++;
	return p != s && *p == ':' && p[1];
}

/*
 * --compat=rtctl: a regex as NI's busybox awk reads it.  busybox hands the
 * string to regcomp() as it is (no awk escapes: "[\-_/]" is the range
 * '\'-'_' plus '/'), as an ERE, and if that fails as a BRE ("\[a(" is then
 * the literal "[a("); a string neither reads makes awk exit ("bad regex"),
 * which rtctl cannot survive: the line is skipped with that said.
 */
static int compile_regex_busybox(struct pstate *ps, const char *s, regex_t *re)
{
	char qb[64], eb[256];
	const char *why = NULL;
	int rc;

	if (strlen(s) > MAX_REGEX_LEN) {
		perr(ps, "regex: regex longer than %d characters", MAX_REGEX_LEN);
		return -1;
	}
	if (check_regex_size(s, &why)) {
		perr(ps, "regex '%s': invalid regex: %s", q(s, qb, sizeof(qb)),
		     why);
		return -1;
	}
	/* an empty regex matches every string, in awk as in regcomp() */
	if (regcomp(re, *s ? s : "^", REG_EXTENDED | REG_NOSUB) == 0)
		return 0;
	rc = regcomp(re, s, REG_NOSUB);
	if (rc == 0) {
		cwarn(ps, "regex '%s': not an ERE; read as a basic regex, as busybox awk does",
		      q(s, qb, sizeof(qb)));
		return 0;
	}
	regerror(rc, re, eb, sizeof(eb));
	perr(ps, "regex '%s': invalid regex: %s (busybox awk would exit there, leaving rtctl's run part-way)",
	     q(s, qb, sizeof(qb)), eb);
	return -1;
}

/*
 * --compat=rtctl: the line as rtctl reads it.  rtctl (observed on its
 * script run with busybox awk, taskset and util-linux chrt):
 * - splits the line at ':'; with four pieces the fourth is the regex and
 *   the affinity is left alone; with more, the fourth is the mask and the
 *   regex is the rest of the line after the fourth ':', colons included;
 * - the last matching line wins, whatever its priority; "chrt -p -POLICY
 *   PRIO PID" then fails for a priority out of the policy's range and the
 *   policy stays as it was, while "taskset -p MASK PID" still runs;
 * - the mask goes through the shell unquoted: blanks around it vanish;
 *   busybox taskset refuses anything but hex digits after an optional 0x
 *   (commas too), and a mask naming no present CPU (EINVAL): the affinity
 *   then stays as it was while the policy is still set;
 * - a CR stays part of the regex.
 */
static void parse_line_rtctl(struct ruleset *rs, struct pstate *ps, char *line,
			     int file_index)
{
	struct rule r;
	char *name, *sched, *prio, *rest, *aff = NULL, *regex, *c;
	char why[128], qb[64];
	int errs = ps->line_errs;
	long v = 0;
	bool range = true;

	if (!rtctl_takes(line))
		return;
	memset(&r, 0, sizeof(r));
	r.kind = RULE_RTCTL;
	r.rtctl = true;
	r.file = rs->files[file_index];
	r.file_index = file_index;
	r.line = ps->line;
	/* rtctl_takes(): three colons at least, the fields before them set */
	name = line;
	sched = strchr(name, ':');
	*sched++ = 0;
	prio = strchr(sched, ':');
	*prio++ = 0;
	rest = strchr(prio, ':');
	*rest++ = 0;
	c = strchr(rest, ':');
	if (c) {
		*c = 0;
		aff = rest;
		regex = c + 1;
	} else {
		regex = rest;	/* four fields: the fourth is the regex */
	}
	r.name = strdup(name);
	if (!r.name) {
		perr(ps, "out of memory");
		return;
	}
	r.sched = sched[0];
	r.prio = PRIO_LEAVE;
	if (r.sched != '*') {
		/* chrt's range check; its number is decimal (00050 is 50) */
		for (c = prio; *c == '0' && c[1]; c++)
			;
		if (strlen(c) > 3)
			range = false;
		else
			v = strtol(c, NULL, 10);
		if (r.sched == 'f' || r.sched == 'r')
			range = range && v >= 1 && v <= 99;
		else
			range = range && v == 0;
		if (range) {
			r.prio = (int)v;
		} else {
			cwarn(ps, "prio '%s': out of range for policy '%c', so chrt would fail: the rule still wins, the policy stays as it is%s",
			      q(prio, qb, sizeof(qb)), r.sched,
			      aff && strcmp(aff, "*") ? " (the affinity is still set)" : "");
			r.sched = '*';
		}
	}
	if (aff && strcmp(aff, "*") != 0) {
		char *m = trim_blanks(aff);

		if (strpbrk(m, " \t")) {
			cwarn(ps, "affinity '%s': blanks inside the mask would give taskset more arguments (busybox taskset then sets the wrong task); the affinity stays as it is",
			      q(aff, qb, sizeof(qb)));
		} else if (strchr(m, ',')) {
			cwarn(ps, "affinity '%s': busybox taskset refuses a mask with commas; the affinity stays as it is",
			      q(m, qb, sizeof(qb)));
		} else if (cpumask_parse_hex(m, &r.affinity, why,
					     sizeof(why))) {
			cwarn(ps, "affinity '%s': taskset would refuse it (%s); the affinity stays as it is",
			      q(m, qb, sizeof(qb)), why);
		} else {
			CPU_AND(&r.affinity, &r.affinity, &ps->ctx->present);
			r.has_affinity = CPU_COUNT(&r.affinity) > 0;
		}
	}
	if (compile_regex_busybox(ps, regex, &r.regex) == 0)
		r.has_regex = true;
	if (ps->line_errs != errs || add_rule(rs, ps, &r)) {
		ps->skipped += ps->line_errs != errs;
		rule_free(&r);
	}
}

/*
 * Would busybox awk (raw regcomp(), no awk escapes) read this regex
 * otherwise than rtirqd's awk reading?  A backslash inside brackets, or
 * an awk escape for a control character (\t, \n, ...) outside them.
 */
static bool busybox_reads_otherwise(const char *s)
{
	bool in = false;

	for (const char *p = s; *p; p++) {
		if (!in && *p == '\\' && p[1]) {
			if (strchr("abfnrtv", p[1]))
				return true;
			p++;
		} else if (!in && *p == '[') {
			in = true;
			if (p[1] == '^')
				p++;
			if (p[1] == ']')
				p++;
		} else if (in && *p == '[' && (p[1] == ':' || p[1] == '.' ||
					       p[1] == '=')) {
			const char *e = strchr(p + 2, p[1]);

			if (e && e[1] == ']')
				p = e + 1;
		} else if (in && *p == '\\') {
			return true;
		} else if (in && *p == ']') {
			in = false;
		}
	}
	return false;
}

/* Default mode: say where rtctl would read an rtctl-format line otherwise. */
static void warn_rtctl_line(struct pstate *ps, const char *line,
			    const char *name, char **f)
{
	char qb[64];
	const char *c;

	if (line[0] == ' ' || line[0] == '\t')
		pwarn(ps, "ignore this indented line");
	else if (!*name || name[strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")])
		pwarn(ps, "ignore this line (group name '%s' has characters outside [A-Za-z0-9_-])",
		      q(name, qb, sizeof(qb)));
	else if (strcmp(f[2], "*") == 0)
		pwarn(ps, "ignore this line (priority '*'); rtirqd leaves the matched threads' policy as it is");
	if (strchr(f[3], ','))
		pwarn(ps, "leave the affinity as it is: busybox taskset refuses a mask with commas ('%s')",
		      q(f[3], qb, sizeof(qb)));
	if (busybox_reads_otherwise(f[4]))
		pwarn(ps, "read this regex as POSIX regcomp() does (busybox awk: no awk escapes, so a backslash inside brackets is a character or starts a range)");
	for (c = f[4]; *c; c++) {
		if (*c == ' ' || *c == '\t') {
			pwarn(ps, "match thread names only up to their first blank, so this regex with a blank could never match there");
			break;
		}
	}
}

static void parse_line(struct ruleset *rs, struct pstate *ps, char *line,
		       int file_index)
{
	struct rule r;
	char *f[5];
	char *p, *body;
	int errs = ps->line_errs;
	int nf, colons = 0;
	char qb[64];

	if (ps->ctx->rtctl) {
		parse_line_rtctl(rs, ps, line, file_index);
		return;
	}
	memset(&r, 0, sizeof(r));
	r.file = rs->files[file_index];
	r.file_index = file_index;
	r.line = ps->line;

	for (p = line; *p == ' ' || *p == '\t'; p++)
		;
	if (!*p)
		return;
	if (strncmp(line, "#@irq", 5) == 0 &&
	    (line[5] == ' ' || line[5] == '\t')) {
		r.kind = RULE_IRQ;
		for (body = line + 5; *body == ' ' || *body == '\t'; body++)
			;
	} else if (*p == '#') {
		return;
	} else if (strncmp(line, "group.", 6) == 0 && strchr(line, '=') &&
		   (!strchr(line, ':') ||
		    strchr(line, '=') < strchr(line, ':'))) {
		/* tuned; "group.x:..." stays an rtctl rule named group.x */
		char *eq = strchr(line, '=');

		r.kind = RULE_TUNED;
		*eq = 0;
		body = eq + 1;
		if (!line[6])
			perr(ps, "name: empty group name");
		r.name = strdup(line + 6);
	} else {
		r.kind = RULE_RTCTL;
		body = line;
	}

	if (r.kind == RULE_TUNED) {
		char *g[5];

		nf = split_colons(body, g, 5);
		if (nf < 5) {
			perr(ps, "expected group.NAME=rule_prio:sched:prio:affinity:regex (%d of 5 fields)",
			     nf);
			goto out;
		}
		if (!all_digits(g[0]) || strlen(g[0]) > 9)
			perr(ps, "rule_prio '%s': not a number",
			     q(g[0], qb, sizeof(qb)));
		else
			r.order_prio = strtol(g[0], NULL, 10);
		f[0] = NULL;
		f[1] = g[1];
		f[2] = g[2];
		f[3] = g[3];
		f[4] = g[4];
	} else {
		colons = count_colons(body);

		if (r.kind == RULE_RTCTL && colons == 3) {
			/* name:sched:prio:regex, as rtctl reads it too */
			char *g[4];

			split_colons(body, g, 4);
			f[0] = g[0];
			f[1] = g[1];
			f[2] = g[2];
			f[3] = "*";
			f[4] = g[3];
		} else {
			nf = split_colons(body, f, 5);
			if (nf < 5) {
				perr(ps, "expected name:sched:prio:affinity:%s (%d of 5 fields)",
				     r.kind == RULE_IRQ ? "match" : "regex",
				     nf);
				goto out;
			}
		}
		if (!f[0][0])
			perr(ps, "name: empty");
		r.name = strdup(f[0]);
	}
	if (!r.name) {
		perr(ps, "out of memory");
		goto out;
	}
	if (parse_sched(ps, f[1], &r) == 0)
		parse_prio(ps, f[2], &r);
	else
		r.prio = PRIO_LEAVE;
	/* blanks around a mask: rtctl's shell drops them, so do we */
	if (strpbrk(f[3], " \t"))
		f[3] = trim_blanks(f[3]);
	parse_affinity(ps, f[3], &r);
	if (r.kind == RULE_IRQ) {
		parse_irq_spec(ps, f[4], &r);
	} else {
		if (compile_regex(ps, "regex", f[4], &r.regex) == 0)
			r.has_regex = true;
	}
	/* only for a line rtirqd takes: what rtctl would do otherwise */
	if (r.kind == RULE_RTCTL && ps->line_errs == errs)
		warn_rtctl_line(ps, line, r.name, f);
out:
	if (ps->line_errs != errs || add_rule(rs, ps, &r))
		rule_free(&r);
}

int rules_parse_buffer(struct ruleset *rs, const char *file, const char *buf,
		       size_t len, const struct parse_ctx *ctx,
		       parse_err_fn err, void *arg)
{
	struct pstate ps = { .file = file, .err = err, .arg = arg, .ctx = ctx };
	char **nf;
	size_t i = 0;
	int fi;

	nf = realloc(rs->files, (rs->nfiles + 1) * sizeof(*nf));
	if (!nf)
		goto oom;
	rs->files = nf;
	rs->files[rs->nfiles] = strdup(file);
	if (!rs->files[rs->nfiles])
		goto oom;
	fi = (int)rs->nfiles++;

	while (i < len) {
		size_t j = i, n;
		char *line;

		while (j < len && buf[j] != '\n')
			j++;
		n = j - i;
		ps.line++;
		line = malloc(n + 1);
		if (!line)
			goto oom;
		memcpy(line, buf + i, n);
		line[n] = 0;
		/* rtctl keeps the CR of a DOS line end (--compat=rtctl too) */
		if (n && line[n - 1] == '\r' && !ctx->rtctl) {
			line[n - 1] = 0;
			if (!ps.cr_warned)
				pwarn(&ps, "keep the DOS line ends (CR) of this file, where a '$'-anchored regex never matches");
			ps.cr_warned = true;
		}
		if (strlen(line) != n - (n && buf[j - 1] == '\r' && !ctx->rtctl))
			perr(&ps, "line contains a NUL byte");
		else
			parse_line(rs, &ps, line, fi);
		free(line);
		i = j + 1;
	}
	rs->skipped += ps.skipped;
	return ps.errors;
oom:
	if (err)
		err(arg, file, 0, "out of memory");
	return ps.errors + 1;
}

/* ------------------------------------------------------------ loading */

static int check_owner(const char *path, const struct stat *st, bool dir,
		       parse_err_fn err, void *arg)
{
	char msg[256];

	if (dir ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode)) {
		snprintf(msg, sizeof(msg), "not a %s",
			 dir ? "directory" : "regular file");
	} else if (st->st_uid != 0) {
		snprintf(msg, sizeof(msg),
			 "refusing: owned by uid %u, not root (rules set real-time priorities)",
			 (unsigned int)st->st_uid);
	} else if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(msg, sizeof(msg),
			 "refusing: writable by %s (mode %04o; rules set real-time priorities)",
			 st->st_mode & S_IWOTH ? "others" : "its group",
			 (unsigned int)(st->st_mode & 07777));
	} else {
		return 0;
	}
	err(arg, path, 0, msg);
	return 1;
}

static int load_fd(struct ruleset *rs, int fd, const char *path,
		   const struct parse_ctx *ctx, parse_err_fn err, void *arg)
{
	struct stat st;
	char *buf;
	size_t len = 0;
	int n;

	if (fstat(fd, &st)) {
		err(arg, path, 0, strerror(errno));
		return 1;
	}
	if (check_owner(path, &st, false, err, arg))
		return 1;
	if (st.st_size > MAX_FILE_SIZE) {
		err(arg, path, 0, "file larger than 1 MiB");
		return 1;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		err(arg, path, 0, "out of memory");
		return 1;
	}
	for (;;) {
		ssize_t r = read(fd, buf + len, (size_t)st.st_size + 1 - len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err(arg, path, 0, strerror(errno));
			free(buf);
			return 1;
		}
		if (r == 0 || len + r > (size_t)st.st_size)
			break;
		len += r;
	}
	n = rules_parse_buffer(rs, path, buf, len, ctx, err, arg);
	free(buf);
	return n;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t ls = strlen(s), lf = strlen(suf);

	return ls > lf && strcmp(s + ls - lf, suf) == 0;
}

int rules_load(struct ruleset *rs, const char *main_file, bool main_optional,
	       const char *dir, const struct parse_ctx *ctx,
	       parse_err_fn err, void *arg)
{
	int errors = 0;
	int fd;

	ruleset_init(rs);
	if (main_file) {
		fd = open(main_file, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			if (!(errno == ENOENT && main_optional)) {
				err(arg, main_file, 0, strerror(errno));
				errors++;
			}
		} else {
			errors += load_fd(rs, fd, main_file, ctx, err, arg);
			close(fd);
		}
	}
	if (dir) {
		int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		struct stat st;

		if (dfd < 0) {
			if (errno != ENOENT) {
				err(arg, dir, 0, strerror(errno));
				errors++;
			}
		} else if (fstat(dfd, &st)) {
			err(arg, dir, 0, strerror(errno));
			errors++;
			close(dfd);
		} else if (check_owner(dir, &st, true, err, arg)) {
			errors++;
			close(dfd);
		} else {
			DIR *d = fdopendir(dfd);
			char **names = NULL;
			size_t nn = 0;
			struct dirent *de;

			if (!d) {
				close(dfd);
				err(arg, dir, 0, strerror(errno));
				return errors + 1;
			}
			while ((de = readdir(d))) {
				char **t;

				if (de->d_name[0] == '.' ||
				    !has_suffix(de->d_name, ".rtgroups"))
					continue;
				t = realloc(names, (nn + 1) * sizeof(*t));
				if (!t || !(t[nn] = strdup(de->d_name))) {
					names = t ? t : names;
					errors++;
					err(arg, dir, 0, "out of memory");
					break;
				}
				names = t;
				nn++;
			}
			qsort(names, nn, sizeof(*names), cmp_str);
			for (size_t i = 0; i < nn; i++) {
				char path[PATH_MAX];

				snprintf(path, sizeof(path), "%s/%s", dir,
					 names[i]);
				fd = openat(dirfd(d), names[i],
					    O_RDONLY | O_CLOEXEC);
				if (fd < 0) {
					err(arg, path, 0, strerror(errno));
					errors++;
				} else {
					errors += load_fd(rs, fd, path, ctx,
							  err, arg);
					close(fd);
				}
				free(names[i]);
			}
			free(names);
			closedir(d);
		}
	}
	if (errors)
		ruleset_free(rs);
	else
		ruleset_finish(rs);
	return errors;
}
