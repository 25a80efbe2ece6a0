// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "stats.h"

int stats_init(struct stats *s, int max_cpu)
{
	s->max_cpu = max_cpu;
	s->cpu_events = calloc((size_t)max_cpu, sizeof(*s->cpu_events));
	s->cpu_lost = calloc((size_t)max_cpu, sizeof(*s->cpu_lost));
	s->ev = calloc(STATS_EVENTS, sizeof(*s->ev));
	return s->cpu_events && s->cpu_lost && s->ev ? 0 : -1;
}

static struct ev_count *ev_slot(struct stats *s, const char *name)
{
	size_t h = 5381, i, probes;
	const char *p;

	for (p = name; *p; p++)
		h = h * 33 + (unsigned char)*p;
	for (i = h & (STATS_EVENTS - 1), probes = 0; probes < STATS_EVENTS;
	     i = (i + 1) & (STATS_EVENTS - 1), probes++) {
		if (!s->ev[i].name[0])
			snprintf(s->ev[i].name, sizeof(s->ev[i].name), "%s",
				 name);
		if (!strcmp(s->ev[i].name, name))
			return &s->ev[i];
	}
	return NULL;
}

int stats_event(struct stats *s, int cpu, enum inv_kind kind,
		const char *name)
{
	/* more names than slots (garbage input): count them together */
	struct ev_count *e = ev_slot(s, name);

	if (!e)
		e = ev_slot(s, "(other)");
	if (cpu >= s->ncpu)
		s->ncpu = cpu + 1;
	s->cpu_events[cpu]++;
	s->events++;
	switch (kind) {
	case INV_TEXT:
		s->text++;
		if (e)
			e->text++;
		return 0;
	case INV_PRINT:
		s->print++;
		break;
	case INV_FUNCTION:
		s->function++;
		break;
	case INV_RAW:
		s->raw++;
		break;
	default:
		break;
	}
	s->rebuilt++;
	if (e)
		e->rebuilt++;
	return 0;
}

void stats_lost(struct stats *s, int cpu, unsigned long long n)
{
	if (cpu >= s->ncpu)
		s->ncpu = cpu + 1;
	s->cpu_lost[cpu] += n;
	s->lost += n;
}

void stats_other(struct stats *s, unsigned long line)
{
	if (s->other < STATS_LINES)
		s->other_lines[s->other] = line;
	s->other++;
}

/* a raw record dropped for a missing line is lost as the kernel counts it */
void stats_incomplete(struct stats *s, int cpu)
{
	s->incomplete++;
	stats_lost(s, cpu, 1);
}

static int by_count(const void *a, const void *b)
{
	const struct ev_count *x = a, *y = b;
	unsigned long nx = x->rebuilt + x->text, ny = y->rebuilt + y->text;

	if (nx != ny)
		return nx < ny ? 1 : -1;
	return strcmp(x->name, y->name);
}

static void print_events(const struct stats *s, FILE *f)
{
	struct ev_count *sorted = malloc(STATS_EVENTS * sizeof(*sorted));
	int i, n = 0;

	if (!sorted)
		return;
	for (i = 0; i < STATS_EVENTS; i++)
		if (s->ev[i].name[0])
			sorted[n++] = s->ev[i];
	qsort(sorted, (size_t)n, sizeof(*sorted), by_count);
	fprintf(f, "  %-28s %10s %10s\n", "event", "rebuilt", "text-only");
	for (i = 0; i < n; i++)
		fprintf(f, "  %-28s %10lu %10lu\n", sorted[i].name,
			sorted[i].rebuilt, sorted[i].text);
	free(sorted);
}

void stats_print(const struct stats *s, const char *log, FILE *f)
{
	int c;

	fprintf(f, "%s: dump %d of %d (line %lu): %lu records, %lu rebuilt, "
		"%lu kept as text, %llu lost\n", log, s->dump, s->ndumps,
		s->dump_line, s->events, s->rebuilt, s->text, s->lost);
	if (s->raw || s->incomplete)
		fprintf(f, "  raw dump: %lu records copied byte for byte, %lu "
			"dropped for a missing or cut line (counted as lost)\n",
			s->raw, s->incomplete);
	fprintf(f, "  formats: %d events, %d print fmts fixed (enum names, "
		"constant groups), %zu enum constants known\n", s->formats,
		s->formats_fixed, s->enums);
	for (c = 0; c < s->ncpu; c++)
		fprintf(f, "  CPU %d: %lu records, %llu lost\n", c,
			s->cpu_events[c], s->cpu_lost[c]);
	print_events(s, f);
	fprintf(f, "  lines not understood inside the dump: %lu", s->other);
	for (c = 0; c < STATS_LINES && (unsigned long)c < s->other; c++)
		fprintf(f, "%s%lu", c ? ", " : " (lines ", s->other_lines[c]);
	fprintf(f, "%s\n", s->other ? (s->other > STATS_LINES ? ", ...)" : ")")
				    : "");
	if (s->joined)
		fprintf(f, "  wrapped lines joined: %lu\n", s->joined);
	if (s->dups)
		fprintf(f, "  lines printed twice by the console, dropped: %lu\n",
			s->dups);
	if (s->back)
		fprintf(f, "  records whose time went back on their CPU, written "
			"at the time before them: %lu\n", s->back);
	if (s->bad_cpu)
		fprintf(f, "  records on an implausible CPU, dropped: %lu\n",
			s->bad_cpu);
	if (s->bad_ts)
		fprintf(f, "  records with a timestamp out of range, dropped: "
			"%lu\n", s->bad_ts);
	if (!s->marker)
		fprintf(f, "  no start marker: the log begins inside the dump, "
			"records before it are lost\n");
	if (!s->ended)
		fprintf(f, "  truncated: the dump's end marker is missing; the "
			"log stops at line %lu, records after it are lost\n",
			s->last_line);
}

void stats_free(struct stats *s)
{
	free(s->cpu_events);
	free(s->cpu_lost);
	free(s->ev);
}
