// SPDX-License-Identifier: GPL-2.0
/*
 * gen-tracedat: writes a synthetic trace.dat (version 6, the layout of
 * trace-cmd.dat.v6(5)) from the ftrace format files in FORMATS_DIR and
 * pseudo-random events encoded as the kernel ring buffer pages them.
 * Used for the host fixtures while no guest recording is at hand, and for
 * the 1,000,000-event benchmark input.  Version 7 and compressed files
 * are made from these by `trace-cmd convert`.
 *
 * usage: gen-tracedat FORMATS_DIR OUT [-c CLOCK] [-n EVENTS] [-p CPUS]
 *                     [-s SEED] [-l] [-i INSTANCE] [-k KALLSYMS]
 *   -l  mark some pages as overrun (stored lost counts and one unknown)
 *   -i  add a buffer instance with its own events
 *   -k  store this kallsyms text, so code addresses have symbols
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAGE 4096
#define PAGE_HDR 16		/* u64 timestamp + u64 commit */
#define PAGE_DATA (PAGE - PAGE_HDR)
#define MAX_SMALL 112		/* type_len 1..28: length = type_len * 4 */
#define TYPE_TIME_EXTEND 30
#define TS_BITS 27
#define MISSED_EVENTS (1ULL << 31)
#define MISSED_STORED (1ULL << 30)
#define LOST_EVERY 7		/* every 7th page reports a loss under -l */
#define MAX_EV 128
#define NCOMMS 8

struct evfmt { int id; const char *name; };

/* ids as in tests/formats */
enum { F_FUNC = 1, F_PRINT = 5, F_FGENT = 11, F_FGEXIT = 10, F_SWITCH = 316,
       F_WAKEUP = 318, F_FORK = 313, F_IRQENT = 100, F_IRQEXIT = 101,
       F_SOFTIRQ = 102, F_HRSTART = 200, F_HREXP = 201, F_WQ = 300,
       F_IPI = 400, F_SYSENT = 21 };
static const int kinds[] = { F_FUNC, F_PRINT, F_FGENT, F_FGEXIT, F_SWITCH,
	F_WAKEUP, F_FORK, F_IRQENT, F_IRQEXIT, F_SOFTIRQ, F_HRSTART, F_HREXP,
	F_WQ, F_IPI, F_SYSENT };
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

static const int pids[NCOMMS] = { 0, 1, 42, 117, 1234, 4321, 31337, 999 };
static const char *const comms[NCOMMS] = { "swapper/0", "init", "kworker/0:1",
	"rcu_preempt", "cyclictest", "sh", "trace-cmd", "notincmdlines" };

static uint64_t rng = 88172645463325252ULL;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void die(const char *m)
{
	perror(m);
	exit(1);
}

static void wr(FILE *f, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, f) != n)
		die("write");
}

static void w32(FILE *f, uint32_t v) { wr(f, &v, 4); }
static void w64(FILE *f, uint64_t v) { wr(f, &v, 8); }

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		die(path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
		die(path);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void w_file64(FILE *f, const char *path)
{
	size_t n;
	char *b = slurp(path, &n);

	w64(f, n);
	wr(f, b, n);
	free(b);
}

static int sorted_dir(const char *path, char names[][64], int max)
{
	struct dirent **list;
	int n = scandir(path, &list, NULL, alphasort), k = 0;

	if (n < 0)
		die(path);
	for (int i = 0; i < n; i++) {
		if (list[i]->d_name[0] != '.' && k < max)
			snprintf(names[k++], 64, "%.63s", list[i]->d_name);
		free(list[i]);
	}
	free(list);
	return k;
}

/* ksyms: a kallsyms text file to store, or NULL for none */
static void w_headers(FILE *f, const char *dir, const char *ksyms)
{
	char path[4096], sys[32][64], ev[32][64];
	int nsys, nev;

	wr(f, "\x17\x08\x44tracing6", 11);
	wr(f, "\0\0\x08", 3);		/* "6\0", little endian, long 8 */
	w32(f, PAGE);
	wr(f, "header_page", 12);
	snprintf(path, sizeof(path), "%s/header_page", dir);
	w_file64(f, path);
	wr(f, "header_event", 13);
	snprintf(path, sizeof(path), "%s/header_event", dir);
	w_file64(f, path);
	snprintf(path, sizeof(path), "%s/events/ftrace", dir);
	nev = sorted_dir(path, ev, 32);
	w32(f, (uint32_t)nev);
	for (int i = 0; i < nev; i++) {
		snprintf(path, sizeof(path), "%s/events/ftrace/%s/format", dir,
			 ev[i]);
		w_file64(f, path);
	}
	snprintf(path, sizeof(path), "%s/events", dir);
	nsys = sorted_dir(path, sys, 32);
	w32(f, (uint32_t)(nsys - 1));
	for (int s = 0; s < nsys; s++) {
		if (!strcmp(sys[s], "ftrace"))
			continue;
		wr(f, sys[s], strlen(sys[s]) + 1);
		snprintf(path, sizeof(path), "%s/events/%s", dir, sys[s]);
		nev = sorted_dir(path, ev, 32);
		w32(f, (uint32_t)nev);
		for (int i = 0; i < nev; i++) {
			snprintf(path, sizeof(path), "%s/events/%s/%s/format",
				 dir, sys[s], ev[i]);
			w_file64(f, path);
		}
	}
	if (ksyms) {
		size_t n;
		char *b = slurp(ksyms, &n);

		w32(f, (uint32_t)n);
		wr(f, b, n);
		free(b);
	} else {
		w32(f, 0);	/* no kallsyms */
	}
	w32(f, 0);	/* printk formats */
}

static void w_cmdlines(FILE *f)
{
	char buf[512];
	size_t n = 0;

	for (int i = 1; i < NCOMMS - 1; i++)	/* last one stays unknown */
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%d %s\n",
				      pids[i], comms[i]);
	w64(f, n);
	wr(f, buf, n);
}

