// SPDX-License-Identifier: GPL-2.0
/*
 * rtirqd: discovery of new threads and the event loop.
 *
 * Event sources, best first:
 *  irq:      /sys/kernel/irq/generation (sysfs_notify) or poll() on
 *            /proc/interrupts (rtlab kernel patches);
 *  kthreads: the netlink proc connector (forks of kthreadd);
 *  neither:  a periodic rescan of /proc.
 * On an event only threads not seen before are examined (a pid set of the
 * known ones); a full pass happens at start and after a successful reload.
 */
#include "daemon.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define NAME_RETRY_FIRST_NS 500000ull		/* 0.5 ms, doubling ... */
#define NAME_RETRY_CAP_SHIFT 7			/* ... up to 64 ms */
#define NAME_RETRY_MAX 68			/* about 4 s in all */
#define DEFER_IRQ_NS 50000000ull		/* 50 ms */
static const unsigned long long verify_ns[] = { 20000000ull, 200000000ull };

enum pend_kind { PEND_NAME, PEND_VERIFY };

struct pending {
	pid_t pid, tgid;
	unsigned long long due;
	int tries;
	enum pend_kind kind;
	bool defer;	/* irq thread: wait for the irq notification */
};

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

const char *src_name(int s)
{
	switch (s) {
	case SRC_SYSFS: return "sysfs";
	case SRC_PROCFS: return "procfs";
	case SRC_NETLINK: return "netlink";
	case SRC_RESCAN: return "rescan";
	default: return "none";
	}
}

static int read_generation(struct daemon *d, unsigned long long *gen);

/* ------------------------------------------------------------ pending */

static void pend_add(struct daemon *d, pid_t pid, pid_t tgid,
		     enum pend_kind kind, int tries, unsigned long long due,
		     bool defer)
{
	struct pending *n;

	for (size_t i = 0; i < d->npend; i++) {
		if (d->pend[i].pid == pid && d->pend[i].kind == kind) {
			d->pend[i].due = due;
			d->pend[i].tries = tries;
			d->pend[i].defer = defer;
			return;
		}
	}
	n = realloc(d->pend, (d->npend + 1) * sizeof(*n));
	if (!n) {
		log_err("out of memory");
		return;
	}
	d->pend = n;
	d->pend[d->npend++] = (struct pending){ pid, tgid, due, tries, kind,
						  defer };
}

static void pend_del(struct daemon *d, pid_t pid, enum pend_kind kind)
{
	for (size_t i = 0; i < d->npend; i++) {
		if (d->pend[i].pid == pid && d->pend[i].kind == kind) {
			d->pend[i] = d->pend[--d->npend];
			return;
		}
	}
}

static bool pend_has(const struct daemon *d, pid_t pid, enum pend_kind kind)
{
	for (size_t i = 0; i < d->npend; i++)
		if (d->pend[i].pid == pid && d->pend[i].kind == kind)
			return true;
	return false;
}

static void arm_timer(struct daemon *d)
{
	struct itimerspec its = { 0 };
	unsigned long long min = 0;

	if (d->timerfd < 0)
		return;
	for (size_t i = 0; i < d->npend; i++)
		if (!min || d->pend[i].due < min)
			min = d->pend[i].due;
	/* the event path should not pay a syscall for an unchanged timer */
	if (min == d->armed_due)
		return;
	d->armed_due = min;
	if (min) {
		its.it_value.tv_sec = min / 1000000000ull;
		its.it_value.tv_nsec = min % 1000000000ull;
		if (!its.it_value.tv_sec && !its.it_value.tv_nsec)
			its.it_value.tv_nsec = 1;
	}
	timerfd_settime(d->timerfd, TFD_TIMER_ABSTIME, &its, NULL);
}

/* ------------------------------------------------------------ examine */

/*
 * A new kernel thread is named by its creator after kthreadd forked it
 * (the rename fires no event), and an irq thread sets its default
 * SCHED_FIFO itself when it first runs (after request_irq() returned, in
 * 6.12).  A policy set before either would be lost: wait for both.
 */
static bool thread_ready(const struct daemon *d, const struct task_info *t)
{
	if (t->kthread && t->pid != 2 && strcmp(t->comm, "kthreadd") == 0)
		return false;
	/* a one-shot pass takes irq threads as they are */
	if (!d->once && t->irq >= 0 && t->policy == SCHED_OTHER)
		return false;
	/*
	 * --pid: a new user thread starts with its process's name and is
	 * usually named right after (pthread_setname_np); a rescan would
	 * see the old name, and that rename fires no event we can count on.
	 */
	if (!d->once && !t->kthread && t->pid != t->tgid) {
		struct task_info main_t;

		if (task_read(d->o->procroot, t->tgid, t->tgid, &main_t) == 0 &&
		    strcmp(main_t.comm, t->comm) == 0)
			return false;
	}
	return true;
}

