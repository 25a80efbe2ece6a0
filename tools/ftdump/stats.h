/* SPDX-License-Identifier: GPL-2.0 */
/* What a conversion kept, rebuilt and lost: the summary it prints. */
#ifndef FTDUMP_STATS_H
#define FTDUMP_STATS_H

#include <stdbool.h>
#include <stdio.h>

#include "invert.h"

#define STATS_EVENTS 1024	/* distinct event names, power of two */
#define STATS_LINES 5		/* line numbers quoted per kind */

struct ev_count {
	char name[64];
	unsigned long rebuilt, text;
};

struct stats {
	int max_cpu;
	int ncpu;			/* highest CPU seen + 1 */
	unsigned long *cpu_events;
	unsigned long long *cpu_lost;
	struct ev_count *ev;		/* hashed by name */
	unsigned long events, rebuilt, text, print, function, raw;
	unsigned long incomplete;	/* raw records missing a line */
	unsigned long other;		/* lines inside the dump not understood */
	unsigned long other_lines[STATS_LINES];
	unsigned long joined;		/* wrapped continuation lines */
	unsigned long line_errors;
	unsigned long dups;		/* lines the console printed twice */
	unsigned long back;		/* records whose time went back */
	unsigned long bad_cpu;		/* records on an implausible CPU */
	unsigned long bad_ts;		/* records with a timestamp out of range */
	unsigned long long lost;
	bool ended;			/* the dump's end marker was seen */
	bool marker;			/* ... and its start marker */
	int dump, ndumps;
	int formats, formats_fixed;	/* parsed; print fmts fixed */
	size_t enums;			/* enum constants known */
	unsigned long dump_line, last_line;
};

int stats_init(struct stats *s, int max_cpu);
int stats_event(struct stats *s, int cpu, enum inv_kind kind,
		const char *name);
void stats_lost(struct stats *s, int cpu, unsigned long long n);
void stats_other(struct stats *s, unsigned long line);
void stats_incomplete(struct stats *s, int cpu);
void stats_print(const struct stats *s, const char *log, FILE *f);
void stats_free(struct stats *s);

#endif
