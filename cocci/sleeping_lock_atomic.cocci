// SPDX-License-Identifier: GPL-2.0-only
/// PREEMPT_RT: a call that sleeps on RT (spinlock_t, rwlock_t, local_lock_t
/// and their wrappers, wake-ups, the allocator, clk_enable, regmap,
/// get_random_*, runtime PM, the skcipher walk) made
/// inside a region where interrupts or preemption are disabled, or while a
/// raw spinlock is held.
//# On PREEMPT_RT spinlock_t, rwlock_t and local_lock_t are rtmutex based
//# sleeping locks; taking one with interrupts off, preemption off or a
//# raw_spinlock_t held is "sleeping function called from invalid context"
//# (lockdep: "Invalid wait context").  The sleeping calls are listed in
//# rtlab_cocci.py: the lock ops and their wrappers (xa_lock*, xas_lock*,
//# write_seqlock*, read_seqlock_excl*, guard(spinlock...)), wake_up*(),
//# kill_fasync(), kmalloc/kfree/kmem_cache_*/page allocator (any GFP),
//# clk_enable/disable, regmap_* (unless the file's regmap_config sets
//# use_raw_spinlock or disable_locking), get_random_*() (local_lock_t),
//# runtime PM requests (dev->power.lock) and the skcipher walk steps
//# (allocate or free a bounce buffer).  Rules:
//#  - irqoff:     after local_irq_disable/save (raw_ variants, guard(irq),
//#                guard(irqsave), scoped_guard(irq...)) on some path without
//#                local_irq_enable/restore (or a raw unlock_irq/irqrestore);
//#  - preemptoff: after preempt_disable, get_cpu*, rcu_read_lock_sched,
//#                guard/scoped_guard(preempt) or the in-kernel FPU/SIMD
//#                sections (kernel_fpu_begin, kernel_neon_begin,
//#                kernel_vector_begin: preemption off on RT) without the
//#                matching enable or end;
//#  - rawlock:    after raw_spin_lock*/raw_spin_trylock* (or guard/
//#                scoped_guard(raw_spinlock*)) of lock R without a
//#                raw_spin_unlock* of R, or after a call of a helper of the
//#                file that returns with a raw spinlock held (on every path
//#                after taking it).
//# A raw trylock tested in an if/while condition opens the region only on
//# its success paths; "if (C) open(); ... if (C) close();" is a pair; a
//# path ends at do_task_dead(), panic() or BUG(); a helper that closes and
//# at once reopens a region (kernel_fpu_end(); kernel_fpu_begin();) does
//# not end it; scoped_guard(spinlock, ...) in a region is a finding; calls
//# a helper skips on RT (IS_ENABLED(CONFIG_PREEMPT_RT)) are left out.
//# Trylocks are not reported here: they do not sleep.  The sleeping call
//# may be made directly or by helpers defined in the same file, up to
//# three call levels (rtlab_cocci.DEPTH).  All paths are considered.
//# Patch mode converts a file-scope spinlock_t to raw_spinlock_t when every
//# acquisition of it in the file is reported here.  Review every hunk.
//# spatch needs cocci/ on PYTHONPATH (for rtlab_cocci.py).
///
// Confidence: Moderate
// Copyright: (C) 2026 rtlab.
// Comments: part of rtlab (cocci/); see cocci/README.md
// Options: --no-includes --include-headers

virtual patch
virtual context
virtual org
virtual report

@initialize:python@
@@
import re
import rtlab_cocci as R
ACQ = {}          # lock -> [(line, column)]
FOUND = set()     # (line, column) of direct findings
FILELOCK = {}
SEEN = set()
CLOSERS = set()   # helpers that end a region opened by their caller
LOCKRET = set()   # helpers that return with a raw spinlock held
RAWOP = {}        # raw lock op (line, col) -> function, while no release is seen
TRYIF = set()     # (line, col) of raw trylocks tested in an if or while condition
CONDPAIR = {}     # (line, col) of an opener under "if (C)" -> line of a closer under the same "if (C)"
CFG = {'mode': 'report'}

