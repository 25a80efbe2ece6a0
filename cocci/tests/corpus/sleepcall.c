// SPDX-License-Identifier: GPL-2.0
/* Corpus: sleeping calls other than spin_lock in hard-irq entry points. */
struct tp { wait_queue_head_t wq; struct fasync_struct *fa; struct clk *clk;
	    struct regmap *map; void *buf; int irq; };

/* primary handler of a ONESHOT interrupt: hard irq on RT */
static irqreturn_t tp_isr(int irq, void *data)
{
	struct tp *t = data;

	wake_up_interruptible(&t->wq);	/* expect: irqhandler wake_up_interruptible() */
	kill_fasync(&t->fa, SIGIO, POLL_IN);	/* expect: irqhandler kill_fasync() */
	return IRQ_WAKE_THREAD;
}

/* the thread function may sleep: no finding */
static irqreturn_t tp_thread(int irq, void *data)
{
	struct tp *t = data;

	wake_up(&t->wq);
	kfree(t->buf);
	return IRQ_HANDLED;
}

/* a plain handler is force-threaded on RT: no finding */
static irqreturn_t tp_plain(int irq, void *data)
{
	struct tp *t = data;

	wake_up(&t->wq);
	return IRQ_HANDLED;
}

static void tp_unmask(struct irq_data *d)
{
	struct tp *t = irq_data_get_irq_chip_data(d);

	t->buf = kmalloc(16, GFP_ATOMIC);	/* expect: irqchip kmalloc() */
	clk_enable(t->clk);	/* expect: irqchip clk_enable() */
	regmap_update_bits(t->map, 0x10, 1, 1);	/* expect: irqchip regmap_update_bits() */
}

static void tp_mask(struct irq_data *d)
{
	struct tp *t = irq_data_get_irq_chip_data(d);

	writel(0, t->buf);
}

static struct irq_chip tp_chip = {
	.name = "tp",
	.irq_mask = tp_mask,
	.irq_unmask = tp_unmask,
};

static int tp_probe(struct tp *t)
{
	t->buf = kzalloc(64, GFP_KERNEL);
	request_threaded_irq(t->irq, tp_isr, tp_thread, IRQF_ONESHOT, "tp", t);
	request_threaded_irq(t->irq + 1, NULL, tp_thread, IRQF_ONESHOT, "tp", t);
	return request_irq(t->irq + 2, tp_plain, 0, "tp", t);
}
