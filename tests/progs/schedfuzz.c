// SPDX-License-Identifier: GPL-2.0
/*
 * schedfuzz: seeded random scheduler operations with invariants, for the
 * guest (tests/stress/99-schedfuzz.sh, make stress; issue 39).
 *
 * One controller (this process, SCHED_FIFO 99 with SCHED_RESET_ON_FORK)
 * draws operations from a seeded generator and applies them to worker
 * threads spread over a few worker processes, to cgroups, cpusets, CPU
 * hotplug and the RT sysctl.  Operations a thread must do itself (take a
 * chain of PI mutexes, wait on a condvar, fork, exit) are posted to that
 * worker's mailbox and done by it; the rest the controller does at once.
 * Every operation is one line "op NAME A0 .. A5" in the log (-l), and
 * "-r LOG" runs a saved log again in its order: a failure becomes a
 * regression test.  Timing between threads is not replayed; the sequence
 * of operations and their arguments is.
 *
 * The invariants, checked at quiescent points (every -q operations) and at
 * the end:
 *  - progress: at a quiescent point every live worker thread acknowledges
 *    within -B seconds.  Each worker stops its load once it has answered,
 *    so the ones left find free CPUs; stopped processes are continued
 *    first.  The generator keeps every policy's wait bounded (a deadline
 *    or group runtime is at least 1/1000 of its period, periods at most
 *    1 s, holds and time-outs at most tens of ms), so a thread that does
 *    not answer is stranded, not starved by its policy.
 *  - the deadline book: in each root domain the sum of the CPUs' this_bw
 *    is at most the domain's total_bw (the debugfs lines of patch 0019;
 *    the domains from /proc/schedstat; a task that left the class keeps
 *    its total_bw until its 0-lag time, see book_check()), and
 *    running_bw <= this_bw per CPU; a book that holds again within -B
 *    seconds with no operation running is a 0-lag time, not a miscount
 *    (book_heals()), and is counted apart.
 *  - at the end: every worker process dies on SIGKILL and is reaped, every
 *    group is removed, and each CPU's total_bw and this_bw are back to
 *    their values from before the run.
 * A kernel splat is the lab's to see (labcheck); the test script also
 * counts dmesg lines.
 *
 * Exit: 0 all held, 1 an invariant failed, 2 usage or setup error.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rtpi.h>

#include "rtlab/die.h"
#include "rtlab/dl.h"
#include "rtlab/file.h"
#include "rtlab/opt.h"
#include "rtlab/tap.h"
#include "rtlab/time.h"

#ifndef SCHED_FLAG_RESET_ON_FORK
#define SCHED_FLAG_RESET_ON_FORK	0x01
#endif
#ifndef SCHED_FLAG_RECLAIM
#define SCHED_FLAG_RECLAIM		0x02
#endif
#ifndef SCHED_FLAG_DL_OVERRUN
#define SCHED_FLAG_DL_OVERRUN		0x04
#endif
#ifndef SCHED_FLAG_DL_DEMOTION
#define SCHED_FLAG_DL_DEMOTION		0x80	/* rtlab patch 0020 */
#endif

#define MAX_W		32	/* worker threads */
#define STALL_CAP	4	/* a wait that sees CPU time: at most 4 x -B (quiesce()) */
#define MAX_P		8	/* worker processes */
#define NMUTEX		5	/* process-shared robust PI mutexes */
#define NGROUP		6	/* fz0..fz3 at the top, fz4 below fz0, fz5 below fz1 */
#define MAX_CPUS	64
#define TAIL_MAX	200

#define DEBUG_FILE	"/sys/kernel/debug/sched/debug"
#define SCHEDSTAT	"/proc/schedstat"
#define RT_SYSCTL	"/proc/sys/kernel/sched_rt_runtime_us"
#define CPU_SYSFS	"/sys/devices/system/cpu"

/* ---- operations ------------------------------------------------------------ */

enum opcode {
	/* done by the controller on a worker thread: A0 the worker */
	OP_SETATTR,	/* A1 policy A2 prio/nice A3 flags A4 runtime ns A5 period ns */
	OP_NICE,	/* A1 nice */
	OP_AFFINITY,	/* A1 CPU mask */
	/* posted to a worker: A0 the worker */
	OP_LOCK,	/* A1 mutex mask A2 hold us A3 time-out us (0: none) */
	OP_CWAIT,	/* A1 time-out us */
	OP_CSIGNAL,
	OP_CBCAST,
	OP_YIELD,
	OP_SELF,	/* sched_setattr() on itself, A1-A5 as OP_SETATTR */
	OP_FORK,	/* A1 1: the child execs /bin/true */
	OP_TEXIT,	/* the thread exits */
	OP_DUTY,	/* A1 spin us A2 sleep us */
	/* the controller */
	OP_TSPAWN,	/* A0 worker: its process starts it again if it exited */
	OP_STOP,	/* A0 process: SIGSTOP */
	OP_CONT,	/* A0 process: SIGCONT */
	OP_KILL,	/* A0 process: SIGKILL, reaped */
	OP_PSPAWN,	/* A0 process: forked again if killed */
	OP_CGMK,	/* A0 group */
	OP_CGRM,	/* A0 group */
	OP_CGMOVE,	/* A0 worker A1 group (-1: the root) */
	OP_CGPROC,	/* A0 process A1 group (-1: the root) */
	OP_CGRT,	/* A0 group A1 runtime us (-1: max) A2 period us */
	OP_CPUSET,	/* A0 group A1 CPU mask A2 partition: 0 member 1 root 2 isolated (v1: exclusive) */
	OP_BALANCE,	/* v1: the root's cpuset.sched_load_balance = A0 */
	OP_HOTPLUG,	/* A0 CPU A1 online */
	OP_SYSCTL,	/* A0 sched_rt_runtime_us */
	OP_PAUSE,	/* A0 us */
	NOPS
};

static const char *const opname[NOPS + 1] = {
	"setattr", "nice", "affinity", "lock", "cwait", "csignal", "cbcast", "yield", "self",
	"fork", "texit", "duty", "tspawn", "stop", "cont", "kill", "pspawn", "cgmk", "cgrm",
	"cgmove", "cgproc", "cgrt", "cpuset", "balance", "hotplug", "sysctl", "pause", NULL
};

/* relative weights of the generator */
static const int opweight[NOPS] = {
	[OP_SETATTR] = 16, [OP_NICE] = 3, [OP_AFFINITY] = 6, [OP_LOCK] = 12, [OP_CWAIT] = 4,
	[OP_CSIGNAL] = 3, [OP_CBCAST] = 2, [OP_YIELD] = 2, [OP_SELF] = 4, [OP_FORK] = 2,
	[OP_TEXIT] = 1, [OP_DUTY] = 4, [OP_TSPAWN] = 3, [OP_STOP] = 1, [OP_CONT] = 2,
	[OP_KILL] = 1, [OP_PSPAWN] = 4, [OP_CGMK] = 3, [OP_CGRM] = 2, [OP_CGMOVE] = 7,
	[OP_CGPROC] = 3, [OP_CGRT] = 6, [OP_CPUSET] = 4, [OP_BALANCE] = 1, [OP_HOTPLUG] = 2,
	[OP_SYSCTL] = 1, [OP_PAUSE] = 6,
};

struct op {
	int code;
	long long a[6];
};

/* ---- shared state ------------------------------------------------------------ */

struct wslot {
	atomic_int alive;	/* 1 from its process's start of it to its exit */
	atomic_int tid;
	atomic_int respawn;	/* OP_TSPAWN asks its process to start it again */
	atomic_uint cmd_seq, done_seq;
	struct op cmd;		/* written only while done_seq == cmd_seq */
	atomic_uint ack;	/* the last quiescent epoch it answered */
	atomic_long beats;
	atomic_int spin_us, sleep_us;
	atomic_int in_op;	/* the posted op it is doing, or -1 */
};

struct shm {
	atomic_int stop;
	atomic_uint quiesce, hold;
	struct wslot w[MAX_W];
	pthread_mutex_t mx[NMUTEX];
	atomic_long locks_ok, lock_timeouts, owner_dead, cwaits, forks, fork_fail, xcpu;
};

static struct shm *S;

/* per worker process (not shared: a killed process takes them along) */
static pi_mutex_t cmtx;
static pi_cond_t cvar;

static struct {
	uint64_t seed;
	int secs, max_ops, workers, procs, quiet_every, bound_s, tail;
	bool hotplug, seed_set;
	const char *cg_mode, *log, *replay, *outdir;
	bool excluded[NOPS];
} cfg = { .secs = 60, .workers = 12, .procs = 3, .quiet_every = 150, .bound_s = 30, .tail = 40,
	  .cg_mode = "v1" };

static int ncpu;
static pid_t procpid[MAX_P];
static bool proc_stopped[MAX_P];
static bool proc_killed[MAX_P];
static char died[200];	/* the first worker process that died unasked */
static int logfd = -1;
static char tail[TAIL_MAX][192];
static long nops_done;
static long opcount[NOPS], operr[NOPS];

/* ---- small helpers -------------------------------------------------------------- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* splitmix64: one 64-bit state, good enough spread for choices */
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static long long rnd_below(long long n)
{
	return n > 0 ? (long long)(rnd() % (uint64_t)n) : 0;
}

static long long pick(const long long *v, int n)
{
	return v[rnd_below(n)];
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void spin_for_us(long us)
{
	int64_t end = now_ns() + us * RTLAB_NSEC_PER_USEC;

	while (now_ns() < end)
		;
}

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* write S to PATH: 0 or an errno */
static int wr(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, s, strlen(s)) < 0)
		err = errno;
	close(fd);
	return err;
}

