// SPDX-License-Identifier: GPL-2.0
/* Corpus: tagging (dead code) and collapsing of call sites. */
static DEFINE_RAW_SPINLOCK(r);
static DEFINE_SPINLOCK(s);
#define DEAD_DEBUG 0

static void take_s(void)
{
	spin_lock(&s);
	spin_unlock(&s);
}

/* spatch itself skips #if 0: no finding at all */
#if 0
void dead_if0(void)
{
	raw_spin_lock(&r);
	spin_lock(&s);
	spin_unlock(&s);
	raw_spin_unlock(&r);
}
#endif

#if DEAD_DEBUG
void dead_macro(void)
{
	local_irq_disable();
	take_s();	/* hidden: irqoff &s via take_s() dead-code */
	local_irq_enable();
}
#endif

#ifndef CONFIG_PREEMPT_RT
void dead_not_rt(void)
{
	preempt_disable();
	spin_lock(&s);	/* hidden: preemptoff &s dead-code */
	spin_unlock(&s);
	preempt_enable();
}
#endif

#ifdef CONFIG_PREEMPT_RT
void live_rt(void)
{
	raw_spin_lock(&r);
	spin_lock(&s);	/* expect: rawlock &s */
	spin_unlock(&s);
	raw_spin_unlock(&r);
}
#else
void dead_else(void)
{
	raw_spin_lock(&r);
	spin_lock(&s);	/* hidden: rawlock &s dead-code */
	spin_unlock(&s);
	raw_spin_unlock(&r);
}
#endif

/* one bug (the lock in take_s) reached from three call sites: one finding */
void collapse(int x)
{
	raw_spin_lock(&r);
	take_s();	/* expect: rawlock &s via take_s() */
	if (x)
		take_s();
	take_s();
	raw_spin_unlock(&r);
}

/* a C "if (!IS_ENABLED(CONFIG_PREEMPT_RT))" is compiled out on RT: its
 * statement and its block are dead-code, the else branch is not */
void c_not_rt(int x)
{
	raw_spin_lock(&r);
	if (!IS_ENABLED(CONFIG_PREEMPT_RT))
		spin_lock(&s);	/* hidden: rawlock &s dead-code */
	else
		kfree(NULL);	/* expect: rawlock kfree() */
	if (!IS_ENABLED(CONFIG_PREEMPT_RT)) {
		if (x)
			wake_up(NULL);	/* hidden: rawlock wake_up() dead-code */
	} else {
		get_random_u32();	/* expect: rawlock get_random_u32() */
	}
	raw_spin_unlock(&r);
}
