// SPDX-License-Identifier: GPL-2.0
/*
 * tpm_qtrace - host-side view for tpm_tis_test: the QEMU trace of the
 * tpm-tis device says whether every MMIO write was flushed.
 *
 *   tpm_qtrace [-e COUNTS] QEMU_TRACE
 *	Reads QEMU's log of the tpm-tis device (trace events tpm_tis_mmio_read
 *	and tpm_tis_mmio_write): the host-side view of every register access.
 *	It rebuilds the commands from the bytes written to the data FIFO,
 *	finds the window between the two markers and asserts that in it every
 *	write to the TPM is followed, as the very next access, by a 1-byte
 *	read of offset 0x000 (TPM_ACCESS(0)), and that the commands in it are
 *	exactly those that COUNTS (tpm_tis_test -c) lists.  Before and after the window
 *	(firmware, the kernel's probe) it only reports, per command, whether
 *	its writes were flushed.
 *
 *
 * Prints "# " diagnostics and "key=value" summary lines; exits 0 when what
 * it checks holds, 1 when it does not, 2 on bad usage or bad input.
 */

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtlab/die.h"
#include "rtlab/opt.h"
#include "rtlab/tap.h"
#include "tpm_tis.h"

/* ---- the trace checkers ------------------------------------------------- */

struct ev {
	char kind;		/* 'R' or 'W' */
	uint8_t width;
	uint32_t off;		/* offset in the TPM's MMIO window */
	uint32_t val;
	unsigned long line;
};

struct evs {
	struct ev *v;
	size_t len, cap;
};

static void ev_push(struct evs *e, struct ev x)
{
	if (e->len == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 65536;
		e->v = realloc(e->v, e->cap * sizeof(*e->v));
		if (!e->v)
			die("out of memory for %zu events", e->cap);
	}
	e->v[e->len++] = x;
}

/* the flush: a 1-byte read of TPM_ACCESS(0) */
static bool is_flush(const struct ev *x)
{
	return x->kind == 'R' && x->width == 1 && x->off == REG_ACCESS;
}

struct cmd {
	size_t first, go;	/* event indices: first FIFO byte, the GO write */
	uint32_t cc, size, nbytes;
	uint32_t prop;		/* GetCapability's property (markers) */
	bool getcap_props;
	unsigned long writes, flushed;
};

struct stats {
	unsigned long writes, flushed, unflushed, reads, access_reads, maxrun;
	unsigned long first_unflushed_line, last_unflushed_line, first_flushed_line;
	unsigned long cmds, cmds_flushed, cmds_unflushed;
	unsigned long first_flushed_cmd, last_unflushed_cmd;	/* ordinals in the trace, from 1 */
};

static void stats_range(const struct evs *e, size_t a, size_t b, struct stats *s)
{
	unsigned long run = 0;

	memset(s, 0, sizeof(*s));
	for (size_t i = a; i < b; i++) {
		const struct ev *x = &e->v[i];

		if (x->kind == 'R') {
			s->reads++;
			if (x->off == REG_ACCESS)
				s->access_reads++;
			run = 0;
			continue;
		}
		s->writes++;
		if (++run > s->maxrun)
			s->maxrun = run;
		if (i + 1 < e->len && is_flush(&e->v[i + 1])) {
			s->flushed++;
			if (!s->first_flushed_line)
				s->first_flushed_line = x->line;
		} else {
			s->unflushed++;
			if (!s->first_unflushed_line)
				s->first_unflushed_line = x->line;
			s->last_unflushed_line = x->line;
		}
	}
}

static void stats_print(const char *what, const struct stats *s)
{
	printf("%s writes=%lu flush_reads=%lu unflushed=%lu reads=%lu access_reads=%lu "
	       "max_writes_in_a_row=%lu commands=%lu commands_all_flushed=%lu commands_unflushed=%lu\n",
	       what, s->writes, s->flushed, s->unflushed, s->reads, s->access_reads, s->maxrun,
	       s->cmds, s->cmds_flushed, s->cmds_unflushed);
	if (s->unflushed)
		printf("%s first_unflushed_line=%lu last_unflushed_line=%lu first_flushed_line=%lu "
		       "last_unflushed_command=%lu first_flushed_command=%lu\n",
		       what, s->first_unflushed_line, s->last_unflushed_line, s->first_flushed_line,
		       s->last_unflushed_cmd, s->first_flushed_cmd);
}

