// SPDX-License-Identifier: GPL-2.0
/*
 * The source component: opens a trace.dat, builds the trace IR (one
 * stream class, one stream and one output port per CPU of each ring
 * buffer, one clock class named after the trace clock) and answers the
 * "babeltrace.support-info" query so that `babeltrace2 trace.dat` finds it.
 */
#define _GNU_SOURCE
#include "tdsrc.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <trace-cmd/trace-cmd.h>
#include <unistd.h>

#define NS_PER_S 1000000000ULL
#define MAGIC_LEN 10		/* "\x17\x08\x44tracing" */
#define VERSION_MAX 8
#define PORT_NAME_MAX 128

static const char tracedat_magic[MAGIC_LEN] = "\x17\x08\x44tracing";

#define ERR(src, ...) \
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT( \
		bt_self_component_source_as_self_component((src)->self), \
		__VA_ARGS__)

/*
 * Reads the magic and the version string.  Returns the version (6, 7, ...),
 * 0 for a file that is not a trace.dat, -1 if it cannot be read.
 */
static int tracedat_version(const char *path)
{
	char head[MAGIC_LEN + VERSION_MAX] = { 0 };
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return -1;
	n = fread(head, 1, sizeof(head) - 1, f);
	fclose(f);
	if (n < MAGIC_LEN || memcmp(head, tracedat_magic, MAGIC_LEN))
		return 0;
	return atoi(head + MAGIC_LEN) > 0 ? atoi(head + MAGIC_LEN) : 0;
}

int td_is_tracedat(const char *path)
{
	return tracedat_version(path) > 0;
}

/* Versions libtracecmd 3.1.6 reads: 6 and 7 (sections, compression). */
static bool version_supported(int v)
{
	return v == 6 || v == 7;
}

static int parse_params(struct td_source *src, const bt_value *params)
{
	const bt_value *inputs, *in, *lttng;

	inputs = bt_value_map_borrow_entry_value_const(params, "inputs");
	if (!inputs || !bt_value_is_array(inputs) ||
	    bt_value_array_get_length(inputs) != 1) {
		ERR(src, "parameter `inputs` must be an array of one path");
		return -1;
	}
	in = bt_value_array_borrow_element_by_index_const(inputs, 0);
	if (!bt_value_is_string(in)) {
		ERR(src, "parameter `inputs`: element is not a string");
		return -1;
	}
	src->path = strdup(bt_value_string_get(in));
	lttng = bt_value_map_borrow_entry_value_const(params, "lttng");
	if (lttng && !bt_value_is_bool(lttng)) {
		ERR(src, "parameter `lttng` must be a boolean");
		return -1;
	}
	src->lttng = lttng && bt_value_bool_get(lttng);
	return src->path ? 0 : -1;
}

/* The child of probe_open(): 0 if the file and its instances open. */
static int probe_child(const char *path)
{
	struct tracecmd_input *h = tracecmd_open(path,
						 TRACECMD_FL_LOAD_NO_PLUGINS);
	int n = h ? tracecmd_buffer_instances(h) : 0;

	if (!h)
		return 1;
	for (int i = 0; i < n; i++) {
		struct tracecmd_input *ih = tracecmd_buffer_instance_handle(h, i);

		if (!ih)
			return 1;
		tracecmd_close(ih);
	}
	return 0;
}

/*
 * libtracecmd 3.1.6 crashes (NULL dereference in tracecmd_close() on its
 * own error path) when a file's CPU data runs past its end or a buffer
 * instance is corrupt (found by fuzzing).  So the file and its instances
 * are first opened in a child process: a crash there becomes an error
 * here.  Returns 0 if the child opened them.
 */
