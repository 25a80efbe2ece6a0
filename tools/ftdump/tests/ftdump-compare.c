// SPDX-License-Identifier: GPL-2.0
/*
 * ftdump-compare [-B INSTANCE] [--exact] TRUTH.dat DUMP.dat: compare a converted ftrace dump with
 * the ground truth recorded into a second tracefs instance at the same
 * time (tests/guest-pending/91-ftdump.sh). Both are read with libtracecmd.
 *
 * Every event was written twice by the same tracepoint call: first into
 * the top buffer (later dumped), then into the truth instance. So each
 * dumped record has a twin in the truth on the same CPU with the same
 * identity: pid, event and every field (printed raw by libtraceevent); a
 * record the dump kept as text (a print record "EVENT: text") has a twin
 * with the same pid and event name. Per CPU and identity the records are
 * paired in order, each to the twin nearest in time (a dynamic program:
 * most pairs, then least time difference), within --window.
 *
 * Times: the dump counts microseconds (rounded) from the top buffer's
 * reset, the truth nanoseconds; their offset is the smallest difference of
 * a trace event's pair (not counting a truth stamp equal to its
 * predecessor's: see out_of_bounds()). Between the two writes of one
 * event the CPU can be interrupted (the interrupt's own records then sit
 * between the two writes, after the record in the top buffer and before
 * it in the truth)
 * or, under TCG, stopped by the host; neither has a fixed bound. What is
 * certain is that the second write comes before the CPU writes its next
 * event: a trace event's truth time may not pass the dump time of the
 * next dumped record whose twin follows it in the truth, plus the dump's
 * resolution (1 us). That is the tolerance. Function tracer records are
 * written the other way round (ftrace calls the callback registered last,
 * the instance's, first): their truth time may not pass their own dump
 * time, nor precede the previous dumped record whose twin precedes it,
 * each plus the resolution.
 *
 * --exact, for a dump made with ftrace_dump_raw (kernel patch 0014): the
 * dump's timestamps are the ring buffer's own nanoseconds, so the
 * resolution is 1 ns, and the identity of a record adds the bytes of every
 * field (a __data_loc field: its location word and the bytes it points to)
 * and the preempt count, so twins are equal byte for byte. Not compared:
 * common_flags (an interrupt between the two writes may set need-resched
 * for the second) and the padding after the last field (stale bytes of
 * the ring buffer, different in each).
 *
 * Reported (each record): dumped records without a twin, truth records
 * that fall inside the dump (between the first and the last truth twin of
 * a CPU, less those provably written before the dump's first record:
 * check_missing()) without a twin, and pairs out of those bounds. Exit 0 when
 * there are none and at least one record was paired; 1 otherwise; 2 on
 * bad use.
 */
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trace-cmd/trace-cmd.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#define MAX_CPUS	256
#define RES_NS		1000ULL		/* the dump prints microseconds */
#define RES_EXACT_NS	1ULL		/* ftrace_dump_raw: nanoseconds */
#define WINDOW_NS	10000000ULL	/* pairing window (default 10 ms) */
#define OFFSET_CAP	64		/* identities more common: not for the offset */
#define OFFSET_BAND_NS	5000LL		/* clustering of the offset candidates */
#define TEXT_NAME_MAX	63
#define FLAG_HARDIRQ	0x08		/* TRACE_FLAG_HARDIRQ, common_flags */
#define FLAG_NMI	0x40		/* TRACE_FLAG_NMI */

struct rec {
	unsigned long long ts;	/* ns (the dump: us * 1000) */
	uint64_t key;		/* pid, event, fields */
	uint64_t tkey;		/* pid, event */
	bool text;		/* the dump kept it as text */
	bool irq;		/* written in hard interrupt or NMI context */
	bool truth_first;	/* a function tracer record (see the top) */
	bool same_ts;		/* its stamp is its CPU's previous record's */
	char *desc;		/* "pid event fields" */
	long twin;		/* index on the other side, -1: none */
};

struct side {
	const char *path;
	struct rec *r[MAX_CPUS];
	size_t n[MAX_CPUS], cap[MAX_CPUS];
	unsigned long long lost[MAX_CPUS];
	int err;
	struct trace_seq seq, raw;
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	while (n--)
		h = (h ^ *s++) * 1099511628211ULL;
	return h;
}

