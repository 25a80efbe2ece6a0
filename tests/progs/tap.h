/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the guest test programs share: a TAP diagnostic line ("# ...",
 * flushed at once so that it lands in order with the shell's output).
 */
#ifndef RTLAB_PROGS_TAP_H
#define RTLAB_PROGS_TAP_H

#include <stdarg.h>
#include <stdio.h>

static void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2), unused));
static void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

#endif
