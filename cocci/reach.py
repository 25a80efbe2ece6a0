# SPDX-License-Identifier: GPL-2.0-only
"""Can a finding run on a PREEMPT_RT kernel?  Used by report.py.

tag() gives one of
  non-rt-arch          under arch/X for an X without ARCH_SUPPORTS_RT, or
                       the file is built on none of x86_64/arm64/riscv even
                       without PREEMPT_RT
  test-code            selftests, KUnit, lib/test_*, samples/, or built only
                       under a CONFIG_*TEST* symbol
  dead-code            inside #if 0, #if MACRO with MACRO defined as 0 in the
                       file, #ifndef CONFIG_PREEMPT_RT (or the #else of
                       #ifdef CONFIG_PREEMPT_RT), or the statement or
                       block of a C if (!IS_ENABLED(CONFIG_PREEMPT_RT))
  kconfig-excludes-rt  the Kconfig symbols that build the file (the
                       Makefiles' obj-$(CONFIG_X) chain from the top
                       directory, plus simple #ifdef CONFIG_X around the
                       line) are set by allyesconfig on some RT-capable
                       architecture without PREEMPT_RT, but on none with it
  rt-reachable         everything else
The Kconfig facts come from kconfig.sh: for each of x86_64, arm64 and riscv
the symbols allyesconfig sets with COMPILE_TEST=n and PREEMPT_RT=y / =n.
"""
import os
import re

RT_ARCHES = ('x86', 'arm64', 'riscv')
CONFIGS = ('x86_64', 'arm64', 'riscv')
TAGS = ('rt-reachable', 'non-rt-arch', 'kconfig-excludes-rt', 'dead-code', 'test-code',
        'reviewed-fp', 'suspend-only')
TEST_PATH = re.compile(
    r'(^|/)(samples|selftests?|kunit|tests?)/|(^|/)(test_[^/]*|[^/]*[_-](test|tests|kunit|selftest)'
    r'|[^/]*-selftest[^/]*|[^/]*selftests?)\.[ch]$')
TEST_SYM = re.compile(r'(^|_)(TEST|TESTS|KUNIT|SELFTEST|SELFTESTS)(_|$)')
ASSIGN = re.compile(r'^\s*([A-Za-z0-9_.\-/]+)-(\$\([^)]*\)|[A-Za-z0-9_]+)\s*[:+]?=\s*(.*)$')
CONFIG_REF = re.compile(r'CONFIG_([A-Za-z0-9_]+)')


class Kconfig:
    """Symbols set (=y or =m) per architecture, with and without RT."""

    def __init__(self, kdir):
        self.syms = {}
        for a in CONFIGS:
            for v in ('rt', 'nort'):
                path = os.path.join(kdir, '%s-%s.syms' % (a, v))
                with open(path) as fh:
                    self.syms[(a, v)] = set(l.strip() for l in fh if l.strip())


def logical_lines(path):
    try:
        with open(path, errors='replace') as fh:
            text = fh.read()
    except OSError:
        return []
    return text.replace('\\\n', ' ').split('\n')


