// SPDX-License-Identifier: GPL-2.0
/*
 * wakestorm host unit tests: option parsing, statistics, limit checks and
 * reports. Prints one "ok N name" / "not ok N name" line per test point
 * (tests/check.sh adds the plan).
 */
#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "limits.h"
#include "opts.h"
#include "report.h"
#include "stats.h"
#include "rtlab/tap.h"

/* one TAP point: rtlab's kselftest-style printer (include/rtlab/tap.h) */
#define check(...) ((void)tap_result(__VA_ARGS__))

/* ---- option parsing ---- */

static int parse(struct ws_opts *o, char *err, size_t len, ...)
{
	char *argv[32];
	int argc = 0;
	va_list ap;
	char *a;

	argv[argc++] = "wakestorm";
	va_start(ap, len);
	while ((a = va_arg(ap, char *)) && argc < 31)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	err[0] = '\0';
	return ws_parse_opts(argc, argv, o, err, len);
}

static void test_time_size_cpus(void)
{
	static const struct { const char *s; int ok; uint64_t ns; } times[] = {
		{ "10ms", 1, 10000000 }, { "250us", 1, 250000 },
		{ "250", 1, 250000 }, { "2s", 1, 2000000000 },
		{ "5ns", 1, 5 }, { "0", 1, 0 },
		{ "", 0, 0 }, { "ms", 0, 0 }, { "-1", 0, 0 },
		{ "10 ms", 0, 0 }, { "10xs", 0, 0 }, { "1.5ms", 0, 0 },
		{ "99999999999999999999s", 0, 0 },
		{ "18446744073709551615s", 0, 0 },
	};
	static const struct { const char *s; int ok; size_t b; } sizes[] = {
		{ "65536", 1, 65536 }, { "64K", 1, 65536 }, { "1M", 1, 1048576 },
		{ "1G", 0, 0 }, { "K", 0, 0 }, { "", 0, 0 }, { "-4K", 0, 0 },
	};
	static const struct { const char *s; int n; int first, last; } lists[] = {
		{ "1", 1, 1, 1 }, { "0-3,6", 5, 0, 6 }, { "7,2", 2, 7, 2 },
		{ "1023", 1, 1023, 1023 },
		{ "", -1, 0, 0 }, { "3-1", -1, 0, 0 }, { "1,,2", -1, 0, 0 },
		{ "1,1", -1, 0, 0 }, { "a", -1, 0, 0 }, { "1024", -1, 0, 0 },
		{ "0-", -1, 0, 0 }, { "1,", -1, 0, 0 }, { "0-2,1", -1, 0, 0 },
	};
	int cpus[WS_MAX_CPUS];
	uint64_t ns;
	size_t b, i;
	int n;

	for (i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		ns = 12345;
		n = ws_parse_time(times[i].s, &ns);
		check(times[i].ok ? (n == 0 && ns == times[i].ns) : n == -1,
		      "parse_time '%s' %s", times[i].s,
		      times[i].ok ? "accepted" : "rejected");
	}
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		b = 1;
		n = ws_parse_size(sizes[i].s, &b);
		check(sizes[i].ok ? (n == 0 && b == sizes[i].b) : n == -1,
		      "parse_size '%s' %s", sizes[i].s,
		      sizes[i].ok ? "accepted" : "rejected");
	}
	for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		n = ws_parse_cpulist(lists[i].s, cpus, WS_MAX_CPUS);
		check(n == lists[i].n && (n < 0 || (cpus[0] == lists[i].first &&
						    cpus[n - 1] == lists[i].last)),
		      "parse_cpulist '%s' -> %d CPUs", lists[i].s, lists[i].n);
	}
}

