#!/usr/bin/env python3
"""Assertions for cocci/tests/run.sh.  Each sub-command prints result lines
"ok - NAME" / "not ok - NAME" (+ "# detail" lines); run.sh numbers them.

  expect CORPUS REPORT_JSON       exact findings per corpus file, from the
                                  "expect: RULE LOCK[; RULE LOCK]" markers
                                  (shown, rt-reachable) and "hidden: RULE
                                  LOCK TAG" markers (tagged, not shown)
  wellformed TREE OUT_DIR NAME    report.txt / report.json are consistent and
                                  every finding points at real code
  context FILE DIFF [direct]      starred lines of a context-mode diff are
                                  the expected lines (direct: without the
                                  "via helper" ones)
  org FILE ORG_OUTPUT             one org TODO entry per expected finding
"""
import json
import os
import re
import sys

RULES = ['irqoff', 'preemptoff', 'rawlock',
         'irqchip', 'chained', 'irqhandler', 'hrtimer', 'clockevent', 'ipi',
         'cpuhp', 'cpupm', 'syscore', 'pciops', 'perf']
TAGS = ['rt-reachable', 'non-rt-arch', 'kconfig-excludes-rt', 'dead-code', 'test-code', 'reviewed-fp',
        'suspend-only']
MARK = re.compile(r'expect:\s*(.*?)\s*(\*/)?\s*$')
HIDDEN = re.compile(r'hidden:\s*(.*?)\s*(\*/)?\s*$')
LINE = re.compile(r'^(?P<file>[^:\t]+):(?P<line>\d+)\t(?P<function>[^\t]+)\t(?P<lock>[^\t]+)\t'
                  r'(?P<context>[^\t]+)\t(?P<rule>[a-z]+)\t(?P<tag>[a-z-]+)(\talso: (?P<also>.*))?$')


def result(ok, name, details=()):
    print('%s - %s' % ('ok' if ok else 'not ok', name))
    for d in details:
        print('# %s' % d)


def expected(path):
    exp = set()
    with open(path) as fh:
        for n, line in enumerate(fh, 1):
            m = MARK.search(line)
            if not m:
                continue
            for item in m.group(1).split(';'):
                rule, lock = item.strip().split(None, 1)
                exp.add((n, rule, lock.strip()))
    return exp


def hidden(path):
    exp = set()
    with open(path) as fh:
        for n, line in enumerate(fh, 1):
            m = HIDDEN.search(line)
            if m:
                rule, rest = m.group(1).split(None, 1)
                lock, tag = rest.rsplit(None, 1)
                exp.add((n, rule, lock.strip(), tag))
    return exp


def cmd_expect(corpus, report):
    with open(report) as fh:
        rep = json.load(fh)
    got, gothid = {}, {}
    for f in rep['findings']:
        name = os.path.basename(f['file'])
        if f['tag'] == 'rt-reachable':
            got.setdefault(name, set()).add((f['line'], f['rule'], f['lock']))
        else:
            gothid.setdefault(name, set()).add((f['line'], f['rule'], f['lock'], f['tag']))
    covered, tags = set(), set()
    files = sorted(x for x in os.listdir(corpus) if x.endswith('.c'))
    for name in files:
        exp = expected(os.path.join(corpus, name))
        hid = hidden(os.path.join(corpus, name))
        covered |= {r for (_, r, _) in exp} | {r for (_, r, _, _) in hid}
        tags |= {t for (_, _, _, t) in hid}
        act = got.pop(name, set())
        acth = gothid.pop(name, set())
        det = ['missing %s:%d %s %s' % (name, l, r, k) for (l, r, k) in sorted(exp - act)]
        det += ['unexpected %s:%d %s %s' % (name, l, r, k) for (l, r, k) in sorted(act - exp)]
        det += ['missing hidden %s:%d %s %s %s' % ((name,) + x) for x in sorted(hid - acth)]
        det += ['unexpected hidden %s:%d %s %s %s' % ((name,) + x) for x in sorted(acth - hid)]
        result(exp == act and hid == acth, 'corpus %s: exactly the %d expected findings (%d tagged hidden)'
               % (name, len(exp), len(hid)), det)
    result(not got and not gothid, 'no findings outside the corpus files',
           ['unexpected file %s' % f for f in sorted(set(got) | set(gothid))])
    want = {'dead-code', 'test-code'}
    result(want <= tags, 'corpus has hidden findings tagged %s' % ', '.join(sorted(want)),
           ['no hidden %s' % t for t in sorted(want - tags)])
    missing = [r for r in RULES if r not in covered]
    result(not missing, 'corpus has positives for every rule (%d rules)' % len(RULES),
           ['no positive for %s' % r for r in missing])