def rt_only_off(p):
    # "if (!IS_ENABLED(CONFIG_PREEMPT_RT)) preempt_disable();": the region
    # does not exist on PREEMPT_RT
    ls = R.lines(p.file)
    n = int(p.line) - 1
    for i in (n, n - 1):
        if 0 <= i < len(ls) and re.search(r'!\s*IS_ENABLED\s*\(\s*CONFIG_PREEMPT_RT\s*\)', ls[i]):
            return True
    return False

def opener_at(p):
    # "local_irq_save", "guard(raw_spinlock_irqsave)", "scoped_guard(irq)"
    o = R.src_at(p)
    if o in ('guard', 'scoped_guard'):
        o = '%s(%s)' % (o, R.guard_class(p))
    return o

def kind(opener):
    if 'raw_spin' in opener:
        return 'rawlock'
    if 'irq' in opener:
        return 'irqoff'
    return 'preemptoff'

def sleepy(h):
    if h in R.SLEEP_LOCK or h in R.SLEEP_CALL or h in R.REGMAP_CALL or h == 'guard':
        return True
    return h in R.closure(False, True)

def emit(p, fn, lab, chain, ctx, rule, p1, ap=None):
    key = (p.file, p.line, p.column, rule, R.lock_text(lab, chain))
    if key in SEEN:
        return
    SEEN.add(key)
    msg = R.message(lab, chain, ctx, fn, rule, ap.line if ap is not None else None)
    if CFG['mode'] == 'org':
        cocci.print_main(msg, [p])
        cocci.print_secs("region", [p1])
        if ap is not None:
            cocci.print_secs("helper", [ap])
    else:
        coccilib.report.print_report(p, msg)

def hit(p1, p2, ctx, rule=None):
    # a region opened at p1 reaches the call at p2
    if rt_only_off(p1) or R.rt_dead(p2):
        return
    # "if (C) local_irq_save(f); ... if (C) local_irq_restore(f); call()":
    # the path that skips the restore also skipped the save
    cl = CONDPAIR.get(R.key(p1))
    if cl is not None and int(p2.line) > cl:
        return
    name = R.src_at(p2)
    fn = p2.current_element
    rule = rule or kind(ctx)
    lab = R.sleep_label(name, p2, False)
    if lab is not None:
        FOUND.add(R.key(p2))
        if CFG['mode'] in ('report', 'org'):
            emit(p2, fn, lab, [], ctx, rule, p1)
        return
    if name == fn or CFG['mode'] not in ('report', 'org'):
        return
    for (lab, ap, chain, _) in R.closure(False, True).get(name, []):
        if len(chain) < R.DEPTH:
            emit(p2, fn, lab, [name] + chain, ctx, rule, p1, ap)

def safe_id(x):
    l = '&' + x
    if l not in FILELOCK or l not in ACQ:
        return False
    return all(a in FOUND for a in ACQ[l])

@script:python depends on org@
@@
CFG['mode'] = 'org'

@script:python depends on context@
@@
CFG['mode'] = 'context'

@script:python depends on patch@
@@
CFG['mode'] = 'patch'

@script:python depends on !org && !context && !patch@
@@
CFG['mode'] = 'report'

@script:python reset@
@@
R.F.reset()
ACQ.clear()
FOUND.clear()
FILELOCK.clear()
SEEN.clear()
CLOSERS.clear()
LOCKRET.clear()
RAWOP.clear()
TRYIF.clear()
CONDPAIR.clear()

// ---------------------------------------------------- the file's call graph

// Only calls of a sleeping op or of a function defined in the file matter.
// Matched flat, the caller being the position's current_element: an
// "h(...) { ... g(...) ... }" rule costs a CTL pass over every function
// (half of the file's spatch time).
@defs@
identifier h;
@@
h(...) { ... }

