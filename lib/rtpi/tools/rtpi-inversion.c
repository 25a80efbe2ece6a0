// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rtpi-inversion: priority inversion through a condition variable, with
 * SCHED_FIFO threads pinned to one CPU.  See rtpi-inversion(1) and
 * tests/guest/50-rtpi-inversion.sh.
 *
 * Threads: controller 80 (main), H 60 (waits on the condvar), M 40 (CPU
 * hog), L 20 (signals while holding the mutex, then wakes M), decoys D1, D2
 * 10 (older waiters on the same condvar, "groups" scenario only).
 *
 * Round, scenario "classic": H waits for h_go; L locks the mutex, sets
 * h_go, signals, wakes M, unlocks.  Scenario "groups": before that, D1 and
 * D2 wait on the condvar and one earlier signal is sent (consumed by a
 * decoy, which waits again).  Scenario "decoys" (control): the decoys wait
 * but the earlier signal is not sent.  H completes when it returns from the wait.
 * Inversion is judged by order, not by wall time (an emulator may stall the
 * whole guest): M records when it starts spinning.  A round is "starved"
 * when H has not completed --timeout-ms after L was started while M has been
 * spinning (H blocked, the lower-priority hog running); the controller then
 * stops M and recovers (broadcast).  If H is late but M has not run, the
 * controller keeps waiting: slowness, not inversion.  A completed round is
 * "inverted" if M started spinning before H completed.
 */
#include "../tools/common.h"
#include "rtlab/json.h"

static struct sync S;
static int h_go, h_waiting, d_go, d_waiting, d_wakeups;	/* under S */
static atomic_int h_done, l_done, stop_m, m_idle, quit;
static _Atomic uint64_t t_m_start;
static uint64_t t_signal, t_wake;				/* under S */
static sem_t sem_h, sem_l, sem_m, sem_d[2];
static long max_spin_ms;

static void *thr_h(void *p)
{
	(void)p;
	for (;;) {
		sem_wait(&sem_h);
		if (atomic_load(&quit))
			return NULL;
		s_lock(&S);
		h_waiting = 1;
		while (!h_go)
			s_wait(&S);
		h_waiting = 0;
		t_wake = now_ns();
		s_unlock(&S);
		atomic_store(&h_done, 1);
	}
}

static void *thr_l(void *p)
{
	(void)p;
	for (;;) {
		sem_wait(&sem_l);
		if (atomic_load(&quit))
			return NULL;
		s_lock(&S);
		h_go = 1;
		t_signal = now_ns();
		s_signal(&S);
		sem_post(&sem_m);	/* the medium-priority hog becomes runnable */
		s_unlock(&S);
		atomic_store(&l_done, 1);
	}
}

static void *thr_m(void *p)
{
	(void)p;
	for (;;) {
		atomic_store(&m_idle, 1);
		sem_wait(&sem_m);
		atomic_store(&m_idle, 0);
		if (atomic_load(&quit))
			return NULL;
		uint64_t end = now_ns() + (uint64_t)max_spin_ms * 1000000ull;

		atomic_store(&t_m_start, now_ns());
		while (!atomic_load_explicit(&stop_m, memory_order_relaxed) &&
		       now_ns() < end)
			;
	}
}

static void *thr_d(void *p)
{
	sem_t *sem = p;

	for (;;) {
		sem_wait(sem);
		if (atomic_load(&quit))
			return NULL;
		s_lock(&S);
		d_waiting++;
		while (!d_go) {
			s_wait(&S);
			d_wakeups++;
		}
		d_waiting--;
		s_unlock(&S);
	}
}

static int peek(int *v)
{
	int x;

	s_lock(&S);
	x = *v;
	s_unlock(&S);
	return x;
}

/* poll (sleeping, so that lower priorities run) until cond holds */
#define POLL_UNTIL(cond, what) do {					\
	uint64_t dl_ = now_ns() + 5000000000ull;			\
	while (!(cond)) {						\
		if (now_ns() > dl_)					\
			die("round %d: timed out waiting for %s", round, what); \
		sleep_us(200);						\
	}								\
} while (0)

