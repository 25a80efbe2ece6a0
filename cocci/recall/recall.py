#!/usr/bin/env python3
"""Recall of the PREEMPT_RT checkers on real upstream fixes (cocci/REVIEW.md).

  recall.py [--tree TREE] [--tarball TAR] [--work DIR] [--json OUT] [FIXES_JSON]

For every fix in FIXES_JSON (default: fixes.json next to this script) the
fixed file is taken from TREE (a 6.12.118 tree) or, without --tree, from
the Debian source tarball, and turned back into the pre-fix code by the
fix's "unraw" locks and "revert" regular expressions.  Both versions are
scanned in one cocci/run.sh run (--no-kconfig --all).  A bug counts as *found*
when the pre-fix file has a shown finding (tag rt-reachable) that the fixed
file does not show (a fix may leave the call under
"if (!IS_ENABLED(CONFIG_PREEMPT_RT))", which is tagged dead-code).
The outcome of each fix is compared with the one recorded in the JSON
("expect": "found" or "missed"), and the recall (found / fixes) is
printed with its Wilson 95% interval.  Output is TAP; exit 1 when an
outcome differs from the recorded one or a revert does not apply, 2 on
bad usage.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
COCCI = os.path.dirname(HERE)
sys.path.insert(0, COCCI)
from sample import wilson  # noqa: E402

TARBALL = '/usr/src/linux-source-6.12.tar.xz'
TAR_TOP = 'linux-source-6.12'


def unraw_rules(lock):
    """Regexes that undo a raw_spinlock_t conversion of LOCK (an expression
    such as '&chip->lock' or a file-scope name such as 'foo_lock')."""
    bare = lock.lstrip('&')
    esc = re.escape(bare)
    arg = r'(\(\s*&?' + esc + r'\b)'
    return [
        (r'\braw_spin_(lock|unlock|trylock)(_\w+)?' + arg, r'spin_\1\2\3'),
        (r'\bguard\(raw_spinlock(\w*)\)(\(\s*&?' + esc + r'\b)', r'guard(spinlock\1)\2'),
        (r'\bscoped_guard\(raw_spinlock(\w*),(\s*&?' + esc + r'\b)', r'scoped_guard(spinlock\1,\2'),
        (r'\bDEFINE_RAW_SPINLOCK\((' + esc + r')\)', r'DEFINE_SPINLOCK(\1)'),
    ]


def revert(text, fix):
    """Apply the fix's reverts; return (new text, list of rules that did not match)."""
    unmatched = []
    for lock in fix.get('unraw', []):
        # some of the lock's calls or guards must be there to revert
        total = 0
        for pat, rep in unraw_rules(lock):
            text, n = re.subn(pat, rep, text)
            total += n
        if total == 0:
            unmatched.append('unraw ' + lock)
    for pat, rep in fix.get('revert', []):
        text, n = re.subn(pat, rep, text)
        if n == 0:
            unmatched.append(pat)
    return text, unmatched


def get_sources(fixes, tree, tarball, dest):
    """Copy the fixes' files from TREE, or extract them from the tarball, into DEST."""
    files = sorted({f['file'] for f in fixes})
    if tree:
        for f in files:
            os.makedirs(os.path.join(dest, os.path.dirname(f)), exist_ok=True)
            with open(os.path.join(tree, f), 'rb') as src, open(os.path.join(dest, f), 'wb') as out:
                out.write(src.read())
        return
    tmp = dest + '.tar'
    os.makedirs(tmp)
    subprocess.run(['tar', '-xf', tarball, '-C', tmp] + ['%s/%s' % (TAR_TOP, f) for f in files], check=True)
    os.rename(os.path.join(tmp, TAR_TOP), dest)


