// SPDX-License-Identifier: GPL-2.0
/*
 * rtlab_ftdump: dump the ftrace ring buffer to the console when loaded,
 * through ftrace_dump(DUMP_ALL) as sysrq-z does. The lab's kernels are
 * built without CONFIG_MAGIC_SYSRQ, so tests/guest/91-ftdump.sh loads this
 * module where /proc/sysrq-trigger is missing. Load it again (after
 * rmmod) for another dump.
 */
#include <linux/kernel.h>
#include <linux/module.h>

static int __init rtlab_ftdump_init(void)
{
	ftrace_dump(DUMP_ALL);
	return 0;
}

static void __exit rtlab_ftdump_exit(void)
{
}

module_init(rtlab_ftdump_init);
module_exit(rtlab_ftdump_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rtlab: ftrace_dump(DUMP_ALL) on load, for the ftdump guest test");
