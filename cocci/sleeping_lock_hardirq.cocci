// SPDX-License-Identifier: GPL-2.0-only
/// PREEMPT_RT: sleeping lock (spinlock_t, rwlock_t, local_lock_t) taken in
/// code that runs in hard interrupt context even on PREEMPT_RT.
//# On PREEMPT_RT spinlock_t, rwlock_t and local_lock_t are rtmutex based
//# sleeping locks.  The following entry points are never force-threaded and
//# therefore must not take them (directly, or through a helper defined in
//# the same file, one call level deep):
//#  - irqchip:    struct irq_chip callbacks (all but irq_bus_lock and
//#                irq_bus_sync_unlock), called under the raw desc->lock;
//#  - chained:    chained / custom flow handlers (irq_set_chained_handler*,
//#                irq_set_handler*, irq_domain_set_info, gpio parent_handler);
//#  - irqhandler: handlers requested with IRQF_NO_THREAD, IRQF_TIMER,
//#                IRQF_PERCPU or IRQF_ONESHOT (the primary handler of a
//#                ONESHOT interrupt is not force-threaded), per-CPU
//#                handlers and NMIs;
//#  - hrtimer:    callbacks of hrtimers initialised in a *_HARD mode;
//#  - clockevent: struct clock_event_device callbacks;
//#  - ipi:        smp_call_function*() / on_each_cpu*() / CSD callbacks,
//#                hard irq_work and stop_machine() callbacks.
//# Entry points are recognised only where they are registered in the same
//# file as their definition.  Patch mode converts a file-scope spinlock_t
//# (DEFINE_SPINLOCK or static spinlock_t) to raw_spinlock_t when every
//# acquisition of it in the file is inside such an entry point; a lock that
//# is also taken from thread context is reported but never converted.  The
//# conversion is only correct if the critical sections are short and
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
# entry function -> list of (rule, context)
ENTRY = {}
# helper function -> list of (lock op, lock, line)
TAKES = {}
# file-scope spinlock_t -> True; acquisitions: lock -> list of functions
FILELOCK = {}
ACQ = {}
SEEN = set()
CFG = {'mode': 'report'}

def norm(e):
    return re.sub(r'\s+', '', e)

def add_entry(cb, rule, ctx):
    ENTRY.setdefault(cb, [])
    if (rule, ctx) not in ENTRY[cb]:
        ENTRY[cb].append((rule, ctx))

def emit(p, fn, lock, ctx, rule, p2=None):
    key = (p[0].file, p[0].line, p[0].column, rule, lock)
    if key in SEEN:
        return
    SEEN.add(key)
    msg = 'WARNING: sleeping lock "%s" taken in %s (function %s, rule %s)' % (lock, ctx, fn, rule)
    if CFG['mode'] == 'org':
        cocci.print_main(msg, p)
        if p2 is not None:
            cocci.print_secs("helper", p2)
    else:
        coccilib.report.print_report(p[0], msg)

def safe(x):
    # every acquisition of the file-scope lock x is in an entry point
    if x not in FILELOCK or x not in ACQ:
        return False
    return all(fn in ENTRY for fn in ACQ[x])

def safe_id(x):
    return safe('&' + x)

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
ENTRY.clear()
TAKES.clear()
FILELOCK.clear()
ACQ.clear()
SEEN.clear()

// ---------------------------------------------------------------- entries

@ic_init@
identifier chip, cb;
identifier fld != {irq_bus_lock, irq_bus_sync_unlock, name, parent_device, flags};
@@
struct irq_chip chip = { ..., .fld = cb, ... };

@script:python@
chip << ic_init.chip;
cb << ic_init.cb;
fld << ic_init.fld;
@@
add_entry(cb, 'irqchip', 'irq_chip callback %s.%s' % (chip, fld))

@ic_assign@
identifier cb;
identifier fld != {irq_bus_lock, irq_bus_sync_unlock, name, parent_device, flags};
struct irq_chip *c;
struct irq_chip c2;
@@
(
c->fld = cb
|
c2.fld = cb
)

