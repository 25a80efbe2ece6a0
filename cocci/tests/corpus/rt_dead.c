// SPDX-License-Identifier: GPL-2.0
/* Corpus (issue 41): calls that PREEMPT_RT never makes because a C test of
 * IS_ENABLED(CONFIG_PREEMPT_RT) in their function skips them: after
 * "if (IS_ENABLED(CONFIG_PREEMPT_RT)) return;", or in the else branch of
 * "if (IS_ENABLED(CONFIG_PREEMPT_RT))". */
static DEFINE_SPINLOCK(tree_lock);
static DEFINE_SPINLOCK(sched_lock);
static DEFINE_SPINLOCK(s);

static void update_tree(void)
{
	unsigned long flags;

	spin_lock_irqsave(&tree_lock, flags);
	spin_unlock_irqrestore(&tree_lock, flags);
}

static void check_events(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		return;

	update_tree();
}

static void chan_sched(void)
{
	spin_lock(&sched_lock);
	spin_unlock(&sched_lock);
}

static void bus_isr(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		wake_isr_thread();
	} else {
		chan_sched();
	}
}

static irqreturn_t percpu_isr(int irq, void *dev_id)
{
	bus_isr();
	return IRQ_HANDLED;
}

static void rt_only(void)
{
	if (!IS_ENABLED(CONFIG_PREEMPT_RT)) {
		wake_isr_thread();
	} else {
		chan_sched();
	}
}

void neg_move_account(void)
{
	local_irq_disable();
	check_events();
	local_irq_enable();
}

void neg_direct_after_return(void)
{
	preempt_disable();
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		return;
	spin_lock(&s);
	spin_unlock(&s);
	preempt_enable();
}

void pos_else_of_not_rt(void)
{
	local_irq_disable();
	rt_only();	/* expect: irqoff &sched_lock via rt_only() -> chan_sched() */
	local_irq_enable();
}

int setup(void)
{
	return request_percpu_irq(1, percpu_isr, "bus", NULL);
}
