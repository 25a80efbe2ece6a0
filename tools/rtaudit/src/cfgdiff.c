/* rtaudit config: every option that differs between two kernel configs,
 * judged by the rules (rules.ini) and ranked; renamed and vanished
 * options are named as such (rules' [renames], or the Kconfig trees). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtaudit.h"

#define WEIGHT_STRUCTURAL 50 /* renamed/vanished notes inside info */
#define UNSET "(unset)"

static bool is_tristate(const char *v)
{
	return v && v[1] == 0 && (v[0] == 'y' || v[0] == 'm' || v[0] == 'n');
}

static bool is_on(const char *v)
{
	return v && (!strcmp(v, "y") || !strcmp(v, "m"));
}

static bool to_number(const char *v, long long *out)
{
	char *end;

	if (!v || !*v || *v == '"')
		return false;
	*out = strtoll(v, &end, 0);
	return *end == 0;
}

/* +1: the change costs latency in the rule's terms, -1: it removes such a
 * cost, 0: a change the rule says nothing about (y <-> m, new numbers) */
static int direction_of(const struct rule *r, const char *ov, const char *nv)
{
	long long a, b;

	switch (r->dir) {
	case DIR_Y:
		return is_on(nv) - is_on(ov);
	case DIR_N:
		return is_on(ov) - is_on(nv);
	case DIR_LOWER:
	case DIR_HIGHER:
		if (!to_number(ov, &a) || !to_number(nv, &b) || a == b)
			return 0;
		return ((b < a) == (r->dir == DIR_LOWER)) ? 1 : -1;
	case DIR_ANY:
		return 1;
	case DIR_VALUE:
		if (nv && !strcmp(nv, r->bad_value))
			return 1;
		if (ov && !strcmp(ov, r->bad_value))
			return -1;
		return 0;
	}
	return 0;
}

static void judge(struct report *rep, const struct rules *rs,
		  const struct kconfig *old, const struct kconfig *new,
		  const char *name, const char *subject, const char *ov,
		  const char *nv, const char *note)
{
	const struct rule *r = rules_match(rs, name, ov, nv, old, new);
	struct finding f = { .subject = (char *)subject,
			     .old_value = (char *)ov, .new_value = (char *)nv };
	char *why = NULL;
	int d;

	if (!r) {
		f.sev = SEV_UNKNOWN;
		why = xasprintf("changed, impact unknown%s", note ? note : "");
		f.why = why;
		report_add(rep, &f);
		free(why);
		return;
	}
	f.weight = r->weight;
	f.ref = r->ref;
	f.family = r->family;
	d = direction_of(r, ov, nv);
	if (r->sev == SEV_NOISE || r->sev == SEV_NONE) {
		f.sev = r->sev;
		why = xasprintf("%s%s", r->why, note ? note : "");
		f.fix = r->fix;
	} else if (d > 0 && r->unless && is_on(kconfig_get(new, r->unless))) {
		f.sev = SEV_INFO;
		why = xasprintf("covered by CONFIG_%s=y in NEW, otherwise: %s%s",
				r->unless, r->why, note ? note : "");
		f.fix = "nothing to do";
	} else if (d > 0) {
		f.sev = r->sev;
		why = xasprintf("%s%s", r->why, note ? note : "");
		f.fix = r->fix;
	} else if (d < 0) {
		f.sev = SEV_INFO;
		why = xasprintf("improvement, the opposite of: %s%s", r->why,
				note ? note : "");
		f.fix = "nothing to do";
	} else {
		f.sev = SEV_INFO;
		why = xasprintf("changed in a direction the rule does not rate (%s)%s",
				r->why, note ? note : "");
		f.fix = r->fix;
	}
	f.why = why;
	report_add(rep, &f);
	free(why);
}

/* OLD -> NEW normalized: a bool/tristate missing on one side is "n" */
static void values(const char *o, const char *n, const char **ov,
		   const char **nv)
{
	*ov = o ? o : (is_tristate(n) ? "n" : UNSET);
	*nv = n ? n : (is_tristate(o) ? "n" : UNSET);
}

