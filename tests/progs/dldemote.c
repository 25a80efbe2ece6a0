// SPDX-License-Identifier: GPL-2.0
/*
 * dldemote: SCHED_FLAG_DL_DEMOTION (tests/guest/97-dl-demote.sh).  A
 * SCHED_DEADLINE task with the flag that runs out of runtime while it runs
 * is not throttled: it goes on in the fair class at the nice value it gave
 * sched_setattr() (sched_nice) until its replenishment, which brings it
 * back with a full budget.  Its policy stays SCHED_DEADLINE for
 * sched_getattr() and its bandwidth stays reserved; the demotion shows in
 * /proc/PID/task/TID/stat field 18 ("priority", p->prio - 100): -101 in
 * the deadline class, 20 + nice demoted, -(1 + P) boosted by a SCHED_FIFO
 * P waiter of a PI lock.
 *
 * Every measured task is a child process (one thread each, but for the
 * "exit" scenario's thread case): it joins the cgroup -g (the test's
 * cpuset partition: one CPU, a root domain of its own, so that a deadline
 * task, whose affinity must span its root domain, and SCHED_OTHER hogs
 * share exactly one CPU), takes its policy and spins.  This process is the
 * measuring thread: SCHED_FIFO MAIN_PRIO pinned to CPU 0, outside the
 * partition, so that it wakes on time; its children do not inherit that
 * (SCHED_RESET_ON_FORK).  Shares are each child's process CPU clock over
 * CLOCK_MONOTONIC in windows of whole 100 ms periods (-w, default 2 s),
 * the verdict on the median of -n windows (default 5), so that a window
 * spoilt by the host descheduling a vCPU under TCG (the guest charges that
 * time to whatever ran) does not decide it.  Every SAMPLE_MS the deadline
 * children's stat priority and sched_getattr() are sampled.
 *
 * Scenarios (one per run) and their TAP points:
 *   share    D (deadline 10/100 ms or -R, DEMOTION, nice -e) and H
 *            (SCHED_OTHER nice 0) spin: D gets its 10% and then shares the
 *            other 90% with H by weight (nice 0: half each, so D - 10 = H
 *            within -t points, 2, the "equal shares within 2
 *            points in the demoted part"; at any nice, D's demoted part
 *            within -t / 2 points of its weight's share of what D and H
 *            got together); D was seen demoted (priority 20 + nice);
 *            sched_getattr() gave SCHED_DEADLINE 10/100 ms with the flag
 *            (and its nice) in every sample; and, share and reserve, D
 *            never ran as a deadline task much past its budget: its
 *            dl.runtime (/proc/PID/sched) while demoted, the overrun of
 *            that period, within OVR_LIMIT_US (median of the samples)
 *   control  the same without the flag (the negative control: the share
 *            check tells the two apart): D 10% within -d points (1), H 90%
 *            within -t, and D never left the deadline class
 *   reserve  D, E (deadline 30/100 ms without the flag) and H: E keeps its
 *            30% within -d, D - 10 = H within -t, D demoted, getattr
 *   fork     fork() from D while demoted (priority read just before) and,
 *            the reference, from a deadline task without the flag: EAGAIN
 *   setattr  on demoted D: sched_setaffinity() (its own mask) returns 0
 *            and ends the demotion (D back in the deadline class,
 *            throttled; still running and out of runtime, it is demoted
 *            again at its next schedule, so either priority may be read
 *            right after), attributes unchanged; sched_setattr() with
 *            20 ms returns 0, getattr 20 ms; then D - 20 = H within -t (the
 *            new runtime applies), D demoted again, getattr right in every
 *            sample
 *   pi       D (10/100 ms, DEMOTION) takes a PTHREAD_PRIO_INHERIT mutex
 *            and runs PI_HOLD_MS of its own CPU time under it, so that its
 *            budget runs out inside; a SCHED_FIFO WAIT_PRIO waiter on the
 *            same CPU blocks on it once D has run PI_LEAD_MS of it.  A
 *            demoted holder is boosted and finishes: median wait of -r
 *            rounds (5) under PI_LIMIT_MS (about PI_HOLD_MS - PI_LEAD_MS is
 *            due); the reference without the flag waits for the holder's
 *            replenishment: over PI_LIMIT_MS
 *   exit     -r rounds of D exiting while demoted (its stat read just
 *            before), alternately as a thread that returns and as a
 *            process; then the book of the partition's CPU (running_bw,
 *            this_bw, total_bw from /sys/kernel/debug/sched/debug) is what
 *            it was before, with H keeping the fair server active
 *   hotplug  no partition: D (DEMOTION, unpinned) beside a SCHED_OTHER hog
 *            pinned to each online CPU; CPU -C (default the last online
 *            CPU but 0) goes offline and online -k times (5), each time
 *            once D is demoted (on that CPU if it gets there within 1 s):
 *            every write succeeded; D survived, kept SCHED_DEADLINE and
 *            its parameters and ran between every two steps, and was
 *            demoted before at least one step; with D still there, the
 *            root domain's total_bw is the one before D plus D's
 *            (every hotplug rebuilds the root domain and adds the
 *            deadline tasks back, dl_add_task_root_domain(): a demoted
 *            one must not be left out).  No hotplug file: the points
 *            fail saying so
 *   move     D (DEMOTION) and H in -g; D is moved -k times (20) between
 *            the two cgroups of -m A:B, each time once it is demoted:
 *            every move succeeded (at least one while demoted); D survived
 *            as above
 *   book     the bandwidth book: a SCHED_OTHER hog thread pinned to every
 *            online CPU (all fair servers active, so that running_bw is
 *            stable), then each CPU's dl_rq running_bw and this_bw and its
 *            root domain's dl_bw->total_bw; -s FILE saves it, -c FILE
 *            compares: total_bw as before, running_bw and this_bw as before
 *            (a failed point if the kernel does not print them: 6.12's
 *            print_dl_rq() has dl_nr_running and dl_bw only)
 *   wake     D (DEMOTION, runtime -R, default WAKE_RUNTIME_NS: a debt of
 *            hundreds of periods after each overrun, so its replenishment
 *            is minutes away) and H: D, once demoted, sleeps NAP_US, -r
 *            times: it runs again within WAKE_LIMIT_MS of each sleep's end,
 *            and it was demoted before each; then -r sched_setaffinity()
 *            (its own CPUs) and -r sched_setattr() (its attributes) calls
 *            on demoted D: D runs again within WAKE_LIMIT_MS of each.  Each
 *            ends the demotion; left in the deadline class, D would wait
 *            for its replenishment instead
 *   renice   D and H spin; setpriority() sets D's nice to -e and 0 in turn
 *            (-k times, default 40): each read of /proc/.../sched that
 *            finds D demoted shows the new nice's prio and fair weight
 * In every scenario a child that does not stop within 3 s of being told
 * is a failed point.
 * Exit 0 all points held, 1 a point failed, 2 usage or setup error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rtlab/cpulist.h>
#include <rtlab/die.h>
#include <rtlab/dl.h>
#include <rtlab/file.h>
#include <rtlab/opt.h>
#include <rtlab/tap.h>
#include <rtlab/time.h>

#ifndef SCHED_FLAG_DL_DEMOTION
#define SCHED_FLAG_DL_DEMOTION	0x80
#endif

#define NS_MS		RTLAB_NSEC_PER_MSEC
#define PERIOD_MS	100	/* every deadline task's period = deadline */
#define D_RUNTIME_MS	10	/* D, the demoting task */
#define E_RUNTIME_MS	30	/* E, the reservation beside it */
#define NEW_RUNTIME_MS	20	/* setattr: D's runtime after the change */
#define MAIN_PRIO	50	/* the measuring thread, on CPU 0 */
#define WAIT_PRIO	50	/* the PI waiter */
#define PI_HOLD_MS	30	/* holder's CPU time under the lock */
#define PI_LEAD_MS	12	/* of which it has run when the waiter blocks */
#define PI_LIMIT_MS	60	/* boosted: well under; throttled: well over */
#define PI_GAP_MS	250	/* between rounds: the holder starts with a full budget */
#define NAP_US		1000	/* wake: D's sleep while demoted */
#define WAKE_LIMIT_MS	50	/* wake: D runs again within (throttled: minutes) */
#define WAKE_RUNTIME_NS	1024	/* wake: D's runtime, unless -R */
#define SAMPLE_MS	1
#define OVR_LIMIT_US	1500	/* a tick at HZ 1000, and slack */
#define PRIO_DL		(-101)	/* stat "priority" of a deadline task */
#define MAX_CHILD	20
#define MAX_WINDOWS	15
#define MAX_ROUNDS	50
#define MAX_CPUS	64
#define SETUP_MS	10000	/* a child's time to get ready */
/* -D either for a test on the host */
#ifndef DEBUG_FILE
#define DEBUG_FILE	"/sys/kernel/debug/sched/debug"
#endif
#ifndef CPU_SYSFS
#define CPU_SYSFS	"/sys/devices/system/cpu"
#endif
#define NO_VAL		LLONG_MIN

/* in the order of scenarios[] */
enum {
	SC_SHARE, SC_CONTROL, SC_RESERVE, SC_FORK, SC_SETATTR, SC_PI, SC_EXIT, SC_HOTPLUG, SC_MOVE, SC_BOOK,
	SC_WAKE, SC_RENICE
};
static const char *const scenarios[] = { "share", "control", "reserve", "fork", "setattr",
					 "pi", "exit", "hotplug", "move", "book", "wake", "renice", NULL };

/* what a child does once it has its policy */
enum { B_SPIN, B_FORK, B_PI_HOLD, B_PI_WAIT, B_EXIT_THREAD, B_EXIT_PROC, B_NAP };

/* one per child, in the shared mapping */
struct slot {
	atomic_int state;	/* 0 starting, 1 ready, -1 failed (err) */
	atomic_int tid;		/* the thread with the policy */
	atomic_int fork_req, fork_done, fork_errno, fork_prio;
	atomic_int exit_prio;	/* stat priority read just before exiting */
	char err[200];
};

struct shm {
	atomic_int stop;
	struct slot slot[MAX_CHILD];
	pthread_mutex_t lock;	/* pi: process-shared, PTHREAD_PRIO_INHERIT */
	atomic_int go, locked, done, holder_tid;
	_Atomic long long progress;	/* holder's CPU time under the lock */
	long long wait_ns[MAX_ROUNDS], need_ns[MAX_ROUNDS];
	int hprio[MAX_ROUNDS];	/* holder's priority when the waiter blocked */
	atomic_int werr;
	/* wake: per nap, the delay from its end to D running, D's priority before and after */
	long long nap_late_ns[MAX_ROUNDS];
	int nap_prio0[MAX_ROUNDS], nap_prio1[MAX_ROUNDS];
	atomic_int naps;
};

