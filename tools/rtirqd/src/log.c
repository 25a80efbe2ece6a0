// SPDX-License-Identifier: GPL-2.0
/* rtirqd logging: stderr or syslog. */
#include "rtirqd.h"

#include <stdarg.h>
#include <stdio.h>
#include <syslog.h>
#include <time.h>

static int log_where = LOG_TO_STDERR;
static int log_verbosity;

void log_init(int where, int verbosity)
{
	log_where = where;
	log_verbosity = verbosity;
	if (where == LOG_TO_SYSLOG)
		openlog("rtirqd", LOG_PID, LOG_DAEMON);
}

static void vlog(int prio, const char *tag, const char *fmt, va_list ap)
{
	if (log_where == LOG_TO_SYSLOG) {
		vsyslog(prio, fmt, ap);
		return;
	}
	fprintf(stderr, "rtirqd: %s", tag);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

#define LOGFN(fn, prio, tag, minv)				\
void fn(const char *fmt, ...)					\
{								\
	va_list ap;						\
	if (log_verbosity < (minv))				\
		return;						\
	va_start(ap, fmt);					\
	vlog(prio, tag, fmt, ap);				\
	va_end(ap);						\
}

LOGFN(log_err, LOG_ERR, "error: ", -1)
LOGFN(log_warn, LOG_WARNING, "warning: ", -1)
LOGFN(log_info, LOG_INFO, "", 0)
LOGFN(log_debug, LOG_DEBUG, "debug: ", 1)
