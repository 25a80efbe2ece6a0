// SPDX-License-Identifier: GPL-2.0
/* Corpus (issue 41): interrupts saved and restored under the same
 * condition.  The path that skips the restore also skipped the save, so a
 * call after the restore is not in the region; one between the two is. */
struct mod;
void free_pages_of(void *p);

void neg_after_paired_restore(struct mod *mod, void *p)
{
	unsigned long flags;

	if (!mod)
		local_irq_save(flags);
	fill(p);
	if (!mod)
		local_irq_restore(flags);
	kfree(p);
}

void neg_after_paired_block(struct mod *mod, void *p)
{
	if (mod == 0) {
		preempt_disable();
		fill(p);
	}
	fill(p);
	if (mod == 0) {
		fill(p);
		preempt_enable();
	}
	kfree(p);
}

void pos_between_pair(struct mod *mod, void *p)
{
	unsigned long flags;

	if (!mod)
		local_irq_save(flags);
	kfree(p);	/* expect: irqoff kfree() */
	if (!mod)
		local_irq_restore(flags);
}

void pos_other_condition(struct mod *mod, void *p, int other)
{
	unsigned long flags;

	if (!mod)
		local_irq_save(flags);
	if (other)
		local_irq_restore(flags);
	kfree(p);	/* expect: irqoff kfree() */
}
