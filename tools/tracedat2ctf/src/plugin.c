// SPDX-License-Identifier: GPL-2.0
/* The babeltrace2 plugin: source.tracedat.ftrace. */
#include "tdsrc.h"

BT_PLUGIN_MODULE();

BT_PLUGIN(tracedat);
BT_PLUGIN_DESCRIPTION("Read trace-cmd trace.dat files (ftrace) as babeltrace2 traces");
BT_PLUGIN_AUTHOR("rtlab");
BT_PLUGIN_LICENSE("GPL-2.0");

BT_PLUGIN_SOURCE_COMPONENT_CLASS(ftrace, td_iter_next);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_DESCRIPTION(ftrace,
	"Read one trace.dat (v6 or v7, compressed or not): one stream per buffer and CPU");
BT_PLUGIN_SOURCE_COMPONENT_CLASS_HELP(ftrace,
	"Parameters: inputs=[\"trace.dat\"] (one path), lttng=true|false (LTTng kernel names). See tracedat2ctf(1).");
BT_PLUGIN_SOURCE_COMPONENT_CLASS_INITIALIZE_METHOD(ftrace, td_init);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_FINALIZE_METHOD(ftrace, td_finalize);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_QUERY_METHOD(ftrace, td_query);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD(ftrace,
	td_iter_init);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_FINALIZE_METHOD(ftrace,
	td_iter_finalize);