struct child {
	char name[8];
	int policy, nice, body, cpu;
	uint64_t runtime_ns, period_ns, flags;
	pid_t pid, tid;
	clockid_t clk;
	int stat_fd;
	int alive, status;	/* status: the wait status once reaped */
	double share[MAX_WINDOWS];
};

/* the samples of one deadline child */
#define OVR_BIN_US	100	/* overrun histogram: 100 us bins ... */
#define OVR_BINS	101	/* ... up to 10 ms, the last bin for more */

struct watch {
	long n, attr_ok, dl, demoted, boosted, other, gone;
	/* demoted samples: -dl.runtime, what D ran as a deadline task past its budget */
	long ovr[OVR_BINS], novr;
	long long ovr_max_us;
	char bad[200];	/* the first sample with wrong attributes */
};

struct book {
	int has[MAX_CPUS];
	long long total[MAX_CPUS], running[MAX_CPUS], this_bw[MAX_CPUS];
};

static struct {
	int scenario;
	const char *cg, *move, *save, *check;
	int windows, win_ms, warm_ms, nice, rounds, cycles, cpu;
	double tol, dl_tol;
	uint64_t d_runtime_ns;	/* D's runtime in share, control, reserve */
} cfg = { .windows = 5, .win_ms = 2000, .warm_ms = 1000, .rounds = 5, .cpu = -1,
	  .tol = 2.0, .dl_tol = 1.0, .d_runtime_ns = (uint64_t)D_RUNTIME_MS * NS_MS };

static struct shm *shm;
static struct child ch[MAX_CHILD];
static int nch;
static pid_t parent_pid;
static int ncpu_conf;

/* sched_prio_to_weight[] of kernel/sched/core.c, nice -20..19 */
static const int nice_weight[40] = {
	88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916,
	9548, 7620, 6100, 4904, 3906, 3121, 2501, 1991, 1586, 1277,
	1024, 820, 655, 526, 423, 335, 272, 215, 172, 137,
	110, 87, 70, 56, 45, 36, 29, 23, 18, 15,
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: dldemote [OPTIONS] SCENARIO\n"
		"SCENARIO (each prints TAP points and its figures as diagnostics):\n"
		"  share    D (deadline %d/%d ms, DEMOTION) and H (SCHED_OTHER) spin: D - %d = H\n"
		"  control  the same without the flag: D %d%%, H the rest, D never demoted\n"
		"  reserve  D, E (deadline %d/%d ms, no flag) and H: E keeps %d%%, D - %d = H\n"
		"  fork     fork() from demoted D, and from a deadline task: EAGAIN\n"
		"  setattr  sched_setaffinity() and sched_setattr() (%d ms) on demoted D\n"
		"  pi       a SCHED_FIFO %d waiter on a PI mutex a demoted D holds, and without\n"
		"           the flag (the reference): median wait under / over %d ms\n"
		"  exit     D exits while demoted (-r rounds); the CPU's book is as before\n"
		"  hotplug  D demoted beside a hog per CPU while CPU -C goes offline and online\n"
		"  move     D moved between the cgroups of -m while demoted\n"
		"  book     the deadline bandwidth book (-s FILE saves it, -c FILE compares)\n"
		"  wake     demoted D (-R, default %d ns) sleeps, or has its affinity or its\n"
		"           attributes set while H runs: D runs again within %d ms\n"
		"  renice   setpriority() on D while demoted, nice 0 and -e in turn (-k times):\n"
		"           its fair weight and priority follow at once\n"
		"OPTIONS:\n"
		"  -g DIR    cgroup (v2) the measured tasks join (default: stay in ours)\n"
		"  -m A:B    move: the two cgroups D is moved between (first to A)\n"
		"  -n N      measuring windows, the verdict on their median (5, at most %d)\n"
		"  -w MS     window length, a multiple of %d (2000)\n"
		"  -W MS     warm-up before the first window (1000)\n"
		"  -t PTS    tolerance of the fair-share comparisons, percentage points (2)\n"
		"  -d PTS    tolerance of the deadline shares, percentage points (1)\n"
		"  -e NICE   D's nice while demoted (sched_nice; 0)\n"
		"  -R NS     share, control, reserve, wake: D's runtime in ns (%d ms; from 1024,\n"
		"            the least SCHED_DEADLINE takes, to the period)\n"
		"  -r N      rounds: pi, exit and wake, tries of fork (5, at most %d)\n"
		"  -k N      hotplug cycles (5) or moves (20)\n"
		"  -C CPU    hotplug: the CPU to take offline (the last online CPU but 0)\n"
		"  -s FILE   book: save it    -c FILE  book: compare with FILE\n"
		"  -h, --help\n"
		"Exit 0 all points held, 1 a point failed, 2 usage or setup error.\n",
		D_RUNTIME_MS, PERIOD_MS, D_RUNTIME_MS, D_RUNTIME_MS, E_RUNTIME_MS, PERIOD_MS,
		E_RUNTIME_MS, D_RUNTIME_MS, NEW_RUNTIME_MS, WAIT_PRIO, PI_LIMIT_MS, WAKE_RUNTIME_NS,
		WAKE_LIMIT_MS, MAX_WINDOWS,
		PERIOD_MS, D_RUNTIME_MS, MAX_ROUNDS);
}