static void test_opts_good(void)
{
	static struct ws_opts o;
	char err[512];
	int r;

	r = parse(&o, err, sizeof(err), (char *)NULL);
	check(r == 0 && o.threads == 1000 && o.policy == WS_POLICY_OTHER &&
	      o.period_ns == 10000000 && o.iterations == 100 &&
	      o.ncpus == 0 && o.stack_size == 65536 && !o.mlock &&
	      !o.json_path && !o.quiet, "defaults: 1000 threads, other, 10ms, 100 expiries");

	r = parse(&o, err, sizeof(err), "-n", "4", "-a", "1", "-p", "fifo",
		  "-P", "10", "-t", "5ms", "-i", "7", "-j", "x.json", "-q",
		  "-s", "128K", "-m", (char *)NULL);
	check(r == 0 && o.threads == 4 && o.ncpus == 1 && o.cpus[0] == 1 &&
	      o.policy == WS_POLICY_FIFO && o.priority == 10 &&
	      o.period_ns == 5000000 && o.iterations == 7 &&
	      !strcmp(o.json_path, "x.json") && o.quiet &&
	      o.stack_size == 131072 && o.mlock, "short options");

	r = parse(&o, err, sizeof(err), "--threads=9", "--cpus=0-1",
		  "--policy=rr", "--priority=3", "--period=2ms",
		  "--duration=1s", "--start-delay=50ms", (char *)NULL);
	check(r == 0 && o.threads == 9 && o.ncpus == 2 &&
	      o.policy == WS_POLICY_RR && o.priority == 3 &&
	      o.iterations == 500 && o.start_delay_ns == 50000000,
	      "long options; --duration 1s / --period 2ms = 500 expiries");

	r = parse(&o, err, sizeof(err), "-p", "deadline", "-t", "4ms",
		  (char *)NULL);
	check(r == 0 && o.policy == WS_POLICY_DEADLINE &&
	      o.dl_runtime_ns == 100000 && o.dl_period_ns == 4000000 &&
	      o.dl_deadline_ns == 4000000,
	      "deadline defaults: dl-period = period, dl-deadline = dl-period");

	r = parse(&o, err, sizeof(err), "-p", "deadline", "--dl-runtime",
		  "200us", "--dl-deadline", "1ms", "--dl-period", "2ms",
		  (char *)NULL);
	check(r == 0 && o.dl_runtime_ns == 200000 &&
	      o.dl_deadline_ns == 1000000 && o.dl_period_ns == 2000000,
	      "deadline parameters");

	r = parse(&o, err, sizeof(err), "-h", (char *)NULL);
	check(r == 0 && o.help, "-h sets help");
	r = parse(&o, err, sizeof(err), "--version", (char *)NULL);
	check(r == 0 && o.version, "--version sets version");
}

static void test_opts_bad(void)
{
	static const struct { const char *args[6]; const char *name; } bad[] = {
		{ { "-n", "0" }, "-n/--threads '0'" },
		{ { "--threads=abc" }, "-n/--threads 'abc'" },
		{ { "-n", "1000001" }, "-n/--threads" },
		{ { "-a", "3-1" }, "-a/--cpus '3-1'" },
		{ { "-p", "batch" }, "-p/--policy 'batch'" },
		{ { "-p", "fifo", "-P", "0" }, "-P/--priority '0'" },
		{ { "-p", "fifo", "-P", "100" }, "-P/--priority '100'" },
		{ { "-P", "5" }, "-P/--priority: only for" },
		{ { "-p", "deadline", "-P", "5" }, "-P/--priority: only for" },
		{ { "-p", "fifo", "--dl-runtime", "10us" }, "--dl-runtime" },
		{ { "-p", "deadline", "--dl-runtime", "500ns" }, "--dl-runtime: must be at least 1024ns" },
		{ { "-p", "deadline", "--dl-runtime", "2ms", "--dl-deadline", "1ms" }, "--dl-runtime: longer" },
		{ { "-p", "deadline", "--dl-deadline", "2ms", "--dl-period", "1ms" }, "--dl-deadline: longer" },
		{ { "-p", "deadline", "--dl-period", "0" }, "--dl-period '0'" },
		{ { "-p", "deadline", "-a", "0" }, "-a/--cpus: cannot pin SCHED_DEADLINE" },
		{ { "-t", "0" }, "-t/--period '0'" },
		{ { "-t", "1.5ms" }, "-t/--period '1.5ms'" },
		{ { "-i", "0" }, "-i/--iterations '0'" },
		{ { "-i", "x" }, "-i/--iterations 'x'" },
		{ { "-D", "1ms", "-t", "10ms" }, "-D/--duration: shorter" },
		{ { "-D", "1s", "-i", "5" }, "-D/--duration: give either" },
		{ { "-D", "0" }, "-D/--duration '0'" },
		{ { "--start-delay=0" }, "--start-delay '0'" },
		{ { "-s", "12X" }, "-s/--stack-size '12X'" },
		{ { "--json=" }, "-j/--json: empty" },
		{ { "--bogus" }, "--bogus: unknown option" },
		{ { "-x" }, "-x: unknown option" },
		{ { "-n" }, "-n/--threads: missing argument" },
		{ { "--threads" }, "-n/--threads: missing argument" },
		{ { "--dl-period" }, "--dl-period: missing argument" },
		{ { "extra" }, "'extra': unexpected argument" },
	};
	static struct ws_opts o;
	char err[512];
	size_t i;
	int r;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *const *a = bad[i].args;

		r = parse(&o, err, sizeof(err), a[0], a[1], a[2], a[3], a[4],
			  a[5], (char *)NULL);
		check(r == -1 && strstr(err, bad[i].name) != NULL,
		      "bad option '%s%s%s%s%s' named: \"%s\" (got \"%s\")",
		      a[0], a[1] ? " " : "", a[1] ? a[1] : "",
		      a[2] ? " " : "", a[2] ? a[2] : "", bad[i].name, err);
	}
}

