// SPDX-License-Identifier: GPL-2.0
/*
 * cmpreport: checks, event by event, that babeltrace2's (or babeltrace
 * 1.x's) text of a CTF trace says what `trace-cmd report` says of the
 * trace.dat it came from.
 *
 * usage: cmpreport [--bt1] REPORT BT BT_STDERR
 *   REPORT     output of `trace-cmd report -N -R -t IN`
 *   BT         output of `babeltrace2 --clock-seconds --no-delta OUTDIR`,
 *              or with --bt1 of `babeltrace --clock-seconds --no-delta
 *              OUTDIR` (babeltrace 1.x prints a string's newline as is,
 *              so a line that does not start "[ SEC.NS] " continues the
 *              event before it)
 *   BT_STDERR  its stderr (the "Tracer discarded N events" warnings)
 *
 * Both event lists are sorted by (time, buffer, cpu, name, pid, order) and
 * compared pairwise: timestamp to the ns, buffer, cpu, comm, pid, event
 * name and every payload field (numbers by value, strings unescaped,
 * arrays as the bytes trace-cmd prints).  Lost-event counts are compared
 * per buffer and CPU.  Prints one line per finding; exit 0 if all match.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_S 1000000000ULL
#define MAX_FIELDS 32
#define MAX_STREAMS 256
#define MAX_FAIL_LINES 10

struct field { char *name, *val; int kind; };	/* kind: 'n' 's' 'a' */

struct ev {
	uint64_t ts;
	char buf[32], comm[32], name[64];
	int cpu, pid;
	long order;
	char *rest;		/* report: raw field text */
	int nf;
	struct field f[MAX_FIELDS];	/* bt: payload fields */
};

struct list { struct ev *v; long n, cap; };

struct loss { char buf[32]; int cpu; long long total; int unknown; };
static struct loss losses[2][MAX_STREAMS];
static int nloss[2];

static int fails;
static int bt1;		/* --bt1: babeltrace 1.x text */
static const char *reader = "babeltrace2";

static void fail(const char *fmt, const struct ev *e, const char *what)
{
	if (++fails <= MAX_FAIL_LINES)
		printf(fmt, (unsigned long long)(e->ts / NS_PER_S),
		       (unsigned long long)(e->ts % NS_PER_S), e->cpu, e->name,
		       what);
}

static struct ev *push(struct list *l)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->v = realloc(l->v, (size_t)l->cap * sizeof(*l->v));
		if (!l->v) {
			perror("realloc");
			exit(2);
		}
	}
	memset(&l->v[l->n], 0, sizeof(l->v[0]));
	l->v[l->n].order = l->n;
	return &l->v[l->n++];
}

static void add_loss(int side, const char *buf, int cpu, long long n)
{
	struct loss *L = NULL;

	for (int i = 0; i < nloss[side]; i++)
		if (losses[side][i].cpu == cpu && !strcmp(losses[side][i].buf, buf))
			L = &losses[side][i];
	if (!L) {
		if (nloss[side] == MAX_STREAMS)
			return;
		L = &losses[side][nloss[side]++];
		snprintf(L->buf, sizeof(L->buf), "%s", buf);
		L->cpu = cpu;
	}
	if (n < 0)
		L->unknown++;
	else
		L->total += n;
}

static uint64_t parse_ts(const char *s)
{
	char *end;
	uint64_t sec = strtoull(s, &end, 10), ns = 0;
	int digits = 0;

	/* report -t prints counter-like clocks (counter, x86-tsc, boot
	 * without a ns conversion) as a bare count */
	if (*end != '.')
		return sec;
	if (*end == '.')
		for (end++; isdigit((unsigned char)*end) && digits < 9; end++, digits++)
			ns = ns * 10 + (uint64_t)(*end - '0');
	for (; digits < 9; digits++)
		ns *= 10;
	return sec * NS_PER_S + ns;
}

