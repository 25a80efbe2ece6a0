// SPDX-License-Identifier: GPL-2.0
/* Corpus: lock wrappers that take a spinlock_t inside. */
static DEFINE_RAW_SPINLOCK(r);
static DEFINE_SPINLOCK(s);
static DEFINE_XARRAY(xa);
static DEFINE_SEQLOCK(sl);
static DEFINE_SEQLOCK(sl2);

static void guarded_helper(void)
{
	scoped_guard(spinlock, &s)
		sl_count++;
}

void pos_xa(void)
{
	raw_spin_lock(&r);
	xa_lock(&xa);	/* expect: rawlock &xa */
	xa_unlock(&xa);
	raw_spin_unlock(&r);
}

void pos_xas(struct xa_state *xas)
{
	unsigned long flags;

	local_irq_save(flags);
	xas_lock_irq(xas);	/* expect: irqoff xas */
	xas_unlock_irq(xas);
	local_irq_restore(flags);
}

void pos_seqlock(void)
{
	preempt_disable();
	write_seqlock(&sl);	/* expect: preemptoff &sl */
	write_sequnlock(&sl);
	read_seqlock_excl_bh(&sl2);	/* expect: preemptoff &sl2 */
	read_sequnlock_excl_bh(&sl2);
	preempt_enable();
}

void pos_guard_spinlock(void)
{
	guard(raw_spinlock)(&r);
	guard(spinlock_irqsave)(&s);	/* expect: rawlock &s */
}

void pos_scoped_helper(void)
{
	raw_spin_lock(&r);
	guarded_helper();	/* expect: rawlock &s via guarded_helper() */
	raw_spin_unlock(&r);
}

/* seqlock readers and xa_load do not take the spinlock: no finding */
unsigned neg_readers(void)
{
	unsigned seq, v;

	raw_spin_lock(&r);
	do {
		seq = read_seqbegin(&sl);
		v = xa_to_value(xa_load(&xa, 0));
	} while (read_seqretry(&sl, seq));
	raw_spin_unlock(&r);
	return v;
}

/* a wrapper after the region: no finding */
void neg_after(void)
{
	raw_spin_lock(&r);
	raw_spin_unlock(&r);
	xa_lock(&xa);
	xa_unlock(&xa);
}
