// SPDX-License-Identifier: GPL-2.0
/* Corpus for rule irqoff: sleeping locks after local_irq_disable/save. */
static DEFINE_SPINLOCK(s);
static DEFINE_RAW_SPINLOCK(r);
static DEFINE_RWLOCK(rw);

static void take_s(void)
{
	spin_lock(&s);
	spin_unlock(&s);
}

void pos_irqsave(void)
{
	unsigned long flags;

	local_irq_save(flags);
	spin_lock(&s);	/* expect: irqoff &s */
	spin_unlock(&s);
	local_irq_restore(flags);
}

void pos_disable_helper(void)
{
	local_irq_disable();
	take_s();	/* expect: irqoff &s via take_s() */
	local_irq_enable();
}

void pos_raw_local_write_lock(void)
{
	unsigned long flags;

	raw_local_irq_save(flags);
	write_lock(&rw);	/* expect: irqoff &rw */
	write_unlock(&rw);
	raw_local_irq_restore(flags);
}

void pos_guard(void)
{
	guard(irqsave)();
	spin_lock(&s);	/* expect: irqoff &s */
	spin_unlock(&s);
}

/* irqs are enabled again on one path only: the other path is a bug */
void pos_conditional_enable(int x)
{
	local_irq_disable();
	if (x)
		local_irq_enable();
	spin_lock(&s);	/* expect: irqoff &s */
	spin_unlock(&s);
	if (!x)
		local_irq_enable();
}

void neg_after_enable(void)
{
	local_irq_disable();
	local_irq_enable();
	spin_lock(&s);
	spin_unlock(&s);
	take_s();
}

/* tricky: irqsave around a raw lock is fine on RT */
void neg_irqsave_around_raw(void)
{
	unsigned long flags;

	local_irq_save(flags);
	raw_spin_lock(&r);
	raw_spin_unlock(&r);
	local_irq_restore(flags);
}

/* spin_lock_irqsave does not disable interrupts on RT */
void neg_spin_irqsave_around_raw(void)
{
	unsigned long flags;

	spin_lock_irqsave(&s, flags);
	raw_spin_lock(&r);
	raw_spin_unlock(&r);
	spin_unlock_irqrestore(&s, flags);
}

/* early return: every path re-enables before the lock */
int neg_early_return(int x)
{
	local_irq_disable();
	if (x) {
		local_irq_enable();
		return -1;
	}
	local_irq_enable();
	read_lock(&rw);
	read_unlock(&rw);
	return 0;
}

/* a helper that re-enables interrupts ends the region */
static void finish_and_enable(void)
{
	local_irq_enable();
}

void neg_closer_helper(void)
{
	local_irq_disable();
	finish_and_enable();
	spin_lock(&s);
	spin_unlock(&s);
}

/* a helper with its own balanced region does not end the caller's */
static void balanced(void)
{
	unsigned long flags;

	local_irq_save(flags);
	local_irq_restore(flags);
}

void pos_balanced_helper(void)
{
	local_irq_disable();
	balanced();
	spin_lock(&s);	/* expect: irqoff &s */
	spin_unlock(&s);
	local_irq_enable();
}

/* a trylock does not sleep: not reported in an irq-off region */
void neg_trylock(void)
{
	unsigned long flags;

	local_irq_save(flags);
	if (spin_trylock(&s))
		spin_unlock(&s);
	local_irq_restore(flags);
}
