/* SPDX-License-Identifier: GPL-2.0 */
/* Per-CPU ring-buffer pages, the CPU data that libtracecmd copies into a
 * trace.dat as it would copy the kernel's trace_pipe_raw pages. */
#ifndef FTDUMP_RBUF_H
#define FTDUMP_RBUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct rb_layout {
	size_t page_size;	/* from events/header_page */
	size_t data_off;	/* offset of the data in a page */
	size_t commit_size;	/* size of the commit word */
};

struct rb_cpu;

/* Read the page layout from a tracefs-like directory; -1 if unusable. */
int rb_layout_read(const char *tracing_dir, struct rb_layout *lay);

struct rb_cpu *rb_cpu_open(const struct rb_layout *lay, const char *path);
/* Append one record (ts in ns); -1 on a write error. */
int rb_cpu_add(struct rb_cpu *c, unsigned long long ts, const void *data,
	       size_t len);
/* The next page starts with "lost N events" as the kernel marks it. */
int rb_cpu_lost(struct rb_cpu *c, unsigned long long n);
int rb_cpu_close(struct rb_cpu *c);

#endif