@script:python@
h << defs.h;
@@
R.F.defined.add(h)

@calls@
identifier g : script:python () { R.wanted(g) };
position p;
@@
g@p(...)

@script:python@
g << calls.g;
p << calls.p;
@@
h = p[0].current_element
R.add_call(h, g, p[0])
if g in R.SLEEP_LOCK or g in R.SLEEP_TRYLOCK:
    a = R.args_after(p[0])
    if a:
        ACQ.setdefault(a[0], []).append(R.key(p[0]))

@sguard exists@
identifier h;
iterator name scoped_guard;
expression list es;
statement S;
position p;
@@
h(...) {
 ... when any
 scoped_guard@p(es) S
 ... when any
}

@script:python@
h << sguard.h;
p << sguard.p;
@@
R.add_call(h, 'scoped_guard', p[0])

// A helper that releases the caller's region before a call (drop the raw
// lock, sleep, retake the raw lock) does not make that call in the region.
@released exists@
identifier g : script:python () { R.wanted(g) };
identifier cl = {raw_spin_unlock, raw_spin_unlock_irq, raw_spin_unlock_irqrestore, raw_spin_unlock_bh, local_irq_enable, local_irq_restore, raw_local_irq_enable, raw_local_irq_restore, preempt_enable, preempt_enable_no_resched, preempt_enable_notrace, put_cpu, put_cpu_var, put_cpu_ptr, rcu_read_unlock_sched, rcu_read_unlock_sched_notrace, kernel_fpu_end, kernel_neon_end, kernel_vector_end};
position p;
@@
 cl(...);
 ... when any
 g@p(...)

@script:python@
p << released.p;
@@
R.F.released.add(R.key(p[0]))

// A helper that, on some path from its entry, closes a region it did not
// open (e.g. "unlock and enable interrupts") ends the caller's region.
// It must also return on some path without opening one again: a helper
// that closes and reopens at once (the FPU yield idiom
// "kernel_fpu_end(); cond_resched(); kernel_fpu_begin();") leaves the
// caller's region open.
@closer exists@
identifier ch;
identifier cl = {raw_spin_unlock, raw_spin_unlock_irq, raw_spin_unlock_irqrestore, raw_spin_unlock_bh, local_irq_enable, local_irq_restore, raw_local_irq_enable, raw_local_irq_restore, preempt_enable, preempt_enable_no_resched, preempt_enable_notrace, put_cpu, put_cpu_var, put_cpu_ptr, rcu_read_unlock_sched, rcu_read_unlock_sched_notrace, kernel_fpu_end, kernel_neon_end, kernel_vector_end};
@@
ch(...) {
 ...
    when != local_irq_disable()
    when != local_irq_save(...)
    when != raw_local_irq_disable()
    when != raw_local_irq_save(...)
    when != preempt_disable()
    when != preempt_disable_notrace()
    when != get_cpu()
    when != get_cpu_var(...)
    when != get_cpu_ptr(...)
    when != rcu_read_lock_sched()
    when != kernel_fpu_begin()
    when != kernel_fpu_begin_mask(...)
    when != kernel_neon_begin()
    when != kernel_vector_begin()
    when != raw_spin_lock(...)
    when != raw_spin_lock_irq(...)
    when != raw_spin_lock_irqsave(...)
    when != raw_spin_lock_bh(...)
    when != raw_spin_lock_nested(...)
 cl(...);
 ...
    when != local_irq_disable()
    when != local_irq_save(...)
    when != raw_local_irq_disable()
    when != raw_local_irq_save(...)
    when != preempt_disable()
    when != preempt_disable_notrace()
    when != get_cpu()
    when != get_cpu_var(...)
    when != get_cpu_ptr(...)
    when != rcu_read_lock_sched()
    when != kernel_fpu_begin()
    when != kernel_fpu_begin_mask(...)
    when != kernel_neon_begin()
    when != kernel_vector_begin()
    when != raw_spin_lock(...)
    when != raw_spin_lock_irq(...)
    when != raw_spin_lock_irqsave(...)
    when != raw_spin_lock_bh(...)
    when != raw_spin_lock_nested(...)
}

