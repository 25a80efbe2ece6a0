// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rtpi-wakeup: wake-up latency of a high-priority condvar waiter while a
 * medium-priority CPU hog runs on the same CPU.  See rtpi-wakeup(1).
 *
 * All threads SCHED_FIFO on one CPU: H 60 waits on the condvar; L 20 locks
 * the mutex, takes t0, sets the predicate, signals, makes the hog M 40
 * runnable (M then spins --hog-us), unlocks.  Latency = time from t0 until H
 * runs again owning the mutex.  With priority inheritance L is boosted
 * while H needs the mutex, so M does not delay H; without it H waits for
 * the hog's burst.
 */
#include "../tools/common.h"
#include "rtlab/json.h"
#include <math.h>

static struct sync S;
static int h_waiting, h_go;		/* under S */
static uint64_t t0;			/* under S */
static uint64_t *lat;
static long iters, hog_us, gap_us;
static sem_t sem_m, sem_next;
static atomic_int quit;

static void *thr_h(void *p)
{
	(void)p;
	for (long i = 0; i < iters; i++) {
		s_lock(&S);
		h_waiting = 1;
		while (!h_go)
			s_wait(&S);
		lat[i] = now_ns() - t0;
		h_go = 0;
		h_waiting = 0;
		s_unlock(&S);
		sem_post(&sem_next);
	}
	return NULL;
}

static void *thr_m(void *p)
{
	(void)p;
	for (;;) {
		sem_wait(&sem_m);
		if (atomic_load(&quit))
			return NULL;
		uint64_t end = now_ns() + (uint64_t)hog_us * 1000ull;

		while (now_ns() < end)
			;
	}
}

static void *thr_l(void *p)
{
	(void)p;
	for (long i = 0; i < iters; i++) {
		for (;;) {	/* H runs first (higher priority): normally at once */
			s_lock(&S);
			if (h_waiting)
				break;
			s_unlock(&S);
			sleep_us(100);
		}
		t0 = now_ns();
		h_go = 1;
		s_signal(&S);
		sem_post(&sem_m);
		s_unlock(&S);
		sem_wait(&sem_next);
		/* idle gap: keeps the RT load below the kernel's RT throttling
		 * limit, whose 50 ms pauses would otherwise land in the figures */
		if (gap_us)
			sleep_us(gap_us);
	}
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: rtpi-wakeup [options]\n"
"  -m, --mode MODE     rtpi | preload | glibc-pi | glibc-normal\n"
"  -n, --iterations N  wake-ups to measure          (default 10000)\n"
"  -H, --hog-us US     hog burst per wake-up (us)   (default 500)\n"
"  -g, --gap-us US     idle time between wake-ups   (default 1000)\n"
"  -c, --cpu C         CPU all threads are pinned to (default: last)\n"
"  -o, --data FILE     write every latency (ns), one per line\n"
"  -j, --json FILE     write min/median/p99/max/mean as JSON\n"
"  -h, --help          this text\n"
"Mode preload needs LD_PRELOAD=.../librtpi-preload.so.  Needs SCHED_FIFO.\n");
}

enum { O_MODE, O_ITERATIONS, O_HOG, O_GAP, O_CPU, O_DATA, O_JSON };

static const struct tool_opt wakeup_opts[] = {
	{ "-m", "--mode", O_MODE },
	{ "-n", "--iterations", O_ITERATIONS },
	{ "-H", "--hog-us", O_HOG },
	{ "-g", "--gap-us", O_GAP },
	{ "-c", "--cpu", O_CPU },
	{ "-o", "--data", O_DATA },
	{ "-j", "--json", O_JSON },
	{ NULL, NULL, 0 }
};

/* where the command line asks for the results (the rest are globals) */
struct wakeup_args {
	int impl;
	const char *data, *json;
};

