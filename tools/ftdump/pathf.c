// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>

#include "pathf.h"

int pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

static int remove_one(const char *path, const struct stat *st, int type,
		      struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

int remove_tree(const char *dir)
{
	if (nftw(dir, remove_one, REMOVE_FDS, FTW_DEPTH | FTW_PHYS) &&
	    errno != ENOENT)
		return -1;
	return 0;
}
