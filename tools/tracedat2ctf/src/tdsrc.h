/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tdsrc: a babeltrace2 source component class that reads trace-cmd's
 * trace.dat through libtracecmd and emits babeltrace2 messages (one
 * stream per buffer and CPU), so that sink.ctf.fs can write CTF 1.8.
 */
#ifndef TDSRC_H
#define TDSRC_H

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tracecmd_input;
struct tep_handle;
struct tep_event;
struct tep_format_field;
struct tep_record;

/*
 * Exported by libtracecmd.so.1 (3.1.6) but declared only in trace-cmd's
 * private header, which Debian's libtracecmd-dev does not ship.
 */
int tracecmd_cpus(struct tracecmd_input *handle);
const char *tracecmd_get_trace_clock(struct tracecmd_input *handle);
unsigned long tracecmd_get_in_file_version(struct tracecmd_input *handle);

/* Names of the plugin and its source component class. */
#define TD_PLUGIN_NAME "tracedat"
#define TD_CLASS_NAME "ftrace"

/* How one ftrace field is decoded (chosen once per event class). */
enum td_kind {
	TD_UINT,	/* unsigned integer of field->size bytes */
	TD_SINT,	/* signed integer */
	TD_STRING_FIXED,	/* char name[N] */
	TD_STRING_DYN,	/* __data_loc char[] / __rel_loc char[] */
	TD_ARRAY_FIXED,	/* type name[N] of integers */
	TD_ARRAY_DYN,	/* __data_loc type[] (also cpumask) */
	TD_STRING_TAIL,	/* char name[] of size 0: to the record's end */
	TD_ARRAY_TAIL,	/* type name[] of size 0: to the record's end */
};

struct td_field {
	const struct tep_format_field *f;
	enum td_kind kind;
	bool is_signed;		/* element signedness (integers, arrays) */
	int elem_size;		/* bytes per integer element */
	size_t member;		/* index of its member in the structure */
	/*
	 * The print fmt's conversion of a code address (%ps 's', %pS 'S',
	 * %pf 'f', %pF 'F'), 0 if none: such a field also gets a string
	 * member "<name>_sym" right after it, the symbol trace-cmd report
	 * prints, looked up in the file's kallsyms.
	 */
	char sym;
};

/* The decoded fields of one format (an event's, or the common ones). */
struct td_fieldset {
	struct td_field *fields;
	size_t n;
	/*
	 * Bytes a record needs to hold every field (the largest offset +
	 * size): checked once per record instead of once per field.
	 */
	uint64_t extent;
};

struct td_evclass {
	bt_event_class *ec;
	struct td_fieldset fs;
};

/* pid -> comm lookups cached by pid, as pids repeat from event to event. */
#define TD_COMM_CACHE_SIZE 256

struct td_comm_slot {
	bool valid;
	int pid;
	const char *comm;	/* in libtraceevent's cmdline table */
};

/*
 * One ring buffer of the file: the top buffer or an instance.  Its streams
 * belong to the source's one stream class: sink.ctf.fs writes a clock
 * declaration per stream class, and CTF 1.x readers (babeltrace 1.5)
 * refuse a trace with more than one.
 */
struct td_buffer {
	struct tracecmd_input *h;
	char *name;			/* "" for the top buffer */
	int cpus;
	bt_stream **streams;		/* one per CPU */
};

struct td_source {
	bt_self_component_source *self;
	bt_logging_level log_level;
	char *path;
	bool lttng;			/* LTTng kernel tracer names */
	char clock_name[64];		/* trace clock as trace-cmd names it */
	struct tracecmd_input *top;
	struct tep_handle *tep;
	bt_trace_class *tc;
	bt_clock_class *cc;
	/* every buffer's streams: the buffers share the file's formats */
	bt_stream_class *sc;
	struct td_evclass *ev;		/* indexed by ftrace event id */
	int nev;			/* size of ev[] */
	bt_trace *trace;
	struct td_buffer *bufs;
	int nbufs;
	/* common fields (common_pid, ...) go to the event common context */
	struct td_fieldset common;
	const struct tep_format_field *pid_field;	/* common_pid */
	const struct tep_format_field *type_field;	/* common_type */
	struct td_comm_slot comm_cache[TD_COMM_CACHE_SIZE];
	/* record integers need no byte swap (file and host agree) */
	bool native;
	uint64_t ts_fixups;		/* records whose time went backwards */
};

/* One output port: one CPU of one buffer. */
struct td_port {
	struct td_source *src;
	struct td_buffer *buf;
	int cpu;
};

/* tdmap.c: field classes and field values. */
int td_build_event_classes(struct td_source *src);
void td_free_event_classes(struct td_source *src);
int td_fill_fields(struct td_source *src, const struct td_fieldset *fs,
		   const struct tep_record *rec, bt_field *st);
bt_field_class *td_common_context_class(struct td_source *src);
int td_fill_common(struct td_source *src, const struct tep_record *rec,
		   bt_field *ctx);
int td_record_type(struct td_source *src, const struct tep_record *rec);
const char *td_lttng_event_name(const char *system, const char *name);
const char *td_lttng_field_name(const char *event, const char *field);

/* tdsrc.c / tditer.c: the methods of the component class. */
bt_component_class_initialize_method_status
td_init(bt_self_component_source *self,
	bt_self_component_source_configuration *config,
	const bt_value *params, void *init_data);
void td_finalize(bt_self_component_source *self);
bt_component_class_query_method_status
td_query(bt_self_component_class_source *cls,
	 bt_private_query_executor *qe, const char *object,
	 const bt_value *params, void *method_data, const bt_value **result);
bt_message_iterator_class_initialize_method_status
td_iter_init(bt_self_message_iterator *self,
	     bt_self_message_iterator_configuration *config,
	     bt_self_component_port_output *port);
void td_iter_finalize(bt_self_message_iterator *self);
bt_message_iterator_class_next_method_status
td_iter_next(bt_self_message_iterator *self, bt_message_array_const msgs,
	     uint64_t capacity, uint64_t *count);

/* Builds the component class for programs that do not load the .so. */
bt_component_class_source *td_source_class_create(void);

/* Checks the trace.dat magic of the file at path: 1 yes, 0 no. */
int td_is_tracedat(const char *path);

#endif