@script:python@
cb << ic_assign.cb;
fld << ic_assign.fld;
@@
add_entry(cb, 'irqchip', 'irq_chip callback .%s' % fld)

@chained@
identifier cb;
identifier reg = {irq_set_chained_handler, irq_set_handler, irq_set_handler_locked, __irq_set_handler};
identifier reg2 = {irq_set_chained_handler_and_data};
identifier reg3 = {irq_set_chip_and_handler, irq_set_chip_and_handler_name};
expression e1, e2, e3, e4, e5;
struct gpio_irq_chip *g;
@@
(
reg(e1, cb, ...)
|
reg2(e1, cb, ...)
|
reg3(e1, e2, cb, ...)
|
irq_domain_set_info(e1, e2, e3, e4, e5, cb, ...)
|
g->parent_handler = cb
)

@script:python@
cb << chained.cb;
@@
add_entry(cb, 'chained', 'chained/flow irq handler')

@irqh@
identifier cb;
expression e1, e2, e3, f;
@@
(
request_irq(e1, cb, f, ...)
|
request_threaded_irq(e1, cb, e2, f, ...)
|
request_any_context_irq(e1, cb, f, ...)
|
devm_request_irq(e3, e1, cb, f, ...)
|
devm_request_threaded_irq(e3, e1, cb, e2, f, ...)
|
devm_request_any_context_irq(e3, e1, cb, f, ...)
)

@script:python@
cb << irqh.cb;
f << irqh.f;
@@
flags = [x for x in ('IRQF_NO_THREAD', 'IRQF_TIMER', 'IRQF_PERCPU', 'IRQF_ONESHOT')
         if re.search(r'\b%s\b' % x, f)]
if flags:
    add_entry(cb, 'irqhandler', 'hard irq handler (%s)' % '|'.join(flags))

@irqpc@
identifier cb;
identifier reg = {request_percpu_irq, __request_percpu_irq, request_nmi, request_percpu_nmi};
expression e1;
@@
reg(e1, cb, ...)

@script:python@
cb << irqpc.cb;
reg << irqpc.reg;
@@
add_entry(cb, 'irqhandler', 'hard irq handler (%s)' % reg)

@hrt exists@
expression t, clk;
identifier cb;
identifier hm = {HRTIMER_MODE_HARD, HRTIMER_MODE_ABS_HARD, HRTIMER_MODE_REL_HARD, HRTIMER_MODE_ABS_PINNED_HARD, HRTIMER_MODE_REL_PINNED_HARD};
identifier init = {hrtimer_init, hrtimer_init_on_stack};
@@
(
init(&t, clk, <+... hm ...+>);
... when any
t.function = cb;
|
init(t, clk, <+... hm ...+>);
... when any
t->function = cb;
)

@script:python@
cb << hrt.cb;
hm << hrt.hm;
@@
add_entry(cb, 'hrtimer', 'hrtimer callback (%s)' % hm)

@ce_init@
identifier ced, cb;
identifier fld = {set_next_event, set_next_ktime, set_state_periodic, set_state_oneshot, set_state_oneshot_stopped, set_state_shutdown, tick_resume, broadcast, suspend, resume, event_handler};
@@
struct clock_event_device ced = { ..., .fld = cb, ... };

@script:python@
cb << ce_init.cb;
fld << ce_init.fld;
@@
add_entry(cb, 'clockevent', 'clock_event_device .%s' % fld)

@ce_assign@
identifier cb;
identifier fld = {set_next_event, set_next_ktime, set_state_periodic, set_state_oneshot, set_state_oneshot_stopped, set_state_shutdown, tick_resume, broadcast, suspend, resume, event_handler};
struct clock_event_device *c;
struct clock_event_device c2;
@@
(
c->fld = cb
|
c2.fld = cb
)

@script:python@
cb << ce_assign.cb;
fld << ce_assign.fld;
@@
add_entry(cb, 'clockevent', 'clock_event_device .%s' % fld)