/* "[inst:] comm-pid [CPU] ts: name: fields" of trace-cmd report */
static int parse_report_line(char *line, struct ev *e)
{
	char *br = strstr(line, " [");
	char *p, *dash, *colon;

	while (br && !(isdigit((unsigned char)br[2]) && strchr(br, ']') &&
		       strchr(br, ']') - br == 5))
		br = strstr(br + 1, " [");
	if (!br)
		return -1;
	*br = 0;
	p = line;
	if (!isspace((unsigned char)*p) && (colon = strchr(p, ':')) &&
	    isspace((unsigned char)colon[1])) {
		*colon = 0;
		snprintf(e->buf, sizeof(e->buf), "%s", p);
		p = colon + 1;
	}
	while (isspace((unsigned char)*p))
		p++;
	dash = strrchr(p, '-');
	if (!dash)
		return -1;
	*dash = 0;
	snprintf(e->comm, sizeof(e->comm), "%s", p);
	e->pid = atoi(dash + 1);
	e->cpu = atoi(br + 2);
	p = br + 6;
	while (isspace((unsigned char)*p))
		p++;
	e->ts = parse_ts(p);
	p = strchr(p, ':');
	if (!p)
		return -1;
	p++;
	while (isspace((unsigned char)*p))
		p++;
	colon = strchr(p, ':');
	if (!colon)
		return -1;
	*colon = 0;
	snprintf(e->name, sizeof(e->name), "%s", p);
	p = colon + 1;
	while (*p == ' ')
		p++;
	e->rest = strdup(p);
	return 0;
}

static FILE *open_or_die(const char *path)
{
	FILE *f = fopen(path, "r");

	if (!f) {
		perror(path);
		exit(2);
	}
	return f;
}

static void read_report(const char *path, struct list *l)
{
	FILE *f = open_or_die(path);
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	char inst[32];
	int cpu;
	long long cnt;

	while ((n = getline(&line, &cap, f)) > 0) {
		struct ev e = { 0 };
		char *cpuat;

		if (line[n - 1] == '\n')
			line[--n] = 0;
		if ((cpuat = strstr(line, "CPU:")) && strstr(line, "EVENTS DROPPED]")) {
			inst[0] = 0;
			if (cpuat != line)
				sscanf(line, "%31[^:]", inst);
			if (sscanf(cpuat, "CPU:%d [%lld EVENTS", &cpu, &cnt) == 2)
				add_loss(0, inst, cpu, cnt);
			else if (sscanf(cpuat, "CPU:%d", &cpu) == 1)
				add_loss(0, inst, cpu, -1);
			continue;
		}
		if (!strncmp(line, "cpus=", 5) || (!*line && !l->n))
			continue;
		if (!*line || parse_report_line(line, &e)) {
			/* a continuation: a string field held a newline */
			if (l->n) {
				struct ev *last = &l->v[l->n - 1];
				size_t len = strlen(last->rest);

				last->rest = realloc(last->rest, len + (size_t)n + 2);
				last->rest[len] = '\n';
				memcpy(last->rest + len + 1, line, (size_t)n + 1);
			}
			continue;
		}
		*push(l) = e;
		l->v[l->n - 1].order = l->n - 1;
	}
	free(line);
	fclose(f);
}