static void parse_opts(int argc, char **argv, struct wakeup_args *o)
{
	struct opt_arg arg;

	for (int i = 1; i < argc; i++) {
		switch (next_opt(argc, argv, &i, wakeup_opts, usage, &arg)) {
		case O_MODE:
			o->impl = parse_impl(arg.val);
			if (o->impl < 0)
				die("command line: --mode: unknown mode '%s'", arg.val);
			break;
		case O_ITERATIONS:
			iters = parse_long(arg.name, arg.val, 1, 100000000);
			break;
		case O_HOG:
			hog_us = parse_long(arg.name, arg.val, 0, 10000000);
			break;
		case O_GAP:
			gap_us = parse_long(arg.name, arg.val, 0, 10000000);
			break;
		case O_CPU:
			g_cpu = (int)parse_long(arg.name, arg.val, 0, CPU_SETSIZE - 1);
			break;
		case O_DATA:
			o->data = arg.val;
			break;
		case O_JSON:
			o->json = arg.val;
			break;
		}
	}
	if (o->impl < 0)
		die("command line: --mode is required (see --help)");
}

int main(int argc, char **argv)
{
	struct wakeup_args o = { .impl = -1 };
	pthread_t th, tl, tm;

	prog = "rtpi-wakeup";
	iters = 10000;
	hog_us = 500;
	gap_us = 1000;
	g_cpu = default_cpu();
	parse_opts(argc, argv, &o);
	lat = alloc_latencies((size_t)iters);
	sync_init(&S, o.impl);
	sem_init(&sem_m, 0, 0);
	sem_init(&sem_next, 0, 0);
	pin_fifo_self(80);
	th = spawn_fifo(thr_h, NULL, 60);
	tm = spawn_fifo(thr_m, NULL, 40);
	tl = spawn_fifo(thr_l, NULL, 20);
	pthread_join(tl, NULL);
	pthread_join(th, NULL);
	atomic_store(&quit, 1);
	sem_post(&sem_m);
	pthread_join(tm, NULL);

	if (o.data) {
		FILE *f = fopen(o.data, "w");

		if (!f)
			die("%s: %s", o.data, strerror(errno));
		for (long i = 0; i < iters; i++)
			fprintf(f, "%llu\n", (unsigned long long)lat[i]);
		fclose(f);
	}
	double mean = 0;

	for (long i = 0; i < iters; i++)
		mean += (double)lat[i];
	mean /= (double)iters;
	qsort(lat, (size_t)iters, sizeof(*lat), cmp_u64);
	long p99i = (long)ceil(0.99 * (double)iters) - 1;
	double us_min = lat[0] / 1e3, us_med = lat[iters / 2] / 1e3,
	       us_p99 = lat[p99i] / 1e3, us_max = lat[iters - 1] / 1e3;

	/* the librtpi these figures are of: the file that defines pi_cond_signal
	 * in this process (LD_LIBRARY_PATH picks it, bench/guest/rtpi-wakeup.sh) */
	Dl_info dli;
	const char *lib = dladdr((void *)pi_cond_signal, &dli) && dli.dli_fname ?
			  dli.dli_fname : "?";

	printf("mode=%s n=%ld hog_us=%ld gap_us=%ld min_us=%.1f median_us=%.1f p99_us=%.1f "
	       "max_us=%.1f mean_us=%.1f cpu=%d librtpi=%s\n", impl_names[o.impl], iters, hog_us,
	       gap_us, us_min, us_med, us_p99, us_max, mean / 1e3, g_cpu, lib);
	if (o.json) {
		cJSON *j = cJSON_CreateObject();

		cJSON_AddStringToObject(j, "mode", impl_names[o.impl]);
		cJSON_AddNumberToObject(j, "n", (double)iters);
		cJSON_AddNumberToObject(j, "hog_us", (double)hog_us);
		cJSON_AddNumberToObject(j, "gap_us", (double)gap_us);
		cJSON_AddNumberToObject(j, "min_us", rtlab_json_round(us_min, 1));
		cJSON_AddNumberToObject(j, "median_us", rtlab_json_round(us_med, 1));
		cJSON_AddNumberToObject(j, "p99_us", rtlab_json_round(us_p99, 1));
		cJSON_AddNumberToObject(j, "max_us", rtlab_json_round(us_max, 1));
		cJSON_AddNumberToObject(j, "mean_us", rtlab_json_round(mean / 1e3, 1));
		cJSON_AddNumberToObject(j, "cpu", g_cpu);
		cJSON_AddStringToObject(j, "librtpi", lib);
		if (rtlab_json_write(o.json, j))
			die("%s: %s", o.json, strerror(errno));
	}
	return 0;
}
