// SPDX-License-Identifier: GPL-2.0
/*
 * Corpus: sleeping calls and contexts added for recall (REVIEW.md):
 * get_random_*() (local_lock_t), runtime PM (dev->power.lock), the skcipher
 * walk (allocates/frees), in-kernel FPU/SIMD sections (preemption off on
 * RT) and pci_ops config accessors (under the raw pci_lock).
 */
struct fd { struct device *dev; spinlock_t cfg_lock; raw_spinlock_t raw;
	    void __iomem *base; void *buf; };
static DEFINE_RAW_SPINLOCK(fam_raw);
static DEFINE_SPINLOCK(fam_lock);

/* --- get_random_*() ---------------------------------------------------- */

static void fam_choose(struct fd *f)
{
	unsigned int cpu;

	preempt_disable();
	cpu = get_random_u32_below(8);	/* expect: preemptoff get_random_u32_below() */
	preempt_enable();
	f->buf = (void *)(unsigned long)cpu;
}

static void fam_seed(struct fd *f)
{
	u64 v;

	raw_spin_lock(&fam_raw);
	get_random_bytes(&v, sizeof(v));	/* expect: rawlock get_random_bytes() */
	raw_spin_unlock(&fam_raw);
}

/* negative: migrate_disable() leaves the task preemptible on RT */
static void fam_choose_fixed(struct fd *f)
{
	unsigned int cpu;

	migrate_disable();
	cpu = get_random_u32_below(8);
	migrate_enable();
	preempt_disable();
	f->buf = (void *)(unsigned long)cpu;
	preempt_enable();
	f->buf = (void *)(unsigned long)get_random_u32();
}

/* --- runtime PM ------------------------------------------------------------ */

/* CPUHP_AP_*_STARTING: irqs off on the CPU coming up */
static int fam_cpu_up(unsigned int cpu)
{
	struct fd *f = this_cpu_ptr(&fam_dev);

	pm_runtime_get_sync(f->dev);	/* expect: cpuhp pm_runtime_get_sync() */
	return 0;
}

static int fam_cpu_down(unsigned int cpu)
{
	struct fd *f = this_cpu_ptr(&fam_dev);

	pm_runtime_put_sync(f->dev);	/* expect: cpuhp pm_runtime_put_sync() */
	return 0;
}

/* negative: an ONLINE_DYN callback runs in a thread */
static int fam_cpu_online(unsigned int cpu)
{
	struct fd *f = this_cpu_ptr(&fam_dev);

	pm_runtime_get_sync(f->dev);
	return 0;
}

/* negative: no lock in the usage-count and last-busy helpers */
static void fam_busy(struct fd *f)
{
	raw_spin_lock(&f->raw);
	pm_runtime_mark_last_busy(f->dev);
	pm_runtime_put_noidle(f->dev);
	raw_spin_unlock(&f->raw);
}

static void fam_irq_mask(struct irq_data *d)
{
	struct fd *f = irq_data_get_irq_chip_data(d);

	pm_runtime_put(f->dev);	/* expect: irqchip pm_runtime_put() */
}

static struct irq_chip fam_chip = {
	.name = "fam",
	.irq_mask = fam_irq_mask,
};

/* --- FPU / SIMD sections and the skcipher walk ------------------------------ */

static int fam_encrypt(struct skcipher_request *req)
{
	struct skcipher_walk walk;
	int err;

	err = skcipher_walk_virt(&walk, req, false);
	kernel_fpu_begin();
	while (walk.nbytes) {
		fam_crypt(walk.dst.virt.addr, walk.src.virt.addr, walk.nbytes);
		err = skcipher_walk_done(&walk, 0);	/* expect: preemptoff skcipher_walk_done() */
	}
	kernel_fpu_end();
	return err;
}

/* negative: the walk step between kernel_fpu_end() and kernel_fpu_begin() */
static int fam_encrypt_fixed(struct skcipher_request *req)
{
	struct skcipher_walk walk;
	int err;

	err = skcipher_walk_virt(&walk, req, false);
	while (walk.nbytes) {
		kernel_fpu_begin();
		fam_crypt(walk.dst.virt.addr, walk.src.virt.addr, walk.nbytes);
		kernel_fpu_end();
		err = skcipher_walk_done(&walk, 0);
	}
	return err;
}

