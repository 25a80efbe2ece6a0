/* rtaudit: command line and dispatch of the commands config, system,
 * baseline save and clock. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rtaudit.h"
#include "rtlab/opt.h"

#ifndef RULES_DEFAULT
#define RULES_DEFAULT "/usr/local/share/rtaudit/rules.ini"
#endif
#define BASELINE_DEFAULT "/var/lib/rtaudit/baseline.config"
#define MAX_TREES 2
#define SKEW_ROUNDS_DEFAULT 2000
#define TRACE_MS_DEFAULT 200

static void usage(FILE *f)
{
	fputs(
"Usage: rtaudit [OPTION]... config [--tree OLDDIR [--tree NEWDIR]] OLD [NEW]\n"
"       rtaudit [OPTION]... system [--root DIR] [--baseline FILE]\n"
"       rtaudit [OPTION]... baseline save [CONFIG]\n"
"       rtaudit [OPTION]... clock [--switch]\n"
"\n"
"Audits a real-time Linux system for latency.\n"
"  config   the options that differ between two kernel configs (.config,\n"
"           /proc/config.gz, /boot/config-*; NEW defaults to the running\n"
"           kernel's), ranked by their effect on latency, with why and fix\n"
"  system   the running machine: clock sources, TSC, trace clocks, command\n"
"           line, RT throttling, timers, cpufreq/cpuidle, SMT, THP, swap,\n"
"           irq affinity and irq threads (through rtirqd --show), and the\n"
"           kernel config against the saved baseline\n"
"  baseline save  keep CONFIG (default: the running kernel's) as baseline\n"
"  clock    measure clock_gettime per clock id (and per clock source with\n"
"           --switch, as root; restored after), cross-CPU skew, trace clock\n"
"           error against CLOCK_MONOTONIC; rank and recommend\n"
"\n"
"Options:\n"
"      --json            JSON instead of text\n"
"      --all             (config, system) list each option with no latency\n"
"                        effect; by default they are counted by family\n"
"      --rules FILE      latency knowledge (default " RULES_DEFAULT ")\n"
"      --tree DIR        kernel source tree of OLD, then of NEW (config)\n"
"      --root DIR        audit the tree under DIR instead of / (system)\n"
"      --baseline FILE   saved config (default " BASELINE_DEFAULT ")\n"
"      --rtirqd PROG     rtirqd to ask about irq threads (default: rtirqd)\n"
"      --switch          also measure every available clock source (clock)\n"
"      --rounds N        timestamp exchanges per CPU pair (clock, default 2000)\n"
"      --trace-ms N      trace clock run in ms (clock, default 200)\n"
"  -h, --help            this text\n"
"\n"
"Exit status: 0 nothing found, 1 warnings, 2 problems, 3 bad input.\n",
	      f);
}

struct args {
	bool json, do_switch, all;
	const char *rules, *root, *baseline, *rtirqd;
	const char *tree[MAX_TREES];
	int ntree, rounds, trace_ms;
	char **pos;
	int npos;
};

enum { O_JSON = 256, O_ALL, O_RULES, O_TREE, O_ROOT, O_BASELINE, O_RTIRQD,
       O_SWITCH, O_ROUNDS, O_TRACEMS };

static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option lo[] = {
		{ "json", no_argument, NULL, O_JSON },
		{ "all", no_argument, NULL, O_ALL },
		{ "rules", required_argument, NULL, O_RULES },
		{ "tree", required_argument, NULL, O_TREE },
		{ "root", required_argument, NULL, O_ROOT },
		{ "baseline", required_argument, NULL, O_BASELINE },
		{ "rtirqd", required_argument, NULL, O_RTIRQD },
		{ "switch", no_argument, NULL, O_SWITCH },
		{ "rounds", required_argument, NULL, O_ROUNDS },
		{ "trace-ms", required_argument, NULL, O_TRACEMS },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case O_JSON: a->json = true; break;
		case O_ALL: a->all = true; break;
		case O_RULES: a->rules = optarg; break;
		case O_ROOT: a->root = optarg; break;
		case O_BASELINE: a->baseline = optarg; break;
		case O_RTIRQD: a->rtirqd = optarg; break;
		case O_SWITCH: a->do_switch = true; break;
		case O_TREE:
			if (a->ntree == MAX_TREES) {
				fputs("rtaudit: --tree is given for OLD and NEW only\n", stderr);
				return -1;
			}
			a->tree[a->ntree++] = optarg;
			break;
		case O_ROUNDS:
			if (!opt_int(optarg, 1, 1000000, &a->rounds)) {
				fprintf(stderr, "rtaudit: --rounds %s: expected 1..1000000\n", optarg);
				return -1;
			}
			break;
		case O_TRACEMS:
			if (!opt_int(optarg, 1, 60000, &a->trace_ms)) {
				fprintf(stderr, "rtaudit: --trace-ms %s: expected 1..60000\n", optarg);
				return -1;
			}
			break;
		case 'h':
			opt_usage_exit(usage, EXIT_FINE);
		default:
			usage(stderr);
			return -1;
		}
	}
	a->pos = argv + optind;
	a->npos = argc - optind;
	return 0;
}

static int load_rules(const struct args *a, struct rules *rs)
{
	char err[ERRLEN];

	if (rules_load(rs, a->rules, err, sizeof(err))) {
		fprintf(stderr, "rtaudit: %s\n", err);
		rules_free(rs);
		return -1;
	}
	return 0;
}

static int cmd_config(const struct args *a)
{
	struct kconfig old = { 0 }, new = { 0 };
	struct ktree t[MAX_TREES] = { 0 };
	struct report rep = { .command = "config" };
	struct rules rs;
	char err[ERRLEN], path[4096], *title;
	const char *newpath;
	int rc = EXIT_BADINPUT;

	if (a->npos < 2 || a->npos > 3) {
		fputs("rtaudit: config takes OLD and optionally NEW\n", stderr);
		return EXIT_BADINPUT;
	}
	newpath = a->npos == 3 ? a->pos[2] : NULL;
	if (!newpath) {
		if (kconfig_default_path(a->root ? a->root : "", path, sizeof(path))) {
			fputs("rtaudit: the running kernel's config is neither in /proc/config.gz nor in /boot/config-$(uname -r): give NEW\n",
			      stderr);
			return EXIT_BADINPUT;
		}
		newpath = path;
	}
	if (load_rules(a, &rs))
		return EXIT_BADINPUT;
	if (kconfig_load(&old, a->pos[1], err, sizeof(err)) ||
	    kconfig_load(&new, newpath, err, sizeof(err)))
		goto out;
	for (int i = 0; i < a->ntree; i++)
		if (ktree_load(&t[i], a->tree[i], err, sizeof(err)))
			goto out;
	config_diff(&rep, &rs, &old, &new, a->ntree > 0 ? &t[0] : NULL,
		    a->ntree > 1 ? &t[1] : NULL);
	title = xasprintf("%s -> %s", a->pos[1], newpath);
	rep.all = a->all;
	report_print(&rep, a->json, title);
	free(title);
	rc = report_exit(&rep);
	err[0] = 0;
out:
	if (rc == EXIT_BADINPUT)
		fprintf(stderr, "rtaudit: %s\n", err);
	report_free(&rep);
	for (int i = 0; i < MAX_TREES; i++)
		ktree_free(&t[i]);
	kconfig_free(&old);
	kconfig_free(&new);
	rules_free(&rs);
	return rc;
}

/* Write the parsed config back in Kconfig's format, to a temporary file
 * renamed over the baseline: a failed save leaves the old one intact. */
