/* rtaudit system: a live audit of the machine under a root prefix (the
 * real / or a fake /proc + /sys tree in the tests).  Each finding names
 * the file it read.  A file that exists but cannot be read, or holds
 * something unexpected, is bad input (exit 3), never a guess. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rtaudit.h"

#define MAX_CPUS 4096
#define SMALL_FILE 65536
#define KMSG_MAX (4u << 20)
#define CPUINFO_MAX (4u << 20)
#define CPUIDLE_SLOW_US 20   /* exit latency above this costs RT wake-ups */
#define RT_DEFAULT_PRIO 50   /* irq threads' FIFO priority from the kernel */
#define MAX_LISTED 8         /* irqs/CPUs named in one finding */
#define RTIRQD_OUT_MAX (1u << 20)

struct sys {
	struct report *r;
	const struct sys_opts *o;
	const struct rules *rs;
	char *err;
	size_t errlen;
	int ncpus;
	bool rt_kernel;
	unsigned char isol[MAX_CPUS];
	bool has_isol;
};

static char *path_of(const struct sys *s, const char *rel)
{
	return xasprintf("%s%s", s->o->root, rel);
}

/* 0 read, 1 absent, -1 error (set in s->err) */
static int rd(struct sys *s, const char *rel, char **out, size_t max)
{
	char *p = path_of(s, rel);
	int rc = read_text(p, out, max, s->err, s->errlen);

	free(p);
	return rc;
}

static void chomp(char *t)
{
	size_t n = strlen(t);

	while (n && isspace((unsigned char)t[n - 1]))
		t[--n] = 0;
}

static void add(struct sys *s, enum severity sev, int weight,
		const char *subject, const char *value, const char *why,
		const char *fix, const char *evidence)
{
	report_add(s->r, &(struct finding){
		.sev = sev, .weight = weight, .subject = (char *)subject,
		.new_value = (char *)value, .why = (char *)why,
		.fix = (char *)fix, .evidence = (char *)evidence });
}

/* add() with the why formatted (printf-style, from fmt on) */
static void addf(struct sys *s, enum severity sev, int weight,
		 const char *subject, const char *value, const char *fix,
		 const char *evidence, const char *fmt, ...)
	__attribute__((format(printf, 8, 9)));
static void addf(struct sys *s, enum severity sev, int weight,
		 const char *subject, const char *value, const char *fix,
		 const char *evidence, const char *fmt, ...)
{
	va_list ap;
	char *why;

	va_start(ap, fmt);
	why = xvasprintf(fmt, ap);
	va_end(ap);
	add(s, sev, weight, subject, value, why, fix, evidence);
	free(why);
}

static int bad_content(struct sys *s, const char *rel, const char *what)
{
	snprintf(s->err, s->errlen, "%s%s:1: %s", s->o->root, rel, what);
	return -1;
}

static int read_long(struct sys *s, const char *rel, long *v, bool *present)
{
	char *t, *end;
	int rc = rd(s, rel, &t, SMALL_FILE);

	*present = rc == 0;
	if (rc)
		return rc < 0 ? -1 : 0;
	errno = 0;
	*v = strtol(t, &end, 10);
	if (errno || end == t || (*end && *end != '\n')) {
		free(t);
		return bad_content(s, rel, "expected a number");
	}
	free(t);
	return 0;
}

static int count_cpus(struct sys *s)
{
	static const char rel[] = "/sys/devices/system/cpu/online";
	unsigned char *set = calloc(MAX_CPUS, 1);
	char *t;
	int rc = rd(s, rel, &t, SMALL_FILE);

	s->ncpus = 1;
	if (rc == 0) {
		if (cpulist_parse(t, set, MAX_CPUS)) {
			free(t);
			free(set);
			return bad_content(s, rel, "expected a CPU list such as 0-3");
		}
		s->ncpus = 0;
		for (int i = 0; i < MAX_CPUS; i++)
			s->ncpus += set[i];
		free(t);
	}
	free(set);
	return rc < 0 ? -1 : 0;
}

static bool word_in(const char *list, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = list; (p = strstr(p, w)); p += n)
		if ((p == list || isspace((unsigned char)p[-1]) || p[-1] == '[') &&
		    (!p[n] || isspace((unsigned char)p[n]) || p[n] == ']'))
			return true;
	return false;
}

