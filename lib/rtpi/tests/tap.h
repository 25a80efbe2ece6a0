/* Minimal TAP helpers: each test binary prints "ok - name" / "not ok - name"
 * lines and "# diag" lines; tests/run-check.sh numbers them. */
#ifndef RTPI_TAP_H
#define RTPI_TAP_H
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_failed;

__attribute__((format(printf, 2, 3)))
static inline int check(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok - ", cond ? "" : "not ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!cond)
		tap_failed++;
	return cond;
}

__attribute__((format(printf, 1, 2)))
static inline void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static inline int tap_exit(void)
{
	return tap_failed ? 1 : 0;
}
#endif
