// SPDX-License-Identifier: GPL-2.0
/*
 * irqwatch_test - guest-side checks and benchmark of the rtlab interfaces
 * that let user space follow interrupt threads as they come and go:
 * poll() on /proc/interrupts, /sys/kernel/irq/generation and
 * /sys/kernel/irq/<irq>/threads.  Interrupts are requested and freed
 * through the rtlab_irqsim test module (kernel/modules/rtlab_irqsim).
 *
 * Every command prints "# " diagnostics and exits 0 when what it checks
 * holds, 1 when it does not, 2 on bad usage or a setup error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rtlab/json.h"
#include "rtlab/die.h"
#include "rtlab/opt.h"
#include "rtlab/tap.h"
#include "rtlab/time.h"
#include "irqsim.h"

#define PROC_IRQS	"/proc/interrupts"
#define SYS_GEN		"/sys/kernel/irq/generation"
#define WAIT_MS		5000	/* longest wait for a wake-up or a thread */
#define WAIT_NS		(WAIT_MS * RTLAB_NSEC_PER_MSEC)
#define MAX_POLLERS	1000

/* -s: the file a poller waits on */
static const char *const source_names[] = { "proc", "sysfs", NULL };
static const char *const source_paths[] = { PROC_IRQS, SYS_GEN };
static const char *source_path = PROC_IRQS;
static bool use_epoll;
static int npollers = 1, cycles = 100, prio = 77;
static const char *json_out;

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Read a whole file from offset 0 (acknowledges a notification). */
static int ack(int fd)
{
	static __thread char buf[65536];
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	do {
		n = read(fd, buf, sizeof(buf));
	} while (n > 0);
	return n < 0 ? -errno : 0;
}

static int open_source(void)
{
	int fd = open(source_path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die("%s: %s", source_path, strerror(errno));
	if (ack(fd))
		die("%s: read: %s", source_path, strerror(errno));
	return fd;
}

/*
 * A waiter on one open file of the source, through poll() or its own
 * epoll instance.  Returns 1 on a change (POLLPRI), 0 on time-out.
 */
struct waiter {
	int fd, epfd;
};

static void waiter_open(struct waiter *w)
{
	w->fd = open_source();
	w->epfd = -1;
	if (use_epoll) {
		struct epoll_event ev = { .events = EPOLLPRI, .data.fd = w->fd };

		w->epfd = epoll_create1(EPOLL_CLOEXEC);
		if (w->epfd < 0 || epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->fd, &ev))
			die("epoll: %s", strerror(errno));
	}
}

static void waiter_close(struct waiter *w)
{
	if (w->epfd >= 0)
		close(w->epfd);
	close(w->fd);
}

static int waiter_wait(struct waiter *w, int timeout_ms)
{
	if (use_epoll) {
		struct epoll_event ev;
		int n = epoll_wait(w->epfd, &ev, 1, timeout_ms);

		if (n < 0)
			return errno == EINTR ? 0 : -errno;
		return n > 0 && (ev.events & EPOLLPRI);
	} else {
		struct pollfd p = { .fd = w->fd, .events = POLLPRI };
		int n = poll(&p, 1, timeout_ms);

		if (n < 0)
			return errno == EINTR ? 0 : -errno;
		if (n > 0 && (p.revents & POLLPRI) && !(p.revents & POLLERR))
			return -EPROTO;	/* the documented signal is PRI|ERR */
		return n > 0 && (p.revents & POLLPRI);
	}
}

static void set_fifo(int p)
{
	struct sched_param sp = { .sched_priority = p };

	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		die("sched_setscheduler(FIFO %d): %s", p, strerror(errno));
}

static uint64_t irq_generation(void)
{
	FILE *f = fopen(SYS_GEN, "r");
	unsigned long g = 0;

	if (!f || fscanf(f, "%lu", &g) != 1)
		die("%s: cannot read", SYS_GEN);
	fclose(f);
	return g;
}

/* ---- pollers: every poller is woken for every change, and only then ---- */

static atomic_int acks;		/* acknowledged wake-ups, all pollers */
static atomic_bool stop;

