/* rtaudit: the latency knowledge, read from rules.ini with libinih.
 * One section per option (without CONFIG_) or fnmatch pattern, keys
 * severity, bad (the direction that costs latency), weight, why, fix, ref;
 * "[family: NAME]" sections judge a family of options: match (fnmatch
 * patterns) and when (a condition on the two values) say which; one
 * [renames] section of OLD = NEW option names. */
#include <errno.h>
#include <fnmatch.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtaudit.h"

#define RENAMES_SECTION "renames"
#define FAMILY_PREFIX "family:"
#define WEIGHT_MAX 100
#define UNSET "(unset)"

struct ctx {
	struct rules *rs;
	char *err;
	size_t errlen;
};

static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? 2 * *cap : 64;
	return xrealloc(p, *cap * size);
}

static struct rule *rule_for(struct rules *rs, const char *section)
{
	struct rule *r;

	if (rs->n && !strcmp(rs->v[rs->n - 1].pattern, section))
		return &rs->v[rs->n - 1];
	for (size_t i = 0; i < rs->n; i++)
		if (!strcmp(rs->v[i].pattern, section))
			return NULL; /* a second section of the same name */
	rs->v = grow(rs->v, &rs->cap, rs->n, sizeof(*rs->v));
	r = &rs->v[rs->n++];
	memset(r, 0, sizeof(*r));
	r->pattern = xstrdup(section);
	r->sev = SEV_UNKNOWN; /* "not given yet" until severity= */
	r->dir = (enum direction)-1;
	if (!strncmp(section, FAMILY_PREFIX, strlen(FAMILY_PREFIX))) {
		const char *n = section + strlen(FAMILY_PREFIX);

		r->family = xstrdup(n + strspn(n, " "));
	}
	return r;
}

static int parse_severity(const char *v, enum severity *s)
{
	static const struct { const char *n; enum severity s; } t[] = {
		{ "problem", SEV_PROBLEM }, { "warning", SEV_WARNING },
		{ "info", SEV_INFO }, { "none", SEV_NONE },
		{ "noise", SEV_NOISE },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(v, t[i].n)) {
			*s = t[i].s;
			return 0;
		}
	return -1;
}

static void parse_bad(struct rule *r, const char *v)
{
	static const struct { const char *n; enum direction d; } t[] = {
		{ "y", DIR_Y }, { "n", DIR_N }, { "lower", DIR_LOWER },
		{ "higher", DIR_HIGHER }, { "any", DIR_ANY },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(v, t[i].n)) {
			r->dir = t[i].d;
			return;
		}
	r->dir = DIR_VALUE;
	free(r->bad_value);
	r->bad_value = xstrdup(v);
}

static int parse_when(const char *v, enum when *w)
{
	static const struct { const char *n; enum when w; } t[] = {
		{ "always", WHEN_ALWAYS }, { "module", WHEN_MODULE },
		{ "builtin-or-module", WHEN_BUILTIN_MODULE },
		{ "unset", WHEN_UNSET }, { "module-option", WHEN_MODULE_OPTION },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(v, t[i].n)) {
			*w = t[i].w;
			return 0;
		}
	return -1;
}

/* "A B C": the family's patterns, appended to those given before */
static void parse_match(struct rule *r, const char *v)
{
	const char *p = v;

	while (*(p += strspn(p, " \t"))) {
		size_t n = strcspn(p, " \t");

		r->match = xrealloc(r->match, (r->nmatch + 1) * sizeof(*r->match));
		r->match[r->nmatch] = xrealloc(NULL, n + 1);
		memcpy(r->match[r->nmatch], p, n);
		r->match[r->nmatch++][n] = 0;
		p += n;
	}
}