static void p16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void p32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void p64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static void pstr(uint8_t *p, const char *s, size_t n) { strncpy((char *)p, s, n); }

/* Encodes one event's payload; returns its length. */
static size_t payload(uint8_t *b, int kind, int cpu)
{
	int who = (int)(rnd() % NCOMMS), other = (int)(rnd() % NCOMMS);
	size_t len = 0;
	char s[64];

	memset(b, 0, 256);
	p16(b, (uint16_t)kind);
	b[2] = (uint8_t)(rnd() % 16);
	b[3] = (uint8_t)(rnd() % 4);
	p32(b + 4, (uint32_t)pids[who]);
	switch (kind) {
	case F_FUNC:
		p64(b + 8, 0xffffffff81000000ULL + rnd() % 0x100000);
		p64(b + 16, 0xffffffff81000000ULL + rnd() % 0x100000);
		return 24;
	case F_PRINT:
		p64(b + 8, 0xffffffff81200000ULL);
		len = (size_t)snprintf(s, sizeof(s), "marker %llu on cpu %d\n",
				       (unsigned long long)(rnd() % 100000), cpu);
		memcpy(b + 16, s, len + 1);
		return 16 + len + 1;
	case F_FGENT:
		p64(b + 8, 0xffffffff81300000ULL + rnd() % 4096);
		p32(b + 16, (uint32_t)(rnd() % 8));
		return 20;
	case F_FGEXIT:
		p64(b + 8, 0xffffffff81300000ULL + rnd() % 4096);
		p32(b + 16, (uint32_t)(rnd() % 8));
		p32(b + 20, 0);
		p64(b + 24, rnd() % 1000000000ULL);
		p64(b + 32, rnd() % 1000000000ULL);
		return 40;
	case F_SWITCH:
		pstr(b + 8, comms[who], 16);
		p32(b + 24, (uint32_t)pids[who]);
		p32(b + 28, (uint32_t)(rnd() % 140));
		p64(b + 32, rnd() % 3 ? rnd() % 0x100 : (uint64_t)-1LL);
		pstr(b + 40, comms[other], 16);
		p32(b + 56, (uint32_t)pids[other]);
		p32(b + 60, (uint32_t)(rnd() % 140) - 1);
		return 64;
	case F_WAKEUP:
		pstr(b + 8, comms[other], 16);
		p32(b + 24, (uint32_t)pids[other]);
		p32(b + 28, (uint32_t)(rnd() % 140));
		p32(b + 32, (uint32_t)cpu);
		return 36;
	case F_FORK:
		pstr(b + 8, comms[who], 16);
		p32(b + 24, (uint32_t)pids[who]);
		pstr(b + 28, comms[other], 16);
		p32(b + 44, (uint32_t)(40000 + rnd() % 1000));
		return 48;
	case F_IRQENT:
		len = (size_t)snprintf(s, sizeof(s), "eth%d-rx-%d", cpu,
				       (int)(rnd() % 4));
		p32(b + 8, (uint32_t)(rnd() % 64));
		p32(b + 12, (uint32_t)((len + 1) << 16 | 16));
		memcpy(b + 16, s, len + 1);
		return 16 + len + 1;
	case F_IRQEXIT:
		p32(b + 8, (uint32_t)(rnd() % 64));
		p32(b + 12, (uint32_t)(rnd() % 2));
		return 16;
	case F_SOFTIRQ:
		p32(b + 8, (uint32_t)(rnd() % 10));
		return 12;
	case F_HRSTART:
		p64(b + 8, 0xffff888000000000ULL + rnd() % 0x10000);
		p64(b + 16, 0xffffffff81400000ULL + rnd() % 0x1000);
		p64(b + 24, rnd() % 0x7fffffffffffULL);
		p64(b + 32, (uint64_t)-(int64_t)(rnd() % 1000));
		p32(b + 40, (uint32_t)(rnd() % 4));
		return 44;
	case F_HREXP:
		p64(b + 8, 0xffff888000000000ULL + rnd() % 0x10000);
		p64(b + 16, rnd() % 0x7fffffffffffULL);
		p64(b + 24, 0xffffffff81400000ULL + rnd() % 0x1000);
		return 32;
	case F_WQ:
		p64(b + 8, 0xffff888000100000ULL + rnd() % 0x10000);
		p64(b + 16, 0xffffffff81500000ULL + rnd() % 0x1000);
		return 24;
	case F_IPI:
		p32(b + 8, (uint32_t)(16u << 16 | 32));
		p64(b + 16, 0xffffffff81600000ULL + rnd() % 0x1000);
		p64(b + 24, 0xffffffff81700000ULL + rnd() % 0x1000);
		p64(b + 32, rnd());
		p64(b + 40, rnd() % 4);
		return 48;
	case F_SYSENT:
		p64(b + 8, rnd() % 450);
		for (int i = 0; i < 6; i++)
			p64(b + 16 + 8 * i, rnd());
		return 64;
	}
	return 8;
}