/* ---- statistics ---- */

static void test_stats(void)
{
	int64_t v[1000], one[1] = { 42 }, two[2] = { 7, 3 };
	struct ws_expiry_rec recs[4];
	struct ws_summary s;
	struct ws_result r;
	int64_t scratch[4];
	int i;

	for (i = 0; i < 100; i++)
		v[i] = 100 - i;		/* unsorted on purpose */
	ws_summarize(v, 100, &s);
	check(s.count == 100 && s.min == 1 && s.median == 50 && s.p99 == 99 &&
	      s.max == 100 && s.mean == 50.5,
	      "summary of 1..100: min 1, median 50, p99 99, max 100, mean 50.5");
	for (i = 0; i < 1000; i++)
		v[i] = i * 3;
	ws_summarize(v, 1000, &s);
	check(s.p99 == 989 * 3 && s.median == 499 * 3,
	      "nearest-rank p99 of 1000 values is the 990th");
	ws_summarize(one, 1, &s);
	check(s.count == 1 && s.min == 42 && s.median == 42 && s.p99 == 42 &&
	      s.max == 42, "summary of one value");
	ws_summarize(two, 2, &s);
	check(s.median == 3 && s.p99 == 7 && s.mean == 5.0,
	      "summary of two values: median is the lower");
	ws_summarize(v, 0, &s);
	check(s.count == 0 && s.max == 0, "summary of nothing is zero");
	check(ws_percentile(v, 1000, 100.0) == v[999] &&
	      ws_percentile(v, 1000, 0.01) == v[0], "percentile bounds");

	/* three threads; expiry 2 partial, expiry 3 never reached */
	recs[0] = (struct ws_expiry_rec){ 1000, 1010, 1050, 3, 0 };
	recs[1] = (struct ws_expiry_rec){ 2000, 2020, 2300, 3, 1 };
	recs[2] = (struct ws_expiry_rec){ 3000, 3005, 3006, 2, 0 };
	recs[3] = (struct ws_expiry_rec){ 4000, INT64_MAX, INT64_MIN, 0, 0 };
	ws_compute(recs, 4, 3, scratch, &r);
	check(r.expiries == 3 && r.complete == 2 && r.wakeups == 8 &&
	      r.missed == 1, "compute: counts (3 expiries, 2 complete, 8 wake-ups, 1 missed)");
	check(r.first_lateness.min == 5 && r.first_lateness.max == 20 &&
	      r.first_lateness.median == 10, "compute: first wake-up lateness");
	check(r.last_lateness.min == 6 && r.last_lateness.max == 300 &&
	      r.last_lateness.median == 50, "compute: last wake-up lateness");
	check(r.spread.min == 1 && r.spread.median == 40 &&
	      r.spread.max == 280, "compute: spread = last - first");
}