class Makefiles:
    """obj-$(CONFIG_X) += path: the symbols each object or directory needs."""

    def __init__(self, tree):
        self.tree = tree
        self.cache = {}

    def parse(self, d):
        # d -> {relative item ("foo.o", "sub/") : [[syms], ...]} and composites
        if d in self.cache:
            return self.cache[d]
        items, comp = {}, {}
        stack = []
        for name in ('Makefile', 'Kbuild'):
            for line in logical_lines(os.path.join(self.tree, d, name)):
                line = line.split('#', 1)[0]
                s = line.strip()
                m = re.match(r'^(ifdef|ifndef)\s+CONFIG_(\w+)', s)
                if m:
                    stack.append(m.group(2) if m.group(1) == 'ifdef' else None)
                    continue
                m = re.match(r'^if(n?eq)\b(.*)', s)
                if m:
                    refs = CONFIG_REF.findall(m.group(2))
                    pos = m.group(1) == 'neq' and re.search(r',\s*\)', m.group(2))
                    pos = pos or (m.group(1) == 'eq' and re.search(r',\s*[ym]\s*\)', m.group(2)))
                    stack.append(refs[0] if (refs and pos) else None)
                    continue
                if s.startswith('else'):
                    if stack:
                        stack[-1] = None
                    continue
                if s.startswith('endif'):
                    if stack:
                        stack.pop()
                    continue
                m = ASSIGN.match(line)
                if not m:
                    continue
                target, cond, rhs = m.groups()
                syms = [x for x in stack if x]
                ref = CONFIG_REF.findall(cond)
                if ref:
                    syms = syms + [ref[0]]
                elif cond not in ('y', 'm', 'objs'):
                    continue
                for it in rhs.split():
                    v = re.match(r'^\$\(([A-Za-z0-9_.\-/]+)-(y|objs|m)\)$', it)
                    if v:
                        # foo-y += $(bar-y): bar's objects are part of foo
                        comp.setdefault(v.group(1) + '.o', []).append((target + '.o', syms))
                        continue
                    if '$' in it:
                        continue
                    if target in ('obj', 'lib', 'core', 'drivers', 'libs', 'net', 'virt'):
                        items.setdefault(it, []).append(syms)
                    elif it.endswith('.o'):
                        comp.setdefault(it, []).append((target + '.o', syms))
        self.cache[d] = (items, comp)
        return self.cache[d]

    def obj_conds(self, d, obj, depth=0):
        """Alternatives (lists of symbols) under which d/obj is built in d."""
        items, comp = self.parse(d)
        out = list(items.get(obj, []))
        if depth < 3:
            for (parent, syms) in comp.get(obj, []):
                for alt in self.obj_conds(d, parent, depth + 1):
                    out.append(alt + syms)
        return out

    def dir_conds(self, d):
        """Alternatives for the directory d to be descended into."""
        parts = d.split('/')
        if len(parts) <= 1 or (parts[0] == 'arch' and len(parts) <= 2):
            return [[]]
        for i in range(len(parts) - 1, 0, -1):
            parent = '/'.join(parts[:i])
            rel = '/'.join(parts[i:]) + '/'
            conds = self.parse(parent)[0].get(rel)
            if conds:
                return [a + b for a in self.dir_conds(parent) for b in conds]
        # not descended into by name (objects listed from a parent's
        # Makefile): at least what the parent directory needs
        return self.dir_conds('/'.join(parts[:-1]))

    def file_conds(self, path):
        """Alternatives for path to be built; None when no Makefile names it."""
        d, f = os.path.split(path)
        obj = re.sub(r'\.[cS]$', '.o', f)
        parts = d.split('/')
        for i in range(len(parts), 0, -1):
            base = '/'.join(parts[:i])
            rel = os.path.relpath(os.path.join(d, obj), base) if base else obj
            conds = self.obj_conds(base, rel)
            if conds:
                return [a + b for a in self.dir_conds(base) for b in conds]
        return None


def preproc_state(lines, n):
    """(dead, [CONFIG symbols that must be set]) for line n (1-based)."""
    zero = set()
    for l in lines:
        m = re.match(r'^\s*#\s*define\s+(\w+)\s+0\s*$', l)
        if m:
            zero.add(m.group(1))
    stack = []  # (dead if taken branch, dead in else, sym if taken, sym in else)
    for l in lines[:n - 1]:
        m = re.match(r'^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)', l)
        if not m:
            continue
        kw, expr = m.group(1), m.group(2).strip()
        expr = re.sub(r'/\*.*?\*/|//.*', '', expr).strip()
        if kw in ('if', 'ifdef', 'ifndef'):
            dead, dead_else, sym, sym_else = False, False, None, None
            rt_pos = re.fullmatch(r'(defined\s*\(?\s*CONFIG_PREEMPT_RT\s*\)?|IS_ENABLED\s*\(\s*CONFIG_PREEMPT_RT\s*\))', expr)
            rt_neg = re.fullmatch(r'!\s*(defined\s*\(?\s*CONFIG_PREEMPT_RT\s*\)?|IS_ENABLED\s*\(\s*CONFIG_PREEMPT_RT\s*\))', expr)
            if kw == 'ifdef':
                if expr == 'CONFIG_PREEMPT_RT':
                    dead_else = True
                elif expr.startswith('CONFIG_'):
                    sym = expr[7:]
            elif kw == 'ifndef':
                if expr == 'CONFIG_PREEMPT_RT':
                    dead = True
                elif expr.startswith('CONFIG_'):
                    sym_else = expr[7:]
            elif expr == '0' or expr in zero:
                dead = True
            elif rt_neg:
                dead = True
            elif rt_pos:
                dead_else = True
            else:
                m2 = re.fullmatch(r'(defined\s*\(?\s*|IS_ENABLED\s*\(\s*|IS_BUILTIN\s*\(\s*)CONFIG_(\w+)\s*\)?', expr)
                if m2:
                    sym = m2.group(2)
            stack.append([dead, dead_else, sym, sym_else, False])
        elif kw in ('elif', 'else') and stack:
            top = stack[-1]
            if kw == 'else' and not top[4]:
                top[0], top[2] = top[1], top[3]
            else:
                top[0], top[2] = False, None
            top[4] = True
        elif kw == 'endif' and stack:
            stack.pop()
    dead = any(s[0] for s in stack)
    syms = [s[2] for s in stack if s[2]]
    return dead, syms


