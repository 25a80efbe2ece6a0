// SPDX-License-Identifier: GPL-2.0
/* rtirqd: apply a rule to one thread. */
#include "rtirqd.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int rule_policy(const struct rule *r)
{
	switch (r->sched) {
	case 'f': return SCHED_FIFO;
	case 'r': return SCHED_RR;
	case 'o': return SCHED_OTHER;
	case 'b': return SCHED_BATCH;
	default: return -1;
	}
}

bool rule_policy_in_place(const struct rule *r, pid_t pid)
{
	struct sched_param sp;
	int pol = rule_policy(r);
	int cur;

	if (pol < 0)
		return true;
	cur = sched_getscheduler(pid);
	if (cur < 0 || sched_getparam(pid, &sp))
		return errno == ESRCH;	/* gone: nothing to fix */
	return (cur & ~SCHED_RESET_ON_FORK) == pol &&
	       sp.sched_priority == (r->prio == PRIO_LEAVE ? 0 : r->prio);
}

static int write_irq_affinity(const char *procroot, int irq,
			      const cpu_set_t *set)
{
	char path[PATH_MAX], list[1024];
	size_t len;
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/irq/%d/smp_affinity_list", procroot,
		 irq);
	cpulist_format(set, list, sizeof(list) - 1);
	len = strlen(list);
	list[len++] = '\n';
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, list, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	close(fd);
	return err;
}

enum apply_result rule_apply(const struct rule *r, const struct task_info *t,
			     const struct apply_opts *o)
{
	char cpus[256] = "", what[512];
	int pol = rule_policy(r);
	enum apply_result res = APPLY_OK;

	if (r->has_affinity)
		cpulist_format(&r->affinity, cpus, sizeof(cpus));
	if (pol >= 0)
		snprintf(what, sizeof(what), "%s %d", policy_name(pol),
			 r->prio == PRIO_LEAVE ? 0 : r->prio);
	else
		snprintf(what, sizeof(what), "policy kept");
	if (r->has_affinity)
		snprintf(what + strlen(what), sizeof(what) - strlen(what),
			 ", cpus %s%s", cpus,
			 r->kind == RULE_IRQ && r->irq_affinity && t->irq >= 0 ?
			 " (thread and irq)" : "");
	if (pol < 0 && !r->has_affinity)
		return APPLY_UNCHANGED;

	if (o->dry_run) {
		log_info("would set pid %d [%s] %s (rule '%s' %s:%d)", t->pid,
			 t->comm, what, r->name, r->file, r->line);
		return APPLY_OK;
	}
	if (pol >= 0) {
		struct sched_param sp = {
			.sched_priority = r->prio == PRIO_LEAVE ? 0 : r->prio,
		};

		if (sched_setscheduler(t->pid, pol, &sp)) {
			if (errno == ESRCH)
				return APPLY_GONE;
			log_err("pid %d [%s]: cannot set %s %d: %s", t->pid,
				t->comm, policy_name(pol), sp.sched_priority,
				strerror(errno));
			return APPLY_FAILED;
		}
	}
	if (r->kind == RULE_IRQ && r->irq_affinity && t->irq >= 0) {
		int e = write_irq_affinity(o->procroot, t->irq, &r->affinity);

		if (e == -ENOENT) {
			return APPLY_GONE;
		} else if (e) {
			log_warn("irq %d: cannot set smp_affinity_list %s: %s",
				 t->irq, cpus, strerror(-e));
			res = APPLY_PARTIAL;
		}
	}
	if (r->has_affinity &&
	    sched_setaffinity(t->pid, sizeof(r->affinity), &r->affinity)) {
		if (errno == ESRCH)
			return APPLY_GONE;
		if (errno == EINVAL) {
			/* per-CPU kthread (PF_NO_SETAFFINITY) */
			log_info("pid %d [%s]: affinity is fixed by the kernel, kept",
				 t->pid, t->comm);
			res = APPLY_PARTIAL;
		} else {
			log_err("pid %d [%s]: cannot set affinity %s: %s",
				t->pid, t->comm, cpus, strerror(errno));
			return APPLY_FAILED;
		}
	}
	log_info("set pid %d [%s] %s (rule '%s' %s:%d)", t->pid, t->comm, what,
		 r->name, r->file, r->line);
	return res;
}
