// SPDX-License-Identifier: GPL-2.0
/* Corpus (issue 41): irq_chip callbacks matched by field name must be
 * irq_chip callbacks: their first parameter is a struct irq_data *.  A
 * driver's own ".irq_ack" hook taking its device is called from its
 * threaded handler and is not one. */
struct ths_chip { int (*irq_ack)(struct ths_dev *tmdev); };
struct ths_dev { struct regmap *regmap; const struct ths_chip *chip; spinlock_t lock; };
struct my_gpio { struct gpio_chip gc; spinlock_t lock; };

static int ths_irq_ack(struct ths_dev *tmdev)
{
	regmap_write(tmdev->regmap, 0, 1);
	return 0;
}

static const struct ths_chip h3_chip = {
	.irq_ack = ths_irq_ack,
};

static irqreturn_t ths_irq_thread(int irq, void *data)
{
	struct ths_dev *tmdev = data;

	tmdev->chip->irq_ack(tmdev);
	return IRQ_HANDLED;
}

static void my_gpio_irq_mask(struct irq_data *d)
{
	struct my_gpio *g = irq_data_get_irq_chip_data(d);
	unsigned long flags;

	spin_lock_irqsave(&g->lock, flags);	/* expect: irqchip &g->lock */
	spin_unlock_irqrestore(&g->lock, flags);
}

static int my_gpio_probe(struct my_gpio *g, struct gpio_irq_chip *girq)
{
	girq->chip->irq_mask = my_gpio_irq_mask;
	return devm_request_threaded_irq(g->gc.parent, 1, NULL, ths_irq_thread,
					 IRQF_ONESHOT, "ths", g);
}
