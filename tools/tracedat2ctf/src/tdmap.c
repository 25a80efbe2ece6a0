// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace event formats -> babeltrace2 event classes, and record bytes ->
 * field values.  Every field of an ftrace format becomes a typed member:
 * integers keep their size and signedness, char arrays become strings,
 * other fixed arrays static arrays, __data_loc/__rel_loc arrays (cpumasks
 * included) dynamic arrays, pointers hex-displayed integers.
 */
#define _GNU_SOURCE
#include "tdsrc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace-cmd/trace-cmd.h>

/* A __data_loc word: low 16 bits offset, high 16 bits length. */
#define LOC_SIZE 4
#define LOC_OFFSET(v) ((v) & 0xffffu)
#define LOC_LEN(v) ((v) >> 16)
#define BITS_PER_BYTE 8
#define MAX_EVENT_ID 0xffff
/* Suffix of the member that carries a code address's symbol. */
#define SYM_SUFFIX "_sym"
#define MAX_MEMBER_NAME 128
#define MAX_SYM_TEXT 512
#define HEX_DIGITS_MAX 16	/* of a 64-bit number */
#define HEX_PREFIX "0x"
#define OFFSET_PREFIX "+0x"	/* %pS: symbol+0xoffset */

/* Size in bytes of the element type named in a format "type" string. */
static int type_elem_size(const char *type, int long_size)
{
	static const struct { const char *word; int size; } sizes[] = {
		{ "long long", 8 }, { "u64", 8 }, { "s64", 8 }, { "__u64", 8 },
		{ "u32", 4 }, { "s32", 4 }, { "__u32", 4 }, { "int", 4 },
		{ "u16", 2 }, { "s16", 2 }, { "short", 2 },
		{ "u8", 1 }, { "s8", 1 }, { "char", 1 }, { "bool", 1 },
	};

	if (strchr(type, '*') || strstr(type, "cpumask") ||
	    strstr(type, "long"))
		if (!strstr(type, "long long"))
			return long_size;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (strstr(type, sizes[i].word))
			return sizes[i].size;
	return 1;	/* unknown element type: keep the bytes */
}

