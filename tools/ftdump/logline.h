/* SPDX-License-Identifier: GPL-2.0 */
/* Console log lines of an ftrace dump: prefixes, markers, event lines. */
#ifndef FTDUMP_LOGLINE_H
#define FTDUMP_LOGLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* TASK_COMM_LEN of the kernel; the dump prints at most 8 of it. */
#define FTD_COMM_LEN 16

enum ftd_kind {
	FTD_OTHER,	/* not part of a dump (or not understood inside one) */
	FTD_START,	/* "Dumping ftrace buffer:" / "... instance X buffer:" */
	FTD_SEP,	/* the dashed line around the records */
	FTD_LOST,	/* "CPU:N [LOST M EVENTS]" */
	FTD_BUFSTART,	/* "##### CPU N buffer started ####" */
	FTD_EMPTY,	/* "(ftrace buffer empty)" */
	FTD_EVENT,	/* one record in the latency format */
	FTD_RAWHDR,	/* "# raw records: ..." (ftrace_dump_raw) */
	FTD_RAW,	/* "R <cpu> <ts> <len> <offset> <hex> [<comm>]" */
};

/* ftrace_dump_raw prints at most this many bytes of a record per line */
#define FTD_RAW_CHUNK 64
/* a ring-buffer entry never reaches this (a sub-buffer is smaller) */
#define FTD_RAW_MAX 65536

struct ftd_line {
	enum ftd_kind kind;
	bool has_ts;		/* the line carried a printk timestamp */
	char comm[FTD_COMM_LEN];
	int pid;
	int cpu;
	uint8_t flags;		/* TRACE_FLAG_* of the record */
	uint8_t preempt;	/* preempt count | migrate-disable << 4 */
	unsigned long long ts_us;		/* microseconds since the buffer's reset */
	unsigned long long lost;
	unsigned long long ts_ns;	/* FTD_RAW: the record's timestamp */
	/* the record's timestamp has too many digits, or is 2^64 ns or more
	 * (ts_us/ts_ns are then 0); the rest of the line fits the layout */
	bool ts_bad;
	unsigned int raw_len;		/* FTD_RAW: the record's length */
	unsigned int raw_off;		/* FTD_RAW: where these bytes go */
	/* after "NNNus : "; FTD_RAW: the hex digits; not NUL-terminated */
	const char *body;
	size_t body_len;
};

/* Strip the console's prefixes (syslog, "<N>", printk time, caller id). */
const char *ftd_strip_prefix(const char *s, size_t len, size_t *out_len,
			     bool *has_ts);

/* Classify one raw console line (without its newline). */
void ftd_parse_line(const char *s, size_t len, struct ftd_line *out);

#endif