static bool in_scope(const struct daemon *d, const struct task_info *t)
{
	if (d->o->pid)
		return t->tgid == d->o->pid;
	return t->kthread;
}

/*
 * Look at one thread not seen before.  Returns true when it is settled
 * (known from now on), false when it is gone or left pending.
 */
static bool examine(struct daemon *d, pid_t pid, pid_t tgid, bool defer_irq)
{
	struct task_info t;
	const struct rule *r;
	enum apply_result res;

	if (task_read(d->o->procroot, tgid, pid, &t)) {
		pend_del(d, pid, PEND_NAME);
		return false;	/* exited before we looked: not an error */
	}
	if (!in_scope(d, &t)) {
		pend_del(d, pid, PEND_NAME);
		return true;
	}
	task_irq_lookup(d->o->sysroot, d->o->procroot, &t);
	if (!thread_ready(d, &t)) {
		struct pending *p = NULL;

		for (size_t i = 0; i < d->npend; i++)
			if (d->pend[i].pid == pid &&
			    d->pend[i].kind == PEND_NAME)
				p = &d->pend[i];
		if (!p) {
			pend_add(d, pid, tgid, PEND_NAME, 0,
				 now_ns() + NAME_RETRY_FIRST_NS, defer_irq);
			return false;
		}
		if (p->tries < NAME_RETRY_MAX) {
			p->tries++;
			p->due = now_ns() + (NAME_RETRY_FIRST_NS <<
				(p->tries < NAME_RETRY_CAP_SHIFT ?
				 p->tries : NAME_RETRY_CAP_SHIFT));
			return false;
		}
		log_debug("pid %d [%s]: still not ready, setting it anyway",
			  pid, t.comm);
	}
	if (defer_irq && t.irq >= 0) {
		/*
		 * The irq notification comes once the thread is ready; a
		 * policy set before then may be overwritten by the thread's
		 * own default.  Leave it to that event (or this backstop).
		 */
		pend_add(d, pid, tgid, PEND_NAME, NAME_RETRY_MAX,
			 now_ns() + DEFER_IRQ_NS, false);
		return false;
	}
	pend_del(d, pid, PEND_NAME);
	r = rules_match(&d->rules, &t);
	d->stat_examined++;
	if (!r) {
		log_debug("pid %d [%s]: no rule", pid, t.comm);
		return true;
	}
	res = rule_apply(r, &t, &d->aopts);
	if (res == APPLY_GONE)
		return false;
	if (res == APPLY_FAILED)
		d->stat_failed++;
	else
		d->stat_applied++;
	if (t.irq >= 0 && !d->aopts.dry_run && !d->once)
		pend_add(d, pid, tgid, PEND_VERIFY, 0, now_ns() + verify_ns[0],
			 false);
	return true;
}

static void verify(struct daemon *d, struct pending *p)
{
	struct task_info t;
	const struct rule *r;
	pid_t pid = p->pid, tgid = p->tgid;
	int tries = p->tries;

	pend_del(d, pid, PEND_VERIFY);
	if (task_read(d->o->procroot, tgid, pid, &t))
		return;
	task_irq_lookup(d->o->sysroot, d->o->procroot, &t);
	r = rules_match(&d->rules, &t);
	if (!r)
		return;
	if (!rule_policy_in_place(r, pid)) {
		log_info("pid %d [%s]: policy was overwritten after it was set (kernel without the irq-thread priority fix?); setting it again",
			 pid, t.comm);
		d->stat_overwritten++;
		rule_apply(r, &t, &d->aopts);
	}
	if ((size_t)tries + 1 < sizeof(verify_ns) / sizeof(verify_ns[0]))
		pend_add(d, pid, tgid, PEND_VERIFY, tries + 1,
			 now_ns() + verify_ns[tries + 1], false);
}

static void run_pending(struct daemon *d)
{
	unsigned long long now = now_ns();
	bool again = true;

	while (again) {
		again = false;
		for (size_t i = 0; i < d->npend; i++) {
			struct pending p = d->pend[i];

			if (p.due > now)
				continue;
			if (p.kind == PEND_VERIFY) {
				verify(d, &d->pend[i]);
			} else if (examine(d, p.pid, p.tgid, p.defer)) {
				pidset_add(&d->known, p.pid);
			}
			again = true;
			break;
		}
	}
	arm_timer(d);
}

