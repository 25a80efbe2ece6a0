#!/usr/bin/env python3
"""Turn spatch report-mode output of rtlab's semantic patches into a sorted
report (report.txt) and report.json.

A finding line from spatch looks like
  path:LINE:COL-COL: WARNING: sleeping lock|call "LOCK" taken in CONTEXT (function FN, rule RULE[ at line ACQ])
Other lines are counted as noise and listed in the JSON under "other".
Each finding is tagged by reach.py (rt-reachable, non-rt-arch,
kconfig-excludes-rt, dead-code, test-code).  Findings of one rule that end
in the same acquisition (one helper's lock reached from several call sites)
are collapsed into one, listing the other call sites.  report.txt shows the
rt-reachable findings (all with --all); report.json holds all of them.
"""
import argparse
import json
import os
import re
import sys

import reach

FINDING = re.compile(
    r'^(?P<file>[^:\s]+):(?P<line>\d+):\d+-\d+: WARNING: sleeping (lock|call) "(?P<lock>.*)" '
    r'taken in (?P<context>.*) \(function (?P<function>[^,]+), rule (?P<rule>[a-z]+)'
    r'(?: at line (?P<acq>\d+))?\)$')

RULES = ['irqoff', 'preemptoff', 'rawlock',
         'irqchip', 'chained', 'irqhandler', 'hrtimer', 'clockevent', 'ipi',
         'cpuhp', 'cpupm', 'syscore', 'pciops', 'perf']
FAMILY = {'irqoff': 'atomic', 'preemptoff': 'atomic', 'rawlock': 'atomic'}


def parse(paths):
    found, other = {}, []
    for path in paths:
        with open(path, errors='replace') as fh:
            for n, raw in enumerate(fh, 1):
                line = raw.rstrip('\n')
                if not line.strip():
                    continue
                m = FINDING.match(line)
                if not m:
                    other.append('%s:%d: %s' % (path, n, line))
                    continue
                d = {k: v for k, v in m.groupdict().items() if k != 'acq'}
                d['file'] = os.path.normpath(d['file'])
                d['line'] = int(d['line'])
                d['acq'] = int(m.group('acq') or d['line'])
                key = (d['file'], d['line'], d['function'], d['lock'], d['rule'])
                # one finding per site and rule; keep the first context
                found.setdefault(key, d)
    return sorted(found.values(),
                  key=lambda d: (d['file'], d['line'], d['rule'], d['lock'])), other