/* Parses a babeltrace2 value at *pp into a malloc'd canonical string. */
static char *parse_value(char **pp, int *kind)
{
	char *p = *pp, *out;
	size_t n = 0, cap = 64;

	out = malloc(cap);
	if (*p == '"') {
		*kind = 's';
		for (p++; *p && *p != '"'; p++) {
			char c = *p;

			if (c == '\\' && p[1]) {
				p++;
				c = *p == 'n' ? '\n' : *p == 't' ? '\t' :
				    *p == 'r' ? '\r' : *p;
			}
			if (n + 2 > cap)
				out = realloc(out, cap *= 2);
			out[n++] = c;
		}
		if (*p == '"')
			p++;
	} else if (*p == '[') {
		/* "[ [0] = v, [1] = v ]" -> "v v" */
		*kind = 'a';
		for (p++; *p && *p != ']';) {
			while (*p == ' ' || *p == ',')
				p++;
			if (*p == '[') {
				p = strchr(p, '=');
				if (!p)
					break;
				p += 2;
				while (*p && *p != ',' && *p != ' ') {
					if (n + 3 > cap)
						out = realloc(out, cap *= 2);
					out[n++] = *p++;
				}
				out[n++] = ' ';
			} else if (*p && *p != ']') {
				p++;
			}
		}
		if (*p == ']')
			p++;
	} else {
		*kind = 'n';
		while (*p && *p != ',' && *p != ' ' && *p != '}') {
			if (n + 2 > cap)
				out = realloc(out, cap *= 2);
			out[n++] = *p++;
		}
	}
	out[n] = 0;
	*pp = p;
	return out;
}

/* Parses "{ a = v, b = v }" at *pp into f[]; returns the count. */
static int parse_struct(char **pp, struct field *f, int max)
{
	char *p = strchr(*pp, '{');
	int n = 0;

	if (!p)
		return -1;
	for (p++; *p;) {
		char *eq;

		while (*p == ' ' || *p == ',')
			p++;
		if (*p == '}') {
			p++;
			break;
		}
		eq = strstr(p, " = ");
		if (!eq || n == max)
			return -1;
		f[n].name = strndup(p, (size_t)(eq - p));
		p = eq + 3;
		f[n].val = parse_value(&p, &f[n].kind);
		n++;
	}
	*pp = p;
	return n;
}

static const char *fval(struct field *f, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(f[i].name, name))
			return f[i].val;
	return NULL;
}

static void free_fields(struct field *f, int n)
{
	for (int i = 0; i < n; i++) {
		free(f[i].name);
		free(f[i].val);
	}
}

static int parse_bt_line(char *line, struct ev *e)
{
	struct field pc[4], cc[8];
	int npc, ncc;
	char *p = line, *colon;
	const char *v;

	if (*p != '[')
		return -1;
	e->ts = parse_ts(p + 1);
	p = strchr(p, ']');
	if (!p)
		return -1;
	p += 2;
	colon = strstr(p, ": {");
	if (!colon)
		return -1;
	*colon = 0;
	snprintf(e->name, sizeof(e->name), "%s", p);
	p = colon + 1;
	npc = parse_struct(&p, pc, 4);
	ncc = parse_struct(&p, cc, 8);
	e->nf = parse_struct(&p, e->f, MAX_FIELDS);
	if (npc < 0 || ncc < 0 || e->nf < 0)
		return -1;
	e->cpu = (v = fval(pc, npc, "cpu_id")) ? atoi(v) : -1;
	snprintf(e->buf, sizeof(e->buf), "%s", (v = fval(pc, npc, "buffer")) ? v : "");
	snprintf(e->comm, sizeof(e->comm), "%s", (v = fval(cc, ncc, "comm")) ? v : "");
	e->pid = (v = fval(cc, ncc, "common_pid")) ? atoi(v) : -1;
	free_fields(pc, npc);
	free_fields(cc, ncc);
	return 0;
}

/* Does line start an event of babeltrace 1.x's text ("[  1.000000421] ")? */
static int bt1_event_start(const char *line)
{
	const char *p = line + 1;

	if (*line != '[')
		return 0;
	while (*p == ' ')
		p++;
	if (!isdigit((unsigned char)*p))
		return 0;
	p += strspn(p, "0123456789");
	if (*p == '.')
		p += 1 + strspn(p + 1, "0123456789");
	return p[0] == ']' && p[1] == ' ';
}