/* ------------------------------------------------------------ scanning */

DIR *daemon_open_threads(const struct daemon *d, char *path, size_t len)
{
	if (d->o->pid)
		snprintf(path, len, "%s/%d/task", d->o->procroot, d->o->pid);
	else
		snprintf(path, len, "%s", d->o->procroot);
	return opendir(path);
}

long daemon_entry_pid(const struct dirent *de)
{
	char *end;
	long pid = strtol(de->d_name, &end, 10);

	return *end || pid <= 0 ? 0 : pid;
}

/*
 * Walk /proc (or /proc/PID/task with --pid), examine pids not known, and
 * forget known pids that are gone.  force: examine everything.
 */
int scan(struct daemon *d, bool force)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *dir;
	int nnew = 0;

	dir = daemon_open_threads(d, path, sizeof(path));
	if (!dir) {
		log_err("cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	/* the known set is updated in place: no new set per scan */
	pidset_begin(&d->known);
	while ((de = readdir(dir))) {
		long pid = daemon_entry_pid(de);

		if (!pid)
			continue;
		if (!force && pidset_touch(&d->known, pid))
			continue;
		nnew++;
		if (examine(d, pid, d->o->pid ? d->o->pid : pid, false))
			pidset_add(&d->known, pid);
		else
			pidset_del(&d->known, pid);
	}
	closedir(dir);
	pidset_sweep(&d->known);
	d->stat_scans++;
	arm_timer(d);
	return nnew;
}

/* ------------------------------------------------------------ sources */

static int open_sysfs_gen(struct daemon *d)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/kernel/irq/generation",
		 d->o->sysroot);
	d->irqfd = open(path, O_RDONLY | O_CLOEXEC);
	if (d->irqfd < 0)
		return -errno;
	if (read_generation(d, &d->gen)) {
		close(d->irqfd);
		d->irqfd = -1;
		return -EIO;
	}
	d->gen_valid = true;
	return 0;
}

/*
 * Does the kernel have the rtlab /proc/interrupts poll?  A procfs file
 * without its own poll() reports the default mask (readable, writable),
 * and the patched one reports the same plus EPOLLPRI after a change, so
 * an idle poll cannot tell them apart.  The patch's function name in
 * /proc/kallsyms can.
 */
static bool kernel_has_symbol(const char *procroot, const char *sym)
{
	char path[PATH_MAX], line[512];
	size_t sl = strlen(sym);
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/kallsyms", procroot);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		/* "<addr> <type> <name>[\t[module]]" */
		char *name = strchr(line, ' ');

		if (name)
			name = strchr(name + 1, ' ');
		if (name && strncmp(name + 1, sym, sl) == 0 &&
		    (name[1 + sl] == '\n' || name[1 + sl] == '\t'))
			found = true;
	}
	fclose(f);
	return found;
}

static int open_procfs_poll(struct daemon *d, bool forced)
{
	char path[PATH_MAX];

	if (!kernel_has_symbol(d->o->procroot, "irq_handlers_poll")) {
		if (!forced)
			return -EOPNOTSUPP;
		log_warn("cannot confirm that %s/interrupts is pollable (no irq_handlers_poll in kallsyms); using it as asked",
			 d->o->procroot);
	}
	snprintf(path, sizeof(path), "%s/interrupts", d->o->procroot);
	d->irqfd = open(path, O_RDONLY | O_CLOEXEC);
	if (d->irqfd < 0)
		return -errno;
	return 0;
}

static int open_netlink(struct daemon *d)
{
	struct sockaddr_nl sa = {
		.nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC,
	};
	struct {
		struct nlmsghdr nh;
		struct cn_msg cn;
		enum proc_cn_mcast_op op;
	} __attribute__((packed)) msg;
	int fd, rcvbuf = 1 << 20;

	fd = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    NETLINK_CONNECTOR);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		goto fail;
	memset(&msg, 0, sizeof(msg));
	msg.nh.nlmsg_len = sizeof(msg);
	msg.nh.nlmsg_type = NLMSG_DONE;
	msg.nh.nlmsg_pid = getpid();
	msg.cn.id.idx = CN_IDX_PROC;
	msg.cn.id.val = CN_VAL_PROC;
	msg.cn.len = sizeof(enum proc_cn_mcast_op);
	msg.op = PROC_CN_MCAST_LISTEN;
	if (send(fd, &msg, sizeof(msg), 0) != (ssize_t)sizeof(msg))
		goto fail;
	d->nlfd = fd;
	return 0;