def collapse(findings):
    """One finding per bug.  Two findings of one rule and file are the same
    bug when they reach the same acquisition (a helper's lock from several
    call sites), when they are the same direct call in one function (from
    several regions), or when one call site reaches the same lock through
    several helper chains.  The first call site stays, the others are
    listed under 'sites'."""
    parent = list(range(len(findings)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first = {}
    for i, d in enumerate(findings):
        base = d['lock'].split(' via ')[0]
        if ' via ' in d['lock']:
            keys = [('acq', d['file'], d['rule'], d['acq'], base),
                    ('site', d['file'], d['rule'], d['line'], base)]
        else:
            keys = [('fn', d['file'], d['rule'], d['function'], base)]
        for k in keys:
            if k in first:
                parent[find(i)] = find(first[k])
            else:
                first[k] = i
    groups = {}
    for i, d in enumerate(findings):
        groups.setdefault(find(i), []).append(d)
    out = []
    for g in groups.values():
        g.sort(key=lambda d: (d['line'], d['lock']))
        head = dict(g[0])
        head['sites'] = sorted({'%d %s' % (x['line'], x['function']) for x in g[1:]
                                if x['line'] != head['line']})
        out.append(head)
    return sorted(out, key=lambda d: (d['file'], d['line'], d['rule'], d['lock']))


SUSPEND_ONLY = ('syscore suspend/resume: one CPU online, tasks frozen, system_state '
                'SYSTEM_SUSPEND (kernel/power/suspend.c, hibernate.c): no contention')
REGION = re.compile(r'region from line (\d+)$')


def known_fp(path):
    """(file, function, lock, rule) -> reason, from a reviewed false
    positive list: tab-separated file, function, lock, rule, reason;
    '#' starts a comment."""
    out = {}
    if not path or not os.path.exists(path):
        return out
    with open(path) as fh:
        for line in fh:
            if not line.strip() or line.startswith('#'):
                continue
            f = line.rstrip('\n').split('\t')
            if len(f) >= 5:
                out[tuple(f[:4])] = f[4]
    return out


def tag_all(findings, tree, kdir, fps=None):
    r = reach.Reach(tree, kdir)
    fps = fps or {}
    for d in findings:
        m = REGION.search(d['context'])
        d['tag'], d['reason'] = r.tag(d['file'], d['line'], int(m.group(1)) if m else None)
        if d['tag'] == 'rt-reachable' and d['rule'] == 'syscore':
            # syscore callbacks run on the last online CPU with the other
            # tasks frozen and system_state SYSTEM_SUSPEND (which silences
            # might_sleep): a sleeping lock there cannot be contended
            d['tag'], d['reason'] = 'suspend-only', SUSPEND_ONLY
        k = (d['file'], d['function'], d['lock'], d['rule'])
        if d['tag'] == 'rt-reachable' and k in fps:
            d['tag'], d['reason'] = 'reviewed-fp', 'false positive in cocci/REVIEW.md: ' + fps[k]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--tree', required=True)
    ap.add_argument('--version', default='unknown')
    ap.add_argument('--started', default='')
    ap.add_argument('--seconds', type=int, default=0)
    ap.add_argument('--scanned', type=int, default=0)
    ap.add_argument('--dirs', default='.')
    ap.add_argument('--out', required=True)
    ap.add_argument('--candidates', nargs=2, default=[])
    ap.add_argument('--timeouts', nargs='*', default=[])
    ap.add_argument('--outputs', nargs='+', required=True)
    ap.add_argument('--kconfig', default='', help='directory of kconfig.sh symbol lists')
    ap.add_argument('--all', action='store_true', help='report.txt lists every tag')
    ap.add_argument('--known-fp', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), 'known-fp.tsv'),
                    help='reviewed false positives (file, function, lock, rule, reason), tagged reviewed-fp')
    a = ap.parse_args()

    raw, other = parse(a.outputs)
    findings = collapse(raw)
    tag_all(findings, a.tree, a.kconfig or None, known_fp(a.known_fp))
    shown = [d for d in findings if a.all or d['tag'] == 'rt-reachable']
    totals = {r: 0 for r in RULES}
    for d in shown:
        totals[d['rule']] = totals.get(d['rule'], 0) + 1
    tags = {t: sum(1 for d in findings if d['tag'] == t) for t in reach.TAGS}
    sites = len({(d['file'], d['line']) for d in shown})
    cands = {}
    for c in a.candidates:
        with open(c) as fh:
            cands[os.path.basename(c).replace('.files', '')] = sum(1 for _ in fh)
    errors = []
    for e in a.timeouts:
        with open(e, errors='replace') as fh:
            for line in fh:
                line = line.strip()
                if line:
                    errors.append(line)
    timeouts = [e for e in errors if 'timeout' in e.lower() or 'Timeout' in e]

    summary = {
        'tree': a.tree, 'kernelversion': a.version, 'dirs': a.dirs.split(),
        'started': a.started, 'seconds': a.seconds,
        'files_scanned': a.scanned, 'files_candidate': cands,
        'total': len(shown), 'sites': sites, 'totals': totals,
        'all_tags': a.all, 'raw_findings': len(raw), 'collapsed': len(findings), 'tags': tags,
        'kconfig': bool(a.kconfig),
        'spatch_messages': len(errors), 'timeouts': len(timeouts),
    }
    with open(os.path.join(a.out, 'report.json'), 'w') as fh:
        json.dump(dict(summary, findings=findings, other=other[:200],
                       messages=errors[:200]), fh, indent=1)
        fh.write('\n')

    with open(os.path.join(a.out, 'report.txt'), 'w') as fh:
        fh.write('# rtlab PREEMPT_RT context violations (cocci/run.sh)\n')
        fh.write('# kernel %s, tree %s, dirs %s\n' % (a.version, a.tree, a.dirs))
        fh.write('# started %s, run time %d s (%d min %02d s)\n' %
                 (a.started, a.seconds, a.seconds // 60, a.seconds % 60))
        fh.write('# C files scanned %d, given to spatch: %s\n' %
                 (a.scanned, ', '.join('%s %d' % kv for kv in sorted(cands.items()))))
        fh.write('# spatch messages %d (timeouts %d)\n' % (len(errors), len(timeouts)))
        fh.write('# %d raw findings, %d after collapsing call sites; by tag: %s\n' %
                 (len(raw), len(findings), ', '.join('%s %d' % (t, tags[t]) for t in reach.TAGS)))
        fh.write('# shown: %s\n' % ('all tags (--all)' if a.all else 'rt-reachable only (--all for every tag)'))
        fh.write('# file:line\tfunction\tlock\tcontext\trule\ttag[\talso: other call sites]\n')
        for d in shown:
            also = ('\talso: ' + ', '.join(d['sites'])) if d['sites'] else ''
            fh.write('%s:%d\t%s\t%s\t%s\t%s\t%s%s\n' % (d['file'], d['line'], d['function'],
                                                       d['lock'], d['context'], d['rule'], d['tag'], also))
        fh.write('# totals per rule\n')
        for r in RULES:
            fh.write('# %-11s %d\n' % (r, totals.get(r, 0)))
        fh.write('# total       %d findings at %d distinct sites\n' % (len(shown), sites))
    print('cocci: %d findings shown (%s) at %d sites in %d s (%s); report in %s/report.txt' %
          (len(shown), 'all tags' if a.all else 'rt-reachable', sites, a.seconds,
           ', '.join('%s %d' % (r, totals[r]) for r in RULES if totals[r]) or 'none', a.out))
    return 0


if __name__ == '__main__':
    sys.exit(main())
