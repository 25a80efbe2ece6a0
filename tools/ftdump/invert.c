// SPDX-License-Identifier: GPL-2.0
/*
 * Inversion of an event's print fmt. Each format is compiled once into
 * literals and conversions, each conversion bound to its print argument.
 * A dumped text is matched literal by literal; every conversion's text is
 * turned back into field values by the argument it printed (a field, a
 * __print_symbolic / __print_flags, a "cond ? a : b", a __get_str). The
 * record is then rendered again by libtraceevent and must give the very
 * same text: a text that does not come back equal is never guessed at, it
 * is kept as a print record with the original text.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "invert.h"

#define REC_MAX		8192	/* a dumped line is at most ~1000 chars */
#define NUM_TEXT_MAX	64
#define EVENT_HASH	4096	/* power of two, > twice the events */
#define COMM_PAIRS_MAX	4

struct fitem {
	bool conv;
	char *lit;		/* literal text (conv == false) */
	size_t litlen;
	char c;			/* conversion character */
	char pext;		/* %p extension letter, or 0 */
	struct tep_print_arg *arg;
};

struct comm_pair {
	struct tep_format_field *comm, *pid;
};

struct cevent {
	struct tep_event *ev;
	struct fitem *items;
	size_t n;
	bool usable;		/* the format compiled */
	size_t fixed;		/* size of the fixed part of the record */
	struct comm_pair pairs[COMM_PAIRS_MAX];
	int npairs;
};

struct common {
	struct tep_format_field *type, *flags, *preempt, *pid;
};

struct inverter {
	struct tep_handle *tep;
	const struct ksyms *ks;
	struct cevent **hash;	/* by event name */
	struct cevent *print, *function;
	struct common common;
	unsigned char rec[REC_MAX];
	unsigned char save[REC_MAX];
	size_t dyn;		/* end of the dynamic data in rec */
	struct cevent *cur;
	struct trace_seq seq;
};

static size_t name_hash(const char *s, size_t len)
{
	size_t h = 5381;

	while (len--)
		h = h * 33 + (unsigned char)*s++;
	return h & (EVENT_HASH - 1);
}

/* ---- compiling a print fmt ---------------------------------------- */

static bool add_item(struct cevent *ce, struct fitem it)
{
	struct fitem *n = realloc(ce->items, (ce->n + 1) * sizeof(*n));

	if (!n)
		return false;
	ce->items = n;
	ce->items[ce->n++] = it;
	return true;
}

static bool add_lit(struct cevent *ce, const char *s, size_t len)
{
	struct fitem it = { .conv = false };

	if (!len)
		return true;
	if (ce->n && !ce->items[ce->n - 1].conv) {	/* after "%%" */
		struct fitem *p = &ce->items[ce->n - 1];
		char *m = realloc(p->lit, p->litlen + len + 1);

		if (!m)
			return false;
		memcpy(m + p->litlen, s, len);
		p->litlen += len;
		m[p->litlen] = '\0';
		p->lit = m;
		return true;
	}
	it.lit = strndup(s, len);
	it.litlen = len;
	return it.lit && add_item(ce, it);
}

/* One "%..." at f; returns its length, 0 if not supported. */
static size_t conv_spec(const char *f, struct fitem *it)
{
	static const char pexts[] = "SsBFfKxMmIiUuhEe";
	size_t i = 1;

	while (f[i] && strchr("-+ #0", f[i]))
		i++;
	while (f[i] >= '0' && f[i] <= '9')
		i++;
	if (f[i] == '.') {
		i++;
		while (f[i] >= '0' && f[i] <= '9')
			i++;
	}
	if (f[i] == '*')
		return 0;	/* a width argument: not supported */
	while (f[i] && strchr("hlLzjt", f[i]))
		i++;
	if (!f[i] || !strchr("diouxXcsp", f[i]))
		return 0;
	it->conv = true;
	it->c = f[i++];
	it->pext = 0;
	if (it->c == 'p' && f[i] && strchr(pexts, f[i]))
		it->pext = f[i++];
	return i;
}

