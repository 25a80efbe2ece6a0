// SPDX-License-Identifier: GPL-2.0
/*
 * Parsing of console lines that an ftrace dump (sysrq-z, ftrace_dump_on_oops)
 * leaves in a log. The kernel prints each record in the latency format
 * (kernel/trace/trace_output.c, lat_print_generic + lat_print_timestamp):
 *
 *   "%8.8s-%-7d %3d" comm, pid, cpu, then 5 flag characters,
 *   " %4lldus%c: " microseconds since the buffer reset and a delay mark,
 *   then the event's own text.
 *
 * With ftrace_dump_raw set, the dump prints the bytes of each record instead
 * (kernel/trace/trace.c, ftrace_dump_raw_record):
 *
 *   "R %d %llu %d %d %*phN" cpu, timestamp, length, offset, at most 64
 *   bytes in hex, then " comm" on the line of offset 0.
 *
 * Everything here works on (pointer, length) pairs and never reads past
 * the length: it is the fuzzed part of the tool.
 */
#include <string.h>

#include "logline.h"

/* TRACE_FLAG_* of include/linux/trace_events.h (6.12). */
enum {
	TF_IRQS_OFF = 0x01,
	TF_IRQS_NOSUPPORT = 0x02,
	TF_NEED_RESCHED = 0x04,
	TF_HARDIRQ = 0x08,
	TF_SOFTIRQ = 0x10,
	TF_PREEMPT_RESCHED = 0x20,
	TF_NMI = 0x40,
	TF_BH_OFF = 0x80,
};

/* syslog/journal lines carry the kernel text after this within the first
 * columns ("Dec  4 00:01:02 host kernel: ..."). */
#define SYSLOG_TAG "kernel: "
#define SYSLOG_SCAN 80
/* The comm is at most 8 columns, so the '-' before the pid is early. */
#define DASH_SCAN 24

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool starts(const char *s, size_t len, const char *lit)
{
	size_t n = strlen(lit);

	return len >= n && memcmp(s, lit, n) == 0;
}

/* "[  12.345678]" or a caller id "[    T1]" / "[ C0]": a bracketed token. */
static size_t bracket(const char *s, size_t len, bool *is_time)
{
	size_t i = 1;
	bool dot = false, digits = false, caller = false;

	if (!len || s[0] != '[')
		return 0;
	while (i < len && s[i] == ' ')
		i++;
	if (i < len && (s[i] == 'T' || s[i] == 'C')) {
		caller = true;
		i++;
	}
	for (; i < len && s[i] != ']'; i++) {
		if (is_digit(s[i]))
			digits = true;
		else if (s[i] == '.' && !caller && !dot)
			dot = true;
		else
			return 0;
	}
	if (i >= len || !digits)
		return 0;
	*is_time = dot;
	return i + 1;
}

const char *ftd_strip_prefix(const char *s, size_t len, size_t *out_len,
			     bool *has_ts)
{
	size_t scan = len < SYSLOG_SCAN ? len : SYSLOG_SCAN;
	size_t i, n;
	bool t;

	*has_ts = false;
	while (len && (s[len - 1] == '\r' || s[len - 1] == '\n'))
		len--;
	for (i = 0; i + strlen(SYSLOG_TAG) <= scan; i++) {
		if (memcmp(s + i, SYSLOG_TAG, strlen(SYSLOG_TAG)) == 0) {
			s += i + strlen(SYSLOG_TAG);
			len -= i + strlen(SYSLOG_TAG);
			break;
		}
	}
	/* "dmesg -r" and /dev/kmsg style "<4>" level */
	if (len >= 3 && s[0] == '<' && is_digit(s[1])) {
		for (i = 1; i < len && i < 6 && is_digit(s[i]); i++)
			;
		if (i < len && s[i] == '>') {
			s += i + 1;
			len -= i + 1;
		}
	}
	/* printk time, then the caller id; either may be missing */
	while ((n = bracket(s, len, &t)) > 0) {
		if (t)
			*has_ts = true;
		s += n;
		len -= n;
		if (len && s[0] == ' ') {
			s++;
			len--;
		}
	}
	*out_len = len;
	return s;
}

static size_t skip_spaces(const char *s, size_t len, size_t i)
{
	while (i < len && s[i] == ' ')
		i++;
	return i;
}