static bool opt_double(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

static void parse(int argc, char **argv)
{
	static const struct option lo[] = { { "help", no_argument, NULL, 'h' }, { 0 } };
	int c, rns = 0;
	bool ok;

	while ((c = getopt_long(argc, argv, "g:m:n:w:W:t:d:e:R:r:k:C:s:c:h", lo, NULL)) != -1) {
		switch (c) {
		case 'g': cfg.cg = optarg; ok = *optarg; break;
		case 'm': cfg.move = optarg; ok = strchr(optarg, ':') && *optarg != ':'; break;
		case 'n': ok = opt_int(optarg, 1, MAX_WINDOWS, &cfg.windows); break;
		case 'w': ok = opt_int(optarg, PERIOD_MS, 600000, &cfg.win_ms) && !(cfg.win_ms % PERIOD_MS); break;
		case 'W': ok = opt_int(optarg, 0, 600000, &cfg.warm_ms); break;
		case 't': ok = opt_double(optarg, 0.01, 100, &cfg.tol); break;
		case 'd': ok = opt_double(optarg, 0.01, 100, &cfg.dl_tol); break;
		case 'e': ok = opt_int(optarg, -20, 19, &cfg.nice); break;
		case 'R': ok = opt_int(optarg, 1024, PERIOD_MS * 1000000, &rns);
			  cfg.d_runtime_ns = (uint64_t)rns; break;
		case 'r': ok = opt_int(optarg, 1, MAX_ROUNDS, &cfg.rounds); break;
		case 'k': ok = opt_int(optarg, 1, 10000, &cfg.cycles); break;
		case 'C': ok = opt_int(optarg, 1, MAX_CPUS - 1, &cfg.cpu); break;
		case 's': cfg.save = optarg; ok = *optarg; break;
		case 'c': cfg.check = optarg; ok = *optarg; break;
		case 'h': opt_usage_exit(usage, 0);
		default: opt_usage_exit(usage, 2);
		}
		if (!ok)
			die_usage("-%c %s: out of range or malformed", c, optarg);
	}
	if (optind != argc - 1)
		die_usage(optind == argc ? "no scenario" : "one scenario only");
	cfg.scenario = opt_choice(scenarios, argv[optind]);
	if (cfg.scenario < 0)
		die_usage("unknown scenario '%s'", argv[optind]);
	if (cfg.scenario == SC_MOVE && !cfg.move)
		die_usage("move needs -m A:B");
	if (cfg.save && cfg.check)
		die_usage("-s and -c exclude each other");
	if (!cfg.cycles)
		cfg.cycles = cfg.scenario == SC_MOVE ? 20 : cfg.scenario == SC_RENICE ? 40 : 5;
	if (cfg.scenario == SC_RENICE && !cfg.nice)
		die_usage("renice needs -e NICE other than 0");
	if (cfg.scenario == SC_WAKE && !rns)
		cfg.d_runtime_ns = WAKE_RUNTIME_NS;
}

/* ---- small helpers ------------------------------------------------------ */

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static int set_dl(pid_t tid, uint64_t runtime, uint64_t period, uint64_t flags, int nice)
{
	return rtlab_set_deadline_nice(tid, runtime, period, flags, nice);
}

static int get_attr(pid_t tid, struct rtlab_sched_attr *a)
{
	memset(a, 0, sizeof(*a));
	return syscall(SYS_sched_getattr, tid, a, sizeof(*a), 0) ? errno : 0;
}

static long long clock_ns(clockid_t clk)
{
	struct timespec ts;

	if (clock_gettime(clk, &ts))
		return -1;
	return ts.tv_sec * RTLAB_NSEC_PER_SEC + ts.tv_nsec;
}

static void sleep_until(int64_t t)
{
	struct timespec ts = { t / RTLAB_NSEC_PER_SEC, t % RTLAB_NSEC_PER_SEC };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void nap_us(long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

static int demoted_prio(void)
{
	return 20 + cfg.nice;
}

/* write_str: VAL to PATH in one write; 0 or the errno */
static int write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;
	ssize_t len = (ssize_t)strlen(val);

	if (fd < 0)
		return errno;
	if (write(fd, val, len) != len)
		err = errno ? errno : EIO;
	if (close(fd) && !err)
		err = errno;
	return err;
}

static int cg_move(const char *dir, pid_t pid)
{
	char path[PATH_MAX + 16], val[24];

	if (strlen(dir) >= PATH_MAX)
		return ENAMETOOLONG;
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	snprintf(val, sizeof(val), "%d\n", (int)pid);
	return write_str(path, val);
}

/*
 * parse_stat: field 18 (priority) and 39 (processor) of a /proc stat line;
 * the command name (field 2) may hold spaces, so count after its ')'.
 */
static int parse_stat(const char *buf, int *prio, int *cpu)
{
	const char *p = strrchr(buf, ')');
	int field = 2;

	if (!p)
		return -1;
	for (p++; *p;) {
		char *end;
		long v;

		while (*p == ' ')
			p++;
		if (!*p || *p == '\n')
			break;
		field++;
		if (field == 18 || field == 39) {
			v = strtol(p, &end, 10);
			if (end == p)
				return -1;
			if (field == 18) {
				*prio = (int)v;
				if (!cpu)
					return 0;
			} else {
				*cpu = (int)v;
				return 0;
			}
		}
		while (*p && *p != ' ')
			p++;
	}
	return -1;
}

/* read_stat: priority (and CPU) from an open stat file; -1 when gone */
static int read_stat(int fd, int *prio, int *cpu)
{
	char buf[1024];
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return parse_stat(buf, prio, cpu);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
	double s[MAX_ROUNDS > MAX_WINDOWS ? MAX_ROUNDS : MAX_WINDOWS];

	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* list: "a b c" of n values, for the diagnostics */
static const char *list(const double *v, int n, char *buf, size_t len)
{
	buf[0] = 0;
	for (int i = 0; i < n; i++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%.2f", i ? " " : "", v[i]);
	return buf;
}

static int online_cpus(int *cpus)
{
	char buf[256];
	int n;

	if (rtlab_read_small(CPU_SYSFS "/online", buf, sizeof(buf)) <= 0)
		die(CPU_SYSFS "/online: cannot read");
	buf[strcspn(buf, "\n")] = 0;
	n = rtlab_parse_cpulist(buf, cpus, MAX_CPUS, MAX_CPUS);
	if (n <= 0)
		die(CPU_SYSFS "/online: '%s' is no CPU list", buf);
	return n;
}

/* ---- the children ------------------------------------------------------- */

static void child_fail(struct slot *s, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
static void child_fail(struct slot *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
	atomic_store(&s->state, -1);
	_exit(2);
}

static bool stopped(void)
{
	return atomic_load_explicit(&shm->stop, memory_order_relaxed);
}

static int own_prio(int fd)
{
	int prio = INT_MIN;

	read_stat(fd, &prio, NULL);
	return prio;
}

/* fork body: fork() whenever the parent asks, report errno and priority */
static void body_fork(struct slot *s)
{
	int fd = open("/proc/thread-self/stat", O_RDONLY | O_CLOEXEC), seen = 0;

	while (!stopped()) {
		int req = atomic_load_explicit(&s->fork_req, memory_order_relaxed), prio, err;
		pid_t pid;

		if (req <= seen)
			continue;
		seen = req;
		prio = own_prio(fd);
		pid = fork();
		if (pid == 0)
			_exit(0);
		err = pid < 0 ? errno : 0;
		if (pid > 0)
			waitpid(pid, NULL, 0);
		atomic_store(&s->fork_prio, prio);
		atomic_store(&s->fork_errno, err);
		atomic_store(&s->fork_done, req);
	}
}

static long long thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static void body_pi_hold(void)
{
	for (int i = 0; i < cfg.rounds && !stopped(); i++) {
		long long t0, d;

		while (atomic_load(&shm->go) < i) {
			if (stopped())
				return;
			nap_us(1000);
		}
		if (pthread_mutex_lock(&shm->lock)) {
			atomic_store(&shm->werr, 1);
			return;
		}
		t0 = thread_cpu_ns();
		atomic_store(&shm->progress, 0);
		atomic_store(&shm->locked, i);
		while ((d = thread_cpu_ns() - t0) < PI_HOLD_MS * NS_MS)
			atomic_store_explicit(&shm->progress, d, memory_order_relaxed);
		atomic_store(&shm->progress, d);
		pthread_mutex_unlock(&shm->lock);
	}
	while (!stopped())
		nap_us(1000);
}

static void body_pi_wait(void)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", atomic_load(&shm->holder_tid));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	for (int i = 0; i < cfg.rounds && !stopped(); i++) {
		long long t0, p;

		while (atomic_load(&shm->locked) < i) {
			if (stopped())
				return;
			nap_us(500);
		}
		while ((p = atomic_load(&shm->progress)) < PI_LEAD_MS * NS_MS)
			nap_us(200);
		shm->need_ns[i] = PI_HOLD_MS * NS_MS - p;
		shm->hprio[i] = own_prio(fd);	/* the holder's, from its stat */
		t0 = now_ns();
		if (pthread_mutex_lock(&shm->lock)) {
			atomic_store(&shm->werr, 2);
			return;
		}
		shm->wait_ns[i] = now_ns() - t0;
		pthread_mutex_unlock(&shm->lock);
		atomic_store(&shm->done, i);
	}
	while (!stopped())
		nap_us(1000);
}

/* exit bodies: spin until the own stat says demoted, then leave at once */
static void spin_until_demoted(struct slot *s)
{
	int fd = open("/proc/thread-self/stat", O_RDONLY | O_CLOEXEC), prio = INT_MIN;
	int64_t end = now_ns() + 5 * RTLAB_NSEC_PER_SEC;
	long long next = thread_cpu_ns();

	while (now_ns() < end && !stopped()) {
		if (thread_cpu_ns() < next)
			continue;
		prio = own_prio(fd);
		if (prio == demoted_prio())
			break;
		next = thread_cpu_ns() + 200 * RTLAB_NSEC_PER_USEC;
	}
	atomic_store(&s->exit_prio, prio);
	/* fd left open: closing it would only put off the exit */
}

/*
 * nap body: -r times, once demoted, sleep NAP_US and note how late after
 * the sleep's end D runs again, with its priority before and right after
 */
static void body_nap(void)
{
	int fd = open("/proc/thread-self/stat", O_RDONLY | O_CLOEXEC);
	int64_t warm = now_ns() + 3 * PERIOD_MS * NS_MS;

	/* past the first replenishment, which pays the first overrun back */
	while (now_ns() < warm && !stopped())
		;
	for (int i = 0; i < cfg.rounds && !stopped(); i++) {
		int64_t t0;

		while (!stopped() && own_prio(fd) != demoted_prio())
			;
		shm->nap_prio0[i] = own_prio(fd);
		t0 = now_ns();
		nap_us(NAP_US);
		shm->nap_late_ns[i] = now_ns() - t0 - NAP_US * RTLAB_NSEC_PER_USEC;
		shm->nap_prio1[i] = own_prio(fd);
		atomic_store(&shm->naps, i + 1);
	}
	while (!stopped())
		;
}

struct exit_arg {
	struct child *c;
	struct slot *s;
};

static void *exit_thread(void *arg)
{
	struct exit_arg *a = arg;
	int err = set_dl(0, a->c->runtime_ns, a->c->period_ns, a->c->flags, a->c->nice);

	if (err) {
		snprintf(a->s->err, sizeof(a->s->err), "%s: sched_setattr(SCHED_DEADLINE, flags %#llx): %s",
			 a->c->name, (unsigned long long)a->c->flags, strerror(err));
		atomic_store(&a->s->state, -1);
		return NULL;
	}
	atomic_store(&a->s->tid, gettid_());
	atomic_store(&a->s->state, 1);
	spin_until_demoted(a->s);
	return NULL;	/* the deadline thread exits here, demoted */
}

static void child_run(struct child *c)
{
	struct slot *s = &shm->slot[c - ch];
	struct sched_param sp = { .sched_priority = WAIT_PRIO };
	cpu_set_t set;
	int err;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent_pid)
		child_fail(s, "%s: parent gone", c->name);
	CPU_ZERO(&set);
	if (c->cpu >= 0)
		CPU_SET(c->cpu, &set);
	else
		for (int i = 0; i < ncpu_conf && i < CPU_SETSIZE; i++)
			CPU_SET(i, &set);
	/* all CPUs, then the cgroup: its cpuset alone decides */
	if (sched_setaffinity(0, sizeof(set), &set))
		child_fail(s, "%s: sched_setaffinity: %s", c->name, strerror(errno));
	if (cfg.cg && (err = cg_move(cfg.cg, getpid())))
		child_fail(s, "%s: join %s: %s", c->name, cfg.cg, strerror(err));
	switch (c->policy) {
	case SCHED_OTHER:
		if (setpriority(PRIO_PROCESS, 0, c->nice))
			child_fail(s, "%s: nice %d: %s", c->name, c->nice, strerror(errno));
		break;
	case SCHED_FIFO:
		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			child_fail(s, "%s: SCHED_FIFO %d: %s", c->name, WAIT_PRIO, strerror(errno));
		break;
	case SCHED_DEADLINE:
		if (c->body == B_EXIT_THREAD) {
			struct exit_arg a = { c, s };
			pthread_t t;

			if (pthread_create(&t, NULL, exit_thread, &a))
				child_fail(s, "%s: pthread_create failed", c->name);
			pthread_join(t, NULL);
			_exit(atomic_load(&s->state) == 1 ? 0 : 2);
		}
		err = set_dl(0, c->runtime_ns, c->period_ns, c->flags, c->nice);
		if (err)
			child_fail(s, "%s: sched_setattr(SCHED_DEADLINE %llu/%llu ms, flags %#llx, nice %d): %s%s",
				   c->name, (unsigned long long)(c->runtime_ns / NS_MS),
				   (unsigned long long)(c->period_ns / NS_MS), (unsigned long long)c->flags,
				   c->nice, strerror(err),
				   err == EINVAL && c->flags & SCHED_FLAG_DL_DEMOTION ?
				   " (a kernel without SCHED_FLAG_DL_DEMOTION?)" : "");
		break;
	}
	atomic_store(&s->tid, gettid_());
	atomic_store(&s->state, 1);

	switch (c->body) {
	case B_FORK:
		body_fork(s);
		break;
	case B_PI_HOLD:
		body_pi_hold();
		break;
	case B_PI_WAIT:
		body_pi_wait();
		break;
	case B_EXIT_PROC:
		spin_until_demoted(s);
		_exit(0);	/* the process exits here, demoted */
	case B_NAP:
		body_nap();
		break;
	default:
		while (!stopped())
			;
	}
	_exit(0);
}

/* ---- the parent's side of the children ---------------------------------- */

static void kill_children(void)
{
	if (getpid() != parent_pid)
		return;
	for (int i = 0; i < nch; i++)
		if (ch[i].alive) {
			kill(ch[i].pid, SIGKILL);
			waitpid(ch[i].pid, NULL, 0);
			ch[i].alive = 0;
		}
}

/*
 * spawn_ns: a child NAME of POLICY (deadline: RUNTIME_NS / PERIOD_MS with
 * FLAGS, nice -e if it demotes), pinned to CPU (-1: all), doing BODY;
 * returns once it has its policy.  A child that cannot is a setup error.
 * spawn: the same with the runtime in ms.
 */
static struct child *spawn_ns(const char *name, int policy, uint64_t runtime_ns, uint64_t flags,
			      int body, int cpu)
{
	struct child *c;
	struct slot *s;
	int64_t end;
	char path[64];

	if (nch == MAX_CHILD)
		die("more than %d children", MAX_CHILD);
	c = &ch[nch];
	s = &shm->slot[nch];
	memset(c, 0, sizeof(*c));
	memset(s, 0, sizeof(*s));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->policy = policy;
	c->runtime_ns = runtime_ns;
	c->period_ns = PERIOD_MS * NS_MS;
	c->flags = flags;
	c->nice = flags & SCHED_FLAG_DL_DEMOTION ? cfg.nice : 0;
	c->body = body;
	c->cpu = cpu;
	c->stat_fd = -1;
	fflush(stdout);
	c->pid = fork();
	if (c->pid < 0)
		die("fork: %s", strerror(errno));
	if (c->pid == 0)
		child_run(c);
	nch++;
	c->alive = 1;
	for (end = now_ns() + SETUP_MS * NS_MS;;) {
		int st = atomic_load(&s->state), status;

		if (st == 1)
			break;
		if (st < 0)
			die("%s", s->err);
		if (waitpid(c->pid, &status, WNOHANG) == c->pid) {
			c->alive = 0;
			c->status = status;
			if (atomic_load(&s->state) == 1)
				break;	/* ready, and already done (exit) */
			die("%s: %s", name, atomic_load(&s->state) < 0 ? s->err : "died during its setup");
		}
		if (now_ns() > end)
			die("%s: not ready after %d ms", name, SETUP_MS);
		nap_us(1000);
	}
	c->tid = atomic_load(&s->tid);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)c->pid, (int)c->tid);
	c->stat_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (clock_getcpuclockid(c->pid, &c->clk))
		c->clk = -1;
	return c;
}