static void usage(FILE *f)
{
	fprintf(f,
"usage: rtpi-inversion [options]\n"
"  -m, --mode MODE       rtpi | preload | glibc (glibc condvar + PI mutex)\n"
"  -s, --scenario S      classic | groups | decoys   (default groups)\n"
"  -n, --rounds N        rounds to run               (default 1000)\n"
"  -t, --timeout-ms T    starvation time-out a round (default 200)\n"
"  -c, --cpu C           CPU all threads are pinned to (default: last)\n"
"  -j, --json FILE       write the result as JSON to FILE\n"
"  -h, --help            this text\n"
"Mode preload needs LD_PRELOAD=.../librtpi-preload.so.  Needs SCHED_FIFO\n"
"(root).  Exit status: 0 every round completed in order, 1 some rounds\n"
"starved or inverted,\n"
"2 usage or setup error.\n");
}

enum { O_MODE, O_SCENARIO, O_ROUNDS, O_TIMEOUT, O_CPU, O_JSON };

static const struct tool_opt inversion_opts[] = {
	{ "-m", "--mode", O_MODE },
	{ "-s", "--scenario", O_SCENARIO },
	{ "-n", "--rounds", O_ROUNDS },
	{ "-t", "--timeout-ms", O_TIMEOUT },
	{ "-c", "--cpu", O_CPU },
	{ "-j", "--json", O_JSON },
	{ NULL, NULL, 0 }
};

/* what the command line asks for */
struct inversion_args {
	int impl, groups, first_signal, rounds;
	long timeout_ms;
	const char *json;
};

static void parse_scenario(const char *v, struct inversion_args *o)
{
	if (!strcmp(v, "classic"))
		o->groups = 0;
	else if (!strcmp(v, "groups"))
		o->groups = o->first_signal = 1;
	else if (!strcmp(v, "decoys"))
		o->groups = 1, o->first_signal = 0;
	else
		die("command line: --scenario: unknown scenario '%s'", v);
}

static void parse_opts(int argc, char **argv, struct inversion_args *o)
{
	struct opt_arg arg;

	for (int i = 1; i < argc; i++) {
		switch (next_opt(argc, argv, &i, inversion_opts, usage, &arg)) {
		case O_MODE:
			o->impl = parse_impl(arg.val);
			if (o->impl < 0 || o->impl == IMPL_GLIBC_NORMAL)
				die("command line: --mode: unknown mode '%s'", arg.val);
			break;
		case O_SCENARIO:
			parse_scenario(arg.val, o);
			break;
		case O_ROUNDS:
			o->rounds = (int)parse_long(arg.name, arg.val, 1, 10000000);
			break;
		case O_TIMEOUT:
			o->timeout_ms = parse_long(arg.name, arg.val, 1, 100000);
			break;
		case O_CPU:
			g_cpu = (int)parse_long(arg.name, arg.val, 0, CPU_SETSIZE - 1);
			break;
		case O_JSON:
			o->json = arg.val;
			break;
		}
	}
}