/* inih: return 0 for an error, which it reports with the line number */
static int handler(void *user, const char *section, const char *name,
		   const char *value)
{
	struct ctx *c = user;
	struct rules *rs = c->rs;
	struct rule *r;
	char *end;

	if (!strcmp(section, RENAMES_SECTION)) {
		rs->ren = grow(rs->ren, &rs->capren, rs->nren, sizeof(*rs->ren));
		rs->ren[rs->nren].from = xstrdup(name);
		rs->ren[rs->nren++].to = xstrdup(value);
		return 1;
	}
	r = rule_for(rs, section);
	if (!r) {
		snprintf(c->err, c->errlen, "[%s] appears twice", section);
		return 0;
	}
	if (!strcmp(name, "severity")) {
		if (parse_severity(value, &r->sev)) {
			snprintf(c->err, c->errlen,
				 "[%s] severity must be problem, warning, info, none or noise", section);
			return 0;
		}
	} else if (!strcmp(name, "match") || !strcmp(name, "when")) {
		if (!r->family) {
			snprintf(c->err, c->errlen,
				 "[%s] \"%s\" belongs to a [family: NAME] section", section, name);
			return 0;
		}
		if (!strcmp(name, "match")) {
			parse_match(r, value);
		} else if (parse_when(value, &r->when)) {
			snprintf(c->err, c->errlen,
				 "[%s] when must be always, module, builtin-or-module, unset or module-option", section);
			return 0;
		}
	} else if (!strcmp(name, "bad")) {
		parse_bad(r, value);
	} else if (!strcmp(name, "weight")) {
		errno = 0;
		long w = strtol(value, &end, 10);

		if (errno || *end || end == value || w < 0 || w > WEIGHT_MAX) {
			snprintf(c->err, c->errlen, "[%s] weight must be 0..%d",
				 section, WEIGHT_MAX);
			return 0;
		}
		r->weight = (int)w;
	} else if (!strcmp(name, "unless")) {
		free(r->unless);
		r->unless = xstrdup(value);
	} else if (!strcmp(name, "why")) {
		free(r->why);
		r->why = xstrdup(value);
	} else if (!strcmp(name, "fix")) {
		free(r->fix);
		r->fix = xstrdup(value);
	} else if (!strcmp(name, "ref")) {
		free(r->ref);
		r->ref = xstrdup(value);
	} else {
		snprintf(c->err, c->errlen, "[%s] unknown key \"%s\"", section, name);
		return 0;
	}
	return 1;
}

static int validate(const struct rules *rs, char *err, size_t errlen)
{
	for (size_t i = 0; i < rs->n; i++) {
		const struct rule *r = &rs->v[i];
		const char *missing = r->sev == SEV_UNKNOWN ? "severity" :
				      (int)r->dir == -1 ? "bad" :
				      r->family && !r->nmatch ? "match" :
				      !r->why ? "why" : !r->fix ? "fix" :
				      !r->ref ? "ref" : NULL;

		if (missing) {
			snprintf(err, errlen, "%s: [%s]: no %s= given", rs->file,
				 r->pattern, missing);
			return -1;
		}
	}
	return 0;
}

/* libinih reads at most INI_MAX_LINE - 1 characters a line and parses the
 * rest as a line of its own: refuse such lines instead. */
static int check_line_lengths(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	size_t len = 0, line = 1;
	int c;

	if (!f)
		return 0; /* ini_parse reports it */
	while ((c = getc(f)) != EOF) {
		if (c != '\n' && ++len >= INI_MAX_LINE - 1) {
			snprintf(err, errlen, "%s:%zu: line longer than %d characters (libinih's limit)",
				 path, line, INI_MAX_LINE - 2);
			fclose(f);
			return -1;
		}
		if (c == '\n') {
			line++;
			len = 0;
		}
	}
	fclose(f);
	return 0;
}

int rules_load(struct rules *rs, const char *path, char *err, size_t errlen)
{
	char msg[ERRLEN] = "";
	struct ctx c = { rs, msg, sizeof(msg) };
	int line;

	memset(rs, 0, sizeof(*rs));
	rs->file = xstrdup(path);
	if (check_line_lengths(path, err, errlen))
		return -1;
	line = ini_parse(path, handler, &c);
	if (line < 0) {
		snprintf(err, errlen, "%s: cannot open: %s", path,
			 line == -1 ? strerror(errno) : "out of memory");
		return -1;
	}
	if (line > 0) {
		snprintf(err, errlen, "%s:%d: %s", path, line,
			 msg[0] ? msg : "syntax error");
		return -1;
	}
	return validate(rs, err, errlen);
}

