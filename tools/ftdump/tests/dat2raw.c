// SPDX-License-Identifier: GPL-2.0
/*
 * dat2raw [--records] FILE.dat: the host tests' stand-in for a kernel with
 * ftrace_dump_raw. It prints the records of a trace.dat, CPUs merged in
 * time order, the way ftrace_dump_raw_record() (patch 0014) prints a ring
 * buffer on the console: "R <cpu> <ts> <len> <offset> <hex>" lines of at
 * most 64 bytes, the first one followed by the pid's comm, a "CPU:N [LOST
 * M EVENTS]" line before a record that follows a loss, between the dump's
 * start marker and its dashed lines, with a printk time prefix.
 *
 * --records prints one line per record instead, "cpu n ts len hex", n
 * counting the CPU's records in file order: two files whose --records
 * outputs, sorted on (cpu, n), are equal hold the same records byte for
 * byte, with the same timestamps.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <trace-cmd/trace-cmd.h>
#include <traceevent/event-parse.h>

#define CHUNK 64

#define MAX_CPUS 1024

static bool records_only;
static unsigned long nline, nrec[MAX_CPUS];

static void hex(const unsigned char *p, int n)
{
	int i;

	for (i = 0; i < n; i++)
		printf("%02x", p[i]);
}

static int one(struct tracecmd_input *h, struct tep_record *rec, int cpu,
	       void *data)
{
	struct tep_handle *tep = tracecmd_get_tep(h);
	const unsigned char *p = rec->data;
	const char *comm;
	int off, n;

	(void)data;
	if (records_only) {
		printf("%d %lu %llu %d ", cpu,
		       cpu >= 0 && cpu < MAX_CPUS ? nrec[cpu]++ : 0UL, rec->ts,
		       rec->size);
		hex(p, rec->size);
		putchar('\n');
		return 0;
	}
	if (rec->missed_events > 0)
		printf("[%5lu.%06lu] CPU:%d [LOST %lld EVENTS]\n", 100 + nline / 1000000,
		       nline % 1000000, cpu, rec->missed_events);
	comm = tep_data_comm_from_pid(tep, tep_data_pid(tep, rec));
	for (off = 0; off < rec->size; off += n) {
		n = rec->size - off < CHUNK ? rec->size - off : CHUNK;
		nline++;
		printf("[%5lu.%06lu] R %d %llu %d %d ", 100 + nline / 1000000,
		       nline % 1000000, cpu, rec->ts, rec->size, off);
		hex(p + off, n);
		if (!off)
			printf(" %s", comm);
		putchar('\n');
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct tracecmd_input *h;
	int ret;

	if (argc == 3 && !strcmp(argv[1], "--records")) {
		records_only = true;
		argv++;
		argc--;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: dat2raw [--records] FILE.dat\n");
		return 2;
	}
	tracecmd_set_loglevel(TEP_LOG_NONE);
	h = tracecmd_open(argv[1], 0);
	if (!h) {
		fprintf(stderr, "%s: not a trace.dat libtracecmd reads\n", argv[1]);
		return 1;
	}
	if (!records_only)
		printf("[  100.000000] Dumping ftrace buffer:\n"
		       "[  100.000000] # raw records: R <cpu> <ts> <len> <offset> <hex> [<comm>]\n"
		       "[  100.000000] ---------------------------------\n");
	ret = tracecmd_iterate_events(h, NULL, 0, one, NULL);
	if (!records_only)
		printf("[  199.000000] ---------------------------------\n");
	tracecmd_close(h);
	return ret < 0 ? 1 : 0;
}
