// SPDX-License-Identifier: GPL-2.0
/*
 * The message iterator of one output port (one CPU of one buffer): reads
 * that CPU's records in order with tracecmd_read_data() and turns them
 * into packet, event and discarded-events messages.
 *
 * CTF 1.8 records lost events as a per-packet counter, and sink.ctf.fs
 * accepts a discarded-events message only between packets.  So at a loss
 * the iterator closes the current packet and emits the discarded-events
 * message before the next one.  The message carries no clock snapshots:
 * filter.utils.muxer (2.0) would order one with snapshots by its end time,
 * ahead of other CPUs' earlier events; a reader of the CTF output gets the
 * time range back from the packet boundaries (previous end, next end).
 *
 * A CTF 1.8 reader gets a loss as the difference of two packets' counters,
 * so a loss before a stream's first event would have no count: the
 * iterator writes an empty packet first.  A loss of unknown size (the
 * page says "missed" without a count) is reported as its lower bound, one
 * event: CTF 1.8 has no "unknown" count.
 */
#define _GNU_SOURCE
#include "tdsrc.h"

#include <stdlib.h>
#include <trace-cmd/trace-cmd.h>

/* Events per packet: bounds what a reader must scan to seek. */
#define EVENTS_PER_PACKET 4096
/* Count given to a loss libtracecmd reports without a size. */
#define UNKNOWN_LOSS_COUNT 1

enum td_state { ST_BEGIN, ST_RUN, ST_DONE };

struct td_iter {
	struct td_port *p;
	bt_stream *stream;
	enum td_state state;
	bt_packet *pkt;		/* open packet or NULL */
	struct tep_record *rec;	/* read, not yet emitted */
	uint64_t ts;		/* its timestamp, made monotonic */
	long long lost;		/* to report before rec: >0 count, <0 unknown */
	uint64_t last_ts;	/* timestamp of the last emitted event */
	bool have_last;
	bool close_now;		/* end the packet before the next message */
	bool had_packet;	/* a packet was begun in this stream */
	uint64_t pkt_events;
};

#define ITER_ERR(it, self, ...) \
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(self, \
		__VA_ARGS__)

