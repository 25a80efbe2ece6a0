// SPDX-License-Identifier: GPL-2.0
/* Corpus: a lock test module (file name test_*.c) is tagged test-code. */
static DEFINE_RAW_SPINLOCK(r);
static DEFINE_SPINLOCK(s);

void test_nesting(void)
{
	raw_spin_lock(&r);
	spin_lock(&s);	/* hidden: rawlock &s test-code */
	spin_unlock(&s);
	raw_spin_unlock(&r);
}