struct poller {
	pthread_t tid;
	struct waiter w;
	int wakeups, errors;
};

static void *poller_fn(void *arg)
{
	struct poller *p = arg;

	while (!atomic_load(&stop)) {
		int r = waiter_wait(&p->w, 100);

		if (r < 0) {
			p->errors++;
			break;
		}
		if (r > 0) {
			p->wakeups++;
			if (ack(p->w.fd))
				p->errors++;
			atomic_fetch_add(&acks, 1);
		}
	}
	return NULL;
}

/* Wait until @target acknowledgements arrived; false on time-out. */
static bool wait_acks(int target)
{
	int64_t end = now_ns() + WAIT_NS;

	while (atomic_load(&acks) < target) {
		if (now_ns() > end)
			return false;
		usleep(200);
	}
	return true;
}

/* A thread that opens, reads, polls and closes the file all the time. */
static void *churn_fn(void *arg)
{
	long *rounds = arg;

	while (!atomic_load(&stop)) {
		int fd = open(source_path, O_RDONLY);
		struct pollfd p = { .fd = fd, .events = POLLPRI };

		if (fd < 0)
			continue;
		ack(fd);
		poll(&p, 1, 0);
		close(fd);
		(*rounds)++;
	}
	return NULL;
}

static int cmd_pollers(bool churn)
{
	struct poller *ps = calloc((size_t)npollers, sizeof(*ps));
	pthread_t churner;
	long churn_rounds = 0;
	int i, c, missed = 0, extra = 0, errors = 0, changes = 0;
	int64_t t0;
	uint64_t g0, g1;

	if (!ps)
		die("out of memory");
	sim("free 1");
	for (i = 0; i < npollers; i++)
		waiter_open(&ps[i].w);
	for (i = 0; i < npollers; i++)
		if (pthread_create(&ps[i].tid, NULL, poller_fn, &ps[i]))
			die("pthread_create: %s", strerror(errno));
	if (churn && pthread_create(&churner, NULL, churn_fn, &churn_rounds))
		die("pthread_create: %s", strerror(errno));

	t0 = now_ns();
	g0 = irq_generation();
	for (c = 0; c < cycles; c++) {
		for (int op = 0; op < 2; op++) {
			int before = atomic_load(&acks);
			int r = op ? sim("free 1") : sim("request 1");

			if (r)
				die("%s: %s", op ? "free" : "request", strerror(-r));
			changes++;
			if (!wait_acks(before + npollers)) {
				missed++;
				diag("change %d: only %d of %d pollers woke within %d ms",
				     changes, atomic_load(&acks) - before, npollers, WAIT_MS);
				/* resynchronise so one miss is not counted again */
				atomic_store(&acks, before + npollers);
			}
		}
	}
	/* quiet period: nothing changes, so nobody may wake */
	sleep_ms(300);
	g1 = irq_generation();
	if (g1 - g0 != (uint64_t)changes) {
		diag("%s moved by %lu for %d changes", SYS_GEN, (unsigned long)(g1 - g0), changes);
		errors++;
	}
	atomic_store(&stop, true);
	for (i = 0; i < npollers; i++)
		pthread_join(ps[i].tid, NULL);
	if (churn)
		pthread_join(churner, NULL);
	for (i = 0; i < npollers; i++) {
		if (ps[i].wakeups > changes)
			extra += ps[i].wakeups - changes;
		errors += ps[i].errors;
		/* after the last read, a poll must not report a change */
		if (waiter_wait(&ps[i].w, 0) != 0)
			extra++;
		waiter_close(&ps[i].w);
	}
	diag("%s via %s: %d pollers, %d changes in %.2f s: %d missed, %d extra wake-ups, %d errors",
	     source_path, use_epoll ? "epoll" : "poll", npollers, changes,
	     (double)(now_ns() - t0) / 1e9, missed, extra, errors);
	if (churn)
		diag("open/read/poll/close churn: %ld rounds meanwhile", churn_rounds);
	free(ps);
	return missed || extra || errors ? 1 : 0;
}

