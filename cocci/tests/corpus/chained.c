// SPDX-License-Identifier: GPL-2.0
/* Corpus for rule chained: chained and custom flow handlers. */
struct bar { spinlock_t lock; rwlock_t map_lock; struct gpio_chip gc; int irq; };

static unsigned long bar_pending(struct bar *b)
{
	unsigned long p;

	read_lock(&b->map_lock);
	p = 1;
	read_unlock(&b->map_lock);
	return p;
}

static void bar_chained(struct irq_desc *desc)
{
	struct bar *b = irq_desc_get_handler_data(desc);
	struct irq_chip *chip = irq_desc_get_chip(desc);
	unsigned long flags;

	chained_irq_enter(chip, desc);
	if (!b) {
		chained_irq_exit(chip, desc);
		return;
	}
	spin_lock_irqsave(&b->lock, flags);	/* expect: chained &b->lock */
	spin_unlock_irqrestore(&b->lock, flags);
	chained_irq_exit(chip, desc);
}

static void bar_parent(struct irq_desc *desc)
{
	struct bar *b = irq_desc_get_handler_data(desc);

	generic_handle_domain_irq(b->gc.irq.domain, bar_pending(b));	/* expect: chained &b->map_lock via bar_pending() */
}

static void bar_flow(struct irq_desc *desc)
{
	struct bar *b = irq_desc_get_handler_data(desc);

	spin_lock(&b->lock);	/* expect: chained &b->lock */
	spin_unlock(&b->lock);
}

/* the thread function of a threaded interrupt may sleep */
static irqreturn_t bar_thread(int irq, void *data)
{
	struct bar *b = data;

	spin_lock(&b->lock);
	spin_unlock(&b->lock);
	return IRQ_HANDLED;
}

static int bar_probe(struct bar *b, struct gpio_irq_chip *girq)
{
	irq_set_chained_handler_and_data(b->irq, bar_chained, b);
	girq->parent_handler = bar_parent;
	irq_set_handler(b->irq + 1, bar_flow);
	return request_threaded_irq(b->irq + 2, NULL, bar_thread, IRQF_ONESHOT, "bar", b);
}
