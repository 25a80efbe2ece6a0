/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rtlab's one way for a C program to give up, and its exit convention:
 *   0                     ran, and everything checked held
 *   RTLAB_EXIT_FAIL  (1)  ran, and a check failed (the program's verdict;
 *                         returned by the program, never through die)
 *   RTLAB_EXIT_ERROR (2)  could not do its job: bad command line
 *                         (die_usage), bad input or failed setup (die; for
 *                         input, "file:line: why")
 * Both print "<program>: message" on stderr (stdout is flushed first, so
 * that the message follows the TAP already printed).
 */
#ifndef RTLAB_DIE_H
#define RTLAB_DIE_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define RTLAB_EXIT_FAIL		1
#define RTLAB_EXIT_ERROR	2

extern char *program_invocation_short_name;	/* glibc, _GNU_SOURCE */

static inline void rtlab_vdie(int code, const char *tail, const char *fmt, va_list ap)
	__attribute__((noreturn, format(printf, 3, 0)));
static inline void rtlab_vdie(int code, const char *tail, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s: ", program_invocation_short_name);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "%s\n", tail);
	exit(code);
}

static inline void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static inline void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rtlab_vdie(RTLAB_EXIT_ERROR, "", fmt, ap);
}

static inline void die_usage(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static inline void die_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rtlab_vdie(RTLAB_EXIT_ERROR, " (see --help)", fmt, ap);
}

#endif
