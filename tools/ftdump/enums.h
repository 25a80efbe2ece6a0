/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Enum constants of one kernel build (name -> value). Print fmts name some
 * of them (__print_symbolic(REC->mode, { HRTIMER_MODE_ABS, "ABS" }, ...))
 * when the kernel has no TRACE_DEFINE_ENUM for them; their values come from
 * the build's BTF and travel in the format bundle as the file "enums".
 */
#ifndef FTDUMP_ENUMS_H
#define FTDUMP_ENUMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define FMT_ENUMS "enums"
#define BTF_VMLINUX "/sys/kernel/btf/vmlinux"

struct enums;

struct enums *enums_new(void);
void enums_free(struct enums *m);
/* Add a constant; a second, different value makes the name ambiguous. */
int enums_add(struct enums *m, const char *name, size_t len, long long v);
/* Sort the added constants; call once before enums_get. */
void enums_seal(struct enums *m);
enum enum_found { ENUM_UNKNOWN, ENUM_FOUND, ENUM_AMBIGUOUS };

/* The value of a name (set only when ENUM_FOUND). */
enum enum_found enums_get(const struct enums *m, const char *name,
			  size_t len, long long *v);
size_t enums_count(const struct enums *m);

/* Every enumerator of a BTF file (raw, or an ELF with a .BTF section). */
int enums_from_btf(struct enums *m, const char *path);
/* The bundle file: "NAME VALUE" lines, '#' comments; errors as file:line. */
int enums_read(struct enums *m, const char *path);
/* Call fn for each name in order (value 0 and ambiguous if it has two). */
void enums_each(const struct enums *m,
		void (*fn)(void *ctx, const char *name, long long v,
			   bool ambiguous), void *ctx);

#endif
