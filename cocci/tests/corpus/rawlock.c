// SPDX-License-Identifier: GPL-2.0
/* Corpus for rule rawlock, and for patch mode of sleeping_lock_atomic. */
static DEFINE_RAW_SPINLOCK(r);
static DEFINE_RAW_SPINLOCK(r2);
static DEFINE_SPINLOCK(s);
/* only ever taken under a raw lock: patch mode makes it raw */
static DEFINE_SPINLOCK(only_atomic);
/* taken under a raw lock and from thread context: reported, not patched */
static DEFINE_SPINLOCK(both_lock);
static DEFINE_RWLOCK(rw);

static void take_s(void)
{
	spin_lock(&s);
	spin_unlock(&s);
}

void pos_raw_irqsave(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&r, flags);
	spin_lock(&only_atomic);	/* expect: rawlock &only_atomic */
	spin_unlock(&only_atomic);
	raw_spin_unlock_irqrestore(&r, flags);
}

void pos_guard(void)
{
	guard(raw_spinlock_irqsave)(&r);
	spin_lock(&only_atomic);	/* expect: rawlock &only_atomic */
	spin_unlock(&only_atomic);
}

void pos_both_raw(void)
{
	raw_spin_lock(&r);
	spin_lock(&both_lock);	/* expect: rawlock &both_lock */
	spin_unlock(&both_lock);
	raw_spin_unlock(&r);
}

int neg_both_thread(void)
{
	spin_lock(&both_lock);
	spin_unlock(&both_lock);
	return 0;
}

/* the early return drops the raw lock; the fall-through path does not */
void pos_early_return(int x)
{
	raw_spin_lock(&r);
	if (x) {
		raw_spin_unlock(&r);
		return;
	}
	read_lock(&rw);	/* expect: rawlock &rw */
	read_unlock(&rw);
	raw_spin_unlock(&r);
}

/* conditional unlock: the lock is reachable with r held when !x */
void pos_cond_unlock(int x)
{
	raw_spin_lock(&r);
	if (x)
		raw_spin_unlock(&r);
	spin_lock(&s);	/* expect: rawlock &s */
	spin_unlock(&s);
	if (!x)
		raw_spin_unlock(&r);
}

/* conditional unlock: every path to the lock dropped r first */
void neg_cond_unlock(int x)
{
	raw_spin_lock(&r);
	if (x) {
		raw_spin_unlock(&r);
		spin_lock(&s);
		spin_unlock(&s);
		return;
	}
	raw_spin_unlock(&r);
}

/* unlocking another raw lock does not end the region of r */
void pos_nested_raw(void)
{
	raw_spin_lock(&r);
	raw_spin_lock(&r2);
	raw_spin_unlock(&r2);
	spin_lock(&s);	/* expect: rawlock &s */
	spin_unlock(&s);
	raw_spin_unlock(&r);
}

void pos_helper(void)
{
	raw_spin_lock_irq(&r);
	take_s();	/* expect: rawlock &s via take_s() */
	raw_spin_unlock_irq(&r);
}

void neg_after_unlock(void)
{
	raw_spin_lock(&r);
	raw_spin_unlock(&r);
	spin_lock(&s);
	spin_unlock(&s);
	take_s();
}

/* a sleeping lock around a raw lock is the correct nesting */
void neg_raw_inside_sleeping(void)
{
	spin_lock(&s);
	raw_spin_lock(&r);
	raw_spin_unlock(&r);
	spin_unlock(&s);
}

void neg_loop(int n)
{
	int i;

	for (i = 0; i < n; i++) {
		raw_spin_lock(&r);
		raw_spin_unlock(&r);
		spin_lock(&s);
		spin_unlock(&s);
	}
}

struct tbase { raw_spinlock_t lock; spinlock_t expiry_lock; };

/* drops the caller's raw lock around the sleeping lock */
static void sync_wait(struct tbase *b)
{
	raw_spin_unlock_irq(&b->lock);
	spin_lock(&b->expiry_lock);
	spin_unlock(&b->expiry_lock);
	raw_spin_lock_irq(&b->lock);
}

void neg_helper_releases(struct tbase *b)
{
	raw_spin_lock_irq(&b->lock);
	sync_wait(b);
	raw_spin_unlock_irq(&b->lock);
}
