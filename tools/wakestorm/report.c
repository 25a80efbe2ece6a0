// SPDX-License-Identifier: GPL-2.0
/* wakestorm: text and JSON reports. */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdlib.h>

#include "report.h"

static void cpus_text(FILE *f, const struct ws_opts *o)
{
	unsigned int i;

	if (!o->ncpus) {
		fputs("not pinned", f);
		return;
	}
	fputs(o->ncpus == 1 ? "pinned to CPU " : "pinned round robin to CPUs ", f);
	for (i = 0; i < o->ncpus; i++)
		fprintf(f, "%s%d", i ? "," : "", o->cpus[i]);
}

static void policy_text(FILE *f, const struct ws_opts *o)
{
	switch (o->policy) {
	case WS_POLICY_OTHER:
		fputs("SCHED_OTHER", f);
		break;
	case WS_POLICY_FIFO:
		fprintf(f, "SCHED_FIFO %d", o->priority);
		break;
	case WS_POLICY_RR:
		fprintf(f, "SCHED_RR %d", o->priority);
		break;
	case WS_POLICY_DEADLINE:
		fprintf(f, "SCHED_DEADLINE %.3f/%.3f/%.3f ms",
			o->dl_runtime_ns / 1e6, o->dl_deadline_ns / 1e6,
			o->dl_period_ns / 1e6);
		break;
	}
}

static void row(FILE *f, const char *name, const struct ws_summary *s)
{
	fprintf(f, "  %-22s %12.1f %12.1f %12.1f %12.1f\n", name,
		s->min / 1e3, s->median / 1e3, s->p99 / 1e3, s->max / 1e3);
}

void ws_report_text(FILE *f, const struct ws_run *run)
{
	const struct ws_opts *o = run->opts;
	const struct ws_result *r = &run->result;

	fprintf(f, "wakestorm: %u threads, ", o->threads);
	policy_text(f, o);
	fputs(", ", f);
	cpus_text(f, o);
	fprintf(f, ", period %.3f ms, %" PRIu64 " expiries%s\n",
		o->period_ns / 1e6, o->iterations,
		run->interrupted ? " (interrupted)" : "");
	fprintf(f, "wake-ups: %" PRIu64 " done; %" PRIu64 " of %" PRIu64
		" expiries complete; %" PRIu64
		" missed (thread not yet asleep at the expiry)\n",
		r->wakeups, r->complete, o->iterations, r->missed);
	if (!r->expiries)
		return;
	fprintf(f, "per expiry, us            %12s %12s %12s %12s\n",
		"min", "median", "p99", "max");
	row(f, "first wake-up lateness", &r->first_lateness);
	row(f, "last wake-up lateness", &r->last_lateness);
	row(f, "spread (last - first)", &r->spread);
}

static cJSON *summary_json(const struct ws_summary *s)
{
	cJSON *j = cJSON_CreateObject();

	if (!j)
		return NULL;
	cJSON_AddNumberToObject(j, "count", (double)s->count);
	cJSON_AddNumberToObject(j, "min", (double)s->min);
	cJSON_AddNumberToObject(j, "median", (double)s->median);
	cJSON_AddNumberToObject(j, "p99", (double)s->p99);
	cJSON_AddNumberToObject(j, "max", (double)s->max);
	cJSON_AddNumberToObject(j, "mean", s->mean);
	return j;
}

char *ws_report_json(const struct ws_run *run)
{
	const struct ws_opts *o = run->opts;
	const struct ws_result *r = &run->result;
	cJSON *j, *cpus, *dl;
	unsigned int i;
	char *out;

	j = cJSON_CreateObject();
	if (!j)
		return NULL;
	cJSON_AddStringToObject(j, "tool", "wakestorm");
	cJSON_AddStringToObject(j, "version", WS_VERSION);
	cJSON_AddNumberToObject(j, "threads", o->threads);
	cJSON_AddStringToObject(j, "policy", ws_policy_name(o->policy));
	if (o->policy == WS_POLICY_FIFO || o->policy == WS_POLICY_RR)
		cJSON_AddNumberToObject(j, "priority", o->priority);
	if (o->policy == WS_POLICY_DEADLINE) {
		dl = cJSON_AddObjectToObject(j, "deadline");
		if (dl) {
			cJSON_AddNumberToObject(dl, "runtime_ns",
						(double)o->dl_runtime_ns);
			cJSON_AddNumberToObject(dl, "deadline_ns",
						(double)o->dl_deadline_ns);
			cJSON_AddNumberToObject(dl, "period_ns",
						(double)o->dl_period_ns);
		}
	}
	cpus = cJSON_AddArrayToObject(j, "cpus");
	for (i = 0; cpus && i < o->ncpus; i++)
		cJSON_AddItemToArray(cpus, cJSON_CreateNumber(o->cpus[i]));
	cJSON_AddNumberToObject(j, "period_ns", (double)o->period_ns);
	cJSON_AddNumberToObject(j, "iterations", (double)o->iterations);
	cJSON_AddNumberToObject(j, "start_ns", (double)run->start_ns);
	cJSON_AddBoolToObject(j, "interrupted", run->interrupted);
	cJSON_AddNumberToObject(j, "expiries", (double)r->expiries);
	cJSON_AddNumberToObject(j, "complete_expiries", (double)r->complete);
	cJSON_AddNumberToObject(j, "wakeups", (double)r->wakeups);
	cJSON_AddNumberToObject(j, "missed", (double)r->missed);
	cJSON_AddItemToObject(j, "first_lateness_ns",
			      summary_json(&r->first_lateness));
	cJSON_AddItemToObject(j, "last_lateness_ns",
			      summary_json(&r->last_lateness));
	cJSON_AddItemToObject(j, "spread_ns", summary_json(&r->spread));
	out = cJSON_Print(j);
	cJSON_Delete(j);
	return out;
}