/* ---- midread: a change during a read is reported by the next poll ---- */

static int cmd_midread(void)
{
	char buf[64];
	int c, lost = 0, spurious = 0;

	sim("free 6");
	for (c = 0; c < cycles; c++) {
		int fd = open_source();
		struct pollfd p = { .fd = fd, .events = POLLPRI };

		/* the first chunk of a read from offset 0 acknowledges... */
		if (lseek(fd, 0, SEEK_SET) < 0 || read(fd, buf, sizeof(buf)) <= 0)
			die("read %s: %s", source_path, strerror(errno));
		/* ...so a change made now, before the rest is read, */
		if (sim(c % 2 ? "free 6" : "request 6"))
			die("request/free failed");
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		/* must still be pending */
		if (poll(&p, 1, 0) != 1 || !(p.revents & POLLPRI))
			lost++;
		/* and a complete read acknowledges it */
		ack(fd);
		/* nothing pending: poll() returns 0 (POLLIN is not asked for) */
		p.revents = 0;
		if (poll(&p, 1, 0) < 0 || (p.revents & POLLPRI))
			spurious++;
		close(fd);
	}
	sim("free 6");
	diag("%s: %d changes made in the middle of a read: %d lost, %d still pending after a full read",
	     source_path, cycles, lost, spurious);
	return lost || spurious ? 1 : 0;
}

/* ---- threads: /sys/kernel/irq/<irq>/threads matches reality ---- */

struct thread_line {
	int pid;
	char name[64], kind[16];
};

/* Parse a threads file: "<pid> <name...> <kind>" lines; returns the count. */
static int read_threads(unsigned int irq, struct thread_line *out, int max)
{
	char path[64], line[256];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "/sys/kernel/irq/%u/threads", irq);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f) && n < max) {
		char *sp1 = strchr(line, ' '), *sp2 = strrchr(line, ' ');

		line[strcspn(line, "\n")] = '\0';
		if (!sp1 || sp1 == sp2) {
			n = -EPROTO;
			break;
		}
		*sp1 = '\0';
		*sp2 = '\0';
		out[n].pid = atoi(line);
		snprintf(out[n].name, sizeof(out[n].name), "%s", sp1 + 1);
		snprintf(out[n].kind, sizeof(out[n].kind), "%s", sp2 + 1);
		n++;
	}
	fclose(f);
	return n;
}

static bool read_comm(int pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

static int cmd_threads(void)
{
	int c, bad = 0;

	sim("free 2");
	for (c = 0; c < cycles; c++) {
		struct slot_status st;
		struct thread_line tl[4];
		char name[64], comm[64], prefix[32];
		int n, r, tries;

		snprintf(name, sizeof(name), "rtlab-a-rather-long-device-name-%d", c);
		r = sim("request 2 %s", name);
		if (r)
			die("request: %s", strerror(-r));
		if (!sim_status(2, &st))
			die("slot 2 not in status after request");
		n = read_threads(st.irq, tl, 4);
		snprintf(prefix, sizeof(prefix), "irq/%u-", st.irq);
		if (n != 1) {
			diag("cycle %d: irq %u lists %d threads, expected 1", c, st.irq, n);
			bad++;
		} else if (strcmp(tl[0].name, name) || strcmp(tl[0].kind, "primary")) {
			diag("cycle %d: line '%d %s %s', expected name %s primary", c,
			     tl[0].pid, tl[0].name, tl[0].kind, name);
			bad++;
		} else if (!read_comm(tl[0].pid, comm, sizeof(comm)) ||
			   strncmp(comm, prefix, strlen(prefix))) {
			diag("cycle %d: pid %d comm '%s', expected %s...", c, tl[0].pid,
			     comm, prefix);
			bad++;
		}
		if (c == 0 && n == 1)
			diag("irq %u: threads says '%d %s %s', comm is '%s' (cut to 15 chars)",
			     st.irq, tl[0].pid, tl[0].name, tl[0].kind, comm);
		r = sim("free 2");
		if (r)
			die("free: %s", strerror(-r));
		n = read_threads(st.irq, tl, 4);
		if (n != 0) {
			diag("cycle %d: irq %u lists %d threads after free_irq()", c, st.irq, n);
			bad++;
		}
		/* the thread was stopped by free_irq(); it is reaped right after */
		for (tries = 0; tries < 100 && kill(tl[0].pid, 0) == 0; tries++)
			sleep_ms(10);
		if (n == 0 && c > 0 && tries == 100) {
			diag("cycle %d: thread %d still exists 1 s after free_irq()", c, tl[0].pid);
			bad++;
		}
	}
	diag("%d request/free cycles, %d mismatches between threads and reality", cycles, bad);
	return bad ? 1 : 0;
}

/* ---- pidns: the threads file numbers pids as the reader's namespace does ---- */

/* In a new pid namespace: the number of threads listed for @irq (or 100). */
static int threads_in_child_ns(unsigned int irq)
{
	pid_t child = fork(), inner;
	int status;

	if (child < 0)
		die("fork: %s", strerror(errno));
	if (child == 0) {
		struct thread_line tl[4];

		if (unshare(CLONE_NEWPID))
			_exit(100);
		inner = fork();	/* the first child is pid 1 of the namespace */
		if (inner < 0)
			_exit(100);
		if (inner == 0) {
			int n = read_threads(irq, tl, 4);

			if (n > 0)
				diag("child pid namespace: irq %u lists pid %d", irq, tl[0].pid);
			_exit(n < 0 ? 100 : n);
		}
		if (waitpid(inner, &status, 0) != inner || !WIFEXITED(status))
			_exit(100);
		_exit(WEXITSTATUS(status));
	}
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status))
		return 100;
	return WEXITSTATUS(status);
}

