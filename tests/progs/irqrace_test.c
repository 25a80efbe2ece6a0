// SPDX-License-Identifier: GPL-2.0
/*
 * irqrace_test - does a priority that user space sets on a new interrupt
 * thread, as soon as it sees the thread appear, survive the kernel's own
 * setting of the thread's default policy?
 *
 * Two ways of seeing the thread appear, each the fastest of its kind:
 *   connector  the proc connector's fork event (the thread's comm,
 *              "irq/<N>-<name>", is set at clone and read right away)
 *   comm       a watcher of /proc that scans for a new pid whose comm is
 *              "irq/<N>-..." every 100 us
 * The watcher runs SCHED_FIFO 90 and sets SCHED_FIFO PRIO on the thread the
 * moment it sees it; then the irq is fired and the policy read back.
 *
 * Each set is classified by the policy the watcher read just before it:
 *   late   the thread already had its SCHED_FIFO default: the kernel
 *          must never overwrite such a set (the verdict);
 *   early  the thread was still SCHED_NORMAL, i.e. the kernel had not
 *          given it its default yet: a set there may be lost (printed).
 * Interrupts are requested and freed through rtlab_irqsim.  Exits 0 when no
 * late set was lost, 1 when one was or the watcher missed threads, 2 on
 * bad usage or setup errors.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rtlab/die.h"
#include "rtlab/file.h"
#include "rtlab/opt.h"
#include "rtlab/tap.h"
#include "rtlab/time.h"
#include "irqsim.h"

#define SLOT		4		/* rtlab_irqsim slot of this test */
#define WATCHER_PRIO	90		/* reacts at once, like an RT daemon */
#define SCAN_NS		(100 * RTLAB_NSEC_PER_USEC)
#define WAIT_NS		(5000 * RTLAB_NSEC_PER_MSEC)
#define MAX_MISSED_PCT	10		/* threads the watcher may miss */

enum channel { CH_CONNECTOR, CH_COMM };
static const char *const channel_names[] = { "connector", "comm", NULL };	/* -m, by enum channel */

static enum channel channel = CH_CONNECTOR;
static int cycles = 1000, prio = 77;
static char comm_prefix[32];		/* "irq/<N>-" */
static atomic_int found_pid;		/* set by the watcher, 0 while none */
static atomic_bool found_early;
static atomic_int round_no;		/* cycle the main thread waits for */
static atomic_bool stop;

static bool comm_matches(int pid)
{
	char path[64], comm[32];

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	return rtlab_read_small(path, comm, sizeof(comm)) > 0 &&
	       !strncmp(comm, comm_prefix, strlen(comm_prefix));
}

/* The watcher found @pid: set the priority at once, report to main. */
static void claim(int pid)
{
	struct sched_param sp = { .sched_priority = prio };
	int before = sched_getscheduler(pid);

	if (atomic_load(&found_pid))
		return;		/* this cycle's thread is already set */
	if (sched_setscheduler(pid, SCHED_FIFO, &sp)) {
		if (errno != ESRCH)
			diag("sched_setscheduler(%d): %s", pid, strerror(errno));
		return;
	}
	atomic_store(&found_early, before != SCHED_FIFO);
	atomic_store(&found_pid, pid);
}

static int connector_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	struct {
		struct nlmsghdr nl;
		struct cn_msg cn;
		enum proc_cn_mcast_op op;
	} __attribute__((packed)) msg;
	int fd = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);

	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die("proc connector: %s (CONFIG_PROC_EVENTS, root?)", strerror(errno));
	memset(&msg, 0, sizeof(msg));
	msg.nl.nlmsg_len = sizeof(msg);
	msg.nl.nlmsg_type = NLMSG_DONE;
	msg.nl.nlmsg_pid = (__u32)getpid();
	msg.cn.id.idx = CN_IDX_PROC;
	msg.cn.id.val = CN_VAL_PROC;
	msg.cn.len = sizeof(msg.op);
	msg.op = PROC_CN_MCAST_LISTEN;
	if (send(fd, &msg, sizeof(msg), 0) != (ssize_t)sizeof(msg))
		die("proc connector: listen: %s", strerror(errno));
	return fd;
}

static void *connector_watch(void *arg)
{
	int fd = connector_open();
	char buf[4096] __attribute__((aligned(NLMSG_ALIGNTO)));

	(void)arg;
	while (!atomic_load(&stop)) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct nlmsghdr *nl;
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0)
			continue;	/* ENOBUFS: the cycle counts as missed */
		for (nl = (struct nlmsghdr *)buf; NLMSG_OK(nl, (size_t)n); nl = NLMSG_NEXT(nl, n)) {
			struct cn_msg *cn = NLMSG_DATA(nl);
			struct proc_event *ev = (struct proc_event *)cn->data;

			if (ev->what == PROC_EVENT_FORK && comm_matches(ev->event_data.fork.child_pid))
				claim(ev->event_data.fork.child_pid);
		}
	}
	close(fd);
	return NULL;
}

