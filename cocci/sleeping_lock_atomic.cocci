// SPDX-License-Identifier: GPL-2.0-only
/// PREEMPT_RT: sleeping lock (spinlock_t, rwlock_t, local_lock_t) taken
/// inside a region where interrupts or preemption are disabled, or while a
/// raw spinlock is held.
//# On PREEMPT_RT spinlock_t, rwlock_t and local_lock_t are rtmutex based
//# sleeping locks; acquiring one with interrupts off, preemption off or a
//# raw_spinlock_t held is "sleeping function called from invalid context"
//# (lockdep: "Invalid wait context").  Rules:
//#  - irqoff:     after local_irq_disable/save (raw_ variants, guard(irq),
//#                guard(irqsave)) on some path without local_irq_enable/
//#                restore (or a raw unlock_irq/irqrestore) in between;
//#  - preemptoff: after preempt_disable, get_cpu, get_cpu_var, get_cpu_ptr
//#                or guard(preempt) without the matching enable/put;
//#  - rawlock:    after raw_spin_lock* (or guard(raw_spinlock*)) of lock R
//#                without a raw_spin_unlock* of R in between.
//# Trylocks are not reported here: they do not sleep (the hard-irq rules
//# in sleeping_lock_hardirq.cocci do report them).
//# The lock may be taken directly or by a helper defined in the same file
//# and called from the region (one call level).  All paths are considered
//# (an early return or a conditional unlock only removes the paths it
//# covers).  Patch mode converts a file-scope spinlock_t (DEFINE_SPINLOCK
//# or static spinlock_t) to raw_spinlock_t when every acquisition of it in
//# the file is reported here; a lock also taken elsewhere is left alone.
//# The conversion is only correct if the critical sections are short and
//# bounded: review every hunk.
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
TAKES = {}        # function -> [(op, lock, pos)]
ACQ = {}          # lock -> [(line, column)]
FOUND = set()     # (line, column) of reported acquisitions
FILELOCK = {}
SEEN = set()
LINES = {}
RELEASED = set()  # (line, column) of acquisitions after a region closer
CLOSERS = set()   # helpers that end a region opened by their caller
CFG = {'mode': 'report'}

def norm(e):
    return re.sub(r'\s+', '', e)

def src_at(p):
    # text of a one-line position span
    f = p.file
    if f not in LINES:
        try:
            with open(f, errors='replace') as fh:
                LINES[f] = fh.read().split('\n')
        except OSError:
            LINES[f] = []
    ls = LINES[f]
    n = int(p.line) - 1
    if n >= len(ls):
        return '?'
    if p.line_end == p.line:
        return ls[n][int(p.column):int(p.column_end)]
    return ls[n][int(p.column):]

def opener_at(p):
    # "local_irq_save", or "guard(raw_spinlock_irqsave)" for a guard
    o = src_at(p)
    if o == 'guard':
        m = re.match(r'guard\s*\(\s*(\w+)\s*\)', LINES[p.file][int(p.line) - 1][int(p.column):])
        if m:
            o = 'guard(%s)' % m.group(1)
    return o

def rt_only_off(p):
    # "if (!IS_ENABLED(CONFIG_PREEMPT_RT)) preempt_disable();": the region
    # does not exist on PREEMPT_RT
    src_at(p)
    ls = LINES.get(p.file, [])
    n = int(p.line) - 1
    for i in (n, n - 1):
        if 0 <= i < len(ls) and re.search(r'!\s*IS_ENABLED\s*\(\s*CONFIG_PREEMPT_RT\s*\)', ls[i]):
            return True
    return False

def kind(opener):
    if 'irq' in opener:
        return 'irqoff'
    return 'preemptoff'

def emit(p, fn, lock, ctx, rule, p1, p2=None):
    key = (p[0].file, p[0].line, p[0].column, rule, lock)
    if key in SEEN:
        return
    SEEN.add(key)
    msg = 'WARNING: sleeping lock "%s" taken in %s (function %s, rule %s)' % (lock, ctx, fn, rule)
    if CFG['mode'] == 'org':
        cocci.print_main(msg, p)
        cocci.print_secs("region", p1)
        if p2 is not None:
            cocci.print_secs("helper", p2)
    else:
        coccilib.report.print_report(p[0], msg)

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
TAKES.clear()
ACQ.clear()
FOUND.clear()
FILELOCK.clear()
SEEN.clear()
LINES.clear()
RELEASED.clear()
CLOSERS.clear()

// ------------------------------------------------------------- lock sites

@takes exists@
identifier h;
identifier lk = {spin_lock, spin_lock_irq, spin_lock_irqsave, spin_lock_bh, spin_lock_nested, spin_lock_irqsave_nested, spin_lock_nest_lock, read_lock, read_lock_irq, read_lock_irqsave, read_lock_bh, write_lock, write_lock_irq, write_lock_irqsave, write_lock_bh, write_lock_nested, local_lock, local_lock_irq, local_lock_irqsave, local_lock_nested_bh};
expression l;
position p;
@@
h(...) {
 ... when any
 lk@p(l, ...)
 ... when any
}