@ipi@
identifier cb;
identifier reg1 = {smp_call_function, on_each_cpu, stop_machine, stop_machine_cpuslocked, CSD_INIT, IRQ_WORK_INIT_HARD};
identifier reg2 = {smp_call_function_single, smp_call_function_many, smp_call_function_any, on_each_cpu_mask, INIT_CSD};
identifier reg3 = {on_each_cpu_cond, on_each_cpu_cond_mask};
expression e1, e2;
@@
(
reg1(cb, ...)
|
reg2(e1, cb, ...)
|
reg3(e2, cb, ...)
|
reg3(cb, ...)
)

@script:python@
cb << ipi.cb;
@@
add_entry(cb, 'ipi', 'IPI/cross-CPU callback')

// ------------------------------------------------------------- lock sites

// Every sleeping-lock acquisition in the file, by function: the direct
// case (function is an entry point) and the helper case (an entry point
// calls the function) are both resolved from this table.
@takes exists@
identifier h;
identifier lk = {spin_lock, spin_lock_irq, spin_lock_irqsave, spin_lock_bh, spin_lock_nested, spin_lock_irqsave_nested, spin_lock_nest_lock, spin_trylock, spin_trylock_irq, spin_trylock_irqsave, spin_trylock_bh, read_lock, read_lock_irq, read_lock_irqsave, read_lock_bh, read_trylock, write_lock, write_lock_irq, write_lock_irqsave, write_lock_bh, write_lock_nested, write_trylock, write_trylock_irqsave, local_lock, local_lock_irq, local_lock_irqsave, local_lock_nested_bh};
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
TAKES.setdefault(h, [])
TAKES[h].append((lk, norm(l), p))
ACQ.setdefault(norm(l), []).append(h)

@gd exists@
identifier h;
identifier gk = {spinlock, spinlock_irq, spinlock_irqsave, read_lock, read_lock_irq, read_lock_irqsave, write_lock, write_lock_irq, write_lock_irqsave};
expression l;
position p;
@@
h(...) {
 ... when any
 guard@p(gk)(l)
 ... when any
}

@script:python@
h << gd.h;
gk << gd.gk;
l << gd.l;
p << gd.p;
@@
TAKES.setdefault(h, [])
TAKES[h].append(('guard(%s)' % gk, norm(l), p))
ACQ.setdefault(norm(l), []).append(h)

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

// ---------------------------------------------------------------- results

@script:python report_direct depends on !patch && !context@
@@
for fn in sorted(ENTRY):
    for (lk, l, p) in TAKES.get(fn, []):
        for (rule, ctx) in ENTRY[fn]:
            emit(p, fn, l, ctx, rule)

@via exists@
identifier fn : script:python () { fn in ENTRY };
identifier h;
position pc;
@@
fn(...) {
 ... when any
 h@pc(...)
 ... when any
}

@script:python depends on !patch && !context@
h << via.h;
pc << via.pc;
@@
fn = pc[0].current_element
if h in TAKES and h != fn:
    for (lk, l, p) in TAKES[h]:
        for (rule, ctx) in ENTRY[fn]:
            emit(pc, fn, '%s via %s()' % (l, h), ctx, rule, p)

@depends on context exists@
identifier fn : script:python () { fn in ENTRY };
identifier lk = {spin_lock, spin_lock_irq, spin_lock_irqsave, spin_lock_bh, spin_lock_nested, spin_lock_irqsave_nested, spin_lock_nest_lock, spin_trylock, spin_trylock_irq, spin_trylock_irqsave, spin_trylock_bh, read_lock, read_lock_irq, read_lock_irqsave, read_lock_bh, read_trylock, write_lock, write_lock_irq, write_lock_irqsave, write_lock_bh, write_lock_nested, write_trylock, write_trylock_irqsave, local_lock, local_lock_irq, local_lock_irqsave, local_lock_nested_bh};
expression l;
@@
fn(...) {
 ... when any
*lk(l, ...)
 ... when any
}

@depends on context exists@
identifier fn : script:python () { fn in ENTRY };
identifier h : script:python () { h in TAKES };
@@
fn(...) {
 ... when any
*h(...)
 ... when any
}

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
