// SPDX-License-Identifier: GPL-2.0
/* Corpus (issue 41): a finding that REVIEW.md marks as a false positive
 * (listed in known-fp.tsv; the tests use tests/known-fp-corpus.tsv) is
 * tagged reviewed-fp and not shown by default; the same call in another
 * function still is. */
static DEFINE_RAW_SPINLOCK(r);

int lookup_bucket(int *b)
{
	raw_spin_lock(&r);
	if (*b)
		return -16;
	return 0;
}

void reviewed_false_positive(int *b, void *p)
{
	if (lookup_bucket(b))
		kfree(p);	/* hidden: rawlock kfree() reviewed-fp */
	else
		raw_spin_unlock(&r);
}

void pos_same_call_elsewhere(void *p)
{
	raw_spin_lock(&r);
	kfree(p);	/* expect: rawlock kfree() */
	raw_spin_unlock(&r);
}