def cmd_wellformed(tree, out, name):
    txt = os.path.join(out, 'report.txt')
    js = os.path.join(out, 'report.json')
    det = []
    if not (os.path.isfile(txt) and os.path.isfile(js)):
        result(False, '%s: report.txt and report.json written' % name)
        return
    with open(js) as fh:
        try:
            rep = json.load(fh)
        except ValueError as e:
            result(False, '%s: report.json parses' % name, [str(e)])
            return
    rows, totals, comments = [], {}, []
    with open(txt) as fh:
        for line in fh:
            line = line.rstrip('\n')
            if line.startswith('#'):
                comments.append(line)
                m = re.match(r'^# (\w+)\s+(\d+)$', line)
                if m and m.group(1) in RULES:
                    totals[m.group(1)] = int(m.group(2))
                continue
            m = LINE.match(line)
            if not m:
                det.append('malformed line: %r' % line)
                continue
            rows.append(m.groupdict())
    keys = [(r['file'], int(r['line']), r['rule'], r['lock']) for r in rows]
    if keys != sorted(keys):
        det.append('report.txt is not sorted by file:line')
    for r in RULES:
        n = sum(1 for x in rows if x['rule'] == r)
        if totals.get(r) != n:
            det.append('total for %s says %s, %d lines' % (r, totals.get(r), n))
        if rep['totals'].get(r) != n:
            det.append('JSON total for %s says %s, %d lines' % (r, rep['totals'].get(r), n))
    shown = [f for f in rep['findings'] if rep.get('all_tags') or f['tag'] == 'rt-reachable']
    if rep['total'] != len(rows) or len(shown) != len(rows):
        det.append('JSON total %s / %d shown findings, text %d' % (rep['total'], len(shown), len(rows)))
    if any(f['tag'] not in TAGS for f in rep['findings']):
        det.append('JSON finding with an unknown tag')
    if sum(rep['tags'].values()) != len(rep['findings']):
        det.append('JSON tag counts %s do not add up to %d findings' % (rep['tags'], len(rep['findings'])))
    if not any('run time' in c for c in comments):
        det.append('no run time in report.txt')
    # every finding points at real code: the file exists, the line holds
    # the lock expression (or the helper call), the function is defined there
    cache = {}
    for r in rows:
        f = r['file'].rsplit(':', 1)[0]
        path = os.path.join(tree, f)
        if f not in cache:
            try:
                with open(path, errors='replace') as fh:
                    cache[f] = fh.read().split('\n')
            except OSError:
                cache[f] = None
        src = cache[f]
        if src is None:
            det.append('%s: no such file' % f)
            continue
        n = int(r['line'])
        if n < 1 or n > len(src):
            det.append('%s:%d: line out of range' % (f, n))
            continue
        text = re.sub(r'\s+', '', src[n - 1])
        m = re.match(r'^(.*?) via (\w+)\(\)', r['lock'])
        if m:
            want = m.group(2) + '('
        elif re.match(r'^\w+\(\)$', r['lock']):
            want = r['lock'][:-1]
        else:
            want = r['lock']
        if want not in text:
            det.append('%s:%d: %r not on the line' % (f, n, want))
        if not re.search(r'\b%s\s*\(' % re.escape(r['function']), '\n'.join(src)):
            det.append('%s: function %s not found' % (f, r['function']))
    result(not det, '%s: report well formed (%d findings, text and JSON agree, every finding on real code)'
           % (name, len(rows)), det[:20])


def cmd_context(path, diff, direct=False):
    exp = expected(path)
    want = {l for (l, _, k) in exp if not (direct and ' via ' in k)}
    src = open(path).read().split('\n')
    got, det = set(), []
    with open(diff) as fh:
        old = None
        for line in fh:
            m = re.match(r'^@@ -(\d+)', line)
            if m:
                old = int(m.group(1))
                continue
            if old is None or line.startswith('---') or line.startswith('+++'):
                continue
            if line.startswith('-'):
                if src[old - 1] != line[1:].rstrip('\n'):
                    det.append('line %d does not match the source' % old)
                got.add(old)
                old += 1
            elif line.startswith(' '):
                old += 1
    det += ['line %d not starred' % l for l in sorted(want - got)]
    det += ['line %d starred unexpectedly' % l for l in sorted(got - want)]
    result(not det, 'context mode on %s stars exactly the %d expected lines'
           % (os.path.basename(path), len(want)), det)


def cmd_org(path, org):
    exp = expected(path)
    lines = set()
    with open(org) as fh:
        for line in fh:
            m = re.match(r'^\* TODO \[\[view:[^:]+::face=ovl-face1::linb=(\d+)::', line)
            if m:
                lines.add(int(m.group(1)))
    want = {l for (l, _, _) in exp}
    result(lines == want, 'org mode on %s: one TODO per expected finding (%d)'
           % (os.path.basename(path), len(want)),
           ['org lines %s, expected %s' % (sorted(lines), sorted(want))] if lines != want else [])


def main(argv):
    cmd, args = argv[1], argv[2:]
    if cmd == 'expect':
        cmd_expect(*args)
    elif cmd == 'wellformed':
        cmd_wellformed(*args)
    elif cmd == 'context':
        cmd_context(args[0], args[1], len(args) > 2 and args[2] == 'direct')
    elif cmd == 'org':
        cmd_org(*args)
    else:
        print('check.py: unknown command %s' % cmd, file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