static struct child *spawn(const char *name, int policy, int runtime_ms, uint64_t flags, int body, int cpu)
{
	return spawn_ns(name, policy, (uint64_t)runtime_ms * NS_MS, flags, body, cpu);
}

static bool alive(struct child *c)
{
	int status;

	if (c->alive && waitpid(c->pid, &status, WNOHANG) == c->pid) {
		c->alive = 0;
		c->status = status;
	}
	return c->alive;
}

/* reap: wait up to ms for c to exit; its wait status, or -1 if it did not */
static int reap(struct child *c, int ms)
{
	int64_t end = now_ns() + (int64_t)ms * NS_MS;

	while (alive(c)) {
		if (now_ns() > end)
			return -1;
		nap_us(2000);
	}
	return c->status;
}

/*
 * stop_all: the children end their bodies and are reaped.  A straggler is
 * a failed point (a task told to stop that cannot run), and is killed: as
 * SCHED_OTHER first, since a deadline task left throttled could not even
 * run to die until its replenishment.
 */
static void stop_all(void)
{
	atomic_store(&shm->stop, 1);
	for (int i = 0; i < nch; i++) {
		if (reap(&ch[i], 3000) == -1) {
			struct sched_param sp = { 0 };
			int prio = INT_MIN;

			if (ch[i].stat_fd >= 0)
				read_stat(ch[i].stat_fd, &prio, NULL);
			tap_result(false, "%s (pid %d) stopped within 3 s of being told (priority then %d): "
				   "killed, made SCHED_OTHER first", ch[i].name, (int)ch[i].pid, prio);
			if (ch[i].tid > 0)
				sched_setscheduler(ch[i].tid, SCHED_OTHER, &sp);
			kill(ch[i].pid, SIGKILL);
			waitpid(ch[i].pid, NULL, 0);
			ch[i].alive = 0;
		}
		if (ch[i].stat_fd >= 0)
			close(ch[i].stat_fd);
	}
	nch = 0;
	atomic_store(&shm->stop, 0);
}

/* become_measurer: this thread SCHED_FIFO MAIN_PRIO on CPU 0, not passed on */
static void become_measurer(void)
{
	struct sched_param sp = { .sched_priority = MAIN_PRIO };
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("pin the measuring thread to CPU 0: %s", strerror(errno));
	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp))
		die("SCHED_FIFO %d for the measuring thread: %s", MAIN_PRIO, strerror(errno));
}

static long long cpu_of(struct child *c)
{
	long long v = c->clk == -1 ? -1 : clock_ns(c->clk);

	if (v < 0)
		die("%s: its CPU clock cannot be read (gone?)", c->name);
	return v;
}

/* attr_ok: sched_getattr() of c gives what it was set to; why not in why */
static bool attr_ok(struct child *c, char *why, size_t len)
{
	struct rtlab_sched_attr a;
	int err = get_attr(c->tid, &a);
	bool dem = c->flags & SCHED_FLAG_DL_DEMOTION;

	if (err) {
		snprintf(why, len, "sched_getattr: %s", strerror(err));
		return false;
	}
	if (a.sched_policy == SCHED_DEADLINE && a.sched_runtime == c->runtime_ns &&
	    a.sched_deadline == c->period_ns && a.sched_period == c->period_ns &&
	    !(a.sched_flags & SCHED_FLAG_DL_DEMOTION) == !dem && (!dem || a.sched_nice == c->nice))
		return true;
	snprintf(why, len, "policy %u runtime %llu deadline %llu period %llu flags %#llx nice %d",
		 a.sched_policy, (unsigned long long)a.sched_runtime, (unsigned long long)a.sched_deadline,
		 (unsigned long long)a.sched_period, (unsigned long long)a.sched_flags, a.sched_nice);
	return false;
}

/*
 * dl_runtime_us: dl.runtime of c from /proc/PID/sched (a deadline task's
 * remaining runtime, updated at each accounting: frozen while the task is
 * demoted, since the fair class runs it), in us; 1 when unreadable
 */
static long long dl_runtime_us(struct child *c)
{
	char path[64], line[256];
	long long v = 1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/sched", (int)c->tid);
	f = fopen(path, "r");
	if (!f)
		return v;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!strncmp(line, "dl.runtime", 10) && colon) {
			v = strtoll(colon + 1, NULL, 10) / 1000;
			break;
		}
	}
	fclose(f);
	return v;
}

/* ovr_median_us: the median of a watch's overrun histogram, bin middles */
static long long ovr_median_us(const struct watch *w)
{
	long seen = 0;

	for (int b = 0; b < OVR_BINS; b++) {
		seen += w->ovr[b];
		if (2 * seen >= w->novr)
			return (long long)b * OVR_BIN_US + OVR_BIN_US / 2;
	}
	return -1;
}

/* sample: one reading of a deadline child's stat priority and attributes */
static int sample(struct child *c, struct watch *w, int *cpu)
{
	char why[160];
	int prio = INT_MIN;

	w->n++;
	if (read_stat(c->stat_fd, &prio, cpu)) {
		w->gone++;
		return INT_MIN;
	}
	if (prio == PRIO_DL) {
		w->dl++;
	} else if (prio == demoted_prio()) {
		long long ovr = -dl_runtime_us(c);

		w->demoted++;
		if (ovr >= 0) {
			w->ovr[ovr / OVR_BIN_US < OVR_BINS ? ovr / OVR_BIN_US : OVR_BINS - 1]++;
			w->novr++;
			if (ovr > w->ovr_max_us)
				w->ovr_max_us = ovr;
		}
	} else if (prio == -1 - WAIT_PRIO)
		w->boosted++;
	else
		w->other++;
	if (attr_ok(c, why, sizeof(why)))
		w->attr_ok++;
	else if (!w->bad[0])
		snprintf(w->bad, sizeof(w->bad), "sample %ld: %s", w->n, why);
	return prio;
}

/* watch_until: sample every deadline child each SAMPLE_MS until end */
static void watch_until(int64_t end, struct watch *wt)
{
	for (int64_t next = now_ns(); next < end;) {
		int64_t t;

		for (int i = 0; i < nch; i++)
			if (ch[i].policy == SCHED_DEADLINE)
				sample(&ch[i], &wt[i], NULL);
		next += SAMPLE_MS * NS_MS;
		t = now_ns();
		if (next < t)
			next = t + SAMPLE_MS * NS_MS;	/* late: no burst to catch up */
		sleep_until(next < end ? next : end);
	}
}

static void watch_ms(int ms, struct watch *wt)
{
	watch_until(now_ns() + (int64_t)ms * NS_MS, wt);
}

/* wait_prio: sample c until its priority is want (and, cpu >= 0, on cpu) */
static bool wait_prio(struct child *c, struct watch *w, int want, int cpu, int ms)
{
	int64_t end = now_ns() + (int64_t)ms * NS_MS;

	while (now_ns() < end) {
		int on = -1;

		if (sample(c, w, &on) == want && (cpu < 0 || on == cpu))
			return true;
		nap_us(SAMPLE_MS * 1000);
	}
	return false;
}

/* measure: warm-up, then the windows; each child's share per window */
static void measure(struct watch *wt)
{
	watch_ms(cfg.warm_ms, wt);
	for (int w = 0; w < cfg.windows; w++) {
		long long c0[MAX_CHILD];
		int64_t t0 = now_ns(), t1;

		for (int i = 0; i < nch; i++)
			c0[i] = cpu_of(&ch[i]);
		watch_until(t0 + (int64_t)cfg.win_ms * NS_MS, wt);
		t1 = now_ns();
		for (int i = 0; i < nch; i++)
			ch[i].share[w] = 100.0 * (cpu_of(&ch[i]) - c0[i]) / (double)(t1 - t0);
	}
	for (int i = 0; i < nch; i++) {
		char buf[MAX_WINDOWS * 8];

		diag("%s: %.2f%% of the CPU (median; windows %s)", ch[i].name,
		     median(ch[i].share, cfg.windows), list(ch[i].share, cfg.windows, buf, sizeof(buf)));
	}
}

static void diag_watch(struct child *c, struct watch *w)
{
	diag("%s: %ld samples: priority -101 (deadline) %ld, %d (demoted) %ld, %d (boosted) %ld, "
	     "other %ld, unreadable %ld; sched_getattr() as set %ld", c->name, w->n, w->dl,
	     demoted_prio(), w->demoted, -1 - WAIT_PRIO, w->boosted, w->other, w->gone, w->attr_ok);
}

/* ---- the fair-share checks ---------------------------------------------- */

/*
 * fair_point: D's demoted part against what its weight earns of the CPU time
 * D (demoted) and H shared: per window e = (D - u) - (D - u + H) * p, with
 * p = w(D) / (w(D) + w(H)), the median within t / 2 points.  At equal
 * weights (nice 0) that is the criterion, D - u = H within t
 * points; at other nice values it keeps the error in points of the CPU
 * (comparing D - u with H * w(D) / w(H) would multiply H's noise by up to
 * 87 at nice -20).
 */
