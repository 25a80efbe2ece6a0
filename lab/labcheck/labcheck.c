// SPDX-License-Identifier: GPL-2.0
/*
 * labcheck - read what a guest boot left behind and turn it into TAP.
 *
 *   labcheck guest [--console LOG] [--outdir DIR] [--status FILE] [--label L]
 *                  [--expect-panic TEST]... [--after-panic TEST]... TEST...
 *	One boot's verdict: a "boot" test point, then every test point of
 *	every TEST (read from DIR/TEST/tap), renumbered and prefixed with the
 *	test's name, plus a failing point for a test that timed out, died
 *	with the guest, exited non-zero without saying why, printed no test
 *	point at all, or ran while the kernel printed a splat.  --status
 *	writes "TEST ended|crashed|panicked|notrun" lines for the harness,
 *	which boots again after a crashed test.
 *	--expect-panic TEST: TEST is the first phase of an expect=panic test
 *	(lab/lib/machine.sh); it passes when its test points so far passed and
 *	the console shows "Kernel panic - not syncing" after its BEGIN (state
 *	"panicked": the harness runs its second phase in the next boot).  The
 *	fatal report is not a splat of the test: it starts at the panic line,
 *	or, when the panic concludes an oops ("Fatal exception") or a warning
 *	("panic_on_warn set"), at the last "Oops" / "WARNING:" line before it
 *	and the lines just above that belong to it (fatal_report_start).  A
 *	splat before that still fails the test; ending or hanging without a
 *	panic fails it.  Its points read "TEST: phase 1: ...".
 *	--after-panic TEST: TEST is such a test's second phase, judged like
 *	any test (a panic fails it); its points read "TEST: phase 2: ...".
 *   labcheck splats LOG
 *	Print every kernel splat in a console log with its context; exit 1
 *	if there is one.
 *   labcheck stale-int3 LOG
 *	Exit 0 when the first kernel splat of the log is an "Oops: int3" whose
 *	"Code:" line shows, at the trapping address, a byte that is not int3
 *	(0xcc): the CPU ran an int3 that memory no longer holds, which the
 *	x86 rules for cross-modifying code (text_poke_bp(): int3, sync, new
 *	bytes, sync) exclude, and which multi-threaded TCG does (a stale
 *	translation; docs/results/lab.md).  Prints the address and the byte.
 *	Exit 1 otherwise.  The harness boots again after such a boot, once.
 *   labcheck tally FILE...
 *	Count the top-level TAP points of each file; the last line is
 *	"N passed, N failed" (", N skipped" when some were); exit 1 on any
 *	failure or on a file without a single test point.
 *
 * Kernel lines are recognised by their printk time stamp ("[    1.234567] "),
 * which CONFIG_PRINTK_TIME adds, so that a test printing "WARNING:" on the
 * console is not taken for a kernel warning.  The guest's init writes
 * "rtlab: BEGIN <test>", "rtlab: END <test> rc=<n>", "rtlab: INIT ..." and
 * "rtlab: DONE" to /dev/kmsg, so the markers are ordered with the splats.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rtlab/die.h"
#include "rtlab/opt.h"

#define SPLAT_CONTEXT	40	/* lines of a splat kept after its first */
#define TAIL_LINES	30	/* console lines shown for a test that died */

/*
 * What the kernel prints when something is wrong.  "sleeping function..." is
 * printed at error level and lockdep at warning level, so a check on
 * critical-level messages alone would miss them: match the text instead.
 */
static const char *const splat_patterns[] = {
	"BUG:",
	"WARNING:",
	"Oops",
	"Kernel panic - not syncing",
	"kernel BUG at",
	"general protection fault",
	"invalid opcode:",
	"UBSAN:",
	"KASAN:",
	"sleeping function called from invalid context",
	"scheduling while atomic",
	"Invalid wait context",
	"possible recursive locking detected",
	"possible circular locking dependency",
	"inconsistent lock state",
	"suspicious RCU usage",
	"blocked for more than",
	"rcu: INFO:",
	"detected stall",
	"Unable to handle kernel",
	"Call Trace:",
	NULL
};