static bool compile(struct cevent *ce)
{
	const char *f = ce->ev->print_fmt.format, *lit;
	struct tep_print_arg *arg = ce->ev->print_fmt.args;
	struct fitem it = { 0 };
	size_t n;

	if (!f)
		return false;
	for (lit = f; *f;) {
		if (*f != '%') {
			f++;
			continue;
		}
		if (!add_lit(ce, lit, (size_t)(f - lit)))
			return false;
		if (f[1] == '%') {
			if (!add_lit(ce, "%", 1))
				return false;
			f += 2;
			lit = f;
			continue;
		}
		n = conv_spec(f, &it);
		if (!n || !arg)
			return false;
		it.arg = arg;
		arg = arg->next;
		if (!add_item(ce, it))
			return false;
		f += n;
		lit = f;
	}
	return add_lit(ce, lit, (size_t)(f - lit)) && !arg;
}

static void find_pairs(struct cevent *ce)
{
	struct tep_format_field *f, *pid;
	char name[128];
	size_t len;

	for (f = ce->ev->format.fields; f; f = f->next) {
		len = strlen(f->name);
		if (ce->npairs >= COMM_PAIRS_MAX || len < 4 ||
		    strcmp(f->name + len - 4, "comm") ||
		    !(f->flags & TEP_FIELD_IS_ARRAY) || len + 1 > sizeof(name))
			continue;
		memcpy(name, f->name, len - 4);
		strcpy(name + len - 4, "pid");
		pid = tep_find_field(ce->ev, name);
		if (pid && pid->size == 4)
			ce->pairs[ce->npairs++] = (struct comm_pair){ f, pid };
	}
}

static size_t fixed_size(struct tep_event *ev)
{
	struct tep_format_field *f;
	size_t end = 0;

	for (f = ev->format.common_fields; f; f = f->next)
		if ((size_t)(f->offset + f->size) > end)
			end = (size_t)(f->offset + f->size);
	for (f = ev->format.fields; f; f = f->next)
		if ((size_t)(f->offset + f->size) > end)
			end = (size_t)(f->offset + f->size);
	return end;
}

static struct cevent *cevent_new(struct tep_event *ev)
{
	struct cevent *ce = calloc(1, sizeof(*ce));

	if (!ce)
		return NULL;
	ce->ev = ev;
	ce->fixed = fixed_size(ev);
	ce->usable = ce->fixed < REC_MAX / 2 && compile(ce);
	find_pairs(ce);
	return ce;
}

static void cevent_free(struct cevent *ce)
{
	size_t i;

	if (!ce)
		return;
	for (i = 0; i < ce->n; i++)
		free(ce->items[i].lit);
	free(ce->items);
	free(ce);
}

/* ---- records ------------------------------------------------------- */

static void put_le(unsigned char *p, unsigned long long v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static bool numeric(const struct tep_format_field *f)
{
	return !(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) &&
	       (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8);
}

static void set_field(struct inverter *iv, struct tep_format_field *f,
		      unsigned long long v)
{
	put_le(iv->rec + f->offset, v, f->size);
}

static unsigned long long get_field(struct inverter *iv,
				    struct tep_format_field *f)
{
	unsigned long long v = 0;

	tep_read_number_field(f, iv->rec, &v);
	if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size < 8 &&
	    (v >> (8 * f->size - 1)) & 1)
		v |= ~0ULL << (8 * f->size);
	return v;
}

static void begin(struct inverter *iv, struct cevent *ce,
		  const struct ftd_line *l)
{
	memset(iv->rec, 0, ce->fixed);
	iv->dyn = ce->fixed;
	iv->cur = ce;
	set_field(iv, iv->common.type, (unsigned long long)ce->ev->id);
	set_field(iv, iv->common.flags, l->flags);
	set_field(iv, iv->common.preempt, l->preempt);
	set_field(iv, iv->common.pid, (unsigned long long)l->pid);
}

/* A __data_loc / __rel_loc string: bytes after the fixed part. */
static bool put_dyn(struct inverter *iv, struct tep_format_field *f,
		    const char *s, size_t len)
{
	size_t off = iv->dyn, loc;

	if (off + len + 1 > REC_MAX / 2 || f->size != 4)
		return false;
	memcpy(iv->rec + off, s, len);
	iv->rec[off + len] = '\0';
	iv->dyn = (off + len + 1 + 3) & ~(size_t)3;
	loc = off;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		loc = off - (size_t)(f->offset + f->size);
	set_field(iv, f, (unsigned long long)(loc | (len + 1) << 16));
	return true;
}

/* ---- turning text into values -------------------------------------- */

struct tok {
	const char *s;
	size_t len;
	bool exact;	/* the whole token must be used */
};

static struct tep_format_field *field_of(struct inverter *iv,
					 const char *name)
{
	return name ? tep_find_any_field(iv->cur->ev, name) : NULL;
}