int main(int argc, char **argv)
{
	struct inversion_args o = {
		.impl = IMPL_RTPI, .groups = 1, .first_signal = 1, .rounds = 1000,
		.timeout_ms = 200,
	};
	int round = 0;
	int starved = 0, completed = 0, inverted = 0;
	uint64_t *lat;
	pthread_t th, tl, tm, td[2];

	prog = "rtpi-inversion";
	g_cpu = default_cpu();
	parse_opts(argc, argv, &o);
	max_spin_ms = 2 * o.timeout_ms + 1000;
	lat = alloc_latencies((size_t)o.rounds);
	sync_init(&S, o.impl);
	sem_init(&sem_h, 0, 0);
	sem_init(&sem_l, 0, 0);
	sem_init(&sem_m, 0, 0);
	sem_init(&sem_d[0], 0, 0);
	sem_init(&sem_d[1], 0, 0);
	pin_fifo_self(80);
	th = spawn_fifo(thr_h, NULL, 60);
	tm = spawn_fifo(thr_m, NULL, 40);
	tl = spawn_fifo(thr_l, NULL, 20);
	td[0] = spawn_fifo(thr_d, &sem_d[0], 10);
	td[1] = spawn_fifo(thr_d, &sem_d[1], 10);

	for (round = 0; round < o.rounds; round++) {
		uint64_t dl;

		s_lock(&S);
		h_go = d_go = d_wakeups = 0;
		s_unlock(&S);
		POLL_UNTIL(atomic_load(&m_idle), "the hog to go idle");
		atomic_store(&t_m_start, 0);
		atomic_store(&h_done, 0);
		atomic_store(&l_done, 0);
		atomic_store(&stop_m, 0);
		if (o.groups) {
			sem_post(&sem_d[0]);
			sem_post(&sem_d[1]);
			POLL_UNTIL(peek(&d_waiting) == 2, "the decoys to wait");
			if (o.first_signal) {
				/* an earlier event, consumed by one of the decoys */
				s_lock(&S);
				s_signal(&S);
				s_unlock(&S);
				POLL_UNTIL(peek(&d_wakeups) >= 1,
					   "a decoy to take the first signal");
			}
		}
		sem_post(&sem_h);
		POLL_UNTIL(peek(&h_waiting) == 1, "H to wait");
		sem_post(&sem_l);
		dl = now_ns() + (uint64_t)o.timeout_ms * 1000000ull;
		for (uint64_t hard = now_ns() + 30000000000ull;;) {
			if (atomic_load(&h_done))
				break;
			if (now_ns() >= dl && atomic_load(&t_m_start))
				break;	/* H blocked while the hog runs */
			if (now_ns() > hard)
				die("round %d: no progress in 30 s (H and the hog both idle)", round);
			sleep_us(500);
		}
		if (atomic_load(&h_done)) {
			uint64_t m0 = atomic_load(&t_m_start);

			s_lock(&S);
			lat[completed++] = t_wake - t_signal;
			if (m0 && m0 < t_wake)
				inverted++;
			s_unlock(&S);
		} else {
			starved++;
		}
		atomic_store(&stop_m, 1);	/* end the hog, then recover */
		POLL_UNTIL(atomic_load(&l_done), "L to finish");
		if (!atomic_load(&h_done)) {
			s_lock(&S);
			s_broadcast(&S);
			s_unlock(&S);
			POLL_UNTIL(atomic_load(&h_done), "H to recover after the hog stopped");
		}
		if (o.groups) {
			s_lock(&S);
			d_go = 1;
			s_broadcast(&S);
			s_unlock(&S);
			POLL_UNTIL(peek(&d_waiting) == 0, "the decoys to leave");
		}
	}
	atomic_store(&quit, 1);
	sem_post(&sem_h);
	sem_post(&sem_l);
	sem_post(&sem_m);
	sem_post(&sem_d[0]);
	sem_post(&sem_d[1]);
	pthread_join(th, NULL);
	pthread_join(tl, NULL);
	pthread_join(tm, NULL);
	pthread_join(td[0], NULL);
	pthread_join(td[1], NULL);

	const char *scen = !o.groups ? "classic" : o.first_signal ? "groups" : "decoys";

	qsort(lat, (size_t)completed, sizeof(*lat), cmp_u64);
	double med = completed ? lat[completed / 2] / 1000.0 : 0;
	double max = completed ? lat[completed - 1] / 1000.0 : 0;

	printf("scenario=%s mode=%s rounds=%d completed=%d starved=%d inverted=%d timeout_ms=%ld "
	       "wake_us_median=%.1f wake_us_max=%.1f cpu=%d\n",
	       scen, impl_names[o.impl], o.rounds, completed,
	       starved, inverted, o.timeout_ms, med, max, g_cpu);
	if (o.json) {
		cJSON *j = cJSON_CreateObject();

		cJSON_AddStringToObject(j, "scenario", scen);
		cJSON_AddStringToObject(j, "mode", impl_names[o.impl]);
		cJSON_AddNumberToObject(j, "rounds", o.rounds);
		cJSON_AddNumberToObject(j, "completed", completed);
		cJSON_AddNumberToObject(j, "starved", starved);
		cJSON_AddNumberToObject(j, "inverted", inverted);
		cJSON_AddNumberToObject(j, "timeout_ms", (double)o.timeout_ms);
		cJSON_AddNumberToObject(j, "wake_us_median", rtlab_json_round(med, 1));
		cJSON_AddNumberToObject(j, "wake_us_max", rtlab_json_round(max, 1));
		cJSON_AddNumberToObject(j, "cpu", g_cpu);
		if (rtlab_json_write(o.json, j))
			die("%s: %s", o.json, strerror(errno));
	}
	return starved || inverted ? 1 : 0;
}
