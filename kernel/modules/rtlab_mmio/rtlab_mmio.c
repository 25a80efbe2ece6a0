// SPDX-License-Identifier: GPL-2.0
/*
 * rtlab_mmio - MMIO write bursts followed by a read, against QEMU's "edu"
 * PCI device (vendor 0x1234, device 0x11e8), with three strategies:
 *
 *   none   N writes, then one read back
 *   delay  a pause after every K writes (the drain window of real hardware),
 *          then the read back
 *   flush  a read back after every B writes (B = 1: after each write, as
 *          tpm_tis_flush() does on PREEMPT_RT)
 *
 * The model.  On real PCIe hardware the writes are posted: the CPU does not
 * wait for them, but the next read from the device waits until all of them
 * have reached it, and a CPU stalled in that read takes no interrupt and
 * cannot be preempted.  The stall therefore covers every write issued since
 * the last point where the CPU could do something else.  The module makes
 * that explicit: the accesses between two points where the strategy lets the
 * CPU go (the pause of "delay", the read of "flush") run as one region with
 * interrupts and preemption disabled ("ctx=irqoff", the default: like the
 * stalled CPU, it takes no timer interrupt), or with preemption disabled
 * only ("ctx=preemptoff": interrupts are served inside the region and count
 * in its length).  Every region ends with preempt_enable(), which on
 * CONFIG_PREEMPTION kernels (PREEMPT_RT included) schedules right there if a
 * higher-priority task was woken meanwhile: that is the preemption point.
 * cond_resched() would be no preemption point at all on those kernels, so it
 * is not used.
 *
 * Under QEMU TCG an MMIO access traps to the emulator synchronously; there
 * is no posting and no drain, so the stall of real hardware is not
 * reproduced.  What the module measures is the cost of each strategy as the
 * emulator runs it, and the longest stretch without a preemption point:
 * each region is timed with ktime_get_ns() from right after it was entered
 * to right before it is left; the longest region of a burst is the burst's
 * "stretch".  Nothing else the kernel does is counted.  A log2 histogram of
 * all region lengths gives the typical region apart from the outliers that
 * the emulator's own hiccups (host scheduling, its big lock) cause.
 *
 * Bursts run in the context of the task that writes the command (process
 * context, no lock held at the pause), so "delay" may sleep: by default it
 * sleeps with usleep_range(P, 2 * P) like the 2017 RFC; "wait=spin" busy
 * waits with udelay(P) instead, preemptible during the wait.
 *
 * debugfs, /sys/kernel/debug/rtlab_mmio/:
 *   ctl        write "burst <none|delay|flush> <N> <count> [options]"
 *              options: all:   ctx=irqoff|preemptoff (irqoff)
 *                       delay: every=<K> (32) pause_us=<P> (20)
 *                              wait=sleep|spin (sleep)
 *                       flush: batch=<B> (1)
 *              A write returns when the bursts are done (-EINTR on a
 *              signal; the bursts done so far are kept).
 *   results    "key value" lines of the last run (see README)
 *   durations  one line per burst: "<index> <duration_ns> <stretch_ns>"
 *
 * Test-only: load it in the lab's QEMU guest, never on a real system.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#define EDU_VENDOR		0x1234
#define EDU_DEVICE		0x11e8
#define EDU_REG_ID		0x00	/* 0xRRrr00ed: version and magic */
#define EDU_REG_LIVE		0x04	/* reads back the inverse of a write */
#define EDU_REG_DMA_SRC		0x80	/* DMA registers: plain read/write */
#define EDU_REG_DMA_DST		0x88	/* while no transfer is started */
#define EDU_REG_DMA_CNT		0x90
#define EDU_MAGIC		0xed
#define EDU_BAR_MIN		0x100

#define MAX_N			65536
#define MAX_COUNT		100000
#define MAX_ACCESSES		16777216	/* N * count, bounds a run */
#define MAX_PAUSE_US		10000
#define DEF_EVERY		32
#define DEF_PAUSE_US		20
#define CMD_LEN			128

/* the burst cycles through the edu registers that keep what is written */
static const u32 burst_regs[] = {
	EDU_REG_LIVE, EDU_REG_DMA_SRC, EDU_REG_DMA_DST, EDU_REG_DMA_CNT,
};

