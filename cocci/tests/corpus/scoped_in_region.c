// SPDX-License-Identifier: GPL-2.0
/* Corpus (issue 41): scoped_guard() of a sleeping lock written directly
 * inside an irqs-off, preempt-off or raw-locked region. */
static DEFINE_RAW_SPINLOCK(r);
static DEFINE_SPINLOCK(s);
static DEFINE_RWLOCK(rw);
int counter;

void pos_scoped_in_irqoff(void)
{
	unsigned long flags;

	local_irq_save(flags);
	scoped_guard(spinlock, &s) {	/* expect: irqoff &s */
		counter++;
	}
	local_irq_restore(flags);
}

void pos_scoped_in_preemptoff(void)
{
	preempt_disable();
	scoped_guard(write_lock_irqsave, &rw)	/* expect: preemptoff &rw */
		counter++;
	preempt_enable();
}

void pos_scoped_under_raw(void)
{
	raw_spin_lock(&r);
	scoped_guard(spinlock_irqsave, &s) {	/* expect: rawlock &s */
		counter++;
	}
	raw_spin_unlock(&r);
}

void neg_scoped_after_region(void)
{
	local_irq_disable();
	counter++;
	local_irq_enable();
	scoped_guard(spinlock, &s) {
		counter++;
	}
}

void neg_scoped_raw_in_region(void)
{
	local_irq_disable();
	scoped_guard(raw_spinlock, &r) {
		counter++;
	}
	local_irq_enable();
}