fail:
	{
		int e = errno;

		close(fd);
		return -e;
	}
}

static void handle_netlink(struct daemon *d)
{
	char buf[16384] __attribute__((aligned(8)));

	for (;;) {
		ssize_t n = recv(d->nlfd, buf, sizeof(buf), 0);
		struct nlmsghdr *nh;

		if (n < 0) {
			if (errno == ENOBUFS) {
				log_warn("proc connector overrun: rescanning");
				scan(d, false);
				continue;
			}
			break;	/* EAGAIN: all read */
		}
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (size_t)n);
		     nh = NLMSG_NEXT(nh, n)) {
			struct cn_msg *cn = NLMSG_DATA(nh);
			struct proc_event evb, *ev = &evb;
			size_t len;

			if (nh->nlmsg_type != NLMSG_DONE ||
			    cn->id.idx != CN_IDX_PROC ||
			    cn->id.val != CN_VAL_PROC)
				continue;
			/* cn->data is only 4-byte aligned: copy it out */
			len = cn->len < sizeof(evb) ? cn->len : sizeof(evb);
			memset(&evb, 0, sizeof(evb));
			memcpy(&evb, cn->data, len);
			switch (ev->what) {
			case PROC_EVENT_FORK: {
				pid_t ptgid = ev->event_data.fork.parent_tgid;
				pid_t child = ev->event_data.fork.child_pid;
				pid_t ctgid = ev->event_data.fork.child_tgid;

				if (d->o->pid ? ctgid != d->o->pid : ptgid != 2)
					break;
				pidset_del(&d->known, child);
				if (examine(d, child, ctgid,
					    d->irq_src != SRC_NONE))
					pidset_add(&d->known, child);
				break;
			}
			case PROC_EVENT_COMM: {
				pid_t pid = ev->event_data.comm.process_pid;
				pid_t tgid = ev->event_data.comm.process_tgid;

				if (!d->o->pid || tgid != d->o->pid)
					break;
				/* a renamed user thread is looked at again */
				pidset_del(&d->known, pid);
				if (examine(d, pid, tgid, false))
					pidset_add(&d->known, pid);
				break;
			}
			case PROC_EVENT_EXIT:
				pidset_del(&d->known,
					   ev->event_data.exit.process_pid);
				break;
			default:
				break;
			}
		}
	}
	arm_timer(d);
}

static bool pid_in(const pid_t *v, size_t n, pid_t p)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == p)
			return true;
	return false;
}

/*
 * A thread the kernel lists in /sys/kernel/irq/<N>/threads: the line
 * gives irq, action and kind, and the kernel lists a thread only once it
 * has set its default policy (patches 0001, 0003), so neither /proc nor a
 * later re-check is needed.  The name is built as /proc shows a kernel
 * thread's: "irq/N-action" or "irq/N-s-action", cut to COMM_LEN - 1.
 */
static void apply_listed(struct daemon *d, int irq, const struct thread_line *tl)
{
	struct task_info t;
	const struct rule *r;
	enum apply_result res;

	memset(&t, 0, sizeof(t));
	t.pid = t.tgid = tl->pid;
	t.kthread = true;
	t.irq = irq;
	t.secondary = tl->secondary;
	t.policy = SCHED_FIFO;
	snprintf(t.action, sizeof(t.action), "%.*s", (int)tl->action_len,
		 tl->action);
	{
		char full[COMM_LEN + ACTION_LEN + 16];

		snprintf(full, sizeof(full), "irq/%d-%s%s", irq,
			 tl->secondary ? "s-" : "", t.action);
		snprintf(t.comm, sizeof(t.comm), "%.*s",
			 (int)sizeof(t.comm) - 1, full);
	}
	pidset_add(&d->known, tl->pid);
	if (d->npend)
		pend_del(d, tl->pid, PEND_NAME);
	d->stat_examined++;
	r = rules_match(&d->rules, &t);
	if (!r) {
		log_debug("pid %d [%s]: no rule", t.pid, t.comm);
		return;
	}
	res = rule_apply(r, &t, &d->aopts);
	if (res == APPLY_FAILED)
		d->stat_failed++;
	else if (res != APPLY_GONE)
		d->stat_applied++;
}

