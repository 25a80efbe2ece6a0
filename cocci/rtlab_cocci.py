# SPDX-License-Identifier: GPL-2.0-only
"""Shared Python side of rtlab's PREEMPT_RT semantic patches.

Both .cocci files import this module (spatch must find it on PYTHONPATH:
cocci/run.sh and the tests set it).  It holds the sleeping-call sets, the
per-file call graph and its transitive closure, and the source-text helpers.
"""
import re

# Locks that are rtmutex based on PREEMPT_RT, and the wrappers that take
# one: the finding names the lock expression (first argument).
SLEEP_LOCK = {
    'spin_lock', 'spin_lock_irq', 'spin_lock_irqsave', 'spin_lock_bh',
    'spin_lock_nested', 'spin_lock_irqsave_nested', 'spin_lock_nest_lock',
    'read_lock', 'read_lock_irq', 'read_lock_irqsave', 'read_lock_bh',
    'write_lock', 'write_lock_irq', 'write_lock_irqsave', 'write_lock_bh',
    'write_lock_nested',
    'local_lock', 'local_lock_irq', 'local_lock_irqsave', 'local_lock_nested_bh',
    # xarray, seqlock_t writers and exclusive readers: spinlock_t inside
    'xa_lock', 'xa_lock_irq', 'xa_lock_irqsave', 'xa_lock_bh',
    'xas_lock', 'xas_lock_irq', 'xas_lock_irqsave', 'xas_lock_bh',
    'write_seqlock', 'write_seqlock_irq', 'write_seqlock_irqsave', 'write_seqlock_bh',
    'read_seqlock_excl', 'read_seqlock_excl_irq', 'read_seqlock_excl_irqsave',
    'read_seqlock_excl_bh',
}
# Trylocks: never sleep, but in hard-irq context they record the wrong
# owner, so only the hard-irq rules count them.
SLEEP_TRYLOCK = {
    'spin_trylock', 'spin_trylock_irq', 'spin_trylock_irqsave', 'spin_trylock_bh',
    'read_trylock', 'write_trylock', 'write_trylock_irqsave',
}
# Other calls that take a sleeping lock inside: waitqueue wake-ups
# (wq_head->lock), kill_fasync (fa_lock rwlock), the allocators (SLUB and
# page allocator locks are spinlock_t / local_lock_t on RT, any GFP),
# clk_enable/disable (spinlock_t enable_lock) and regmap (spinlock_t or
# mutex unless the regmap_config asks for a raw spinlock).
SLEEP_CALL = {
    'wake_up', 'wake_up_all', 'wake_up_interruptible', 'wake_up_interruptible_all',
    'wake_up_interruptible_sync', 'wake_up_interruptible_poll', 'wake_up_poll',
    'wake_up_nr', 'wake_up_var', 'wake_up_bit', 'kill_fasync',
    'kmalloc', 'kzalloc', 'kcalloc', 'kmalloc_array', 'krealloc', 'kmemdup',
    'kstrdup', 'kfree', 'kvfree', 'kfree_sensitive',
    'kmem_cache_alloc', 'kmem_cache_zalloc', 'kmem_cache_free',
    'alloc_pages', '__get_free_pages', '__get_free_page', 'get_zeroed_page',
    'free_pages', 'free_page', '__free_pages',
    'clk_enable', 'clk_disable', 'clk_prepare_enable', 'clk_disable_unprepare',
}
# get_random_*(): the batched entropy and the per-CPU crng are guarded by
# local_lock_irqsave() (drivers/char/random.c), a spinlock_t on RT.
SLEEP_CALL |= {
    'get_random_bytes', 'get_random_u8', 'get_random_u16', 'get_random_u32',
    'get_random_u64', 'get_random_long', 'get_random_u32_below',
    'get_random_u32_above', 'get_random_u32_inclusive',
}
# Runtime PM: every get/put/resume/suspend/idle request takes
# dev->power.lock (spinlock_t) with spin_lock_irqsave(), also for irq-safe
# devices and for the asynchronous variants when the usage count drops to 0.
SLEEP_CALL |= {
    'pm_runtime_get', 'pm_runtime_get_sync', 'pm_runtime_resume_and_get',
    'pm_runtime_get_if_in_use', 'pm_runtime_get_if_active',
    'pm_runtime_put', 'pm_runtime_put_sync', 'pm_runtime_put_autosuspend',
    'pm_runtime_put_sync_autosuspend', 'pm_runtime_put_sync_suspend',
    'pm_runtime_resume', 'pm_runtime_suspend', 'pm_runtime_idle',
    'pm_request_resume', 'pm_request_idle', 'pm_request_autosuspend',
}
# The crypto skcipher walk allocates a bounce buffer or page for an
# unaligned or split step and frees it when the step is done
# (crypto/skcipher.c: kzalloc/__get_free_page with GFP_ATOMIC, kfree,
# free_page), so it must not run inside kernel_fpu_begin()/kernel_neon_begin().
SLEEP_CALL |= {
    'skcipher_walk_done', 'skcipher_walk_virt', 'skcipher_walk_aead_encrypt',
    'skcipher_walk_aead_decrypt',
}
# More allocators and frees (issue 41): the *_node and kv* variants, the
# page allocator's other entry points and vmalloc; mempool (pool->lock is
# a spinlock_t, and the pool's own allocator behind it); managed
# allocations (devres_add/remove take dev->devres_lock, a spinlock_t);
# socket buffers (kmem_cache_alloc/free of skbuff_cache and the page frag
# cache; dev_kfree_skb_any/_irq and dev_consume_skb_any/_irq are left out:
# with irqs off they queue the skb for the softirq instead of freeing it);
# idr/ida (node allocation, ida's xa_lock_irqsave, the radix-tree preload
# local_lock).
SLEEP_CALL |= {
    'kmalloc_node', 'kzalloc_node', 'kcalloc_node', 'kmalloc_array_node',
    'kmem_cache_alloc_node', 'kmem_cache_alloc_lru', 'kmem_cache_alloc_bulk',
    'kmem_cache_free_bulk', 'kmemdup_nul', 'kstrndup', 'kfree_const',
    'kvmalloc', 'kvzalloc', 'kvcalloc', 'kvmalloc_array', 'kvmalloc_node',
    'kvzalloc_node', 'kvrealloc', 'krealloc_array', 'kvfree_sensitive',
    'alloc_page', 'alloc_pages_node', '__alloc_pages', '__alloc_pages_node',
    'alloc_pages_exact', 'free_pages_exact', '__free_page', 'folio_alloc',
    'vmalloc', 'vzalloc', 'vfree', 'vmalloc_node', 'vzalloc_node',
    'mempool_alloc', 'mempool_free', 'mempool_alloc_preallocated',
    'devm_kmalloc', 'devm_kzalloc', 'devm_kcalloc', 'devm_kmalloc_array',
    'devm_kmemdup', 'devm_kstrdup', 'devm_kasprintf', 'devm_kfree',
    'alloc_skb', '__alloc_skb', 'netdev_alloc_skb', '__netdev_alloc_skb',
    'netdev_alloc_skb_ip_align', 'dev_alloc_skb', 'napi_alloc_skb',
    '__napi_alloc_skb', 'skb_clone', 'skb_copy', 'pskb_copy', 'skb_copy_expand',
    'kfree_skb', '__kfree_skb', 'kfree_skb_reason', 'kfree_skb_list',
    'consume_skb', 'dev_kfree_skb', 'skb_queue_purge',
    'idr_alloc', 'idr_alloc_u32', 'idr_alloc_cyclic', 'idr_preload', 'idr_destroy',
    'ida_alloc', 'ida_alloc_range', 'ida_alloc_min', 'ida_alloc_max', 'ida_free',
    'ida_simple_get', 'ida_simple_remove', 'ida_destroy',
}
REGMAP_CALL = {
    'regmap_read', 'regmap_write', 'regmap_update_bits', 'regmap_write_bits',
    'regmap_set_bits', 'regmap_clear_bits', 'regmap_test_bits',
    'regmap_update_bits_base', 'regmap_bulk_read', 'regmap_bulk_write',
    'regmap_field_read', 'regmap_field_write', 'regmap_field_update_bits',
}
# guard(x)(lock) / scoped_guard(x, lock) classes that take a sleeping lock
SLEEP_GUARD = {
    'spinlock', 'spinlock_irq', 'spinlock_irqsave', 'spinlock_bh',
    'read_lock', 'read_lock_irq', 'read_lock_irqsave', 'read_lock_bh',
    'write_lock', 'write_lock_irq', 'write_lock_irqsave', 'write_lock_bh',
}
# Helper depth: region -> h1 -> h2 -> h3 -> acquisition at most.  Two levels
# are needed for wrappers of wrappers (foo_lock() -> __foo_lock() ->
# spin_lock()); the third is margin.  Deeper chains within one file are rare
# and each level multiplies the paths a reviewer has to follow.
DEPTH = 3
# A file whose regmap_config asks for a raw spinlock (or no locking) uses
# regmap safely in atomic context.
RAW_REGMAP = re.compile(r'\.\s*(use_raw_spinlock|disable_locking)\s*=\s*true')