def scan(root, out):
    """Run both semantic patches once over ROOT (fixed/ and pre/ side by side,
    so the two versions share one parallel run); return the findings by
    (version, file)."""
    subprocess.run([os.path.join(COCCI, 'run.sh'), '--tree', root, '--out', out, '-j', '2',
                    '--no-kconfig', '--all'], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(os.path.join(out, 'report.json')) as fh:
        rep = json.load(fh)
    by_file = {}
    for f in rep['findings']:
        if f['tag'] != 'rt-reachable':
            continue
        version, path = f['file'].split('/', 1)
        f['file'] = path
        by_file.setdefault((version, path), []).append(f)
    return by_file


def key(f):
    return (f['function'], f['rule'], f['lock'])


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('fixes', nargs='?', default=os.path.join(HERE, 'fixes.json'))
    ap.add_argument('--tree', default=os.environ.get('COCCI_TREE'))
    ap.add_argument('--tarball', default=TARBALL)
    ap.add_argument('--work')
    ap.add_argument('--json', help='write the per-fix outcomes here')
    args = ap.parse_args(argv[1:])
    try:
        with open(args.fixes) as fh:
            fixes = json.load(fh)['fixes']
    except (OSError, ValueError, KeyError) as e:
        print('%s:1: %s' % (args.fixes, e), file=sys.stderr)
        return 2
    if not args.tree and not os.path.exists(args.tarball):
        print('ok 1 - recall # SKIP no kernel source (apt-get install linux-source-6.12)')
        return 0
    work = args.work or tempfile.mkdtemp(prefix='rtlab-recall.')
    try:
        return run(fixes, args, work)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)


def run(fixes, args, work):
    """Revert, scan both versions, compare with the recorded outcomes."""
    root = os.path.join(work, 'src')
    fixed, pre = os.path.join(root, 'fixed'), os.path.join(root, 'pre')
    get_sources(fixes, args.tree, args.tarball, fixed)
    results = []
    for fix in fixes:
        with open(os.path.join(fixed, fix['file']), encoding='utf-8', errors='surrogateescape') as fh:
            text = fh.read()
        new, unmatched = revert(text, fix)
        path = os.path.join(pre, fix['file'])
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w', encoding='utf-8', errors='surrogateescape') as fh:
            fh.write(new)
        results.append((fix, new != text and not unmatched, unmatched))
    found_in = scan(root, os.path.join(work, 'out'))

    lines, failed, found, outcomes = [], False, 0, []
    for num, (fix, applied, unmatched) in enumerate(results, 1):
        old = {key(f) for f in found_in.get(('fixed', fix['file']), [])}
        new = [f for f in found_in.get(('pre', fix['file']), []) if key(f) not in old]
        got = 'found' if new else 'missed'
        found += got == 'found'
        want = fix.get('expect')
        ok = applied and got == want
        failed |= not ok
        what = ', '.join(sorted({'%s:%d %s %s %s' % (f['file'], f['line'], f['function'], f['rule'], f['lock'])
                                 for f in new})) or fix.get('why', '')
        lines.append('%s %d - %s: %s (%s)%s' % ('ok' if ok else 'not ok', num, fix['id'], got,
                                               fix['title'], '' if applied else ' # revert did not apply: %s' % unmatched))
        if not ok:
            lines.append('# expected %s, got %s: %s' % (want, got, what))
        outcomes.append({'id': fix['id'], 'title': fix['title'], 'file': fix['file'], 'outcome': got,
                         'findings': sorted(what.split(', ')) if new else []})
    n = len(results)
    lo, hi = wilson(found, n)
    print('TAP version 13')
    print('1..%d' % n)
    print('\n'.join(lines))
    print('# recall: %d/%d = %.0f%%, Wilson 95%%: %.0f%% - %.0f%%' % (found, n, 100.0 * found / n, 100 * lo, 100 * hi))
    if args.json:
        with open(args.json, 'w') as fh:
            json.dump({'found': found, 'total': n, 'wilson95': [lo, hi], 'fixes': outcomes}, fh, indent=1)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
