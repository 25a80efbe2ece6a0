// SPDX-License-Identifier: GPL-2.0
/*
 * rtirqd: command line, modes (--once, --check, --show, --dry-run, daemon),
 * reload and privileges.
 */
#include "daemon.h"
#include "rtlab/opt.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#define DEFAULT_CONFIG "/etc/rtgroups"
#define DEFAULT_DIR "/etc/rtgroups.d"
#define RESCAN_MS_MAX 3600000	/* --rescan-interval: one hour */

static void usage(FILE *f)
{
	fprintf(f,
"Usage: rtirqd [OPTION]...            run the daemon\n"
"       rtirqd --once [OPTION]...     apply the rules to every kernel thread, exit\n"
"       rtirqd --check [FILE]...      validate rules files (default: the configured ones)\n"
"       rtirqd --show [OPTION]...     list kernel threads, policy and matching rule\n"
"\n"
"Gives kernel threads, and irq threads the moment they are created, the\n"
"scheduling policy, priority and CPU affinity of the last matching rule in\n"
"rtctl's /etc/rtgroups format (see rtgroups(5)).\n"
"\n"
"Options:\n"
"  -c, --config FILE         main rules file (default " DEFAULT_CONFIG ")\n"
"  -d, --config-dir DIR      drop-in directory of *.rtgroups files\n"
"                            (default " DEFAULT_DIR ", the base's .d)\n"
"      --no-config-dir       read no drop-in directory\n"
"      --config-base PATH    without -c: PATH-$(uname -r) if it exists, else\n"
"                            PATH (default " DEFAULT_CONFIG ", as rtctl)\n"
"      --compat=rtctl        read the rules exactly as NI's rtctl does: bad\n"
"                            lines skipped, names matched up to the first\n"
"                            blank, -c reads no drop-in directory (rtgroups(5))\n"
"      --once                apply to all current threads and exit\n"
"      --check               validate the FILEs given (or the configured set);\n"
"                            print every error as file:line: message; exit 0 or 2\n"
"      --show                print pid, thread, irq, action, policy, priority,\n"
"                            affinity and the matching rule of each thread\n"
"  -n, --dry-run             log what would be set, change nothing\n"
"  -f, --foreground          do not detach (daemon mode)\n"
"  -p, --pid PID             work on the threads of process PID (any process,\n"
"                            user threads match as comm) instead of all\n"
"                            kernel threads\n"
"      --event-source LIST   comma list of sysfs, procfs, netlink, rescan\n"
"                            (default: detect the best the kernel offers)\n"
"      --rescan-interval MS  period of the /proc rescan fallback (default 2000)\n"
"      --self-priority N     run the daemon itself at SCHED_FIFO N\n"
"      --log stderr|syslog   where to log (default: stderr in the foreground,\n"
"                            syslog when detached)\n"
"  -v, --verbose             log more (repeat for debug)\n"
"  -q, --quiet               log errors and warnings only\n"
"  -h, --help                this text\n"
"\n"
"Exit status: 0 success, 1 runtime error, 2 invalid rules (a bad line\n"
"refuses the whole set, except with --compat=rtctl).\n");
}

static void print_err(void *arg, const char *file, int line, const char *msg)
{
	(void)arg;
	if (line > 0)
		fprintf(stderr, "%s:%d: %s\n", file, line, msg);
	else
		fprintf(stderr, "%s: %s\n", file, msg);
}

static void log_parse_err(void *arg, const char *file, int line,
			  const char *msg)
{
	(void)arg;
	if (line > 0)
		log_err("%s:%d: %s", file, line, msg);
	else
		log_err("%s: %s", file, msg);
}

static int load_rules(const struct opts *o, struct ruleset *rs,
		      const struct parse_ctx *ctx, parse_err_fn err)
{
	return rules_load(rs, o->config, !o->config_given, o->config_dir, ctx,
			  err, NULL);
}

/*
 * Which files to read, as rtctl chooses them: without -c, the per-kernel
 * BASE-$(uname -r) if it exists, else BASE; rtctl --file reads no
 * drop-in directory, which --compat=rtctl follows for -c (rtirqd's own
 * reading keeps the directory and warns).
 */