/* --- clock sources and TSC ------------------------------------------------ */
static int check_clocksource(struct sys *s)
{
	static const char cur_rel[] =
		"/sys/devices/system/clocksource/clocksource0/current_clocksource";
	static const char av_rel[] =
		"/sys/devices/system/clocksource/clocksource0/available_clocksource";
	static const char *const slow[] = { "hpet", "acpi_pm", "jiffies",
					    "refined-jiffies", "pit" };
	static const char *const fast[] = { "tsc", "kvm-clock", "arch_sys_counter",
					    "hyperv_clocksource_tsc_page" };
	char *cur = NULL, *av = NULL, *ev;
	int rc;

	if ((rc = rd(s, cur_rel, &cur, SMALL_FILE)) < 0)
		return -1;
	if (rc) {
		add(s, SEV_INFO, 10, "clocksource", NULL,
		    "no clock source information in sysfs", NULL, cur_rel);
		return 0;
	}
	if (rd(s, av_rel, &av, SMALL_FILE) < 0) {
		free(cur);
		return -1;
	}
	chomp(cur);
	if (av)
		chomp(av);
	ev = xasprintf("%s (available: %s)", cur_rel, av ? av : "?");
	for (size_t i = 0; i < sizeof(slow) / sizeof(*slow); i++)
		if (!strcmp(cur, slow[i])) {
			addf(s, SEV_PROBLEM, 95, "clocksource", cur,
			     "use the TSC: find why it was not chosen (kernel log, tsc= and clocksource= on the command line), then echo tsc > current_clocksource",
			     ev,
			     "clock source %s: every clock_gettime() and every timestamp of the kernel is a hardware access of about a microsecond or more, instead of a register read", cur);
			goto out;
		}
	for (size_t i = 0; i < sizeof(fast) / sizeof(*fast); i++)
		if (!strcmp(cur, fast[i])) {
			add(s, SEV_INFO, 40, "clocksource", cur,
			    "a clock source read from a CPU register or shared page (fast)",
			    "nothing", ev);
			goto out;
		}
	add(s, SEV_INFO, 40, "clocksource", cur,
	    "a clock source rtaudit does not rate: measure it with rtaudit clock",
	    NULL, ev);
out:
	if (av && !word_in(av, "tsc") && !word_in(av, "kvm-clock") &&
	    !word_in(av, "arch_sys_counter")) {
		add(s, SEV_WARNING, 80, "clocksource.available", av,
		    "no fast clock source is available: the TSC was marked unstable or is disabled",
		    "read the kernel log for \"Marking TSC unstable\" and the tsc= boot parameter",
		    av_rel);
	}
	free(ev);
	free(cur);
	free(av);
	return 0;
}

static int check_tsc_flags(struct sys *s)
{
	static const char rel[] = "/proc/cpuinfo";
	static const struct { const char *flag, *why; enum severity sev; } f[] = {
		{ "constant_tsc", "the TSC rate changes with the CPU frequency: the kernel cannot use it as a clock source on its own", SEV_WARNING },
		{ "nonstop_tsc", "the TSC stops in deep C-states: it cannot be trusted across idle", SEV_WARNING },
		{ "tsc_reliable", "the TSC is not known reliable: the clocksource watchdog keeps checking it against HPET/ACPI PM and may switch to them", SEV_INFO },
	};
	char *t, *line, *end, *flags;
	int rc = rd(s, rel, &t, CPUINFO_MAX);

	if (rc)
		return rc < 0 ? -1 : 0;
	line = strstr(t, "\nflags");
	if (!line || !(flags = strchr(line, ':'))) {
		free(t);
		return 0; /* not x86 */
	}
	end = strchr(flags, '\n');
	if (end)
		*end = 0;
	if (!word_in(flags + 1, "tsc")) {
		add(s, SEV_WARNING, 70, "tsc", "absent", "the CPU offers no TSC",
		    NULL, rel);
		free(t);
		return 0;
	}
	for (size_t i = 0; i < sizeof(f) / sizeof(*f); i++) {
		bool has = word_in(flags + 1, f[i].flag);
		char *subj = xasprintf("tsc.%s", f[i].flag);

		add(s, has ? SEV_INFO : f[i].sev, 60 - (int)i, subj,
		    has ? "present" : "absent",
		    has ? "CPU flag set" : f[i].why,
		    has ? NULL : "prefer hardware with constant_tsc and nonstop_tsc (invariant TSC)",
		    rel);
		free(subj);
	}
	free(t);
	return 0;
}

/* the kernel log's verdicts on the TSC and the clock sources */
static void check_kmsg(struct sys *s)
{
	static const char rel[] = "/dev/kmsg";
	static const struct { const char *pat; enum severity sev; const char *why; } m[] = {
		{ "Marking TSC unstable", SEV_PROBLEM, "the kernel stopped trusting the TSC: timekeeping fell back to a slower clock source" },
		{ "Marking clocksource", SEV_PROBLEM, "the clocksource watchdog rejected a clock source" },
		{ "timekeeping watchdog", SEV_WARNING, "the clocksource watchdog saw a clock source drift" },
		{ "clocksource watchdog", SEV_WARNING, "clocksource watchdog message" },
		{ "Switched to clocksource", SEV_INFO, "the clock source the kernel chose" },
	};
	char *t, *line, *save = NULL;
	int rc = rd(s, rel, &t, KMSG_MAX);
	int seen = 0;

	if (rc) {
		add(s, SEV_INFO, 5, "kernel-log", rc < 0 ? "unreadable" : "absent",
		    "the TSC and watchdog messages could not be checked",
		    "run as root (CAP_SYSLOG) with /dev/kmsg", rel);
		return;
	}
	for (line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *msg = strchr(line, ';'); /* /dev/kmsg: "pri,seq,ts,-;text" */

		msg = msg ? msg + 1 : line;
		for (size_t i = 0; i < sizeof(m) / sizeof(*m); i++) {
			char *ev;

			if (!strstr(msg, m[i].pat))
				continue;
			ev = xasprintf("%s: \"%s\"", rel, msg);
			add(s, m[i].sev, 90 - (int)i, "kernel-log", m[i].pat, m[i].why,
			    m[i].sev == SEV_INFO ? NULL :
			    "find the cause (tsc= on the command line, BIOS/SMI, emulation); on a known-good TSC boot with tsc=reliable",
			    ev);
			free(ev);
			seen++;
			break;
		}
	}
	if (!seen)
		add(s, SEV_INFO, 5, "kernel-log", "clean",
		    "no TSC or clocksource watchdog message", NULL, rel);
	free(t);
}