struct line {
	char *text;		/* the whole console line */
	const char *kmsg;	/* the kernel message after the time stamp, or NULL */
};

struct console {
	struct line *lines;
	size_t n;
};

static void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size);
	if (!p)
		die("out of memory");
	return p;
}

/* Find a printk time stamp "[ 123.456789]" and return what follows it. */
static const char *kernel_text(const char *s)
{
	for (const char *p = strchr(s, '['); p; p = strchr(p + 1, '[')) {
		const char *q = p + 1;
		bool digits = false;

		while (*q == ' ')
			q++;
		while (isdigit((unsigned char)*q)) {
			q++;
			digits = true;
		}
		if (!digits || *q != '.')
			continue;
		q++;
		if (!isdigit((unsigned char)*q))
			continue;
		while (isdigit((unsigned char)*q))
			q++;
		if (*q != ']')
			continue;
		q++;
		if (*q == ' ')
			q++;
		/* printk caller id, e.g. "[    T1] ": skip it too */
		if (q[0] == '[' && (q[1] == ' ' || q[1] == 'T' || q[1] == 'C')) {
			const char *r = strchr(q, ']');

			if (r)
				q = r[1] == ' ' ? r + 2 : r + 1;
		}
		return q;
	}
	return NULL;
}

static int read_console(const char *path, struct console *c)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;

	c->lines = NULL;
	c->n = 0;
	if (!f)
		return -errno;
	while ((len = getline(&buf, &cap, f)) >= 0) {
		/* a serial console ends lines with CR LF; guests also print NULs */
		while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
			buf[--len] = '\0';
		for (ssize_t i = 0; i < len; i++)
			if (buf[i] == '\0' || buf[i] == '\r')
				buf[i] = ' ';
		c->lines = xrealloc(c->lines, (c->n + 1) * sizeof(*c->lines));
		c->lines[c->n].text = strdup(buf);
		if (!c->lines[c->n].text)
			die("out of memory");
		c->lines[c->n].kmsg = kernel_text(c->lines[c->n].text);
		c->n++;
	}
	free(buf);
	fclose(f);
	return 0;
}

static void free_console(struct console *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->lines[c->n - 1 - i].text);
	free(c->lines);
}

static const char *splat_pattern(const struct line *l)
{
	if (!l->kmsg)
		return NULL;
	for (int i = 0; splat_patterns[i]; i++)
		if (strstr(l->kmsg, splat_patterns[i]))
			return splat_patterns[i];
	return NULL;
}

/* The marker's argument if line @l is "rtlab: <what> <arg...>", else NULL. */
#define MARKER_PREFIX	"rtlab: "	/* what lab/image/init writes to /dev/kmsg */
#define MARKER_PREFIX_LEN	(sizeof(MARKER_PREFIX) - 1)

static const char *marker(const struct line *l, const char *what)
{
	size_t n = strlen(what);
	const char *k = l->kmsg;

	if (!k || strncmp(k, MARKER_PREFIX, MARKER_PREFIX_LEN) ||
	    strncmp(k + MARKER_PREFIX_LEN, what, n))
		return NULL;
	k += MARKER_PREFIX_LEN + n;
	if (*k != ' ' && *k != '\0')
		return NULL;
	return *k ? k + 1 : k;
}

/* marker_int: the number after "KEY=" in a marker's arguments, or def */
static int marker_int(const char *args, const char *key, int def)
{
	size_t n = strlen(key);

	for (const char *p = args; (p = strstr(p, key)); p += n)
		if ((p == args || p[-1] == ' ') && p[n] == '=')
			return atoi(p + n + 1);
	return def;
}

/* Does the marker argument @arg name test @name (first word)? */
static bool names(const char *arg, const char *name)
{
	size_t n = strlen(name);

	return arg && !strncmp(arg, name, n) && (arg[n] == ' ' || arg[n] == '\0');
}

