// SPDX-License-Identifier: GPL-2.0
/*
 * The conversion: find the dumps in the log (first pass: markers only),
 * then read the chosen one again line by line and append each record to
 * its CPU's ring-buffer pages on disk. Memory holds one page per CPU, the
 * pid table and the event statistics; it does not grow with the log.
 * libtracecmd then writes the trace.dat from the formats and those pages.
 *
 * A dump made with ftrace_dump_raw holds the records' bytes: those are
 * copied as they are, one record assembled at a time from its lines.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>
#include <traceevent/event-parse.h>

#include "comms.h"
#include "convert.h"
#include "rtlab/file.h"
#include "enums.h"
#include "formats.h"
#include "pathf.h"
#include "invert.h"
#include "logline.h"
#include "rbuf.h"
#include "stats.h"
#include "tcmd.h"

#define MAX_CPUS	1024
#define MAX_DUMPS	4096
#define NS_PER_US	1000ULL
#define DUP_WINDOW	16	/* record lines a doubled one is looked for in */

struct dump {
	long off;		/* file offset of its first line */
	unsigned long line;	/* line number of that line */
	bool marker;		/* starts with "Dumping ftrace ..." */
	unsigned long records;	/* event lines (first pass) */
};

/* the raw record being assembled from its "R" lines */
struct raw_rec {
	bool open;
	int cpu;
	unsigned long long ts;
	unsigned int len, have;
	unsigned long line;	/* of its first line */
	char comm[FTD_COMM_LEN];
	unsigned char data[FTD_RAW_MAX];
};

struct run {
	const struct conv_opts *o;
	FILE *log;
	struct dump *dumps;
	int ndumps;
	char stage[PATH_LEN];
	struct rb_layout lay;
	struct rb_cpu *cpu[MAX_CPUS];
	int ncpu;
	struct tep_handle *tep;
	struct enums *enums;
	struct formats_info fi;
	struct ksyms *ks;
	struct inverter *inv;
	struct comms *comms;
	struct stats st;
	char *pending;		/* an event line that may continue */
	size_t plen, pcap;
	unsigned long pline;
	struct raw_rec *raw;
	/* time per CPU, to say when it goes back */
	unsigned long long last_ts[MAX_CPUS];
	bool have_ts[MAX_CPUS];
	/* CPUs whose records are dropped (--cpus, or implausible ones) */
	bool drop_cpu[MAX_CPUS];
	int cpu_top;		/* the highest CPU kept */
	/* lines a console may have printed twice */
	uint64_t seen[DUP_WINDOW];
	unsigned long seen_line[DUP_WINDOW];
	int nseen, iseen;
	uint64_t prev_hash;
	unsigned long prev_line;
};