@script:python@
ch << closer.ch;
@@
CLOSERS.add(ch)

// A helper that returns with the raw spinlock it took still held on every
// path after taking it (foo_lock_irqsave() style): its callers are in a
// raw-locked region.  "forall" keeps out helpers that take and drop the
// lock under the same condition (the paths are not correlated).
// a raw lock op, and whether some path after it releases that lock
@rawop@
identifier rop = {raw_spin_lock, raw_spin_lock_irq, raw_spin_lock_irqsave, raw_spin_lock_bh, raw_spin_lock_nested, raw_spin_lock_irqsave_nested, raw_spin_lock_nest_lock, raw_spin_trylock, raw_spin_trylock_irq, raw_spin_trylock_irqsave};
expression r;
position q;
@@
rop@q(r, ...)

@script:python@
q << rawop.q;
@@
RAWOP[R.key(q[0])] = q[0].current_element

@rawunl exists@
identifier rop = {raw_spin_lock, raw_spin_lock_irq, raw_spin_lock_irqsave, raw_spin_lock_bh, raw_spin_lock_nested, raw_spin_lock_irqsave_nested, raw_spin_lock_nest_lock, raw_spin_trylock, raw_spin_trylock_irq, raw_spin_trylock_irqsave};
expression r;
position q;
@@
rop@q(r, ...)
... when any
(
raw_spin_unlock(r)
|
raw_spin_unlock_irq(r)
|
raw_spin_unlock_irqrestore(r, ...)
|
raw_spin_unlock_bh(r)
)

@script:python@
q << rawunl.q;
@@
RAWOP.pop(R.key(q[0]), None)

// A helper that returns with the raw spinlock it took still held on every
// path after taking it (foo_lock_irqsave() style): no path from the
// acquisition releases it.  Helpers that take and drop the lock under the
// same condition have such a path and are left out.
@script:python lockret@
@@
for fn in RAWOP.values():
    if fn != 'something_else':
        LOCKRET.add(fn)

@filelock1@
declarer name DEFINE_SPINLOCK;
identifier x;
@@
DEFINE_SPINLOCK(x);

@script:python@
x << filelock1.x;
@@
FILELOCK['&' + x] = True

@filelock2@
identifier x;
position p;
@@
spinlock_t x@p;

@script:python@
x << filelock2.x;
p << filelock2.p;
@@
if p[0].current_element == 'something_else':
    FILELOCK['&' + x] = True

// ------------------------------------------ trylocks, paired conditions

// A raw trylock tested in a condition holds the lock only where it
// succeeded: in the then-branch of "if (raw_spin_trylock(r))", after
// "if (!raw_spin_trylock(r)) S" and after "while (!raw_spin_trylock(r))".
// The general rule below leaves these out; the rules after it follow the
// success paths only.  A trylock whose result is stored is treated as a lock.
@tryif@
identifier rt = {raw_spin_trylock, raw_spin_trylock_irq, raw_spin_trylock_irqsave};
expression r;
statement S1, S2;
position p1;
@@
(
if (<+... rt@p1(r, ...) ...+>) S1 else S2
|
if (<+... rt@p1(r, ...) ...+>) S1
|
while (<+... rt@p1(r, ...) ...+>) S1
)

@script:python@
p1 << tryif.p1;
@@
TRYIF.add(R.key(p1[0]))

