/* SPDX-License-Identifier: GPL-2.0 */
/* The format bundle: the event formats of one kernel build, saved from its
 * tracefs in the same layout (so a bundle and a live tracefs read alike),
 * with the values of the enum constants their print fmts name. */
#ifndef FTDUMP_FORMATS_H
#define FTDUMP_FORMATS_H

#include "enums.h"

#define FMT_KALLSYMS "kallsyms"

/*
 * Save tracefs (NULL: the mounted one), kallsyms and the enum constants
 * the print fmts name (from btf; NULL: /sys/kernel/btf/vmlinux if there)
 * into the new directory dir; 0 or -1 (then nothing is left).
 */
int formats_save(const char *tracefs, const char *kallsyms, const char *btf,
		 const char *dir);
struct tep_handle;

struct formats_info {
	int events;	/* formats parsed */
	int bad;	/* formats libtraceevent could not parse */
	int fixed;	/* print fmts with enum names or groups replaced */
};

/*
 * Parse the header page and every events/<system>/<event>/format of a
 * bundle or tracefs into a new tep handle, each print fmt fixed with the
 * constants of m (fmtfix.h); NULL if there is none. With copy, the fixed
 * formats and the headers are also written there in the same layout.
 */
struct tep_handle *formats_load(const char *dir, const struct enums *m,
				const char *copy, struct formats_info *info);
/* The enum constants for dir's formats: from btf if given, else the
 * bundle's "enums", else the running kernel's BTF for a live tracefs,
 * else none. NULL on a bad file. */
struct enums *formats_enums(const char *dir, const char *btf);
/* The kallsyms file that goes with a formats directory, or NULL. */
const char *formats_kallsyms(const char *dir, char *buf, unsigned long len);

#endif
