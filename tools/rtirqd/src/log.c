// SPDX-License-Identifier: GPL-2.0
/* rtirqd logging: stderr or syslog. */
#include "rtirqd.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

/* longer lines are cut: a log line names one thread or one rule */
#define LOG_LINE_MAX 1024

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
	/*
	 * One write(2) per line: stderr is unbuffered, and three stdio calls
	 * were three system calls on the event path (and could interleave
	 * with another writer).
	 */
	{
		char line[LOG_LINE_MAX];
		int n = snprintf(line, sizeof(line), "rtirqd: %s", tag);
		int m;

		if (n < 0 || (size_t)n >= sizeof(line) - 1)
			n = 0;
		m = vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
		if (m < 0)
			m = 0;
		n += (size_t)m < sizeof(line) - n - 1 ? m :
		     (int)(sizeof(line) - n - 2);
		line[n++] = '\n';
		if (write(STDERR_FILENO, line, n) < 0)
			return;	/* nowhere left to report it */
	}
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