/* Rebuild the commands from the FIFO bytes (locality 0 only). */
static size_t decode_cmds(const struct evs *e, struct cmd **out)
{
	size_t n = 0, cap = 0, first = 0;
	uint8_t *bytes = malloc(BUFSZ);
	uint32_t nb = 0;
	bool overflow = false;
	struct cmd *v = NULL;

	if (!bytes)
		die("out of memory");
	for (size_t i = 0; i < e->len; i++) {
		const struct ev *x = &e->v[i];

		if (x->kind != 'W')
			continue;
		if (x->off == REG_FIFO) {
			if (nb == 0)
				first = i;
			for (unsigned int k = 0; k < x->width; k++) {
				if (nb < BUFSZ)
					bytes[nb] = (x->val >> (8 * k)) & 0xff;
				else
					overflow = true;
				nb++;
			}
		} else if (x->off == REG_STS && (x->val & STS_READY)) {
			nb = 0;
			overflow = false;
		} else if (x->off == REG_STS && (x->val & STS_GO) && nb >= HDR && !overflow) {
			struct cmd c = { .first = first, .go = i, .nbytes = nb,
					 .size = get32(bytes + 2), .cc = get32(bytes + 6) };

			if (c.cc == TPM_CC_GETCAPABILITY && nb == 22 &&
			    get32(bytes + 10) == TPM_CAP_TPM_PROPERTIES) {
				c.getcap_props = true;
				c.prop = get32(bytes + 14);
			}
			for (size_t k = c.first; k <= c.go; k++) {
				if (e->v[k].kind != 'W')
					continue;
				c.writes++;
				if (k + 1 < e->len && is_flush(&e->v[k + 1]))
					c.flushed++;
			}
			if (n == cap) {
				cap = cap ? 2 * cap : 1024;
				v = realloc(v, cap * sizeof(*v));
				if (!v)
					die("out of memory for %zu commands", cap);
			}
			v[n++] = c;
			nb = 0;
		}
	}
	free(bytes);
	*out = v;
	return n;
}

static int analyse(const struct evs *e, const char *expect_path)
{
	struct cmd *c;
	size_t nc = decode_cmds(e, &c);
	long start = -1, end = -1;
	int bad = 0;

	printf("events=%zu commands_decoded=%zu\n", e->len, nc);
	for (size_t i = 0; i < nc; i++) {
		if (c[i].getcap_props && c[i].prop == MARK_START) {
			if (start >= 0) {
				diag("FAIL: two start markers in the trace");
				bad = 1;
			}
			start = (long)i;
		}
		if (c[i].getcap_props && c[i].prop == MARK_END) {
			if (end >= 0) {
				diag("FAIL: two end markers in the trace");
				bad = 1;
			}
			end = (long)i;
		}
	}
	if (start < 0 || end < 0 || end < start) {
		diag("FAIL: start marker %s, end marker %s: no window to check",
		     start < 0 ? "missing" : "found", end < 0 ? "missing" : "found");
		free(c);
		return 1;
	}

	/* the window: the start marker's first FIFO byte to the access after
	 * the end marker's GO write (its flush, if any) */
	size_t wa = c[start].first, wb = c[end].go + 1;
	struct stats in, before, after;
	struct cc_table seen = { .len = 0 };

	stats_range(e, wa, wb, &in);
	stats_range(e, 0, wa, &before);
	stats_range(e, wb < e->len ? wb : e->len, e->len, &after);
	for (size_t i = 0; i < nc; i++) {
		struct stats *s = i < (size_t)start ? &before : i <= (size_t)end ? &in : &after;
		bool all = c[i].flushed == c[i].writes;

		s->cmds++;
		if (all) {
			s->cmds_flushed++;
			if (!s->first_flushed_cmd)
				s->first_flushed_cmd = i + 1;
		} else {
			s->cmds_unflushed++;
			s->last_unflushed_cmd = i + 1;
		}
		if (s == &in) {
			cc_add(&seen, c[i].cc);
			if (c[i].size != c[i].nbytes) {
				diag("FAIL: command at trace line %lu: header size %u, %u bytes written",
				     e->v[c[i].first].line, c[i].size, c[i].nbytes);
				bad = 1;
			}
		}
	}
	stats_print("window", &in);
	stats_print("before", &before);
	stats_print("after", &after);
	cc_print("window", &seen);

	if (in.writes == 0) {
		diag("FAIL: no writes in the window");
		bad = 1;
	}
	if (in.unflushed) {
		diag("FAIL: %lu of %lu writes in the window not followed by a read of TPM_ACCESS(0) "
		     "(first at trace line %lu)", in.unflushed, in.writes, in.first_unflushed_line);
		bad = 1;
	}
	if (in.maxrun != 1 && in.writes) {
		diag("FAIL: %lu writes in a row without a read in the window", in.maxrun);
		bad = 1;
	}
	if (expect_path) {
		struct cc_table want;

		cc_load(expect_path, &want);
		for (int i = 0; i < want.len; i++) {
			unsigned long got = cc_get(&seen, want.e[i].cc);

			if (got != want.e[i].n) {
				diag("FAIL: %s (0x%08x): %lu in the window, %lu sent",
				     cc_name(want.e[i].cc), want.e[i].cc, got, want.e[i].n);
				bad = 1;
			}
		}
		for (int i = 0; i < seen.len; i++) {
			if (!cc_get(&want, seen.e[i].cc)) {
				diag("FAIL: %lu commands 0x%08x in the window that were not sent",
				     seen.e[i].n, seen.e[i].cc);
				bad = 1;
			}
		}
		if (!bad)
			diag("the window holds exactly the %lu commands sent", cc_total(&want));
	}
	free(c);
	return bad;
}

