/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rtirqd: give irq threads and kernel threads their real-time policy the
 * moment they appear.  Shared declarations.
 */
#ifndef RTIRQD_H
#define RTIRQD_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <regex.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---------------------------------------------------------------- rules */

enum rule_kind {
	RULE_RTCTL,	/* name:sched:prio:affinity:regex (rtctl, rtctld) */
	RULE_TUNED,	/* group.NAME=rule_prio:sched:prio:affinity:regex */
	RULE_IRQ,	/* #@irq name:sched:prio:affinity:key=value ... */
};

enum thread_sel { THREAD_ANY, THREAD_PRIMARY, THREAD_SECONDARY };

struct irq_range { unsigned int lo, hi; };

#define PRIO_LEAVE (-1)

struct rule {
	enum rule_kind kind;
	char *name;
	char *file;		/* shared with the rule set's file table */
	int line;
	int file_index;		/* order: file index, tuned rule_prio, line */
	long order_prio;
	char sched;		/* 'f' 'r' 'o' 'b' '*' */
	int prio;		/* PRIO_LEAVE for '*' */
	bool has_affinity;
	cpu_set_t affinity;
	/* RULE_RTCTL / RULE_TUNED: regex on "[comm]"; RULE_IRQ: comm= */
	bool has_regex;
	regex_t regex;
	bool rtctl;		/* match the name only up to its first blank */
	/* RULE_IRQ only */
	struct irq_range *irqs;
	size_t nirqs;
	bool has_action;
	regex_t action;
	enum thread_sel thread;
	bool irq_affinity;	/* also write /proc/irq/N/smp_affinity_list */
};

struct ruleset {
	struct rule *v;
	size_t n, cap;
	int skipped;		/* --compat=rtctl: bad lines left out */
	char **files;		/* names of the files read, in order */
	size_t nfiles;
};

struct parse_ctx {
	cpu_set_t present;	/* CPUs a mask may name */
	int nr_present;
	/*
	 * --compat=rtctl: read the file exactly as NI's rtctl does (lines it
	 * ignores are left out, bad lines skipped, CR kept, regexes as
	 * busybox awk reads them, chrt's and taskset's refusals); otherwise
	 * rtirqd's reading, and a warning for each line that rtctl would
	 * read differently.
	 */
	bool rtctl;
};

/* Error sink: called once per error with file, line (0: whole file), text. */
typedef void (*parse_err_fn)(void *arg, const char *file, int line,
			     const char *msg);

void ruleset_init(struct ruleset *rs);
void ruleset_free(struct ruleset *rs);
/*
 * Parse one file's text into rs (appending).  Returns the number of errors
 * reported through err; rules from a buffer with errors are not added.
 */
int rules_parse_buffer(struct ruleset *rs, const char *file, const char *buf,
		       size_t len, const struct parse_ctx *ctx,
		       parse_err_fn err, void *arg);
/* Sort into evaluation order (stable): file, tuned rule_prio, line. */
void ruleset_finish(struct ruleset *rs);

/*
 * Load main file plus dir/\*.rtgroups (alphabetical).  Checks that files
 * and the directory are owned by root and not group/other writable.
 * main_optional: a missing main file is not an error.
 * Returns the number of errors (0: rs holds the complete new set).
 */
int rules_load(struct ruleset *rs, const char *main_file, bool main_optional,
	       const char *dir, const struct parse_ctx *ctx,
	       parse_err_fn err, void *arg);

/* Present CPUs from /sys/devices/system/cpu/present (or sched_getaffinity). */
int parse_ctx_init(struct parse_ctx *ctx);

/* cpuset helpers */
/* Parse an rtctl/taskset hex mask ("0x3", "f", "ff,ffffffff"). */
int cpumask_parse_hex(const char *s, cpu_set_t *out, char *why, size_t whylen);
/* Parse a kernel cpu list ("0-3,8"). */
int cpulist_parse(const char *s, cpu_set_t *out);
/* Format a cpu list into buf ("0-3,8"); returns buf. */
char *cpulist_format(const cpu_set_t *set, char *buf, size_t len);

/* ---------------------------------------------------------------- tasks */

#define COMM_LEN 64
#define ACTION_LEN 256

struct task_info {
	pid_t pid;
	pid_t tgid;
	bool kthread;
	char comm[COMM_LEN];
	int irq;		/* -1: not an irq thread */
	bool secondary;
	char action[ACTION_LEN];	/* full action name if known */
	int policy;		/* SCHED_* */
	int prio;		/* rt_priority */
	cpu_set_t affinity;
	bool has_affinity;
};

/* Build the string rtctl matches: "[comm]" for kernel threads, else comm. */
void task_match_string(const struct task_info *t, char *buf, size_t len);
/* Last matching rule, or NULL. */
const struct rule *rules_match(const struct ruleset *rs,
			       const struct task_info *t);

/* Fill t from /proc (root: "/proc").  0, or -ESRCH if the task is gone. */
int task_read(const char *procroot, pid_t tgid, pid_t pid,
	      struct task_info *t);
/* Fill t->affinity (sched_getaffinity); has_affinity says if it worked. */
void task_read_affinity(struct task_info *t);
/* Map an irq thread to irq/action (kernel map, else comm + /proc/irq). */
void task_irq_lookup(const char *sysroot, const char *procroot,
		     struct task_info *t);
struct thread_line {
	pid_t pid;
	const char *action;	/* not NUL-terminated */
	size_t action_len;
	bool secondary;
};
/* Parse a /sys/kernel/irq/<N>/threads line; 0 or -1. */
int thread_line_parse(const char *line, struct thread_line *tl);
/* Parse "irq/N-name" or "irq/N-s-name"; returns irq or -1. */
int irq_comm_parse(const char *comm, bool *secondary, char *name, size_t len);

const char *policy_name(int policy);

/* ---------------------------------------------------------------- apply */

enum apply_result {
	APPLY_OK,
	APPLY_UNCHANGED,	/* rule leaves everything as is */
	APPLY_GONE,		/* the thread exited: not an error */
	APPLY_PARTIAL,		/* policy set; affinity refused (per-CPU) */
	APPLY_FAILED,
};

struct apply_opts {
	bool dry_run;
	const char *procroot;	/* for /proc/irq/N/smp_affinity_list */
};

enum apply_result rule_apply(const struct rule *r, const struct task_info *t,
			     const struct apply_opts *o);
/* Does the task currently have what the rule sets (policy and prio)? */
bool rule_policy_in_place(const struct rule *r, pid_t pid);

/* ---------------------------------------------------------------- log */

enum { LOG_TO_STDERR, LOG_TO_SYSLOG };
void log_init(int where, int verbosity);
void log_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---------------------------------------------------------------- pid set */

struct pidset {
	pid_t *slot;		/* 0 empty, -1 deleted */
	uint32_t *stamp;	/* epoch of the last pidset_add/touch */
	uint32_t epoch;
	size_t cap, n, used;
};
void pidset_init(struct pidset *s);
void pidset_free(struct pidset *s);
bool pidset_has(const struct pidset *s, pid_t p);
int pidset_add(struct pidset *s, pid_t p);
void pidset_del(struct pidset *s, pid_t p);
/*
 * A walk that wants to forget the pids it did not see: pidset_begin(),
 * then pidset_touch() (or pidset_add()) each pid seen, then
 * pidset_sweep() drops the others.  The set is updated in place.
 */
void pidset_begin(struct pidset *s);
bool pidset_touch(struct pidset *s, pid_t p);
void pidset_sweep(struct pidset *s);

#endif