static unsigned long long res_ns = RES_NS;
static bool exact;

/* The bytes of every field and the preempt count (--exact). */
static uint64_t hash_fields(uint64_t h, struct tep_event *ev,
			    struct tep_record *record)
{
	const unsigned char *d = record->data;
	unsigned long long pc = 0;
	struct tep_format_field *f;
	unsigned int loc, off, len;

	if (!tep_get_common_field_val(NULL, ev, "common_preempt_count", record,
				      &pc, 0))
		h = fnv(h, &pc, sizeof(pc));
	for (f = ev->format.fields; f; f = f->next) {
		if (f->offset < 0 || f->size < 0 ||
		    f->offset + f->size > record->size)
			return h ^ 1;	/* a short record never equals a whole one */
		h = fnv(h, d + f->offset, (size_t)f->size);
		if (!(f->flags & TEP_FIELD_IS_DYNAMIC) || f->size != 4)
			continue;
		memcpy(&loc, d + f->offset, sizeof(loc));
		off = loc & 0xffff;
		len = loc >> 16;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += (unsigned int)(f->offset + f->size);
		if (off + len <= (unsigned int)record->size)
			h = fnv(h, d + off, len);
	}
	return h;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
	return fnv(h, s, strlen(s) + 1);
}

/* a print record with ip 0 is ftdump's "kept as text": its event name
 * (the kernel's print records carry their caller's ip) */
static bool text_name(struct tep_event *ev, struct tep_record *r, char *name)
{
	unsigned long long ip;
	const char *buf, *colon;
	int len;

	if (strcmp(ev->name, "print") ||
	    tep_get_field_val(NULL, ev, "ip", r, &ip, 0) || ip)
		return false;
	buf = tep_get_field_raw(NULL, ev, "buf", r, &len, 0);
	/* "char buf[]": size 0 in the format, the text runs to the end */
	len = buf ? r->size - (int)(buf - (const char *)r->data) : 0;
	if (len <= 0)
		return false;
	colon = memchr(buf, ':', (size_t)len);
	if (!colon || colon - buf > TEXT_NAME_MAX)
		return false;
	memcpy(name, buf, (size_t)(colon - buf));
	name[colon - buf] = '\0';
	return true;
}

static int add(struct side *s, int cpu, struct rec *r)
{
	if (cpu < 0 || cpu >= MAX_CPUS)
		return -1;
	if (s->n[cpu] == s->cap[cpu]) {
		size_t cap = s->cap[cpu] ? s->cap[cpu] * 2 : 1024;
		struct rec *nr = realloc(s->r[cpu], cap * sizeof(*nr));

		if (!nr)
			return -1;
		s->r[cpu] = nr;
		s->cap[cpu] = cap;
	}
	r->same_ts = s->n[cpu] && s->r[cpu][s->n[cpu] - 1].ts == r->ts;
	s->r[cpu][s->n[cpu]++] = *r;
	return 0;
}

static int read_one(struct tracecmd_input *h, struct tep_record *record,
		    int cpu, void *data)
{
	struct side *s = data;
	struct tep_handle *tep = tracecmd_get_tep(h);
	struct tep_event *ev = tep_find_event_by_record(tep, record);
	char name[TEXT_NAME_MAX + 1];
	struct rec r = { .ts = record->ts, .twin = -1 };
	int pid = tep_data_pid(tep, record);
	uint64_t h0 = fnv(1469598103934665603ULL, &pid, sizeof(pid));

	if (record->missed_events > 0 && cpu >= 0 && cpu < MAX_CPUS)
		s->lost[cpu] += (unsigned long long)record->missed_events;
	unsigned long long flags = 0;

	if (!ev)
		return 0;
	if (!tep_get_common_field_val(NULL, ev, "common_flags", record, &flags, 0))
		r.irq = flags & (FLAG_HARDIRQ | FLAG_NMI);
	r.truth_first = !strcmp(ev->system, "ftrace") && !strcmp(ev->name, "function");
	trace_seq_reset(&s->seq);
	if (text_name(ev, record, name)) {
		r.text = true;
		trace_seq_printf(&s->seq, "%d %s (kept as text)", pid, name);
		r.tkey = r.key = hash_str(h0, name);
	} else {
		r.tkey = hash_str(h0, ev->name);
		trace_seq_reset(&s->raw);
		tep_print_event(tep, &s->raw, record, "%s", TEP_PRINT_INFO_RAW);
		trace_seq_terminate(&s->raw);
		trace_seq_printf(&s->seq, "%d %s %s", pid, ev->name,
				 s->raw.buffer + strspn(s->raw.buffer, " "));
		trace_seq_terminate(&s->seq);
		r.key = hash_str(r.tkey, s->seq.buffer);
		if (exact)
			r.key = hash_fields(r.key, ev, record);
	}
	trace_seq_terminate(&s->seq);
	r.desc = strdup(s->seq.buffer);
	if (!r.desc || add(s, cpu, &r))
		s->err = -1;
	return s->err;
}

