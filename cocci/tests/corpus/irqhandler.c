// SPDX-License-Identifier: GPL-2.0
/* Corpus for rule irqhandler: handlers that are not force-threaded. */
struct baz { spinlock_t lock; struct device *dev; int irq; };

static void baz_account(struct baz *z)
{
	spin_lock(&z->lock);
	spin_unlock(&z->lock);
}

static irqreturn_t baz_timer_isr(int irq, void *data)
{
	struct baz *z = data;

	spin_lock(&z->lock);	/* expect: irqhandler &z->lock */
	spin_unlock(&z->lock);
	return IRQ_HANDLED;
}

static irqreturn_t baz_nothread_isr(int irq, void *data)
{
	baz_account(data);	/* expect: irqhandler &z->lock via baz_account() */
	return IRQ_HANDLED;
}

/* the primary handler of an IRQF_ONESHOT interrupt stays in hard irq */
static irqreturn_t baz_primary(int irq, void *data)
{
	struct baz *z = data;
	unsigned long flags;

	spin_lock_irqsave(&z->lock, flags);	/* expect: irqhandler &z->lock */
	spin_unlock_irqrestore(&z->lock, flags);
	return IRQ_WAKE_THREAD;
}

static irqreturn_t baz_thread(int irq, void *data)
{
	baz_account(data);
	return IRQ_HANDLED;
}

/* force-threaded on RT: no finding */
static irqreturn_t baz_shared_isr(int irq, void *data)
{
	baz_account(data);
	return IRQ_HANDLED;
}

static irqreturn_t baz_primary_threaded(int irq, void *data)
{
	baz_account(data);
	return IRQ_WAKE_THREAD;
}

static irqreturn_t baz_devm_isr(int irq, void *data)
{
	struct baz *z = data;

	if (!z)
		return IRQ_NONE;
	spin_lock(&z->lock);	/* expect: irqhandler &z->lock */
	spin_unlock(&z->lock);
	return IRQ_HANDLED;
}

static irqreturn_t baz_percpu_isr(int irq, void *data)
{
	struct baz *z = data;

	spin_lock(&z->lock);	/* expect: irqhandler &z->lock */
	spin_unlock(&z->lock);
	return IRQ_HANDLED;
}

/* even a trylock is invalid in hard irq context on RT (wrong owner) */
static irqreturn_t baz_try_isr(int irq, void *data)
{
	struct baz *z = data;

	if (!spin_trylock(&z->lock))	/* expect: irqhandler &z->lock */
		return IRQ_NONE;
	spin_unlock(&z->lock);
	return IRQ_HANDLED;
}

static int baz_probe(struct baz *z, struct baz __percpu *pz)
{
	int ret;

	ret = request_irq(z->irq, baz_timer_isr, IRQF_TIMER | IRQF_IRQPOLL, "baz-timer", z);
	ret = request_irq(z->irq + 1, baz_nothread_isr, IRQF_NO_THREAD, "baz-nt", z);
	ret = request_threaded_irq(z->irq + 2, baz_primary, baz_thread, IRQF_ONESHOT, "baz-os", z);
	ret = request_irq(z->irq + 3, baz_shared_isr, IRQF_SHARED, "baz-shared", z);
	ret = request_threaded_irq(z->irq + 4, baz_primary_threaded, baz_thread, 0, "baz-th", z);
	ret = devm_request_irq(z->dev, z->irq + 5, baz_devm_isr, IRQF_SHARED | IRQF_NO_THREAD, "baz-devm", z);
	ret = request_percpu_irq(z->irq + 6, baz_percpu_isr, "baz-pc", pz);
	ret = request_irq(z->irq + 7, baz_try_isr, IRQF_NO_THREAD, "baz-try", z);
	return ret;
}
