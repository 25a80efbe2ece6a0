// SPDX-License-Identifier: GPL-2.0
/*
 * rtlab_cpufreq - a cpufreq driver for QEMU guests, which have no
 * frequency hardware: it lets schedutil run and records every frequency
 * it is asked for, so that a test can compare schedutil's requests with
 * what the scheduler's utilization (the deadline bandwidth among it)
 * should give.
 *
 * One policy per CPU; the "hardware" has RTLAB_NR_STEPS frequencies evenly
 * spaced up to RTLAB_TOP_KHZ and grants the lowest step at or above a
 * request (the top step above it).  Fast switching: schedutil then calls
 * the driver from the scheduler's own context, so every request is seen
 * in order, with the reference it was computed from.
 *
 * Why no frequency table: with one, cpufreq resolves schedutil's raw
 * request to a step before the driver sees it, and the utilization behind
 * it is lost to the step's width.  Without one the driver receives the raw
 * request, and as x86 in QEMU is not frequency invariant
 * (arch_scale_freq_invariant() is false and not ours to change), 6.12's
 * get_next_freq() computes it as
 *     request = ref * util / 1024,   ref = cur + cur / 4
 * (cur = policy->cur when schedutil ran), so util - for a deadline load,
 * cpu_bw_dl() = running_bw * 1024 >> 20 - is read back exactly from each
 * logged request.  cpuinfo.max_freq is RTLAB_REQ_MAX_KHZ = 5/4 of the top
 * step, and min RTLAB_REQ_MIN_KHZ, so that the policy limits never clamp a
 * request the scheduler can make.
 *
 * Fast switching needs no cpufreq transition notifier to be registered.
 * On an x86 CPU without constant_tsc (QEMU's TCG CPUs: TCG has no invtsc)
 * the TSC code registers one (time_cpufreq_notifier(): it rescales the
 * TSC clock with the CPU frequency), which makes cpufreq refuse fast
 * switching, and on the slow path would rescale the guest's clock at each
 * emulated change.  The emulated frequency changes nothing, so the module
 * unhooks that notifier while it is loaded (found as the entry after its
 * own, registered first on the chain: the chain head is not exported) and
 * puts it back at unload.
 *
 * A granted frequency changes what the driver reports (policy->cur, ->get())
 * and, with scale_capacity=1 (default), the CPU's arch_freq_scale
 * (granted / top step), the frequency-capacity factor that PELT and the
 * runtime accounting of non-reclaiming deadline tasks read.
 *
 * debugfs /sys/kernel/debug/rtlab_cpufreq/:
 *   log    one line per request since the last clear, oldest first:
 *          "<ktime_get_ns()> <cpu> <cur kHz> <requested kHz> <granted kHz>"
 *          (at most RTLAB_LOG lines; "# lost N" first if more came);
 *          any write clears it
 *   steps  the granted frequencies, kHz, ascending
 *   fast_switch  1 if schedutil switches fast on every policy, else 0
 *
 * Test-only: load it in the lab's QEMU guest, never on a real system.
 */
#include <linux/cpufreq.h>
#include <linux/debugfs.h>
#include <linux/kallsyms.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/percpu.h>
#include <linux/sched/topology.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>

#define RTLAB_NR_STEPS		8
#define RTLAB_TOP_KHZ		2000000
#define RTLAB_STEP_KHZ		(RTLAB_TOP_KHZ / RTLAB_NR_STEPS)
/* schedutil's non-invariant headroom: it asks up to 5/4 of policy->cur */
#define RTLAB_REQ_MAX_KHZ	(RTLAB_TOP_KHZ / 4 * 5)
#define RTLAB_REQ_MIN_KHZ	1000
#define RTLAB_LOG		16384
#define RTLAB_TSC_NOTIFIER	"time_cpufreq_notifier"

struct rtlab_req {
	u64 ns;
	u32 cpu;
	u32 cur_khz;
	u32 req_khz;
	u32 khz;
};

/* the log is written from the scheduler (rq lock held): a raw lock */
static DEFINE_RAW_SPINLOCK(rtlab_log_lock);
static struct rtlab_req *rtlab_log;
static unsigned int rtlab_log_len;
static unsigned long rtlab_lost;
static DEFINE_PER_CPU(unsigned int, rtlab_cur_khz);
static struct dentry *rtlab_dir;
static struct notifier_block *rtlab_tsc_nb;