/*
 * Print the splats found in console lines [from, to) as TAP diagnostics.
 * Returns the number of splats; *first gets the first splat's line.
 */
static int report_splats(const struct console *c, size_t from, size_t to,
			 const char **first, bool diag)
{
	int count = 0;

	for (size_t i = from; i < to; i++) {
		const char *pat = splat_pattern(&c->lines[i]);
		size_t end;

		if (!pat)
			continue;
		if (!count && first)
			*first = c->lines[i].kmsg;
		count++;
		/* a WARN's own message stands between "cut here" and "WARNING:" */
		for (size_t back = 1; back <= 3 && i >= from + back; back++) {
			const char *k = c->lines[i - back].kmsg;

			if (k && strstr(k, "[ cut here ]")) {
				for (size_t j = i - back; j < i; j++)
					printf("%s%s\n", diag ? "#   " : "", c->lines[j].text);
				break;
			}
		}
		/* the splat runs to its end marker, the next marker, or a limit */
		end = i + 1;
		while (end < to && end < i + 1 + SPLAT_CONTEXT) {
			const char *k = c->lines[end].kmsg;

			if (k && !strncmp(k, "rtlab: ", 7))
				break;
			end++;
			if (k && strstr(k, "---[ end trace"))
				break;
		}
		for (size_t j = i; j < end; j++)
			printf("%s%s\n", diag ? "#   " : "", c->lines[j].text);
		if (!diag)
			printf("\n");
		i = end - 1;
	}
	return count;
}

/*
 * The byte before "<..>" in an oops's "Code:" line: the int3 trap leaves
 * RIP one past the int3, and the line marks the byte at RIP with <..>.
 * Returns the byte (0-255), or -1 when the line has no such pair.
 */
static int code_byte_before_rip(const char *code)
{
	const char *lt = strchr(code, '<');
	unsigned int b;

	if (!lt || lt - code < 3 || lt[-1] != ' ')
		return -1;
	if (sscanf(lt - 3, "%2x", &b) != 1 || !isxdigit((unsigned char)lt[-3]) ||
	    !isxdigit((unsigned char)lt[-2]))
		return -1;
	return (int)b;
}

/*
 * Is the first splat in lines [from, to) an "Oops: int3" whose trapping
 * address holds something else than int3?  *where gets its RIP line and
 * *byte the byte found there.
 */
static bool stale_int3(const struct console *c, size_t from, size_t to,
		       const char **where, int *byte)
{
	for (size_t i = from; i < to; i++) {
		if (!splat_pattern(&c->lines[i]))
			continue;
		if (!strstr(c->lines[i].kmsg, "Oops: int3"))
			return false;
		*where = NULL;
		for (size_t j = i + 1; j < to && j < i + 8; j++) {
			const char *k = c->lines[j].kmsg;

			if (!k)
				continue;
			if (!strncmp(k, "RIP:", 4))
				*where = k;
			if (!strncmp(k, "Code:", 5)) {
				*byte = code_byte_before_rip(k);
				return *byte >= 0 && *byte != 0xcc;
			}
		}
		return false;
	}
	return false;
}

static void print_tail(const struct console *c, size_t upto)
{
	size_t from = upto > TAIL_LINES ? upto - TAIL_LINES : 0;

	printf("#   --- console tail ---\n");
	for (size_t i = from; i < upto; i++)
		printf("#   %s\n", c->lines[i].text);
}

struct tap_counts {
	int pass, fail, skip, points, planned;
	bool bail;
};

/* Directive after " # " in a TAP line: SKIP or TODO (case-insensitive). */
static bool has_directive(const char *s, const char *dir)
{
	const char *h = strstr(s, " # ");
	size_t n = strlen(dir);

	if (!h)
		h = strstr(s, " #");
	for (; h; h = strstr(h + 1, " #")) {
		const char *d = h + 2;

		while (*d == ' ')
			d++;
		if (!strncasecmp(d, dir, n))
			return true;
	}
	return false;
}