/* Parse a number at the token's start; returns chars used, 0 if none. */
static size_t parse_num(const struct tok *t, int base, bool sign,
			unsigned long long *v)
{
	char buf[NUM_TEXT_MAX + 1], *end;
	size_t n = t->len < NUM_TEXT_MAX ? t->len : NUM_TEXT_MAX;

	memcpy(buf, t->s, n);
	buf[n] = '\0';
	if (!n || buf[0] == ' ' || buf[0] == '+')
		return 0;
	if (sign)
		*v = (unsigned long long)strtoll(buf, &end, base);
	else if (buf[0] == '-')
		return 0;
	else
		*v = strtoull(buf, &end, base);
	return (size_t)(end - buf);
}

/* "name", "name+0x1a/0x40" (%pS), or a bare "0xffff..." */
static bool parse_sym(struct inverter *iv, const struct tok *t,
		      unsigned long long *v)
{
	size_t nlen = 0, used;
	unsigned long long off = 0;
	struct tok rest;

	if (t->len > 2 && t->s[0] == '0' && t->s[1] == 'x')
		return parse_num(t, 16, false, v) == t->len;
	while (nlen < t->len && t->s[nlen] != '+')
		nlen++;
	if (nlen < t->len) {
		rest = (struct tok){ t->s + nlen + 1, t->len - nlen - 1, true };
		used = parse_num(&rest, 16, false, &off);
		if (!used)
			return false;
	}
	if (!ksyms_lookup(iv->ks, t->s, nlen, v))
		return false;
	*v += off;
	return true;
}

static long put_token(struct inverter *iv, const struct fitem *it,
		      struct tep_format_field *f, const struct tok *t)
{
	unsigned long long v = 0;
	size_t used;

	if (!f)
		return -1;
	if (it->c == 's') {
		if (!t->exact)
			return -1;
		if (f->flags & TEP_FIELD_IS_DYNAMIC)
			return put_dyn(iv, f, t->s, t->len) ? (long)t->len : -1;
		if (!(f->flags & TEP_FIELD_IS_ARRAY) || t->len >= (size_t)f->size)
			return -1;
		memcpy(iv->rec + f->offset, t->s, t->len);
		return (long)t->len;
	}
	if (!numeric(f))
		return -1;
	if (it->c == 'p' && it->pext && strchr("sSfFB", it->pext)) {
		if (!t->exact || !parse_sym(iv, t, &v))
			return -1;
		used = t->len;
	} else if (it->c == 'c') {
		if (!t->len)
			return -1;
		v = (unsigned char)t->s[0];
		used = 1;
	} else {
		int base = strchr("xXp", it->c) ? 16 : it->c == 'o' ? 8 : 10;

		used = parse_num(t, base, it->c == 'd' || it->c == 'i', &v);
		if (!used)
			return -1;
	}
	set_field(iv, f, v);
	return (long)used;
}

static bool eval(struct inverter *iv, struct tep_print_arg *a,
		 long long *v);

static bool eval_op(struct inverter *iv, struct tep_print_arg *a,
		    long long *v)
{
	const char *op = a->op.op;
	long long l = 0, r = 0;

	if (!strcmp(op, "?")) {
		if (!eval(iv, a->op.left, &l) || !a->op.right ||
		    a->op.right->type != TEP_PRINT_OP)
			return false;
		return eval(iv, l ? a->op.right->op.left
				  : a->op.right->op.right, v);
	}
	if (!strcmp(op, "!") || !strcmp(op, "~")) {
		if (!eval(iv, a->op.right, &r))
			return false;
		*v = op[0] == '!' ? !r : ~r;
		return true;
	}
	if (!eval(iv, a->op.left, &l) || !eval(iv, a->op.right, &r))
		return false;
	switch (op[0] | (op[1] << 8)) {
	case '+': *v = l + r; break;
	case '-': *v = l - r; break;
	case '*': *v = l * r; break;
	case '&': *v = l & r; break;
	case '|': *v = l | r; break;
	case '^': *v = l ^ r; break;
	case '<': *v = l < r; break;
	case '>': *v = l > r; break;
	case '<' | '<' << 8: *v = (long long)((unsigned long long)l << (r & 63)); break;
	case '>' | '>' << 8: *v = (long long)((unsigned long long)l >> (r & 63)); break;
	case '=' | '=' << 8: *v = l == r; break;
	case '!' | '=' << 8: *v = l != r; break;
	case '<' | '=' << 8: *v = l <= r; break;
	case '>' | '=' << 8: *v = l >= r; break;
	case '&' | '&' << 8: *v = l && r; break;
	case '|' | '|' << 8: *v = l || r; break;
	default: return false;
	}
	return true;
}