static int cmd_pidns(void)
{
	struct slot_status st;
	struct thread_line tl[4];
	char comm[64], prefix[32];
	int n, inner, bad = 0;

	sim("free 2");
	if (sim("request 2 rtlab-pidns") || !sim_status(2, &st))
		die("cannot request slot 2");
	n = read_threads(st.irq, tl, 4);
	snprintf(prefix, sizeof(prefix), "irq/%u-", st.irq);
	if (n != 1 || !read_comm(tl[0].pid, comm, sizeof(comm)) ||
	    strncmp(comm, prefix, strlen(prefix))) {
		diag("initial namespace: irq %u lists %d threads, first not an irq/%u- thread",
		     st.irq, n, st.irq);
		bad++;
	}
	inner = threads_in_child_ns(st.irq);
	if (inner == 100)
		die("could not read the threads file from a child pid namespace (CONFIG_PID_NS?)");
	if (inner) {
		diag("child pid namespace: %d threads listed, none of which has a pid there", inner);
		bad++;
	}
	sim("free 2");
	diag("irq %u: initial namespace lists %d thread(s), a child pid namespace %d", st.irq, n,
	     inner);
	return bad ? 1 : 0;
}

/* ---- race: a priority set on notification is never overwritten ---- */

static atomic_int race_pid;	/* thread the setter found, -1 on failure */
static atomic_int race_round;	/* cycle the main thread is waiting for */
static atomic_int race_stale;	/* listed threads that were gone when set */

static void *race_setter(void *arg)
{
	unsigned int irq = *(unsigned int *)arg;
	struct waiter w;
	int done = 0;

	waiter_open(&w);
	while (!atomic_load(&stop)) {
		struct thread_line tl[2];
		struct sched_param sp = { .sched_priority = prio };
		int r = waiter_wait(&w, 100);

		if (r <= 0)
			continue;
		ack(w.fd);
		if (read_threads(irq, tl, 2) != 1)
			continue;	/* the free of the previous cycle */
		if (done == atomic_load(&race_round))
			continue;
		if (sched_setscheduler(tl[0].pid, SCHED_FIFO, &sp)) {
			/* a thread gone since the list was read is not an error */
			if (errno == ESRCH) {
				atomic_fetch_add(&race_stale, 1);
				continue;
			}
			diag("sched_setscheduler(%d): %s", tl[0].pid, strerror(errno));
			atomic_store(&race_pid, -1);
		} else {
			atomic_store(&race_pid, tl[0].pid);
		}
		done = atomic_load(&race_round);
	}
	waiter_close(&w);
	return NULL;
}