/* --- trace clocks ----------------------------------------------------------- */
static int bits_in_mask(const char *hex, int ncpus)
{
	int n = 0, bit = 0;

	for (const char *p = hex + strlen(hex); p-- > hex;) {
		int v;

		if (*p == ',' || isspace((unsigned char)*p))
			continue;
		if (!isxdigit((unsigned char)*p))
			return -1;
		v = isdigit((unsigned char)*p) ? *p - '0' : tolower(*p) - 'a' + 10;
		for (int b = 0; b < 4; b++, bit++)
			if ((v >> b) & 1 && bit < ncpus)
				n++;
	}
	return n;
}

static int one_trace_clock(struct sys *s, const char *dir, const char *name)
{
	char *rel = xasprintf("%s/trace_clock", dir), *mrel;
	char *t = NULL, *m = NULL, *open, *close, *subj, *ev;
	int rc = rd(s, rel, &t, SMALL_FILE), cpus = s->ncpus;

	if (rc) {
		free(rel);
		return rc < 0 ? -1 : 0;
	}
	open = strchr(t, '[');
	close = open ? strchr(open, ']') : NULL;
	if (!close) {
		free(t);
		rc = bad_content(s, rel, "no [selected] trace clock");
		free(rel);
		return rc;
	}
	*close = 0;
	mrel = xasprintf("%s/tracing_cpumask", dir);
	if (rd(s, mrel, &m, SMALL_FILE) < 0) {
		free(t);
		free(rel);
		free(mrel);
		return -1;
	}
	if (m) {
		chomp(m);
		cpus = bits_in_mask(m, s->ncpus);
		if (cpus < 0) {
			free(t);
			free(m);
			free(rel);
			rc = bad_content(s, mrel, "expected a hex CPU mask");
			free(mrel);
			return rc;
		}
	}
	subj = xasprintf("trace_clock[%s]", name);
	ev = xasprintf("%s, %s (%d CPUs traced)", rel, mrel, cpus);
	if (!strcmp(open + 1, "local") && cpus > 1) {
		addf(s, SEV_WARNING, 75, subj, "local",
		     "echo mono > trace_clock (global is cross-CPU too, but slower; x86-tsc or counter when cycles are wanted)",
		     ev,
		     "the local clock is per CPU and not synchronized: events of the %d traced CPUs are not comparable and may appear out of order", cpus);
	} else {
		add(s, SEV_INFO, 20, subj, open + 1,
		    !strcmp(open + 1, "local") ? "local clock on a single traced CPU: fine" :
		    "a trace clock comparable across CPUs", NULL, ev);
	}
	free(subj);
	free(ev);
	free(t);
	free(m);
	free(rel);
	free(mrel);
	return 0;
}

static int check_trace_clocks(struct sys *s)
{
	static const char *const bases[] = { "/sys/kernel/tracing",
					     "/sys/kernel/debug/tracing" };
	for (size_t b = 0; b < sizeof(bases) / sizeof(*bases); b++) {
		char *inst = xasprintf("%s%s/instances", s->o->root, bases[b]);
		char *probe = xasprintf("%s%s/trace_clock", s->o->root, bases[b]);
		DIR *d;
		struct dirent *de;
		int rc = 0;

		if (access(probe, F_OK)) {
			free(inst);
			free(probe);
			continue;
		}
		free(probe);
		rc = one_trace_clock(s, bases[b], "top");
		d = opendir(inst);
		while (!rc && d && (de = readdir(d))) {
			char *dir;

			if (de->d_name[0] == '.')
				continue;
			dir = xasprintf("%s/instances/%s", bases[b], de->d_name);
			rc = one_trace_clock(s, dir, de->d_name);
			free(dir);
		}
		if (d)
			closedir(d);
		free(inst);
		return rc;
	}
	add(s, SEV_INFO, 5, "trace_clock", "no tracefs",
	    "tracefs is not mounted: trace clocks not checked",
	    "mount -t tracefs nodev /sys/kernel/tracing", "/sys/kernel/tracing");
	return 0;
}

/* --- kernel command line ------------------------------------------------------ */
static const char *param(const char *cmdline, const char *key, char *buf,
			 size_t len)
{
	size_t kl = strlen(key);
	const char *found = NULL;

	for (const char *p = cmdline; *p;) {
		size_t n;

		while (isspace((unsigned char)*p))
			p++;
		n = strcspn(p, " \t\n");
		if (n >= kl && !strncmp(p, key, kl) &&
		    (p[kl] == '=' || (n == kl && key[kl - 1] != '='))) {
			size_t v = n > kl ? n - kl - 1 : 0;

			snprintf(buf, len, "%.*s", (int)v, p + kl + (n > kl));
			found = buf; /* the last one wins, as in the kernel */
		}
		p += n;
	}
	return found;
}

