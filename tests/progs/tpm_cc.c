// SPDX-License-Identifier: GPL-2.0
/*
 * The command-count table of tpm_tis_test and tpm_qtrace (tpm_tis.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rtlab/die.h"
#include "tpm_tis.h"

void cc_add(struct cc_table *t, uint32_t cc)
{
	for (int i = 0; i < t->len; i++) {
		if (t->e[i].cc == cc) {
			t->e[i].n++;
			return;
		}
	}
	if (t->len == MAX_CC)
		die("more than %d distinct command codes", MAX_CC);
	t->e[t->len].cc = cc;
	t->e[t->len].n = 1;
	t->len++;
}

unsigned long cc_get(const struct cc_table *t, uint32_t cc)
{
	for (int i = 0; i < t->len; i++)
		if (t->e[i].cc == cc)
			return t->e[i].n;
	return 0;
}

unsigned long cc_total(const struct cc_table *t)
{
	unsigned long s = 0;

	for (int i = 0; i < t->len; i++)
		s += t->e[i].n;
	return s;
}

const char *cc_name(uint32_t cc)
{
	switch (cc) {
	case TPM_CC_SELFTEST: return "SelfTest";
	case TPM_CC_GETCAPABILITY: return "GetCapability";
	case TPM_CC_GETRANDOM: return "GetRandom";
	case TPM_CC_GETTESTRESULT: return "GetTestResult";
	case TPM_CC_PCR_READ: return "PCR_Read";
	case TPM_CC_PCR_EXTEND: return "PCR_Extend";
	default: return "other";
	}
}

void cc_print(const char *what, const struct cc_table *t)
{
	for (int i = 0; i < t->len; i++)
		printf("%s cc=0x%08x name=%s n=%lu\n", what, t->e[i].cc,
		       cc_name(t->e[i].cc), t->e[i].n);
}

/* COUNTS file: lines "cc=0x... name=... n=..." (what cmds -c writes) */
void cc_load(const char *path, struct cc_table *t)
{
	char line[256];
	FILE *f = fopen(path, "r");
	int lineno = 0;

	if (!f)
		die("%s: %s", path, strerror(errno));
	t->len = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned int cc;
		unsigned long n;
		char name[64];

		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "cc=%x name=%63s n=%lu", &cc, name, &n) != 3)
			die("%s:%d: expected \"cc=0x... name=... n=...\"", path, lineno);
		if (cc_get(t, cc))
			die("%s:%d: command code 0x%08x listed twice", path, lineno, cc);
		cc_add(t, cc);
		t->e[t->len - 1].n = n;
	}
	fclose(f);
	if (t->len == 0)
		die("%s: no counts", path);
}

uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
