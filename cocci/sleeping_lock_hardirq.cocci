// SPDX-License-Identifier: GPL-2.0-only
/// PREEMPT_RT: a call that sleeps on RT (spinlock_t, rwlock_t, local_lock_t
/// and their wrappers, wake-ups, the allocator, clk_enable, regmap,
/// get_random_*, runtime PM, the skcipher walk) made in
/// code that runs in hard interrupt context or with interrupts disabled
/// even on PREEMPT_RT.
//# On PREEMPT_RT spinlock_t, rwlock_t and local_lock_t are rtmutex based
//# sleeping locks.  The following entry points are never force-threaded or
//# run with interrupts off and therefore must not make a sleeping call
//# (directly, or through helpers defined in the same file, up to three call
//# levels; the sleeping calls are listed in rtlab_cocci.py):
//#  - irqchip:    irq_chip callbacks (all but irq_bus_lock/sync_unlock and
//#                irq_request/release_resources), called under the raw
//#                desc->lock; in a struct irq_chip initializer, or assigned
//#                to a field of that name (p->chip.irq_mask = fn) whatever
//#                the type, which --no-includes cannot see;
//#  - chained:    chained / custom flow handlers;
//#  - irqhandler: handlers requested with IRQF_NO_THREAD, IRQF_TIMER,
//#                IRQF_PERCPU or IRQF_ONESHOT (the primary handler of a
//#                ONESHOT interrupt is not force-threaded), also when the
//#                flags are in a variable set in the file; per-CPU handlers
//#                and NMIs;
//#  - hrtimer:    callbacks of hrtimers initialised in a *_HARD mode, the
//#                .function may be set in another function of the file;
//#  - clockevent: struct clock_event_device callbacks;
//#  - ipi:        smp_call_function*() / on_each_cpu*() / CSD callbacks
//#                (INIT_CSD, csd.func = fn), hard irq_work, stop_machine();
//#  - cpuhp:      CPUHP_AP_*_STARTING / *_DYING callbacks (irqs off on the
//#                CPU coming up or going down);
//#  - cpupm:      cpu_pm notifiers (called from idle with irqs off);
//#  - syscore:    syscore_ops .suspend / .resume (irqs off, one CPU).
//#  - pciops:     struct pci_ops .read / .write / .map_bus (also nested in
//#                a pci_ecam_ops), called under the raw pci_lock with irqs
//#                off (pci_user_read_config_*(), always taken);
//#  - perf:       struct pmu .add/.del/.start/.stop/.read, .pmu_enable/
//#                .pmu_disable and the transaction callbacks, called by
//#                perf core with irqs off under the raw ctx->lock (or in
//#                the IPI of perf_event_read()); in a struct pmu
//#                initializer or a (struct pmu){ ... } compound literal.
//# Entry points are recognised only where they are registered in the same
//# file as their definition.  Patch mode converts a file-scope spinlock_t
//# to raw_spinlock_t when every acquisition of it in the file is inside such
//# an entry point.  Review every hunk.
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
ENTRY = {}        # entry function -> [(rule, context)]
FILELOCK = {}     # file-scope spinlock_t
ACQ = {}          # lock -> [functions taking it]
SEEN = set()
STAR = set()      # (line, column) starred in context mode
HARDT = set()     # last field name of timers initialised in a HARD mode
TFUNC = []        # (last field name of the timer, callback)
NB = {}           # notifier_block -> callback
CPUPM = set()     # notifier_blocks registered with cpu_pm
CFG = {'mode': 'report'}
THREADLESS = ('IRQF_NO_THREAD', 'IRQF_TIMER', 'IRQF_PERCPU', 'IRQF_ONESHOT')

def add_entry(cb, rule, ctx):
    ENTRY.setdefault(cb, [])
    if (rule, ctx) not in ENTRY[cb]:
        ENTRY[cb].append((rule, ctx))