// "if (C) open(); ... if (C) close();": the same condition on both sides
@condpair exists@
expression C;
identifier opn = {local_irq_disable, local_irq_save, raw_local_irq_disable, raw_local_irq_save, preempt_disable, preempt_disable_notrace, raw_spin_lock, raw_spin_lock_irq, raw_spin_lock_irqsave, raw_spin_lock_bh, raw_spin_lock_nested};
identifier cls = {local_irq_enable, local_irq_restore, raw_local_irq_enable, raw_local_irq_restore, preempt_enable, preempt_enable_no_resched, preempt_enable_notrace, raw_spin_unlock, raw_spin_unlock_irq, raw_spin_unlock_irqrestore, raw_spin_unlock_bh};
position p1, p3;
@@
(
if (C) opn@p1(...);
|
if (C) { ... opn@p1(...); ... }
)
... when any
(
if (C) cls@p3(...);
|
if (C) { ... cls@p3(...); ... }
)

@script:python@
p1 << condpair.p1;
p3 << condpair.p3;
@@
k = R.key(p1[0])
l = int(p3[0].line)
if k not in CONDPAIR or l < CONDPAIR[k]:
    CONDPAIR[k] = l

// ----------------------------------------- irq-off and preempt-off regions

@irqp exists@
identifier opn = {local_irq_disable, local_irq_save, raw_local_irq_disable, raw_local_irq_save, preempt_disable, preempt_disable_notrace, get_cpu, get_cpu_var, get_cpu_ptr, rcu_read_lock_sched, rcu_read_lock_sched_notrace, kernel_fpu_begin, kernel_fpu_begin_mask, kernel_neon_begin, kernel_vector_begin};
identifier gopn = {irq, irqsave, preempt, preempt_notrace};
identifier h : script:python () { sleepy(h) };
identifier ch : script:python () { ch in CLOSERS };
position p1, p2;
@@
(
opn@p1(...)
|
guard@p1(gopn)()
)
... when != local_irq_enable()
    when != local_irq_restore(...)
    when != raw_local_irq_enable()
    when != raw_local_irq_restore(...)
    when != raw_spin_unlock_irq(...)
    when != raw_spin_unlock_irqrestore(...)
    when != preempt_enable()
    when != preempt_enable_no_resched()
    when != preempt_enable_notrace()
    when != put_cpu()
    when != put_cpu_var(...)
    when != put_cpu_ptr(...)
    when != rcu_read_unlock_sched()
    when != rcu_read_unlock_sched_notrace()
    when != kernel_fpu_end()
    when != kernel_neon_end()
    when != kernel_vector_end()
    when != ch(...)
    when != do_task_dead()
    when != panic(...)
    when != BUG()
    when any
h@p2(...)

@script:python@
p1 << irqp.p1;
p2 << irqp.p2;
@@
o = opener_at(p1[0])
hit(p1[0], p2[0], '%s() region from line %s' % (o, p1[0].line))

// scoped_guard(spinlock, ...) written directly in the region: an iterator,
// not a call, so the rule above does not see it
@irqsg exists@
iterator name scoped_guard;
expression list es;
statement S;
identifier opn = {local_irq_disable, local_irq_save, raw_local_irq_disable, raw_local_irq_save, preempt_disable, preempt_disable_notrace, get_cpu, get_cpu_var, get_cpu_ptr, rcu_read_lock_sched, rcu_read_lock_sched_notrace, kernel_fpu_begin, kernel_fpu_begin_mask, kernel_neon_begin, kernel_vector_begin};
identifier gopn = {irq, irqsave, preempt, preempt_notrace};
identifier ch : script:python () { ch in CLOSERS };
position p1, p2;
@@
(
opn@p1(...)
|
guard@p1(gopn)()
)
... when != local_irq_enable()
    when != local_irq_restore(...)
    when != raw_local_irq_enable()
    when != raw_local_irq_restore(...)
    when != raw_spin_unlock_irq(...)
    when != raw_spin_unlock_irqrestore(...)
    when != preempt_enable()
    when != preempt_enable_no_resched()
    when != preempt_enable_notrace()
    when != put_cpu()
    when != put_cpu_var(...)
    when != put_cpu_ptr(...)
    when != rcu_read_unlock_sched()
    when != rcu_read_unlock_sched_notrace()
    when != kernel_fpu_end()
    when != kernel_neon_end()
    when != kernel_vector_end()
    when != ch(...)
    when != do_task_dead()
    when != panic(...)
    when != BUG()
    when any