/* Highest pid in /proc whose comm matches, above @floor; 0 if none. */
static int scan_proc(int floor)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int best = 0;

	if (!d)
		die("/proc: %s", strerror(errno));
	while ((e = readdir(d))) {
		int pid = atoi(e->d_name);

		if (pid > floor && pid > best && comm_matches(pid))
			best = pid;
	}
	closedir(d);
	return best;
}

static void *comm_watch(void *arg)
{
	int floor = *(int *)arg;

	while (!atomic_load(&stop)) {
		struct timespec ts = { 0, SCAN_NS };
		int pid = scan_proc(floor);

		if (pid) {
			claim(pid);
			floor = pid;
		}
		nanosleep(&ts, NULL);
	}
	return NULL;
}

struct tally {
	int early, early_lost, late, late_lost, missed;
};

/* One cycle: request, wait for the watcher's set, fire, read back, free. */
static void one_cycle(int c, struct tally *t)
{
	struct sched_param sp;
	struct slot_status st;
	int64_t end;
	int pid, pol;
	bool early, lost;

	atomic_store(&found_pid, 0);
	atomic_store(&round_no, c);
	if (sim("request %d rq", SLOT))
		die("request of slot %d failed", SLOT);
	end = now_ns() + WAIT_NS;
	while (!(pid = atomic_load(&found_pid)) && now_ns() < end)
		usleep(50);
	if (!pid) {
		t->missed++;
		goto out;
	}
	sim("fire %d", SLOT);
	for (int i = 0; i < 200 && sim_status(SLOT, &st) && !st.handled; i++)
		usleep(100);
	usleep(1000);
	pol = sched_getscheduler(pid);
	lost = pol != SCHED_FIFO || sched_getparam(pid, &sp) || sp.sched_priority != prio;
	early = atomic_load(&found_early);
	if (early) {
		t->early++;
		t->early_lost += lost;
	} else {
		t->late++;
		t->late_lost += lost;
		if (lost)
			diag("cycle %d: thread %d had its default when set, now policy %d prio %d",
			     c, pid, pol, sp.sched_priority);
	}
out:
	sim("free %d", SLOT);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: irqrace_test [-m connector|comm] [-c CYCLES] [-p PRIO]\n"
		   "  sets SCHED_FIFO PRIO on each new irq thread as soon as the proc\n"
		   "  connector (connector) or a /proc scan (comm) shows it; fails if a\n"
		   "  set made after the thread had its default policy is overwritten\n");
}

static void parse_args(int argc, char **argv)
{
	int opt;

	if (argc > 1 && !strcmp(argv[1], "--help"))
		opt_usage_exit(usage, 0);
	while ((opt = getopt(argc, argv, "m:c:p:h")) != -1) {
		switch (opt) {
		case 'm': {
			int ch = opt_choice(channel_names, optarg);

			if (ch < 0)
				die_usage("-m: unknown channel '%s' (connector or comm)", optarg);
			channel = (enum channel)ch;
			break;
		}
		case 'c':
			cycles = sim_cycles_opt(optarg);
			break;
		case 'p':
			prio = atoi(optarg);
			if (prio < 1 || prio > 99 || prio == 50)
				die_usage("-p: priority 1 to 99, not the default 50");
			break;
		case 'h':
			opt_usage_exit(usage, 0);
		default:
			opt_usage_exit(usage, RTLAB_EXIT_ERROR);
		}
	}
	if (optind != argc)
		die_usage("unexpected argument '%s'", argv[optind]);
}

int main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = WATCHER_PRIO };
	struct tally t = { 0 };
	struct slot_status st;
	int floor;
	pthread_t watcher;

	parse_args(argc, argv);
	/* learn the irq number of the slot (its mapping stays across frees) */
	sim("free %d", SLOT);
	if (sim("request %d rq", SLOT) || !sim_status(SLOT, &st))
		die("cannot request slot %d", SLOT);
	snprintf(comm_prefix, sizeof(comm_prefix), "irq/%u-", st.irq);
	floor = scan_proc(0);
	sim("free %d", SLOT);

	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		die("sched_setscheduler(FIFO %d): %s", WATCHER_PRIO, strerror(errno));
	if (pthread_create(&watcher, NULL, channel == CH_CONNECTOR ? connector_watch : comm_watch,
			   &floor))
		die("pthread_create failed");
	usleep(50000);
	for (int c = 1; c <= cycles; c++)
		one_cycle(c, &t);
	atomic_store(&stop, true);
	pthread_join(watcher, NULL);

	diag("%s, %d cycles, irq %u: set before the kernel's default %d times (%d of them lost), "
	     "after it %d times (%d lost); thread not seen in %d cycles",
	     channel == CH_CONNECTOR ? "proc connector fork event" : "/proc comm scan",
	     cycles, st.irq, t.early, t.early_lost, t.late, t.late_lost, t.missed);
	printf("RESULT channel=%s cycles=%d early=%d early_lost=%d late=%d late_lost=%d missed=%d\n",
	       channel_names[channel], cycles, t.early, t.early_lost,
	       t.late, t.late_lost, t.missed);
	return t.late_lost || t.missed * 100 > cycles * MAX_MISSED_PCT ? RTLAB_EXIT_FAIL : 0;
}