/*
 * Classify one TAP line.  Returns 'p'ass, 'f'ail, 's'kip, 'P'lan, 'B'ail out,
 * or 0 for anything else (diagnostics, nested subtests, output).  *desc gets
 * the description after the test number.
 */
static int tap_line(const char *s, const char **desc, int *plan)
{
	bool ok;
	const char *p;

	if (!strncmp(s, "Bail out!", 9))
		return 'B';
	if (!strncmp(s, "1..", 3) && isdigit((unsigned char)s[3])) {
		*plan = atoi(s + 3);
		return has_directive(s, "SKIP") && *plan == 0 ? 's' : 'P';
	}
	if (!strncmp(s, "ok", 2) && (s[2] == ' ' || s[2] == '\0')) {
		ok = true;
		p = s + 2;
	} else if (!strncmp(s, "not ok", 6) && (s[6] == ' ' || s[6] == '\0')) {
		ok = false;
		p = s + 6;
	} else {
		return 0;
	}
	while (*p == ' ')
		p++;
	while (isdigit((unsigned char)*p))
		p++;
	while (*p == ' ' || *p == '-')
		p++;
	*desc = p;
	if (has_directive(s, "SKIP"))
		return 's';
	if (!ok && has_directive(s, "TODO"))
		return 's';
	return ok ? 'p' : 'f';
}

static int next_point;

static void emit(bool ok, const char *test, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void emit(bool ok, const char *test, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d %s: ", ok ? "ok" : "not ok", ++next_point, test);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/*
 * Relay a test's own TAP file, renumbered, each description after @pfx (the
 * phase of a two-phase test, else ""); returns its counts.
 */
static struct tap_counts relay_tap(const char *path, const char *test, const char *pfx)
{
	struct tap_counts t = { 0 };
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;

	t.planned = -1;
	if (!f)
		return t;
	while ((len = getline(&buf, &cap, f)) >= 0) {
		const char *desc = "";
		int plan = -1;
		int kind;

		while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
			buf[--len] = '\0';
		kind = tap_line(buf, &desc, &plan);
		switch (kind) {
		case 'p':
		case 'f':
			t.points++;
			if (kind == 'p')
				t.pass++;
			else
				t.fail++;
			emit(kind == 'p', test, "%s%s", pfx, desc);
			break;
		case 's':
			if (plan == 0) {
				t.planned = 0;
				emit(true, test, "%swhole test # SKIP %s", pfx,
				     strstr(buf, "SKIP") ? strstr(buf, "SKIP") + 4 : "");
			} else {
				emit(true, test, "%s%s", pfx, desc);
			}
			t.points++;
			t.skip++;
			break;
		case 'P':
			t.planned = plan;
			break;
		case 'B':
			t.bail = true;
			emit(false, test, "%s%s", pfx, buf);
			t.fail++;
			break;
		default:
			if (buf[0] == '#')
				printf("#   %s\n", buf + 1 + (buf[1] == ' '));
			break;
		}
	}
	free(buf);
	fclose(f);
	return t;
}

struct guest_opts {
	const char *console, *outdir, *status, *label;
	char **tests;	/* the tests the boot was to run, in order */
	int ntests;
	char **panic1, **panic2;	/* --expect-panic, --after-panic tests */
	int npanic1, npanic2;
};

/* add_name: one more test name to a list of options (freed at exit) */
static void add_name(char ***list, int *n, char *name)
{
	*list = xrealloc(*list, (*n + 1) * sizeof(**list));
	(*list)[(*n)++] = name;
}

static bool listed(char *const *list, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(list[i], name))
			return true;
	return false;
}

