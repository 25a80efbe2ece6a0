// SPDX-License-Identifier: GPL-2.0
/*
 * rtlab_attachdelay - hold one cgroup migration between the cpuset
 * controller's can_attach() and its attach(), so that a test can rebuild
 * the root domains in that window on demand.
 *
 * cgroup_migrate_execute() calls each controller's can_attach() in
 * controller order (cpuset first, then cpu), moves the tasks, then calls
 * the attach()es.  cpuset_can_attach() reserves a deadline task's
 * bandwidth in its destination root domain and drops cpuset_mutex; a
 * rebuild of the root domains (a cpuset partition change, a write to
 * sched_rt_runtime_us) can take the mutex before cpuset_attach() or
 * cpuset_cancel_attach() does.  A kprobe on cpu_cgroup_can_attach(), the
 * next controller's check, busy-waits delay_ms there once per arming: a
 * rebuild started meanwhile holds cpuset_mutex by the time the migration
 * goes on, and so completes inside the window.  The cgroup v2 cpu
 * controller must be enabled for the destination (the probed function
 * exists with CONFIG_RT_GROUP_SCHED).
 *
 * Parameters (/sys/module/rtlab_attachdelay/parameters/):
 *   delay_ms  busy-wait per armed hit (default 500, at most 5000)
 *   armed     write 1 to delay the next migration that reaches the probe;
 *             the probe sets it back to 0
 *   hits      migrations delayed so far (read-only)
 *
 * The wait spins with preemption disabled (a kprobe handler cannot sleep):
 * the racing writer must run on another CPU.
 *
 * Test-only: load it in the lab's QEMU guest, never on a real system.
 */
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/module.h>

static unsigned int delay_ms = 500;
module_param(delay_ms, uint, 0644);
MODULE_PARM_DESC(delay_ms, "busy-wait per armed hit, in ms (at most 5000)");

static int armed;
module_param(armed, int, 0644);
MODULE_PARM_DESC(armed, "1: delay the next migration through cpu_cgroup_can_attach()");

static int hits;
module_param(hits, int, 0444);
MODULE_PARM_DESC(hits, "migrations delayed so far");

static int attachdelay_pre(struct kprobe *kp, struct pt_regs *regs)
{
	/* one hit per arming, even if two migrations get here at once */
	if (!xchg(&armed, 0))
		return 0;
	WRITE_ONCE(hits, READ_ONCE(hits) + 1);
	mdelay(min(READ_ONCE(delay_ms), 5000U));
	return 0;
}

static struct kprobe attachdelay_kp = {
	.symbol_name	= "cpu_cgroup_can_attach",
	.pre_handler	= attachdelay_pre,
};

static int __init attachdelay_init(void)
{
	int ret = register_kprobe(&attachdelay_kp);

	if (ret)
		pr_err("rtlab_attachdelay: kprobe on %s: %d\n",
		       attachdelay_kp.symbol_name, ret);
	return ret;
}

static void __exit attachdelay_exit(void)
{
	unregister_kprobe(&attachdelay_kp);
}

module_init(attachdelay_init);
module_exit(attachdelay_exit);
MODULE_DESCRIPTION("rtlab: delay a cgroup migration between cpuset's can_attach and attach");
MODULE_LICENSE("GPL");
