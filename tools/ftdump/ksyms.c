// SPDX-License-Identifier: GPL-2.0
/* A name -> address hash of a kallsyms file (open addressing). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksyms.h"

struct ksym {
	const char *name;	/* points into the loaded text */
	size_t len;
	unsigned long long addr;
};

struct ksyms {
	char *buf;		/* the names live here */
	struct ksym *tab;
	size_t mask;
};

static size_t hash(const char *s, size_t len)
{
	size_t h = 1469598103934665603ULL;	/* FNV-1a */

	while (len--)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static char *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "r");
	size_t cap = 1 << 16, n = 0, r;
	char *buf, *nb;

	*size = 0;
	if (!f)
		return NULL;
	buf = malloc(cap + 1);
	while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			nb = realloc(buf, cap * 2 + 1);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (buf) {
		buf[n] = '\0';
		*size = n;
	}
	return buf;
}

static void insert(struct ksyms *k, const char *name, size_t len,
		   unsigned long long addr)
{
	size_t i = hash(name, len) & k->mask;

	while (k->tab[i].name) {
		/* the first definition wins, as a lookup by address would */
		if (k->tab[i].len == len && !memcmp(k->tab[i].name, name, len))
			return;
		i = (i + 1) & k->mask;
	}
	k->tab[i] = (struct ksym){ name, len, addr };
}

struct ksyms *ksyms_load(const char *path, char **text, size_t *size)
{
	struct ksyms *k = calloc(1, sizeof(*k));
	size_t lines = 0, slots = 16, i;
	char *buf, *p;

	*text = NULL;
	if (!k)
		return NULL;
	buf = path ? slurp(path, size) : NULL;
	for (i = 0; buf && i < *size; i++)
		lines += buf[i] == '\n';
	while (slots < 2 * lines + 2)
		slots *= 2;
	k->tab = calloc(slots, sizeof(*k->tab));
	if (!k->tab) {
		free(buf);
		free(k);
		return NULL;
	}
	k->mask = slots - 1;
	for (p = buf; p && *p;) {
		char *nl = strchr(p, '\n'), *end, *name;
		unsigned long long addr = strtoull(p, &end, 16);
		size_t len;

		/* "ffffffff81000000 T _stext\t[module]" */
		if (end != p && end[0] == ' ' && end[1] && end[2] == ' ') {
			name = end + 3;
			len = strcspn(name, "\t\n");
			if (len)
				insert(k, name, len, addr);
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	k->buf = buf;
	if (buf) {
		*text = malloc(*size + 1);
		if (*text)
			memcpy(*text, buf, *size + 1);
	}
	return k;
}

bool ksyms_lookup(const struct ksyms *k, const char *name, size_t len,
		  unsigned long long *addr)
{
	size_t i = hash(name, len) & k->mask;

	while (k->tab[i].name) {
		if (k->tab[i].len == len && !memcmp(k->tab[i].name, name, len)) {
			*addr = k->tab[i].addr;
			return true;
		}
		i = (i + 1) & k->mask;
	}
	return false;
}

void ksyms_free(struct ksyms *k)
{
	if (k) {
		free(k->tab);
		free(k->buf);
	}
	free(k);
}