static void choose_files(struct opts *o, const char *base, char *buf,
			 size_t len)
{
	struct utsname u;
	static char dir[PATH_MAX];

	if (!o->config_dir_given) {
		snprintf(dir, sizeof(dir), "%s.d", base);
		o->config_dir = dir;
	}
	if (!o->config_given) {
		o->config = base;
		if (uname(&u) == 0) {
			snprintf(buf, len, "%s-%s", base, u.release);
			if (access(buf, F_OK) == 0)
				o->config = buf;
		}
		return;
	}
	if (o->config_dir_given || !o->config_dir)
		return;
	if (o->rtctl)
		o->config_dir = NULL;
	else if (access(o->config_dir, F_OK) == 0)
		fprintf(stderr, "rtirqd: warning: rtctl --file would not read %s; rtirqd reads it with -c too (--no-config-dir to leave it out)\n",
			o->config_dir);
}

/* --check: every file named, or the configured set */
static int do_check(const struct opts *o, int argc, char **argv,
		    const struct parse_ctx *ctx)
{
	int errors = 0;
	size_t nrules = 0;

	if (argc == 0) {
		struct ruleset rs;

		errors = load_rules(o, &rs, ctx, print_err) + rs.skipped;
		nrules = rs.n;
		ruleset_free(&rs);
	}
	for (int i = 0; i < argc; i++) {
		struct ruleset rs;
		struct stat st;

		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			errors += rules_load(&rs, NULL, false, argv[i], ctx,
					     print_err, NULL);
		else
			errors += rules_load(&rs, argv[i], false, NULL, ctx,
					     print_err, NULL);
		nrules += rs.n;
		errors += rs.skipped;
		ruleset_free(&rs);
	}
	if (errors) {
		fprintf(stderr, "rtirqd: %d error%s\n", errors,
			errors == 1 ? "" : "s");
		return 2;
	}
	printf("rtirqd: OK, %zu rules\n", nrules);
	return 0;
}

static void show_row(const struct daemon *d, pid_t pid, pid_t tgid)
{
	struct task_info t;
	const struct rule *r;
	char aff[256] = "?", irq[16] = "-", rule[512] = "-";

	if (task_read(d->o->procroot, tgid, pid, &t))
		return;
	if (!d->o->pid && !t.kthread)
		return;
	task_irq_lookup(d->o->sysroot, d->o->procroot, &t);
	task_read_affinity(&t);
	r = rules_match(&d->rules, &t);
	if (t.has_affinity)
		cpulist_format(&t.affinity, aff, sizeof(aff));
	if (t.irq >= 0)
		snprintf(irq, sizeof(irq), "%d", t.irq);
	if (r)
		snprintf(rule, sizeof(rule), "%s (%s:%d)", r->name, r->file,
			 r->line);
	printf("%7d %-24s %5s %-20s %-6s %4d %-10s %s\n", pid, t.comm, irq,
	       t.irq >= 0 ? t.action : "-", policy_name(t.policy), t.prio,
	       aff, rule);
}

static int do_show(struct daemon *d)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *dir;

	dir = daemon_open_threads(d, path, sizeof(path));
	if (!dir) {
		fprintf(stderr, "rtirqd: %s: %s\n", path, strerror(errno));
		return 1;
	}
	printf("%7s %-24s %5s %-20s %-6s %4s %-10s %s\n", "PID", "THREAD",
	       "IRQ", "ACTION", "POLICY", "PRIO", "AFFINITY", "RULE");
	while ((de = readdir(dir))) {
		long pid = daemon_entry_pid(de);

		if (!pid)
			continue;
		show_row(d, pid, d->o->pid ? d->o->pid : pid);
	}
	closedir(dir);
	return 0;
}

static int reload(struct daemon *d)
{
	struct ruleset rs;
	struct parse_ctx ctx;

	log_info("SIGHUP: reloading rules");
	if (parse_ctx_init(&ctx))
		ctx = d->ctx;
	ctx.rtctl = d->o->rtctl;
	if (load_rules(d->o, &rs, &ctx, log_parse_err) || rs.skipped) {
		/* even --compat=rtctl: a running daemon keeps what works */
		log_err("reload failed: keeping the previous %zu rules",
			d->rules.n);
		ruleset_free(&rs);
		return -1;
	}
	ruleset_free(&d->rules);
	d->rules = rs;
	d->ctx = ctx;
	log_info("reloaded %zu rules; applying them to current threads",
		 rs.n);
	return 0;
}

static bool have_cap(cap_value_t c)
{
	cap_t caps = cap_get_proc();
	cap_flag_value_t v = CAP_CLEAR;

	if (caps) {
		cap_get_flag(caps, c, CAP_EFFECTIVE, &v);
		cap_free(caps);
	}
	return v == CAP_SET;
}