class File:
    """Per-file state, reset by each .cocci file's reset rule."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.calls = {}      # function -> [(callee, position)]
        self.guards = {}     # function -> [(label, position)]
        self.released = set()  # (line, col) of calls after a region closer
        self.text = {}       # path -> list of lines
        self.closure = None
        self.defined = set()


F = File()


def lines(path):
    if path not in F.text:
        try:
            with open(path, errors='replace') as fh:
                F.text[path] = fh.read().split('\n')
        except OSError:
            F.text[path] = []
    return F.text[path]


def key(p):
    return (int(p.line), int(p.column))


def src_at(p):
    """Text of a one-line position span."""
    ls = lines(p.file)
    n = int(p.line) - 1
    if n >= len(ls):
        return '?'
    if p.line_end == p.line:
        return ls[n][int(p.column):int(p.column_end)]
    return ls[n][int(p.column):]


def norm(e):
    return re.sub(r'\s+', '', e)


def args_after(p):
    """Top-level arguments of the call whose name ends at position p."""
    ls = lines(p.file)
    n = int(p.line) - 1
    text = ls[n][int(p.column_end):] + '\n' + '\n'.join(ls[n + 1:n + 20])
    i = text.find('(')
    if i < 0:
        return []
    depth, cur, out = 0, '', []
    for c in text[i:]:
        if c in '([{':
            depth += 1
            if depth == 1:
                continue
        elif c in ')]}':
            depth -= 1
            if depth == 0:
                out.append(cur)
                break
        elif c == ',' and depth == 1:
            out.append(cur)
            cur = ''
            continue
        cur += c
    return [norm(a) for a in out if norm(a)]


def guard_class(p):
    """"spinlock" for guard(spinlock)(...) or scoped_guard(spinlock, ...)."""
    a = args_after(p)
    return a[0] if a else ''


def regmap_raw(path):
    return any(RAW_REGMAP.search(l) for l in lines(path))


def sleep_label(name, p, trylocks):
    """Lock label when calling NAME at p sleeps on RT, else None."""
    if name in SLEEP_LOCK or (trylocks and name in SLEEP_TRYLOCK):
        a = args_after(p)
        return a[0] if a else name + '()'
    if name in SLEEP_CALL:
        return name + '()'
    if name in REGMAP_CALL and not regmap_raw(p.file):
        return name + '()'
    if name in ('guard', 'scoped_guard'):
        a = args_after(p)
        if len(a) >= 1 and a[0] in SLEEP_GUARD:
            if name == 'guard':
                # guard(spinlock)(&l): the lock is in the second call
                ls = lines(p.file)
                m = re.search(r'guard\s*\(\s*\w+\s*\)\s*\(([^;]*)\)\s*;', ls[int(p.line) - 1][int(p.column):])
                return norm(m.group(1)) if m else 'guard(%s)' % a[0]
            return a[1] if len(a) > 1 else 'scoped_guard(%s)' % a[0]
    return None


def wanted(g):
    """Calls the call graph records: sleeping ops and the file's functions."""
    return (g in F.defined or g in SLEEP_LOCK or g in SLEEP_TRYLOCK or g in SLEEP_CALL
            or g in REGMAP_CALL or g == 'guard')


