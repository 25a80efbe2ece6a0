/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rtlab's pieces of a command-line parser that every tool wrote again:
 *   opt_long(s, lo, hi, &v)    s is a whole decimal number in [lo, hi]
 *   opt_int(s, lo, hi, &v)     the same for an int
 *   opt_choice(words, s)       the index of s in a NULL-ended word list
 *   opt_usage_exit(usage, st)  --help (st 0: usage on stdout) or a usage
 *                              error (usage on stderr), then exit(st)
 * They return a verdict and leave the message to the caller, so that each
 * tool keeps its own wording and exit status.
 */
#ifndef RTLAB_OPT_H
#define RTLAB_OPT_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline bool opt_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

static inline bool opt_int(const char *s, int lo, int hi, int *out)
{
	long v;

	if (!opt_long(s, lo, hi, &v))
		return false;
	*out = (int)v;
	return true;
}

/* words ends with NULL; -1 when s is none of them */
static inline int opt_choice(const char *const *words, const char *s)
{
	for (int i = 0; words[i]; i++)
		if (!strcmp(s, words[i]))
			return i;
	return -1;
}

static inline void opt_usage_exit(void (*usage)(FILE *), int status)
	__attribute__((noreturn));
static inline void opt_usage_exit(void (*usage)(FILE *), int status)
{
	usage(status ? stderr : stdout);
	exit(status);
}

#endif