struct ctx {
	struct report *rep;
	const struct rules *rs;
	const struct kconfig *old, *new;
	const struct ktree *told, *tnew;
	const char **done;      /* new names consumed by a rename */
	size_t ndone;
};

static bool consumed(const struct ctx *c, const char *name)
{
	for (size_t i = 0; i < c->ndone; i++)
		if (!strcmp(c->done[i], name))
			return true;
	return false;
}

/* an option of OLD that NEW does not have: renamed, gone from Kconfig,
 * or merely unset.  Returns true when handled here. */
static bool structural(struct ctx *c, const char *name, const char *o)
{
	const char *to = rules_renamed(c->rs, name);
	char subj[256], *note;
	const char *ov, *nv;

	if (to && (kconfig_get(c->new, to) || (c->tnew && ktree_has(c->tnew, to))) &&
	    (!c->tnew || !ktree_has(c->tnew, name))) {
		c->done = xrealloc(c->done, (c->ndone + 1) * sizeof(*c->done));
		c->done[c->ndone++] = to;
		snprintf(subj, sizeof(subj), "CONFIG_%s (was CONFIG_%s)", to, name);
		values(o, kconfig_get(c->new, to), &ov, &nv);
		note = xasprintf(" [renamed: CONFIG_%s is CONFIG_%s in NEW]", name, to);
		if (strcmp(ov, nv)) {
			judge(c->rep, c->rs, c->old, c->new, to, subj, ov, nv, note);
		} else {
			free(note);
			note = xasprintf("renamed: CONFIG_%s is CONFIG_%s in NEW", name, to);
			report_add(c->rep, &(struct finding){
				.sev = SEV_INFO, .weight = WEIGHT_STRUCTURAL,
				.subject = subj, .old_value = (char *)ov,
				.new_value = (char *)nv, .why = note,
				.fix = "nothing to do: same setting under the new name" });
		}
		free(note);
		return true;
	}
	if (c->tnew && !ktree_has(c->tnew, name) && strcmp(o, "n")) {
		snprintf(subj, sizeof(subj), "CONFIG_%s", name);
		note = xasprintf("the option no longer exists in the Kconfig of %s: OLD's setting is dropped",
				 c->tnew->dir);
		report_add(c->rep, &(struct finding){
			.sev = SEV_INFO, .weight = WEIGHT_STRUCTURAL,
			.subject = subj, .old_value = (char *)o,
			.new_value = "(gone)", .why = note,
			.fix = "find what replaced it (git log -S in the kernel tree) and set that" });
		free(note);
		return true;
	}
	return false;
}

static void one(struct ctx *c, const char *name, const char *o, const char *n)
{
	const char *ov, *nv, *note = NULL;
	char subj[256];

	if (consumed(c, name))
		return;
	if (o && !n && structural(c, name, o))
		return;
	values(o, n, &ov, &nv);
	if (!strcmp(ov, nv))
		return;
	if (!o && c->told && !ktree_has(c->told, name))
		note = " [new option in this version]";
	snprintf(subj, sizeof(subj), "CONFIG_%s", name);
	judge(c->rep, c->rs, c->old, c->new, name, subj, ov, nv, note);
}

void config_diff(struct report *r, const struct rules *rs,
		 const struct kconfig *old, const struct kconfig *new,
		 const struct ktree *told, const struct ktree *tnew)
{
	struct ctx c = { r, rs, old, new, told, tnew, NULL, 0 };
	size_t i = 0, j = 0;

	/* renames first, so the new name is consumed before the merge sees it */
	for (i = 0; i < old->n; i++)
		if (!kconfig_get(new, old->v[i].name))
			one(&c, old->v[i].name, old->v[i].value, NULL);
	i = 0;
	while (i < old->n || j < new->n) {
		int cmp = i == old->n ? 1 : j == new->n ? -1 :
			  strcmp(old->v[i].name, new->v[j].name);

		if (cmp < 0) {
			i++; /* only in OLD: done above */
		} else if (cmp > 0) {
			one(&c, new->v[j].name, NULL, new->v[j].value);
			j++;
		} else {
			one(&c, old->v[i].name, old->v[i].value, new->v[j].value);
			i++;
			j++;
		}
	}
	free(c.done);
	report_sort(r);
}