struct pager {
	FILE *f;
	uint8_t page[PAGE];
	size_t used;		/* bytes of data in page */
	uint64_t last_ts;
	unsigned long pages;
	int lost_mode;
};

static void flush_page(struct pager *pg)
{
	uint64_t commit = pg->used;

	if (!pg->used)
		return;
	pg->pages++;
	if (pg->lost_mode && pg->pages % LOST_EVERY == 0) {
		/* this page follows an overrun: libtracecmd reports it on
		 * the page's first record */
		commit |= MISSED_EVENTS;
		if (pg->pages % (LOST_EVERY * 3)) {
			commit |= MISSED_STORED;
			p64(pg->page + PAGE_HDR + pg->used, 1 + rnd() % 500);
		}
	}
	p64(pg->page + 8, commit);
	wr(pg->f, pg->page, PAGE);
	memset(pg->page, 0, PAGE);
	pg->used = 0;
}

static void put_event(struct pager *pg, uint64_t ts, const uint8_t *pl,
		      size_t len)
{
	size_t alen = (len + 3) & ~(size_t)3;
	size_t need = (alen <= MAX_SMALL ? 4 : 8) + alen;
	uint64_t delta;
	uint8_t *p;

	if (pg->used && ts - pg->last_ts >= (1ULL << TS_BITS))
		need += 8;	/* time extend */
	if (pg->used + need + 8 > PAGE_DATA)
		flush_page(pg);
	if (!pg->used) {
		p64(pg->page, ts);
		pg->last_ts = ts;
	}
	delta = ts - pg->last_ts;
	p = pg->page + PAGE_HDR + pg->used;
	if (delta >= (1ULL << TS_BITS)) {
		p32(p, TYPE_TIME_EXTEND | (uint32_t)(delta & ((1u << TS_BITS) - 1)) << 5);
		p32(p + 4, (uint32_t)(delta >> TS_BITS));
		p += 8;
		pg->used += 8;
		delta = 0;
	}
	if (alen <= MAX_SMALL) {
		p32(p, (uint32_t)(alen / 4) | (uint32_t)delta << 5);
		memcpy(p + 4, pl, len);
		pg->used += 4 + alen;
	} else {
		p32(p, (uint32_t)delta << 5);
		p32(p + 4, (uint32_t)alen + 4);
		memcpy(p + 8, pl, len);
		pg->used += 8 + alen;
	}
	pg->last_ts = ts;
}