/* isolcpus=[flags,]list: skip nohz, domain, managed_irq */
static const char *cpu_part(const char *v)
{
	while (isalpha((unsigned char)*v)) {
		const char *c = strchr(v, ',');

		if (!c)
			return v;
		v = c + 1;
	}
	return v;
}

static int cpus_param(struct sys *s, const char *cmdline, const char *key,
		      unsigned char *set, bool *present)
{
	char buf[1024];
	const char *v = param(cmdline, key, buf, sizeof(buf));

	*present = v != NULL;
	memset(set, 0, MAX_CPUS);
	if (!v)
		return 0;
	v = cpu_part(v);
	if (cpulist_parse(v, set, s->ncpus)) {
		char *subj = xasprintf("cmdline.%s", key);

		addf(s, SEV_PROBLEM, 85, subj, v,
		     "fix the list on the command line",
		     "/proc/cmdline, /sys/devices/system/cpu/online",
		     "%s=%s is not a CPU list within 0-%d (this machine has %d CPUs): the kernel ignores it or part of it", key, v, s->ncpus - 1, s->ncpus);
		free(subj);
		*present = false;
	}
	return 0;
}

static bool subset(const unsigned char *a, const unsigned char *b, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i] && !b[i])
			return false;
	return true;
}

static int count_set(const unsigned char *a, int n)
{
	int c = 0;

	for (int i = 0; i < n; i++)
		c += a[i];
	return c;
}

static bool overlap(const unsigned char *a, const unsigned char *b, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i] && b[i])
			return true;
	return false;
}

static void cmdline_cpus(struct sys *s, const char *cl)
{
	static const char ev[] = "/proc/cmdline, /sys/devices/system/cpu/online";
	static unsigned char nohz[MAX_CPUS], nocb[MAX_CPUS], irqa[MAX_CPUS];
	bool has_nohz, has_nocb, has_irqa;
	char buf[64];

	cpus_param(s, cl, "isolcpus", s->isol, &s->has_isol);
	cpus_param(s, cl, "nohz_full", nohz, &has_nohz);
	cpus_param(s, cl, "rcu_nocbs", nocb, &has_nocb);
	cpus_param(s, cl, "irqaffinity", irqa, &has_irqa);
	if (s->has_isol && count_set(s->isol, s->ncpus) >= s->ncpus)
		add(s, SEV_PROBLEM, 84, "cmdline.isolcpus", "all CPUs",
		    "every CPU is isolated: no housekeeping CPU is left for unbound kernel work and other tasks",
		    "leave at least one CPU (usually CPU 0) out of isolcpus=", ev);
	if (has_nohz && s->has_isol && !subset(nohz, s->isol, s->ncpus))
		add(s, SEV_WARNING, 60, "cmdline.nohz_full", NULL,
		    "nohz_full= names CPUs that isolcpus= does not isolate: the scheduler still puts other tasks there and the tick comes back",
		    "make nohz_full= a subset of isolcpus=", ev);
	if (has_nohz && nohz[0])
		add(s, SEV_WARNING, 58, "cmdline.nohz_full", "CPU 0",
		    "CPU 0 is the boot and usual timekeeping CPU: it cannot stay tickless",
		    "leave CPU 0 out of nohz_full=", ev);
	if (s->has_isol && !has_nohz && !has_nocb)
		add(s, SEV_WARNING, 55, "cmdline.isolcpus", NULL,
		    "isolated CPUs still take the tick and run RCU callbacks",
		    "add nohz_full= and rcu_nocbs= with the same list", ev);
	if (has_nocb && has_nohz && !subset(nohz, nocb, s->ncpus))
		add(s, SEV_INFO, 30, "cmdline.rcu_nocbs", NULL,
		    "rcu_nocbs= does not cover nohz_full=; the kernel adds the nohz_full CPUs itself",
		    "give both the same list for clarity", ev);
	if (has_irqa && s->has_isol && overlap(irqa, s->isol, s->ncpus))
		add(s, SEV_WARNING, 57, "cmdline.irqaffinity", NULL,
		    "irqaffinity= sends interrupts to isolated CPUs",
		    "make irqaffinity= the housekeeping CPUs only", ev);
	if ((s->has_isol || has_nohz) && !param(cl, "skew_tick", buf, sizeof(buf)))
		add(s, SEV_INFO, 35, "cmdline.skew_tick", "absent",
		    "all CPUs' ticks fire at the same moment and contend on the timekeeping locks",
		    "add skew_tick=1", ev);
}