# irq_chip callbacks by field name, for initializers spatch cannot type
# (struct foo_chip x = { .chip = { .irq_mask = fn } }) or headers it skips
CHIP_FIELD = re.compile(r'(?:\.|->)\s*(irq_startup|irq_shutdown|irq_enable|irq_disable|irq_ack|irq_mask|irq_mask_ack|irq_unmask|irq_eoi|irq_set_affinity|irq_retrigger|irq_set_type|irq_set_wake|irq_cpu_online|irq_cpu_offline|irq_suspend|irq_resume|irq_pm_shutdown|irq_print_chip|irq_compose_msi_msg|irq_write_msi_msg|irq_get_irqchip_state|irq_set_irqchip_state|irq_set_vcpu_affinity|ipi_send_single|ipi_send_mask|irq_nmi_setup|irq_nmi_teardown)\s*=\s*&?([A-Za-z_]\w*)\s*[,;}]')
SCANNED = set()

def irq_data_first(txt, fn):
    # every irq_chip callback takes a struct irq_data pointer first; a
    # driver hook of the same field name (.irq_ack = fn in its own struct,
    # called from its threaded handler with its device) does not.  Kept
    # when the file has no definition of fn (it cannot give a finding).
    heads = []
    for m in re.finditer(r'\b' + re.escape(fn) + r'\s*\x28', txt):
        first = re.split(r'[,\x29]', txt[m.end():m.end() + 200], 1)[0].strip()
        if first.startswith('struct') or first.startswith('const'):
            heads.append(first)
    if not heads:
        return True
    return any(re.match(r'(const\s+)?struct\s+irq_data\b', h) for h in heads)

def scan_fields(path):
    if path in SCANNED:
        return
    SCANNED.add(path)
    txt = '\n'.join(R.lines(path))
    for m in CHIP_FIELD.finditer(txt):
        if m.group(2) != 'NULL' and irq_data_first(txt, m.group(2)):
            add_entry(m.group(2), 'irqchip', 'irq_chip callback .%s' % m.group(1))

# pci_ops nested in another initializer (struct pci_ecam_ops .pci_ops)
PCI_NESTED = re.compile(r'\.\s*pci_ops\s*=\s*\{([^}]*)\}')
PCI_FIELD = re.compile(r'\.\s*(read|write|map_bus)\s*=\s*&?([A-Za-z_]\w*)')

# (struct pmu){ ... } compound literals, which drivers assign to the pmu
# embedded in their own struct
PMU_LIT = re.compile(r'\(\s*struct\s+pmu\s*\)\s*\{(.*?)\n\s*\}\s*;', re.S)
PMU_FIELDS = 'add|del|start|stop|read|pmu_enable|pmu_disable|start_txn|commit_txn|cancel_txn'
PMU_FIELD = re.compile(r'\.\s*(%s)\s*=\s*&?([A-Za-z_]\w*)' % PMU_FIELDS)

def pmu_ctx(fld):
    return 'perf pmu .%s (raw ctx->lock, irqs off)' % fld

def scan_pmu(path):
    for m in PMU_LIT.finditer('\n'.join(R.lines(path))):
        for f in PMU_FIELD.finditer(m.group(1)):
            add_entry(f.group(2), 'perf', pmu_ctx(f.group(1)))

def scan_pci(path):
    for m in PCI_NESTED.finditer('\n'.join(R.lines(path))):
        for f in PCI_FIELD.finditer(m.group(1)):
            add_entry(f.group(2), 'pciops', 'pci_ops .%s (raw pci_lock, irqs off)' % f.group(1))

def last_name(e):
    m = re.findall(r'\w+', e)
    return m[-1] if m else e