/* Keep CAP_SYS_NICE only; uid 0 stays for /proc/irq/N (root-owned files). */
static int drop_privileges(void)
{
	cap_value_t keep[] = { CAP_SYS_NICE };
	cap_t caps;
	int rc = 0;

	if (have_cap(CAP_SETPCAP)) {
		for (cap_value_t c = 0; c <= CAP_LAST_CAP; c++)
			if (c != CAP_SYS_NICE && CAP_IS_SUPPORTED(c))
				cap_drop_bound(c);
	}
	caps = cap_init();
	if (!caps)
		return -1;
	if (cap_set_flag(caps, CAP_PERMITTED, 1, keep, CAP_SET) ||
	    cap_set_flag(caps, CAP_EFFECTIVE, 1, keep, CAP_SET) ||
	    cap_set_proc(caps))
		rc = -1;
	cap_free(caps);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		rc = -1;
	return rc;
}

static int parse_sources(const char *s, unsigned int *out)
{
	char *copy = strdup(s), *save = NULL, *tok;
	int rc = 0;

	*out = 0;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (strcmp(tok, "auto") == 0)
			;
		else if (strcmp(tok, "sysfs") == 0)
			*out |= SRC_SYSFS;
		else if (strcmp(tok, "procfs") == 0)
			*out |= SRC_PROCFS;
		else if (strcmp(tok, "netlink") == 0)
			*out |= SRC_NETLINK;
		else if (strcmp(tok, "rescan") == 0)
			*out |= SRC_RESCAN;
		else
			rc = -1;
	}
	free(copy);
	return rc;
}