static bool eval(struct inverter *iv, struct tep_print_arg *a, long long *v)
{
	struct tep_format_field *f;
	char *end;

	if (!a)
		return false;
	switch (a->type) {
	case TEP_PRINT_ATOM:
		*v = strtoll(a->atom.atom, &end, 0);
		return end != a->atom.atom && !*end;
	case TEP_PRINT_FIELD:
		f = field_of(iv, a->field.name);
		if (!f || !numeric(f))
			return false;
		*v = (long long)get_field(iv, f);
		return true;
	case TEP_PRINT_TYPE:
		return eval(iv, a->typecast.item, v);
	case TEP_PRINT_OP:
		return eval_op(iv, a, v);
	default:
		return false;
	}
}

static bool assign(struct inverter *iv, struct tep_print_arg *a,
		   unsigned long long v);

/*
 * The operators a print fmt applies to one field: "x & MASK" (the bits go
 * into x), "x >> N" (v << N goes into x), "known - x" (timer_start's
 * "[timeout=%ld]": x is the known value minus v; the left side was filled
 * in by an earlier conversion).
 */
static bool assign_op(struct inverter *iv, struct tep_print_arg *a,
		      unsigned long long v)
{
	const char *op = a->op.op;
	long long n;

	/* libtraceevent 1.7.1 parses "x & (A | B)" as "(x & A) | B": the
	 * bits still belong to x (the re-rendering then decides) */
	if (!strcmp(op, "&") || !strcmp(op, "|"))
		return assign(iv, a->op.left, v);
	if (!strcmp(op, ">>"))
		return eval(iv, a->op.right, &n) && n >= 0 && n < 64 &&
		       assign(iv, a->op.left, v << n);
	if (!strcmp(op, "-") && a->op.right &&
	    a->op.right->type == TEP_PRINT_FIELD && eval(iv, a->op.left, &n))
		return assign(iv, a->op.right, (unsigned long long)n - v);
	return false;
}

/* Make the expression that holds a field yield v (by OR-ing bits in). */
static bool assign(struct inverter *iv, struct tep_print_arg *a,
		   unsigned long long v)
{
	struct tep_format_field *f;

	switch (a->type) {
	case TEP_PRINT_FIELD:
		f = field_of(iv, a->field.name);
		if (!f || !numeric(f))
			return false;
		set_field(iv, f, get_field(iv, f) | v);
		return true;
	case TEP_PRINT_TYPE:
		return assign(iv, a->typecast.item, v);
	case TEP_PRINT_OP:
		return assign_op(iv, a, v);
	default:
		return false;
	}
}

static bool sym_value(const struct tep_print_flag_sym *s,
		      unsigned long long *v)
{
	char *end;

	*v = strtoull(s->value, &end, 0);
	return end != s->value && !*end;
}

static long inv_arg(struct inverter *iv, const struct fitem *it,
		    struct tep_print_arg *a, const struct tok *t);

static long inv_symbol(struct inverter *iv, struct tep_print_arg *a,
		       const struct tok *t)
{
	const struct tep_print_flag_sym *s, *best = NULL;
	unsigned long long v;
	size_t n, blen = 0;

	for (s = a->symbol.symbols; s; s = s->next) {
		n = strlen(s->str);
		if (n > t->len || memcmp(s->str, t->s, n) ||
		    (t->exact && n != t->len))
			continue;
		if (!best || n > blen) {
			best = s;
			blen = n;
		}
	}
	if (best) {
		if (!sym_value(best, &v) || !assign(iv, a->symbol.field, v))
			return -1;
		return (long)blen;
	}
	/* an unlisted value is printed as a number */
	if (parse_num(t, 0, true, &v) == t->len && t->exact &&
	    assign(iv, a->symbol.field, v))
		return (long)t->len;
	return -1;
}

/* One name of a __print_flags list at t[pos]; its length or 0. */
static size_t flag_at(const struct tep_print_arg *a, const struct tok *t,
		      size_t pos, unsigned long long *v)
{
	const struct tep_print_flag_sym *s;
	size_t n, best = 0;

	for (s = a->flags.flags; s; s = s->next) {
		n = strlen(s->str);
		if (n && n > best && pos + n <= t->len &&
		    !memcmp(s->str, t->s + pos, n) && sym_value(s, v))
			best = n;
	}
	if (best)	/* sym_value of the longest match */
		for (s = a->flags.flags; s; s = s->next)
			if (strlen(s->str) == best &&
			    !memcmp(s->str, t->s + pos, best))
				sym_value(s, v);
	return best;
}

