#!/usr/bin/env python3
"""Turn spatch report-mode output of rtlab's semantic patches into a sorted
report (report.txt) and report.json.

A finding line from spatch looks like
  path:LINE:COL-COL: WARNING: sleeping lock "LOCK" taken in CONTEXT (function FN, rule RULE)
Other lines are counted as noise and listed in the JSON under "other".
"""
import argparse
import json
import os
import re
import sys

FINDING = re.compile(
    r'^(?P<file>[^:\s]+):(?P<line>\d+):\d+-\d+: WARNING: sleeping lock "(?P<lock>.*)" '
    r'taken in (?P<context>.*) \(function (?P<function>[^,]+), rule (?P<rule>[a-z]+)\)$')

RULES = ['irqoff', 'preemptoff', 'rawlock',
         'irqchip', 'chained', 'irqhandler', 'hrtimer', 'clockevent', 'ipi']
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
                d = m.groupdict()
                d['file'] = os.path.normpath(d['file'])
                d['line'] = int(d['line'])
                key = (d['file'], d['line'], d['function'], d['lock'], d['rule'])
                # one finding per site and rule; keep the first context
                found.setdefault(key, d)
    return sorted(found.values(),
                  key=lambda d: (d['file'], d['line'], d['rule'], d['lock'])), other


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
    a = ap.parse_args()

    findings, other = parse(a.outputs)
    totals = {r: 0 for r in RULES}
    for d in findings:
        totals[d['rule']] = totals.get(d['rule'], 0) + 1
    sites = len({(d['file'], d['line']) for d in findings})
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
        'total': len(findings), 'sites': sites, 'totals': totals,
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
        fh.write('# file:line\tfunction\tlock\tcontext\trule\n')
        for d in findings:
            fh.write('%s:%d\t%s\t%s\t%s\t%s\n' % (d['file'], d['line'], d['function'],
                                                 d['lock'], d['context'], d['rule']))
        fh.write('# totals per rule\n')
        for r in RULES:
            fh.write('# %-11s %d\n' % (r, totals.get(r, 0)))
        fh.write('# total       %d findings at %d distinct sites\n' % (len(findings), sites))
    print('cocci: %d findings at %d sites in %d s (%s); report in %s/report.txt' %
          (len(findings), sites, a.seconds,
           ', '.join('%s %d' % (r, totals[r]) for r in RULES if totals[r]) or 'none', a.out))
    return 0


if __name__ == '__main__':
    sys.exit(main())
