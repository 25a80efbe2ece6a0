// SPDX-License-Identifier: GPL-2.0
/* Corpus for rule preemptoff. */
struct pcp { local_lock_t lock; int n; };
static DEFINE_PER_CPU(struct pcp, pcp);
static DEFINE_SPINLOCK(s);
static DEFINE_RWLOCK(rw);

static int count_locked(void)
{
	int n;

	spin_lock_bh(&s);
	n = 1;
	spin_unlock_bh(&s);
	return n;
}

void pos_preempt(void)
{
	preempt_disable();
	spin_lock(&s);	/* expect: preemptoff &s */
	spin_unlock(&s);
	preempt_enable();
}

void pos_get_cpu_local_lock(void)
{
	int cpu = get_cpu();

	local_lock(&pcp.lock);	/* expect: preemptoff &pcp.lock */
	local_unlock(&pcp.lock);
	put_cpu();
}

void pos_get_cpu_ptr(struct pcp __percpu *p)
{
	struct pcp *q = get_cpu_ptr(p);

	read_lock(&rw);	/* expect: preemptoff &rw */
	q->n++;
	read_unlock(&rw);
	put_cpu_ptr(p);
}

int pos_helper(void)
{
	int n;

	preempt_disable();
	n = count_locked();	/* expect: preemptoff &s via count_locked() */
	preempt_enable();
	return n;
}

void neg_put_cpu_first(void)
{
	int cpu = get_cpu();

	put_cpu();
	spin_lock(&s);
	spin_unlock(&s);
}

/* migrate_disable and local_bh_disable keep a task preemptible on RT */
void neg_migrate_bh(void)
{
	migrate_disable();
	spin_lock(&s);
	spin_unlock(&s);
	migrate_enable();
	local_bh_disable();
	spin_lock(&s);
	spin_unlock(&s);
	local_bh_enable();
}

int neg_helper_outside(void)
{
	preempt_disable();
	preempt_enable();
	return count_locked();
}

/* the region only exists on !PREEMPT_RT kernels */
void neg_not_on_rt(void)
{
	if (!IS_ENABLED(CONFIG_PREEMPT_RT))
		preempt_disable();
	spin_lock(&s);
	spin_unlock(&s);
	if (!IS_ENABLED(CONFIG_PREEMPT_RT))
		preempt_enable();
}
