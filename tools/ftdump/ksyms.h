/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel symbols by name, to turn "%ps" text back into an address. */
#ifndef FTDUMP_KSYMS_H
#define FTDUMP_KSYMS_H

#include <stdbool.h>
#include <stddef.h>

struct ksyms;

/*
 * Load a /proc/kallsyms-format file; NULL on a memory error. A missing
 * file gives an empty table. text and size receive a copy of the file
 * (for libtraceevent, which edits what it parses); free() it.
 */
struct ksyms *ksyms_load(const char *path, char **text, size_t *size);
bool ksyms_lookup(const struct ksyms *k, const char *name, size_t len,
		  unsigned long long *addr);
void ksyms_free(struct ksyms *k);

#endif