scoped_guard@p2(es) S

@script:python@
p1 << irqsg.p1;
p2 << irqsg.p2;
@@
o = opener_at(p1[0])
hit(p1[0], p2[0], '%s() region from line %s' % (o, p1[0].line))

// ------------------------------------------------------- raw lock regions

@raw exists@
identifier rop = {raw_spin_lock, raw_spin_lock_irq, raw_spin_lock_irqsave, raw_spin_lock_bh, raw_spin_lock_nested, raw_spin_lock_irqsave_nested, raw_spin_lock_nest_lock, raw_spin_trylock, raw_spin_trylock_irq, raw_spin_trylock_irqsave};
identifier rg = {raw_spinlock, raw_spinlock_irq, raw_spinlock_irqsave, raw_spinlock_nested};
identifier h : script:python () { sleepy(h) };
expression r;
identifier ch : script:python () { ch in CLOSERS };
position p1 : script:python () { R.key(p1[0]) not in TRYIF };
position p2;
@@
(
rop@p1(r, ...)
|
guard@p1(rg)(r)
)
... when != raw_spin_unlock(r)
    when != raw_spin_unlock_irq(r)
    when != raw_spin_unlock_irqrestore(r, ...)
    when != raw_spin_unlock_bh(r)
    when != ch(...)
    when != do_task_dead()
    when != panic(...)
    when != BUG()
    when any
h@p2(...)

@script:python@
p1 << raw.p1;
p2 << raw.p2;
r << raw.r;
@@
o = opener_at(p1[0])
hit(p1[0], p2[0], '%s(%s) region from line %s' % (o, R.norm(r), p1[0].line), 'rawlock')

@rawsg exists@
iterator name scoped_guard;
expression list es;
statement S;
identifier rop = {raw_spin_lock, raw_spin_lock_irq, raw_spin_lock_irqsave, raw_spin_lock_bh, raw_spin_lock_nested, raw_spin_lock_irqsave_nested, raw_spin_lock_nest_lock, raw_spin_trylock, raw_spin_trylock_irq, raw_spin_trylock_irqsave};
identifier rg = {raw_spinlock, raw_spinlock_irq, raw_spinlock_irqsave, raw_spinlock_nested};
expression r;
identifier ch : script:python () { ch in CLOSERS };
position p1 : script:python () { R.key(p1[0]) not in TRYIF };
position p2;
@@
(
rop@p1(r, ...)
|
guard@p1(rg)(r)
)
... when != raw_spin_unlock(r)
    when != raw_spin_unlock_irq(r)
    when != raw_spin_unlock_irqrestore(r, ...)
    when != raw_spin_unlock_bh(r)
    when != ch(...)
    when != do_task_dead()
    when != panic(...)
    when != BUG()
    when any
scoped_guard@p2(es) S

@script:python@
p1 << rawsg.p1;
p2 << rawsg.p2;
r << rawsg.r;
@@
o = opener_at(p1[0])
hit(p1[0], p2[0], '%s(%s) region from line %s' % (o, R.norm(r), p1[0].line), 'rawlock')

