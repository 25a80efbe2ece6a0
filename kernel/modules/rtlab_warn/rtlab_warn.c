// SPDX-License-Identifier: GPL-2.0
/*
 * rtlab_warn - a test-only module that makes the kernel misbehave on purpose,
 * to prove that the lab's console checker catches it.
 *
 *   insmod rtlab_warn.ko            WARN() once at load
 *   insmod rtlab_warn.ko what=panic panic() at load (the harness must reboot)
 *   insmod rtlab_warn.ko what=sleep might_sleep() with preemption disabled
 *
 * Never load this anywhere but in the lab's QEMU guest.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/preempt.h>
#include <linux/string.h>
#include <linux/bug.h>

static char *what = "warn";
module_param(what, charp, 0444);
MODULE_PARM_DESC(what, "warn (default), panic or sleep");

static int __init rtlab_warn_init(void)
{
	if (!strcmp(what, "warn")) {
		WARN(1, "rtlab_warn: injected warning (console checker self-test)\n");
	} else if (!strcmp(what, "panic")) {
		panic("rtlab_warn: injected panic (harness self-test)\n");
	} else if (!strcmp(what, "sleep")) {
		preempt_disable();
		might_sleep();
		preempt_enable();
	} else {
		pr_err("rtlab_warn: unknown what=%s\n", what);
		return -EINVAL;
	}
	return 0;
}

static void __exit rtlab_warn_exit(void)
{
}

module_init(rtlab_warn_init);
module_exit(rtlab_warn_exit);
MODULE_DESCRIPTION("rtlab: inject a kernel splat to test the console checker");
MODULE_LICENSE("GPL");