def irq_flags(f, path):
    # IRQF_* flags that keep the handler in hard irq context: written in
    # the call, or set in the file on a variable/field named in the call
    txt = '\n'.join(R.lines(path))
    found = set(x for x in THREADLESS if re.search(r'\b%s\b' % x, f))
    for w in set(re.findall(r'[A-Za-z_]\w*', f)):
        if w.startswith('IRQF_'):
            continue
        for m in re.finditer(r'\b%s\s*\|?=\s*([^;]*);' % re.escape(w), txt):
            found |= set(x for x in THREADLESS if re.search(r'\b%s\b' % x, m.group(1)))
    return sorted(found)

def emit(p, fn, lab, chain, ctx, rule, ap):
    key = (p.file, p.line, p.column, rule, R.lock_text(lab, chain))
    if key in SEEN:
        return
    SEEN.add(key)
    msg = R.message(lab, chain, ctx, fn, rule, ap.line)
    if CFG['mode'] == 'org':
        cocci.print_main(msg, [p])
        if chain:
            cocci.print_secs("helper", [ap])
    else:
        coccilib.report.print_report(p, msg)

def safe_id(x):
    # every acquisition of the file-scope lock &x is in an entry point
    l = '&' + x
    if l not in FILELOCK or l not in ACQ:
        return False
    return all(fn in ENTRY for fn in ACQ[l])

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
ENTRY.clear()
FILELOCK.clear()
ACQ.clear()
SEEN.clear()
SCANNED.clear()
STAR.clear()
HARDT.clear()
del TFUNC[:]
NB.clear()
CPUPM.clear()

// ---------------------------------------------------------------- entries

@ic_init@
identifier chip, cb;
identifier fld != {irq_bus_lock, irq_bus_sync_unlock, irq_request_resources, irq_release_resources, name, parent_device, flags};
@@
struct irq_chip chip = { ..., .fld = cb, ... };

@script:python@
chip << ic_init.chip;
cb << ic_init.cb;
fld << ic_init.fld;
@@
add_entry(cb, 'irqchip', 'irq_chip callback %s.%s' % (chip, fld))

// by field name: the type of p->chip or of a nested initializer is in a
// header --no-includes skips (see scan_fields)
@fieldcb@
identifier h;
position p;
@@
h@p(...) { ... }

@script:python@
p << fieldcb.p;
@@
if p[0].file not in SCANNED:
    scan_pci(p[0].file)
    scan_pmu(p[0].file)
scan_fields(p[0].file)

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
position p;
@@
(
request_irq@p(e1, cb, f, ...)
|
request_threaded_irq@p(e1, cb, e2, f, ...)
|
request_any_context_irq@p(e1, cb, f, ...)
|
devm_request_irq@p(e3, e1, cb, f, ...)
|
devm_request_threaded_irq@p(e3, e1, cb, e2, f, ...)
|
devm_request_any_context_irq@p(e3, e1, cb, f, ...)
)

@script:python@
cb << irqh.cb;
f << irqh.f;
p << irqh.p;
@@
flags = irq_flags(f, p[0].file)
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

// HARD hrtimers: the init and the .function assignment are joined by the
// timer's field name, so they may sit in different functions of the file.
@hrt_init@
expression t, clk, mode;
identifier init = {hrtimer_init, hrtimer_init_on_stack};
@@
init(t, clk, mode)

@script:python@
t << hrt_init.t;
mode << hrt_init.mode;
@@
if 'HARD' in mode:
    HARDT.add(last_name(t))

@hrt_fn@
expression t;
identifier cb;
@@
(
t.function = cb
|
t->function = cb
)

@script:python@
t << hrt_fn.t;
cb << hrt_fn.cb;
@@
TFUNC.append((last_name(t), cb))

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

@csd@
expression e;
identifier cb;
@@
(
e.func = cb
|
e->func = cb
)

@script:python@
e << csd.e;
cb << csd.cb;
@@
if 'csd' in e.lower():
    add_entry(cb, 'ipi', 'IPI/cross-CPU callback (csd.func)')

