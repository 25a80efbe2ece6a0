// SPDX-License-Identifier: GPL-2.0
/*
 * The same component class as the plugin's, built at run time, so that
 * tracedat2ctf (and the tests) need not find the .so on a plugin path.
 */
#include "tdsrc.h"

bt_component_class_source *td_source_class_create(void)
{
	bt_message_iterator_class *ic =
		bt_message_iterator_class_create(td_iter_next);
	bt_component_class_source *cls = NULL;

	if (!ic)
		return NULL;
	if (bt_message_iterator_class_set_initialize_method(ic, td_iter_init) ||
	    bt_message_iterator_class_set_finalize_method(ic, td_iter_finalize))
		goto out;
	cls = bt_component_class_source_create(TD_CLASS_NAME, ic);
	if (!cls)
		goto out;
	if (bt_component_class_source_set_initialize_method(cls, td_init) ||
	    bt_component_class_source_set_finalize_method(cls, td_finalize) ||
	    bt_component_class_source_set_query_method(cls, td_query)) {
		bt_component_class_source_put_ref(cls);
		cls = NULL;
	}
out:
	bt_message_iterator_class_put_ref(ic);
	return cls;
}
