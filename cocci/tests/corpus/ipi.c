// SPDX-License-Identifier: GPL-2.0
/* Corpus for rule ipi: cross-CPU function call and hard irq_work callbacks. */
static DEFINE_SPINLOCK(ipi_lock);
static DEFINE_RWLOCK(cfg_lock);
static DEFINE_PER_CPU(call_single_data_t, ipi_csd);

static void ipi_count(void)
{
	write_lock(&cfg_lock);
	write_unlock(&cfg_lock);
}

static void ipi_single_fn(void *info)
{
	spin_lock(&ipi_lock);	/* expect: ipi &ipi_lock */
	spin_unlock(&ipi_lock);
}

static void ipi_each_fn(void *info)
{
	ipi_count();	/* expect: ipi &cfg_lock via ipi_count() */
}

static bool ipi_cond(int cpu, void *info)
{
	return cpu != 0;
}

static void ipi_cond_fn(void *info)
{
	read_lock(&cfg_lock);	/* expect: ipi &cfg_lock */
	read_unlock(&cfg_lock);
}

static void ipi_csd_fn(void *info)
{
	unsigned long flags;

	spin_lock_irqsave(&ipi_lock, flags);	/* expect: ipi &ipi_lock */
	spin_unlock_irqrestore(&ipi_lock, flags);
}

static void ipi_hard_work_fn(struct irq_work *w)
{
	spin_lock(&ipi_lock);	/* expect: ipi &ipi_lock */
	spin_unlock(&ipi_lock);
}

static struct irq_work ipi_hard_work = IRQ_WORK_INIT_HARD(ipi_hard_work_fn);

/* runs in a kworker / irq_work thread on RT: no finding */
static void ipi_work_fn(struct work_struct *w)
{
	ipi_count();
}

static void ipi_soft_work_fn(struct irq_work *w)
{
	ipi_count();
}

static struct irq_work ipi_soft_work = IRQ_WORK_INIT(ipi_soft_work_fn);
static DECLARE_WORK(ipi_work, ipi_work_fn);

static int ipi_on_cpu_fn(void *info)
{
	ipi_count();
	return 0;
}

void ipi_kick(int cpu)
{
	call_single_data_t *csd = per_cpu_ptr(&ipi_csd, cpu);

	smp_call_function_single(cpu, ipi_single_fn, NULL, 1);
	on_each_cpu(ipi_each_fn, NULL, 1);
	on_each_cpu_cond(ipi_cond, ipi_cond_fn, NULL, true);
	INIT_CSD(csd, ipi_csd_fn, NULL);
	smp_call_function_single_async(cpu, csd);
	smp_call_on_cpu(cpu, ipi_on_cpu_fn, NULL, false);
	schedule_work(&ipi_work);
	irq_work_queue(&ipi_hard_work);
	irq_work_queue(&ipi_soft_work);
}
