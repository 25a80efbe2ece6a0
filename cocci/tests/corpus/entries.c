// SPDX-License-Identifier: GPL-2.0
/* Corpus: entry points that run in hard irq or with irqs off on RT. */
static DEFINE_SPINLOCK(s);
struct priv { struct hrtimer hard_timer; struct hrtimer soft_timer;
	      call_single_data_t csd; struct mychip chip; int irq; };
static struct priv the;

static irqreturn_t flags_isr(int irq, void *data)
{
	spin_lock(&s);	/* expect: irqhandler &s */
	spin_unlock(&s);
	return IRQ_HANDLED;
}

static irqreturn_t shared_isr(int irq, void *data)
{
	spin_lock(&s);
	spin_unlock(&s);
	return IRQ_HANDLED;
}

static int starting_cpu(unsigned int cpu)
{
	spin_lock(&s);	/* expect: cpuhp &s */
	spin_unlock(&s);
	return 0;
}

static int dying_cpu(unsigned int cpu)
{
	kfree(NULL);	/* expect: cpuhp kfree() */
	return 0;
}

static int online_cpu(unsigned int cpu)
{
	spin_lock(&s);
	spin_unlock(&s);
	return 0;
}

static void csd_fn(void *info)
{
	spin_lock(&s);	/* expect: ipi &s */
	spin_unlock(&s);
}

static int pm_notify(struct notifier_block *nb, unsigned long cmd, void *v)
{
	spin_lock(&s);	/* expect: cpupm &s */
	spin_unlock(&s);
	return NOTIFY_OK;
}

static int reboot_notify(struct notifier_block *nb, unsigned long cmd, void *v)
{
	spin_lock(&s);
	spin_unlock(&s);
	return NOTIFY_OK;
}

static struct notifier_block pm_nb = { .notifier_call = pm_notify };
static struct notifier_block reboot_nb = { .notifier_call = reboot_notify };

static int my_suspend(void)
{
	spin_lock(&s);	/* hidden: syscore &s suspend-only */
	spin_unlock(&s);
	return 0;
}

static void my_shutdown(void)
{
	spin_lock(&s);
}

static struct syscore_ops my_syscore = {
	.suspend = my_suspend,
	.shutdown = my_shutdown,
};

static enum hrtimer_restart hard_fn(struct hrtimer *t)
{
	spin_lock(&s);	/* expect: hrtimer &s */
	spin_unlock(&s);
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart soft_fn(struct hrtimer *t)
{
	spin_lock(&s);
	spin_unlock(&s);
	return HRTIMER_NORESTART;
}

static void chip_mask(struct irq_data *d)
{
	spin_lock(&s);	/* expect: irqchip &s */
	spin_unlock(&s);
}

static void setup_timers(struct priv *p)
{
	hrtimer_init(&p->hard_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	hrtimer_init(&p->soft_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
}

static void setup_functions(struct priv *p)
{
	p->hard_timer.function = hard_fn;
	p->soft_timer.function = soft_fn;
	p->csd.func = csd_fn;
	p->chip.irq_mask = chip_mask;
}

static int setup(struct priv *p)
{
	unsigned long flags = IRQF_TIMER;
	unsigned long shared = IRQF_SHARED;
	int ret;

	setup_timers(p);
	setup_functions(p);
	cpuhp_setup_state(CPUHP_AP_MY_STARTING, "my:starting", starting_cpu, dying_cpu);
	cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "my:online", online_cpu, NULL);
	cpu_pm_register_notifier(&pm_nb);
	register_reboot_notifier(&reboot_nb);
	register_syscore_ops(&my_syscore);
	ret = request_irq(p->irq, flags_isr, flags, "my", p);
	if (ret)
		return ret;
	return request_irq(p->irq + 1, shared_isr, shared, "my", p);
}
