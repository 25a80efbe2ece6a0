// SPDX-License-Identifier: GPL-2.0
/*
 * rtlab_cpufreq - a cpufreq driver for QEMU guests, which have no
 * frequency hardware: it lets schedutil run and records every frequency
 * it is asked for, so that a test can compare schedutil's requests with
 * what the scheduler's utilization (the deadline bandwidth among it)
 * should give.
 *
 * One policy per CPU, RTLAB_NR_STEPS frequencies evenly spaced up to
 * RTLAB_MAX_KHZ, fast switching (schedutil then requests from the
 * scheduler's own context, so every request is seen in order).  A
 * "granted" frequency only changes what the driver reports (policy->cur,
 * ->get()) and, with scale_capacity=1 (default), the CPU's
 * arch_freq_scale, the frequency-capacity factor that PELT and the
 * deadline runtime accounting of non-reclaiming tasks read; x86's
 * arch_scale_freq_invariant() key is not exported, so schedutil itself
 * stays non-invariant (it maps utilization relative to policy->cur).
 *
 * debugfs /sys/kernel/debug/rtlab_cpufreq/:
 *   log    one line per request since the last clear, oldest first:
 *          "<ktime_get_ns()> <cpu> <requested kHz> <granted kHz>"
 *          (at most RTLAB_LOG lines; "# lost N" first if more came)
 *          any write clears it
 *   steps  the frequency table, kHz, ascending
 *
 * Test-only: load it in the lab's QEMU guest, never on a real system.
 */
#include <linux/cpufreq.h>
#include <linux/debugfs.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched/topology.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>

#define RTLAB_NR_STEPS	8
#define RTLAB_MAX_KHZ	2000000
#define RTLAB_LOG	16384

struct rtlab_req {
	u64 ns;
	u32 cpu;
	u32 req_khz;
	u32 khz;
};

static struct cpufreq_frequency_table rtlab_table[RTLAB_NR_STEPS + 1];
/* the log is written from the scheduler (rq lock held): a raw lock */
static DEFINE_RAW_SPINLOCK(rtlab_log_lock);
static struct rtlab_req *rtlab_log;
static unsigned int rtlab_log_len;
static unsigned long rtlab_lost;
static DEFINE_PER_CPU(unsigned int, rtlab_cur_khz);
static struct dentry *rtlab_dir;

static bool scale_capacity = true;
module_param(scale_capacity, bool, 0444);
MODULE_PARM_DESC(scale_capacity, "scale the CPU's arch_freq_scale with the granted frequency");

static void rtlab_record(unsigned int cpu, unsigned int req, unsigned int khz)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&rtlab_log_lock, flags);
	if (rtlab_log_len < RTLAB_LOG)
		rtlab_log[rtlab_log_len++] = (struct rtlab_req){ ktime_get_ns(), cpu, req, khz };
	else
		rtlab_lost++;
	raw_spin_unlock_irqrestore(&rtlab_log_lock, flags);
}

static void rtlab_set(struct cpufreq_policy *policy, unsigned int req, unsigned int khz)
{
	unsigned int cpu = policy->cpu;

	rtlab_record(cpu, req, khz);
	per_cpu(rtlab_cur_khz, cpu) = khz;
	if (scale_capacity)
		per_cpu(arch_freq_scale, cpu) = div_u64((u64)khz * SCHED_CAPACITY_SCALE, RTLAB_MAX_KHZ);
}

static unsigned int rtlab_fast_switch(struct cpufreq_policy *policy, unsigned int target)
{
	int idx = cpufreq_frequency_table_target(policy, target, policy->min,
						 policy->max, CPUFREQ_RELATION_L);
	unsigned int khz = policy->freq_table[idx].frequency;

	rtlab_set(policy, target, khz);
	return khz;
}

static int rtlab_target_index(struct cpufreq_policy *policy, unsigned int idx)
{
	unsigned int khz = policy->freq_table[idx].frequency;

	rtlab_set(policy, khz, khz);
	return 0;
}

static unsigned int rtlab_get(unsigned int cpu)
{
	return per_cpu(rtlab_cur_khz, cpu);
}