NOT_RT_IF = re.compile(r'\bif\s*\(\s*!\s*IS_ENABLED\s*\(\s*CONFIG_PREEMPT_RT\s*\)\s*\)')
# how far back to look for the "if (!IS_ENABLED(CONFIG_PREEMPT_RT)) {" of a block
BLOCK_SCAN = 200


def c_not_rt(lines, n):
    """True when line n (1-based) is the statement or block of a C
    "if (!IS_ENABLED(CONFIG_PREEMPT_RT))": the compiler drops it on RT.
    Plain text: the if on the same or the previous line, or on the line
    that opens a block enclosing line n (within BLOCK_SCAN lines)."""
    cur = lines[n - 1] if n - 1 < len(lines) else ''
    m = NOT_RT_IF.search(cur)
    if m and cur[m.end():].strip() not in ('', '{'):
        return True
    for i in range(n - 2, -1, -1):
        prev = lines[i].strip()
        if prev:
            if NOT_RT_IF.search(prev) and re.search(r'\)\s*$', prev):
                return True
            break
    depth = 0
    for i in range(n - 2, max(-1, n - 2 - BLOCK_SCAN), -1):
        l = re.sub(r'"(\\.|[^"\\])*"|//.*', '', lines[i])
        for j in range(len(l) - 1, -1, -1):
            depth += {'}': 1, '{': -1}.get(l[j], 0)
            if depth < 0:
                # a "{" that opens a block holding line n: dead if it is
                # the RT if's, else look at the next enclosing block
                head = l[:j]
                if NOT_RT_IF.search(head) and not re.search(r'\belse\b', head):
                    return True
                depth = 0
    return False


# Hardware evidence for SoC drivers: the device trees of the RT-capable
# architectures that have them (x86 has no in-tree device trees).
DT_DIRS = {'arm64': 'arch/arm64/boot/dts', 'riscv': 'arch/riscv/boot/dts'}
COMPAT = re.compile(r'\.compatible\s*=\s*"([^"]+)"')
DT_STRING = re.compile(r'"([^"]+)"')
# any other way to bind the driver to a device (ACPI, PCI, USB, a bus id
# table that board code or ACPI PRP0001 can use)
OTHER_TABLE = re.compile(r'\b(acpi_device_id|pci_device_id|platform_device_id|usb_device_id|'
                         r'i2c_device_id|spi_device_id|pnp_device_id|x86_cpu_id|hid_device_id|'
                         r'sdio_device_id|mdio_device_id|spmi_device_id|auxiliary_device_id)\b')