static bool is_off(const char *v)
{
	return !strcmp(v, "n") || !strcmp(v, UNSET);
}

static bool in_set(const char *v, const char *a, const char *b)
{
	return !strcmp(v, a) || !strcmp(v, b);
}

/*
 * Is option (on in kc) an option of a module: a prefix of its name, cut
 * at an underscore, is =m in kc?  (B43_PHY_N with B43=m, NF_CONNTRACK_MARK
 * with NF_CONNTRACK=m.)  Its code then goes into that module.
 */
static bool in_module(const struct kconfig *kc, const char *option)
{
	char name[256];
	char *us;

	if (!kc || strlen(option) >= sizeof(name))
		return false;
	strcpy(name, option);
	while ((us = strrchr(name, '_'))) {
		const char *v;

		*us = 0;
		v = kconfig_get(kc, name);
		if (v && !strcmp(v, "m"))
			return true;
	}
	return false;
}

static bool when_holds(const struct rule *r, const char *option,
		       const char *ov, const char *nv,
		       const struct kconfig *old, const struct kconfig *new)
{
	switch (r->when) {
	case WHEN_ALWAYS:
		return true;
	case WHEN_MODULE:
		return in_set(ov, "n", "m") && in_set(nv, "n", "m");
	case WHEN_BUILTIN_MODULE:
		return in_set(ov, "y", "m") && in_set(nv, "y", "m");
	case WHEN_UNSET:
		return !strcmp(ov, UNSET) || !strcmp(nv, UNSET);
	case WHEN_MODULE_OPTION:
		/* every side where it is on has its module =m */
		return (is_off(ov) || in_module(old, option)) &&
		       (is_off(nv) || in_module(new, option)) &&
		       !(is_off(ov) && is_off(nv));
	}
	return false;
}

static bool family_matches(const struct rule *r, const char *option)
{
	for (size_t i = 0; i < r->nmatch; i++)
		if (!fnmatch(r->match[i], option, 0))
			return true;
	return false;
}

/*
 * An exact entry wins; then pattern entries and families in file order
 * (a family: one of its patterns matches and its "when" holds).
 */
const struct rule *rules_match(const struct rules *rs, const char *option,
			       const char *ov, const char *nv,
			       const struct kconfig *old,
			       const struct kconfig *new)
{
	for (size_t i = 0; i < rs->n; i++)
		if (!rs->v[i].family && !strcmp(rs->v[i].pattern, option))
			return &rs->v[i];
	for (size_t i = 0; i < rs->n; i++) {
		const struct rule *r = &rs->v[i];

		if (r->family ? family_matches(r, option) &&
				when_holds(r, option, ov, nv, old, new) :
		    strpbrk(r->pattern, "*?[") && !fnmatch(r->pattern, option, 0))
			return r;
	}
	return NULL;
}

const char *rules_renamed(const struct rules *rs, const char *from)
{
	for (size_t i = 0; i < rs->nren; i++)
		if (!strcmp(rs->ren[i].from, from))
			return rs->ren[i].to;
	return NULL;
}

void rules_free(struct rules *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		free(rs->v[i].pattern);
		free(rs->v[i].family);
		free(rs->v[i].unless);
		for (size_t j = 0; j < rs->v[i].nmatch; j++)
			free(rs->v[i].match[j]);
		free(rs->v[i].match);
		free(rs->v[i].bad_value);
		free(rs->v[i].why);
		free(rs->v[i].fix);
		free(rs->v[i].ref);
	}
	for (size_t i = 0; i < rs->nren; i++) {
		free(rs->ren[i].from);
		free(rs->ren[i].to);
	}
	free(rs->v);
	free(rs->ren);
	free(rs->file);
	memset(rs, 0, sizeof(*rs));
}
