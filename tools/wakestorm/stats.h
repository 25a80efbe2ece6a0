/* SPDX-License-Identifier: GPL-2.0 */
/* wakestorm: per-expiry statistics (pure functions, unit-tested). */
#ifndef WAKESTORM_STATS_H
#define WAKESTORM_STATS_H

#include <stddef.h>
#include <stdint.h>

/* What the threads recorded for one common expiry. */
struct ws_expiry_rec {
	int64_t target;		/* absolute CLOCK_MONOTONIC expiry, ns */
	int64_t first;		/* earliest wake-up seen, ns (INT64_MAX: none) */
	int64_t last;		/* latest wake-up seen, ns (INT64_MIN: none) */
	uint32_t woken;		/* threads that woke for this expiry */
	uint32_t missed;	/* threads not yet asleep when it expired */
};

/* Summary of a set of values (ns). */
struct ws_summary {
	uint64_t count;
	int64_t min;
	int64_t median;
	int64_t p99;
	int64_t max;
	double mean;
};

struct ws_result {
	uint64_t expiries;		/* expiries with at least one wake-up */
	uint64_t complete;		/* expiries where every thread woke */
	uint64_t wakeups;		/* sum of woken */
	uint64_t missed;		/* sum of missed */
	struct ws_summary first_lateness;	/* first - target */
	struct ws_summary last_lateness;	/* last - target */
	struct ws_summary spread;		/* last - first */
};

/*
 * Nearest-rank percentile of sorted v[0..n-1], 0 < p <= 100: the smallest
 * value such that at least p% of the values are <= it. n must be > 0.
 */
int64_t ws_percentile(const int64_t *v, size_t n, double p);

/* Sorts v in place and fills *s; all zero when n == 0. */
void ws_summarize(int64_t *v, size_t n, struct ws_summary *s);

/*
 * Compute the result over recs[0..n-1] for nthreads threads. scratch must
 * hold n values. Returns 0.
 */
int ws_compute(const struct ws_expiry_rec *recs, size_t n,
	       unsigned int nthreads, int64_t *scratch, struct ws_result *r);

#endif
