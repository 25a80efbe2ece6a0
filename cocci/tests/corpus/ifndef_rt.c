// SPDX-License-Identifier: GPL-2.0
/* Corpus (issue 41): a region whose opener is compiled out on PREEMPT_RT
 * (#ifndef CONFIG_PREEMPT_RT) does not exist there, even when the call in
 * it is outside the #ifndef: tagged dead-code, not shown. */
static DEFINE_SPINLOCK(s);

void hid_opener_ifndef(void)
{
#ifndef CONFIG_PREEMPT_RT
	preempt_disable();
#endif
	spin_lock(&s);	/* hidden: preemptoff &s dead-code */
	spin_unlock(&s);
#ifndef CONFIG_PREEMPT_RT
	preempt_enable();
#endif
}

void pos_opener_ifdef_rt(void)
{
#ifdef CONFIG_PREEMPT_RT
	preempt_disable();
#endif
	spin_lock(&s);	/* expect: preemptoff &s */
	spin_unlock(&s);
#ifdef CONFIG_PREEMPT_RT
	preempt_enable();
#endif
}