RT_IF = re.compile(r'\bif\s*\(\s*IS_ENABLED\s*\(\s*CONFIG_PREEMPT_RT\s*\)\s*\)')


def _code(line):
    return re.sub(r'"(\\.|[^"\\])*"|//.*', '', line)


def rt_dead(p):
    """True when the call at p is compiled out or never reached on
    PREEMPT_RT by a C test of IS_ENABLED(CONFIG_PREEMPT_RT) in its function:
    after "if (IS_ENABLED(CONFIG_PREEMPT_RT)) return ...;" at the top level of
    the function, or in the else branch of "if (IS_ENABLED(CONFIG_PREEMPT_RT))".
    Plain text, kernel style (function body opened by a "{" in column 0)."""
    ls = lines(p.file)
    n = int(p.line) - 1
    start = None
    for i in range(n, max(-1, n - 400), -1):
        if i < len(ls) and ls[i].startswith('{'):
            start = i
            break
    if start is None:
        return False
    # early return at depth 1
    depth = 0
    for i in range(start, n):
        l = _code(ls[i])
        if depth == 1 and RT_IF.search(l):
            rest = l[RT_IF.search(l).end():].strip()
            nxt = ls[i + 1].strip() if i + 1 < len(ls) else ''
            if rest.startswith('return') or (not rest and nxt.startswith('return')):
                return True
        depth += l.count('{') - l.count('}')
    # else branch of the RT if, enclosing the call
    depth = 0
    for i in range(n - 1, start - 1, -1):
        l = _code(ls[i])
        for j in range(len(l) - 1, -1, -1):
            depth += {'}': 1, '{': -1}.get(l[j], 0)
            if depth < 0:
                head = l[:j]
                if re.search(r'\belse\s*$', head):
                    # the if-block closed by the "}" before this else
                    k, d, col = i, 0, head.rfind('}')
                    if col < 0:
                        k -= 1
                        while k >= start and not _code(ls[k]).rstrip().endswith('}'):
                            k -= 1
                        col = _code(ls[k]).rfind('}') if k >= start else -1
                    while k >= start and col >= 0:
                        lk = _code(ls[k])
                        for c in range(col, -1, -1):
                            d += {'}': 1, '{': -1}.get(lk[c], 0)
                            if d == 0:
                                return bool(RT_IF.search(lk[:c]))
                        k -= 1
                        col = len(_code(ls[k])) - 1 if k >= start else -1
                    return False
                depth = 0
    return False