static void fair_point(const char *sc, struct child *d, struct child *h)
{
	double u = 100.0 * d->runtime_ns / d->period_ns, wd = nice_weight[d->nice + 20];
	double p = wd / (wd + 1024), err[MAX_WINDOWS], med;
	double dm = median(d->share, cfg.windows), hm = median(h->share, cfg.windows);
	char buf[MAX_WINDOWS * 8];

	for (int w = 0; w < cfg.windows; w++)
		err[w] = d->share[w] - u - (d->share[w] - u + h->share[w]) * p;
	med = median(err, cfg.windows);
	tap_result(med >= -cfg.tol / 2 && med <= cfg.tol / 2,
		   "%s: D's demoted part (D - %.3g) = %.2f%%, H = %.2f%%; at nice %d D earns %.2f%% of "
		   "their %.2f%%: %+.2f points off (median; windows %s), within %.1f",
		   sc, u, dm - u, hm, d->nice, 100 * p, dm - u + hm, med,
		   list(err, cfg.windows, buf, sizeof(buf)), cfg.tol / 2);
}

static void demoted_point(const char *sc, struct child *d, struct watch *w)
{
	diag_watch(d, w);
	tap_result(w->demoted > 0 && !w->gone,
		   "%s: D was demoted: stat priority %d in %ld of %ld samples (-101 in %ld)",
		   sc, demoted_prio(), w->demoted, w->n, w->dl);
	tap_result(w->n > 0 && w->attr_ok == w->n,
		   "%s: sched_getattr() gave SCHED_DEADLINE %g/%d ms with DEMOTION, nice %d, in every "
		   "sample (%ld of %ld)%s%s", sc, (double)d->runtime_ns / NS_MS, PERIOD_MS,
		   d->nice, w->attr_ok, w->n, w->bad[0] ? "; first wrong: " : "", w->bad);
}

/* ---- renice -------------------------------------------------------------- */

/*
 * D's /proc/PID/task/TID/sched: its prio (p->prio) and fair weight
 * (se.load.weight, scaled up by 1024 on 64-bit kernels); false if unread
 */
static bool read_sched(pid_t tid, long *prio, long *weight)
{
	char path[64], buf[8192], *p;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/sched", tid, tid);
	if (rtlab_read_small(path, buf, sizeof(buf)) <= 0)
		return false;
	p = strstr(buf, "\nprio");
	if (!p || sscanf(strchr(p, ':') + 1, "%ld", prio) != 1)
		return false;
	p = strstr(buf, "se.load.weight");
	if (!p || sscanf(strchr(p, ':') + 1, "%ld", weight) != 1)
		return false;
	if (*weight >= 1024L * 15)	/* scale_load() */
		*weight /= 1024;
	return true;
}

/*
 * setpriority() on a demoted task: it runs in the fair class at its nice
 * until its replenishment, so a new nice must reweight it and move its
 * priority at once (issue 39 item 2.5; before, only static_prio changed,
 * as for a deadline task, and the weight followed at the next demotion).
 * D spins beside H; the measurer sets D's nice to -e and to 0 in turn and
 * reads D's prio and weight right after each: a read that finds D in the
 * fair class (prio 100 and above) must show the new nice's prio and weight.
 */
static void sc_renice(void)
{
	long n = 0, demoted = 0, right = 0, prio, weight;
	char bad[160] = "";
	struct child *d;

	become_measurer();
	d = spawn_ns("D", SCHED_DEADLINE, cfg.d_runtime_ns, SCHED_FLAG_DL_DEMOTION, B_SPIN, -1);
	spawn("H", SCHED_OTHER, 0, 0, B_SPIN, -1);
	diag("renice: D deadline %g/%d ms DEMOTION beside H (SCHED_OTHER); %d setpriority() on D, "
	     "nice %d and 0 in turn, 13 ms apart", (double)d->runtime_ns / NS_MS, PERIOD_MS,
	     cfg.cycles, cfg.nice);
	nap_us(cfg.warm_ms * 1000L);
	for (int i = 0; i < cfg.cycles; i++) {
		int nice = i % 2 ? 0 : cfg.nice;

		if (setpriority(PRIO_PROCESS, (id_t)d->tid, nice))
			die("setpriority(D, %d): %s", nice, strerror(errno));
		if (read_sched(d->tid, &prio, &weight)) {
			n++;
			if (prio >= 100) {	/* MAX_RT_PRIO: fair class */
				demoted++;
				if (prio == 120 + nice && weight == nice_weight[nice + 20])
					right++;
				else if (!bad[0])
					snprintf(bad, sizeof(bad), "nice %d: prio %ld, weight %ld (%d, %d due)",
						 nice, prio, weight, 120 + nice, nice_weight[nice + 20]);
			}
		}
		nap_us(13000);
	}
	stop_all();
	tap_result(n == cfg.cycles && demoted > 0 && right == demoted,
		   "renice: D demoted at %ld of %ld reads after setpriority(): prio and fair weight "
		   "of the new nice in %ld%s%s", demoted, n, right, bad[0] ? "; first wrong: " : "", bad);
}

static void sc_shares(void)
{
	static const char *const names[] = { [SC_SHARE] = "share", [SC_CONTROL] = "control",
					     [SC_RESERVE] = "reserve" };
	const char *sc = names[cfg.scenario];
	bool flag = cfg.scenario != SC_CONTROL;
	struct watch wt[MAX_CHILD] = { 0 };
	struct child *d, *e = NULL, *h;

	become_measurer();
	d = spawn_ns("D", SCHED_DEADLINE, cfg.d_runtime_ns, flag ? SCHED_FLAG_DL_DEMOTION : 0, B_SPIN, -1);
	if (cfg.scenario == SC_RESERVE)
		e = spawn("E", SCHED_DEADLINE, E_RUNTIME_MS, 0, B_SPIN, -1);
	h = spawn("H", SCHED_OTHER, 0, 0, B_SPIN, -1);
	diag("%s: D deadline %g/%d ms%s, nice %d%s, H SCHED_OTHER nice 0; warm-up %d ms, %d windows of %d ms",
	     sc, (double)d->runtime_ns / NS_MS, PERIOD_MS, flag ? " DEMOTION" : " (no flag)", d->nice,
	     e ? ", E deadline 30/100 ms (no flag)" : "", cfg.warm_ms, cfg.windows, cfg.win_ms);
	measure(wt);
	stop_all();

	if (cfg.scenario == SC_CONTROL) {
		double dm = median(d->share, cfg.windows), hm = median(h->share, cfg.windows);
		double u = 100.0 * d->runtime_ns / d->period_ns;

		tap_result(dm >= u - cfg.dl_tol && dm <= u + cfg.dl_tol,
			   "control: D %g/%d ms without the flag gets %.2f%% (median), %.3g%% +-%.1f due",
			   (double)d->runtime_ns / NS_MS, PERIOD_MS, dm, u, cfg.dl_tol);
		tap_result(hm >= 100 - u - cfg.tol && hm <= 100 - u + cfg.tol,
			   "control: H gets %.2f%% (median), the rest, %.3g%% +-%.1f due", hm, 100 - u, cfg.tol);
		diag_watch(d, &wt[0]);
		tap_result(wt[0].n > 0 && wt[0].dl == wt[0].n && wt[0].attr_ok == wt[0].n,
			   "control: D never left the deadline class: priority -101 in %ld of %ld samples "
			   "(%d in %ld), sched_getattr() as set in %ld%s%s", wt[0].dl, wt[0].n, demoted_prio(),
			   wt[0].demoted, wt[0].attr_ok, wt[0].bad[0] ? "; first wrong: " : "", wt[0].bad);
		return;
	}
	if (e) {
		double em = median(e->share, cfg.windows), u = 100.0 * E_RUNTIME_MS / PERIOD_MS;

		tap_result(em >= u - cfg.dl_tol && em <= u + cfg.dl_tol,
			   "reserve: E %d/%d ms (no flag) keeps its reservation: %.2f%% (median), %.0f%% +-%.1f due",
			   E_RUNTIME_MS, PERIOD_MS, em, u, cfg.dl_tol);
	}
	fair_point(sc, d, h);
	demoted_point(sc, d, &wt[0]);
	/*
	 * The tick (HZ 1000) or a read of D's CPU time finds the budget spent,
	 * so D runs as a deadline task at most about a tick past it; a median
	 * over the demoted samples, since under TCG a host stall of the vCPU
	 * is charged to whatever ran (the maximum is printed).
	 */
	tap_result(wt[0].novr > 0 && ovr_median_us(&wt[0]) <= OVR_LIMIT_US,
		   "%s: D never ran as SCHED_DEADLINE much past its budget: dl.runtime while demoted "
		   "-%lld us (median of %ld samples, max -%lld us), at most -%d us due", sc,
		   ovr_median_us(&wt[0]), wt[0].novr, wt[0].ovr_max_us, OVR_LIMIT_US);
}

/* ---- fork --------------------------------------------------------------- */

/* try_fork: ask c to fork; its errno, its priority just before in *prio */
static int try_fork(struct child *c, int *prio)
{
	struct slot *s = &shm->slot[c - ch];
	int req = atomic_load(&s->fork_req) + 1;
	int64_t end = now_ns() + 3 * RTLAB_NSEC_PER_SEC;

	atomic_store(&s->fork_req, req);
	while (atomic_load(&s->fork_done) != req) {
		if (now_ns() > end || !alive(c))
			die("%s: no fork() result in 3 s", c->name);
		nap_us(1000);
	}
	*prio = atomic_load(&s->fork_prio);
	return atomic_load(&s->fork_errno);
}

static void sc_fork(void)
{
	struct watch w = { 0 };
	struct child *d, *e;
	int err = -1, prio = INT_MIN, tries = 0, eprio, eerr;

	become_measurer();
	spawn("H", SCHED_OTHER, 0, 0, B_SPIN, -1);
	d = spawn("D", SCHED_DEADLINE, D_RUNTIME_MS, SCHED_FLAG_DL_DEMOTION, B_FORK, -1);
	e = spawn("E", SCHED_DEADLINE, D_RUNTIME_MS, 0, B_FORK, -1);
	while (tries < cfg.rounds) {
		tries++;
		if (!wait_prio(d, &w, demoted_prio(), -1, 2000))
			continue;
		err = try_fork(d, &prio);
		if (prio == demoted_prio())
			break;	/* else the replenishment came in between: again */
	}
	eerr = try_fork(e, &eprio);
	stop_all();
	if (prio == INT_MIN)
		tap_result(false, "fork: fork() from D while demoted: D never seen demoted in %d tries of 2 s", tries);
	else
		tap_result(prio == demoted_prio() && err == EAGAIN,
			   "fork: fork() from D while demoted (priority %d just before; %d tries) fails with EAGAIN: %s",
			   prio, tries, err ? strerror(err) : "it succeeded");
	tap_result(eprio == PRIO_DL && eerr == EAGAIN,
		   "fork: reference: fork() from E, deadline without the flag (priority %d), fails with "
		   "EAGAIN: %s", eprio, eerr ? strerror(eerr) : "it succeeded");
}