/* A pid the list no longer has: its irq was freed. */
static void forget_pid(struct daemon *d, pid_t pid)
{
	pidset_del(&d->known, pid);
	if (d->npend) {
		pend_del(d, pid, PEND_NAME);
		pend_del(d, pid, PEND_VERIFY);
	}
}

/*
 * Read one irq's thread list (from offset 0, which also acknowledges the
 * notification) and, with examine_new, set the pids it did not list last
 * time and forget the ones it no longer lists.  The lists are a few lines,
 * so the work does not depend on the number of irqs or threads.  -1 when
 * the file is gone (the descriptor was freed).
 */
static int irqwatch_read(struct daemon *d, struct irqwatch *w, bool examine_new)
{
	char buf[8192], *line, *save = NULL;
	pid_t old[64], *oldp = old;
	size_t nold = w->npids;
	ssize_t n;

	n = pread(w->fd, buf, sizeof(buf) - 1, 0);
	if (n < 0)
		return -1;
	buf[n] = 0;
	if (nold > sizeof(old) / sizeof(old[0])) {
		oldp = malloc(nold * sizeof(*oldp));
		if (!oldp)
			return 0;
	}
	if (nold)
		memcpy(oldp, w->pids, nold * sizeof(*oldp));
	w->npids = 0;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct thread_line tl;

		if (thread_line_parse(line, &tl))
			continue;
		if (w->npids == w->cap) {
			size_t nc = w->cap ? w->cap * 2 : 4;
			pid_t *t = realloc(w->pids, nc * sizeof(*t));

			if (!t)
				break;
			w->pids = t;
			w->cap = nc;
		}
		w->pids[w->npids++] = tl.pid;
		/*
		 * New in the list (and not set already by a /proc scan), or
		 * seen first through /proc or the proc connector and still
		 * waited for: the kernel says it is ready.
		 */
		if (examine_new &&
		    ((!pid_in(oldp, nold, tl.pid) &&
		      !pidset_has(&d->known, tl.pid)) ||
		     (d->npend && pend_has(d, tl.pid, PEND_NAME))))
			apply_listed(d, w->irq, &tl);
	}
	if (examine_new)
		for (size_t i = 0; i < nold; i++)
			if (!pid_in(w->pids, w->npids, oldp[i]))
				forget_pid(d, oldp[i]);
	if (oldp != old)
		free(oldp);
	return 0;
}

static void irqwatch_close(struct daemon *d, struct irqwatch *w)
{
	if (w->irq >= 0 && (size_t)w->irq < d->iw_len)
		d->iw[w->irq] = NULL;
	close(w->fd);	/* also leaves the epoll set */
	free(w->pids);
	free(w);
	d->niw--;
}

static struct irqwatch *irqwatch_get(const struct daemon *d, long irq)
{
	return irq >= 0 && (size_t)irq < d->iw_len ? d->iw[irq] : NULL;
}

/* Open and poll irq's thread list; -errno. */
static int irqwatch_open(struct daemon *d, long irq, unsigned long ino,
			 bool examine_new)
{
	char path[PATH_MAX];
	struct irqwatch *w;

	if ((size_t)irq >= d->iw_len) {
		size_t nl = d->iw_len ? d->iw_len : 64;
		struct irqwatch **t;

		while (nl <= (size_t)irq)
			nl *= 2;
		t = realloc(d->iw, nl * sizeof(*t));
		if (!t)
			return -ENOMEM;
		memset(t + d->iw_len, 0, (nl - d->iw_len) * sizeof(*t));
		d->iw = t;
		d->iw_len = nl;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/kernel/irq/%ld/threads",
		 d->o->sysroot, irq);
	w->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (w->fd < 0) {
		int e = -errno;

		free(w);
		return e;
	}
	w->irq = (int)irq;
	w->ino = ino;
	w->walk = d->walks;
	d->iw[irq] = w;
	d->niw++;
	if (d->ep >= 0) {
		struct epoll_event ev = {
			.events = EPOLLPRI | EPOLLERR,
			.data.u64 = EV_IRQWATCH | (uint64_t)irq,
		};

		/* a regular file (a fake tree) cannot be polled: read only */
		epoll_ctl(d->ep, EPOLL_CTL_ADD, w->fd, &ev);
	}
	irqwatch_read(d, w, examine_new);
	return 0;
}

