// SPDX-License-Identifier: GPL-2.0
/*
 * rtlab_dlpin - a SCHED_DEADLINE kernel thread that spends its whole run
 * with migration disabled on one CPU, overrunning its budget again and
 * again, so that a test can take that CPU offline under it.
 *
 * Why a module: on PREEMPT_RT any task holding a spinlock_t runs with
 * migration disabled and stays preemptible, so a deadline task can be
 * throttled inside such a section.  The CPU hotplug then waits for the
 * pinned task (sched_cpu_wait_empty(): rq->nr_pinned), with the runqueue
 * already offline, and the task's replenishment timer fires there.  User
 * space cannot hold migration disabled for long on purpose; this thread
 * can, for spin_ms.
 *
 * Parameters (at insmod): cpu (default 1), runtime_us / period_us of the
 * thread's reservation (default 2000 / 20000), spin_ms of wall time spent
 * spinning with migration disabled (default 3000).
 *
 * debugfs /sys/kernel/debug/rtlab_dlpin/result, one line:
 *   "done=D cpu_start=A cpu_end=B repl=R repl_inactive=I inactive=S"
 *   done           1 once the thread re-enabled migration
 *   cpu_start/end  the CPU it ran on after migrate_disable() and just
 *                  before migrate_enable(): must be equal (-1 if unknown)
 *   repl           replenishments seen from inside: the budget left
 *                  (dl.runtime) went up across a gap of at least 1 ms in
 *                  which the thread did not run, i.e. it was throttled and
 *                  its timer gave it a new budget
 *   repl_inactive  of those, the ones seen while cpu was not active
 *   inactive       1 if the thread saw its CPU inactive at all
 *
 * Test-only: load it in the lab's QEMU guest, never on a real system.
 */
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <uapi/linux/sched/types.h>
#include <linux/seq_file.h>
#include <linux/timekeeping.h>
#include <uapi/linux/sched.h>

static unsigned int cpu = 1;
module_param(cpu, uint, 0444);
MODULE_PARM_DESC(cpu, "the CPU the thread stays on (default 1)");
static unsigned int runtime_us = 2000;
module_param(runtime_us, uint, 0444);
MODULE_PARM_DESC(runtime_us, "the thread's runtime, us (default 2000)");
static unsigned int period_us = 20000;
module_param(period_us, uint, 0444);
MODULE_PARM_DESC(period_us, "the thread's deadline and period, us (default 20000)");
static unsigned int spin_ms = 3000;
module_param(spin_ms, uint, 0444);
MODULE_PARM_DESC(spin_ms, "wall time spun with migration disabled, ms (default 3000)");

/* a gap in the spin this long means the thread was off the CPU */
#define DLPIN_GAP_NS	NSEC_PER_MSEC

static struct task_struct *dlpin_task;
static struct dentry *dlpin_dir;
static int cpu_start = -1, cpu_end = -1;
static unsigned int repl, repl_inactive;
static bool done, inactive;

static int dlpin_fn(void *unused)
{
	u64 end, now, last;
	s64 budget, left;

	migrate_disable();
	cpu_start = raw_smp_processor_id();
	/*
	 * Created on cpu alone, so that the pinned part starts there; the
	 * affinity is then widened (a deadline task normally spans its root
	 * domain), which leaves a migration-disabled task where it is.
	 */
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	last = ktime_get_ns();
	end = last + (u64)spin_ms * NSEC_PER_MSEC;
	budget = READ_ONCE(current->dl.runtime);
	while ((now = ktime_get_ns()) < end && !kthread_should_stop()) {
		bool active = cpu_active(cpu);

		left = READ_ONCE(current->dl.runtime);
		if (now - last >= DLPIN_GAP_NS && left > budget) {
			WRITE_ONCE(repl, repl + 1);
			if (!active)
				WRITE_ONCE(repl_inactive, repl_inactive + 1);
		}
		if (!active)
			WRITE_ONCE(inactive, true);
		budget = left;
		last = now;
		cpu_relax();
	}
	cpu_end = raw_smp_processor_id();
	migrate_enable();
	WRITE_ONCE(done, true);
	/* kthread_stop() at unload reaps the thread */
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

static int dlpin_result_show(struct seq_file *m, void *v)
{
	seq_printf(m, "done=%d cpu_start=%d cpu_end=%d repl=%u repl_inactive=%u inactive=%d\n",
		   READ_ONCE(done), READ_ONCE(cpu_start), READ_ONCE(cpu_end),
		   READ_ONCE(repl), READ_ONCE(repl_inactive), READ_ONCE(inactive));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(dlpin_result);

static int __init rtlab_dlpin_init(void)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_DEADLINE,
		.sched_runtime = (u64)runtime_us * NSEC_PER_USEC,
		.sched_deadline = (u64)period_us * NSEC_PER_USEC,
		.sched_period = (u64)period_us * NSEC_PER_USEC,
	};
	int ret;

	if (cpu >= nr_cpu_ids || !cpu_online(cpu) || !spin_ms) {
		pr_err("rtlab_dlpin: cpu %u not online, or spin_ms 0\n", cpu);
		return -EINVAL;
	}
	dlpin_task = kthread_create(dlpin_fn, NULL, "rtlab_dlpin/%u", cpu);
	if (IS_ERR(dlpin_task))
		return PTR_ERR(dlpin_task);
	ret = set_cpus_allowed_ptr(dlpin_task, cpumask_of(cpu));
	if (!ret)
		ret = sched_setattr_nocheck(dlpin_task, &attr);
	if (ret) {
		pr_err("rtlab_dlpin: set up the thread: %d\n", ret);
		kthread_stop(dlpin_task);
		return ret;
	}
	dlpin_dir = debugfs_create_dir("rtlab_dlpin", NULL);
	debugfs_create_file("result", 0444, dlpin_dir, NULL, &dlpin_result_fops);
	wake_up_process(dlpin_task);
	return 0;
}

static void __exit rtlab_dlpin_exit(void)
{
	kthread_stop(dlpin_task);
	debugfs_remove_recursive(dlpin_dir);
}

module_init(rtlab_dlpin_init);
module_exit(rtlab_dlpin_exit);
MODULE_DESCRIPTION("rtlab test: a deadline thread throttled with migration disabled");
MODULE_LICENSE("GPL");
