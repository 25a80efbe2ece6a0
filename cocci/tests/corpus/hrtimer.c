// SPDX-License-Identifier: GPL-2.0
/* Corpus for rule hrtimer: callbacks of HARD hrtimers. */
struct qux { spinlock_t lock; struct hrtimer hard, soft, pinned; int n; };

static void qux_tick(struct qux *q)
{
	spin_lock(&q->lock);
	q->n++;
	spin_unlock(&q->lock);
}

static enum hrtimer_restart qux_hard_fn(struct hrtimer *t)
{
	struct qux *q = container_of(t, struct qux, hard);

	guard(spinlock)(&q->lock);	/* expect: hrtimer &q->lock */
	q->n++;
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart qux_pinned_fn(struct hrtimer *t)
{
	struct qux *q = container_of(t, struct qux, pinned);

	qux_tick(q);	/* expect: hrtimer &q->lock via qux_tick() */
	return HRTIMER_RESTART;
}

/* a timer without a HARD mode expires in softirq context on RT */
static enum hrtimer_restart qux_soft_fn(struct hrtimer *t)
{
	struct qux *q = container_of(t, struct qux, soft);

	qux_tick(q);
	return HRTIMER_NORESTART;
}

static void qux_init(struct qux *q)
{
	struct hrtimer *p = &q->pinned;

	hrtimer_init(&q->hard, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	q->hard.function = qux_hard_fn;
	hrtimer_init(&q->soft, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	q->soft.function = qux_soft_fn;
	hrtimer_init(p, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_PINNED_HARD);
	p->function = qux_pinned_fn;
}
