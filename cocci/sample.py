#!/usr/bin/env python3
"""Reproducible review sample and its confidence interval (cocci/REVIEW.md).

  sample.py REPORT_JSON N SEED   uniform random sample (random.Random(SEED),
                                 sample without replacement) of N findings
                                 shown by default (tag rt-reachable), in
                                 report order, as a Markdown table skeleton
  sample.py wilson K N           Wilson 95% score interval for K of N
"""
import json
import math
import random
import sys

Z95 = 1.959963984540054


def wilson(k, n):
    p = k / n
    d = 1 + Z95 ** 2 / n
    c = (p + Z95 ** 2 / (2 * n)) / d
    h = Z95 * math.sqrt(p * (1 - p) / n + Z95 ** 2 / (4 * n * n)) / d
    return c - h, c + h


def main(argv):
    if len(argv) == 4 and argv[1] == 'wilson':
        k, n = int(argv[2]), int(argv[3])
        lo, hi = wilson(k, n)
        print('%d/%d = %.1f%%, Wilson 95%%: %.1f%% - %.1f%%' % (k, n, 100.0 * k / n, 100 * lo, 100 * hi))
        return 0
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1]) as fh:
        rep = json.load(fh)
    shown = [f for f in rep['findings'] if f['tag'] == 'rt-reachable']
    n, seed = int(argv[2]), int(argv[3])
    idx = sorted(random.Random(seed).sample(range(len(shown)), min(n, len(shown))))
    print('| # | file:line | function | lock | rule | verdict | reason |')
    print('|---|---|---|---|---|---|---|')
    for i in idx:
        f = shown[i]
        print('| %d | %s:%d | %s | %s | %s |  |  |' % (i, f['file'], f['line'], f['function'],
                                                  f['lock'].replace('|', '\\|'), f['rule']))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