static int save_config(const struct kconfig *kc, const char *dest, char *err,
		       size_t errlen)
{
	char *tmp = xasprintf("%s.tmp.%d", dest, (int)getpid());
	char *dir = xstrdup(dest), *slash = strrchr(dir, '/');
	FILE *f;
	int rc = -1;

	if (slash && slash != dir) {
		*slash = 0;
		if (mkdir(dir, 0755) && errno != EEXIST) {
			snprintf(err, errlen, "%s: cannot create: %s", dir, strerror(errno));
			goto out;
		}
	}
	f = fopen(tmp, "w");
	if (!f) {
		snprintf(err, errlen, "%s: cannot create: %s", tmp, strerror(errno));
		goto out;
	}
	fprintf(f, "# rtaudit baseline of %s\n", kc->file);
	for (size_t i = 0; i < kc->n; i++) {
		if (!strcmp(kc->v[i].value, "n"))
			fprintf(f, "# CONFIG_%s is not set\n", kc->v[i].name);
		else
			fprintf(f, "CONFIG_%s=%s\n", kc->v[i].name, kc->v[i].value);
	}
	if (fclose(f) || rename(tmp, dest)) {
		snprintf(err, errlen, "%s: cannot write: %s", dest, strerror(errno));
		unlink(tmp);
		goto out;
	}
	rc = 0;
out:
	free(tmp);
	free(dir);
	return rc;
}