static int cmd_race(void)
{
	struct slot_status st;
	pthread_t setter;
	unsigned int irq;
	int c, lost = 0, errors = 0, direct_lost = 0;

	/* learn the irq number of slot 3 (its mapping stays across frees) */
	sim("free 3");
	if (sim("request 3") || !sim_status(3, &st))
		die("cannot request slot 3");
	irq = st.irq;
	sim("free 3");
	set_fifo(90);	/* the setter reacts at once, like a tuned daemon */
	if (pthread_create(&setter, NULL, race_setter, &irq))
		die("pthread_create: %s", strerror(errno));
	sleep_ms(50);

	for (c = 1; c <= cycles; c++) {
		struct sched_param sp;
		int64_t end;
		int pid, pol;

		atomic_store(&race_pid, 0);
		atomic_store(&race_round, c);
		if (sim("request 3"))
			die("request failed");
		end = now_ns() + WAIT_NS;
		while (!(pid = atomic_load(&race_pid)) && now_ns() < end)
			usleep(50);
		if (pid <= 0) {
			diag("cycle %d: the setter never saw the new thread", c);
			errors++;
			sim("free 3");
			continue;
		}
		/* let the thread run its handler loop, then look */
		sim("fire 3");
		for (int i = 0; i < 200; i++) {
			if (sim_status(3, &st) && st.handled > 0)
				break;
			usleep(100);
		}
		sleep_ms(1);
		pol = sched_getscheduler(pid);
		sched_getparam(pid, &sp);
		if (pol != SCHED_FIFO || sp.sched_priority != prio) {
			lost++;
			if (lost <= 5)
				diag("cycle %d: thread %d is policy %d prio %d, set FIFO %d",
				     c, pid, pol, sp.sched_priority, prio);
		}
		sim("free 3");
	}
	atomic_store(&stop, true);
	pthread_join(setter, NULL);

	/* The same without a notification: set it as soon as request returns. */
	for (c = 1; c <= cycles; c++) {
		struct thread_line tl[2];
		struct sched_param sp = { .sched_priority = prio };

		if (sim("request 3"))
			die("request failed");
		if (read_threads(irq, tl, 2) == 1 &&
		    !sched_setscheduler(tl[0].pid, SCHED_FIFO, &sp)) {
			sim("fire 3");
			sleep_ms(1);
			if (sched_getscheduler(tl[0].pid) != SCHED_FIFO ||
			    sched_getparam(tl[0].pid, &sp) || sp.sched_priority != prio)
				direct_lost++;
		} else {
			errors++;
		}
		sim("free 3");
	}
	diag("%d cycles: priority set on notification overwritten %d times; "
	     "set right after request_irq() returned overwritten %d times; %d errors; "
	     "%d listed threads had exited when set", cycles, lost, direct_lost, errors,
	     atomic_load(&race_stale));
	return lost || direct_lost || errors ? 1 : 0;
}

/* ---- latency: request_irq() returning -> poller awake ---- */

static atomic_uint_fast64_t woke_ns;

