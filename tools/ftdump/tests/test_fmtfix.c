// SPDX-License-Identifier: GPL-2.0
/* Unit tests of fmtfix.c: what a print fmt becomes (TAP lines on stdout). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enums.h"
#include "fmtfix.h"

#define HEAD "name: x\nformat:\n\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n\nprint fmt: "

struct fcase {
	const char *what, *in, *out;	/* print fmt lines, after HEAD */
};

static const struct fcase cases[] = {
	{ "enum names in __print_symbolic become values",
	  "\"m=%s\", __print_symbolic(REC->mode, { MODE_A, \"A\" }, { MODE_B, \"B\" })",
	  "\"m=%s\", __print_symbolic(REC->mode, { 0, \"A\" }, { 8, \"B\" })" },
	{ "a negative value",
	  "\"%d\", REC->a == NEG ? 1 : 0", "\"%d\", REC->a == -3 ? 1 : 0" },
	{ "the format string, strings, fields, REC and calls stay",
	  "\"MODE_A %d\", MODE_A(REC->MODE_A), (REC)->a, \"MODE_B\"",
	  "\"MODE_A %d\", MODE_A(REC->MODE_A), (REC)->a, \"MODE_B\"" },
	{ "unknown and ambiguous names stay",
	  "\"%d\", REC->a & (UNKNOWN | TWICE)", "\"%d\", REC->a & (UNKNOWN | TWICE)" },
	{ "x & (A | B | C): one hex constant",
	  "\"%s\", __print_flags(REC->a & (0x00040000 | 0x00080000 | 0x00200000), \"|\", { 0x00040000, \"M\" })",
	  "\"%s\", __print_flags(REC->a & 0x2c0000, \"|\", { 0x00040000, \"M\" })" },
	{ "nested groups fold inside out, names first",
	  "\"%d\", REC->a & ((MODE_B | 1) | 4)", "\"%d\", REC->a & 13" },
	{ "a call's own parentheses are no group", "\"%d\", f(1 | 2)", "\"%d\", f(1 | 2)" },
	{ "mixed operators, || and casts stay",
	  "\"%d\", (1 | 2 & 4) + (1 || 2) + (int)(1 + 2)",
	  "\"%d\", (1 | 2 & 4) + (1 || 2) + (int)3" },
	{ "parentheses inside strings are text",
	  "\"(1 | 2) %d\", REC->a", "\"(1 | 2) %d\", REC->a" },
	{ "C suffixes", "\"%lu\", REC->a & (1UL | 2ULL)", "\"%lu\", REC->a & 3" },
};

static int one(const struct enums *m, const struct fcase *c, int n)
{
	char in[1024], want[1024], *out;
	unsigned int changes;
	size_t len;
	int ok;

	snprintf(in, sizeof(in), HEAD "%s\n", c->in);
	snprintf(want, sizeof(want), HEAD "%s\n", c->out);
	out = fmt_fix(in, strlen(in), m, &len, &changes);
	ok = out && len == strlen(want) && !strcmp(out, want) &&
	     (changes > 0) == (strcmp(c->in, c->out) != 0);
	printf("%sok %d - %s\n", ok ? "" : "not ", n, c->what);
	if (!ok)
		printf("# got: %s# want: %s", out ? out : "(null)\n", want);
	free(out);
	return !ok;
}

struct names {
	char seen[256];
};

static void seen(void *ctx, const char *name, size_t len)
{
	struct names *s = ctx;
	size_t n = strlen(s->seen);

	snprintf(s->seen + n, sizeof(s->seen) - n, "%s%.*s", n ? " " : "",
		 (int)len, name);
}

int main(void)
{
	struct enums *m = enums_new();
	struct names s = { "" };
	const char *fmt = HEAD "\"%d MODE_X\", REC->a & MODE_A, f(MODE_B), (unsigned long)REC->x, \"MODE_C\"\n";
	size_t i;
	int fail = 0;

	if (!m || enums_add(m, "MODE_A", 6, 0) || enums_add(m, "MODE_B", 6, 8) ||
	    enums_add(m, "NEG", 3, -3) || enums_add(m, "TWICE", 5, 1) ||
	    enums_add(m, "TWICE", 5, 2) || enums_add(m, "MODE_A", 6, 0))
		return 1;
	enums_seal(m);
	printf("TAP version 13\n");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		fail += one(m, &cases[i], (int)i + 1);
	fmt_names(fmt, strlen(fmt), seen, &s);
	i = !strcmp(s.seen, "MODE_A MODE_B unsigned long");
	printf("%sok %zu - names of a print fmt: %s\n", i ? "" : "not ",
	       sizeof(cases) / sizeof(cases[0]) + 1, s.seen);
	fail += !i;
	printf("1..%zu\n", sizeof(cases) / sizeof(cases[0]) + 1);
	enums_free(m);
	return fail ? 1 : 0;
}
