/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rtlab's kselftest-style TAP for C test programs: "TAP version 13", the
 * plan, numbered points, "# " diagnostics, each flushed at once so that it
 * lands in order with a calling shell's output.
 *   tap_header(n)           TAP version 13 + 1..n (n = 0: no plan yet)
 *   tap_result(ok, fmt...)  "ok N ..." / "not ok N ..."; returns ok
 *   tap_skip(fmt...)        "ok N ... # SKIP"
 *   tap_plan_end()          1..N after the points (plan unknown up front)
 *   tap_exit()              exit status: 0 if no point failed
 *   diag(fmt...)            "# ..."
 */
#ifndef RTLAB_TAP_H
#define RTLAB_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static unsigned int tap_n, tap_failed;

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

static void tap_header(unsigned int plan) __attribute__((unused));
static void tap_header(unsigned int plan)
{
	printf("TAP version 13\n");
	if (plan)
		printf("1..%u\n", plan);
	fflush(stdout);
}

static bool tap_result(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3), unused));
static bool tap_result(bool ok, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	if (!ok)
		tap_failed++;
	printf("%sok %u ", ok ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
	return ok;
}

static void tap_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2), unused));
static void tap_skip(const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	printf("ok %u ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputs(" # SKIP\n", stdout);
	fflush(stdout);
}

static void tap_plan_end(void) __attribute__((unused));
static void tap_plan_end(void)
{
	printf("1..%u\n", tap_n);
	fflush(stdout);
}

static int tap_exit(void) __attribute__((unused));
static int tap_exit(void)
{
	return tap_failed ? 1 : 0;
}

#endif
