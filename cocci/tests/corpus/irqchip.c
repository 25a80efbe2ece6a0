// SPDX-License-Identifier: GPL-2.0
/* Corpus for rule irqchip, and for patch mode of sleeping_lock_hardirq. */
struct foo_gpio {
	spinlock_t lock;
	struct mutex bus_lock;
	void __iomem *base;
	struct irq_chip chip;
};

/* only taken in irq_chip callbacks: patch mode makes it raw */
static DEFINE_SPINLOCK(mask_lock);
/* taken in an irq_chip callback and from probe: reported, not patched */
static DEFINE_SPINLOCK(both_lock);

static void foo_rmw(struct foo_gpio *g, u32 bit, bool set)
{
	unsigned long flags;
	u32 v;

	spin_lock_irqsave(&g->lock, flags);
	v = readl(g->base);
	writel(set ? v | bit : v & ~bit, g->base);
	spin_unlock_irqrestore(&g->lock, flags);
}

static void foo_irq_mask(struct irq_data *d)
{
	unsigned long flags;

	spin_lock_irqsave(&mask_lock, flags);	/* expect: irqchip &mask_lock */
	spin_unlock_irqrestore(&mask_lock, flags);
}

static void foo_irq_unmask(struct irq_data *d)
{
	struct foo_gpio *g = irq_data_get_irq_chip_data(d);

	foo_rmw(g, BIT(d->hwirq), true);	/* expect: irqchip &g->lock via foo_rmw() */
}

/* the lock is taken on one path only: still a bug */
static int foo_irq_set_type(struct irq_data *d, unsigned int type)
{
	struct foo_gpio *g = irq_data_get_irq_chip_data(d);

	if (type == IRQ_TYPE_NONE)
		return 0;
	if (type & IRQ_TYPE_LEVEL_MASK)
		return -EINVAL;
	spin_lock(&both_lock);	/* expect: irqchip &both_lock */
	writel(type, g->base);
	spin_unlock(&both_lock);
	return 0;
}

/* irq_bus_lock / irq_bus_sync_unlock run in sleepable context */
static void foo_irq_bus_lock(struct irq_data *d)
{
	struct foo_gpio *g = irq_data_get_irq_chip_data(d);

	spin_lock(&g->lock);
	spin_unlock(&g->lock);
	mutex_lock(&g->bus_lock);
}

static void foo_irq_bus_sync_unlock(struct irq_data *d)
{
	struct foo_gpio *g = irq_data_get_irq_chip_data(d);

	mutex_unlock(&g->bus_lock);
}

static void foo_irq_ack(struct irq_data *d)
{
	struct foo_gpio *g = irq_data_get_irq_chip_data(d);

	writel(BIT(d->hwirq), g->base + 4);
}

static void foo_irq_eoi(struct irq_data *d)
{
	spin_lock(&mask_lock);	/* expect: irqchip &mask_lock */
	spin_unlock(&mask_lock);
}

static const struct irq_chip foo_irq_chip = {
	.name			= "foo",
	.irq_mask		= foo_irq_mask,
	.irq_unmask		= foo_irq_unmask,
	.irq_set_type		= foo_irq_set_type,
	.irq_ack		= foo_irq_ack,
	.irq_bus_lock		= foo_irq_bus_lock,
	.irq_bus_sync_unlock	= foo_irq_bus_sync_unlock,
};

/* not an irq_chip callback */
static void foo_set_value(struct foo_gpio *g, unsigned int off, int val)
{
	foo_rmw(g, BIT(off), val);
}

static int foo_probe(struct foo_gpio *g)
{
	g->chip.irq_eoi = foo_irq_eoi;
	spin_lock_init(&g->lock);
	spin_lock(&both_lock);
	spin_unlock(&both_lock);
	foo_set_value(g, 0, 1);
	return 0;
}
