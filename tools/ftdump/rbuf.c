// SPDX-License-Identifier: GPL-2.0
/*
 * Writes records into pages laid out as the kernel's ring buffer does
 * (kernel/trace/ring_buffer.c: buffer_data_page and ring_buffer_event),
 * which is what libtracecmd's trace.dat writer takes as CPU data and what
 * libtraceevent's kbuffer reads back. One page per CPU is in memory.
 */
#include <stdlib.h>
#include <string.h>

#include "pathf.h"
#include "rbuf.h"

/* ring_buffer_event type_len values and limits (ring_buffer.c) */
#define RB_ALIGN		4
#define RB_MAX_SMALL_DATA	(28 * RB_ALIGN)
#define RB_DELTA_BITS		27
#define RB_EVENT_HDR		4
/* bits of the page's commit word (ring_buffer.c RB_MISSED_*) */
#define RB_MISSED_EVENTS	(1ULL << 31)
#define RB_MISSED_STORED	(1ULL << 30)
#define LOST_COUNT_SIZE		8

struct rb_cpu {
	struct rb_layout lay;
	FILE *f;
	unsigned char *page;
	size_t used;			/* bytes of data in the page */
	unsigned long long last_ts;
	unsigned long long lost;	/* to store in the next page */
	int open;			/* a page is being filled */
};

/* "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;" */
static int field_geom(const char *text, const char *name, size_t *off,
		      size_t *size)
{
	const char *p = strstr(text, name);
	unsigned long o, s;

	if (!p || sscanf(p + strlen(name), " offset:%lu; size:%lu;", &o, &s) != 2)
		return -1;
	*off = o;
	*size = s;
	return 0;
}

int rb_layout_read(const char *dir, struct rb_layout *lay)
{
	char path[4096], text[4096];
	size_t n, off, size, coff;
	FILE *f;

	pathf(path, sizeof(path), "%s/events/header_page", dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	if (field_geom(text, "commit;", &coff, &lay->commit_size) ||
	    field_geom(text, "data;", &off, &size))
		return -1;
	lay->data_off = off;
	lay->page_size = off + size;
	if (lay->commit_size != 4 && lay->commit_size != 8)
		return -1;
	if (lay->page_size < 256 || lay->page_size > (1 << 20))
		return -1;
	return 0;
}

struct rb_cpu *rb_cpu_open(const struct rb_layout *lay, const char *path)
{
	struct rb_cpu *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->lay = *lay;
	c->page = calloc(1, lay->page_size);
	c->f = fopen(path, "w");
	if (!c->page || !c->f) {
		if (c->f)
			fclose(c->f);
		free(c->page);
		free(c);
		return NULL;
	}
	return c;
}

static void put_le(unsigned char *p, unsigned long long v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static int flush_page(struct rb_cpu *c)
{
	unsigned long long commit = c->used;

	if (!c->open)
		return 0;
	if (c->lost) {
		/* the count sits right after the data (kbuffer reads it) */
		put_le(c->page + c->lay.data_off + c->used, c->lost,
		       LOST_COUNT_SIZE);
		commit |= RB_MISSED_EVENTS | RB_MISSED_STORED;
		c->lost = 0;
	}
	put_le(c->page + 8, commit, c->lay.commit_size);
	c->open = 0;
	if (fwrite(c->page, 1, c->lay.page_size, c->f) != c->lay.page_size)
		return -1;
	return 0;
}

static void start_page(struct rb_cpu *c, unsigned long long ts)
{
	memset(c->page, 0, c->lay.page_size);
	put_le(c->page, ts, 8);
	c->used = 0;
	c->last_ts = ts;
	c->open = 1;
}

static size_t event_size(size_t len)
{
	size_t data = (len + RB_ALIGN - 1) & ~(size_t)(RB_ALIGN - 1);

	return len > RB_MAX_SMALL_DATA ? RB_EVENT_HDR + 4 + data
				       : RB_EVENT_HDR + data;
}

int rb_cpu_add(struct rb_cpu *c, unsigned long long ts, const void *data,
	       size_t len)
{
	size_t need = event_size(len), room;
	unsigned long long delta;
	unsigned char *p;

	if (!len)
		return 0;
	room = c->lay.page_size - c->lay.data_off - LOST_COUNT_SIZE;
	if (need > room)
		return -1;
	if (ts < c->last_ts)
		ts = c->last_ts;	/* never a negative delta */
	/* a delta that does not fit 27 bits starts a page instead of a
	 * time-extend record: simpler, and rare at microsecond resolution */
	if (c->open && (c->used + need > room ||
			ts - c->last_ts >= (1ULL << RB_DELTA_BITS)))
		if (flush_page(c))
			return -1;
	if (!c->open)
		start_page(c, ts);
	delta = ts - c->last_ts;
	p = c->page + c->lay.data_off + c->used;
	if (len > RB_MAX_SMALL_DATA) {
		put_le(p, delta << 5, 4);
		put_le(p + 4, len + 4, 4);
		memcpy(p + 8, data, len);
	} else {
		put_le(p, delta << 5 | (len + RB_ALIGN - 1) / RB_ALIGN, 4);
		memcpy(p + 4, data, len);
	}
	c->used += need;
	c->last_ts = ts;
	return 0;
}

int rb_cpu_lost(struct rb_cpu *c, unsigned long long n)
{
	if (flush_page(c))
		return -1;
	c->lost += n;
	return 0;
}

int rb_cpu_close(struct rb_cpu *c)
{
	int ret = 0;

	if (!c)
		return 0;
	if (c->lost && !c->open)
		start_page(c, c->last_ts);	/* keep the count somewhere */
	if (flush_page(c))
		ret = -1;
	if (fclose(c->f))
		ret = -1;
	free(c->page);
	free(c);
	return ret;
}