/* Writes one CPU's pages; returns the number of bytes written. */
static uint64_t w_cpu(FILE *f, int cpu, long n, uint64_t ts, int lost)
{
	struct pager pg = { .f = f, .lost_mode = lost };
	uint8_t pl[256];

	for (long i = 0; i < n; i++) {
		int kind = kinds[rnd() % NKINDS];
		size_t len = payload(pl, kind, cpu);

		/* mostly µs apart, sometimes a gap that needs a time extend */
		ts += i % 1000 == 999 ? 200000000ULL : 100 + rnd() % 5000;
		put_event(&pg, ts, pl, len);
	}
	flush_page(&pg);
	return (uint64_t)pg.pages * PAGE;
}

static void pad_to_page(FILE *f)
{
	long pos = ftell(f);

	while (pos % PAGE) {
		fputc(0, f);
		pos++;
	}
}

/* "flyrecord" and the CPU table, then the pages of every CPU. */
static void w_flyrecord(FILE *f, int cpus, long n, int lost, uint64_t seed_ts)
{
	long table;

	wr(f, "flyrecord", 10);
	table = ftell(f);
	for (int c = 0; c < cpus; c++) {
		w64(f, 0);
		w64(f, 0);
	}
	for (int c = 0; c < cpus; c++) {
		uint64_t off, size;
		long end;

		pad_to_page(f);
		off = (uint64_t)ftell(f);
		size = w_cpu(f, c, n / cpus, seed_ts + (uint64_t)c * 37, lost);
		end = ftell(f);
		fseek(f, table + 16L * c, SEEK_SET);
		w64(f, off);
		w64(f, size);
		fseek(f, end, SEEK_SET);
	}
}

int main(int argc, char **argv)
{
	const char *clock = "local", *inst = NULL, *ksyms = NULL;
	long n = 400, cpus = 2;
	int lost = 0, c;
	long buf_opt = 0;
	char tc[256];
	FILE *f;

	while ((c = getopt(argc, argv, "c:n:p:s:li:k:")) != -1) {
		switch (c) {
		case 'c': clock = optarg; break;
		case 'n': n = atol(optarg); break;
		case 'p': cpus = atol(optarg); break;
		case 's': rng = strtoull(optarg, NULL, 0) | 1; break;
		case 'l': lost = 1; break;
		case 'i': inst = optarg; break;
		case 'k': ksyms = optarg; break;
		default: return 2;
		}
	}
	if (argc - optind != 2 || cpus < 1 || cpus > 64 || n < 0) {
		fprintf(stderr, "usage: gen-tracedat FORMATS_DIR OUT [-c CLOCK] [-n EVENTS] [-p CPUS] [-s SEED] [-l] [-i INSTANCE] [-k KALLSYMS]\n");
		return 2;
	}
	f = fopen(argv[optind + 1], "w+b");
	if (!f)
		die(argv[optind + 1]);
	w_headers(f, argv[optind], ksyms);
	w_cmdlines(f);
	w32(f, (uint32_t)cpus);
	wr(f, "options  ", 10);
	snprintf(tc, sizeof(tc), "%s%s%s\n", "[", clock, "] local global counter mono boot x86-tsc");
	{
		uint16_t id = 4;	/* TRACECMD_OPTION_TRACECLOCK */
		wr(f, &id, 2);
		w32(f, (uint32_t)strlen(tc) + 1);
		wr(f, tc, strlen(tc) + 1);
	}
	if (inst) {
		uint16_t id = 3;	/* TRACECMD_OPTION_BUFFER */
		wr(f, &id, 2);
		w32(f, (uint32_t)(8 + strlen(inst) + 1));
		buf_opt = ftell(f);
		w64(f, 0);
		wr(f, inst, strlen(inst) + 1);
	}
	wr(f, "\0", 2);			/* TRACECMD_OPTION_DONE */
	w_flyrecord(f, (int)cpus, n, lost, 1000000000ULL);
	if (inst) {
		long here;

		pad_to_page(f);
		here = ftell(f);
		fseek(f, buf_opt, SEEK_SET);
		w64(f, (uint64_t)here);
		fseek(f, here, SEEK_SET);
		w_flyrecord(f, (int)cpus, n / 2, 0, 1000000500ULL);
	}
	if (fclose(f))
		die("close");
	return 0;
}