/*
 * Walk /sys/kernel/irq: open the thread list of each irq not watched yet
 * (or whose directory is a new one: the descriptor was freed and
 * allocated again) and close the lists of irqs that are gone.  Watched
 * lists are not read: their own notifications cover them.  Needed only
 * when the generation moved more than the thread lists were notified (a
 * new descriptor).  Returns -1 if the kernel has no thread lists.
 */
static int irqwatch_walk(struct daemon *d, bool examine_new)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/kernel/irq", d->o->sysroot);
	dir = opendir(path);
	if (!dir)
		return -1;
	d->walks++;
	d->stat_walks++;
	while ((de = readdir(dir))) {
		struct irqwatch *w;
		char *end;
		long irq = strtol(de->d_name, &end, 10);

		if (*end || irq < 0 || end == de->d_name || irq > INT_MAX)
			continue;
		w = irqwatch_get(d, irq);
		if (w && w->ino == (unsigned long)de->d_ino) {
			w->walk = d->walks;
			continue;
		}
		if (w)
			irqwatch_close(d, w);
		if (irqwatch_open(d, irq, (unsigned long)de->d_ino,
				  examine_new) == -ENOENT && d->niw == 0) {
			closedir(dir);
			return -1;	/* no thread lists */
		}
	}
	closedir(dir);
	/* descriptors that are gone */
	for (size_t i = 0; i < d->iw_len; i++)
		if (d->iw[i] && d->iw[i]->walk != d->walks)
			irqwatch_close(d, d->iw[i]);
	return 0;
}

/* An irq's thread list was notified: one pread, constant work. */
static void handle_irqwatch(struct daemon *d, int irq)
{
	struct irqwatch *w = irqwatch_get(d, irq);

	if (!w)
		return;
	d->gen_credit++;
	if (irqwatch_read(d, w, true))
		irqwatch_close(d, w);	/* freed: the generation walk reopens */
}

