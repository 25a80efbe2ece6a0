// SPDX-License-Identifier: GPL-2.0
/*
 * The print fmt of a format file is one line, "print fmt: "FORMAT", ARGS".
 * Only ARGS is touched. It is C: string literals are skipped whole, a name
 * after "->" or "." is a member, REC (or a name before "->") the record, a
 * name before "(" a function or macro (__print_symbolic, __get_str); every
 * other name is a candidate constant.
 * The kernel does the same replacement for TRACE_DEFINE_ENUM names
 * (trace_event_eval_update()), so a fixed format reads as the kernel would
 * have written it had the enum been declared to the tracer.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmtfix.h"

#define PRINT_FMT	"print fmt: "
#define NUM_MAX		32	/* "0x" and 16 digits and suffixes fit */

struct sbuf {
	char *s;
	size_t n, cap;
	bool oom;
};

static void put(struct sbuf *b, const char *s, size_t n)
{
	char *ns;

	if (b->oom)
		return;
	if (b->n + n + 1 > b->cap) {
		size_t cap = (b->n + n + 1) * 2;

		ns = realloc(b->s, cap);
		if (!ns) {
			b->oom = true;
			return;
		}
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = '\0';
}

static bool ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool ident_char(char c)
{
	return ident_start(c) || (c >= '0' && c <= '9');
}

/* The end of a string or character literal that starts at s[i]. */
static size_t skip_literal(const char *s, size_t len, size_t i)
{
	char q = s[i++];

	while (i < len && s[i] != q) {
		if (s[i] == '\\' && i + 1 < len)
			i++;
		i++;
	}
	return i < len ? i + 1 : len;
}

/* Where the print fmt's arguments start and end (the line's end). */
static bool args_span(const char *text, size_t len, size_t *from, size_t *to)
{
	const char *p = text, *end = text + len;
	size_t i;

	for (;;) {
		size_t left = (size_t)(end - p);

		if (left >= sizeof(PRINT_FMT) - 1 &&
		    !memcmp(p, PRINT_FMT, sizeof(PRINT_FMT) - 1))
			break;
		p = memchr(p, '\n', left);
		if (!p)
			return false;
		p++;
	}
	i = (size_t)(p - text) + sizeof(PRINT_FMT) - 1;
	if (i >= len || text[i] != '"')
		return false;
	*from = skip_literal(text, len, i);
	p = memchr(text + *from, '\n', len - *from);
	*to = p ? (size_t)(p - text) : len;
	return true;
}

/* Is the name at s[i..j) a candidate constant? */
static bool candidate(const char *s, size_t i, size_t j, size_t to)
{
	size_t k = j;

	if ((i >= 1 && s[i - 1] == '.') ||
	    (i >= 2 && s[i - 2] == '-' && s[i - 1] == '>'))
		return false;
	/* the record itself: REC->field, and (REC)->field in rb events */
	if ((j - i == 3 && !memcmp(s + i, "REC", 3)) ||
	    (k < to && s[k] == '.') ||
	    (k + 1 < to && s[k] == '-' && s[k + 1] == '>'))
		return false;
	while (k < to && s[k] == ' ')
		k++;
	return k >= to || s[k] != '(';
}

/* Walk the arguments: each candidate name to fn, everything to copy. */
static void walk(const char *s, size_t from, size_t to,
		 void (*name)(void *ctx, const char *s, size_t n),
		 void (*copy)(void *ctx, const char *s, size_t n), void *ctx)
{
	size_t i = from, j;

	while (i < to) {
		j = i + 1;
		if (s[i] == '"' || s[i] == '\'') {
			j = skip_literal(s, to, i);
		} else if (ident_char(s[i])) {
			while (j < to && ident_char(s[j]))
				j++;
			if (ident_start(s[i]) && candidate(s, i, j, to)) {
				name(ctx, s + i, j - i);
				i = j;
				continue;
			}
		}
		if (copy)
			copy(ctx, s + i, j - i);
		i = j;
	}
}

void fmt_names(const char *text, size_t len, fmt_name_fn fn, void *ctx)
{
	size_t from, to;

	if (args_span(text, len, &from, &to))
		walk(text, from, to, fn, NULL, ctx);
}

/* ---- replacing names ------------------------------------------------------ */

struct fixer {
	struct sbuf out;
	const struct enums *m;
	unsigned int changes;
};

static void fix_copy(void *ctx, const char *s, size_t n)
{
	put(&((struct fixer *)ctx)->out, s, n);
}

static void fix_name(void *ctx, const char *s, size_t n)
{
	struct fixer *fx = ctx;
	char num[NUM_MAX];
	long long v;

	if (enums_get(fx->m, s, n, &v) != ENUM_FOUND) {
		put(&fx->out, s, n);
		return;
	}
	snprintf(num, sizeof(num), "%lld", v);
	put(&fx->out, num, strlen(num));
	fx->changes++;
}

/* ---- folding constant groups --------------------------------------------- */

/* An integer literal (with C suffixes) at s[i]; its end, 0 if none. */
static size_t literal(const char *s, size_t i, size_t to,
		      unsigned long long *v, bool *hex)
{
	char buf[NUM_MAX + 1], *end;
	size_t j = i, n;

	if (i >= to || s[i] < '0' || s[i] > '9')
		return 0;
	while (j < to && ident_char(s[j]))
		j++;
	n = j - i;
	if (n > NUM_MAX)
		return 0;
	memcpy(buf, s + i, n);
	buf[n] = '\0';
	*v = strtoull(buf, &end, 0);
	*hex = n > 1 && (buf[1] == 'x' || buf[1] == 'X');
	if (end == buf || strspn(end, "uUlL") != strlen(end))
		return 0;
	return j;
}

static unsigned long long apply(char op, unsigned long long a,
				unsigned long long b)
{
	switch (op) {
	case '|': return a | b;
	case '&': return a & b;
	case '^': return a ^ b;
	default: return a + b;
	}
}

/*
 * "(A op B op ...)" at s[i] (s[i] == '('), all operators the same one of
 * | & ^ + (so no precedence to respect): its value and end, 0 if not.
 */
static size_t group(const char *s, size_t i, size_t to,
		    unsigned long long *v, bool *hex)
{
	unsigned long long x;
	size_t j = i + 1, terms = 0;
	char op = 0;
	bool h;

	*hex = false;
	for (;;) {
		while (j < to && s[j] == ' ')
			j++;
		j = literal(s, j, to, &x, &h);
		if (!j)
			return 0;
		*v = terms++ ? apply(op, *v, x) : x;
		*hex |= h;
		while (j < to && s[j] == ' ')
			j++;
		if (j < to && s[j] == ')')
			return terms > 1 ? j + 1 : 0;
		if (j >= to || !strchr("|&^+", s[j]) || s[j + 1] == s[j] ||
		    (op && s[j] != op))
			return 0;	/* "||", "&&" or a second operator */
		op = s[j++];
	}
}

/* The "(" of a call ("f(A | B)"): its parentheses stay. */
static bool call_paren(const char *s, size_t from, size_t i)
{
	while (i > from && s[i - 1] == ' ')
		i--;
	return i > from && ident_char(s[i - 1]);
}

/* One pass over the arguments; true if a group was folded. */
static bool fold_pass(struct sbuf *b, size_t from, unsigned int *changes)
{
	char num[NUM_MAX];
	unsigned long long v = 0;
	size_t i, end, n;
	bool hex, done = false;

	for (i = from; i < b->n && b->s[i] != '\n';) {
		if (b->s[i] == '"' || b->s[i] == '\'') {
			i = skip_literal(b->s, b->n, i);
			continue;
		}
		if (b->s[i] != '(' || call_paren(b->s, from, i) ||
		    !(end = group(b->s, i, b->n, &v, &hex))) {
			i++;
			continue;
		}
		snprintf(num, sizeof(num), hex ? "0x%llx" : "%llu", v);
		n = strlen(num);
		if (n > end - i) {	/* never seen: "(" A op B ")" is longer */
			i++;
			continue;
		}
		memcpy(b->s + i, num, n);
		memmove(b->s + i + n, b->s + end, b->n - end + 1);
		b->n -= end - i - n;
		(*changes)++;
		done = true;
		i += n;
	}
	return done;
}

char *fmt_fix(const char *text, size_t len, const struct enums *m,
	      size_t *outlen, unsigned int *changes)
{
	struct fixer fx = { .m = m };
	size_t from, to, args;

	if (!args_span(text, len, &from, &to)) {
		put(&fx.out, text, len);
	} else {
		put(&fx.out, text, from);
		args = fx.out.n;
		walk(text, from, to, fix_name, fix_copy, &fx);
		put(&fx.out, text + to, len - to);
		/* inner groups first: "((A | B) | C)" takes two passes */
		while (!fx.out.oom && fold_pass(&fx.out, args, &fx.changes))
			;
	}
	if (fx.out.oom || !fx.out.s) {
		free(fx.out.s);
		return NULL;
	}
	*outlen = fx.out.n;
	*changes = fx.changes;
	return fx.out.s;
}