static bool scale_capacity = true;
module_param(scale_capacity, bool, 0444);
MODULE_PARM_DESC(scale_capacity, "scale the CPU's arch_freq_scale with the granted frequency");

/* rtlab_grant: the lowest step at or above khz, the top step above them all */
static unsigned int rtlab_grant(unsigned int khz)
{
	unsigned int steps = DIV_ROUND_UP(khz, RTLAB_STEP_KHZ);

	return clamp_t(unsigned int, steps, 1, RTLAB_NR_STEPS) * RTLAB_STEP_KHZ;
}

static void rtlab_record(struct cpufreq_policy *policy, unsigned int req, unsigned int khz)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&rtlab_log_lock, flags);
	if (rtlab_log_len < RTLAB_LOG)
		rtlab_log[rtlab_log_len++] = (struct rtlab_req){
			ktime_get_ns(), policy->cpu, policy->cur, req, khz };
	else
		rtlab_lost++;
	raw_spin_unlock_irqrestore(&rtlab_log_lock, flags);
}

/* rtlab_set: log the request against the current frequency, then grant */
static unsigned int rtlab_set(struct cpufreq_policy *policy, unsigned int req)
{
	unsigned int khz = rtlab_grant(req), cpu;

	rtlab_record(policy, req, khz);
	for_each_cpu(cpu, policy->related_cpus) {
		per_cpu(rtlab_cur_khz, cpu) = khz;
		if (scale_capacity)
			per_cpu(arch_freq_scale, cpu) =
				div_u64((u64)khz * SCHED_CAPACITY_SCALE, RTLAB_TOP_KHZ);
	}
	return khz;
}

static unsigned int rtlab_fast_switch(struct cpufreq_policy *policy, unsigned int target)
{
	return rtlab_set(policy, target);
}

/* the slow path (governors other than schedutil): notify, as ->target must */
static int rtlab_target(struct cpufreq_policy *policy, unsigned int target, unsigned int relation)
{
	struct cpufreq_freqs freqs = { .old = policy->cur, .new = rtlab_grant(target) };

	cpufreq_freq_transition_begin(policy, &freqs);
	rtlab_set(policy, target);
	cpufreq_freq_transition_end(policy, &freqs, 0);
	return 0;
}

static int rtlab_verify(struct cpufreq_policy_data *policy)
{
	cpufreq_verify_within_cpu_limits(policy);
	return 0;
}

static unsigned int rtlab_get(unsigned int cpu)
{
	return per_cpu(rtlab_cur_khz, cpu);
}

static int rtlab_cpu_init(struct cpufreq_policy *policy)
{
	policy->cpuinfo.min_freq = RTLAB_REQ_MIN_KHZ;
	policy->cpuinfo.max_freq = RTLAB_REQ_MAX_KHZ;
	policy->min = RTLAB_REQ_MIN_KHZ;
	policy->max = RTLAB_REQ_MAX_KHZ;
	policy->cpuinfo.transition_latency = 0;
	policy->fast_switch_possible = true;
	per_cpu(rtlab_cur_khz, policy->cpu) = RTLAB_TOP_KHZ;
	policy->cur = RTLAB_TOP_KHZ;
	return 0;
}

static void rtlab_cpu_exit(struct cpufreq_policy *policy)
{
	per_cpu(arch_freq_scale, policy->cpu) = SCHED_CAPACITY_SCALE;
}

static struct cpufreq_driver rtlab_driver = {
	.name		= "rtlab_cpufreq",
	.flags		= CPUFREQ_CONST_LOOPS,
	.verify		= rtlab_verify,
	.target		= rtlab_target,
	.fast_switch	= rtlab_fast_switch,
	.get		= rtlab_get,
	.init		= rtlab_cpu_init,
	.exit		= rtlab_cpu_exit,
};

static int rtlab_nop_notifier(struct notifier_block *nb, unsigned long val, void *data)
{
	return NOTIFY_DONE;
}