enum { O_ONCE = 256, O_CHECK, O_SHOW, O_NODIR, O_SOURCE, O_RESCAN, O_SELF,
       O_LOG, O_PROCROOT, O_SYSROOT, O_COMPAT, O_BASE };

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "config-dir", required_argument, NULL, 'd' },
		{ "no-config-dir", no_argument, NULL, O_NODIR },
		{ "once", no_argument, NULL, O_ONCE },
		{ "check", no_argument, NULL, O_CHECK },
		{ "show", no_argument, NULL, O_SHOW },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "pid", required_argument, NULL, 'p' },
		{ "event-source", required_argument, NULL, O_SOURCE },
		{ "rescan-interval", required_argument, NULL, O_RESCAN },
		{ "self-priority", required_argument, NULL, O_SELF },
		{ "log", required_argument, NULL, O_LOG },
		{ "proc-root", required_argument, NULL, O_PROCROOT },
		{ "sys-root", required_argument, NULL, O_SYSROOT },
		{ "compat", required_argument, NULL, O_COMPAT },
		{ "config-base", required_argument, NULL, O_BASE },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct opts o = {
		.config = DEFAULT_CONFIG, .config_dir = DEFAULT_DIR,
		.procroot = "/proc", .sysroot = "/sys", .rescan_ms = 2000,
		.log_to = -1,
	};
	bool once = false, check = false, show = false;
	const char *base = DEFAULT_CONFIG;
	char config_buf[PATH_MAX];
	struct daemon d;
	int c, rc;

	while ((c = getopt_long(argc, argv, "c:d:nfp:vqh", lo, NULL)) != -1) {
		switch (c) {
		case 'c':
			o.config = optarg;
			o.config_given = true;
			break;
		case 'd':
			o.config_dir = optarg;
			o.config_dir_given = true;
			break;
		case O_NODIR:
			o.config_dir = NULL;
			o.config_dir_given = true;
			break;
		case O_COMPAT:
			if (strcmp(optarg, "rtctl") != 0) {
				fprintf(stderr, "rtirqd: --compat '%s': expected rtctl\n",
					optarg);
				return 1;
			}
			o.rtctl = true;
			break;
		case O_BASE:
			base = optarg;
			break;
		case O_ONCE:
			once = true;
			break;
		case O_CHECK:
			check = true;
			break;
		case O_SHOW:
			show = true;
			break;
		case 'n':
			o.dry_run = true;
			break;
		case 'f':
			o.foreground = true;
			break;
		case 'p':
			if (!opt_int(optarg, 1, INT_MAX, &o.pid)) {
				fprintf(stderr, "rtirqd: --pid '%s': not a pid\n",
					optarg);
				return 1;
			}
			break;
		case O_SOURCE:
			if (parse_sources(optarg, &o.sources)) {
				fprintf(stderr, "rtirqd: --event-source '%s': expected a comma list of sysfs, procfs, netlink, rescan\n",
					optarg);
				return 1;
			}
			break;
		case O_RESCAN:
			if (!opt_int(optarg, 1, RESCAN_MS_MAX, &o.rescan_ms)) {
				fprintf(stderr, "rtirqd: --rescan-interval '%s': expected 1-%d ms\n",
					optarg, RESCAN_MS_MAX);
				return 1;
			}
			break;
		case O_SELF:
			if (!opt_int(optarg, 1, 99, &o.self_prio)) {
				fprintf(stderr, "rtirqd: --self-priority '%s': expected 1-99\n",
					optarg);
				return 1;
			}
			break;
		case O_LOG:
			if (strcmp(optarg, "stderr") == 0)
				o.log_to = LOG_TO_STDERR;
			else if (strcmp(optarg, "syslog") == 0)
				o.log_to = LOG_TO_SYSLOG;
			else {
				fprintf(stderr, "rtirqd: --log '%s': expected stderr or syslog\n",
					optarg);
				return 1;
			}
			break;
		case O_PROCROOT:
			o.procroot = optarg;
			break;
		case O_SYSROOT:
			o.sysroot = optarg;
			break;
		case 'v':
			o.verbosity++;
			break;
		case 'q':
			o.verbosity = -1;
			break;
		case 'h':
			opt_usage_exit(usage, 0);
		default:
			opt_usage_exit(usage, 1);
		}
	}
	if (check + show + once > 1) {
		fprintf(stderr, "rtirqd: --check, --show and --once exclude each other\n");
		return 1;
	}
	if (optind < argc && !check) {
		fprintf(stderr, "rtirqd: unexpected argument '%s'\n",
			argv[optind]);
		opt_usage_exit(usage, 1);
	}
	if (o.dry_run && !show && !check && !o.foreground)
		once = true;	/* --dry-run alone: one pass, no daemon */

	choose_files(&o, base, config_buf, sizeof(config_buf));
	memset(&d, 0, sizeof(d));
	d.o = &o;
	d.once = once;
	d.irqfd = d.nlfd = d.rescanfd = d.timerfd = d.sigfd = d.ep = -1;
	if (parse_ctx_init(&d.ctx)) {
		fprintf(stderr, "rtirqd: cannot read the present CPUs\n");
		return 1;
	}
	d.ctx.rtctl = o.rtctl;
	if (check)
		return do_check(&o, argc - optind, argv + optind, &d.ctx);

	if (o.log_to < 0)
		o.log_to = (once || show || o.foreground) ? LOG_TO_STDERR :
			   LOG_TO_SYSLOG;
	log_init(o.log_to, o.verbosity);
	if (load_rules(&o, &d.rules, &d.ctx, o.log_to == LOG_TO_STDERR ?
		       print_err : log_parse_err)) {
		log_err("invalid rules: nothing applied");
		return 2;
	}
	if (d.rules.n == 0)
		log_warn("no rules (%s, %s/*.rtgroups): threads are left as they are",
			 o.config, o.config_dir ? o.config_dir : "-");
	d.aopts.dry_run = o.dry_run;
	d.aopts.procroot = o.procroot;
	if (show) {
		rc = do_show(&d);
		ruleset_free(&d.rules);
		return rc;
	}

	if (!o.dry_run && !have_cap(CAP_SYS_NICE)) {
		log_err("needs CAP_SYS_NICE to set real-time policies (run as root or with the capability)");
		ruleset_free(&d.rules);
		return 1;
	}
	if (o.self_prio && !o.dry_run) {
		struct sched_param sp = { .sched_priority = o.self_prio };

		if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp))
			log_warn("--self-priority %d: %s", o.self_prio,
				 strerror(errno));
	}

	if (once) {
		if (!o.dry_run && drop_privileges())
			log_warn("could not drop privileges: %s",
				 strerror(errno));
		scan(&d, true);
		daemon_settle(&d);
		log_info("%u threads set, %u failed", d.stat_applied,
			 d.stat_failed);
		rc = d.stat_failed ? 1 : 0;
		daemon_free(&d);
		return rc;
	}

	if (!o.foreground) {
		if (daemon(0, 0)) {
			log_err("cannot detach: %s", strerror(errno));
			return 1;
		}
	}
	if (daemon_open_sources(&d)) {
		ruleset_free(&d.rules);
		return 1;
	}
	/* the proc connector is subscribed: CAP_NET_ADMIN is no longer needed */
	if (!o.dry_run && drop_privileges())
		log_warn("could not drop privileges: %s", strerror(errno));
	rc = daemon_loop(&d, reload);
	daemon_free(&d);
	return rc;
}