@script:python@
h << takes.h;
lk << takes.lk;
l << takes.l;
p << takes.p;
@@
TAKES.setdefault(h, []).append((lk, norm(l), p))
ACQ.setdefault(norm(l), []).append((p[0].line, p[0].column))

// A helper that releases the caller's region before it takes a sleeping
// lock (drop the raw lock, sleep on the lock, retake the raw lock) is not
// a violation of its caller.
@released exists@
identifier h;
identifier cl = {raw_spin_unlock, raw_spin_unlock_irq, raw_spin_unlock_irqrestore, raw_spin_unlock_bh, local_irq_enable, local_irq_restore, raw_local_irq_enable, raw_local_irq_restore, preempt_enable, preempt_enable_no_resched, preempt_enable_notrace, put_cpu, put_cpu_var, put_cpu_ptr};
identifier lk = {spin_lock, spin_lock_irq, spin_lock_irqsave, spin_lock_bh, spin_lock_nested, spin_lock_irqsave_nested, spin_lock_nest_lock, read_lock, read_lock_irq, read_lock_irqsave, read_lock_bh, write_lock, write_lock_irq, write_lock_irqsave, write_lock_bh, write_lock_nested, local_lock, local_lock_irq, local_lock_irqsave, local_lock_nested_bh};
position p;
@@
h(...) {
 ... when any
 cl(...);
 ... when any
 lk@p(...)
 ... when any
}

@script:python@
p << released.p;
@@
RELEASED.add((p[0].line, p[0].column))

// A helper that, on some path from its entry, closes a region it did not
// open (e.g. "unlock and enable interrupts") ends the caller's region.
@closer exists@
identifier ch;
identifier cl = {raw_spin_unlock, raw_spin_unlock_irq, raw_spin_unlock_irqrestore, raw_spin_unlock_bh, local_irq_enable, local_irq_restore, raw_local_irq_enable, raw_local_irq_restore, preempt_enable, preempt_enable_no_resched, preempt_enable_notrace, put_cpu, put_cpu_var, put_cpu_ptr};
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
    when != raw_spin_lock(...)
    when != raw_spin_lock_irq(...)
    when != raw_spin_lock_irqsave(...)
    when != raw_spin_lock_bh(...)
    when != raw_spin_lock_nested(...)
 cl(...);
 ... when any
}

@script:python@
ch << closer.ch;
@@
CLOSERS.add(ch)

// Trylocks never sleep, so they are not reported in an irq-off, preempt-off
// or raw-locked region; they still count as acquisitions of a lock that
// patch mode might convert.
@trylocks exists@
identifier h;
identifier tk = {spin_trylock, spin_trylock_irq, spin_trylock_irqsave, spin_trylock_bh};
expression l;
position p;
@@
h(...) {
 ... when any
 tk@p(l, ...)
 ... when any
}

@script:python@
l << trylocks.l;
p << trylocks.p;
@@
ACQ.setdefault(norm(l), []).append((p[0].line, p[0].column))

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

// ----------------------------------------- irq-off and preempt-off regions

@irqp_direct exists@
identifier opn = {local_irq_disable, local_irq_save, raw_local_irq_disable, raw_local_irq_save, preempt_disable, preempt_disable_notrace, get_cpu, get_cpu_var, get_cpu_ptr};
identifier gopn = {irq, irqsave, preempt, preempt_notrace};
identifier lk = {spin_lock, spin_lock_irq, spin_lock_irqsave, spin_lock_bh, spin_lock_nested, spin_lock_irqsave_nested, spin_lock_nest_lock, read_lock, read_lock_irq, read_lock_irqsave, read_lock_bh, write_lock, write_lock_irq, write_lock_irqsave, write_lock_bh, write_lock_nested, local_lock, local_lock_irq, local_lock_irqsave, local_lock_nested_bh};
identifier gk = {spinlock, spinlock_irq, spinlock_irqsave, read_lock, read_lock_irq, read_lock_irqsave, write_lock, write_lock_irq, write_lock_irqsave};
expression l;
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
    when != ch(...)
    when any
(
lk@p2(l, ...)
|
guard@p2(gk)(l)
)

@script:python@
p1 << irqp_direct.p1;
p2 << irqp_direct.p2;
l << irqp_direct.l;
@@
o = opener_at(p1[0])
if rt_only_off(p1[0]):
    cocci.include_match(False)
else:
    FOUND.add((p2[0].line, p2[0].column))
