// SPDX-License-Identifier: GPL-2.0
/*
 * rtlab_ftdump: dump the ftrace ring buffer to the console when loaded,
 * through ftrace_dump(DUMP_ALL) as sysrq-z does. The lab's kernels are
 * built without CONFIG_MAGIC_SYSRQ, so tests/guest/91-ftdump.sh loads this
 * module where /proc/sysrq-trigger is missing. Load it again (after
 * rmmod) for another dump. It prints how long ftrace_dump() ran: the time
 * the dumping CPU spends with interrupts off, formatting the records and
 * storing them in the printk buffer (on PREEMPT_RT the console is written
 * later by its own thread), for the text and the raw (ftrace_dump_raw)
 * format alike.
 */
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>

static int __init rtlab_ftdump_init(void)
{
	ktime_t t0 = ktime_get();

	ftrace_dump(DUMP_ALL);
	pr_info("rtlab_ftdump: ftrace_dump() took %lld us\n",
		ktime_us_delta(ktime_get(), t0));
	return 0;
}

static void __exit rtlab_ftdump_exit(void)
{
}

module_init(rtlab_ftdump_init);
module_exit(rtlab_ftdump_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rtlab: ftrace_dump(DUMP_ALL) on load, for the ftdump guest test");
