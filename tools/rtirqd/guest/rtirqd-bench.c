// SPDX-License-Identifier: GPL-2.0
/*
 * rtirqd-bench: guest helper for tests/guest/40-rtirqd.sh and
 * bench/guest/rtirqd-latency.sh.  Repeatedly creates a threaded irq through a
 * control file (the rtlab_irqsim test module, or any command file), finds
 * the new irq thread, and measures the time from the write() that created
 * the irq returning (request_irq() has returned by then) to the moment the
 * thread has the expected policy.  Optionally checks that the policy is
 * still in place hold-ms later (never overwritten), then frees the irq.
 *
 * Prints one summary line and, with --json, appends a JSON object.
 * Exit 0 when every cycle saw the policy in time and kept it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rtlab/file.h"
#include "rtlab/opt.h"

static const char *ctl = "/sys/kernel/debug/rtlab_irqsim/control";
static const char *req_fmt = "request %s";
static const char *free_fmt = "free %s";
static const char *name = "rtirqd-bench";
static const char *label = "run";
static const char *json;
static const char *status;	/* rtlab_irqsim status: irq and request_ns */
static int cycles = 1000, timeout_ms = 5000, hold_ms, poll_us = 20;
static int fifo;	/* run the poller at SCHED_FIFO fifo (0: leave) */
static int want_policy = SCHED_FIFO, want_prio = 77;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void nap_us(int us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000L };

	nanosleep(&ts, NULL);
}

/* true while pid exists and is not a zombie */
static bool alive(pid_t pid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (rtlab_read_small(path, buf, sizeof(buf)) <= 0)
		return false;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

/*
 * rtlab_irqsim's status: "<slot> <irq> <name> <request_ns> <fired>
 * <handled> <start_ns>"; request_ns is CLOCK_MONOTONIC right after
 * request_irq() returned.  0 and fills irq/ns when name is listed.
 */
static int read_status(int *irq, unsigned long long *ns)
{
	char buf[8192], *line, *save = NULL;

	if (rtlab_read_small(status, buf, sizeof(buf)) <= 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char nm[64];
		unsigned int slot, i;
		unsigned long long r;

		if (sscanf(line, "%u %u %63s %llu", &slot, &i, nm, &r) == 4 &&
		    strcmp(nm, name) == 0) {
			*irq = (int)i;
			*ns = r;
			return 0;
		}
	}
	return -1;
}

static int ctl_write(const char *fmt)
{
	char buf[256];
	int fd, n, rc = 0;

	n = snprintf(buf, sizeof(buf), fmt, name);
	fd = open(ctl, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, n) != n)
		rc = -errno;
	close(fd);
	return rc;
}

/* Primary thread of action `name` in /sys/kernel/irq/<irq>/threads:
 * pid, 0 if not listed, -1 if the file does not exist. */
static pid_t threads_file_lookup(const char *irq)
{
	char path[PATH_MAX], buf[4096], *line, *save = NULL;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/kernel/irq/%s/threads", irq);
	n = rtlab_read_small(path, buf, sizeof(buf));
	if (n == -ENOENT)
		return -1;
	if (n <= 0)
		return 0;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		/* "<pid> <action, may contain spaces> primary" */
		char *end, *kind = strrchr(line, ' ');
		long pid = strtol(line, &end, 10);
		size_t nl = strlen(name);

		if (end == line || *end != ' ' || !kind || kind <= end ||
		    strcmp(kind + 1, "primary"))
			continue;
		if ((size_t)(kind - end - 1) == nl &&
		    strncmp(end + 1, name, nl) == 0)
			return (pid_t)pid;
	}
	return 0;
}

/* The kernel's map: /sys/kernel/irq/<N>/threads "<pid> <action> <kind>".
 * The irq of the previous cycle is tried first (irq numbers are reused),
 * so finding the thread costs little of the time being measured. */
static pid_t find_in_sysfs(int *irq_out)
{
	static int last_irq = -1;
	struct dirent *de;
	pid_t found = 0;
	DIR *d;

	if (last_irq >= 0) {
		char irq[16];

		snprintf(irq, sizeof(irq), "%d", last_irq);
		found = threads_file_lookup(irq);
		if (found > 0) {
			*irq_out = last_irq;
			return found;
		}
	}
	d = opendir("/sys/kernel/irq");
	if (!d)
		return -1;
	found = 0;
	while (!found && (de = readdir(d))) {
		pid_t p;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		p = threads_file_lookup(de->d_name);
		if (p < 0) {
			closedir(d);
			return -1;	/* no map in this kernel */
		}
		if (p > 0) {
			found = p;
			*irq_out = last_irq = atoi(de->d_name);
		}
	}
	closedir(d);
	return found;
}