/* parse_guest_opts: 0, or 2 after saying what is wrong */
static int parse_guest_opts(int argc, char **argv, struct guest_opts *o)
{
	int i;

	*o = (struct guest_opts){ .outdir = ".", .label = "guest" };
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--console") && i + 1 < argc)
			o->console = argv[++i];
		else if (!strcmp(argv[i], "--outdir") && i + 1 < argc)
			o->outdir = argv[++i];
		else if (!strcmp(argv[i], "--status") && i + 1 < argc)
			o->status = argv[++i];
		else if (!strcmp(argv[i], "--label") && i + 1 < argc)
			o->label = argv[++i];
		else if (!strcmp(argv[i], "--expect-panic") && i + 1 < argc)
			add_name(&o->panic1, &o->npanic1, argv[++i]);
		else if (!strcmp(argv[i], "--after-panic") && i + 1 < argc)
			add_name(&o->panic2, &o->npanic2, argv[++i]);
		else if (argv[i][0] == '-' && argv[i][1] == '-')
			return fprintf(stderr, "labcheck: unknown option %s\n", argv[i]), 2;
		else
			break;
	}
	if (!o->console)
		return fprintf(stderr, "labcheck: guest needs --console LOG\n"), 2;
	o->tests = argv + i;
	o->ntests = argc - i;
	return 0;
}

/* first_marker: the first console line with marker WHAT, or c->n */
static size_t first_marker(const struct console *c, const char *what)
{
	for (size_t l = 0; l < c->n; l++)
		if (marker(&c->lines[l], what))
			return l;
	return c->n;
}

/* check_boot: the boot reached init with no splat before the first test */
static int check_boot(const struct console *c, const char *label)
{
	size_t init_line = first_marker(c, "INIT");
	const char *first = NULL;
	int n;

	if (init_line == c->n) {
		emit(false, "boot", "%s: the kernel never reached /init", label);
		print_tail(c, c->n);
		return 1;
	}
	n = report_splats(c, 0, first_marker(c, "BEGIN"), &first, true);
	emit(!n, "boot", "%s: %s%s%s", label, c->lines[init_line].kmsg + MARKER_PREFIX_LEN,
	     n ? "; kernel splat during boot: " : "", n ? first : "");
	return n ? 1 : 0;
}

/* where one test ran on the console */
struct test_run {
	size_t begin, end, stop;	/* BEGIN, END (c->n: none), end of its output */
	int rc, timeout;		/* from END and BEGIN; -1 and 0 if absent */
};

static void find_test_run(const struct console *c, const char *test, struct test_run *r)
{
	*r = (struct test_run){ .begin = c->n, .end = c->n, .rc = -1 };
	for (size_t l = 0; l < c->n; l++) {
		const char *a = marker(&c->lines[l], "BEGIN");

		if (names(a, test) && r->begin == c->n) {
			r->begin = l;
			r->timeout = marker_int(a, "timeout", 0);
		}
		a = marker(&c->lines[l], "END");
		if (r->begin != c->n && names(a, test)) {
			r->end = l;
			r->rc = marker_int(a, "rc", -1);
			break;
		}
	}
	r->stop = r->end;
	if (r->begin != c->n && r->end == c->n) {
		/* the guest died or hung in this test: its output ends at the next BEGIN */
		r->stop = c->n;
		for (size_t l = r->begin + 1; l < c->n; l++)
			if (marker(&c->lines[l], "BEGIN")) {
				r->stop = l;
				break;
			}
	}
}

/* test_tap: the test's TAP as relayed (tap, or tap.partial if it died) */
static struct tap_counts test_tap(const char *outdir, const char *test, const char *pfx)
{
	char path[4096];
	struct tap_counts t;

	snprintf(path, sizeof(path), "%s/%s/tap", outdir, test);
	t = relay_tap(path, test, pfx);
	if (!t.points && t.planned < 0) {
		snprintf(path, sizeof(path), "%s/%s/tap.partial", outdir, test);
		t = relay_tap(path, test, pfx);
	}
	return t;
}

#define PANIC_LINE	"Kernel panic - not syncing"
#define REPORT_LEAD	6	/* lines a fatal report may start above its anchor */

/* panic_line: the first panic line in console lines [from, to), or to */
static size_t panic_line(const struct console *c, size_t from, size_t to)
{
	for (size_t l = from; l < to; l++)
		if (c->lines[l].kmsg && strstr(c->lines[l].kmsg, PANIC_LINE))
			return l;
	return to;
}