/* ---- setattr ------------------------------------------------------------ */

static void sc_setattr(void)
{
	struct watch wt[MAX_CHILD] = { 0 }, w0 = { 0 };
	struct child *d, *h;
	cpu_set_t set;
	int err, p0 = INT_MIN, p1 = INT_MIN;
	char why[160] = "";
	bool dem;

	become_measurer();
	d = spawn("D", SCHED_DEADLINE, D_RUNTIME_MS, SCHED_FLAG_DL_DEMOTION, B_SPIN, -1);
	h = spawn("H", SCHED_OTHER, 0, 0, B_SPIN, -1);
	watch_ms(500, wt);

	/* its own mask again: nothing changes but the demotion ends */
	if (sched_getaffinity(d->pid, sizeof(set), &set))
		die("sched_getaffinity(D): %s", strerror(errno));
	dem = wait_prio(d, &w0, demoted_prio(), -1, 2000);
	err = sched_setaffinity(d->pid, sizeof(set), &set) ? errno : 0;
	read_stat(d->stat_fd, &p1, NULL);
	/*
	 * The call ends the demotion (D is back in the deadline class,
	 * throttled), but D is still running and still out of runtime, so its
	 * next schedule demotes it again: right after, either priority may be
	 * read.  What must hold is the call's result and D's state.
	 */
	tap_result(dem && !err && (p1 == PRIO_DL || p1 == demoted_prio()) && attr_ok(d, why, sizeof(why)),
		   "setattr: sched_setaffinity() on demoted D (its own CPUs, %d): %s, priority %d right after "
		   "(-101 throttled, or %d demoted again: still out of runtime), attributes unchanged%s%s%s",
		   CPU_COUNT(&set), err ? strerror(err) : "0", p1, demoted_prio(),
		   dem ? "" : "; D never seen demoted", why[0] ? ": " : "", why);
	why[0] = 0;

	dem = wait_prio(d, &w0, demoted_prio(), -1, 2000);
	read_stat(d->stat_fd, &p0, NULL);
	err = set_dl(d->pid, NEW_RUNTIME_MS * NS_MS, PERIOD_MS * NS_MS, SCHED_FLAG_DL_DEMOTION, cfg.nice);
	read_stat(d->stat_fd, &p1, NULL);
	if (!err)
		d->runtime_ns = NEW_RUNTIME_MS * NS_MS;
	tap_result(dem && !err && (p1 == PRIO_DL || p1 == demoted_prio()) && attr_ok(d, why, sizeof(why)),
		   "setattr: sched_setattr(%d/%d ms, DEMOTION) on demoted D (priority %d): %s, priority %d right "
		   "after (either, as above), sched_getattr() gives the new runtime%s%s", NEW_RUNTIME_MS,
		   PERIOD_MS, p0, err ? strerror(err) : "0", p1, why[0] ? ": " : "", why);

	measure(wt);
	stop_all();
	fair_point("setattr", d, h);
	demoted_point("setattr", d, &wt[0]);
}

/* ---- wake --------------------------------------------------------------- */

/* ran_within: c runs (its CPU time grows) within ms; the delay in *took_ms */
static bool ran_within(struct child *c, int ms, double *took_ms)
{
	long long c0 = cpu_of(c);
	int64_t t0 = now_ns(), end = t0 + (int64_t)ms * NS_MS;

	for (;;) {
		int64_t t = now_ns();

		if (cpu_of(c) > c0) {
			*took_ms = (double)(t - t0) / NS_MS;
			return true;
		}
		if (t > end)
			return false;
		nap_us(100);
	}
}

/*
 * wake: a demoted task that blocks goes back to the deadline class for the
 * sleep, and one whose affinity or attributes are set does so for the
 * call; either way it is still out of runtime after, and must run on
 * demoted, not wait in the deadline class for its replenishment.  With the
 * least runtime that is minutes away: D overruns 1024 ns by up to a tick
 * before each demotion, a debt that CBS pays back one runtime per period.
 */
static void sc_wake(void)
{
	struct watch w0 = { 0 };
	struct child *d;
	double late[MAX_ROUNDS], took[2 * MAX_ROUNDS], worst = 0;
	char buf[MAX_ROUNDS * 8], pbuf[MAX_ROUNDS * 5] = "";
	int n, before_ok = 0, calls_ok = 0, first_bad = -1;
	int64_t end;
	cpu_set_t set;

	become_measurer();
	d = spawn_ns("D", SCHED_DEADLINE, cfg.d_runtime_ns, SCHED_FLAG_DL_DEMOTION, B_NAP, -1);
	spawn("H", SCHED_OTHER, 0, 0, B_SPIN, -1);
	diag("wake: D deadline %g/%d ms DEMOTION, nice %d, sleeps %d us once demoted, %d times; "
	     "H SCHED_OTHER nice 0", (double)d->runtime_ns / NS_MS, PERIOD_MS, d->nice, NAP_US, cfg.rounds);

	/* the naps */
	end = now_ns() + (3000 + (int64_t)cfg.rounds * 2 * WAKE_LIMIT_MS) * NS_MS;
	while ((n = atomic_load(&shm->naps)) < cfg.rounds && now_ns() < end)
		nap_us(1000);
	for (int i = 0; i < n; i++) {
		size_t l = strlen(pbuf);

		late[i] = (double)shm->nap_late_ns[i] / NS_MS;
		before_ok += shm->nap_prio0[i] == demoted_prio();
		snprintf(pbuf + l, sizeof(pbuf) - l, "%s%d", i ? " " : "", shm->nap_prio1[i]);
		if (late[i] > worst)
			worst = late[i];
	}
	if (n < cfg.rounds) {
		int prio = INT_MIN;

		read_stat(d->stat_fd, &prio, NULL);
		tap_result(false, "wake: D ran again within %d ms of each of its %d sleeps while demoted: only %d "
			   "done in %lld s, D's priority now %d (-101: waiting in the deadline class)",
			   WAKE_LIMIT_MS, cfg.rounds, n, (long long)(3 + cfg.rounds * 2 * WAKE_LIMIT_MS / 1000), prio);
	} else {
		tap_result(worst <= WAKE_LIMIT_MS,
			   "wake: D ran again within %d ms of each of its %d sleeps while demoted: %.2f ms late at "
			   "most (median %.2f; rounds %s)", WAKE_LIMIT_MS, n, worst, median(late, n),
			   list(late, n, buf, sizeof(buf)));
	}
	tap_result(n > 0 && before_ok == n,
		   "wake: D was demoted (priority %d) before each sleep: %d of %d; priority right after each: %s "
		   "(%d demoted again, -101 replenished meanwhile)", demoted_prio(), before_ok, n, pbuf,
		   demoted_prio());

	/* the calls: D spins on once its naps are done */
	if (sched_getaffinity(d->pid, sizeof(set), &set))
		die("sched_getaffinity(D): %s", strerror(errno));
	n = 0;
	worst = 0;
	for (int k = 0; k < 2 * cfg.rounds; k++) {
		bool aff = !(k % 2), ok;
		int err;

		if (!wait_prio(d, &w0, demoted_prio(), -1, 2000)) {
			if (first_bad < 0)
				first_bad = k;
			continue;
		}
		if (aff)
			err = sched_setaffinity(d->pid, sizeof(set), &set) ? errno : 0;
		else
			err = set_dl(d->pid, d->runtime_ns, d->period_ns, SCHED_FLAG_DL_DEMOTION, cfg.nice);
		ok = !err && ran_within(d, WAKE_LIMIT_MS, &took[n]);
		if (ok) {
			if (took[n] > worst)
				worst = took[n];
			n++;
			calls_ok++;
		} else if (first_bad < 0) {
			first_bad = k;
		}
	}
	tap_result(calls_ok == 2 * cfg.rounds,
		   "wake: after each of %d sched_setaffinity() (its own CPUs) and %d sched_setattr() (the same "
		   "attributes) calls on demoted D, D ran again within %d ms: %d of %d, %.2f ms at most "
		   "(median %.2f)%s%s", cfg.rounds, cfg.rounds, WAKE_LIMIT_MS, calls_ok, 2 * cfg.rounds, worst,
		   n ? median(took, n) : 0.0, first_bad < 0 ? "" : "; the first that did not: ",
		   first_bad < 0 ? "" : first_bad % 2 ? "a sched_setattr()" : "a sched_setaffinity()");
	stop_all();
}

/* ---- pi ----------------------------------------------------------------- */

struct pi_result {
	double wait_ms, need_ms;
	long boosted;
	char waits[MAX_ROUNDS * 8], prios[MAX_ROUNDS * 5];
	bool ok;
};

static void pi_case(bool flag, struct pi_result *r)
{
	double waits[MAX_ROUNDS], needs[MAX_ROUNDS];
	struct watch w[MAX_CHILD] = { 0 };
	pthread_mutexattr_t ma;
	struct child *d;

	memset(r, 0, sizeof(*r));
	if (pthread_mutexattr_init(&ma) || pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED) ||
	    pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT) || pthread_mutex_init(&shm->lock, &ma))
		die("a process-shared PTHREAD_PRIO_INHERIT mutex is not supported");
	pthread_mutexattr_destroy(&ma);
	atomic_store(&shm->go, -1);
	atomic_store(&shm->locked, -1);
	atomic_store(&shm->done, -1);
	atomic_store(&shm->werr, 0);
	atomic_store(&shm->progress, 0);
	d = spawn("D", SCHED_DEADLINE, D_RUNTIME_MS, flag ? SCHED_FLAG_DL_DEMOTION : 0, B_PI_HOLD, -1);
	atomic_store(&shm->holder_tid, d->tid);
	spawn("W", SCHED_FIFO, 0, 0, B_PI_WAIT, -1);
	r->ok = true;
	for (int i = 0; i < cfg.rounds; i++) {
		int64_t end = now_ns() + 5 * RTLAB_NSEC_PER_SEC;

		atomic_store(&shm->go, i);
		while (atomic_load(&shm->done) < i && !atomic_load(&shm->werr) && now_ns() < end)
			watch_ms(SAMPLE_MS, w);
		if (atomic_load(&shm->done) < i) {
			diag("pi: round %d did not end in 5 s (lock error %d)", i, atomic_load(&shm->werr));
			r->ok = false;
			stop_all();
			pthread_mutex_destroy(&shm->lock);
			return;
		}
		waits[i] = shm->wait_ns[i] / 1e6;
		needs[i] = shm->need_ns[i] / 1e6;
		snprintf(r->prios + strlen(r->prios), sizeof(r->prios) - strlen(r->prios), "%s%d",
			 i ? " " : "", shm->hprio[i]);
		watch_ms(PI_GAP_MS, w);
	}
	stop_all();
	pthread_mutex_destroy(&shm->lock);
	r->wait_ms = median(waits, cfg.rounds);
	r->need_ms = median(needs, cfg.rounds);
	r->boosted = w[0].boosted;
	list(waits, cfg.rounds, r->waits, sizeof(r->waits));
}