static void add_bt_event(struct list *l, char *text)
{
	struct ev e = { 0 };

	if (parse_bt_line(text, &e)) {
		printf("# unparsed %s line: %.80s\n", reader, text);
		fails++;
		return;
	}
	*push(l) = e;
	l->v[l->n - 1].order = l->n - 1;
}

static void read_bt(const char *path, struct list *l)
{
	FILE *f = open_or_die(path);
	char *line = NULL, *rec = NULL;
	size_t cap = 0, len = 0;
	ssize_t n;

	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = 0;
		if (!bt1) {
			add_bt_event(l, line);
			continue;
		}
		/* babeltrace 1.x: gather an event's lines, then parse it */
		if (rec && bt1_event_start(line)) {
			add_bt_event(l, rec);
			free(rec);
			rec = NULL;
		}
		if (!rec) {
			rec = strdup(line);
			len = (size_t)n;
		} else {
			rec = realloc(rec, len + (size_t)n + 2);
			rec[len++] = '\n';
			memcpy(rec + len, line, (size_t)n + 1);
			len += (size_t)n;
		}
		if (!rec) {
			perror("realloc");
			exit(2);
		}
	}
	if (rec)
		add_bt_event(l, rec);
	free(rec);
	free(line);
	fclose(f);
}

/*
 * babeltrace2: "WARNING: Tracer discarded N event(s) ... within stream
 * "DIR/[inst-]cpuN"";  babeltrace 1.x: "[warning] Tracer discarded N
 * events ... at relative path: "[inst-]cpuN"".
 */
static void read_bt_losses(const char *path)
{
	FILE *f = open_or_die(path);
	char line[4096];

	while (fgets(line, sizeof(line), f)) {
		const char *key = bt1 ? "at relative path: \"" : "within stream \"";
		char *st = strstr(line, key), *base, *end, *cpu;
		long long n = -1;
		char inst[32] = "";

		/* "Tracer may have discarded events": count unknown */
		if (!strstr(line, "discarded events") &&
		    !strstr(line, "Tracer discarded"))
			continue;
		if (!st)
			continue;
		if (strstr(line, "Tracer discarded"))
			sscanf(strstr(line, "Tracer discarded"), "Tracer discarded %lld", &n);
		st += strlen(key);
		end = strchr(st, '"');
		if (!end)
			continue;
		*end = 0;
		base = strrchr(st, '/') ? strrchr(st, '/') + 1 : st;
		cpu = strstr(base, "cpu");
		if (!cpu)
			continue;
		if (cpu > base + 1)
			snprintf(inst, sizeof(inst), "%.*s", (int)(cpu - base - 1), base);
		add_loss(1, inst, atoi(cpu + 3), n);
	}
	fclose(f);
}

static int cmp_ev(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;
	int c;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if ((c = strcmp(x->buf, y->buf)))
		return c;
	if (x->cpu != y->cpu)
		return x->cpu - y->cpu;
	if ((c = strcmp(x->name, y->name)))
		return c;
	if (x->pid != y->pid)
		return x->pid - y->pid;
	return x->order < y->order ? -1 : x->order > y->order;
}

static uint64_t num(const char *s)
{
	return *s == '-' ? (uint64_t)strtoll(s, NULL, 0) : strtoull(s, NULL, 0);
}

/* report "ARRAY[aa, bb, ...]" bytes vs babeltrace2 element values */
static int same_array(const char *rep, const char *bt)
{
	unsigned char bytes[4096];
	uint64_t elems[1024];
	size_t nb = 0, ne = 0, es;
	const char *p;
	char *end;

	if (strncmp(rep, "ARRAY[", 6))
		return 0;
	for (p = rep + 6; *p && *p != ']' && nb < sizeof(bytes);) {
		bytes[nb++] = (unsigned char)strtoul(p, &end, 16);
		if (end == p)
			return 0;
		p = end;
		while (*p == ',' || *p == ' ')
			p++;
	}
	for (p = bt; *p && ne < 1024;) {
		elems[ne++] = num(p);
		p = strchr(p, ' ');
		if (!p)
			break;
		p++;
	}
	if (!ne || !nb)
		return ne == nb;
	es = nb / ne;
	if (es * ne != nb || es > 8)
		return 0;
	for (size_t i = 0; i < ne; i++)
		for (size_t b = 0; b < es; b++)
			if (bytes[i * es + b] != (unsigned char)(elems[i] >> (8 * b)))
				return 0;
	return 1;
}

