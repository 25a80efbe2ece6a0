/* rtaudit: the list of findings, its ranking and its text/JSON output. */
#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtaudit.h"

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		fputs("rtaudit: out of memory\n", stderr);
		exit(EXIT_BADINPUT);
	}
	return p;
}

char *xstrdup(const char *s)
{
	char *d;

	if (!s)
		return NULL;
	d = xrealloc(NULL, strlen(s) + 1);
	return strcpy(d, s);
}

char *xvasprintf(const char *fmt, va_list ap)
{
	va_list again;
	char *s;
	int n;

	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, ap);
	s = xrealloc(NULL, (size_t)n + 1);
	vsnprintf(s, (size_t)n + 1, fmt, again);
	va_end(again);
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

const char *sev_name(enum severity s)
{
	static const char *const names[] = {
		[SEV_NOISE] = "noise", [SEV_NONE] = "none",
		[SEV_UNKNOWN] = "unknown",
		[SEV_INFO] = "info", [SEV_WARNING] = "warning",
		[SEV_PROBLEM] = "problem",
	};
	return names[s];
}

void report_add(struct report *r, const struct finding *f)
{
	struct finding *d;

	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 32;
		r->v = xrealloc(r->v, r->cap * sizeof(*r->v));
	}
	d = &r->v[r->n++];
	*d = *f;
	d->subject = xstrdup(f->subject);
	d->old_value = xstrdup(f->old_value);
	d->new_value = xstrdup(f->new_value);
	d->why = xstrdup(f->why);
	d->fix = xstrdup(f->fix);
	d->evidence = xstrdup(f->evidence);
	d->ref = xstrdup(f->ref);
	d->family = xstrdup(f->family);
}

void report_note(struct report *r, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	r->notes = xrealloc(r->notes, (r->nnotes + 1) * sizeof(*r->notes));
	r->notes[r->nnotes++] = s;
}

/* worst first; inside a severity the rule's weight, then the name, so the
 * order is the same on every run */
static int cmp_finding(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;

	if (x->sev != y->sev)
		return (int)y->sev - (int)x->sev;
	if (x->weight != y->weight)
		return y->weight - x->weight;
	return strcmp(x->subject, y->subject);
}

void report_sort(struct report *r)
{
	if (r->n)
		qsort(r->v, r->n, sizeof(*r->v), cmp_finding);
}

int report_exit(const struct report *r)
{
	int rc = EXIT_FINE;

	for (size_t i = 0; i < r->n; i++) {
		if (r->v[i].sev == SEV_PROBLEM)
			return EXIT_PROBLEM;
		if (r->v[i].sev == SEV_WARNING)
			rc = EXIT_WARN;
	}
	return rc;
}

static void add_str(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
}

static void print_json(const struct report *r, const char *title)
{
	cJSON *root = cJSON_CreateObject(), *arr, *notes;
	char *s;

	cJSON_AddStringToObject(root, "command", r->command);
	cJSON_AddStringToObject(root, "title", title);
	cJSON_AddNumberToObject(root, "exit_status", report_exit(r));
	arr = cJSON_AddArrayToObject(root, "findings");
	for (size_t i = 0; i < r->n; i++) {
		const struct finding *f = &r->v[i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "rank", (double)(i + 1));
		cJSON_AddStringToObject(o, "severity", sev_name(f->sev));
		add_str(o, "subject", f->subject);
		add_str(o, "old", f->old_value);
		add_str(o, "new", f->new_value);
		add_str(o, "why", f->why);
		add_str(o, "fix", f->fix);
		add_str(o, "evidence", f->evidence);
		add_str(o, "ref", f->ref);
		add_str(o, "family", f->family);
		cJSON_AddItemToArray(arr, o);
	}
	notes = cJSON_AddArrayToObject(root, "notes");
	for (size_t i = 0; i < r->nnotes; i++)
		cJSON_AddItemToArray(notes, cJSON_CreateString(r->notes[i]));
	if (r->extra)
		cJSON_AddItemReferenceToObject(root, "data", r->extra);
	s = cJSON_Print(root);
	puts(s);
	free(s);
	cJSON_Delete(root);
}

