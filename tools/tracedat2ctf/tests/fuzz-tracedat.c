// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the bytes become a file that the source component
 * reads to the end in a graph source.tracedat.ftrace -> sink.utils.dummy.
 * Any crash, sanitizer report or babeltrace2 precondition abort fails.
 */
#define _GNU_SOURCE
#include "../src/tdsrc.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char path[64];
static const bt_plugin *utils;
static bt_component_class_source *src_cls;

static void setup(void)
{
	snprintf(path, sizeof(path), "/tmp/tracedat-fuzz.%d", (int)getpid());
	if (bt_plugin_find("utils", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE,
			   BT_FALSE, &utils) != BT_PLUGIN_FIND_STATUS_OK)
		abort();
	src_cls = td_source_class_create();
	if (!src_cls)
		abort();
}

static void run_graph(void)
{
	bt_graph *g = bt_graph_create(0);
	bt_value *params = bt_value_map_create(), *inputs = NULL;
	const bt_component_source *src = NULL;
	const bt_component_sink *sink = NULL;

	bt_value_map_insert_empty_array_entry(params, "inputs", &inputs);
	bt_value_array_append_string_element(inputs, path);
	if (!bt_graph_add_source_component(g, src_cls, "src", params,
					   BT_LOGGING_LEVEL_NONE, &src) &&
	    !bt_graph_add_sink_component(g,
		bt_plugin_borrow_sink_component_class_by_name_const(utils, "dummy"),
		"sink", NULL, BT_LOGGING_LEVEL_NONE, &sink)) {
		/* dummy has one input port: read the first CPU stream */
		if (bt_component_source_get_output_port_count(src) &&
		    !bt_graph_connect_ports(g,
			bt_component_source_borrow_output_port_by_index_const(src, 0),
			bt_component_sink_borrow_input_port_by_index_const(sink, 0),
			NULL)) {
			bt_graph_run_status st;

			do {
				st = bt_graph_run(g);
			} while (st == BT_GRAPH_RUN_STATUS_AGAIN);
		}
	}
	bt_current_thread_clear_error();
	bt_value_put_ref(params);
	bt_graph_put_ref(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f;

	if (!src_cls)
		setup();
	f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	run_graph();
	unlink(path);
	return 0;
}