static long inv_flags(struct inverter *iv, struct tep_print_arg *a,
		      const struct tok *t)
{
	const char *delim = a->flags.delim ? a->flags.delim : "";
	size_t dl = strlen(delim), pos = 0, n;
	unsigned long long v, all = 0;

	if (!t->len && t->exact)
		return 0;	/* no flag set prints nothing */
	for (;;) {
		n = flag_at(a, t, pos, &v);
		if (!n) {
			/* the rest of the value is printed as "0x..." */
			struct tok r = { t->s + pos, t->len - pos, t->exact };

			if (pos + 2 < t->len && t->s[pos] == '0' &&
			    t->s[pos + 1] == 'x') {
				n = parse_num(&r, 16, false, &v);
				if (!n)
					return -1;
			} else if (pos == 0) {
				return -1;
			} else {
				pos -= dl;	/* the delimiter was not ours */
				break;
			}
		}
		all |= v;
		pos += n;
		if (!dl || pos + dl > t->len || memcmp(t->s + pos, delim, dl))
			break;
		pos += dl;
	}
	if (t->exact && pos != t->len)
		return -1;
	return assign(iv, a->flags.field, all) ? (long)pos : -1;
}

static void snapshot(struct inverter *iv, size_t *dyn)
{
	memcpy(iv->save, iv->rec, iv->dyn);
	*dyn = iv->dyn;
}

static void restore(struct inverter *iv, size_t dyn)
{
	memcpy(iv->rec, iv->save, dyn);
	iv->dyn = dyn;
}

/* "cond ? A : B": take a branch that prints the text, then make cond agree */
static long inv_cond(struct inverter *iv, const struct fitem *it,
		     struct tep_print_arg *a, const struct tok *t)
{
	struct tep_print_arg *colon = a->op.right, *cond = a->op.left;
	long long c;
	size_t dyn;
	long r;

	if (!colon || colon->type != TEP_PRINT_OP || strcmp(colon->op.op, ":"))
		return -1;
	snapshot(iv, &dyn);
	r = inv_arg(iv, it, colon->op.left, t);
	if (r >= 0 && eval(iv, cond, &c)) {
		if (c)
			return r;
		/* "x & BIT ? "+" : """: set BIT */
		if (cond->type == TEP_PRINT_OP && !strcmp(cond->op.op, "&") &&
		    eval(iv, cond->op.right, &c) &&
		    assign(iv, cond->op.left, (unsigned long long)c) &&
		    eval(iv, cond, &c) && c)
			return r;
		/* "ret ? "handled" : "unhandled"": a true field is 1 */
		if ((cond->type == TEP_PRINT_FIELD ||
		     cond->type == TEP_PRINT_TYPE) && assign(iv, cond, 1) &&
		    eval(iv, cond, &c) && c)
			return r;
	}
	restore(iv, dyn);
	r = inv_arg(iv, it, colon->op.right, t);
	if (r >= 0 && eval(iv, cond, &c) && !c)
		return r;
	restore(iv, dyn);
	return -1;
}

/* A number printed from an expression of one field ("flags >> 22"). */
static long inv_expr(struct inverter *iv, const struct fitem *it,
		     struct tep_print_arg *a, const struct tok *t)
{
	unsigned long long v;
	size_t used;
	int base = strchr("xXp", it->c) ? 16 : it->c == 'o' ? 8 : 10;

	if (it->c == 's' || it->c == 'c' || it->pext)
		return -1;
	used = parse_num(t, base, it->c == 'd' || it->c == 'i', &v);
	if (!used || !assign(iv, a, v))
		return -1;
	return (long)used;
}

static long inv_atom(const struct tep_print_arg *a, const struct tok *t)
{
	size_t n = strlen(a->atom.atom);

	if (n > t->len || memcmp(a->atom.atom, t->s, n) ||
	    (t->exact && n != t->len))
		return -1;
	return (long)n;
}