/* Parse decimal digits at s[*i]; false if there are none or too many. */
static bool number(const char *s, size_t len, size_t *i,
		   unsigned long long *v)
{
	size_t start = *i;

	*v = 0;
	while (*i < len && is_digit(s[*i]) && *i - start < 19)
		*v = *v * 10 + (unsigned long long)(s[(*i)++] - '0');
	return *i > start && !(*i < len && is_digit(s[*i]));
}

/*
 * A timestamp: every digit of it.  false without a digit; *bad when it
 * does not fit max (a console that garbled it, or a log edited by hand).
 */
static bool ts_number(const char *s, size_t len, size_t *i,
		      unsigned long long max, unsigned long long *v, bool *bad)
{
	size_t start = *i;

	*v = 0;
	*bad = false;
	for (; *i < len && is_digit(s[*i]); (*i)++) {
		unsigned int d = (unsigned int)(s[*i] - '0');

		if (*v > (max - d) / 10)
			*bad = true;
		else if (!*bad)
			*v = *v * 10 + d;
	}
	if (*bad)
		*v = 0;
	return *i > start;
}

static int hexdigit(char c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* The five flag columns of trace_print_lat_fmt(). */
static bool lat_flags(const char *f, uint8_t *flags, uint8_t *preempt)
{
	int pc, mig;

	switch (f[0]) {
	case 'D': *flags = TF_IRQS_OFF | TF_BH_OFF; break;
	case 'd': *flags = TF_IRQS_OFF; break;
	case 'b': *flags = TF_BH_OFF; break;
	case 'X': *flags = TF_IRQS_NOSUPPORT; break;
	case '.': *flags = 0; break;
	default: return false;
	}
	switch (f[1]) {
	case 'N': *flags |= TF_NEED_RESCHED | TF_PREEMPT_RESCHED; break;
	case 'n': *flags |= TF_NEED_RESCHED; break;
	case 'p': *flags |= TF_PREEMPT_RESCHED; break;
	case '.': break;
	default: return false;
	}
	switch (f[2]) {
	case 'Z': *flags |= TF_NMI | TF_HARDIRQ; break;
	case 'z': *flags |= TF_NMI; break;
	case 'H': *flags |= TF_HARDIRQ | TF_SOFTIRQ; break;
	case 'h': *flags |= TF_HARDIRQ; break;
	case 's': *flags |= TF_SOFTIRQ; break;
	case '.': break;
	default: return false;
	}
	pc = f[3] == '.' ? 0 : hexdigit(f[3]);
	mig = f[4] == '.' ? 0 : hexdigit(f[4]);
	if (pc < 0 || mig < 0 || (f[3] != '.' && pc == 0) ||
	    (f[4] != '.' && mig == 0))
		return false;
	*preempt = (uint8_t)(pc | mig << 4);
	return true;
}

/* Try the record layout with the pid's '-' at s[dash]. */
static bool event_at(const char *s, size_t len, size_t dash,
		     struct ftd_line *out)
{
	static const char marks[] = " +!#*@$";
	unsigned long long v;
	size_t i = dash + 1, c0, clen;

	if (!number(s, len, &i, &v) || v > 0x7fffffff)
		return false;
	out->pid = (int)v;
	if (i >= len || s[i] != ' ')
		return false;
	i = skip_spaces(s, len, i);
	if (!number(s, len, &i, &v) || v > 0xffff)
		return false;
	out->cpu = (int)v;
	if (len - i < 5 || !lat_flags(s + i, &out->flags, &out->preempt))
		return false;
	i += 5;
	if (i >= len || s[i] != ' ')
		return false;
	i = skip_spaces(s, len, i);
	if (!ts_number(s, len, &i, UINT64_MAX / 1000, &out->ts_us,
		       &out->ts_bad))
		return false;
	if (len - i < 5 || s[i] != 'u' || s[i + 1] != 's' ||
	    !memchr(marks, s[i + 2], sizeof(marks) - 1) || s[i + 3] != ':' ||
	    s[i + 4] != ' ')
		return false;
	out->body = s + i + 5;
	out->body_len = len - i - 5;
	for (c0 = 0; c0 < dash && s[c0] == ' '; c0++)
		;
	clen = dash - c0;
	if (clen >= FTD_COMM_LEN)
		return false;
	memcpy(out->comm, s + c0, clen);
	out->comm[clen] = '\0';
	return true;
}

static bool parse_event(const char *s, size_t len, struct ftd_line *out)
{
	size_t d, scan = len < DASH_SCAN ? len : DASH_SCAN;

	for (d = 0; d < scan; d++)
		if (s[d] == '-' && event_at(s, len, d, out))
			return true;
	return false;
}

/* "CPU:%d [LOST %lu EVENTS]" */
static bool parse_lost(const char *s, size_t len, struct ftd_line *out)
{
	unsigned long long v;
	size_t i = 4;

	if (!starts(s, len, "CPU:") || !number(s, len, &i, &v) || v > 0xffff)
		return false;
	out->cpu = (int)v;
	if (!starts(s + i, len - i, " [LOST "))
		return false;
	i += 7;
	if (!number(s, len, &i, &out->lost))
		return false;
	return starts(s + i, len - i, " EVENTS]");
}

/* "##### CPU %u buffer started ####" */
static bool parse_bufstart(const char *s, size_t len, struct ftd_line *out)
{
	unsigned long long v;
	size_t i = 10;

	if (!starts(s, len, "##### CPU ") || !number(s, len, &i, &v) ||
	    v > 0xffff)
		return false;
	out->cpu = (int)v;
	return starts(s + i, len - i, " buffer started ####");
}

/* "R <cpu> <ts> <len> <offset> <hex>[ <comm>]" */
static bool parse_raw(const char *s, size_t len, struct ftd_line *out)
{
	unsigned long long cpu, rlen, off;
	size_t i = 2, h, clen;

	if (!starts(s, len, "R ") || !number(s, len, &i, &cpu) ||
	    cpu > 0xffff || !starts(s + i, len - i, " "))
		return false;
	i++;
	if (!ts_number(s, len, &i, UINT64_MAX, &out->ts_ns, &out->ts_bad) ||
	    !starts(s + i, len - i, " "))
		return false;
	i++;
	if (!number(s, len, &i, &rlen) || !rlen || rlen >= FTD_RAW_MAX ||
	    !starts(s + i, len - i, " "))
		return false;
	i++;
	if (!number(s, len, &i, &off) || off >= rlen ||
	    !starts(s + i, len - i, " "))
		return false;
	for (h = ++i; i < len && hexdigit(s[i]) >= 0; i++)
		;
	/* an odd count is a line the console cut or wrapped: the caller
	 * joins or rejects it */
	if (i == h || (i < len && s[i] != ' '))
		return false;
	out->cpu = (int)cpu;
	out->raw_len = (unsigned int)rlen;
	out->raw_off = (unsigned int)off;
	out->body = s + h;
	out->body_len = i - h;
	out->comm[0] = '\0';
	if (i < len) {
		clen = len - i - 1;
		if (clen >= FTD_COMM_LEN)
			clen = FTD_COMM_LEN - 1;
		memcpy(out->comm, s + i + 1, clen);
		out->comm[clen] = '\0';
	}
	return true;
}

static bool is_start(const char *s, size_t len)
{
	static const char tail[] = " buffer:";
	size_t n = sizeof(tail) - 1;

	if (starts(s, len, "Dumping ftrace buffer:"))
		return true;
	return starts(s, len, "Dumping ftrace instance ") && len >= n &&
	       memcmp(s + len - n, tail, n) == 0;
}

static bool is_sep(const char *s, size_t len)
{
	size_t i;

	/* 33 dashes in 6.12; accept any long run of them */
	if (len < 20)
		return false;
	for (i = 0; i < len; i++)
		if (s[i] != '-')
			return false;
	return true;
}

void ftd_parse_line(const char *raw, size_t rlen, struct ftd_line *out)
{
	size_t len, lead;
	const char *s = ftd_strip_prefix(raw, rlen, &len, &out->has_ts);

	out->kind = FTD_OTHER;
	out->ts_bad = false;
	out->body = NULL;
	out->body_len = 0;
	/* trailing blanks are not part of any marker */
	while (len && s[len - 1] == ' ')
		len--;
	lead = skip_spaces(s, len, 0);
	if (is_start(s + lead, len - lead))
		out->kind = FTD_START;
	else if (is_sep(s + lead, len - lead))
		out->kind = FTD_SEP;
	else if (parse_lost(s + lead, len - lead, out))
		out->kind = FTD_LOST;
	else if (parse_bufstart(s + lead, len - lead, out))
		out->kind = FTD_BUFSTART;
	else if (starts(s + lead, len - lead, "(ftrace buffer empty)"))
		out->kind = FTD_EMPTY;
	else if (starts(s + lead, len - lead, "# raw records: "))
		out->kind = FTD_RAWHDR;
	else if (parse_raw(s + lead, len - lead, out))
		out->kind = FTD_RAW;
	else if (parse_event(s, len, out))
		out->kind = FTD_EVENT;
}