@rawtry exists@
identifier rt = {raw_spin_trylock, raw_spin_trylock_irq, raw_spin_trylock_irqsave};
identifier h : script:python () { sleepy(h) };
expression r;
statement S;
identifier ch : script:python () { ch in CLOSERS };
position p1, p2;
@@
(
if (rt@p1(r, ...)) {
 ... when != raw_spin_unlock(r)
     when != raw_spin_unlock_irq(r)
     when != raw_spin_unlock_irqrestore(r, ...)
     when != raw_spin_unlock_bh(r)
     when != ch(...)
     when != do_task_dead()
     when != panic(...)
     when != BUG()
     when any
 h@p2(...)
 ... when any
}
|
if (!rt@p1(r, ...)) S
... when != raw_spin_unlock(r)
    when != raw_spin_unlock_irq(r)
    when != raw_spin_unlock_irqrestore(r, ...)
    when != raw_spin_unlock_bh(r)
    when != ch(...)
    when != do_task_dead()
    when != panic(...)
    when != BUG()
    when any
h@p2(...)
|
while (!rt@p1(r, ...)) S
... when != raw_spin_unlock(r)
    when != raw_spin_unlock_irq(r)
    when != raw_spin_unlock_irqrestore(r, ...)
    when != raw_spin_unlock_bh(r)
    when != ch(...)
    when != do_task_dead()
    when != panic(...)
    when != BUG()
    when any
h@p2(...)
)

@script:python@
p1 << rawtry.p1;
p2 << rawtry.p2;
r << rawtry.r;
@@
o = opener_at(p1[0])
hit(p1[0], p2[0], '%s(%s) region from line %s' % (o, R.norm(r), p1[0].line), 'rawlock')

@rawret exists@
identifier lr : script:python () { lr in LOCKRET };
identifier h : script:python () { sleepy(h) };
identifier ch : script:python () { ch in CLOSERS };
position p1, p2;
@@
lr@p1(...)
... when != raw_spin_unlock(...)
    when != raw_spin_unlock_irq(...)
    when != raw_spin_unlock_irqrestore(...)
    when != raw_spin_unlock_bh(...)
    when != ch(...)
    when != do_task_dead()
    when != panic(...)
    when != BUG()
    when any
h@p2(...)

@script:python@
p1 << rawret.p1;
p2 << rawret.p2;
@@
o = R.src_at(p1[0])
hit(p1[0], p2[0], '%s() (returns with a raw spinlock held) region from line %s' % (o, p1[0].line), 'rawlock')

// scoped_guard(raw_spinlock*/irq*/preempt*, ...) { ... }
@sgopen exists@
iterator name scoped_guard;
identifier sgk = {raw_spinlock, raw_spinlock_irq, raw_spinlock_irqsave, raw_spinlock_nested, irq, irqsave, preempt, preempt_notrace};
expression list es;
identifier h : script:python () { sleepy(h) };
position p1, p2;
@@
scoped_guard@p1(sgk, es) {
 ... when any
 h@p2(...)
 ... when any
}

@script:python@
p1 << sgopen.p1;
p2 << sgopen.p2;
@@
o = opener_at(p1[0])
hit(p1[0], p2[0], '%s region from line %s' % (o, p1[0].line))

// ---------------------------------------------------------------- context

@depends on context exists@
identifier h;
position p : script:python () { R.key(p[0]) in FOUND };
@@
*h@p(...)

// ------------------------------------------------------------------ patch

@depends on patch@
declarer name DEFINE_SPINLOCK;
declarer name DEFINE_RAW_SPINLOCK;
identifier x : script:python () { safe_id(x) };
@@
(
- DEFINE_SPINLOCK(x);
+ DEFINE_RAW_SPINLOCK(x);
|
- spinlock_t x;
+ raw_spinlock_t x;
)

@depends on patch@
identifier x : script:python () { safe_id(x) };
identifier op = {spin_lock, spin_unlock, spin_lock_irq, spin_unlock_irq, spin_lock_irqsave, spin_unlock_irqrestore, spin_lock_bh, spin_unlock_bh, spin_trylock, spin_trylock_irqsave, spin_lock_nested, spin_lock_irqsave_nested, spin_lock_init, spin_is_locked};
fresh identifier rop = "raw_" ## op;
@@
- op
+ rop
  (&x, ...)
