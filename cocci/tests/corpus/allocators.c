// SPDX-License-Identifier: GPL-2.0
/* Corpus (issue 41): allocators and frees beyond kmalloc/kfree: mempool,
 * managed (devm_*), the *_node and kv* variants, socket buffers, idr/ida.
 * dev_kfree_skb_any()/dev_consume_skb_irq() defer the free with irqs off
 * and are not findings. */
static DEFINE_RAW_SPINLOCK(r);
struct priv { mempool_t *pool; struct device *dev; struct idr idr; struct ida ida; };

void pos_mempool(struct priv *p, void *e)
{
	raw_spin_lock(&r);
	e = mempool_alloc(p->pool, GFP_ATOMIC);	/* expect: rawlock mempool_alloc() */
	mempool_free(e, p->pool);	/* expect: rawlock mempool_free() */
	raw_spin_unlock(&r);
}

void pos_devm(struct priv *p)
{
	void *b;

	local_irq_disable();
	b = devm_kzalloc(p->dev, 16, GFP_ATOMIC);	/* expect: irqoff devm_kzalloc() */
	devm_kfree(p->dev, b);	/* expect: irqoff devm_kfree() */
	local_irq_enable();
}

void pos_node(int node)
{
	void *b;

	preempt_disable();
	b = kzalloc_node(64, GFP_ATOMIC, node);	/* expect: preemptoff kzalloc_node() */
	kvfree(b);	/* expect: preemptoff kvfree() */
	b = kmalloc_node(64, GFP_ATOMIC, node);	/* expect: preemptoff kmalloc_node() */
	preempt_enable();
}

void pos_skb(struct net_device *nd, struct sk_buff *old)
{
	struct sk_buff *skb;
	unsigned long flags;

	raw_spin_lock_irqsave(&r, flags);
	skb = netdev_alloc_skb(nd, 128);	/* expect: rawlock netdev_alloc_skb() */
	kfree_skb(old);	/* expect: rawlock kfree_skb() */
	dev_kfree_skb_any(skb);
	dev_consume_skb_irq(old);
	raw_spin_unlock_irqrestore(&r, flags);
}

int pos_idr(struct priv *p, void *ptr)
{
	int id;

	raw_spin_lock(&r);
	id = idr_alloc(&p->idr, ptr, 0, 0, GFP_ATOMIC);	/* expect: rawlock idr_alloc() */
	ida_free(&p->ida, id);	/* expect: rawlock ida_free() */
	raw_spin_unlock(&r);
	return id;
}
