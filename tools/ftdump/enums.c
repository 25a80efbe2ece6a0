// SPDX-License-Identifier: GPL-2.0
/*
 * Enum constants: a sorted array searched by name. They are read from BTF
 * with libbpf (the kernel's /sys/kernel/btf/vmlinux, or any BTF of the same
 * build) or from the "enums" file of a format bundle. One name can stand for
 * two values in different enums of a whole kernel (a static enum of one .c
 * file); such a name is ambiguous and never resolved.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "enums.h"

#define ENUM_NAME_MAX	256	/* longer names are no C identifiers we need */

struct enum_const {
	char *name;
	long long value;
	bool ambiguous;
};

struct enums {
	struct enum_const *v;
	size_t n, cap;
};

struct enums *enums_new(void)
{
	return calloc(1, sizeof(struct enums));
}

void enums_free(struct enums *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++)
		free(m->v[i].name);
	free(m->v);
	free(m);
}

size_t enums_count(const struct enums *m)
{
	return m ? m->n : 0;
}

int enums_add(struct enums *m, const char *name, size_t len, long long v)
{
	struct enum_const *nv;

	if (!len || len > ENUM_NAME_MAX)
		return 0;	/* not a name a print fmt can hold */
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;

		nv = realloc(m->v, cap * sizeof(*nv));
		if (!nv)
			return -1;
		m->v = nv;
		m->cap = cap;
	}
	m->v[m->n].name = strndup(name, len);
	if (!m->v[m->n].name)
		return -1;
	m->v[m->n].value = v;
	m->v[m->n].ambiguous = false;
	m->n++;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	const struct enum_const *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return (x->value > y->value) - (x->value < y->value);
}

void enums_seal(struct enums *m)
{
	size_t i, o = 0;

	if (!m->n)
		return;
	qsort(m->v, m->n, sizeof(*m->v), by_name);
	/* one entry per name; two values make it ambiguous */
	for (i = 1; i < m->n; i++) {
		if (!strcmp(m->v[i].name, m->v[o].name)) {
			if (m->v[i].value != m->v[o].value)
				m->v[o].ambiguous = true;
			free(m->v[i].name);
			continue;
		}
		m->v[++o] = m->v[i];
	}
	m->n = o + 1;
}

static int cmp_key(const char *name, size_t len, const char *s)
{
	int c = strncmp(name, s, len);

	if (c)
		return c;
	return s[len] ? -1 : 0;
}

enum enum_found enums_get(const struct enums *m, const char *name,
			  size_t len, long long *v)
{
	size_t lo = 0, hi = m ? m->n : 0, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = cmp_key(name, len, m->v[mid].name);
		if (!c) {
			if (m->v[mid].ambiguous)
				return ENUM_AMBIGUOUS;
			*v = m->v[mid].value;
			return ENUM_FOUND;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return ENUM_UNKNOWN;
}

/* ---- BTF ------------------------------------------------------------- */

static int add_btf_enum(struct enums *m, const struct btf *b,
			const struct btf_type *t)
{
	const char *name;
	long long v;
	int i;

	for (i = 0; i < btf_vlen(t); i++) {
		if (btf_is_enum(t)) {
			const struct btf_enum *e = btf_enum(t) + i;

			name = btf__name_by_offset(b, e->name_off);
			/* kflag: the enum's values are signed */
			v = btf_kflag(t) ? (long long)(int32_t)e->val
					 : (long long)(uint32_t)e->val;
		} else {
			const struct btf_enum64 *e = btf_enum64(t) + i;

			name = btf__name_by_offset(b, e->name_off);
			v = (long long)btf_enum64_value(e);
		}
		if (name && enums_add(m, name, strlen(name), v))
			return -1;
	}
	return 0;
}

int enums_from_btf(struct enums *m, const char *path)
{
	struct btf *b = btf__parse(path, NULL);
	const struct btf_type *t;
	unsigned int id, n;
	int ret = 0;

	if (!b) {
		fprintf(stderr, "ftdump: %s: no BTF there (%s)\n", path,
			strerror(errno));
		return -1;
	}
	n = btf__type_cnt(b);
	for (id = 1; id < n && !ret; id++) {
		t = btf__type_by_id(b, id);
		if (t && (btf_is_enum(t) || btf_is_enum64(t)))
			ret = add_btf_enum(m, b, t);
	}
	btf__free(b);
	return ret;
}

/* ---- the bundle file ------------------------------------------------------ */

static bool is_ident(const char *s, size_t n)
{
	size_t i;

	if (!n || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

/* "NAME VALUE": 0, or -1 if the line is not that */
static int parse_entry(struct enums *m, char *s)
{
	char *name, *val, *end;
	long long v;

	name = strtok(s, " \t\r\n");
	val = name ? strtok(NULL, " \t\r\n") : NULL;
	if (!val || strtok(NULL, " \t\r\n") || !is_ident(name, strlen(name)))
		return -1;
	errno = 0;
	v = strtoll(val, &end, 0);
	if (errno || end == val || *end)
		return -1;
	return enums_add(m, name, strlen(name), v) ? -2 : 0;
}

int enums_read(struct enums *m, const char *path)
{
	FILE *f = fopen(path, "r");
	unsigned long line = 0;
	char *buf = NULL;
	size_t cap = 0;
	int ret = 0, r;

	if (!f) {
		fprintf(stderr, "ftdump: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (!ret && getline(&buf, &cap, f) > 0) {
		line++;
		if (buf[strspn(buf, " \t\r\n")] == '\0' ||
		    buf[strspn(buf, " \t")] == '#')
			continue;
		r = parse_entry(m, buf);
		if (r == -1)
			fprintf(stderr, "%s:%lu: not \"NAME VALUE\"\n", path,
				line);
		ret = r;
	}
	free(buf);
	fclose(f);
	return ret;
}

void enums_each(const struct enums *m,
		void (*fn)(void *ctx, const char *name, long long v,
			   bool ambiguous), void *ctx)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		fn(ctx, m->v[i].name, m->v[i].ambiguous ? 0 : m->v[i].value,
		   m->v[i].ambiguous);
}
