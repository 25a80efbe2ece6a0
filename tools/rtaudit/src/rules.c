/* rtaudit: the latency knowledge, read from rules.ini with libinih.
 * One section per option (without CONFIG_) or fnmatch pattern, keys
 * severity, bad (the direction that costs latency), weight, why, fix, ref;
 * one [renames] section of OLD = NEW option names. */
#include <errno.h>
#include <fnmatch.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtaudit.h"

#define RENAMES_SECTION "renames"
#define WEIGHT_MAX 100

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
	return r;
}

static int parse_severity(const char *v, enum severity *s)
{
	static const struct { const char *n; enum severity s; } t[] = {
		{ "problem", SEV_PROBLEM }, { "warning", SEV_WARNING },
		{ "info", SEV_INFO }, { "noise", SEV_NOISE },
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
				 "[%s] severity must be problem, warning, info or noise", section);
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

/* an exact entry wins over a pattern; patterns in file order */
const struct rule *rules_match(const struct rules *rs, const char *option)
{
	for (size_t i = 0; i < rs->n; i++)
		if (!strcmp(rs->v[i].pattern, option))
			return &rs->v[i];
	for (size_t i = 0; i < rs->n; i++)
		if (strpbrk(rs->v[i].pattern, "*?[") &&
		    !fnmatch(rs->v[i].pattern, option, 0))
			return &rs->v[i];
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