static int wrf(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int wrf(const char *path, const char *fmt, ...)
{
	char buf[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return wr(path, buf);
}

/* the first line of a small kernel file (rtlab_read_small()), without its newline */
static bool rd_line(const char *path, char *buf, size_t len)
{
	if (rtlab_read_small(path, buf, len) < 0)
		return false;
	buf[strcspn(buf, "\n")] = 0;
	return true;
}

static int set_attr(pid_t tid, long long policy, long long prio, long long flags, long long runtime,
		    long long period)
{
	struct rtlab_sched_attr a = { .size = sizeof(a), .sched_policy = (uint32_t)policy,
				      .sched_flags = (uint64_t)flags };

	if (policy == SCHED_FIFO || policy == SCHED_RR) {
		a.sched_priority = (uint32_t)prio;
	} else if (policy == SCHED_DEADLINE) {
		a.sched_runtime = (uint64_t)runtime;
		a.sched_deadline = a.sched_period = (uint64_t)period;
		a.sched_nice = (int32_t)prio;
	} else {
		a.sched_nice = (int32_t)prio;
	}
	return syscall(SYS_sched_setattr, tid, &a, 0) ? errno : 0;
}

/* ---- the worker side ------------------------------------------------------------ */

static int do_lock(const struct op *o)
{
	int held[NMUTEX], nh = 0, err = 0;

	for (int i = 0; i < NMUTEX; i++) {
		if (!(o->a[1] & (1 << i)))
			continue;
		int r;

		if (o->a[3] > 0) {
			struct timespec ts;
			int64_t t = now_ns() + o->a[3] * RTLAB_NSEC_PER_USEC;

			ts.tv_sec = t / RTLAB_NSEC_PER_SEC;
			ts.tv_nsec = t % RTLAB_NSEC_PER_SEC;
			/* glibc: FUTEX_LOCK_PI2 for a monotonic time-out */
			r = pthread_mutex_clocklock(&S->mx[i], CLOCK_MONOTONIC, &ts);
		} else {
			r = pthread_mutex_lock(&S->mx[i]);
		}
		if (r == EOWNERDEAD) {
			atomic_fetch_add(&S->owner_dead, 1);
			pthread_mutex_consistent(&S->mx[i]);
			r = 0;
		}
		if (r) {
			if (r == ETIMEDOUT)
				atomic_fetch_add(&S->lock_timeouts, 1);
			err = r;
			break;
		}
		held[nh++] = i;
	}
	if (!err) {
		atomic_fetch_add(&S->locks_ok, 1);
		spin_for_us(o->a[2]);
	}
	while (nh > 0)
		pthread_mutex_unlock(&S->mx[held[--nh]]);
	return err;
}

static int do_cwait(long long tmo_us)
{
	struct timespec ts;
	int64_t t = now_ns() + tmo_us * RTLAB_NSEC_PER_USEC;
	int r;

	ts.tv_sec = t / RTLAB_NSEC_PER_SEC;
	ts.tv_nsec = t % RTLAB_NSEC_PER_SEC;
	r = pi_mutex_lock(&cmtx);
	if (r)
		return r;
	atomic_fetch_add(&S->cwaits, 1);
	r = pi_cond_timedwait(&cvar, &cmtx, &ts);
	pi_mutex_unlock(&cmtx);
	return r == ETIMEDOUT ? 0 : r;
}

static int do_fork(bool exec)
{
	pid_t p = fork();
	int st;

	if (p < 0) {
		atomic_fetch_add(&S->fork_fail, 1);
		return errno;
	}
	if (p == 0) {
		if (exec)
			execl("/bin/true", "true", (char *)NULL);
		_exit(0);
	}
	atomic_fetch_add(&S->forks, 1);
	while (waitpid(p, &st, 0) < 0 && errno == EINTR)
		;
	return 0;
}

/* a posted op; 1 if the thread is to exit */
static int worker_do(struct wslot *w, const struct op *o)
{
	switch (o->code) {
	case OP_LOCK:
		do_lock(o);
		break;
	case OP_CWAIT:
		do_cwait(o->a[1]);
		break;
	case OP_CSIGNAL:
	case OP_CBCAST:
		if (!pi_mutex_lock(&cmtx)) {
			if (o->code == OP_CSIGNAL)
				pi_cond_signal(&cvar, &cmtx);
			else
				pi_cond_broadcast(&cvar, &cmtx);
			pi_mutex_unlock(&cmtx);
		}
		break;
	case OP_YIELD:
		sched_yield();
		break;
	case OP_SELF:
		set_attr(0, o->a[1], o->a[2], o->a[3], o->a[4], o->a[5]);
		break;
	case OP_FORK:
		do_fork(o->a[1] != 0);
		break;
	case OP_TEXIT:
		return 1;
	case OP_DUTY:
		atomic_store(&w->spin_us, (int)o->a[1]);
		atomic_store(&w->sleep_us, (int)o->a[2]);
		break;
	}
	return 0;
}

/*
 * The hold at a quiescent point: S->hold is in the shared mapping, so the
 * futex is a shared one.  No time-out: the wait returns at once if the hold
 * has changed, and hold_end() wakes every waiter after changing it.
 */
static void hold_wait(unsigned int q)
{
	syscall(SYS_futex, &S->hold, FUTEX_WAIT, q, NULL, NULL, 0);
}

static void hold_end(void)
{
	atomic_store(&S->hold, 0);
	syscall(SYS_futex, &S->hold, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static void *worker(void *arg)
{
	struct wslot *w = &S->w[(intptr_t)arg];
	unsigned int done = atomic_load(&w->done_seq);

	atomic_store(&w->tid, gettid_());
	while (!atomic_load(&S->stop)) {
		unsigned int q = atomic_load(&S->quiesce);

		if (q != atomic_load(&w->ack)) {
			/*
			 * Answer, then stay off the CPUs until the check is over:
			 * asleep on the futex, not polling (a FIFO 50 worker that
			 * woke every ms used up a 100 us / 100 ms group's budget
			 * and kept a FIFO 49 one of its group from answering).
			 */
			atomic_store(&w->ack, q);
			while (atomic_load(&S->hold) == q && !atomic_load(&S->stop))
				hold_wait(q);
			continue;
		}
		unsigned int c = atomic_load_explicit(&w->cmd_seq, memory_order_acquire);

		if (c != done) {
			struct op o = w->cmd;
			int quit;

			atomic_store(&w->in_op, o.code);
			quit = worker_do(w, &o);
			atomic_store(&w->in_op, -1);
			done = c;
			atomic_store_explicit(&w->done_seq, c, memory_order_release);
			if (quit)
				break;
		}
		atomic_fetch_add(&w->beats, 1);
		spin_for_us(atomic_load(&w->spin_us));
		sleep_us(atomic_load(&w->sleep_us));
	}
	atomic_store(&w->tid, 0);
	atomic_store(&w->alive, 0);
	return NULL;
}

static bool start_worker(int i)
{
	pthread_attr_t at;
	pthread_t t;
	bool ok;

	atomic_store(&S->w[i].alive, 1);
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	ok = pthread_create(&t, &at, worker, (void *)(intptr_t)i) == 0;
	pthread_attr_destroy(&at);
	if (!ok)
		atomic_store(&S->w[i].alive, 0);
	return ok;
}

/* SCHED_FLAG_DL_OVERRUN's signal: counted, not the default (terminate) */
static void on_xcpu(int sig)
{
	(void)sig;
	atomic_fetch_add(&S->xcpu, 1);
}

/* a worker process: its threads are the slots i with i % procs == p */
static void __attribute__((noreturn)) proc_main(int p)
{
	struct sigaction sa = { .sa_handler = on_xcpu, .sa_flags = SA_RESTART };

	sigaction(SIGXCPU, &sa, NULL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	pi_mutex_init(&cmtx, 0);
	pi_cond_init(&cvar, 0);
	for (int i = p; i < cfg.workers; i += cfg.procs)
		start_worker(i);
	while (!atomic_load(&S->stop)) {
		for (int i = p; i < cfg.workers; i += cfg.procs) {
			if (atomic_load(&S->w[i].respawn) && !atomic_load(&S->w[i].alive)) {
				atomic_store(&S->w[i].respawn, 0);
				start_worker(i);
			}
		}
		sleep_us(2000);
	}
	_exit(0);
}

static void spawn_proc(int p)
{
	pid_t pid;

	for (int i = p; i < cfg.workers; i += cfg.procs) {
		struct wslot *w = &S->w[i];

		atomic_store(&w->alive, 0);
		atomic_store(&w->tid, 0);
		atomic_store(&w->respawn, 0);
		atomic_store(&w->done_seq, atomic_load(&w->cmd_seq));
		atomic_store(&w->ack, atomic_load(&S->quiesce));
		atomic_store(&w->in_op, -1);
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0)
		proc_main(p);
	procpid[p] = pid;
	proc_stopped[p] = false;
	proc_killed[p] = false;
}

/* ---- cgroups ------------------------------------------------------------------------ */

/*
 * Two hierarchies at most: the one with the cpu controller and the one
 * with cpuset (the same directory when they are mounted together, as
 * with v2 or the v1 "cpu,cpuset" mount this program makes if it can).
 */
static struct {
	bool v2;
	char cpu[128], cpuset[128];	/* roots; "" if that controller is missing */
	bool made[NGROUP];
	char mounted[2][128];
	char mopts[2][32];	/* the v1 controllers of mounted[i] ("" for v2) */
	char balance0[8];	/* v1: the root's sched_load_balance before */
} cg;

static const char *gname(int g, char *buf, size_t len)
{
	if (g < 4)
		snprintf(buf, len, "fz%d", g);
	else
		snprintf(buf, len, "fz%d/fz%d", g - 4, g);
	return buf;
}

static void gpath(char *buf, size_t len, const char *root, int g, const char *file)
{
	char n[32];

	if (g < 0)
		snprintf(buf, len, "%s/%s", root, file);
	else
		snprintf(buf, len, "%s/%s/%s", root, gname(g, n, sizeof(n)), file);
}

static bool mounted_with(const char *type, const char *opt, char *out, size_t len)
{
	FILE *f = fopen("/proc/mounts", "re");
	char dev[256], dir[256], fs[64], opts[512];
	bool found = false;

	if (!f)
		return false;
	while (fscanf(f, "%255s %255s %63s %511s %*d %*d", dev, dir, fs, opts) == 4) {
		if (strcmp(fs, type))
			continue;
		if (opt) {
			char o[520];

			snprintf(o, sizeof(o), ",%s,", opts);
			char want[40];

			snprintf(want, sizeof(want), ",%s,", opt);
			if (!strstr(o, want))
				continue;
		}
		if (strlen(dir) >= len)
			continue;
		memcpy(out, dir, strlen(dir) + 1);
		found = true;
		break;
	}
	fclose(f);
	return found;
}

/* something is mounted on DIR */
static bool mount_on(const char *dir)
{
	FILE *f = fopen("/proc/mounts", "re");
	char d[256];
	bool found = false;

	if (!f)
		return false;
	while (!found && fscanf(f, "%*s %255s %*s %*s %*d %*d", d) == 1)
		found = !strcmp(d, dir);
	fclose(f);
	return found;
}

/* the directories for the v1 hierarchies and the v2 mount: a tmpfs on
 * /sys/fs/cgroup unless something (the lab's tmpfs, a v2 mount) is there */
static void ensure_cgroup_tmpfs(void)
{
	if (!mount_on("/sys/fs/cgroup"))
		mount("cgroup_root", "/sys/fs/cgroup", "tmpfs", 0, NULL);
}

static bool try_mount(const char *dir, const char *type, const char *opts, int slot)
{
	mkdir(dir, 0755);
	if (mount("none", dir, type, 0, opts))
		return false;
	snprintf(cg.mounted[slot], sizeof(cg.mounted[slot]), "%s", dir);
	snprintf(cg.mopts[slot], sizeof(cg.mopts[slot]), "%s", opts ? opts : "");
	return true;
}

/* the hierarchy of controller NAME in /proc/cgroups (0: the v2 one), -1 if unknown */
static int cg_hierarchy(const char *name)
{
	FILE *f = fopen("/proc/cgroups", "re");
	char line[256], n[64];
	int h, r = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %d", n, &h) == 2 && !strcmp(n, name))
			r = h;
	fclose(f);
	return r;
}

/*
 * Give the controllers back as the run found them, so that the next run or
 * test can bind them where it wants.  v2: the root's subtree_control off
 * again, then the mount gone.  v1: unmounting a hierarchy frees its
 * controllers only if the root has no children left at that moment; a
 * removed group that is still dying keeps it, and nothing frees it later
 * (a v2 run after the v1 one found cpu and cpuset still bound to it:
 * ENOENT on +cpu).  Mounting the same controllers again reuses that root,
 * and unmounting it once the dying groups are gone frees it.
 */
/*
 * Unmount the v1 hierarchy on DIR (its controllers CTLS, "cpu,cpuset") and
 * wait until its controllers are free.  Unmounting frees them only if the
 * root has no children at that moment; a removed group that is still
 * dying keeps the hierarchy, and nothing frees it later (a v2 run after
 * the v1 one found cpu and cpuset still bound to it: ENOENT on +cpu).
 * Mounting the same controllers again reuses that root, and unmounting it
 * once the dying groups are gone frees it.  0 or an errno.
 */
/* Remove the empty groups below DIR, children first; the number removed */
static int rm_empty_groups(const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char sub[512];
	int n = 0;

	while (d && depth < 8 && (de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
		n += rm_empty_groups(sub, depth + 1);
		if (rmdir(sub) == 0)
			n++;
		else
			diag("%s stays: %s", sub, strerror(errno));
	}
	if (d)
		closedir(d);
	return n;
}

static int v1_unmount(const char *dir, const char *ctls)
{
	char first[32];
	int n;

	/*
	 * A group left behind keeps the hierarchy, and its controllers, for
	 * good: in the lab's rt-debug boot an earlier test's group whose hog
	 * left it late (rmdir EBUSY then) did, and v2 got no cpu controller.
	 * The empty ones go; one with tasks stays and is named.
	 */
	n = rm_empty_groups(dir, 0);
	if (n)
		diag("%d empty group%s left in %s removed", n, n == 1 ? "" : "s", dir);
	if (umount(dir))
		return errno;
	snprintf(first, sizeof(first), "%s", ctls);
	first[strcspn(first, ",")] = 0;
	for (int t = 0; t < 50 && cg_hierarchy(first) > 0; t++) {
		sleep_us(100000);
		if (mount("none", dir, "cgroup", 0, ctls) == 0)
			umount(dir);
	}
	if (cg_hierarchy(first) > 0) {
		diag("the v1 hierarchy of %s is still there 5 s after its unmount", ctls);
		return EBUSY;
	}
	return 0;
}

/* Give the controllers back as the run found them, so that the next run or
 * test can bind them where it wants (v2: the root's subtree_control off). */
static void cg_release(void)
{
	if (cg.v2 && cg.cpu[0]) {
		char p[256];

		gpath(p, sizeof(p), cg.cpu, -1, "cgroup.subtree_control");
		wr(p, "-cpuset");
		wr(p, "-cpu");
	}
	for (int i = 0; i < 2; i++) {
		if (!cg.mounted[i][0])
			continue;
		if (cg.mopts[i][0] ? v1_unmount(cg.mounted[i], cg.mopts[i]) == 0 : umount(cg.mounted[i]) == 0)
			rmdir(cg.mounted[i]);
	}
}

/* a v1 hierarchy with controller CTL: its directory and its controllers */
static bool v1_mount_of(const char *ctl, char *dir, size_t len, char *ctls, size_t clen)
{
	FILE *f = fopen("/proc/mounts", "re");
	char d[256], fs[64], opts[512];
	bool found = false;

	if (!f)
		return false;
	while (!found && fscanf(f, "%*s %255s %63s %511s %*d %*d", d, fs, opts) == 3) {
		static const char *const known[] = { "cpu", "cpuset", "cpuacct" };
		char *save = NULL;

		if (strcmp(fs, "cgroup") || strlen(d) >= len)
			continue;
		ctls[0] = 0;
		for (char *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
			for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++)
				if (!strcmp(o, known[k]) && strlen(ctls) + strlen(o) + 2 < clen) {
					if (ctls[0])
						strcat(ctls, ",");
					strcat(ctls, o);
				}
			if (!strcmp(o, ctl))
				found = true;
		}
		if (found)
			memcpy(dir, d, strlen(d) + 1);
	}
	fclose(f);
	return found;
}

static void cg_setup(void)
{
	char d[128];

	if (!strcmp(cfg.cg_mode, "none"))
		return;
	if (!strcmp(cfg.cg_mode, "v2")) {
		cg.v2 = true;
		if (!mounted_with("cgroup2", NULL, d, sizeof(d))) {
			ensure_cgroup_tmpfs();
			snprintf(d, sizeof(d), "/sys/fs/cgroup/unified");
			if (!try_mount(d, "cgroup2", NULL, 0))
				die("mount cgroup2 at %s: %s", d, strerror(errno));
		}
		char sc[256];

		snprintf(sc, sizeof(sc), "%s/cgroup.subtree_control", d);
		/* a controller bound to a v1 hierarchy (an earlier test's) is free
		 * again once that hierarchy is unmounted with no groups left */
		for (int i = 0; i < 4; i++) {
			char v1[128], ctls[64];

			if (v1_mount_of("cpu", v1, sizeof(v1), ctls, sizeof(ctls)) ||
			    v1_mount_of("cpuset", v1, sizeof(v1), ctls, sizeof(ctls)))
				if (v1_unmount(v1, ctls))
					break;
		}
		/* an unmounted v1 hierarchy lets its controllers go a little later */
		int e1 = 0, e2 = 0;

		for (int t = 0; t < 50 && (!cg.cpu[0] || !cg.cpuset[0]); t++) {
			if (!cg.cpu[0] && !(e1 = wr(sc, "+cpu")))
				snprintf(cg.cpu, sizeof(cg.cpu), "%s", d);
			if (!cg.cpuset[0] && !(e2 = wr(sc, "+cpuset")))
				snprintf(cg.cpuset, sizeof(cg.cpuset), "%s", d);
			if (!cg.cpu[0] || !cg.cpuset[0])
				sleep_us(100000);
		}
		if (!cg.cpu[0] || !cg.cpuset[0])
			die("cgroup v2 at %s: cpu %s, cpuset %s (bound to a v1 hierarchy?)", d,
			    cg.cpu[0] ? "on" : strerror(e1), cg.cpuset[0] ? "on" : strerror(e2));
		return;
	}
	/* v1 */
	ensure_cgroup_tmpfs();
	if (mounted_with("cgroup", "cpu", d, sizeof(d)))
		snprintf(cg.cpu, sizeof(cg.cpu), "%s", d);
	if (mounted_with("cgroup", "cpuset", d, sizeof(d)))
		snprintf(cg.cpuset, sizeof(cg.cpuset), "%s", d);
	if (!cg.cpu[0] && !cg.cpuset[0] && try_mount("/sys/fs/cgroup/fz", "cgroup", "cpu,cpuset", 0)) {
		strcpy(cg.cpu, "/sys/fs/cgroup/fz");
		strcpy(cg.cpuset, cg.cpu);
	}
	if (!cg.cpu[0] && try_mount("/sys/fs/cgroup/fzcpu", "cgroup", "cpu", 0))
		strcpy(cg.cpu, "/sys/fs/cgroup/fzcpu");
	if (!cg.cpuset[0] && try_mount("/sys/fs/cgroup/fzcpuset", "cgroup", "cpuset", 1))
		strcpy(cg.cpuset, "/sys/fs/cgroup/fzcpuset");
	if (!cg.cpu[0])
		die("no cgroup v1 hierarchy with the cpu controller");
	if (cg.cpuset[0]) {
		char p[256];

		gpath(p, sizeof(p), cg.cpuset, -1, "cpuset.sched_load_balance");
		if (!rd_line(p, cg.balance0, sizeof(cg.balance0)))
			cg.balance0[0] = 0;
	}
}

/* the directories of group G: its cpu and its cpuset one (may be one) */
static int gdirs(int g, const char *roots[2])
{
	int n = 0;

	if (cg.cpu[0])
		roots[n++] = cg.cpu;
	if (cg.cpuset[0] && strcmp(cg.cpuset, cg.cpu))
		roots[n++] = cg.cpuset;
	(void)g;
	return n;
}

static int cg_mk(int g)
{
	const char *roots[2];
	int n = gdirs(g, roots), err = 0;
	char p[256];

	if (g >= 4 && !cg.made[g - 4])
		return ENOENT;
	for (int i = 0; i < n; i++) {
		if (cg.v2 && g >= 4) {
			/* v2: the parent hands its controllers down (fails if it has tasks) */
			gpath(p, sizeof(p), roots[i], g - 4, "cgroup.subtree_control");
			wr(p, cg.cpuset[0] ? "+cpu +cpuset" : "+cpu");
		}
		gpath(p, sizeof(p), roots[i], g, "");
		if (mkdir(p, 0755) && errno != EEXIST)
			err = errno;
		if (!cg.v2 && cg.cpuset[0] && !strcmp(roots[i], cg.cpuset)) {
			/* v1 cpuset: a group takes tasks only with cpus and mems */
			char q[256];
			char pc[256];

			gpath(q, sizeof(q), roots[i], g, "cpuset.mems");
			wr(q, "0");
			/* the parent's CPUs: a list with an offline CPU is refused */
			gpath(q, sizeof(q), roots[i], g >= 4 ? g - 4 : -1, "cpuset.cpus");
			if (rd_line(q, pc, sizeof(pc))) {
				gpath(q, sizeof(q), roots[i], g, "cpuset.cpus");
				wr(q, pc);
			}
		}
	}
	if (!err)
		cg.made[g] = true;
	return err;
}

static int cg_rm(int g)
{
	const char *roots[2];
	int n = gdirs(g, roots), err = 0;
	char p[256];

	if (g + 4 < NGROUP && cg.made[g + 4])
		return EBUSY;
	for (int i = n - 1; i >= 0; i--) {
		gpath(p, sizeof(p), roots[i], g, "");
		if (rmdir(p) && errno != ENOENT)
			err = errno;
	}
	if (!err)
		cg.made[g] = false;
	return err;
}

/* move ID (a thread, or with PROC a process) to group G (-1: the root) */
static int cg_move(int g, pid_t id, bool proc)
{
	const char *roots[2];
	int n = gdirs(g, roots), err = 0;
	char p[256];

	if (g >= 0 && !cg.made[g])
		return ENOENT;
	for (int i = 0; i < n; i++) {
		gpath(p, sizeof(p), roots[i], g, proc || cg.v2 ? "cgroup.procs" : "tasks");
		int e = wrf(p, "%d", (int)id);

		if (e)
			err = e;
	}
	return err;
}

static int cg_rt(int g, long long runtime, long long period)
{
	char p[256];
	int e1, e2;

	if (!cg.cpu[0] || !cg.made[g])
		return ENOENT;
	if (cg.v2) {
		gpath(p, sizeof(p), cg.cpu, g, "cpu.rt.max");
		if (runtime < 0)
			return wrf(p, "max %lld", period);
		return wrf(p, "%lld %lld", runtime, period);
	}
	/* v1: period first when it grows the room, else runtime first */
	gpath(p, sizeof(p), cg.cpu, g, "cpu.rt_period_us");
	e1 = wrf(p, "%lld", period);
	gpath(p, sizeof(p), cg.cpu, g, "cpu.rt_runtime_us");
	e2 = wrf(p, "%lld", runtime);
	return e2 ? e2 : e1;
}

static int cg_cpuset(int g, long long mask, int part)
{
	char p[256], list[256] = "";
	size_t l = 0;
	int e;

	if (!cg.cpuset[0] || !cg.made[g])
		return ENOENT;
	for (int c = 0; c < ncpu; c++)
		if (mask & (1LL << c))
			l += (size_t)snprintf(list + l, sizeof(list) - l, "%s%d", l ? "," : "", c);
	gpath(p, sizeof(p), cg.cpuset, g, "cpuset.cpus");
	e = wr(p, list);
	if (cg.v2) {
		static const char *const parts[] = { "member", "root", "isolated" };

		gpath(p, sizeof(p), cg.cpuset, g, "cpuset.cpus.partition");
		int e2 = wr(p, parts[part % 3]);

		return e2 ? e2 : e;
	}
	gpath(p, sizeof(p), cg.cpuset, g, "cpuset.cpu_exclusive");
	int e2 = wrf(p, "%d", part ? 1 : 0);

	return e2 ? e2 : e;
}

/* ---- the deadline book ------------------------------------------------------------ */

struct book {
	bool has[MAX_CPUS];
	long long total[MAX_CPUS], running[MAX_CPUS], this_bw[MAX_CPUS];
	uint64_t span[MAX_CPUS];	/* top sched domain's CPUs, 0 if none */
};

static bool book_read(struct book *b)
{
	FILE *f = fopen(DEBUG_FILE, "re");
	char line[512];
	int cpu = -1;

	memset(b, 0, sizeof(*b));
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		char *s = line, *colon;
		long long v;

		while (isspace((unsigned char)*s))
			s++;
		if (!strncmp(s, "dl_rq[", 6)) {
			cpu = atoi(s + 6);
			if (cpu < 0 || cpu >= MAX_CPUS)
				cpu = -1;
			else
				b->has[cpu] = true;
			continue;
		}
		if (cpu < 0 || *s != '.')
			continue;
		colon = strchr(s, ':');
		if (!colon)
			continue;
		v = strtoll(colon + 1, NULL, 10);
		if (!strncmp(s, ".running_bw ", 12))
			b->running[cpu] = v;
		else if (!strncmp(s, ".this_bw ", 9))
			b->this_bw[cpu] = v;
		else if (!strncmp(s, ".dl_bw->total_bw ", 17))
			b->total[cpu] = v;
		else if (!strncmp(s, ".dl_nr_running", 14) || !strncmp(s, ".dl_bw->bw", 10) ||
			 !strncmp(s, ".extra_bw ", 10) || !strncmp(s, ".max_bw ", 8))
			;	/* extra_bw, max_bw: since patch 0031 */
		else if (s[0] == '.' && strncmp(s, ".dl_", 4) && strncmp(s, ".running", 8) &&
			 strncmp(s, ".this", 5))
			cpu = -1;	/* past the dl_rq block */
	}
	fclose(f);
	/* the root domains: each CPU's top sched domain in /proc/schedstat */
	f = fopen(SCHEDSTAT, "re");
	if (!f)
		return true;
	cpu = -1;
	while (fgets(line, sizeof(line), f)) {
		char a[32], m[160], n[160];

		if (!strncmp(line, "cpu", 3) && isdigit((unsigned char)line[3])) {
			cpu = atoi(line + 3);
			if (cpu >= MAX_CPUS)
				cpu = -1;
			continue;
		}
		if (cpu < 0 || strncmp(line, "domain", 6) || sscanf(line, "%31s %159s %159s", a, m, n) < 2)
			continue;
		/* version 17 names the level first */
		char *mask = strspn(m, "0123456789abcdef,") == strlen(m) ? m : n;
		uint64_t bits = 0;

		for (char *c = mask; *c; c++) {
			if (*c == ',')
				continue;
			bits = bits << 4 | (uint64_t)(isdigit((unsigned char)*c) ? *c - '0' : *c - 'a' + 10);
		}
		b->span[cpu] = bits;	/* the last line is the top level */
	}
	fclose(f);
	return true;
}

static bool book_same(const struct book *a, const struct book *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* read until two readings 50 ms apart agree (20 tries) */
static bool book_read_stable(struct book *b)
{
	struct book prev;

	if (!book_read(&prev))
		return false;
	for (int i = 0; i < 20; i++) {
		sleep_us(50000);
		book_read(b);
		if (book_same(&prev, b))
			return true;
		prev = *b;
	}
	return true;
}

/* the book's invariants; false with WHY filled if one does not hold */
static bool book_check(const struct book *b, char *why, size_t len)
{
	for (int c = 0; c < ncpu; c++) {
		if (!b->has[c])
			continue;
		if (b->running[c] > b->this_bw[c]) {
			snprintf(why, len, "cpu%d running_bw %lld > this_bw %lld", c, b->running[c],
				 b->this_bw[c]);
			return false;
		}
		if (!b->span[c] || (b->span[c] & ((1ULL << c) - 1)))
			continue;	/* no domain, or not its first CPU */
		long long sum = 0;

		for (int d = 0; d < ncpu; d++) {
			if (!(b->span[c] & (1ULL << d)))
				continue;
			if (!b->has[d] || b->total[d] != b->total[c]) {
				snprintf(why, len, "root domain of cpu%d (span %#llx): cpu%d total_bw %lld != %lld",
					 c, (unsigned long long)b->span[c], d, b->total[d], b->total[c]);
				return false;
			}
			sum += b->this_bw[d];
		}
		/*
		 * Not equal: a task that leaves SCHED_DEADLINE gives its rq's
		 * this_bw back at once, its root domain's total_bw only at its
		 * 0-lag time, which can be seconds away (a 1024 ns / 1 ms task
		 * that overran by 4 ms has a deadline 4 s ahead); seed 2 in v2
		 * mode had a demoted task switch itself to SCHED_IDLE just so.
		 * Equality is checked at the end, once every task is gone.
		 */
		if (sum > b->total[c]) {
			snprintf(why, len, "root domain of cpu%d (span %#llx): sum of this_bw %lld > total_bw %lld",
				 c, (unsigned long long)b->span[c], sum, b->total[c]);
			return false;
		}
	}
	return true;
}

/* ---- the controller ---------------------------------------------------------------- */

static void gen_attr(struct op *o)
{
	static const long long pol[] = { SCHED_OTHER, SCHED_BATCH, SCHED_IDLE, SCHED_FIFO, SCHED_RR,
					 SCHED_DEADLINE, SCHED_DEADLINE, SCHED_FIFO };
	static const long long per[] = { 1000000, 10000000, 100000000, 1000000000 };
	long long p = pick(pol, 8);

	o->a[1] = p;
	o->a[3] = rnd_below(8) == 0 ? SCHED_FLAG_RESET_ON_FORK : 0;
	if (p == SCHED_FIFO || p == SCHED_RR) {
		static const long long pr[] = { 1, 10, 49, 50, 51, 90, 98 };

		o->a[2] = pick(pr, 7);
	} else if (p == SCHED_DEADLINE) {
		long long period = pick(per, 4), ratio;

		/* runtime/period at least 1/1000: waits stay bounded (see the top) */
		static const long long div[] = { 1000, 100, 20, 10, 4 };

		ratio = pick(div, 5);
		o->a[5] = period;
		o->a[4] = period / ratio < 1024 ? 1024 : period / ratio;
		if (rnd_below(4) == 0)
			o->a[4] = 1024, o->a[5] = 1000000;	/* the least runtime */
		o->a[3] |= (rnd_below(2) ? SCHED_FLAG_RECLAIM : 0) |
			   (rnd_below(3) == 0 ? SCHED_FLAG_DL_OVERRUN : 0) |
			   (rnd_below(2) ? SCHED_FLAG_DL_DEMOTION : 0);
		o->a[2] = rnd_below(40) - 20;	/* a demoted task's nice */
	} else {
		o->a[2] = rnd_below(40) - 20;
	}
}

static void gen_op(struct op *o)
{
	int total = 0, r;

	memset(o, 0, sizeof(*o));
	for (int i = 0; i < NOPS; i++)
		total += cfg.excluded[i] ? 0 : opweight[i];
	r = (int)rnd_below(total);
	for (o->code = 0; o->code < NOPS; o->code++) {
		if (cfg.excluded[o->code])
			continue;
		r -= opweight[o->code];
		if (r < 0)
			break;
	}
	o->a[0] = rnd_below(cfg.workers);
	switch (o->code) {
	case OP_SETATTR:
	case OP_SELF:
		gen_attr(o);
		break;
	case OP_NICE:
		o->a[1] = rnd_below(40) - 20;
		break;
	case OP_AFFINITY:
		o->a[1] = rnd_below((1LL << ncpu) - 1) + 1;
		break;
	case OP_LOCK: {
		static const long long tmo[] = { 0, 0, 100, 1000, 20000 };

		o->a[1] = rnd_below((1 << NMUTEX) - 1) + 1;
		o->a[2] = rnd_below(5000);
		o->a[3] = pick(tmo, 5);
		break;
	}
	case OP_CWAIT:
		o->a[1] = rnd_below(50000) + 100;
		break;
	case OP_FORK:
		o->a[1] = rnd_below(2);
		break;
	case OP_DUTY: {
		static const long long sp[] = { 0, 50, 500, 2000 }, sl[] = { 100, 1000, 5000 };

		o->a[1] = pick(sp, 4);
		o->a[2] = pick(sl, 3);
		break;
	}
	case OP_STOP:
	case OP_CONT:
	case OP_KILL:
	case OP_PSPAWN:
		o->a[0] = rnd_below(cfg.procs);
		break;
	case OP_CGMK:
	case OP_CGRM:
		o->a[0] = rnd_below(NGROUP);
		break;
	case OP_CGMOVE:
		o->a[1] = rnd_below(NGROUP + 1) - 1;
		break;
	case OP_CGPROC:
		o->a[0] = rnd_below(cfg.procs);
		o->a[1] = rnd_below(NGROUP + 1) - 1;
		break;
	case OP_CGRT: {
		static const long long per[] = { 1000, 10000, 100000, 1000000 };
		static const long long div[] = { 1000, 10, 4, 2, 1 };
		long long period = pick(per, 4);

		o->a[0] = rnd_below(NGROUP);
		o->a[2] = period;
		switch (rnd_below(4)) {
		case 0:
			o->a[1] = 0;
			break;
		case 1:
			o->a[1] = -1;
			break;
		default:
			o->a[1] = period / pick(div, 5);
		}
		break;
	}
	case OP_CPUSET:
		o->a[0] = rnd_below(NGROUP);
		o->a[1] = rnd_below((1LL << ncpu) - 1) + 1;
		o->a[2] = rnd_below(3);
		break;
	case OP_BALANCE:
		o->a[0] = rnd_below(2);
		break;
	case OP_HOTPLUG:
		o->a[0] = ncpu > 1 ? 1 + rnd_below(ncpu - 1) : 0;
		o->a[1] = rnd_below(2);
		break;
	case OP_SYSCTL: {
		static const long long v[] = { -1, 950000, 900000, 990000, 1000000 };

		o->a[0] = pick(v, 5);
		break;
	}
	case OP_PAUSE:
		o->a[0] = rnd_below(5000);
		break;
	}
}

static pid_t wtid(long long i)
{
	if (i < 0 || i >= cfg.workers || !atomic_load(&S->w[i].alive))
		return 0;
	return atomic_load(&S->w[i].tid);
}

/* post a worker's op: 0, EBUSY if it has not done the last one, ESRCH */
static int post(const struct op *o)
{
	struct wslot *w = &S->w[o->a[0]];

	if (!wtid(o->a[0]))
		return ESRCH;
	if (atomic_load(&w->done_seq) != atomic_load(&w->cmd_seq))
		return EBUSY;
	w->cmd = *o;
	atomic_fetch_add_explicit(&w->cmd_seq, 1, memory_order_release);
	return 0;
}


/*
 * Reap whatever has exited: the worker processes, and (as the child
 * subreaper) the children of OP_FORK whose worker was killed before it
 * waited for them; an orphan zombie left to init keeps its cgroup busy.
 */
static void reap_all(void)
{
	pid_t r;
	int st;

	while ((r = waitpid(-1, &st, WNOHANG)) > 0) {
		for (int p = 0; p < cfg.procs; p++) {
			if (procpid[p] != r)
				continue;
			procpid[p] = 0;
			for (int i = p; i < cfg.workers; i += cfg.procs)
				atomic_store(&S->w[i].alive, 0);
			if (!proc_killed[p] && !died[0] && !atomic_load(&S->stop))
				snprintf(died, sizeof(died), "worker process %d (pid %d) died unasked: %s %d", p,
					 (int)r, WIFSIGNALED(st) ? "signal" : "exit status",
					 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		}
	}
}

/* SIGKILL process P and reap it within LIMIT_MS: 0 or ETIMEDOUT */
/* CPU time a thread has had so far (ns, schedstat), -1 if it is gone */
static long long thread_runtime(pid_t tid)
{
	char p[64], line[128];

	snprintf(p, sizeof(p), "/proc/%d/schedstat", tid);
	return rd_line(p, line, sizeof(line)) ? strtoll(line, NULL, 10) : -1;
}

/* ... summed over a process's threads, -1 if it is gone */
static long long process_runtime(pid_t pid)
{
	char p[64];
	DIR *d;
	struct dirent *de;
	long long sum = -1;

	snprintf(p, sizeof(p), "/proc/%d/task", pid);
	d = opendir(p);
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.') {
			long long r = thread_runtime(atoi(de->d_name));

			sum = (sum < 0 ? 0 : sum) + (r > 0 ? r : 0);
		}
	if (d)
		closedir(d);
	return sum;
}

static int kill_reap(int p, int limit_ms)
{
	if (!procpid[p])
		return ESRCH;
	proc_killed[p] = true;
	kill(procpid[p], SIGCONT);
	kill(procpid[p], SIGKILL);
	/* as quiesce(): waited for while its threads get CPU time on their way out */
	long long rt = -2, r;

	for (int t = 0, seen = 0; t < limit_ms * STALL_CAP && t - seen < limit_ms; t += 10) {
		reap_all();
		if (!procpid[p])
			return 0;
		r = process_runtime(procpid[p]);
		if (r != rt)
			rt = r, seen = t;
		sleep_us(10000);
	}
	return ETIMEDOUT;
}

static int run_op(const struct op *o)
{
	pid_t t = 0;
	char p[256];

	if (o->code < OP_LOCK) {
		t = wtid(o->a[0]);
		if (!t)
			return ESRCH;
	}
	switch (o->code) {
	case OP_SETATTR:
		return set_attr(t, o->a[1], o->a[2], o->a[3], o->a[4], o->a[5]);
	case OP_NICE:
		return setpriority(PRIO_PROCESS, (id_t)t, (int)o->a[1]) ? errno : 0;
	case OP_AFFINITY: {
		cpu_set_t s;

		CPU_ZERO(&s);
		for (int c = 0; c < ncpu; c++)
			if (o->a[1] & (1LL << c))
				CPU_SET(c, &s);
		return sched_setaffinity(t, sizeof(s), &s) ? errno : 0;
	}
	case OP_LOCK:
	case OP_CWAIT:
	case OP_CSIGNAL:
	case OP_CBCAST:
	case OP_YIELD:
	case OP_SELF:
	case OP_FORK:
	case OP_TEXIT:
	case OP_DUTY:
		return post(o);
	case OP_TSPAWN:
		if (atomic_load(&S->w[o->a[0]].alive) || !procpid[o->a[0] % cfg.procs])
			return EEXIST;
		atomic_store(&S->w[o->a[0]].respawn, 1);
		return 0;
	case OP_STOP:
	case OP_CONT:
		if (!procpid[o->a[0]])
			return ESRCH;
		proc_stopped[o->a[0]] = o->code == OP_STOP;
		return kill(procpid[o->a[0]], o->code == OP_STOP ? SIGSTOP : SIGCONT) ? errno : 0;
	case OP_KILL:
		return kill_reap((int)o->a[0], cfg.bound_s * 1000);
	case OP_PSPAWN:
		if (procpid[o->a[0]])
			return EEXIST;
		spawn_proc((int)o->a[0]);
		return 0;
	case OP_CGMK:
		return cg_mk((int)o->a[0]);
	case OP_CGRM:
		return cg_rm((int)o->a[0]);
	case OP_CGMOVE:
		t = wtid(o->a[0]);
		if (!t)
			return ESRCH;
		return cg_move((int)o->a[1], t, false);
	case OP_CGPROC:
		if (!procpid[o->a[0]])
			return ESRCH;
		return cg_move((int)o->a[1], procpid[o->a[0]], true);
	case OP_CGRT:
		return cg_rt((int)o->a[0], o->a[1], o->a[2]);
	case OP_CPUSET:
		return cg_cpuset((int)o->a[0], o->a[1], (int)o->a[2]);
	case OP_BALANCE:
		if (cg.v2 || !cg.cpuset[0])
			return ENOENT;
		gpath(p, sizeof(p), cg.cpuset, -1, "cpuset.sched_load_balance");
		return wrf(p, "%lld", o->a[0]);
	case OP_HOTPLUG:
		if (!cfg.hotplug || o->a[0] < 1)
			return EPERM;
		snprintf(p, sizeof(p), CPU_SYSFS "/cpu%lld/online", o->a[0]);
		return wrf(p, "%lld", o->a[1]);
	case OP_SYSCTL:
		return wrf(RT_SYSCTL, "%lld", o->a[0]);
	case OP_PAUSE:
		sleep_us(o->a[0]);
		return 0;
	}
	return EINVAL;
}

static void log_op(const struct op *o, int rc)
{
	char line[160];

	snprintf(line, sizeof(line), "op %s %lld %lld %lld %lld %lld %lld rc=%d", opname[o->code], o->a[0],
		 o->a[1], o->a[2], o->a[3], o->a[4], o->a[5], rc);
	snprintf(tail[nops_done % TAIL_MAX], sizeof(tail[0]), "%ld %s", nops_done, line);
	if (logfd >= 0) {
		/* one write per line: what reached the file survives a panic */
		size_t l = strlen(line);

		line[l] = '\n';
		if (write(logfd, line, l + 1) < 0)
			logfd = -1;
	}
}

static void print_tail(void)
{
	long from = nops_done - cfg.tail;

	if (from < 0)
		from = 0;
	diag("seed %" PRIu64 "; the last %ld operations (number, op, A0-A5, result errno):", cfg.seed,
	     nops_done - from);
	for (long i = from; i < nops_done; i++)
		diag("  %s", tail[i % TAIL_MAX]);
	if (cfg.log)
		diag("replay: schedfuzz -r %s (the whole log)", cfg.log);
}

static void describe_thread(int i)
{
	pid_t t = atomic_load(&S->w[i].tid);
	char p[128], stat[512] = "?", wchan[64] = "?";
	struct rtlab_sched_attr a = { 0 };

	snprintf(p, sizeof(p), "/proc/%d/stat", t);
	rd_line(p, stat, sizeof(stat));
	snprintf(p, sizeof(p), "/proc/%d/wchan", t);
	rd_line(p, wchan, sizeof(wchan));
	syscall(SYS_sched_getattr, t, &a, sizeof(a), 0);
	diag("  worker %d tid %d in op %d: policy %u prio %u nice %d runtime %" PRIu64 " period %" PRIu64
	     " flags %#" PRIx64 " wchan %s; stat: %.200s", i, t, atomic_load(&S->w[i].in_op), a.sched_policy,
	     a.sched_priority, a.sched_nice, a.sched_runtime, a.sched_period, a.sched_flags, wchan,
	     strchr(stat, ')') ? strchr(stat, ')') + 2 : stat);
}

/* the CPU a thread is on or last ran on (field 39 of its stat), -1 if unknown */
static int thread_cpu(const char *stat)
{
	const char *f = strrchr(stat, ')');
	int n = 2;

	for (; f && *f; f++)
		if (*f == ' ' && ++n == 39)
			return atoi(f + 1);
	return -1;
}

/*
 * A book that stays wrong: each SCHED_DEADLINE worker with its bandwidth
 * (BW_SHIFT 20, as total_bw counts it), the CPU whose this_bw holds it (the
 * one it is on or last ran on), its affinity (whose root domain a rebuild
 * counts it in) and its cpuset (whose nr_deadline_tasks a rebuild trusts),
 * so that the bandwidth a root domain lacks can be matched to a task.
 */
static void describe_dl_workers(void)
{
	for (int i = 0; i < cfg.workers; i++) {
		pid_t t = atomic_load(&S->w[i].tid);
		struct rtlab_sched_attr a = { 0 };
		char p[128], stat[512] = "", cpus[128] = "?", cs[256] = "?", st[256];
		FILE *f;

		if (!atomic_load(&S->w[i].alive) ||
		    syscall(SYS_sched_getattr, t, &a, sizeof(a), 0) || a.sched_policy != SCHED_DEADLINE)
			continue;
		snprintf(p, sizeof(p), "/proc/%d/stat", t);
		rd_line(p, stat, sizeof(stat));
		snprintf(p, sizeof(p), "/proc/%d/cpuset", t);
		rd_line(p, cs, sizeof(cs));
		snprintf(p, sizeof(p), "/proc/%d/status", t);
		f = fopen(p, "r");
		while (f && fgets(st, sizeof(st), f))
			if (!strncmp(st, "Cpus_allowed_list:", 18)) {
				snprintf(cpus, sizeof(cpus), "%s", st + 18 + strspn(st + 18, " \t"));
				cpus[strcspn(cpus, "\n")] = 0;
			}
		if (f)
			fclose(f);
		diag("  deadline worker %d tid %d: bw %llu (%" PRIu64 "/%" PRIu64 " ns, flags %#" PRIx64
		     "), cpu %d, affinity %s, cpuset %s", i, t,
		     a.sched_period ? (unsigned long long)((a.sched_runtime << 20) / a.sched_period) : 0ULL,
		     a.sched_runtime, a.sched_period, a.sched_flags, thread_cpu(stat), cpus, cs);
	}
}

static void save_debug(const char *name)
{
	char p[512], buf[4096];
	int in, out;
	ssize_t n;

	if (!cfg.outdir)
		return;
	snprintf(p, sizeof(p), "%s/%s", cfg.outdir, name);
	in = open(DEBUG_FILE, O_RDONLY | O_CLOEXEC);
	out = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) < 0)
			break;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	diag("the scheduler's debug file is in %s", p);
}

static struct {
	int points, book_checked, book_healed;
	long long worst_ack_ms, worst_heal_ms;
	bool failed;
	char why[512];
} q;

/* pending inactive timers (a 0-lag time still to come), -1 if unreadable */
static int inactive_timers(void)
{
	FILE *f = fopen("/proc/timer_list", "r");
	char line[256];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "inactive_task_timer"))
			n++;
	fclose(f);
	return n;
}

/*
 * A book that does not hold at a quiescent point is read again while the
 * workers still hold (no operation runs) until it holds or -B seconds
 * pass.  A task that exits, or a deadline task of a cpuset that a rebuild
 * of the root domains (hotplug, a partition, the RT sysctl) no longer
 * finds, keeps its rq's this_bw until its 0-lag time (its inactive
 * timer), but the rebuild computes total_bw without it: 6.12's
 * dl_rebuild_rd_accounting() adds only the deadline tasks of cpusets, and
 * a task past cgroup_exit() is in none.  The sum of this_bw is then above
 * total_bw until that timer fires, seconds later for a tiny budget that
 * overran.  That heals with no operation running; a miscount does not.
 * True if it healed (HEAL_MS set), false if it still does not hold.
 */
static bool book_heals(long long *heal_ms)
{
	int64_t t0 = now_ns(), bound = (int64_t)cfg.bound_s * RTLAB_NSEC_PER_SEC;
	char why[64];
	struct book b;

	while (now_ns() - t0 < bound) {
		sleep_us(200000);
		if (book_read_stable(&b) && book_check(&b, why, sizeof(why))) {
			*heal_ms = (now_ns() - t0) / RTLAB_NSEC_PER_MSEC;
			return true;
		}
	}
	return false;
}

/*
 * "Stranded" is measured, not guessed from the policy: a thread that has
 * not answered is waited for as long as it gets CPU time (a FIFO thread in
 * a group with 10 us per 10 ms, behind a higher one, can take many seconds
 * under TCG to finish its operation); one that gets none for -B seconds is
 * stranded, and -B x STALL_CAP in all is too slow even if it runs.
 */
/* a quiescent point: progress, then the book; false on a failure */
static bool quiesce(void)
{
	unsigned int e = atomic_load(&S->quiesce) + 1;
	int64_t t0 = now_ns(), bound = (int64_t)cfg.bound_s * RTLAB_NSEC_PER_SEC;
	int64_t seen[MAX_W];
	long long rt[MAX_W];
	struct book b;
	bool left, stalled = false;

	for (int p = 0; p < cfg.procs; p++)
		if (procpid[p] && proc_stopped[p]) {
			kill(procpid[p], SIGCONT);
			proc_stopped[p] = false;
		}
	for (int i = 0; i < cfg.workers; i++)
		rt[i] = -2, seen[i] = t0;
	atomic_store(&S->hold, e);
	atomic_store(&S->quiesce, e);
	do {
		int64_t now = now_ns();

		left = false;
		for (int i = 0; i < cfg.workers; i++) {
			long long r;

			if (!atomic_load(&S->w[i].alive) || atomic_load(&S->w[i].ack) == e)
				continue;
			left = true;
			r = thread_runtime(atomic_load(&S->w[i].tid));
			if (r != rt[i])
				rt[i] = r, seen[i] = now;
			else if (now - seen[i] > bound)
				stalled = true;
		}
		if (left && !stalled)
			sleep_us(5000);
	} while (left && !stalled && now_ns() - t0 < bound * STALL_CAP);
	q.points++;
	if ((now_ns() - t0) / RTLAB_NSEC_PER_MSEC > q.worst_ack_ms)
		q.worst_ack_ms = (now_ns() - t0) / RTLAB_NSEC_PER_MSEC;
	if (left) {
		if (stalled)
			snprintf(q.why, sizeof(q.why), "progress: at quiescent point %d, a worker that had not "
				 "answered got no CPU time for %d s", q.points, cfg.bound_s);
		else
			snprintf(q.why, sizeof(q.why), "progress: at quiescent point %d, workers that ran "
				 "did not answer within %d s", q.points, cfg.bound_s * STALL_CAP);
		diag("%s:", q.why);
		for (int i = 0; i < cfg.workers; i++)
			if (atomic_load(&S->w[i].alive) && atomic_load(&S->w[i].ack) != e)
				describe_thread(i);
		save_debug("schedfuzz-stuck.txt");
		q.failed = true;
		return false;
	}
	if (!book_read_stable(&b)) {
		snprintf(q.why, sizeof(q.why), "book: %s cannot be read", DEBUG_FILE);
		q.failed = true;
		return false;
	}
	q.book_checked++;
	char why[sizeof(q.why) - 64];

	if (!book_check(&b, why, sizeof(why))) {
		int timers = inactive_timers();
		long long heal_ms;

		diag("book at quiescent point %d: %s (%d inactive timers pending)", q.points, why,
		     timers);
		save_debug("schedfuzz-book.txt");
		if (book_heals(&heal_ms)) {
			diag("book at quiescent point %d: holds again after %lld ms with no operation "
			     "running (a 0-lag time passed)", q.points, heal_ms);
			q.book_healed++;
			if (heal_ms > q.worst_heal_ms)
				q.worst_heal_ms = heal_ms;
		} else {
			/* "book: " tells the verdicts which point failed */
			snprintf(q.why, sizeof(q.why), "book: %s, still after %d s with no operation running",
				 why, cfg.bound_s);
			describe_dl_workers();
			q.failed = true;
			return false;
		}
	}
	hold_end();
	return true;
}

/* replay: the next op of the log, false at its end */
static FILE *replay_f;
static int replay_line;

static bool replay_next(struct op *o)
{
	char line[256], name[32];

	while (fgets(line, sizeof(line), replay_f)) {
		replay_line++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		memset(o, 0, sizeof(*o));
		if (sscanf(line, "op %31s %lld %lld %lld %lld %lld %lld", name, &o->a[0], &o->a[1], &o->a[2],
			   &o->a[3], &o->a[4], &o->a[5]) != 7 || (o->code = opt_choice(opname, name)) < 0)
			die("%s:%d: not an operation line \"op NAME A0 .. A5\"", cfg.replay, replay_line);
		if ((o->code <= OP_TSPAWN && (o->a[0] < 0 || o->a[0] >= cfg.workers)) ||
		    ((o->code == OP_STOP || o->code == OP_CONT || o->code == OP_KILL || o->code == OP_PSPAWN ||
		      o->code == OP_CGPROC) && (o->a[0] < 0 || o->a[0] >= cfg.procs)) ||
		    ((o->code == OP_CGMK || o->code == OP_CGRM || o->code == OP_CGRT || o->code == OP_CPUSET) &&
		     (o->a[0] < 0 || o->a[0] >= NGROUP)) ||
		    ((o->code == OP_CGMOVE || o->code == OP_CGPROC) && (o->a[1] < -1 || o->a[1] >= NGROUP)))
			die("%s:%d: %s: an argument is out of range", cfg.replay, replay_line, name);
		return true;
	}
	return false;
}

/* the header of a replay log gives the run's shape */
static void replay_open(void)
{
	char line[256], mode[8];
	unsigned long long seed;
	int hp;

	replay_f = fopen(cfg.replay, "re");
	if (!replay_f)
		die("%s: %s", cfg.replay, strerror(errno));
	if (!fgets(line, sizeof(line), replay_f) ||
	    sscanf(line, "# schedfuzz seed=%llu workers=%d procs=%d cgroup=%7s hotplug=%d", &seed, &cfg.workers,
		   &cfg.procs, mode, &hp) != 5)
		die("%s:1: not a schedfuzz log (no \"# schedfuzz seed=...\" header)", cfg.replay);
	cfg.hotplug = hp != 0;
	replay_line = 1;
	cfg.seed = seed;
	cfg.cg_mode = strcmp(mode, "v2") ? strcmp(mode, "none") ? "v1" : "none" : "v2";
	if (cfg.workers < 1 || cfg.workers > MAX_W || cfg.procs < 1 || cfg.procs > MAX_P ||
	    cfg.procs > cfg.workers)
		die("%s:1: workers or procs out of range", cfg.replay);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: schedfuzz [OPTIONS]\n"
		"Seeded random scheduler operations (policies, PI mutex chains, condvars,\n"
		"fork/exec, signals, cgroups, cpusets, hotplug, the RT sysctl) with invariants:\n"
		"progress of every thread, the deadline bandwidth book, clean teardown.\n"
		"  -s SEED    the generator's seed (default: from the clock, printed)\n"
		"  -t SECS    run time (default %d)        -n OPS   stop after OPS operations\n"
		"  -w N       worker threads (1-%d, default %d)   -p N  worker processes (default %d)\n"
		"  -c MODE    cgroups: v1 (cpu,cpuset), v2 or none (default v1); v2 unmounts\n"
		"             the v1 hierarchies of cpu and cpuset, removing their empty groups\n"
		"  -H         CPU hotplug operations too (never CPU 0)\n"
		"  -q OPS     a quiescent check every OPS operations (default %d)\n"
		"  -B SECS    progress bound at a quiescent point (default %d)\n"
		"  -x OPS     leave out these operations (comma-separated names)\n"
		"  -l FILE    write every operation to FILE (a log -r can replay)\n"
		"  -r FILE    replay FILE's operations instead of generating them\n"
		"  -o DIR     save the scheduler's debug file there on a failure\n"
		"  -k N       operations printed on a failure (default %d)\n"
		"Output: TAP.  Exit 0 all held, 1 an invariant failed, 2 usage or setup error.\n",
		cfg.secs, MAX_W, cfg.workers, cfg.procs, cfg.quiet_every, cfg.bound_s, cfg.tail);
}