enum strategy { STRAT_NONE, STRAT_DELAY, STRAT_FLUSH };
static const char * const strategy_names[] = { "none", "delay", "flush" };

struct burst_params {
	enum strategy strategy;
	u32 n;
	u32 count;
	u32 every;		/* delay: pause after every K writes */
	u32 pause_us;		/* delay: length of a pause */
	bool spin;		/* delay: udelay() instead of usleep_range() */
	u32 batch;		/* flush: read back after every B writes */
	bool preempt_only;	/* regions with interrupts enabled */
};

#define HIST_BUCKETS		64	/* bucket k: regions of [2^(k-1), 2^k) ns */

struct burst_run {
	struct burst_params p;
	bool valid;		/* a run was started */
	int status;		/* 0 complete, -EINTR interrupted */
	u32 done;		/* bursts completed */
	u64 *dur_ns;		/* per burst: first write to the read's end */
	u64 *stretch_ns;	/* per burst: longest preempt-disabled region */
	u32 regions;		/* preempt-disabled regions per burst */
	u32 reads;		/* reads per burst */
	u64 mismatches;		/* read backs that did not match */
	u64 region_hist[HIST_BUCKETS];
	u64 wall_ns;
	int cpu_first;
	int cpu_last;
	u32 cpu_changes;	/* bursts that ended on another CPU */
	unsigned long nvcsw;	/* context switches of the bursting task */
	unsigned long nivcsw;
};

static struct {
	struct pci_dev *pdev;
	void __iomem *base;
	struct dentry *dir;
	struct mutex lock;	/* one run at a time; protects run */
	struct burst_run run;
	u32 seq;		/* value of the next write */
} edu = {
	.lock = __MUTEX_INITIALIZER(edu.lock),
};

/* state of one burst */
struct burst_ctx {
	bool preempt_only;
	u64 region_start;
	u64 longest;
	u32 regions;
	u32 reads;
	u64 mismatches;
	u64 *hist;
};

static void region_open(struct burst_ctx *c)
{
	preempt_disable();
	if (!c->preempt_only)
		local_irq_disable();
	c->region_start = ktime_get_ns();
}

static void region_close(struct burst_ctx *c)
{
	u64 len = ktime_get_ns() - c->region_start;

	if (!c->preempt_only)
		local_irq_enable();
	preempt_enable();	/* the preemption point */
	if (len > c->longest)
		c->longest = len;
	c->regions++;
	c->hist[min_t(unsigned int, fls64(len), HIST_BUCKETS - 1)]++;
}

static void burst_write(u32 i, u32 val)
{
	writel(val, edu.base + burst_regs[i % ARRAY_SIZE(burst_regs)]);
}

/* read back the register written by write i, which wrote val */
static void burst_read(struct burst_ctx *c, u32 i, u32 val)
{
	u32 reg = burst_regs[i % ARRAY_SIZE(burst_regs)];
	u32 got = readl(edu.base + reg);
	u32 want = reg == EDU_REG_LIVE ? ~val : val;

	c->reads++;
	if (got != want)
		c->mismatches++;
}

static void burst_pause(const struct burst_params *p)
{
	if (p->spin)
		udelay(p->pause_us);
	else
		usleep_range(p->pause_us, 2 * p->pause_us);
}

static void burst_one(const struct burst_params *p, struct burst_ctx *c)
{
	u32 i, val = 0;

	region_open(c);
	for (i = 0; i < p->n; i++) {
		val = edu.seq++;
		burst_write(i, val);
		if (p->strategy == STRAT_DELAY && (i + 1) % p->every == 0) {
			region_close(c);
			burst_pause(p);
			region_open(c);
		} else if (p->strategy == STRAT_FLUSH &&
			   ((i + 1) % p->batch == 0 || i + 1 == p->n)) {
			burst_read(c, i, val);
			region_close(c);
			if (i + 1 < p->n)
				region_open(c);
		}
	}
	if (p->strategy != STRAT_FLUSH) {
		burst_read(c, p->n - 1, val);
		region_close(c);
	}
}

