// SPDX-License-Identifier: GPL-2.0
/*
 * rtirqd: reading tasks from /proc, mapping irq threads to their irq and
 * action, matching rules, and a small pid set.
 */
#include "rtirqd.h"
#include "rtlab/file.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PF_KTHREAD_FLAG 0x00200000u

const char *policy_name(int policy)
{
	switch (policy & ~SCHED_RESET_ON_FORK) {
	case SCHED_OTHER: return "OTHER";
	case SCHED_FIFO: return "FIFO";
	case SCHED_RR: return "RR";
	case SCHED_BATCH: return "BATCH";
	case SCHED_IDLE: return "IDLE";
	case 6: return "DEADLINE";
	default: return "?";
	}
}

void task_match_string(const struct task_info *t, char *buf, size_t len)
{
	if (t->kthread)
		snprintf(buf, len, "[%s]", t->comm);
	else
		snprintf(buf, len, "%s", t->comm);
}

int task_read(const char *procroot, pid_t tgid, pid_t pid,
	      struct task_info *t)
{
	char path[PATH_MAX], buf[1024];
	char *open_p, *close_p, *save = NULL, *tok;
	unsigned long flags = 0;
	ssize_t n;
	int field;

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tgid = tgid;
	t->irq = -1;
	if (tgid == pid)
		snprintf(path, sizeof(path), "%s/%d/stat", procroot, pid);
	else
		snprintf(path, sizeof(path), "%s/%d/task/%d/stat", procroot,
			 tgid, pid);
	n = rtlab_read_small(path, buf, sizeof(buf));
	if (n < 0)
		return -ESRCH;
	open_p = strchr(buf, '(');
	close_p = strrchr(buf, ')');
	if (!open_p || !close_p || close_p < open_p)
		return -ESRCH;
	*close_p = 0;
	snprintf(t->comm, sizeof(t->comm), "%s", open_p + 1);
	/* field 3 (state) is the first token after ')' */
	field = 3;
	for (tok = strtok_r(close_p + 1, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save), field++) {
		if (field == 9)
			flags = strtoul(tok, NULL, 10);
		else if (field == 40)
			t->prio = (int)strtol(tok, NULL, 10);
		else if (field == 41) {
			t->policy = (int)strtol(tok, NULL, 10);
			break;
		}
	}
	if (field != 41)
		return -ESRCH;
	t->kthread = flags & PF_KTHREAD_FLAG;
	return 0;
}

/* Only --show prints the affinity: the event path does not ask for it. */
void task_read_affinity(struct task_info *t)
{
	t->has_affinity = sched_getaffinity(t->pid, sizeof(t->affinity),
					    &t->affinity) == 0;
}

int irq_comm_parse(const char *comm, bool *secondary, char *name, size_t len)
{
	const char *p;
	char *end;
	long irq;

	if (strncmp(comm, "irq/", 4) != 0 || !isdigit((unsigned char)comm[4]))
		return -1;
	irq = strtol(comm + 4, &end, 10);
	if (irq < 0 || irq > INT_MAX)
		return -1;
	*secondary = false;
	p = end;
	if (*p == '-') {
		p++;
		if (strncmp(p, "s-", 2) == 0) {
			*secondary = true;
			p += 2;
		}
	} else if (*p) {
		return -1;
	}
	snprintf(name, len, "%s", p);
	return (int)irq;
}

/*
 * One line of /sys/kernel/irq/<N>/threads: "<pid> <action> <kind>", kind
 * primary or secondary; the action name may contain spaces.
 */
int thread_line_parse(const char *line, struct thread_line *tl)
{
	const char *sp1, *sp2;
	char *end;
	long pid;

	pid = strtol(line, &end, 10);
	if (end == line || *end != ' ' || pid <= 0 || pid > INT_MAX)
		return -1;
	sp1 = end;
	sp2 = strrchr(line, ' ');
	if (sp2 == sp1)
		return -1;
	if (strcmp(sp2 + 1, "primary") == 0)
		tl->secondary = false;
	else if (strcmp(sp2 + 1, "secondary") == 0)
		tl->secondary = true;
	else
		return -1;
	tl->pid = (pid_t)pid;
	tl->action = sp1 + 1;
	tl->action_len = (size_t)(sp2 - sp1 - 1);
	return 0;
}

