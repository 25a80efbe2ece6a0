// SPDX-License-Identifier: GPL-2.0
/*
 * tracedat2ctf IN OUTDIR: runs the babeltrace2 graph
 *   source.tracedat.ftrace -> filter.utils.muxer -> sink.ctf.fs
 * through libbabeltrace2's C API, for people who don't want to type the
 * babeltrace2 command line.  The source component class is linked in, so
 * no plugin path is needed.
 */
#define _GNU_SOURCE
#include "tdsrc.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtlab/file.h"

#define EXIT_BAD 2	/* bad usage or input: see tracedat2ctf(1) */

static const char usage[] =
	"usage: tracedat2ctf [--lttng] IN OUTDIR\n"
	"Convert trace-cmd's trace.dat IN (v6 or v7) to a CTF 1.8 trace in OUTDIR.\n"
	"  --lttng   name events and fields like LTTng's kernel tracer\n"
	"            (sched_switch prev_tid, timer_hrtimer_start, syscall_entry_*)\n"
	"  --help    show this help\n"
	"Exit status: 0 done, 2 bad usage or bad input (message on stderr).\n"
	"Same as: babeltrace2 --plugin-path=DIR convert \\\n"
	"  --component=source.tracedat.ftrace --params='inputs=[\"IN\"]' \\\n"
	"  --component=sink.ctf.fs --params='path=\"OUTDIR\"'\n";

/*
 * Prints the root cause of the current thread's error (the first one
 * appended: "FILE:LINE: what"); the causes the graph adds on its way up
 * say only which component failed.
 */
static void print_error(void)
{
	const bt_error *err = bt_current_thread_take_error();

	if (!err || !bt_error_get_cause_count(err)) {
		fprintf(stderr, "tracedat2ctf: conversion failed\n");
	} else {
		fprintf(stderr, "tracedat2ctf: %s\n",
			bt_error_cause_get_message(
				bt_error_borrow_cause_by_index(err, 0)));
	}
	if (err)
		bt_error_release(err);
}

/* OUTDIR must not exist or be empty, so that a failure can remove it. */
static int check_outdir(const char *out)
{
	DIR *d = opendir(out);
	struct dirent *e;
	int entries = 0;

	if (!d)
		return errno == ENOENT ? 0 : -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			entries++;
	closedir(d);
	return entries ? -1 : 0;
}

static const bt_plugin *find_plugin(const char *name)
{
	const bt_plugin *p = NULL;

	if (bt_plugin_find(name, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE,
			   &p) != BT_PLUGIN_FIND_STATUS_OK)
		return NULL;
	return p;
}

static bt_value *source_params(const char *in, bool lttng)
{
	bt_value *params = bt_value_map_create();
	bt_value *inputs = NULL;

	if (!params ||
	    bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) ||
	    bt_value_array_append_string_element(inputs, in) ||
	    bt_value_map_insert_bool_entry(params, "lttng", lttng)) {
		bt_value_put_ref(params);
		return NULL;
	}
	return params;
}

static bt_value *sink_params(const char *out)
{
	bt_value *params = bt_value_map_create();

	/* write OUTDIR/metadata, not OUTDIR/<trace name>/metadata */
	if (!params || bt_value_map_insert_string_entry(params, "path", out) ||
	    bt_value_map_insert_bool_entry(params, "assume-single-trace",
					   BT_TRUE)) {
		bt_value_put_ref(params);
		return NULL;
	}
	return params;
}

/* Connects every output port of src to a fresh input port of mux. */
static int connect_all(bt_graph *g, const bt_component_source *src,
		       const bt_component_filter *mux,
		       const bt_component_sink *sink)
{
	uint64_t n = bt_component_source_get_output_port_count(src);

	for (uint64_t i = 0; i < n; i++)
		if (bt_graph_connect_ports(g,
			bt_component_source_borrow_output_port_by_index_const(src, i),
			bt_component_filter_borrow_input_port_by_index_const(mux, i),
			NULL))
			return -1;
	return bt_graph_connect_ports(g,
		bt_component_filter_borrow_output_port_by_index_const(mux, 0),
		bt_component_sink_borrow_input_port_by_index_const(sink, 0),
		NULL) ? -1 : 0;
}