/* The handle of the named buffer instance ("trace-cmd extract -B NAME") */
static struct tracecmd_input *instance(struct tracecmd_input *h,
				       const char *path, const char *name)
{
	int i, n = tracecmd_buffer_instances(h);

	for (i = 0; i < n; i++)
		if (!strcmp(tracecmd_buffer_instance_name(h, i), name))
			return tracecmd_buffer_instance_handle(h, i);
	fprintf(stderr, "%s: no buffer instance %s\n", path, name);
	return NULL;
}

static int load(struct side *s, const char *name)
{
	struct tracecmd_input *top = tracecmd_open(s->path, 0), *h = top;
	int ret;

	if (!top) {
		fprintf(stderr, "%s: not a trace.dat libtracecmd reads\n",
			s->path);
		return -1;
	}
	if (name && !(h = instance(top, s->path, name))) {
		tracecmd_close(top);
		return -1;
	}
	trace_seq_init(&s->seq);
	trace_seq_init(&s->raw);
	ret = tracecmd_iterate_events(h, NULL, 0, read_one, s);
	trace_seq_destroy(&s->seq);
	trace_seq_destroy(&s->raw);
	if (h != top)
		tracecmd_close(h);
	tracecmd_close(top);
	if (ret < 0 || s->err) {
		fprintf(stderr, "%s: could not read its records\n", s->path);
		return -1;
	}
	return 0;
}

/* ---- pairing ---------------------------------------------------------- */

struct ctx {
	struct side t, d;
	long long off;		/* truth ns - dump ns of a pair, least */
	unsigned long long window;
	int ncpu;
};

/* 0 .. n-1, to be sorted */
static size_t *indices(size_t n)
{
	size_t *ix = malloc((n ? n : 1) * sizeof(*ix)), i;

	for (i = 0; ix && i < n; i++)
		ix[i] = i;
	return ix;
}

static const struct rec *sort_base;
static bool sort_tkey;