def add_call(fn, callee, p):
    # a call outside any function (an initializer) has no caller
    if fn == 'something_else':
        return
    # a call that PREEMPT_RT never makes
    if rt_dead(p):
        return
    F.defined.add(fn)
    F.calls.setdefault(fn, []).append((callee, p))


def closure(trylocks, use_released):
    """function -> [(label, acquisition pos, chain, site pos)]: every
    sleeping acquisition reached from the function, directly (chain []) or
    through helpers defined in the file (chain [h1, h2, ...], at most DEPTH
    long), site being the call in the function itself."""
    if F.closure is not None:
        return F.closure
    direct = {}
    for fn, cs in F.calls.items():
        for (callee, p) in cs:
            if use_released and key(p) in F.released:
                continue
            lab = sleep_label(callee, p, trylocks)
            if lab is not None:
                direct.setdefault(fn, []).append((lab, p, [], p))
    reach = {fn: list(v) for fn, v in direct.items()}
    for _ in range(DEPTH):
        nxt = {fn: list(v) for fn, v in direct.items()}
        for fn, cs in F.calls.items():
            for (callee, p) in cs:
                if callee == fn or callee not in reach or callee not in F.defined:
                    continue
                if use_released and key(p) in F.released:
                    continue
                for (lab, ap, chain, _) in reach[callee]:
                    if len(chain) < DEPTH and fn not in chain and callee not in chain:
                        item = (lab, ap, [callee] + chain, p)
                        if item not in nxt.setdefault(fn, []):
                            nxt[fn].append(item)
        reach = nxt
    F.closure = reach
    return reach


def lock_text(lab, chain):
    if not chain:
        return lab
    return '%s via %s' % (lab, ' -> '.join('%s()' % h for h in chain))


def is_call(lab):
    return lab.endswith('()') and not lab.startswith('&')


def message(lab, chain, ctx, fn, rule, acq_line):
    kind = 'call' if is_call(lab) else 'lock'
    at = ' at line %s' % acq_line if chain else ''
    return 'WARNING: sleeping %s "%s" taken in %s (function %s, rule %s%s)' % (
        kind, lock_text(lab, chain), ctx, fn, rule, at)
