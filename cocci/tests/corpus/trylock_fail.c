// SPDX-License-Identifier: GPL-2.0
/* Corpus (issue 41): a raw trylock holds the lock only where it succeeded.
 * The failure branch, the else branch and the code after a success block
 * that unlocked are not in a raw-locked region. */
static DEFINE_RAW_SPINLOCK(r);
struct q { raw_spinlock_t lock; void *p; };

void neg_fail_branch(struct q *q)
{
	if (!raw_spin_trylock(&q->lock)) {
		kfree(q->p);
		return;
	}
	q->p = 0;
	raw_spin_unlock(&q->lock);
}

void neg_else_branch(struct q *q)
{
	if (raw_spin_trylock(&q->lock)) {
		q->p = 0;
		raw_spin_unlock(&q->lock);
	} else {
		kfree(q->p);
	}
}

void neg_after_success_block(struct q *q)
{
	if (raw_spin_trylock(&r)) {
		q->p = 0;
		raw_spin_unlock(&r);
	}
	kfree(q->p);
}

void pos_success_block(struct q *q)
{
	if (raw_spin_trylock(&r)) {
		kfree(q->p);	/* expect: rawlock kfree() */
		raw_spin_unlock(&r);
	}
}

void pos_after_failed_return(struct q *q)
{
	if (!raw_spin_trylock(&q->lock))
		return;
	kfree(q->p);	/* expect: rawlock kfree() */
	raw_spin_unlock(&q->lock);
}

void pos_spin_until_taken(struct q *q)
{
	while (!raw_spin_trylock(&r))
		cpu_relax();
	kfree(q->p);	/* expect: rawlock kfree() */
	raw_spin_unlock(&r);
}