static void sc_pi(void)
{
	struct pi_result dem, ref;

	become_measurer();
	diag("pi: D deadline %d/%d ms holds a PI mutex for %d ms of its CPU time; W (SCHED_FIFO %d, same CPU) "
	     "blocks on it once D has run %d ms of it; %d rounds %d ms apart", D_RUNTIME_MS, PERIOD_MS,
	     PI_HOLD_MS, WAIT_PRIO, PI_LEAD_MS, cfg.rounds, PI_GAP_MS);
	pi_case(true, &dem);
	pi_case(false, &ref);
	tap_result(dem.ok && dem.wait_ms < PI_LIMIT_MS,
		   "pi: DEMOTION: W waited %.2f ms (median; rounds %s), under %d ms: D, demoted, was boosted "
		   "and finished (it still needed %.2f ms of CPU at the block, median; its priority then: %s; "
		   "seen boosted to %d in %ld samples)", dem.wait_ms, dem.waits, PI_LIMIT_MS, dem.need_ms,
		   dem.prios, -1 - WAIT_PRIO, dem.boosted);
	tap_result(ref.ok && ref.wait_ms > PI_LIMIT_MS,
		   "pi: reference without the flag: W waited %.2f ms (median; rounds %s), over %d ms: the "
		   "throttled holder waits for its replenishment (needed %.2f ms, priority %s)", ref.wait_ms,
		   ref.waits, PI_LIMIT_MS, ref.need_ms, ref.prios);
}

/* ---- the book ----------------------------------------------------------- */

/* key_is: the debug line's key (".key   : value") ends with suffix */
static bool key_is(const char *key, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !strncmp(key + len - n, suffix, n) && (len == n || key[len - n - 1] == '.' ||
								  key[len - n - 1] == '>');
}

static void book_read(struct book *b)
{
	FILE *f = fopen(DEBUG_FILE, "r");
	char *line = NULL;
	size_t cap = 0;
	int cur = -1;

	if (!f)
		die("%s: %s", DEBUG_FILE, strerror(errno));
	for (int i = 0; i < MAX_CPUS; i++) {
		b->has[i] = 0;
		b->total[i] = b->running[i] = b->this_bw[i] = NO_VAL;
	}
	while (getline(&line, &cap, f) > 0) {
		char *k = line, *colon;
		size_t len;
		int c;

		if (*line != ' ' && *line != '\n') {
			cur = sscanf(line, "dl_rq[%d]:", &c) == 1 && c >= 0 && c < MAX_CPUS ? c : -1;
			if (cur >= 0)
				b->has[cur] = 1;
			continue;
		}
		colon = strchr(line, ':');
		if (cur < 0 || !colon)
			continue;
		while (*k == ' ' || *k == '.')
			k++;
		for (len = colon - k; len && k[len - 1] == ' '; len--)
			;
		if (key_is(k, len, "total_bw"))
			b->total[cur] = strtoll(colon + 1, NULL, 10);
		else if (key_is(k, len, "running_bw"))
			b->running[cur] = strtoll(colon + 1, NULL, 10);
		else if (key_is(k, len, "this_bw"))
			b->this_bw[cur] = strtoll(colon + 1, NULL, 10);
	}
	free(line);
	fclose(f);
}

static bool book_same(const struct book *a, const struct book *b, const int *cpus, int n)
{
	for (int i = 0; i < n; i++) {
		int c = cpus[i];

		if (a->has[c] != b->has[c] || a->total[c] != b->total[c] || a->running[c] != b->running[c] ||
		    a->this_bw[c] != b->this_bw[c])
			return false;
	}
	return true;
}

/* book_read_stable: read until two readings 100 ms apart agree (5 at most) */
static void book_read_stable(struct book *b, const int *cpus, int n)
{
	struct book prev;

	book_read(&prev);
	for (int i = 0; i < 5; i++) {
		nap_us(100000);
		book_read(b);
		if (book_same(&prev, b, cpus, n))
			return;
		prev = *b;
	}
	diag("book: not steady over 5 readings 100 ms apart; the last is used");
}

static const char *val(long long v, char *buf, size_t len)
{
	if (v == NO_VAL)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%lld", v);
	return buf;
}

/*
 * book_compare: one point per pair of fields of the CPUs listed: "WHAT:
 * total_bw ..." (the root domain's) and, apart, running_bw and this_bw
 * (separate=true: a failed point if the kernel does not print them;
 * false: one point, judged on what is printed)
 */
static void book_compare(const char *what, const struct book *a, const struct book *b, const int *cpus,
			 int n, bool separate)
{
	char tot[512] = "", rq[768] = "", x[24], y[24], z[24], u[24];
	bool tot_ok = true, rq_ok = true, printed = true;

	for (int i = 0; i < n; i++) {
		int c = cpus[i];

		if (!a->has[c] || !b->has[c]) {
			snprintf(tot + strlen(tot), sizeof(tot) - strlen(tot), " cpu%d missing (%s)", c,
				 a->has[c] ? "after" : "before");
			tot_ok = false;
			continue;
		}
		tot_ok &= a->total[c] == b->total[c];
		snprintf(tot + strlen(tot), sizeof(tot) - strlen(tot), " cpu%d %s->%s", c,
			 val(a->total[c], x, sizeof(x)), val(b->total[c], y, sizeof(y)));
		if (a->running[c] == NO_VAL || a->this_bw[c] == NO_VAL || b->running[c] == NO_VAL ||
		    b->this_bw[c] == NO_VAL)
			printed = false;
		rq_ok &= a->running[c] == b->running[c] && a->this_bw[c] == b->this_bw[c];
		snprintf(rq + strlen(rq), sizeof(rq) - strlen(rq), " cpu%d %s->%s/%s->%s", c,
			 val(a->running[c], x, sizeof(x)), val(b->running[c], y, sizeof(y)),
			 val(a->this_bw[c], z, sizeof(z)), val(b->this_bw[c], u, sizeof(u)));
	}
	if (separate) {
		tap_result(tot_ok, "%s: dl_bw->total_bw of every CPU's root domain as before:%s", what, tot);
		if (printed)
			tap_result(rq_ok, "%s: running_bw/this_bw of every CPU's dl_rq as before:%s", what, rq);
		else
			tap_result(false, "%s: running_bw/this_bw cannot be checked: %s does not print them "
				   "(6.12's print_dl_rq() has dl_nr_running and dl_bw only):%s", what, DEBUG_FILE, rq);
		return;
	}
	tap_result(tot_ok && (!printed || rq_ok), "%s: total_bw%s; running_bw/this_bw%s%s", what, tot, rq,
		   printed ? "" : " (not printed by this kernel: total_bw only)");
}

static atomic_int hog_stop;

static void *hog_thread(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&hog_stop, memory_order_relaxed))
		;
	return NULL;
}

static void book_save(const char *path, const struct book *b, const int *cpus, int n)
{
	FILE *f = fopen(path, "w");

	if (!f)
		die("%s: %s", path, strerror(errno));
	for (int i = 0; i < n; i++) {
		char x[24], y[24], z[24];

		fprintf(f, "%d %s %s %s\n", cpus[i], val(b->total[cpus[i]], x, sizeof(x)),
			val(b->running[cpus[i]], y, sizeof(y)), val(b->this_bw[cpus[i]], z, sizeof(z)));
	}
	if (fclose(f))
		die("%s: %s", path, strerror(errno));
}

static long long load_val(const char *s, const char *path, int line)
{
	char *end;
	long long v;

	if (!strcmp(s, "?"))
		return NO_VAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end)
		die("%s:%d: '%s' is no number", path, line, s);
	return v;
}

static int book_load(const char *path, struct book *b, int *cpus)
{
	FILE *f = fopen(path, "r");
	char t[32], r[32], h[32];
	int c, n = 0, line = 0, got;

	if (!f)
		die("%s: %s", path, strerror(errno));
	memset(b->has, 0, sizeof(b->has));
	while ((got = fscanf(f, "%d %31s %31s %31s", &c, t, r, h)) != EOF) {
		line++;
		if (got != 4 || c < 0 || c >= MAX_CPUS || b->has[c])
			die("%s:%d: not 'CPU TOTAL_BW RUNNING_BW THIS_BW'", path, line);
		b->has[c] = 1;
		b->total[c] = load_val(t, path, line);
		b->running[c] = load_val(r, path, line);
		b->this_bw[c] = load_val(h, path, line);
		cpus[n++] = c;
	}
	fclose(f);
	if (!n)
		die("%s: empty", path);
	return n;
}

static void sc_book(void)
{
	pthread_t hogs[MAX_CPUS];
	int cpus[MAX_CPUS], n = online_cpus(cpus), nh = 0;
	struct book b;

	for (int i = 0; i < n; i++) {
		pthread_attr_t a;
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpus[i], &set);
		if (pthread_attr_init(&a) || pthread_attr_setaffinity_np(&a, sizeof(set), &set))
			die("pthread attributes");
		if (pthread_create(&hogs[nh], &a, hog_thread, NULL))
			diag("book: no hog on CPU %d (not in our cpuset?): its fair server may be idle", cpus[i]);
		else
			nh++;
		pthread_attr_destroy(&a);
	}
	nap_us(300000);
	book_read_stable(&b, cpus, n);
	atomic_store(&hog_stop, 1);
	for (int i = 0; i < nh; i++)
		pthread_join(hogs[i], NULL);

	if (cfg.check) {
		struct book a;
		int ca[MAX_CPUS], na = book_load(cfg.check, &a, ca);

		tap_header(0);
		if (na != n || memcmp(ca, cpus, n * sizeof(*cpus)))
			diag("book: the online CPUs differ from %s's", cfg.check);
		book_compare("book", &a, &b, ca, na, true);
		tap_plan_end();
		return;
	}
	for (int i = 0; i < n; i++) {
		char x[24], y[24], z[24];

		diag("book: cpu%d total_bw %s running_bw %s this_bw %s", cpus[i], val(b.total[cpus[i]], x, sizeof(x)),
		     val(b.running[cpus[i]], y, sizeof(y)), val(b.this_bw[cpus[i]], z, sizeof(z)));
	}
	if (cfg.save)
		book_save(cfg.save, &b, cpus, n);
}