struct graph_parts {
	bt_component_class_source *src_cls;
	const bt_plugin *utils, *ctf;
	bt_value *sp, *kp;
	bt_graph *g;
};

static void put_parts(struct graph_parts *gp)
{
	bt_graph_put_ref(gp->g);
	bt_value_put_ref(gp->sp);
	bt_value_put_ref(gp->kp);
	bt_plugin_put_ref(gp->utils);
	bt_plugin_put_ref(gp->ctf);
	bt_component_class_source_put_ref(gp->src_cls);
}

/* Adds source, muxer and sink to gp->g and connects them. */
static int build_graph(struct graph_parts *gp)
{
	const bt_component_class_filter *mux_cls =
		bt_plugin_borrow_filter_component_class_by_name_const(gp->utils,
								      "muxer");
	const bt_component_class_sink *sink_cls =
		bt_plugin_borrow_sink_component_class_by_name_const(gp->ctf, "fs");
	const bt_component_source *src = NULL;
	const bt_component_filter *mux = NULL;
	const bt_component_sink *sink = NULL;

	if (!mux_cls || !sink_cls) {
		fprintf(stderr, "tracedat2ctf: filter.utils.muxer or sink.ctf.fs missing\n");
		return -1;
	}
	/* errors reach the user as error causes (print_error()), not logs */
	if (bt_graph_add_source_component(gp->g,
		gp->src_cls,
		"tracedat", gp->sp, BT_LOGGING_LEVEL_NONE, &src) ||
	    bt_graph_add_filter_component(gp->g, mux_cls, "muxer", NULL,
		BT_LOGGING_LEVEL_NONE, &mux) ||
	    bt_graph_add_sink_component(gp->g, sink_cls, "ctf", gp->kp,
		BT_LOGGING_LEVEL_NONE, &sink) ||
	    connect_all(gp->g, src, mux, sink)) {
		print_error();
		return -1;
	}
	return 0;
}

static int run(const char *in, const char *out, bool lttng)
{
	struct graph_parts gp = {
		.src_cls = td_source_class_create(),
		.utils = find_plugin("utils"),
		.ctf = find_plugin("ctf"),
		.sp = source_params(in, lttng),
		.kp = sink_params(out),
		.g = bt_graph_create(0),
	};
	bt_graph_run_status st = BT_GRAPH_RUN_STATUS_ERROR;

	if (!gp.src_cls || !gp.sp || !gp.kp || !gp.g) {
		fprintf(stderr, "tracedat2ctf: out of memory\n");
		goto out;
	}
	if (!gp.utils || !gp.ctf) {
		fprintf(stderr, "tracedat2ctf: babeltrace2 plugins \"utils\" and \"ctf\" not found (install babeltrace2)\n");
		goto out;
	}
	if (build_graph(&gp))
		goto out;
	do {
		st = bt_graph_run(gp.g);
	} while (st == BT_GRAPH_RUN_STATUS_AGAIN);
	if (st != BT_GRAPH_RUN_STATUS_OK) {
		print_error();
		rtlab_remove_tree(out);
		/*
		 * babeltrace2 2.0.4's sink.ctf.fs crashes in its finalize
		 * method after a failed run (NULL value in its trace table):
		 * leave without tearing the graph down.
		 */
		_exit(EXIT_BAD);
	}
out:
	put_parts(&gp);
	return st == BT_GRAPH_RUN_STATUS_OK ? 0 : EXIT_BAD;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "lttng", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool lttng = false;
	int c;

	while ((c = getopt_long(argc, argv, "lh", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			lttng = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return EXIT_BAD;
		}
	}
	if (argc - optind != 2) {
		fputs(usage, stderr);
		return EXIT_BAD;
	}
	if (check_outdir(argv[optind + 1])) {
		fprintf(stderr, "tracedat2ctf: %s: exists and is not an empty directory\n",
			argv[optind + 1]);
		return EXIT_BAD;
	}
	return run(argv[optind], argv[optind + 1], lttng);
}
