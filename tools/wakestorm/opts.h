/* SPDX-License-Identifier: GPL-2.0 */
/* wakestorm: command-line options. */
#ifndef WAKESTORM_OPTS_H
#define WAKESTORM_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum ws_policy {
	WS_POLICY_OTHER,
	WS_POLICY_FIFO,
	WS_POLICY_RR,
	WS_POLICY_DEADLINE,
};

#define WS_MAX_THREADS		1000000u
#define WS_MAX_CPUS		1024u	/* CPU_SETSIZE */
#define WS_DEFAULT_THREADS	1000u
#define WS_DEFAULT_PERIOD_NS	10000000ull	/* 10 ms */
#define WS_DEFAULT_ITERATIONS	100ull
#define WS_DEFAULT_STACK	(64u * 1024u)
#define WS_DEFAULT_DL_RUNTIME_NS 100000ull	/* 100 us */

struct ws_opts {
	unsigned int threads;
	/* CPUs the threads are pinned to, round robin; ncpus == 0: no pinning */
	unsigned int ncpus;
	int cpus[WS_MAX_CPUS];
	enum ws_policy policy;
	int priority;			/* fifo, rr: 1..99 */
	uint64_t dl_runtime_ns;		/* deadline */
	uint64_t dl_deadline_ns;
	uint64_t dl_period_ns;
	uint64_t period_ns;		/* distance between two common expiries */
	uint64_t iterations;		/* number of common expiries */
	uint64_t start_delay_ns;	/* 0: automatic */
	size_t stack_size;
	bool mlock;
	bool quiet;
	const char *json_path;		/* NULL: no JSON; "-": stdout */
	bool help;
	bool version;
};

/*
 * Parse argv into *o (defaults first). On error returns -1 and writes a
 * message naming the offending option into err; returns 0 on success.
 */
int ws_parse_opts(int argc, char **argv, struct ws_opts *o,
		  char *err, size_t errlen);

/* "10ms", "250us", "1s", "5000ns"; a bare number is microseconds. */
int ws_parse_time(const char *s, uint64_t *ns);
/* "65536", "64K", "1M" (powers of 1024). */
int ws_parse_size(const char *s, size_t *bytes);
/* "0-3,6": returns the number of CPUs written to out, -1 if invalid. */
int ws_parse_cpulist(const char *s, int *out, unsigned int max);
/* Decimal integer in [min, max]. */
int ws_parse_uint(const char *s, unsigned long long min,
		  unsigned long long max, unsigned long long *v);

const char *ws_policy_name(enum ws_policy p);
void ws_usage(FILE *f);
/* The message into err (errlen bytes) and -1: how the checks say no. */
int ws_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