/*
 * report -R prints a number as its format's print fmt hints: decimal,
 * 0x-prefixed hex, or bare hex for %llx (funcgraph_exit calltime); a
 * report value of only hex digits may be either.
 */
static int same_number(const char *rep, const char *bt)
{
	if (num(rep) == num(bt))
		return 1;
	return rep[strspn(rep, "0123456789abcdefABCDEF")] == 0 &&
	       strtoull(rep, NULL, 16) == num(bt);
}

/*
 * trace-cmd report drops one trailing newline of a string (trace_marker
 * writes end with one); the CTF keeps the bytes as recorded.
 */
static int same_string(const char *rep, const char *bt)
{
	size_t lr = strlen(rep), lb = strlen(bt);

	if (lr == lb)
		return !strcmp(rep, bt);
	return lb == lr + 1 && bt[lr] == '\n' && !strncmp(rep, bt, lr);
}

/* sink.ctf.fs adds "__NAME_len" before a dynamic array: not in report */
static int is_len_member(const struct field *f)
{
	size_t nl = strlen(f->name);

	return !strncmp(f->name, "__", 2) && nl > 4 &&
	       !strcmp(f->name + nl - 4, "_len");
}

/* Is b->f[i] the "<name>_sym" string member of the code address b->f[i-1]? */
static int is_sym_member(const struct ev *b, int i)
{
	size_t nl;

	if (i < 1 || b->f[i].kind != 's')
		return 0;
	nl = strlen(b->f[i - 1].name);
	return !strncmp(b->f[i].name, b->f[i - 1].name, nl) &&
	       !strcmp(b->f[i].name + nl, "_sym");
}

/* Index of the next payload field report prints after b->f[i], or nf. */
static int next_shown(const struct ev *b, int i)
{
	for (i++; i < b->nf; i++)
		if (!is_len_member(&b->f[i]) && !is_sym_member(b, i))
			break;
	return i;
}

/*
 * A code address printed with %ps/%pS: the CTF has the address and, in
 * "<name>_sym", the symbol from the file's kallsyms ("name" or
 * "name+0xoff", the address in hex when none covers it).  report prints
 * that text, or the bare address when libtraceevent's raw printer does
 * not pair the field with its directive (it searches the print fmt from
 * the previous field's directive on: hrtimer_expire_entry's function
 * comes after "now" in the record but before it in the print fmt).
 */
static int same_symbol(const char *rep, const struct field *addr,
		       const struct field *sym)
{
	if (!strncmp(rep, "0x", 2))
		return num(rep) == num(addr->val);
	return !strcmp(rep, sym->val);
}

/* Compares the bt payload with report's "name=value name=value" text. */
static void cmp_fields(const struct ev *r, const struct ev *b)
{
	const char *p = r->rest;

	for (int i = 0; i < b->nf; i = next_shown(b, i)) {
		size_t nl = strlen(b->f[i].name);
		const char *v, *vend = NULL;
		char *rv;
		int ok, next = next_shown(b, i);

		if (is_len_member(&b->f[i]))
			continue;
		if (strncmp(p, b->f[i].name, nl) || p[nl] != '=') {
			fail("not ok: %llu.%09llu cpu %d %s: field %s missing in report\n",
			     b, b->f[i].name);
			return;
		}
		v = p + nl + 1;
		if (next < b->nf) {
			char key[128];

			snprintf(key, sizeof(key), " %s=", b->f[next].name);
			vend = strstr(v, key);
		}
		if (!vend)
			vend = v + strlen(v);
		rv = strndup(v, (size_t)(vend - v));
		if (i + 1 < b->nf && is_sym_member(b, i + 1))
			ok = b->f[i].kind == 'n' &&
			     same_symbol(rv, &b->f[i], &b->f[i + 1]);
		else if (b->f[i].kind == 'n')
			ok = same_number(rv, b->f[i].val);
		else if (b->f[i].kind == 'a')
			ok = same_array(rv, b->f[i].val);
		else
			ok = same_string(rv, b->f[i].val);
		if (!ok)
			fail("not ok: %llu.%09llu cpu %d %s: field %s differs\n",
			     b, b->f[i].name);
		free(rv);
		p = *vend ? vend + 1 : vend;
	}
}