static void cmdline_clock(struct sys *s, const char *cl)
{
	static const char ev[] = "/proc/cmdline";
	char buf[256];
	const char *v;

	if ((v = param(cl, "tsc", buf, sizeof(buf)))) {
		if (!strcmp(v, "unstable") || strstr(v, "unstable"))
			add(s, SEV_PROBLEM, 90, "cmdline.tsc", v,
			    "tsc=unstable makes the kernel refuse the TSC as clock source",
			    "remove tsc=unstable unless the TSC really is broken", ev);
		else if (strstr(v, "reliable") || strstr(v, "nowatchdog"))
			add(s, SEV_INFO, 40, "cmdline.tsc", v,
			    "the clocksource watchdog does not check the TSC: right on hardware (or an emulator) whose TSC is known good, wrong otherwise",
			    NULL, ev);
		else
			add(s, SEV_INFO, 30, "cmdline.tsc", v, "tsc= option", NULL, ev);
	}
	if ((v = param(cl, "notsc", buf, sizeof(buf))))
		add(s, SEV_PROBLEM, 90, "cmdline.notsc", "set",
		    "notsc disables the TSC as clock source", "remove notsc", ev);
	if ((v = param(cl, "clocksource", buf, sizeof(buf)))) {
		bool fast = !strcmp(v, "tsc") || !strcmp(v, "kvm-clock");

		addf(s, fast ? SEV_INFO : SEV_WARNING, 70, "cmdline.clocksource", v,
		     fast ? NULL : "remove clocksource= to let the kernel pick the TSC",
		     ev,
		     "the clock source is forced to %s%s", v, fast ? "" : ", a slow one: every clock read costs a hardware access");
	}
	if ((v = param(cl, "idle", buf, sizeof(buf))))
		add(s, SEV_INFO, 30, "cmdline.idle", v,
		    !strcmp(v, "poll") ? "idle=poll: no C-state exit latency, the CPUs spin (power, heat, SMT sibling slowed)" :
		    "idle= overrides the idle driver", NULL, ev);
	if ((v = param(cl, "mitigations", buf, sizeof(buf))))
		add(s, SEV_INFO, 30, "cmdline.mitigations", v,
		    !strcmp(v, "off") ? "CPU vulnerability mitigations are off: lower entry/exit cost, no protection against speculation attacks" :
		    "mitigations= sets the mitigation level", NULL, ev);
}

/*
 * Is the running kernel PREEMPT_RT?  The RT patch set (and kernels built
 * from it) has /sys/kernel/realtime = 1; mainline PREEMPT_RT (6.12 on) has
 * no such file, but its version string names the preemption model
 * ("#1 SMP PREEMPT_RT ...", /proc/sys/kernel/version).  Either one is
 * enough.  Returns -1 on a read error, else 0 with *rt set.
 */
static int detect_rt(struct sys *s, bool *rt)
{
	long v;
	bool has;
	char *ver;
	int rc;

	if (read_long(s, "/sys/kernel/realtime", &v, &has))
		return -1;
	*rt = has && v == 1;
	if (*rt)
		return 0;
	rc = rd(s, "/proc/sys/kernel/version", &ver, SMALL_FILE);
	if (rc)
		return rc < 0 ? -1 : 0;
	*rt = strstr(ver, "PREEMPT_RT") != NULL;
	free(ver);
	return 0;
}

static int check_cmdline(struct sys *s)
{
	static const char rel[] = "/proc/cmdline";
	char *cl, buf[64];
	int rc = rd(s, rel, &cl, SMALL_FILE);

	if (rc)
		return rc < 0 ? -1 : 0;
	if (detect_rt(s, &s->rt_kernel)) {
		free(cl);
		return -1;
	}
	cmdline_cpus(s, cl);
	cmdline_clock(s, cl);
	if (param(cl, "threadirqs", buf, sizeof(buf)) && s->rt_kernel)
		add(s, SEV_INFO, 10, "cmdline.threadirqs", "set",
		    "PREEMPT_RT forces threaded interrupts anyway", NULL, rel);
	else if (!param(cl, "threadirqs", buf, sizeof(buf)) && !s->rt_kernel)
		add(s, SEV_WARNING, 50, "cmdline.threadirqs", "absent",
		    "not a PREEMPT_RT kernel and no threadirqs: interrupt handlers run in hard irq context and cannot be prioritized",
		    "boot a PREEMPT_RT kernel, or add threadirqs",
		    "/proc/cmdline, /sys/kernel/realtime, /proc/sys/kernel/version");
	free(cl);
	return 0;
}

/* --- scheduler, timers, power, memory ----------------------------------------- */
static int check_sysctl(struct sys *s)
{
	long run, per, mig;
	bool hr, hp, hm;
	char *v;

	if (read_long(s, "/proc/sys/kernel/sched_rt_runtime_us", &run, &hr) ||
	    read_long(s, "/proc/sys/kernel/sched_rt_period_us", &per, &hp) ||
	    read_long(s, "/proc/sys/kernel/timer_migration", &mig, &hm))
		return -1;
	if (hr && hp) {
		v = xasprintf("%ld/%ld us", run, per);
		if (run < 0) {
			add(s, SEV_INFO, 45, "rt-throttling", "off",
			    "RT throttling is off: an RT task can run without pause (a runaway RT task starves the CPU)",
			    "keep a watchdog, or set a runtime below the period",
			    "/proc/sys/kernel/sched_rt_runtime_us");
		} else if (run < per) {
			addf(s, SEV_WARNING, 45, "rt-throttling", v,
			     "echo -1 > /proc/sys/kernel/sched_rt_runtime_us when RT tasks may run long (tuned's realtime profile does)",
			     "/proc/sys/kernel/sched_rt_runtime_us, /proc/sys/kernel/sched_rt_period_us",
			     "RT tasks together may use %ld us per %ld us period: an RT task busy longer is stopped for %ld us", run, per, per - run);
		}
		free(v);
	}
	if (hm && mig)
		add(s, SEV_WARNING, 40, "timer_migration", "1",
		    "timers of idle CPUs may be moved to and expire on busy (RT) CPUs",
		    "echo 0 > /proc/sys/kernel/timer_migration",
		    "/proc/sys/kernel/timer_migration");
	else if (hm)
		add(s, SEV_INFO, 40, "timer_migration", "0",
		    "timers stay on the CPU that armed them", NULL,
		    "/proc/sys/kernel/timer_migration");
	return 0;
}

