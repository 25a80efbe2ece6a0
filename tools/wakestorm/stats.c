// SPDX-License-Identifier: GPL-2.0
/* wakestorm: per-expiry statistics. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

int64_t ws_percentile(const int64_t *v, size_t n, double p)
{
	double rank = ceil(p / 100.0 * (double)n);
	size_t idx;

	if (rank < 1.0)
		rank = 1.0;
	idx = (size_t)rank - 1;
	if (idx >= n)
		idx = n - 1;
	return v[idx];
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

void ws_summarize(int64_t *v, size_t n, struct ws_summary *s)
{
	long double sum = 0;
	size_t i;

	memset(s, 0, sizeof(*s));
	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_i64);
	for (i = 0; i < n; i++)
		sum += v[i];
	s->count = n;
	s->min = v[0];
	s->max = v[n - 1];
	s->median = ws_percentile(v, n, 50.0);
	s->p99 = ws_percentile(v, n, 99.0);
	s->mean = (double)(sum / (long double)n);
}

int ws_compute(const struct ws_expiry_rec *recs, size_t n,
	       unsigned int nthreads, int64_t *scratch, struct ws_result *r)
{
	size_t i, m;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < n; i++) {
		r->wakeups += recs[i].woken;
		r->missed += recs[i].missed;
		if (recs[i].woken)
			r->expiries++;
		if (recs[i].woken == nthreads)
			r->complete++;
	}
	for (m = 0, i = 0; i < n; i++)
		if (recs[i].woken)
			scratch[m++] = recs[i].first - recs[i].target;
	ws_summarize(scratch, m, &r->first_lateness);
	for (m = 0, i = 0; i < n; i++)
		if (recs[i].woken)
			scratch[m++] = recs[i].last - recs[i].target;
	ws_summarize(scratch, m, &r->last_lateness);
	for (m = 0, i = 0; i < n; i++)
		if (recs[i].woken)
			scratch[m++] = recs[i].last - recs[i].first;
	ws_summarize(scratch, m, &r->spread);
	return 0;
}
