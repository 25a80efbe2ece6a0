/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Making an event's print fmt evaluable by libtraceevent, without changing
 * what it means: enum names the kernel left in it become their values (as
 * the kernel itself does for the ones declared with TRACE_DEFINE_ENUM), and
 * a parenthesised group of constants joined by one operator becomes one
 * constant ("x & (A | B | C)", which libtraceevent 1.7.1 parses as
 * "(x & A) | B | C").
 */
#ifndef FTDUMP_FMTFIX_H
#define FTDUMP_FMTFIX_H

#include <stddef.h>

#include "enums.h"

/* Called with each name in the print fmt's arguments that can be a
 * constant: not a field (REC->name), a function or a string. */
typedef void (*fmt_name_fn)(void *ctx, const char *name, size_t len);

/* The names of one format file's print fmt. */
void fmt_names(const char *text, size_t len, fmt_name_fn fn, void *ctx);

/*
 * The format file with its print fmt fixed: a new NUL-terminated text
 * (length in *outlen) and the count of replaced names and folded groups in
 * *changes; NULL on allocation failure.
 */
char *fmt_fix(const char *text, size_t len, const struct enums *m,
	      size_t *outlen, unsigned int *changes);

#endif
