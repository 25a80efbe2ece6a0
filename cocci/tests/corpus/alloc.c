// SPDX-License-Identifier: GPL-2.0
/* Corpus: the allocator under a raw lock or with interrupts off. */
static DEFINE_RAW_SPINLOCK(r);
static DEFINE_SPINLOCK(s);
static struct kmem_cache *cache;
struct obj { raw_spinlock_t lock; void *p; };

void pos_free_under_raw(struct obj *o)
{
	raw_spin_lock(&o->lock);
	kmem_cache_free(cache, o->p);	/* expect: rawlock kmem_cache_free() */
	raw_spin_unlock(&o->lock);
}

void pos_kfree_irqoff(void *p)
{
	local_irq_disable();
	kfree(p);	/* expect: irqoff kfree() */
	local_irq_enable();
}

void *pos_atomic_alloc(void)
{
	unsigned long flags;
	void *p;

	raw_spin_lock_irqsave(&r, flags);
	p = kmalloc(32, GFP_ATOMIC);	/* expect: rawlock kmalloc() */
	raw_spin_unlock_irqrestore(&r, flags);
	return p;
}

void pos_wake_under_raw(wait_queue_head_t *wq)
{
	raw_spin_lock(&r);
	wake_up(wq);	/* expect: rawlock wake_up() */
	raw_spin_unlock(&r);
}

/* spin_lock_irqsave leaves the task preemptible on RT: no finding */
void *neg_spinlock_alloc(void)
{
	unsigned long flags;
	void *p;

	spin_lock_irqsave(&s, flags);
	p = kmalloc(32, GFP_ATOMIC);
	spin_unlock_irqrestore(&s, flags);
	return p;
}

/* freed after the raw lock is dropped: no finding */
void neg_free_after(struct obj *o)
{
	void *p;

	raw_spin_lock(&o->lock);
	p = o->p;
	o->p = NULL;
	raw_spin_unlock(&o->lock);
	kfree(p);
}