static int by_key(const void *a, const void *b)
{
	const struct rec *x = &sort_base[*(const size_t *)a];
	const struct rec *y = &sort_base[*(const size_t *)b];
	uint64_t kx = sort_tkey ? x->tkey : x->key;
	uint64_t ky = sort_tkey ? y->tkey : y->key;

	if (kx != ky)
		return kx < ky ? -1 : 1;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

static void sort_ix(size_t *ix, size_t n, const struct rec *r, bool tkey)
{
	sort_base = r;
	sort_tkey = tkey;
	qsort(ix, n, sizeof(*ix), by_key);
}

static uint64_t key_of(const struct rec *r, bool tkey)
{
	return tkey ? r->tkey : r->key;
}

struct cell {
	int pairs;
	unsigned long long cost;
	unsigned char move;	/* 0 skip dump, 1 skip truth, 2 pair */
};

static unsigned long long dist(const struct ctx *c, const struct rec *t,
			       const struct rec *d)
{
	long long x = (long long)t->ts - c->off - (long long)d->ts;

	return (unsigned long long)(x < 0 ? -x : x);
}

/*
 * Pair dump records dx[0..n) with truth records tx[0..m) (same identity,
 * both in time order): most pairs within the window, then least total
 * time difference, never crossing (identical records keep their order).
 */
static int align(struct ctx *c, struct rec *dr, const size_t *dx, size_t n,
		 struct rec *tr, const size_t *tx, size_t m)
{
	struct cell *f = calloc((n + 1) * (m + 1), sizeof(*f));
	size_t i, j;

	if (!f)
		return -1;
#define F(a, b) f[(a) * (m + 1) + (b)]
	for (i = 0; i <= n; i++)
		for (j = 0; j <= m; j++) {
			struct cell best = { -1, 0, 0 }, x;

			if (!i && !j) {
				F(i, j) = (struct cell){ 0, 0, 0 };
				continue;
			}
			if (i) {
				best = F(i - 1, j);
				best.move = 0;
			}
			if (j) {
				x = F(i, j - 1);
				x.move = 1;
				if (best.pairs < 0 || x.pairs > best.pairs ||
				    (x.pairs == best.pairs && x.cost < best.cost))
					best = x;
			}
			if (i && j && dist(c, &tr[tx[j - 1]], &dr[dx[i - 1]]) <=
					      c->window) {
				x = F(i - 1, j - 1);
				x.pairs++;
				x.cost += dist(c, &tr[tx[j - 1]], &dr[dx[i - 1]]);
				x.move = 2;
				if (x.pairs > best.pairs ||
				    (x.pairs == best.pairs && x.cost < best.cost))
					best = x;
			}
			F(i, j) = best;
		}
	for (i = n, j = m; i || j;) {
		switch (F(i, j).move) {
		case 2:
			dr[dx[i - 1]].twin = (long)tx[j - 1];
			tr[tx[j - 1]].twin = (long)dx[i - 1];
			i--;
			j--;
			break;
		case 1:
			j--;
			break;
		default:
			i--;
		}
	}
#undef F
	free(f);
	return 0;
}

/* Can truth record t pair with a dump record from first to last? */
static bool in_window(const struct ctx *c, const struct rec *t,
		      const struct rec *first, const struct rec *last)
{
	long long x = (long long)t->ts - c->off;

	return x >= (long long)first->ts - (long long)c->window &&
	       x <= (long long)last->ts + (long long)c->window;
}

/*
 * Pair one CPU's records of the same identity. tkey: the dump's records
 * kept as text, against truth records of the same pid and event not yet
 * paired.
 */
static int pair_cpu(struct ctx *c, int cpu, bool tkey)
{
	struct rec *dr = c->d.r[cpu], *tr = c->t.r[cpu];
	size_t dn = c->d.n[cpu], tn = c->t.n[cpu], a = 0, b = 0, a2, b2, k;
	size_t *dx = indices(dn), *tx = indices(tn);
	size_t *dsel = malloc((dn ? dn : 1) * sizeof(*dsel));
	size_t *tsel = malloc((tn ? tn : 1) * sizeof(*tsel));
	int ret = -1;
	size_t nd, nt;

	if (!dx || !tx || !dsel || !tsel)
		goto out;
	sort_ix(dx, dn, dr, tkey);
	sort_ix(tx, tn, tr, tkey);
	while (a < dn) {
		uint64_t key = key_of(&dr[dx[a]], tkey);

		for (a2 = a; a2 < dn && key_of(&dr[dx[a2]], tkey) == key; a2++)
			;
		while (b < tn && key_of(&tr[tx[b]], tkey) < key)
			b++;
		for (b2 = b; b2 < tn && key_of(&tr[tx[b2]], tkey) == key; b2++)
			;
		for (nd = 0, k = a; k < a2; k++)
			if (dr[dx[k]].text == tkey && dr[dx[k]].twin < 0)
				dsel[nd++] = dx[k];
		for (nt = 0, k = b; nd && k < b2; k++)
			if (tr[tx[k]].twin < 0 &&
			    in_window(c, &tr[tx[k]], &dr[dsel[0]],
				      &dr[dsel[nd - 1]]))
				tsel[nt++] = tx[k];
		if (nd && nt && align(c, dr, dsel, nd, tr, tsel, nt))
			goto out;
		a = a2;
		b = b2;
	}
	ret = 0;
out:
	free(dx);
	free(tx);
	free(dsel);
	free(tsel);
	return ret;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/*
 * A first offset for the pairing window: the differences truth - dump of
 * same-identity records cluster at the true offset (most events are not
 * interrupted between their two writes); the densest band's median.
 */
static int first_offset(struct ctx *c)
{
	size_t n = 0, cap = 4096, i, j, best = 0, bi = 0;
	long long *v = malloc(cap * sizeof(*v));
	int cpu;

	for (cpu = 0; v && cpu < c->ncpu; cpu++) {
		struct rec *dr = c->d.r[cpu], *tr = c->t.r[cpu];
		size_t *tx = indices(c->t.n[cpu]);

		if (!tx)
			break;
		sort_ix(tx, c->t.n[cpu], tr, false);
		for (i = 0; i < c->d.n[cpu]; i++) {
			size_t lo = 0, hi = c->t.n[cpu], k;

			if (dr[i].text)
				continue;
			while (lo < hi) {	/* first truth record of the key */
				size_t mid = lo + (hi - lo) / 2;

				if (tr[tx[mid]].key < dr[i].key)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (k = lo; k < c->t.n[cpu] && tr[tx[k]].key == dr[i].key;)
				k++;
			if (k - lo > OFFSET_CAP)
				continue;	/* too common to say anything */
			for (k = lo; k < c->t.n[cpu] && tr[tx[k]].key == dr[i].key;
			     k++) {
				if (n == cap) {
					long long *nv = realloc(v, 2 * cap * sizeof(*v));

					if (!nv)
						break;
					v = nv;
					cap *= 2;
				}
				v[n++] = (long long)tr[tx[k]].ts - (long long)dr[i].ts;
			}
		}
		free(tx);
	}
	if (!v || !n) {
		free(v);
		return -1;
	}
	qsort(v, n, sizeof(*v), cmp_ll);
	for (i = 0, j = 0; i < n; i++) {
		while (v[i] - v[j] > OFFSET_BAND_NS)
			j++;
		if (i - j + 1 > best) {
			best = i - j + 1;
			bi = j;
		}
	}
	c->off = v[bi + best / 2];
	free(v);
	return 0;
}

/* The offset from the pairs: their least difference (see the top), among
 * those near the first estimate (a pair made across the window by two
 * identical records does not move it). */
static void final_offset(struct ctx *c)
{
	long long best = 0, x, band = OFFSET_BAND_NS;
	bool any = false;
	size_t i;
	int cpu;

	for (cpu = 0; cpu < c->ncpu; cpu++)
		for (i = 0; i < c->d.n[cpu]; i++) {
			if (c->d.r[cpu][i].twin < 0 || c->d.r[cpu][i].truth_first ||
			    c->t.r[cpu][c->d.r[cpu][i].twin].same_ts)
				continue;	/* a zero delta's stamp is early */
			x = (long long)c->t.r[cpu][c->d.r[cpu][i].twin].ts -
			    (long long)c->d.r[cpu][i].ts;
			if (x < c->off - band || x > c->off + band)
				continue;
			if (!any || x < best)
				best = x;
			any = true;
		}
	if (any)
		c->off = best;
}

/* ---- the verdict ------------------------------------------------------------ */

struct tally {
	unsigned long dumped, paired, text, no_twin, missing, late, edge;
	unsigned long over_res;	/* pairs more than the resolution apart */
	unsigned long long max_d;
};

/*
 * Truth records that must be in the dump: those between the CPU's first
 * and last truth twin. Two exceptions at the start, where the top buffer
 * overwrote its oldest pages (it keeps the newest of its writes, from the
 * dump's first record on):
 * - an event whose first write was on a lost page while an interrupt came
 *   before its second write; the interrupt's records (hard irq or NMI
 *   context) are then the first dumped records and come before it in the
 *   truth;
 * - a trace event written into the truth before the dump's first record
 *   was written into the top buffer (truth time below that record's dump
 *   time less the resolution): its own top write came earlier still, so
 *   it was lost. It can follow the first twin in the truth when that twin
 *   is a function record interrupted between its two writes: the function
 *   record's top write then follows the interrupt's.
 * (Function records are written into the truth first, so their truth time
 * says nothing about their top write: never excused by time.)
 */
static void check_missing(struct ctx *c, int cpu, struct tally *t)
{
	struct rec *tr = c->t.r[cpu];
	const struct rec *d0 = c->d.n[cpu] ? &c->d.r[cpu][0] : NULL;
	size_t i, first = c->t.n[cpu], last = 0, seen = 0;
	long top = -1;
	bool start = true;

	for (i = 0; i < c->t.n[cpu]; i++)
		if (tr[i].twin >= 0) {
			if (first == c->t.n[cpu])
				first = i;
			last = i;
		}
	for (i = first; i < last; i++) {
		if (tr[i].twin >= 0) {
			/* so far the first dumped records, all interrupts? */
			if (tr[i].twin > top)
				top = tr[i].twin;
			start = start && tr[i].irq &&
				(size_t)(top + 1) == ++seen;
			continue;
		}
		if (start) {
			t->edge++;
			printf("CPU %d: truth %llu ns: enclosing the first "
			       "dumped interrupt, written before the dump: %s\n",
			       cpu, tr[i].ts, tr[i].desc);
			continue;
		}
		if (d0 && !tr[i].truth_first &&
		    (long long)tr[i].ts - c->off <
		    (long long)d0->ts - (long long)res_ns) {
			t->edge++;
			printf("CPU %d: truth %llu ns: written before the dump's "
			       "first record: %s\n", cpu, tr[i].ts, tr[i].desc);
			continue;
		}
		t->missing++;
		printf("CPU %d: truth %llu ns: not in the dump: %s\n", cpu,
		       tr[i].ts, tr[i].desc);
	}
}

/*
 * The bounds of a pair. A trace event is written into the top buffer
 * first: its truth time may not pass the next dumped record whose twin
 * follows it in the truth. A function tracer record is written into the
 * instance first (ftrace calls the newest callback first): its truth time
 * may not pass its own dump time, nor come before the previous dumped
 * record whose twin precedes it. Each plus the resolution.
 *
 * A stamp equal to the previous record's on its CPU proves nothing: the
 * ring buffer gives an event whose reservation was interrupted a zero
 * delta, the stamp of the event before it ("Interrupted between C and
 * F" in __rb_reserve_next()), so the event may have been written later
 * than its stamp says. CI's text dump had such a softirq_entry 11 us
 * early, which put its predecessor's twin 57 ns past that bound. So a
 * dumped record with such a stamp is no upper bound (the next one with a
 * stamp of its own is: the events after a zero delta keep true deltas),
 * a function record's own such stamp is replaced by the next true one,
 * and a truth twin with such a stamp is not held to a lower bound. At
 * the text dump's resolution two records can share a microsecond without
 * it; skipping them only loosens a bound to the next record's.
 */
/* the first dumped record after i with a twin after tw and a stamp of its
 * own, plus the resolution: a bound on what was written before it */
static long long next_stamp(const struct ctx *c, int cpu, size_t i, long tw)
{
	const struct rec *dr = c->d.r[cpu];
	size_t k;

	for (k = i + 1; k < c->d.n[cpu]; k++)
		if (dr[k].twin > tw && !dr[k].same_ts)
			return (long long)(dr[k].ts + res_ns);
	return (long long)(dr[i].ts + c->window);	/* the last: the window */
}

static bool out_of_bounds(const struct ctx *c, int cpu, size_t i,
			  long long *lo, long long *hi)
{
	const struct rec *dr = c->d.r[cpu];
	long tw = dr[i].twin;
	const struct rec *t = &c->t.r[cpu][tw];
	long long x = (long long)t->ts - c->off;
	size_t k;

	*lo = LLONG_MIN;
	if (dr[i].truth_first) {
		/* its top write precedes every later one in the buffer */
		*hi = dr[i].same_ts ? next_stamp(c, cpu, i, -1) :
				      (long long)(dr[i].ts + res_ns);
		for (k = i; k-- > 0 && !t->same_ts;)
			if (dr[k].twin >= 0 && dr[k].twin < tw) {
				*lo = (long long)(dr[k].ts - res_ns);
				break;
			}
	} else {
		*hi = next_stamp(c, cpu, i, tw);
	}
	return x < *lo || x > *hi;
}

static void verdict_cpu(struct ctx *c, int cpu, struct tally *t)
{
	struct rec *dr = c->d.r[cpu];
	unsigned long long d;
	long long lo, hi;
	size_t i;

	for (i = 0; i < c->d.n[cpu]; i++) {
		t->dumped++;
		t->text += dr[i].text;
		if (dr[i].twin < 0) {
			t->no_twin++;
			printf("CPU %d: dump %llu ns: no twin in the truth: %s\n",
			       cpu, dr[i].ts, dr[i].desc);
			continue;
		}
		t->paired++;
		d = dist(c, &c->t.r[cpu][dr[i].twin], &dr[i]);
		if (d > t->max_d)
			t->max_d = d;
		t->over_res += d >= res_ns;
		if (out_of_bounds(c, cpu, i, &lo, &hi)) {
			t->late++;
			printf("CPU %d: dump %llu ns: twin at %lld ns, out of "
			       "its bounds %lld..%lld ns: %s\n", cpu, dr[i].ts,
			       (long long)c->t.r[cpu][dr[i].twin].ts - c->off,
			       lo == LLONG_MIN ? 0 : lo, hi, dr[i].desc);
		}
	}
	check_missing(c, cpu, t);
}

static int run(struct ctx *c)
{
	struct tally t = { 0 };
	int cpu;

	c->ncpu = 0;
	for (cpu = 0; cpu < MAX_CPUS; cpu++)
		if (c->d.n[cpu] || c->t.n[cpu])
			c->ncpu = cpu + 1;
	if (first_offset(c)) {
		printf("no dumped record has an identical record in the truth\n");
		return 1;
	}
	for (cpu = 0; cpu < c->ncpu; cpu++)
		if (pair_cpu(c, cpu, false) || pair_cpu(c, cpu, true))
			return 2;
	final_offset(c);
	for (cpu = 0; cpu < c->ncpu; cpu++) {
		struct tally before = t;

		verdict_cpu(c, cpu, &t);
		printf("CPU %d: truth %zu (lost %llu), dump %zu, paired %lu\n",
		       cpu, c->t.n[cpu], c->t.lost[cpu], c->d.n[cpu],
		       t.paired - before.paired);
	}
	printf("dump records %lu: paired %lu (kept as text %lu), no twin %lu; "
	       "truth records inside the dump without twin %lu (edge %lu); "
	       "pairs out of their time bounds %lu\n",
	       t.dumped, t.paired, t.text, t.no_twin, t.missing, t.edge, t.late);
	printf("time: offset %lld ns; twin - dump: %lu pairs >= %llu ns "
	       "apart, most %llu ns\n", c->off, t.over_res, res_ns, t.max_d);
	if (exact)
		printf("exact: 1 ns resolution, fields compared byte for byte\n");
	return t.no_twin || t.missing || t.late || !t.paired ? 1 : 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: ftdump-compare [-B INSTANCE] [--exact] [--window NS] TRUTH.dat DUMP.dat\n"
		   "Pairs every record of a converted ftrace dump with its twin "
		   "in the ground truth\n(same CPU, pid, event, fields) and "
		   "reports every record without one.\n"
		   "  -B, --buffer INSTANCE  the truth's buffer instance "
		   "(trace-cmd extract -B)\n"
		   "  --exact       the dump was made with ftrace_dump_raw: 1 ns "
		   "resolution, fields\n                compared byte for byte\n"
		   "  --window NS   pairing window (default %llu)\n", WINDOW_NS);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "window", required_argument, NULL, 'w' },
		{ "buffer", required_argument, NULL, 'B' },
		{ "exact", no_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ctx *c = calloc(1, sizeof(*c));
	const char *buffer = NULL;
	char *end;
	int o, ret, cpu;
	size_t i;

	if (!c)
		return 2;
	c->window = WINDOW_NS;
	while ((o = getopt_long(argc, argv, "B:h", opts, NULL)) != -1) {
		if (o == 'B') {
			buffer = optarg;
		} else if (o == 'x') {
			exact = true;
			res_ns = RES_EXACT_NS;
		} else if (o == 'w') {
			c->window = strtoull(optarg, &end, 10);
			if (*end || !*optarg || !c->window) {
				usage(stderr);
				return 2;
			}
		} else {
			usage(o == 'h' ? stdout : stderr);
			return o == 'h' ? 0 : 2;
		}
	}
	if (argc - optind != 2) {
		usage(stderr);
		return 2;
	}
	c->t.path = argv[optind];
	c->d.path = argv[optind + 1];
	tracecmd_set_loglevel(TEP_LOG_NONE);
	ret = load(&c->t, buffer) || load(&c->d, NULL) ? 2 : run(c);
	for (cpu = 0; cpu < MAX_CPUS; cpu++) {
		for (i = 0; i < c->t.n[cpu]; i++)
			free(c->t.r[cpu][i].desc);
		for (i = 0; i < c->d.n[cpu]; i++)
			free(c->d.r[cpu][i].desc);
		free(c->t.r[cpu]);
		free(c->d.r[cpu]);
	}
	free(c);
	return ret;
}