static void parse_args(int argc, char **argv)
{
	static const struct option lo[] = { { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 } };
	int c;
	long v;

	while ((c = getopt_long(argc, argv, "s:t:n:w:p:c:Hq:B:x:l:r:o:k:h", lo, NULL)) != -1) {
		switch (c) {
		case 's': {
			char *end;

			errno = 0;
			cfg.seed = strtoull(optarg, &end, 0);
			if (errno || *end || !*optarg)
				die_usage("-s: not a number: %s", optarg);
			cfg.seed_set = true;
			break;
		}
		case 't':
			if (!opt_long(optarg, 1, 86400, &v))
				die_usage("-t: 1-86400 seconds");
			cfg.secs = (int)v;
			break;
		case 'n':
			if (!opt_long(optarg, 1, 100000000, &v))
				die_usage("-n: 1-100000000");
			cfg.max_ops = (int)v;
			break;
		case 'w':
			if (!opt_int(optarg, 1, MAX_W, &cfg.workers))
				die_usage("-w: 1-%d", MAX_W);
			break;
		case 'p':
			if (!opt_int(optarg, 1, MAX_P, &cfg.procs))
				die_usage("-p: 1-%d", MAX_P);
			break;
		case 'c':
			if (strcmp(optarg, "v1") && strcmp(optarg, "v2") && strcmp(optarg, "none"))
				die_usage("-c: v1, v2 or none");
			cfg.cg_mode = optarg;
			break;
		case 'H':
			cfg.hotplug = true;
			break;
		case 'q':
			if (!opt_int(optarg, 1, 1000000, &cfg.quiet_every))
				die_usage("-q: 1-1000000");
			break;
		case 'B':
			if (!opt_int(optarg, 1, 3600, &cfg.bound_s))
				die_usage("-B: 1-3600 seconds");
			break;
		case 'x': {
			char *s = strdup(optarg), *save = NULL;

			for (char *w = strtok_r(s, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
				int i = opt_choice(opname, w);

				if (i < 0)
					die_usage("-x: no operation %s", w);
				cfg.excluded[i] = true;
			}
			free(s);
			break;
		}
		case 'l':
			cfg.log = optarg;
			break;
		case 'r':
			cfg.replay = optarg;
			break;
		case 'o':
			cfg.outdir = optarg;
			break;
		case 'k':
			if (!opt_int(optarg, 1, TAIL_MAX, &cfg.tail))
				die_usage("-k: 1-%d", TAIL_MAX);
			break;
		case 'h':
			opt_usage_exit(usage, 0);
		default:
			opt_usage_exit(usage, RTLAB_EXIT_ERROR);
		}
	}
	if (optind < argc)
		die_usage("unexpected argument: %s", argv[optind]);
	if (cfg.procs > cfg.workers)
		die_usage("-p: more processes than workers");
	if (!cfg.hotplug)
		cfg.excluded[OP_HOTPLUG] = true;
	if (!strcmp(cfg.cg_mode, "none"))
		for (int i = OP_CGMK; i <= OP_BALANCE; i++)
			cfg.excluded[i] = true;
}

static void shm_setup(void)
{
	pthread_mutexattr_t ma;

	S = mmap(NULL, sizeof(*S), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (S == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
	for (int i = 0; i < NMUTEX; i++)
		if (pthread_mutex_init(&S->mx[i], &ma))
			die("pthread_mutex_init: PI, robust, process-shared");
	pthread_mutexattr_destroy(&ma);
	for (int i = 0; i < MAX_W; i++) {
		atomic_store(&S->w[i].in_op, -1);
		atomic_store(&S->w[i].spin_us, 200);
		atomic_store(&S->w[i].sleep_us, 1000);
	}
}

/* the end: kill and reap, restore, remove; one TAP point each */
static void teardown(const struct book *b0, const char *sysctl0)
{
	bool reaped = true, removed = true;
	char p[256];

	atomic_store(&S->stop, 1);
	hold_end();
	for (int i = 0; i < cfg.procs; i++) {
		if (!procpid[i])
			continue;
		if (kill_reap(i, cfg.bound_s * 1000)) {
			diag("worker process %d (pid %d) not reaped %d s after SIGKILL", i, procpid[i], cfg.bound_s);
			reaped = false;
		}
	}
	/* the orphans of OP_FORK, if any are left */
	for (int t = 0; t < 100; t++) {
		reap_all();
		if (waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD)
			break;
		sleep_us(10000);
	}
	tap_result(reaped, "every worker process is killed and reaped");

	for (int c = 1; c < ncpu; c++) {
		snprintf(p, sizeof(p), CPU_SYSFS "/cpu%d/online", c);
		if (access(p, W_OK) == 0)
			wr(p, "1");
	}
	if (wr(RT_SYSCTL, sysctl0))
		diag("sched_rt_runtime_us: could not restore %s", sysctl0);
	if (!cg.v2 && cg.cpuset[0] && cg.balance0[0]) {
		gpath(p, sizeof(p), cg.cpuset, -1, "cpuset.sched_load_balance");
		wr(p, cg.balance0);
	}
	for (int g = NGROUP - 1; g >= 0; g--) {
		int e = 0;

		if (!cg.made[g])
			continue;
		for (int t = 0; t < 300; t++) {
			if (cg.cpuset[0] && cg.v2) {
				gpath(p, sizeof(p), cg.cpuset, g, "cpuset.cpus.partition");
				wr(p, "member");
			}
			e = cg_rm(g);
			if (!e)
				break;
			sleep_us(10000);
		}
		if (e) {
			char n[32], line[300];
			const char *roots[2];
			int nr = gdirs(g, roots);

			diag("group %d: rmdir: %s", g, strerror(e));
			for (int i = 0; i < nr; i++) {
				DIR *dd;
				struct dirent *de;

				gpath(p, sizeof(p), roots[i], g, "");
				dd = opendir(p);
				while (dd && (de = readdir(dd)))
					if (de->d_type == DT_DIR && de->d_name[0] != '.')
						diag("  %s has the child %s", p, de->d_name);
				if (dd)
					closedir(dd);
				gpath(p, sizeof(p), roots[i], g, cg.v2 ? "cgroup.procs" : "tasks");
				FILE *f = fopen(p, "re");

				while (f && fgets(n, sizeof(n), f)) {
					char sp[64];

					n[strcspn(n, "\n")] = 0;
					snprintf(sp, sizeof(sp), "/proc/%s/stat", n);
					if (!rd_line(sp, line, sizeof(line)))
						strcpy(line, "(gone)");
					diag("  %s holds %s: %.200s", p, n, line);
				}
				if (f)
					fclose(f);
			}
			removed = false;
		}
	}
	tap_result(removed, "every group is removed afterwards");
	cg_release();

	/* the book: each CPU's total_bw and this_bw as before (0-lag timers: 1 s at most) */
	struct book b1;
	bool same = false;
	char why[512] = "";
	int diff = -1;

	for (int t = 0; t < 30 && !same; t++) {
		sleep_us(200000);
		book_read_stable(&b1);
		same = true;
		for (int c = 0; c < ncpu && same; c++)
			if (b0->has[c] && (b1.total[c] != b0->total[c] || b1.this_bw[c] != b0->this_bw[c]))
				same = false, diff = c;
	}
	if (!same && diff >= 0)
		diag("cpu%d: total_bw %lld this_bw %lld, before the run %lld and %lld", diff, b1.total[diff],
		     b1.this_bw[diff], b0->total[diff], b0->this_bw[diff]);
	if (same && !book_check(&b1, why, sizeof(why))) {
		diag("%s", why);
		same = false;
	}
	tap_result(same, "the deadline book is back to its state before the run (total_bw, this_bw per CPU)");
}

int main(int argc, char **argv)
{
	struct book b0;
	char sysctl0[32] = "950000", why[512];
	int64_t end;
	struct op o;

	parse_args(argc, argv);
	if (cfg.replay)
		replay_open();
	if (!cfg.seed_set && !cfg.replay)
		cfg.seed = (uint64_t)now_ns() ^ (uint64_t)getpid() << 32;
	rng_state = cfg.seed;
	ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (ncpu > MAX_CPUS || ncpu > 30)
		die("%d CPUs: at most 30", ncpu);
	rd_line(RT_SYSCTL, sysctl0, sizeof(sysctl0));
	if (!book_read_stable(&b0))
		die("%s: %s (debugfs mounted? patch 0019's this_bw lines?)", DEBUG_FILE, strerror(errno));
	if (!book_check(&b0, why, sizeof(why)))
		die("the book does not hold before the run: %s", why);
	if (cfg.log) {
		char hdr[200];

		logfd = open(cfg.log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (logfd < 0)
			die("%s: %s", cfg.log, strerror(errno));
		snprintf(hdr, sizeof(hdr), "# schedfuzz seed=%" PRIu64 " workers=%d procs=%d cgroup=%s hotplug=%d\n",
			 cfg.seed, cfg.workers, cfg.procs, cfg.cg_mode, cfg.hotplug);
		if (write(logfd, hdr, strlen(hdr)) < 0)
			die("%s: %s", cfg.log, strerror(errno));
	}
	tap_header(6);
	diag("schedfuzz seed=%" PRIu64 " workers=%d procs=%d cgroup=%s hotplug=%d cpus=%d%s%s", cfg.seed,
	     cfg.workers, cfg.procs, cfg.cg_mode, cfg.hotplug, ncpu, cfg.replay ? " replay=" : "",
	     cfg.replay ? cfg.replay : "");
	cg_setup();
	diag("cgroups: cpu at %s, cpuset at %s", cg.cpu[0] ? cg.cpu : "-", cg.cpuset[0] ? cg.cpuset : "-");
	shm_setup();
	{
		struct rtlab_sched_attr a = { .size = sizeof(a), .sched_policy = SCHED_FIFO, .sched_priority = 99,
					      .sched_flags = SCHED_FLAG_RESET_ON_FORK };

		if (syscall(SYS_sched_setattr, 0, &a, 0))
			die("sched_setattr(SCHED_FIFO 99): %s", strerror(errno));
	}
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	for (int p = 0; p < cfg.procs; p++)
		spawn_proc(p);
	sleep_us(100000);

	end = now_ns() + (int64_t)cfg.secs * RTLAB_NSEC_PER_SEC;
	while (cfg.replay ? replay_next(&o) : now_ns() < end && (!cfg.max_ops || nops_done < cfg.max_ops)) {
		int rc;

		if (!cfg.replay)
			gen_op(&o);
		rc = run_op(&o);
		opcount[o.code]++;
		if (rc && rc != EBUSY)
			operr[o.code]++;
		log_op(&o, rc);
		nops_done++;
		reap_all();
		if (died[0]) {
			snprintf(q.why, sizeof(q.why), "%s", died);
			q.failed = true;
			break;
		}
		if (o.code == OP_KILL && rc == ETIMEDOUT) {
			snprintf(q.why, sizeof(q.why), "a killed worker process was not reaped in %d s", cfg.bound_s);
			q.failed = true;
			break;
		}
		if (nops_done % cfg.quiet_every == 0 && !quiesce())
			break;
		/* stopped processes do not stay stopped for long */
		for (int p = 0; p < cfg.procs; p++)
			if (procpid[p] && proc_stopped[p] && rnd_below(20) == 0) {
				kill(procpid[p], SIGCONT);
				proc_stopped[p] = false;
			}
		/* the controller at FIFO 99 leaves the CPU between operations */
		sleep_us(200);
	}
	if (!q.failed)
		quiesce();

	{
		char counts[1024];
		size_t l = 0;

		for (int i = 0; i < NOPS; i++)
			if (opcount[i])
				l += (size_t)snprintf(counts + l, sizeof(counts) - l, " %s=%ld/%ld", opname[i],
						      opcount[i], operr[i]);
		diag("operations (count/failed with an errno):%s", counts);
		diag("locks %ld (timed out %ld, owner died %ld), condvar waits %ld, forks %ld (failed %ld), "
		     "overrun signals %ld", atomic_load(&S->locks_ok), atomic_load(&S->lock_timeouts),
		     atomic_load(&S->owner_dead), atomic_load(&S->cwaits), atomic_load(&S->forks),
		     atomic_load(&S->fork_fail), atomic_load(&S->xcpu));
	}
	bool ops_ok = !q.failed || !strncmp(q.why, "progress", 8) || !strncmp(q.why, "book", 4);

	tap_result(ops_ok, "%ld operations from seed %" PRIu64 "%s%s", nops_done, cfg.seed,
		   ops_ok ? "" : ": ", ops_ok ? "" : q.why);
	bool prog_ok = !(q.failed && !strncmp(q.why, "progress", 8));

	tap_result(prog_ok, "progress: every live thread answered at each of %d quiescent points (worst %lld ms, bound %d s)",
		   q.points, q.worst_ack_ms, cfg.bound_s);
	bool book_ok = q.book_checked > 0 && !(q.failed && !strncmp(q.why, "book", 4));

	tap_result(book_ok, "book: running_bw <= this_bw per CPU, sum of this_bw <= total_bw per root domain, at %d points "
		   "(%d held only after a 0-lag time, at most %lld ms)%s%s%s",
		   q.book_checked, q.book_healed, q.worst_heal_ms, book_ok ? "" : " (", book_ok ? "" : q.why + 6,
		   book_ok ? "" : ")");
	if (q.failed)
		print_tail();
	teardown(&b0, sysctl0);
	if (logfd >= 0)
		close(logfd);
	return tap_failed ? RTLAB_EXIT_FAIL : 0;
}