static int probe_open(const char *path)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return 0;	/* cannot probe: let the real open try */
	if (pid == 0) {
		static const int fatal[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE,
					     SIGABRT };
		int null = open("/dev/null", O_WRONLY);

		/* die by the signal, past any sanitizer or fuzzer handler */
		for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
			signal(fatal[i], SIG_DFL);

		/* silence libtracecmd's printf()s about the file */
		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		_exit(probe_child(path));
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int open_file(struct td_source *src)
{
	int v = tracedat_version(src->path);

	if (v < 0) {
		ERR(src, "%s:1: cannot open: %s", src->path, strerror(errno));
		return -1;
	}
	if (v == 0) {
		ERR(src, "%s:1: not a trace.dat file (bad magic)", src->path);
		return -1;
	}
	if (!version_supported(v)) {
		ERR(src, "%s:1: trace.dat version %d not supported (6 or 7)",
		    src->path, v);
		return -1;
	}
	if (!probe_open(src->path))
		src->top = tracecmd_open(src->path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!src->top) {
		ERR(src, "%s:1: libtracecmd cannot read it (truncated or corrupt headers)",
		    src->path);
		return -1;
	}
	src->tep = tracecmd_get_tep(src->top);
	return 0;
}

/*
 * The trace clock: record->ts is what `trace-cmd report` prints (libtracecmd
 * already applied the file's TSC-to-ns multiplier and offsets), so the
 * clock class counts in ns with offset 0.  "counter" and an unconverted
 * "x86-tsc" count ticks, not ns: the frequency then is nominal, as in
 * trace-cmd report, and the description says so.
 */
static int make_clock(struct td_source *src)
{
	const char *name = tracecmd_get_trace_clock(src->top);
	char desc[256], ident[64];

	if (!name || !*name)
		name = "local";
	/* CTF 1.8 clock names are identifiers: x86-tsc -> x86_tsc */
	snprintf(ident, sizeof(ident), "%s", name);
	for (char *c = ident; *c; c++)
		if (!isalnum((unsigned char)*c))
			*c = '_';
	src->cc = bt_clock_class_create(
		bt_self_component_source_as_self_component(src->self));
	if (!src->cc)
		return -1;
	snprintf(desc, sizeof(desc),
		 "ftrace trace clock \"%s\"%s; timestamps as trace-cmd report prints them",
		 name, (!strcmp(name, "counter") || !strcmp(name, "x86-tsc")) ?
		 " (counts ticks; 1 tick shown as 1 ns)" : " (ns)");
	if (bt_clock_class_set_name(src->cc, ident) ||
	    bt_clock_class_set_description(src->cc, desc))
		return -1;
	snprintf(src->clock_name, sizeof(src->clock_name), "%s", name);
	bt_clock_class_set_frequency(src->cc, NS_PER_S);
	bt_clock_class_set_offset(src->cc, 0, 0);
	bt_clock_class_set_origin_is_unix_epoch(src->cc, BT_FALSE);
	return 0;
}

static bt_field_class *packet_context_class(struct td_source *src)
{
	bt_field_class *st = bt_field_class_structure_create(src->tc);
	bt_field_class *cpu = bt_field_class_integer_unsigned_create(src->tc);
	bt_field_class *buf = bt_field_class_string_create(src->tc);
	bt_field_class *ret = st;

	if (cpu)
		bt_field_class_integer_set_field_value_range(cpu, 32);
	/* cpu_id as LTTng names it; buffer: the instance, "" for the top */
	if (!st || !cpu || !buf ||
	    bt_field_class_structure_append_member(st, "cpu_id", cpu) ||
	    bt_field_class_structure_append_member(st, "buffer", buf)) {
		bt_field_class_put_ref(st);
		ret = NULL;
	}
	bt_field_class_put_ref(cpu);
	bt_field_class_put_ref(buf);
	return ret;
}

/*
 * The one stream class of every buffer's streams, named "ftrace"; a
 * stream's buffer is in its name and in the packet context.
 */
static int make_stream_class(struct td_source *src)
{
	bt_field_class *pc = packet_context_class(src);
	bt_field_class *cc = td_common_context_class(src);
	int ret = -1;

	src->sc = bt_stream_class_create(src->tc);
	if (!src->sc || !pc || !cc)
		goto out;
	bt_stream_class_set_assigns_automatic_stream_id(src->sc, BT_FALSE);
	bt_stream_class_set_assigns_automatic_event_class_id(src->sc,
							     BT_FALSE);
	if (bt_stream_class_set_name(src->sc, "ftrace") ||
	    bt_stream_class_set_default_clock_class(src->sc, src->cc))
		goto out;
	/* packets carry cpu_id (Trace Compass needs it) and the loss counts */
	bt_stream_class_set_supports_packets(src->sc, BT_TRUE, BT_TRUE,
					     BT_TRUE);
	bt_stream_class_set_supports_discarded_events(src->sc, BT_TRUE,
						      BT_FALSE);
	if (bt_stream_class_set_packet_context_field_class(src->sc, pc) ||
	    bt_stream_class_set_event_common_context_field_class(src->sc, cc))
		goto out;
	ret = td_build_event_classes(src);
out:
	bt_field_class_put_ref(pc);
	bt_field_class_put_ref(cc);
	return ret;
}

/* Opens the top buffer and every instance as td_buffers. */
static int open_buffers(struct td_source *src)
{
	int ninst = tracecmd_buffer_instances(src->top);

	src->nbufs = 1 + (ninst > 0 ? ninst : 0);
	src->bufs = calloc((size_t)src->nbufs, sizeof(*src->bufs));
	if (!src->bufs)
		return -1;
	src->bufs[0].h = src->top;
	src->bufs[0].name = strdup("");
	for (int i = 1; i < src->nbufs; i++) {
		const char *n = tracecmd_buffer_instance_name(src->top, i - 1);

		src->bufs[i].name = strdup(n ? n : "instance");
		src->bufs[i].h = tracecmd_buffer_instance_handle(src->top,
								 i - 1);
		if (!src->bufs[i].h) {
			ERR(src, "%s:1: cannot read buffer instance \"%s\"",
			    src->path, src->bufs[i].name);
			return -1;
		}
	}
	for (int i = 0; i < src->nbufs; i++) {
		src->bufs[i].cpus = tracecmd_cpus(src->bufs[i].h);
		if (!src->bufs[i].name || src->bufs[i].cpus < 0)
			return -1;
	}
	return 0;
}

static int set_env(struct td_source *src)
{
	char v[16];

	snprintf(v, sizeof(v), "%lu", tracecmd_get_in_file_version(src->top));
	if (bt_trace_set_environment_entry_string(src->trace, "tracer_name",
			src->lttng ? "lttng-modules" : "ftrace") ||
	    bt_trace_set_environment_entry_string(src->trace, "trace_clock",
			src->clock_name) ||
	    bt_trace_set_environment_entry_string(src->trace,
			"tracedat_version", v))
		return -1;
	/* Trace Compass treats a CTF trace as a kernel trace by this entry */
	if (src->lttng &&
	    (bt_trace_set_environment_entry_string(src->trace, "domain",
						   "kernel") ||
	     bt_trace_set_environment_entry_integer(src->trace,
						    "tracer_major", 2) ||
	     bt_trace_set_environment_entry_integer(src->trace,
						    "tracer_minor", 13)))
		return -1;
	return 0;
}

static int make_trace_and_ports(struct td_source *src)
{
	const char *base = strrchr(src->path, '/');
	uint64_t id = 0;	/* stream ids: unique in the one stream class */

	src->trace = bt_trace_create(src->tc);
	if (!src->trace ||
	    bt_trace_set_name(src->trace, base ? base + 1 : src->path) ||
	    set_env(src))
		return -1;
	for (int b = 0; b < src->nbufs; b++) {
		struct td_buffer *buf = &src->bufs[b];

		buf->streams = calloc((size_t)buf->cpus + 1,
				      sizeof(*buf->streams));
		if (!buf->streams)
			return -1;
		for (int cpu = 0; cpu < buf->cpus; cpu++) {
			char name[PORT_NAME_MAX];
			struct td_port *p = calloc(1, sizeof(*p));

			snprintf(name, sizeof(name), "%s%scpu%d", buf->name,
				 *buf->name ? "-" : "", cpu);
			buf->streams[cpu] = bt_stream_create_with_id(src->sc,
				src->trace, id++);
			if (!p || !buf->streams[cpu] ||
			    bt_stream_set_name(buf->streams[cpu], name)) {
				free(p);
				return -1;
			}
			*p = (struct td_port){ src, buf, cpu };
			if (bt_self_component_source_add_output_port(src->self,
					name, p, NULL)) {
				free(p);
				return -1;
			}
		}
	}
	return 0;
}

bt_component_class_initialize_method_status
td_init(bt_self_component_source *self,
	bt_self_component_source_configuration *config,
	const bt_value *params, void *init_data)
{
	struct td_source *src = calloc(1, sizeof(*src));
	bt_self_component *sc = bt_self_component_source_as_self_component(self);

	(void)config;
	(void)init_data;
	if (!src)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	src->self = self;
	bt_self_component_set_data(sc, src);
	/* libtracecmd's own warnings would duplicate our error causes */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	if (parse_params(src, params) || open_file(src))
		goto err;
	src->tc = bt_trace_class_create(sc);
	if (!src->tc || make_clock(src) || open_buffers(src))
		goto err_ir;
	bt_trace_class_set_assigns_automatic_stream_class_id(src->tc, BT_TRUE);
	if (make_stream_class(src) || make_trace_and_ports(src))
		goto err_ir;
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
err_ir:
	ERR(src, "%s:1: cannot build the trace description", src->path);
err:
	td_finalize(self);
	bt_self_component_set_data(sc, NULL);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
}

static void free_buffer(struct td_source *src, struct td_buffer *buf)
{
	for (int cpu = 0; buf->streams && cpu < buf->cpus; cpu++)
		bt_stream_put_ref(buf->streams[cpu]);
	free(buf->streams);
	if (buf->h && buf->h != src->top)
		tracecmd_close(buf->h);
	free(buf->name);
}

void td_finalize(bt_self_component_source *self)
{
	bt_self_component *sc = bt_self_component_source_as_self_component(self);
	struct td_source *src = bt_self_component_get_data(sc);

	if (!src)
		return;
	for (uint64_t i = 0;
	     i < bt_component_source_get_output_port_count(
			bt_self_component_source_as_component_source(self));
	     i++)
		free(bt_self_component_port_get_data(
			bt_self_component_port_output_as_self_component_port(
				bt_self_component_source_borrow_output_port_by_index(
					self, i))));
	for (int i = 0; src->bufs && i < src->nbufs; i++)
		free_buffer(src, &src->bufs[i]);
	free(src->bufs);
	td_free_event_classes(src);
	bt_stream_class_put_ref(src->sc);
	free(src->common.fields);
	bt_trace_put_ref(src->trace);
	bt_clock_class_put_ref(src->cc);
	bt_trace_class_put_ref(src->tc);
	if (src->top)
		tracecmd_close(src->top);
	free(src->path);
	free(src);
	bt_self_component_set_data(sc, NULL);
}

/*
 * "babeltrace.support-info": weight 1 for a regular file that starts with
 * the trace.dat magic, 0 for anything else.
 */
bt_component_class_query_method_status
td_query(bt_self_component_class_source *cls,
	 bt_private_query_executor *qe, const char *object,
	 const bt_value *params, void *method_data, const bt_value **result)
{
	const bt_value *type, *input;
	double weight = 0.0;

	(void)cls;
	(void)qe;
	(void)method_data;
	if (strcmp(object, "babeltrace.support-info"))
		return BT_COMPONENT_CLASS_QUERY_METHOD_STATUS_UNKNOWN_OBJECT;
	type = bt_value_map_borrow_entry_value_const(params, "type");
	input = bt_value_map_borrow_entry_value_const(params, "input");
	if (type && input && bt_value_is_string(type) &&
	    bt_value_is_string(input) &&
	    !strcmp(bt_value_string_get(type), "file") &&
	    td_is_tracedat(bt_value_string_get(input)))
		weight = 1.0;
	*result = bt_value_real_create_init(weight);
	return *result ? BT_COMPONENT_CLASS_QUERY_METHOD_STATUS_OK
		       : BT_COMPONENT_CLASS_QUERY_METHOD_STATUS_MEMORY_ERROR;
}