static int cmd_baseline(const struct args *a)
{
	struct kconfig kc;
	char err[ERRLEN], path[4096];
	const char *src;
	int rc;

	if (a->npos < 2 || strcmp(a->pos[1], "save") || a->npos > 3) {
		fputs("rtaudit: usage: baseline save [CONFIG]\n", stderr);
		return EXIT_BADINPUT;
	}
	src = a->npos == 3 ? a->pos[2] : NULL;
	if (!src) {
		if (kconfig_default_path(a->root ? a->root : "", path, sizeof(path))) {
			fputs("rtaudit: no running kernel config found: give CONFIG\n", stderr);
			return EXIT_BADINPUT;
		}
		src = path;
	}
	rc = kconfig_load(&kc, src, err, sizeof(err)) ||
	     save_config(&kc, a->baseline, err, sizeof(err));
	/* kconfig_load leaves what it parsed before an error: freed below */
	if (rc)
		fprintf(stderr, "rtaudit: %s\n", err);
	else
		printf("rtaudit: baseline %s saved from %s (%zu options)\n",
		       a->baseline, src, kc.n);
	kconfig_free(&kc);
	return rc ? EXIT_BADINPUT : EXIT_FINE;
}

static int cmd_system(const struct args *a)
{
	struct sys_opts o = {
		.root = a->root ? a->root : "", .rtirqd = a->rtirqd,
		.baseline = a->baseline, .rules = a->rules,
	};
	struct report rep = { .command = "system" };
	struct rules rs;
	char err[ERRLEN];
	int rc;

	if (a->npos != 1) {
		fputs("rtaudit: system takes no argument\n", stderr);
		return EXIT_BADINPUT;
	}
	if (load_rules(a, &rs))
		return EXIT_BADINPUT;
	if (system_audit(&rep, &o, &rs, err, sizeof(err))) {
		fprintf(stderr, "rtaudit: %s\n", err);
		rc = EXIT_BADINPUT;
	} else {
		report_sort(&rep);
		rep.all = a->all;
		report_print(&rep, a->json, *o.root ? o.root : "/");
		rc = report_exit(&rep);
	}
	report_free(&rep);
	rules_free(&rs);
	return rc;
}

static int cmd_clock(const struct args *a)
{
	struct clock_opts o = {
		.do_switch = a->do_switch, .rounds = a->rounds,
		.trace_ms = a->trace_ms, .root = a->root ? a->root : "",
	};
	struct report rep = { .command = "clock" };
	char err[ERRLEN];
	int rc;

	if (a->npos != 1) {
		fputs("rtaudit: clock takes no argument\n", stderr);
		return EXIT_BADINPUT;
	}
	if (clock_measure(&rep, &o, err, sizeof(err))) {
		fprintf(stderr, "rtaudit: %s\n", err);
		rc = EXIT_BADINPUT;
	} else {
		report_sort(&rep);
		report_print(&rep, a->json, "clock cost, skew and trace clock error");
		rc = report_exit(&rep);
	}
	report_free(&rep);
	return rc;
}

int main(int argc, char **argv)
{
	struct args a = {
		.rules = RULES_DEFAULT, .baseline = BASELINE_DEFAULT,
		.rtirqd = "rtirqd", .rounds = SKEW_ROUNDS_DEFAULT,
		.trace_ms = TRACE_MS_DEFAULT,
	};

	if (parse_args(argc, argv, &a))
		return EXIT_BADINPUT;
	if (a.npos < 1)
		opt_usage_exit(usage, EXIT_BADINPUT);
	if (!strcmp(a.pos[0], "config"))
		return cmd_config(&a);
	if (!strcmp(a.pos[0], "system"))
		return cmd_system(&a);
	if (!strcmp(a.pos[0], "baseline"))
		return cmd_baseline(&a);
	if (!strcmp(a.pos[0], "clock"))
		return cmd_clock(&a);
	fprintf(stderr, "rtaudit: unknown command \"%s\" (config, system, baseline, clock)\n",
		a.pos[0]);
	return EXIT_BADINPUT;
}