static void *latency_poller(void *arg)
{
	struct waiter w;

	(void)arg;
	set_fifo(80);
	waiter_open(&w);
	while (!atomic_load(&stop)) {
		int r = waiter_wait(&w, 100);

		if (r > 0) {
			uint64_t t = (uint64_t)now_ns();

			ack(w.fd);
			if (!atomic_load(&woke_ns))
				atomic_store(&woke_ns, t);
		}
	}
	waiter_close(&w);
	return NULL;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmd_latency(void)
{
	int64_t *lat = calloc((size_t)cycles, sizeof(*lat));
	int64_t *dur = calloc((size_t)cycles, sizeof(*dur));
	pthread_t tid;
	int c, n = 0;

	if (!lat || !dur)
		die("out of memory");
	sim("free 4");
	/*
	 * The wake-up is issued inside request_irq(); a poller that is higher
	 * priority than the requester would preempt it on its CPU and be
	 * "awake" before request_irq() returned.  Run the requester above the
	 * poller so that what is measured is the notification path alone.
	 */
	set_fifo(90);
	if (pthread_create(&tid, NULL, latency_poller, NULL))
		die("pthread_create: %s", strerror(errno));
	sleep_ms(50);
	for (c = 0; c < cycles; c++) {
		struct slot_status st;
		int64_t end;

		atomic_store(&woke_ns, 0);
		if (sim("request 4") || !sim_status(4, &st))
			die("request failed");
		end = now_ns() + WAIT_NS;
		while (!atomic_load(&woke_ns) && now_ns() < end)
			usleep(20);
		if (atomic_load(&woke_ns)) {
			lat[n] = (int64_t)(atomic_load(&woke_ns) - st.request_ns);
			dur[n] = (int64_t)(st.request_ns - st.start_ns);
			n++;
		}
		/* the free's notification must be consumed before the next round */
		atomic_store(&woke_ns, 0);
		sim("free 4");
		end = now_ns() + WAIT_NS;
		while (!atomic_load(&woke_ns) && now_ns() < end)
			usleep(20);
	}
	atomic_store(&stop, true);
	pthread_join(tid, NULL);
	if (n < cycles)
		diag("%d of %d requests were never noticed", cycles - n, cycles);
	qsort(lat, (size_t)n, sizeof(*lat), cmp_i64);
	qsort(dur, (size_t)n, sizeof(*dur), cmp_i64);
	if (n) {
		int64_t med = lat[n / 2], p99 = lat[(n * 99) / 100], max = lat[n - 1];

		diag("%s: request_irq() returned (requester FIFO 90) -> poller (FIFO 80) awake: n=%d median %.1f us, p99 %.1f us, max %.1f us, min %.1f us; request_irq() itself: median %.1f us",
		     source_path, n, med / 1e3, p99 / 1e3, max / 1e3, lat[0] / 1e3,
		     dur[n / 2] / 1e3);
		if (json_out) {
			cJSON *j = cJSON_CreateObject();

			cJSON_AddStringToObject(j, "source", source_path);
			cJSON_AddNumberToObject(j, "samples", n);
			cJSON_AddNumberToObject(j, "median_us", rtlab_json_round(med / 1e3, 1));
			cJSON_AddNumberToObject(j, "p99_us", rtlab_json_round(p99 / 1e3, 1));
			cJSON_AddNumberToObject(j, "max_us", rtlab_json_round(max / 1e3, 1));
			cJSON_AddNumberToObject(j, "min_us", rtlab_json_round(lat[0] / 1e3, 1));
			cJSON_AddNumberToObject(j, "request_irq_median_us",
						rtlab_json_round(dur[n / 2] / 1e3, 1));
			if (rtlab_json_write(json_out, j))
				die("%s: %s", json_out, strerror(errno));
		}
	}
	free(lat);
	free(dur);
	return n == cycles ? 0 : 1;
}

/*
 * ---- cost: request_irq() + free_irq() with 0..N pollers attached ----
 *
 * A fixed amount of work per cycle, for instruction-counted runs
 * (bench/guest/cost.sh under ACCEL=icount): request, wait until every
 * poller was woken and re-read the source, free, wait again.  The waits
 * block on a condition variable the last poller signals, never on a
 * timer: a timed wait would add guest idle time, which is not kernel cost.
 * The requester runs above the pollers (FIFO COST_REQUESTER_PRIO vs
 * COST_POLLER_PRIO) so a woken poller never preempts request_irq() on its
 * own CPU.  Prints one line of medians over the cycles.
 */
#define COST_REQUESTER_PRIO	90
#define COST_POLLER_PRIO	80
#define COST_SLOT		5

static pthread_mutex_t cost_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cost_done = PTHREAD_COND_INITIALIZER;
static int cost_acks;		/* acknowledgements of all pollers, under cost_lock */

static void *cost_poller(void *arg)
{
	struct waiter *w = arg;

	set_fifo(COST_POLLER_PRIO);
	for (;;) {
		/* no time-out: nothing but a change (or the last one) wakes it */
		int r = waiter_wait(w, -1);

		if (r < 0)
			die("%s: poller: %s", source_path, strerror(-r));
		if (!r)
			continue;	/* a signal */
		r = ack(w->fd);
		if (r)
			die("%s: poller: read: %s", source_path, strerror(-r));
		pthread_mutex_lock(&cost_lock);
		if (++cost_acks % npollers == 0)
			pthread_cond_signal(&cost_done);
		pthread_mutex_unlock(&cost_lock);
		if (atomic_load(&stop))
			return NULL;
	}
}

/* Wait until every poller acknowledged change number @change (1-based). */
static void cost_wait(int change)
{
	pthread_mutex_lock(&cost_lock);
	while (cost_acks < change * npollers)
		pthread_cond_wait(&cost_done, &cost_lock);
	pthread_mutex_unlock(&cost_lock);
}

static int64_t median_i64(int64_t *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_i64);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int cmd_cost(void)
{
	struct waiter *ws = calloc((size_t)npollers + 1, sizeof(*ws));
	pthread_t *tids = calloc((size_t)npollers + 1, sizeof(*tids));
	int64_t *req = calloc((size_t)cycles, sizeof(*req));
	int64_t *fre = calloc((size_t)cycles, sizeof(*fre));
	int64_t *cyc = calloc((size_t)cycles, sizeof(*cyc));
	int i, c, change = 0;

	if (!ws || !tids || !req || !fre || !cyc)
		die("out of memory");
	sim("free %d", COST_SLOT);
	set_fifo(COST_REQUESTER_PRIO);
	for (i = 0; i < npollers; i++) {
		waiter_open(&ws[i]);
		if (pthread_create(&tids[i], NULL, cost_poller, &ws[i]))
			die("pthread_create: %s", strerror(errno));
	}
	for (c = 0; c < cycles; c++) {
		struct slot_status st;
		int64_t t0 = now_ns(), t1;

		if (sim("request %d cost", COST_SLOT) || !sim_status(COST_SLOT, &st))
			die("request %d failed", c);
		if (npollers)
			cost_wait(++change);
		t1 = now_ns();
		if (sim("free %d", COST_SLOT))
			die("free %d failed", c);
		fre[c] = now_ns() - t1;
		if (npollers)
			cost_wait(++change);
		cyc[c] = now_ns() - t0;
		req[c] = (int64_t)(st.request_ns - st.start_ns);
	}
	if (npollers) {
		/* one last change wakes every poller to see the stop flag */
		atomic_store(&stop, true);
		if (sim("request %d cost", COST_SLOT) || sim("free %d", COST_SLOT))
			die("last request/free failed");
		for (i = 0; i < npollers; i++) {
			pthread_join(tids[i], NULL);
			waiter_close(&ws[i]);
		}
	}
	printf("pollers=%d cycles=%d request_ns=%" PRId64 " free_ns=%" PRId64 " cycle_ns=%" PRId64 "\n",
	       npollers, cycles, median_i64(req, cycles), median_i64(fre, cycles),
	       median_i64(cyc, cycles));
	free(ws);
	free(tids);
	free(req);
	free(fre);
	free(cyc);
	return 0;
}

/* ---- perms: anyone can read and poll, nobody can write ---- */

static int try_files(unsigned int irq)
{
	const char *files[] = { PROC_IRQS, SYS_GEN, NULL };
	char threads[64];
	int bad = 0;

	snprintf(threads, sizeof(threads), "/sys/kernel/irq/%u/threads", irq);
	for (int i = 0; i < 3; i++) {
		const char *f = files[i] ? files[i] : threads;
		int fd = open(f, O_RDONLY);
		struct pollfd p = { .fd = fd, .events = POLLPRI };
		const char *step = NULL;
		int r = 0;

		if (fd < 0)
			step = "open", r = errno;
		else if ((r = -ack(fd)))
			step = "read";
		else if (poll(&p, 1, 0) < 0)
			step = "poll", r = errno;
		if (step) {
			printf("# uid %d: %s %s: %s\n", getuid(), step, f, strerror(r));
			bad++;
		}
		if (fd >= 0)
			close(fd);
		fd = open(f, O_WRONLY);
		if (fd >= 0) {
			if (write(fd, "1\n", 2) >= 0) {
				printf("# uid %d: could write to %s\n", getuid(), f);
				bad++;
			}
			close(fd);
		}
	}
	return bad;
}

static int cmd_perms(void)
{
	struct slot_status st;
	pid_t pid;
	int status, bad;

	sim("free 5");
	if (sim("request 5") || !sim_status(5, &st))
		die("request failed");
	bad = try_files(st.irq);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int r;

		if (setgid(65534) || setuid(65534)) {
			printf("# setuid(nobody): %s\n", strerror(errno));
			fflush(stdout);
			_exit(3);
		}
		r = try_files(st.irq);
		fflush(stdout);
		_exit(r ? 1 : 0);
	}
	waitpid(pid, &status, 0);
	sim("free 5");
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		bad++;
	diag("root and nobody: read and poll work, writes fail: %s", bad ? "NO" : "yes");
	return bad ? 1 : 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: irqwatch_test COMMAND [options]   (needs rtlab_irqsim loaded)\n"
		"  pollers   every poller woken once for every request and free\n"
		"  churn     pollers, with another thread opening/reading/closing meanwhile\n"
		"  threads   /sys/kernel/irq/<irq>/threads matches the real threads\n"
		"  midread   a change made while the file is read is not lost\n"
		"  race      a priority set on notification is never overwritten\n"
		"  latency   request_irq() returning -> poller awake, median/p99/max\n"
		"  perms     anyone reads and polls, nobody writes\n"
		"  cost      -c request/free cycles with -n pollers (0 too) woken and re-reading,\n"
		"            each waited for; medians of request_irq(), the free, the cycle (ns)\n"
		"  pidns     the threads file lists pids of the reader's pid namespace\n"
		"options: -s proc|sysfs (source, default proc)  -e (epoll, default poll)\n"
		"         -n POLLERS  -c CYCLES  -p PRIO  -j JSONFILE\n");
}