static int read_generation(struct daemon *d, unsigned long long *gen)
{
	char buf[64], *end;
	ssize_t n;

	/* reading from the start re-arms sysfs_notify */
	n = pread(d->irqfd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	*gen = strtoull(buf, &end, 10);
	return end == buf ? -1 : 0;
}

/*
 * Thread-list notifications pending but not yet handled (the generation
 * is notified after the list, and epoll may report them apart): take them
 * now, without waiting, so that they count before a walk is decided on.
 * Other events stay pending (level-triggered) for the loop.
 */
static void take_pending_lists(struct daemon *d)
{
	struct epoll_event evs[16];
	int n;

	if (d->ep < 0)
		return;
	n = epoll_wait(d->ep, evs, 16, 0);
	for (int i = 0; i < n; i++)
		if (evs[i].data.u64 & EV_IRQWATCH)
			handle_irqwatch(d, (int)(evs[i].data.u64 &
						 ~EV_IRQWATCH));
}

/*
 * The generation moved.  Each handler change moves it by one and notifies
 * the irq's own thread list, which handle_irqwatch() counted; only a
 * change no list accounts for (a new descriptor, not watched yet) needs a
 * walk of /sys/kernel/irq.
 */
static void handle_generation(struct daemon *d)
{
	unsigned long long gen, delta;

	if (read_generation(d, &gen))
		return;
	if (d->gen_valid && gen == d->gen)
		return;
	delta = d->gen_valid ? gen - d->gen : ~0ull;
	if (d->gen_credit < delta) {
		take_pending_lists(d);
		/* a list read above may show a change the new gen has too */
		if (read_generation(d, &gen) == 0 && d->gen_valid)
			delta = gen - d->gen;
	}
	if (d->gen_credit >= delta) {
		d->gen_credit -= delta;
	} else {
		irqwatch_walk(d, true);
		d->gen_credit = 0;
	}
	d->gen = gen;
	d->gen_valid = true;
}

static void handle_irq_event(struct daemon *d)
{
	char buf[64];
	unsigned int applied = d->stat_applied;
	unsigned long long t0;

	d->stat_irq_events++;
	if (d->irq_src == SRC_SYSFS && d->irqmap) {
		handle_generation(d);
		return;
	}
	if (d->irq_src == SRC_SYSFS) {
		unsigned long long gen;

		if (read_generation(d, &gen) ||
		    (d->gen_valid && gen == d->gen))
			return;
		d->gen = gen;
		d->gen_valid = true;
	} else if (lseek(d->irqfd, 0, SEEK_SET) == 0 &&
		   read(d->irqfd, buf, sizeof(buf)) < 0) {
		/*
		 * A read that starts at offset 0 acknowledges the changes so
		 * far (a change during it is reported by the next poll); the
		 * first bytes are enough.
		 */
		return;
	}
	t0 = now_ns();
	scan(d, false);
	if (d->stat_applied != applied)
		log_debug("irq event: found and set in %llu us (scan of /proc)",
			  (now_ns() - t0) / 1000);
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return (x > y) - (x < y);
}

/* Median and max of the irq events that set a thread (last 4096). */
static void log_handle_times(struct daemon *d)
{
	size_t cap = sizeof(d->handle_ns) / sizeof(d->handle_ns[0]);
	size_t n = d->nhandle < cap ? d->nhandle : cap;

	if (!n)
		return;
	qsort(d->handle_ns, n, sizeof(d->handle_ns[0]), cmp_ull);
	log_info("irq event to policy set, inside rtirqd: median %llu us, max %llu us over %zu events",
		 d->handle_ns[n / 2] / 1000, d->handle_ns[n - 1] / 1000, n);
}

/* ------------------------------------------------------------ setup */

static int epoll_add(int ep, int fd, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.u64 = (uint64_t)fd };

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

int daemon_open_sources(struct daemon *d)
{
	unsigned int want = d->o->sources;
	bool autodetect = want == 0;
	int e;

	d->irqfd = d->nlfd = d->rescanfd = -1;
	d->irq_src = SRC_NONE;
	if (autodetect || (want & SRC_SYSFS)) {
		e = open_sysfs_gen(d);
		if (e == 0) {
			d->irq_src = SRC_SYSFS;
		} else if (!autodetect) {
			log_err("event source sysfs: %s/kernel/irq/generation: %s",
				d->o->sysroot, strerror(-e));
			return -1;
		}
	}
	if (d->irq_src == SRC_NONE && (autodetect || (want & SRC_PROCFS))) {
		e = open_procfs_poll(d, !autodetect);
		if (e == 0) {
			d->irq_src = SRC_PROCFS;
		} else if (!autodetect) {
			log_err("event source procfs: %s/interrupts: %s",
				d->o->procroot, strerror(-e));
			return -1;
		}
	}
	if (autodetect || (want & SRC_NETLINK)) {
		e = open_netlink(d);
		if (e && !autodetect) {
			log_err("event source netlink: proc connector: %s",
				strerror(-e));
			return -1;
		}
		if (e)
			log_warn("proc connector unavailable (%s): falling back to a rescan of /proc every %d ms for other kernel threads",
				 strerror(-e), d->o->rescan_ms);
	}
	if (autodetect && d->irq_src == SRC_NONE)
		log_warn("this kernel has no irq change notification (no %s/kernel/irq/generation, no poll on %s/interrupts): falling back to %s",
			 d->o->sysroot, d->o->procroot,
			 d->nlfd >= 0 ? "the proc connector" :
			 "a rescan of /proc");
	if ((autodetect && d->nlfd < 0) || (want & SRC_RESCAN)) {
		struct itimerspec its;

		d->rescanfd = timerfd_create(CLOCK_MONOTONIC,
					     TFD_CLOEXEC | TFD_NONBLOCK);
		if (d->rescanfd < 0)
			return -1;
		its.it_value.tv_sec = d->o->rescan_ms / 1000;
		its.it_value.tv_nsec = (d->o->rescan_ms % 1000) * 1000000L;
		its.it_interval = its.it_value;
		timerfd_settime(d->rescanfd, 0, &its, NULL);
	}
	return 0;
}

static void drain_timer(int fd)
{
	uint64_t x;

	if (read(fd, &x, sizeof(x)) < 0 && errno != EAGAIN)
		log_warn("timer: %s", strerror(errno));
}

static void log_exit(struct daemon *d, unsigned int signo)
{
	log_info("exiting on signal %u: %u threads set, %u failed, %u re-set after overwrite, %u irq events, %u scans, %u walks of /sys/kernel/irq",
		 signo, d->stat_applied, d->stat_failed, d->stat_overwritten,
		 d->stat_irq_events, d->stat_scans, d->stat_walks);
	log_handle_times(d);
}

/* Signals: 1 to exit (SIGTERM, SIGINT), 0 otherwise. */
static int handle_signals(struct daemon *d, int (*reload)(struct daemon *))
{
	struct signalfd_siginfo si;

	while (read(d->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo != SIGHUP) {
			log_exit(d, si.ssi_signo);
			return 1;
		}
		if (reload && reload(d) == 0) {
			scan(d, true);
			run_pending(d);
		}
	}
	return 0;
}

static void record_handle_time(struct daemon *d, unsigned long long t0)
{
	d->handle_ns[d->nhandle++ % (sizeof(d->handle_ns) /
				     sizeof(d->handle_ns[0]))] = now_ns() - t0;
}

int daemon_dispatch(struct daemon *d, uint64_t tag,
		    int (*reload)(struct daemon *))
{
	unsigned int applied = d->stat_applied;
	unsigned long long t0 = now_ns();
	int fd = (int)tag;

	if (tag & EV_IRQWATCH) {
		handle_irqwatch(d, (int)(tag & ~EV_IRQWATCH));
	} else if (fd == d->irqfd) {
		handle_irq_event(d);
	} else if (fd == d->nlfd) {
		handle_netlink(d);
	} else if (fd == d->timerfd) {
		drain_timer(fd);
		run_pending(d);
		return 0;
	} else if (fd == d->rescanfd) {
		drain_timer(fd);
		scan(d, false);
		return 0;
	} else if (fd == d->sigfd) {
		return handle_signals(d, reload);
	}
	if (d->npend)
		run_pending(d);
	if (d->stat_applied != applied)
		record_handle_time(d, t0);
	return 0;
}

int daemon_loop(struct daemon *d, int (*reload)(struct daemon *))
{
	struct epoll_event evs[16];
	sigset_t ss;

	sigemptyset(&ss);
	sigaddset(&ss, SIGHUP);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	d->sigfd = signalfd(-1, &ss, SFD_CLOEXEC | SFD_NONBLOCK);
	d->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	d->ep = epoll_create1(EPOLL_CLOEXEC);
	if (d->sigfd < 0 || d->timerfd < 0 || d->ep < 0) {
		log_err("cannot set up the event loop: %s", strerror(errno));
		return 1;
	}
	epoll_add(d->ep, d->sigfd, EPOLLIN);
	epoll_add(d->ep, d->timerfd, EPOLLIN);
	if (d->irqfd >= 0 && epoll_add(d->ep, d->irqfd, EPOLLPRI | EPOLLERR)) {
		log_err("cannot poll the irq notification: %s",
			strerror(errno));
		return 1;
	}
	if (d->nlfd >= 0)
		epoll_add(d->ep, d->nlfd, EPOLLIN);
	if (d->rescanfd >= 0)
		epoll_add(d->ep, d->rescanfd, EPOLLIN);

	/* the kernel's irq -> threads map: open and poll every list */
	if (d->irq_src == SRC_SYSFS && !d->o->pid) {
		struct rlimit rl;

		/* one open list per irq: thousands on a large machine */
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
		    rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
		d->irqmap = irqwatch_walk(d, false) == 0;
	}
	/* full pass over what exists now */
	scan(d, true);
	run_pending(d);
	log_info("ready: irq threads via %s%s, other kernel threads via %s; %zu rules; %u threads applied",
		 src_name(d->irq_src), d->irqmap ? " and the kernel's irq thread lists" : "",
		 d->nlfd >= 0 ? "netlink" : d->rescanfd >= 0 ? "rescan" : "none",
		 d->rules.n, d->stat_applied);

	for (;;) {
		int n = epoll_wait(d->ep, evs, 16, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			log_err("epoll_wait: %s", strerror(errno));
			return 1;
		}
		/*
		 * Thread lists first: the generation event of the same change
		 * then finds them counted and needs no walk.
		 */
		for (int pass = 0; pass < 2; pass++) {
			for (int i = 0; i < n; i++) {
				bool list = evs[i].data.u64 & EV_IRQWATCH;

				if (list != (pass == 0))
					continue;
				if (daemon_dispatch(d, evs[i].data.u64, reload))
					return 0;
			}
		}
	}
}

void daemon_free(struct daemon *d)
{
	for (size_t i = 0; i < d->iw_len; i++)
		if (d->iw[i])
			irqwatch_close(d, d->iw[i]);
	free(d->iw);
	d->iw = NULL;
	d->iw_len = 0;
	ruleset_free(&d->rules);
	pidset_free(&d->known);
	free(d->pend);
	d->pend = NULL;
	d->npend = 0;
}

/* exported for --once */
void daemon_settle(struct daemon *d)
{
	unsigned long long until = now_ns() + 2500000000ull;

	/* threads still being named when we looked: wait for them a bit */
	while (d->npend && now_ns() < until) {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
		run_pending(d);
	}
}