/*
 * rtlab_unhook_tsc: take x86's TSC transition notifier off the cpufreq
 * chain.  Registered with the highest priority, a notifier of ours heads
 * the chain and its ->next is the entry that follows: the TSC's if that
 * is the only one (checked by name).  Any other notifier is left alone
 * (fast switching then stays off, and the test says so).
 */
static void rtlab_unhook_tsc(void)
{
	struct notifier_block probe = { .notifier_call = rtlab_nop_notifier, .priority = INT_MAX };
	char name[KSYM_SYMBOL_LEN];
	struct notifier_block *next;

	if (cpufreq_register_notifier(&probe, CPUFREQ_TRANSITION_NOTIFIER))
		return;
	next = probe.next;
	cpufreq_unregister_notifier(&probe, CPUFREQ_TRANSITION_NOTIFIER);
	if (!next)
		return;
	sprint_symbol_no_offset(name, (unsigned long)next->notifier_call);
	if (strcmp(name, RTLAB_TSC_NOTIFIER) || next->next) {
		pr_info("rtlab_cpufreq: notifier %s kept: fast switching stays off\n", name);
		return;
	}
	if (!cpufreq_unregister_notifier(next, CPUFREQ_TRANSITION_NOTIFIER)) {
		rtlab_tsc_nb = next;
		pr_info("rtlab_cpufreq: %s unhooked while loaded (the emulated frequency leaves the TSC alone)\n",
			name);
	}
}

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
		seq_printf(m, "%llu %u %u %u %u\n", rtlab_log[i].ns, rtlab_log[i].cpu,
			   rtlab_log[i].cur_khz, rtlab_log[i].req_khz, rtlab_log[i].khz);
	return 0;
}

static int rtlab_log_open(struct inode *inode, struct file *file)
{
	return single_open_size(file, rtlab_log_show, NULL, (RTLAB_LOG + 1) * 64);
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

	for (i = 1; i <= RTLAB_NR_STEPS; i++)
		seq_printf(m, "%u\n", i * RTLAB_STEP_KHZ);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rtlab_steps);

static int rtlab_fast_show(struct seq_file *m, void *v)
{
	struct cpufreq_policy *policy;
	bool all = true;
	unsigned int cpu;

	for_each_online_cpu(cpu) {
		policy = cpufreq_cpu_get(cpu);
		all = all && policy && policy->fast_switch_enabled;
		if (policy)
			cpufreq_cpu_put(policy);
	}
	seq_printf(m, "%d\n", all);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rtlab_fast);

static int __init rtlab_cpufreq_init(void)
{
	int ret;

	rtlab_log = kvcalloc(RTLAB_LOG, sizeof(*rtlab_log), GFP_KERNEL);
	if (!rtlab_log)
		return -ENOMEM;
	rtlab_dir = debugfs_create_dir("rtlab_cpufreq", NULL);
	debugfs_create_file("log", 0600, rtlab_dir, NULL, &rtlab_log_fops);
	debugfs_create_file("steps", 0400, rtlab_dir, NULL, &rtlab_steps_fops);
	debugfs_create_file("fast_switch", 0400, rtlab_dir, NULL, &rtlab_fast_fops);

	rtlab_unhook_tsc();
	ret = cpufreq_register_driver(&rtlab_driver);
	if (ret) {
		if (rtlab_tsc_nb)
			cpufreq_register_notifier(rtlab_tsc_nb, CPUFREQ_TRANSITION_NOTIFIER);
		debugfs_remove_recursive(rtlab_dir);
		kvfree(rtlab_log);
	}
	return ret;
}

static void __exit rtlab_cpufreq_exit(void)
{
	cpufreq_unregister_driver(&rtlab_driver);
	/* schedutil let go of fast switching with the policies: notifiers fit again */
	if (rtlab_tsc_nb && cpufreq_register_notifier(rtlab_tsc_nb, CPUFREQ_TRANSITION_NOTIFIER))
		pr_warn("rtlab_cpufreq: could not put %s back\n", RTLAB_TSC_NOTIFIER);
	debugfs_remove_recursive(rtlab_dir);
	kvfree(rtlab_log);
}

module_init(rtlab_cpufreq_init);
module_exit(rtlab_cpufreq_exit);
MODULE_DESCRIPTION("rtlab: recording cpufreq driver for schedutil tests in QEMU");
MODULE_LICENSE("GPL");
