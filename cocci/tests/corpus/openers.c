// SPDX-License-Identifier: GPL-2.0
/* Corpus: atomic regions opened by guards, trylocks, rcu_read_lock_sched
 * and helpers that return with a raw spinlock held. */
static DEFINE_RAW_SPINLOCK(r);
static DEFINE_SPINLOCK(s);
struct dev { raw_spinlock_t lock; unsigned long flags; };

static struct dev *dev_lock(struct dev *d)
{
	raw_spin_lock_irqsave(&d->lock, d->flags);
	return d;
}

static void dev_unlock(struct dev *d)
{
	raw_spin_unlock_irqrestore(&d->lock, d->flags);
}

void pos_scoped_raw(void)
{
	scoped_guard(raw_spinlock_irqsave, &r) {
		spin_lock(&s);	/* expect: rawlock &s */
		spin_unlock(&s);
	}
}

void pos_scoped_irq(void)
{
	scoped_guard(irqsave) {
		spin_lock(&s);	/* expect: irqoff &s */
		spin_unlock(&s);
	}
}

void pos_trylock(void)
{
	if (!raw_spin_trylock(&r))
		return;
	spin_lock(&s);	/* expect: rawlock &s */
	spin_unlock(&s);
	raw_spin_unlock(&r);
}

void pos_rcu_sched(void)
{
	rcu_read_lock_sched();
	spin_lock(&s);	/* expect: preemptoff &s */
	spin_unlock(&s);
	rcu_read_unlock_sched();
}

void pos_lock_helper(struct dev *d)
{
	dev_lock(d);
	spin_lock(&s);	/* expect: rawlock &s */
	spin_unlock(&s);
	dev_unlock(d);
}

/* after the unlock helper, after rcu_read_unlock_sched: no finding */
void neg_after(struct dev *d)
{
	dev_lock(d);
	dev_unlock(d);
	rcu_read_lock_sched();
	rcu_read_unlock_sched();
	spin_lock(&s);
	spin_unlock(&s);
}

/* a plain rcu_read_lock() is preemptible on RT: no finding */
void neg_rcu(void)
{
	rcu_read_lock();
	spin_lock(&s);
	spin_unlock(&s);
	rcu_read_unlock();
}

/* takes and drops the raw lock under the same condition: it never returns
 * with the lock held, so its callers are not in a region (no finding) */
static int cond_write(struct dev *d, int x)
{
	if (x)
		raw_spin_lock(&d->lock);
	d->flags = 0;
	if (x)
		raw_spin_unlock(&d->lock);
	return 0;
}

void neg_cond_helper(struct dev *d)
{
	cond_write(d, 1);
	spin_lock(&s);
	spin_unlock(&s);
}
