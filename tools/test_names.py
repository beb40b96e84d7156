#!/usr/bin/env python3
"""Compares the tests of two revisions of the repository by name.

usage: python3 tools/test_names.py BEFORE AFTER   (any git revisions)

Lists the `#[test]` functions of every `.rs` file (the `fn` after each attribute) in both trees,
the names present in BEFORE and absent in AFTER, and, for the names in both whose bodies differ
(comments and whitespace aside), those whose float literals (tolerances) or number of `assert*!`
differ, with the literals removed and added. Also counts doctests (Rust code blocks in the doc
comments of library sources), Python tests (`def test_`) and `#[ignore]`.
"""
import collections
import re
import subprocess
import sys


def git(*args):
    return subprocess.run(["git", *args], capture_output=True, text=True, check=True).stdout


def sources(rev, ext):
    for f in git("ls-tree", "-r", "--name-only", rev).split():
        if f.endswith(ext):
            yield f, git("show", f"{rev}:{f}")


def fn_body(txt, i):
    """The text from `i` (just past a function's `{`) to its closing brace, skipping braces in
    strings, raw strings, character literals and comments."""
    depth, j, n = 1, i, len(txt)
    while depth and j < n:
        c = txt[j]
        if txt.startswith("//", j):
            j = txt.find("\n", j) % (n + 1)
        elif c == "r" and re.match(r'r#*"', txt[j : j + 8]) and not txt[j - 1].isalnum():
            hashes = re.match(r'r(#*)"', txt[j:]).group(1)
            j = txt.find('"' + hashes, j + len(hashes) + 2) + len(hashes)
        elif c == '"':
            j += 1
            while j < n and txt[j] != '"':
                j += 2 if txt[j] == "\\" else 1
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", txt[j : j + 4]):
            j = txt.index("'", j + 2)
        elif c in "{}":
            depth += 1 if c == "{" else -1
        j += 1
    return txt[i:j]


def tests(rev):
    out = collections.defaultdict(list)
    doctests = pytests = ignored = 0
    for f, txt in sources(rev, ".rs"):
        ignored += len(re.findall(r"#\[ignore", txt))
        for m in re.finditer(r"#\[test\](?:\s*#\[[^\]]*\])*\s*(?:pub\s+)?fn\s+(\w+)[^{]*\{", txt):
            body = re.sub(r"//[^\n]*", "", fn_body(txt, m.end()))
            out[m.group(1)].append((f, re.sub(r"\s+", "", body)))
        lib = not re.search(r"(^|/)(tests|examples|benches)/|^fuzz/", f)
        inside = False
        for line in txt.split("\n"):
            d = re.match(r"\s*(///|//!)\s?(.*)", line)
            if not (lib and d and d.group(2).strip().startswith("```")):
                continue
            lang = d.group(2).strip()[3:].strip()
            if not inside and lang.split(",")[0] in ("", "rust", "no_run", "should_panic"):
                doctests += 1
            inside = not inside
    for _, txt in sources(rev, ".py"):
        pytests += len(re.findall(r"^\s*def test_", txt, re.M))
    return out, doctests, pytests, ignored


def signature(body):
    lits = re.findall(r"(?<![\w.])\d+(?:\.\d+)?e-?\d+|(?<![\w.])\d+\.\d+", body)
    return collections.Counter(lits), len(re.findall(r"assert\w*!", body))


a, b = tests(sys.argv[1]), tests(sys.argv[2])
for name, t in (("before", a), ("after", b)):
    n = sum(len(v) for v in t[0].values())
    print(f"{name}: {n} #[test] functions ({len(t[0])} names), {t[1]} doctests, "
          f"{t[2]} Python tests, {t[3]} #[ignore]")
gone = sorted(set(a[0]) - set(b[0]))
print(f"names in before and not in after: {len(gone)}")
for n in gone:
    print("  ", n, a[0][n][0][0])
same = 0
for n, va in sorted(a[0].items()):
    vb = b[0].get(n)
    if not vb:
        continue
    if any(x[1] == y[1] for x in va for y in vb):
        same += 1
        continue
    sa, sb = signature(va[0][1]), signature(vb[0][1])
    if sa != sb:
        print(f"  {n} ({va[0][0]} -> {vb[0][0]}): asserts {sa[1]} -> {sb[1]}, "
              f"literals removed {sorted((sa[0] - sb[0]).elements())} "
              f"added {sorted((sb[0] - sa[0]).elements())}")
print(f"same body: {same} of {len(set(a[0]) & set(b[0]))} names in both")
