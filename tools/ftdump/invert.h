/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Turning the text of one dumped record back into its binary record, from
 * the event's format (fields and print fmt as libtraceevent parsed them).
 */
#ifndef FTDUMP_INVERT_H
#define FTDUMP_INVERT_H

#include <stddef.h>
#include <stdint.h>

#include "ksyms.h"
#include "logline.h"

struct tep_handle;
struct inverter;

enum inv_kind {
	INV_EVENT,	/* rebuilt from the event's format, re-rendered equal */
	INV_FUNCTION,	/* function tracer "func <-parent" */
	INV_PRINT,	/* trace_printk / trace_marker text: a print record */
	INV_TEXT,	/* kept as a print record holding the original text */
	INV_RAW,	/* copied byte for byte from an ftrace_dump_raw line */
};

enum inv_why {
	WHY_NONE,
	WHY_UNKNOWN_EVENT,	/* "name:" not in the formats */
	WHY_MISMATCH,		/* text does not fit the event's print fmt */
	WHY_UNKNOWN_SYMBOL,	/* a function name not in kallsyms */
	WHY_NO_NAME,		/* no "name: " at all */
};

struct inv_result {
	enum inv_kind kind;
	enum inv_why why;
	char name[64];		/* event name (or what stood there) */
	const unsigned char *rec;
	size_t len;
};

/* Called for each (pid, comm) pair a rebuilt record names. */
typedef void (*inv_comm_fn)(void *ctx, int pid, const char *comm);

struct inverter *inv_new(struct tep_handle *tep, const struct ksyms *ks);
void inv_free(struct inverter *iv);
/* -1 if the formats lack what every dump needs (ftrace print event). */
int inv_check(const struct inverter *iv);
/* Rebuild one dumped record; the result stays valid until the next call. */
void inv_line(struct inverter *iv, const struct ftd_line *l,
	      struct inv_result *res, inv_comm_fn fn, void *ctx);

#endif
