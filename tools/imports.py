#!/usr/bin/env python3
"""The file-level import graph of a crate, and its cycles.

usage: tools/imports.py [--edges] [--allow DIR] CRATE_SRC_DIR ...   (e.g. src derivatives/src)

An edge a -> b means a file refers to an item or module defined in file b (through `use`,
a path `crate::…`/`super::…`/`self::…`, or a child module declared in a), with `pub use`
re-exports followed to the file that defines the item. Prints the strongly connected
components of more than one file; exits 1 if there is any, except a component whose files all
lie in a folder given with `--allow` (a known circle not yet broken: printed, not failed).
Inline unit-test modules (`#[cfg(test)] mod name { … }`) are skipped: they are not compiled
into the crate, and a test may load a model through the whole pipeline.
"""
import os
import re
import sys


def strip(src):
    """Source without comments, string literals and visibility paths (so paths in docs do not
    count)."""
    src = re.sub(r'//[^\n]*', '', src)
    src = re.sub(r'/\*.*?\*/', '', src, flags=re.S)
    src = re.sub(r'r#*"(?:.|\n)*?"#*', '""', src)
    src = re.sub(r'"(?:\\[\s\S]|[^"\\])*"', '""', src)
    src = re.sub(r"'(?:\\.|[^'\\])'", "''", src)
    # `pub(in path)` names where an item is visible, not what it uses
    src = re.sub(r'\bpub\(in\s+[\w:]+\)', 'pub', src)
    # inline unit-test modules are not part of the crate's structure
    while True:
        m = re.search(r'#\[cfg\(test\)\]\s*mod\s+\w+\s*\{', src)
        if not m:
            break
        i, depth = m.end(), 1
        while depth and i < len(src):
            depth += {'{': 1, '}': -1}.get(src[i], 0)
            i += 1
        src = src[:m.start()] + src[i:]
    return src


def modules(root):
    """module path (tuple) -> file, for the crate whose lib.rs/main.rs is in root."""
    out = {}
    for dp, _, fs in os.walk(root):
        for f in fs:
            if not f.endswith('.rs'):
                continue
            p = os.path.relpath(os.path.join(dp, f), root)
            parts = p[:-3].split(os.sep)
            if parts[-1] in ('mod', 'lib', 'main'):
                parts = parts[:-1]
            out[tuple(parts)] = os.path.join(root, p)
    return out


def expand_use(tree):
    """'a::{b, c::{d, e as f}}' -> ['a::b', 'a::c::d', 'a::c::e']."""
    tree = re.sub(r'\s+as\s+', '@as@', tree)
    tree = re.sub(r'\s+', '', tree)
    def rec(prefix, s):
        res = []
        depth, cur, parts = 0, '', []
        for ch in s:
            if ch == '{':
                depth += 1
            elif ch == '}':
                depth -= 1
            if ch == ',' and depth == 0:
                parts.append(cur)
                cur = ''
            else:
                cur += ch
        if cur:
            parts.append(cur)
        for p in parts:
            m = re.match(r'^(.*?)::\{(.*)\}$', p)
            if m:
                res += rec(prefix + m.group(1) + '::', m.group(2))
            elif p.startswith('{') and p.endswith('}'):
                res += rec(prefix, p[1:-1])
            else:
                res.append(prefix + p.replace('@as@', ' as '))
        return res
    return rec('', tree)


def inline_mods(src):
    """[(start, end, name)] character ranges of inline `mod name { … }` blocks."""
    out = []
    for m in re.finditer(r'\bmod\s+(\w+)\s*\{', src):
        i = m.end()
        depth = 1
        while depth and i < len(src):
            depth += {'{': 1, '}': -1}.get(src[i], 0)
            i += 1
        out.append((m.start(), i, m.group(1)))
    return out