static void fam_neon(struct fd *f)
{
	kernel_neon_begin();
	f->buf = kmalloc(64, GFP_ATOMIC);	/* expect: preemptoff kmalloc() */
	kernel_neon_end();
	kfree(f->buf);
}

/* --- pci_ops config accessors ---------------------------------------------- */

static int fam_pci_read(struct pci_bus *bus, unsigned int devfn, int reg, int len, u32 *val)
{
	struct fd *f = bus->sysdata;
	unsigned long flags;

	spin_lock_irqsave(&f->cfg_lock, flags);	/* expect: pciops &f->cfg_lock */
	*val = readl(f->base + reg);
	spin_unlock_irqrestore(&f->cfg_lock, flags);
	return 0;
}

static void fam_cfg_write(struct fd *f, int reg, u32 val)
{
	spin_lock(&fam_lock);
	writel(val, f->base + reg);
	spin_unlock(&fam_lock);
}

static int fam_pci_write(struct pci_bus *bus, unsigned int devfn, int reg, int len, u32 val)
{
	fam_cfg_write(bus->sysdata, reg, val);	/* expect: pciops &fam_lock via fam_cfg_write() */
	return 0;
}

static struct pci_ops fam_pci_ops = {
	.read = fam_pci_read,
	.write = fam_pci_write,
};

static void __iomem *fam_map_bus(struct pci_bus *bus, unsigned int devfn, int where)
{
	struct fd *f = bus->sysdata;

	f->buf = kzalloc(16, GFP_ATOMIC);	/* expect: pciops kzalloc() */
	return f->base + where;
}

static const struct pci_ecam_ops fam_ecam_ops = {
	.bus_shift = 20,
	.pci_ops = {
		.map_bus = fam_map_bus,
		.read = pci_generic_config_read,
		.write = pci_generic_config_write,
	}
};

/* negative: an accessor under a raw lock, and a .read that is not a pci_ops */
static int fam_pci_read_raw(struct pci_bus *bus, unsigned int devfn, int reg, int len, u32 *val)
{
	struct fd *f = bus->sysdata;
	unsigned long flags;

	raw_spin_lock_irqsave(&f->raw, flags);
	*val = readl(f->base + reg);
	raw_spin_unlock_irqrestore(&f->raw, flags);
	return 0;
}

static struct pci_ops fam_pci_ops_raw = {
	.read = fam_pci_read_raw,
};

static ssize_t fam_file_read(struct file *file, char __user *buf, size_t n, loff_t *pos)
{
	spin_lock(&fam_lock);
	spin_unlock(&fam_lock);
	return 0;
}

static const struct file_operations fam_fops = {
	.read = fam_file_read,
};

static int fam_init(void)
{
	cpuhp_setup_state(CPUHP_AP_FAM_STARTING, "fam:starting", fam_cpu_up, fam_cpu_down);
	cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "fam:online", fam_cpu_online, NULL);
	return 0;
}

/* --- perf PMU callbacks ------------------------------------------------------ */

static void fam_pmu_add(struct perf_event *event, int flags)
{
	struct fd *f = event->pmu_private;

	spin_lock(&f->cfg_lock);	/* expect: perf &f->cfg_lock */
	spin_unlock(&f->cfg_lock);
}

static void fam_pmu_read(struct perf_event *event)
{
	struct fd *f = event->pmu_private;

	f->buf = kzalloc(8, GFP_ATOMIC);	/* expect: perf kzalloc() */
}

/* negative: event_init runs from perf_event_open(), it may sleep */
static int fam_pmu_event_init(struct perf_event *event)
{
	struct fd *f = event->pmu_private;

	f->buf = kzalloc(8, GFP_KERNEL);
	return 0;
}

static struct pmu fam_pmu = {
	.event_init = fam_pmu_event_init,
	.add = fam_pmu_add,
	.read = fam_pmu_read,
};

static void fam_pmu2_stop(struct perf_event *event, int flags)
{
	pm_runtime_put(event->pmu_private);	/* expect: perf pm_runtime_put() */
}

static int fam_pmu2_register(struct fd_pmu *p)
{
	p->pmu = (struct pmu) {
		.module = THIS_MODULE,
		.event_init = fam_pmu_event_init,
		.stop = fam_pmu2_stop,
	};
	return perf_pmu_register(&p->pmu, "fam2", -1);
}