static int check_cpufreq(struct sys *s)
{
	char slow[256] = "", *t, *ev = NULL;
	int n = 0, seen = 0;

	for (int c = 0; c < s->ncpus && c < MAX_CPUS; c++) {
		char *rel = xasprintf("/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", c);
		int rc = rd(s, rel, &t, SMALL_FILE);

		if (rc < 0) {
			free(rel);
			free(ev);
			return -1;
		}
		if (rc == 0) {
			seen++;
			chomp(t);
			if (strcmp(t, "performance")) {
				if (n++ < MAX_LISTED) {
					size_t l = strlen(slow);

					snprintf(slow + l, sizeof(slow) - l, "%scpu%d=%s",
						 l ? " " : "", c, t);
				}
				if (!ev)
					ev = xstrdup(rel);
			}
			free(t);
		}
		free(rel);
	}
	if (!seen)
		add(s, SEV_INFO, 10, "cpufreq", "absent",
		    "no cpufreq driver: the CPU runs at the speed firmware set", NULL,
		    "/sys/devices/system/cpu/cpu0/cpufreq");
	else if (n) {
		addf(s, SEV_WARNING, 50, "cpufreq", slow,
		     "echo performance > /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor",
		     ev,
		     "%d CPUs with a governor other than performance: frequency follows load, a woken RT task starts slow", n);
	} else
		add(s, SEV_INFO, 50, "cpufreq", "performance",
		    "every CPU uses the performance governor", NULL,
		    "/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor");
	free(ev);
	return 0;
}

static int check_cpuidle(struct sys *s)
{
	static const char base[] = "/sys/devices/system/cpu/cpu0/cpuidle";
	char slow[512] = "", all[512] = "";
	int nslow = 0;

	for (int i = 0;; i++) {
		char *rn = xasprintf("%s/state%d/name", base, i);
		char *rl = xasprintf("%s/state%d/latency", base, i);
		char *rdis = xasprintf("%s/state%d/disable", base, i);
		char *name = NULL;
		long lat = 0, dis = 0;
		bool hl, hd;
		int rc = rd(s, rn, &name, SMALL_FILE);

		if (rc == 0 && (read_long(s, rl, &lat, &hl) ||
				read_long(s, rdis, &dis, &hd)))
			rc = -1;
		free(rn);
		free(rl);
		free(rdis);
		if (rc) {
			free(name);
			if (rc < 0)
				return -1;
			break;
		}
		chomp(name);
		snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s=%ldus%s",
			 i ? " " : "", name, lat, dis ? "(off)" : "");
		if (lat > CPUIDLE_SLOW_US && !dis) {
			nslow++;
			snprintf(slow + strlen(slow), sizeof(slow) - strlen(slow), "%s%s=%ldus",
				 nslow > 1 ? " " : "", name, lat);
		}
		free(name);
	}
	if (!all[0]) {
		add(s, SEV_INFO, 10, "cpuidle", "no states",
		    "no cpuidle states: the CPU idles with the architecture default (hlt)",
		    NULL, base);
		return 0;
	}
	if (nslow) {
		addf(s, SEV_WARNING, 48, "cpuidle", slow,
		     "disable them (echo 1 > state*/disable), or hold /dev/cpu_dma_latency at 0 while the RT load runs",
		     base,
		     "enabled idle states with exit latency above %d us: a wake-up from them adds that latency", CPUIDLE_SLOW_US);
	} else
		add(s, SEV_INFO, 48, "cpuidle", all,
		    "every enabled idle state exits fast", NULL, base);
	return 0;
}

static int check_bracketed(struct sys *s, const char *rel, const char *subj,
			   const char *bad, enum severity sev, const char *why,
			   const char *fix)
{
	char *t, *open, *close;
	int rc = rd(s, rel, &t, SMALL_FILE);

	if (rc)
		return rc < 0 ? -1 : 0;
	open = strchr(t, '[');
	close = open ? strchr(open, ']') : NULL;
	if (!close) {
		free(t);
		return bad_content(s, rel, "no [selected] value");
	}
	*close = 0;
	if (!strcmp(open + 1, bad))
		add(s, sev, 47, subj, open + 1, why, fix, rel);
	else
		add(s, SEV_INFO, 47, subj, open + 1, "not the costly setting", NULL, rel);
	free(t);
	return 0;
}

