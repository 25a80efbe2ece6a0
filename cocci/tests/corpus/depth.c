// SPDX-License-Identifier: GPL-2.0
/* Corpus: helpers several call levels down (up to three are followed). */
static DEFINE_RAW_SPINLOCK(r);
static DEFINE_SPINLOCK(s);

static void level3(void)
{
	spin_lock(&s);
	spin_unlock(&s);
}

static void level2(void)
{
	level3();
}

static void level1(void)
{
	level2();
}

static void level0(void)
{
	level1();
}

void pos_two_down(void)
{
	raw_spin_lock(&r);
	level2();	/* expect: rawlock &s via level2() -> level3() */
	raw_spin_unlock(&r);
}

void pos_three_down(void)
{
	preempt_disable();
	level1();	/* expect: preemptoff &s via level1() -> level2() -> level3() */
	preempt_enable();
}

/* four levels down is beyond the followed depth: no finding */
void neg_four_down(void)
{
	raw_spin_lock(&r);
	level0();
	raw_spin_unlock(&r);
}

/* helper drops the raw lock first: no finding */
static void drop_and_take(void)
{
	raw_spin_unlock(&r);
	level2();
	raw_spin_lock(&r);
}

void neg_drop(void)
{
	raw_spin_lock(&r);
	drop_and_take();
	raw_spin_unlock(&r);
}