/* ---- exit --------------------------------------------------------------- */

static void sc_exit(void)
{
	struct book b0, b1;
	struct child *h;
	cpu_set_t set;
	int cpus[MAX_CPUS], n = 0, demoted = 0, as_thread = 0, as_proc = 0;
	char prios[MAX_ROUNDS * 6] = "";

	become_measurer();
	h = spawn("H", SCHED_OTHER, 0, 0, B_SPIN, -1);
	if (sched_getaffinity(h->pid, sizeof(set), &set))
		die("sched_getaffinity(H): %s", strerror(errno));
	for (int c = 0; c < MAX_CPUS; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	nap_us(300000);
	book_read_stable(&b0, cpus, n);
	for (int r = 0; r < cfg.rounds; r++) {
		bool thread = !(r % 2);
		struct child *d = spawn("D", SCHED_DEADLINE, D_RUNTIME_MS, SCHED_FLAG_DL_DEMOTION,
					thread ? B_EXIT_THREAD : B_EXIT_PROC, -1);
		int st = reap(d, 8000), prio = atomic_load(&shm->slot[d - ch].exit_prio);

		if (st == -1)
			die("D (round %d) did not exit in 8 s", r);
		if (prio == demoted_prio() && WIFEXITED(st) && !WEXITSTATUS(st)) {
			demoted++;
			as_thread += thread;
			as_proc += !thread;
		}
		snprintf(prios + strlen(prios), sizeof(prios) - strlen(prios), "%s%d", r ? " " : "", prio);
		if (d->stat_fd >= 0)
			close(d->stat_fd);
		nch--;	/* d was the last child */
		nap_us(150000);
	}
	nap_us(300000);	/* past the 0-lag time of the last one */
	book_read_stable(&b1, cpus, n);
	stop_all();
	tap_result(demoted == cfg.rounds,
		   "exit: D exited while demoted in %d of %d rounds (a thread that returns: %d, a process: %d; "
		   "priority just before: %s)", demoted, cfg.rounds, as_thread, as_proc, prios);
	book_compare("exit: the partition CPU's book after the exits as before, with H running", &b0, &b1,
		     cpus, n, false);
}

/* ---- hotplug and move: D survives ---------------------------------------- */

struct survival {
	int steps, dead, not_dl, idle;
	char bad[200];
};

/* check_d: after a step, D is alive, as set, and has run since c0 */
static void check_d(struct child *d, struct survival *s, long long c0, const char *step)
{
	char why[160];

	s->steps++;
	if (!alive(d)) {
		if (!s->dead++)
			snprintf(s->bad, sizeof(s->bad), "%s: D died", step);
		return;
	}
	if (!attr_ok(d, why, sizeof(why)) && !s->not_dl++)
		snprintf(s->bad, sizeof(s->bad), "%s: %s", step, why);
	if (cpu_of(d) - c0 < NS_MS && !s->idle++ && !s->bad[0])
		snprintf(s->bad, sizeof(s->bad), "%s: D ran %.3f ms", step, (cpu_of(d) - c0) / 1e6);
}

static void survival_point(const char *sc, struct survival *s, int demoted, int tries, const char *extra)
{
	tap_result(!s->dead && !s->not_dl && !s->idle && demoted > 0,
		   "%s: D survived %d steps: alive, SCHED_DEADLINE with its parameters after each (%d not), "
		   "ran after each (%d not); demoted before %d of %d%s%s%s", sc, s->steps, s->not_dl, s->idle,
		   demoted, tries, extra, s->bad[0] ? "; first problem: " : "", s->bad);
}

static void sc_hotplug(void)
{
	int cpus[MAX_CPUS], n = online_cpus(cpus), cpu = cfg.cpu, fails = 0, first = 0;
	int demoted = 0, on_cpu = 0, dem_on = 0, done = 0;
	struct survival sv = { 0 };
	struct watch w[MAX_CHILD] = { 0 };
	char path[80], extra[96], tot[256] = "";
	struct book b0, b1;
	long long bw;
	bool tot_ok = true;
	struct child *d;

	if (cpu < 0)
		for (int i = 0; i < n; i++)
			if (cpus[i] > cpu && cpus[i] != 0)
				cpu = cpus[i];
	snprintf(path, sizeof(path), CPU_SYSFS "/cpu%d/online", cpu);
	tap_header(0);
	if (cpu <= 0 || access(path, W_OK)) {
		tap_result(false, "hotplug: CPU %d can go offline: %s%s", cpu,
			   cpu <= 0 ? "no online CPU but 0" : "no CPU hotplug, cannot write ", cpu <= 0 ? "" : path);
		tap_result(false, "hotplug: D survives CPU hotplug: not run");
		tap_result(false, "hotplug: the root domain counts D after the rebuilds: not run");
		return;
	}
	become_measurer();
	for (int i = 0; i < n && nch < MAX_CHILD - 1; i++) {
		char name[8];

		snprintf(name, sizeof(name), "H%d", cpus[i]);
		spawn(name, SCHED_OTHER, 0, 0, B_SPIN, cpus[i]);
	}
	book_read(&b0);
	d = spawn("D", SCHED_DEADLINE, D_RUNTIME_MS, SCHED_FLAG_DL_DEMOTION, B_SPIN, -1);
	diag("hotplug: D deadline %d/%d ms DEMOTION beside %d pinned SCHED_OTHER hogs; CPU %d offline/online "
	     "%d times", D_RUNTIME_MS, PERIOD_MS, nch - 1, cpu, cfg.cycles);
	watch_ms(500, w);
	for (int k = 0; k < cfg.cycles; k++) {
		bool on = wait_prio(d, &w[d - ch], demoted_prio(), cpu, 1000);
		bool dem = on || wait_prio(d, &w[d - ch], demoted_prio(), -1, 1000);
		long long c0 = cpu_of(d);
		int err;

		demoted += dem;
		on_cpu += on;
		err = write_str(path, "0");
		if (err && !fails++)
			first = err;
		watch_ms(200, w);
		check_d(d, &sv, c0, "offline");
		dem_on += wait_prio(d, &w[d - ch], demoted_prio(), -1, 1000);
		c0 = cpu_of(d);
		err = write_str(path, "1");
		if (err && !fails++)
			first = err;
		watch_ms(200, w);
		check_d(d, &sv, c0, "online");
		if (sv.dead)
			break;
		done++;
	}
	/* D still there: every rebuild of the root domain must have counted it */
	book_read(&b1);
	bw = (long long)((d->runtime_ns << 20) / d->period_ns);	/* to_ratio(), BW_SHIFT 20 */
	for (int i = 0; i < n; i++) {
		int c = cpus[i];

		tot_ok &= b0.has[c] && b1.has[c] && b1.total[c] == b0.total[c] + bw;
		snprintf(tot + strlen(tot), sizeof(tot) - strlen(tot), " cpu%d %lld->%lld", c, b0.total[c],
			 b1.total[c]);
	}
	stop_all();
	write_str(path, "1");	/* whatever happened, the CPU comes back */
	tap_result(!fails && done == cfg.cycles,
		   "hotplug: CPU %d went offline and online %d of %d times (%d writes failed%s%s)", cpu, done,
		   cfg.cycles, fails, fails ? ", the first: " : "", fails ? strerror(first) : "");
	snprintf(extra, sizeof(extra), " offlines (%d of them on CPU %d), before %d onlines", on_cpu, cpu, dem_on);
	survival_point("hotplug", &sv, demoted, done, extra);
	tap_result(tot_ok && !sv.dead, "hotplug: after the cycles, with D alive, its root domain's total_bw is "
		   "the one before D plus D's %lld (the rebuilds at each hotplug counted D, demoted or not):%s",
		   bw, tot);
}

static void sc_move(void)
{
	char a[PATH_MAX], *b;
	struct survival sv = { 0 };
	struct watch w[MAX_CHILD] = { 0 };
	int fails = 0, first = 0, demoted = 0;
	struct child *d;

	snprintf(a, sizeof(a), "%s", cfg.move);
	b = strchr(a, ':');
	*b++ = 0;
	tap_header(0);
	become_measurer();
	spawn("H", SCHED_OTHER, 0, 0, B_SPIN, -1);
	d = spawn("D", SCHED_DEADLINE, D_RUNTIME_MS, SCHED_FLAG_DL_DEMOTION, B_SPIN, -1);
	diag("move: D deadline %d/%d ms DEMOTION and H spin; D moved %d times between %s and %s",
	     D_RUNTIME_MS, PERIOD_MS, cfg.cycles, a, b);
	watch_ms(500, w);
	for (int k = 0; k < cfg.cycles; k++) {
		bool dem = wait_prio(d, &w[d - ch], demoted_prio(), -1, 500);
		long long c0 = cpu_of(d);
		int err = cg_move(k % 2 ? b : a, d->pid);

		if (err) {
			if (!fails++)
				first = err;
		} else {
			demoted += dem;
		}
		watch_ms(100, w);
		check_d(d, &sv, c0, k % 2 ? "move to B" : "move to A");
		if (sv.dead)
			break;
	}
	stop_all();
	tap_result(!fails && demoted > 0, "move: %d of %d moves of D succeeded, %d of them while demoted%s%s",
		   cfg.cycles - fails, cfg.cycles, demoted, fails ? "; the first failure: " : "",
		   fails ? strerror(first) : "");
	survival_point("move", &sv, demoted, cfg.cycles - fails, " moves");
}

int main(int argc, char **argv)
{
	parse(argc, argv);
	parent_pid = getpid();
	ncpu_conf = (int)sysconf(_SC_NPROCESSORS_CONF);
	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	memset(shm, 0, sizeof(*shm));
	if (atexit(kill_children))
		die("atexit failed");

	switch (cfg.scenario) {
	case SC_BOOK:
		sc_book();
		return tap_exit();
	case SC_HOTPLUG:
		sc_hotplug();
		break;
	case SC_MOVE:
		sc_move();
		break;
	default:
		tap_header(0);
		switch (cfg.scenario) {
		case SC_FORK: sc_fork(); break;
		case SC_SETATTR: sc_setattr(); break;
		case SC_PI: sc_pi(); break;
		case SC_EXIT: sc_exit(); break;
		case SC_WAKE: sc_wake(); break;
		case SC_RENICE: sc_renice(); break;
		default: sc_shares(); break;
		}
	}
	tap_plan_end();
	return tap_exit();
}