static int check_memory(struct sys *s)
{
	char *t;
	int rc, lines = 0;

	if (check_bracketed(s, "/sys/kernel/mm/transparent_hugepage/enabled", "thp", "always",
			    SEV_WARNING,
			    "THP for every mapping: faults zero 2 MB pages and khugepaged collapses pages behind RT tasks",
			    "echo madvise > /sys/kernel/mm/transparent_hugepage/enabled") ||
	    check_bracketed(s, "/sys/kernel/mm/transparent_hugepage/defrag", "thp.defrag", "always",
			    SEV_WARNING,
			    "allocation-time compaction for THP: a page fault can stall for milliseconds",
			    "echo defer+madvise > /sys/kernel/mm/transparent_hugepage/defrag"))
		return -1;
	rc = rd(s, "/proc/swaps", &t, SMALL_FILE);
	if (rc < 0)
		return -1;
	if (rc == 0) {
		for (char *p = t; (p = strchr(p, '\n')); p++)
			lines++;
		if (lines > 1)
			add(s, SEV_WARNING, 42, "swap", "on",
			    "swap is active: an RT task whose memory was swapped out takes a fault of milliseconds",
			    "mlockall(MCL_CURRENT|MCL_FUTURE) in RT applications, or swapoff -a",
			    "/proc/swaps");
		else
			add(s, SEV_INFO, 42, "swap", "off", "no swap area active", NULL, "/proc/swaps");
		free(t);
	}
	return 0;
}

static int check_smt(struct sys *s)
{
	long on;
	bool has;

	if (read_long(s, "/sys/devices/system/cpu/smt/active", &on, &has))
		return -1;
	if (has && on)
		add(s, SEV_WARNING, 46, "smt", "active",
		    "hyperthread siblings share a core's execution units and caches: a sibling's load slows the RT task",
		    "echo off > /sys/devices/system/cpu/smt/control (or nosmt), or keep siblings of RT CPUs idle",
		    "/sys/devices/system/cpu/smt/active");
	else if (has)
		add(s, SEV_INFO, 46, "smt", "inactive", "no hyperthread siblings", NULL,
		    "/sys/devices/system/cpu/smt/active");
	return 0;
}

/* --- interrupts --------------------------------------------------------------- */
static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static int check_irq_affinity(struct sys *s)
{
	char list[256] = "", *t;
	int n = 0, irqs[MAX_LISTED];
	DIR *d;
	struct dirent *de;
	char *dir;

	if (!s->has_isol)
		return 0;
	dir = path_of(s, "/proc/irq");
	d = opendir(dir);
	free(dir);
	while (d && (de = readdir(d))) {
		static unsigned char set[MAX_CPUS];
		char *rel;
		int rc;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		rel = xasprintf("/proc/irq/%s/smp_affinity_list", de->d_name);
		rc = rd(s, rel, &t, SMALL_FILE);
		if (rc < 0) {
			free(rel);
			closedir(d);
			return -1;
		}
		if (rc == 0) {
			if (cpulist_parse(t, set, MAX_CPUS)) {
				free(t);
				closedir(d);
				rc = bad_content(s, rel, "expected a CPU list");
				free(rel);
				return rc;
			}
			if (overlap(set, s->isol, s->ncpus) && n++ < MAX_LISTED)
				irqs[n - 1] = atoi(de->d_name);
			free(t);
		}
		free(rel);
	}
	if (d)
		closedir(d);
	qsort(irqs, n < MAX_LISTED ? n : MAX_LISTED, sizeof(*irqs), cmp_int);
	for (int i = 0; i < n && i < MAX_LISTED; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%d",
			 i ? "," : "", irqs[i]);
	if (n) {
		addf(s, SEV_WARNING, 52, "irq-affinity", list,
		     "write the housekeeping CPUs to /proc/irq/*/smp_affinity_list (or irqaffinity= at boot)",
		     "/proc/irq/*/smp_affinity_list, /proc/cmdline",
		     "%d interrupts may be delivered to isolated CPUs", n);
	}
	return 0;
}

/* Run PROG ARGS..., its stdout+stderr into *out; returns its exit status,
 * 127 when it cannot be run. */
static int run_capture(char *const argv[], char **out)
{
	int p[2], status;
	size_t len = 0;
	pid_t pid;

	*out = calloc(RTIRQD_OUT_MAX + 1, 1);
	if (!*out || pipe(p))
		return 127;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return 127;
	}
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	for (;;) {
		ssize_t n = read(p[0], *out + len, RTIRQD_OUT_MAX - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len == RTIRQD_OUT_MAX)
			break;
	}
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 127;
}

/* The irq threads' policies come from rtirqd itself (its --check and
 * --show), so rtaudit and rtirqd never disagree on what a rule matches. */