int main(int argc, char **argv)
{
	const char *cmd;
	int opt;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	cmd = argv[1];
	optind = 2;
	while ((opt = getopt(argc, argv, "s:en:c:p:j:")) != -1) {
		switch (opt) {
		case 's': {
			int src = opt_choice(source_names, optarg);

			if (src < 0)
				die_usage("-s: unknown source '%s' (proc or sysfs)", optarg);
			source_path = source_paths[src];
			break;
		}
		case 'e':
			use_epoll = true;
			break;
		case 'n':
			npollers = atoi(optarg);
			if (npollers < 0 || npollers > MAX_POLLERS)
				die_usage("-n: 0 to %d pollers", MAX_POLLERS);
			break;
		case 'c':
			cycles = sim_cycles_opt(optarg);
			break;
		case 'p':
			prio = atoi(optarg);
			if (prio < 1 || prio > 99)
				die_usage("-p: priority 1 to 99");
			break;
		case 'j':
			json_out = optarg;
			break;
		default:
			opt_usage_exit(usage, 2);
		}
	}
	if (!strcmp(cmd, "cost"))
		return cmd_cost();
	if (npollers < 1)
		die_usage("-n: 0 pollers only for cost");
	if (!strcmp(cmd, "pollers"))
		return cmd_pollers(false);
	if (!strcmp(cmd, "churn"))
		return cmd_pollers(true);
	if (!strcmp(cmd, "threads"))
		return cmd_threads();
	if (!strcmp(cmd, "midread"))
		return cmd_midread();
	if (!strcmp(cmd, "race"))
		return cmd_race();
	if (!strcmp(cmd, "latency"))
		return cmd_latency();
	if (!strcmp(cmd, "perms"))
		return cmd_perms();
	if (!strcmp(cmd, "pidns"))
		return cmd_pidns();
	opt_usage_exit(usage, 2);
}
