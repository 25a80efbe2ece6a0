// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the console-line parser (TAP-free: exit 1 on a failure,
 * naming it; tests/check.sh reports it as one test point). */
#include <stdio.h>
#include <string.h>

#include "logline.h"

static int failed;

static void expect(int cond, const char *what)
{
	if (!cond) {
		printf("FAIL: %s\n", what);
		failed = 1;
	}
}

static void parse(const char *s, struct ftd_line *l)
{
	ftd_parse_line(s, strlen(s), l);
}

/* Lines that are none of the dump's kinds, and why. */
static const struct {
	const char *line, *why;
} others[] = {
	{ "  <idle>-0         0q..2.    100us : z",
	  "bad flag character" },
	{ "  <idle>-0         0d..2.    100 : z",
	  "no 'us'" },
	{ "",
	  "empty line" },
	{ "x-99999999999999999999 0..... 1us : a",
	  "pid overflow" },
	{ "[ 1.0] R 1 52714088830 92 0 0b00aBff kworker/1:1 x",
	  "raw: upper-case hex" },
	{ "R 0 7 92 92 00ff",
	  "raw: offset past the length" },
	{ "R 0 7 0 0 00ff",
	  "raw: length 0" },
	{ "R 0 7 65536 0 00ff",
	  "raw: length too large" },
	{ "R 0 7 4 0 ",
	  "raw: no bytes" },
	{ "R 0 7 4 0 00ffzz",
	  "raw: not hex" },
	{ "R 70000 7 4 0 00ff",
	  "raw: CPU overflow" },
};

int main(void)
{
	struct ftd_line l;
	size_t i;

	parse("[  1.000000] kworker/-12        1dNh1.    110us : x: y", &l);
	expect(l.kind == FTD_EVENT, "event line");
	expect(!strcmp(l.comm, "kworker/") && l.pid == 12 && l.cpu == 1,
	       "comm, pid, cpu");
	/* d = IRQS_OFF, N = NEED_RESCHED|PREEMPT_RESCHED, h = HARDIRQ */
	expect(l.flags == (0x01 | 0x04 | 0x20 | 0x08), "flags dNh");
	expect(l.preempt == 1 && l.ts_us == 110, "preempt count, time");
	expect(l.has_ts && l.body_len == 4 && !memcmp(l.body, "x: y", 4),
	       "body");
	parse("  <idle>-0         3D.Z2f 123456789us!: a", &l);
	expect(l.kind == FTD_EVENT && l.cpu == 3 && l.preempt == 0xf2 &&
	       l.flags == (0x01 | 0x80 | 0x40 | 0x08), "D, Z, migrate count");
	parse("a-b-c-77      0.....   5us : z", &l);
	expect(l.kind == FTD_EVENT && !strcmp(l.comm, "a-b-c") && l.pid == 77,
	       "comm with dashes");
	parse("<6>[ 5.5] [  C1] CPU:3 [LOST 17 EVENTS]", &l);
	expect(l.kind == FTD_LOST && l.cpu == 3 && l.lost == 17, "lost line");
	parse("[ 5.5] ##### CPU 2 buffer started ####", &l);
	expect(l.kind == FTD_BUFSTART && l.cpu == 2, "buffer started");
	parse("Dumping ftrace instance foo buffer:", &l);
	expect(l.kind == FTD_START, "instance dump start");
	parse("[ 1.0] ---------------------------------\r\n", &l);
	expect(l.kind == FTD_SEP, "separator with CR LF");
	parse("[ 1.0]    (ftrace buffer empty)", &l);
	expect(l.kind == FTD_EMPTY, "empty buffer");
	/* ftrace_dump_raw lines */
	parse("[ 1.0] # raw records: R <cpu> <ts> <len> <offset> <hex> [<comm>]", &l);
	expect(l.kind == FTD_RAWHDR, "raw header");
	parse("[ 1.0] R 1 52714088830 92 0 0b00abff kworker/1:1 x", &l);
	expect(l.kind == FTD_RAW && l.cpu == 1 && l.ts_ns == 52714088830ULL &&
	       l.raw_len == 92 && l.raw_off == 0 && l.body_len == 8 &&
	       !memcmp(l.body, "0b00abff", 8) && !strcmp(l.comm, "kworker/1:1 x"),
	       "raw first line, comm with a space");
	parse("R 0 7 92 64 00ff", &l);
	expect(l.kind == FTD_RAW && l.raw_off == 64 && !l.comm[0] &&
	       l.body_len == 4, "raw next line, no comm");
	parse("R 0 7 4 0 00f", &l);
	expect(l.kind == FTD_RAW && l.body_len == 3,
	       "raw: an odd number of hex digits (a wrapped line) is kept");
	parse("R 0 7 4 0 00ff 0123456789abcdefXYZ", &l);
	expect(l.kind == FTD_RAW && strlen(l.comm) == FTD_COMM_LEN - 1,
	       "raw: a long comm is cut to 15");
	/* a timestamp out of range: still the record's line, flagged, so
	 * that the conversion names it (it once went to "not understood") */
	parse("R 0 99999999999999999999 4 0 00ff", &l);
	expect(l.kind == FTD_RAW && l.ts_bad && l.ts_ns == 0,
	       "raw: timestamp overflow flagged");
	parse("R 0 18446744073709551615 4 0 00ff", &l);
	expect(l.kind == FTD_RAW && !l.ts_bad &&
	       l.ts_ns == 18446744073709551615ULL, "raw: 2^64 - 1 ns fits");
	parse("  <idle>-0         3d..2. 123456789012345678901us : a", &l);
	expect(l.kind == FTD_EVENT && l.ts_bad, "event: 21-digit time flagged");
	parse("  <idle>-0         3d..2. 18446744073709552us : a", &l);
	expect(l.kind == FTD_EVENT && l.ts_bad, "event: 2^64 ns or more flagged");
	parse("  <idle>-0         3d..2. 18446744073709551us : a", &l);
	expect(l.kind == FTD_EVENT && !l.ts_bad && l.ts_us == 18446744073709551ULL,
	       "event: the largest time in us that fits");
	for (i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		parse(others[i].line, &l);
		expect(l.kind == FTD_OTHER, others[i].why);
	}
	if (!failed)
		printf("all parser checks passed\n");
	return failed;
}
