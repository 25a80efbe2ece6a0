// SPDX-License-Identifier: GPL-2.0
/*
 * gen-log N [CPUS]: a console log with one ftrace dump of N records, for
 * the benchmark. Records are printed as the kernel prints them (the
 * latency-format header of lat_print_generic and the print fmts of the
 * events in tests/formats), round-robin over the CPUs with rising
 * timestamps, task names and pids from a small set, a printk time prefix
 * on every line, and a "[LOST]" line now and then.
 */
#include <stdio.h>
#include <stdlib.h>

#define LOST_EVERY 100000

static const char *const comms[] = { "hackbench", "cyclictest",
				     "kworker/0:1", "wakestorm", "rcu_preempt" };
#define NCOMMS (sizeof(comms) / sizeof(comms[0]))

static void header(unsigned long i, int cpu, const char *comm, int pid,
		   unsigned long long us)
{
	printf("[%5lu.%06lu] %8.8s-%-7d %3d%s %4lluus : ", 100 + i / 1000000,
	       i % 1000000, comm, pid, cpu, i % 3 ? "d..2." : "dNh1.", us);
}

static void record(unsigned long i, int cpu, unsigned long long us)
{
	int a = (int)(i % NCOMMS), b = (int)((i / 7) % NCOMMS);
	int pa = 200 + a, pb = 200 + b;

	header(i, cpu, comms[a], pa, us);
	switch (i % 7) {
	case 0:
	case 1:
		printf("sched_switch: prev_comm=%s prev_pid=%d prev_prio=120 "
		       "prev_state=%s ==> next_comm=%s next_pid=%d "
		       "next_prio=%d\n", comms[a], pa, i % 2 ? "S" : "R+",
		       comms[b], pb, 120 - b);
		break;
	case 2:
		printf("sched_wakeup: comm=%s pid=%d prio=%d target_cpu=%03d\n",
		       comms[b], pb, 120 - b, cpu);
		break;
	case 3:
		printf("irq_handler_entry: irq=%lu name=virtio%lu\n", i % 40,
		       i % 4);
		break;
	case 4:
		printf("softirq_entry: vec=7 [action=SCHED]\n");
		break;
	case 5:
		printf("hrtimer_start: hrtimer=%016lx function=hrtimer_wakeup "
		       "expires=%llu softexpires=%llu mode=ABS\n",
		       0xa1b2c3d4UL + i % 64, us * 1000 + 50000,
		       us * 1000 + 50000);
		break;
	default:
		printf("do_idle <-cpuidle_enter\n");
		break;
	}
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
	int cpus = argc > 2 ? atoi(argv[2]) : 4, cpu;
	unsigned long i;

	if (cpus < 1 || cpus > 64)
		return 2;
	printf("[   99.000000] sysrq: Dump ftrace buffer\n");
	printf("[   99.000001] Dumping ftrace buffer:\n");
	printf("[   99.000001] ---------------------------------\n");
	for (i = 0; i < n; i++) {
		cpu = (int)(i % (unsigned long)cpus);
		if (i && i % LOST_EVERY == 0)
			printf("[%5lu.%06lu] CPU:%d [LOST 7 EVENTS]\n",
			       100 + i / 1000000, i % 1000000, cpu);
		record(i, cpu, 1000 + i * 3);
	}
	printf("[  199.000000] ---------------------------------\n");
	return 0;
}