@cpuhp@
identifier st;
identifier reg = {cpuhp_setup_state, cpuhp_setup_state_nocalls, cpuhp_setup_state_cpuslocked, cpuhp_setup_state_nocalls_cpuslocked, cpuhp_setup_state_multi};
expression e, e2, cb1, cb2;
@@
(
reg(st, e, cb1, cb2)
|
__cpuhp_setup_state(st, e, e2, cb1, cb2, ...)
)

@script:python@
st << cpuhp.st;
cb1 << cpuhp.cb1;
cb2 << cpuhp.cb2;
@@
if re.match(r'^CPUHP_AP_\w*_(STARTING|DYING)$', st):
    for cb in (cb1, cb2):
        if re.match(r'^[A-Za-z_]\w*$', cb) and cb != 'NULL':
            add_entry(cb, 'cpuhp', 'CPU hotplug callback (%s)' % st)

@nb_init@
identifier nb, cb;
@@
struct notifier_block nb = { ..., .notifier_call = cb, ... };

@script:python@
nb << nb_init.nb;
cb << nb_init.cb;
@@
NB[nb] = cb

@nb_assign@
expression nb;
identifier cb;
@@
(
nb.notifier_call = cb
|
nb->notifier_call = cb
)

@script:python@
nb << nb_assign.nb;
cb << nb_assign.cb;
@@
NB[last_name(nb)] = cb

@cpupm@
expression nb;
@@
cpu_pm_register_notifier(nb)

@script:python@
nb << cpupm.nb;
@@
CPUPM.add(last_name(nb))

@syscore@
identifier ops, cb;
identifier fld = {suspend, resume};
@@
struct syscore_ops ops = { ..., .fld = cb, ... };

@script:python@
ops << syscore.ops;
cb << syscore.cb;
fld << syscore.fld;
@@
add_entry(cb, 'syscore', 'syscore_ops %s.%s (irqs off)' % (ops, fld))

// pci_ops config accessors: pci_user_read/write_config_*() call them under
// raw_spin_lock_irq(&pci_lock) (drivers/pci/access.c), on every arch.
@pciops@
identifier ops, cb;
identifier fld = {read, write, map_bus};
@@
struct pci_ops ops = { ..., .fld = cb, ... };

@script:python@
cb << pciops.cb;
fld << pciops.fld;
@@
add_entry(cb, 'pciops', 'pci_ops .%s (raw pci_lock, irqs off)' % fld)

// perf PMU callbacks: perf core calls them with irqs off under the raw
// perf_event_context lock (kernel/events/core.c), .read also in the IPI
// of perf_event_read().
@pmu_init@
identifier pm, cb;
identifier fld = {add, del, start, stop, read, pmu_enable, pmu_disable, start_txn, commit_txn, cancel_txn};
@@
struct pmu pm = { ..., .fld = cb, ... };

@script:python@
cb << pmu_init.cb;
fld << pmu_init.fld;
@@
add_entry(cb, 'perf', pmu_ctx(fld))

@script:python join@
@@
for (t, cb) in TFUNC:
    if t in HARDT:
        add_entry(cb, 'hrtimer', 'HARD hrtimer callback (.%s)' % t)
for nb in CPUPM:
    if nb in NB:
        add_entry(NB[nb], 'cpupm', 'cpu_pm notifier %s (irqs off)' % nb)

// No entry point in the file: nothing more to do.
@script:python has_entry@
ok;
@@
if not ENTRY:
    cocci.include_match(False)
coccinelle.ok = 'yes'

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

@calls depends on has_entry@
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
        ACQ.setdefault(a[0], []).append(h)

@sguard depends on has_entry exists@
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

@script:python results@
@@
reach = R.closure(True, False)
for fn in sorted(ENTRY):
    for (lab, ap, chain, site) in reach.get(fn, []):
        STAR.add(R.key(site))
        if CFG['mode'] in ('report', 'org'):
            for (rule, ctx) in ENTRY[fn]:
                emit(site, fn, lab, chain, ctx, rule, ap)

@depends on context exists@
identifier h;
position p : script:python () { R.key(p[0]) in STAR };
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
