/* rtaudit: the Kconfig symbols a kernel source tree defines ("config X" and
 * "menuconfig X" in every Kconfig* file), to tell an option that
 * disappeared or was renamed from one that was merely switched off. */
#define _XOPEN_SOURCE 700
#include <ctype.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtaudit.h"

#define NFTW_FDS 16

static struct ktree *walking; /* nftw has no user pointer */

static void add_sym(struct ktree *t, const char *s, size_t len)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 1024;
		t->sym = xrealloc(t->sym, t->cap * sizeof(*t->sym));
	}
	t->sym[t->n++] = strndup(s, len);
}

static void scan_line(struct ktree *t, const char *p)
{
	static const char *const kw[] = { "config", "menuconfig" };

	while (isspace((unsigned char)*p))
		p++;
	for (size_t k = 0; k < 2; k++) {
		size_t kl = strlen(kw[k]), n = 0;

		if (strncmp(p, kw[k], kl) || !isspace((unsigned char)p[kl]))
			continue;
		p += kl;
		while (isspace((unsigned char)*p))
			p++;
		while (isalnum((unsigned char)p[n]) || p[n] == '_')
			n++;
		if (n)
			add_sym(t, p, n);
		return;
	}
}

static int visit(const char *path, const struct stat *st, int type,
		 struct FTW *ftw)
{
	char line[1024];
	FILE *f;

	(void)st;
	if (type != FTW_F || strncmp(path + ftw->base, "Kconfig", 7))
		return 0;
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		scan_line(walking, line);
	fclose(f);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int ktree_load(struct ktree *t, const char *dir, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	t->dir = xstrdup(dir);
	walking = t;
	if (nftw(dir, visit, NFTW_FDS, FTW_PHYS)) {
		snprintf(err, errlen, "%s: cannot read the tree: %s", dir,
			 strerror(errno));
		return -1;
	}
	if (t->n == 0) {
		snprintf(err, errlen, "%s: no Kconfig file defines a symbol: not a kernel tree",
			 dir);
		return -1;
	}
	qsort(t->sym, t->n, sizeof(*t->sym), cmp_str);
	return 0;
}

bool ktree_has(const struct ktree *t, const char *sym)
{
	return bsearch(&sym, t->sym, t->n, sizeof(*t->sym), cmp_str) != NULL;
}

void ktree_free(struct ktree *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->sym[i]);
	free(t->sym);
	free(t->dir);
	memset(t, 0, sizeof(*t));
}
