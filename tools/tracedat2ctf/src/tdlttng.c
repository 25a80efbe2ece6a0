// SPDX-License-Identifier: GPL-2.0
/*
 * The --lttng naming: ftrace event and field names -> the names LTTng's
 * kernel tracer (lttng-modules) gives the same tracepoints, so that Trace
 * Compass's kernel analyses recognise them.  Only names change; values and
 * types stay as ftrace recorded them.  docs: tracedat2ctf.1, LTTNG NAMES.
 */
#define _GNU_SOURCE
#include "tdsrc.h"

#include <stdio.h>
#include <string.h>

struct rename { const char *from, *to; };

/* ftrace "system:event" -> LTTng event name (only those that differ). */
static const struct rename event_names[] = {
	{ "timer:hrtimer_init", "timer_hrtimer_init" },
	{ "timer:hrtimer_start", "timer_hrtimer_start" },
	{ "timer:hrtimer_cancel", "timer_hrtimer_cancel" },
	{ "timer:hrtimer_expire_entry", "timer_hrtimer_expire_entry" },
	{ "timer:hrtimer_expire_exit", "timer_hrtimer_expire_exit" },
	{ "timer:timer_init", "timer_init" },
	{ "timer:itimer_state", "timer_itimer_state" },
	{ "timer:itimer_expire", "timer_itimer_expire" },
	{ "power:cpu_idle", "power_cpu_idle" },
	{ "power:cpu_frequency", "power_cpu_frequency" },
	{ "raw_syscalls:sys_enter", "syscall_entry_unknown" },
	{ "raw_syscalls:sys_exit", "syscall_exit_unknown" },
	{ "kmem:mm_page_alloc", "kmem_mm_page_alloc" },
	{ "kmem:mm_page_free", "kmem_mm_page_free" },
	{ "kmem:kmalloc", "kmem_kmalloc" },
	{ "kmem:kfree", "kmem_kfree" },
	{ "block:block_rq_issue", "block_rq_issue" },
	{ "block:block_rq_complete", "block_rq_complete" },
};

/*
 * "event.field" -> LTTng field name.  LTTng calls a kernel pid "tid" and
 * the thread-group id "pid"; ftrace's pid fields are thread ids.
 */
static const struct rename field_names[] = {
	{ "sched_switch.prev_pid", "prev_tid" },
	{ "sched_switch.next_pid", "next_tid" },
	{ "sched_wakeup.pid", "tid" },
	{ "sched_waking.pid", "tid" },
	{ "sched_wakeup_new.pid", "tid" },
	{ "sched_process_fork.parent_pid", "parent_tid" },
	{ "sched_process_fork.child_pid", "child_tid" },
	{ "sched_process_exit.pid", "tid" },
	{ "sched_process_free.pid", "tid" },
	{ "sched_process_wait.pid", "tid" },
	{ "sched_process_exec.pid", "tid" },
	{ "sched_process_exec.old_pid", "old_tid" },
	{ "sched_migrate_task.pid", "tid" },
	{ "sched_stat_runtime.pid", "tid" },
	{ "sched_stat_sleep.pid", "tid" },
	{ "sched_stat_wait.pid", "tid" },
	{ "sched_stat_blocked.pid", "tid" },
	{ "sched_stat_iowait.pid", "tid" },
	{ "sched_pi_setprio.pid", "tid" },
	{ "sched_wait_task.pid", "tid" },
	{ "sched_kthread_stop.pid", "tid" },
};

#define SYS_ENTER_PREFIX "sys_enter_"
#define SYS_EXIT_PREFIX "sys_exit_"
#define NAME_MAX_LEN 128

static const char *lookup(const struct rename *t, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].from, key))
			return t[i].to;
	return NULL;
}

const char *td_lttng_event_name(const char *system, const char *name)
{
	/* one static buffer: callers copy the name into the event class */
	static char buf[NAME_MAX_LEN];
	const char *to;

	snprintf(buf, sizeof(buf), "%s:%s", system, name);
	to = lookup(event_names, sizeof(event_names) / sizeof(event_names[0]),
		    buf);
	if (to)
		return to;
	if (!strcmp(system, "syscalls") &&
	    !strncmp(name, SYS_ENTER_PREFIX, strlen(SYS_ENTER_PREFIX))) {
		snprintf(buf, sizeof(buf), "syscall_entry_%s",
			 name + strlen(SYS_ENTER_PREFIX));
		return buf;
	}
	if (!strcmp(system, "syscalls") &&
	    !strncmp(name, SYS_EXIT_PREFIX, strlen(SYS_EXIT_PREFIX))) {
		snprintf(buf, sizeof(buf), "syscall_exit_%s",
			 name + strlen(SYS_EXIT_PREFIX));
		return buf;
	}
	return NULL;
}

const char *td_lttng_field_name(const char *event, const char *field)
{
	static char buf[NAME_MAX_LEN];

	if (!strcmp(field, "common_pid"))
		return "tid";
	snprintf(buf, sizeof(buf), "%s.%s", event, field);
	return lookup(field_names, sizeof(field_names) / sizeof(field_names[0]),
		      buf);
}
