// SPDX-License-Identifier: GPL-2.0
/* Corpus (issue 41): a path through a function that never returns
 * (do_task_dead(), panic(), BUG()) goes no further. */
static DEFINE_SPINLOCK(s);

static void finish(void *p)
{
	kfree(p);
}

void neg_after_task_dead(int dead, void *p)
{
	if (dead) {
		preempt_disable();
		do_task_dead();
	}
	finish(p);
}

void neg_after_panic(void *p, int bad)
{
	if (bad) {
		local_irq_disable();
		panic("stop");
	}
	spin_lock(&s);
	spin_unlock(&s);
}

void pos_before_bug(void *p)
{
	local_irq_disable();
	kfree(p);	/* expect: irqoff kfree() */
	BUG();
}
