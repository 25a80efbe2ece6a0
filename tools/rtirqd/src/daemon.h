/* SPDX-License-Identifier: GPL-2.0 */
#ifndef RTIRQD_DAEMON_H
#define RTIRQD_DAEMON_H

#include "rtirqd.h"

#include <dirent.h>

enum { SRC_NONE = 0, SRC_SYSFS = 1, SRC_PROCFS = 2, SRC_NETLINK = 4,
       SRC_RESCAN = 8 };

struct opts {
	const char *config;
	bool config_given;
	const char *config_dir;
	bool config_dir_given;
	bool rtctl;		/* --compat=rtctl */
	const char *procroot;
	const char *sysroot;
	pid_t pid;		/* 0: all kernel threads; else threads of pid */
	unsigned int sources;	/* 0: detect */
	int rescan_ms;
	int self_prio;
	bool dry_run;
	bool foreground;
	int verbosity;
	int log_to;
};

struct pending;

/*
 * An irq's /sys/kernel/irq/<N>/threads, kept open and polled on its own
 * (the kernel notifies it on every handler change of that irq), and the
 * pids it listed last.
 */
struct irqwatch {
	int irq;
	int fd;
	unsigned long ino;	/* of the <N> directory: a new one is a new descriptor */
	unsigned int walk;	/* the last directory walk that saw it */
	pid_t *pids;
	size_t npids, cap;
};

/* epoll tag of an irqwatch: this bit plus the irq (other fds: the fd) */
#define EV_IRQWATCH (1ull << 32)

struct daemon {
	const struct opts *o;
	struct ruleset rules;
	struct parse_ctx ctx;
	struct apply_opts aopts;
	struct pidset known;
	struct pending *pend;
	size_t npend;
	bool once;
	int irq_src;
	int irqfd, nlfd, rescanfd, timerfd, sigfd;
	int ep;			/* epoll set of the loop, -1 before it */
	/* sysfs source: the kernel's irq -> threads map, if it has one */
	bool irqmap;
	struct irqwatch **iw;	/* indexed by irq */
	size_t iw_len, niw;
	unsigned int walks;
	unsigned long long gen;	/* /sys/kernel/irq/generation last read */
	bool gen_valid;
	/* thread-list notifications handled since gen was read */
	unsigned long long gen_credit;
	unsigned long long armed_due;	/* what timerfd is set to (0: off) */
	unsigned int stat_examined, stat_applied, stat_failed;
	unsigned int stat_overwritten, stat_irq_events, stat_scans;
	unsigned int stat_walks;
	/* time from an irq notification's wake-up to its threads being set */
	unsigned long long handle_ns[4096];
	unsigned int nhandle;
};

const char *src_name(int s);
/*
 * The directory of the threads rtirqd looks after (/proc, or /proc/PID/task
 * with --pid), its name left in path for messages; NULL with errno set.
 */
DIR *daemon_open_threads(const struct daemon *d, char *path, size_t len);
/* the pid an entry of that directory names; 0 when it names none */
long daemon_entry_pid(const struct dirent *de);
int scan(struct daemon *d, bool force);
int daemon_open_sources(struct daemon *d);
int daemon_loop(struct daemon *d, int (*reload)(struct daemon *));
void daemon_settle(struct daemon *d);
/* One epoll event (tag from epoll_event.data.u64); for the loop and bench. */
int daemon_dispatch(struct daemon *d, uint64_t tag,
		    int (*reload)(struct daemon *));
void daemon_free(struct daemon *d);

#endif
