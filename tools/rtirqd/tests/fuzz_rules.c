// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: any byte string as a rules file.  The parser must not
 * crash, leak or invoke undefined behaviour, must report an error for every
 * rule it drops, and a rule set that parsed must be usable by the matcher.
 * Each input is parsed in rtirqd's reading and in --compat=rtctl's.
 */
#include "../src/rtirqd.h"

#include <stdlib.h>
#include <string.h>

static void count(void *arg, const char *file, int line, const char *msg)
{
	(void)file;
	(void)line;
	/* warnings (rtctl differences, lines --compat=rtctl skips) are no errors */
	if (strncmp(msg, "warning: ", 9) != 0)
		(*(int *)arg)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct parse_ctx ctx;
	static const char *const names[] = {
		"irq/16-eth0-rx-0", "ksoftirqd/0", "rcuc/1", "kworker/0:1H",
		"irq/9-s-acpi", "ktimers/1", "migration/0", "kthreadd",
	};
	struct ruleset rs;
	int reported, n;

	if (!ctx.nr_present) {
		CPU_ZERO(&ctx.present);
		for (int c = 0; c < 4; c++)
			CPU_SET(c, &ctx.present);
		ctx.nr_present = 4;
	}
	for (int mode = 0; mode < 2; mode++) {
	ctx.rtctl = mode;
	reported = 0;
	ruleset_init(&rs);
	n = rules_parse_buffer(&rs, "fuzz", (const char *)data, size, &ctx,
			       count, &reported);
	if (n != reported)
		abort();	/* every error goes through the sink */
	ruleset_finish(&rs);
	for (size_t i = 0; i < rs.n; i++) {
		const struct rule *r = &rs.v[i];

		if (!strchr("fbro*", r->sched) || r->line < 1)
			abort();
		if ((r->sched == 'f' || r->sched == 'r') &&
		    (r->prio < 1 || r->prio > 99))
			abort();
		if (r->has_affinity && CPU_COUNT(&r->affinity) == 0)
			abort();
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct task_info t;
		char an[64];
		bool sec;

		memset(&t, 0, sizeof(t));
		t.kthread = true;
		strcpy(t.comm, names[i]);
		t.irq = irq_comm_parse(t.comm, &sec, an, sizeof(an));
		t.secondary = sec && t.irq >= 0;
		strcpy(t.action, t.irq >= 0 ? an : "");
		rules_match(&rs, &t);
	}
	ruleset_free(&rs);
	}
	return 0;
}