/* A per-line message, "LOG:LINE: ...", within --max-errors. */
static void note(struct run *r, unsigned long line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void note(struct run *r, unsigned long line, const char *fmt, ...)
{
	va_list ap;

	if (r->st.line_errors++ >= (unsigned long)r->o->max_errors)
		return;
	fprintf(stderr, "%s:%lu: ", r->o->log, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* FNV-1a of a line without its line end */
static uint64_t line_hash(const char *s, size_t n)
{
	uint64_t h = 14695981039346656037ULL;

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	while (n--)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

/* ---- first pass ------------------------------------------------------- */

static int add_dump(struct run *r, long off, unsigned long line, bool marker)
{
	if (r->ndumps >= MAX_DUMPS)
		return -1;
	r->dumps[r->ndumps++] = (struct dump){ off, line, marker, 0 };
	return 0;
}

static int scan(struct run *r)
{
	struct ftd_line l;
	unsigned long line = 0;
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;
	long off;
	uint64_t h, prev = 0;

	for (off = ftell(r->log); (n = getline(&buf, &cap, r->log)) > 0;
	     off = ftell(r->log)) {
		bool twice;

		line++;
		h = line_hash(buf, (size_t)n);
		twice = line > 1 && h == prev;
		prev = h;
		ftd_parse_line(buf, (size_t)n, &l);
		if (l.kind == FTD_START) {
			/* a start marker printed twice starts one dump */
			if (!twice && add_dump(r, off, line, true))
				break;
			continue;
		}
		if (l.kind != FTD_EVENT && (l.kind != FTD_RAW || l.raw_off))
			continue;
		/* records before any marker: a log that begins mid-dump */
		if (!r->ndumps && add_dump(r, off, line, false))
			break;
		r->dumps[r->ndumps - 1].records++;
	}
	free(buf);
	if (ferror(r->log)) {
		fprintf(stderr, "ftdump: %s: %s\n", r->o->log, strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- per-CPU output ----------------------------------------------------- */

static struct rb_cpu *cpu_out(struct run *r, int cpu)
{
	char path[PATH_LEN];

	for (; r->ncpu <= cpu; r->ncpu++) {
		pathf(path, sizeof(path), "%s/cpu%d", r->stage, r->ncpu);
		r->cpu[r->ncpu] = rb_cpu_open(&r->lay, path);
		if (!r->cpu[r->ncpu]) {
			fprintf(stderr, "ftdump: %s: %s\n", path,
				strerror(errno));
			return NULL;
		}
	}
	return r->cpu[cpu];
}

/*
 * Records on a CPU the machine cannot have had are dropped: at or above
 * --cpus, or, without it, far above the dump's other CPUs and few (a
 * console that garbled the CPU column: "999" among CPUs 0-3).
 */
static bool cpu_dropped(struct run *r, int cpu, unsigned long line)
{
	if (cpu >= 0 && cpu < MAX_CPUS && !r->drop_cpu[cpu])
		return false;
	r->st.bad_cpu++;
	if (r->o->cpus)
		note(r, line, "a line for CPU %d, but the machine had %d CPUs "
		     "(--cpus); dropped", cpu, r->o->cpus);
	else
		note(r, line, "a line for CPU %d, far above the dump's other "
		     "CPUs (up to %d) with few records there: a garbled "
		     "line?; dropped (--cpus N keeps CPUs below N)", cpu,
		     r->cpu_top);
	return true;
}

/* Time only goes forward on a CPU: a record before the one before it is
 * written at that one's time, and said. */
static unsigned long long forward(struct run *r, int cpu,
				  unsigned long long ts, unsigned long line,
				  unsigned long long unit, const char *uname)
{
	if (r->have_ts[cpu] && ts < r->last_ts[cpu]) {
		r->st.back++;
		note(r, line, "time goes back on CPU %d, from %llu%s to "
		     "%llu%s; written at %llu%s", cpu, r->last_ts[cpu] / unit,
		     uname, ts / unit, uname, r->last_ts[cpu] / unit, uname);
		return r->last_ts[cpu];
	}
	r->have_ts[cpu] = true;
	r->last_ts[cpu] = ts;
	return ts;
}

/*
 * A line the console printed twice (two consoles, netconsole beside a
 * serial log): a record line equal to one of the last DUP_WINDOW record
 * lines (the one before it only, without a printk time: a function may
 * repeat within a microsecond), or a marker equal to the line before it.
 */
static bool printed_twice(struct run *r, const struct ftd_line *l,
			  const char *s, size_t n, unsigned long line)
{
	uint64_t h = line_hash(s, n);
	unsigned long first = 0;
	int i;

	if (l->kind == FTD_EVENT || l->kind == FTD_RAW) {
		for (i = 0; i < r->nseen; i++) {
			int k = (r->iseen - 1 - i + DUP_WINDOW) % DUP_WINDOW;

			if (!l->has_ts && i > 0)
				break;
			if (r->seen[k] == h) {
				first = r->seen_line[k];
				break;
			}
		}
		if (!first) {
			r->seen[r->iseen] = h;
			r->seen_line[r->iseen] = line;
			r->iseen = (r->iseen + 1) % DUP_WINDOW;
			if (r->nseen < DUP_WINDOW)
				r->nseen++;
		}
	} else if (l->kind != FTD_OTHER && r->prev_line && h == r->prev_hash) {
		first = r->prev_line;
	}
	r->prev_hash = h;
	r->prev_line = line;
	if (!first)
		return false;
	r->st.dups++;
	note(r, line, "the same line as line %lu (a console that printed it "
	     "twice?); dropped", first);
	return true;
}

static void on_comm(void *ctx, int pid, const char *comm)
{
	comms_set(ctx, pid, comm, true);
}

static void line_error(struct run *r, unsigned long line,
		       const struct inv_result *res)
{
	static const char *const why[] = {
		[WHY_NONE] = "",
		[WHY_UNKNOWN_EVENT] = "is not an event of the formats",
		[WHY_MISMATCH] = "text does not fit the event's format",
		[WHY_UNKNOWN_SYMBOL] = "names a function not in kallsyms",
		[WHY_NO_NAME] = "has no \"event: \" text",
	};

	if (r->st.line_errors++ >= (unsigned long)r->o->max_errors)
		return;
	fprintf(stderr, "%s:%lu: %s: %s; kept as a print record with its text\n",
		r->o->log, line, res->name, why[res->why]);
}

static int do_event(struct run *r, const struct ftd_line *l,
		    unsigned long line)
{
	struct inv_result res;
	struct rb_cpu *c;

	if (cpu_dropped(r, l->cpu, line))
		return 0;
	c = cpu_out(r, l->cpu);
	if (!c)
		return -1;
	comms_set(r->comms, l->pid, l->comm, false);
	inv_line(r->inv, l, &res, on_comm, r->comms);
	if (res.kind == INV_TEXT)
		line_error(r, line, &res);
	if (rb_cpu_add(c, forward(r, l->cpu, l->ts_us * NS_PER_US, line,
				  NS_PER_US, " us"), res.rec, res.len)) {
		fprintf(stderr, "ftdump: writing CPU %d data: %s\n", l->cpu,
			strerror(errno));
		return -1;
	}
	return stats_event(&r->st, l->cpu, res.kind, res.name);
}

/* ---- raw records (ftrace_dump_raw) ------------------------------------------ */

static void raw_error(struct run *r, unsigned long line, const char *fmt,
		      unsigned int a, unsigned int b)
{
	if (r->st.line_errors++ >= (unsigned long)r->o->max_errors)
		return;
	fprintf(stderr, "%s:%lu: raw record: ", r->o->log, line);
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
}

/* Give up the record being assembled: a line of it never came. */
static void raw_drop(struct run *r, const char *why)
{
	struct raw_rec *x = r->raw;

	if (!x->open)
		return;
	x->open = false;
	stats_incomplete(&r->st, x->cpu);
	if (r->st.line_errors++ >= (unsigned long)r->o->max_errors)
		return;
	fprintf(stderr, "%s:%lu: raw record of %u bytes on CPU %d has %u: %s; "
		"dropped, counted as lost\n", r->o->log, x->line, x->len,
		x->cpu, x->have, why);
}

static int raw_emit(struct run *r)
{
	struct raw_rec *x = r->raw;
	struct tep_record rec = { .data = x->data, .size = (int)x->len,
				  .ts = x->ts, .cpu = x->cpu };
	struct tep_event *ev = NULL;
	struct rb_cpu *c;
	int type;

	x->open = false;
	c = cpu_out(r, x->cpu);
	if (!c)
		return -1;
	type = tep_data_type(r->tep, &rec);
	ev = tep_find_event(r->tep, type);
	if (!ev)
		raw_error(r, x->line, "type %u is not an event of the formats; "
			  "kept byte for byte (%u bytes)", (unsigned int)type,
			  x->len);
	else if (x->comm[0])
		comms_set(r->comms, tep_data_pid(r->tep, &rec), x->comm, true);
	if (rb_cpu_add(c, forward(r, x->cpu, x->ts, x->line, 1, " ns"),
		       x->data, x->len)) {
		fprintf(stderr, "ftdump: writing CPU %d data: %s\n", x->cpu,
			strerror(errno));
		return -1;
	}
	return stats_event(&r->st, x->cpu, INV_RAW, ev ? ev->name : "(unknown type)");
}

static int unhex(char c)
{
	return c <= '9' ? c - '0' : c - 'a' + 10;
}

/*
 * One "R" line: the first line of a record opens it, each next one must
 * continue it where it stopped; the record is written when it is whole.
 */
static int raw_line(struct run *r, const struct ftd_line *l,
		    unsigned long line)
{
	struct raw_rec *x = r->raw;
	unsigned int n = (unsigned int)(l->body_len / 2), want, i;

	if (cpu_dropped(r, l->cpu, line))
		return 0;
	if (!l->raw_off) {
		raw_drop(r, "its next line is missing");
		*x = (struct raw_rec){ .open = true, .cpu = l->cpu,
				       .ts = l->ts_ns, .len = l->raw_len,
				       .line = line };
		memcpy(x->comm, l->comm, sizeof(x->comm));
	} else if (!x->open || x->cpu != l->cpu || x->ts != l->ts_ns ||
		   x->len != l->raw_len || x->have != l->raw_off) {
		raw_drop(r, "a line of it is missing");
		raw_error(r, line, "bytes %u.. of a record of %u bytes whose "
			  "earlier lines are missing; dropped", l->raw_off,
			  l->raw_len);
		return 0;
	}
	want = x->len - x->have < FTD_RAW_CHUNK ? x->len - x->have
						 : FTD_RAW_CHUNK;
	if (l->body_len % 2 || n != want) {
		raw_drop(r, "a line of it was cut");
		return 0;
	}
	for (i = 0; i < n; i++)
		x->data[x->have + i] = (unsigned char)(unhex(l->body[2 * i]) << 4 |
						       unhex(l->body[2 * i + 1]));
	x->have += n;
	return x->have == x->len ? raw_emit(r) : 0;
}

/* ---- second pass ---------------------------------------------------------- */

enum phase { PH_HEAD, PH_RECORDS, PH_DONE };

static int take_line(struct run *r, const char *s, size_t n,
		     unsigned long line, enum phase *ph)
{
	struct ftd_line l;
	struct rb_cpu *c;

	ftd_parse_line(s, n, &l);
	if (printed_twice(r, &l, s, n, line))
		return 0;
	if ((l.kind == FTD_EVENT || l.kind == FTD_RAW) && l.ts_bad) {
		r->st.bad_ts++;
		note(r, line, "timestamp out of range (%s); record dropped",
		     l.kind == FTD_RAW ? "2^64 ns or more"
				       : "2^64 ns or more, in microseconds");
		return 0;
	}
	switch (l.kind) {
	case FTD_START:
		if (line != r->dumps[r->o->dump - 1].line)
			*ph = PH_DONE;	/* the next dump begins */
		return 0;
	case FTD_SEP:
		if (*ph != PH_HEAD)
			raw_drop(r, "the dump ends inside it");
		*ph = *ph == PH_HEAD ? PH_RECORDS : PH_DONE;
		if (*ph == PH_DONE)
			r->st.ended = true;
		return 0;
	case FTD_EMPTY:
		r->st.ended = true;
		*ph = PH_DONE;
		return 0;
	case FTD_LOST:
		if (cpu_dropped(r, l.cpu, line))
			return 0;
		if (!(c = cpu_out(r, l.cpu)))
			return -1;
		stats_lost(&r->st, l.cpu, l.lost);
		return rb_cpu_lost(c, l.lost);
	case FTD_BUFSTART:
	case FTD_RAWHDR:
		return 0;
	case FTD_RAW:
		*ph = PH_RECORDS;
		return raw_line(r, &l, line);
	case FTD_EVENT:
		*ph = PH_RECORDS;
		return do_event(r, &l, line);
	default:
		stats_other(&r->st, line);
		return 0;
	}
}

static int keep_pending(struct run *r, const char *s, size_t n, bool append)
{
	size_t need = (append ? r->plen : 0) + n + 1;
	char *p;

	if (need > r->pcap) {
		p = realloc(r->pending, need * 2);
		if (!p)
			return -1;
		r->pending = p;
		r->pcap = need * 2;
	}
	if (!append)
		r->plen = 0;
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	memcpy(r->pending + r->plen, s, n);
	r->plen += n;
	r->pending[r->plen] = '\0';
	return 0;
}

static int flush_pending(struct run *r, enum phase *ph)
{
	int ret = 0;

	if (r->plen)
		ret = take_line(r, r->pending, r->plen, r->pline, ph);
	r->plen = 0;
	return ret;
}

/*
 * A console that wraps long lines leaves the rest of a record on a line of
 * its own, without the printk prefix the dump's lines have: such a line is
 * joined to the record before it.
 */
static int convert_dump(struct run *r)
{
	const struct dump *d = &r->dumps[r->o->dump - 1];
	enum phase ph = d->marker ? PH_HEAD : PH_RECORDS;
	unsigned long line = d->line - 1;
	bool dump_ts = false, first = true, has_ts;
	char *buf = NULL;
	size_t cap = 0, len;
	ssize_t n;
	int ret = 0;

	if (fseek(r->log, d->off, SEEK_SET))
		return -1;
	while (!ret && ph != PH_DONE && (n = getline(&buf, &cap, r->log)) > 0) {
		struct ftd_line l;

		line++;
		ftd_strip_prefix(buf, (size_t)n, &len, &has_ts);
		if (first)
			dump_ts = has_ts;
		first = false;
		ftd_parse_line(buf, (size_t)n, &l);
		if (r->plen && dump_ts && !has_ts && l.kind == FTD_OTHER) {
			r->st.joined++;
			ret = keep_pending(r, buf, (size_t)n, true);
			continue;
		}
		ret = flush_pending(r, &ph);
		if (ret || ph == PH_DONE)
			break;
		if (l.kind == FTD_EVENT || l.kind == FTD_RAW) {
			r->pline = line;
			ret = keep_pending(r, buf, (size_t)n, false);
		} else {
			ret = take_line(r, buf, (size_t)n, line, &ph);
		}
	}
	if (!ret && ph != PH_DONE)
		ret = flush_pending(r, &ph);
	raw_drop(r, "the log ends inside it");
	r->st.last_line = line;
	free(buf);
	return ret;
}

/*
 * Which CPUs to drop: with --cpus, those at or above it; else a CPU far
 * above the others (more than twice the highest below it, plus 8) with
 * at most 2 or under 1% of the dump's records.  Reads the chosen dump's
 * lines once more.
 */
static int census(struct run *r)
{
	const struct dump *d = &r->dumps[r->o->dump - 1];
	unsigned long *cnt, total = 0, line = d->line - 1;
	int seps = d->marker ? 0 : 1, c, hi = -1;
	struct ftd_line l;
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;

	if (r->o->cpus) {
		for (c = 0; c < MAX_CPUS; c++)
			r->drop_cpu[c] = c >= r->o->cpus;
		r->cpu_top = r->o->cpus - 1;
		return 0;
	}
	cnt = calloc(MAX_CPUS, sizeof(*cnt));
	if (!cnt || fseek(r->log, d->off, SEEK_SET)) {
		free(cnt);
		return -1;
	}
	while ((n = getline(&buf, &cap, r->log)) > 0) {
		line++;
		ftd_parse_line(buf, (size_t)n, &l);
		if ((l.kind == FTD_START && line != d->line) ||
		    (l.kind == FTD_SEP && ++seps == 2) || l.kind == FTD_EMPTY)
			break;
		if ((l.kind == FTD_EVENT || l.kind == FTD_LOST ||
		     (l.kind == FTD_RAW && !l.raw_off)) &&
		    l.cpu >= 0 && l.cpu < MAX_CPUS) {
			cnt[l.cpu]++;
			total++;
		}
	}
	free(buf);
	for (c = 0; c < MAX_CPUS; c++) {
		if (!cnt[c])
			continue;
		if (hi >= 0 && c > 2 * hi + 8 &&
		    (cnt[c] <= 2 || cnt[c] * 100 < total))
			r->drop_cpu[c] = true;
		else
			hi = c;
	}
	r->cpu_top = hi;
	free(cnt);
	return 0;
}

/* ---- the trace.dat -------------------------------------------------------- */

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -1;
	ret = fputs(text, f) < 0;
	return fclose(f) || ret ? -1 : 0;
}

static int stage_dir(struct run *r)
{
	const char *tmp = getenv("TMPDIR");
	char path[PATH_LEN], target[PATH_LEN], dir[PATH_LEN];

	snprintf(r->stage, sizeof(r->stage), "%s/ftdump.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(r->stage)) {
		fprintf(stderr, "ftdump: %s: %s\n", r->stage, strerror(errno));
		r->stage[0] = '\0';
		return -1;
	}
	/* libtracecmd reads the formats from a tracing directory: this one
	 * gets the bundle's formats (fixed, by formats_load()), its
	 * printk_formats and the dump's own command lines */
	if (!realpath(r->o->formats, dir) ||
	    pathf(path, sizeof(path), "%s/printk_formats", r->stage) ||
	    pathf(target, sizeof(target), "%s/printk_formats", dir))
		return -1;
	if (!access(target, R_OK) && symlink(target, path))
		return -1;
	/* the dump does not say; "local" is the kernel's default */
	pathf(path, sizeof(path), "%s/trace_clock", r->stage);
	return write_file(path, "[local] global\n");
}

/* the stage holds only what stage_dir() and formats_load() made there */
static void unstage(struct run *r)
{
	if (r->stage[0] && rtlab_remove_tree(r->stage) && errno != ENOENT)
		fprintf(stderr, "ftdump: could not remove %s\n", r->stage);
}

static int write_trace(struct run *r, const char *kallsyms)
{
	char path[PATH_LEN], tmp[PATH_LEN], *files[MAX_CPUS];
	struct tracecmd_output *h;
	FILE *f;
	int c, ret = -1;

	for (c = 0; c < r->ncpu; c++)
		if (rb_cpu_close(r->cpu[c]))
			ret = -2;
	memset(r->cpu, 0, sizeof(r->cpu));
	pathf(path, sizeof(path), "%s/saved_cmdlines", r->stage);
	f = fopen(path, "w");
	if (ret == -2 || !f || comms_write(r->comms, f) || fclose(f))
		return -1;
	for (c = 0; c < r->ncpu; c++) {
		files[c] = malloc(PATH_LEN);
		if (files[c])
			pathf(files[c], PATH_LEN, "%s/cpu%d", r->stage, c);
	}
	/* never the host's /proc/kallsyms: a file that does not exist */
	pathf(path, sizeof(path), "%s/no-kallsyms", r->stage);
	pathf(tmp, sizeof(tmp), "%s.tmp", r->o->out);
	h = tracecmd_output_create(tmp);
	if (h)
		tracecmd_set_quiet(h, true);	/* no "CPU0 data recorded" */
	if (h && !tracecmd_output_set_trace_dir(h, r->stage) &&
	    !tracecmd_output_set_kallsyms(h, kallsyms ? kallsyms : path) &&
	    !tracecmd_output_write_headers(h, NULL) &&
	    !tracecmd_write_cmdlines(h) &&
	    !tracecmd_append_cpu_data(h, r->ncpu, files))
		ret = 0;
	if (h)
		tracecmd_output_close(h);
	for (c = 0; c < r->ncpu; c++)
		free(files[c]);
	if (!ret && rename(tmp, r->o->out))
		ret = -1;
	if (ret) {
		unlink(tmp);
		fprintf(stderr, "ftdump: %s: libtracecmd could not write it\n",
			r->o->out);
	}
	return ret;
}

/* ---- set-up ------------------------------------------------------------------ */

static int load_formats(struct run *r, const char **kallsyms)
{
	static char kbuf[PATH_LEN];
	char *text = NULL;
	size_t size = 0;

	r->enums = formats_enums(r->o->formats, r->o->btf);
	if (!r->enums)
		return -1;
	/* the trace.dat gets the fixed formats: libtracecmd copies them from
	 * the stage directory */
	r->tep = formats_load(r->o->formats, r->enums, r->stage, &r->fi);
	if (r->fi.bad)
		fprintf(stderr, "ftdump: %s: %d event formats libtraceevent "
			"could not parse (those events are kept as text)\n",
			r->o->formats, r->fi.bad);
	if (!r->tep || rb_layout_read(r->o->formats, &r->lay)) {
		fprintf(stderr,
			"ftdump: %s: no event formats there (a bundle from "
			"'ftdump --save-formats' or a tracefs directory)\n",
			r->o->formats);
		return -1;
	}
	r->st.formats = r->fi.events;
	r->st.formats_fixed = r->fi.fixed;
	r->st.enums = enums_count(r->enums);
	*kallsyms = formats_kallsyms(r->o->formats, kbuf, sizeof(kbuf));
	r->ks = ksyms_load(*kallsyms, &text, &size);
	if (!r->ks)
		return -1;
	if (text && size)
		tracecmd_parse_proc_kallsyms(r->tep, text, (unsigned int)size);
	free(text);
	r->inv = inv_new(r->tep, r->ks);
	if (!r->inv || inv_check(r->inv)) {
		fprintf(stderr, "ftdump: %s: the formats lack ftrace/print\n",
			r->o->formats);
		return -1;
	}
	return 0;
}

static FILE *open_log(const char *path)
{
	FILE *in, *f;
	char buf[65536];
	size_t n;

	if (strcmp(path, "-"))
		return fopen(path, "r");
	/* stdin: the dumps are read twice, so keep a copy */
	f = tmpfile();
	in = stdin;
	while (f && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, f) != n) {
			fclose(f);
			return NULL;
		}
	if (f)
		rewind(f);
	return f;
}

static void list_dumps(const struct run *r)
{
	int i;

	for (i = 0; i < r->ndumps; i++)
		printf("dump %d: line %lu, %lu records%s\n", i + 1,
		       r->dumps[i].line, r->dumps[i].records,
		       r->dumps[i].marker ? "" : " (no start marker)");
}

static int run_conversion(struct run *r, struct conv_opts *o)
{
	const char *kallsyms = NULL;

	if (scan(r))
		return 1;
	if (!r->ndumps) {
		fprintf(stderr, "%s: no ftrace dump in this log\n", o->log);
		return 1;
	}
	if (o->list) {
		list_dumps(r);
		return 0;
	}
	bool chosen = !o->dump;

	if (!o->dump) {
		/* the last dump with records: a later empty one is said */
		o->dump = r->ndumps;
		while (o->dump > 1 && !r->dumps[o->dump - 1].records)
			o->dump--;
		if (o->dump != r->ndumps && r->dumps[o->dump - 1].records)
			fprintf(stderr, "%s:%lu: the last dump (%d) has no "
				"records; converting dump %d (line %lu), the "
				"last one with records\n", o->log,
				r->dumps[r->ndumps - 1].line, r->ndumps,
				o->dump, r->dumps[o->dump - 1].line);
	}
	if (o->dump < 1 || o->dump > r->ndumps) {
		fprintf(stderr, "%s: there %s %d dump%s; no dump %d\n", o->log,
			r->ndumps == 1 ? "is" : "are", r->ndumps,
			r->ndumps == 1 ? "" : "s", o->dump);
		return 1;
	}
	if (!r->dumps[o->dump - 1].records) {
		fprintf(stderr, "%s:%lu: dump %d has no records%s; no trace.dat "
			"written\n", o->log, r->dumps[o->dump - 1].line,
			o->dump, r->ndumps > 1 && chosen ?
			" (nor has any dump before it)" : "");
		return 1;
	}
	if (stats_init(&r->st, MAX_CPUS) || stage_dir(r) ||
	    load_formats(r, &kallsyms) || !(r->comms = comms_new()))
		return 1;
	if (census(r) || convert_dump(r) || write_trace(r, kallsyms))
		return 1;
	r->st.dump = o->dump;
	r->st.ndumps = r->ndumps;
	r->st.dump_line = r->dumps[o->dump - 1].line;
	r->st.marker = r->dumps[o->dump - 1].marker;
	if (!o->quiet)
		stats_print(&r->st, o->log, stdout);
	if (r->st.line_errors > (unsigned long)o->max_errors)
		fprintf(stderr, "%s: %lu more per-line messages (see --max-errors)\n", o->log,
			r->st.line_errors - (unsigned long)o->max_errors);
	return o->strict && r->st.text ? 3 : 0;
}

int convert_run(const struct conv_opts *opts)
{
	struct conv_opts o = *opts;
	struct run r = { .o = &o };
	int c, ret;

	r.dumps = calloc(MAX_DUMPS, sizeof(*r.dumps));
	r.raw = calloc(1, sizeof(*r.raw));
	r.log = open_log(o.log);
	if (!r.log || !r.dumps || !r.raw) {
		fprintf(stderr, "ftdump: %s: %s\n", o.log, strerror(errno));
		free(r.dumps);
		free(r.raw);
		if (r.log)
			fclose(r.log);
		return 1;
	}
	ret = run_conversion(&r, &o);
	for (c = 0; c < r.ncpu; c++)
		rb_cpu_close(r.cpu[c]);
	unstage(&r);
	inv_free(r.inv);
	enums_free(r.enums);
	ksyms_free(r.ks);
	if (r.tep)
		tep_free(r.tep);
	comms_free(r.comms);
	stats_free(&r.st);
	free(r.pending);
	free(r.raw);
	free(r.dumps);
	fclose(r.log);
	return ret;
}