/* ---- limits ---- */

static void good_env(struct ws_env *e)
{
	int i;

	memset(e, 0, sizeof(*e));
	e->threads_max = 100000;
	e->nr_threads = 200;
	e->pid_max = 32768;
	e->max_map_count = 65530;
	e->map_count = 50;
	e->rlimit_nproc = WS_UNLIMITED;
	e->rlimit_as = WS_UNLIMITED;
	e->vm_size = 10 << 20;
	e->rlimit_memlock = 8 << 20;
	e->rlimit_rtprio = 0;
	e->cap_sys_nice = true;
	e->mem_available = 4ull << 30;
	e->cg_pids_max = WS_UNLIMITED;
	e->cg_mem_max = WS_UNLIMITED;
	e->page_size = 4096;
	e->stack_min = 16384;
	for (i = 0; i < 4; i++) {
		e->online[0] |= 1ull << i;
		e->allowed[0] |= 1ull << i;
	}
	e->nr_online = 4;
	e->rt_runtime_us = 950000;
	e->rt_period_us = 1000000;
	e->dl_period_min_us = 100;
	e->dl_period_max_us = 4194304;
}

static void expect_limit(const char *what, struct ws_opts *o,
			 struct ws_env *e, const char *msg)
{
	char err[512] = "";
	int r = ws_check_limits(o, e, err, sizeof(err));

	if (msg)
		check(r == -1 && strstr(err, msg) != NULL,
		      "limits: %s refused naming \"%s\" (got \"%s\")", what, msg,
		      err);
	else
		check(r == 0, "limits: %s accepted (got \"%s\")", what, err);
}

static void test_limits(void)
{
	static struct ws_opts o, base;
	struct ws_env e;
	char err[512];

	parse(&base, err, sizeof(err), (char *)NULL);

	o = base; good_env(&e);
	expect_limit("1000 threads on a roomy system", &o, &e, NULL);
	o.threads = 99900;
	expect_limit("threads above kernel.threads-max", &o, &e, "kernel.threads-max");
	good_env(&e); e.threads_max = WS_UNLIMITED; o.threads = 32600;
	expect_limit("threads above kernel.pid_max", &o, &e, "kernel.pid_max");
	o = base; good_env(&e); e.rlimit_nproc = 1000; e.user_threads = 10;
	expect_limit("threads above RLIMIT_NPROC", &o, &e, "RLIMIT_NPROC");
	e.nproc_exempt = true;
	expect_limit("RLIMIT_NPROC for root/CAP_SYS_RESOURCE", &o, &e, NULL);
	good_env(&e); e.cg_pids_max = 1100; e.cg_pids_current = 101;
	expect_limit("threads above cgroup pids.max", &o, &e, "pids.max");
	good_env(&e); e.max_map_count = 2000;
	expect_limit("stacks above vm.max_map_count", &o, &e, "vm.max_map_count");
	good_env(&e); e.rlimit_as = 64 << 20;
	expect_limit("stacks above RLIMIT_AS", &o, &e, "RLIMIT_AS");
	good_env(&e); e.mem_available = 16 << 20;
	expect_limit("threads above MemAvailable", &o, &e, "MemAvailable");
	good_env(&e); e.cg_mem_max = 40 << 20; e.cg_mem_current = 20 << 20;
	expect_limit("threads above the cgroup memory limit", &o, &e,
		     "cgroup's memory limit");
	good_env(&e); o.mlock = true;
	expect_limit("--mlock above RLIMIT_MEMLOCK", &o, &e, "CAP_IPC_LOCK");
	e.cap_ipc_lock = true;
	expect_limit("--mlock with CAP_IPC_LOCK", &o, &e, NULL);
	o = base; good_env(&e); o.stack_size = 4096;
	expect_limit("stack below PTHREAD_STACK_MIN", &o, &e, "PTHREAD_STACK_MIN");
	o = base; o.ncpus = 1; o.cpus[0] = 5;
	expect_limit("offline CPU", &o, &e, "CPU 5 is not online");
	e.online[0] |= 1ull << 5;
	expect_limit("CPU outside the affinity mask", &o, &e, "allowed CPUs");
	o = base; good_env(&e); o.policy = WS_POLICY_FIFO; o.priority = 5;
	e.cap_sys_nice = false;
	expect_limit("fifo without CAP_SYS_NICE", &o, &e, "CAP_SYS_NICE");
	e.rlimit_rtprio = 5;
	expect_limit("fifo 5 with RLIMIT_RTPRIO 5", &o, &e, NULL);
	o.policy = WS_POLICY_RR; o.priority = 6;
	expect_limit("rr 6 with RLIMIT_RTPRIO 5", &o, &e, "RLIMIT_RTPRIO");
	o = base; good_env(&e); o.policy = WS_POLICY_DEADLINE;
	o.dl_runtime_ns = 100000; o.dl_deadline_ns = o.dl_period_ns = 10000000;
	e.cap_sys_nice = false;
	expect_limit("deadline without CAP_SYS_NICE", &o, &e, "CAP_SYS_NICE");
	e.cap_sys_nice = true; o.threads = 100;
	expect_limit("deadline 100 x 1% on 4 CPUs", &o, &e, NULL);
	o.threads = 1000;
	expect_limit("deadline 1000 x 1% on 4 CPUs", &o, &e, "admission control");
	o.threads = 10; o.dl_runtime_ns = 10000; o.dl_deadline_ns = 50000;
	o.dl_period_ns = 50000;
	expect_limit("deadline period below the minimum", &o, &e,
		     "sched_deadline_period_min_us");
}