/* ends_report: does line @l close whatever report came before it? */
static bool ends_report(const struct line *l)
{
	return !l->kmsg || !strncmp(l->kmsg, MARKER_PREFIX, MARKER_PREFIX_LEN) ||
	       strstr(l->kmsg, "---[ end trace") || strstr(l->kmsg, "</TASK>");
}

/*
 * fatal_report_start: the first line of the report that ends in the panic
 * at line @panic, for a test that began at line @from.  A plain panic() is
 * its own report.  A panic that concludes an oops (panic_on_oops: "Fatal
 * exception", after the oops's end marker and register summary) or a
 * warning (panic_on_warn: "panic_on_warn set", right after it) is anchored
 * at the last "Oops" or "WARNING:" line before it; the report then starts at
 * the highest splat or "cut here" line among the REPORT_LEAD lines above
 * the anchor (a fault's "BUG: unable to handle ...", "kernel BUG at", a
 * WARN's message), not crossing an end marker, the end of a stack trace or
 * a non-kernel line: those belong to an earlier report, which still fails
 * the test.
 */
static size_t fatal_report_start(const struct console *c, size_t from, size_t panic)
{
	const char *k = c->lines[panic].kmsg, *anchor;
	size_t a = panic, start;

	if (strstr(k, "Fatal exception"))
		anchor = "Oops";
	else if (strstr(k, "panic_on_warn set"))
		anchor = "WARNING:";
	else
		return panic;
	while (a > from && !(c->lines[a - 1].kmsg && strstr(c->lines[a - 1].kmsg, anchor)))
		a--;
	if (a == from)
		return panic;
	start = --a;
	for (size_t b = 1; b <= REPORT_LEAD && a >= from + b; b++) {
		const struct line *l = &c->lines[a - b];

		if (ends_report(l))
			break;
		if (splat_pattern(l) || strstr(l->kmsg, "[ cut here ]"))
			start = a - b;
	}
	return start;
}

/* verdict: the harness's own point on a test that ran; 1 if it failed */
static int verdict(const struct console *c, const char *test, const struct test_run *r,
		   const struct tap_counts *t)
{
	if (r->end == c->n) {
		emit(false, test, "did not finish: the guest died or hung");
		print_tail(c, r->stop);
	} else if (r->rc == 137 && r->timeout) {
		emit(false, test, "killed by its %d s time-out", r->timeout);
	} else if (r->rc != 0 && !t->fail) {
		emit(false, test, "exit status %d without a failing test point", r->rc);
	} else if (r->rc == 0 && t->fail) {
		emit(false, test, "exit status 0 although %d test points failed", t->fail);
	} else if (!t->points && t->planned != 0) {
		emit(false, test, "printed no test point: a test must assert something");
	} else if (t->planned > 0 && t->planned != t->points) {
		emit(false, test, "planned %d test points, ran %d", t->planned, t->points);
	} else {
		return 0;
	}
	return 1;
}

/*
 * check_panic_test: the first phase of an expect=panic test: its points so
 * far, the splats before its fatal report, and whether it panicked; writes
 * "panicked" to st when it did (the harness then runs its second phase).
 */
static int check_panic_test(const struct console *c, const struct guest_opts *o,
			    const char *test, const struct test_run *r, FILE *st)
{
	size_t p = r->end == c->n ? panic_line(c, r->begin, r->stop) : r->stop;
	const char *first = NULL;
	struct tap_counts t;
	int failed, splats;

	if (st)
		fprintf(st, "%s %s\n", test,
			r->end != c->n ? "ended" : p < r->stop ? "panicked" : "crashed");
	t = test_tap(o->outdir, test, "phase 1: ");
	failed = t.fail;
	splats = report_splats(c, r->begin, p < r->stop ? fatal_report_start(c, r->begin, p) : r->stop,
			       &first, true);
	if (splats) {
		emit(false, test, "phase 1: kernel splat while it ran, before the expected panic (%d): %s",
		     splats, first);
		failed++;
	}
	if (r->end != c->n) {
		if (r->rc == 137 && r->timeout)
			emit(false, test, "phase 1: expected a panic, but the test was killed by its %d s time-out (rc=137)",
			     r->timeout);
		else
			emit(false, test, "phase 1: expected a panic, but the test ended with rc=%d", r->rc);
		failed++;
	} else if (p == r->stop) {
		emit(false, test, "phase 1: expected a panic, but the guest hung or died without one");
		print_tail(c, r->stop);
		failed++;
	} else {
		emit(true, test, "phase 1: panicked as expected (%s)", c->lines[p].kmsg);
	}
	return failed;
}