class Reach:
    def __init__(self, tree, kdir):
        self.tree = tree
        self.kc = Kconfig(kdir) if kdir else None
        self.mk = Makefiles(tree)
        self.lines = {}
        self.fconds = {}
        self.dt = {}
        self.hw = {}

    def dt_strings(self, arch):
        """Every quoted string of the arch's .dts/.dtsi files."""
        if arch not in self.dt:
            out = set()
            top = os.path.join(self.tree, DT_DIRS.get(arch, '-'))
            for root, _, files in os.walk(top):
                for f in files:
                    if f.endswith(('.dts', '.dtsi')):
                        with open(os.path.join(root, f), errors='replace') as fh:
                            out |= set(DT_STRING.findall(fh.read()))
            self.dt[arch] = out
        return self.dt[arch]

    def no_rt_hardware(self, path, arches):
        """Reason when path is a device-tree-only driver, built with
        PREEMPT_RT only on arches (no x86_64), none of whose device trees
        uses any of its compatibles: the hardware is on other (32-bit)
        SoCs of the same platform family.  None otherwise."""
        if 'x86_64' in arches or not all(a in DT_DIRS for a in arches):
            return None
        if path not in self.hw:
            src = '\n'.join(self.src(path))
            comps = sorted(set(COMPAT.findall(src)))
            # the compatibles must be what binds the driver (not, say, a
            # table of idle-state nodes parsed by a driver that registers
            # its own device)
            binds = re.search(r'\.of_match_table\b|\b[A-Z_]*OF_DECLARE\s*\(|\bIRQCHIP_DECLARE\s*\(', src)
            if not comps or not binds or OTHER_TABLE.search(src) or \
                    not all(os.path.isdir(os.path.join(self.tree, DT_DIRS[a])) for a in arches):
                self.hw[path] = None
            else:
                present = set()
                for a in arches:
                    present |= self.dt_strings(a)
                self.hw[path] = None if present & set(comps) else (
                    'device-tree driver built with PREEMPT_RT only on %s, and no %s device tree '
                    'uses its compatibles (%s)' % (','.join(arches), '/'.join(arches),
                                                   ', '.join(comps[:3]) + (', ...' if len(comps) > 3 else '')))
        return self.hw[path]

    def src(self, path):
        if path not in self.lines:
            try:
                with open(os.path.join(self.tree, path), errors='replace') as fh:
                    self.lines[path] = fh.read().split('\n')
            except OSError:
                self.lines[path] = []
        return self.lines[path]

    def built(self, conds, extra, variant):
        """Architectures whose allyesconfig (variant rt/nort) builds it."""
        out = []
        for a in CONFIGS:
            s = self.kc.syms[(a, variant)]
            if any(all(x in s for x in alt + extra) for alt in conds):
                out.append(a)
        return out

    def tag(self, path, line, region=None):
        """(tag, reason) for a finding at path:line whose atomic region (if
        any) is opened at line region."""
        parts = path.split('/')
        if parts[0] == 'arch' and len(parts) > 1 and parts[1] not in RT_ARCHES:
            return 'non-rt-arch', 'arch/%s cannot select ARCH_SUPPORTS_RT' % parts[1]
        if TEST_PATH.search(path) or path == 'lib/locking-selftest.c':
            return 'test-code', 'test file'
        dead, syms = preproc_state(self.src(path), line)
        if dead:
            return 'dead-code', 'preprocessor: #if 0, a macro defined as 0 or !PREEMPT_RT'
        if c_not_rt(self.src(path), line):
            return 'dead-code', 'under if (!IS_ENABLED(CONFIG_PREEMPT_RT))'
        if region and region != line:
            # the region's opener compiled out on RT: no region there
            if preproc_state(self.src(path), region)[0]:
                return 'dead-code', 'region opened at line %d under #if 0 or !PREEMPT_RT' % region
            if c_not_rt(self.src(path), region):
                return 'dead-code', 'region opened at line %d under if (!IS_ENABLED(CONFIG_PREEMPT_RT))' % region
        if self.kc is None:
            return 'rt-reachable', 'no Kconfig data'
        if path not in self.fconds:
            self.fconds[path] = self.mk.file_conds(path)
        conds = self.fconds[path]
        if conds is None:
            conds = self.mk.dir_conds(os.path.dirname(path))
        if any(TEST_SYM.search(x) for alt in conds for x in alt) and \
                all(any(TEST_SYM.search(x) for x in alt) for alt in conds):
            return 'test-code', 'built only with a test symbol'
        rt = self.built(conds, syms, 'rt')
        if rt:
            hw = self.no_rt_hardware(path, rt)
            if hw:
                return 'non-rt-arch', hw
            return 'rt-reachable', 'built by allyesconfig+PREEMPT_RT on %s' % ','.join(rt)
        nort = self.built(conds, syms, 'nort')
        need = sorted(set(x for alt in conds for x in alt) | set(syms))
        if nort:
            return 'kconfig-excludes-rt', 'CONFIG %s set on %s only without PREEMPT_RT' % (
                '&'.join(need) or '-', ','.join(nort))
        return 'non-rt-arch', 'CONFIG %s not set on x86_64/arm64/riscv' % ('&'.join(need) or '-')