bt_message_iterator_class_initialize_method_status
td_iter_init(bt_self_message_iterator *self,
	     bt_self_message_iterator_configuration *config,
	     bt_self_component_port_output *port)
{
	struct td_iter *it = calloc(1, sizeof(*it));

	(void)config;
	if (!it)
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	it->p = bt_self_component_port_get_data(
		bt_self_component_port_output_as_self_component_port(port));
	it->stream = it->p->buf->streams[it->p->cpu];
	bt_self_message_iterator_set_data(self, it);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

void td_iter_finalize(bt_self_message_iterator *self)
{
	struct td_iter *it = bt_self_message_iterator_get_data(self);

	if (!it)
		return;
	if (it->rec)
		tracecmd_free_record(it->rec);
	bt_packet_put_ref(it->pkt);
	free(it);
}

/* Reads the next record of this CPU into it->rec (NULL at the end). */
static void read_next(struct td_iter *it)
{
	struct td_source *src = it->p->src;

	it->rec = tracecmd_read_data(it->p->buf->h, it->p->cpu);
	if (!it->rec)
		return;
	it->lost = it->rec->missed_events;
	it->ts = it->rec->ts;
	/* babeltrace2 requires monotonic time within a stream */
	if (it->have_last && it->ts < it->last_ts) {
		it->ts = it->last_ts;
		src->ts_fixups++;
	}
}

static bt_message *end_packet(struct td_iter *it, bt_self_message_iterator *self)
{
	/* an empty packet (before a first loss) ends where it begins */
	bt_message *m = bt_message_packet_end_create_with_default_clock_snapshot(
		self, it->pkt, it->pkt_events ? it->last_ts : it->ts);

	bt_packet_put_ref(it->pkt);
	it->pkt = NULL;
	it->close_now = false;
	return m;
}

static bt_message *begin_packet(struct td_iter *it,
				bt_self_message_iterator *self)
{
	bt_field *ctx;

	it->pkt = bt_packet_create(it->stream);
	if (!it->pkt)
		return NULL;
	ctx = bt_packet_borrow_context_field(it->pkt);
	bt_field_integer_unsigned_set_value(
		bt_field_structure_borrow_member_field_by_index(ctx, 0),
		(uint64_t)it->p->cpu);
	if (bt_field_string_set_value(
		bt_field_structure_borrow_member_field_by_index(ctx, 1),
		it->p->buf->name))
		return NULL;
	it->pkt_events = 0;
	it->had_packet = true;
	return bt_message_packet_beginning_create_with_default_clock_snapshot(
		self, it->pkt, it->ts);
}

static bt_message *discarded(struct td_iter *it, bt_self_message_iterator *self)
{
	bt_message *m = bt_message_discarded_events_create(self, it->stream);

	/* libtracecmd gives -1 when the page says "missed" without a count */
	if (m)
		bt_message_discarded_events_set_count(m, it->lost > 0 ?
			(uint64_t)it->lost : UNKNOWN_LOSS_COUNT);
	it->lost = 0;
	return m;
}

/* Turns it->rec into an event message; NULL on a corrupt record. */
static bt_message *event(struct td_iter *it, bt_self_message_iterator *self)
{
	struct td_source *src = it->p->src;
	int id = td_record_type(src, it->rec);
	const struct td_evclass *evc;
	bt_message *m;
	bt_event *ev;

	if (id < 0 || id >= src->nev || !src->ev[id].ec) {
		ITER_ERR(it, self, "%s: cpu %d, offset %llu: record of unknown event type %d (corrupt page?)",
			 src->path, it->p->cpu, it->rec->offset, id);
		return NULL;
	}
	evc = &src->ev[id];
	m = bt_message_event_create_with_packet_and_default_clock_snapshot(
		self, evc->ec, it->pkt, it->ts);
	if (!m)
		return NULL;
	ev = bt_message_event_borrow_event(m);
	if (td_fill_common(src, it->rec, bt_event_borrow_common_context_field(ev)) ||
	    td_fill_fields(src, &evc->fs, it->rec,
			   bt_event_borrow_payload_field(ev))) {
		ITER_ERR(it, self, "%s: cpu %d, offset %llu: %s record shorter than its format (corrupt page?)",
			 src->path, it->p->cpu, it->rec->offset,
			 bt_event_class_get_name(evc->ec));
		bt_message_put_ref(m);
		return NULL;
	}
	tracecmd_free_record(it->rec);
	it->rec = NULL;
	it->last_ts = it->ts;
	it->have_last = true;
	if (++it->pkt_events >= EVENTS_PER_PACKET)
		it->close_now = true;
	return m;
}

/* Produces the next message of the stream; *done at its end. */
static bt_message *step(struct td_iter *it, bt_self_message_iterator *self,
			bool *done)
{
	*done = false;
	switch (it->state) {
	case ST_BEGIN:
		it->state = ST_RUN;
		return bt_message_stream_beginning_create(self, it->stream);
	case ST_DONE:
		*done = true;
		return NULL;
	case ST_RUN:
		break;
	}
	if (it->pkt && it->close_now)
		return end_packet(it, self);
	if (!it->rec)
		read_next(it);
	if (!it->rec) {
		if (it->pkt)
			return end_packet(it, self);
		it->state = ST_DONE;
		return bt_message_stream_end_create(self, it->stream);
	}
	if (it->lost) {
		if (!it->had_packet)
			return begin_packet(it, self);
		if (it->pkt)
			return end_packet(it, self);
		return discarded(it, self);
	}
	if (!it->pkt)
		return begin_packet(it, self);
	return event(it, self);
}

bt_message_iterator_class_next_method_status
td_iter_next(bt_self_message_iterator *self, bt_message_array_const msgs,
	     uint64_t capacity, uint64_t *count)
{
	struct td_iter *it = bt_self_message_iterator_get_data(self);
	bool done = false;

	*count = 0;
	while (*count < capacity) {
		bt_message *m = step(it, self, &done);

		if (done)
			break;
		if (!m) {
			/* release what this call produced: we fail it */
			for (uint64_t i = 0; i < *count; i++)
				bt_message_put_ref(msgs[i]);
			*count = 0;
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		}
		msgs[(*count)++] = m;
	}
	if (*count)
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
}