/* check_test: one test's TAP, splats and verdict; writes its state to st */
static int check_test(const struct console *c, const struct guest_opts *o,
		      const char *test, FILE *st)
{
	struct test_run r;
	struct tap_counts t;
	const char *first = NULL;
	int failed, splats;

	find_test_run(c, test, &r);
	if (r.begin == c->n) {
		/* the harness boots again for it; only say so when nothing came */
		if (st)
			fprintf(st, "%s notrun\n", test);
		return 0;
	}
	if (listed(o->panic1, o->npanic1, test))
		return check_panic_test(c, o, test, &r, st);
	if (st)
		fprintf(st, "%s %s\n", test, r.end == c->n ? "crashed" : "ended");
	t = test_tap(o->outdir, test,
		     listed(o->panic2, o->npanic2, test) ? "phase 2: " : "");
	failed = t.fail;
	splats = report_splats(c, r.begin, r.stop, &first, true);
	if (splats) {
		emit(false, test, "kernel splat while it ran (%d): %s", splats, first);
		failed++;
	}
	return failed + verdict(c, test, &r, &t);
}

static int cmd_guest(int argc, char **argv)
{
	struct guest_opts o;
	struct console c = { 0 };
	FILE *st = NULL;
	int rc, failed;

	rc = parse_guest_opts(argc, argv, &o);
	if (rc)
		return rc;
	if (read_console(o.console, &c))
		return fprintf(stderr, "labcheck: %s: %s\n", o.console, strerror(errno)), 2;
	if (o.status) {
		st = fopen(o.status, "w");
		if (!st) {
			fprintf(stderr, "labcheck: %s: %s\n", o.status, strerror(errno));
			free_console(&c);
			return 2;
		}
	}
	failed = check_boot(&c, o.label);
	for (int i = 0; i < o.ntests; i++)
		failed += check_test(&c, &o, o.tests[i], st);
	printf("1..%d\n", next_point);
	if (st)
		fclose(st);
	free_console(&c);
	free(o.panic1);
	free(o.panic2);
	return failed ? 1 : 0;
}

static int cmd_splats(int argc, char **argv)
{
	struct console c;
	int n;

	if (argc != 1)
		return fprintf(stderr, "labcheck: splats takes one console log\n"), 2;
	if (read_console(argv[0], &c))
		return fprintf(stderr, "labcheck: %s: %s\n", argv[0], strerror(errno)), 2;
	n = report_splats(&c, 0, c.n, NULL, false);
	if (n)
		fprintf(stderr, "labcheck: %s: %d kernel splat%s\n", argv[0], n, n > 1 ? "s" : "");
	free_console(&c);
	return n ? 1 : 0;
}

static int cmd_stale_int3(int argc, char **argv)
{
	struct console c;
	const char *where = NULL;
	int byte = -1;
	bool stale;

	if (argc != 1)
		return fprintf(stderr, "labcheck: stale-int3 takes one console log\n"), 2;
	if (read_console(argv[0], &c))
		return fprintf(stderr, "labcheck: %s: %s\n", argv[0], strerror(errno)), 2;
	stale = stale_int3(&c, 0, c.n, &where, &byte);
	if (stale)
		printf("stale int3: %s, memory holds 0x%02x there, not int3 (0xcc)\n",
		       where ? where : "RIP unknown", byte);
	free_console(&c);
	return stale ? 0 : 1;
}