static int rtlab_cpu_init(struct cpufreq_policy *policy)
{
	policy->freq_table = rtlab_table;
	policy->cpuinfo.transition_latency = 0;
	policy->fast_switch_possible = true;
	per_cpu(rtlab_cur_khz, policy->cpu) = RTLAB_MAX_KHZ;
	policy->cur = RTLAB_MAX_KHZ;
	return 0;
}

static void rtlab_cpu_exit(struct cpufreq_policy *policy)
{
	per_cpu(arch_freq_scale, policy->cpu) = SCHED_CAPACITY_SCALE;
}

static struct cpufreq_driver rtlab_driver = {
	.name		= "rtlab_cpufreq",
	.verify		= cpufreq_generic_frequency_table_verify,
	.target_index	= rtlab_target_index,
	.fast_switch	= rtlab_fast_switch,
	.get		= rtlab_get,
	.init		= rtlab_cpu_init,
	.exit		= rtlab_cpu_exit,
	.attr		= cpufreq_generic_attr,
};

static int rtlab_log_show(struct seq_file *m, void *v)
{
	unsigned int i, n;
	unsigned long lost;

	/* a copy of the count only: entries below it are never rewritten until a clear */
	raw_spin_lock_irq(&rtlab_log_lock);
	n = rtlab_log_len;
	lost = rtlab_lost;
	raw_spin_unlock_irq(&rtlab_log_lock);
	if (lost)
		seq_printf(m, "# lost %lu\n", lost);
	for (i = 0; i < n; i++)
		seq_printf(m, "%llu %u %u %u\n", rtlab_log[i].ns, rtlab_log[i].cpu,
			   rtlab_log[i].req_khz, rtlab_log[i].khz);
	return 0;
}

static int rtlab_log_open(struct inode *inode, struct file *file)
{
	return single_open_size(file, rtlab_log_show, NULL, (RTLAB_LOG + 1) * 48);
}

static ssize_t rtlab_log_write(struct file *file, const char __user *buf, size_t len, loff_t *ppos)
{
	raw_spin_lock_irq(&rtlab_log_lock);
	rtlab_log_len = 0;
	rtlab_lost = 0;
	raw_spin_unlock_irq(&rtlab_log_lock);
	return len;
}

static const struct file_operations rtlab_log_fops = {
	.owner		= THIS_MODULE,
	.open		= rtlab_log_open,
	.read		= seq_read,
	.write		= rtlab_log_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static int rtlab_steps_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < RTLAB_NR_STEPS; i++)
		seq_printf(m, "%u\n", rtlab_table[i].frequency);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rtlab_steps);

static int __init rtlab_cpufreq_init(void)
{
	int i, ret;

	for (i = 0; i < RTLAB_NR_STEPS; i++) {
		rtlab_table[i].driver_data = i;
		rtlab_table[i].frequency = RTLAB_MAX_KHZ / RTLAB_NR_STEPS * (i + 1);
	}
	rtlab_table[RTLAB_NR_STEPS].frequency = CPUFREQ_TABLE_END;

	rtlab_log = kvcalloc(RTLAB_LOG, sizeof(*rtlab_log), GFP_KERNEL);
	if (!rtlab_log)
		return -ENOMEM;
	rtlab_dir = debugfs_create_dir("rtlab_cpufreq", NULL);
	debugfs_create_file("log", 0600, rtlab_dir, NULL, &rtlab_log_fops);
	debugfs_create_file("steps", 0400, rtlab_dir, NULL, &rtlab_steps_fops);

	ret = cpufreq_register_driver(&rtlab_driver);
	if (ret) {
		debugfs_remove_recursive(rtlab_dir);
		kvfree(rtlab_log);
	}
	return ret;
}

static void __exit rtlab_cpufreq_exit(void)
{
	cpufreq_unregister_driver(&rtlab_driver);
	debugfs_remove_recursive(rtlab_dir);
	kvfree(rtlab_log);
}

module_init(rtlab_cpufreq_init);
module_exit(rtlab_cpufreq_exit);
MODULE_DESCRIPTION("rtlab: recording cpufreq driver for schedutil tests in QEMU");
MODULE_LICENSE("GPL");