static long inv_arg(struct inverter *iv, const struct fitem *it,
		    struct tep_print_arg *a, const struct tok *t)
{
	if (!a)
		return -1;
	switch (a->type) {
	case TEP_PRINT_FIELD:
		return put_token(iv, it, field_of(iv, a->field.name), t);
	case TEP_PRINT_TYPE:
		return inv_arg(iv, it, a->typecast.item, t);
	case TEP_PRINT_ATOM:
		return inv_atom(a, t);
	case TEP_PRINT_SYMBOL:
		return inv_symbol(iv, a, t);
	case TEP_PRINT_FLAGS:
		return inv_flags(iv, a, t);
	case TEP_PRINT_STRING:
		return put_token(iv, it, field_of(iv, a->string.string), t);
	case TEP_PRINT_OP:
		if (!strcmp(a->op.op, "?"))
			return inv_cond(iv, it, a, t);
		return inv_expr(iv, it, a, t);
	default:
		return -1;
	}
}

static const char *find_lit(const char *s, size_t len, const struct fitem *l)
{
	return memmem(s, len, l->lit, l->litlen);
}

static bool match(struct inverter *iv, struct cevent *ce, const char *s,
		  size_t len)
{
	size_t pos = 0, i;
	const char *end;
	struct tok t;
	long r;

	for (i = 0; i < ce->n; i++) {
		const struct fitem *it = &ce->items[i];

		if (!it->conv) {
			size_t n = it->litlen;

			/* the console drops what a line ends with: "%ps " */
			if (i + 1 == ce->n && len - pos < n &&
			    !it->lit[len - pos + strspn(it->lit + len - pos, " ")])
				n = len - pos;
			if (len - pos < n || memcmp(s + pos, it->lit, n))
				return false;
			pos += n;
			continue;
		}
		t = (struct tok){ s + pos, len - pos, true };
		if (i + 2 == ce->n && !ce->items[i + 1].conv &&
		    !ce->items[i + 1].lit[strspn(ce->items[i + 1].lit, " ")]) {
			/* "...%ps " at the end: the token is the rest of the
			 * text, without the spaces the console may have cut */
			while (t.len && t.s[t.len - 1] == ' ')
				t.len--;
		} else if (i + 1 < ce->n && !ce->items[i + 1].conv) {
			end = find_lit(s + pos, len - pos, &ce->items[i + 1]);
			if (!end)
				return false;
			t.len = (size_t)(end - (s + pos));
		} else if (i + 1 < ce->n) {
			t.exact = false;	/* two conversions in a row */
		}
		r = inv_arg(iv, it, it->arg, &t);
		if (r < 0 || (t.exact && (size_t)r != t.len))
			return false;
		pos += (size_t)r;
	}
	return pos == len;
}