def main():
    args = sys.argv[1:]
    show_edges = '--edges' in args
    args = [a for a in args if a != '--edges']
    allow = []
    while '--allow' in args:
        i = args.index('--allow')
        allow.append(os.path.normpath(args[i + 1]) + os.sep)
        del args[i:i + 2]
    bad = False
    for root in args:
        mods = modules(root)
        srcs = {k: strip(open(v).read()) for k, v in mods.items()}
        # re-exports: module -> name -> absolute path (tuple)
        reexp = {}
        uses = {}

        def absolute(modpath, path):
            segs = path.split('::')
            cur = list(modpath)
            if segs[0] == 'crate':
                cur, segs = [], segs[1:]
            elif segs[0] == 'self':
                segs = segs[1:]
            elif segs[0] == 'super':
                while segs and segs[0] == 'super':
                    cur = cur[:-1]
                    segs = segs[1:]
            else:
                return None
            return tuple(cur) + tuple(s for s in segs if s)

        def mod_at(src, pos, modpath):
            extra = []
            for a, b, name in inline_mods(src):
                if a <= pos < b:
                    extra.append(name)
            return tuple(modpath) + tuple(extra)

        for mp, src in srcs.items():
            reexp[mp] = {}
            for m in re.finditer(r'(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);', src):
                mpos = mod_at(src, m.start(), mp)
                for p in expand_use(m.group(2)):
                    local = p.split(' as ')[-1].split('::')[-1]
                    p = p.split(' as ')[0]
                    a = absolute(mpos, p)
                    if a is None:
                        # bare path relative to this module (2018 edition: crate-local child)
                        first = p.split('::')[0]
                        if (*mpos, first) in mods:
                            a = tuple(mpos) + tuple(p.split('::'))
                    if a is None:
                        continue
                    uses.setdefault(mp, []).append(a)
                    if m.group(1) and mpos == mp:
                        reexp[mp][local] = a

        def resolve(path, depth=0):
            """absolute path -> defining file module path."""
            # longest module prefix
            for k in range(len(path), -1, -1):
                if path[:k] in mods:
                    rest = path[k:]
                    if rest and rest[0] in reexp.get(path[:k], {}) and depth < 10:
                        tgt = reexp[path[:k]][rest[0]]
                        if tgt != path[:k + 1]:
                            return resolve(tgt + rest[1:], depth + 1)
                    return path[:k]
            return None

        edges = {mp: set() for mp in mods}
        for mp, src in srcs.items():
            refs = list(uses.get(mp, []))
            for m in re.finditer(r'\b((?:crate|super|self)(?:::\w+)+)\b(?!::(?:\w|\{))', src):
                refs.append(absolute(mod_at(src, m.start(), mp), m.group(1)))
            # child modules referred to by bare name
            for child in [k for k in mods if len(k) == len(mp) + 1 and k[:len(mp)] == mp]:
                if re.search(r'\b' + child[-1] + r'::', src):
                    refs.append(child)
            for r in refs:
                if r is None:
                    continue
                t = resolve(r)
                if t is not None and t != mp:
                    edges[mp].add(t)
        # Tarjan
        index, low, stack, on, sccs = {}, {}, [], set(), []
        counter = [0]
        sys.setrecursionlimit(10000)

        def strong(v):
            index[v] = low[v] = counter[0]
            counter[0] += 1
            stack.append(v)
            on.add(v)
            for w in edges[v]:
                if w not in index:
                    strong(w)
                    low[v] = min(low[v], low[w])
                elif w in on:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                sccs.append(comp)

        for v in mods:
            if v not in index:
                strong(v)
        name = lambda k: mods[k]
        nedge = sum(len(e) for e in edges.values())
        cyc = [c for c in sccs if len(c) > 1]
        print(f'{root}: {len(mods)} files, {nedge} edges, {len(cyc)} cycle(s)')
        for c in cyc:
            files = [os.path.normpath(name(k)) for k in c]
            allowed = any(all(f.startswith(a) for f in files) for a in allow)
            bad = bad or not allowed
            print('  cycle of', len(c), 'files' + (' (allowed)' if allowed else '') + ':',
                  ' '.join(sorted(name(k) for k in c)))
            cs = set(c)
            for k in sorted(c):
                for t in sorted(edges[k] & cs):
                    print('    ', name(k), '->', name(t))
        if show_edges:
            for k in sorted(edges):
                for t in sorted(edges[k]):
                    print('  ', name(k), '->', name(t))
    sys.exit(1 if bad else 0)


main()