/* /sys/kernel/irq/<N>/threads: "<pid> <action> <primary|secondary>" */
static int lookup_kernel_map(const char *sysroot, struct task_info *t)
{
	char path[PATH_MAX], buf[8192];
	char *line, *save = NULL;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/kernel/irq/%d/threads", sysroot,
		 t->irq);
	n = rtlab_read_small(path, buf, sizeof(buf));
	if (n < 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct thread_line tl;

		if (thread_line_parse(line, &tl) || tl.pid != t->pid)
			continue;
		snprintf(t->action, sizeof(t->action), "%.*s",
			 (int)tl.action_len, tl.action);
		t->secondary = tl.secondary;
		return 0;
	}
	return -1;
}

/* Fallback: /proc/irq/<N>/ has one directory per action name. */
static void lookup_proc_irq(const char *procroot, struct task_info *t,
			    const char *prefix)
{
	char path[PATH_MAX];
	struct dirent *de;
	size_t plen = strlen(prefix);
	/* comm is cut at 15 characters: only then is the name a prefix */
	bool truncated = strlen(t->comm) >= 15;
	DIR *d;

	snprintf(path, sizeof(path), "%s/irq/%d", procroot, t->irq);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if (truncated ? strncmp(de->d_name, prefix, plen) == 0 :
				strcmp(de->d_name, prefix) == 0) {
			snprintf(t->action, sizeof(t->action), "%s",
				 de->d_name);
			break;
		}
	}
	closedir(d);
}

void task_irq_lookup(const char *sysroot, const char *procroot,
		     struct task_info *t)
{
	char name[COMM_LEN];
	bool sec;
	int irq;

	if (!t->kthread)
		return;
	irq = irq_comm_parse(t->comm, &sec, name, sizeof(name));
	if (irq < 0)
		return;
	t->irq = irq;
	t->secondary = sec;
	if (lookup_kernel_map(sysroot, t) == 0)
		return;
	lookup_proc_irq(procroot, t, name);
	if (!t->action[0])
		snprintf(t->action, sizeof(t->action), "%s", name);
}

static bool irq_in(const struct rule *r, int irq)
{
	for (size_t i = 0; i < r->nirqs; i++)
		if ((unsigned int)irq >= r->irqs[i].lo &&
		    (unsigned int)irq <= r->irqs[i].hi)
			return true;
	return false;
}

/*
 * rtctl hands awk the line "PID [comm]" and matches the second field: the
 * name up to its first blank ("[irq/24-PCIe PME]" is matched as
 * "[irq/24-PCIe").
 */
static bool rtctl_matches(const struct rule *r, const char *ms)
{
	char cut[COMM_LEN + 3];
	size_t n = strcspn(ms, " \t");

	if (!ms[n])
		return regexec(&r->regex, ms, 0, NULL, 0) == 0;
	snprintf(cut, sizeof(cut), "%.*s", (int)n, ms);
	return regexec(&r->regex, cut, 0, NULL, 0) == 0;
}

static bool rule_matches(const struct rule *r, const struct task_info *t,
			 const char *ms)
{
	if (r->kind != RULE_IRQ && r->rtctl)
		return r->has_regex && rtctl_matches(r, ms);
	if (r->kind != RULE_IRQ)
		return r->has_regex && regexec(&r->regex, ms, 0, NULL, 0) == 0;
	if (t->irq < 0)
		return false;
	if (r->nirqs && !irq_in(r, t->irq))
		return false;
	if (r->thread == THREAD_PRIMARY && t->secondary)
		return false;
	if (r->thread == THREAD_SECONDARY && !t->secondary)
		return false;
	if (r->has_action && regexec(&r->action, t->action, 0, NULL, 0))
		return false;
	if (r->has_regex && regexec(&r->regex, ms, 0, NULL, 0))
		return false;
	return true;
}