if CFG['mode'] in ('report', 'org') and not rt_only_off(p1[0]):
    emit(p2, p2[0].current_element, norm(l),
         '%s() region from line %s' % (o, p1[0].line), kind(o), p1)

@irqp_via exists@
identifier opn = {local_irq_disable, local_irq_save, raw_local_irq_disable, raw_local_irq_save, preempt_disable, preempt_disable_notrace, get_cpu, get_cpu_var, get_cpu_ptr};
identifier gopn = {irq, irqsave, preempt, preempt_notrace};
identifier h : script:python () { h in TAKES };
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
    when != ch(...)
    when any
h@p2(...)

@script:python@
p1 << irqp_via.p1;
p2 << irqp_via.p2;
@@
o = opener_at(p1[0])
h = src_at(p2[0])
fn = p2[0].current_element
if h != fn and CFG['mode'] in ('report', 'org') and not rt_only_off(p1[0]):
    for (lk, l, hp) in TAKES.get(h, []):
        if (hp[0].line, hp[0].column) in RELEASED:
            continue
        emit(p2, fn, '%s via %s()' % (l, h),
             '%s() region from line %s' % (o, p1[0].line), kind(o), p1, hp)

// ------------------------------------------------------- raw lock regions

@raw_direct exists@
identifier rop = {raw_spin_lock, raw_spin_lock_irq, raw_spin_lock_irqsave, raw_spin_lock_bh, raw_spin_lock_nested, raw_spin_lock_irqsave_nested, raw_spin_lock_nest_lock};
identifier rg = {raw_spinlock, raw_spinlock_irq, raw_spinlock_irqsave, raw_spinlock_nested};
identifier lk = {spin_lock, spin_lock_irq, spin_lock_irqsave, spin_lock_bh, spin_lock_nested, spin_lock_irqsave_nested, spin_lock_nest_lock, read_lock, read_lock_irq, read_lock_irqsave, read_lock_bh, write_lock, write_lock_irq, write_lock_irqsave, write_lock_bh, write_lock_nested, local_lock, local_lock_irq, local_lock_irqsave, local_lock_nested_bh};
identifier gk = {spinlock, spinlock_irq, spinlock_irqsave, read_lock, read_lock_irq, read_lock_irqsave, write_lock, write_lock_irq, write_lock_irqsave};
expression r, l;
identifier ch : script:python () { ch in CLOSERS };
position p1, p2;
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
    when any
(
lk@p2(l, ...)
|
guard@p2(gk)(l)
)

@script:python@
p1 << raw_direct.p1;
p2 << raw_direct.p2;
r << raw_direct.r;
l << raw_direct.l;
@@
o = opener_at(p1[0])
if rt_only_off(p1[0]):
    cocci.include_match(False)
else:
    FOUND.add((p2[0].line, p2[0].column))
if CFG['mode'] in ('report', 'org') and not rt_only_off(p1[0]):
    emit(p2, p2[0].current_element, norm(l),
         '%s(%s) region from line %s' % (o, norm(r), p1[0].line), 'rawlock', p1)

@raw_via exists@
identifier rop = {raw_spin_lock, raw_spin_lock_irq, raw_spin_lock_irqsave, raw_spin_lock_bh, raw_spin_lock_nested, raw_spin_lock_irqsave_nested, raw_spin_lock_nest_lock};
identifier rg = {raw_spinlock, raw_spinlock_irq, raw_spinlock_irqsave, raw_spinlock_nested};
identifier h : script:python () { h in TAKES };
expression r;
identifier ch : script:python () { ch in CLOSERS };
position p1, p2;
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
    when any
h@p2(...)

@script:python@
p1 << raw_via.p1;
p2 << raw_via.p2;
r << raw_via.r;
@@
o = opener_at(p1[0])
h = src_at(p2[0])
fn = p2[0].current_element
if h != fn and CFG['mode'] in ('report', 'org') and not rt_only_off(p1[0]):
    for (lk, l, hp) in TAKES.get(h, []):
        if (hp[0].line, hp[0].column) in RELEASED:
            continue
        emit(p2, fn, '%s via %s()' % (l, h),
             '%s(%s) region from line %s' % (o, norm(r), p1[0].line), 'rawlock', p1, hp)

// ---------------------------------------------------------------- context

@depends on context exists@
identifier lk = {spin_lock, spin_lock_irq, spin_lock_irqsave, spin_lock_bh, spin_lock_nested, spin_lock_irqsave_nested, spin_lock_nest_lock, read_lock, read_lock_irq, read_lock_irqsave, read_lock_bh, write_lock, write_lock_irq, write_lock_irqsave, write_lock_bh, write_lock_nested, local_lock, local_lock_irq, local_lock_irqsave, local_lock_nested_bh};
expression l;
position p : script:python () { (p[0].line, p[0].column) in FOUND };
@@
*lk@p(l, ...)

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
