// SPDX-License-Identifier: GPL-2.0
/* Corpus (issue 41): a helper that ends the region and opens it again at
 * once (the FPU yield idiom) leaves the caller's region open; a helper
 * that only ends it closes it. */
struct walk { void *buf; };

static void fpu_yield(void)
{
	kernel_fpu_end();
	cond_resched();
	kernel_fpu_begin();
}

static void fpu_maybe_yield(int n)
{
	if (n & 1) {
		kernel_fpu_end();
		kernel_fpu_begin();
	}
}

static void fpu_done(void)
{
	kernel_fpu_end();
}

void pos_after_yield(struct walk *w)
{
	kernel_fpu_begin();
	fpu_yield();
	kfree(w->buf);	/* expect: preemptoff kfree() */
	kernel_fpu_end();
}

void pos_after_conditional_yield(struct walk *w, int n)
{
	kernel_fpu_begin();
	fpu_maybe_yield(n);
	skcipher_walk_done(w, 0);	/* expect: preemptoff skcipher_walk_done() */
	kernel_fpu_end();
}

void neg_after_real_closer(struct walk *w)
{
	kernel_fpu_begin();
	fpu_done();
	kfree(w->buf);
}
