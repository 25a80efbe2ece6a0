/* SPDX-License-Identifier: GPL-2.0 */
/* From a console log to a trace.dat. */
#ifndef FTDUMP_CONVERT_H
#define FTDUMP_CONVERT_H

#include <stdbool.h>

struct conv_opts {
	const char *log;	/* console log ("-": stdin) */
	const char *formats;	/* bundle or live tracefs directory */
	const char *btf;	/* enum constants from this BTF (or NULL) */
	const char *out;	/* trace.dat to write */
	int dump;		/* 1-based; 0: the last one */
	bool list;		/* only list the dumps */
	bool strict;		/* exit 3 when a record was kept as text */
	bool quiet;		/* no summary */
	int max_errors;		/* per-line messages before "N more" */
	int cpus;		/* the machine's CPUs (0: not given) */
};

/* 0 on success, 1 on bad input, 3 for --strict with text-only records. */
int convert_run(const struct conv_opts *o);

#endif
