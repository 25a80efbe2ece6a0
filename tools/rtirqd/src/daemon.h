/* SPDX-License-Identifier: GPL-2.0 */
#ifndef RTIRQD_DAEMON_H
#define RTIRQD_DAEMON_H

#include "rtirqd.h"

enum { SRC_NONE = 0, SRC_SYSFS = 1, SRC_PROCFS = 2, SRC_NETLINK = 4,
       SRC_RESCAN = 8 };

struct opts {
	const char *config;
	bool config_given;
	const char *config_dir;
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

/* an irq's /sys/kernel/irq/<N>/threads, kept open, and its last pids */
struct irqwatch {
	int irq;
	int fd;
	bool seen;		/* in the last directory walk */
	pid_t *pids;
	size_t npids;
};

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
	/* sysfs source: the kernel's irq -> threads map, if it has one */
	bool irqmap;
	struct irqwatch *iw;
	size_t niw;
	char gen[64];
	unsigned int stat_examined, stat_applied, stat_failed;
	unsigned int stat_overwritten, stat_irq_events, stat_scans;
	/* time from an irq notification's wake-up to its threads being set */
	unsigned long long handle_ns[4096];
	unsigned int nhandle;
};

const char *src_name(int s);
int scan(struct daemon *d, bool force);
int daemon_open_sources(struct daemon *d);
int daemon_loop(struct daemon *d, int (*reload)(struct daemon *));
void daemon_settle(struct daemon *d);

#endif