/* ---- reports ---- */

static void test_report(void)
{
	static struct ws_opts o;
	struct ws_expiry_rec recs[2] = {
		{ 1000, 1010, 1050, 2, 0 }, { 2000, 2020, 2300, 2, 0 },
	};
	int64_t scratch[2];
	struct ws_run run;
	char err[512], *doc, buf[4096];
	cJSON *j, *sp;
	FILE *f;
	size_t n;

	parse(&o, err, sizeof(err), "-n", "2", "-i", "2", "-p", "rr", "-P",
	      "7", "-a", "1,3", (char *)NULL);
	memset(&run, 0, sizeof(run));
	run.opts = &o;
	run.start_ns = 1000;
	ws_compute(recs, 2, 2, scratch, &run.result);
	doc = ws_report_json(&run);
	j = doc ? cJSON_Parse(doc) : NULL;
	check(j != NULL, "JSON report parses");
	sp = cJSON_GetObjectItem(j, "spread_ns");
	check(cJSON_GetNumberValue(cJSON_GetObjectItem(j, "wakeups")) == 4 &&
	      !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(j, "policy")), "rr") &&
	      cJSON_GetNumberValue(cJSON_GetObjectItem(j, "priority")) == 7 &&
	      cJSON_GetArraySize(cJSON_GetObjectItem(j, "cpus")) == 2 &&
	      cJSON_GetNumberValue(cJSON_GetObjectItem(sp, "max")) == 280 &&
	      cJSON_GetNumberValue(cJSON_GetObjectItem(j, "start_ns")) == 1000,
	      "JSON report carries wake-ups, policy, priority, CPUs, spread, start");
	cJSON_Delete(j);
	free(doc);

	f = tmpfile();
	if (!f) {
		check(0, "text report (tmpfile failed)");
		return;
	}
	ws_report_text(f, &run);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	check(strstr(buf, "2 threads, SCHED_RR 7") &&
	      strstr(buf, "wake-ups: 4 done; 2 of 2 expiries complete") &&
	      strstr(buf, "spread (last - first)"),
	      "text report names policy, wake-ups and spread");
}

int main(void)
{
	test_time_size_cpus();
	test_opts_good();
	test_opts_bad();
	test_stats();
	test_limits();
	test_report();
	return tap_exit();
}
