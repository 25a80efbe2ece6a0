// SPDX-License-Identifier: GPL-2.0
/*
 * irqwait_test -s SLOT -c N -m MIN_MS -M MAX_MS [-g GAP_MS] [-r SEED]:
 * how long an irq thread waits to run after its interrupt, measured from
 * user space (tests/guest/89-rtgroup-irq.sh).
 *
 * Raises the rtlab_irqsim interrupt of SLOT (already requested) N times,
 * each after a pseudo-random pause of 0..GAP_MS (default 700 ms, the
 * pauses from SEED so that a run can be repeated), and each time polls the
 * slot's handled count every 100 us until the irq thread has run: the
 * wait is from the write of "fire" returning to the count moving.  The
 * poll runs where this program runs (pin it away from the CPU under
 * test).  One TAP point: the longest wait lies within MIN_MS..MAX_MS.
 * Every wait is printed as a diagnostic, with the median.
 *
 * Exit 0 if the point held, 1 if not, 2 on bad use or a failed setup
 * (no module, slot not requested, a wait past 10 s).
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "irqsim.h"
#include "rtlab/opt.h"
#include "rtlab/tap.h"
#include "rtlab/time.h"

#define POLL_NS		(100 * RTLAB_NSEC_PER_USEC)
#define GIVE_UP_NS	(10 * RTLAB_NSEC_PER_SEC)	/* no thread runs that late */
#define MAX_FIRES	1000

static void usage(FILE *f)
{
	fputs("usage: irqwait_test -s SLOT -c N -m MIN_MS -M MAX_MS [-g GAP_MS] [-r SEED]\n"
	      "Raises the rtlab_irqsim interrupt of SLOT N times and measures how long\n"
	      "its irq thread takes to run; ok if the longest wait is in MIN_MS..MAX_MS.\n", f);
}

struct opts {
	int slot, fires, gap_ms;
	long min_ms, max_ms;
	unsigned int seed;
};

static void parse_opts(int argc, char **argv, struct opts *o)
{
	long v;
	int c;

	*o = (struct opts){ .slot = -1, .fires = 0, .gap_ms = 700,
			    .min_ms = -1, .max_ms = -1, .seed = 1 };
	while ((c = getopt(argc, argv, "s:c:m:M:g:r:h")) != -1) {
		switch (c) {
		case 's':
			if (!opt_int(optarg, 0, 63, &o->slot))
				die_usage("-s: a slot 0..63");
			break;
		case 'c':
			if (!opt_int(optarg, 1, MAX_FIRES, &o->fires))
				die_usage("-c: 1..%d interrupts", MAX_FIRES);
			break;
		case 'm':
			if (!opt_long(optarg, 0, 100000, &o->min_ms))
				die_usage("-m: 0..100000 ms");
			break;
		case 'M':
			if (!opt_long(optarg, 0, 100000, &o->max_ms))
				die_usage("-M: 0..100000 ms");
			break;
		case 'g':
			if (!opt_int(optarg, 0, 60000, &o->gap_ms))
				die_usage("-g: 0..60000 ms");
			break;
		case 'r':
			if (!opt_long(optarg, 0, UINT32_MAX, &v))
				die_usage("-r: a seed 0..%u", UINT32_MAX);
			o->seed = (unsigned int)v;
			break;
		case 'h':
			opt_usage_exit(usage, 0);
			break;
		default:
			opt_usage_exit(usage, RTLAB_EXIT_ERROR);
		}
	}
	if (o->slot < 0 || !o->fires || o->min_ms < 0 || o->max_ms < o->min_ms)
		die_usage("-s, -c, -m and -M are needed, with MIN_MS <= MAX_MS");
}

static void sleep_ns(int64_t ns)
{
	struct timespec ts = { .tv_sec = ns / RTLAB_NSEC_PER_SEC,
			       .tv_nsec = ns % RTLAB_NSEC_PER_SEC };

	nanosleep(&ts, NULL);
}

/* one interrupt: the wait in ns from "fire" returned to the thread's run */
static int64_t one_wait(int slot)
{
	struct slot_status st;
	int64_t t0, t;
	int handled;

	if (!sim_status((unsigned int)slot, &st))
		die("slot %d: no requested irq", slot);
	handled = st.handled;
	if (sim("fire %d", slot))
		die("fire %d: refused", slot);
	t0 = now_ns();
	for (;;) {
		t = now_ns();
		if (sim_status((unsigned int)slot, &st) && st.handled != handled)
			return t - t0;
		if (t - t0 > GIVE_UP_NS)
			die("slot %d: its irq thread did not run within 10 s", slot);
		sleep_ns(POLL_NS);
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	static int64_t wait[MAX_FIRES];
	struct opts o;
	int64_t longest = 0;
	int i;

	parse_opts(argc, argv, &o);
	srand(o.seed);
	tap_header(1);
	for (i = 0; i < o.fires; i++) {
		if (o.gap_ms)
			sleep_ns((int64_t)(rand() % (o.gap_ms + 1)) * RTLAB_NSEC_PER_MSEC);
		wait[i] = one_wait(o.slot);
		if (wait[i] > longest)
			longest = wait[i];
		diag("interrupt %d: the thread ran after %.1f ms", i + 1,
		     (double)wait[i] / RTLAB_NSEC_PER_MSEC);
	}
	qsort(wait, (size_t)o.fires, sizeof(wait[0]), cmp_i64);
	diag("%d interrupts: median wait %.1f ms, longest %.1f ms (seed %u, pauses 0..%d ms)",
	     o.fires, (double)wait[(o.fires - 1) / 2] / RTLAB_NSEC_PER_MSEC,
	     (double)longest / RTLAB_NSEC_PER_MSEC, o.seed, o.gap_ms);
	tap_result(longest >= o.min_ms * RTLAB_NSEC_PER_MSEC &&
		   longest <= o.max_ms * RTLAB_NSEC_PER_MSEC,
		   "the longest wait of %d, %.1f ms, is within %ld..%ld ms",
		   o.fires, (double)longest / RTLAB_NSEC_PER_MSEC, o.min_ms, o.max_ms);
	return tap_exit();
}
