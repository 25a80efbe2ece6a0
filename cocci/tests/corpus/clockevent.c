// SPDX-License-Identifier: GPL-2.0
/* Corpus for rule clockevent (and the IRQF_TIMER handler of the device). */
static DEFINE_SPINLOCK(tmr_lock);
static void __iomem *tmr_base;

static int tmr_set_next_event(unsigned long delta, struct clock_event_device *evt)
{
	unsigned long flags;

	spin_lock_irqsave(&tmr_lock, flags);	/* expect: clockevent &tmr_lock */
	writel(delta, tmr_base);
	spin_unlock_irqrestore(&tmr_lock, flags);
	return 0;
}

static void tmr_stop(void)
{
	spin_lock(&tmr_lock);
	writel(0, tmr_base);
	spin_unlock(&tmr_lock);
}

static int tmr_shutdown(struct clock_event_device *evt)
{
	tmr_stop();	/* expect: clockevent &tmr_lock via tmr_stop() */
	return 0;
}

static int tmr_set_periodic(struct clock_event_device *evt)
{
	writel(1, tmr_base);
	return 0;
}

static struct clock_event_device tmr_ced = {
	.name			= "tmr",
	.features		= CLOCK_EVT_FEAT_ONESHOT,
	.set_next_event		= tmr_set_next_event,
	.set_state_periodic	= tmr_set_periodic,
};

static irqreturn_t tmr_interrupt(int irq, void *dev_id)
{
	struct clock_event_device *evt = dev_id;

	spin_lock(&tmr_lock);	/* expect: irqhandler &tmr_lock */
	writel(2, tmr_base);
	spin_unlock(&tmr_lock);
	evt->event_handler(evt);
	return IRQ_HANDLED;
}

/* not a clockevent callback: suspend path runs in thread context here */
static int tmr_probe(int irq)
{
	struct clock_event_device *evt = &tmr_ced;

	evt->set_state_shutdown = tmr_shutdown;
	tmr_stop();
	return request_irq(irq, tmr_interrupt, IRQF_TIMER, "tmr", evt);
}
