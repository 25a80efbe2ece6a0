/* rtaudit: shared declarations (findings report, kernel configs, rules,
 * Kconfig trees, the three commands). */
#ifndef RTAUDIT_H
#define RTAUDIT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* Exit status: the worst finding decides (docs in rtaudit.8). */
enum { EXIT_FINE = 0, EXIT_WARN = 1, EXIT_PROBLEM = 2, EXIT_BADINPUT = 3 };

/* Ranking order, lowest first: noise is shown last, "no latency effect"
 * (none) above it, unknown impact above that, then improvements/neutral
 * facts, warnings, problems. */
enum severity { SEV_NOISE, SEV_NONE, SEV_UNKNOWN, SEV_INFO, SEV_WARNING,
		SEV_PROBLEM };

#define ERRLEN 512 /* room for a "file:line: message" error */

struct finding {
	enum severity sev;
	int weight;             /* 0..100 inside a severity, higher first */
	char *subject;          /* e.g. "CONFIG_LOCKDEP" or "clocksource" */
	char *old_value;        /* config: value before (NULL otherwise) */
	char *new_value;        /* config: value after, system: value seen */
	char *why;
	char *fix;
	char *evidence;         /* file(s) read */
	char *ref;
	char *family;           /* the rules' family that judged it, or NULL */
};

struct report {
	const char *command;
	struct finding *v;
	size_t n, cap;
	char **notes;           /* method lines, figures (clock) */
	size_t nnotes;
	void *extra;            /* cJSON object for command-specific data */
	bool all;               /* text: list "no latency effect" one by one */
};

const char *sev_name(enum severity s);
void report_add(struct report *r, const struct finding *f);
void report_note(struct report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void report_sort(struct report *r);
int report_exit(const struct report *r);
void report_print(const struct report *r, bool json, const char *title);
void report_free(struct report *r);
char *xstrdup(const char *s);
void *xrealloc(void *p, size_t n); /* exits on out of memory */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* A kernel configuration: options sorted by name (without CONFIG_). */
struct kopt {
	char *name;
	char *value;            /* "n" for "# CONFIG_X is not set" */
	size_t seq;             /* line order, for "the last one wins" */
};
struct kconfig {
	char *file;
	struct kopt *v;
	size_t n, cap;
};
int kconfig_parse(struct kconfig *kc, const char *file, const char *buf,
		  size_t len, char *err, size_t errlen);
int kconfig_load(struct kconfig *kc, const char *path, char *err,
		 size_t errlen);
const char *kconfig_get(const struct kconfig *kc, const char *name);
void kconfig_free(struct kconfig *kc);
int kconfig_default_path(const char *root, char *out, size_t outlen);

/* The latency knowledge (rules.ini). */
enum direction { DIR_Y, DIR_N, DIR_LOWER, DIR_HIGHER, DIR_ANY, DIR_VALUE };
/* What a family rule also asks of the two values (rules.ini "when"). */
enum when {
	WHEN_ALWAYS,
	WHEN_MODULE,            /* n <-> m: not built, or built as a module */
	WHEN_BUILTIN_MODULE,    /* y <-> m: the same code either way */
	WHEN_UNSET,             /* a value on one side, unset on the other */
	WHEN_MODULE_OPTION,     /* on where a prefix of its name is =m */
};
struct rule {
	char *pattern;          /* option name, fnmatch pattern, or the
				 * family's section name */
	char *family;           /* "[family: NAME]" sections: NAME */
	char **match;           /* family: fnmatch patterns of its options */
	size_t nmatch;
	enum when when;
	char *unless;           /* an option that, on in NEW, covers the change */
	enum severity sev;
	enum direction dir;
	char *bad_value;        /* DIR_VALUE */
	int weight;
	char *why, *fix, *ref;
};
struct rename {
	char *from, *to;
};
struct rules {
	char *file;
	struct rule *v;
	size_t n, cap;
	struct rename *ren;
	size_t nren, capren;
};
int rules_load(struct rules *rs, const char *path, char *err, size_t errlen);
/* The rule for an option that changed from ov to nv (normalized values,
 * "(unset)" for a missing non-bool) between configs old and new. */
const struct rule *rules_match(const struct rules *rs, const char *option,
			       const char *ov, const char *nv,
			       const struct kconfig *old,
			       const struct kconfig *new);
const char *rules_renamed(const struct rules *rs, const char *from);
void rules_free(struct rules *rs);

/* Kconfig symbols of a source tree. */
struct ktree {
	char *dir;
	char **sym;
	size_t n, cap;
};
int ktree_load(struct ktree *t, const char *dir, char *err, size_t errlen);
bool ktree_has(const struct ktree *t, const char *sym);
void ktree_free(struct ktree *t);

/* config: rank the changes OLD -> NEW into r. */
void config_diff(struct report *r, const struct rules *rs,
		 const struct kconfig *old, const struct kconfig *new,
		 const struct ktree *told, const struct ktree *tnew);

struct sys_opts {
	const char *root;       /* "" for the live system */
	const char *rtirqd;     /* program to ask about irq threads */
	const char *baseline;   /* saved config, may be missing */
	const char *rules;
};
int system_audit(struct report *r, const struct sys_opts *o,
		 const struct rules *rs, char *err, size_t errlen);

struct clock_opts {
	bool do_switch;
	int rounds;             /* skew test exchanges per CPU pair */
	int trace_ms;           /* trace clock run length */
	const char *root;
};
int clock_measure(struct report *r, const struct clock_opts *o, char *err,
		  size_t errlen);

/* small file helpers (util.c) */
int read_text(const char *path, char **out, size_t max, char *err,
	      size_t errlen);
int cpulist_parse(const char *s, unsigned char *set, int max);

#endif