static int run_bursts(struct burst_run *r)
{
	const struct burst_params *p = &r->p;
	unsigned long nvcsw = current->nvcsw, nivcsw = current->nivcsw;
	u64 t_start = ktime_get_ns();
	int ret = 0;
	u32 b;

	r->cpu_first = raw_smp_processor_id();
	r->cpu_last = r->cpu_first;
	for (b = 0; b < p->count; b++) {
		struct burst_ctx c = {
			.preempt_only = p->preempt_only,
			.hist = r->region_hist,
		};
		u64 t0;
		int cpu;

		if (signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		t0 = ktime_get_ns();
		burst_one(p, &c);
		r->dur_ns[b] = ktime_get_ns() - t0;
		r->stretch_ns[b] = c.longest;
		r->regions = c.regions;
		r->reads = c.reads;
		r->mismatches += c.mismatches;
		r->done = b + 1;
		cpu = raw_smp_processor_id();
		if (cpu != r->cpu_last)
			r->cpu_changes++;
		r->cpu_last = cpu;
	}
	r->wall_ns = ktime_get_ns() - t_start;
	r->nvcsw = current->nvcsw - nvcsw;
	r->nivcsw = current->nivcsw - nivcsw;
	r->status = ret;
	return ret;
}

static void run_free(struct burst_run *r)
{
	kvfree(r->dur_ns);
	kvfree(r->stretch_ns);
	memset(r, 0, sizeof(*r));
}

static int parse_u32(const char *s, u32 min, u32 max, u32 *out)
{
	u32 v;

	if (!s || kstrtou32(s, 10, &v) || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* "burst <strategy> <N> <count> [options]" into p; -EINVAL if anything is off */
static int parse_burst(char *buf, struct burst_params *p)
{
	char *tok, *words[9];
	bool have_every = false, have_pause = false, have_wait = false;
	bool have_batch = false, have_ctx = false;
	unsigned int nw = 0, i;
	int s;

	while ((tok = strsep(&buf, " \t\n")) != NULL) {
		if (!*tok)
			continue;
		if (nw == ARRAY_SIZE(words))
			return -EINVAL;
		words[nw++] = tok;
	}
	if (nw < 4 || strcmp(words[0], "burst"))
		return -EINVAL;
	s = match_string(strategy_names, ARRAY_SIZE(strategy_names), words[1]);
	if (s < 0)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	p->strategy = s;
	if (parse_u32(words[2], 1, MAX_N, &p->n) ||
	    parse_u32(words[3], 1, MAX_COUNT, &p->count))
		return -EINVAL;
	if ((u64)p->n * p->count > MAX_ACCESSES)
		return -EINVAL;
	p->every = DEF_EVERY;
	p->pause_us = DEF_PAUSE_US;
	p->batch = 1;

	for (i = 4; i < nw; i++) {
		char *val = strchr(words[i], '=');
		const char *key = words[i];

		if (!val)
			return -EINVAL;
		*val++ = '\0';
		if (!strcmp(key, "ctx")) {
			if (have_ctx)
				return -EINVAL;
			if (!strcmp(val, "preemptoff"))
				p->preempt_only = true;
			else if (strcmp(val, "irqoff"))
				return -EINVAL;
			have_ctx = true;
		} else if (p->strategy == STRAT_DELAY && !strcmp(key, "every")) {
			if (have_every || parse_u32(val, 1, MAX_N, &p->every))
				return -EINVAL;
			have_every = true;
		} else if (p->strategy == STRAT_DELAY &&
			   !strcmp(key, "pause_us")) {
			if (have_pause ||
			    parse_u32(val, 1, MAX_PAUSE_US, &p->pause_us))
				return -EINVAL;
			have_pause = true;
		} else if (p->strategy == STRAT_DELAY && !strcmp(key, "wait")) {
			if (have_wait)
				return -EINVAL;
			if (!strcmp(val, "spin"))
				p->spin = true;
			else if (strcmp(val, "sleep"))
				return -EINVAL;
			have_wait = true;
		} else if (p->strategy == STRAT_FLUSH && !strcmp(key, "batch")) {
			if (have_batch || parse_u32(val, 1, MAX_N, &p->batch))
				return -EINVAL;
			have_batch = true;
		} else {
			return -EINVAL;
		}
	}
	if (p->strategy != STRAT_DELAY) {
		p->every = 0;
		p->pause_us = 0;
	}
	if (p->strategy != STRAT_FLUSH)
		p->batch = 0;
	return 0;
}

static ssize_t ctl_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	struct burst_params p;
	struct burst_run *r = &edu.run;
	char buf[CMD_LEN];
	u64 *dur, *stretch;
	int ret;

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (strlen(buf) != len)		/* embedded NUL */
		return -EINVAL;
	ret = parse_burst(buf, &p);
	if (ret)
		return ret;

	dur = kvcalloc(p.count, sizeof(*dur), GFP_KERNEL);
	stretch = kvcalloc(p.count, sizeof(*stretch), GFP_KERNEL);
	if (!dur || !stretch) {
		kvfree(dur);
		kvfree(stretch);
		return -ENOMEM;
	}
	if (mutex_lock_interruptible(&edu.lock)) {
		kvfree(dur);
		kvfree(stretch);
		return -EINTR;
	}
	run_free(r);
	r->p = p;
	r->dur_ns = dur;
	r->stretch_ns = stretch;
	r->valid = true;
	ret = run_bursts(r);
	mutex_unlock(&edu.lock);
	return ret ? ret : len;
}

static const struct file_operations ctl_fops = {
	.owner	= THIS_MODULE,
	.write	= ctl_write,
	.llseek	= noop_llseek,
};

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

struct stats {
	u64 min, median, p99, max;
};

/* order statistics of v[0..n-1] (n > 0), using tmp as scratch */
static void stats_of(const u64 *v, u32 n, u64 *tmp, struct stats *s)
{
	u32 k;

	memcpy(tmp, v, n * sizeof(*v));
	sort(tmp, n, sizeof(*tmp), cmp_u64, NULL);
	s->min = tmp[0];
	s->max = tmp[n - 1];
	s->median = n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
	/* nearest rank: the smallest value with at least 99% at or below */
	k = DIV_ROUND_UP_ULL((u64)n * 99, 100);
	s->p99 = tmp[k - 1];
}

/*
 * regions_total, and the median and p99 region length as the upper bound
 * of their log2 bucket ("region_p50_below_ns 512": the median region took
 * less than 512 ns)
 */
static void hist_show(struct seq_file *m, const u64 *hist)
{
	u64 total = 0, acc = 0, p50 = 0, p99 = 0;
	unsigned int k;

	for (k = 0; k < HIST_BUCKETS; k++)
		total += hist[k];
	for (k = 0; k < HIST_BUCKETS && total; k++) {
		acc += hist[k];
		if (!p50 && acc * 2 >= total)
			p50 = k < 63 ? 1ULL << k : U64_MAX;
		if (!p99 && acc * 100 >= total * 99)
			p99 = k < 63 ? 1ULL << k : U64_MAX;
	}
	seq_printf(m, "regions_total %llu\nregion_p50_below_ns %llu\nregion_p99_below_ns %llu\n",
		   total, p50, p99);
}

static int results_show(struct seq_file *m, void *v)
{
	struct burst_run *r = &edu.run;
	const struct burst_params *p = &r->p;
	struct stats d, st;
	u64 *tmp;

	if (mutex_lock_interruptible(&edu.lock))
		return -EINTR;
	if (!r->valid) {
		seq_puts(m, "status none\n");
		goto out;
	}
	seq_printf(m, "strategy %s\nn %u\ncount %u\n",
		   strategy_names[p->strategy], p->n, p->count);
	seq_printf(m, "every %u\npause_us %u\nwait %s\nbatch %u\n",
		   p->every, p->pause_us,
		   p->strategy != STRAT_DELAY ? "-" : p->spin ? "spin" : "sleep",
		   p->batch);
	seq_printf(m, "ctx %s\n", p->preempt_only ? "preemptoff" : "irqoff");
	seq_printf(m, "status %s\ndone %u\n",
		   r->status ? "interrupted" : "complete", r->done);
	seq_printf(m, "writes_per_burst %u\nreads_per_burst %u\nregions_per_burst %u\n",
		   p->n, r->reads, r->regions);
	seq_printf(m, "mismatches %llu\nwall_ns %llu\n", r->mismatches,
		   r->wall_ns);
	seq_printf(m, "cpu_first %d\ncpu_last %d\ncpu_changes %u\n",
		   r->cpu_first, r->cpu_last, r->cpu_changes);
	seq_printf(m, "nvcsw %lu\nnivcsw %lu\n", r->nvcsw, r->nivcsw);
	if (!r->done)
		goto out;
	tmp = kvmalloc_array(r->done, sizeof(*tmp), GFP_KERNEL);
	if (!tmp) {
		mutex_unlock(&edu.lock);
		return -ENOMEM;
	}
	stats_of(r->dur_ns, r->done, tmp, &d);
	stats_of(r->stretch_ns, r->done, tmp, &st);
	kvfree(tmp);
	seq_printf(m, "min_ns %llu\nmedian_ns %llu\np99_ns %llu\nmax_ns %llu\n",
		   d.min, d.median, d.p99, d.max);
	seq_printf(m, "stretch_median_ns %llu\nstretch_p99_ns %llu\nstretch_max_ns %llu\n",
		   st.median, st.p99, st.max);
	hist_show(m, r->region_hist);
out:
	mutex_unlock(&edu.lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(results);

/* durations: one line per completed burst, the lock held from start to stop */
static void *dur_start(struct seq_file *m, loff_t *pos)
{
	if (mutex_lock_interruptible(&edu.lock))
		return ERR_PTR(-EINTR);
	if (!edu.run.valid || *pos >= edu.run.done)
		return NULL;
	return pos;
}

static void *dur_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return *pos < edu.run.done ? pos : NULL;
}

static void dur_stop(struct seq_file *m, void *v)
{
	if (!IS_ERR(v))
		mutex_unlock(&edu.lock);
}

static int dur_show(struct seq_file *m, void *v)
{
	loff_t i = *(loff_t *)v;

	seq_printf(m, "%lld %llu %llu\n", i, edu.run.dur_ns[i],
		   edu.run.stretch_ns[i]);
	return 0;
}

static const struct seq_operations dur_sops = {
	.start	= dur_start,
	.next	= dur_next,
	.stop	= dur_stop,
	.show	= dur_show,
};
DEFINE_SEQ_ATTRIBUTE(dur);

static int rtlab_mmio_probe(struct pci_dev *pdev,
			    const struct pci_device_id *id)
{
	void __iomem *base;
	u32 ident;
	int ret;

	if (edu.pdev) {
		dev_info(&pdev->dev, "already bound to %s, leaving this one\n",
			 pci_name(edu.pdev));
		return -EBUSY;
	}
	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	if (pci_resource_len(pdev, 0) < EDU_BAR_MIN ||
	    !(pci_resource_flags(pdev, 0) & IORESOURCE_MEM))
		return -ENODEV;
	base = pcim_iomap_region(pdev, 0, KBUILD_MODNAME);
	if (IS_ERR(base))
		return PTR_ERR(base);
	ident = readl(base + EDU_REG_ID);
	if ((ident & 0xff) != EDU_MAGIC) {
		dev_err(&pdev->dev, "identification 0x%08x is not edu's\n",
			ident);
		return -ENODEV;
	}
	edu.pdev = pdev;
	edu.base = base;
	edu.dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("ctl", 0200, edu.dir, NULL, &ctl_fops);
	debugfs_create_file("results", 0400, edu.dir, NULL, &results_fops);
	debugfs_create_file("durations", 0400, edu.dir, NULL, &dur_fops);
	dev_info(&pdev->dev, "edu version %u.%u, BAR0 %pR\n", ident >> 24,
		 (ident >> 16) & 0xff, &pdev->resource[0]);
	return 0;
}

static void rtlab_mmio_remove(struct pci_dev *pdev)
{
	if (pdev != edu.pdev)
		return;
	/* waits for ctl, results and durations users to leave */
	debugfs_remove_recursive(edu.dir);
	mutex_lock(&edu.lock);
	run_free(&edu.run);
	edu.pdev = NULL;
	edu.base = NULL;
	mutex_unlock(&edu.lock);
}

static const struct pci_device_id rtlab_mmio_ids[] = {
	{ PCI_DEVICE(EDU_VENDOR, EDU_DEVICE) },
	{ }
};
MODULE_DEVICE_TABLE(pci, rtlab_mmio_ids);

static struct pci_driver rtlab_mmio_driver = {
	.name		= KBUILD_MODNAME,
	.id_table	= rtlab_mmio_ids,
	.probe		= rtlab_mmio_probe,
	.remove		= rtlab_mmio_remove,
};
module_pci_driver(rtlab_mmio_driver);

MODULE_DESCRIPTION("rtlab: MMIO write bursts against QEMU's edu device, three strategies");
MODULE_LICENSE("GPL");
