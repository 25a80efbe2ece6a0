/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rtlab's one CPU-list parser, the kernel's list format ("0-2,5"):
 * rtlab_parse_cpulist(s, out, max, limit) stores the CPUs in the order
 * listed and returns how many, or -1 for a malformed list, a CPU >= limit,
 * a CPU listed twice or more than max CPUs.
 */
#ifndef RTLAB_CPULIST_H
#define RTLAB_CPULIST_H

#include <ctype.h>
#include <stdlib.h>

/*
 * rtlab_parse_range: one "N" or "N-M" of a list at *p, advancing *p past it
 * (hi = lo for "N"); -1 when it does not start with a digit or a '-' is not
 * followed by one.  The caller checks the bounds and what follows.
 */
static inline int rtlab_parse_range(const char **p, unsigned long *lo, unsigned long *hi)
{
	char *end;

	if (!isdigit((unsigned char)**p))
		return -1;
	*lo = *hi = strtoul(*p, &end, 10);
	*p = end;
	if (**p == '-') {
		(*p)++;
		if (!isdigit((unsigned char)**p))
			return -1;
		*hi = strtoul(*p, &end, 10);
		*p = end;
	}
	return 0;
}

/* rtlab_cpulist_add: append c to out[0..*n) unless present or full */
static inline int rtlab_cpulist_add(int *out, unsigned int *n, unsigned int max, int c)
{
	unsigned int i;

	for (i = 0; i < *n; i++)
		if (out[i] == c)
			return -1;	/* listed twice */
	if (*n >= max)
		return -1;
	out[(*n)++] = c;
	return 0;
}

static inline int rtlab_parse_cpulist(const char *s, int *out, unsigned int max, unsigned long limit)
{
	unsigned int n = 0;
	const char *p = s;

	if (!s || !*s)
		return -1;
	for (;;) {
		unsigned long lo, hi, c;

		if (rtlab_parse_range(&p, &lo, &hi) || hi < lo || hi >= limit)
			return -1;
		for (c = lo; c <= hi; c++)
			if (rtlab_cpulist_add(out, &n, max, (int)c))
				return -1;
		if (*p == '\0')
			return (int)n;
		if (*p != ',')
			return -1;
		p++;
	}
}

#endif
