// SPDX-License-Identifier: GPL-2.0
/*
 * rtlab_irqsim - threaded interrupts on demand, for testing how user space
 * follows interrupt threads that come and go.
 *
 * The module creates an interrupt simulator domain (CONFIG_IRQ_SIM): real
 * interrupt descriptors whose interrupts software can raise.  Its debugfs
 * directory /sys/kernel/debug/rtlab_irqsim/ has:
 *
 *   ctl     write "request <slot> [name]"  request a threaded irq for <slot>
 *                 "free <slot>"            free it
 *                 "fire <slot>"            raise the interrupt once
 *           A write returns when the operation is complete (request_irq()
 *           or free_irq() returned).
 *   status  one line per slot with a requested irq:
 *           "<slot> <irq> <name> <request_ns> <fired> <handled> <start_ns>"
 *           request_ns is CLOCK_MONOTONIC (ktime_get_ns()) right after
 *           request_irq() returned, start_ns right before it was called,
 *           for notification latency measurements.
 *
 * Test-only: load it in the lab's QEMU guest, never on a real system.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/debugfs.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/irqdomain.h>
#include <linux/irq_sim.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#define SIM_SLOTS	64
#define NAME_LEN	64

struct sim_slot {
	unsigned int irq;		/* mapped on first request, kept until unload */
	bool requested;
	char name[NAME_LEN];
	u64 request_ns;
	u64 start_ns;
	atomic_t fired;
	atomic_t handled;
};

static struct irq_domain *sim_domain;
static struct sim_slot slots[SIM_SLOTS];
static DEFINE_MUTEX(sim_lock);		/* serialises ctl commands */
static struct dentry *sim_dir;

static irqreturn_t sim_thread_fn(int irq, void *data)
{
	struct sim_slot *slot = data;

	atomic_inc(&slot->handled);
	return IRQ_HANDLED;
}

static int sim_request(unsigned int n, const char *name)
{
	struct sim_slot *slot = &slots[n];
	unsigned int irq;
	int ret;

	if (slot->requested)
		return -EBUSY;
	irq = slot->irq ? slot->irq : irq_create_mapping(sim_domain, n);
	if (!irq)
		return -ENOSPC;
	slot->irq = irq;
	if (name && *name)
		strscpy(slot->name, name, sizeof(slot->name));
	else
		snprintf(slot->name, sizeof(slot->name), "rtlab-sim%u", n);
	atomic_set(&slot->fired, 0);
	atomic_set(&slot->handled, 0);
	slot->start_ns = ktime_get_ns();
	ret = request_threaded_irq(irq, NULL, sim_thread_fn, IRQF_ONESHOT,
				   slot->name, slot);
	slot->request_ns = ktime_get_ns();
	if (ret)
		return ret;
	slot->requested = true;
	return 0;
}

static int sim_free(unsigned int n)
{
	struct sim_slot *slot = &slots[n];

	if (!slot->requested)
		return -ENOENT;
	free_irq(slot->irq, slot);
	slot->requested = false;
	return 0;
}

static int sim_fire(unsigned int n)
{
	struct sim_slot *slot = &slots[n];

	if (!slot->requested)
		return -ENOENT;
	atomic_inc(&slot->fired);
	return irq_set_irqchip_state(slot->irq, IRQCHIP_STATE_PENDING, true);
}

static ssize_t ctl_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	char buf[128], cmd[16], name[NAME_LEN];
	unsigned int n;
	int fields, ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	name[0] = '\0';
	fields = sscanf(buf, "%15s %u %63s", cmd, &n, name);
	if (fields < 2 || n >= SIM_SLOTS)
		return -EINVAL;

	mutex_lock(&sim_lock);
	if (!strcmp(cmd, "request"))
		ret = sim_request(n, name);
	else if (!strcmp(cmd, "free"))
		ret = sim_free(n);
	else if (!strcmp(cmd, "fire"))
		ret = sim_fire(n);
	else
		ret = -EINVAL;
	mutex_unlock(&sim_lock);

	return ret ? ret : len;
}

static const struct file_operations ctl_fops = {
	.owner	= THIS_MODULE,
	.write	= ctl_write,
	.llseek	= noop_llseek,
};

static int status_show(struct seq_file *m, void *v)
{
	unsigned int n;

	mutex_lock(&sim_lock);
	for (n = 0; n < SIM_SLOTS; n++) {
		struct sim_slot *slot = &slots[n];

		if (!slot->requested)
			continue;
		seq_printf(m, "%u %u %s %llu %d %d %llu\n", n, slot->irq,
			   slot->name, slot->request_ns,
			   atomic_read(&slot->fired),
			   atomic_read(&slot->handled), slot->start_ns);
	}
	mutex_unlock(&sim_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(status);

static int __init rtlab_irqsim_init(void)
{
	sim_domain = irq_domain_create_sim(NULL, SIM_SLOTS);
	if (IS_ERR(sim_domain))
		return PTR_ERR(sim_domain);
	sim_dir = debugfs_create_dir("rtlab_irqsim", NULL);
	debugfs_create_file("ctl", 0200, sim_dir, NULL, &ctl_fops);
	debugfs_create_file("status", 0444, sim_dir, NULL, &status_fops);
	return 0;
}

static void __exit rtlab_irqsim_exit(void)
{
	unsigned int n;

	debugfs_remove_recursive(sim_dir);
	mutex_lock(&sim_lock);
	for (n = 0; n < SIM_SLOTS; n++) {
		sim_free(n);
		if (slots[n].irq)
			irq_dispose_mapping(slots[n].irq);
	}
	mutex_unlock(&sim_lock);
	irq_domain_remove_sim(sim_domain);
}

module_init(rtlab_irqsim_init);
module_exit(rtlab_irqsim_exit);
MODULE_DESCRIPTION("rtlab: threaded interrupts on demand from the interrupt simulator");
MODULE_LICENSE("GPL");