/* Without the map: a kernel thread named irq/<N>-<name, cut to 15>. */
static pid_t find_in_proc(int *irq_out)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	pid_t found = 0;

	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		char path[PATH_MAX], comm[64], *dash;
		ssize_t n;
		int fd;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, comm, sizeof(comm) - 1);
		close(fd);
		if (n <= 0)
			continue;
		comm[n] = 0;
		comm[strcspn(comm, "\n")] = 0;
		if (strncmp(comm, "irq/", 4) || !(dash = strchr(comm, '-')) ||
		    !alive(atoi(de->d_name)))
			continue;
		if (strncmp(dash + 1, name, strlen(dash + 1)) == 0 &&
		    strlen(dash + 1) > 0) {
			found = atoi(de->d_name);
			*irq_out = atoi(comm + 4);
		}
	}
	closedir(d);
	return found;
}

static int has_policy(pid_t pid)
{
	struct sched_param sp;
	int p = sched_getscheduler(pid);

	if (p < 0 || sched_getparam(pid, &sp))
		return -1;
	return (p & ~SCHED_RESET_ON_FORK) == want_policy &&
	       sp.sched_priority == want_prio;
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return (x > y) - (x < y);
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: rtirqd-bench [options]\n"
"  --ctl FILE        control file that creates/frees irqs (default %s)\n"
"  --request FMT     written to create an irq; %%s is the name (default '%s')\n"
"  --free FMT        written to free it (default '%s')\n"
"  --name NAME       action name of the irq (default %s)\n"
"  --expect S:P      expected policy, f:77 / r:10 / o:0 (default f:77)\n"
"  --cycles N        cycles (default 1000)\n"
"  --timeout-ms T    give up on a cycle after T ms (default 5000)\n"
"  --hold-ms H       re-check the policy H ms after it was seen (default 0)\n"
"  --poll-us U       polling period while waiting (default 20)\n"
"  --label L         name of this run in the output\n"
"  --json FILE       append a JSON summary object to FILE\n"
"  --status FILE     rtlab_irqsim status file: take t0 from its request_ns\n"
"                    (CLOCK_MONOTONIC right after request_irq() returned)\n"
"                    and the irq number from it\n"
"  --fifo N          poll at SCHED_FIFO N: on PREEMPT_RT the sleeps of a\n"
"                    SCHED_OTHER task expire in softirq context, which would\n"
"                    add the timer thread's latency to every figure\n",
		ctl, req_fmt, free_fmt, name);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "ctl", 1, NULL, 'c' }, { "request", 1, NULL, 'r' },
		{ "free", 1, NULL, 'f' }, { "name", 1, NULL, 'n' },
		{ "expect", 1, NULL, 'e' }, { "cycles", 1, NULL, 'N' },
		{ "timeout-ms", 1, NULL, 't' }, { "hold-ms", 1, NULL, 'H' },
		{ "poll-us", 1, NULL, 'p' }, { "label", 1, NULL, 'l' },
		{ "json", 1, NULL, 'j' }, { "status", 1, NULL, 's' },
		{ "fifo", 1, NULL, 'F' },
		{ "help", 0, NULL, 'h' }, { 0 }
	};
	unsigned long long *lat;
	int ok = 0, timeouts = 0, overwritten = 0, notfound = 0, errors = 0;
	int c;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'c': ctl = optarg; break;
		case 'r': req_fmt = optarg; break;
		case 'f': free_fmt = optarg; break;
		case 'n': name = optarg; break;
		case 'N': cycles = atoi(optarg); break;
		case 't': timeout_ms = atoi(optarg); break;
		case 'H': hold_ms = atoi(optarg); break;
		case 'p': poll_us = atoi(optarg); break;
		case 'l': label = optarg; break;
		case 'j': json = optarg; break;
		case 's': status = optarg; break;
		case 'F': fifo = atoi(optarg); break;
		case 'e':
			if (strlen(optarg) < 3 || optarg[1] != ':')
				goto bad;
			want_prio = atoi(optarg + 2);
			switch (optarg[0]) {
			case 'f': want_policy = SCHED_FIFO; break;
			case 'r': want_policy = SCHED_RR; break;
			case 'o': want_policy = SCHED_OTHER; break;
			case 'b': want_policy = SCHED_BATCH; break;
			default: goto bad;
			}
			break;
		case 'h':
			opt_usage_exit(usage, 0);
		default:
bad:
			opt_usage_exit(usage, 2);
		}
	}
	if (cycles < 1 || timeout_ms < 1)
		opt_usage_exit(usage, 2);
	if (fifo) {
		struct sched_param sp = { .sched_priority = fifo };

		if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
			perror("rtirqd-bench: --fifo");
			return 2;
		}
	}
	lat = calloc(cycles, sizeof(*lat));
	if (!lat)
		return 1;

	for (int i = 0; i < cycles; i++) {
		unsigned long long t0, t1 = 0, deadline;
		pid_t pid = 0;
		int irq = -1, e;
		bool use_proc = false;

		e = ctl_write(req_fmt);
		t0 = now_ns();
		if (e) {
			fprintf(stderr, "cycle %d: %s: %s\n", i, ctl,
				strerror(-e));
			errors++;
			break;
		}
		deadline = t0 + timeout_ms * 1000000ull;
		if (status) {
			unsigned long long rns;
			char irqs[16];

			/* listed once the write returned (retried for
			 * asynchronous stand-ins of the module) */
			while (read_status(&irq, &rns) &&
			       now_ns() < deadline)
				nap_us(poll_us);
			if (read_status(&irq, &rns)) {
				fprintf(stderr, "cycle %d: %s does not list %s\n",
					i, status, name);
				errors++;
				ctl_write(free_fmt);
				break;
			}
			t0 = rns;
			snprintf(irqs, sizeof(irqs), "%d", irq);
			pid = threads_file_lookup(irqs);
			if (pid < 0)
				pid = 0;
		}
		while (pid <= 0 && now_ns() < deadline) {
			if (!use_proc) {
				pid = find_in_sysfs(&irq);
				if (pid < 0) {
					use_proc = true;
					pid = 0;
				}
			}
			if (use_proc)
				pid = find_in_proc(&irq);
			if (pid > 0)
				break;
			nap_us(poll_us);
		}
		if (pid <= 0) {
			notfound++;
			fprintf(stderr, "cycle %d: no thread for irq action %s\n",
				i, name);
		} else {
			while (now_ns() < deadline) {
				int h = has_policy(pid);

				if (h == 1) {
					t1 = now_ns();
					break;
				}
				if (h < 0)
					break;
				nap_us(poll_us);
			}
			if (!t1) {
				timeouts++;
				fprintf(stderr, "cycle %d: irq %d pid %d never got the policy\n",
					i, irq, pid);
			} else {
				lat[ok++] = t1 - t0;
				if (hold_ms) {
					nap_us(hold_ms * 1000);
					int h = has_policy(pid);

					if (h < 0) {
						errors++;
						fprintf(stderr, "cycle %d: irq %d pid %d exited during the hold\n",
							i, irq, pid);
					} else if (h != 1) {
						overwritten++;
						fprintf(stderr, "cycle %d: irq %d pid %d policy overwritten after %d ms\n",
							i, irq, pid, hold_ms);
					}
				}
			}
		}
		e = ctl_write(free_fmt);
		if (e) {
			fprintf(stderr, "cycle %d: free: %s\n", i, strerror(-e));
			errors++;
			break;
		}
		/* the thread is gone before the next cycle starts */
		deadline = now_ns() + 2000000000ull;
		while (pid > 0 && alive(pid) && now_ns() < deadline)
			nap_us(200);
	}

	qsort(lat, ok, sizeof(*lat), cmp_ull);
	{
		double med = ok ? lat[ok / 2] / 1000.0 : -1;
		double p99 = ok ? lat[(ok * 99) / 100 < ok ? (ok * 99) / 100 : ok - 1] / 1000.0 : -1;
		double mx = ok ? lat[ok - 1] / 1000.0 : -1;
		double mn = ok ? lat[0] / 1000.0 : -1;

		printf("%-10s cycles=%d measured=%d median_us=%.1f p99_us=%.1f max_us=%.1f min_us=%.1f timeouts=%d notfound=%d overwritten=%d errors=%d\n",
		       label, cycles, ok, med, p99, mx, mn, timeouts, notfound,
		       overwritten, errors);
		if (json) {
			FILE *f = fopen(json, "a");

			if (f) {
				fprintf(f, "{\"label\": \"%s\", \"cycles\": %d, \"measured\": %d, \"median_us\": %.1f, \"p99_us\": %.1f, \"max_us\": %.1f, \"min_us\": %.1f, \"timeouts\": %d, \"notfound\": %d, \"overwritten\": %d, \"errors\": %d}\n",
					label, cycles, ok, med, p99, mx, mn,
					timeouts, notfound, overwritten,
					errors);
				fclose(f);
			}
		}
	}
	free(lat);
	return (ok == cycles && !overwritten && !errors) ? 0 : 1;
}