static void print_finding(size_t rank, const struct finding *f, bool brief)
{
	printf("%4zu %-7s %s", rank, sev_name(f->sev), f->subject);
	if (f->old_value)
		printf(": %s -> %s", f->old_value,
		       f->new_value ? f->new_value : "(unset)");
	else if (f->new_value)
		printf(": %s", f->new_value);
	putchar('\n');
	if (brief) {	/* "none" with --all: the family says why */
		printf("       why: %s%s%s\n", f->family ? f->family : "",
		       f->family ? ": " : "", f->why ? f->why : "");
		return;
	}
	if (f->why)
		printf("       why: %s\n", f->why);
	if (f->fix)
		printf("       fix: %s\n", f->fix);
	if (f->evidence)
		printf("       evidence: %s\n", f->evidence);
	if (f->ref)
		printf("       ref: %s\n", f->ref);
}

/*
 * "No latency effect" findings, unless r->all: one line per family with
 * its count and reason, in the place of the findings (ranks stay those of
 * the full list, as in JSON).
 */
static void print_none_summary(const struct report *r, size_t from, size_t to)
{
	bool *done = calloc(to - from, sizeof(*done));

	printf("     %zu options with no latency effect, by family (--all lists each):\n",
	       to - from);
	for (size_t i = from; i < to; i++) {
		const struct finding *f = &r->v[i];
		size_t n = 0;

		if (done && done[i - from])
			continue;
		if (!f->family) {	/* a rule of its own: by name */
			printf("         1 %s: %s\n", f->subject, f->why ? f->why : "");
			continue;
		}
		for (size_t j = i; j < to; j++) {
			const char *a = f->family, *b = r->v[j].family;

			if (b && !strcmp(a, b)) {
				n++;
				if (done)
					done[j - from] = true;
			}
		}
		printf("     %5zu %s: %s\n", n, f->family, f->why ? f->why : "");
	}
	free(done);
}

/* Text: one header line per finding, "RANK SEVERITY SUBJECT: OLD -> NEW",
 * then indented why / fix / evidence / ref lines. */
static void print_text(const struct report *r, const char *title)
{
	size_t count[SEV_PROBLEM + 1] = { 0 };

	for (size_t i = 0; i < r->n; i++)
		count[r->v[i].sev]++;
	printf("rtaudit %s: %s\n", r->command, title);
	for (size_t i = 0; i < r->nnotes; i++)
		printf("  %s\n", r->notes[i]);
	printf("%zu findings: %zu problems, %zu warnings, %zu info, %zu impact unknown, %zu no latency effect, %zu noise\n",
	       r->n, count[SEV_PROBLEM], count[SEV_WARNING], count[SEV_INFO],
	       count[SEV_UNKNOWN], count[SEV_NONE], count[SEV_NOISE]);
	for (size_t i = 0; i < r->n; i++) {
		size_t end = i;

		if (r->v[i].sev == SEV_NONE && !r->all) {
			/* the list is sorted: the "none" findings are a run */
			while (end < r->n && r->v[end].sev == SEV_NONE)
				end++;
			print_none_summary(r, i, end);
			i = end - 1;
			continue;
		}
		print_finding(i + 1, &r->v[i], r->v[i].sev == SEV_NONE);
	}
}

void report_print(const struct report *r, bool json, const char *title)
{
	if (json)
		print_json(r, title);
	else
		print_text(r, title);
	fflush(stdout);
}

void report_free(struct report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		struct finding *f = &r->v[i];

		free(f->subject);
		free(f->old_value);
		free(f->new_value);
		free(f->why);
		free(f->fix);
		free(f->evidence);
		free(f->ref);
		free(f->family);
	}
	for (size_t i = 0; i < r->nnotes; i++)
		free(r->notes[i]);
	free(r->notes);
	free(r->v);
	if (r->extra)
		cJSON_Delete(r->extra);
	r->v = NULL;
	r->n = r->cap = r->nnotes = 0;
}