const struct rule *rules_match(const struct ruleset *rs,
			       const struct task_info *t)
{
	char ms[COMM_LEN + 3];

	task_match_string(t, ms, sizeof(ms));
	for (size_t i = rs->n; i-- > 0; )
		if (rule_matches(&rs->v[i], t, ms))
			return &rs->v[i];
	return NULL;
}

/* ------------------------------------------------------------ pid set */

void pidset_init(struct pidset *s)
{
	memset(s, 0, sizeof(*s));
}

void pidset_free(struct pidset *s)
{
	free(s->slot);
	free(s->stamp);
	pidset_init(s);
}

static size_t hash_pid(pid_t p, size_t cap)
{
	return ((uint32_t)p * 2654435761u) & (cap - 1);
}

/* slot index of p, or -1 */
static long pidset_find(const struct pidset *s, pid_t p)
{
	if (!s->cap)
		return -1;
	for (size_t i = hash_pid(p, s->cap), k = 0; k < s->cap;
	     i = (i + 1) & (s->cap - 1), k++) {
		if (s->slot[i] == p)
			return (long)i;
		if (s->slot[i] == 0)
			return -1;
	}
	return -1;
}

bool pidset_has(const struct pidset *s, pid_t p)
{
	return pidset_find(s, p) >= 0;
}

bool pidset_touch(struct pidset *s, pid_t p)
{
	long i = pidset_find(s, p);

	if (i < 0)
		return false;
	s->stamp[i] = s->epoch;
	return true;
}

void pidset_begin(struct pidset *s)
{
	s->epoch++;
}

void pidset_sweep(struct pidset *s)
{
	for (size_t i = 0; i < s->cap; i++) {
		if (s->slot[i] > 0 && s->stamp[i] != s->epoch) {
			s->slot[i] = -1;
			s->n--;
		}
	}
}

static int pidset_grow(struct pidset *s)
{
	struct pidset n;

	/* rehash; grow only when live entries need it (drops tombstones) */
	n.cap = s->cap ? s->cap : 256;
	while ((s->n + 1) * 4 > n.cap)
		n.cap *= 2;
	n.slot = calloc(n.cap, sizeof(pid_t));
	n.stamp = calloc(n.cap, sizeof(uint32_t));
	n.n = n.used = 0;
	n.epoch = s->epoch;
	if (!n.slot || !n.stamp) {
		free(n.slot);
		free(n.stamp);
		return -1;
	}
	for (size_t i = 0; i < s->cap; i++) {
		if (s->slot[i] > 0) {
			n.epoch = s->stamp[i];
			pidset_add(&n, s->slot[i]);
		}
	}
	n.epoch = s->epoch;
	free(s->slot);
	free(s->stamp);
	*s = n;
	return 0;
}

int pidset_add(struct pidset *s, pid_t p)
{
	size_t i;

	if (p <= 0)
		return -1;
	if (pidset_touch(s, p))
		return 0;
	if ((s->used + 1) * 2 > s->cap && pidset_grow(s))
		return -1;
	for (i = hash_pid(p, s->cap); s->slot[i] > 0;
	     i = (i + 1) & (s->cap - 1))
		;
	if (s->slot[i] == 0)
		s->used++;
	s->slot[i] = p;
	s->stamp[i] = s->epoch;
	s->n++;
	return 0;
}

void pidset_del(struct pidset *s, pid_t p)
{
	if (!s->cap)
		return;
	for (size_t i = hash_pid(p, s->cap), k = 0; k < s->cap;
	     i = (i + 1) & (s->cap - 1), k++) {
		if (s->slot[i] == p) {
			s->slot[i] = -1;
			s->n--;
			return;
		}
		if (s->slot[i] == 0)
			return;
	}
}
