// SPDX-License-Identifier: GPL-2.0
/* reach.py test (issue 41): an irq_chip driver bound only by device tree,
 * built with PREEMPT_RT only on arm64.  hw32's compatible is in no arm64
 * device tree (hardware of 32-bit SoCs only): non-rt-arch; hw64's is. */
struct hw_gpio { spinlock_t lock; };

static void hw64_irq_mask(struct irq_data *d)
{
	struct hw_gpio *g = irq_data_get_irq_chip_data(d);
	unsigned long flags;

	spin_lock_irqsave(&g->lock, flags);	/* expect: irqchip &g->lock */
	spin_unlock_irqrestore(&g->lock, flags);
}

static struct irq_chip hw64_chip = {
	.irq_mask = hw64_irq_mask,
};

static const struct of_device_id hw64_of_match[] = {
	{ .compatible = "vendor,hw64-gpio" },
	{ }
};

static struct platform_driver hw64_driver = {
	.driver = {
		.name = "hw64-gpio",
		.of_match_table = hw64_of_match,
	},
};
