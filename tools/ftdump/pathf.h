/* SPDX-License-Identifier: GPL-2.0 */
#ifndef FTDUMP_PATHF_H
#define FTDUMP_PATHF_H

#include <stddef.h>

#define PATH_LEN 4096

/* snprintf for paths: -1 (errno ENAMETOOLONG) instead of a cut path. */
int pathf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