static bool is_pow2_int_size(int size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

/* Chooses how to decode field f. */
static void classify(const struct tep_format_field *f, int long_size,
		     struct td_field *out)
{
	unsigned long fl = f->flags;

	out->f = f;
	out->is_signed = fl & TEP_FIELD_IS_SIGNED;
	out->elem_size = f->size;
	if (fl & TEP_FIELD_IS_DYNAMIC) {
		out->kind = (fl & TEP_FIELD_IS_STRING) ? TD_STRING_DYN
						       : TD_ARRAY_DYN;
		out->elem_size = type_elem_size(f->type, long_size);
		return;
	}
	if ((fl & TEP_FIELD_IS_ARRAY) && f->size == 0) {
		/* ftrace's print: char buf[] runs to the end of the record */
		out->kind = (fl & TEP_FIELD_IS_STRING) ? TD_STRING_TAIL
						       : TD_ARRAY_TAIL;
		out->elem_size = type_elem_size(f->type, long_size);
		return;
	}
	if (fl & TEP_FIELD_IS_STRING) {
		out->kind = TD_STRING_FIXED;
		return;
	}
	if ((fl & TEP_FIELD_IS_ARRAY) && f->arraylen) {
		out->kind = TD_ARRAY_FIXED;
		out->elem_size = f->size / (int)f->arraylen;
		if (!is_pow2_int_size(out->elem_size) ||
		    out->elem_size * (int)f->arraylen != f->size)
			out->elem_size = 1;
		return;
	}
	if (!is_pow2_int_size(f->size)) {
		/* e.g. a 16-byte struct: keep it as bytes */
		out->kind = TD_ARRAY_FIXED;
		out->elem_size = 1;
		out->is_signed = false;
		return;
	}
	out->kind = out->is_signed ? TD_SINT : TD_UINT;
}

static bool is_hex(const struct td_field *tf)
{
	const struct tep_format_field *f = tf->f;

	return tf->sym || (f->flags & TEP_FIELD_IS_POINTER) ||
	       strchr(f->type, '*') || strstr(f->type, "cpumask");
}

/* The field an argument of the print fmt reads, through type casts. */
static const struct tep_format_field *arg_field(const struct tep_print_arg *a)
{
	while (a && a->type == TEP_PRINT_TYPE)
		a = a->typecast.item;
	return a && a->type == TEP_PRINT_FIELD ? a->field.field : NULL;
}

/*
 * Finds the conversion the print fmt of ev uses for field f, as
 * libtraceevent does when trace-cmd report -R prints a field: the first
 * directive whose argument is the field.  Returns the letter after %p of
 * a symbol conversion (s S f F), else 0.  Each directive but %% takes one
 * argument, and a '*' width or precision one more.
 */
static char sym_conversion(const struct tep_event *ev,
			   const struct tep_format_field *f)
{
	const char *p = ev->print_fmt.format;
	const struct tep_print_arg *a = ev->print_fmt.args;

	if (!p || (ev->flags & TEP_EVENT_FL_FAILED))
		return 0;
	for (; *p && a; p++) {
		if (*p != '%')
			continue;
		if (*++p == '%')
			continue;
		for (; *p && !strchr("diouxXcspfFeEgGaAn", *p); p++)
			if (*p == '*' && !(a = a->next))
				return 0;
		if (!*p)
			return 0;
		if (arg_field(a) == f)
			return *p == 'p' && p[1] && strchr("sSfF", p[1]) ?
			       p[1] : 0;
		a = a->next;
	}
	return 0;
}

static bt_field_class *int_class(bt_trace_class *tc, bool sign, int bytes,
				 bool hex)
{
	bt_field_class *fc = sign ? bt_field_class_integer_signed_create(tc)
				  : bt_field_class_integer_unsigned_create(tc);

	if (!fc)
		return NULL;
	bt_field_class_integer_set_field_value_range(fc,
		(uint64_t)bytes * BITS_PER_BYTE);
	if (hex)
		bt_field_class_integer_set_preferred_display_base(fc,
			BT_FIELD_CLASS_INTEGER_PREFERRED_DISPLAY_BASE_HEXADECIMAL);
	return fc;
}

static bt_field_class *field_class(bt_trace_class *tc,
				   const struct td_field *tf)
{
	bool hex = is_hex(tf);
	bt_field_class *elem, *fc = NULL;

	switch (tf->kind) {
	case TD_UINT:
	case TD_SINT:
		return int_class(tc, tf->is_signed, tf->elem_size, hex);
	case TD_STRING_FIXED:
	case TD_STRING_DYN:
	case TD_STRING_TAIL:
		return bt_field_class_string_create(tc);
	case TD_ARRAY_FIXED:
	case TD_ARRAY_DYN:
	case TD_ARRAY_TAIL:
		elem = int_class(tc, tf->is_signed, tf->elem_size, hex);
		if (!elem)
			return NULL;
		if (tf->kind == TD_ARRAY_FIXED)
			fc = bt_field_class_array_static_create(tc, elem,
				(uint64_t)(tf->f->size / tf->elem_size));
		else
			fc = bt_field_class_array_dynamic_create(tc, elem,
								 NULL);
		bt_field_class_put_ref(elem);
		return fc;
	}
	return NULL;
}

/* Member name: the ftrace name, or LTTng's where it differs. */
static const char *member_name(struct td_source *src,
			       const struct tep_event *ev,
			       const struct tep_format_field *f)
{
	const char *n = src->lttng ? td_lttng_field_name(ev->name, f->name)
				   : NULL;

	return n ? n : f->name;
}

/* Appends the string member "<name>_sym" for a code address field. */
static int append_sym_member(struct td_source *src, const struct tep_event *ev,
			     const struct tep_format_field *f,
			     bt_field_class *st)
{
	char name[MAX_MEMBER_NAME];
	bt_field_class *fc;
	int ret;

	if (snprintf(name, sizeof(name), "%s%s", member_name(src, ev, f),
		     SYM_SUFFIX) >= (int)sizeof(name))
		return -1;
	fc = bt_field_class_string_create(src->tc);
	if (!fc)
		return -1;
	ret = bt_field_class_structure_append_member(st, name, fc) ? -1 : 0;
	bt_field_class_put_ref(fc);
	return ret;
}

/* Bytes a record needs for field f; UINT64_MAX if no record can hold it. */
static uint64_t field_extent(const struct tep_format_field *f)
{
	if (f->offset < 0 || f->size < 0)
		return UINT64_MAX;
	return (uint64_t)f->offset + (uint64_t)f->size;
}

/* Appends members for the fields of list to the structure class st. */
static int append_members(struct td_source *src, const struct tep_event *ev,
			  struct tep_format_field *list, bool skip_type,
			  bt_field_class *st, struct td_fieldset *out)
{
	int long_size = tep_get_long_size(src->tep);
	size_t n = 0, cap = 0;
	uint64_t extent = 0;
	struct td_field *tf = NULL;

	/* walk the format's list: tep_event_fields() trusts nr_fields,
	 * which libtraceevent 1.7 leaves 0 for some formats */
	for (struct tep_format_field *f = list; f; f = f->next)
		cap++;
	tf = calloc(cap ? cap : 1, sizeof(*tf));
	if (!tf)
		return -1;
	for (struct tep_format_field *f = list; f; f = f->next) {
		bt_field_class *fc;

		if (skip_type && !strcmp(f->name, "common_type"))
			continue;
		classify(f, long_size, &tf[n]);
		if (tf[n].kind == TD_UINT || tf[n].kind == TD_SINT)
			tf[n].sym = sym_conversion(ev, f);
		tf[n].member = bt_field_class_structure_get_member_count(st);
		fc = field_class(src->tc, &tf[n]);
		if (!fc || bt_field_class_structure_append_member(st,
				member_name(src, ev, f), fc) ||
		    (tf[n].sym && append_sym_member(src, ev, f, st))) {
			bt_field_class_put_ref(fc);
			free(tf);
			return -1;
		}
		bt_field_class_put_ref(fc);
		if (field_extent(f) > extent)
			extent = field_extent(f);
		n++;
	}
	*out = (struct td_fieldset){ tf, n, extent };
	return 0;
}

/*
 * Event common context: "comm" (the pid-to-comm table of the file, looked
 * up for common_pid) then every common field but common_type.
 */
bt_field_class *td_common_context_class(struct td_source *src)
{
	int count = tep_get_events_count(src->tep);
	struct tep_event **evs = tep_list_events(src->tep, TEP_EVENT_SORT_ID);
	bt_field_class *st = bt_field_class_structure_create(src->tc);
	bt_field_class *comm = bt_field_class_string_create(src->tc);

	free(src->common.fields);
	src->common = (struct td_fieldset){ 0 };
	if (!st || !comm || count <= 0 || !evs || !evs[0] ||
	    bt_field_class_structure_append_member(st,
			src->lttng ? "procname" : "comm", comm) ||
	    append_members(src, evs[0], evs[0]->format.common_fields, true,
			   st, &src->common)) {
		bt_field_class_put_ref(comm);
		bt_field_class_put_ref(st);
		return NULL;
	}
	bt_field_class_put_ref(comm);
	src->pid_field = tep_find_common_field(evs[0], "common_pid");
	src->type_field = tep_find_common_field(evs[0], "common_type");
	/* the record's integers are read in place when no swap is needed */
	src->native = tep_is_file_bigendian(src->tep) ==
		      (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	return st;
}

/* Name of an event class; LTTng's under --lttng. */
static const char *event_name(struct td_source *src,
			      const struct tep_event *ev)
{
	const char *n = src->lttng ? td_lttng_event_name(ev->system, ev->name)
				   : NULL;

	return n ? n : ev->name;
}

int td_build_event_classes(struct td_source *src)
{
	int count = tep_get_events_count(src->tep);
	struct tep_event **evs = tep_list_events(src->tep, TEP_EVENT_SORT_ID);
	int max_id = -1;

	if (count <= 0 || !evs)
		return -1;
	for (int i = 0; i < count; i++)
		if (evs[i]->id > max_id)
			max_id = evs[i]->id;
	/* records carry the id in the u16 common_type: a larger one is corrupt */
	if (max_id > MAX_EVENT_ID)
		return -1;
	src->nev = max_id + 1;
	src->ev = calloc((size_t)src->nev, sizeof(*src->ev));
	if (!src->ev)
		return -1;
	for (int i = 0; i < count; i++) {
		struct tep_event *ev = evs[i];
		struct td_evclass *evc = &src->ev[ev->id];
		bt_field_class *st;

		if (ev->id < 0)
			continue;
		/*
		 * Two formats with one id (a corrupt file, found by fuzzing):
		 * a second event class with that id would break a
		 * babeltrace2 precondition (abort), and records of that id
		 * could belong to either, so the file is refused.
		 */
		if (evc->ec)
			return -1;
		evc->ec = bt_event_class_create_with_id(src->sc,
							(uint64_t)ev->id);
		st = bt_field_class_structure_create(src->tc);
		if (!evc->ec || !st ||
		    bt_event_class_set_name(evc->ec, event_name(src, ev)) ||
		    append_members(src, ev, ev->format.fields, false, st,
				   &evc->fs) ||
		    bt_event_class_set_payload_field_class(evc->ec, st)) {
			bt_field_class_put_ref(st);
			return -1;
		}
		bt_field_class_put_ref(st);
	}
	return 0;
}

void td_free_event_classes(struct td_source *src)
{
	for (int i = 0; i < src->nev; i++) {
		bt_event_class_put_ref(src->ev[i].ec);
		free(src->ev[i].fs.fields);
	}
	free(src->ev);
	src->ev = NULL;
	src->nev = 0;
}

static int64_t sign_extend(uint64_t v, int bytes)
{
	unsigned shift = 64 - (unsigned)bytes * BITS_PER_BYTE;

	if (!shift)
		return (int64_t)v;
	return (int64_t)(v << shift) >> shift;
}

/*
 * The integer of 1, 2, 4 or 8 bytes at p, in the file's byte order.  Read
 * in place when the file has the host's byte order: this runs for every
 * field of every record, and tep_read_number() is a call into the library.
 */
static uint64_t read_int(struct td_source *src, const uint8_t *p, int bytes)
{
	uint64_t v8;
	uint32_t v4;
	uint16_t v2;

	if (src->native) {
		switch (bytes) {
		case 1:
			return *p;
		case 2:
			memcpy(&v2, p, sizeof(v2));
			return v2;
		case 4:
			memcpy(&v4, p, sizeof(v4));
			return v4;
		case 8:
			memcpy(&v8, p, sizeof(v8));
			return v8;
		}
	}
	return tep_read_number(src->tep, p, bytes);
}

static void set_int(bt_field *f, uint64_t v, int bytes, bool sign)
{
	if (sign)
		bt_field_integer_signed_set_value(f, sign_extend(v, bytes));
	else
		bt_field_integer_unsigned_set_value(f, v);
}

static int set_string(bt_field *f, const uint8_t *p, size_t max)
{
	size_t len = strnlen((const char *)p, max);

	bt_field_string_clear(f);
	return bt_field_string_append_with_length(f, (const char *)p,
						  len) ? -1 : 0;
}

static int set_array(struct td_source *src, bt_field *f, const uint8_t *p,
		     const struct td_field *tf, uint64_t n)
{
	if (tf->kind != TD_ARRAY_FIXED &&
	    bt_field_array_dynamic_set_length(f, n))
		return -1;
	for (uint64_t i = 0; i < n; i++)
		set_int(bt_field_array_borrow_element_field_by_index(f, i),
			read_int(src, p + i * (uint64_t)tf->elem_size,
				 tf->elem_size),
			tf->elem_size, tf->is_signed);
	return 0;
}

/*
 * Finds the bytes of a __data_loc / __rel_loc field; -1 if they lie outside
 * the record (a corrupt record).
 */
static int dyn_bytes(struct td_source *src, const struct tep_record *rec,
		     const struct tep_format_field *f, uint32_t *off,
		     uint32_t *len)
{
	uint32_t loc = (uint32_t)read_int(src,
		(const uint8_t *)rec->data + f->offset, LOC_SIZE);

	*off = LOC_OFFSET(loc);
	*len = LOC_LEN(loc);
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		*off += (uint32_t)f->offset + LOC_SIZE;
	return (uint64_t)*off + *len > (uint64_t)rec->size ? -1 : 0;
}

/* Writes v in lower-case hex without leading zeros (as %llx); its length. */
static size_t put_hex(char *out, unsigned long long v)
{
	char tmp[HEX_DIGITS_MAX];
	size_t n = 0;

	do {
		tmp[n++] = "0123456789abcdef"[v & 0xf];
		v >>= 4;
	} while (v);
	for (size_t i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	return n;
}

/*
 * The text trace-cmd report prints for code address addr under
 * conversion %p<conv>: the symbol, "+0x<offset>" after it for %pS/%pF, or
 * the address in hex when the file's kallsyms do not cover it.  Built by
 * hand: snprintf() cost more than the rest of the record's fields.
 */
static int set_symbol(struct td_source *src, bt_field *f, char conv,
		      unsigned long long addr)
{
	const char *name = tep_find_function(src->tep, addr);
	char text[MAX_SYM_TEXT];
	size_t len;

	if (name && conv != 'S' && conv != 'F')
		return bt_field_string_set_value(f, name) ? -1 : 0;
	if (!name) {
		memcpy(text, HEX_PREFIX, strlen(HEX_PREFIX));
		len = strlen(HEX_PREFIX) + put_hex(text + strlen(HEX_PREFIX),
						   addr);
	} else {
		len = strnlen(name, sizeof(text) - strlen(OFFSET_PREFIX) -
				    HEX_DIGITS_MAX);
		memcpy(text, name, len);
		memcpy(text + len, OFFSET_PREFIX, strlen(OFFSET_PREFIX));
		len += strlen(OFFSET_PREFIX);
		len += put_hex(text + len,
			addr - tep_find_function_address(src->tep, addr));
	}
	bt_field_string_clear(f);
	return bt_field_string_append_with_length(f, text, len) ? -1 : 0;
}

/*
 * Sets the member of field tf in the structure st (and its "_sym" member).
 * The record holds the field's fixed part (td_fill_fields() checked).
 */
static int fill_one(struct td_source *src, const struct td_field *tf,
		    const struct tep_record *rec, bt_field *st)
{
	const uint8_t *data = rec->data;
	const struct tep_format_field *ff = tf->f;
	bt_field *f = bt_field_structure_borrow_member_field_by_index(st,
								      tf->member);
	uint32_t off, len;
	uint64_t v;

	switch (tf->kind) {
	case TD_UINT:
	case TD_SINT:
		v = read_int(src, data + ff->offset, tf->elem_size);
		set_int(f, v, tf->elem_size, tf->is_signed);
		if (!tf->sym)
			return 0;
		return set_symbol(src,
			bt_field_structure_borrow_member_field_by_index(st,
				tf->member + 1), tf->sym, v);
	case TD_STRING_FIXED:
		return set_string(f, data + ff->offset, (size_t)ff->size);
	case TD_ARRAY_FIXED:
		return set_array(src, f, data + ff->offset, tf,
				 (uint64_t)(ff->size / tf->elem_size));
	case TD_STRING_DYN:
	case TD_ARRAY_DYN:
		if (dyn_bytes(src, rec, ff, &off, &len))
			return -1;
		if (tf->kind == TD_STRING_DYN)
			return set_string(f, data + off, len);
		return set_array(src, f, data + off, tf,
				 len / (uint32_t)tf->elem_size);
	case TD_STRING_TAIL:
		return set_string(f, data + ff->offset,
				  (size_t)(rec->size - ff->offset));
	case TD_ARRAY_TAIL:
		return set_array(src, f, data + ff->offset, tf,
				 (uint64_t)(rec->size - ff->offset) /
				 (uint64_t)tf->elem_size);
	}
	return -1;
}

int td_fill_fields(struct td_source *src, const struct td_fieldset *fs,
		   const struct tep_record *rec, bt_field *st)
{
	/* one check for the fixed part of every field (a corrupt record) */
	if (rec->size < 0 || (uint64_t)rec->size < fs->extent)
		return -1;
	for (size_t i = 0; i < fs->n; i++)
		if (fill_one(src, &fs->fields[i], rec, st))
			return -1;
	return 0;
}

/* The comm of pid: from the cache, else from the file's pid-to-comm table. */
static const char *comm_of(struct td_source *src, int pid)
{
	struct td_comm_slot *s =
		&src->comm_cache[(unsigned)pid % TD_COMM_CACHE_SIZE];

	if (!s->valid || s->pid != pid) {
		const char *c = tep_data_comm_from_pid(src->tep, pid);

		*s = (struct td_comm_slot){ true, pid, c ? c : "<...>" };
	}
	return s->comm;
}

/*
 * The event id of a record (its common_type), as tep_data_type() reads it
 * but without the call per record; -1 if the record is too short for it.
 */
int td_record_type(struct td_source *src, const struct tep_record *rec)
{
	const struct tep_format_field *tf = src->type_field;

	if (!tf || rec->size < 0 || field_extent(tf) > (uint64_t)rec->size)
		return -1;
	return (int)read_int(src, (const uint8_t *)rec->data + tf->offset,
			     tf->size);
}

int td_fill_common(struct td_source *src, const struct tep_record *rec,
		   bt_field *ctx)
{
	const struct tep_format_field *pf = src->pid_field;
	int pid = -1;	/* no common_pid: the comm libtraceevent gives -1 */

	if (pf) {
		if (rec->size < 0 || field_extent(pf) > (uint64_t)rec->size)
			return -1;
		/* as tep_data_pid(): the number converted to int */
		pid = (int)read_int(src, (const uint8_t *)rec->data + pf->offset,
				    pf->size);
	}
	if (bt_field_string_set_value(
		    bt_field_structure_borrow_member_field_by_index(ctx, 0),
		    comm_of(src, pid)))
		return -1;
	return td_fill_fields(src, &src->common, rec, ctx);
}