static FILE *open_trace(const char *path)
{
	FILE *f = fopen(path, "r");

	if (!f)
		die("%s: %s", path, strerror(errno));
	/* the trace comes over 9p: big reads, not one round trip per 4 KiB */
	if (setvbuf(f, NULL, _IOFBF, 1 << 20))
		die("%s: setvbuf failed", path);
	return f;
}

/*
 * QEMU's log backend: "tpm_tis_mmio_read  read.4(0x00000000) = 0x00000081"
 * and "tpm_tis_mmio_write write.1(0x00000024) = 0x00000080" (a
 * "pid@sec.usec:" prefix with -msg timestamp=on).  Only the two events
 * count; QEMU's other tpm_tis_* events are skipped.
 */
static int cmd_qtrace(int argc, char **argv)
{
	const char *expect_path = NULL;
	struct evs e = { 0 };
	char line[512];
	unsigned long lineno = 0, other = 0;
	int opt;

	while ((opt = getopt(argc, argv, "e:")) != -1) {
		switch (opt) {
		case 'e': expect_path = optarg; break;
		default: return 2;
		}
	}
	if (optind != argc - 1)
		die_usage("one QEMU trace file expected");
	FILE *f = open_trace(argv[optind]);

	while (fgets(line, sizeof(line), f)) {
		const char *p;
		char kind;
		unsigned int width, addr, val;
		struct ev x;

		lineno++;
		if ((p = strstr(line, "tpm_tis_mmio_read ")))
			kind = 'R';
		else if ((p = strstr(line, "tpm_tis_mmio_write ")))
			kind = 'W';
		else {
			other++;
			continue;
		}
		p = strchr(p, ' ');
		if (sscanf(p, kind == 'R' ? " read.%u(0x%x) = 0x%x" : " write.%u(0x%x) = 0x%x",
			   &width, &addr, &val) != 3 || width > 4 || (width == 0 && kind == 'W'))
			die("%s:%lu: cannot parse the access", argv[optind], lineno);
		/* QEMU 7.2 traces FIFO reads after counting their size down: "read.0" */
		if (addr >= 0x5000)
			die("%s:%lu: offset 0x%x outside the TPM's 5 localities",
			    argv[optind], lineno, addr);
		x = (struct ev){ .kind = kind, .width = (uint8_t)width,
				 .off = addr, .val = val, .line = lineno };
		ev_push(&e, x);
	}
	fclose(f);
	printf("trace_lines=%lu other_lines=%lu\n", lineno, other);
	int rc = analyse(&e, expect_path);

	free(e.v);
	return rc;
}

static void usage(FILE *f)
{
	fputs("usage: tpm_qtrace [-e COUNTS] QEMU_TRACE\n"
	      "See the comment at the top of tests/progs/tpm_qtrace.c.\n", f);
}

int main(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
		opt_usage_exit(usage, 0);
	return cmd_qtrace(argc, argv);
}