static bool isalnum_c(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* A hex run at s[i] (after an optional "0x"): its end and value. */
static size_t hex_run(const char *s, size_t len, size_t i,
		      unsigned long long *v)
{
	size_t start;

	if (i + 2 < len && s[i] == '0' && s[i + 1] == 'x' && is_hex(s[i + 2]))
		i += 2;
	for (start = i, *v = 0; i < len && is_hex(s[i]); i++)
		*v = *v << 4 | (unsigned long long)(s[i] <= '9' ? s[i] - '0'
							     : s[i] - 'a' + 10);
	return i > start && i - start <= 16 ? i : 0;
}

/*
 * Equal text, except that a pointer may be printed two ways: the kernel's
 * %p gives 16 zero-padded digits, libtraceevent's "0x" and no padding.
 * Where both texts have a hex number, their values must be equal.
 */
static bool same_text(const char *a, size_t alen, const char *b, size_t blen)
{
	unsigned long long va, vb;
	size_t i = 0, j = 0, ea, eb;

	while (i < alen && j < blen) {
		if ((i == 0 || !is_hex(a[i - 1])) && is_hex(a[i]) &&
		    (j == 0 || !is_hex(b[j - 1])) && is_hex(b[j]) &&
		    (a[i] != b[j] || a[i] == '0')) {
			ea = hex_run(a, alen, i, &va);
			eb = hex_run(b, blen, j, &vb);
			if (ea && eb && va == vb && (ea == alen || !isalnum_c(a[ea])) &&
			    (eb == blen || !isalnum_c(b[eb]))) {
				i = ea;
				j = eb;
				continue;
			}
		}
		if (a[i] != b[j])
			return false;
		i++;
		j++;
	}
	return i == alen && j == blen;
}

/* libtraceevent renders the record; it must give the dumped text back. */
static bool renders_as(struct inverter *iv, struct cevent *ce,
		       const char *s, size_t len)
{
	struct tep_record rec = { 0 };
	size_t n;

	rec.data = iv->rec;
	rec.size = (int)iv->dyn;
	trace_seq_reset(&iv->seq);
	tep_print_event(iv->tep, &iv->seq, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&iv->seq);
	(void)ce;
	n = (size_t)iv->seq.len;
	while (n && (iv->seq.buffer[n - 1] == ' ' ||
		     iv->seq.buffer[n - 1] == '\n'))
		n--;
	while (len && s[len - 1] == ' ')	/* "function=%ps " */
		len--;
	return same_text(iv->seq.buffer, n, s, len);
}

/* ---- the three dump-only forms -------------------------------------- */

static void as_print(struct inverter *iv, const struct ftd_line *l,
		     unsigned long long ip, const char *text, size_t len,
		     struct inv_result *res)
{
	struct tep_format_field *fip = tep_find_field(iv->print->ev, "ip");
	struct tep_format_field *fbuf = tep_find_field(iv->print->ev, "buf");
	size_t max = REC_MAX - (size_t)fbuf->offset - 2;

	begin(iv, iv->print, l);
	set_field(iv, fip, ip);
	if (len > max)
		len = max;
	memcpy(iv->rec + fbuf->offset, text, len);
	/* the kernel's buffer ends with the newline it printed */
	iv->rec[fbuf->offset + len] = '\n';
	iv->rec[fbuf->offset + len + 1] = '\0';
	res->rec = iv->rec;
	res->len = (size_t)fbuf->offset + len + 2;
}

/* "func <-parent" of the function tracer */
static bool as_function(struct inverter *iv, const struct ftd_line *l,
			struct inv_result *res)
{
	const char *s = l->body, *arrow;
	size_t len = l->body_len;
	unsigned long long ip, parent;
	struct tok a, b;

	if (!iv->function)
		return false;
	arrow = memmem(s, len, " <-", 3);
	if (!arrow || memchr(s, ' ', (size_t)(arrow - s)))
		return false;
	a = (struct tok){ s, (size_t)(arrow - s), true };
	b = (struct tok){ arrow + 3, len - (size_t)(arrow + 3 - s), true };
	if (!b.len || memchr(b.s, ' ', b.len))
		return false;
	res->kind = INV_FUNCTION;
	snprintf(res->name, sizeof(res->name), "function");
	if (!parse_sym(iv, &a, &ip) || !parse_sym(iv, &b, &parent)) {
		res->why = WHY_UNKNOWN_SYMBOL;
		return false;
	}
	begin(iv, iv->function, l);
	set_field(iv, tep_find_field(iv->function->ev, "ip"), ip);
	set_field(iv, tep_find_field(iv->function->ev, "parent_ip"), parent);
	res->rec = iv->rec;
	res->len = iv->function->fixed;
	return true;
}

static void keep_text(struct inverter *iv, const struct ftd_line *l,
		      enum inv_why why, struct inv_result *res)
{
	res->kind = INV_TEXT;
	res->why = why;
	as_print(iv, l, 0, l->body, l->body_len, res);
}

static void harvest(struct inverter *iv, struct cevent *ce, inv_comm_fn fn,
		    void *ctx)
{
	char comm[FTD_COMM_LEN + 1];
	size_t n;
	int i;

	for (i = 0; fn && i < ce->npairs; i++) {
		n = (size_t)ce->pairs[i].comm->size;
		if (n > FTD_COMM_LEN)
			n = FTD_COMM_LEN;
		memcpy(comm, iv->rec + ce->pairs[i].comm->offset, n);
		comm[n] = '\0';
		fn(ctx, (int)get_field(iv, ce->pairs[i].pid), comm);
	}
}

static struct cevent *lookup(struct inverter *iv, const char *name,
			     size_t len)
{
	size_t i = name_hash(name, len);

	for (; iv->hash[i]; i = (i + 1) & (EVENT_HASH - 1))
		if (strlen(iv->hash[i]->ev->name) == len &&
		    !memcmp(iv->hash[i]->ev->name, name, len))
			return iv->hash[i];
	return NULL;
}

void inv_line(struct inverter *iv, const struct ftd_line *l,
	      struct inv_result *res, inv_comm_fn fn, void *ctx)
{
	const char *s = l->body, *colon;
	size_t len = l->body_len, nlen;
	struct cevent *ce;
	unsigned long long ip;
	struct tok sym;

	memset(res, 0, sizeof(*res));
	if (as_function(iv, l, res))
		return;
	if (res->why) {
		keep_text(iv, l, res->why, res);
		return;
	}
	colon = memmem(s, len, ": ", 2);
	nlen = colon ? (size_t)(colon - s) : 0;
	if (!colon || !nlen || memchr(s, ' ', nlen)) {
		snprintf(res->name, sizeof(res->name), "?");
		keep_text(iv, l, WHY_NO_NAME, res);
		return;
	}
	snprintf(res->name, sizeof(res->name), "%.*s",
		 (int)(nlen < 63 ? nlen : 63), s);
	ce = lookup(iv, s, nlen);
	if (ce && ce != iv->print) {
		res->kind = INV_EVENT;
		begin(iv, ce, l);
		if (ce->usable && match(iv, ce, colon + 2, len - nlen - 2) &&
		    renders_as(iv, ce, colon + 2, len - nlen - 2)) {
			res->rec = iv->rec;
			res->len = iv->dyn;
			harvest(iv, ce, fn, ctx);
			return;
		}
		keep_text(iv, l, WHY_MISMATCH, res);
		return;
	}
	/* "sym: text" of trace_printk (bprint) and trace_marker (print) */
	sym = (struct tok){ s, nlen, true };
	if (parse_sym(iv, &sym, &ip)) {
		res->kind = INV_PRINT;
		snprintf(res->name, sizeof(res->name), "print");
		as_print(iv, l, ip, colon + 2, len - nlen - 2, res);
		return;
	}
	keep_text(iv, l, WHY_UNKNOWN_EVENT, res);
}

/* ---- set-up ---------------------------------------------------------- */

static bool add_event(struct inverter *iv, struct tep_event *ev)
{
	size_t i = name_hash(ev->name, strlen(ev->name));
	struct cevent *ce = cevent_new(ev);

	if (!ce)
		return false;
	if (!strcmp(ev->system, "ftrace")) {
		if (!strcmp(ev->name, "print"))
			iv->print = ce;
		else if (!strcmp(ev->name, "function"))
			iv->function = ce;
		else {
			cevent_free(ce);	/* printed in their own ways */
			return true;
		}
	}
	for (; iv->hash[i]; i = (i + 1) & (EVENT_HASH - 1))
		if (!strcmp(iv->hash[i]->ev->name, ev->name)) {
			/* same name in two systems: keep the first one */
			if (ce != iv->print && ce != iv->function)
				cevent_free(ce);
			return true;
		}
	iv->hash[i] = ce;
	return true;
}

struct inverter *inv_new(struct tep_handle *tep, const struct ksyms *ks)
{
	struct inverter *iv = calloc(1, sizeof(*iv));
	struct tep_event **evs;
	int i, n;

	if (!iv)
		return NULL;
	iv->tep = tep;
	iv->ks = ks;
	trace_seq_init(&iv->seq);
	iv->hash = calloc(EVENT_HASH, sizeof(*iv->hash));
	evs = tep_list_events(tep, TEP_EVENT_SORT_ID);
	n = tep_get_events_count(tep);
	if (!iv->hash || !evs || n >= EVENT_HASH / 2) {
		inv_free(iv);
		return NULL;
	}
	for (i = 0; i < n; i++)
		if (!add_event(iv, evs[i])) {
			inv_free(iv);
			return NULL;
		}
	if (iv->print) {
		iv->common.type = tep_find_common_field(iv->print->ev,
							"common_type");
		iv->common.flags = tep_find_common_field(iv->print->ev,
							 "common_flags");
		iv->common.preempt = tep_find_common_field(
			iv->print->ev, "common_preempt_count");
		iv->common.pid = tep_find_common_field(iv->print->ev,
						       "common_pid");
	}
	return iv;
}

int inv_check(const struct inverter *iv)
{
	const struct common *c = &iv->common;

	if (!iv->print || !c->type || !c->flags || !c->preempt || !c->pid ||
	    !tep_find_field(iv->print->ev, "ip") ||
	    !tep_find_field(iv->print->ev, "buf"))
		return -1;
	return 0;
}

void inv_free(struct inverter *iv)
{
	size_t i;

	if (!iv)
		return;
	for (i = 0; iv->hash && i < EVENT_HASH; i++)
		if (iv->hash[i] != iv->print && iv->hash[i] != iv->function)
			cevent_free(iv->hash[i]);
	cevent_free(iv->print);
	cevent_free(iv->function);
	free(iv->hash);
	trace_seq_destroy(&iv->seq);
	free(iv);
}