static void check_irq_threads(struct sys *s)
{
	char *procroot = path_of(s, "/proc"), *sysroot = path_of(s, "/sys");
	char *check_argv[] = { (char *)s->o->rtirqd, "--check", NULL };
	char *show_argv[] = { (char *)s->o->rtirqd, "--show", "--proc-root", procroot,
			      "--sys-root", sysroot, NULL };
	char *out, *line, *save = NULL, *ev;
	int rc, threads = 0, unruled = 0, deflt = 0;

	rc = run_capture(check_argv, &out);
	if (rc == 127) {
		add(s, SEV_INFO, 5, "irq-threads", "not checked",
		    "rtirqd is not installed: irq thread priorities not checked",
		    "install rtirqd (tools/rtirqd)", s->o->rtirqd);
		goto out;
	}
	if (rc) {
		chomp(out);
		add(s, SEV_PROBLEM, 60, "irq-threads.rules", "invalid", out,
		    "fix the rules files rtirqd --check names", "rtirqd --check");
		goto out;
	}
	free(out);
	rc = run_capture(show_argv, &out);
	if (rc) {
		chomp(out);
		add(s, SEV_WARNING, 50, "irq-threads", "unknown", out,
		    "see rtirqd --show", "rtirqd --show");
		goto out;
	}
	/* columns: PID THREAD IRQ ACTION POLICY PRIO AFFINITY RULE... */
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char thread[64], irq[16], action[64], policy[16], aff[256], rule[256];
		int pid, prio;

		if (sscanf(line, "%d %63s %15s %63s %15s %d %255s %255s", &pid, thread,
			   irq, action, policy, &prio, aff, rule) != 8 || !strcmp(irq, "-"))
			continue;
		threads++;
		if (!strcmp(rule, "-")) {
			unruled++;
			if (!strcmp(policy, "FIFO") && prio == RT_DEFAULT_PRIO)
				deflt++;
		}
	}
	ev = xasprintf("%s --show", s->o->rtirqd);
	if (!threads)
		add(s, SEV_INFO, 30, "irq-threads", "none",
		    "no irq threads (not PREEMPT_RT and no threadirqs?)", NULL, ev);
	else if (unruled) {
		char *v = xasprintf("%d of %d without a rule", unruled, threads);

		addf(s, SEV_WARNING, 50, "irq-threads", v,
		     "give the latency-critical devices' irq threads a rule in /etc/rtgroups and run rtirqd",
		     ev,
		     "%d irq threads have no rtirqd rule (%d at the kernel's default FIFO %d): every device's interrupt competes at the same priority", unruled, deflt, RT_DEFAULT_PRIO);
		free(v);
	} else {
		char *v = xasprintf("%d, all with a rule", threads);

		add(s, SEV_INFO, 50, "irq-threads", v, "every irq thread has an rtirqd rule",
		    NULL, ev);
		free(v);
	}
	free(ev);
out:
	free(out);
	free(procroot);
	free(sysroot);
}

/* --- the running config against the saved baseline ------------------------------ */
static int check_baseline(struct sys *s)
{
	struct kconfig base, run;
	struct report sub = { .command = "config" };
	char path[4096];

	if (access(s->o->baseline, F_OK)) {
		add(s, SEV_INFO, 5, "config.baseline", "none",
		    "no baseline saved: the kernel config was not compared",
		    "rtaudit baseline save (after checking this kernel)", s->o->baseline);
		return 0;
	}
	if (kconfig_default_path(s->o->root, path, sizeof(path))) {
		add(s, SEV_INFO, 5, "config.running", "not found",
		    "the running kernel's config is neither in /proc/config.gz nor in /boot",
		    "CONFIG_IKCONFIG_PROC=y", "/proc/config.gz");
		return 0;
	}
	if (kconfig_load(&base, s->o->baseline, s->err, s->errlen)) {
		kconfig_free(&base);
		return -1;
	}
	if (kconfig_load(&run, path, s->err, s->errlen)) {
		kconfig_free(&base);
		kconfig_free(&run);
		return -1;
	}
	config_diff(&sub, s->rs, &base, &run, NULL, NULL);
	for (size_t i = 0; i < sub.n; i++) {
		struct finding f = sub.v[i];
		char *subj = xasprintf("config %s", f.subject);
		char *ev = xasprintf("%s -> %s", s->o->baseline, path);

		f.subject = subj;
		f.evidence = ev;
		report_add(s->r, &f);
		free(subj);
		free(ev);
	}
	if (!sub.n)
		add(s, SEV_INFO, 5, "config.baseline", "same",
		    "the running kernel's config equals the baseline", NULL, s->o->baseline);
	report_free(&sub);
	kconfig_free(&base);
	kconfig_free(&run);
	return 0;
}

int system_audit(struct report *r, const struct sys_opts *o,
		 const struct rules *rs, char *err, size_t errlen)
{
	struct sys *s = calloc(1, sizeof(*s));
	int rc;

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	*s = (struct sys){ .r = r, .o = o, .rs = rs, .err = err, .errlen = errlen };
	rc = count_cpus(s) || check_clocksource(s) || check_tsc_flags(s) ||
	     check_trace_clocks(s) || check_cmdline(s) || check_sysctl(s) ||
	     check_cpufreq(s) || check_cpuidle(s) || check_smt(s) ||
	     check_memory(s) || check_irq_affinity(s) || check_baseline(s);
	if (!rc) {
		check_kmsg(s);
		check_irq_threads(s);
	}
	free(s);
	return rc ? -1 : 0;
}