static void cmp_losses(void)
{
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < nloss[s]; i++) {
			const struct loss *a = &losses[s][i], *b = NULL;

			for (int j = 0; j < nloss[!s]; j++)
				if (losses[!s][j].cpu == a->cpu &&
				    !strcmp(losses[!s][j].buf, a->buf))
					b = &losses[!s][j];
			/*
			 * A loss of unknown size ("[EVENTS DROPPED]") counts
			 * as 1: CTF 1.8 has only a counter, and sink.ctf.fs
			 * adds 1 for a discarded-events message without one.
			 */
			if (!b || a->total + a->unknown != b->total + b->unknown) {
				printf("not ok: buffer '%s' cpu %d: lost %lld (+%d unknown) in %s, %lld (+%d) in the other\n",
				       a->buf, a->cpu, a->total, a->unknown,
				       s ? "CTF" : "report", b ? b->total : 0,
				       b ? b->unknown : 0);
				fails++;
			}
		}
}

int main(int argc, char **argv)
{
	struct list rep = { 0 }, bt = { 0 };
	long long lost = 0;

	if (argc == 5 && !strcmp(argv[1], "--bt1")) {
		bt1 = 1;
		reader = "babeltrace";
		argv++;
		argc--;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: cmpreport [--bt1] REPORT BT BT_STDERR\n");
		return 2;
	}
	read_report(argv[1], &rep);
	read_bt(argv[2], &bt);
	read_bt_losses(argv[3]);
	qsort(rep.v, (size_t)rep.n, sizeof(*rep.v), cmp_ev);
	qsort(bt.v, (size_t)bt.n, sizeof(*bt.v), cmp_ev);
	if (rep.n != bt.n) {
		printf("not ok: %ld events in report, %ld in the CTF read by %s\n", rep.n, bt.n, reader);
		fails++;
	}
	for (long i = 0; i < rep.n && i < bt.n; i++) {
		const struct ev *r = &rep.v[i], *b = &bt.v[i];

		if (r->ts != b->ts || r->cpu != b->cpu || strcmp(r->name, b->name) ||
		    strcmp(r->buf, b->buf)) {
			fail("not ok: %llu.%09llu cpu %d %s: %s\n", r,
			     "no CTF event with this time, cpu, buffer and name");
			continue;
		}
		if (r->pid != b->pid || strcmp(r->comm, b->comm))
			fail("not ok: %llu.%09llu cpu %d %s: %s\n", r, "comm-pid differs");
		cmp_fields(r, b);
	}
	cmp_losses();
	for (int i = 0; i < nloss[0]; i++)
		lost += losses[0][i].total;
	printf("%s: %ld events, %lld lost events in %d streams compared (%s), %d mismatches\n",
	       fails ? "FAIL" : "PASS", rep.n, lost, nloss[0], reader, fails);
	for (long i = 0; i < rep.n; i++)
		free(rep.v[i].rest);
	for (long i = 0; i < bt.n; i++)
		free_fields(bt.v[i].f, bt.v[i].nf);
	free(rep.v);
	free(bt.v);
	return fails ? 1 : 0;
}