static int cmd_tally(int argc, char **argv)
{
	int pass = 0, fail = 0, skip = 0, empty = 0;

	if (argc < 1)
		return fprintf(stderr, "labcheck: tally needs TAP files\n"), 2;
	for (int i = 0; i < argc; i++) {
		FILE *f = fopen(argv[i], "r");
		char *buf = NULL;
		size_t cap = 0;
		ssize_t len;
		int p = 0, fl = 0, s = 0, plan = -1, whole_skip = 0;

		if (!f) {
			fprintf(stderr, "labcheck: %s: %s\n", argv[i], strerror(errno));
			fail++;
			continue;
		}
		while ((len = getline(&buf, &cap, f)) >= 0) {
			const char *desc;
			int pl = -1;

			while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
				buf[--len] = '\0';
			switch (tap_line(buf, &desc, &pl)) {
			case 'p':
				p++;
				break;
			case 'f':
			case 'B':
				fl++;
				break;
			case 's':
				if (pl == 0)
					whole_skip = 1;
				else
					s++;
				break;
			case 'P':
				plan = pl;
				break;
			}
		}
		free(buf);
		fclose(f);
		if (!p && !fl && !s && !whole_skip) {
			printf("%s: no test point\n", argv[i]);
			empty++;
			fl++;
		} else if (plan >= 0 && plan != p + fl + s) {
			printf("%s: planned %d, ran %d\n", argv[i], plan, p + fl + s);
			fl++;
		} else {
			printf("%s: %d passed, %d failed%s\n", argv[i], p, fl, s ? ", skipped some" : "");
		}
		pass += p;
		fail += fl;
		skip += s + whole_skip;
	}
	if (skip)
		printf("%d passed, %d failed, %d skipped\n", pass, fail, skip);
	else
		printf("%d passed, %d failed\n", pass, fail);
	(void)empty;
	return fail ? 1 : 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: labcheck guest --console LOG [--outdir DIR] [--status FILE] [--label L]\n"
		"                      [--expect-panic TEST]... [--after-panic TEST]... TEST...\n"
		"       labcheck splats LOG\n"
		"       labcheck stale-int3 LOG\n"
		"       labcheck tally TAPFILE...\n"
		"\n"
		"guest   turn one boot's console log and per-test TAP files into TAP,\n"
		"        failing tests that timed out, crashed the guest, printed no\n"
		"        test point or ran while the kernel printed a splat;\n"
		"        --status FILE: \"TEST ended|crashed|panicked|notrun\" lines\n"
		"        --expect-panic TEST: phase 1 of an expect=panic test: passes\n"
		"        when its points so far passed and \"Kernel panic - not syncing\"\n"
		"        follows its BEGIN (state panicked); the fatal report (from the\n"
		"        panic line, or from the oops or WARNING it concludes under\n"
		"        panic_on_oops/panic_on_warn) is no splat, any splat before it\n"
		"        is; ending or hanging without a panic fails\n"
		"        --after-panic TEST: phase 2 of such a test, judged normally\n"
		"splats  print every kernel splat of a console log (exit 1 if any)\n"
		"stale-int3  exit 0 when the log's first splat is an \"Oops: int3\" at\n"
		"        an address that holds no int3 (an emulator's stale code)\n"
		"tally   count TAP files; the last line is \"N passed, N failed\"\n");
}

int main(int argc, char **argv)
{
	if (argc < 2)
		opt_usage_exit(usage, 2);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		opt_usage_exit(usage, 0);
	if (!strcmp(argv[1], "guest"))
		return cmd_guest(argc - 2, argv + 2);
	if (!strcmp(argv[1], "splats"))
		return cmd_splats(argc - 2, argv + 2);
	if (!strcmp(argv[1], "stale-int3"))
		return cmd_stale_int3(argc - 2, argv + 2);
	if (!strcmp(argv[1], "tally"))
		return cmd_tally(argc - 2, argv + 2);
	fprintf(stderr, "labcheck: unknown command '%s'\n", argv[1]);
	opt_usage_exit(usage, 2);
}
