/* SPDX-License-Identifier: GPL-2.0 */
/* The format bundle: the event formats of one kernel build, saved from its
 * tracefs in the same layout (so a bundle and a live tracefs read alike). */
#ifndef FTDUMP_FORMATS_H
#define FTDUMP_FORMATS_H

#define FMT_KALLSYMS "kallsyms"

/* Save tracefs (NULL: the mounted one) and kallsyms into dir; 0 or -1. */
int formats_save(const char *tracefs, const char *kallsyms, const char *dir);
struct tep_handle;

/*
 * Parse the header page and every events/<system>/<event>/format of a
 * bundle or tracefs into a new tep handle; NULL if there is none.
 * bad counts the format files libtraceevent could not parse.
 */
struct tep_handle *formats_load(const char *dir, int *bad);
/* The kallsyms file that goes with a formats directory, or NULL. */
const char *formats_kallsyms(const char *dir, char *buf, unsigned long len);

#endif
